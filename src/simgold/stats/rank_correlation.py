"""Inter-rater agreement (docs/methods.md section 4), sparse and vectorised for crowd-scale data.

Spearman's rho with average ranks for ties, pairwise-complete: for two raters, both are ranked
on the items *both* rated. A pair with fewer than ``min_overlap`` shared items, or whose shared
scores are constant for either rater, gives no value and is counted.

Ratings are stored sparse (one entry per rating), and only the rater pairs that share at least
``min_overlap`` items are ever ranked:

* the (rater, partner, shared item) triples of a block of raters are generated from the item x
  rater incidence (per item, the raters who rated it: the entries of a sparse X^T X, one per shared
  item); a pair's overlap is the count of its triples, and pairs below ``min_overlap`` are dropped
  before any ranking. Blocks bound the memory;
* within a pair, ranks come from a counting sort of integer score codes (scores take few values:
  a pair's rank of code c is the number of its shared items with a lower code plus half the tied
  ones), or from a sort when there are many distinct values; the correlation from grouped sums.
  Ranks are multiples of 1/2 and their sums stay far below 2^53, so these sums are exact in float64
  and do not depend on the order of the additions (float32 would not be exact);
* raters who rated every item of the subset ("complete" raters) are ranked once; all their pairs
  come from one matrix product of their ranks, exact as well (whatever order the BLAS kernel sums
  in: the agreement tables are the same bits on every machine).

Both give exactly ``scipy.stats.spearmanr`` (and ``pandas.DataFrame.corr(method="spearman",
min_periods=min_overlap)``) on the shared items; tests check this. The ranks within a pair are
``grouped_ranks``'s; Pearson's r and Spearman's rho of plain vectors are ``correlation``'s.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from itertools import repeat

import numpy as np

from simgold.stats.alpha import krippendorff_alpha
from simgold.stats.correlation import rankdata
from simgold.stats.grouped_ranks import grouped_spearman, spearman_from_sums
from simgold.stats.pair_kernel import kernel_pairs, kernels_for, triples_of

__all__ = ["BLOCK_CELLS", "CHUNK_ENTRIES", "ROW_CELLS", "AgreementStats", "PairResult", "RatingMatrix", "SharedItems",
           "agreement", "complete_raters", "pairwise_spearman", "reference_values", "row_sums", "shared_items",
           "vs_reference"]  # fmt: skip

CHUNK_ENTRIES = 1 << 16  # (pair, shared item) triples generated at once: bounds memory (and blocks this small run faster)
BLOCK_CELLS = 1 << 22  # raters of a block x all raters: the block's overlap counts
ROW_CELLS = 1 << 22  # rows x raters of the dense rows that average each rater's pairs


def _positions(index: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The position of each value in ``index`` (distinct ids), -1 where it is not there."""
    if not len(index):
        return np.full(len(values), -1, dtype=np.int64)
    if index.dtype == object and values.dtype == object:  # ids as Python objects: a dict, not their sort
        at = {v: i for i, v in reversed(list(enumerate(index.tolist())))}
        return np.fromiter(map(at.get, values.tolist(), repeat(-1)), np.int64, len(values))
    order = np.argsort(index, kind="stable")
    at = np.minimum(np.searchsorted(index, values, sorter=order), len(index) - 1)
    found = order[at]
    return np.where(index[found] == values, found, -1).astype(np.int64)


