"""The agreement statistics and their bootstrap confidence intervals (docs/methods.md sections 4, 11).

``AGREEMENT_STATISTICS`` is the registry of the agreement table's statistics: each entry gives its
point estimate, its bootstrap replicates (if it has a CI), and where it is shown. The agreement
table and its canonical schema, the agreement_ci table, the dataset pages and ``simgold agreement``
derive from it: a new statistic is one entry (``AgreementStatistics`` shows how).

Percentile bootstrap, B resamples (``agreement.resamples``, default 1000), for the statistics of the
agreement table: ``pairwise`` (mean pairwise-complete Spearman over the rater pairs with a value),
``vs_mean``, ``vs_rest`` (means over raters) and ``alpha_interval``. Three schemes, all reported:

* ``items``: the items are drawn with replacement, every rater kept. A resample is a dataset of N
  items in which an item drawn twice is two items (as in the bootstrap of model scores): it counts
  twice for ``min_overlap`` and in the ranks (ties). The item means are those of all raters.
* ``raters``: the raters are drawn with replacement, every item kept. A rater drawn twice is one
  person: the pairs of a rater with its own copy are not pairs of raters and are left out of
  ``pairwise`` (they would add correlations of 1) and of alpha (they would add pairs that never
  disagree: ``alpha_raters``), and ``vs_rest`` leaves out every copy of the rater; ``vs_mean`` takes
  the resample as it is (the item means count each copy). The dataset values average over the
  drawn raters, each copy counting. With fewer than three raters there is no raters interval.
* ``both`` (two-way): items and raters drawn together, each with its own draws, in one resample:
  a drawn item is a unit as with ``items`` (a rater pair's or a rater's Spearman on the drawn items,
  each copy counting), a drawn rater a person as with ``raters`` (the same pairs and copies left
  out, the same weights by the draw counts, the item means over the drawn raters). Would other
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

A statistic and scheme uses the first ``min(B, max_work // work)`` of its B resamples (the same
draws whatever the cap: a larger cap extends them), and none when that leaves fewer than
``min_resamples(confidence)`` (a 95% interval needs 40, one beyond each end); the ``resamples``
column says how many were used and the note why. The default, ``agreement.ci_max_work`` =
15 million, never binds on the per-rater datasets of ../shared (the largest, Danish pairwise: 13
thousand per resample, 13 million for B = 1000); at crowd scale (1000 raters x 2000 items at 10%:
200 thousand ratings, 10 million pair x shared-item entries) it allows 75 resamples of everything
but ``pairwise`` with items resampled (alone or with the raters), which gets no interval, and the
agreement stage keeps its time budget (benchmarks/agreement_ci.py).

How it is fast. Everything is exact (tests compare every replicate with scipy on the resampled
dataset to 1e-12):

* items resampled: a resample is a weight vector w (how often each item was drawn). Within a group
  of entries (a rater pair's shared items, or a rater's ratings), the average rank of a value is the
  weight of the group's smaller values plus (its tie weight + 1) / 2. The entries are pooled once
  into cells of equal (group, value) (and joint cells of equal (group, value a, value b)); per
  resample, the cells' weights are one sparse product with the item weights and the ranks a
  cumulative sum over the cells, for a few resamples at once. Spearman then comes from grouped sums
  (``agreement.spearman_from_sums``), exact in float64 (ranks are multiples of 1/2);
* raters who rated every item ("complete") rank the same items with every partner: their ranks
  under w are computed once per resample and all their pairs come from one batched product
  ``R diag(w) R'`` (this is the whole of Danish but 6 raters);
* raters resampled: a pair's value does not depend on the other raters, so the mean over a
  resample's pairs is ``c' P c / c' D c`` for the draw counts c (one matrix product for all
  resamples); alpha's sums per item are matrix products of the counts; ``vs_mean`` / ``vs_rest``
  rank the new item means of many resamples in one call of ``agreement.group_ranks``, each
  (resample, rater) a group (a counting sort when the means take few values);
* both resampled: the items scheme's engines with the rater draw counts as weights. A rater pair's
  value under the item weights is the items scheme's; the mean over the drawn raters' pairs weighs
  it by ``c_a c_b`` (``pairwise_items`` with ``counts``). ``vs_mean`` / ``vs_rest`` are the raters
  scheme's with each rating weighted by its item's draws in ``group_ranks`` (an entry of weight w is
  w tied entries: ``reference_raters`` with ``weights``); alpha weighs each unit by its item's draws
  (``alpha_raters`` with ``weights``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import pandas as pd

from simgold.stats.alpha import krippendorff_alpha, undefined_note
from simgold.stats.rank_correlation import (
    AgreementStats,
    PairResult,
    RatingMatrix,
    agreement,
    complete_raters,
    group_ranks,
    reference_values,
    shared_items,
    spearman_from_sums,
)
from simgold.stats.seeds import seed_for

SCHEMES = ("items", "raters", "both")  # both: items and raters resampled together (two-way)
CELLS = 1 << 18  # resamples x entries evaluated at once: arrays of 2 MB stay in the cache (faster than larger)
BLOCK_TRIPLES = 1 << 16  # rater-pair x shared-item entries per block (a few resamples of a block at once)
MAX_WORK = 15_000_000  # default agreement.ci_max_work (see the module docstring)
MIN_RATERS_RESAMPLED = 3  # raters a "raters" or "both" interval needs (two give one pair in every resample)


class AgreementCIRow(NamedTuple):
    """One row of the agreement_ci table, by name (its fields are the table's columns, in order)."""

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


def _csr(*args, **kwargs):
    """``scipy.sparse.csr_matrix``, imported on first use."""
    from scipy import sparse  # heavy: 0.2 s to import, and only a bootstrap needs it (every job reads the registry)

    return sparse.csr_matrix(*args, **kwargs)


# -------------------------------------------------------------------------------- resamples


def draws(n: int, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """resamples x n indices drawn with replacement (the resampled datasets' rows or columns)."""
    return rng.integers(0, n, size=(resamples, n))


def draw_counts(idx: np.ndarray, n: int) -> np.ndarray:
    """How often each of n units is drawn in each resample (resamples x n)."""
    rows = np.repeat(np.arange(len(idx)), idx.shape[1])
    return np.bincount(rows * n + idx.ravel(), minlength=len(idx) * n).reshape(len(idx), n).astype(float)


def _chunks(total: int, per_resample: int):
    """Slices of resamples whose resamples x per_resample stays within CELLS."""
    step = max(1, CELLS // max(per_resample, 1))
    return [slice(k, min(total, k + step)) for k in range(0, total, step)]


def _mean_of_defined(total: np.ndarray, count: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / count, np.nan)


# -------------------------------------------------------------------------------- items resampled


@dataclass
class _Cells:
    """Cells of equal (group, code) among entries, in (group, code) order: the ranks of a group's
    codes under item weights are cumulative sums over its cells."""

    of_entry: np.ndarray  # the cell of each entry
    first: np.ndarray  # the first cell of each cell's group
    group_start: np.ndarray  # where each group's cells start
    pool: object  # a scipy.sparse.csr_matrix, cells x items: how many of a cell's entries are of each item

    @classmethod
    def of(cls, group: np.ndarray, code: np.ndarray, item: np.ndarray, n_items: int) -> "_Cells":
        n_codes = int(code.max(initial=0)) + 1
        cells, of_entry = np.unique(group.astype(np.int64) * n_codes + code, return_inverse=True)
        of_entry = of_entry.reshape(-1)
        cell_group = cells // n_codes
        start = np.flatnonzero(np.r_[True, cell_group[1:] != cell_group[:-1]])
        first = np.repeat(start, np.diff(np.r_[start, len(cells)]))
        pool = _csr((np.ones(len(item)), (of_entry, item)), shape=(len(cells), n_items))
        return cls(of_entry, first, start, pool)

    def weights(self, items_by_resample: np.ndarray) -> np.ndarray:
        """The cells' weights (resamples x cells) from the items' (items x resamples, C-ordered)."""
        return np.ascontiguousarray((self.pool @ items_by_resample).T)

    def ranks(self, weight: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
        """The average rank of each cell's code in its group under the cells' weights (resamples x
        cells), and per group the weight, the weighted sum of the ranks and of their squares."""
        before = np.cumsum(weight, axis=1) - weight  # exact: sums of whole numbers
        rank = before - np.take(before, self.first, axis=1) + (weight + 1.0) / 2.0
        weighted = weight * rank
        sums = [np.add.reduceat(x, self.group_start, axis=1) for x in (weight, weighted, weighted * rank)]
        return rank, sums


class WeightedSpearman:
    """Spearman within groups of entries (an item and two integer codes each, whose order is the
    order of the two variables) for many item weight vectors at once.

    Each side's cells of equal (group, code) get their weights from one sparse product with the
    item weights, and their ranks from a cumulative sum; the cross products come from the joint
    cells of equal (group, code_a, code_b) (a rater pair's 95 shared items on a 7-point scale fill
    about 25)."""

    def __init__(self, group, item, code_a, code_b, n_items: int):
        self.side_a = _Cells.of(group, code_a, item, n_items)
        self.side_b = _Cells.of(group, code_b, item, n_items)
        n_b = int(code_b.max(initial=0)) + 1
        self.joint = _Cells.of(group, code_a.astype(np.int64) * n_b + code_b, item, n_items)
        self.a_of_joint, self.b_of_joint = (_cell_of_cell(self.joint, side) for side in (self.side_a, self.side_b))
        self.groups = np.unique(group)  # the groups with entries, in the order of ``rho``'s columns

    def rho(self, weights: np.ndarray, min_overlap: int) -> np.ndarray:
        """resamples x groups (those with entries): NaN where a group has fewer than
        ``min_overlap`` drawn entries or a constant side."""
        items = np.ascontiguousarray(weights.T)
        ra, (w, sa, saa) = self.side_a.ranks(self.side_a.weights(items))
        rb, (_, sb, sbb) = self.side_b.ranks(self.side_b.weights(items))
        cross = self.joint.weights(items) * np.take(ra, self.a_of_joint, axis=1) * np.take(rb, self.b_of_joint, axis=1)
        rho = spearman_from_sums(w, sa, saa, sb, sbb, np.add.reduceat(cross, self.joint.group_start, axis=1))
        return np.where(w >= min_overlap, rho, np.nan)

    def mean_over_groups(
        self, weights: np.ndarray, min_overlap: int, group_weights=None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Per resample: the sum of the defined values and how many there are. ``group_weights``:
        ``f(resamples) -> resamples x groups`` (a slice of the resamples; every group, with entries
        or not), the weight of each group's value (the draw counts of a rater pair's two raters, in
        the two-way scheme); default 1."""
        total, count = np.zeros(len(weights)), np.zeros(len(weights))
        size = self.joint.pool.shape[0]
        for s in _chunks(len(weights), size) if size else []:
            weight = None if group_weights is None else group_weights(s)[:, self.groups]
            total[s], count[s] = _sums_of_defined(self.rho(weights[s], min_overlap), weight)
        return total, count


def _cell_of_cell(fine: _Cells, coarse: _Cells) -> np.ndarray:
    """For each cell of ``fine``, the cell of ``coarse`` that holds its entries."""
    out = np.zeros(fine.pool.shape[0], np.int64)
    out[fine.of_entry] = coarse.of_entry
    return out


def _complete_pairs_items(m: RatingMatrix, weights: np.ndarray, min_overlap: int, counts: np.ndarray | None = None):
    """(sum, count) per resample over the pairs of complete raters: their ranks under w once per
    resample, every pair's sums from one batched product; with ``counts`` (resamples x raters), each
    pair's value weighted by the product of its raters' draw counts."""
    n_items = m.shape[0]
    idx = np.flatnonzero(complete_raters(m))
    B = len(weights)
    total, count = np.zeros(B), np.zeros(B)
    if len(idx) < 2:
        return total, count
    entries = np.isin(m.rater, idx)  # sorted by rater, then item: n_items entries per rater
    rater = np.repeat(np.arange(len(idx)), n_items)
    cells = _Cells.of(rater, _codes(m.score)[entries], m.item[entries], n_items)
    i, j = np.triu_indices(len(idx), k=1)  # the pairs
    upper = i * len(idx) + j
    for s in _chunks(B, len(rater)):
        w = weights[s]
        rank, (total_w, sum_r, sum_rr) = cells.ranks(cells.weights(np.ascontiguousarray(w.T)))
        R = np.take(rank, cells.of_entry, axis=1).reshape(len(w), len(idx), n_items)
        G = (R * w[:, None, :]) @ R.transpose(0, 2, 1)  # exact: multiples of 1/4, far below 2^53
        W, a, b = total_w[:, :, None], (slice(None), slice(None), None), (slice(None), None, slice(None))
        rho = spearman_from_sums(W, sum_r[a], sum_rr[a], sum_r[b], sum_rr[b], G)
        rho = np.take(np.where(W >= min_overlap, rho, np.nan).reshape(len(w), -1), upper, axis=1)
        pair_weight = None if counts is None else counts[s][:, idx[i]] * counts[s][:, idx[j]]
        total[s], count[s] = _sums_of_defined(rho, pair_weight)
    return total, count


def _sums_of_defined(values: np.ndarray, weight: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the (weighted) sum of the defined values and their count (total weight)."""
    defined = ~np.isnan(values)
    if weight is None:
        return np.nansum(values, axis=1), defined.sum(axis=1)
    weight = np.where(defined, weight, 0.0)
    return (np.where(defined, values, 0.0) * weight).sum(axis=1), weight.sum(axis=1)


def _codes(values: np.ndarray) -> np.ndarray:
    return np.unique(values, return_inverse=True)[1].reshape(-1)


def pairwise_items(
    m: RatingMatrix, weights: np.ndarray, min_overlap: int, counts: np.ndarray | None = None
) -> np.ndarray:
    """Mean pairwise Spearman per resample of items (weights: resamples x items).

    ``counts`` (resamples x raters, the two-way scheme): the raters drawn in the same resamples. A
    pair's value on the resampled items does not depend on the other raters, so the mean over the
    pairs of drawn raters is that over the pairs of different raters weighted by ``c_a c_b`` (as
    ``pairwise_raters``: a rater's pairs with its own copies left out)."""
    total, count = _complete_pairs_items(m, weights, min_overlap, counts)
    # a pair sharing two items reaches min_overlap when they are drawn several times
    for block in shared_items(m, 2, items=True, max_triples=BLOCK_TRIPLES):
        engine = WeightedSpearman(block.pair, block.item, block.code_a, block.code_b, m.shape[0])
        pair_counts = None if counts is None else lambda s, a=block.a, b=block.b: counts[s][:, a] * counts[s][:, b]
        t, c = engine.mean_over_groups(weights, min_overlap, pair_counts)
        total += t
        count += c
    return _mean_of_defined(total, count)


def reference_items(m: RatingMatrix, weights: np.ndarray, leave_out: bool, min_overlap: int) -> np.ndarray:
    """vs_mean (or vs_rest) per resample of items: each rater's Spearman with the item means of all
    raters (of the others), as ``agreement.vs_reference`` has them, averaged over the raters (vs_mean
    NaN in a resample without an item of two ratings, as there)."""
    mean, rest, has_rest = reference_values(m)
    keep = has_rest if leave_out else np.ones(len(mean), dtype=bool)
    ref = rest if leave_out else mean
    engine = WeightedSpearman(m.rater[keep], m.item[keep], _codes(m.score[keep]), _codes(ref[keep]), m.shape[0])
    values = _mean_of_defined(*engine.mean_over_groups(weights, min_overlap))
    if leave_out:
        return values
    shared = np.bincount(m.item, minlength=m.shape[0]) >= 2  # items whose mean is not one rater's score
    return np.where(weights @ shared > 0, values, np.nan)


# -------------------------------------------------------------------------------- alpha


def _alpha_from_sums(m, s1, s2, d, units) -> np.ndarray:
    """Interval alpha per resample from per-unit (weighted) counts, sums, sums of squares and
    within-unit disagreements, all resamples x units and zero for units that are not pairable;
    ``units``: the pairable units of each resample (one alone gives no alpha: ``alpha.ONE_UNIT``)."""
    n, S1, S2 = m.sum(axis=1), s1.sum(axis=1), s2.sum(axis=1)
    observed = d.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = 2.0 * (n * S2 - S1 * S1) / (n - 1.0)
        return np.where((expected > 0) & (units >= 2), 1.0 - observed / expected, np.nan)


def _within(m, s1, s2) -> np.ndarray:
    """sum_{i != j in u} (v_i - v_j)^2 / (m_u - 1) for units with m_u >= 2, else 0."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(m >= 2, 2.0 * (m * s2 - s1 * s1) / (m - 1.0), 0.0)


def alpha_items(m: RatingMatrix, weights: np.ndarray) -> np.ndarray:
    """Interval alpha per resample of items (weights: resamples x items)."""
    n_items = m.shape[0]
    v = m.score - m.score.mean()  # centred: no cancellation in the sums of squares
    count = np.bincount(m.item, minlength=n_items).astype(float)
    s1 = np.bincount(m.item, v, n_items)
    s2 = np.bincount(m.item, v * v, n_items)
    pairable = count >= 2
    parts = [weights * (x * pairable) for x in (count, s1, s2)]
    return _alpha_from_sums(*parts, weights * _within(count, s1, s2), weights @ pairable)


def alpha_raters(m: RatingMatrix, counts: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Interval alpha per resample of raters (counts: resamples x raters), without the pairs of a
    rater with its own copies.

    A rater drawn k times is one person: its k copies agree perfectly on every item, and counted as
    pairs of values they add zero disagreement and pull alpha up (WordSim-353 set 2: the bootstrap
    mean was 0.032 above the estimate). So the pairs a unit's disagreement averages over are the
    pairs of copies of different raters, ``m_u^2 - q_u`` ordered pairs (``m_u`` values, ``q_u`` the
    sum of the squared counts), not ``m_u (m_u - 1)``: Krippendorff's observed disagreement of the
    unit is ``m_u * 2 (m_u s2 - s1^2) / (m_u^2 - q_u)`` (the sum over pairs is the same, as a pair
    of copies differs by 0), and the expected one pools the pairable values over
    ``n^2 - sum_u q_u`` such pairs. Every count 1 gives Krippendorff's formula; a unit rated by
    copies of one rater only is not pairable. ``weights`` (resamples x items, the two-way scheme):
    the items drawn in the same resamples, each copy of an item a unit of its own."""
    v = m.score - m.score.mean()
    out = []
    for data, per_rater in ((np.ones(len(v)), counts), (v, counts), (v * v, counts), (np.ones(len(v)), counts * counts)):
        matrix = _csr((data, (m.item, m.rater)), shape=m.shape)
        out.append(np.asarray(matrix @ per_rater.T).T)  # resamples x items
    n, s1, s2, q = out
    with np.errstate(invalid="ignore", divide="ignore"):
        pairs = n * n - q
        pairable = pairs > 0  # two different raters at least
        within = np.where(pairable, n * 2.0 * (n * s2 - s1 * s1) / np.where(pairable, pairs, 1.0), 0.0)
        n, s1, s2, q = (x * pairable for x in (n, s1, s2, q))
        units = pairable.astype(float)
        if weights is not None:  # an item drawn w times is w units
            within, n, s1, s2, q, units = (x * weights for x in (within, n, s1, s2, q, units))
        N, S1, S2, Q = (x.sum(axis=1) for x in (n, s1, s2, q))
        expected = 2.0 * (N * S2 - S1 * S1) / (N * N - Q) * N
        # one pairable unit alone: alpha would be 0 whatever the ratings (alpha.ONE_UNIT)
        return np.where((expected > 0) & (units.sum(axis=1) >= 2), 1.0 - within.sum(axis=1) / expected, np.nan)


# -------------------------------------------------------------------------------- raters resampled


def pairwise_raters(pairs: PairResult, counts: np.ndarray) -> np.ndarray:
    """Mean pairwise value per resample of raters: sum c_a c_b rho_ab / sum c_a c_b over the
    pairs of different raters with a value (a rater's pairs with its own copies left out)."""
    ok = ~np.isnan(pairs.rho)
    a, b, shape = pairs.a[ok], pairs.b[ok], (pairs.n_raters, pairs.n_raters)
    C = np.ascontiguousarray(counts.T)  # raters x resamples
    sums = []
    for data in (pairs.rho[ok], np.ones(int(ok.sum()))):
        # sparse, not a dense BLAS product: it adds each row's pairs in one fixed order, so the
        # interval is the same bits under every BLAS kernel (and it costs about as little)
        P = _csr((data, (a, b)), shape=shape)
        sums.append((C * (P @ C)).sum(axis=0))
    return _mean_of_defined(*sums)


def reference_raters(
    m: RatingMatrix, counts: np.ndarray, leave_out: bool, min_overlap: int, weights: np.ndarray | None = None
) -> np.ndarray:
    """vs_mean (or vs_rest) per resample of raters: the item means of the drawn raters (each copy
    counting; for vs_rest without any copy of the rater itself), Spearman per drawn rater, the mean
    over the drawn raters weighted by their counts. Each (resample, rater) is a group of
    ``agreement.group_ranks``; for vs_mean a drawn rater keeps all its ratings, ranked once. Means
    equal to 10 decimals are ties (sums in another order can differ in their last bits).

    ``weights`` (resamples x items, the two-way scheme): the items drawn in the same resamples. An
    item drawn w times is w items: its ratings weigh w in the ranks and the sums (as in
    ``reference_items``), and the items not drawn drop out; its mean is that of the drawn raters
    (copies of an item have the same mean)."""
    n_items, R = m.shape
    sums = [_csr((v, (m.item, m.rater)), shape=m.shape) for v in (m.score, np.ones(len(m.score)))]
    code = _codes(m.score)
    n_codes = int(code.max(initial=-1)) + 1
    own = None if leave_out or weights is not None else group_ranks(m.rater, code, R, n_codes)
    out = np.full(len(counts), np.nan)
    for s in _chunks(len(counts), len(m.score)):
        c = counts[s]
        k = len(c)
        # resamples x items: the sum of the drawn raters' scores and their number (copies counting)
        total, raters = (np.asarray(x @ c.T).T for x in sums)
        cw = np.take(c, m.rater, axis=1)  # resamples x ratings: the count of each rating's rater
        keep = cw > 0
        if weights is not None:
            item_weight = np.take(weights[s], m.item, axis=1)  # resamples x ratings: how often its item is drawn
            keep &= item_weight > 0
        if leave_out:
            total, raters = np.take(total, m.item, axis=1), np.take(raters, m.item, axis=1)
            keep &= raters > cw
            ref_code = _tie_codes((total - cw * m.score)[keep] / (raters - cw)[keep], k * R)
        else:  # one mean per item: ranked within each resample, few codes
            with np.errstate(invalid="ignore", divide="ignore"):
                ref_code = np.take(_codes_by_row(total / raters), m.item, axis=1)[keep]
            # a resample whose items each have one drawn rating: each mean is its rater's own score
            drawn = raters >= 2 if weights is None else (raters >= 2) & (weights[s] > 0)
            shared = drawn.any(axis=1)
        group = (np.arange(k)[:, None] * R + m.rater)[keep]
        entry_weight = None if weights is None else item_weight[keep]
        if own is None:
            own_code = np.broadcast_to(code, cw.shape)[keep]
            ra, (n, sa, saa) = group_ranks(group, own_code, k * R, n_codes, entry_weight)
        else:
            ra, (n, sa, saa) = np.broadcast_to(own[0], cw.shape)[keep], (np.tile(x, k) for x in own[1])
        n_ref = int(ref_code.max(initial=-1)) + 1
        rb, (_, sb, sbb) = group_ranks(group, ref_code, k * R, n_ref, entry_weight)
        cross = ra * rb if entry_weight is None else entry_weight * ra * rb
        rho = spearman_from_sums(n.astype(float), sa, saa, sb, sbb, np.bincount(group, cross, k * R))
        out[s] = _weighted_mean(np.where(n >= min_overlap, rho, np.nan).reshape(k, R), c)
        if not leave_out:
            out[s] = np.where(shared, out[s], np.nan)
    return out


def _tie_codes(values: np.ndarray, n_groups: int) -> np.ndarray:
    """Integer codes in the order of the values, equal for values equal to 10 decimals, small
    enough to pair with a group."""
    q = np.rint(values * 1e10).astype(np.int64)
    q -= q.min(initial=0)
    return q if (int(q.max(initial=0)) + 1) * n_groups < 2**62 else _codes(q)


def _codes_by_row(values: np.ndarray) -> np.ndarray:
    """Per row, the dense ranks (0, 1, ...) of the values, equal for values equal to 10 decimals;
    NaN last."""
    q = np.rint(np.nan_to_num(values, nan=np.inf, posinf=np.inf) * 1e10)
    order = np.argsort(q, axis=1)
    ranked = np.take_along_axis(q, order, axis=1)
    dense = np.cumsum(np.c_[np.zeros(len(q), bool), ranked[:, 1:] != ranked[:, :-1]], axis=1)
    out = np.empty(q.shape, np.int64)
    np.put_along_axis(out, order, dense, axis=1)
    return out


def _weighted_mean(rho: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Per row: the mean of the defined values weighted by the draw counts; NaN when none."""
    return _mean_of_defined(*_sums_of_defined(rho, weight))


# -------------------------------------------------------------------------------- the registry


class Resampling(NamedTuple):
    """What a replicate function resamples: the rating matrix (only the items and raters with a
    rating), its rater pairs (``rank_correlation.pairwise_spearman``) and ``min_overlap``."""

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
    >>> X = np.array([[1, 2, 3.0], [2, 2, 5], [4, 5, 3], [4, 4, 4], [1, 1, 4]])
    >>> m = RatingMatrix.from_dense(X)
    >>> agreement_summary(agreement(m, min_overlap=2))["mad"]  # (2 + 4 + 2 + 0 + 4) / 15 ratings
    0.8
    >>> ci = agreement_cis("toy", "raw", "all", m, min_overlap=2, resamples=100).table
    >>> ci.loc[ci["statistic"] == "mad", ["scheme", "resamples"]].values.tolist()
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
        "pairwise_min": AgreementStatistic("lowest pairwise Spearman", lambda s: _min(s.pairs.values())),
        "pairwise_max": AgreementStatistic("highest pairwise Spearman", lambda s: _max(s.pairs.values())),
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
    by name, in column order."""
    return {name: statistic.value(stats) for name, statistic in AGREEMENT_STATISTICS.items()}


def slot_summary(m: RatingMatrix) -> dict:
    """The statistics of rating slots (no rater identity: ``AgreementStatistic.slots``), NaN where
    they need persistent raters."""
    return {name: s.slots(m) if s.slots else np.nan for name, s in AGREEMENT_STATISTICS.items()}


def undefined_reason(stats: AgreementStats, statistic: str) -> str:
    """Why ``statistic`` (a name of ``AGREEMENT_STATISTICS``) has no value on the ratings of
    ``stats``; "" when it has one (or, for the counts, always). The agreement table's note and the
    agreement_ci table's say it, so that a reader sees why a cell is empty.

    Examples
    --------
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
    spread = pd.Series(m.score[keep]).groupby(m.rater[keep]).agg(["min", "max", "size"])
    rated = np.unique(m.rater)
    few = int((spread["size"].reindex(rated, fill_value=0) < min_overlap).sum())
    enough = spread[spread["size"] >= min_overlap]
    own = int((enough["min"] == enough["max"]).sum())
    flat = len(enough) - own  # the rest: a rater with varying scores has no Spearman only with a constant reference
    items = f"fewer than {min_overlap} items (min_overlap)" + (" that another rater rated" if leave_out else "")
    means = "the other raters' means" if leave_out else "the item means"
    parts = [
        f"{few} rate {items}" if few else "",
        f"{own} give all their items one score" if own else "",
        f"{flat} rate items whose {means} are all equal" if flat else "",
    ]
    return f"no rater of {len(rated)} has a value: " + ", ".join(part for part in parts if part)


def ci_statistics() -> tuple[str, ...]:
    """The statistics with bootstrap CIs (those with replicates), in the registry's order."""
    return tuple(name for name, s in AGREEMENT_STATISTICS.items() if s.replicates)


def slot_ci_statistics() -> tuple[str, ...]:
    """The statistics with CIs for rating slots: defined for slots, with an items replicate (slots
    are not raters to resample)."""
    return tuple(n for n, s in AGREEMENT_STATISTICS.items() if s.slots is not None and "items" in s.replicates)


# -------------------------------------------------------------------------------- per stage and subset


@dataclass
class AgreementCI:
    """The CI table (one row per statistic and scheme) and the bootstrap replicates behind it
    (``(statistic, scheme) -> array`` of the resamples used, NaN where undefined)."""

    table: pd.DataFrame
    replicates: dict


def min_resamples(confidence: float) -> int:
    """The fewest resamples with one beyond each end of a ``confidence`` interval (40 at 0.95).

    Examples
    --------
    >>> min_resamples(0.95), min_resamples(0.9)
    (40, 20)
    """
    return math.ceil(round(2.0 / (1.0 - confidence), 9))


def work_per_resample(m: RatingMatrix) -> dict:
    """(statistic, scheme) -> the work of one resample (see the module docstring).

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
    m: RatingMatrix, pairs: PairResult, weights, counts, min_overlap: int = 5, wanted=None, both=None
) -> dict:
    """Bootstrap replicates: ``weights`` (resamples x items, how often each item is drawn) and
    ``counts`` (resamples x raters) are the resampled datasets; ``both`` a pair (weights, counts)
    drawn together for the two-way scheme (default: ``weights`` and ``counts`` themselves), handed
    to its replicate functions side by side (resamples x (items + raters));
    ``wanted`` maps (statistic, scheme) to how many of the resamples to use (default: all, for every
    statistic and scheme of ``AGREEMENT_STATISTICS`` with a replicate function)."""
    draws_of = {"items": weights, "raters": counts, "both": np.hstack(both or (weights, counts))}
    if wanted is None:
        wanted = {(name, scheme): len(draws_of[scheme]) for name, scheme in work_per_resample(m)}
    data = Resampling(m, pairs, min_overlap)
    return {
        (name, scheme): AGREEMENT_STATISTICS[name].replicates[scheme](data, draws_of[scheme][:used])
        for (name, scheme), used in wanted.items()
        if used > 0
    }


def percentile_interval(values: np.ndarray, confidence: float = 0.95) -> tuple[float, float, int]:
    """(low, high, resamples where the statistic is undefined): the percentile interval of the
    defined replicates (numpy's linear quantiles), NaN when none is defined.

    Examples
    --------
    >>> percentile_interval(np.array([1.0, 2.0, np.nan, 3.0, 4.0]), 0.5)
    (1.75, 3.25, 1)
    """
    defined = values[~np.isnan(values)]
    if len(defined) == 0:
        return float("nan"), float("nan"), len(values)
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(defined, [tail, 1.0 - tail])
    return float(low), float(high), int(len(values) - len(defined))


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
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    min_overlap: int = 5,
    max_work: int = MAX_WORK,
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

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = np.rint(rng.uniform(0, 6, (30, 1)) + rng.normal(size=(30, 6)))
    >>> ci = agreement_cis("toy", "raw", "all", RatingMatrix.from_dense(X), resamples=200)
    >>> row = ci.table.set_index(["statistic", "scheme"]).loc[("pairwise", "items")]
    >>> bool(row["ci_low"] < row["value"] < row["ci_high"]), int(row["n_undefined"]), int(row["resamples"])
    (True, 0, 200)
    """
    stats = stats if stats is not None else agreement(matrix, min_overlap)
    point = agreement_summary(stats)
    why_none = {name: undefined_reason(stats, name) for name in ci_statistics()}
    m, pairs = _compact(matrix, stats.pairs)
    work = work_per_resample(m)
    keys = [(s, scheme) for s in (ci_statistics() if statistics is None else statistics) for scheme in schemes]
    wanted = {key: resamples_within(resamples, work[key], max_work, confidence) for key in keys if key in work}
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
        low, high, undefined = percentile_interval(values, confidence)
        note = _note(len(values), resamples, undefined, work[statistic, scheme], max_work, confidence)
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
    return AgreementCI(pd.DataFrame(rows, columns=TABLE_COLUMNS), reps)


def resamples_within(resamples: int, work: int, max_work: int, confidence: float = 0.95) -> int:
    """How many of the resamples fit the cap; none when fewer than an interval needs.

    Examples
    --------
    >>> resamples_within(1000, 200_000, 15_000_000), resamples_within(1000, 400_000, 15_000_000)
    (75, 0)
    """
    used = resamples if work * resamples <= max_work else max_work // max(work, 1)
    return used if used >= min(resamples, min_resamples(confidence)) else 0


def _note(used: int, resamples: int, undefined: int, work: int, max_work: int, confidence: float) -> str:
    parts = []
    cost = f"one resample has {work:,} entries to rank, agreement.ci_max_work = {max_work:,}"
    if used == 0 and resamples > 0:
        parts.append(f"no interval: {min_resamples(confidence)} resamples needed; {cost}")
    elif used < resamples:
        parts.append(f"{used} of {resamples} resamples: {cost}")
    if undefined:
        parts.append(f"{undefined} of {used} resamples without a value")
    return "; ".join(parts)
