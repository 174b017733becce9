r"""The leaderboard a paper can paste: for each model and dataset the headline score
(``headline``: Spearman's rho, or the A&G score where a dataset has only comparisons) with its CI
and the share of out-of-vocabulary pairs; the best model of each dataset marked and the dataset's
minimum significant difference beside it. The same table as TSV and Markdown (models as rows,
datasets as columns) and as a LaTeX ``table*`` float; no timestamp, so the same results give the
same bytes.

The LaTeX table fits the text width of a two-column ACL page (A4, two 7.7 cm columns 0.6 cm
apart: 455 pt) in ``\small``: a ``table*`` float (booktabs), datasets as rows and models as
columns, each cell the score with the OOV share in parentheses and its CI on a second line, the
measure and the MSD in columns of their own, the caption below (``\caption``) and
``\label{tab:leaderboard}``. Widths are estimated from Computer Modern's at 10 pt (``\small`` of an
11 pt document, ACL's size; ACL's Times is narrower), column space included. The default run's
three models fit beside its dataset names (404 pt). Where the models do not fit side by side (a
fourth would not, beside those names), they are split into as few blocks of consecutive models as
fit, of sizes as equal as can be (ten models: 3, 3, 2 and 2), one ``table*`` each, since stacked in
one float ten models' blocks are taller than a page: the first holds the caption and the label,
each other one is captioned "Table~\ref{tab:leaderboard}, continued (2 of 4)" and labelled
``tab:leaderboard-2`` and so on; each repeats the dataset, measure and MSD columns. What still
does not fit: a model name so long that its column alone is wider than the page beside the
dataset, measure and MSD columns (some 50 characters) overflows, and LaTeX reports an ``Overfull
\hbox``; rows are never split, so a run of 20 datasets or more gives a float taller than ACL's
text (24.7 cm; LaTeX warns "Float too large for page"). The floats are placed ``[tp]``: at the top
of a page, or on a page of floats.
"""

from __future__ import annotations

import textwrap

import pandas as pd

from simgold.io.labels import confidence_labels
from simgold.report.headline import headline
from simgold.stages.msd import covering_models

__all__ = ["leaderboard"]

_MEASURES = {"spearman": "Spearman", "ag_score": "A&G score"}
_MSD_LABEL = "MSD (p < 0.05)"
_MINUS = "\u2212"  # a number's minus sign, set as $-$ (a hyphen is not one)
# characters that are markup in each format, and what stands for them
_TEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
        "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}",
        _MINUS: "$-$"}  # fmt: skip
_MARKDOWN = {c: "\\" + c for c in "\\|*_`[]<>"}

#: ``\textwidth`` of a two-column ACL page, in pt: two 7.7 cm columns 0.6 cm apart (16 cm)
TEXT_WIDTH_PT = 455.24
#: the LaTeX table's ``\label``
LABEL = "tab:leaderboard"
# Computer Modern at 10 pt (\small of an 11 pt document, ACL's size): each character's width in pt
# (cmr10), measured with pdflatex; any other character counts as wide as the widest letter (W)
_WIDTHS = dict(
    zip(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
        map(
            float,
            "5 5.56 4.44 5.56 4.44 3.06 5 5.56 2.78 3.06 5.28 2.78 8.33 5.56 5 5.56 5.28 3.92 3.94 3.89 5.56 5.28 7.22 "
            "5.28 5.28 4.44 7.5 7.08 7.22 7.64 6.81 6.53 7.85 7.5 3.61 5.14 7.78 6.25 9.17 7.5 7.78 6.81 7.78 7.36 5.56 "
            "7.22 7.5 7.5 10.28 7.5 7.5 6.11".split(),
        ),
    )
)
_WIDTHS |= {c: 5.0 for c in "0123456789/*\\~^{}$"} | {c: 2.78 for c in ".,;:[]!'"} | {"(": 3.89, ")": 3.89}
_WIDTHS |= {" ": 3.33, "-": 3.33, "_": 3.6, "?": 4.72, "%": 8.33, "#": 8.33} | {c: 7.78 for c in "&<>+=@" + _MINUS}
_WIDEST = 10.28
_BOLD = 1.15  # cmbx10 against cmr10 (digits 5.75 pt, the point 3.19 pt)
_COLUMN = 12.0  # \tabcolsep, 6 pt, on either side of every column


def _escape(text: str, style: str) -> str:
    table = {"tex": _TEX, "md": _MARKDOWN}.get(style, {})
    return "".join(table.get(c, c) for c in str(text))


def _number(value: float) -> str:
    return f"{value:.3f}"