def _factorize(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True)``; for Python objects (string ids) from a dict of
    the distinct values and a sort of those only (the same order: both compare with ``<``)."""
    if values.dtype != object:
        uniques, codes = np.unique(values, return_inverse=True)
        return uniques, codes.reshape(-1)
    listed = values.tolist()
    uniques = np.empty(len(keys := sorted(dict.fromkeys(listed))), dtype=object)
    uniques[:], at = keys, {key: i for i, key in enumerate(keys)}
    return uniques, np.fromiter(map(at.__getitem__, listed), np.int64, len(listed))


@dataclass
class RatingMatrix:
    """Items x raters scores, stored sparse: one entry per rating, sorted by rater, then item.

    Attributes
    ----------
    item : numpy.ndarray of int
        Each entry's item, as an index into ``items``.
    rater : numpy.ndarray of int
        Each entry's rater, as an index into ``raters``.
    score : numpy.ndarray of float
        Each entry's score (never NaN: a missing rating has no entry).
    items : numpy.ndarray
        The item ids, in the matrix's item order (items nobody rated included).
    raters : numpy.ndarray
        The rater ids, in the matrix's rater order.

    Examples
    --------
    >>> m = RatingMatrix.from_dense(np.array([[1.0, 2.0], [np.nan, 3.0], [4.0, 5.0]]))
    >>> m.shape, m.rater.tolist(), m.item.tolist(), m.score.tolist()
    ((3, 2), [0, 0, 1, 1, 1], [0, 2, 0, 1, 2], [1.0, 4.0, 2.0, 3.0, 5.0])
    """

    item: np.ndarray  # item index of each entry
    rater: np.ndarray  # rater index of each entry
    score: np.ndarray
    items: np.ndarray  # item ids (items nobody rated included)
    raters: np.ndarray  # rater ids

    @classmethod
    def from_ratings(cls, ratings, items=None) -> "RatingMatrix":
        """From a ratings table (``item_id``, ``rater``, ``score``: a pandas.DataFrame or any
        mapping of columns); ``items``: the item ids in their order (items nobody rated included),
        default the rated items, sorted. Raters are sorted by id."""
        item_ids = np.asarray(ratings["item_id"])
        rater_index, rater_codes = _factorize(np.asarray(ratings["rater"]))
        if items is None:
            item_index, item_codes = _factorize(item_ids)
        else:  # keep the given item order (and items nobody rated)
            item_index = np.asarray(items)
            item_codes = _positions(item_index, item_ids)
            if (item_codes < 0).any():
                raise ValueError("ratings refer to items that are not in the item list")
        score = np.asarray(ratings["score"], dtype=float)
        return cls.from_entries(item_codes.reshape(-1), rater_codes.reshape(-1), score, item_index, rater_index)

    @classmethod
    def from_entries(cls, item, rater, score, items, raters) -> "RatingMatrix":
        """Entries in any order; a NaN score is no rating; of two scores for one (item, rater), the last."""
        ok = ~np.isnan(score)
        item, rater, score = np.asarray(item, np.int64)[ok], np.asarray(rater, np.int64)[ok], score[ok]
        key = rater * len(items) + item
        order = np.argsort(key, kind="stable")
        last = np.r_[key[order][1:] != key[order][:-1], True]
        order = order[last]
        return cls(item[order], rater[order], score[order], np.asarray(items), np.asarray(raters))

    @classmethod
    def from_dense(cls, X: np.ndarray) -> "RatingMatrix":
        """From an items x raters array with NaN for no rating (ids: positions)."""
        rater, item = np.nonzero(~np.isnan(X.T))
        return cls(item, rater, X[item, rater], np.arange(X.shape[0]), np.arange(X.shape[1]))

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.items), len(self.raters)

    def dense(self) -> np.ndarray:
        X = np.full(self.shape, np.nan)
        X[self.item, self.rater] = self.score
        return X

    def subset(self, mask: np.ndarray) -> "RatingMatrix":
        """The items of a boolean mask over the items (in their order)."""
        if mask.all():
            return self
        keep = mask[self.item]
        new = np.cumsum(mask) - 1
        return RatingMatrix(new[self.item[keep]], self.rater[keep], self.score[keep], self.items[mask], self.raters)

    def keep_raters(self, mask: np.ndarray) -> "RatingMatrix":
        """The raters of a boolean mask over the raters (in their order)."""
        keep = mask[self.rater]
        new = np.cumsum(mask) - 1
        return RatingMatrix(self.item[keep], new[self.rater[keep]], self.score[keep], self.items, self.raters[mask])


class PairResult:
    """The rater pairs (a < b, in row-major order) that share at least ``min_overlap`` items, with
    their rho (NaN where either rater's shared scores are constant). Every other pair of the
    ``n_raters`` raters has too few shared items.

    Parameters
    ----------
    n_raters : int
        The number of raters of the rating matrix (rater indices run from 0 to ``n_raters`` - 1).
    a, b : numpy.ndarray of int
        The two raters of each pair with enough shared items, as indices, ``a < b``, sorted by
        ``a`` then ``b``; ``a`` may be None when ``starts`` is given.
    rho : numpy.ndarray of float
        Each pair's Spearman's rho over its shared items, in [-1, 1]; NaN where either rater's
        shared scores are constant.
    min_overlap : int
        The fewest shared items a pair needed to be listed.
    starts : numpy.ndarray of int, optional
        Where each rater's pairs (as ``a``) start, and the number of pairs at the end (length
        ``n_raters`` + 1): given instead of ``a``.

    Attributes
    ----------
    n_raters, b, rho, min_overlap, starts
        As given (``b`` int32, ``starts`` from ``a``); ``a`` is made from ``starts`` when asked for.
    """

    def __init__(self, n_raters: int, a, b, rho, min_overlap: int, *, starts=None):
        self.n_raters, self.min_overlap = int(n_raters), min_overlap
        self.b, self.rho = np.asarray(b, np.int32), np.asarray(rho, float)
        if starts is None:
            starts = np.searchsorted(np.asarray(a), np.arange(self.n_raters + 1))
        self.starts = np.asarray(starts, np.int64)

    @property
    def a(self) -> np.ndarray:  # the first rater of each pair, int32
        return np.repeat(np.arange(self.n_raters, dtype=np.int32), np.diff(self.starts))

    @classmethod
    def from_pairs(cls, n_raters: int, a, b, rho, min_overlap: int) -> "PairResult":
        """Pairs in any order and orientation."""
        lo, hi = np.minimum(a, b).astype(np.int32), np.maximum(a, b).astype(np.int32)
        order = np.argsort(lo.astype(np.int64) * n_raters + hi, kind="stable")
        return cls(n_raters, lo[order], hi[order], np.asarray(rho, float)[order], min_overlap)

    @property
    def n_pairs(self) -> int:  # pairs with a value (counted once: the values are not changed)
        if getattr(self, "_n_pairs", None) is None:
            self._n_pairs = int(np.count_nonzero(self.rho == self.rho))
        return self._n_pairs

    @property
    def n_constant(self) -> int:  # pairs with enough items but a constant vector
        return len(self.rho) - self.n_pairs

    @property
    def n_few(self) -> int:  # pairs with fewer than min_overlap shared items
        return self.n_raters * (self.n_raters - 1) // 2 - len(self.rho)

    def values(self) -> np.ndarray:
        """The pairs' values, in the row-major order of the upper triangle (read-only)."""
        values = self.rho[~np.isnan(self.rho)] if self.n_constant else self.rho.view()
        values.flags.writeable = False
        return values

    def dense(self) -> np.ndarray:
        """Raters x raters, symmetric, NaN where no value and on the diagonal (for few raters)."""
        rho = np.full((self.n_raters, self.n_raters), np.nan)
        a = self.a
        rho[a, self.b] = self.rho
        rho[self.b, a] = self.rho
        return rho

    def restrict(self, keep: np.ndarray) -> "PairResult":
        """The pairs of a subset of raters (a boolean mask over the raters)."""
        keep = np.asarray(keep, dtype=bool)
        k = kernels_for()  # compiled where the pairs were
        if not k:  # numpy's way
            a, ok = self.a, keep[self.a] & keep[self.b]
            new = np.cumsum(keep) - 1
            return PairResult(int(keep.sum()), new[a[ok]], new[self.b[ok]], self.rho[ok], self.min_overlap)
        new = (np.cumsum(keep) - 1).astype(np.int32)
        none = np.zeros(0, np.int64), np.zeros(0, np.int32), np.zeros(0)
        n = int(k["restrict"](self.starts, self.b, self.rho, keep, new, *none))
        starts, b, rho = np.empty(int(keep.sum()) + 1, np.int64), np.empty(n, np.int32), np.empty(n)
        k["restrict"](self.starts, self.b, self.rho, keep, new, starts, b, rho)
        return PairResult(len(starts) - 1, None, b, rho, self.min_overlap, starts=starts)

    def rater_means(self) -> np.ndarray:
        """Each rater's mean rho over its pairs with a value (NaN if none), as ``np.nanmean`` over
        the rows of the dense matrix gives it (numpy sums blocks of its dense rows)."""
        k, R = kernels_for(), self.n_raters  # compiled where the pairs were
        if not k:  # numpy's way
            has = ~np.isnan(self.rho)
            a, b, rho = self.a[has], self.b[has], self.rho[has]
            total = row_sums([(a, b, rho), (b, a, rho)], (R, R))
            count = np.bincount(a, minlength=R) + np.bincount(b, minlength=R)
        else:
            total, count = k["rater_sums"](self.starts, self.b, self.rho, ROW_CELLS)
        with np.errstate(invalid="ignore", divide="ignore"):
            return total / count


