"""Williams' test for two dependent correlations and the minimum significant difference
(docs/methods.md section 11).

Two models j and k scored against the same gold g on the same n items: their correlations with the
gold, ``r_jg`` and ``r_kg``, share the gold and are correlated through ``r_jk`` (the correlation
between the two models' predictions). Williams (1959), as given by Steiger (1980, eq. 7):

    |R| = 1 - r_jg^2 - r_kg^2 - r_jk^2 + 2 r_jg r_kg r_jk
    t = (r_jg - r_kg) sqrt( (n - 1)(1 + r_jk) / (2 |R| (n - 1)/(n - 3) + ((r_jg + r_kg)^2 / 4)(1 - r_jk)^3) )

with n - 3 degrees of freedom, two-sided p. On Spearman the three correlations are Pearson
correlations of average ranks (as Spearman's rho is).

The minimum significant difference (after Rastogi et al. 2015, who tabulate it per dataset size):
the smallest d such that Williams' test gives p < alpha for ``r_jg`` = the best observed score and
``r_kg = r_jg - d``, at a given ``r_jk``. Rastogi et al. take, in their script, the worst case over
every baseline correlation and a one-sided p; ``msd_any_score`` gives that variant.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy.special import stdtr  # Student's t (scipy.stats.t.sf calls it), without importing scipy.stats

from .rank_correlation import rankdata
from .tables import TABLES

R_JK_LEVELS = (0.5, 0.7, 0.9)
MSD_COLUMNS = list(TABLES["msd"].names)  # the canonical schema's columns, in order
_GRID = 4000  # points scanned for the first significant d before it is refined by brentq


def brentq(f, a: float, b: float, xtol: float = 2e-12, rtol: float = 8.881784197001252e-16, maxiter: int = 100) -> float:
    """A root of ``f`` in [a, b] by Brent's method: scipy.optimize.brentq (scipy's C code,
    scipy/optimize/Zeros/brentq.c) step for step, so the same root to the bit (tests check it).
    Written out because importing scipy.optimize costs each model-difference job 0.3-0.5 s of CPU
    for this one function."""
    def value(x: float) -> float:
        y = float(f(x))
        if math.isnan(y):  # as scipy's wrapper refuses it
            raise ValueError(f"The function value at x={x:f} is NaN; solver cannot continue.")
        return y

    xpre, xcur = float(a), float(b)
    xblk = fblk = spre = scur = 0.0
    fpre, fcur = value(xpre), value(xcur)
    if fpre == 0:
        return xpre
    if fcur == 0:
        return xcur
    if math.copysign(1.0, fpre) == math.copysign(1.0, fcur):
        raise ValueError("f(a) and f(b) must have different signs")
    for _ in range(maxiter):
        if fpre != 0 and fcur != 0 and math.copysign(1.0, fpre) != math.copysign(1.0, fcur):
            xblk, fblk = xpre, fpre
            spre = scur = xcur - xpre
        if abs(fblk) < abs(fcur):
            xpre, xcur, xblk = xcur, xblk, xcur
            fpre, fcur, fblk = fcur, fblk, fcur
        delta = (xtol + rtol * abs(xcur)) / 2
        sbis = (xblk - xcur) / 2
        if fcur == 0 or abs(sbis) < delta:
            return xcur
        if abs(spre) > delta and abs(fcur) < abs(fpre):
            if xpre == xblk:  # interpolate
                stry = -fcur * (xcur - xpre) / (fcur - fpre)
            else:  # extrapolate
                dpre = (fpre - fcur) / (xpre - xcur)
                dblk = (fblk - fcur) / (xblk - xcur)
                stry = -fcur * (fblk * dblk - fpre * dpre) / (dblk * dpre * (fblk - fpre))
            if 2 * abs(stry) < min(abs(spre), 3 * abs(sbis) - delta):  # a good short step
                spre, scur = scur, stry
            else:  # bisect
                spre = scur = sbis
        else:  # bisect
            spre = scur = sbis
        xpre, fpre = xcur, fcur
        xcur += scur if abs(scur) > delta else (delta if sbis > 0 else -delta)
        fcur = value(xcur)
    raise RuntimeError(f"brentq: no convergence in {maxiter} iterations")


@dataclass(frozen=True)
class WilliamsResult:
    """Williams' t with its degrees of freedom and two-sided p (NaN where undefined)."""

    t: float
    df: int
    p: float


