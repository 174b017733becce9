"""Intraclass correlations (Shrout & Fleiss 1979) with their F-based confidence intervals
(docs/methods.md section 4).

For n items (targets) each rated by the same k raters (judges), the two-way ANOVA gives the mean
squares between items (BMS), between raters (JMS), residual (EMS) and within items (WMS):

* ICC(1,1) = (BMS - WMS) / (BMS + (k - 1) WMS), ICC(1,k) = (BMS - WMS) / BMS: one-way random
  effects, each item rated by its own raters (rating slots that are not people);
* ICC(2,1) = (BMS - EMS) / (BMS + (k - 1) EMS + k (JMS - EMS) / n) and ICC(2,k) = (BMS - EMS) /
  (BMS + (JMS - EMS) / n): two-way random effects, absolute agreement of one rater and of the mean
  of k raters (the gold standard is such a mean).

Intervals: ICC(1,·) from F0 = BMS / WMS and the F distribution's quantiles (Shrout & Fleiss,
Table 4); ICC(2,1) from Satterthwaite's degrees of freedom (their eq. for ICC(2,1), as McGraw & Wong
1996 give it), ICC(2,k) its bounds through Spearman-Brown. Checked against Shrout & Fleiss's worked
example (6 targets x 4 judges) and against a plain ANOVA loop in the tests.

The ANOVA needs a complete items x raters matrix. ``icc_table`` takes, per stage and subset, the
raters who rated every item there (the complete block); with fewer than two such raters, or fewer
than two items, the values are missing and the note says so (``two_way_note``, ``one_way_note``:
also constant ratings, and no interval where there is no residual variance). One-way ICC(1) is for
rating slots (``persistent_raters: false``), where items may have different numbers of ratings: it
uses the unbalanced one-way ANOVA with k0 = (N - sum n_i^2 / N) / (n - 1) ratings per item in place of k.

On few items or raters the formulas can leave [-1, 1]: ICC(2,k)'s denominator BMS + (JMS - EMS) / n
is small where the raters differ less than the residuals (4 items x 3 raters can give 5.77, with
the Spearman-Brown bounds of ICC(2,1)'s interval reversed, as pingouin prints them). ``two_way``
and ``one_way`` give such a value as NaN, and a reversed interval or one reaching beyond [-1, 1] as
NaN bounds (``bounded``, whose note says which); ``raw=True`` gives the formulas' own numbers.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["Icc", "bounded", "one_way", "one_way_note", "two_way", "two_way_note"]


class Icc(NamedTuple):
    """One intraclass correlation with its interval.

    Attributes
    ----------
    form : str
        ICC(1,1), ICC(1,k), ICC(2,1), ICC(2,k).
    value : float
        The ``value`` field.
    ci_low : float
        The ``ci_low`` field.
    ci_high : float
        The ``ci_high`` field.
    """

    form: str  # ICC(1,1), ICC(1,k), ICC(2,1), ICC(2,k)
    value: float
    ci_low: float
    ci_high: float


def _f_upper(confidence: float, dfn: float, dfd: float) -> float:
    """The F quantile at (1 + confidence) / 2 (scipy.special, not scipy.stats)."""
    from scipy.special import fdtri  # heavy to load: only where an ICC's interval is computed, not every job

    return float(fdtri(dfn, dfd, (1 + confidence) / 2))


def two_way(X: np.ndarray, confidence: float, *, raw: bool = False) -> list[Icc]:
    """ICC(2,1) and ICC(2,k) of a complete items x raters matrix.

    Parameters
    ----------
    X : numpy.ndarray
        Ratings, items x raters, no missing value.
    confidence : float
        The intervals' level.
    raw : bool
        True: the formulas' numbers as they come, also beyond [-1, 1]; False (default): through
        ``bounded``.

    Returns
    -------
    list of Icc
        ICC(2,1) and ICC(2,k), each with its interval (NaN when fewer than two items or raters, and
        where ``bounded`` drops a value or an interval).

    Examples
    --------
    Shrout & Fleiss (1979), Table 2 (6 targets, 4 judges): ICC(2,1) = .29, ICC(2,4) = .62.

    >>> X = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]])
    >>> [(icc.form, round(icc.value, 2)) for icc in two_way(X, 0.95)]
    [('ICC(2,1)', 0.29), ('ICC(2,k)', 0.62)]

    Raters who differ less than the residuals: ICC(2,k) beyond 1 as the formula gives it, NaN here.

    >>> X = np.array([[1.0, 2, 3], [3, 1, 2], [2, 3, 1], [2, 2, 3]])
    >>> round(two_way(X, 0.95, raw=True)[1].value, 2), two_way(X, 0.95)[1].value
    (6.0, nan)
    """
    X = np.asarray(X, dtype=float)
    n, k = X.shape
    if n < 2 or k < 2:
        return [Icc("ICC(2,1)", *(np.nan,) * 3), Icc("ICC(2,k)", *(np.nan,) * 3)]
    bms, jms, ems, _ = map(np.float64, _mean_squares(X))  # numpy floats: a perfect agreement divides by 0
    with np.errstate(invalid="ignore", divide="ignore"):
        single = (bms - ems) / (bms + (k - 1) * ems + k * (jms - ems) / n)
        average = (bms - ems) / (bms + (jms - ems) / n)
        # Satterthwaite's degrees of freedom for the denominator of ICC(2,1)
        a = k * single / (n * (1 - single))
        b = 1 + k * single * (n - 1) / (n * (1 - single))
        v = (a * jms + b * ems) ** 2 / ((a * jms) ** 2 / (k - 1) + (b * ems) ** 2 / ((n - 1) * (k - 1)))
        if np.isfinite(v) and v > 0:
            f_star, f_star_inv = _f_upper(confidence, n - 1, v), _f_upper(confidence, v, n - 1)
            low = n * (bms - f_star * ems) / (f_star * (k * jms + (k * n - k - n) * ems) + n * bms)
            high = n * (f_star_inv * bms - ems) / (k * jms + (k * n - k - n) * ems + n * f_star_inv * bms)
        else:
            low = high = np.nan
        low_k, high_k = (k * x / (1 + (k - 1) * x) for x in (low, high))
    iccs = [Icc("ICC(2,1)", float(single), float(low), float(high)),
            Icc("ICC(2,k)", float(average), float(low_k), float(high_k))]  # fmt: skip
    return iccs if raw else [bounded(icc)[0] for icc in iccs]


def one_way(values: np.ndarray, groups: np.ndarray, confidence: float, *, raw: bool = False) -> list[Icc]:
    """ICC(1,1) and ICC(1,k) from ratings grouped by item, each item with its own raters (slots).

    Parameters
    ----------
    values : numpy.ndarray
        Every rating.
    groups : numpy.ndarray
        The item of each rating (integer codes); items may have different numbers of ratings.
    confidence : float
        The intervals' level.
    raw : bool
        True: the formulas' numbers as they come; False (default): through ``bounded``.

    Returns
    -------
    list of Icc
        ICC(1,1) and ICC(1,k) (k: the items' ratings, k0 when they differ), with intervals. Where
        the item means are all equal (BMS = 0) ICC(1,k) and both intervals are NaN (ICC(1,1) is
        its floor, -1 / (k0 - 1)); where every item's ratings agree (WMS = 0) both are 1, without
        an interval.

    Examples
    --------
    Shrout & Fleiss (1979), Table 2: ICC(1,1) = .17, ICC(1,4) = .44.

    >>> X = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]])
    >>> [(icc.form, round(icc.value, 2)) for icc in one_way(X.ravel(), np.repeat(np.arange(6), 4), 0.95)]
    [('ICC(1,1)', 0.17), ('ICC(1,k)', 0.44)]
    >>> [tuple(icc) for icc in one_way(np.array([2.0, 4, 4, 2]), np.array([0, 0, 1, 1]), 0.95)]  # equal means
    [('ICC(1,1)', -1.0, nan, nan), ('ICC(1,k)', nan, nan, nan)]
    """
    values, groups = np.asarray(values, dtype=float), np.asarray(groups)
    _, codes, counts = np.unique(groups, return_inverse=True, return_counts=True)
    keep = counts[codes] >= 2  # an item with one rating says nothing about agreement
    values, codes = values[keep], np.unique(codes[keep], return_inverse=True)[1]
    counts = np.bincount(codes)
    n, total = len(counts), len(values)
    if n < 2 or total <= n:
        return [Icc("ICC(1,1)", *(np.nan,) * 3), Icc("ICC(1,k)", *(np.nan,) * 3)]
    means = np.bincount(codes, values) / counts
    grand = values.mean()
    # numpy floats: a mean square of 0 divides to inf or NaN, not ZeroDivisionError; equal item
    # means give BMS 0 exactly (their mean may differ from the grand mean in the last bit)
    bms = np.float64(0.0 if np.ptp(means) == 0 else (counts * (means - grand) ** 2).sum() / (n - 1))
    wms = np.float64(((values - means[codes]) ** 2).sum() / (total - n))
    k0 = (total - (counts**2).sum() / total) / (n - 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        single = (bms - wms) / (bms + (k0 - 1) * wms)
        average = (bms - wms) / bms if bms > 0 else np.nan
        # F0 of 0 (equal item means) or infinite (no variance within items): no interval, never one of zero width
        f0 = bms / wms if bms > 0 and wms > 0 else np.nan
        f_low = f0 / _f_upper(confidence, n - 1, total - n)
        f_high = f0 * _f_upper(confidence, total - n, n - 1)
        low, high = (f_low - 1) / (f_low + k0 - 1), (f_high - 1) / (f_high + k0 - 1)
        low_k, high_k = 1 - 1 / f_low, 1 - 1 / f_high
    iccs = [Icc("ICC(1,1)", float(single), float(low), float(high)),
            Icc("ICC(1,k)", float(average), float(low_k), float(high_k))]  # fmt: skip
    return iccs if raw else [bounded(icc)[0] for icc in iccs]


def bounded(icc: Icc) -> tuple[Icc, str]:
    """An ICC as it may be reported: a value beyond [-1, 1] (or infinite) is NaN with its interval;
    an interval that is reversed or reaches beyond [-1, 1] is NaN; the note says which.

    Parameters
    ----------
    icc : Icc
        An ICC as its formula gives it (``two_way(..., raw=True)``).

    Returns
    -------
    tuple
        ``(Icc, note)``: the ICC kept, or with NaN in place of what cannot be reported, and a
        short sentence for the ICC table's note ("" when nothing was dropped).

    Examples
    --------
    >>> bounded(Icc("ICC(2,k)", 5.77, 5.77, 0.66))
    (Icc(form='ICC(2,k)', value=nan, ci_low=nan, ci_high=nan), 'ICC(2,k) = 5.77 lies beyond [-1, 1] (the formula on few items or raters): no value')
    >>> bounded(Icc("ICC(1,k)", 0.2, -1.5, 0.8))[1]
    'the F-based interval of ICC(1,k) is reversed or reaches beyond [-1, 1]: no interval'
    >>> bounded(Icc("ICC(2,1)", 0.5, 0.1, 0.8))
    (Icc(form='ICC(2,1)', value=0.5, ci_low=0.1, ci_high=0.8), '')
    """
    nan = float("nan")
    if np.isinf(icc.value) or abs(icc.value) > 1:
        return Icc(icc.form, nan, nan, nan), (
            f"{icc.form} = {icc.value:.3g} lies beyond [-1, 1] (the formula on few items or raters): no value"
        )
    low, high = icc.ci_low, icc.ci_high
    if not (np.isnan(low) or np.isnan(high)) and (low > high or low < -1 or high > 1):
        return Icc(icc.form, icc.value, nan, nan), (
            f"the F-based interval of {icc.form} is reversed or reaches beyond [-1, 1]: no interval"
        )
    return icc, ""


def two_way_note(X: np.ndarray, confidence: float, *, single: Icc | None = None) -> str:
    """Why ``two_way(X)`` gives no value or no interval; "" when it gives both. ``single``: its
    ICC(2,1) where the caller has it already (not computed again).

    Parameters
    ----------
    X : np.ndarray
        Items x raters scores (NaN: no rating).
    confidence : float
        The intervals' coverage (``scoring.confidence``).
    single : Icc | None
        The single-rater ICC, when computed already.

    Returns
    -------
    str
        A short sentence for the ICC table's note (too few items or raters, constant ratings,
        undefined mean squares, no residual variance); "" when value and interval exist.

    Examples
    --------
    >>> two_way_note(np.full((4, 3), 3.0), 0.95)
    'every rating is 3: no variance between items or raters, no ICC'
    >>> two_way_note(np.array([[2.0, 4, 5], [2, 4, 5], [2, 4, 5]]), 0.95)  # each rater constant
    "no residual variance (every rating is its item's mean plus its rater's shift): no F-based interval"
    >>> two_way_note(np.array([[2.0, 3, 4]]), 0.95)
    '1 item: an ICC needs two items or more'
    """
    X = np.asarray(X, dtype=float)
    n, k = X.shape
    if n < 2:
        return f"{n} item{'s' if n != 1 else ''}: an ICC needs two items or more"
    if k < 2:
        return f"{k} rater{'s' if k != 1 else ''}: an ICC needs two raters or more"
    if X.min() == X.max():
        return f"every rating is {X.flat[0]:g}: no variance between items or raters, no ICC"
    single = single if single is not None else two_way(X, confidence)[0]
    if np.isnan(single.value):
        return "the mean squares leave the ICC undefined"
    if np.isnan(single.ci_low) or np.isnan(single.ci_high):
        return "no residual variance (every rating is its item's mean plus its rater's shift): no F-based interval"
    return ""


def one_way_note(values: np.ndarray, groups: np.ndarray, confidence: float, *, single: Icc | None = None) -> str:
    """Why ``one_way(values, groups)`` gives no value or no interval; "" when it gives both.
    ``single``: its ICC(1,1) where the caller has it already (not computed again).

    Parameters
    ----------
    values : np.ndarray
        The values.
    groups : np.ndarray
        The group of each value.
    confidence : float
        The intervals' coverage (``scoring.confidence``).
    single : Icc | None
        The single-rater ICC, when computed already.

    Returns
    -------
    str
        A short sentence for the ICC table's note (too few items with two ratings, constant
        ratings, equal item means, undefined mean squares, no variance within items); "" when
        both exist.

    Examples
    --------
    >>> one_way_note(np.array([3.0, 3, 3, 3]), np.array([0, 0, 1, 1]), 0.95)
    'every rating is 3: no variance between or within items, no ICC'
    >>> one_way_note(np.array([1.0, 2, 5]), np.array([0, 0, 1]), 0.95)
    'fewer than two items with two ratings: no ICC'
    >>> one_way_note(np.array([2.0, 4, 4, 2]), np.array([0, 0, 1, 1]), 0.95)[:40]
    'the item means are all equal (no varianc'
    """
    values, groups = np.asarray(values, dtype=float), np.asarray(groups)
    _, codes, counts = np.unique(groups, return_inverse=True, return_counts=True)
    if (counts >= 2).sum() < 2:
        return "fewer than two items with two ratings: no ICC"
    if values.min() == values.max():
        return f"every rating is {values[0]:g}: no variance between or within items, no ICC"
    rated = counts >= 2  # the items one_way keeps, their means summed as it sums them
    if np.ptp(np.bincount(codes, values, minlength=len(counts))[rated] / counts[rated]) == 0:
        return (
            "the item means are all equal (no variance between items): ICC(1,1) is its floor -1 / (k - 1), "
            "no ICC(1,k) and no F-based interval"
        )
    single = single if single is not None else one_way(values, groups, confidence)[0]
    if np.isnan(single.value):
        return "the mean squares leave the ICC undefined"
    if np.isnan(single.ci_low) or np.isnan(single.ci_high):
        return "no variance within items: no F-based interval"
    return ""


def _mean_squares(X: np.ndarray) -> tuple[float, float, float, float]:
    """(BMS, JMS, EMS, WMS) of a complete items x raters matrix."""
    n, k = X.shape
    grand = X.mean()
    item_means, rater_means = X.mean(axis=1), X.mean(axis=0)
    ss_items = k * ((item_means - grand) ** 2).sum()
    ss_raters = n * ((rater_means - grand) ** 2).sum()
    ss_total = ((X - grand) ** 2).sum()
    # the residuals summed, not ss_total - ss_items - ss_raters: where ratings are item plus rater
    # effects alone that difference is a rounding error (6e-16), and ICC(2,1) came out -9e-17, not 0
    ss_error = ((X - item_means[:, None] - rater_means[None, :] + grand) ** 2).sum()
    return (
        float(ss_items / (n - 1)),
        float(ss_raters / (k - 1)),
        float(ss_error / ((n - 1) * (k - 1))),
        float((ss_total - ss_items) / (n * (k - 1))),
    )
