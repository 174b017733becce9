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

from simgold.stats.correlation import pearson_rows, rankdata

__all__ = [
    "DETECT_DIFFERENCES",
    "MSD_COLUMNS",
    "MSD_NOTES",
    "POWER",
    "R_JK_LEVELS",
    "MsdRow",
    "MsdSolution",
    "WilliamsResult",
    "compare_predictions",
    "critical_t",
    "items_needed",
    "minimum_significant_difference",
    "msd_any_score",
    "msd_rows",
    "msd_solution",
    "williams_test",
    "zou_interval",
]

R_JK_LEVELS = (0.5, 0.7, 0.9)


@dataclass(frozen=True)
class WilliamsResult:
    """Williams' t with its degrees of freedom and two-sided p (NaN where undefined).

    Attributes
    ----------
    t : float
        The ``t`` field.
    df : int
        The ``df`` field.
    p : float
        The ``p`` field.
    """

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
        a valid correlation matrix (``|R| < 0``); ``t = 0``, ``p = 1`` where ``r_jg == r_kg``.

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
    # equal correlations differ by nothing: t = 0 even where rounding makes |R| a hair below 0 or
    # Williams' denominator 0 (two identical predictions: r_jk = 1)
    t = np.where(r_jg == r_kg, 0.0, t)
    p = 2.0 * _special().stdtr(df, -np.abs(t))  # two-sided: scipy.stats.t.sf(|t|, df) is stdtr(df, -|t|)
    return WilliamsResult(_scalar(t), df, _scalar(p))


def _special():
    """``scipy.special`` (the normal and Student's t quantiles, without ``scipy.stats``), on first use."""
    from scipy import special  # heavy: only the jobs that test models or show the MSD need it

    return special


def _scalar(x):
    return float(x) if np.ndim(x) == 0 else x


