"""The agreement statistics and their bootstrap confidence intervals (docs/methods.md sections 4, 11).

``AGREEMENT_STATISTICS`` is the registry of the agreement table's statistics: each entry gives its
point estimate, its bootstrap replicates (if it has a CI), and where it is shown. The agreement
table and its canonical schema, the agreement_ci table, the dataset pages and ``simgold agreement``
derive from it: a new statistic is one entry (``AgreementStatistics`` shows how).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from simgold.stats.agreement_replicates import (
    alpha_items,
    alpha_raters,
    pairwise_items,
    pairwise_raters,
    reference_items,
    reference_raters,
)
from simgold.stats.alpha import krippendorff_alpha, undefined_note
from simgold.stats.rank_correlation import (
    AgreementStats,
    PairResult,
    RatingMatrix,
    complete_raters,
    reference_values,
)

__all__ = [
    "AGREEMENT_STATISTICS",
    "SCHEMES",
    "AgreementStatistic",
    "AgreementStatistics",
    "Resampling",
    "agreement_summary",
    "ci_statistics",
    "slot_ci_statistics",
    "slot_summary",
    "undefined_reason",
]

SCHEMES = ("items", "raters", "both")  # both: items and raters resampled together (two-way)


class Resampling(NamedTuple):
    """What a replicate function resamples: the rating matrix (only the items and raters with a
    rating), its rater pairs (``rank_correlation.pairwise_spearman``) and ``min_overlap``.

    Attributes
    ----------
    matrix : RatingMatrix
        The ``matrix`` field.
    pairs : PairResult
        The ``pairs`` field.
    min_overlap : int
        The ``min_overlap`` field.
    """

    matrix: RatingMatrix
    pairs: PairResult
    min_overlap: int


@dataclass(frozen=True)
class AgreementStatistic:
    """One value column of the agreement table (its name is its key in ``AGREEMENT_STATISTICS``).

    Parameters
    ----------
    description : str
        What the value is, in a few words (the ``simgold agreement`` legend shows it).
    value : callable
        ``value(stats) -> float`` (or int): the point estimate from ``stats``, the
        ``rank_correlation.AgreementStats`` of one rating matrix (``stats.matrix``) with what every
        statistic shares (the rater pairs' Spearman, the per-rater values), computed once.
    dtype : {"float", "int"}
        The column's type in the canonical table (an int column cannot hold "no value").
    replicates : mapping
        Scheme (``"items"``, ``"raters"``, ``"both"``) -> ``f(data, draws) -> array``: the statistic
        on each resampled dataset; ``data`` is a ``Resampling``, ``draws`` is resamples x items (how
        often each item is drawn), resamples x raters, or for ``both`` the two side by side
        (resamples x (items + raters): ``_two_way`` splits them). A statistic with replicates gets a
        CI per scheme (the agreement_ci table); NaN where a resample leaves it undefined.
    work : mapping
        Scheme -> ``f(matrix) -> int``: the work of one resample, for ``agreement.ci_max_work``
        (default: the number of ratings).
    slots : callable or None
        ``slots(matrix) -> value`` when the rating columns are slots, not people
        (``persistent_raters: false``): only what needs no rater identity is defined there; None:
        no value (NaN). Slots get the CIs of the statistics with ``slots`` and an items replicate.
    report : bool
        Whether the dataset page's agreement table shows the column.
    overview : str or None
        The column's name in the agreement overview (``simgold agreement``, the report's front
        page), where it is the value of the raters kept (filtered stage, all items); None: not shown.
    """

    description: str
    value: Callable[[AgreementStats], float]
    dtype: str = "float"
    replicates: Mapping[str, Callable[[Resampling, np.ndarray], np.ndarray]] = field(default_factory=dict)
    work: Mapping[str, Callable[[RatingMatrix], int]] = field(default_factory=dict)
    slots: Callable[[RatingMatrix], float] | None = None
    report: bool = True
    overview: str | None = None

    def __post_init__(self):
        if self.dtype not in ("float", "int"):
            raise ValueError(f"agreement statistic dtype {self.dtype!r}: expected float or int")
        unknown = set(self.replicates) - set(SCHEMES)
        if unknown or self.replicates and self.dtype != "float":
            raise ValueError(f"replicates for {sorted(self.replicates)}: expected float values and schemes {SCHEMES}")


def _defined(values: np.ndarray) -> np.ndarray:
    return values[~np.isnan(values)]


def _mean(values: np.ndarray) -> float:
    return float(values.mean()) if len(values) else float("nan")


def _min(values: np.ndarray) -> float:
    return float(values.min()) if len(values) else float("nan")


def _max(values: np.ndarray) -> float:
    return float(values.max()) if len(values) else float("nan")


def _extreme(pairs: PairResult, ufunc) -> float:
    """The lowest (``np.fmin``) or highest (``np.fmax``) pair value, NaN without one: a reduction
    that skips NaN, so no copy of the values is made."""
    return float(ufunc.reduce(pairs.rho)) if pairs.n_pairs else float("nan")


def _consistency(stats: AgreementStats) -> float:
    avg = _defined(stats.avg_pairwise)
    return float(np.std(avg, ddof=1)) if len(avg) > 1 else float("nan")


def _pairwise_items_work(m: RatingMatrix) -> int:
    """The pairs not both complete rank their joint cells, the complete raters their items once."""
    n_items, R = m.shape
    k = np.bincount(m.item, minlength=n_items).astype(np.int64)
    C = int(complete_raters(m).sum())
    triples = int((k * (k - 1) // 2).sum()) - n_items * C * (C - 1) // 2  # pairs not both complete
    distinct = len(np.unique(m.score))
    return min(triples, (R * (R - 1) - C * (C - 1)) // 2 * distinct**2) + C * n_items


def _no_rater(m: RatingMatrix) -> int:
    return 0


def _two_way(replicate: Callable[[Resampling, np.ndarray, np.ndarray], np.ndarray]):
    """The two-way scheme's replicate function from ``replicate(data, counts, weights)``: its draws,
    side by side (resamples x (items + raters)), split into the rater counts and the item weights."""

    def both(data: Resampling, draws: np.ndarray) -> np.ndarray:
        n_items = data.matrix.shape[0]
        return replicate(data, draws[:, n_items:], draws[:, :n_items])

    return both


class AgreementStatistics(dict):
    """The registry of agreement statistics (``AGREEMENT_STATISTICS``): name -> ``AgreementStatistic``,
    the agreement table's value columns in column order (between ``subset`` and ``note``). The
    canonical table (``simgold.io.tables``), its CIs (the agreement_ci table), the dataset pages and
    the agreement overview (``simgold agreement``) all derive from it, when they are made.

    Parameters
    ----------
    entries : dict
        The registry's entries, by name.

    Examples
    --------
    A statistic is one entry; say the mean absolute deviation of a rating from its item's mean,
    with a CI resampling items (an item's mean is the same in every resample):

    >>> def deviations(m):  # per item: the summed |score - item mean| and the number of ratings
    ...     mean = reference_values(m)[0]
    ...     return np.bincount(m.item, abs(m.score - mean), m.shape[0]), np.bincount(m.item, minlength=m.shape[0])
    >>> AGREEMENT_STATISTICS["mad"] = AgreementStatistic(
    ...     "mean absolute deviation of a rating from its item's mean",
    ...     value=lambda stats: float(np.divide(*(x.sum() for x in deviations(stats.matrix)))),
    ...     replicates={"items": lambda data, w: np.divide(*(w @ x for x in deviations(data.matrix)))},
    ...     overview="mad",
    ... )
    >>> from simgold.stats.rank_correlation import agreement
    >>> X = np.array([[1, 2, 3.0], [2, 2, 5], [4, 5, 3], [4, 4, 4], [1, 1, 4]])
    >>> m = RatingMatrix.from_dense(X)
    >>> agreement_summary(agreement(m, min_overlap=2))["mad"]  # (2 + 4 + 2 + 0 + 4) / 15 ratings
    0.8
    >>> from simgold.stats.agreement_ci import agreement_cis
    >>> settings = {"resamples": 100, "seed": 0, "confidence": 0.95, "min_overlap": 2, "max_work": 15_000_000}
    >>> ci = agreement_cis("toy", "raw", "all", m, **settings)
    >>> [[row.scheme, row.resamples] for row in ci.rows if row.statistic == "mad"]
    [['items', 100]]
    >>> del AGREEMENT_STATISTICS["mad"]
    """


AGREEMENT_STATISTICS: dict[str, AgreementStatistic] = AgreementStatistics(
    {
        "n_raters": AgreementStatistic(
            "raters with a rating", lambda s: int((s.n_items_per_rater > 0).sum()), "int", slots=_no_rater
        ),
        "n_items": AgreementStatistic(
            "items with a rating (target groups, for rankings)",
            lambda s: s.n_items,
            "int",
            slots=lambda m: len(np.unique(m.item)),
        ),
        "n_ratings": AgreementStatistic(
            "ratings", lambda s: int(s.n_items_per_rater.sum()), "int", slots=lambda m: len(m.score), report=False
        ),
        "mean_score": AgreementStatistic(
            "mean of the ratings",
            lambda s: s.mean_score,
            slots=lambda m: float(m.score.mean()) if len(m.score) else np.nan,
            report=False,
        ),
        "n_pairs": AgreementStatistic(
            "rater pairs with a Spearman value", lambda s: s.pairs.n_pairs, "int", slots=_no_rater, report=False
        ),
        "n_pairs_few_items": AgreementStatistic(
            "rater pairs sharing fewer than min_overlap items",
            lambda s: s.pairs.n_few,
            "int",
            slots=_no_rater,
            report=False,
        ),
        "n_pairs_constant": AgreementStatistic(
            "rater pairs with enough shared items but constant scores",
            lambda s: s.pairs.n_constant,
            "int",
            slots=_no_rater,
            report=False,
        ),
        "pairwise": AgreementStatistic(
            "mean pairwise-complete Spearman of two raters",
            lambda s: _mean(s.pairs.values()),
            replicates={
                "items": lambda d, w: pairwise_items(d.matrix, w, d.min_overlap),
                "raters": lambda d, c: pairwise_raters(d.pairs, c),
                "both": _two_way(lambda d, c, w: pairwise_items(d.matrix, w, d.min_overlap, c)),
            },
            work={"items": _pairwise_items_work, "both": _pairwise_items_work},
            overview="pairwise",
        ),
        "pairwise_min": AgreementStatistic("lowest pairwise Spearman", lambda s: _extreme(s.pairs, np.fmin)),
        "pairwise_max": AgreementStatistic("highest pairwise Spearman", lambda s: _extreme(s.pairs, np.fmax)),
        "consistency": AgreementStatistic("standard deviation of the raters' mean pairwise Spearman", _consistency),
        "vs_mean": AgreementStatistic(
            "mean Spearman of a rater with the item means",
            lambda s: _mean(_defined(s.vs_mean)),
            replicates={
                "items": lambda d, w: reference_items(d.matrix, w, False, d.min_overlap),
                "raters": lambda d, c: reference_raters(d.matrix, c, False, d.min_overlap),
                "both": _two_way(lambda d, c, w: reference_raters(d.matrix, c, False, d.min_overlap, w)),
            },
        ),
        "vs_mean_min": AgreementStatistic(
            "lowest Spearman of a rater with the item means", lambda s: _min(_defined(s.vs_mean)), report=False
        ),
        "vs_mean_max": AgreementStatistic(
            "highest Spearman of a rater with the item means", lambda s: _max(_defined(s.vs_mean)), report=False
        ),
        "vs_rest": AgreementStatistic(
            "mean Spearman of a rater with the other raters' item means",
            lambda s: _mean(_defined(s.vs_rest)),
            replicates={
                "items": lambda d, w: reference_items(d.matrix, w, True, d.min_overlap),
                "raters": lambda d, c: reference_raters(d.matrix, c, True, d.min_overlap),
                "both": _two_way(lambda d, c, w: reference_raters(d.matrix, c, True, d.min_overlap, w)),
            },
            overview="vs_rest",
        ),
        "vs_rest_min": AgreementStatistic(
            "lowest Spearman of a rater with the other raters' means", lambda s: _min(_defined(s.vs_rest)), report=False
        ),
        "vs_rest_max": AgreementStatistic(
            "highest Spearman of a rater with the other raters' means",
            lambda s: _max(_defined(s.vs_rest)),
            report=False,
        ),
        "alpha_interval": AgreementStatistic(
            "Krippendorff's alpha, interval metric",
            lambda s: s.alpha,
            replicates={
                "items": lambda d, w: alpha_items(d.matrix, w),
                "raters": lambda d, c: alpha_raters(d.matrix, c),
                "both": _two_way(lambda d, c, w: alpha_raters(d.matrix, c, w)),
            },
            work={"items": lambda m: m.shape[0]},
            slots=lambda m: krippendorff_alpha(m.item, m.score, "interval"),
            overview="alpha",
        ),
    }
)


def agreement_summary(stats: AgreementStats) -> dict:
    """Every statistic of ``AGREEMENT_STATISTICS`` for one rating matrix (its agreement ``stats``),
    by name, in column order.

    Parameters
    ----------
    stats : AgreementStats
        The agreement of one rating matrix.

    Returns
    -------
    dict
        Statistic name -> its value (a float, NaN where undefined; an int for the counts), in
        the registry's (column) order.
    """
    return {name: statistic.value(stats) for name, statistic in AGREEMENT_STATISTICS.items()}


def slot_summary(m: RatingMatrix) -> dict:
    """The statistics of rating slots (no rater identity: ``AgreementStatistic.slots``), NaN where
    they need persistent raters.

    Parameters
    ----------
    m : RatingMatrix
        The ratings (items x raters, sparse).

    Returns
    -------
    dict
        Statistic name -> its value on the slots, in the registry's order; NaN for the
        statistics with no slot function.
    """
    return {name: s.slots(m) if s.slots else np.nan for name, s in AGREEMENT_STATISTICS.items()}


def undefined_reason(stats: AgreementStats, statistic: str) -> str:
    """Why ``statistic`` (a name of ``AGREEMENT_STATISTICS``) has no value on the ratings of
    ``stats``; "" when it has one (or, for the counts, always). The agreement table's note and the
    agreement_ci table's say it, so that a reader sees why a cell is empty.

    Parameters
    ----------
    stats : AgreementStats
        The agreement of one rating matrix.
    statistic : str
        A name of ``AGREEMENT_STATISTICS``.

    Returns
    -------
    str
        A short sentence saying why the value is missing (one rater, constant scores, too few
        shared items...); "" when the statistic has a value.

    Examples
    --------
    >>> from simgold.stats.rank_correlation import agreement
    >>> X = np.full((6, 3), 3.0)  # every rater gives every item 3
    >>> undefined_reason(agreement(RatingMatrix.from_dense(X), min_overlap=5), "pairwise")
    'every rating is 3: constant scores have no ranks to correlate'
    >>> X = np.array([[1, np.nan], [2, np.nan], [np.nan, 3], [np.nan, 1.0]])  # two raters, no item shared
    >>> stats = agreement(RatingMatrix.from_dense(X), min_overlap=2)
    >>> undefined_reason(stats, "pairwise")
    'no two raters share 2 items or more (min_overlap)'
    >>> undefined_reason(stats, "vs_mean")
    "no item has two ratings: each item's mean is its one rater's score"
    """
    value = AGREEMENT_STATISTICS[statistic].value(stats)
    m = stats.matrix
    if not (isinstance(value, float) and math.isnan(value)) or m is None:
        return ""
    if statistic == "alpha_interval":
        return undefined_note(m.item, m.score, "interval")
    n_raters = int((stats.n_items_per_rater > 0).sum())
    if n_raters < 2:
        return f"{n_raters} rater{'s' if n_raters != 1 else ''}: agreement between raters is not defined"
    if m.score.min() == m.score.max():
        return f"every rating is {m.score[0]:g}: constant scores have no ranks to correlate"
    if statistic.startswith("vs_"):
        return _reference_reason(m, stats.pairs.min_overlap, leave_out=statistic.startswith("vs_rest"))
    if statistic.startswith(("pairwise", "consistency")) and stats.pairs.n_pairs == 0:
        return _pairs_reason(stats.pairs)
    return ""  # another statistic's reason is its own to give


def _pairs_reason(pairs: PairResult) -> str:
    """Why no rater pair has a Spearman: too few shared items, constant scores on them, or both."""
    overlap = f"{pairs.min_overlap} items or more (min_overlap)"
    if pairs.n_constant == 0:
        return f"no two raters share {overlap}"
    constant = "one rater gives every shared item the same score"
    if pairs.n_few == 0:
        return f"in every pair of raters sharing {overlap}, {constant}"
    total = pairs.n_raters * (pairs.n_raters - 1) // 2
    few = f"{pairs.n_few} share fewer than {pairs.min_overlap} items (min_overlap)"
    return f"of the {total} rater pairs, {few} and in {pairs.n_constant} {constant}"


def _reference_reason(m: RatingMatrix, min_overlap: int, leave_out: bool) -> str:
    """Why no rater has a Spearman with the item means (``leave_out``: the other raters')."""
    shared = reference_values(m)[2]
    if not shared.any():
        return (
            "no item has two ratings: no rater has other raters' means to compare with"
            if leave_out
            else "no item has two ratings: each item's mean is its one rater's score"
        )
    keep = shared if leave_out else np.ones(len(m.score), dtype=bool)
    size, low, high = _spread(m.rater[keep], m.score[keep], m.shape[1])
    rated = np.unique(m.rater)
    few = int((size[rated] < min_overlap).sum())
    enough = (size > 0) & (size >= min_overlap)
    own = int((low[enough] == high[enough]).sum())
    # the rest: a rater with varying scores has no Spearman only with a constant reference
    flat = int(enough.sum()) - own
    items = f"fewer than {min_overlap} items (min_overlap)" + (" that another rater rated" if leave_out else "")
    means = "the other raters' means" if leave_out else "the item means"
    parts = [
        f"{few} rate {items}" if few else "",
        f"{own} give all their items one score" if own else "",
        f"{flat} rate items whose {means} are all equal" if flat else "",
    ]
    return f"no rater of {len(rated)} has a value: " + ", ".join(part for part in parts if part)


def _spread(rater: np.ndarray, score: np.ndarray, n_raters: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per rater: how many scores, the lowest and the highest (inf and -inf without a score)."""
    low, high = np.full(n_raters, np.inf), np.full(n_raters, -np.inf)
    np.minimum.at(low, rater, score)
    np.maximum.at(high, rater, score)
    return np.bincount(rater, minlength=n_raters), low, high


def ci_statistics() -> tuple[str, ...]:
    """The statistics with bootstrap CIs (those with replicates), in the registry's order.

    Returns
    -------
    tuple[str, ...]
        Names of ``AGREEMENT_STATISTICS`` with at least one replicate scheme.
    """
    return tuple(name for name, s in AGREEMENT_STATISTICS.items() if s.replicates)


def slot_ci_statistics() -> tuple[str, ...]:
    """The statistics with CIs for rating slots: defined for slots, with an items replicate (slots
    are not raters to resample).

    Returns
    -------
    tuple[str, ...]
        Names of ``AGREEMENT_STATISTICS`` with a slot function and an ``items`` replicate.
    """
    return tuple(n for n, s in AGREEMENT_STATISTICS.items() if s.slots is not None and "items" in s.replicates)
