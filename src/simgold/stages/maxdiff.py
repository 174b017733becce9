"""A model's MaxDiff accuracy on a Best-Worst Scaling dataset (docs/methods.md section 13), as
SemEval-2012 Task 2 scored its systems: the model answers each tuple with the item its cosines make
most similar and the one they make least similar, and a guess is correct when the majority of the
people who answered that tuple chose it (each of two choices tied for the majority counts).

Three rows of the scores table: ``maxdiff_best``, ``maxdiff_worst`` and ``maxdiff_accuracy`` (the
two together), each with a percentile bootstrap interval over tuples; ``n_used`` is the tuples
whose every item the model scores, ``n_total`` all tuples.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simgold.stages.bws_gold import code_answers
from simgold.stages.scores import ScoreRow, ScoringSettings
from simgold.stats.bws import maxdiff_accuracy
from simgold.stats.seeds import seed_for

__all__ = ["MAXDIFF_METRICS", "maxdiff_scores"]

#: the scores table's metric of each of the accuracy's parts
MAXDIFF_METRICS = {"maxdiff_best": "best", "maxdiff_worst": "worst", "maxdiff_accuracy": "both"}


def maxdiff_scores(
    dataset: str, model: str, answers: pd.DataFrame, pred: pd.DataFrame, scoring: ScoringSettings
) -> list[ScoreRow]:
    """The MaxDiff accuracy rows of one model on one BWS dataset.

    Parameters
    ----------
    dataset, model : str
        The dataset's and the model's names.
    answers : pandas.DataFrame
        The answers the agreement stage kept (one row per answer and position).
    pred : pandas.DataFrame
        The model's predictions (``item_id``, ``sim``; NaN: a word out of its vocabulary).
    scoring : ScoringSettings
        The config's ``scoring`` block: the interval's resamples, seed and level.

    Returns
    -------
    list of ScoreRow
        ``maxdiff_best``, ``maxdiff_worst`` and ``maxdiff_accuracy``.

    Examples
    --------
    >>> answers = pd.DataFrame({
    ...     "answer": [0, 0, 0, 1, 1, 1], "tuple": ["t"] * 6, "rater": ["r1"] * 3 + ["r2"] * 3,
    ...     "position": [1, 2, 3] * 2, "item_id": ["a", "b", "c"] * 2,
    ...     "choice": ["best", "", "worst", "best", "worst", ""]})
    >>> pred = pd.DataFrame({"item_id": ["a", "b", "c"], "sim": [0.9, 0.5, 0.1]})
    >>> rows = maxdiff_scores("d", "m", answers, pred, ScoringSettings(0, 1, 0.95))
    >>> [(r.metric, r.value, r.n_used) for r in rows]
    [('maxdiff_best', 1.0, 1), ('maxdiff_worst', 1.0, 1), ('maxdiff_accuracy', 1.0, 1)]
    """
    codes = code_answers(answers)
    sim = pd.Series(pred["sim"].to_numpy(float), index=pred["item_id"]).reindex(codes.item_ids).to_numpy(float)
    rng = np.random.default_rng(seed_for(scoring.seed, dataset, model, "maxdiff"))
    result = maxdiff_accuracy(codes.coded, sim, scoring.resamples, rng, scoring.confidence)
    rows = []
    for metric, part in MAXDIFF_METRICS.items():
        value, (low, high) = getattr(result, part), getattr(result, f"{part}_ci")
        note = result.note if result.n_tuples else "no tuple whose every item the model scores"
        rows.append(
            ScoreRow(dataset, model, metric, "all", value, low, high, scoring.level, result.n_tuples,
                     result.n_tuples + result.n_skipped, note)
        )  # fmt: skip
    return rows