def compare_predictions(gold, pred_j, pred_k, method: str = "spearman", *, confidence: float) -> dict:
    """Williams' test and Zou's interval for two models' predictions against the same gold, over
    the items where all three are present; ``method`` is ``spearman`` (correlations of average
    ranks) or ``pearson``.

    Returns a dict: ``method``, ``n``, ``r_jg``, ``r_kg``, ``r_jk``, ``t``, ``df``, ``p``,
    ``zou_low``, ``zou_high`` (``zou_interval`` at ``confidence``).

    Parameters
    ----------
    gold : object
        The gold means.
    pred_j : object
        The first model's similarities.
    pred_k : object
        The second model's similarities.
    method : str
        The method (as named in the config).
    confidence : float
        The intervals' coverage (``scoring.confidence``).

    Returns
    -------
    dict
        ``method``, ``n`` (items where all three are present), the three correlations ``r_jg``,
        ``r_kg``, ``r_jk``, Williams' ``t``, ``df``, ``p`` and Zou's ``zou_low``, ``zou_high``.

    Examples
    --------
    >>> gold = [1, 2, 3, 4, 5, 6, 7, 8]
    >>> a = [1, 2, 3, 4, 5, 6, 8, 7]
    >>> b = [2, 1, 4, 3, 6, 5, 8, 7]
    >>> row = compare_predictions(gold, a, b, confidence=0.95)
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
        # pearson_rows, not np.corrcoef: its sums are numpy's, in one order on every machine, where
        # corrcoef's BLAS product adds in the order of the CPU's kernel
        r = pearson_rows(np.vstack([a, b, a]), np.vstack([g, g, b]))
    r_jg, r_kg, r_jk = (float(x) for x in r)
    res = williams_test(r_jg, r_kg, r_jk, len(g))
    low, high = zou_interval(r_jg, r_kg, r_jk, len(g), confidence)
    return {
        "method": method,
        "n": int(len(g)),
        "r_jg": r_jg,
        "r_kg": r_kg,
        "r_jk": r_jk,
        "t": res.t,
        "df": res.df,
        "p": res.p,
        "zou_low": low,
        "zou_high": high,
    }


def zou_interval(r_jg, r_kg, r_jk, n: int, confidence: float) -> tuple[float, float]:
    """Zou's (2007) confidence interval for ``r_jg - r_kg``, two correlations that share g
    (overlapping, dependent), from the Fisher-z intervals of each and the correlation between them.

    With ``(l1, u1)`` and ``(l2, u2)`` the intervals of ``r_jg`` and ``r_kg`` (``tanh(atanh(r) -+
    z / sqrt(n - 3))``) and ``c`` the correlation between the two estimates (Zou, p. 409),

        c = ((r_jk - r_jg r_kg / 2)(1 - r_jg^2 - r_kg^2 - r_jk^2) + r_jk^3) / ((1 - r_jg^2)(1 - r_kg^2))
        L = r_jg - r_kg - sqrt((r_jg - l1)^2 + (u2 - r_kg)^2 - 2c (r_jg - l1)(u2 - r_kg))
        U = r_jg - r_kg + sqrt((u1 - r_jg)^2 + (r_kg - l2)^2 - 2c (u1 - r_jg)(r_kg - l2))

    On Spearman the three are correlations of average ranks, as for Williams' test (the Fisher-z
    variance ``1 / (n - 3)`` is Pearson's: for rank correlations the interval is approximate).

    Parameters
    ----------
    r_jg, r_kg : float
        The two correlations with the shared variable g.
    r_jk : float
        The correlation between j and k.
    n : int
        Observations.
    confidence : float
        Coverage of the interval.

    Returns
    -------
    tuple of float
        ``(L, U)``; NaN where ``n < 4``, a correlation is NaN or ``|r| = 1`` for ``r_jg`` or
        ``r_kg`` (equal correlations of +-1 give ``(0, 0)``).

    Examples
    --------
    Zou's (2007) example 2 (p. 409): r12 = .396, r13 = .179, r23 = .088, n = 66 give (-.093, .517).

    >>> [round(x, 3) for x in zou_interval(0.396, 0.179, 0.088, 66, 0.95)]
    [-0.093, 0.517]
    """
    values = np.array([r_jg, r_kg, r_jk], dtype=float)
    if int(n) < 4 or np.isnan(values).any() or (np.abs(values) > 1).any():
        return float("nan"), float("nan")
    if r_jg == r_kg and abs(r_jg) == 1:
        return 0.0, 0.0
    if abs(r_jg) == 1 or abs(r_kg) == 1:
        return float("nan"), float("nan")
    z = -float(_special().ndtri((1 - confidence) / 2)) / np.sqrt(n - 3)
    # the C library's tanh and atanh on scalars, not numpy's loops, which differ between AVX2 and AVX-512 CPUs
    l1, u1 = math.tanh(math.atanh(r_jg) - z), math.tanh(math.atanh(r_jg) + z)
    l2, u2 = math.tanh(math.atanh(r_kg) - z), math.tanh(math.atanh(r_kg) + z)
    c = ((r_jk - 0.5 * r_jg * r_kg) * (1 - r_jg**2 - r_kg**2 - r_jk**2) + r_jk**3) / ((1 - r_jg**2) * (1 - r_kg**2))
    # with c near 1 (nearly identical predictions) the sums are near 0, and rounding may take them below
    low = r_jg - r_kg - np.sqrt(max((r_jg - l1) ** 2 + (u2 - r_kg) ** 2 - 2 * c * (r_jg - l1) * (u2 - r_kg), 0.0))
    high = r_jg - r_kg + np.sqrt(max((u1 - r_jg) ** 2 + (r_kg - l2) ** 2 - 2 * c * (u1 - r_jg) * (r_kg - l2), 0.0))
    return float(low), float(high)


class MsdSolution(NamedTuple):
    """A minimum significant difference and, when it is NaN, why (``note``; empty otherwise).

    Attributes
    ----------
    msd : float
        The ``msd`` field.
    note : str
        The ``note`` field.
    """

    msd: float
    note: str


#: why a minimum significant difference is NaN, by the reason code of ``_first_significant_drop``
MSD_NOTES = {
    0: "",
    1: "fewer than 4 items: Williams' t has no degrees of freedom",
    2: "a correlation is NaN or outside [-1, 1]",
    3: "no lower correlation with the gold makes a valid correlation matrix with this r_jk",
    4: "the smallest difference that keeps a valid correlation matrix is already significant: no threshold",
    5: "no difference is significant while the three correlations stay a valid correlation matrix",
}


def critical_t(n: int, alpha: float = 0.05, two_sided: bool = True) -> float:
    """The critical value of Williams' t (``n - 3`` degrees of freedom): ``p < alpha`` exactly when
    ``t`` exceeds it (``|t|`` for the two-sided p). NaN for ``n < 4``.

    Parameters
    ----------
    n : int
        The number of items.
    alpha : float
        The significance level.
    two_sided : bool
        Two-sided (True) or one-sided.

    Returns
    -------
    float
        The critical t at ``n - 3`` degrees of freedom, NaN for ``n < 4``.

    Examples
    --------
    >>> round(critical_t(240), 3), round(critical_t(240, two_sided=False), 3)
    (1.97, 1.651)
    """
    if int(n) < 4:
        return float("nan")
    # -stdtrit(df, a) is the upper quantile; it avoids rounding 1 - a
    return float(-_special().stdtrit(int(n) - 3, alpha / 2 if two_sided else alpha))


def _first_significant_drop(a, r_jk, n: int, t_crit: float):
    """The smallest d > 0 with Williams' t(d) = ``t_crit`` for ``r_jg = a`` and ``r_kg = a - d``, in
    closed form, and a reason code (``MSD_NOTES``) where there is none; arrays over ``a``.

    With c = r_jk, T = t_crit^2, K = (n - 1)(1 + c), A = 2T (n - 1)/(n - 3), B = T (1 - c)^3 / 4:
    the determinant is |R|(d) = D0 + 2a(1 - c) d - d^2 with D0 = (1 - c)(1 + c - 2a^2), and
    t(d)^2 = T is K d^2 = A |R|(d) + B (2a - d)^2 (both sides times Williams' denominator, which is
    positive on valid matrices), a quadratic

        q2 d^2 + q1 d + q0 = 0,  q2 = K + A - B,  q1 = 2a (2B - (1 - c) A),  q0 = -(A D0 + 4 a^2 B),

    whose sign is that of t(d)^2 - T. |R|(d) >= 0 for d in a(1 - c) -+ sqrt((1 - a^2)(1 - c^2)),
    and r_kg >= -1 for d <= 1 + a: the root sought is the first in that interval (d > 0). The case
    r_jg = r + d, r_kg = r (r fixed) is the same quadratic at a = -r (Williams' t is symmetric)."""
    a, c = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(r_jk, dtype=float))
    d = np.full(a.shape, np.nan)
    code = np.zeros(a.shape, dtype=int)
    if int(n) < 4 or not np.isfinite(t_crit):
        return d, code + 1
    bad = ~((np.abs(a) <= 1) & (np.abs(c) <= 1))  # NaN fails both comparisons
    a, c = np.where(bad, 0.0, a), np.where(bad, 0.0, c)
    T = t_crit * t_crit
    K = (n - 1) * (1 + c)
    A = 2 * T * (n - 1) / (n - 3)
    B = T * (1 - c) ** 3 / 4
    q2, q1, q0 = K + A - B, 2 * a * (2 * B - (1 - c) * A), -(A * (1 - c) * (1 + c - 2 * a * a) + 4 * a * a * B)
    half = np.sqrt(np.maximum((1 - a * a) * (1 - c * c), 0.0))
    lo = np.maximum(a * (1 - c) - half, 0.0)
    hi = np.minimum(a * (1 - c) + half, 1 + a)
    with np.errstate(invalid="ignore", divide="ignore"):
        root_sqrt = np.sqrt(q1 * q1 - 4 * q2 * q0)  # NaN: no real root
        q = -(q1 + np.copysign(root_sqrt, q1)) / 2  # the two roots without cancellation
        roots = np.stack([q / q2, q0 / q, np.where(q1 != 0, -q0 / q1, np.nan)])
        linear = q2 == 0
        roots[:2, linear] = np.nan
        roots[2, ~linear] = np.nan
        inside = (roots >= lo) & (roots <= hi) & (roots > 0)
        first = np.where(inside, roots, np.inf).min(axis=0)
    at_lo = (q2 * lo + q1) * lo + q0
    d = np.where(np.isfinite(first), first, np.nan)
    code = np.where(np.isnan(d), 5, 0)
    code = np.where((lo > 0) & (at_lo > 0), 4, code)  # significant from the first valid d on
    d = np.where(code == 4, np.nan, d)
    code = np.where(hi <= lo, 3, code)
    code = np.where(bad, 2, code)
    return np.where(code == 0, d, np.nan), code


