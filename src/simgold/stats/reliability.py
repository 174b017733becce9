"""Split-half reliability and the Spearman-Brown projection (docs/methods.md section 11): the
numbers behind "how many raters are enough". ``simgold.stages.reliability`` draws the splits of a
dataset's ratings and tabulates the projection.

* **Spearman-Brown.** ``R_k = k r / (1 + (k - 1) r)``: the reliability of a test ``k`` times as long.
* **Single rater.** With ``h`` ratings per item in a half, ``r1 = r_half / (h - (h - 1) r_half)``.
* **Raters needed** for a target R: ``m = R (1 - r1) / (r1 (1 - R))``, rounded up (undefined when
  ``r1 <= 0``).
"""

from __future__ import annotations

import warnings

import math

import numpy as np
from simgold.stats.correlation import rankdata
from simgold.stats.resampling import halves_within_groups

__all__ = ["raters_needed", "rating_splits", "single_rater", "spearman_brown", "split_half_correlations"]


def spearman_brown(r, factor):
    """Reliability of a test ``factor`` times as long: ``k r / (1 + (k - 1) r)``.

    Parameters
    ----------
    r : object
        The correlation.
    factor : object
        How many times longer the test is.

    Returns
    -------
    object
        The lengthened test's reliability: a float for scalar inputs, else a float array of the
        broadcast shape.

    Examples
    --------
    >>> round(spearman_brown(0.6, 2), 6)
    0.75
    """
    r = np.asarray(r, dtype=float)
    return _scalar(factor * r / (1.0 + (factor - 1.0) * r))


def single_rater(r_half, h):
    """Reliability of one rater from the split-half correlation of halves of ``h`` raters.

    Parameters
    ----------
    r_half : object
        The split-half correlation.
    h : object
        Mean ratings per item in a half.

    Returns
    -------
    object
        One rater's reliability: a float for scalar inputs, else a float array of the broadcast
        shape.

    Examples
    --------
    >>> round(single_rater(0.75, 3), 6)
    0.5
    """
    r_half = np.asarray(r_half, dtype=float)
    return _scalar(r_half / (h - (h - 1.0) * r_half))


def raters_needed(r1: float, target: float) -> float:
    """Raters per item for reliability ``target``: ``R (1 - r1) / (r1 (1 - R))``, rounded up; NaN
    when ``r1 <= 0`` (no number of raters reaches it) or ``r1`` is NaN.

    Parameters
    ----------
    r1 : float
        A single rater's reliability.
    target : float
        The target.

    Returns
    -------
    float
        The whole number of raters per item (1.0 when one rater reaches ``target``); NaN when
        ``r1`` is NaN or not positive.

    Examples
    --------
    >>> raters_needed(0.5, 0.8), raters_needed(0.5, 0.9)
    (4.0, 9.0)
    """
    if not r1 > 0:
        return float("nan")
    if r1 >= target:
        return 1.0
    m = target * (1.0 - r1) / (r1 * (1.0 - target))
    return float(math.ceil(m - 1e-9))  # 4.000000000001 from rounding is 4


def _scalar(x):
    return float(x) if np.ndim(x) == 0 else x


def split_half_correlations(X: np.ndarray, in_first: np.ndarray) -> dict:
    """Split-half correlations of an items x raters array (NaN: no rating) for given splits.

    Parameters
    ----------
    X : ndarray, items x raters
        The scores, float, NaN where a rater did not rate an item.
    in_first : ndarray of bool, splits x raters
        True where a rater is in the first half of a split; the others form the second half.

    Returns
    -------
    dict
        Arrays with one value per split: ``split``, ``n_items`` (rated in both halves), ``h`` (mean ratings per
        item in a half over those items), ``r_half`` (Spearman between the halves' item means).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 2, 1, 1], [3, 3, 2, 4], [5, 4, 5, 5], [2, 4, 3, 1.]])
    >>> split_half_correlations(X, np.array([[True, True, False, False]]))["r_half"].round(4).tolist()
    [0.9487]
    """
    present = ~np.isnan(X)
    filled = np.where(present, X, 0.0)
    first = in_first.T.astype(float)
    second = (~in_first).T.astype(float)
    # einsum without optimize adds in numpy's own order, not a BLAS kernel's: scores that are not whole
    # numbers sum to the same bits on every machine (the counts are exact in any order)
    sums_a, sums_b = (np.einsum("ir,rs->is", filled, half, optimize=False) for half in (first, second))
    counts_a, counts_b = present @ first, present @ second
    return _halves_table(sums_a, counts_a, sums_b, counts_b)


def _halves_table(sums_a, counts_a, sums_b, counts_b) -> dict:
    """items x splits sums and counts of the two halves -> the per-split table."""
    both = (counts_a > 0) & (counts_b > 0)
    with np.errstate(invalid="ignore", divide="ignore"):  # means equal to 10 decimals are ties
        mean_a = np.where(both, sums_a / counts_a, np.nan).round(10)
        mean_b = np.where(both, sums_b / counts_b, np.nan).round(10)
    n_items = both.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        h = np.where(both, (counts_a + counts_b) / 2.0, 0.0).sum(axis=0) / n_items
    r = _columnwise_spearman(mean_a, mean_b)
    return {"split": np.arange(len(n_items)), "n_items": n_items, "h": h, "r_half": r}


def _columnwise_spearman(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Spearman per column over the rows where both are present (average ranks); NaN when fewer
    than 3 rows or a constant column."""
    ra = rankdata(a, axis=0, nan_policy="omit")
    rb = rankdata(b, axis=0, nan_policy="omit")
    with warnings.catch_warnings():  # a split whose halves share no item has an all-NaN column: its r is NaN
        warnings.simplefilter("ignore", RuntimeWarning)
        ra -= np.nanmean(ra, axis=0)
        rb -= np.nanmean(rb, axis=0)
    num = np.nansum(ra * rb, axis=0)
    den = np.sqrt(np.nansum(ra * ra, axis=0) * np.nansum(rb * rb, axis=0))
    n = (~np.isnan(a)).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where((den > 1e-12) & (n >= 3), num / den, np.nan)
    return np.clip(r, -1.0, 1.0)


def rating_splits(item: np.ndarray, score: np.ndarray, n_items: int, splits: int, rng) -> dict:
    """Split-half table when raters are slots: each item's ratings are split at random (floor(m/2)
    to the first half).

    Parameters
    ----------
    item : np.ndarray
        The item index of each entry.
    score : np.ndarray
        The score of each entry.
    n_items : int
        The number of items.
    splits : int
        How many random splits.
    rng : object
        The random stream.

    Returns
    -------
    dict
        Arrays with one value per split, as ``split_half_correlations``: ``split``, ``n_items``,
        ``h`` and ``r_half``.
    """
    order = np.argsort(item, kind="stable")
    item, score = item[order], score[order]
    first = halves_within_groups(item, n_items, splits, rng)
    cell = (np.arange(splits)[:, None] * n_items + item[None, :]).ravel()
    size = splits * n_items

    def sums(mask, weight):
        return (
            np.bincount(cell[mask.ravel()], np.broadcast_to(weight, mask.shape)[mask], size).reshape(splits, n_items).T
        )

    ones = np.ones(len(item))
    return _halves_table(sums(first, score), sums(first, ones), sums(~first, score), sums(~first, ones))
