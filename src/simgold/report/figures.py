"""The figures of a dataset's report page, and their one registry, ``FIGURES``: which figure a
page shows (``shown_if``), its caption on the page and in ``snakemake --report``, and the function
that draws it. simgold.workflow.routing.report_figures, ``draw_dataset_figures`` and
workflow/report/figures.rst (``python -m simgold.report.figures``) all follow the registry.

The figures: model scores with the human ceiling, the noise sanity check, context effects,
per-rater agreement (as Figure 2 of the Danish paper), reliability against the raters per item,
and the score distribution with SD and RSD by score (as Table 1 and Figure 1 of the SemEval-2012
paper).

PNG files written with the Agg backend and no metadata, so the same tables give the same bytes.
Every text is drawn as plain text (``_plain_text``): a rater, word or model name holding ``$``,
``\\``, ``_`` or ``^`` is printed as it is, never read as mathtext or TeX.
matplotlib is imported when the first figure is drawn: the registry (read by the workflow's
routing) and the pages need no matplotlib.
"""

from __future__ import annotations

import functools
import sys
import textwrap
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from simgold.io.labels import confidence_labels
from simgold.report.headline import MAIN_METRICS, flag_scores
from simgold.stages.agreement import OutlierCut, outlier_cut

__all__ = ["Figure", "Figures", "FIGURES", "draw_dataset_figures", "figures_rst", "main"]

_SAVE = {"dpi": 110, "metadata": {"Software": None}}
#: matplotlib settings for every figure: text is plain text, never mathtext (``$...$``) or TeX
_PLAIN_TEXT = {"text.parse_math": False, "text.usetex": False}


def _pyplot():
    """matplotlib.pyplot on the Agg backend (imported once per process, on the first figure)."""
    import matplotlib  # here: heavy, and only drawing needs it

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # here: as above

    return plt


@contextmanager
def _plain_text() -> Iterator[None]:
    """matplotlib with every text plain: a label made while it holds (and the tick labels drawn
    when the figure is saved inside it) prints ``r$\\foo$`` as those six characters."""
    import matplotlib  # here: heavy, and only drawing needs it

    with matplotlib.rc_context(_PLAIN_TEXT):
        yield


def _plain(draw: Callable) -> Callable:
    """A figure function that draws and saves its figure inside ``_plain_text``."""

    @functools.wraps(draw)
    def plain(*args, **kwargs):
        with _plain_text():
            return draw(*args, **kwargs)

    return plain


def _save(fig, path) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, **_SAVE)
    _pyplot().close(fig)


def _exclusion_threshold(stage: pd.DataFrame, outliers: dict | None) -> OutlierCut | None:
    """The cutoff of the outlier rule the raters were filtered by (``outlier_cut``, the filter's
    own), from the raters table's stage rows and the dataset's ``outliers`` config; None without
    outlier filtering."""
    outliers = outliers or {}
    return outlier_cut(
        stage["avg_pairwise"].to_numpy(float), outliers.get("method", "none"), outliers.get("k", 1.0),
        outliers.get("threshold"),
    )  # fmt: skip


def _message(ax, text: str) -> None:
    """In place of a plot that has nothing to show: the reason, wrapped to the axes, and no axes."""
    lines = [wrapped for line in text.split("\n") for wrapped in textwrap.wrap(line, 80) or [""]]
    ax.text(0.5, 0.5, "\n".join(lines), ha="center", va="center", fontsize=9, transform=ax.transAxes)
    ax.set_axis_off()


def _legend_outside(ax, **kwargs) -> None:
    """A legend to the right of the axes, so that it never covers data."""
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, fontsize=8, **kwargs)


@_plain
def _rater_agreement_figure(
    raters: pd.DataFrame, agreement: pd.DataFrame, path, title: str, outliers: dict | None = None
) -> None:
    """Bars per rater: average pairwise Spearman and Spearman with the item means (calibrated
    stage, all raters); excluded raters hatched; dashed lines at the dataset means; the exclusion
    threshold of the outlier rule; a y-range fitted to the values so that differences show."""
    stage = raters[raters["stage"] == "calibrated"].sort_values("vs_mean", na_position="first")
    fig, ax = _pyplot().subplots(figsize=(max(6.0, 0.28 * len(stage) + 3.5), 4.2))
    if stage.empty or stage[["avg_pairwise", "vs_mean"]].isna().all().all():
        shown = agreement[(agreement["stage"] == "calibrated") & (agreement["subset"] == "all")]  # the bars' stage
        note = (shown if len(shown) else agreement)["note"].iloc[0] if len(agreement) else ""
        _message(ax, f"No rater has a value.\n{note}" if note else "no per-rater figures")
    else:
        _rater_bars(ax, stage, agreement, _exclusion_threshold(stage, outliers))
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    _save(fig, path)


