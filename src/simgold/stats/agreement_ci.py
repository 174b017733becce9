"""Percentile bootstrap, B resamples (``agreement.resamples``, default 1000), for the statistics of the
agreement table: ``pairwise`` (mean pairwise-complete Spearman over the rater pairs with a value),
``vs_mean``, ``vs_rest`` (means over raters) and ``alpha_interval``. Three schemes, all reported:

* ``items``: the items are drawn with replacement, every rater kept. A resample is a dataset of N
  items in which an item drawn twice is two items (as in the bootstrap of model scores): it counts
  twice for ``min_overlap`` and in the ranks (ties). The item means are those of all raters.
* ``raters``: the raters are drawn with replacement, every item kept. A rater drawn twice is one
  person: the pairs of a rater with its own copy are not pairs of raters and are left out of
  ``pairwise`` (they would add correlations of 1) and of alpha (they would add pairs that never
  disagree: ``alpha_raters``). ``vs_mean`` and ``vs_rest`` are means over the raters of a Spearman
  with item means that every rater shapes: a resample adds to the estimate the draw-count-weighted
  mean of the raters' jackknife influence values (each computed from the panel without that rater;
  ``agreement_replicates.reference_raters``), so a rater drawn twice counts twice without pulling
  the item means toward itself, and a rest of fewer distinct raters does not make the reference
  noisier. Their interval (raters and both) is that of a mean of R raters' values, and a plain
  percentile interval of so few units is too narrow: its ends are the replicates' percentiles at
  the level whose normal quantile is Student's t with R - 1 degrees of freedom (Hesterberg's
  expanded percentile interval; the ``confidence`` column keeps the level asked for). The dataset
  values average over the drawn raters, each copy counting. With fewer than three raters there is
  no raters interval.
* ``both`` (two-way): items and raters drawn together, each with its own draws, in one resample:
  a drawn item is a unit as with ``items`` (a rater pair's or a rater's Spearman on the drawn items,
  each copy counting), a drawn rater a person as with ``raters`` (the same pairs and copies left
  out, the same weights by the draw counts; ``vs_mean`` and ``vs_rest``: the items scheme's value on
  the drawn items plus the raters scheme's influence part for the drawn raters). Would other
  pairs, rated by other raters, agree as well? The widest of the three. With fewer than three
  raters there is no ``both`` interval either.

A resample where a statistic is undefined (no rater pair with a value, no rater with a value, no
expected disagreement, or one pairable item for alpha) is counted in ``n_undefined``; the interval
comes from the others. The point estimates are those of ``simgold.agreement`` (the agreement
table's values); where one is undefined there is no interval, and ``undefined_reason`` gives the
note its reason.

Seeds: one numpy Generator per scheme, seeded from the config seed and the dataset, stage, subset
and scheme names (``simgold.stats.seeds.seed_for``).

Work cap. The *work* of one resample is the number of ratings it ranks or sums (the items, for
alpha with items resampled), except for ``pairwise`` with items resampled (alone or with the
raters: ``both``), which ranks the shared items of every rater pair: pairs of raters not both
complete rank their joint cells (shared items pooled by the two raters' scores: at most the shared
items, and at most K^2 for K distinct scores), bounded by ``min(shared items, pairs x K^2)``;
complete raters rank their items once (``C x items``). ``both`` weighs each pair's value by its
raters' draw counts, one product per value: it costs what the items scheme costs. (``pairwise``
with raters resampled sums the rater pairs' values weighted by the draw counts, one sparse product
that costs less than ranking the ratings: it counts as the ratings; so do ``vs_mean`` and
``vs_rest`` with both resampled, which rank at most the drawn raters' ratings of the drawn items.)

``vs_mean`` and ``vs_rest`` with raters resampled (alone or with the items) first compute the
statistic of the R panels without one rater, each as much work as one resample: R resamples' work
done once (``WITHOUT_ONE_RATER``). A statistic and scheme uses the first
``min(B, max_work // work - once)`` of its B resamples (``once``: that fixed part, else 0; the same
draws whatever the cap: a larger cap extends them), and none when that leaves fewer than
``min_resamples(confidence)`` (a 95% interval needs 40, one beyond each end); the ``resamples``
column says how many were used and the note why. The default, ``agreement.ci_max_work`` =
15 million, never binds on the per-rater datasets of ../shared (the largest, Danish pairwise: 13
thousand per resample, 13 million for B = 1000); at crowd scale (1000 raters x 2000 items at 10%:
200 thousand ratings, 10 million pair x shared-item entries) it allows 75 resamples of everything
but ``pairwise`` with items resampled (alone or with the raters), and ``vs_mean`` and ``vs_rest``
with raters resampled (their 1000 panels without one rater alone exceed it), which get no interval,
and the agreement stage keeps its time budget (benchmarks/agreement_ci.py).

The replicates themselves: ``simgold.stats.agreement_replicates``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from simgold.stats.agreement_statistics import (
    AGREEMENT_STATISTICS,
    SCHEMES,
    Resampling,
    agreement_summary,
    ci_statistics,
    undefined_reason,
)
from simgold.stats.rank_correlation import AgreementStats, PairResult, RatingMatrix, agreement
from simgold.stats.resampling import draw_counts, draws, min_resamples, percentile_interval
from simgold.stats.seeds import seed_for

__all__ = [
    "MIN_RATERS_RESAMPLED",
    "TABLE_COLUMNS",
    "WITHOUT_ONE_RATER",
    "AgreementCI",
    "AgreementCIRow",
    "agreement_cis",
    "replicates",
    "resamples_within",
    "work_per_resample",
]

MIN_RATERS_RESAMPLED = 3  # raters a "raters" or "both" interval needs (two give one pair in every resample)
# statistics whose "raters" and "both" replicates first compute the panels without one rater
# (agreement_replicates.reference_raters): R resamples' work, done once
WITHOUT_ONE_RATER = ("vs_mean", "vs_rest")


class AgreementCIRow(NamedTuple):
    """One row of the agreement_ci table, by name (its fields are the table's columns, in order).

    Attributes
    ----------
    dataset : str
        The table's ``dataset`` column.
    stage : str
        The table's ``stage`` column.
    subset : str
        The table's ``subset`` column.
    statistic : str
        The table's ``statistic`` column.
    scheme : str
        The table's ``scheme`` column.
    value : float
        The table's ``value`` column.
    ci_low : float
        The table's ``ci_low`` column.
    ci_high : float
        The table's ``ci_high`` column.
    confidence : float
        The table's ``confidence`` column.
    resamples : int
        The table's ``resamples`` column.
    n_undefined : int
        The table's ``n_undefined`` column.
    note : str
        The table's ``note`` column.
    """

    dataset: str
    stage: str
    subset: str
    statistic: str
    scheme: str
    value: float
    ci_low: float
    ci_high: float
    confidence: float
    resamples: int
    n_undefined: int
    note: str


TABLE_COLUMNS = list(AgreementCIRow._fields)  # the canonical schema's columns (simgold.io.tables), in order


@dataclass
class AgreementCI:
    """The CI table (one row per statistic and scheme) and the bootstrap replicates behind it
    (``(statistic, scheme) -> array`` of the resamples used, NaN where undefined).

    Attributes
    ----------
    rows : list
        The ``AgreementCIRow`` of each statistic and scheme (``simgold.stages.agreement.ci_table``
        makes them a table).
    replicates : dict
        ``(statistic, scheme) -> array``: the statistic on each resample used.
    """

    rows: list
    replicates: dict


def work_per_resample(m: RatingMatrix) -> dict:
    """(statistic, scheme) -> the work of one resample (see the module docstring).

    Parameters
    ----------
    m : RatingMatrix
        The ratings (items x raters, sparse).

    Returns
    -------
    dict
        Maps (statistic name, scheme) to the work of one resample of ``m`` (an int; the number of
        ratings where the statistic has no work function for the scheme).

    Examples
    --------
    >>> X = np.array([[1, 2, 3.0], [2, 2, 1], [3, np.nan, 2], [4, 1, np.nan]])  # rater 0 complete
    >>> m = RatingMatrix.from_dense(X)
    >>> work = work_per_resample(m)
    >>> work["pairwise", "items"], work["vs_mean", "raters"], work["alpha_interval", "items"]
    (12, 10, 4)
    """
    return {
        (name, scheme): s.work[scheme](m) if scheme in s.work else len(m.score)
        for name, s in AGREEMENT_STATISTICS.items()
        for scheme in s.replicates
    }


def replicates(
    m: RatingMatrix, pairs: PairResult, weights, counts, min_overlap: int, wanted=None, both=None
) -> dict:
    """Bootstrap replicates: ``weights`` (resamples x items, how often each item is drawn) and
    ``counts`` (resamples x raters) are the resampled datasets; ``both`` a pair (weights, counts)
    drawn together for the two-way scheme (default: ``weights`` and ``counts`` themselves), handed
    to its replicate functions side by side (resamples x (items + raters));
    ``wanted`` maps (statistic, scheme) to how many of the resamples to use (default: all, for every
    statistic and scheme of ``AGREEMENT_STATISTICS`` with a replicate function).

    Parameters
    ----------
    m : RatingMatrix
        The ratings (items x raters, sparse).
    pairs : PairResult
        The rater pairs and their Spearman values.
    weights : object
        resamples x items: how often each item is drawn.
    counts : object
        resamples x raters: how often each rater is drawn.
    min_overlap : int
        Shared items a pair of raters needs for a Spearman value (``agreement.min_overlap``).
    wanted : object
        (statistic, scheme) -> how many of the resamples to use (default: all).
    both : object
        The items and raters drawn together for the two-way scheme: (weights, counts).

    Returns
    -------
    dict
        Maps (statistic, scheme) to a float array of the statistic's value in each resample used
        (NaN where it has none); keys whose count in ``wanted`` is 0 are left out.
    """
    draws_of = {"items": weights, "raters": counts, "both": np.hstack(both or (weights, counts))}
    if wanted is None:
        wanted = {(name, scheme): len(draws_of[scheme]) for name, scheme in work_per_resample(m)}
    data = Resampling(m, pairs, min_overlap)
    return {
        (name, scheme): AGREEMENT_STATISTICS[name].replicates[scheme](data, draws_of[scheme][:used])
        for (name, scheme), used in wanted.items()
        if used > 0
    }


def _compact(m: RatingMatrix, pairs: PairResult) -> tuple[RatingMatrix, PairResult]:
    """The items and raters with a rating (the units that are resampled)."""
    rated = np.bincount(m.rater, minlength=m.shape[1]) > 0
    m = m.keep_raters(rated)
    return m.subset(np.bincount(m.item, minlength=m.shape[0]) > 0), pairs.restrict(rated)


def agreement_cis(
    dataset: str,
    stage: str,
    subset: str,
    matrix: RatingMatrix,
    *,
    stats: AgreementStats | None = None,
    resamples: int,
    seed: int,
    confidence: float,
    min_overlap: int,
    max_work: int,
    statistics=None,
    schemes=SCHEMES,
    min_defined: int | None = None,
) -> AgreementCI:
    """Percentile bootstrap CIs of the agreement statistics of one rating matrix (one stage and
    subset), resampling items, raters, and both together (each scheme its own draws). ``stats``: the
    matrix's agreement, when the stage has it already (the point estimates are its values).
    ``statistics``: default, those of ``ci_statistics()``; each gets a row per scheme it has a
    replicate function for.

    An interval rests on the resamples where the statistic has a value (the others are counted in
    ``n_undefined``): with fewer than ``min_defined`` of them (default ``min_resamples``: one beyond
    each end of the interval, 40 at 95%) the interval is NaN and the note says so. Raters are
    resampled (alone or with the items) only from ``MIN_RATERS_RESAMPLED`` raters on: with two, every
    resample with a value is the same pair, and its zero-width interval would read as certainty.
    Where the statistic itself has no value (``undefined_reason``: one rater, constant scores, no
    shared items) there is no interval either (resamples that duplicate items can reach
    ``min_overlap`` where the data do not), and the note starts with why.

    Parameters
    ----------
    dataset : str
        The dataset's name.
    stage : str
        The stage (``raw``, ``calibrated``, ``filtered``).
    subset : str
        The subset (``all`` or ``column=value``).
    matrix : RatingMatrix
        The ratings (items x raters, sparse).
    stats : AgreementStats | None
        The agreement of one rating matrix.
    resamples : int
        Bootstrap resamples.
    seed : int
        The root of the seeds (``scoring.seed``).
    confidence : float
        The intervals' coverage (``scoring.confidence``).
    min_overlap : int
        Shared items a pair of raters needs for a Spearman value (``agreement.min_overlap``).
    max_work : int
        The work cap of one CI (``agreement.ci_max_work``).
    statistics : object
        Names of ``AGREEMENT_STATISTICS`` (default: those with CIs).
    schemes : object
        The resampling schemes (``items``, ``raters``, ``both``).
    min_defined : int | None
        The fewest resamples with a value an interval rests on (None: ``min_resamples``).

    Returns
    -------
    AgreementCI
        One row per (statistic, scheme) with the point value, the interval (NaN where there is
        none), the resamples used, the undefined count and a note; and the replicate arrays.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = np.rint(rng.uniform(0, 6, (30, 1)) + rng.normal(size=(30, 6)))
    >>> settings = {"resamples": 200, "seed": 0, "confidence": 0.95, "min_overlap": 5, "max_work": 15_000_000}
    >>> ci = agreement_cis("toy", "raw", "all", RatingMatrix.from_dense(X), **settings)
    >>> row = next(r for r in ci.rows if (r.statistic, r.scheme) == ("pairwise", "items"))
    >>> bool(row.ci_low < row.value < row.ci_high), row.n_undefined, row.resamples
    (True, 0, 200)
    """
    stats = stats if stats is not None else agreement(matrix, min_overlap)
    point = agreement_summary(stats)
    why_none = {name: undefined_reason(stats, name) for name in ci_statistics()}
    m, pairs = _compact(matrix, stats.pairs)
    work = work_per_resample(m)
    keys = [(s, scheme) for s in (ci_statistics() if statistics is None else statistics) for scheme in schemes]
    once = {key: m.shape[1] if key[0] in WITHOUT_ONE_RATER and key[1] != "items" else 0 for key in keys}
    wanted = {
        key: resamples_within(resamples, work[key], max_work, confidence, once[key]) for key in keys if key in work
    }
    idx = {}
    for scheme, n in (("items", m.shape[0]), ("raters", m.shape[1])):
        rng = np.random.default_rng(seed_for(seed, dataset, stage, subset, scheme))
        idx[scheme] = draw_counts(draws(n, resamples, rng), n)
    rng = np.random.default_rng(seed_for(seed, dataset, stage, subset, "both"))
    both = tuple(draw_counts(draws(n, resamples, rng), n) for n in m.shape)  # items, then raters
    reps = replicates(m, pairs, idx["items"], idx["raters"], min_overlap, wanted, both)
    rows = []
    fewest = min_resamples(confidence) if min_defined is None else int(min_defined)
    for statistic, scheme in wanted:
        values = reps.get((statistic, scheme), np.zeros(0))
        if once[statistic, scheme] and m.shape[1] > 1:  # a mean of the raters' values (WITHOUT_ONE_RATER)
            low, high, undefined = _raters_interval(values, confidence, m.shape[1])
        else:
            low, high, undefined = percentile_interval(values, confidence)
        note = _note(len(values), resamples, undefined, work[statistic, scheme], max_work, confidence,
                     once[statistic, scheme])  # fmt: skip
        reason = ""
        if why_none[statistic]:  # no estimate: an interval of the resamples would stand for nothing
            reason = f"no value: {why_none[statistic]}"
        elif scheme in ("raters", "both") and m.shape[1] < MIN_RATERS_RESAMPLED and len(values):
            reason = (
                f"{m.shape[1]} rater{'s' if m.shape[1] != 1 else ''}: resampling raters cannot show how other "
                f"raters would agree (at least {MIN_RATERS_RESAMPLED} needed)"
            )
        elif 0 < len(values) - undefined < fewest:
            reason = f"{len(values) - undefined} resamples with a value: no interval (at least {fewest} needed)"
        if reason:
            low = high = float("nan")
            note = "; ".join(part for part in (reason, note) if part)
        row = AgreementCIRow(dataset, stage, subset, statistic, scheme, point[statistic], low, high, confidence,
                             resamples=len(values), n_undefined=undefined, note=note)  # fmt: skip
        rows.append(row)
    return AgreementCI(rows, reps)


def resamples_within(resamples: int, work: int, max_work: int, confidence: float, once: int = 0) -> int:
    """How many of the resamples fit the cap; none when fewer than an interval needs.

    Parameters
    ----------
    resamples : int
        Bootstrap resamples.
    work : int
        The work of one resample.
    max_work : int
        The work cap of one CI (``agreement.ci_max_work``).
    confidence : float
        The intervals' coverage (``scoring.confidence``).
    once : int
        Work done once whatever the resamples, in resamples (``WITHOUT_ONE_RATER``: the raters).

    Returns
    -------
    int
        ``resamples`` when they and ``once`` fit ``max_work``, else as many as fit; 0 when that is
        fewer than ``min_resamples(confidence)`` (and fewer than ``resamples``).

    Examples
    --------
    >>> resamples_within(1000, 200_000, 15_000_000, 0.95), resamples_within(1000, 400_000, 15_000_000, 0.95)
    (75, 0)
    >>> resamples_within(1000, 3_200, 15_000_000, 0.95, once=16), resamples_within(1000, 200_000, 15_000_000, 0.95, 30)
    (1000, 45)
    """
    used = resamples if work * (resamples + once) <= max_work else max_work // max(work, 1) - once
    return used if used >= min(resamples, min_resamples(confidence)) and used > 0 else 0


def _raters_interval(values: np.ndarray, confidence: float, n: int) -> tuple[float, float, int]:
    """``percentile_interval`` of the replicates of a mean of n raters' values at an expanded level:
    the level whose normal quantile is Student's t quantile with n - 1 degrees of freedom
    (Hesterberg's expanded percentile interval), since a percentile interval of few units is too
    narrow."""
    from scipy.stats import norm, t  # heavy to import, and only these intervals need it

    return percentile_interval(values, float(2.0 * norm.cdf(t.ppf((1.0 + confidence) / 2.0, n - 1)) - 1.0))


def _note(used: int, resamples: int, undefined: int, work: int, max_work: int, confidence: float, once: int = 0) -> str:
    parts = []
    panels = f", as has each of the {once:,} panels without one rater" if once else ""
    cost = f"one resample has {work:,} entries to rank{panels}, agreement.ci_max_work = {max_work:,}"
    if used == 0 and resamples > 0:
        parts.append(f"no interval: {min_resamples(confidence)} resamples needed; {cost}")
    elif used < resamples:
        parts.append(f"{used} of {resamples} resamples: {cost}")
    if undefined:
        parts.append(f"{undefined} of {used} resamples without a value")
    return "; ".join(parts)