def row_sums(parts: list[tuple], shape: tuple[int, int]) -> np.ndarray:
    """Per row, the sum numpy gives for the dense row with zeros where there is no entry; the
    entries are (row, column, value) arrays, in parts.

    numpy sums a row pairwise, so its order of additions depends on the columns, and a mean of
    decimal scores summed in another order can differ in its last bit (which breaks ties between
    item means). When every partial sum is exact (scores on a grid of 1/2^k, as ratings and ranks
    are) any order gives numpy's sum, so one pass over the entries does; otherwise blocks of dense
    rows give numpy's sums to the last bit without the whole matrix in memory.

    Parameters
    ----------
    parts : list of tuple of three numpy.ndarray
        The entries, as (row index, column index, float value) arrays of equal length; every
        part adds its entries (no (row, column) cell appears twice over all parts).
    shape : tuple of int
        The (rows, columns) of the dense matrix the entries belong to.

    Returns
    -------
    numpy.ndarray of float
        One sum per row (length ``shape[0]``): 0 for a row without an entry.

    Examples
    --------
    >>> row_sums([(np.array([0, 0, 2]), np.array([0, 1, 1]), np.array([0.5, 1.0, 2.0]))], (3, 2)).tolist()
    [1.5, 0.0, 2.0]
    """
    n_rows, n_cols = shape
    if _sums_are_exact([value for _, _, value in parts]):
        return sum(np.bincount(row, value, n_rows) for row, _, value in parts)
    ordered = []
    for row, col, value in parts:
        if len(row) > 1 and (row[1:] < row[:-1]).any():
            order = np.argsort(row, kind="stable")
            row, col, value = row[order], col[order], value[order]
        ordered.append((row, col, value))
    out = np.zeros(n_rows)
    step = max(1, ROW_CELLS // max(n_cols, 1))
    for r0 in range(0, n_rows, step):
        r1 = min(n_rows, r0 + step)
        block = np.zeros((r1 - r0, n_cols))
        for row, col, value in ordered:
            lo, hi = np.searchsorted(row, [r0, r1])
            block[row[lo:hi] - r0, col[lo:hi]] = value[lo:hi]
        out[r0:r1] = block.sum(axis=1)
    return out


def _sums_are_exact(values: list[np.ndarray]) -> bool:
    """Whether every sum of these values is exact in float64: all are multiples of 2^-k (k <= 8,
    tried on the first values, then on all) and their magnitudes times 2^k sum to less than 2^52."""
    magnitude = sum(float(np.abs(v).sum()) for v in values)
    for k in range(9):
        scale = 2.0**k
        if not magnitude * scale < 2.0**52:
            return False
        if all((v * scale == np.round(v * scale)).all() for value in values for v in (value[:256], value)):
            return True
    return False


# --------------------------------------------------------------------------------------------
# pairwise Spearman


def pairwise_spearman(m: RatingMatrix, min_overlap: int, previous: tuple | None = None) -> PairResult:
    """Pairwise-complete Spearman between every two raters of ``m`` that share ``min_overlap`` items.

    ``previous = (matrix_before, PairResult)`` reuses the values of pairs whose two raters did not
    change (calibration moves the scores of a few raters only).

    Parameters
    ----------
    m : RatingMatrix
        The ratings.
    min_overlap : int
        The fewest items two raters must share for their pair to get a value.
    previous : tuple of (RatingMatrix, PairResult), optional
        An earlier matrix with the same raters and items and its pairs (computed with the same
        ``min_overlap``); only the pairs with a rater whose ratings differ are computed again.

    Returns
    -------
    PairResult
        Every pair of ``m``'s raters sharing at least ``min_overlap`` items, with its rho over the
        shared items (average ranks for ties); ``previous``'s own result when no rater changed.

    Examples
    --------
    >>> X = np.array([[1.0, 2.0, 1.0], [2.0, 1.0, np.nan], [3.0, 3.0, 2.0], [4.0, 4.0, 3.0]])
    >>> pairs = pairwise_spearman(RatingMatrix.from_dense(X), min_overlap=3)
    >>> pairs.a.tolist(), pairs.b.tolist(), pairs.rho.tolist(), pairs.n_few
    ([0, 0, 1], [1, 2, 2], [0.8, 1.0, 1.0], 0)
    """
    if previous is None:
        return _pairwise(m, min_overlap, None)
    before_m, before = previous
    changed, same_entries = _changed_raters(m, before_m)
    if not changed.any():
        return before
    a, b, rho = _pairwise(m, min_overlap, changed)
    lo, hi = np.minimum(a, b).astype(np.int32), np.maximum(a, b).astype(np.int32)
    k = kernels_for()
    if same_entries and k:  # the same shared items: the same pairs, only those of the changed raters recomputed
        at = np.empty(len(lo), np.int64)
        k["place"](before.starts, before.b, lo, hi, at)
        if (at >= 0).all():
            values = before.rho.copy()
            values[at] = rho
            return PairResult(before.n_raters, None, before.b, values, min_overlap, starts=before.starts)
    old_a = before.a
    kept = ~changed[old_a] & ~changed[before.b]
    a, b = np.r_[old_a[kept], lo], np.r_[before.b[kept], hi]
    return PairResult.from_pairs(m.shape[1], a, b, np.r_[before.rho[kept], rho], min_overlap)


def _changed_raters(m: RatingMatrix, before: RatingMatrix) -> tuple[np.ndarray, bool]:
    """Raters whose ratings (which items, or which scores) differ between two matrices, and whether
    both have the same (rater, item) entries."""
    n_items = m.shape[0]
    key, key_before = m.rater * n_items + m.item, before.rater * n_items + before.item
    same = len(key) == len(key_before) and bool((key == key_before).all())
    if same:
        diff = m.rater[m.score != before.score]
    else:  # both sorted by key: the common entries line up
        common, common_before = np.isin(key, key_before), np.isin(key_before, key)
        moved = m.score[common] != before.score[common_before]
        diff = np.r_[m.rater[~common], before.rater[~common_before], m.rater[common][moved]]
    changed = np.zeros(m.shape[1], dtype=bool)
    changed[diff] = True
    return changed, same


def complete_raters(m: RatingMatrix) -> np.ndarray:
    """Raters who rated every item of the matrix (a mask over the raters).

    Parameters
    ----------
    m : RatingMatrix
        The ratings (at most one entry per item and rater, as the matrix keeps them).

    Returns
    -------
    numpy.ndarray of bool
        One flag per rater of ``m``, in its rater order: True where the rater has a score for
        every item of ``m`` (items nobody rated included, so no rater is complete when there is one).
    """
    return np.bincount(m.rater, minlength=m.shape[1]) == m.shape[0]


def _pairwise(m: RatingMatrix, min_overlap: int, changed: np.ndarray | None):
    """The pairs with at least ``min_overlap`` shared items: of every rater (``changed`` None), a
    PairResult; or those with at least one changed rater, as (a, b, rho) in any orientation."""
    count = np.bincount(m.rater, minlength=m.shape[1])
    complete = complete_raters(m)
    if kernels_for(triples_of(m, changed)):
        rows, per_row, b, rho = kernel_pairs(m, min_overlap, complete, changed)
    else:  # numpy's way (small jobs, or no numba): blocks of (pair, shared item) triples
        rows, per_row, b, rho = _numpy_pairs(m, min_overlap, changed)
    ca, cb, crho = _complete_pairs(m, count, complete, changed, min_overlap)
    if changed is not None:
        return np.r_[np.repeat(rows, per_row), ca].astype(np.int32), np.r_[b, cb], np.r_[rho, crho]
    if not len(ca):  # rows are every rater, each one's partners ascending: the pairs in row-major order
        return PairResult(m.shape[1], None, b, rho, min_overlap, starts=np.r_[0, np.cumsum(per_row)])
    a = np.r_[np.repeat(rows, per_row), ca]
    return PairResult.from_pairs(m.shape[1], a, np.r_[b, cb], np.r_[rho, crho], min_overlap)


def _numpy_pairs(m: RatingMatrix, min_overlap: int, changed: np.ndarray | None):
    """``pair_kernel.kernel_pairs``' (rows, pairs per row, partners, rho) from ``shared_items``' blocks."""
    parts = [(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0))]
    for block in shared_items(m, min_overlap, changed):
        parts.append((block.a, block.b, grouped_spearman(block.pair, block.code_a, block.code_b, len(block.a))[0]))
    a, b, rho = (np.concatenate(x) for x in zip(*parts))
    if changed is None:  # every rater's row: in row-major order
        pairs = PairResult.from_pairs(m.shape[1], a, b, rho, min_overlap)
        return np.arange(m.shape[1]), np.diff(pairs.starts), pairs.b, pairs.rho
    return a, np.ones(len(a), np.int64), b, rho


