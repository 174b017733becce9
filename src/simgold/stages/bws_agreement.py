"""Reliability and rater agreement of a Best-Worst Scaling dataset, and outlier filtering (docs/methods.md
section 13).

Split-half reliability as BWS papers report it (Kiritchenko & Mohammad 2017): each tuple's answers
are split at random into two halves, each half gives every item a counting score, and the two
halves' scores are correlated (Spearman and Pearson), averaged over the trials, with the
Spearman-Brown projection to the full number of answers. The answers per tuple a target
reliability needs follow from that projection. Each rater's agreement is the share of their best
and worst choices that the other raters' counting scores agree with (``simgold.stats.bws``).

Outlier filtering uses the config's ``outliers`` block on that share, decided once: ``pairwise_sd``
excludes raters whose agreement lies more than ``k`` SDs (ddof=1) below the raters' mean,
``vs_rest_min`` those below ``threshold``. The reliability is reported for the raw answers and,
when a rater is excluded, for the answers kept (``filtered``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simgold.io.tables import TABLES
from simgold.stages.agreement import select_outliers
from simgold.stages.bws_gold import AnswerCodes, code_answers
from simgold.stats.bws import answers_needed, rater_agreement, split_half
from simgold.stats.seeds import seed_for

__all__ = ["BWS_RELIABILITY_COLUMNS", "bws_report", "reliability_row", "rater_table"]

BWS_RELIABILITY_COLUMNS = TABLES["bws_reliability"].names  # the canonical schema's columns, in order


def reliability_row(dataset: str, stage: str, codes: AnswerCodes, settings: dict, confidence: float, seed) -> dict:
    """One row of the ``bws_reliability`` table: the answers' counts, split-half reliability and
    the answers per tuple the target needs.

    Parameters
    ----------
    dataset, stage : str
        The dataset's name and the stage (``raw`` or ``filtered``).
    codes : AnswerCodes
        The answers, coded.
    settings : dict
        The dataset's ``bws`` block (``split_half_trials``, ``target``).
    confidence : float
        The interval's level.
    seed : int
        The config's seed (the trials' splits derive their own from it and the dataset and stage).

    Returns
    -------
    dict
        Column -> value.
    """
    coded = codes.coded
    rng = np.random.default_rng(seed_for(seed, "bws_split_half", dataset, stage))
    shr = split_half(coded, settings["split_half_trials"], rng, confidence)
    per_tuple = len(coded.best) / max(len(codes.tuples), 1)
    k = (coded.tuples >= 0).sum(axis=1)
    return {
        "dataset": dataset,
        "stage": stage,
        "n_answers": len(coded.best),
        "n_tuples": len(codes.tuples),
        "n_items": int(np.count_nonzero(np.bincount(coded.tuples[coded.tuples >= 0], minlength=coded.n_items))),
        "n_raters": len(codes.raters),
        "k_min": int(k.min()) if len(k) else 0,
        "k_max": int(k.max()) if len(k) else 0,
        "answers_per_tuple": per_tuple,
        "trials": shr.trials,
        "shr_spearman": shr.spearman,
        "shr_pearson": shr.pearson,
        "shr_spearman_sb": shr.spearman_brown,
        "shr_pearson_sb": shr.pearson_brown,
        "ci_low": shr.ci_low,
        "ci_high": shr.ci_high,
        "confidence": confidence,
        "target": settings["target"],
        "answers_needed": answers_needed(shr.spearman_brown, per_tuple, settings["target"]),
        "note": shr.note,
    }


def rater_table(dataset: str, codes: AnswerCodes, outliers: dict) -> pd.DataFrame:
    """The raters table of a BWS dataset: each rater's answers and agreement, and who the outlier
    rule excludes (the agreement share is in ``vs_rest``; the rating columns are null).

    Parameters
    ----------
    dataset : str
        The dataset's name.
    codes : AnswerCodes
        The answers, coded.
    outliers : dict
        The dataset's ``outliers`` block.

    Returns
    -------
    pandas.DataFrame
        One row per rater (``stage`` raw), sorted by rater.
    """
    agreement = rater_agreement(codes.coded)
    share = np.asarray(agreement.both, dtype=float)
    # one share stands in for both of the ratings' columns the outlier rule cuts
    excluded, reasons = select_outliers(
        share, share, outliers, {"avg_pairwise": "bws agreement", "vs_rest": "bws agreement"}
    )
    n = len(share)
    frame = pd.DataFrame(
        {
            "dataset": dataset,
            "stage": "raw",
            "rater": codes.raters[agreement.rater] if n else codes.raters[:0],
            "n_items": np.asarray(agreement.n_answers, dtype=np.int64),
            "mean_score": np.nan,
            "calib_diff": np.nan,
            "calib_shift": np.nan,
            "avg_pairwise": np.nan,
            "vs_mean": np.nan,
            "vs_rest": share,
            "excluded": excluded,
            "exclusion_reason": reasons,
        }
    )
    frame = frame.reindex(columns=list(TABLES["raters"].names))  # no attention checks: null
    # why a rater's agreement is missing: said in the reliability table's note
    frame.attrs["notes"] = [f"rater {codes.raters[r]!r}: {n}" for r, n in zip(agreement.rater, agreement.note) if n]
    return frame


def bws_report(
    dataset: str, answers: pd.DataFrame, *, outliers: dict, settings: dict, confidence: float, seed, log=None
) -> dict:
    """The BWS agreement stage: reliability (raw, and filtered when a rater is excluded), the raters
    table and the answers kept.

    Parameters
    ----------
    dataset : str
        The dataset's name.
    answers : pandas.DataFrame
        The clean stage's answers table.
    outliers : dict
        The dataset's ``outliers`` block.
    settings : dict
        The dataset's ``bws`` block.
    confidence : float
        The intervals' level.
    seed : int
        The config's seed.
    log : callable, optional
        Where to say who was excluded.

    Returns
    -------
    dict
        ``reliability``, ``raters`` and ``answers`` tables.
    """
    codes = code_answers(answers)
    raters = rater_table(dataset, codes, outliers)
    rows = [reliability_row(dataset, "raw", codes, settings, confidence, seed)]
    out = set(raters.loc[raters["excluded"], "rater"])
    kept = answers[~answers["rater"].isin(out)] if out else answers
    if out:
        if log:
            for rater, why in raters.loc[raters["excluded"], ["rater", "exclusion_reason"]].itertuples(index=False):
                log(f"{dataset}: rater {rater!r} excluded ({why})")
        rows.append(reliability_row(dataset, "filtered", code_answers(kept), settings, confidence, seed))
    rows[0]["note"] = "; ".join(filter(None, [rows[0]["note"], *raters.attrs.pop("notes", [])]))
    reliability = pd.DataFrame(rows, columns=list(BWS_RELIABILITY_COLUMNS))
    return {"reliability": reliability, "raters": raters, "answers": kept.reset_index(drop=True)}
