"""Designing a rating collection (docs/methods.md section 11.8): which raters rate which items, in
which order each rater sees them, and how many raters each item needs.

* **Assignment.** ``N`` items each rated by exactly ``K`` of ``R`` raters, every rater's load within
  one of ``N K / R``, and pairs of raters sharing items as evenly as the design allows: a greedy
  construction (each item takes the least-loaded raters that share the fewest items with those
  already on it), then swaps that keep every count exact while lowering the spread of the pairs'
  overlaps, towards a balanced incomplete block design where one exists.
* **Order.** Per rater: anchors first, then the rater's items in a random order with each repeated
  item asked a second time at least half the questionnaire later, attention items one per stretch
  of the questionnaire, and each pair's two words in a random order.
* **Sizing.** Raters per item for a target reliability by Spearman-Brown (``raters_needed``), the
  split-half reliability to expect with its interval, and the cost in answers.

Examples
--------
>>> design = assign_raters(12, 6, 3, seed=0)
>>> design.loads.tolist(), int(design.overlap_min), int(design.overlap_max)
([6, 6, 6, 6, 6, 6], 2, 3)
>>> size_rating_design(300, 0.9, r1=0.5).raters_per_item
9
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from simgold.stats.reliability import raters_needed, spearman_brown
from simgold.stats.seeds import seed_for

__all__ = [
    "allocate_answers",
    "QuestionnaireOrder",
    "RaterAssignment",
    "RatingSizing",
    "assign_raters",
    "questionnaire_orders",
    "size_rating_design",
]

#: the roles of a questionnaire's rows
ROLES = ("item", "anchor", "repeat", "attention")


@dataclass(frozen=True)
class RaterAssignment:
    """Which raters rate which items (``assign_raters``).

    Attributes
    ----------
    raters : ndarray of int, items x K
        The raters of each item, ascending along each row.
    rater_items : tuple of ndarray
        The items of each rater, ascending, one array per rater.
    loads : ndarray of int
        How many items each rater rates.
    overlap : ndarray of int, R x R
        How many items two raters both rate (the diagonal holds the loads).
    overlap_min, overlap_max : int
        The fewest and most items a pair of raters shares (0 when there are fewer than two raters).
    overlap_sd : float
        The standard deviation of the pairs' overlaps (over the ``R (R - 1) / 2`` pairs, zeros
        included, population SD).
    overlap_sd_bound : float
        The lowest SD any design of this size can have: every pair sharing the mean overlap rounded
        down or up.
    balanced : bool
        Whether every rater has the same load and every pair shares the same number of items.
    balance_note : str
        What balance was reached, and why a perfect one is impossible when it is.
    """

    raters: np.ndarray
    rater_items: tuple
    loads: np.ndarray
    overlap: np.ndarray
    overlap_min: int
    overlap_max: int
    overlap_sd: float
    overlap_sd_bound: float
    balanced: bool
    balance_note: str


def _positive_int(name: str, value, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be a whole number >= {minimum}, not {value!r}")
    return int(value)


def assign_raters(
    n_items: int, n_raters: int, raters_per_item: int, seed: int, improve_steps: int = 2000
) -> RaterAssignment:
    """Assign each of ``n_items`` items to exactly ``raters_per_item`` of ``n_raters`` raters,
    loads within one and pairs of raters sharing items as evenly as can be reached.

    Parameters
    ----------
    n_items : int
        N, the number of items (at least 1).
    n_raters : int
        R, the number of raters (at least ``raters_per_item``).
    raters_per_item : int
        K, how many raters rate each item (at least 1).
    seed : int
        The random stream's seed: the same seed gives the same assignment.
    improve_steps : int, default 2000
        At most this many swap attempts after the greedy construction (each keeps every item's K
        and every load; it stops early once the overlaps are as even as any design's can be).

    Returns
    -------
    RaterAssignment
        The raters of each item, the items of each rater, the loads, the overlap matrix and its
        spread, and whether (and why not) the design is perfectly balanced.

    Raises
    ------
    ValueError
        A count that is not a whole number of at least 1, or ``raters_per_item > n_raters``.

    Examples
    --------
    >>> design = assign_raters(7, 7, 3, seed=0)  # the Fano plane: every pair of raters shares one item
    >>> design.balanced, int(design.overlap_min), int(design.overlap_max)
    (True, 1, 1)
    >>> assign_raters(5, 4, 3, seed=0).balance_note.split(";")[0]
    'N*K = 15 answers do not split evenly over R = 4 raters: loads 3 to 4'
    """
    n = _positive_int("n_items", n_items)
    r = _positive_int("n_raters", n_raters)
    k = _positive_int("raters_per_item", raters_per_item)
    steps = _positive_int("improve_steps", improve_steps, minimum=0)
    if k > r:
        raise ValueError(f"raters_per_item = {k} is more than n_raters = {r}: each item needs K distinct raters")
    rng = np.random.default_rng(seed)
    raters, overlap = _greedy(n, r, k, rng)
    if r > 1 and k > 1:
        _improve(raters, overlap, steps, rng)
    raters.sort(axis=1)
    return _assignment(raters, overlap)


def _greedy(n: int, r: int, k: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """Each item in turn takes K raters among the least loaded (loads stay within one), each the one
    sharing the fewest items with those already chosen (random among ties)."""
    overlap = np.zeros((r, r), dtype=np.int64)
    loads = np.zeros(r, dtype=np.int64)
    raters = np.empty((n, k), dtype=np.int64)
    for i in range(n):
        shared = rng.random(r) * 0.5  # below 1: breaks ties among equal overlaps only
        least = loads == loads.min()
        in_least = int(least.sum())
        taken = np.zeros(r, dtype=bool)
        for j in range(k):
            allowed = ~taken & least if j < in_least else ~taken
            chosen = int(np.argmin(np.where(allowed, shared, np.inf)))
            raters[i, j] = chosen
            taken[chosen] = True
            shared += overlap[chosen]
        overlap[np.ix_(raters[i], raters[i])] += 1
        loads[raters[i]] += 1
    return raters, overlap


def _improve(raters: np.ndarray, overlap: np.ndarray, steps: int, rng) -> None:
    """Double swaps (rater a leaves item i for b, b leaves item j for a: every count unchanged) that
    do not raise the sum of squared overlaps, aimed at the pair furthest from the mean overlap."""
    n, k = raters.shape
    r = len(overlap)
    items_of = [set() for _ in range(r)]
    for i, row in enumerate(raters):
        for rater in row:
            items_of[int(rater)].add(i)
    upper = np.triu_indices(r, 1)
    mean = n * k * (k - 1) / (r * (r - 1))
    low, high = math.floor(mean), math.ceil(mean)
    for _ in range(steps):
        pairs = overlap[upper]
        if pairs.max() <= high and pairs.min() >= low:
            return  # as even as any design's
        worst = int(np.argmax(np.abs(pairs - mean) + rng.random(len(pairs)) * 1e-3))
        a, c = (int(upper[0][worst]), int(upper[1][worst]))[:: 1 if rng.random() < 0.5 else -1]
        pool = items_of[a] & items_of[c] if pairs[worst] > mean else items_of[c] - items_of[a]
        if not pool:
            continue
        i = _draw(pool, rng)
        if pairs[worst] > mean:  # a leaves an item it shares with c
            leaving, coming = a, None
        else:  # a joins an item of c's, in place of one of its raters
            others = raters[i][raters[i] != c]
            leaving, coming = int(others[rng.integers(len(others))]), a
        _try_swap(raters, overlap, items_of, i, leaving, coming, rng)


def _draw(items: set, rng) -> int:
    pool = np.fromiter(sorted(items), dtype=np.int64)
    return int(pool[rng.integers(len(pool))])


def _move(overlap: np.ndarray, out: int, into: int, others: np.ndarray, sign: int = 1) -> None:
    """Rater ``out`` leaves an item whose other raters are ``others`` and ``into`` takes its place
    (``sign = -1`` undoes it)."""
    overlap[out, others] -= sign
    overlap[others, out] -= sign
    overlap[into, others] += sign
    overlap[others, into] += sign


def _try_swap(raters, overlap, items_of, i: int, a: int, b, rng) -> None:
    """Rater ``a`` leaves item ``i`` for ``b`` (the best one when None), and ``b`` leaves the item of
    its own where ``a`` fits best; kept when the sum of squared overlaps does not rise."""
    k = raters.shape[1]
    slot_i = int(np.nonzero(raters[i] == a)[0][0])
    others_i = np.delete(raters[i], slot_i)
    shared = overlap[others_i].sum(axis=0)
    change_i = 2 * (shared - shared[a]) + 2 * (k - 1)  # the sum of squares' change when b replaces a
    if b is None:
        candidates = change_i + rng.random(len(change_i)) * 0.5
        candidates[raters[i]] = np.inf
        b = int(np.argmin(candidates))
    elif b in raters[i]:
        return
    _move(overlap, a, b, others_i)
    items_b = np.fromiter(sorted(items_of[b]), dtype=np.int64)
    rows = raters[items_b]
    free = ~(rows == a).any(axis=1)
    items_b, rows = items_b[free], rows[free]
    if len(items_b):
        diff = overlap[a] - overlap[b]
        change_j = 2 * (diff[rows].sum(axis=1) - diff[b]) + 2 * (k - 1)
        best = int(np.argmin(change_j + rng.random(len(change_j)) * 0.5))
        if change_i[b] + change_j[best] <= 0:
            j = int(items_b[best])
            _move(overlap, b, a, rows[best][rows[best] != b])
            raters[i, slot_i] = b
            raters[j, int(np.nonzero(raters[j] == b)[0][0])] = a
            items_of[a].symmetric_difference_update((i, j))
            items_of[b].symmetric_difference_update((i, j))
            return
    _move(overlap, a, b, others_i, sign=-1)


def _assignment(raters: np.ndarray, overlap: np.ndarray) -> RaterAssignment:
    n, k = raters.shape
    r = len(overlap)
    loads = np.bincount(raters.ravel(), minlength=r)
    pairs = overlap[np.triu_indices(r, 1)]
    mean = n * k * (k - 1) / (r * (r - 1)) if r > 1 else 0.0
    frac = mean - math.floor(mean)
    bound = math.sqrt(frac * (1.0 - frac))
    low, high = (int(pairs.min()), int(pairs.max())) if len(pairs) else (0, 0)
    sd = float(pairs.std()) if len(pairs) else 0.0
    balanced = int(loads.min()) == int(loads.max()) and low == high
    order = np.argsort(raters.ravel(), kind="stable")
    bounds = np.concatenate([[0], np.cumsum(loads)])
    item_ids = np.repeat(np.arange(n), k)[order]
    rater_items = tuple(item_ids[bounds[x] : bounds[x + 1]] for x in range(r))
    note = _balance_note(n, r, k, loads, mean, low, high, sd, bound, balanced)
    return RaterAssignment(raters, rater_items, loads, overlap, low, high, sd, bound, balanced, note)


def _balance_note(n, r, k, loads, mean, low, high, sd, bound, balanced) -> str:
    reached = f"best reached: overlaps {low} to {high}, SD {sd:.3f} (the lowest any design can have: {bound:.3f})"
    if balanced:
        return f"perfectly balanced: every rater rates {int(loads[0])} items, every pair of raters shares {low}"
    reasons = []
    if (n * k) % r:
        reasons.append(
            f"N*K = {n * k} answers do not split evenly over R = {r} raters: loads {int(loads.min())} to {int(loads.max())}"
        )
    if not float(mean).is_integer():
        reasons.append(
            f"a pair of raters shares N*K*(K-1)/(R*(R-1)) = {mean:.3f} items on average, not a whole number:"
            f" at best {math.floor(mean)} or {math.ceil(mean)}"
        )
    if not reasons:
        reasons.append(
            "no perfectly balanced design (a balanced incomplete block design) was reached; one may not exist"
        )
    return "; ".join(reasons + [reached])


@dataclass(frozen=True)
class QuestionnaireOrder:
    """The rows of every rater's questionnaire (``questionnaire_orders``), one per question asked.

    Attributes
    ----------
    rater : ndarray of int
        The rater (the index into the ``rater_items`` given).
    position : ndarray of int
        The question's place in the rater's questionnaire, from 0.
    item : ndarray of int
        The item asked.
    role : ndarray of str
        ``item`` (an assigned item), ``anchor`` (rated by every rater, asked first), ``repeat`` (an
        item or anchor asked the second time) or ``attention`` (an attention check).
    swapped : ndarray of bool
        True where the pair's two words are shown in the other order.
    repeat_gap : ndarray of int
        Per rater, the distance promised between an item's two askings (the positions' difference is
        at least this; 0 for a rater with no repeats).
    """

    rater: np.ndarray
    position: np.ndarray
    item: np.ndarray
    role: np.ndarray
    swapped: np.ndarray
    repeat_gap: np.ndarray


def _id_array(name: str, values) -> np.ndarray:
    ids = np.asarray(list(values) if not isinstance(values, np.ndarray) else values)
    if ids.size == 0:
        return np.zeros(0, dtype=np.int64)
    if ids.ndim != 1 or not np.issubdtype(ids.dtype, np.integer):
        raise ValueError(f"{name} must be a sequence of whole item ids, not {values!r}")
    if len(np.unique(ids)) != len(ids):
        raise ValueError(f"{name} holds an item twice: {sorted(ids.tolist())!r}")
    return ids.astype(np.int64)


def questionnaire_orders(
    rater_items, seed: int, anchors=(), repeats=(), attention=(), min_repeat_gap: int | None = None
) -> QuestionnaireOrder:
    """Each rater's questionnaire: anchors first, then the rater's items in a random order with the
    repeated ones asked again far apart and attention items spread through, each pair's words in a
    random order.

    Parameters
    ----------
    rater_items : sequence of array_like of int
        The items of each rater (``RaterAssignment.rater_items``).
    seed : int
        The base seed; each rater's stream is derived from it and the rater (``seed_for``), so a
        rater's questionnaire does not depend on the others'.
    anchors : array_like of int, default ()
        Items every rater rates, asked first (in a random order per rater); none of a rater's items.
    repeats : array_like of int, default ()
        Items (assigned or anchors) asked twice for test-retest, by every rater who rates them.
    attention : array_like of int, default ()
        Attention items, asked by every rater, one in each of as many equal stretches of the
        questionnaire after the anchors.
    min_repeat_gap : int, optional
        The least distance wanted between an item's two askings; it is raised to half the rater's
        items and repeats (rounded up) and lowered to the most that rater's questionnaire allows.

    Returns
    -------
    QuestionnaireOrder
        One row per question (rater, position, item, role, swapped) and each rater's repeat gap.

    Raises
    ------
    ValueError
        Ids that are not whole numbers or repeat, anchors or attention items among a rater's items,
        repeats that no rater rates, more repeats than a rater's questionnaire can hold apart, or a
        negative ``min_repeat_gap``.

    Examples
    --------
    >>> order = questionnaire_orders([[0, 1, 2, 3]], seed=0, anchors=[10], repeats=[2])
    >>> order.role.tolist()[0], int(order.repeat_gap[0]), len(order.item)
    ('anchor', 3, 6)
    """
    items_by_rater = [_id_array(f"rater_items[{x}]", its) for x, its in enumerate(rater_items)]
    anchors, repeats, attention = (
        _id_array(n, v) for n, v in [("anchors", anchors), ("repeats", repeats), ("attention", attention)]
    )
    if min_repeat_gap is not None:
        _positive_int("min_repeat_gap", min_repeat_gap, minimum=0)
    _check_roles(items_by_rater, anchors, repeats, attention)
    columns = [
        _one_order(x, its, seed, anchors, repeats, attention, min_repeat_gap) for x, its in enumerate(items_by_rater)
    ]
    if not columns:
        empty = np.zeros(0, dtype=np.int64)
        return QuestionnaireOrder(empty, empty, empty, np.zeros(0, dtype="<U9"), empty.astype(bool), empty)
    parts = list(zip(*columns))
    return QuestionnaireOrder(*(np.concatenate(p) for p in parts[:5]), np.array(parts[5], dtype=np.int64))


def _check_roles(items_by_rater, anchors, repeats, attention) -> None:
    rated = np.unique(np.concatenate(items_by_rater)) if items_by_rater else np.zeros(0, dtype=np.int64)
    for name, ids in (("anchors", anchors), ("attention", attention)):
        if np.isin(ids, rated).any():
            raise ValueError(f"{name} {ids[np.isin(ids, rated)].tolist()!r} are also assigned items")
    if np.isin(anchors, attention).any():
        raise ValueError(f"anchors {anchors[np.isin(anchors, attention)].tolist()!r} are also attention items")
    unknown = repeats[~np.isin(repeats, np.concatenate([rated, anchors]))]
    if len(unknown):
        raise ValueError(f"repeats {unknown.tolist()!r} are neither assigned items nor anchors")


def _one_order(rater, items, seed, anchors, repeats, attention, min_gap):
    """One rater's rows: anchors, then the body with repeats ``gap`` apart, attention spread in."""
    rng = np.random.default_rng(seed_for(seed, "questionnaire order", str(rater)))
    anchors_first = rng.permutation(anchors)
    items = rng.permutation(items)
    again = np.isin(items, repeats)
    again_anchors = rng.permutation(anchors[np.isin(anchors, repeats)])
    n_again = int(again.sum()) + len(again_anchors)
    if n_again > len(items):
        raise ValueError(
            f"repeats: rater {rater} would repeat {n_again} questions among only {len(items)} items"
            " (no order keeps them half the questionnaire apart)"
        )
    body_items, body_roles, gap = _body(items, again, again_anchors, min_gap, rng)
    body_items, body_roles = _spread(body_items, body_roles, rng.permutation(attention), rng)
    item = np.concatenate([anchors_first, body_items]).astype(np.int64)
    role = np.concatenate([np.full(len(anchors_first), "anchor", dtype="<U9"), body_roles])
    swapped = rng.random(len(item)) < 0.5
    return np.full(len(item), rater, dtype=np.int64), np.arange(len(item)), item, role, swapped, gap if n_again else 0


