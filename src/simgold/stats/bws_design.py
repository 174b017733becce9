"""Best-Worst Scaling tuples: which k items each question shows (docs/methods.md, Best-Worst
Scaling, how the tuples are designed).

A design of ``round(factor * n_items)`` k-tuples (Kiritchenko & Mohammad's convention: factor 2
gives 2N tuples, each item shown ``factor * k`` times) in which

* every item is shown the same number of times, within one: the tuples are cut from consecutive
  random shuffles of the items (the last one cut short), as in K&M's generator, and every later
  change is a swap of two items between two tuples, which keeps each item's count;
* no tuple shows an item twice;
* pairs of items co-occur as evenly as the number of tuples allows: the swaps repair the tuples
  holding a pair seen more often than the even spread needs, and are kept when they lower the sum
  of squared pair counts (the pairs' total is fixed by the number of tuples, so this is their SD).
  When the tuples hold fewer pair showings than there are pairs, the floor is no pair twice; with
  few items (say 8 items, k = 4, factor 6) pairs must repeat, and the floor is every pair's count
  within one of the others'. The result says how far from the floor the design stayed.

numpy only, seeded: the same arguments give the same tuples, byte for byte. The tuples are the
items a rater assignment hands out (tuple ``t`` is item ``t`` there).

Examples
--------
>>> design = bws_tuples(100, k=4, factor=2, seed=1)
>>> design.tuples.shape
(200, 4)
>>> sorted(set(design.appearances.tolist())), design.repeated_pairs
([8], 0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["TupleDesign", "bws_tuples"]

#: The weight of an item shown twice in one tuple: any swap that removes one is worth more than
#: every pair count it changes
_DUPLICATE_WEIGHT = 1 << 40
#: Random partners tried for each tuple that holds a pair too many times, per sweep
_TRIES = 24
#: Sweeps over those tuples with no gain before the search stops
_PATIENCE = 30
#: Swaps tried in all before the search stops (bounds the time where the floor is out of reach)
_MAX_TRIES = 300_000


@dataclass(frozen=True)
class TupleDesign:
    """Best-Worst Scaling tuples and how evenly they show items and pairs of items.

    Attributes
    ----------
    tuples : numpy.ndarray
        (n_tuples, k) int64 item codes ``0..n_items-1``, distinct within a row.
    n_items : int
        How many items the design is for.
    appearances : numpy.ndarray
        (n_items,) int64: how many tuples show each item.
    pair_sd : float
        The standard deviation of the pairs' co-occurrence counts over all ``n_items * (n_items - 1) / 2``
        pairs, those never together included (ddof 1, as K&M's generator scores its sets).
    pair_sd_floor : float
        The smallest ``pair_sd`` any design with as many tuples of k items can have (every pair's
        count within one of the others').
    repeated_pairs : int
        How many pairs of items share more than one tuple.
    repeats_unavoidable : bool
        Whether the tuples show more pairs than there are pairs of items, so that some pair must
        share two tuples (few items: then ``pair_sd_floor`` says how evenly they can at best).
    max_pair_count : int
        The most tuples any pair shares.
    seed : int
        The seed the tuples were drawn from.

    Examples
    --------
    >>> d = bws_tuples(8, k=4, factor=6, seed=0)
    >>> d.n_tuples, d.repeated_pairs, d.repeats_unavoidable, d.at_floor
    (48, 28, True, True)
    """

    tuples: np.ndarray
    n_items: int
    appearances: np.ndarray
    pair_sd: float
    pair_sd_floor: float
    repeated_pairs: int
    repeats_unavoidable: bool
    max_pair_count: int
    seed: int

    @property
    def n_tuples(self) -> int:
        """How many tuples there are."""
        return int(self.tuples.shape[0])

    @property
    def k(self) -> int:
        """How many items each tuple shows."""
        return int(self.tuples.shape[1])

    @property
    def max_appearance_deviation(self) -> float:
        """The largest distance of an item's appearances from their mean (below 1 when balanced)."""
        return float(np.abs(self.appearances - self.n_tuples * self.k / self.n_items).max())

    @property
    def at_floor(self) -> bool:
        """Whether the pairs are spread as evenly as any design of this size allows."""
        return bool(self.pair_sd <= self.pair_sd_floor * (1 + 1e-12))


def bws_tuples(n_items: int, k: int = 4, factor: float = 2.0, seed: int = 0) -> TupleDesign:
    """Best-Worst Scaling k-tuples of ``n_items`` items: balanced appearances, pairs spread evenly.

    Parameters
    ----------
    n_items : int
        How many items (codes ``0..n_items-1``); at least ``k``.
    k : int
        Items per tuple, 3 to 8.
    factor : float
        Tuples per item: ``round(factor * n_items)`` tuples (K&M's convention; 1.5 to 2 is usual),
        above 0.
    seed : int
        Seed of the shuffles and of the swaps.

    Returns
    -------
    TupleDesign
        The tuples, each item's appearances and the pairs' co-occurrence statistics.

    Raises
    ------
    ValueError
        ``k`` outside 3..8, fewer items than ``k``, ``factor`` not above 0.

    Examples
    --------
    >>> d = bws_tuples(1000, k=4, factor=2, seed=7)
    >>> d.n_tuples, d.repeated_pairs, d.max_pair_count, round(d.max_appearance_deviation, 6)
    (2000, 0, 1, 0.0)
    >>> bws_tuples(10, k=9)
    Traceback (most recent call last):
    ...
    ValueError: k must be 3 to 8 items per tuple, got 9
    """
    n_tuples = _checked(n_items, k, factor)
    rng = np.random.default_rng(seed)
    tuples = _shuffles_cut(n_items, k, n_tuples, rng)
    counts = _pair_counts(tuples, n_items)
    bound = _square_floor(n_items, k, n_tuples)
    _repair(tuples, counts, n_items, bound, rng)
    return _design(tuples, n_items, counts, seed)


# -------------------------------------------------------------------------------- construction


def _checked(n_items: int, k: int, factor: float) -> int:
    """The number of tuples, or a ValueError naming the argument that cannot make a design."""
    if not 3 <= k <= 8:
        raise ValueError(f"k must be 3 to 8 items per tuple, got {k}")
    if n_items < k:
        raise ValueError(f"n_items must be at least k = {k} (a tuple shows k distinct items), got {n_items}")
    if not factor > 0:
        raise ValueError(f"factor (tuples per item) must be above 0, got {factor}")
    n_tuples = int(math.floor(factor * n_items + 0.5))  # K&M's int(0.5 + factor * N)
    if n_tuples < 1:
        raise ValueError(f"factor {factor} gives no tuple for {n_items} items")
    return n_tuples


def _shuffles_cut(n_items: int, k: int, n_tuples: int, rng: np.random.Generator) -> np.ndarray:
    """Consecutive shuffles of the items, the last one cut short, cut into rows of k: every item
    shown ``floor`` or ``ceil`` of the mean number of times (a row may hold an item twice where
    two shuffles meet; the repair removes it)."""
    slots = n_tuples * k
    whole, rest = divmod(slots, n_items)
    parts = [rng.permutation(n_items) for _ in range(whole + (rest > 0))]
    return np.concatenate(parts)[:slots].astype(np.int64).reshape(n_tuples, k)


def _pair_codes(tuples: np.ndarray, n_items: int) -> np.ndarray:
    """(n_tuples, k(k-1)/2) codes ``low * n_items + high`` of each row's pairs."""
    first, second = np.triu_indices(tuples.shape[1], 1)
    a, b = tuples[:, first], tuples[:, second]
    return np.minimum(a, b) * n_items + np.maximum(a, b)


def _pair_counts(tuples: np.ndarray, n_items: int) -> dict:
    """Each pair code's count over the tuples (only pairs that occur)."""
    codes, counts = np.unique(_pair_codes(tuples, n_items), return_counts=True)
    return dict(zip(codes.tolist(), counts.tolist()))


def _square_floor(n_items: int, k: int, n_tuples: int) -> int:
    """The least sum of squared pair counts: the pairs' showings spread within one of each other."""
    n_pairs = n_items * (n_items - 1) // 2
    low, high_pairs = divmod(n_tuples * k * (k - 1) // 2, n_pairs)
    return n_pairs * low * low + high_pairs * (2 * low + 1)


def _square_sum(counts: dict, n_items: int) -> int:
    """The sum of squared pair counts, an item twice in a tuple weighing ``_DUPLICATE_WEIGHT``."""
    return sum(c * c * (_DUPLICATE_WEIGHT if code // n_items == code % n_items else 1) for code, c in counts.items())


# -------------------------------------------------------------------------------- repair swaps


def _repair(tuples: np.ndarray, counts: dict, n_items: int, bound: int, rng: np.random.Generator) -> None:
    """Swap items between tuples (in place) while some swap lowers the sum of squared pair counts:
    an item of a pair seen more often than the even spread needs, against a random item of a random
    tuple; stops at the floor, after ``_PATIENCE`` sweeps without gain or ``_MAX_TRIES`` swaps tried
    (a count, not a clock: the result stays the same from one run to the next)."""
    cost, idle, tried = _square_sum(counts, n_items), 0, 0
    while cost > bound and idle < _PATIENCE and tried < _MAX_TRIES:
        hot, hot_slots = _hot_tuples(tuples, counts, n_items)
        before = cost
        for a in rng.permutation(len(hot)).tolist():
            slots = np.flatnonzero(hot_slots[a])
            own = slots[rng.integers(0, len(slots), _TRIES)].tolist()
            partners = rng.integers(0, tuples.shape[0], _TRIES).tolist()
            theirs = rng.integers(0, tuples.shape[1], _TRIES).tolist()
            sideways = (rng.random(_TRIES) < 0.3).tolist()
            for b, i, j, level in zip(partners, own, theirs, sideways):
                tried += 1
                gain = _try_swap(tuples, counts, n_items, int(hot[a]), b, i, j, sideways=level)
                if gain is not None:
                    cost -= gain
                    break
            if cost <= bound or tried >= _MAX_TRIES:
                break
        idle = idle + 1 if cost >= before else 0


def _hot_tuples(tuples: np.ndarray, counts: dict, n_items: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows holding an item twice or a pair above the even spread's ceiling (at it, when no pair
    is above and the spread is still not the floor), and which of their slots hold such a pair."""
    codes = _pair_codes(tuples, n_items)
    value = np.vectorize(counts.__getitem__, otypes=[np.int64])(codes)
    n_pairs = n_items * (n_items - 1) // 2
    ceiling = max(1, -(-tuples.shape[0] * codes.shape[1] // n_pairs))  # the mean count, rounded up
    hot_pair = ((codes // n_items) == (codes % n_items)) | (value > ceiling)
    if not hot_pair.any() and ceiling > 1:
        hot_pair = value >= ceiling
    first, second = np.triu_indices(tuples.shape[1], 1)
    hot_slot = np.zeros(tuples.shape, dtype=bool)
    for p in range(codes.shape[1]):
        hot_slot[:, first[p]] |= hot_pair[:, p]
        hot_slot[:, second[p]] |= hot_pair[:, p]
    rows = np.flatnonzero(hot_slot.any(1))
    return rows, hot_slot[rows]


def _try_swap(tuples, counts, n_items, a, b, i, j, sideways) -> int | None:
    """Swap ``tuples[a, i]`` and ``tuples[b, j]`` if it lowers the sum of squared pair counts (or
    keeps it, when ``sideways``); the gain, or None (nothing changed)."""
    x, y = int(tuples[a, i]), int(tuples[b, j])
    if a == b or x == y:
        return None
    change: dict = {}
    for row, slot, out, into in ((a, i, x, y), (b, j, y, x)):
        for s, z in enumerate(tuples[row].tolist()):
            if s != slot:
                _bump(change, out, z, n_items, -1)
                _bump(change, into, z, n_items, +1)
    gain = 0
    for code, step in change.items():
        old = counts.get(code, 0)
        weight = _DUPLICATE_WEIGHT if code // n_items == code % n_items else 1
        gain += weight * (old * old - (old + step) * (old + step))
    if gain < 0 or (gain == 0 and not sideways):
        return None
    for code, step in change.items():
        new = counts.get(code, 0) + step
        if new:
            counts[code] = new
        else:
            counts.pop(code, None)
    tuples[a, i], tuples[b, j] = y, x
    return gain


def _bump(change: dict, u: int, v: int, n_items: int, step: int) -> None:
    code = min(u, v) * n_items + max(u, v)
    change[code] = change.get(code, 0) + step


# -------------------------------------------------------------------------------- the result


def _design(tuples: np.ndarray, n_items: int, counts: dict, seed: int) -> TupleDesign:
    """The result object: appearances and the pair statistics over all pairs, zeros included."""
    n_tuples, k = tuples.shape
    n_pairs = n_items * (n_items - 1) // 2
    values = np.fromiter(counts.values(), np.int64, len(counts))
    low, high_pairs = divmod(n_tuples * k * (k - 1) // 2, n_pairs)  # the even spread: low or low + 1
    return TupleDesign(
        tuples=tuples,
        n_items=n_items,
        appearances=np.bincount(tuples.ravel(), minlength=n_items).astype(np.int64),
        pair_sd=_sd_over_pairs(int(values.sum()), int((values * values).sum()), n_pairs),
        pair_sd_floor=_sd_over_pairs(n_pairs * low + high_pairs, _square_floor(n_items, k, n_tuples), n_pairs),
        repeated_pairs=int((values > 1).sum()),
        repeats_unavoidable=low > 1 or (low == 1 and high_pairs > 0),
        max_pair_count=int(values.max()),
        seed=seed,
    )


def _sd_over_pairs(total: int, squares: int, n_pairs: int) -> float:
    """The SD (ddof 1) of ``n_pairs`` counts from their sum and their sum of squares."""
    if n_pairs < 2:
        return 0.0
    return math.sqrt((squares * n_pairs - total * total) / (n_pairs * (n_pairs - 1)))  # exact integers first