def msd_solution(r_best: float, n: int, r_jk: float, alpha: float = 0.05, two_sided: bool = True) -> MsdSolution:
    """The minimum significant difference (``minimum_significant_difference``) with the reason
    when it is NaN.

    Parameters
    ----------
    r_best : float
        ``r_jg``, the better model's correlation with the gold.
    n : int
        Items scored by both models.
    r_jk : float
        Correlation between the two models' predictions.
    alpha : float
        Significance level.
    two_sided : bool
        Two-sided p (default) or one-sided.

    Returns
    -------
    MsdSolution
        ``msd`` (NaN when there is none) and ``note`` (why; empty when there is a value).

    Examples
    --------
    >>> msd_solution(0.9, 353, 0.5).note
    'the smallest difference that keeps a valid correlation matrix is already significant: no threshold'
    >>> round(msd_solution(0.7, 353, 0.7).msd, 4)
    0.0562
    """
    d, code = _first_significant_drop(r_best, r_jk, int(n), critical_t(n, alpha, two_sided))
    return MsdSolution(float(d), MSD_NOTES[int(code)])


def minimum_significant_difference(r_best: float, n: int, r_jk: float, alpha: float = 0.05) -> float:
    """The smallest d > 0 for which Williams' test gives two-sided p < ``alpha`` when
    ``r_jg = r_best`` and ``r_kg = r_best - d`` at the given ``r_jk`` (in closed form: see
    ``_first_significant_drop``).

    NaN, never an error, when there is no such threshold while the three correlations stay a valid
    correlation matrix (e.g. very few items, or r_jk so high that a much lower r_kg is impossible);
    ``msd_solution`` gives the reason.

    Parameters
    ----------
    r_best : float
        The best model's Spearman with the gold.
    n : int
        The number of items.
    r_jk : float
        The correlation between the two models' predictions.
    alpha : float
        The significance level.

    Returns
    -------
    float
        The threshold d, in correlation units; NaN where there is none (see ``msd_solution``).

    Examples
    --------
    >>> d = minimum_significant_difference(0.7, 353, 0.7)
    >>> round(d, 4)
    0.0562
    >>> round(float(williams_test(0.7, 0.7 - d, 0.7, 353).p), 6)
    0.05
    """
    return msd_solution(r_best, n, r_jk, alpha).msd