def _rater_bars(ax, stage: pd.DataFrame, agreement: pd.DataFrame, threshold) -> None:
    from matplotlib.patches import Patch  # here: matplotlib only when drawing

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
    for col, label in (("pairwise", "mean pairwise"), ("vs_mean", "mean with the item means")):
        if pd.notna(row[col]):  # no line, and no "nan" in the legend, for a mean that is undefined
            colour = colours["avg_pairwise" if col == "pairwise" else col]
            ax.axhline(row[col], color=colour, ls="--", lw=1, label=f"{label} {row[col]:.3f}")
    shown = [stage["avg_pairwise"], stage["vs_mean"]]
    if threshold is not None:
        col, cut = threshold.column, threshold.cut
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
    # bars start at 0 (or below, for negative values): a bar's length is its value, never exaggerated
    ax.set_ylim(max(-1.0, min(0.0, low - margin)), min(1.0, high + margin) if high < 1.0 else 1.02)
    ax.set_xticks(x, stage["rater"].astype(str), rotation=90, fontsize=7)
    ax.set_xlabel("rater (sorted by Spearman with the item means)")
    ax.set_ylabel("Spearman's rho")
    _legend_outside(ax, handles=handles + ax.get_legend_handles_labels()[0])


@_plain
def _distribution_figure(gold: pd.DataFrame, distribution: pd.DataFrame, path, title: str) -> None:
    """Left: items per bin of the scale. Right, where the dataset has SDs: mean SD and RSD of the
    items in each bin against the bin's average score (no empty panel where it has none)."""
    has_sd = distribution["mean_sd"].notna().any()
    fig, axes = _pyplot().subplots(1, 2 if has_sd else 1, figsize=(9, 3.6) if has_sd else (5, 3.6), squeeze=False)
    left, right = axes[0][0], axes[0][-1]
    labels = [f"{lo:g}-{hi:g}" for lo, hi in zip(distribution["bin_low"], distribution["bin_high"])]
    left.bar(np.arange(len(distribution)), distribution["n_items"], color="#55A868")
    left.set_xticks(np.arange(len(distribution)), labels, rotation=45 if len(labels) > 8 else 0, fontsize=7)
    left.set_xlabel("gold score")
    left.set_ylabel("items")
    if has_sd:
        ok = distribution["mean_of_means"].notna()
        x = distribution.loc[ok, "mean_of_means"]
        right.plot(x, distribution.loc[ok, "mean_sd"], "o-", color="#C44E52", label="SD")
        right.set_xlabel("average gold score in the bin")
        right.set_ylabel("SD", color="#C44E52")
        twin = right.twinx()
        twin.plot(x, distribution.loc[ok, "mean_rsd"], "s--", color="#8172B2", label="RSD (%)")
        twin.set_ylabel("RSD (%)", color="#8172B2")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    _save(fig, path)


@_plain
def _reliability_figure(summary: pd.DataFrame, curve: pd.DataFrame, path, title: str) -> None:
    """Expected reliability of the item means against the raters per item (Spearman-Brown from the
    split-half single-rater reliability), its band from the splits' 2.5-97.5 percentiles, the 0.8
    and 0.9 lines with the raters each needs, and the dataset's own raters per item."""
    fig, ax = _pyplot().subplots(figsize=(7, 3.8))
    row = summary.iloc[0]
    if curve["reliability"].isna().all():
        why = row["note"] if "note" in row and row["note"] else "no split-half correlation"
        _message(ax, f"The reliability cannot be projected.\n{why}")
    else:
        ax.fill_between(curve["m"], curve["low"], curve["high"], color="#4C72B0", alpha=0.2, label="95% of splits")
        ax.plot(curve["m"], curve["reliability"], color="#4C72B0", label=f"expected reliability (r1 = {row['r1']:.2f})")
        for target, colour in ((0.8, "#DD8452"), (0.9, "#C44E52")):
            needed = row[f"m_{target:g}"]
            label = (
                f"{target:g} needs {needed:.0f} raters per item" if np.isfinite(needed) else f"{target:g}: not reached"
            )
            ax.axhline(target, color=colour, ls="--", lw=1, label=label)
            if np.isfinite(needed):
                ax.axvline(needed, color=colour, ls=":", lw=1)
        observed = row["observed_raters"]
        ax.plot(
            [observed],
            [row["r_full"]],
            "o",
            color="#222222",
            label=f"this dataset: {observed:.1f} raters, {row['r_full']:.3f}",
        )
        ax.set_xlim(1, float(curve["m"].max()))
        ax.set_ylim(max(0.0, float(np.nanmin(curve["low"])) - 0.05), 1.0)
        ax.set_xlabel("raters per item")
        ax.set_ylabel("reliability of the item means")
        _legend_outside(ax)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    _save(fig, path)


