"""Adjusted p values for many tests at once (docs/methods.md section 11).

Holm (1979): step-down, family-wise error at the level, valid whatever the dependence between the
tests (a dataset's model pairs share the gold and each other's predictions). Holm is not in scipy;
its six lines are checked in the tests against a plain loop and a worked example. Benjamini and
Hochberg (1995), the false discovery rate across datasets, is ``scipy.stats.false_discovery_control``
(``benjamini_hochberg`` only keeps NaN out of it).
"""

from __future__ import annotations

import numpy as np

__all__ = ["benjamini_hochberg", "holm"]


def holm(p) -> np.ndarray:
    """Holm's step-down adjusted p values; NaN stays NaN and is not counted among the tests.

    Parameters
    ----------
    p : array_like
        Unadjusted p values.

    Returns
    -------
    numpy.ndarray
        ``min(1, max over the i smallest of (m - rank + 1) p)`` for each p, in the input's order,
        with ``m`` the number of p values that are not NaN.

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03, float("nan")]).round(4).tolist()
    [0.03, 0.06, 0.06, nan]
    """
    return _on_tested(p, _holm)


def _holm(p: np.ndarray) -> np.ndarray:
    m = len(p)
    order = np.argsort(p, kind="stable")
    out = np.empty(m)
    out[order] = np.minimum(np.maximum.accumulate((m - np.arange(m)) * p[order]), 1.0)
    return out


def _on_tested(p, adjust) -> np.ndarray:
    """``adjust`` applied to the p values that are not NaN; NaN stays NaN and is not counted."""
    p = np.asarray(p, dtype=float)
    out = np.full(p.shape, np.nan)
    tested = ~np.isnan(p)
    if tested.any():
        out[tested] = adjust(p[tested])
    return out


def benjamini_hochberg(p) -> np.ndarray:
    """Benjamini-Hochberg adjusted p values (q values) by ``scipy.stats.false_discovery_control``;
    NaN stays NaN and is not counted among the tests.

    Parameters
    ----------
    p : array_like
        Unadjusted p values.

    Returns
    -------
    numpy.ndarray
        The q values, in the input's order.

    Examples
    --------
    >>> benjamini_hochberg([0.01, 0.04, 0.03, float("nan")]).round(4).tolist()
    [0.03, 0.04, 0.04, nan]
    """
    from scipy.stats import false_discovery_control  # heavy: scipy.stats; the one summary job

    return _on_tested(p, lambda tested: false_discovery_control(tested, method="bh"))