#: the Spearman differences whose items-needed the msd table gives (at ``POWER``)
DETECT_DIFFERENCES = (0.02, 0.05, 0.10)
POWER = 0.8


def items_needed(r_best: float, difference: float, r_jk: float, alpha: float = 0.05, power: float = POWER) -> float:
    """The fewest items with which Williams' test detects ``r_jg = r_best`` against ``r_kg = r_best
    - difference`` (two-sided, at ``alpha``) with probability ``power``: the items counterpart of the
    raters needed.

    Normal approximation: the test statistic is taken as normal with unit variance around Williams'
    t at the true correlations, so the power at n items is ``Phi(t(n) - t_crit(n))`` (the other tail
    is negligible), and n is the smallest integer where it reaches ``power`` (a search over n, as
    t_crit depends on n). At ``power`` 0.5 this is where the minimum significant difference is
    ``difference``. Checked by simulation in the tests.

    Parameters
    ----------
    r_best : float
        The better model's correlation with the gold.
    difference : float
        The drop to detect (> 0).
    r_jk : float
        Correlation between the two models' predictions.
    alpha : float
        Two-sided significance level.
    power : float
        The probability of detecting it.

    Returns
    -------
    float
        The items needed (a whole number), NaN where the three correlations are not a valid
        correlation matrix or the difference is not positive, inf beyond ten million items.

    Examples
    --------
    >>> items_needed(0.7, 0.05, 0.7), items_needed(0.7, 0.1, 0.7)
    (894.0, 239.0)
    """
    r_kg = r_best - difference
    if not difference > 0 or not (abs(r_best) <= 1 and abs(r_kg) <= 1 and abs(r_jk) <= 1):
        return float("nan")
    if 1 - r_best**2 - r_kg**2 - r_jk**2 + 2 * r_best * r_kg * r_jk < 0:
        return float("nan")
    z = -float(_special().ndtri(1 - power))  # the margin Williams' t must clear beyond the critical value

    def enough(n: int) -> bool:
        return float(williams_test(r_best, r_kg, r_jk, n).t) - critical_t(n, alpha) >= z

    low, high = 4, 8
    while not enough(high):
        low, high = high, high * 2
        if high > 10**7:
            return float("inf")
    while high - low > 1:  # enough(high), not enough(low) unless low is 4
        middle = (low + high) // 2
        low, high = (low, middle) if enough(middle) else (middle, high)
    return float(low if enough(low) else high)