#: how each headline metric is named on its axis, and the range the axis shows
METRIC_AXES = {"spearman": ("Spearman's rho", None), "ag_score": ("A&G score (share of comparisons kept)", (0.0, 1.0))}


@_plain
def _scores_figure(scores: pd.DataFrame, path, title: str) -> None:
    """The main metric of every model with its CI, one panel per metric (Spearman's rho and the A&G
    score are on different scales), and the human ceiling (leave-one-out Spearman of the raters)
    as a dashed line on the Spearman panel only: it is a Spearman."""
    rows = scores[(scores["subset"] == "all") & scores["metric"].isin(MAIN_METRICS)]
    metrics = [m for m in MAIN_METRICS if (rows["metric"] == m).any()] or ["spearman"]
    fig, axes = _pyplot().subplots(1, len(metrics), figsize=(7 * len(metrics) ** 0.5, 3.6), squeeze=False)
    level = confidence_labels(rows.get("confidence", []))
    for ax, metric in zip(axes[0], metrics):
        part = flag_scores(rows[rows["metric"] == metric].sort_values("model"))
        name, limits = METRIC_AXES[metric]
        value = part["value"].to_numpy(float)
        if not np.isfinite(value).any():  # a bar of height 0 would read as a score of 0
            notes = sorted({n for n in part.get("note", pd.Series(dtype=str)).fillna("") if n})
            _message(ax, f"No model has a value for {name}.\n" + "\n".join(notes))
            continue
        labels = [f"{m}" + (f"\n(n={n}: {flag})" if flag else "") + ("\n(no value)" if np.isnan(v) else "")
                  for m, n, flag, v in zip(part["model"], part["n_used"], part["flag"], value)]  # fmt: skip
        x = np.arange(len(part))
        low = np.nan_to_num(value - part["ci_low"].to_numpy(float))
        high = np.nan_to_num(part["ci_high"].to_numpy(float) - value)
        ax.bar(x, np.nan_to_num(value), color="#4C72B0", yerr=[low, high], capsize=4)
        ax.set_xticks(x, labels, fontsize=8)
        ceiling = scores.loc[scores["metric"] == "human_ceiling", "value"].dropna()
        if metric == "spearman" and len(ceiling):
            ax.axhline(ceiling.iloc[0], color="#C44E52", ls="--", lw=1, label=f"human ceiling {ceiling.iloc[0]:.3f}")
            _legend_outside(ax)
        floor = min(0.0, float(np.nanmin(part["ci_low"].to_numpy(float), initial=0)) - 0.05)
        ax.set_ylim(*(limits or (floor, 1.0)))
        ax.set_ylabel(f"{name} ({level} bootstrap CI)", fontsize=9)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    _save(fig, path)


