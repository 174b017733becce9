"""Figures for people: per-rater agreement (as Figure 2 of the Danish paper) and the score
distribution with SD and RSD by score (as Table 1 and Figure 1 of the SemEval-2012 paper).

PNG files written with the Agg backend and no metadata, so the same tables give the same bytes.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.patches import Patch
import numpy as np
import pandas as pd

_SAVE = {"dpi": 110, "metadata": {"Software": None}}


def _save(fig, path) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, **_SAVE)
    plt.close(fig)


def rater_agreement_figure(raters: pd.DataFrame, agreement: pd.DataFrame, path, title: str) -> None:
    """Bars per rater: average pairwise Spearman and Spearman with the item means (calibrated
    stage, all raters); excluded raters hatched; dashed lines at the dataset means."""
    stage = raters[raters["stage"] == "calibrated"].sort_values("vs_mean", na_position="first")
    fig, ax = plt.subplots(figsize=(max(6.0, 0.28 * len(stage) + 2), 4.2))
    if stage.empty or stage[["avg_pairwise", "vs_mean"]].isna().all().all():
        note = agreement["note"].iloc[0] if len(agreement) else "no per-rater figures"
        ax.text(0.5, 0.5, note or "no per-rater figures", ha="center", va="center", wrap=True)
        ax.set_axis_off()
    else:
        x = np.arange(len(stage))
        hatch = ["//" if e else "" for e in stage["excluded"]]
        bars_p = ax.bar(x - 0.2, stage["avg_pairwise"], 0.4, label="average pairwise", color="#4C72B0")
        bars_m = ax.bar(x + 0.2, stage["vs_mean"], 0.4, label="with the item means", color="#DD8452")
        for bars in (bars_p, bars_m):
            for bar, h in zip(bars, hatch):
                bar.set_hatch(h)
        row = agreement[(agreement["stage"] == "calibrated") & (agreement["subset"] == "all")].iloc[0]
        ax.axhline(row["pairwise"], color="#4C72B0", ls="--", lw=1)
        ax.axhline(row["vs_mean"], color="#DD8452", ls="--", lw=1)
        ax.set_xticks(x, stage["rater"].astype(str), rotation=90, fontsize=7)
        ax.set_ylabel("Spearman's rho")
        ax.set_ylim(min(0.0, float(np.nanmin(stage[["avg_pairwise", "vs_mean"]].to_numpy())) - 0.05), 1.0)
        handles = [
            Patch(color="#4C72B0", label="average pairwise"),
            Patch(color="#DD8452", label="with the item means"),
        ]
        ax.legend(handles=handles, loc="lower right", fontsize=8)
        if stage["excluded"].any():
            ax.text(0.01, 0.98, "hatched: excluded as outliers", transform=ax.transAxes, va="top", fontsize=8)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    _save(fig, path)


def distribution_figure(gold: pd.DataFrame, distribution: pd.DataFrame, path, title: str) -> None:
    """Left: items per bin of the scale. Right: mean SD and RSD of the items in each bin against the
    bin's average score (empty when the dataset has no SDs)."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.6))
    labels = [f"{lo:g}-{hi:g}" for lo, hi in zip(distribution["bin_low"], distribution["bin_high"])]
    left.bar(np.arange(len(distribution)), distribution["n_items"], color="#55A868")
    left.set_xticks(np.arange(len(distribution)), labels, rotation=45 if len(labels) > 8 else 0, fontsize=7)
    left.set_xlabel("gold score")
    left.set_ylabel("items")
    has_sd = distribution["mean_sd"].notna().any()
    if has_sd:
        ok = distribution["mean_of_means"].notna()
        x = distribution.loc[ok, "mean_of_means"]
        right.plot(x, distribution.loc[ok, "mean_sd"], "o-", color="#C44E52", label="SD")
        right.set_xlabel("average gold score in the bin")
        right.set_ylabel("SD", color="#C44E52")
        twin = right.twinx()
        twin.plot(x, distribution.loc[ok, "mean_rsd"], "s--", color="#8172B2", label="RSD (%)")
        twin.set_ylabel("RSD (%)", color="#8172B2")
    else:
        right.text(0.5, 0.5, "no standard deviations in this dataset", ha="center", va="center")
        right.set_axis_off()
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    _save(fig, path)
