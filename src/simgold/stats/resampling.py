"""The bootstrap in one home: resample draws, resampled correlations, the paired bootstrap,
percentile intervals and their p values (docs/methods.md sections 7, 11).

Every bootstrap of the project draws its resamples here (``draws``): one call of
``Generator.integers`` per resample set, so that a seed gives the same resamples whichever stage
asks (the model scores, the model differences, the cross-lingual correlations, the agreement
CIs). Random halves (split-half reliability) draw their sort keys here too (``random_halves``,
``halves_within_groups``).

Not ``scipy.stats.bootstrap``: it draws the same resamples and is no faster
(``benchmarks/bootstrap.py``), but a resample whose statistic is undefined (a constant resample)
makes its whole interval NaN, and its quantile interpolation differs from ``np.quantile`` in the
last bit, which would change every published interval.

Examples
--------
>>> rng = np.random.default_rng(0)
>>> idx = draws(5, 3, rng)
>>> idx.shape, draw_counts(idx, 5).sum(axis=1).tolist()
((3, 5), [5.0, 5.0, 5.0])
"""

from __future__ import annotations

import math

import numpy as np

from simgold.stats.correlation import pearson_rows, spearman_rows

__all__ = [
    "bootstrap_p",
    "draw_counts",
    "draws",
    "halves_within_groups",
    "kendall",
    "kendall_resamples",
    "paired_bootstrap",
    "pearson_resamples",
    "min_resamples",
    "percentile_interval",
    "random_halves",
    "spearman_resamples",
    "supported_interval",
]


# -------------------------------------------------------------------------------- draws