@_plain
def _noise_figure(tables: list[pd.DataFrame], path, title: str) -> None:
    """Mean Spearman against the noise level, with the 2.5-97.5 percentile band, per model."""
    fig, ax = _pyplot().subplots(figsize=(9, 3.6))
    curves = [t for t in tables if t["mean"].notna().any()]
    if not curves:
        notes = sorted({f"{t['model'].iloc[0]}: {t['note'].iloc[0]}" if "note" in t else t["model"].iloc[0]
                        for t in tables if len(t)})  # fmt: skip
        _message(ax, "No noise curve.\n" + "\n".join(notes))
        ax.set_title(title, fontsize=10)
        _save(fig, path)
        return
    handles, labels = [], []  # given to the legend as they are: a model named "_x" is not hidden
    for t in tables:
        model = t["model"].iloc[0]
        if t["mean"].isna().all():  # listed, with why, so that a missing curve is not taken for a hidden one
            why = t["note"].iloc[0] if "note" in t else ""
            handles += ax.plot([], [], " ")
            labels.append(f"{model}: no curve{f' ({why})' if why else ''}")
            continue
        labels.append(
            f"{model}: trend {t['trend_spearman'].iloc[0]:.2f}, monotonic in {t['monotonic_share'].iloc[0]:.0%} of {t['m'].iloc[0]} curves"
        )
        handles += ax.plot(t["level"], t["mean"], "o-", ms=3)
        ax.fill_between(t["level"], t["p2_5"], t["p97_5"], alpha=0.2)
    ax.set_xlabel(_noise_axis_label(curves))
    ax.set_ylabel("Spearman")
    ax.legend(handles, labels, fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.22))
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    _save(fig, path)


def _noise_axis_label(tables: list[pd.DataFrame]) -> str:
    """The noise figure's x label: absolute levels, or (``noise.relative``) levels in units of each
    model's element SD, read from the tables (their ``noise`` column is the level times that SD)."""
    relative = any(not np.allclose(t["noise"], t["level"]) for t in tables)
    if relative:
        return "noise level n, in units of each model's element SD (U(-n SD, n SD) added to every vector element)"
    return "noise level n (U(-n, n) added to every vector element)"


@_plain
def _context_figure(tests: pd.DataFrame, path, title: str) -> None:
    """Each pair's mean rating in context 1 and context 2 (filled where q < 0.05)."""
    t = tests.assign(diff=tests["mean2"] - tests["mean1"]).sort_values("diff", kind="stable").reset_index(drop=True)
    fig, ax = _pyplot().subplots(figsize=(7, max(3.0, 0.18 * len(t) + 1)))
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
    _legend_outside(ax)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    _save(fig, path)


# --------------------------------------------------------------------------------------------
# the registry: every figure a dataset's page can show, in page order


@dataclass(frozen=True)
class Figure:
    """One figure of a dataset's report page.

    Attributes
    ----------
    draw : callable
        ``draw(name, tables, path)``: draws dataset ``name``'s figure from its ``tables`` (as
        ``draw_dataset_figures`` gets them, with ``outliers`` added) into the PNG file ``path``.
    caption : str
        The caption under the figure on the dataset's page; ``{level}`` stands for the CIs' level
        and ``{ceiling}`` for " and the human ceiling" where the dataset has per-rater ratings
        (``simgold.workflow.routing.report_figures``).
    report_caption : str
        The caption ``snakemake --report`` shows beside the figure (workflow/report/figures.rst);
        ``{dataset}`` stands for the dataset's name.
    shown_if : callable
        ``shown_if(routing, dataset)``: whether the dataset's page shows the figure. ``routing``
        is the workflow's routing (simgold.workflow.routing.Stages), read by its attributes only
        (``scored_by``, ``noised``, ``context``, ``rated``, ``ranked``, ``cleaned``), since the
        report layer does not import the workflow.
    """

    draw: Callable[[str, Mapping[str, Any], str | Path], None]
    caption: str
    report_caption: str
    shown_if: Callable[[Any, str], bool]