def _cell(row, best: bool, style: str) -> str:
    """``value [low, high] (OOV share)`` (TSV, Markdown); the value bold (``*`` in TSV) for the
    best model; the CI left out where it is undefined; ``n/a`` where the model has no headline
    value."""
    if pd.isna(row["value"]):
        return "n/a"
    value = _number(row["value"])
    parts = [f"**{value}**" if style == "md" and best else value + "*" if best else value]
    if pd.notna(row["ci_low"]) and pd.notna(row["ci_high"]):
        parts.append(f"[{_number(row['ci_low'])}, {_number(row['ci_high'])}]")
    if pd.notna(row["oov_pairs"]):
        parts.append(_escape(f"({row['oov_pairs']:.1%})", style))
    return " ".join(parts)


def _render(rows: list[list[str]], caption: str, style: str, notes: list[str] = ()) -> str:
    """The grid (header, measure, one row per model, MSD) as TSV or Markdown; ``notes`` (why a
    cell is n/a) under the Markdown table (TSV: none)."""
    if style == "tsv":
        return "".join("\t".join(cells) + "\n" for cells in rows)
    lines = [caption, "", "| " + " | ".join(rows[0]) + " |", "|:---" + "|---:" * (len(rows[0]) - 1) + "|"]
    lines += ["| " + " | ".join(cells) + " |" for cells in rows[1:]]
    return "\n".join(lines + ([""] + [f"- {note}" for note in notes] if notes else [])) + "\n"


# -------------------------------------------------------------------------------- the LaTeX float
# A line of a cell is a list of (text, bold) runs: set as LaTeX by _tex, measured by _width.


def _width(runs: list[tuple[str, bool]]) -> float:
    r"""The estimated width in pt of a line set in ``\small`` (``_WIDTHS``)."""
    return sum(sum(_WIDTHS.get(c, _WIDEST) for c in text) * (_BOLD if bold else 1.0) for text, bold in runs)


def _tex(runs: list[tuple[str, bool]]) -> str:
    return "".join(rf"\textbf{{{_escape(t, 'tex')}}}" if bold else _escape(t, "tex") for t, bold in runs)


def _signed(value: float) -> str:
    return _number(value).replace("-", _MINUS)


def _tex_cell(row, best: bool) -> tuple[list, list]:
    """A model's cell on a dataset, two lines: the value (bold for the best model) and the OOV
    share in parentheses, then the CI in brackets (none where it is undefined); ``n/a`` where the
    model has no headline value."""
    if pd.isna(row["value"]):
        return [("n/a", False)], []
    first = [(_signed(row["value"]), best)]
    if pd.notna(row["oov_pairs"]):
        first.append((f" ({row['oov_pairs']:.1%})", False))
    defined = pd.notna(row["ci_low"]) and pd.notna(row["ci_high"])
    return first, [(f"[{_signed(row['ci_low'])}, {_signed(row['ci_high'])}]", False)] if defined else []


def _blocks(models: list[str], widths: dict[str, float], stub: float) -> list[list[str]]:
    """The models in as few blocks of consecutive models as fit ``TEXT_WIDTH_PT`` beside the
    ``stub`` columns (widths in pt, column space included), of sizes as equal as can be; one model
    a block where even that does not fit."""
    for count in range(1, len(models) + 1):
        size, extra = divmod(len(models), count)
        bounds = [i * size + min(i, extra) for i in range(count + 1)]
        blocks = [models[a:b] for a, b in zip(bounds, bounds[1:])]
        if all(stub + sum(widths[m] for m in block) <= TEXT_WIDTH_PT for block in blocks):
            return blocks
    return [[m] for m in models]


def _tex_float(datasets: list[str], models: list[str], cells: dict, measure: dict, msd: dict, caption: str) -> str:
    """The ``table*`` floats: a row of two lines per dataset (``_tex_cell``) with its measure, a
    column per model and the MSD last. One float where the models fit the text width side by side;
    else one float per block of models (``_blocks``), the first with the caption and ``LABEL``,
    each other one continuing it. ``cells``: (dataset, model) -> its two lines; ``measure``,
    ``msd``: dataset -> text; ``caption``: LaTeX."""
    stub = [["dataset", *datasets], ["measure", *measure.values()], ["MSD", *msd.values()]]
    stub_width = sum(max(_width([(text, False)]) for text in column) + _COLUMN for column in stub)
    lines = {m: [[(m, False)]] + [line for d in datasets for line in cells.get((d, m), ())] for m in models}
    widths = {m: max(_width(line) for line in lines[m]) + _COLUMN for m in models}
    blocks = _blocks(models, widths, stub_width)
    out = [r"% simgold's leaderboard: \usepackage{booktabs} in the preamble; \input this file where it goes"]
    for number, block in enumerate(blocks, start=1):
        out += [r"\begin{table*}[tp]", r"\centering", r"\small", r"\begin{tabular}{ll" + "c" * len(block) + "c}"]
        out += [r"\toprule", " & ".join(["dataset", "measure", *(_escape(m, "tex") for m in block), "MSD"]) + r" \\"]
        out.append(r"\midrule")
        for row, d in enumerate(datasets):
            out += [r"\addlinespace"] if row else []
            row_cells = [cells.get((d, m), ([], [])) for m in block]
            first = [_escape(d, "tex"), _escape(measure[d], "tex"), *(_tex(one) for one, _ in row_cells)]
            out.append(" & ".join([*first, _escape(msd[d], "tex")]) + r" \\")
            if any(second for _, second in row_cells):  # the CIs
                out.append(" & ".join(["", "", *(_tex(second) for _, second in row_cells), ""]) + r" \\")
        out += [r"\bottomrule", r"\end{tabular}"]
        if number == 1:
            text, label = caption, LABEL
        else:  # stacked in one float, ten models' blocks would be taller than a page
            text, label = rf"Table~\ref{{{LABEL}}}, continued ({number} of {len(blocks)}).", f"{LABEL}-{number}"
        text = textwrap.fill(text, width=110, break_long_words=False, break_on_hyphens=False)
        out += [rf"\caption{{{text}}}", rf"\label{{{label}}}", r"\end{table*}"]
    return "\n".join(out) + "\n"


