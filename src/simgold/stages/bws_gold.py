"""The gold standard of a Best-Worst Scaling dataset (docs/methods.md section 13), from its answers.

Each item's counting score (the share of the answers showing it where it was chosen best, minus
the share where it was chosen worst: -1 to 1) with percentile bootstrap intervals (the answers
resampled; and the raters as clusters where every answer names its rater, the gold's interval
then), and the MaxDiff model's
utility with its standard error from the observed information (``simgold.stats.bws``,
``simgold.stats.maxdiff_model``). The gold
standard's ``mean`` is the score the config names (``bws.score``): counting, mapped linearly from
-1..1 onto the dataset's scale, or the logit's utilities mapped by their own minimum and maximum
onto it. The gold table keeps its columns (``n``: the answers that showed the item; ``sd`` and
``median``: null); the counts and both scores are the ``bws_scores`` table.

``scores_from_answers`` recomputes both scores from a released answers file, so that anyone can
check the gold standard from the answers alone.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simgold.io.tables import TABLES
from simgold.stages.gold import finish_gold
from simgold.stats.bws import CodedAnswers, coded_answers, counting_intervals, counting_scores
from simgold.stats.maxdiff_model import maxdiff_fit
from simgold.stats.resampling import min_resamples
from simgold.stats.seeds import seed_for

__all__ = ["BWS_SCALE", "BWS_SCORE_COLUMNS", "AnswerCodes", "code_answers", "scores_from_answers", "gold_from_answers"]

BWS_SCORE_COLUMNS = TABLES["bws_scores"].names  # the canonical schema's columns, in order
BWS_SCALE = (-1.0, 1.0)  # the counting score's own range: a bws dataset's scale by default
_CHOICE_CODES = {"best": 1, "worst": -1, "": 0}


class AnswerCodes:
    """An answers table coded for ``simgold.stats.bws``: the coded answers and what each code is.

    Parameters
    ----------
    coded : CodedAnswers
        The answers as integer codes.
    item_ids : numpy.ndarray
        The item id of each item code (sorted).
    raters : numpy.ndarray
        The rater of each rater code (sorted; -1 codes an answer without a rater).
    tuples : numpy.ndarray
        The tuple id of each tuple code (sorted).
    """

    def __init__(self, coded: CodedAnswers, item_ids: np.ndarray, raters: np.ndarray, tuples: np.ndarray):
        self.coded, self.item_ids, self.raters, self.tuples = coded, item_ids, raters, tuples


def code_answers(answers: pd.DataFrame, item_ids=None) -> AnswerCodes:
    """Code an answers table (one row per answer and position, as the clean stage writes it).

    Parameters
    ----------
    answers : pandas.DataFrame
        Columns ``answer``, ``tuple``, ``rater`` (null: none), ``position``, ``item_id``, ``choice``
        (``best``, ``worst`` or empty).
    item_ids : sequence of str, optional
        Every item of the dataset (its items table), so that an item no answer shows has a code;
        by default the items the answers show.

    Returns
    -------
    AnswerCodes
        The coded answers and the ids behind the codes.

    Examples
    --------
    >>> table = pd.DataFrame({
    ...     "answer": [0, 0, 0, 1, 1, 1], "tuple": ["t1"] * 3 + ["t2"] * 3, "rater": ["r1"] * 6,
    ...     "position": [1, 2, 3] * 2, "item_id": ["a", "b", "c", "b", "c", "d"],
    ...     "choice": ["best", "", "worst", "", "worst", "best"]})
    >>> codes = code_answers(table)
    >>> codes.item_ids.tolist(), codes.coded.best.tolist(), codes.coded.worst.tolist()
    (['a', 'b', 'c', 'd'], [0, 3], [2, 2])
    """
    order = np.lexsort((answers["position"].to_numpy(np.int64), answers["answer"].to_numpy(np.int64)))
    frame = answers if (order == np.arange(len(order))).all() else answers.iloc[order]  # the stages' own order
    # codes in sorted order of the ids (pandas' hash tables: the coding costs about what counting does)
    if item_ids is None:
        item, ids = pd.factorize(frame["item_id"], sort=True)
    else:
        ids = pd.Index(sorted(item_ids))
        item = ids.get_indexer(frame["item_id"])
    if (item < 0).any():
        raise ValueError("an answer shows an item that is not in the item list")
    tuple_code, tuple_ids = pd.factorize(frame["tuple"], sort=True)
    rater, raters = pd.factorize(frame["rater"], sort=True, use_na_sentinel=True)  # -1: no rater
    choice = frame["choice"].map(_CHOICE_CODES).to_numpy(np.int64)
    coded = coded_answers(
        frame["answer"].to_numpy(np.int64), frame["position"].to_numpy(np.int64), item.astype(np.int64), choice,
        tuple_code.astype(np.int64), rater.astype(np.int64), len(ids),
    )  # fmt: skip
    ids, raters, tuple_ids = (np.asarray(x, dtype=object) for x in (ids, raters, tuple_ids))
    return AnswerCodes(coded, ids, raters, tuple_ids)


def scores_from_answers(answers: pd.DataFrame, *, penalty: float | None = None) -> pd.DataFrame:
    """Both scores of every item from an answers table (a release's ``<name>.answers.tsv`` read with
    pandas, or the clean stage's answers table): the counts, the counting score and the MaxDiff
    model's utility and its standard error.

    Parameters
    ----------
    answers : pandas.DataFrame
        One row per answer and position: ``answer``, ``tuple``, ``rater``, ``position``,
        ``item_id``, ``choice``.
    penalty : float, optional
        The MaxDiff fit's L2 penalty (default: ``simgold.stats.maxdiff_model.PENALTY``).

    Returns
    -------
    pandas.DataFrame
        One row per item: ``item_id``, ``n_shown``, ``n_best``, ``n_worst``, ``counting``, ``logit``,
        ``logit_se``.

    Examples
    --------
    >>> table = pd.DataFrame({
    ...     "answer": [0, 0, 0, 1, 1, 1], "tuple": ["t1"] * 3 + ["t2"] * 3, "rater": [None] * 6,
    ...     "position": [1, 2, 3] * 2, "item_id": ["a", "b", "c", "b", "c", "d"],
    ...     "choice": ["best", "", "worst", "", "worst", "best"]})
    >>> scores_from_answers(table)[["item_id", "n_shown", "counting"]].values.tolist()
    [['a', 1, 1.0], ['b', 2, 0.0], ['c', 2, -1.0], ['d', 1, 1.0]]
    """
    codes = code_answers(answers)
    counts = counting_scores(codes.coded)
    fit = maxdiff_fit(codes.coded) if penalty is None else maxdiff_fit(codes.coded, penalty=penalty)
    return pd.DataFrame(
        {
            "item_id": codes.item_ids,
            "n_shown": counts.n_shown,
            "n_best": counts.n_best,
            "n_worst": counts.n_worst,
            "counting": counts.score,
            "logit": fit.utility,
            "logit_se": fit.se,
        }
    )


def _on_scale(values: np.ndarray, own: tuple[float, float], scale) -> np.ndarray:
    """Values mapped linearly from their own range onto the dataset's scale."""
    lo, hi = own
    if not hi > lo:
        return np.full(len(values), np.nan)
    return scale[0] + (values - lo) * (scale[1] - scale[0]) / (hi - lo)


def _bws_scores(dataset: str, codes: AnswerCodes, settings: dict, confidence: float, seed) -> pd.DataFrame:
    coded = codes.coded
    counts = counting_scores(coded)
    by = "raters" if (coded.rater >= 0).all() and len(codes.raters) > 1 else "answers"
    intervals = {
        scheme: counting_intervals(
            coded, settings["resamples"], np.random.default_rng(seed_for(seed, "bws_counting", dataset, scheme)),
            confidence, by=scheme,
        )
        for scheme in dict.fromkeys(["answers", by])
    }  # fmt: skip
    low, high = intervals[by]
    # an item shown in one tuple only: its answers compare it with the same tuple-mates every time,
    # so resampling them cannot tell its value from that tuple's make-up: no interval, a note
    n_tuples = _tuples_per_item(coded)
    single = n_tuples == 1
    for lo, hi in intervals.values():
        lo[single], hi[single] = np.nan, np.nan
    fit = maxdiff_fit(coded, penalty=settings["penalty"], confidence=confidence)
    frame = pd.DataFrame(
        {
            "dataset": dataset,
            "item_id": codes.item_ids,
            "n_shown": counts.n_shown,
            "n_best": counts.n_best,
            "n_worst": counts.n_worst,
            "n_tuples": n_tuples,
            "counting": counts.score,
            "counting_low": low,
            "counting_high": high,
            "counting_resampled": by,
            "answers_low": intervals["answers"][0],
            "answers_high": intervals["answers"][1],
            "logit": fit.utility,
            "logit_se": fit.se,
            "logit_low": fit.ci_low,
            "logit_high": fit.ci_high,
            "confidence": confidence,
            "note": np.where(
                single, "shown in a single tuple: no counting interval", _unsupported(low, counts.n_shown, confidence)
            ),
        }
    )
    return frame[list(BWS_SCORE_COLUMNS)]


def _unsupported(low: np.ndarray, n_shown: np.ndarray, confidence: float) -> np.ndarray:
    """The note of an item without a counting interval: in no answer, or too few resamples show it
    for the level to rest on (one beyond each end)."""
    why = f"fewer than {min_resamples(confidence)} resamples show it: no {100 * confidence:.12g}% counting interval"
    return np.where(n_shown == 0, "in no answer", np.where(np.isnan(low), why, ""))


def _tuples_per_item(coded: CodedAnswers) -> np.ndarray:
    """How many distinct tuples showed each item."""
    width = max(int(coded.tuple_code.max(initial=0)) + 1, 1)
    shown = coded.tuples >= 0
    pairs = coded.tuples[shown] * width + np.broadcast_to(coded.tuple_code[:, None], coded.tuples.shape)[shown]
    return np.bincount(np.unique(pairs) // width, minlength=coded.n_items)


def gold_from_answers(
    dataset: str, items: pd.DataFrame, answers: pd.DataFrame, scale, settings: dict, *, confidence: float, seed
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The gold standard and the ``bws_scores`` table of a BWS dataset.

    Parameters
    ----------
    dataset : str
        The dataset's name.
    items : pandas.DataFrame
        Its items table (every item gets a row; one no answer shows has null scores).
    answers : pandas.DataFrame
        The answers the agreement stage kept.
    scale : sequence of float or None
        The gold's scale (default ``BWS_SCALE``).
    settings : dict
        The dataset's ``bws`` block, with the scoring's ``resamples``: ``score``, ``penalty``, ``resamples``.
    confidence : float
        The intervals' level.
    seed : int
        The config's seed (each job derives its own).

    Returns
    -------
    tuple of pandas.DataFrame
        (gold, bws_scores), each sorted by item id.
    """
    scale = tuple(scale) if scale is not None else BWS_SCALE
    codes = code_answers(answers, items["item_id"])
    scores = _bws_scores(dataset, codes, settings, confidence, seed)
    if settings["score"] == "logit":
        u = scores["logit"].to_numpy(float)
        own = (np.nanmin(u), np.nanmax(u)) if np.isfinite(u).any() else (0.0, 0.0)
        mean, low, high = (
            _on_scale(scores[c].to_numpy(float), own, scale) for c in ("logit", "logit_low", "logit_high")
        )
        basis = "bws logit (MaxDiff utilities, min-max mapped onto the scale)"
    else:
        mean, low, high = (
            _on_scale(scores[c].to_numpy(float), BWS_SCALE, scale)
            for c in ("counting", "counting_low", "counting_high")
        )
        basis = "bws counting (share best - share worst)"
    frame = pd.DataFrame({"item_id": scores["item_id"], "n": scores["n_shown"], "mean": mean})
    frame["sd"], frame["median"] = np.nan, np.nan  # one score per item, not a mean of ratings
    intervals = (low, high, _resolved_share(low, high))
    return finish_gold(dataset, frame, scale, basis, confidence, intervals), scores


def _resolved_share(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """The share of the other items whose interval does not overlap this item's (NaN without one)."""
    ok = np.isfinite(low) & np.isfinite(high)
    lo, hi = np.sort(low[ok]), np.sort(high[ok])
    # items entirely above: their low above this high; entirely below: their high below this low
    above = len(lo) - np.searchsorted(lo, high, side="right")
    below = np.searchsorted(hi, low, side="left")
    share = (above + below) / max(len(lo) - 1, 1)
    return np.where(ok & (len(lo) > 1), share, np.nan)