@_plain
def _bws_figure(scores: pd.DataFrame, raters: pd.DataFrame | None, outliers: dict | None, path, title: str) -> None:
    """A Best-Worst Scaling dataset's two scores and its raters. Left: each pair's counting score
    against its MaxDiff utility, with both intervals. Right: each rater's agreement with the others
    (the share of their choices the others' scores agree with), excluded raters hatched, and the
    outlier rule's cut (``outlier_cut`` on that share, as the agreement stage cuts it)."""
    fig, (left, right) = _pyplot().subplots(1, 2, figsize=(10.5, 4.2))
    shown = scores.dropna(subset=["counting", "logit"])
    if len(shown):
        left.errorbar(shown["logit"], shown["counting"], fmt="o", ms=3, color="#4C72B0", ecolor="#B0B0B0", lw=0.8,
                      xerr=[shown["logit"] - shown["logit_low"], shown["logit_high"] - shown["logit"]],
                      yerr=[shown["counting"] - shown["counting_low"], shown["counting_high"] - shown["counting"]])  # fmt: skip
        left.set_xlabel("MaxDiff utility (Wald interval)")
        left.set_ylabel("counting score (bootstrap interval)")
        left.set_title(f"{len(shown):,} pairs", fontsize=9)
    else:
        _message(left, "no pair has both scores")
    if raters is None or not len(raters) or raters["vs_rest"].isna().all():
        _message(right, "no rater's agreement: the answers name fewer than two raters")
    else:
        stage = raters.sort_values(["vs_rest", "rater"], na_position="first", kind="stable")
        bars = right.bar(np.arange(len(stage)), stage["vs_rest"], 0.7, color="#DD8452")
        for bar, out in zip(bars, stage["excluded"].astype(bool)):
            bar.set_hatch("//" if out else "")
        outliers = outliers or {}
        cut = outlier_cut(stage["vs_rest"].to_numpy(float), outliers.get("method", "none"), outliers.get("k", 1.0),
                          outliers.get("threshold"))  # fmt: skip
        if cut is not None:
            right.axhline(cut.cut, color="#C44E52", lw=1.5, label=f"exclusion threshold {cut.cut:.3f}")
            _legend_outside(right)
        right.set_xticks(np.arange(len(stage)), stage["rater"].astype(str), rotation=90, fontsize=7)
        right.set_ylim(0.0, 1.02)
        right.set_ylabel("agreement with the other raters")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    _save(fig, path)


def _raters_title(name: str, tables: Mapping[str, Any]) -> str:
    return f"{name}: agreement of each rater{' (rankings)' if tables.get('ranked') else ''}"


class Figures(dict):
    """The one registry of the figures a dataset's report page shows, in page order: name -> Figure.

    A figure is one entry here plus the function that draws it. The page's figure list
    (simgold.workflow.routing.report_figures: the entries whose ``shown_if`` holds, each as
    ``results/report/{dataset}/figures/{name}.png``), the drawing (``draw_dataset_figures``) and the
    captions of ``snakemake --report`` (workflow/report/figures.rst, written by ``figures_rst``) all
    follow it. The tables ``draw`` gets are the report job's inputs (``report_inputs`` in
    workflow/rules/common.smk): a figure that needs another table adds it there.


    Attributes
    ----------

    Examples
    --------
    To show the gold scores of every cleaned dataset as a histogram, after the distribution figure,
    write its function and add its entry at that place in ``FIGURES`` (here added at run time):

    >>> def histogram_figure(gold: pd.DataFrame, path, title: str) -> None:
    ...     fig, ax = _pyplot().subplots(figsize=(6, 3.6))
    ...     ax.hist(gold["mean"], bins=20)
    ...     ax.set_title(title, fontsize=10)
    ...     _save(fig, path)
    >>> FIGURES["histogram"] = Figure(
    ...     draw=lambda name, t, path: histogram_figure(t["gold"], path, f"{name}: gold histogram"),
    ...     caption="Gold scores in 20 bins",
    ...     report_caption="Gold scores of {dataset} in 20 bins of equal width.",
    ...     shown_if=lambda routing, d: d in routing.cleaned,
    ... )

    Which figures a page shows, and the caption ``snakemake --report`` gets:

    >>> from types import SimpleNamespace
    >>> routing = SimpleNamespace(scored_by={}, noised=[], context=[], rated=["d"], ranked=[], cleaned=["d"])
    >>> [name for name, figure in FIGURES.items() if figure.shown_if(routing, "d")]
    ['raters', 'reliability', 'distribution', 'histogram']
    >>> print(figures_rst().splitlines()[-2])
    Gold scores of {{ snakemake.wildcards.dataset }} in 20 bins of equal width.

    The page's job draws it:

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     png = Path(tmp) / "histogram.png"
    ...     draw_dataset_figures("d", [(str(png), "")], {"gold": pd.DataFrame({"mean": [1.0, 2.5, 4.0]})})
    ...     png.read_bytes()[:4]
    b'\\x89PNG'
    >>> del FIGURES["histogram"]

    Then rewrite workflow/report/figures.rst with ``python -m simgold.report.figures`` (a test fails
    while the committed file differs from the registry).
    """


