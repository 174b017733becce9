"""Best-Worst Scaling (MaxDiff): scores, reliability and model accuracy from coded answers
(docs/methods.md, Best-Worst Scaling).

An answer is one rater's choice of the best and the worst item of a tuple of k items (k >= 2 here;
the ``bws`` kind's config asks for 3 to 8). The answers arrive coded (``CodedAnswers``: item, tuple
and rater codes as integer arrays, no pandas), so that every function is a handful of ``bincount``
calls over the answers, never a Python loop over them.

* **Counting** (Orme 2009; Kiritchenko & Mohammad's script): the share of the answers showing an
  item where it was best minus the share where it was worst (``counting_scores``), with bootstrap
  intervals over answers or raters (``counting_intervals``, drawn by ``simgold.stats.resampling``).
* **MaxDiff model**: its own module, ``simgold.stats.maxdiff_model`` (``maxdiff_fit``).
* **Reliability** as BWS papers report it: split-half (Kiritchenko & Mohammad 2017, ``split_half``),
  each rater against the others (``rater_agreement``), answers a target needs (``answers_needed``).
* **Model accuracy** as SemEval-2012 Task 2 scored it (``maxdiff_accuracy``).

Examples
--------
>>> a = coded_answers(answer=np.repeat([0, 1], 3), position=np.tile([1, 2, 3], 2),
...                   item=np.array([0, 1, 2, 0, 1, 2]), choice=np.array([1, 0, -1, 0, 1, -1]),
...                   tuple_code=np.zeros(6, int), rater=np.repeat([0, 1], 3), n_items=3)
>>> counting_scores(a).score.tolist()
[0.5, 0.5, -1.0]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from simgold.stats.correlation import pearson, spearman
from simgold.stats.reliability import raters_needed, single_rater, spearman_brown
from simgold.stats.resampling import draw_counts, draws, halves_within_groups, min_resamples, percentile_interval, supported_interval

__all__ = ["CodedAnswers", "CountingScores", "MaxDiffAccuracy", "RaterAgreement", "SplitHalf", "answers_needed",
           "coded_answers", "counting_intervals", "counting_scores", "maxdiff_accuracy", "rater_agreement",
           "split_half"]  # fmt: skip

#: The resampled answers' weights held at once (bounds memory, not the result)
_BLOCK_ENTRIES = 1 << 22


# -------------------------------------------------------------------------------- coded answers


@dataclass(frozen=True)
class CodedAnswers:
    """BWS answers coded as integers: one row per answer.

    Attributes
    ----------
    tuples : numpy.ndarray
        (n_answers, k_max) int64 item codes ``0..n_items-1``; -1 pads a row whose tuple has fewer
        than k_max items.
    best, worst : numpy.ndarray
        (n_answers,) int64 item codes of the best and the worst choice (items of the row, distinct).
    n_items : int
        How many item codes there are (items never shown included).
    tuple_code : numpy.ndarray
        (n_answers,) int64: answers to the same tuple share a code.
    rater : numpy.ndarray
        (n_answers,) int64 rater codes, -1 where the source names no rater.

    Examples
    --------
    >>> a = CodedAnswers(np.array([[0, 1, 2]]), np.array([0]), np.array([2]), 3, np.array([0]), np.array([-1]))
    >>> a.n_answers
    1
    """

    tuples: np.ndarray
    best: np.ndarray
    worst: np.ndarray
    n_items: int
    tuple_code: np.ndarray
    rater: np.ndarray

    @property
    def n_answers(self) -> int:
        """How many answers (rows)."""
        return len(self.best)


def coded_answers(answer, position, item, choice, tuple_code, rater, n_items: int) -> CodedAnswers:
    """``CodedAnswers`` from long arrays: one entry per item shown in an answer (the answers table's
    columns, coded).

    Parameters
    ----------
    answer : array_like of int
        The answer each entry belongs to (any integers; answers are ordered by them).
    position : array_like of int
        The item's position in its tuple, 1..k.
    item : array_like of int
        The item's code, ``0..n_items-1``.
    choice : array_like of int
        1 best, -1 worst, 0 neither.
    tuple_code, rater : array_like of int
        The answer's tuple code and rater code (-1: none), repeated on each of its entries.
    n_items : int
        How many item codes there are.

    Returns
    -------
    CodedAnswers
        One row per answer, in the order of the answers' numbers.

    Raises
    ------
    ValueError
        When an answer has not exactly one best and one worst entry.

    Examples
    --------
    >>> a = coded_answers([7, 7, 7], [1, 2, 3], [4, 0, 2], [0, -1, 1], [0, 0, 0], [-1, -1, -1], 5)
    >>> a.tuples.tolist(), a.best.tolist(), a.worst.tolist()
    ([[4, 0, 2]], [2], [0])
    """
    answer, position, item, choice = (np.asarray(x, dtype=np.int64) for x in (answer, position, item, choice))
    numbers, row = np.unique(answer, return_inverse=True)
    n = len(numbers)
    for name, wanted in (("best", 1), ("worst", -1)):
        if not np.array_equal(np.bincount(row[choice == wanted], minlength=n), np.ones(n, dtype=np.int64)):
            raise ValueError(f"every answer needs exactly one {name} item")
    tuples = np.full((n, int(position.max())), -1, dtype=np.int64)
    tuples[row, position - 1] = item
    best, worst = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    best[row[choice == 1]] = item[choice == 1]
    worst[row[choice == -1]] = item[choice == -1]
    first = np.unique(row, return_index=True)[1]  # each answer's first entry carries its tuple and rater
    tuple_code, rater = np.asarray(tuple_code, np.int64)[first], np.asarray(rater, np.int64)[first]
    return CodedAnswers(tuples, best, worst, int(n_items), tuple_code, rater)


def _slots(a: CodedAnswers) -> tuple[np.ndarray, np.ndarray]:
    """(answer, item) of every item shown, pads left out."""
    shown = a.tuples >= 0
    return np.nonzero(shown)[0], a.tuples[shown]


# -------------------------------------------------------------------------------- counting


@dataclass(frozen=True)
class CountingScores:
    """Counting scores, item by item (index = item code).

    Attributes
    ----------
    n_shown, n_best, n_worst : numpy.ndarray
        How many answers showed the item, chose it best, chose it worst.
    score : numpy.ndarray
        ``(n_best - n_worst) / n_shown``, in [-1, 1]; NaN where the item was never shown.
    """

    n_shown: np.ndarray
    n_best: np.ndarray
    n_worst: np.ndarray
    score: np.ndarray


def _score(shown, best, worst) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(shown > 0, (best - worst) / shown, np.nan)


def counting_scores(a: CodedAnswers) -> CountingScores:
    """Counting scores (Orme 2009): the share of answers where an item was best minus the share where
    it was worst.

    Parameters
    ----------
    a : CodedAnswers
        The answers.

    Returns
    -------
    CountingScores
        Counts and scores item by item.

    Examples
    --------
    >>> a = CodedAnswers(np.array([[0, 1, 2], [0, 1, 2]]), np.array([0, 1]), np.array([2, 2]), 4,
    ...                  np.array([0, 0]), np.array([0, 1]))
    >>> s = counting_scores(a)
    >>> s.n_shown.tolist(), s.score.tolist()
    ([2, 2, 2, 0], [0.5, 0.5, -1.0, nan])
    """
    _, item = _slots(a)
    shown = np.bincount(item, minlength=a.n_items)
    best = np.bincount(a.best, minlength=a.n_items)
    worst = np.bincount(a.worst, minlength=a.n_items)
    return CountingScores(shown, best, worst, _score(shown, best, worst))


def _weighted_counts(a: CodedAnswers, weights: np.ndarray) -> np.ndarray:
    """blocks x n_items counting scores of answers weighted by each row of ``weights``."""
    (answer, item), rows, size = _slots(a), np.arange(len(weights))[:, None], len(weights) * a.n_items

    def count(items, w):
        return np.bincount((rows * a.n_items + items[None, :]).ravel(), w.ravel(), size).reshape(-1, a.n_items)

    return _score(count(item, weights[:, answer]), count(a.best, weights), count(a.worst, weights))


def _clusters(a: CodedAnswers, by: str) -> np.ndarray:
    """Each answer's resampling unit: itself, or its rater (an answer without a rater on its own)."""
    if by == "answers":
        return np.arange(a.n_answers)
    if by != "raters":
        raise ValueError(f"by={by!r}: expected 'answers' or 'raters'")
    n_raters = int(a.rater.max()) + 1 if a.n_answers else 0
    return np.where(a.rater >= 0, a.rater, n_raters + np.arange(a.n_answers))


