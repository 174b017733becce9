"""Figures for people: per-rater agreement (as Figure 2 of the Danish paper) and the score
distribution with SD and RSD by score (as Table 1 and Figure 1 of the SemEval-2012 paper).

PNG files written with the Agg backend and no metadata, so the same tables give the same bytes.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.patches import Patch

_SAVE = {"dpi": 110, "metadata": {"Software": None}}


def _save(fig, path) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, **_SAVE)
    plt.close(fig)


def exclusion_threshold(stage: pd.DataFrame, outliers: dict | None) -> tuple[str, float] | None:
    """(column, cut) of the outlier rule the raters were filtered by, as docs/methods.md section 4
    defines it: ``pairwise_sd`` cuts avg_pairwise at mean - k SD over the raters; ``vs_rest_min``
    cuts vs_rest at the threshold. None without outlier filtering."""
    method = (outliers or {}).get("method", "none")
    if method == "pairwise_sd":
        valid = stage["avg_pairwise"].dropna().to_numpy(float)
        if len(valid) < 2:
            return None
        return "avg_pairwise", float(valid.mean() - outliers.get("k", 1.0) * valid.std(ddof=1))
    if method == "vs_rest_min":
        return "vs_rest", float(outliers["threshold"])
    return None


def _legend_outside(ax, **kwargs) -> None:
    """A legend to the right of the axes, so that it never covers data."""
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, fontsize=8, **kwargs)


def rater_agreement_figure(
    raters: pd.DataFrame, agreement: pd.DataFrame, path, title: str, outliers: dict | None = None
) -> None:
    """Bars per rater: average pairwise Spearman and Spearman with the item means (calibrated
    stage, all raters); excluded raters hatched; dashed lines at the dataset means; the exclusion
    threshold of the outlier rule; a y-range fitted to the values so that differences show."""
    stage = raters[raters["stage"] == "calibrated"].sort_values("vs_mean", na_position="first")
    fig, ax = plt.subplots(figsize=(max(6.0, 0.28 * len(stage) + 3.5), 4.2))
    if stage.empty or stage[["avg_pairwise", "vs_mean"]].isna().all().all():
        note = agreement["note"].iloc[0] if len(agreement) else "no per-rater figures"
        ax.text(0.5, 0.5, note or "no per-rater figures", ha="center", va="center", wrap=True)
        ax.set_axis_off()
    else:
        _rater_bars(ax, stage, agreement, exclusion_threshold(stage, outliers))
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    _save(fig, path)


def _rater_bars(ax, stage: pd.DataFrame, agreement: pd.DataFrame, threshold) -> None:
    x = np.arange(len(stage))
    colours = {"avg_pairwise": "#4C72B0", "vs_mean": "#DD8452", "vs_rest": "#222222"}
    hatch = ["//" if e else "" for e in stage["excluded"]]
    handles = []
    for offset, col, label in ((-0.2, "avg_pairwise", "average pairwise"), (0.2, "vs_mean", "with the item means")):
        bars = ax.bar(x + offset, stage[col], 0.4, color=colours[col])
        for bar, h in zip(bars, hatch):
            bar.set_hatch(h)
        handles.append(Patch(color=colours[col], label=label))
    row = agreement[(agreement["stage"] == "calibrated") & (agreement["subset"] == "all")].iloc[0]
    ax.axhline(
        row["pairwise"], color=colours["avg_pairwise"], ls="--", lw=1, label=f"mean pairwise {row['pairwise']:.3f}"
    )
    ax.axhline(
        row["vs_mean"], color=colours["vs_mean"], ls="--", lw=1, label=f"mean with the item means {row['vs_mean']:.3f}"
    )
    shown = [stage["avg_pairwise"], stage["vs_mean"]]
    if threshold is not None:
        col, cut = threshold
        if col == "vs_rest":  # the rule's own statistic, shown beside the bars
            ax.plot(x, stage["vs_rest"], "o", color=colours["vs_rest"], ms=4, label="with the other raters' means")
            shown.append(stage["vs_rest"])
        rule = "mean - k SD of average pairwise" if col == "avg_pairwise" else "minimum vs_rest"
        ax.axhline(cut, color="#C44E52", lw=1.5, label=f"exclusion threshold ({rule}) {cut:.3f}")
        shown.append(pd.Series([cut]))
    if stage["excluded"].any():
        handles.append(Patch(facecolor="white", edgecolor="#555", hatch="//", label="excluded as outlier"))
    values = pd.concat(shown).to_numpy(float)
    low, high = float(np.nanmin(values)), float(np.nanmax(values))
    margin = max(0.05, 0.1 * (high - low))
    ax.set_ylim(max(-1.0, low - margin), min(1.0, high + margin) if high < 1.0 else 1.02)
    ax.set_xticks(x, stage["rater"].astype(str), rotation=90, fontsize=7)
    ax.set_xlabel("rater (sorted by Spearman with the item means)")
    ax.set_ylabel("Spearman's rho")
    _legend_outside(ax, handles=handles + ax.get_legend_handles_labels()[0])


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


def reliability_figure(summary: pd.DataFrame, curve: pd.DataFrame, path, title: str) -> None:
    """Expected reliability of the item means against the raters per item (Spearman-Brown from the
    split-half single-rater reliability), its band from the splits' 2.5-97.5 percentiles, the 0.8
    and 0.9 lines with the raters each needs, and the dataset's own raters per item."""
    fig, ax = plt.subplots(figsize=(7, 3.8))
    row = summary.iloc[0]
    if curve["reliability"].isna().all():
        ax.text(0.5, 0.5, "no split-half correlation: the reliability cannot be projected", ha="center", va="center")
        ax.set_axis_off()
    else:
        ax.fill_between(curve["m"], curve["low"], curve["high"], color="#4C72B0", alpha=0.2, label="95% of splits")
        ax.plot(curve["m"], curve["reliability"], color="#4C72B0", label=f"expected reliability (r1 = {row['r1']:.2f})")
        for target, colour in ((0.8, "#DD8452"), (0.9, "#C44E52")):
            needed = row[f"m_{target:g}"]
            label = f"{target:g} needs {needed:.0f} raters per item" if np.isfinite(needed) else f"{target:g}: not reached"
            ax.axhline(target, color=colour, ls="--", lw=1, label=label)
            if np.isfinite(needed):
                ax.axvline(needed, color=colour, ls=":", lw=1)
        observed = row["observed_raters"]
        ax.plot([observed], [row["r_full"]], "o", color="#222222", label=f"this dataset: {observed:.1f} raters, {row['r_full']:.3f}")
        ax.set_xlim(1, float(curve["m"].max()))
        ax.set_ylim(max(0.0, float(np.nanmin(curve["low"])) - 0.05), 1.0)
        ax.set_xlabel("raters per item")
        ax.set_ylabel("reliability of the item means")
        _legend_outside(ax)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    _save(fig, path)