def williams_test(r_jg, r_kg, r_jk, n: int):
    """Williams' test of ``r_jg == r_kg`` for correlations sharing the variable g.

    Parameters
    ----------
    r_jg, r_kg : float or array_like
        Correlations of variables j and k with g.
    r_jk : float or array_like
        Correlation between j and k.
    n : int
        Number of observations (items scored by both models).

    Returns
    -------
    WilliamsResult
        ``t`` (positive when ``r_jg > r_kg``), ``df = n - 3`` and the two-sided ``p``; arrays when
        the correlations are arrays. NaN where ``n < 4`` or the three correlations are not those of
        a valid correlation matrix (``|R| < 0``).

    Examples
    --------
    The worked example of the Hotelling-Williams test on the Ghent CRR page (Brysbaert):
    r12 = .75, r13 = .69, r23 = .84, N = 240 give t = 2.4934, df = 237, p = .0133.

    >>> res = williams_test(0.75, 0.69, 0.84, 240)
    >>> round(float(res.t), 4), res.df, round(float(res.p), 4)
    (2.4934, 237, 0.0133)
    """
    r_jg, r_kg, r_jk = (np.asarray(x, dtype=float) for x in (r_jg, r_kg, r_jk))
    det = 1.0 - r_jg**2 - r_kg**2 - r_jk**2 + 2.0 * r_jg * r_kg * r_jk
    df = int(n) - 3
    if df < 1:
        nan = np.full(np.broadcast(r_jg, r_kg, r_jk).shape, np.nan)
        return WilliamsResult(_scalar(nan), df, _scalar(nan))
    with np.errstate(invalid="ignore", divide="ignore"):
        denominator = 2.0 * det * (n - 1) / (n - 3) + ((r_jg + r_kg) ** 2 / 4.0) * (1.0 - r_jk) ** 3
        t = (r_jg - r_kg) * np.sqrt((n - 1) * (1.0 + r_jk) / denominator)
    t = np.where(det < 0, np.nan, t)
    p = 2.0 * stdtr(df, -np.abs(t))  # two-sided: scipy.stats.t.sf(|t|, df) is stdtr(df, -|t|)
    return WilliamsResult(_scalar(t), df, _scalar(p))


def _scalar(x):
    return float(x) if np.ndim(x) == 0 else x


def compare_predictions(gold, pred_j, pred_k, method: str = "spearman") -> dict:
    """Williams' test for two models' predictions against the same gold, over the items where all
    three are present; ``method`` is ``spearman`` (correlations of average ranks) or ``pearson``.

    Returns a dict: ``method``, ``n``, ``r_jg``, ``r_kg``, ``r_jk``, ``t``, ``df``, ``p``.

    Examples
    --------
    >>> gold = [1, 2, 3, 4, 5, 6, 7, 8]
    >>> a = [1, 2, 3, 4, 5, 6, 8, 7]
    >>> b = [2, 1, 4, 3, 6, 5, 8, 7]
    >>> row = compare_predictions(gold, a, b)
    >>> row["n"], round(row["r_jg"], 4), round(row["r_kg"], 4), round(row["r_jk"], 4)
    (8, 0.9762, 0.9048, 0.9286)
    """
    if method not in ("spearman", "pearson"):
        raise ValueError(f"method {method!r}: expected spearman or pearson")
    g, a, b = (np.asarray(x, dtype=float) for x in (gold, pred_j, pred_k))
    ok = ~(np.isnan(g) | np.isnan(a) | np.isnan(b))
    g, a, b = g[ok], a[ok], b[ok]
    if method == "spearman":
        g, a, b = rankdata(g), rankdata(a), rankdata(b)
    r = np.full(3, np.nan)
    if len(g) >= 3:
        with np.errstate(invalid="ignore", divide="ignore"):
            r = np.corrcoef(np.vstack([a, b, g]))[[0, 1, 0], [2, 2, 1]]
    r_jg, r_kg, r_jk = (float(x) for x in r)
    res = williams_test(r_jg, r_kg, r_jk, len(g))
    return {"method": method, "n": int(len(g)), "r_jg": r_jg, "r_kg": r_kg, "r_jk": r_jk, "t": res.t, "df": res.df, "p": res.p}