def _complete_pairs(m, count, complete, changed, min_overlap):
    """(a, b, rho) of the wanted pairs of complete raters: one product of their ranks (exact)."""
    n_items = m.shape[0]
    enough = count >= min_overlap  # a complete rater shares all of rater i's items with i
    has_partner = enough.sum() - enough > 0
    if changed is not None:  # a pair is wanted when one of its raters changed
        changed_partner = (enough & changed).sum() - (enough & changed) > 0
        has_partner = np.where(changed, has_partner, changed_partner)
    idx = np.flatnonzero(complete & has_partner)
    if len(idx) < 2 or n_items < min_overlap:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    columns = np.isin(m.rater, idx)  # sorted by rater, then item: n_items entries per rater
    X = np.ascontiguousarray(m.score[columns].reshape(len(idx), n_items).T)
    ranks = rankdata(X, axis=0)
    # raw ranks, not centred and scaled ones: their products are multiples of 1/4 and every partial
    # sum stays below 2^53 (up to 130,000 items), so the product is exact whatever order the BLAS
    # kernel adds in, and the same on every machine
    cross = ranks.T @ ranks
    sums, squares = ranks.sum(axis=0), np.diag(cross)
    n = np.float64(n_items)
    block = spearman_from_sums(n, sums[:, None], squares[:, None], sums[None, :], squares[None, :], cross)
    i, j = np.triu_indices(len(idx), k=1)
    if changed is not None:
        wanted = changed[idx[i]] | changed[idx[j]]
        i, j = i[wanted], j[wanted]
    return idx[i], idx[j], np.clip(block[i, j], -1.0, 1.0)


