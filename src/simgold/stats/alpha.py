"""Krippendorff's alpha at every level of measurement (docs/methods.md section 11), without a values x
values coincidence matrix.

``alpha = 1 - D_o / D_e`` over the pairable values (units with at least two values):

* ``D_o = sum_u 1 / (m_u - 1) sum_{i != j in u} delta(v_i, v_j)`` (observed disagreement; ``m_u``
  values in unit ``u``);
* ``D_e = 1 / (n - 1) sum_{i != j} delta(v_i, v_j)`` over all ``n`` pairable values (expected).

Difference functions ``delta``: nominal ``[c != k]``; interval ``(c - k)^2``; ratio
``((c - k) / (c + k))^2`` (0 where ``c + k = 0``); ordinal, Krippendorff's (2011) cumulative-frequency
metric ``(sum_{g=c}^{k} n_g - (n_c + n_k) / 2)^2``, ``n_g`` the pairable values equal to ``g``.

How each is computed without visiting value pairs (the ``krippendorff`` package builds a V x V
matrix, and a units x V x V array, for V distinct values, which does not fit once scores are
continuous):

* interval: sums and sums of squares per unit (``sum_{i != j} (v_i - v_j)^2 = 2 (m S2 - S1^2)``);
* ordinal: the cumulative-frequency distance of ``c < k`` is ``(M_k - M_c)^2`` with
  ``M_c = sum_{g < c} n_g + n_c / 2`` (the mid-point of ``c``'s run in the sorted pooled values), so
  ordinal alpha is interval alpha of the values mapped to ``M``;
* nominal: counts of equal values per unit (``sum_{i != j} [v_i != v_j] = m^2 - sum_c m_c^2``);
* ratio: within units, the pairs of a unit's distinct values weighted by their counts
  (``D_o = sum_u sum_{c,k} m_uc m_uk delta(c, k) / (m_u - 1)``: ``sum_u d_u^2`` terms for ``d_u``
  distinct values in unit ``u``, at most 49 per unit on a 7-point scale, in bounded chunks). For
  ``D_e = sum_{c,k} n_c n_k delta(c, k) / (n - 1)``, the distinct values' pairs when there are at most
  ``EXACT_DISTINCT`` of them; beyond that, with ``delta = 1 - 4 c k / (c + k)^2``,
  ``sum_{c,k} a_c a_k / (c + k)^2`` (``a_c = n_c c``) is
  ``int_0^inf t F(t)^2 dt`` with ``F(t) = sum_c a_c exp(-t c)``, integrated by the trapezoidal rule
  in ``log t``, which converges geometrically for this analytic integrand (relative error below
  1e-13, checked against the pairs in the tests).

Every sum is numpy's own (``bincount``, ``sum``), never a BLAS product: a BLAS kernel (one per CPU
family) adds in its own order, and alpha would differ in its last bits between machines. (The
integral's ``exp`` is numpy's loop for the CPU: beyond ``EXACT_DISTINCT`` values, ratio alpha may
still differ in its last bit between an AVX2 and an AVX-512 machine.)

Every path equals ``krippendorff.alpha`` to 1e-9 where the package runs (tests).

Why not the ``krippendorff`` package: at crowd scale with calibrated (continuous) scores, 1000
raters x 2000 items at 10% (199,618 ratings, as many distinct values), its units x V x V array would
hold 8e13 cells and cannot run, while these paths take a fraction of a second (interval) to
seconds (ratio); with integer scores (V = 7) they are faster than the package too
(docs/benchmarks.md, section alpha, has the figures).

``ALPHA_LEVELS`` is the registry of the levels of measurement: a level is one entry (its
disagreement function) and the alpha table (``alpha_rows``, and per dataset, stage and subset
``simgold.stages.agreement.alpha_levels``) gets a row for it; ``AlphaLevels`` shows how.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

__all__ = [
    "ALPHA_COLUMNS",
    "ALPHA_LEVELS",
    "EXACT_DISTINCT",
    "LEVELS",
    "NO_PAIRABLE",
    "ONE_UNIT",
    "PAIR_CHUNK",
    "AlphaLevel",
    "AlphaLevels",
    "AlphaRow",
    "alpha_from_matrix",
    "alpha_rows",
    "krippendorff_alpha",
    "undefined_note",
]

EXACT_DISTINCT = 4096  # ratio D_e: distinct values up to this are paired exactly (16.8 M pairs)
PAIR_CHUNK = 1 << 20  # ratio D_o and D_e: this many value pairs at once (bounds memory)
_QUAD_STEP = 0.25  # trapezoidal step in log t: relative error ~1e-16 (0.3: 4e-14, 0.35: 1e-11)
_T0 = math.exp(-3.0)  # below it, ratio D_e by a power series
_SERIES_TERMS = 24


class AlphaRow(NamedTuple):
    """Alpha at one level of measurement, by name: the alpha table's columns after ``dataset``,
    ``stage`` and ``subset`` (``simgold.stages.agreement.alpha_levels`` adds those).

    Attributes
    ----------
    level : str
        The table's ``level`` column.
    alpha : float
        The table's ``alpha`` column.
    n_units : int
        Units with two or more values.
    n_values : int
        Pairable values.
    n_distinct : int
        Distinct pairable values.
    note : str
        Why the value is missing.
    """

    level: str
    alpha: float
    n_units: int  # units with two or more values
    n_values: int  # pairable values
    n_distinct: int  # distinct pairable values
    note: str  # why the value is missing


ALPHA_COLUMNS = list(AlphaRow._fields)  # the alpha table's columns after dataset, stage and subset


def krippendorff_alpha(unit, value, level: str = "interval") -> float:
    """Krippendorff's alpha of values grouped into units (items), at one level of measurement.

    Parameters
    ----------
    unit : array_like
        The unit (item) of each value; any hashable labels.
    value : array_like of float
        The values; NaN means no value (ignored).
    level : str
        Level of measurement (the difference function): a key of ``ALPHA_LEVELS`` ("nominal",
        "ordinal", "interval", "ratio"). Ratio needs non-negative values.

    Returns
    -------
    float
        Alpha; NaN when no unit has two values, every pairable value is the same (D_e = 0) or
        one unit alone has two values (``undefined_note`` says which).

    Examples
    --------
    >>> import numpy as np
    >>> unit = [1, 1, 2, 2, 3, 3, 3]
    >>> value = [1.0, 1.0, 2.0, 3.0, 3.0, 3.0, np.nan]
    >>> round(krippendorff_alpha(unit, value, "interval"), 6)
    0.827586
    """
    if level not in ALPHA_LEVELS:
        raise ValueError(f"level {level!r}: expected one of {', '.join(ALPHA_LEVELS)}")
    codes, v, m = _pairable(unit, value)
    if len(v) == 0:
        return float("nan")
    if ALPHA_LEVELS[level].non_negative and (v < 0).any():
        bad = float(v[v < 0][0])
        raise ValueError(f"{level} alpha needs non-negative values; found {bad:g} (use interval for such scores)")
    return _alpha(codes, v, m, level)[0]


NO_PAIRABLE = "no item has two ratings"  # why alpha has no value without a unit of two values
#: why alpha has no value on one unit (item): its expected disagreement is its observed one
ONE_UNIT = "one item has two ratings or more: alpha would be 0 whatever the ratings (it needs two such items)"


def _alpha(codes, v, m, level: str) -> tuple[float, str]:
    """(alpha, why it is NaN) of pairable values (``_pairable``), at least one."""
    observed, expected = ALPHA_LEVELS[level].disagreement(codes, v, m)
    if not expected > 0:
        return float("nan"), "every pairable score is the same: no expected disagreement"
    if len(m) < 2:  # D_o = D_e for any values: 1 - D_o / D_e is 0 and says nothing of agreement
        return float("nan"), ONE_UNIT
    return float(1.0 - observed / expected), ""


def undefined_note(unit, value, level: str = "interval") -> str:
    """Why Krippendorff's alpha of these values has no value at ``level`` ("" when it has one), as
    the alpha table's note says it.

    Parameters
    ----------
    unit : object
        The unit (item) of each value.
    value : object
        The values (NaN: no value).
    level : str
        The level of measurement (a key of ``ALPHA_LEVELS``).

    Returns
    -------
    str
        A short sentence for the note (no pairable value, negative scores for the level, one
        pairable item, no variation); "" when alpha has a value.

    Examples
    --------
    >>> undefined_note(["a", "a", "a"], [2.0, 3.0, 4.0])
    'one item has two ratings or more: alpha would be 0 whatever the ratings (it needs two such items)'
    >>> undefined_note(["a", "b"], [2.0, 3.0])
    'no item has two ratings'
    """
    codes, v, m = _pairable(unit, value)
    if len(v) == 0:
        return NO_PAIRABLE
    if ALPHA_LEVELS[level].non_negative and (v < 0).any():
        return f"negative scores: the {level} metric is not defined"
    return _alpha(codes, v, m, level)[1]


def alpha_from_matrix(X: np.ndarray, level: str = "interval") -> float:
    """Alpha of an items x raters array with NaN for no rating (rows are the units).

    Parameters
    ----------
    X : np.ndarray
        Items x raters scores (NaN: no rating).
    level : str
        The level of measurement (a key of ``ALPHA_LEVELS``).

    Returns
    -------
    float
        Krippendorff's alpha of the values, NaN where it is undefined (see ``undefined_note``).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 1.0], [2.0, 3.0], [3.0, 3.0]])
    >>> round(alpha_from_matrix(X, "nominal"), 6)
    0.545455
    """
    X = np.asarray(X, dtype=float)
    unit = np.repeat(np.arange(X.shape[0]), X.shape[1])
    return krippendorff_alpha(unit, X.ravel(), level)


def alpha_rows(unit, value, levels=None) -> list[AlphaRow]:
    """Alpha at each level for ratings given as units and values; one row per level (the alpha
    table of ``simgold.stages.agreement.alpha_table``).

    Parameters
    ----------
    unit : array_like
        The unit (item) of each value.
    value : array_like of float
        The values (NaN: no value).
    levels : sequence of str, optional
        Keys of ``ALPHA_LEVELS``; default: every level of the registry, in its order.

    Returns
    -------
    list of AlphaRow
        One row per level (``level``, ``alpha``, ``n_units``, ``n_values``, ``n_distinct``, ``note``).

    Examples
    --------
    >>> rows = alpha_rows(np.array(["a", "a", "b", "b"]), np.array([1.0, 2.0, 4.0, 4.0]))
    >>> rows[2].level, round(rows[2].alpha, 4)
    ('interval', 0.8889)
    """
    codes, v, m = _pairable(unit, value)
    rows = []
    for level in ALPHA_LEVELS if levels is None else levels:
        note, alpha = "", float("nan")
        if len(v) == 0:
            note = NO_PAIRABLE
        elif ALPHA_LEVELS[level].non_negative and (v < 0).any():
            note = f"negative scores: the {level} metric is not defined"
        else:
            alpha, note = _alpha(codes, v, m, level)
        rows.append(AlphaRow(level, alpha, len(m), len(v), len(np.unique(v)), note))
    return rows


# --------------------------------------------------------------------------------------------


def _pairable(unit, value) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(unit code per value, values, values per unit): NaN dropped, units with one value dropped;
    values sorted by unit (codes 0..U-1)."""
    value = np.asarray(value, dtype=float)
    unit = np.asarray(unit)
    if unit.shape != value.shape:
        raise ValueError(f"unit and value differ in length ({unit.shape} and {value.shape})")
    ok = ~np.isnan(value)
    codes = _first_seen_codes(unit[ok])
    m = np.bincount(codes)
    keep = m[codes] >= 2
    codes, v = codes[keep], value[ok][keep]
    order = np.argsort(codes, kind="stable")
    codes = np.unique(codes[order], return_inverse=True)[1]
    return codes, v[order], np.bincount(codes).astype(float)


