"""The CoSimLex metrics (docs/methods.md section 7) of a model on a two-context dataset.

As the official scorer of SemEval-2020 Task 3 defines them: subtask 1, the uncentred Pearson
``sum(xy) / sqrt(sum(x^2) sum(y^2))`` between predicted and gold changes (``sim2 - sim1``);
subtask 2, per language the harmonic mean of Pearson and Spearman over both contexts'
similarities, then the mean over languages. Unlike the scorer, any number of pairs and every
language are scored, and negative correlations do not crash: the harmonic mean of two negatives is
negative; of mixed signs it is undefined and both are reported. A model without context predicts no
change and scores 0 on subtask 1, which the table says.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from simgold.stages.context import context_pairs
from simgold.stats.correlation import pearson as pearson_r, spearman as spearman_rho
from simgold.io.tables import TABLES

__all__ = [
    "COSIMLEX_COLUMNS",
    "CosimlexRow",
    "cosimlex_scores",
    "cosimlex_summary",
    "harmonic_mean",
    "uncentred_pearson",
]

COSIMLEX_COLUMNS = TABLES["cosimlex"].names  # the canonical schema's columns, in order


class CosimlexRow(NamedTuple):
    """One row of the cosimlex table, by name (its fields are the table's columns, in order).

    Attributes
    ----------
    dataset, model : str
        The two-context dataset and the model scored.
    metric : str
        ``subtask1_uncentred_pearson``, ``subtask2_pearson``, ``subtask2_spearman`` or
        ``subtask2_harmonic_mean``.
    value : float
        The metric's value (NaN where it is undefined).
    n : int
        Pairs (subtask 1) or similarities (subtask 2) scored.
    note : str
        Why a value is what it is (a context-free model, mixed signs, pairs left out), or empty.
    """

    dataset: str
    model: str
    metric: str
    value: float
    n: int  # pairs (subtask 1) or similarities (subtask 2) scored
    note: str


def uncentred_pearson(x: np.ndarray, y: np.ndarray) -> float:
    """``sum(xy) / sqrt(sum(x^2) sum(y^2))``, the CoSimLex subtask 1 metric; 0 when either is all zeros.

    Parameters
    ----------
    x, y : numpy.ndarray
        The predicted and the gold changes (``sim2 - sim1``), pair by pair.

    Returns
    -------
    float
        The uncentred Pearson correlation.

    Examples
    --------
    >>> uncentred_pearson(np.array([1.0, 2.0]), np.array([2.0, 4.0])), uncentred_pearson(np.zeros(2), np.ones(2))
    (1.0, 0.0)
    """
    den = np.sqrt((x * x).sum() * (y * y).sum())
    return float((x * y).sum() / den) if den > 0 else 0.0


def harmonic_mean(a: float, b: float) -> float:
    """Of two correlations of the same sign (negative when both are); undefined for mixed signs.

    Parameters
    ----------
    a, b : float
        The two correlations (Pearson and Spearman).

    Returns
    -------
    float
        ``2ab / (a + b)``, or NaN where either is NaN or their signs differ (or one is 0).

    Examples
    --------
    >>> harmonic_mean(0.5, 1.0), harmonic_mean(-0.5, -1.0), harmonic_mean(0.5, -1.0)
    (0.6666666666666666, -0.6666666666666666, nan)
    """
    if np.isnan(a) or np.isnan(b) or a * b <= 0:
        return float("nan")
    return 2 * a * b / (a + b)


def cosimlex_scores(
    dataset: str, model: str, items: pd.DataFrame, gold: pd.DataFrame, predictions: pd.DataFrame
) -> pd.DataFrame:
    """Subtask 1 and subtask 2 figures for one model on one two-context dataset.

    Parameters
    ----------
    dataset, model : str
        The names the table's rows carry.
    items : pandas.DataFrame
        The dataset's items, paired across contexts by ``simgold.stages.context.context_pairs``.
    gold : pandas.DataFrame
        The dataset's gold table (``item_id``, ``mean``).
    predictions : pandas.DataFrame
        The model's similarities (``item_id``, ``sim``).

    Returns
    -------
    pandas.DataFrame
        The cosimlex table (``COSIMLEX_COLUMNS``): four rows, one per metric.
    """
    pairs = context_pairs(items)
    g = gold.set_index("item_id")["mean"]
    s = predictions.set_index("item_id")["sim"]
    frame = pairs.assign(
        g1=pairs["item1"].map(g), g2=pairs["item2"].map(g), s1=pairs["item1"].map(s), s2=pairs["item2"].map(s)
    )
    ok = frame[["g1", "g2", "s1", "s2"]].notna().all(axis=1)
    f = frame[ok]
    gold_change, pred_change = (f["g2"] - f["g1"]).to_numpy(float), (f["s2"] - f["s1"]).to_numpy(float)
    no_change = not np.any(pred_change)
    context_free = "the model predicts no change between contexts (context-free): 0 by definition"
    rows = [
        CosimlexRow(
            dataset,
            model,
            "subtask1_uncentred_pearson",
            uncentred_pearson(pred_change, gold_change),
            len(f),
            note=context_free if no_change else "",
        ),
    ]
    gold_all = np.ravel(np.column_stack([f["g1"], f["g2"]]))  # interleaved: pair 1 context 1, context 2, ...
    pred_all = np.ravel(np.column_stack([f["s1"], f["s2"]]))
    if len(gold_all) >= 3 and np.ptp(pred_all) > 0:
        pearson, spearman = pearson_r(pred_all, gold_all), spearman_rho(pred_all, gold_all)
    else:
        pearson = spearman = float("nan")
    hm = harmonic_mean(pearson, spearman)
    note = (
        "Pearson and Spearman differ in sign: no harmonic mean"
        if np.isnan(hm) and not (np.isnan(pearson) or np.isnan(spearman))
        else ""
    )
    rows += [
        CosimlexRow(dataset, model, "subtask2_pearson", pearson, len(gold_all), ""),
        CosimlexRow(dataset, model, "subtask2_spearman", spearman, len(gold_all), ""),
        CosimlexRow(dataset, model, "subtask2_harmonic_mean", hm, len(gold_all), note),
    ]
    dropped = int((~ok).sum())
    if dropped:
        left_out = f"{dropped} pairs without both similarities left out"
        rows = [r._replace(note=f"{r.note}; {left_out}" if r.note else left_out) for r in rows]
    return pd.DataFrame(rows, columns=list(COSIMLEX_COLUMNS))


def cosimlex_summary(tables: list[pd.DataFrame], languages: dict[str, str]) -> pd.DataFrame:
    """Per model: each language's subtask figures and the mean over languages (as the task ranks).

    Parameters
    ----------
    tables : list of pandas.DataFrame
        Cosimlex tables (``cosimlex_scores``), any models and datasets.
    languages : dict of str to str
        Each dataset's language.

    Returns
    -------
    pandas.DataFrame
        ``model``, ``language``, ``dataset``, ``subtask1``, ``subtask2``: a row per model and
        dataset, and per model a row ``mean`` over its languages; sorted by model and language.
    """
    if not tables:
        return pd.DataFrame(columns=["model", "language", "dataset", "subtask1", "subtask2"])
    all_rows = pd.concat(tables, ignore_index=True)
    wide = all_rows.pivot_table(
        index=["model", "dataset"], columns="metric", values="value", aggfunc="first", dropna=False
    ).reset_index()
    wide["language"] = wide["dataset"].map(languages)
    out = wide.rename(columns={"subtask1_uncentred_pearson": "subtask1", "subtask2_harmonic_mean": "subtask2"})
    out = out[["model", "language", "dataset", "subtask1", "subtask2"]]
    means = out.groupby("model", as_index=False)[["subtask1", "subtask2"]].mean()
    means["language"], means["dataset"] = "mean", "(mean over languages)"
    return (
        pd.concat([out, means], ignore_index=True)
        .sort_values(["model", "language"], kind="stable")
        .reset_index(drop=True)
    )
