"""Average ranks and Spearman's rho of integer-coded entries within groups, with exact sums: the
engine of the rater pairs of ``rank_correlation`` (a group is a pair, an entry one of its shared
items) and of their bootstrap in ``agreement_replicates``.

Scores take few values, so they are ranked as integer codes (the ranks of the distinct scores):
within a group, the rank of code c is the number of the group's entries with a lower code plus half
the tied ones, from a counting sort (or a sort when the groups x codes table would be much larger
than the entries). Ranks are multiples of 1/2 and their sums stay far below 2^53, so every sum is
exact in float64 and does not depend on the order of the additions.

Examples
--------
>>> group, code_a, code_b = np.array([0, 0, 0, 1, 1, 1]), np.array([0, 1, 2, 0, 0, 1]), np.array([0, 2, 1, 2, 1, 0])
>>> r, n = grouped_spearman(group, code_a, code_b, n_groups=2)
>>> r.round(6).tolist(), n.tolist()
([0.5, -0.866025], [3, 3])
"""

from __future__ import annotations

import numpy as np

__all__ = ["RANK_TABLE_CELLS", "argsort_ints", "group_ranks", "grouped_spearman", "spearman_from_sums"]

RANK_TABLE_CELLS = 1 << 23  # pairs x score codes of a counting sort; beyond it, ranks by sorting


def group_ranks(group: np.ndarray, code: np.ndarray, n_groups: int, n_codes: int, weight: np.ndarray | None = None):
    """Average ranks (1-based) of integer codes within each group, and per group the count, sum and
    sum of squares of the ranks. A counting sort when groups x codes is small (a rank is the count of
    the group's lower codes plus half its ties: scores take few values), else a sort (when the table
    would be much larger than the entries).

    ``weight`` (whole numbers, one per entry): an entry of weight k counts as k tied entries (an item
    drawn k times in a bootstrap resample); the rank of a code is then the weight of the group's
    lower codes plus (its tie weight + 1) / 2, and the count and sums are weighted.

    Parameters
    ----------
    group : numpy.ndarray of int64
        Each entry's group, in 0 .. ``n_groups`` - 1 (entries in any order).
    code : numpy.ndarray of int
        Each entry's integer code, in 0 .. ``n_codes`` - 1 (the rank of its score among the
        distinct scores); same length as ``group``.
    n_groups : int
        The number of groups; groups without an entry get a count and sums of 0.
    n_codes : int
        One more than the largest code (the width of the counting sort's table).
    weight : numpy.ndarray of float, optional
        Each entry's weight, whole numbers (copies of it); None: every entry counts once.

    Returns
    -------
    ranks : numpy.ndarray of float
        Each entry's average rank within its group (1-based, multiples of 1/2), in the order of
        the entries.
    sums : tuple of three numpy.ndarray
        Per group (length ``n_groups``): the count of its entries (the sum of their weights when
        ``weight`` is given, an integer count when not), the sum of their (weighted) ranks and
        of their (weighted) squared ranks, floats; all exact.

    Examples
    --------
    >>> ranks, (count, total, squares) = group_ranks(np.array([0, 0, 0, 1]), np.array([2, 0, 2, 1]), 2, 3)
    >>> ranks.tolist(), count.tolist(), total.tolist(), squares.tolist()
    ([2.5, 1.0, 2.5, 1.0], [3, 1], [6.0, 1.0], [13.5, 1.0])
    """
    if not len(code):  # nothing to rank (one rater, raters sharing no item): every group empty
        return np.empty(0), (np.zeros(n_groups), np.zeros(n_groups), np.zeros(n_groups))
    if n_groups * n_codes <= min(RANK_TABLE_CELLS, 4 * len(code)):
        cell = group * n_codes + code
        count = np.bincount(cell, weight, minlength=n_groups * n_codes).reshape(n_groups, n_codes)
        rank = (np.cumsum(count, axis=1) - count) + (count + 1) / 2.0
        weighted = count * rank
        return rank.ravel()[cell], (count.sum(axis=1), weighted.sum(axis=1), (weighted * rank).sum(axis=1))
    key = group * n_codes + code
    order = argsort_ints(key)
    ks, gs = key[order], group[order]
    n = len(ks)
    group_start = np.flatnonzero(np.r_[True, gs[1:] != gs[:-1]])
    first = np.repeat(group_start, np.diff(np.r_[group_start, n]))  # the first entry of each entry's group
    run_start = np.flatnonzero(np.r_[True, ks[1:] != ks[:-1]])
    run_len = np.diff(np.r_[run_start, n])
    if weight is None:
        pos, run_weight = np.arange(n) - first, run_len
    else:  # cumulative weights, whole numbers: exact
        before = np.r_[0.0, np.cumsum(weight[order])]
        pos, run_weight = before[:-1] - before[first], before[run_start + run_len] - before[run_start]
    ranks = np.empty(n)
    ranks[order] = np.repeat(pos[run_start] + (run_weight + 1) / 2.0, run_len)
    weighted = ranks if weight is None else weight * ranks
    sums = np.bincount(group, weighted, n_groups), np.bincount(group, weighted * ranks, n_groups)
    return ranks, (np.bincount(group, weight, n_groups), *sums)