def leaderboard(summary: pd.DataFrame, *, min_coverage: float) -> dict[str, str]:
    """The leaderboard of a run, as TSV, Markdown and a LaTeX ``table*`` float (booktabs).

    Each cell: the headline score of a model on a dataset (``headline``), its CI at the run's
    level in brackets and the share of pairs with an out-of-vocabulary word in parentheses; empty
    where the model does not score the dataset. The best model of a dataset is bold (Markdown,
    LaTeX) or starred (TSV): the highest score among the models that score at least
    ``min_coverage`` of the dataset's pairs, the rule that picks the model carrying the dataset's
    minimum significant difference (``covering_models``), so that a model right on three pairs
    is never the best; none where one model scores the dataset. Each dataset's MSD (the
    summary's ``msd``) is the last row (TSV, Markdown) or column (LaTeX). Why a cell is n/a is
    said under the Markdown table and in the LaTeX caption. The LaTeX table has datasets as rows
    and models as columns, split into blocks where the models do not fit the width of an ACL page
    side by side (the module's docstring).

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
    measure = {d: _MEASURES[rows["metric"].iloc[0]] for d, rows in per_dataset.items()}
    msd = {d: rows["msd"].dropna() for d, rows in per_dataset.items()}
    caption = (
        f"Each model (row) on each dataset (column): Spearman's rho with the gold standard (the A&G score where a "
        f"dataset has only comparisons), its {level} bootstrap CI in brackets and the share of pairs with an\n"
        f"out-of-vocabulary word in parentheses; empty: not scored; n/a: no value, why under the table. Bold: the best of the dataset's models (two or more) "
        f"among those that score at least {min_coverage:.0%} of its pairs. MSD: the smallest Spearman difference between two\n"
        "models significant at p < 0.05 (Williams' test, Rastogi et al. 2015): a smaller gap is no evidence that "
        "one model is better."
    )
    notes = [f"n/a, {m} on {d}: {cells[(d, m)]['note']}" for d, m in why_missing]
    texts = {}  # TSV and Markdown: models as rows
    for style in ("tsv", "md"):
        corner = f"measure (*: best of the models scoring >= {min_coverage:.0%} of pairs)" if style == "tsv" else ""
        header = [f"{measure[d]} [{level} CI] (OOV pairs)" for d in datasets]
        rows = [["model", *(_escape(d, style) for d in datasets)], [corner, *(_escape(h, style) for h in header)]]
        for m in models:
            rows.append([_escape(m, style)] + [
                _cell(cells[(d, m)], m in best[d], style) if (d, m) in cells else "" for d in datasets
            ])  # fmt: skip
        rows.append([_escape(_MSD_LABEL, style)] + [_number(msd[d].iloc[0]) if len(msd[d]) else "" for d in datasets])
        texts[style] = _render(rows, _escape(caption, style), style, [_escape(note, style) for note in notes])
    tex_caption = (
        f"The headline score of each model (column) on each dataset (row): Spearman's rho with the gold standard, or "
        f"the A&G score where a dataset has only comparisons (measure); the share of pairs with an out-of-vocabulary "
        f"word in parentheses and the {level} bootstrap CI beneath, in brackets. Empty: not scored; n/a: no value. "
        f"Bold: the best of the dataset's models (two or more) among those that score at least {min_coverage:.0%} of "
        f"its pairs. MSD: the smallest Spearman difference between two models significant at p < 0.05 (Williams' test, "
        f"Rastogi et al. 2015): a smaller gap is no evidence that one model is better."
    )
    tex_caption = " ".join([tex_caption] + [f"{note}." for note in notes])
    texts["tex"] = _tex_float(
        datasets,
        models,
        {(d, m): _tex_cell(cells[(d, m)], m in best[d]) for d in datasets for m in models if (d, m) in cells},
        measure,
        {d: _signed(msd[d].iloc[0]) if len(msd[d]) else "" for d in datasets},
        _escape(tex_caption, "tex"),
    )
    return texts