def counting_intervals(a: CodedAnswers, resamples: int, rng: np.random.Generator, confidence: float, by="answers"):
    """Percentile bootstrap intervals of every item's counting score.

    Each resample draws the answers (``by="answers"``) or the raters as clusters, all of a rater's
    answers together (``by="raters"``; an answer without a rater is a cluster of its own), with
    replacement (``simgold.stats.resampling.draws``, a block of resamples per call); a resample
    weights each answer by how often it was drawn. An item not shown in a resample has no score
    there; its interval is over the resamples that show it (``percentile_interval``), and none
    (NaN) where fewer of them than the level needs show it (``resampling.min_resamples``: one
    beyond each end), rather than the extremes of a few.

    Parameters
    ----------
    a : CodedAnswers
        The answers.
    resamples : int
        How many resamples.
    rng : numpy.random.Generator
        The stream.
    confidence : float
        The intervals' coverage.
    by : {"answers", "raters"}
        The resampled unit.

    Returns
    -------
    tuple of numpy.ndarray
        ``(low, high)``, item by item; NaN for items never shown.

    Examples
    --------
    >>> a = CodedAnswers(np.array([[0, 1, 2]] * 4), np.array([0, 0, 1, 0]), np.array([2, 1, 2, 2]), 3,
    ...                  np.zeros(4, int), np.arange(4))
    >>> low, high = counting_intervals(a, 200, np.random.default_rng(0), 0.9)
    >>> bool(low[0] <= 0.75 <= high[0]), float(low[2]), float(high[2])
    (True, -1.0, -0.25)
    """
    unit = _clusters(a, by)
    n_units = int(unit.max()) + 1 if len(unit) else 0
    step = max(1, _BLOCK_ENTRIES // max(a.tuples.size, 1))
    scores = np.empty((resamples, a.n_items))
    for start in range(0, resamples, step):
        weights = draw_counts(draws(n_units, min(step, resamples - start), rng), n_units)[:, unit]
        scores[start : start + step] = _weighted_counts(a, weights)
    return _item_intervals(scores, confidence)


def _item_intervals(scores: np.ndarray, confidence: float):
    """Column-wise percentile intervals (numpy's quantiles; ``percentile_interval`` where some are NaN)."""
    low, high = np.full(scores.shape[1], np.nan), np.full(scores.shape[1], np.nan)
    complete = ~np.isnan(scores).any(axis=0)
    tail = (1.0 - confidence) / 2.0
    step = max(1, _BLOCK_ENTRIES // max(len(scores), 1))  # the columns copied at once
    for start in range(0, scores.shape[1], step):
        cols = start + np.flatnonzero(complete[start : start + step])
        low[cols], high[cols] = np.quantile(scores[:, cols], [tail, 1.0 - tail], axis=0)
    for j in np.flatnonzero(~complete):
        low[j], high[j], _ = percentile_interval(scores[:, j], confidence)
    unsupported = (~np.isnan(scores)).sum(axis=0) < min_resamples(confidence)
    low[unsupported], high[unsupported] = np.nan, np.nan
    return low, high


# -------------------------------------------------------------------------------- split-half reliability


@dataclass(frozen=True)
class SplitHalf:
    """Split-half reliability of counting scores (Kiritchenko & Mohammad 2017).

    Attributes
    ----------
    spearman, pearson : float
        The halves' correlations, averaged over trials.
    spearman_brown, pearson_brown : float
        Their Spearman-Brown projections to the whole (factor 2): the reported SHR.
    ci_low, ci_high : float
        Interval of ``spearman_brown``: see ``split_half``.
    trials : int
        How many random splits.
    n_items : float
        Items scored in both halves, averaged over trials.
    n_tuples_split, n_tuples_left_out : int
        Tuples with two or more answers (split), and with a single answer (left out).
    spearman_trials, pearson_trials : numpy.ndarray
        Each trial's correlations.
    note : str
        Why the figures are NaN, or "".
    """

    spearman: float
    pearson: float
    spearman_brown: float
    pearson_brown: float
    ci_low: float
    ci_high: float
    trials: int
    n_items: float
    n_tuples_split: int
    n_tuples_left_out: int
    spearman_trials: np.ndarray
    pearson_trials: np.ndarray
    note: str = ""


def _splittable(a: CodedAnswers):
    """The answers of tuples with two or more answers, sorted by tuple (stable), their tuple
    groups 0..g-1, and the tuples' counts (split, left out)."""
    codes, group, per_tuple = np.unique(a.tuple_code, return_inverse=True, return_counts=True)
    keep = per_tuple[group] >= 2
    order = np.flatnonzero(keep)[np.argsort(group[keep], kind="stable")]
    regroup = np.cumsum(per_tuple >= 2) - 1
    return order, regroup[group[order]], int((per_tuple >= 2).sum()), int((per_tuple == 1).sum())


def _fisher_interval(r: float, n: float, confidence: float) -> tuple[float, float]:
    """Fisher z interval of a Spearman correlation over n items (variance 1.06 / (n - 3), Fieller,
    Hartley & Pearson 1957)."""
    if not (n > 3 and -1.0 < r < 1.0):
        return float("nan"), float("nan")
    half = NormalDist().inv_cdf(0.5 + confidence / 2.0) * math.sqrt(1.06 / (n - 3.0))
    return math.tanh(math.atanh(r) - half), math.tanh(math.atanh(r) + half)


def split_half(a: CodedAnswers, trials: int, rng: np.random.Generator, confidence: float) -> SplitHalf:
    """Split-half reliability (SHR) of counting scores, as Kiritchenko & Mohammad (2017) define it.

    In each trial every tuple's answers are split at random into two halves (floor(m/2) of a
    tuple's m answers in the first; ``simgold.stats.resampling.halves_within_groups``); each half
    gives counting scores; Spearman's rho and Pearson's r between the halves over the items scored
    in both; both averaged over trials and projected to the whole by Spearman-Brown (factor 2).
    Tuples with a single answer cannot be split: they are left out (counted).

    The interval: a Fisher z interval of the mean split-half Spearman over the mean number of
    items scored in both halves (variance ``1.06 / (n - 3)``, Fieller, Hartley & Pearson 1957),
    carried through Spearman-Brown (monotone). It is the sampling uncertainty of a correlation over
    that many items; the spread of the trials is not (it is the split's randomness) and is not used.

    Parameters
    ----------
    a : CodedAnswers
        The answers.
    trials : int
        How many random splits.
    rng : numpy.random.Generator
        The stream (one ``halves_within_groups`` call).
    confidence : float
        The interval's coverage.

    Returns
    -------
    SplitHalf
        The averaged correlations, their projections, the interval and the counts.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> tuples = np.repeat(np.arange(12).reshape(4, 3), 2, axis=0)
    >>> a = CodedAnswers(tuples, tuples[:, 0], tuples[:, 2], 12, np.repeat(np.arange(4), 2), np.tile([0, 1], 4))
    >>> s = split_half(a, 5, rng, 0.95)
    >>> s.spearman, s.spearman_brown, s.n_tuples_split, s.n_items
    (1.0, 1.0, 4, 12.0)
    """
    order, group, n_split, n_left = _splittable(a)
    nan = float("nan")
    if n_split == 0 or trials < 1:
        why = "no tuple has two or more answers: nothing to split" if n_split == 0 else "no trials"
        return SplitHalf(nan, nan, nan, nan, nan, nan, trials, 0.0, n_split, n_left, np.array([]), np.array([]), why)
    first = halves_within_groups(group, n_split, trials, rng)
    rho, r, n_both = np.full(trials, nan), np.full(trials, nan), np.zeros(trials)
    weights = np.zeros((2, a.n_answers))
    for t in range(trials):
        weights[:] = 0.0
        weights[0, order[first[t]]] = 1.0
        weights[1, order[~first[t]]] = 1.0
        x, y = _weighted_counts(a, weights)
        both = ~np.isnan(x) & ~np.isnan(y)
        n_both[t] = both.sum()
        rho[t], r[t] = spearman(x[both], y[both]), pearson(x[both], y[both])
    mean_rho, mean_r, n_items = float(np.mean(rho)), float(np.mean(r)), float(np.mean(n_both))
    low, high = (spearman_brown(v, 2) for v in _fisher_interval(mean_rho, n_items, confidence))
    note = "" if not np.isnan(mean_rho) else "the halves' scores do not correlate (too few items or constant)"
    return SplitHalf(mean_rho, mean_r, spearman_brown(mean_rho, 2), spearman_brown(mean_r, 2), low, high, trials,
                     n_items, n_split, n_left, rho, r, note)  # fmt: skip


def answers_needed(reliability: float, answers_per_tuple: float, target: float) -> float:
    """Answers per tuple for a target split-half reliability (the Spearman-Brown inverse).

    ``reliability`` is the SHR of scores from ``answers_per_tuple`` answers per tuple; one
    answer's reliability is ``r1 = R / (h - (h - 1) R)`` (``simgold.stats.reliability.single_rater``)
    and ``m = T (1 - r1) / (r1 (1 - T))`` answers reach T, rounded up (``raters_needed``).

    Parameters
    ----------
    reliability : float
        The observed reliability (Spearman-Brown projected SHR).
    answers_per_tuple : float
        The answers per tuple behind it.
    target : float
        The reliability wanted.

    Returns
    -------
    float
        Answers per tuple, a whole number; NaN when the reliability is NaN or not positive.

    Examples
    --------
    >>> answers_needed(0.8, 2, 0.9)
    5.0
    """
    return raters_needed(single_rater(reliability, answers_per_tuple), target)


# -------------------------------------------------------------------------------- raters


@dataclass(frozen=True)
class RaterAgreement:
    """Each rater's agreement with the counting scores of the other raters' answers.

    Attributes
    ----------
    rater : numpy.ndarray
        Rater codes 0..n_raters-1.
    n_answers : numpy.ndarray
        The rater's answers.
    n_scored : numpy.ndarray
        Those whose every item has an others' score (the ones judged).
    best, worst : numpy.ndarray
        The share of judged answers whose best (worst) has the highest (lowest) others' score in
        the tuple, ties with it included.
    both : numpy.ndarray
        The mean of the two.
    note : list of str
        Why a rater's shares are NaN, or "".
    """

    rater: np.ndarray
    n_answers: np.ndarray
    n_scored: np.ndarray
    best: np.ndarray
    worst: np.ndarray
    both: np.ndarray
    note: list


def _others_scores(a: CodedAnswers, answer: np.ndarray, item: np.ndarray) -> np.ndarray:
    """Per slot (answer, item): the item's counting score from the answers of raters other than
    the answer's (the answers without a rater are taken out together; they are not judged)."""
    totals = counting_scores(a)
    key = a.rater[answer] * a.n_items + item  # answers without a rater (-1) form one group
    own_keys, own_index = np.unique(key, return_inverse=True)
    shown_own = np.bincount(own_index)
    best_own = np.bincount(own_index, (a.best[answer] == item).astype(float), len(own_keys))
    worst_own = np.bincount(own_index, (a.worst[answer] == item).astype(float), len(own_keys))
    shown = totals.n_shown[item] - shown_own[own_index]
    return _score(shown, totals.n_best[item] - best_own[own_index], totals.n_worst[item] - worst_own[own_index])


def rater_agreement(a: CodedAnswers) -> RaterAgreement:
    """Leave-one-rater-out agreement: how often a rater's best and worst choices are the tuple's
    top and bottom items by the counting scores of everyone else's answers.

    An answer is judged when every item of its tuple has a score from the other raters' answers;
    a best choice agrees when no item of the tuple has a higher others' score (ties with the top
    agree), a worst choice likewise at the bottom. Answers without a rater count among the others
    and are not judged. A rater with a single answer, or with no judged answer, gets NaN and a note.

    Parameters
    ----------
    a : CodedAnswers
        The answers.

    Returns
    -------
    RaterAgreement
        Rater by rater.

    Examples
    --------
    >>> t = np.array([[0, 1, 2]] * 8)
    >>> best, worst = np.array([0, 0, 0, 0, 0, 1, 2, 2]), np.array([2, 2, 2, 2, 2, 2, 0, 1])
    >>> ag = rater_agreement(CodedAnswers(t, best, worst, 3, np.zeros(8, int), np.repeat(np.arange(4), 2)))
    >>> ag.best.tolist(), ag.worst.tolist(), ag.both.tolist()
    ([1.0, 1.0, 0.5, 0.0], [1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 0.75, 0.0])
    """
    answer, item = _slots(a)
    others = np.full(a.tuples.shape, np.nan)
    others[a.tuples >= 0] = _others_scores(a, answer, item)
    top = np.nanmax(np.where(a.tuples >= 0, others, -np.inf), axis=1)
    bottom = np.nanmin(np.where(a.tuples >= 0, others, np.inf), axis=1)
    judged = ~np.isnan(np.where(a.tuples >= 0, others, 0.0)).any(axis=1) & (a.rater >= 0)
    best_score = others[a.tuples == a.best[:, None]]
    worst_score = others[a.tuples == a.worst[:, None]]
    n_raters = int(a.rater.max()) + 1 if a.n_answers else 0
    code = np.where(a.rater >= 0, a.rater, 0)
    n_answers = np.bincount(code[a.rater >= 0], minlength=n_raters)
    n_scored = np.bincount(code[judged], minlength=n_raters)
    with np.errstate(invalid="ignore", divide="ignore"):
        best = np.bincount(code[judged], (best_score >= top)[judged], n_raters) / n_scored
        worst = np.bincount(code[judged], (worst_score <= bottom)[judged], n_raters) / n_scored
    single = n_answers == 1
    best[single], worst[single] = np.nan, np.nan
    note = ["a single answer: no agreement" if s else ("no answer whose items the others scored" if m == 0 else "")
            for s, m in zip(single, n_scored)]  # fmt: skip
    return RaterAgreement(np.arange(n_raters), n_answers, n_scored, best, worst, (best + worst) / 2.0, note)


# -------------------------------------------------------------------------------- model accuracy


@dataclass(frozen=True)
class MaxDiffAccuracy:
    """SemEval-2012 Task 2's MaxDiff accuracy of a model's similarities.

    Attributes
    ----------
    best, worst, both : float
        The share of tuples where the model's most (least) similar item is the majority's best
        (worst) choice; both is their mean.
    best_ci, worst_ci, both_ci : tuple of float
        Percentile bootstrap intervals over tuples.
    n_tuples : int
        Tuples scored.
    n_skipped : int
        Tuples left out because an item has no similarity (NaN).
    resamples : int
        The bootstrap's resamples.
    note : str
        Why there are no intervals ("" where they exist or none were asked).
    """

    best: float
    worst: float
    both: float
    best_ci: tuple
    worst_ci: tuple
    both_ci: tuple
    n_tuples: int
    n_skipped: int
    resamples: int
    note: str = ""


def _majority_agrees(a: CodedAnswers, group: np.ndarray, items: np.ndarray, chosen: np.ndarray, guess: np.ndarray):
    """Per tuple: whether the guessed item got as many of the tuple's choices (best or worst) as
    the most chosen item (ties for the majority: each counts)."""
    n_groups = len(items)
    keys, counts = np.unique(group * a.n_items + chosen, return_counts=True)
    cell = np.arange(n_groups)[:, None] * a.n_items + np.where(items >= 0, items, 0)
    at = np.clip(np.searchsorted(keys, cell), 0, max(len(keys) - 1, 0))
    votes = np.where((items >= 0) & (keys[at] == cell), counts[at], 0)
    guessed = votes[np.arange(n_groups), guess]
    return guessed == votes.max(axis=1)


def maxdiff_accuracy(a: CodedAnswers, similarity, resamples: int, rng: np.random.Generator, confidence: float):
    """MaxDiff accuracy (SemEval-2012 Task 2): the model answers each tuple with its most and
    least similar item; a guess is correct when the majority of the tuple's answers chose it.

    Tuples are told apart by ``tuple_code``; the items are the first answer's. When two or more
    items tie for the majority, each counts as correct; when the model's similarities tie, the
    first tied item in the tuple's order is its guess. Tuples with an item lacking a similarity
    (NaN) are left out and counted. The intervals resample tuples (``draws``, one call).

    Parameters
    ----------
    a : CodedAnswers
        The answers.
    similarity : array_like of float
        The model's similarity of each item code (NaN: none).
    resamples : int
        The bootstrap's resamples.
    rng : numpy.random.Generator
        The stream.
    confidence : float
        The intervals' coverage.

    Returns
    -------
    MaxDiffAccuracy
        Accuracies, intervals and counts.

    Examples
    --------
    >>> t = np.array([[0, 1, 2]] * 3 + [[1, 2, 3]] * 2)
    >>> a = CodedAnswers(t, np.array([0, 0, 1, 3, 3]), np.array([2, 1, 2, 1, 2]), 4,
    ...                  np.array([0, 0, 0, 1, 1]), np.arange(5))
    >>> acc = maxdiff_accuracy(a, np.array([0.9, 0.5, 0.1, 0.3]), 100, np.random.default_rng(0), 0.95)
    >>> acc.best, acc.worst, acc.both, acc.n_tuples
    (0.5, 1.0, 0.75, 2)
    """
    sim = np.asarray(similarity, dtype=float)
    codes, first, group = np.unique(a.tuple_code, return_index=True, return_inverse=True)
    items = a.tuples[first]
    values = np.where(items >= 0, sim[np.where(items >= 0, items, 0)], 0.0)
    kept = ~np.isnan(values).any(axis=1)
    guess_best = np.argmax(np.where(items >= 0, values, -np.inf), axis=1)
    guess_worst = np.argmin(np.where(items >= 0, values, np.inf), axis=1)
    best = _majority_agrees(a, group, items, a.best, guess_best)[kept].astype(float)
    worst = _majority_agrees(a, group, items, a.worst, guess_worst)[kept].astype(float)
    both = (best + worst) / 2.0
    idx = draws(len(best), resamples, rng)

    nan = (float("nan"), float("nan"), "")
    # a level the resamples cannot support gives no interval and a note, as the scores' CIs
    ci = [supported_interval(x[idx].mean(axis=1), confidence) if len(x) and resamples
          else nan for x in (best, worst, both)]  # fmt: skip
    mean = [float(x.mean()) if len(x) else float("nan") for x in (best, worst, both)]
    return MaxDiffAccuracy(*mean, *(c[:2] for c in ci), int(kept.sum()), int((~kept).sum()), resamples,
                           ci[0][2])  # fmt: skip