def minimum_significant_difference(r_best: float, n: int, r_jk: float, alpha: float = 0.05) -> float:
    """The smallest d > 0 for which Williams' test gives two-sided p < ``alpha`` when
    ``r_jg = r_best`` and ``r_kg = r_best - d`` at the given ``r_jk``.

    NaN when no d reaches significance while the three correlations stay a valid correlation
    matrix (e.g. very few items, or r_jk so high that a much lower r_kg is impossible).

    Examples
    --------
    >>> d = minimum_significant_difference(0.7, 353, 0.7)
    >>> round(d, 4)
    0.0562
    >>> round(float(williams_test(0.7, 0.7 - d, 0.7, 353).p), 6)
    0.05
    """
    d_max = _largest_difference(r_best, r_jk)
    if n < 4 or d_max <= 0:
        return float("nan")
    grid = np.linspace(0.0, d_max, _GRID + 1)[1:]
    p = williams_test(r_best, r_best - grid, r_jk, n).p
    below = np.flatnonzero(p < alpha)
    if len(below) == 0:
        return float("nan")
    hi = grid[below[0]]
    lo = grid[below[0] - 1] if below[0] > 0 else 0.0
    if lo == 0.0:
        return float(hi)  # significant at the first grid step already
    return float(brentq(lambda d: williams_test(r_best, r_best - d, r_jk, n).p - alpha, lo, hi, xtol=1e-12))


def _largest_difference(r_jg: float, r_jk: float) -> float:
    """How far below r_jg the correlation r_kg can go while |R| >= 0 (and r_kg >= -1)."""
    lowest = r_jg * r_jk - np.sqrt(max((1 - r_jg**2) * (1 - r_jk**2), 0.0))
    return float(r_jg - max(lowest, -1.0)) * (1 - 1e-12)


class MsdRow(NamedTuple):
    """One row of the msd table, by name (its fields are the table's columns, in order)."""

    dataset: str
    n: int
    r_best: float
    r_jk: float
    r_jk_kind: str  # fixed / observed
    alpha: float
    msd: float


def msd_table(dataset: str, n: int, r_best: float, r_jk_observed=None, alpha: float = 0.05) -> pd.DataFrame:
    """Minimum significant differences for one dataset: at r_jk = 0.5, 0.7, 0.9 and (when given)
    the observed correlation between the two best models' predictions.

    Columns: the fields of ``MsdRow``.

    Examples
    --------
    >>> msd_table("ws353", 353, 0.7)[["r_jk", "msd"]].round(4).values.tolist()
    [[0.5, 0.0699], [0.7, 0.0562], [0.9, 0.0334]]
    """
    levels = [(r, "fixed") for r in R_JK_LEVELS]
    if r_jk_observed is not None and not np.isnan(r_jk_observed):
        levels.append((float(r_jk_observed), "observed"))
    rows = [
        MsdRow(dataset, int(n), float(r_best), r, kind, alpha, msd=minimum_significant_difference(r_best, n, r, alpha))
        for r, kind in levels
    ]
    return pd.DataFrame(rows, columns=MSD_COLUMNS)


def msd_any_score(n: int, r_jk: float, alpha: float = 0.05, two_sided: bool = True, step: float = 0.01) -> float:
    """The difference that is significant whatever the baseline score (Rastogi et al.'s
    tabulation): the largest, over baseline correlations ``r`` in [0, 1 - d), of the minimum
    significant difference above ``r`` (``r_jg = r + d``, ``r_kg = r``), on a grid of ``step``.

    Examples
    --------
    >>> round(msd_any_score(353, 0.9), 3)
    0.047
    """
    best = 0.0
    for r in np.arange(0.0, 1.0, step):
        d = _msd_above(r, n, r_jk, alpha if two_sided else 2 * alpha)
        if np.isnan(d):
            break  # from here on no difference above r is significant within [r, 1)
        best = max(best, d)
    return float(best)