def _body(items, again, again_anchors, min_gap, rng):
    """The items with the repeats: first askings in the first ``M - gap`` slots, second askings
    exactly ``gap`` later (``gap >= M / 2``, so the two ranges never meet), anchors' second askings
    in free slots of the second range."""
    n_again_items = int(again.sum())
    size = len(items) + n_again_items + len(again_anchors)
    gap = min(max(min_gap or 0, -(-size // 2)), size - n_again_items - len(again_anchors))
    body = np.full(size, -1, dtype=np.int64)
    roles = np.full(size, "item", dtype="<U9")
    firsts = np.sort(rng.choice(size - gap, n_again_items, replace=False))
    body[firsts], body[firsts + gap] = items[again], items[again]
    roles[firsts + gap] = "repeat"
    free_late = np.flatnonzero(body[gap:] < 0) + gap
    late = rng.choice(free_late, len(again_anchors), replace=False)
    body[late], roles[late] = again_anchors, "repeat"
    body[body < 0] = items[~again]
    return body, roles, gap


def _spread(body, roles, attention, rng):
    """Attention items inserted one per equal stretch of the final body, at a random place in it."""
    if not len(attention):
        return body, roles
    size, n = len(body) + len(attention), len(attention)
    starts = (np.arange(n) * size) // n
    ends = (np.arange(1, n + 1) * size) // n
    where = starts + (rng.random(n) * (ends - starts)).astype(np.int64)
    out_items = np.empty(size, dtype=np.int64)
    out_roles = np.empty(size, dtype="<U9")
    is_check = np.zeros(size, dtype=bool)
    is_check[where] = True
    out_items[is_check], out_roles[is_check] = attention, "attention"
    out_items[~is_check], out_roles[~is_check] = body, roles
    return out_items, out_roles


@dataclass(frozen=True)
class RatingSizing:
    """How many raters each item needs, what reliability to expect, and what it costs
    (``size_rating_design``).

    Attributes
    ----------
    raters_per_item : int
        K, at least 2 (a split-half needs two halves).
    n_raters : int
        R, the panel the cost counts anchors and attention items for.
    r1 : float
        One rater's reliability the sizing used (the pilot's, or ``item_sd**2 / (item_sd**2 +
        noise_sd**2)``).
    target : float
        The target reliability (NaN when K was given).
    expected_reliability : float
        The reliability of the mean of K raters, ``K r1 / (1 + (K - 1) r1)``.
    expected_half : float
        The expected correlation between the item means of two halves of ``K // 2`` and
        ``K - K // 2`` raters: ``sqrt(R_h1 R_h2)``.
    expected_split_half : float
        The split-half reliability the reliability stage reports: ``2 r / (1 + r)`` of
        ``expected_half``.
    interval : tuple of float
        The split-half reliability's interval at ``level`` over ``n_items`` items.
    level : float
        The interval's coverage.
    method : str
        How K, the expectation and the interval were found.
    answers : int
        The answers to collect in all.
    answers_by_role : dict
        The answers per role: ``item`` (N K), ``anchor`` and ``attention`` (R each), ``repeat``
        (K per repeated item).
    """

    raters_per_item: int
    n_raters: int
    r1: float
    target: float
    expected_reliability: float
    expected_half: float
    expected_split_half: float
    interval: tuple
    level: float
    method: str
    answers: int
    answers_by_role: dict


def _unit(name: str, value, closed: bool = False) -> float:
    ok = isinstance(value, (int, float, np.floating)) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or not (0.0 < value < 1.0 or (closed and value == 1.0)):
        raise ValueError(f"{name} must be a number between 0 and 1, not {value!r}")
    return float(value)


def _single_rater_reliability(r1, item_sd, noise_sd) -> tuple[float, str]:
    if r1 is not None:
        if item_sd is not None or noise_sd is not None:
            raise ValueError(f"give r1 = {r1!r} or item_sd and noise_sd, not both")
        return _unit("r1", r1, closed=True), f"the pilot's single-rater reliability r1 = {r1:.3f}"
    for name, value in (("item_sd", item_sd), ("noise_sd", noise_sd)):
        if not isinstance(value, (int, float, np.floating)) or isinstance(value, bool) or not value > 0:
            raise ValueError(f"{name} must be a positive number (or give r1), not {value!r}")
    r1 = item_sd**2 / (item_sd**2 + noise_sd**2)
    return r1, f"r1 = item_sd^2 / (item_sd^2 + noise_sd^2) = {r1:.3f} from the assumed SDs"


def size_rating_design(
    n_items: int,
    target: float | None = None,
    *,
    raters_per_item: int | None = None,
    r1: float | None = None,
    item_sd: float | None = None,
    noise_sd: float | None = None,
    n_raters: int | None = None,
    n_anchors: int = 0,
    n_repeats: int = 0,
    n_attention: int = 0,
    level: float = 0.95,
) -> RatingSizing:
    """Raters per item for a target reliability (Spearman-Brown), the split-half reliability to expect
    with its interval, and the answers it costs.

    Parameters
    ----------
    n_items : int
        N, the items to rate (at least 4: the interval needs ``N - 3 > 0``).
    target : float, optional
        The reliability of the item means wanted; K is the raters needed for it (at least 2).
        Give it or ``raters_per_item``.
    raters_per_item : int, optional
        K given instead of a target (at least 2): the sizing then states what it reaches.
    r1 : float, optional
        One rater's reliability from a pilot (``simgold.stats.reliability.single_rater``).
    item_sd, noise_sd : float, optional
        Assumed SD of the items' true values and of one rater's noise (instead of ``r1``).
    n_raters : int, optional
        R, the panel size (at least K); K when not given (every rater rates every item).
    n_anchors, n_repeats, n_attention : int, default 0
        Anchors and attention items (asked of every rater) and repeated items (asked again by the K
        raters who rate each), counted in the cost.
    level : float, default 0.95
        The interval's coverage.

    Returns
    -------
    RatingSizing
        K, the reliability expected (of K raters' means, and the split-half figure with its
        interval), the method in words, and the answers in all and per role.

    Raises
    ------
    ValueError
        A target or r1 outside (0, 1), both or neither of r1 and the SDs, both or neither of target
        and K, a non-positive SD, a count that is not a whole number or too small, or R < K.

    Examples
    --------
    >>> sizing = size_rating_design(500, 0.9, r1=0.5, n_raters=50, n_anchors=5)
    >>> sizing.raters_per_item, round(sizing.expected_reliability, 4), sizing.answers
    (9, 0.9, 4750)
    >>> [round(x, 3) for x in sizing.interval]
    [0.88, 0.915]
    """
    n = _positive_int("n_items", n_items, minimum=4)
    r1, source = _single_rater_reliability(r1, item_sd, noise_sd)
    level = _unit("level", level)
    if (target is None) == (raters_per_item is None):
        raise ValueError(f"give target or raters_per_item, not both nor neither: {target!r}, {raters_per_item!r}")
    if target is not None:
        target = _unit("target", target)
        k = max(2, int(raters_needed(r1, target)))
        how = f"K = {k}: the raters needed for {target:g} by Spearman-Brown, R (1 - r1) / (r1 (1 - R)) rounded up, at least 2"
    else:
        k = _positive_int("raters_per_item", raters_per_item, minimum=2)
        target, how = float("nan"), f"K = {k} given"
    r = k if n_raters is None else _positive_int("n_raters", n_raters)
    if r < k:
        raise ValueError(f"n_raters = {r} is fewer than raters_per_item = {k}")
    extra = {
        name: _positive_int(name, v, minimum=0)
        for name, v in [("n_anchors", n_anchors), ("n_repeats", n_repeats), ("n_attention", n_attention)]
    }
    half = math.sqrt(spearman_brown(r1, k // 2) * spearman_brown(r1, k - k // 2))
    low, high = _fisher_interval(half, n, level)
    by_role = {
        "item": n * k,
        "anchor": r * extra["n_anchors"],
        "repeat": k * extra["n_repeats"],
        "attention": r * extra["n_attention"],
    }
    method = (
        f"{source}; {how}; split-half: halves of {k // 2} and {k - k // 2} raters, their means' expected correlation "
        f"sqrt(R_h1 R_h2) by Spearman-Brown, doubled by 2 r / (1 + r); interval: Fisher's z of that correlation over "
        f"N = {n} items (SE 1 / sqrt(N - 3), one random split), mapped by 2 r / (1 + r)"
    )
    return RatingSizing(
        k,
        r,
        r1,
        target,
        spearman_brown(r1, k),
        half,
        _doubled(half),
        (low, high),
        level,
        method,
        sum(by_role.values()),
        by_role,
    )


def _doubled(r: float) -> float:
    return 2.0 * r / (1.0 + r)


def _fisher_interval(r: float, n: int, level: float) -> tuple[float, float]:
    """The split-half reliability's interval: Fisher's z of the halves' correlation, doubled."""
    if r >= 1.0:
        return 1.0, 1.0
    quantile = NormalDist().inv_cdf(0.5 + level / 2.0)
    z, se = math.atanh(r), 1.0 / math.sqrt(n - 3)
    return _doubled(math.tanh(z - quantile * se)), _doubled(math.tanh(z + quantile * se))


def allocate_answers(widths, counts, budget: int, caps=None) -> np.ndarray:
    """Share ``budget`` further answers among items so that the widest intervals shrink most: each
    answer in turn goes to the item whose interval, as expected after the answers given so far, is
    widest (a mean's interval narrows as ``1 / sqrt(n)``: ``width * sqrt(n / (n + extra))``).

    Parameters
    ----------
    widths : array_like of float
        Each item's interval width now (NaN or inf: no interval yet, served first).
    counts : array_like of int
        The answers each item has now (at least 1 where the width is finite).
    budget : int
        The answers to share (at least 0).
    caps : array_like of int, optional
        The most answers an item may take (the raters who could still answer it); no limit when
        not given.

    Returns
    -------
    ndarray of int
        The further answers of each item (summing to ``budget``, or to the caps' sum when that is
        smaller).

    Examples
    --------
    >>> allocate_answers([2.0, 1.0, 0.5], [4, 4, 4], 3).tolist()
    [3, 0, 0]
    >>> allocate_answers([2.0, 1.0, 0.5], [4, 4, 4], 6, caps=[2, 9, 9]).tolist()
    [2, 4, 0]
    """
    widths = np.asarray(widths, dtype=float)
    counts = np.asarray(counts, dtype=float)
    budget = _positive_int("budget", budget, minimum=0)
    caps = np.full(len(widths), budget) if caps is None else np.asarray(caps, dtype=np.int64)
    scale = np.where(np.isfinite(widths), widths, np.inf) * np.sqrt(np.maximum(counts, 1.0))
    extra = np.zeros(len(widths), dtype=np.int64)
    for _ in range(min(budget, int(caps.sum()))):
        expected = np.where(extra < caps, scale / np.sqrt(np.maximum(counts, 1.0) + extra), -np.inf)
        extra[int(np.argmax(expected))] += 1  # the first of equal widths: the same shares on any machine
    return extra
