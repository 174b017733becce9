"""The bootstrap replicates of the agreement statistics, one resample set at once (docs/methods.md
section 11.2): ``simgold.stats.agreement_ci`` draws the resamples, these functions give each
statistic on every resampled dataset.

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

from dataclasses import dataclass

import numpy as np

from simgold.stats.grouped_ranks import group_ranks, spearman_from_sums
from simgold.stats.rank_correlation import (
    PairResult,
    RatingMatrix,
    complete_raters,
    reference_values,
    shared_items,
)

__all__ = [
    "BLOCK_TRIPLES",
    "CELLS",
    "WeightedSpearman",
    "alpha_items",
    "alpha_raters",
    "pairwise_items",
    "pairwise_raters",
    "leave_one_out",
    "reference_items",
    "reference_raters",
]

CELLS = 1 << 18  # resamples x entries evaluated at once: arrays that stay in the cache (faster than larger)
BLOCK_TRIPLES = 1 << 16  # rater-pair x shared-item entries per block (a few resamples of a block at once)


def _csr(*args, **kwargs):
    """``scipy.sparse.csr_matrix``, imported on first use."""
    from scipy import sparse  # heavy to import, and only a bootstrap needs it (every job reads the registry)

    return sparse.csr_matrix(*args, **kwargs)


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
    about 25).

    Parameters
    ----------
    group : array_like
        The group of each entry.
    item : array_like
        The item index of each entry.
    code_a : array_like
        Integer codes of the first variable, in its order.
    code_b : array_like
        Integer codes of the second variable, in its order.
    n_items : int
        The number of items.
    """

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
    ``pairwise_raters``: a rater's pairs with its own copies left out).

    Parameters
    ----------
    m : RatingMatrix
        The ratings (items x raters, sparse).
    weights : np.ndarray
        resamples x items: how often each item is drawn.
    min_overlap : int
        Shared items a pair of raters needs for a Spearman value (``agreement.min_overlap``).
    counts : np.ndarray | None
        resamples x raters: how often each rater is drawn.

    Returns
    -------
    np.ndarray
        Float array, one value per resample: the mean Spearman over the rater pairs with a value
        (NaN in a resample where no pair has one).
    """
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
    NaN in a resample without an item of two ratings, as there).

    Parameters
    ----------
    m : RatingMatrix
        The ratings (items x raters, sparse).
    weights : np.ndarray
        resamples x items: how often each item is drawn.
    leave_out : bool
        True: vs_rest (the other raters' means); False: vs_mean.
    min_overlap : int
        Shared items a pair of raters needs for a Spearman value (``agreement.min_overlap``).

    Returns
    -------
    np.ndarray
        Float array, one value per resample: the mean over the raters of their Spearman with the
        reference (NaN where no rater has a value).
    """
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
    """Interval alpha per resample of items (weights: resamples x items).

    Parameters
    ----------
    m : RatingMatrix
        The ratings (items x raters, sparse).
    weights : np.ndarray
        resamples x items: how often each item is drawn.

    Returns
    -------
    np.ndarray
        Float array, one interval alpha per resample (NaN where it has no value).
    """
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
    the items drawn in the same resamples, each copy of an item a unit of its own.

    Parameters
    ----------
    m : RatingMatrix
        The ratings (items x raters, sparse).
    counts : np.ndarray
        resamples x raters: how often each rater is drawn.
    weights : np.ndarray | None
        resamples x items: how often each item is drawn.

    Returns
    -------
    np.ndarray
        Float array, one interval alpha per resample (NaN where there is no expected disagreement
        or fewer than two pairable units).
    """
    v = m.score - m.score.mean()
    out = []
    for data, per_rater in (
        (np.ones(len(v)), counts),
        (v, counts),
        (v * v, counts),
        (np.ones(len(v)), counts * counts),
    ):
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
    pairs of different raters with a value (a rater's pairs with its own copies left out).

    Parameters
    ----------
    pairs : PairResult
        The rater pairs and their Spearman values.
    counts : np.ndarray
        resamples x raters: how often each rater is drawn.

    Returns
    -------
    np.ndarray
        Float array, one value per resample: the count-weighted mean pairwise Spearman (NaN where
        no pair of different drawn raters has a value).
    """
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
    """vs_mean (or vs_rest) per resample of raters: the statistic plus the draw-count-weighted mean of
    the raters' jackknife influence values, which stand for what each rater brings to the panel (its
    own Spearman and its share of the item means the others are compared with). A rater drawn twice
    counts its influence twice; the item means are never recomputed with its copies.

    Why not the statistic of the resampled panel. A rater drawn k times would weigh k in the item
    means and pull them toward its own scores (``vs_mean`` up), and the other raters' means would
    average fewer distinct raters, hence be noisier (``vs_rest`` down): the replicates sat off the
    estimate and the intervals missed it. Means over the distinct drawn raters would average about
    0.63 R of them, and the statistic depends on the panel's size (a mean of fewer raters is
    noisier). Keeping each rater's Spearman with the full panel's means and averaging those over the
    draws leaves out how the item means themselves vary with the panel, and gives intervals too
    narrow. The influence values carry both parts.

    The rule (the linear bootstrap of the jackknife, Efron 1982; Davison and Hinkley 1997, section
    2.7.4): with T the statistic of the R raters, T_(j) that of the panel without rater j (its item
    means recomputed without j) and the influence ``l_j = (R - 1) (mean_k T_(k) - T_(j))`` (centred:
    the l_j sum to 0), a resample of draw counts c gives ``T + sqrt(R / (R - 1)) * sum_j c_j l_j /
    sum_j c_j``. The factor makes the replicates' variance the jackknife variance of T (a bootstrap
    of a mean of R values has (R - 1) / R of it). Every rater drawn once gives T; the replicates
    centre on T. A replicate beyond [-1, 1] (a few raters far apart) is cut to it, as the statistic
    is a mean of Spearman values. NaN where T or a drawn rater's T_(j) has no value.

    ``weights`` (resamples x items, the two-way scheme): the items drawn in the same resamples. The
    replicate is the items scheme's (``reference_items``: every rater, its Spearman with the item
    means of all raters, of the others, on the drawn items) plus the raters' part above for the
    drawn raters: items and raters each add their own variation.

    Parameters
    ----------
    m : RatingMatrix
        The ratings (items x raters, sparse).
    counts : np.ndarray
        resamples x raters: how often each rater is drawn.
    leave_out : bool
        True: vs_rest (the other raters' means); False: vs_mean.
    min_overlap : int
        Shared items a pair of raters needs for a Spearman value (``agreement.min_overlap``).
    weights : np.ndarray | None
        resamples x items: how often each item is drawn.

    Returns
    -------
    np.ndarray
        Float array, one value per resample (NaN where it has none).

    Examples
    --------
    >>> X = np.array([[1.0, 2, 1], [2, 1, 3], [3, 4, 2], [4, 3, 5], [5, 5, 4], [6, 6, 6]])
    >>> m = RatingMatrix.from_dense(X)
    >>> point, without = leave_one_out(m, False, 5)  # rater 0 agrees best: the panel without it agrees less
    >>> round(point, 4), without.round(4).tolist()
    (0.9238, [0.8857, 0.971, 0.971])
    >>> reference_raters(m, np.array([[1, 1, 1], [2, 1, 0], [0, 1, 2]]), False, 5).round(4).tolist()
    [0.9238, 0.9935, 0.8542]
    """
    R = m.shape[1]
    point, without = leave_one_out(m, leave_out, min_overlap)
    with np.errstate(invalid="ignore"):
        influence = (R - 1.0) * (np.nanmean(without) - without) if (~np.isnan(without)).any() else without
        scale = np.sqrt(R / (R - 1.0)) if R > 1 else np.nan
    # row sums, not a BLAS product: the same bits under every BLAS kernel
    undefined = (counts * np.isnan(influence)).sum(axis=1) > 0
    deviation = scale * (counts * np.nan_to_num(influence)).sum(axis=1) / np.maximum(counts.sum(axis=1), 1)
    centre = point if weights is None else reference_items(m, weights, leave_out, min_overlap)
    return np.where(undefined | np.isnan(point), np.nan, np.clip(centre + deviation, -1.0, 1.0))


