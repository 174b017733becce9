"""Test-retest (intra-rater) reliability (docs/methods.md section 4): how closely a rater's second
answer to the same item matches the first.

A rater who answers an item k times gives k - 1 pairs of consecutive answers (first with second,
second with third). Over a set of such pairs:

* ``mean_abs_diff``: the mean absolute difference between the two answers, on the dataset's scale;
* ``share_equal``: the share of pairs answered the same both times;
* ``spearman``, ``pearson``: the correlation between first and second answers (average ranks for
  ties), from three pairs on, NaN when either side does not vary;
* ``icc``: ICC(2,1) of the pairs, the two answers as two occasions (two-way random effects,
  absolute agreement of a single measurement: the form Koo & Li (2016) recommend for test-retest
  reliability), with its F-based interval (``simgold.stats.icc.two_way``).

Pooled over raters, the pairs of one rater are not independent of each other; the ICC's interval
assumes they are, so it is narrower than a rater-level resampling would give (the note says so).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simgold.stats.icc import two_way
from simgold.stats.correlation import pearson, spearman

__all__ = ["MIN_PAIRS", "Retest", "consecutive_answers", "retest_reliability"]

#: the fewest answer pairs a correlation or an ICC is computed from
MIN_PAIRS = 3


class Retest(NamedTuple):
    """Test-retest figures of one set of answer pairs (one rater, or every rater pooled).

    Attributes
    ----------
    n_pairs : int
        The ``n_pairs`` field.
    mean_abs_diff : float
        The ``mean_abs_diff`` field.
    share_equal : float
        The ``share_equal`` field.
    spearman : float
        The ``spearman`` field.
    pearson : float
        The ``pearson`` field.
    icc : float
        The ``icc`` field.
    ci_low : float
        The ``ci_low`` field.
    ci_high : float
        The ``ci_high`` field.
    note : str
        The ``note`` field.
    """

    n_pairs: int
    mean_abs_diff: float
    share_equal: float
    spearman: float
    pearson: float
    icc: float
    ci_low: float
    ci_high: float
    note: str


def consecutive_answers(group: np.ndarray, answer: np.ndarray, score: np.ndarray) -> tuple[np.ndarray, ...]:
    """The pairs of consecutive answers within each group (a rater's answers to one item).

    Parameters
    ----------
    group : numpy.ndarray
        Integer code of the (rater, item) each answer belongs to.
    answer : numpy.ndarray
        The answer's position within its group (1, 2, ...).
    score : numpy.ndarray
        The answers.

    Returns
    -------
    tuple of numpy.ndarray
        ``(group, first, second)``, one entry per pair: answer j and answer j + 1 of a group.

    Examples
    --------
    >>> consecutive_answers(np.array([0, 0, 0, 1, 1]), np.array([1, 2, 3, 2, 1]), np.array([4.0, 5, 5, 1, 2]))
    (array([0, 0, 1]), array([4., 5., 2.]), array([5., 5., 1.]))
    """
    order = np.lexsort((answer, group))
    group, score = np.asarray(group)[order], np.asarray(score, dtype=float)[order]
    same = group[1:] == group[:-1]
    return group[1:][same], score[:-1][same], score[1:][same]


def retest_reliability(first: np.ndarray, second: np.ndarray, confidence: float) -> Retest:
    """Test-retest figures of answer pairs.

    Parameters
    ----------
    first, second : numpy.ndarray
        The earlier and the later answer of each pair.
    confidence : float
        The level of the ICC's interval.

    Returns
    -------
    Retest
        The figures; correlations and ICC NaN (with a note) below ``MIN_PAIRS`` pairs or where the
        answers do not vary.

    Examples
    --------
    >>> r = retest_reliability(np.array([1.0, 2, 4, 5, 6]), np.array([1.0, 3, 4, 4, 6]), 0.95)
    >>> r.n_pairs, r.mean_abs_diff, r.share_equal, round(r.spearman, 4), round(r.icc, 4)
    (5, 0.4, 0.6, 0.9747, 0.9467)
    """
    first, second = np.asarray(first, dtype=float), np.asarray(second, dtype=float)
    n = len(first)
    if n == 0:
        return Retest(0, *(np.nan,) * 7, "no rater answered an item twice")
    diff = np.abs(first - second)
    mad, equal = float(diff.mean()), float((diff == 0).mean())
    if n < MIN_PAIRS:
        return Retest(n, mad, equal, *(np.nan,) * 5, f"{n} answer pairs: no correlation below {MIN_PAIRS}")
    if np.ptp(first) == 0 or np.ptp(second) == 0:
        note = "the answers do not vary: no correlation"
        return Retest(n, mad, equal, np.nan, np.nan, np.nan, np.nan, np.nan, note)
    correlations = spearman(first, second), pearson(first, second)
    if equal == 1.0:  # no error variance: the interval would have zero width
        return Retest(n, mad, equal, *correlations, 1.0, np.nan, np.nan, "every answer repeated exactly: no interval")
    icc = two_way(np.column_stack([first, second]), confidence)[0]
    return Retest(n, mad, equal, *correlations, *icc[1:], "")