class MsdRow(NamedTuple):
    """One row of the msd table, by name (its fields are the table's columns, in order).

    Attributes
    ----------
    dataset : str
        The table's ``dataset`` column.
    model : str
        The model whose Spearman is r_best ("" where no model can carry the MSD).
    n : int
        Items that model scores.
    n_items : int
        Items of the dataset (with a gold value).
    r_best : float
        The table's ``r_best`` column.
    r_jk : float
        The table's ``r_jk`` column.
    r_jk_kind : str
        Fixed / observed.
    model_k : str
        The model whose predictions give the observed r_jk ("" for a fixed r_jk).
    alpha : float
        The table's ``alpha`` column.
    msd : float
        The table's ``msd`` column.
    items_d02 : float
        Items needed to detect a Spearman difference of 0.02 below r_best (power 0.8).
    items_d05 : float
        ... of 0.05.
    items_d10 : float
        ... of 0.10.
    note : str
        Why msd is NaN (empty when it is a number).
    """

    dataset: str
    model: str  # the model whose Spearman is r_best ("" where no model can carry the MSD)
    n: int  # items that model scores
    n_items: int  # items of the dataset (with a gold value)
    r_best: float
    r_jk: float
    r_jk_kind: str  # fixed / observed
    model_k: str  # the model whose predictions give the observed r_jk ("" for a fixed r_jk)
    alpha: float
    msd: float
    items_d02: float  # items needed to detect a Spearman difference of 0.02 below r_best (power 0.8)
    items_d05: float  # ... of 0.05
    items_d10: float  # ... of 0.10
    note: str  # why msd is NaN (empty when it is a number)


#: the msd table's columns, in order (tests/stats/test_dependent_correlations.py checks them against the canonical schema)
MSD_COLUMNS = list(MsdRow._fields)


def msd_rows(
    dataset: str,
    n: int,
    r_best: float,
    r_jk_observed=None,
    alpha: float = 0.05,
    *,
    model: str = "",
    n_items: int | None = None,
    model_k: str = "",
) -> list[MsdRow]:
    """Minimum significant differences for one dataset: at r_jk = 0.5, 0.7, 0.9 and (when given)
    the observed correlation between the two best models' predictions.

    Parameters
    ----------
    dataset : str
        The dataset's name.
    n : int
        Items the best model scores (the n of Williams' test).
    r_best : float
        The best model's Spearman with the gold.
    r_jk_observed : float, optional
        Spearman between the predictions of the best model and ``model_k``.
    alpha : float
        Significance level (two-sided).
    model, model_k : str
        The best model, and the model of the observed r_jk.
    n_items : int, optional
        The dataset's items (default ``n``).

    Returns
    -------
    list of MsdRow
        One row per r_jk, with a note wherever ``msd`` is NaN (``simgold.stages.msd.msd_table``
        makes them the msd table).

    Examples
    --------
    >>> [(row.r_jk, round(row.msd, 4)) for row in msd_rows("ws353", 353, 0.7)]
    [(0.5, 0.0699), (0.7, 0.0562), (0.9, 0.0334)]
    """
    levels = [(r, "fixed", "") for r in R_JK_LEVELS]
    if r_jk_observed is not None and not np.isnan(r_jk_observed):
        levels.append((float(r_jk_observed), "observed", model_k))
    n_items = int(n) if n_items is None else int(n_items)
    rows = []
    for r, kind, other in levels:
        solution = msd_solution(r_best, n, r, alpha)
        needed = [items_needed(r_best, d, r, alpha) for d in DETECT_DIFFERENCES]
        rows.append(
            MsdRow(dataset, model, int(n), n_items, float(r_best), r, kind, other, alpha, solution.msd, *needed,
                   solution.note)  # fmt: skip
        )
    return rows


def msd_any_score(n: int, r_jk: float, alpha: float = 0.05, two_sided: bool = True, step: float = 0.01) -> float:
    """The difference that is significant whatever the baseline score (Rastogi et al.'s
    tabulation): the largest, over baseline correlations ``r`` in [0, 1 - d), of the minimum
    significant difference above ``r`` (``r_jg = r + d``, ``r_kg = r``), on a grid of ``step``,
    up to the first ``r`` above which no difference is significant.

    Parameters
    ----------
    n : int
        The number of items.
    r_jk : float
        The correlation between the two models' predictions.
    alpha : float
        The significance level.
    two_sided : bool
        Two-sided (True) or one-sided.
    step : float
        The grid step.

    Returns
    -------
    float
        The largest minimum significant difference over the grid of baselines, in correlation
        units (0.0 when no baseline has one).

    Examples
    --------
    >>> round(msd_any_score(353, 0.9), 3)
    0.047
    """
    baselines = np.arange(0.0, 1.0, step)
    # r_jg = r + d over r_kg = r is the quadratic of r_jg = a, r_kg = a - d at a = -r (t is symmetric)
    d, _ = _first_significant_drop(-baselines, r_jk, int(n), critical_t(n, alpha, two_sided))
    missing = np.flatnonzero(np.isnan(d))
    upto = d[: missing[0]] if len(missing) else d
    return float(max(upto.max(initial=0.0), 0.0))
