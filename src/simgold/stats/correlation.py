"""Pearson's r and Spearman's rho of plain vectors, and the average ranks Spearman's rho rests on.

The one home of these correlations (``pearson_rows``, ``spearman_rows`` and their one-pair forms
``pearson``, ``spearman``): every other module (scores and their bootstrap, noise, CoSimLex,
translation checks, the reliability and retest statistics) uses these. ``rankdata`` is our own
average-rank routine rather than ``scipy.stats.rankdata`` because it ranks every row of a 2-D array
in one vectorised pass (the bootstrap ranks thousands of resamples at once) and because importing
scipy.stats costs about a second of CPU in every job that ranks; tests hold it to scipy's ranks.

The rank correlations of rater pairs over their shared items are ``rank_correlation``'s, from the
grouped ranks of ``grouped_ranks``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["MIN_CORRELATION_ITEMS", "pearson", "pearson_rows", "rankdata", "spearman", "spearman_rows",
           "undefined_correlation_note"]  # fmt: skip


def rankdata(a, axis: int | None = None, nan_policy: str = "propagate") -> np.ndarray:
    """Average ranks (1-based, ties get the mean of their positions), as ``scipy.stats.rankdata``
    gives them to the bit (its algorithm; NaN in a slice makes the slice NaN, its default policy;
    ``nan_policy="omit"``: NaN stays NaN and the other values are ranked among themselves), without
    importing scipy.stats: about a second of CPU in every job that ranks.

    Parameters
    ----------
    a : array_like of float
        The values to rank, of any shape.
    axis : int, optional
        The axis along which each slice is ranked on its own; None (default) ranks the flattened
        values as one slice.
    nan_policy : {"propagate", "omit"}
        "propagate": a slice holding a NaN gets NaN for every rank; "omit": NaN keeps NaN as its
        rank and the slice's other values are ranked among themselves.

    Returns
    -------
    numpy.ndarray of float64
        The average ranks, 1 to the slice's length (multiples of 1/2); the shape of ``a``, or
        flat when ``axis`` is None.

    Raises
    ------
    ValueError
        For a ``nan_policy`` other than "propagate" or "omit".

    Examples
    --------
    >>> rankdata([3.0, 1.0, 3.0, 2.0]).tolist()
    [3.5, 1.0, 3.5, 2.0]
    >>> rankdata([[2.0, 1.0], [5.0, np.nan]], axis=1).tolist()
    [[2.0, 1.0], [nan, nan]]
    """
    if nan_policy not in ("propagate", "omit"):
        raise ValueError(f"nan_policy {nan_policy!r}: expected propagate or omit")
    x = np.asarray(a, dtype=np.float64)
    if axis is None:
        x, axis = x.ravel(), 0
    if x.size == 0:
        return x.copy()
    moved = np.moveaxis(x, axis, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    n = rows.shape[1]
    order = np.argsort(rows, axis=1)  # any order of equal values: they all get their mean position
    ordered = np.take_along_axis(rows, order, axis=1)
    positions = np.broadcast_to(np.arange(n), rows.shape)
    first = np.ones(rows.shape, dtype=bool)  # each value's first position among equal values
    first[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    last = np.ones(rows.shape, dtype=bool)
    last[:, :-1] = first[:, 1:]
    start = np.maximum.accumulate(np.where(first, positions, 0), axis=1)
    end = np.minimum.accumulate(np.where(last, positions, n - 1)[:, ::-1], axis=1)[:, ::-1]
    ranks = np.empty(rows.shape)
    np.put_along_axis(ranks, order, 0.5 * (start + end + 2), axis=1)  # scipy: 0.5 * (count + count_before + 1)
    # numpy sorts NaN last, each NaN unequal to the next: the other values' ranks are as without them
    missing = np.isnan(rows)
    ranks[missing if nan_policy == "omit" else missing.any(axis=1)] = np.nan
    return np.moveaxis(ranks.reshape(moved.shape), -1, axis)


def pearson_rows(x, y) -> np.ndarray:
    """Pearson's r along the last axis, for every row at once (the rows of ``x`` and ``y``
    broadcast against each other).

    Parameters
    ----------
    x, y : array_like
        Values; the last axis holds the observations of one correlation.

    Returns
    -------
    numpy.ndarray
        One r per row, in [-1, 1]; NaN where either row is constant (no variance), empty, or holds
        a NaN.

    Examples
    --------
    >>> pearson_rows([[1, 2, 3], [1, 2, 3]], [[1, 2, 4], [3, 3, 3]]).round(4).tolist()
    [0.982, nan]
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    dx = x - x.mean(axis=-1, keepdims=True)  # deviations from each row's mean
    dy = y - y.mean(axis=-1, keepdims=True)
    covariance = (dx * dy).sum(axis=-1)
    scale = np.sqrt((dx * dx).sum(axis=-1) * (dy * dy).sum(axis=-1))
    # a constant row's deviations are not exactly 0 after rounding the mean: test the values
    flat = (x == x[..., :1]).all(axis=-1) | (y == y[..., :1]).all(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.clip(covariance / scale, -1.0, 1.0)
    return np.where(flat | ~(scale > 0), np.nan, r)


def spearman_rows(x, y) -> np.ndarray:
    """Spearman's rho along the last axis, for every row at once: Pearson's r (``pearson_rows``)
    of the average ranks (``rankdata``) of each row.

    Parameters
    ----------
    x, y : array_like
        Values; the last axis holds the observations of one correlation (the rows of ``x`` and
        ``y`` broadcast against each other). Ties get average ranks.

    Returns
    -------
    numpy.ndarray
        One rho per row, in [-1, 1]; NaN where either row is constant, empty, or holds a NaN.

    Examples
    --------
    >>> spearman_rows([[1, 2, 3, 4]], [[10, 30, 20, 40]]).tolist()
    [0.8]
    """
    return pearson_rows(rankdata(x, axis=-1), rankdata(y, axis=-1))


def pearson(x, y) -> float:
    """Pearson's r of two vectors (``pearson_rows`` of one row); NaN for a constant input.

    Parameters
    ----------
    x, y : array_like of float
        The paired observations, one value per item, of equal length.

    Returns
    -------
    float
        r in [-1, 1]; NaN when either vector is constant, empty, or holds a NaN.

    Examples
    --------
    >>> round(pearson([1, 2, 3, 4], [1, 3, 2, 5]), 6)
    0.831522
    """
    return float(pearson_rows(x, y))


def spearman(x, y) -> float:
    """Spearman's rho of two vectors, ties as average ranks (``spearman_rows`` of one row); NaN for
    a constant input.

    Parameters
    ----------
    x, y : array_like of float
        The paired observations, one value per item, of equal length.

    Returns
    -------
    float
        rho in [-1, 1]; NaN when either vector is constant, empty, or holds a NaN.

    Examples
    --------
    >>> round(spearman([1, 2, 2, 4], [1, 3, 2, 5]), 6)
    0.948683
    """
    return float(spearman_rows(x, y))


MIN_CORRELATION_ITEMS = 3  # two points always correlate +-1 (or not at all): no evidence of anything


def undefined_correlation_note(gold, sim=None, *, what: str = "the model") -> str:
    """Why a correlation of ``gold`` (a gold standard's scores) with ``sim`` (``what``'s
    similarities, item by item) has no value; "" when it has one. Only the items where both are
    present count; without ``sim``, only ``gold`` is judged.

    Parameters
    ----------
    gold : array_like of float
        The gold scores (NaN: none).
    sim : array_like of float, optional
        The similarities (NaN: none).
    what : str
        Who gave the similarities, as the note names them.

    Returns
    -------
    str
        The reason: fewer than ``MIN_CORRELATION_ITEMS`` items, a constant gold standard, or
        constant similarities; "" when the correlation is defined.

    Examples
    --------
    >>> undefined_correlation_note([3.0, 3.0, 3.0, 3.0], [0.1, 0.5, 0.2, 0.9])
    'the gold standard gives every item the same score (3): no correlation'
    >>> undefined_correlation_note([1.0, 2.0], [0.1, 0.5])
    '2 items with a gold score and a similarity: a correlation needs 3 or more'
    >>> undefined_correlation_note([1.0, 2.0, 4.0], [0.5, 0.5, 0.5], what="vec-a")
    'vec-a gives every pair the same similarity: no correlation'
    >>> undefined_correlation_note([1.0, 2.0, 4.0], [0.1, 0.5, 0.2])
    ''
    """
    g = np.asarray(gold, dtype=float)
    s = np.zeros_like(g) if sim is None else np.asarray(sim, dtype=float)
    both = ~np.isnan(g) & ~np.isnan(s)
    g, s = g[both], s[both]
    if len(g) < MIN_CORRELATION_ITEMS:
        scored = "with a gold score" + (" and a similarity" if sim is not None else "")
        return (f"{len(g)} item{'s' if len(g) != 1 else ''} {scored}: a correlation needs "
                f"{MIN_CORRELATION_ITEMS} or more")  # fmt: skip
    if g.min() == g.max():
        return f"the gold standard gives every item the same score ({g[0]:g}): no correlation"
    if sim is not None and s.min() == s.max():
        return f"{what} gives every pair the same similarity: no correlation"
    return ""
