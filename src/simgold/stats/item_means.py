"""How precisely the ratings fix each item's gold mean, and how many item pairs they put in order
(docs/methods.md section 5).

* The CI of an item's mean: Student's t interval, ``mean -+ t_{(1 + c)/2, n - 1} sd / sqrt(n)``,
  from the item's ratings (n, mean, SD with ddof 1), at the level ``c`` the scoring uses. Ratings
  on a bounded scale are not normal, so the interval is approximate, and it may reach past the
  scale's ends; it is not clipped (a clipped interval would hide that the item has too few
  ratings). NaN where an item has fewer than two ratings.
* The share of item pairs whose order the ratings resolve: for two items, Welch's t-test of their
  means (unequal variances, Welch-Satterthwaite degrees of freedom) at ``1 - c``, two-sided. An
  item's ``resolved_share`` is the share of the other items (with two ratings or more) that it is
  resolved against; their mean over the items is the share of resolved pairs of the dataset. Two
  items whose raters all gave one value each are resolved when the values differ. A gold standard
  whose pairs are mostly unresolved ranks models on differences the raters did not make.

O(items^2) pairs, computed a block of rows at a time (about 4.5 million pairs for 3,000 items, under
a second); scipy.special's Student t, no scipy.stats.
"""

from __future__ import annotations

import numpy as np

__all__ = ["BLOCK", "resolved_share", "t_interval"]

BLOCK = 1024  # rows of the pair matrix at once: BLOCK x items floats per array


def t_interval(mean, sd, n, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Student's t interval of each mean.

    Parameters
    ----------
    mean, sd, n : array_like
        Each item's mean, SD (ddof 1) and number of ratings.
    confidence : float
        The interval's level.

    Returns
    -------
    tuple of numpy.ndarray
        ``(low, high)``; NaN where ``n < 2`` or the SD is NaN.

    Examples
    --------
    Ratings 4, 5, 6, 7 (mean 5.5, SD 1.291): t(0.975, 3) = 3.182, half-width 2.054.

    >>> low, high = t_interval([5.5], [np.std([4, 5, 6, 7], ddof=1)], [4], 0.95)
    >>> round(float(low[0]), 3), round(float(high[0]), 3)
    (3.446, 7.554)
    """
    from scipy.special import stdtrit  # heavy to load: only the jobs that compute intervals, not every job

    mean, sd, n = (np.asarray(x, dtype=float) for x in (mean, sd, n))
    ok = (n >= 2) & np.isfinite(sd) & np.isfinite(mean)
    df = np.where(ok, n - 1, 1.0)
    half = np.where(ok, -stdtrit(df, (1 - confidence) / 2) * sd / np.sqrt(np.where(ok, n, 1.0)), np.nan)
    return mean - half, mean + half


def resolved_share(mean, sd, n, confidence: float) -> np.ndarray:
    """Each item's share of the other items whose order with it Welch's test resolves.

    Parameters
    ----------
    mean, sd, n : array_like
        Each item's mean, SD (ddof 1) and number of ratings.
    confidence : float
        ``1 - confidence`` is the test's two-sided level.

    Returns
    -------
    numpy.ndarray
        Per item, in ``[0, 1]``; NaN for an item with fewer than two ratings, or with no other
        item to compare.

    Examples
    --------
    Three items of 10 ratings: two means 1 apart with SD 0.5 are resolved, the third (mean 2.1,
    SD 3) is resolved against neither.

    >>> resolved_share([1.0, 2.0, 2.1], [0.5, 0.5, 3.0], [10, 10, 10], 0.95).tolist()
    [0.5, 0.5, 0.0]
    """
    mean, sd, n = (np.asarray(x, dtype=float) for x in (mean, sd, n))
    from scipy.special import stdtr  # heavy to load: only the jobs that compute intervals, not every job

    out = np.full(mean.shape, np.nan)
    usable = np.flatnonzero((n >= 2) & np.isfinite(sd) & np.isfinite(mean))
    if len(usable) < 2:
        return out
    m, v = mean[usable], sd[usable] ** 2 / n[usable]  # each mean's squared standard error
    df_item = n[usable] - 1
    resolved = np.zeros(len(usable))
    alpha = 1 - confidence
    for start in range(0, len(usable), BLOCK):
        rows = slice(start, start + BLOCK)
        se2 = v[rows, None] + v[None, :]
        diff = np.abs(m[rows, None] - m[None, :])
        with np.errstate(invalid="ignore", divide="ignore"):
            t = diff / np.sqrt(se2)
            df = se2**2 / (v[rows, None] ** 2 / df_item[rows, None] + v[None, :] ** 2 / df_item[None, :])
            p = 2 * stdtr(np.where(np.isfinite(df), df, 1.0), -t)
        # both SDs 0: no spread to test against, so the order is resolved exactly when the means differ
        p = np.where(se2 == 0, np.where(diff > 0, 0.0, 1.0), p)
        hit = p < alpha
        np.fill_diagonal(hit[:, start:], False)
        resolved[rows] = hit.sum(axis=1)
    out[usable] = resolved / (len(usable) - 1)
    return out