def _first_seen_codes(values: np.ndarray) -> np.ndarray:
    """Integer codes of the values in the order they first appear (as ``pandas.factorize``)."""
    distinct, first, inverse = np.unique(values, return_index=True, return_inverse=True)
    code = np.empty(len(distinct), dtype=np.int64)
    code[np.argsort(first, kind="stable")] = np.arange(len(distinct))
    return code[inverse.reshape(-1)]


def _interval(codes, v, m) -> tuple[float, float]:
    v = v - v.mean()  # centred: the sums of squares do not cancel catastrophically
    s1 = np.bincount(codes, v)
    s2 = np.bincount(codes, v * v)
    observed = float((2.0 * (m * s2 - s1 * s1) / (m - 1)).sum())
    n = len(v)
    expected = 2.0 * (n * float((v * v).sum()) - float(v.sum()) ** 2) / (n - 1)
    return max(observed, 0.0), expected


def _ordinal(codes, v, m) -> tuple[float, float]:
    _, inverse, counts = np.unique(v, return_inverse=True, return_counts=True)
    mid = np.cumsum(counts) - counts / 2.0  # M_c = sum_{g < c} n_g + n_c / 2
    return _interval(codes, mid[inverse], m)


def _nominal(codes, v, m) -> tuple[float, float]:
    _, value_code, n_c = np.unique(v, return_inverse=True, return_counts=True)
    key = codes.astype(np.int64) * len(n_c) + value_code
    keys, per_key = np.unique(key, return_counts=True)
    same = np.bincount(keys // len(n_c), per_key.astype(float) ** 2, minlength=len(m))
    observed = float(((m * m - same) / (m - 1)).sum())
    n = float(len(v))
    return observed, (n * n - float((n_c.astype(float) ** 2).sum())) / (n - 1)


def _ratio(codes, v, m) -> tuple[float, float]:
    scale = v.max()
    if scale == 0:
        return 0.0, 0.0
    v = v / scale  # delta is scale-free; values in [0, 1]
    values, value_code, n_c = np.unique(v, return_inverse=True, return_counts=True)
    n_c = n_c.astype(float)
    n = float(len(v))
    observed = _ratio_within_units(codes, value_code, values, m)
    if len(values) <= EXACT_DISTINCT:
        return observed, _ratio_value_pairs(values, n_c) / (n - 1)
    zeros = n_c[0] if values[0] == 0 else 0.0
    positive = values > 0
    cross = _ratio_cross_integral(values[positive], n_c[positive] * values[positive])
    # sum_{c,k} n_c n_k delta = (pairs not both zero) - 4 sum a_c a_k / (c + k)^2
    return observed, (n * n - zeros * zeros - 4.0 * cross) / (n - 1)


def _ratio_delta(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    s = a + b
    return np.divide(a - b, s, out=np.zeros(np.broadcast(a, b).shape), where=s != 0) ** 2


def _ratio_within_units(codes, value_code, values, m) -> float:
    """sum_u 1/(m_u - 1) sum_{i != j in u} delta: over the pairs of each unit's distinct values,
    weighted by how often each occurs in the unit."""
    key = codes.astype(np.int64) * len(values) + value_code
    cells, weight = np.unique(key, return_counts=True)  # sorted by unit, then value
    unit, value = cells // len(values), values[cells % len(values)]
    weight = None if weight.max() == 1 else weight.astype(float)  # continuous scores: every value once
    total = _ratio_pair_sums(unit, value, weight, np.bincount(unit, minlength=len(m)))
    return float((total / (m - 1)).sum())


def _ratio_value_pairs(values: np.ndarray, n_c: np.ndarray) -> float:
    """sum_{c,k} n_c n_k delta(c, k) over the pairs of distinct values, a block of rows at a time."""
    step = max(1, PAIR_CHUNK // len(values))
    total = 0.0
    for r in range(0, len(values), step):
        rows = slice(r, r + step)
        total += float((n_c[rows, None] * _ratio_delta(values[rows, None], values[None, :]) * n_c[None, :]).sum())
    return total


def _ratio_pair_sums(unit, value, weight, size) -> np.ndarray:
    """Per unit, sum_{i,j} w_i w_j delta(v_i, v_j) over the ordered pairs of its entries (entries
    sorted by unit, ``size`` of them in each; ``weight`` None: all 1), a chunk of pairs at a time."""
    start = np.r_[0, np.cumsum(size)[:-1]].astype(np.int64)
    size = size.astype(np.int64)
    total = np.zeros(len(size))
    for u0, u1 in _chunks(size * size, PAIR_CHUNK):
        e0, e1 = start[u0], start[u1 - 1] + size[u1 - 1]
        reps = size[unit[e0:e1]]
        left = np.repeat(np.arange(e0, e1), reps)
        offset = np.arange(len(left)) - np.repeat(np.cumsum(reps) - reps, reps)
        right = start[unit[left]] + offset
        terms = _ratio_delta(value[left], value[right])
        if weight is not None:
            terms *= weight[left] * weight[right]
        total += np.bincount(unit[left], terms, minlength=len(size))
    return total


def _chunks(sizes: np.ndarray, budget: int) -> list[tuple[int, int]]:
    """Consecutive index ranges whose sizes add up to at most ``budget`` (at least one index each)."""
    cum = np.cumsum(sizes)
    out, begin = [], 0
    while begin < len(sizes):
        base = cum[begin - 1] if begin else 0
        end = max(int(np.searchsorted(cum, base + budget, side="right")), begin + 1)
        out.append((begin, end))
        begin = end
    return out


def _ratio_cross_integral(c: np.ndarray, a: np.ndarray) -> float:
    """int_0^inf t (sum_j a_j e^{-t c_j})^2 dt for c in (0, 1], by the trapezoidal rule on the whole
    line x = log t: nodes from T0 up are evaluated (terms with t c > 700 underflow to 0 and are
    skipped), the infinitely many nodes below T0 are summed in closed form from a power series."""
    order = np.argsort(c)
    c, a = c[order], a[order]
    low = float(c[0])
    t_high = 1.0 / low
    for _ in range(4):  # the tail beyond t_high is about t e^{-2 c_min t} / (2 c_min): make it negligible
        t_high = (45.0 + math.log(max(t_high, 1.0))) / (2.0 * low)
    x = np.arange(math.log(_T0), math.log(t_high) + _QUAD_STEP, _QUAD_STEP)
    t = np.exp(x)
    upto = np.searchsorted(c, 700.0 / t, side="right")
    F = np.array([float((a[:k] * np.exp(-tk * c[:k])).sum()) for tk, k in zip(t, upto)])
    return _QUAD_STEP * (float((t * t * F * F).sum()) + _nodes_below(c, a))


def _nodes_below(c: np.ndarray, a: np.ndarray) -> float:
    """sum_{k >= 1} t_k^2 F(t_k)^2 at t_k = T0 e^{-k h}: with F(t)^2 = sum_n (-t)^n P_n / n!,
    P_n = sum_m C(n, m) mu_m mu_(n-m) and mu_m = sum_j a_j c_j^m, the sum over k is geometric;
    c <= 1 and 2 T0 < 0.1 make the terms fall faster than 0.1^n / n!."""
    mu = np.array([float((a * c**m).sum()) for m in range(_SERIES_TERMS)])
    total = 0.0
    for n in range(_SERIES_TERMS):
        pairs = sum(math.comb(n, m) * mu[m] * mu[n - m] for m in range(n + 1))
        q = math.exp(-(n + 2) * _QUAD_STEP)
        total += (-1) ** n * _T0 ** (n + 2) * q / (1.0 - q) / math.factorial(n) * pairs
    return total


# --------------------------------------------------------------------------------------------
# the registry: every level of measurement, in the order of the alpha table's rows


@dataclass(frozen=True)
class AlphaLevel:
    """One level of measurement of Krippendorff's alpha (an entry of ``ALPHA_LEVELS``).

    Parameters
    ----------
    disagreement : callable
        ``disagreement(codes, v, m) -> (D_o, D_e)``: the observed and expected disagreement of the
        pairable values ``v`` (float64, sorted by unit), ``codes`` their unit (0..U-1, in order) and
        ``m`` the values per unit (float64, each at least 2), as the module docstring defines them
        for the level's difference function ``delta``. Alpha is ``1 - D_o / D_e`` (NaN when
        ``D_e`` is 0).
    delta : str
        The difference function ``delta(c, k)``, in words or a formula (for readers).
    non_negative : bool
        Whether the metric needs non-negative values (ratio): ``krippendorff_alpha`` refuses
        negative values, ``alpha_rows`` gives NaN with a note.
    """

    disagreement: Callable[[np.ndarray, np.ndarray, np.ndarray], tuple[float, float]]
    delta: str
    non_negative: bool = False


class AlphaLevels(dict):
    """The registry of alpha's levels of measurement (``ALPHA_LEVELS``): name -> ``AlphaLevel``,
    in the order of the alpha table's rows. ``krippendorff_alpha``, ``alpha_rows`` and the alpha
    table of every dataset (``simgold.stages.agreement.alpha_levels``, canonical table ``alpha``)
    read it when they run.

    Parameters
    ----------
    entries : dict
        The registry's entries, by name.

    Examples
    --------
    A level is one entry plus its disagreement function; say the absolute difference
    ``delta = |c - k|`` (here by visiting every pair of values, which is fine for a toy):

    >>> def absolute(codes, v, m):
    ...     d = np.abs(v[:, None] - v[None, :])
    ...     same_unit = codes[:, None] == codes[None, :]
    ...     observed = float(((d * same_unit).sum(axis=1) / (m[codes] - 1)).sum())
    ...     return observed, float(d.sum()) / (len(v) - 1)
    >>> ALPHA_LEVELS["absolute"] = AlphaLevel(absolute, "|c - k|")
    >>> unit, score = np.array(["a", "a", "b", "b", "c", "c"]), np.array([1.0, 1, 2, 3, 3, 3])
    >>> rows = alpha_rows(unit, score)
    >>> [row.level for row in rows]
    ['nominal', 'ordinal', 'interval', 'ratio', 'absolute']
    >>> round(rows[-1].alpha, 6)  # D_o = |2 - 3| twice (unit b), D_e = 34 / 5: 1 - 2 / 6.8
    0.705882
    >>> round(krippendorff_alpha(unit, score, "absolute"), 6)
    0.705882
    >>> del ALPHA_LEVELS["absolute"]
    """


ALPHA_LEVELS: dict[str, AlphaLevel] = AlphaLevels(
    {
        "nominal": AlphaLevel(_nominal, "[c != k]"),
        "ordinal": AlphaLevel(_ordinal, "(sum_{g=c}^{k} n_g - (n_c + n_k) / 2)^2"),
        "interval": AlphaLevel(_interval, "(c - k)^2"),
        "ratio": AlphaLevel(_ratio, "((c - k) / (c + k))^2", non_negative=True),
    }
)
LEVELS = tuple(ALPHA_LEVELS)  # the four levels, for callers that list them (a snapshot at import)