def draws(n: int, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """resamples x n indices drawn with replacement (the resampled datasets' rows or columns).

    Parameters
    ----------
    n : int
        The units to draw from (items, raters, comparisons).
    resamples : int
        How many resamples.
    rng : numpy.random.Generator
        The stream (``simgold.stats.seeds.seed_for`` seeds it); one ``integers`` call.

    Returns
    -------
    numpy.ndarray
        resamples x n integer indices in ``[0, n)``.

    Examples
    --------
    >>> draws(4, 2, np.random.default_rng(1)).tolist()
    [[1, 2, 3, 3], [0, 0, 3, 3]]
    """
    return rng.integers(0, n, size=(resamples, n))


def draw_counts(idx: np.ndarray, n: int) -> np.ndarray:
    """How often each of n units is drawn in each resample (resamples x n).

    Parameters
    ----------
    idx : numpy.ndarray
        resamples x k drawn indices (``draws``).
    n : int
        The number of units.

    Returns
    -------
    numpy.ndarray
        resamples x n float counts.

    Examples
    --------
    >>> draw_counts(np.array([[0, 0, 2]]), 3).tolist()
    [[2.0, 0.0, 1.0]]
    """
    rows = np.repeat(np.arange(len(idx)), idx.shape[1])
    return np.bincount(rows * n + idx.ravel(), minlength=len(idx) * n).reshape(len(idx), n).astype(float)


def random_halves(n: int, splits: int, rng: np.random.Generator) -> np.ndarray:
    """splits x n booleans: a random floor(n/2) units in the first half of each split.

    Parameters
    ----------
    n : int
        The units to split (raters).
    splits : int
        How many random splits.
    rng : numpy.random.Generator
        The stream; one ``random`` call of splits x n sort keys.

    Returns
    -------
    numpy.ndarray
        splits x n bool, True in the first half.

    Examples
    --------
    >>> random_halves(4, 2, np.random.default_rng(0)).sum(axis=1).tolist()
    [2, 2]
    """
    keys = rng.random((splits, n))
    order = np.argsort(keys, axis=1)
    in_first = np.zeros((splits, n), dtype=bool)
    np.put_along_axis(in_first, order[:, : n // 2], True, axis=1)
    return in_first


def halves_within_groups(group: np.ndarray, n_groups: int, splits: int, rng: np.random.Generator) -> np.ndarray:
    """splits x entries booleans: each group's entries split at random, floor(m/2) of a group of
    m in the first half.

    Parameters
    ----------
    group : numpy.ndarray
        Each entry's group (an item's ratings), sorted.
    n_groups : int
        The number of groups.
    splits : int
        How many random splits.
    rng : numpy.random.Generator
        The stream; one ``random`` call of splits x entries sort keys.

    Returns
    -------
    numpy.ndarray
        splits x entries bool, True in the first half.

    Examples
    --------
    >>> halves_within_groups(np.array([0, 0, 1, 1, 1]), 2, 1, np.random.default_rng(0)).sum()
    np.int64(2)
    """
    counts = np.bincount(group, minlength=n_groups)
    start = np.r_[0, np.cumsum(counts)[:-1]]
    keys = rng.random((splits, len(group))) + group[None, :]  # sorts within groups only
    position = np.empty_like(keys, dtype=np.int64)
    np.put_along_axis(position, np.argsort(keys, axis=1), np.arange(len(group))[None, :], axis=1)
    return (position - start[group][None, :]) < (counts[group] // 2)[None, :]


# -------------------------------------------------------------------------------- resampled correlations


def pearson_resamples(gold: np.ndarray, sim: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Pearson's r of every resample (one row of item indices each).

    Parameters
    ----------
    gold, sim : numpy.ndarray
        The two variables, item by item.
    idx : numpy.ndarray
        resamples x n item indices (``draws``).

    Returns
    -------
    numpy.ndarray
        One r per resample, NaN where a side is constant.

    Examples
    --------
    >>> pearson_resamples(np.arange(4.0), np.arange(4.0), np.array([[0, 1, 2, 3]])).tolist()
    [1.0]
    """
    return pearson_rows(gold[idx], sim[idx])


def spearman_resamples(gold: np.ndarray, sim: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Spearman's rho of every resample (one row of item indices each), ranks within the resample.

    Parameters
    ----------
    gold, sim : numpy.ndarray
        The two variables, item by item.
    idx : numpy.ndarray
        resamples x n item indices (``draws``).

    Returns
    -------
    numpy.ndarray
        One rho per resample, NaN where a side is constant.

    Examples
    --------
    >>> spearman_resamples(np.arange(4.0), -np.arange(4.0), np.array([[0, 1, 2, 2]])).tolist()
    [-1.0]
    """
    return spearman_rows(gold[idx], sim[idx])


def kendall(gold: np.ndarray, sim: np.ndarray) -> float:
    """Kendall tau-b, scipy's to the last bit (the one resample that keeps every item once).

    Parameters
    ----------
    gold, sim : numpy.ndarray
        The two variables, item by item.

    Returns
    -------
    float
        tau-b; NaN where a side is constant.

    Examples
    --------
    >>> kendall(np.array([1.0, 2, 3, 4, 5]), np.array([0.1, 0.3, 0.2, 0.5, 0.4]))
    0.6
    """
    return float(kendall_resamples(gold, sim, np.arange(len(gold))[None, :])[0])


def kendall_resamples(gold: np.ndarray, sim: np.ndarray, idx: np.ndarray, block: int = 1 << 22) -> np.ndarray:
    """Kendall tau-b of every resample, as ``scipy.stats.kendalltau(gold[i], sim[i])`` gives it.

    A resample only changes how often each item counts (w), so its concordant minus discordant pairs
    are ``w M w / 2`` with ``M[i, j] = sign(g_i - g_j) sign(s_i - s_j)``: one matrix product for all
    resamples (M built a block of columns at a time), and the tied pairs from the weight of each
    value. Every count is an integer below 2^24 in the product (exact in float32) and summed in
    float64, so the taus are scipy's to the last bit; scipy's final formula is applied to them.

    Parameters
    ----------
    gold, sim : numpy.ndarray
        The two variables, item by item.
    idx : numpy.ndarray
        resamples x n item indices (``draws``).
    block : int
        Entries of M built at once (bounds memory).

    Returns
    -------
    numpy.ndarray
        One tau-b per resample, NaN where a side is constant.

    Examples
    --------
    >>> kendall_resamples(np.arange(3.0), np.arange(3.0), np.array([[0, 1, 2], [0, 0, 0]])).tolist()
    [1.0, nan]
    """
    n_resamples, n = idx.shape
    rows = np.arange(n_resamples)[:, None] * n
    W = np.bincount((rows + idx).ravel(), minlength=n_resamples * n).reshape(n_resamples, n).astype(np.float32)
    con_minus_dis = np.zeros(n_resamples)
    step = max(1, block // max(n, 1))
    for c in range(0, n, step):
        M = np.sign(gold[:, None] - gold[None, c : c + step]) * np.sign(sim[:, None] - sim[None, c : c + step])
        con_minus_dis += ((W @ M.astype(np.float32)).astype(np.float64) * W[:, c : c + step]).sum(axis=1)
    con_minus_dis /= 2
    total = n * (n - 1) / 2
    x_ties, y_ties = _tied_pairs(gold, W), _tied_pairs(sim, W)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = con_minus_dis / np.sqrt(total - x_ties) / np.sqrt(total - y_ties)
    tau = np.minimum(1.0, np.maximum(-1.0, tau))
    return np.where((x_ties == total) | (y_ties == total), np.nan, tau)


def _tied_pairs(values: np.ndarray, W: np.ndarray) -> np.ndarray:
    """Per resample, the pairs of its items with equal values: sum over values of c (c - 1) / 2,
    c the resample's weight on that value."""
    order = np.argsort(values, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(values[order]) != 0])
    c = np.add.reduceat(W[:, order].astype(np.float64), starts, axis=1)
    return (c * (c - 1) / 2).sum(axis=1)


# -------------------------------------------------------------------------------- intervals


def percentile_interval(values: np.ndarray, confidence: float) -> tuple[float, float, int]:
    """(low, high, resamples where the statistic is undefined): the percentile interval of the
    defined replicates (numpy's linear quantiles), NaN when none is defined.

    Parameters
    ----------
    values : numpy.ndarray
        The statistic on each resample, NaN where undefined.
    confidence : float
        The interval's coverage.

    Returns
    -------
    tuple
        ``(low, high, n_undefined)``.

    Examples
    --------
    >>> percentile_interval(np.array([1.0, 2.0, np.nan, 3.0, 4.0]), 0.5)
    (1.75, 3.25, 1)
    """
    defined = values[~np.isnan(values)]
    if len(defined) == 0:
        return float("nan"), float("nan"), len(values)
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(defined, [tail, 1.0 - tail])
    return float(low), float(high), int(len(values) - len(defined))


def min_resamples(confidence: float) -> int:
    """The fewest resamples with one beyond each end of a ``confidence`` interval (40 at 0.95).

    Parameters
    ----------
    confidence : float
        The intervals' coverage (``scoring.confidence``).

    Returns
    -------
    int
        The resample count: ``ceil(2 / (1 - confidence))``, so each tail beyond the interval
        holds at least one resample.

    Examples
    --------
    >>> min_resamples(0.95), min_resamples(0.9)
    (40, 20)
    """
    return math.ceil(round(2.0 / (1.0 - confidence), 9))


def supported_interval(values: np.ndarray, confidence: float) -> tuple[float, float, str]:
    """``percentile_interval`` where at least ``min_resamples(confidence)`` resamples have a value,
    else none and a note: a level that the resamples cannot support (fewer than one beyond each end
    of the interval) gives no interval, not the extremes.

    Parameters
    ----------
    values : numpy.ndarray
        The statistic on each resample, NaN where undefined.
    confidence : float
        The interval's coverage.

    Returns
    -------
    tuple
        ``(low, high, note)``: the note is "" where the interval exists, else why not (NaN bounds).

    Examples
    --------
    >>> [round(x, 2) for x in supported_interval(np.arange(100.0), 0.9)[:2]]
    [4.95, 94.05]
    >>> supported_interval(np.arange(100.0), 0.999)
    (nan, nan, '100 resamples with a value: no 99.9% interval (at least 2000 needed)')
    >>> supported_interval(np.full(3, np.nan), 0.9)
    (nan, nan, 'no resample with a value: no CI')
    """
    fewest = min_resamples(confidence)
    low, high, undefined = percentile_interval(values, confidence)
    defined = len(values) - undefined
    if defined == 0:
        return low, high, "no resample with a value: no CI"
    if defined < fewest:
        nan = float("nan")
        return (
            nan,
            nan,
            f"{defined} resamples with a value: no {100 * confidence:.12g}% interval (at least {fewest} needed)",
        )
    return low, high, ""


def bootstrap_p(differences: np.ndarray, alternative: str = "two-sided") -> float:
    """Bootstrap p of a difference being 0, never 0: with B defined resampled differences, c_low of
    them <= 0 and c_high >= 0, two-sided min(1, 2 (min(c_low, c_high) + 1) / (B + 1)); one-sided
    (c + 1) / (B + 1), c the count on the null's side (``less``: the difference is below 0, c =
    c_high; ``greater``: above, c = c_low). NaN without any defined difference.

    The observed sample counts as one of the B + 1 (Davison & Hinkley 1997, Monte Carlo tests): a p
    of 0 would claim more than B resamples can show.

    Parameters
    ----------
    differences : numpy.ndarray
        The resampled differences, NaN where undefined.
    alternative : str
        ``two-sided`` (default), ``less`` or ``greater``.

    Returns
    -------
    float
        The p value, at least 1 / (B + 1).

    Examples
    --------
    One of four below 0: two-sided 2 (1 + 1) / 5.

    >>> bootstrap_p(np.array([0.1, 0.2, -0.1, 0.3, np.nan]))
    0.8
    >>> bootstrap_p(np.array([0.1, 0.2, 0.3, 0.4])), bootstrap_p(np.array([0.1, 0.2, 0.3, 0.4]), "greater")
    (0.4, 0.2)
    """
    defined = differences[~np.isnan(differences)]
    if not len(defined):
        return float("nan")
    low, high, b = int((defined <= 0).sum()), int((defined >= 0).sum()), len(defined)
    if alternative == "two-sided":
        return float(min(1.0, 2.0 * (min(low, high) + 1) / (b + 1)))
    if alternative not in ("less", "greater"):
        raise ValueError(f"alternative {alternative!r}: expected two-sided, less or greater")
    return float(((high if alternative == "less" else low) + 1) / (b + 1))


def paired_bootstrap(statistic, gold: np.ndarray, a: np.ndarray, b: np.ndarray, resamples: int, rng, confidence: float):
    """Paired bootstrap of ``statistic(gold, a) - statistic(gold, b)``: both on the same resamples
    of the items.

    Parameters
    ----------
    statistic : callable
        ``statistic(gold, x, idx) -> array``: the statistic on every resample (``spearman_resamples``).
    gold, a, b : numpy.ndarray
        The gold means and the two models' similarities, item by item (all present).
    resamples : int
        How many resamples.
    rng : numpy.random.Generator
        The stream (one ``draws`` call).
    confidence : float
        The interval's coverage.

    Returns
    -------
    tuple
        ``(low, high, p, n_defined)``: the percentile interval of the difference, its two-sided p
        (``bootstrap_p``, at least 1 / (n_defined + 1)) and the resamples where both are defined.

    Examples
    --------
    >>> gold = np.arange(12.0)
    >>> sim = np.sin(gold)
    >>> paired_bootstrap(spearman_resamples, gold, sim, sim, 50, np.random.default_rng(0), 0.95)
    (0.0, 0.0, 1.0, 50)
    """
    idx = draws(len(gold), resamples, rng)
    diff = statistic(gold, a, idx) - statistic(gold, b, idx)
    diff = diff[~np.isnan(diff)]
    low, high, _ = percentile_interval(diff, confidence)
    return low, high, bootstrap_p(diff), len(diff)
