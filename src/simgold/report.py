"""Figures and human-readable tables for the report (``snakemake --report``) and the static pages
under ``results/report/`` (browsable without Python; they go into the archive).

Pages and figures contain no timestamps, so the same results give the same bytes.
"""

from __future__ import annotations

import html
from pathlib import Path

import numpy as np
import pandas as pd

from .figures import _save, plt

MAIN_METRICS = ("spearman", "ag_score")


def _fmt(value) -> str:
    if isinstance(value, (float, np.floating)):
        return "" if np.isnan(value) else f"{value:.3f}"
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    return html.escape(str(value))


def html_table(frame: pd.DataFrame, caption: str = "") -> str:
    """A plain HTML table (numbers to 3 decimals, empty for undefined values)."""
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{_fmt(v)}</td>" for v in row) + "</tr>" for row in frame.itertuples(index=False)
    )
    cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    return f'<table class="data">{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


STYLE = (
    "body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}"
    "table.data{border-collapse:collapse;margin:1em 0;font-size:0.9em}"
    "table.data td,table.data th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
    "table.data th{background:#eee}caption{text-align:left;font-weight:bold;padding:4px 0}"
    "figure{margin:1em 0}figcaption{font-size:0.9em;color:#444}"
)


def page(title: str, body: str) -> str:
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{STYLE}</style></head><body><h1>{html.escape(title)}</h1>{body}</body></html>\n"
    )


def figure_html(src: str, caption: str) -> str:
    return f'<figure><img src="{html.escape(src)}" alt="{html.escape(caption)}"><figcaption>{html.escape(caption)}</figcaption></figure>'


# --------------------------------------------------------------------------------------------
# figures


def scores_figure(scores: pd.DataFrame, path, title: str) -> None:
    """The main metric of every model (Spearman, or the A&G score) with its 95% CI, and the human
    ceiling (leave-one-out agreement of the raters) as a dashed line."""
    fig, ax = plt.subplots(figsize=(7, 3.6))
    rows = scores[(scores["subset"] == "all") & scores["metric"].isin(MAIN_METRICS)]
    if rows.empty:
        ax.text(0.5, 0.5, "no model scores this dataset", ha="center", va="center")
        ax.set_axis_off()
    else:
        rows = rows.sort_values(["metric", "model"])
        labels = [f"{m}\n{metric}" for m, metric in zip(rows["model"], rows["metric"])]
        x = np.arange(len(rows))
        value = rows["value"].to_numpy(float)
        low = np.nan_to_num(value - rows["ci_low"].to_numpy(float))
        high = np.nan_to_num(rows["ci_high"].to_numpy(float) - value)
        ax.bar(x, np.nan_to_num(value), color="#4C72B0", yerr=[low, high], capsize=4)
        ax.set_xticks(x, labels, fontsize=8)
        ceiling = scores.loc[scores["metric"] == "human_ceiling", "value"].dropna()
        if len(ceiling):
            ax.axhline(ceiling.iloc[0], color="#C44E52", ls="--", lw=1, label=f"human ceiling {ceiling.iloc[0]:.3f}")
            ax.legend(fontsize=8, loc="lower right")
        ax.set_ylim(min(0.0, float(np.nanmin(rows["ci_low"].to_numpy(float), initial=0)) - 0.05), 1.0)
        ax.set_ylabel("score (95% bootstrap CI)")
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    _save(fig, path)


def noise_figure(tables: list[pd.DataFrame], path, title: str) -> None:
    """Mean Spearman against the noise level, with the 2.5-97.5 percentile band, per model."""
    fig, ax = plt.subplots(figsize=(7, 3.6))
    if not tables:
        ax.text(0.5, 0.5, "the noise check is not configured for this dataset", ha="center", va="center")
        ax.set_axis_off()
    for t in tables:
        model = t["model"].iloc[0]
        label = f"{model}: trend {t['trend_spearman'].iloc[0]:.2f}, monotonic in {t['monotonic_share'].iloc[0]:.0%} of {t['m'].iloc[0]} curves"
        ax.plot(t["level"], t["mean"], "o-", ms=3, label=label)
        ax.fill_between(t["level"], t["p2_5"], t["p97_5"], alpha=0.2)
    if tables:
        ax.set_xlabel("noise level n (U(-n, n) added to every vector element)")
        ax.set_ylabel("Spearman")
        ax.legend(fontsize=7)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    _save(fig, path)