def _msd_above(r_low: float, n: int, r_jk: float, alpha: float) -> float:
    """Smallest d with p < alpha for r_jg = r_low + d, r_kg = r_low (d < 1 - r_low)."""
    grid = np.linspace(0.0, 1.0 - r_low, _GRID + 1)[1:-1]
    if len(grid) == 0:
        return float("nan")
    p = williams_test(r_low + grid, r_low, r_jk, n).p
    below = np.flatnonzero(p < alpha)
    if len(below) == 0:
        return float("nan")
    if below[0] == 0:
        return float(grid[0])
    lo, hi = grid[below[0] - 1], grid[below[0]]
    return float(brentq(lambda d: williams_test(r_low + d, r_low, r_jk, n).p - alpha, lo, hi, xtol=1e-12))


# -------------------------------------------------------------------------------- per dataset

MSD_FALLBACK_R_JK = 0.7  # the r_jk the scores table assumes where one model scores a dataset


def dataset_msd(dataset: str, scores: pd.DataFrame, differences: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """The minimum significant Spearman difference of one dataset (``msd_table``) from its score
    rows (every model's ``scores.parquet``) and its ``model_differences`` table: ``r_best`` is the
    best model's Spearman over all items, ``n`` the items it scores, and the observed ``r_jk`` the
    correlation between the predictions of the two best models (when two models score it).

    Examples
    --------
    >>> scores = pd.DataFrame({"model": ["a", "b"], "metric": "spearman", "subset": "all",
    ...                        "value": [0.7, 0.6], "n_used": [353, 353]})
    >>> diffs = pd.DataFrame({"model_a": ["a"], "model_b": ["b"], "r_ab": [0.8]})
    >>> dataset_msd("ws353", scores, diffs)[["r_jk_kind", "r_jk", "msd"]].round(4).values.tolist()[-1]
    ['observed', 0.8, 0.0466]
    """
    rows = scores[(scores["metric"] == "spearman") & (scores["subset"] == "all") & scores["value"].notna()]
    if rows.empty:
        return pd.DataFrame(columns=MSD_COLUMNS)
    ranked = rows.sort_values(["value", "model"], ascending=[False, True], kind="stable")
    best = ranked.iloc[0]
    observed = None
    if len(ranked) >= 2:
        pair = {best["model"], ranked.iloc[1]["model"]}
        match = differences[[{a, b} == pair for a, b in zip(differences["model_a"], differences["model_b"])]]
        observed = float(match["r_ab"].iloc[0]) if len(match) else None
    return msd_table(dataset, int(best["n_used"]), float(best["value"]), observed, alpha)


def with_msd(summary: pd.DataFrame, msd: pd.DataFrame) -> pd.DataFrame:
    """The score summary with ``msd`` and ``msd_r_jk`` beside each dataset's Spearman (all items):
    the difference at the observed r_jk of the two best models, or at r_jk = 0.7 where one model
    scores the dataset."""
    chosen = msd[(msd["r_jk_kind"] == "observed") | np.isclose(msd["r_jk"].astype(float), MSD_FALLBACK_R_JK)]
    chosen = chosen.assign(observed=chosen["r_jk_kind"] == "observed")
    chosen = chosen.sort_values(["dataset", "observed"], kind="stable").drop_duplicates("dataset", keep="last")
    per_dataset = chosen.set_index("dataset")
    headline = (summary["metric"] == "spearman") & (summary["subset"] == "all")
    out = summary.copy()
    for column, source in (("msd", "msd"), ("msd_r_jk", "r_jk")):
        values = out["dataset"].map(per_dataset[source]).astype(float)
        out[column] = values.where(headline)
    return out