def argsort_ints(key: np.ndarray) -> np.ndarray:
    """An argsort of non-negative integers (the order of ties does not matter to ranks): one sort of
    the keys with their positions in the low bits (several times faster than ``np.argsort``) when
    that fits in 63 bits.

    Parameters
    ----------
    key : numpy.ndarray of int
        Non-negative integer keys, one dimension.

    Returns
    -------
    numpy.ndarray of int64
        The positions of the keys in ascending key order (equal keys in any order).

    Examples
    --------
    >>> argsort_ints(np.array([3, 1, 3, 0])).tolist()
    [3, 1, 0, 2]
    """
    bits = max(int(len(key) - 1).bit_length(), 1)
    if len(key) == 0 or int(key.max()) < 2 ** (63 - bits):
        return np.sort((key.astype(np.int64) << bits) | np.arange(len(key))) & ((1 << bits) - 1)
    return np.argsort(key)


def grouped_spearman(group, code_a, code_b, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """Spearman r between two integer-coded variables within each group; (r, n), r NaN where
    either side is constant. Ranks are multiples of 1/2 and every sum is exact.

    Parameters
    ----------
    group : numpy.ndarray of int
        Each entry's group, in 0 .. ``n_groups`` - 1 (for rater pairs: the pair of a shared item).
    code_a, code_b : numpy.ndarray of int
        Each entry's two non-negative integer codes (the ranks of its two scores among the
        distinct scores); same length as ``group``.
    n_groups : int
        The number of groups.

    Returns
    -------
    r : numpy.ndarray of float
        Per group (length ``n_groups``), Spearman's rho of the two codes over its entries, in
        [-1, 1]; NaN where either side is constant or the group is empty.
    n : numpy.ndarray of int64
        Per group, its number of entries.
    """
    group = group.astype(np.int64, copy=False)
    ra, (n, sa, saa) = group_ranks(group, code_a, n_groups, int(code_a.max(initial=-1)) + 1)
    rb, (_, sb, sbb) = group_ranks(group, code_b, n_groups, int(code_b.max(initial=-1)) + 1)
    sab = np.bincount(group, ra * rb, n_groups)
    return spearman_from_sums(n.astype(float), sa, saa, sb, sbb, sab), n.astype(np.int64)


def spearman_from_sums(n, sa, saa, sb, sbb, sab) -> np.ndarray:
    """Spearman r from the (weighted) count and sums of two rank vectors: n, sum a, sum a^2, sum b,
    sum b^2, sum ab (arrays of any one shape); NaN where either side is constant.

    Parameters
    ----------
    n : numpy.ndarray of float
        The (weighted) number of entries of each rank vector pair.
    sa, saa : numpy.ndarray of float
        The sum of the first ranks and of their squares.
    sb, sbb : numpy.ndarray of float
        The sum of the second ranks and of their squares.
    sab : numpy.ndarray of float
        The sum of the products of the first and second ranks. The six arrays broadcast against
        each other.

    Returns
    -------
    numpy.ndarray of float
        Spearman's rho (Pearson's r of the ranks), in [-1, 1], of the broadcast shape; NaN where
        either side is constant (its rank variance is 0 up to rounding).

    Examples
    --------
    >>> spearman_from_sums(np.array([3.0]), 6.0, 14.0, 6.0, 14.0, np.array([13.0])).tolist()
    [0.5]
    """
    va = n * saa - sa * sa
    vb = n * sbb - sb * sb
    # ranks are multiples of 1/2, so a constant vector gives va == 0 up to rounding
    ok = (va > 1e-9 * np.maximum(n * saa, 1.0)) & (vb > 1e-9 * np.maximum(n * sbb, 1.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(ok, (n * sab - sa * sb) / np.sqrt(va * vb), np.nan)
    return np.clip(r, -1.0, 1.0)