def leave_one_out(m: RatingMatrix, leave_out: bool, min_overlap: int) -> tuple[float, np.ndarray]:
    """vs_mean (or vs_rest) of the panel, and of the panel without each rater in turn (its item means
    recomputed without that rater): the jackknife values ``reference_raters`` builds on.

    Parameters
    ----------
    m : RatingMatrix
        The ratings (items x raters, sparse).
    leave_out : bool
        True: vs_rest (the other raters' means); False: vs_mean.
    min_overlap : int
        Shared items a pair of raters needs for a Spearman value (``agreement.min_overlap``).

    Returns
    -------
    point : float
        The statistic of all the raters (``agreement.vs_reference``'s mean, to 1e-12).
    without : np.ndarray
        Per rater j, the statistic of the other raters (NaN where it has none).

    Examples
    --------
    >>> X = np.array([[1.0, 2, 1], [2, 1, 3], [3, 4, 2], [4, 3, 5], [5, 5, 4], [6, 6, 6]])
    >>> point, without = leave_one_out(RatingMatrix.from_dense(X), True, 5)
    >>> round(point, 4), without.round(4).tolist()
    (0.8434, [0.6, 0.8857, 0.8857])
    """
    R = m.shape[1]
    values = _panel_references(m, np.vstack([np.ones(R), 1.0 - np.eye(R)]), leave_out, min_overlap)
    return float(values[0]), values[1:]