@dataclass
class SharedItems:
    """A block of rater pairs with their shared items. Pair k is raters ``a[k]``, ``b[k]`` (indices
    of the matrix's raters); triple t is an item shared by pair ``pair[t]``, with the two raters'
    score codes (ranks of the matrix's distinct scores) and, when asked for, the item.

    Attributes
    ----------
    a, b : numpy.ndarray of int
        The two raters of each pair of the block, as indices of the matrix's raters (in either
        orientation: ``PairResult.from_pairs`` orders them).
    pair : numpy.ndarray of int
        For each triple (an item a pair shares), the pair's position in ``a`` and ``b``.
    code_a, code_b : numpy.ndarray of int
        For each triple, the scores of rater ``a[pair]`` and of rater ``b[pair]`` on the shared
        item, as codes 0, 1, ... (the ranks of the matrix's distinct scores, smallest first).
    item : numpy.ndarray of int or None
        For each triple, the shared item as an index of the matrix's items; None unless asked for.
    """

    a: np.ndarray
    b: np.ndarray
    pair: np.ndarray
    code_a: np.ndarray
    code_b: np.ndarray
    item: np.ndarray | None = None


def shared_items(m: RatingMatrix, min_overlap: int, changed: np.ndarray | None = None, *, items: bool = False,
                 max_triples: int = CHUNK_ENTRIES):  # fmt: skip
    """The rater pairs that share at least ``min_overlap`` items, not both complete (the pairs of
    complete raters come from a product of ranks), of every rater (``changed`` None) or with at least
    one changed rater; in blocks (``SharedItems``) of about ``max_triples`` triples.

    Parameters
    ----------
    m : RatingMatrix
        The ratings.
    min_overlap : int
        The fewest items two raters must share for their pair to be given.
    changed : numpy.ndarray of bool, optional
        A mask over the raters: only the pairs with at least one changed rater are given; None
        (default) gives the pairs of every rater.
    items : bool
        Whether each block says which item every triple is (``SharedItems.item``).
    max_triples : int
        About how many (pair, shared item) triples a block holds (a rater whose own triples are
        more makes a block alone): bounds the memory.

    Yields
    ------
    SharedItems
        A block of pairs with their shared items; every wanted pair is in exactly one block.
    """
    n_items, R = m.shape
    complete = complete_raters(m)
    # raters relabelled with the complete ones last: past a complete rater, every partner is complete
    # (those pairs come from the product), so its triples stop at the item's incomplete raters
    order = np.r_[np.flatnonzero(~complete), np.flatnonzero(complete)]
    label = np.empty(R, np.int64)
    label[order] = np.arange(R)
    rows = np.ones(R, dtype=bool) if changed is None else changed[order]  # by label
    t = _incidence(m, label, complete)
    lo = t["csr_pos"] + 1 if changed is None else t["item_start"]
    use = rows[t["p"]] & (t["hi"] > lo)
    e = {k: v[use] for k, v in t.items() if k in ("p", "code", "hi")}
    e["lo"] = lo[use]
    row_of = np.cumsum(rows) - 1  # the rank of a label among the rows
    e["row"] = row_of[e["p"]]
    t["row_label"] = np.flatnonzero(rows)
    sizes = np.bincount(e["row"], e["hi"] - e["lo"], minlength=int(rows.sum()))
    for r0, r1 in _blocks(sizes, max_triples, max(1, BLOCK_CELLS // max(R, 1))):
        s0, s1 = np.searchsorted(e["row"], [r0, r1])
        block = {k: v[s0:s1] for k, v in e.items()}
        p, q, *triples = _block_triples(block, t, rows, r0, r1, R, min_overlap, changed is not None, items)
        yield SharedItems(order[p], order[q], *triples)


def _incidence(m, label, complete) -> dict:
    """The entries ordered by rater label, then item; with each entry's place among its item's
    raters (item-major order, by label) and where its item's incomplete raters end."""
    n_items = m.shape[0]
    p = label[m.rater]
    by_label = np.argsort(p * n_items + m.item, kind="stable")  # no work when no rater is complete
    item, p = m.item[by_label], p[by_label]
    code = np.unique(m.score, return_inverse=True)[1].reshape(-1)[by_label]
    by_item = np.argsort(item * len(label) + p, kind="stable")
    csr_pos = np.empty(len(p), np.int64)
    csr_pos[by_item] = np.arange(len(p))
    item_start = np.r_[0, np.cumsum(np.bincount(item, minlength=n_items))]
    incomplete = np.bincount(item[~complete[m.rater[by_label]]], minlength=n_items)
    start = item_start[item]
    hi = np.where(complete[m.rater[by_label]], start + incomplete[item], item_start[item + 1])
    return {
        "p": p,
        "code": code,
        "csr_pos": csr_pos,
        "item_start": start,
        "hi": hi,
        "item": item,
        "csr_p": p[by_item],
        "csr_code": code[by_item],
        "csr_item": item[by_item],
    }


def _blocks(sizes: np.ndarray, max_size: float, max_rows: int):
    """Consecutive row ranges whose summed sizes stay under ``max_size`` (a larger row: alone)."""
    start, total = 0, 0.0
    for r, size in enumerate(sizes):
        if r > start and (total + size > max_size or r - start >= max_rows):
            yield start, r
            start, total = r, 0.0
        total += size
    if start < len(sizes):
        yield start, len(sizes)


def _block_triples(e, t, rows, r0, r1, R, min_overlap, incremental, items):
    """(p, q by label, pair, code_a, code_b, item) of the rows r0..r1: triples, overlap counts."""
    counts = e["hi"] - e["lo"]
    first = np.cumsum(counts) - counts
    j = np.arange(int(counts.sum())) + np.repeat(e["lo"] - first, counts)  # partner entries (item-major)
    q = t["csr_p"][j]
    key = np.repeat((e["row"] - r0) * R, counts) + q
    code = np.repeat(e["code"], counts)
    if incremental:  # a pair of two changed raters: from the row of the lower label only
        keep = (q > np.repeat(e["p"], counts)) | ~rows[q]
        j, key, code = j[keep], key[keep], code[keep]
    overlap = np.bincount(key, minlength=(r1 - r0) * R)
    cells = np.flatnonzero(overlap >= min_overlap)
    pid = np.full(len(overlap), -1, np.int64)
    pid[cells] = np.arange(len(cells))
    pid = pid[key]
    sel = pid >= 0
    j = j[sel]
    item = t["csr_item"][j] if items else None
    return t["row_label"][cells // R + r0], cells % R, pid[sel], code[sel], t["csr_code"][j], item


# --------------------------------------------------------------------------------------------
# per-rater agreement with a reference (the item means)


def vs_reference(m: RatingMatrix, min_overlap: int) -> tuple[np.ndarray, np.ndarray]:
    """Per rater: Spearman with the item means of all raters (``vs_mean``) and of the other
    raters (``vs_rest``, leave one out; items nobody else rated are left out).

    Where no item has two ratings (one rater, or raters who share no item) every item's mean is
    its one rater's score and ``vs_mean`` would be 1 whatever the ratings: it is NaN.

    Parameters
    ----------
    m : RatingMatrix
        The ratings.
    min_overlap : int
        The fewest items a rater's correlation needs (items with a leave-one-out mean, for
        ``vs_rest``); a rater with fewer gets NaN.

    Returns
    -------
    vs_mean : numpy.ndarray of float
        Per rater (``m``'s rater order), Spearman's rho of its scores with the items' means over
        all raters, in [-1, 1]; NaN for too few items or constant scores or means.
    vs_rest : numpy.ndarray of float
        Per rater, the same with the means of the other raters (leave one out).

    Examples
    --------
    >>> apart = RatingMatrix.from_dense(np.array([[1.0, np.nan], [2, np.nan], [np.nan, 3], [np.nan, 1]]))
    >>> vs_reference(apart, min_overlap=2)[0].tolist()
    [nan, nan]
    """
    R = m.shape[1]
    mean, rest, keep = reference_values(m)
    vs_mean = _grouped_spearman(m.rater, m.score, mean, R, min_overlap)
    if not keep.any():  # no item with a second rating: the means are the raters' own scores
        vs_mean[:] = np.nan
    return vs_mean, _grouped_spearman(m.rater[keep], m.score[keep], rest[keep], R, min_overlap)


def reference_values(m: RatingMatrix) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per entry: the mean of its item over all raters, over the other raters (NaN when there is
    none) and whether there is one.

    Parameters
    ----------
    m : RatingMatrix
        The ratings.

    Returns
    -------
    mean : numpy.ndarray of float
        For each entry of ``m`` (its entry order), the mean score of its item over all its raters
        (the item's sum as numpy sums its dense row; see ``row_sums``).
    rest : numpy.ndarray of float
        For each entry, the mean score of its item over the other raters; NaN where the item has
        no other rating.
    has_rest : numpy.ndarray of bool
        For each entry, whether its item has another rating (``rest`` is a number).

    Examples
    --------
    >>> m = RatingMatrix.from_dense(np.array([[1.0, 3.0], [2.0, np.nan]]))
    >>> [values.tolist() for values in reference_values(m)]
    [[2.0, 2.0, 2.0], [3.0, nan, 1.0], [True, False, True]]
    """
    count = np.bincount(m.item, minlength=m.shape[0])[m.item]
    total = row_sums([(m.item, m.rater, m.score)], m.shape)[m.item]
    with np.errstate(invalid="ignore", divide="ignore"):
        rest = (total - m.score) / (count - 1)
    return total / count, rest, count > 1


def _grouped_spearman(group, a, b, n_groups, min_overlap) -> np.ndarray:
    codes_a = np.unique(a, return_inverse=True)[1].reshape(-1)
    codes_b = np.unique(b, return_inverse=True)[1].reshape(-1)
    r, n = grouped_spearman(group, codes_a, codes_b, n_groups)
    r[n < min_overlap] = np.nan
    return r


# --------------------------------------------------------------------------------------------


@dataclass
class AgreementStats:
    """Agreement of one rating matrix (one stage, one subset): what the statistics of the agreement
    table share, computed once (``agreement_statistics.AGREEMENT_STATISTICS`` names the statistics, and
    ``agreement_statistics.agreement_summary`` gives them).

    Attributes
    ----------
    raters : numpy.ndarray
        The rater ids, in the matrix's rater order (the order of every per-rater array here).
    n_items_per_rater : numpy.ndarray of int
        Per rater, how many items it rated.
    mean_score_per_rater : numpy.ndarray of float
        Per rater, its mean score (NaN for a rater without a rating).
    avg_pairwise : numpy.ndarray of float
        Per rater, its mean rho over its pairs with a value (``PairResult.rater_means``; NaN if none).
    vs_mean, vs_rest : numpy.ndarray of float
        Per rater, Spearman's rho with the item means of all raters and of the other raters
        (``vs_reference``).
    pairs : PairResult
        The rater pairs sharing at least ``min_overlap`` items and their rho.
    alpha : float
        Krippendorff's alpha (interval) of all the ratings.
    n_items : int
        The number of items with at least one rating.
    mean_score : float
        The mean of all the ratings (NaN when there is none).
    matrix : RatingMatrix or None
        The ratings (for rankings: (target, candidate) units x raters).
    """

    raters: np.ndarray
    n_items_per_rater: np.ndarray
    mean_score_per_rater: np.ndarray
    avg_pairwise: np.ndarray
    vs_mean: np.ndarray
    vs_rest: np.ndarray
    pairs: PairResult
    alpha: float
    n_items: int
    mean_score: float
    matrix: RatingMatrix | None = None  # the ratings (for rankings: (target, candidate) units x raters)


def agreement(matrix: RatingMatrix, min_overlap: int, pairs: PairResult | None = None) -> AgreementStats:
    """Every statistic of docs/methods.md section 4 for one rating matrix.

    ``pairs`` may be given when the pairwise values are already known (the pairwise-complete
    Spearman of two raters does not depend on the other raters, so dropping raters keeps them).

    Parameters
    ----------
    matrix : RatingMatrix
        The ratings of one stage and subset.
    min_overlap : int
        The fewest items two raters must share for their pair to get a value, and a rater with the
        item means for its ``vs_mean`` and ``vs_rest``.
    pairs : PairResult, optional
        The pairwise values of ``matrix``'s raters (same ``min_overlap``), when already known;
        None: computed here (``pairwise_spearman``).

    Returns
    -------
    AgreementStats
        The per-rater values, the pairs, interval alpha and the totals of ``matrix``, which it keeps.

    Examples
    --------
    >>> X = np.array([[1.0, 2.0, 1.0], [2.0, 1.0, np.nan], [3.0, 3.0, 2.0], [4.0, 4.0, 3.0]])
    >>> stats = agreement(RatingMatrix.from_dense(X), min_overlap=3)
    >>> stats.n_items_per_rater.tolist(), stats.avg_pairwise.tolist(), stats.n_items
    ([4, 4, 3], [0.9, 0.9, 1.0], 4)
    """
    n_items, R = matrix.shape
    if pairs is None:
        pairs = pairwise_spearman(matrix, min_overlap)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a rater with no pair value: NaN, counted
        avg = pairs.rater_means()
    vs_mean, vs_rest = vs_reference(matrix, min_overlap)
    n_per = np.bincount(matrix.rater, minlength=R)
    with np.errstate(invalid="ignore"):
        total = np.bincount(matrix.rater, matrix.score, R)
        mean_per = np.where(n_per > 0, total / np.maximum(n_per, 1), np.nan)
    return AgreementStats(
        raters=matrix.raters,
        n_items_per_rater=n_per,
        mean_score_per_rater=mean_per,
        avg_pairwise=avg,
        vs_mean=vs_mean,
        vs_rest=vs_rest,
        pairs=pairs,
        alpha=krippendorff_alpha(matrix.item, matrix.score, "interval"),
        n_items=int((np.bincount(matrix.item, minlength=n_items) > 0).sum()),
        mean_score=float(matrix.score.mean()) if len(matrix.score) else float("nan"),
        matrix=matrix,
    )