FIGURES: dict[str, Figure] = Figures(
    {
        "scores": Figure(
            draw=lambda name, t, path: _scores_figure(t["scores"], path, f"{name}: model scores"),
            caption="Model scores with {level} bootstrap CIs{ceiling}",
            report_caption=(
                "Model scores on {dataset}: Spearman's rho and, on a panel of its own, the Avraham & Goldberg score "
                "where the dataset has comparisons (marked when it rests on fewer than 10 comparisons), with {level} "
                "percentile bootstrap confidence intervals; the human ceiling (each rater's Spearman with the mean "
                "of the others) is a dashed line on the Spearman panel, the only one it applies to."
            ),
            shown_if=lambda routing, d: d in routing.scored_by,
        ),
        "noise": Figure(
            draw=lambda name, t, path: _noise_figure(t["noise"], path, f"{name}: noise sanity check"),
            caption="Noise sanity check: mean Spearman as noise is added (2.5-97.5 percentile band)",
            report_caption=(
                "Noise sanity check on {dataset} (Batchkarov et al. 2016, critiqued by Le 2017): mean Spearman as "
                "uniform noise is added to the word vectors, with the 2.5-97.5 percentile band; the legend gives the "
                "trend and the share of repeated curves that decrease at every step, which depends on the number of "
                "samples and on the dataset's size."
            ),
            shown_if=lambda routing, d: any(noised == d for noised, _ in routing.noised),
        ),
        "context": Figure(
            draw=lambda name, t, path: _context_figure(t["context"], path, f"{name}: context effects"),
            caption="Mean similarity of each pair in its two contexts",
            report_caption=(
                "Context effects in {dataset}: each pair's mean similarity in its two contexts; a filled marker where "
                "the Benjamini-Hochberg q-value is below 0.05."
            ),
            shown_if=lambda routing, d: d in routing.context,
        ),
        "raters": Figure(
            draw=lambda name, t, path: _rater_agreement_figure(
                t["raters"], t["agreement"], path, _raters_title(name, t), t.get("outliers")
            ),
            caption="Agreement of each rater (pairwise and with the item means)",
            report_caption=(
                "Agreement of each rater of {dataset} at the calibrated stage: the average Spearman correlation with "
                "every other rater and the Spearman correlation with the item means (as Figure 2 of the Danish "
                "gold-standard paper), dashed lines at their means, and the exclusion threshold of the outlier rule "
                "(docs/methods.md section 4) as a red line. Hatched bars: raters excluded as outliers. The y-axis "
                "spans the values shown."
            ),
            shown_if=lambda routing, d: d in routing.rated or d in routing.ranked,
        ),
        "reliability": Figure(
            draw=lambda name, t, path: _reliability_figure(
                t["reliability"], t["curve"], path, f"{name}: reliability against the raters per item"
            ),
            caption=(
                "How many raters are enough: expected reliability of the item means against the raters per item "
                "(Spearman-Brown from split halves; band: 95% of the splits); the dashed lines at 0.8 and 0.9 "
                "and the dotted lines at the raters each needs"
            ),
            report_caption=(
                "How many raters are enough for {dataset} (docs/methods.md section 11.3): the raters are split at "
                "random into two halves many times, and the Spearman correlation between the two halves' item means "
                "gives, by the Spearman-Brown formula, the reliability of one rater and of the means of m raters per "
                "item. The blue line is that expected reliability against the raters per item (band: 95% of the "
                "splits); the dashed lines mark 0.8 and 0.9 and the dotted lines the raters each needs (the legend "
                "gives the numbers); the dot is the dataset as it is. Read it as: beyond the point where the curve "
                "flattens, more raters per item buy little reliability."
            ),
            shown_if=lambda routing, d: d in routing.rated,
        ),
        "bws": Figure(
            draw=lambda name, t, path: _bws_figure(
                t["bws_scores"], t.get("raters"), t.get("outliers"), path, f"{name}: Best-Worst Scaling"
            ),
            caption="Best-Worst Scaling: each pair's counting score against its MaxDiff utility; each rater's agreement",
            report_caption=(
                "Best-Worst Scaling in {dataset} (docs/methods.md section 13). Left: each pair's counting score (the "
                "share of the answers showing it where it was chosen best minus the share where it was chosen worst) "
                "against its MaxDiff utility, with the bootstrap and Wald intervals. Right: each rater's agreement "
                "with the others (the share of their best and worst choices the other raters' counting scores agree "
                "with), excluded raters hatched, and the outlier rule's threshold as a red line."
            ),
            shown_if=lambda routing, d: d in getattr(routing, "bws", ()),  # a routing of an older run: no bws
        ),
        "distribution": Figure(
            draw=lambda name, t, path: _distribution_figure(t["gold"], t["distribution"], path, f"{name}: gold scores"),
            caption="Gold scores: items per bin, SD and RSD by score",
            report_caption=(
                "Gold scores of {dataset}: items per unit bin of the scale (as Table 1 of the SemEval-2012 Chinese "
                "paper), and the average SD and relative SD of the items in each bin against the bin's average score "
                "(its Figure 1)."
            ),
            shown_if=lambda routing, d: d in routing.cleaned,
        ),
    }
)


