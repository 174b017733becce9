"""The leaderboard a paper can paste: models as rows, datasets as columns, in each cell the
headline score (``headline``: Spearman's rho, or the A&G score where a dataset has only
comparisons) with its CI and the share of out-of-vocabulary pairs; the best model of each dataset
marked and the dataset's minimum significant difference in a row of its own. The same table as
TSV, Markdown and a LaTeX booktabs ``tabular``; no timestamp, so the same results give the same
bytes.
"""

from __future__ import annotations

import pandas as pd

from simgold.io.labels import confidence_labels
from simgold.report.pages import headline

_MEASURES = {"spearman": "Spearman", "ag_score": "A&G score"}
_MSD_LABEL = "MSD (p < 0.05)"
# characters that are markup in each format, and what stands for them
_TEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
        "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}"}  # fmt: skip
_MARKDOWN = {c: "\\" + c for c in "\\|*_`[]<>"}


def _escape(text: str, style: str) -> str:
    table = {"tex": _TEX, "md": _MARKDOWN}.get(style, {})
    return "".join(table.get(c, c) for c in str(text))


def _number(value: float, style: str) -> str:
    text = f"{value:.3f}"
    return text.replace("-", "$-$") if style == "tex" else text  # a minus sign, not a hyphen


def _cell(row, best: bool, style: str) -> str:
    """``value [low, high] (OOV share)``; the value bold (``*`` in TSV) for the best model; the CI
    left out where it is undefined; ``n/a`` where the model has no headline value."""
    if pd.isna(row["value"]):
        return "n/a"
    value = _number(row["value"], style)
    if best:
        value = {"md": f"**{value}**", "tex": rf"\textbf{{{value}}}"}.get(style, value + "*")
    parts = [value]
    if pd.notna(row["ci_low"]) and pd.notna(row["ci_high"]):
        parts.append(f"[{_number(row['ci_low'], style)}, {_number(row['ci_high'], style)}]")
    if pd.notna(row["oov_pairs"]):
        parts.append(_escape(f"({row['oov_pairs']:.1%})", style))
    return " ".join(parts)


def _render(rows: list[list[str]], caption: str, style: str, notes: list[str] = ()) -> str:
    """The grid (header, measure, one row per model, MSD) as one format's text; ``notes`` (why a
    cell is n/a) under the Markdown table and as comments after the LaTeX one (TSV: none)."""
    if style == "tsv":
        return "".join("\t".join(cells) + "\n" for cells in rows)
    if style == "md":
        lines = [caption, "", "| " + " | ".join(rows[0]) + " |", "|:---" + "|---:" * (len(rows[0]) - 1) + "|"]
        lines += ["| " + " | ".join(cells) + " |" for cells in rows[1:]]
        return "\n".join(lines + ([""] + [f"- {note}" for note in notes] if notes else [])) + "\n"
    header, measure, *body, msd = rows
    lines = [f"% {line}" for line in caption.splitlines()]
    lines += [r"\begin{tabular}{l" + "c" * (len(header) - 1) + "}", r"\toprule"]
    lines += [" & ".join(header) + r" \\", " & ".join(measure) + r" \\", r"\midrule"]
    lines += [" & ".join(cells) + r" \\" for cells in body]
    lines += [r"\midrule", " & ".join(msd) + r" \\", r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines + [f"% {note}" for note in notes]) + "\n"