def _panel_references(m: RatingMatrix, counts: np.ndarray, leave_out: bool, min_overlap: int) -> np.ndarray:
    """vs_mean (or vs_rest) of panels of raters (counts: panels x raters, 0 or 1: who is in): the
    item means of the raters in the panel (for vs_rest without the rater itself), Spearman per rater
    of the panel, the mean over them. Each (panel, rater) is a group of ``agreement.group_ranks``;
    for vs_mean a rater keeps all its ratings, ranked once. Means equal to 10 decimals are ties (sums
    in another order can differ in their last bits)."""
    R = m.shape[1]
    sums = [_csr((v, (m.item, m.rater)), shape=m.shape) for v in (m.score, np.ones(len(m.score)))]
    code = _codes(m.score)
    n_codes = int(code.max(initial=-1)) + 1
    own = None if leave_out else group_ranks(m.rater, code, R, n_codes)
    out = np.full(len(counts), np.nan)
    for s in _chunks(len(counts), len(m.score)):
        c = counts[s]
        k = len(c)
        # panels x items: the sum of the panel's scores and their number
        total, raters = (np.asarray(x @ c.T).T for x in sums)
        cw = np.take(c, m.rater, axis=1)  # panels x ratings: whether each rating's rater is in
        keep = cw > 0
        if leave_out:
            total, raters = np.take(total, m.item, axis=1), np.take(raters, m.item, axis=1)
            keep &= raters > cw
            ref_code = _tie_codes((total - cw * m.score)[keep] / (raters - cw)[keep], k * R)
        else:  # one mean per item: ranked within each panel, few codes
            with np.errstate(invalid="ignore", divide="ignore"):
                ref_code = np.take(_codes_by_row(total / raters), m.item, axis=1)[keep]
            # a panel whose items each have one rating: each mean is its rater's own score
            shared = (raters >= 2).any(axis=1)
        group = (np.arange(k)[:, None] * R + m.rater)[keep]
        if own is None:
            own_code = np.broadcast_to(code, cw.shape)[keep]
            ra, (n, sa, saa) = group_ranks(group, own_code, k * R, n_codes)
        else:
            ra, (n, sa, saa) = np.broadcast_to(own[0], cw.shape)[keep], (np.tile(x, k) for x in own[1])
        n_ref = int(ref_code.max(initial=-1)) + 1
        rb, (_, sb, sbb) = group_ranks(group, ref_code, k * R, n_ref)
        rho = spearman_from_sums(n.astype(float), sa, saa, sb, sbb, np.bincount(group, ra * rb, k * R))
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
