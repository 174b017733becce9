"""The minimum significant difference tables of the scores stage (docs/methods.md section 11): the
msd table of each dataset, the models that may carry it, and the score summary beside it. The
numbers are ``simgold.stats.dependent_correlations``'; this module makes them tables.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simgold.stats.dependent_correlations import MSD_COLUMNS, R_JK_LEVELS, MsdRow, msd_rows

__all__ = ["MSD_COLUMNS", "MSD_FALLBACK_R_JK", "covering_models", "dataset_msd", "msd_table", "with_msd"]

MSD_FALLBACK_R_JK = 0.7  # the r_jk the scores table assumes where one model scores a dataset


def msd_table(dataset: str, n: int, r_best: float, r_jk_observed=None, alpha: float = 0.05, **names) -> pd.DataFrame:
    """Minimum significant differences for one dataset, as a table: the rows of
    ``simgold.stats.dependent_correlations.msd_rows`` (at r_jk = 0.5, 0.7, 0.9 and, when given,
    the observed one).

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
    **names
        ``model``, ``model_k`` and ``n_items``, as ``msd_rows`` takes them.

    Returns
    -------
    pandas.DataFrame
        The fields of ``MsdRow``: one row per r_jk, with a note wherever ``msd`` is NaN.

    Examples
    --------
    >>> msd_table("ws353", 353, 0.7)[["r_jk", "msd"]].round(4).values.tolist()
    [[0.5, 0.0699], [0.7, 0.0562], [0.9, 0.0334]]
    """
    return pd.DataFrame(msd_rows(dataset, n, r_best, r_jk_observed, alpha, **names), columns=MSD_COLUMNS)


def _coverage(rows: pd.DataFrame) -> pd.Series:
    """The share of the dataset's items each row's model scores (``n_used / n_total``; 1 without ``n_total``)."""
    total = rows["n_total"] if "n_total" in rows else rows["n_used"]
    return rows["n_used"] / total.where(total > 0)


def covering_models(rows: pd.DataFrame, min_coverage: float) -> pd.DataFrame:
    """The score rows of the models that score at least ``min_coverage`` of a dataset's items, the
    highest ``value`` first (ties: by model name): the models that may carry the dataset's MSD,
    and the first of them the dataset's best model (``dataset_msd``, the leaderboard).

    Parameters
    ----------
    rows : pandas.DataFrame
        One row per model of one dataset and one metric: ``model``, ``value``, ``n_used``, and
        ``n_total`` (without it every model counts as complete).
    min_coverage : float
        The share of the dataset's items (``n_used / n_total``) a model must score.

    Returns
    -------
    pandas.DataFrame
        The rows kept, best first; empty where no model covers enough.

    Examples
    --------
    >>> rows = pd.DataFrame({"model": ["tiny", "full", "half"], "value": [1.0, 0.46, 0.5],
    ...                      "n_used": [3, 2034, 1017], "n_total": 2034})
    >>> covering_models(rows, 0.9)["model"].tolist(), covering_models(rows, 0.5)["model"].tolist()
    (['full'], ['half', 'full'])
    """
    kept = rows[(_coverage(rows) >= min_coverage - 1e-12) & rows["value"].notna()]
    return kept.sort_values(["value", "model"], ascending=[False, True], kind="stable")


def dataset_msd(
    dataset: str,
    scores: pd.DataFrame,
    differences: pd.DataFrame,
    alpha: float = 0.05,
    *,
    min_coverage: float,
) -> pd.DataFrame:
    """The minimum significant Spearman difference of one dataset (``msd_table``), on the models
    that can carry it.

    A model whose vocabulary misses most pairs can have the highest Spearman on the few it scores
    (3 of Rare Words' 2,034 pairs give rho 1.0), and a difference on 3 items means nothing. So
    ``r_best`` is the best Spearman (all items) among the models that score at least
    ``min_coverage`` of the dataset's items (``n_used / n_total`` in the scores table), ``n`` the
    items that model scores, and the observed ``r_jk`` the correlation between its predictions and
    those of the second-best such model (``model_differences``' ``r_ab``).

    Parameters
    ----------
    dataset : str
        The dataset's name.
    scores : pandas.DataFrame
        Every model's score rows of the dataset (``model``, ``metric``, ``subset``, ``value``,
        ``n_used``, and ``n_total``; without ``n_total`` every model counts as complete).
    differences : pandas.DataFrame
        The dataset's ``model_differences`` (``model_a``, ``model_b``, ``r_ab``; ``metric`` if any).
    alpha : float
        Significance level (two-sided).
    min_coverage : float
        The share of the dataset's items a model must score to carry the MSD.

    Returns
    -------
    pandas.DataFrame
        The fields of ``MsdRow``. Where no model covers enough items, one row per fixed r_jk with
        NaN and a note naming the best coverage; where no model has a Spearman (a constant gold
        standard), likewise with the scores' note; empty without a Spearman row.

    Examples
    --------
    A model that scores 3 of 2,034 pairs with rho 1.0 does not carry it; the complete one does:

    >>> scores = pd.DataFrame({"model": ["tiny", "full"], "metric": "spearman", "subset": "all",
    ...                        "value": [1.0, 0.46], "n_used": [3, 2034], "n_total": 2034})
    >>> diffs = pd.DataFrame({"model_a": ["full"], "model_b": ["tiny"], "r_ab": [0.5]})
    >>> table = dataset_msd("rw", scores, diffs, min_coverage=0.9)
    >>> table[["model", "n", "r_jk", "msd"]].round(4).values.tolist()[1]
    ['full', 2034, 0.7, 0.0296]
    """
    every = scores[(scores["metric"] == "spearman") & (scores["subset"] == "all")]
    rows = every[every["value"].notna()]
    if every.empty:
        return pd.DataFrame(columns=MSD_COLUMNS)
    if rows.empty:
        notes = [n for n in every.get("note", pd.Series(dtype=str)).fillna("") if n]
        why = f": {notes[0]}" if notes and len(set(notes)) == 1 else ""  # one reason for every model: say it
        total = every["n_total"] if "n_total" in every else every["n_used"]
        return _no_msd(dataset, int(total.max()), alpha, f"no model has a Spearman with the gold standard{why}")
    total = rows["n_total"] if "n_total" in rows else rows["n_used"]
    ranked = covering_models(rows, min_coverage)
    if ranked.empty:
        by_coverage = rows.assign(coverage=_coverage(rows))
        widest = by_coverage.sort_values(["coverage", "model"], ascending=[False, True]).iloc[0]
        note = (
            f"no model scores at least {min_coverage:.0%} of the items (scoring.msd_min_coverage); the most: "
            f"{widest['model']}, {int(widest['n_used']):,} of {int(total.max()):,}"
        )
        return _no_msd(dataset, int(total.max()), alpha, note)
    best = ranked.iloc[0]
    n_items = int(best["n_total"]) if "n_total" in best else int(best["n_used"])
    observed, other = None, ""
    if len(ranked) >= 2:
        other = str(ranked.iloc[1]["model"])
        pair = {best["model"], other}
        spearman = differences if "metric" not in differences else differences[differences["metric"] == "spearman"]
        match = spearman[[{a, b} == pair for a, b in zip(spearman["model_a"], spearman["model_b"])]]
        observed = float(match["r_ab"].iloc[0]) if len(match) else None
    return msd_table(
        dataset,
        int(best["n_used"]),
        float(best["value"]),
        observed,
        alpha,
        model=str(best["model"]),
        n_items=n_items,
        model_k=other if observed is not None else "",
    )


def _no_msd(dataset: str, n_items: int, alpha: float, note: str) -> pd.DataFrame:
    """The MSD table of a dataset without one: a row per fixed r_jk, NaN, and why."""
    nan = np.nan
    rows = [MsdRow(dataset, "", 0, n_items, nan, r, "fixed", "", alpha, nan, nan, nan, nan, note) for r in R_JK_LEVELS]
    return pd.DataFrame(rows, columns=MSD_COLUMNS)


def with_msd(summary: pd.DataFrame, msd: pd.DataFrame) -> pd.DataFrame:
    """The score summary with ``msd`` and ``msd_r_jk`` beside each dataset's Spearman (all items):
    the difference at the observed r_jk of the two best models, or at r_jk = 0.7 where one model
    scores the dataset.

    Parameters
    ----------
    summary : pd.DataFrame
        The score summary table.
    msd : pd.DataFrame
        The msd tables of the datasets.

    Returns
    -------
    pd.DataFrame
        A copy of ``summary`` with float columns ``msd`` and ``msd_r_jk``, set on the Spearman
        rows of subset ``all`` and NaN elsewhere.
    """
    chosen = msd[(msd["r_jk_kind"] == "observed") | np.isclose(msd["r_jk"].astype(float), MSD_FALLBACK_R_JK)]
    chosen = chosen.assign(observed=chosen["r_jk_kind"] == "observed")
    chosen = chosen.sort_values(["dataset", "observed"], kind="stable").drop_duplicates("dataset", keep="last")
    per_dataset = chosen.set_index("dataset")
    headline = (summary["metric"] == "spearman") & (summary["subset"] == "all")
    out = summary.copy()
    for column, source in (("msd", "msd"), ("msd_r_jk", "r_jk")):
        values = out["dataset"].map(per_dataset[source]).astype(float)
        out[column] = values.where(headline)
    return out