def leaderboard(summary: pd.DataFrame, *, min_coverage: float) -> dict[str, str]:
    """The leaderboard of a run, as TSV, Markdown and a LaTeX booktabs ``tabular`` fragment.

    Each cell: the headline score of a model on a dataset (``headline``), its CI at the run's
    level in brackets and the share of pairs with an out-of-vocabulary word in parentheses; empty
    where the model does not score the dataset. The best model of a dataset is bold (Markdown,
    LaTeX) or starred (TSV): the highest score among the models that score at least
    ``min_coverage`` of the dataset's pairs, the rule that picks the model carrying the dataset's
    minimum significant difference (``covering_models``), so that a model right on three pairs
    is never the best; none where one model scores the dataset. The last row holds each dataset's
    MSD (the summary's ``msd``).

    Parameters
    ----------
    summary : pandas.DataFrame
        The score summary (``results/scores/summary.parquet``): ``dataset``, ``model``, ``metric``,
        ``subset``, ``value``, ``ci_low``, ``ci_high``, ``confidence``, ``n_used``, ``n_total``,
        ``oov_pairs``, ``oov_words`` and ``msd``.
    min_coverage : float
        ``scoring.msd_min_coverage``: the share of a dataset's pairs (comparisons, for an A&G
        score) a model must score to be its best.

    Returns
    -------
    dict[str, str]
        ``tsv``, ``md`` and ``tex``: the text of each file.

    Examples
    --------
    >>> summary = pd.DataFrame({"dataset": "rw", "model": ["full", "tiny"], "metric": "spearman",
    ...     "subset": "all", "value": [0.46, 1.0], "ci_low": [0.42, float("nan")], "ci_high": [0.5, float("nan")],
    ...     "confidence": 0.95, "n_used": [2034, 3], "n_total": 2034, "oov_pairs": [0.0, 0.9985],
    ...     "oov_words": 0.0, "msd": 0.03})
    >>> tsv = leaderboard(summary, min_coverage=0.9)["tsv"]
    >>> print(tsv.replace("\\t", " | "), end="")  # the tiny model's 1.0 on 3 pairs is not the best
    model | rw
    measure (*: best of the models scoring >= 90% of pairs) | Spearman [95% CI] (OOV pairs)
    full | 0.460* [0.420, 0.500] (0.0%)
    tiny | 1.000 (99.9%)
    MSD (p < 0.05) | 0.030
    """
    from simgold.stats.dependent_correlations import covering_models  # heavy: scipy.special; one job

    head = headline(summary)
    datasets, models = sorted(head["dataset"].unique()), sorted(head["model"].unique())
    level = confidence_labels(head["confidence"])
    per_dataset = {d: head[head["dataset"] == d] for d in datasets}
    # the best of one model says nothing: a dataset scored by one model has none
    best = {
        d: covering_models(rows, min_coverage)["model"].head(1).tolist() if rows["value"].notna().sum() > 1 else []
        for d, rows in per_dataset.items()
    }
    cells = {(r["dataset"], r["model"]): r for _, r in head.iterrows()}
    # an n/a cell says why under the table (a constant gold standard, too few comparisons, ...)
    note = head["note"] if "note" in head else pd.Series("", index=head.index)
    why_missing = sorted(zip(head.loc[head["value"].isna() & (note.fillna("") != ""), "dataset"],
                             head.loc[head["value"].isna() & (note.fillna("") != ""), "model"]))  # fmt: skip
    measure = {d: f"{_MEASURES[rows['metric'].iloc[0]]} [{level} CI] (OOV pairs)" for d, rows in per_dataset.items()}
    msd = {d: rows["msd"].dropna() for d, rows in per_dataset.items()}
    caption = (
        f"Each model (row) on each dataset (column): Spearman's rho with the gold standard (the A&G score where a "
        f"dataset has only comparisons), its {level} bootstrap CI in brackets and the share of pairs with an\n"
        f"out-of-vocabulary word in parentheses; empty: not scored; n/a: no value, why under the table. Bold: the best of the dataset's models (two or more) "
        f"among those that score at least {min_coverage:.0%} of its pairs. MSD: the smallest Spearman difference between two\n"
        "models significant at p < 0.05 (Williams' test, Rastogi et al. 2015): a smaller gap is no evidence that "
        "one model is better."
    )
    texts = {}
    for style in ("tsv", "md", "tex"):
        corner = f"measure (*: best of the models scoring >= {min_coverage:.0%} of pairs)" if style == "tsv" else ""
        rows = [["model", *(_escape(d, style) for d in datasets)], [corner, *(_escape(measure[d], style) for d in datasets)]]
        for m in models:
            rows.append([_escape(m, style)] + [
                _cell(cells[(d, m)], m in best[d], style) if (d, m) in cells else "" for d in datasets
            ])  # fmt: skip
        rows.append([_escape(_MSD_LABEL, style)] + [_number(msd[d].iloc[0], style) if len(msd[d]) else "" for d in datasets])
        notes = [_escape(f"n/a, {m} on {d}: {cells[(d, m)]['note']}", style) for d, m in why_missing]
        texts[style] = _render(rows, _escape(caption, style), style, notes)
    return texts