def draw_dataset_figures(name: str, figures: list[tuple[str, str]], tables: dict, outliers: dict | None = None) -> None:
    """Draw each figure of a dataset's page with its ``FIGURES`` entry. One job draws every figure
    of a page, so matplotlib is loaded once per dataset.

    Parameters
    ----------
    name : str
        The dataset.
    figures : list of (str, str)
        (path, caption) of the page's figures, as simgold.workflow.routing.report_figures lists
        them; the file's stem names the figure.
    tables : dict
        The dataset's tables: ``scores`` (every model's, one table), ``noise`` (a list of noise
        tables), ``context`` (the tests), ``raters`` and ``agreement`` (the agreement stage's;
        ``ranked`` true for rankings), ``reliability`` and ``curve``, ``gold`` and ``distribution``.
    outliers : dict, optional
        The dataset's outlier rule (its ``outliers`` config), for the raters figure's threshold.

    Raises
    ------
    ValueError
        For a file whose stem names no registered figure.

    Examples
    --------
    >>> draw_dataset_figures("ws353", [], {})  # a page without figures: nothing drawn, no matplotlib
    """
    tables = {**tables, "outliers": outliers}
    for path, _ in figures:
        kind = Path(path).stem
        if kind not in FIGURES:
            raise ValueError(f"{path}: no figure of that name ({', '.join(FIGURES)})")
        with _plain_text():  # a figure added to the registry gets plain text too
            FIGURES[kind].draw(name, tables, path)


#: what stands for the dataset's name in a caption of workflow/report/figures.rst (Jinja2)
REPORT_DATASET = "{{ snakemake.wildcards.dataset }}"
#: what stands for the CIs' level ("95%"): the report job's ``ci_level`` param (from scoring.confidence)
REPORT_LEVEL = "{{ snakemake.params.ci_level }}"


def figures_rst(figures: Mapping[str, Figure] | None = None) -> str:
    """The text of workflow/report/figures.rst: the caption ``snakemake --report`` shows beside
    each figure of a dataset's figure directory, chosen by the figure's name (its ``{figure}``
    label in workflow/rules/report.smk).

    Parameters
    ----------
    figures : mapping of str to Figure, optional
        The registry to write (default: ``FIGURES``).

    Returns
    -------
    str
        A Jinja2 template: one ``if``/``elif`` branch per figure, in registry order.

    Examples
    --------
    >>> print(figures_rst({"toy": Figure(draw=print, caption="", report_caption="Toy of {dataset}.",
    ...                                  shown_if=lambda routing, d: True)}), end="")
    {% if snakemake.wildcards.figure == "toy" %}
    Toy of {{ snakemake.wildcards.dataset }}.
    {% endif %}
    """
    figures = FIGURES if figures is None else figures
    lines = []
    for k, (name, figure) in enumerate(figures.items()):
        lines.append(f'{{% {"elif" if k else "if"} snakemake.wildcards.figure == "{name}" %}}')
        lines.append(figure.report_caption.replace("{dataset}", REPORT_DATASET).replace("{level}", REPORT_LEVEL))
    return "\n".join(lines + ["{% endif %}"]) + "\n" if lines else ""


def main(argv: list[str] | None = None) -> None:
    """``python -m simgold.report.figures [PATH]``: write ``figures_rst()`` to PATH (default:
    workflow/report/figures.rst, from the project's root).

    Parameters
    ----------
    argv : list[str] | None, optional
        The arguments: at most a path (None: ``sys.argv[1:]``).
    """
    argv = sys.argv[1:] if argv is None else argv
    path = Path(argv[0] if argv else "workflow/report/figures.rst")
    path.write_text(figures_rst(), encoding="utf-8")
    print(f"wrote {path} ({len(FIGURES)} figures)")


if __name__ == "__main__":
    main()
