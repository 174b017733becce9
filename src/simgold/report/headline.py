"""The answer of a run, as tables: the number to quote per dataset and model (``headline``, its
A&G scores flagged where they rest on too few comparisons), the models x datasets table, and the
agreement of each dataset's raters (``agreement_overview``). The report's pages, the leaderboard,
the MTEB files and the command line show them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simgold.stats.agreement_ci import AGREEMENT_STATISTICS

__all__ = [
    "headline",
    "wide_table",
    "flag_scores",
    "agreement_overview",
    "overview_statistics",
    "MAIN_METRICS",
    "MIN_COMPARISONS",
    "FEW_COMPARISONS",
]

MAIN_METRICS = ("spearman", "ag_score")
#: an A&G score over fewer comparisons than this is flagged and never the headline number
MIN_COMPARISONS = 10
FEW_COMPARISONS = f"fewer than {MIN_COMPARISONS} comparisons"


def flag_scores(summary: pd.DataFrame) -> pd.DataFrame:
    """The score summary with a ``flag`` column: an A&G row over fewer than MIN_COMPARISONS
    comparisons says so (its CI is wide and its value moves with a single comparison).

    Parameters
    ----------
    summary : pd.DataFrame
        The score summary (``metric``, ``n_used``, ...).

    Returns
    -------
    pd.DataFrame
        A copy with a str column ``flag``: ``FEW_COMPARISONS`` on thin A&G rows, "" elsewhere.
    """
    few = (summary["metric"] == "ag_score") & (summary["n_used"] < MIN_COMPARISONS)
    return summary.assign(flag=np.where(few, FEW_COMPARISONS, ""))


def headline(summary: pd.DataFrame) -> pd.DataFrame:
    """One row per dataset x model: the number to quote. Spearman where the dataset has a gold
    standard; else the A&G score when it rests on at least MIN_COMPARISONS comparisons; else no
    value and a note. A score without a value (a constant gold standard) keeps its note.

    Parameters
    ----------
    summary : pd.DataFrame
        The score summary, with the OOV shares (and ``msd``) beside each row.

    Returns
    -------
    pd.DataFrame
        One row per (dataset, model), sorted: the metric quoted, its value and CI (NaN when not
        usable), counts, OOV shares, ``msd`` and a ``note``.
    """
    main = summary[(summary["subset"] == "all") & summary["metric"].isin(MAIN_METRICS)]
    rows = []
    for (dataset, model), group in main.groupby(["dataset", "model"], sort=True):
        by_metric = group.set_index("metric")
        metric = "spearman" if "spearman" in by_metric.index else "ag_score"
        row = by_metric.loc[metric]
        usable = metric == "spearman" or row["n_used"] >= MIN_COMPARISONS
        rows.append(
            {
                "dataset": dataset,
                "model": model,
                "metric": metric,
                "value": row["value"] if usable else np.nan,
                "ci_low": row["ci_low"] if usable else np.nan,
                "ci_high": row["ci_high"] if usable else np.nan,
                "confidence": row["confidence"] if "confidence" in row else np.nan,
                "n_used": int(row["n_used"]),
                "n_total": int(row["n_total"]),
                "oov_pairs": row["oov_pairs"],
                "oov_words": row["oov_words"],
                "msd": row["msd"] if "msd" in row else np.nan,
                "note": _headline_note(row, usable),
            }
        )
    columns = [
        "dataset",
        "model",
        "metric",
        "value",
        "ci_low",
        "ci_high",
        "confidence",
        "n_used",
        "n_total",
        "oov_pairs",
        "oov_words",
        "msd",
    ]
    return pd.DataFrame(rows, columns=columns + ["note"])


def _headline_note(row: pd.Series, usable: bool) -> str:
    """Why a headline cell has no value: an A&G score on too few comparisons, or the score's own
    note (a constant gold standard, too few items)."""
    if not usable:
        return f"A&G score on {FEW_COMPARISONS} ({int(row['n_used'])})"
    note = row["note"] if "note" in row and isinstance(row["note"], str) else ""  # a run before the column: none
    return note if pd.isna(row["value"]) else ""


def wide_table(head: pd.DataFrame) -> pd.DataFrame:
    """Datasets as rows, models as columns, the headline value in each cell (empty: not scored);
    ``msd``: the dataset's minimum significant Spearman difference (p < 0.05) beside them.

    Parameters
    ----------
    head : pd.DataFrame
        The headline table of :func:`headline`.

    Returns
    -------
    pd.DataFrame
        One row per dataset: ``dataset``, ``metric``, ``msd``, then one value column per model.
    """
    if head.empty:
        return pd.DataFrame(columns=["dataset", "metric", "msd"])
    values = head.pivot(index="dataset", columns="model", values="value")
    per_dataset = head.groupby("dataset")
    return (
        pd.concat([per_dataset["metric"].first(), per_dataset["msd"].first(), values], axis=1)
        .reset_index()
        .rename_axis(columns=None)
    )


def overview_statistics() -> dict[str, str]:
    """The statistics of the agreement overview: column of the agreement table -> its name in the
    overview (the registry's entries with an ``overview`` name, in its order).

    Returns
    -------
    dict[str, str]
        Agreement-table column -> its overview label, in the registry's order.
    """
    return {name: s.overview for name, s in AGREEMENT_STATISTICS.items() if s.overview}


def agreement_overview(
    agreements: list[pd.DataFrame],
    raters: list[pd.DataFrame],
    icc: list[pd.DataFrame] | None = None,
    retest: list[pd.DataFrame] | None = None,
) -> pd.DataFrame:
    """One row per dataset: raters (before filtering), excluded, items, and the statistics of
    ``overview_statistics()`` (pairwise, vs_rest, alpha) of the raters kept (filtered stage, all
    items); NaN for a statistic a table (of an older run) lacks. With ``icc`` (the datasets' ICC
    tables), also the ICC of the mean of the raters (ICC(2,k), or ICC(1,k) for rating slots); with
    ``retest`` (the test-retest tables), the pooled test-retest ICC(2,1) (NaN: no repeated answer).
    Where an agreement table's note says why a statistic is missing, a ``note`` column carries it.

    Parameters
    ----------
    agreements : list[pd.DataFrame]
        The datasets' agreement tables (``stage``, ``subset``, ``n_raters``, the statistics, ``note``).
    raters : list[pd.DataFrame]
        The datasets' per-rater tables (``stage``, ``excluded``), to count excluded raters.
    icc : list[pd.DataFrame] | None, optional
        The datasets' ICC tables (None: no ``ICC(k)`` column).
    retest : list[pd.DataFrame] | None, optional
        The datasets' test-retest tables (None: no ``retest ICC`` column).

    Returns
    -------
    pd.DataFrame
        One row per dataset with a filtered stage, sorted by dataset: ``raters``, ``excluded``,
        ``items``, one column per overview statistic, the optional ICC columns and ``note``.
    """
    shown = overview_statistics()
    retest_of = {t["dataset"].iloc[0]: float(t["icc"].iloc[0]) for t in retest or [] if len(t)}
    icc_of = {}
    for table in icc or []:
        mean_of_raters = table[(table["stage"] == "filtered") & (table["subset"] == "all")
                               & table["form"].isin(["ICC(2,k)", "ICC(1,k)"])]  # fmt: skip
        if len(mean_of_raters):
            icc_of[mean_of_raters["dataset"].iloc[0]] = float(mean_of_raters["value"].iloc[0])
    excluded = {}
    for table in raters:
        calibrated = table[table["stage"] == "calibrated"]
        if len(calibrated):
            excluded[calibrated["dataset"].iloc[0]] = int(calibrated["excluded"].sum())
    rows = []
    for table in agreements:
        whole = table[table["subset"] == "all"].set_index("stage")
        if "filtered" not in whole.index:
            continue
        kept, raw = whole.loc["filtered"], whole.loc["raw"] if "raw" in whole.index else whole.loc["filtered"]
        rows.append(
            {
                "dataset": kept["dataset"],
                "raters": int(raw["n_raters"]),
                "excluded": excluded.get(kept["dataset"], 0),
                "items": int(kept["n_items"]),
                **{label: kept.get(name, np.nan) for name, label in shown.items()},
                **({"ICC(k)": icc_of.get(kept["dataset"], np.nan)} if icc is not None else {}),
                **({"retest ICC": retest_of.get(kept["dataset"], np.nan)} if retest is not None else {}),
                "note": kept["note"] if isinstance(kept.get("note"), str) else "",
            }
        )
    optional = [name for name, given in (("ICC(k)", icc), ("retest ICC", retest)) if given is not None]
    optional += ["note"] if any(row["note"] for row in rows) else []  # why a cell is empty, where one is
    columns = ["dataset", "raters", "excluded", "items", *shown.values(), *optional]
    return pd.DataFrame(rows, columns=columns).sort_values("dataset", kind="stable").reset_index(drop=True)