def context_figure(tests: pd.DataFrame, path, title: str) -> None:
    """Each pair's mean rating in context 1 and context 2 (filled where q < 0.05)."""
    t = tests.assign(diff=tests["mean2"] - tests["mean1"]).sort_values("diff", kind="stable").reset_index(drop=True)
    fig, ax = plt.subplots(figsize=(7, max(3.0, 0.18 * len(t) + 1)))
    y = np.arange(len(t))
    significant = (t["q"] < 0.05).to_numpy()
    ax.hlines(y, t["mean1"], t["mean2"], color="#999", lw=1)
    ax.scatter(t["mean1"], y, color="#4C72B0", label="context 1", zorder=3)
    ax.scatter(
        t["mean2"], y, color=np.where(significant, "#C44E52", "white"), edgecolor="#C44E52", label="context 2", zorder=3
    )
    if len(t) <= 60:
        ax.set_yticks(y, [f"{a}/{b}" for a, b in zip(t["word1"], t["word2"])], fontsize=7)
    ax.set_xlabel("mean similarity (context 2 filled where the BH q < 0.05)")
    ax.legend(fontsize=8, loc="lower right")
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    _save(fig, path)


# --------------------------------------------------------------------------------------------
# pages


def dataset_page(
    name: str,
    *,
    clean: pd.DataFrame | None,
    agreement: pd.DataFrame | None,
    scores: pd.DataFrame | None,
    context: pd.DataFrame | None,
    figures: list[tuple[str, str]],
) -> str:
    parts = ['<p><a href="../index.html">all datasets</a></p>']
    for src, caption in figures:
        parts.append(figure_html(src, caption))
    if clean is not None and len(clean):
        cols = [
            c
            for c in (
                "n_items",
                "n_raters",
                "n_ratings",
                "n_rankings",
                "n_means",
                "n_rejects",
                "raw_cells",
                "ledger_balanced",
            )
            if c in clean
        ]
        parts.append(html_table(clean[cols], "Cleaning: what was read and what went to the rejects ledger"))
    if agreement is not None and len(agreement):
        cols = [
            "stage",
            "subset",
            "n_raters",
            "n_items",
            "pairwise",
            "pairwise_min",
            "pairwise_max",
            "consistency",
            "vs_mean",
            "vs_rest",
            "alpha_interval",
            "note",
        ]
        parts.append(
            html_table(
                agreement[cols], "Inter-rater agreement by stage and subset (Spearman; Krippendorff's alpha, interval)"
            )
        )
    if scores is not None and len(scores):
        cols = ["model", "metric", "subset", "value", "ci_low", "ci_high", "n_used", "n_total"]
        parts.append(
            html_table(scores[cols], "Model scores with 95% bootstrap CIs; OOV shares as fractions; the human ceiling")
        )
    if context is not None and len(context):
        parts.append(html_table(context, "Context effects: pairs whose similarity differs between the two contexts"))
    return page(f"simgold: {name}", "".join(parts))


def index_page(
    datasets: list[str], summary: pd.DataFrame, clean: pd.DataFrame, crosslingual: pd.DataFrame | None
) -> str:
    parts = ["<p>Per dataset: figures and tables (links below). Across datasets:</p><ul>"]
    parts += [f'<li><a href="{html.escape(d)}/index.html">{html.escape(d)}</a></li>' for d in datasets]
    parts.append("</ul>")
    if len(summary):
        main = summary[(summary["subset"] == "all") & summary["metric"].isin(MAIN_METRICS + ("pearson", "kendall"))]
        cols = [
            "dataset",
            "model",
            "metric",
            "value",
            "ci_low",
            "ci_high",
            "n_used",
            "n_total",
            "oov_pairs",
            "oov_words",
            "human_ceiling",
        ]
        parts.append(
            html_table(main[cols], "Every dataset and model: scores with 95% CIs, OOV shares and the human ceiling")
        )
    if len(clean):
        cols = ["dataset", "language", "kind", "n_items", "n_raters", "n_ratings", "n_rejects", "ledger_balanced"]
        parts.append(html_table(clean[cols], "Datasets after cleaning"))
    if crosslingual is not None and len(crosslingual):
        parts.append(
            html_table(
                crosslingual, "Translations: Spearman between the gold standards of two languages over shared items"
            )
        )
    return page("simgold report", "".join(parts))


def write(path, text: str) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(text, encoding="utf-8")
