"""The LaTeX leaderboard set by pdflatex on an ACL page (A4, 11 pt, two 7.7 cm columns 0.6 cm apart:
a 455 pt text width): the default run's 7 datasets x 3 models fit in one float; ten models are split
into floats that each fit, as the module says; a table too wide is caught, so the check can fail.
Skipped where pdflatex is missing, unless SIMGOLD_REQUIRE_TEX=1 (tests/conftest.py)."""

from __future__ import annotations

import re
import subprocess

import numpy as np
import pandas as pd

from simgold.report.leaderboard import LABEL, leaderboard

# the ACL style's page in plain LaTeX: its \textwidth, \columnsep and \textheight, its 11 pt size;
# Computer Modern, wider than ACL's Times, so what fits here fits there
ACL_PAGE = r"""\documentclass[11pt,a4paper,twocolumn]{article}
\setlength{\textwidth}{16cm}
\setlength{\columnsep}{0.6cm}
\setlength{\columnwidth}{7.7cm}
\setlength{\textheight}{24.7cm}
\usepackage{booktabs}
\begin{document}
\typeout{TEXTWIDTH=\the\textwidth}
\input{leaderboard}
The paper's text.
\end{document}
"""

# the default run's headline scores (main's results/scores/summary.parquet): dataset, model, metric,
# value, ci_low, ci_high, n_used, n_total, oov_pairs, msd
DEFAULT_RUN = [
    ("demo-da", "e5-small", "spearman", 0.2915, -0.0532, 0.5929, 37, 37, 0.0, 0.2508),
    ("demo-de", "e5-small", "spearman", 0.3843, -0.0757, 0.7896, 24, 24, 0.0, 0.3103),
    ("demo-en-context", "e5-small", "spearman", 0.2234, -0.2191, 0.6200, 28, 28, 0.0, 0.2971),
    ("demo-en-context", "glove-6b-50d", "spearman", 0.0209, -0.4158, 0.4062, 28, 28, 0.0, 0.2971),
    ("demo-en-context", "minilm", "spearman", 0.5257, 0.1388, 0.8000, 28, 28, 0.0, 0.2971),
    ("demo-he-rank", "e5-small", "ag_score", 0.6645, 0.5779, 0.7513, 112, 112, 0.0, np.nan),
    ("demo-hr", "e5-small", "spearman", 0.2411, -0.1882, 0.5953, 29, 30, 0.0, 0.2880),
    ("simlex999", "e5-small", "spearman", 0.5135, 0.4622, 0.5636, 999, 999, 0.0, 0.0438),
    ("simlex999", "glove-6b-50d", "spearman", 0.2646, 0.2035, 0.3242, 999, 999, 0.0, 0.0438),
    ("simlex999", "minilm", "spearman", 0.4462, 0.3906, 0.5001, 999, 999, 0.0, 0.0438),
    ("ws353", "e5-small", "spearman", 0.6234, 0.5427, 0.6921, 353, 353, 0.0, 0.0563),
    ("ws353", "glove-6b-50d", "spearman", 0.5033, 0.4137, 0.5837, 353, 353, 0.0, 0.0563),
    ("ws353", "minilm", "spearman", 0.7289, 0.6699, 0.7773, 353, 353, 0.0, 0.0563),
]
# seven more models, named as such models are, scoring what e5-small scores
MORE_MODELS = ["bge-m3", "e5-large", "fasttext-cc-300", "glove-840b-300d", "gte-multilingual-base", "labse",
               "word2vec-gnews-300"]  # fmt: skip


def _summary(rows) -> pd.DataFrame:
    columns = ["dataset", "model", "metric", "value", "ci_low", "ci_high", "n_used", "n_total", "oov_pairs", "msd"]
    return pd.DataFrame(rows, columns=columns).assign(subset="all", confidence=0.95, oov_words=0.0, note="")


def _ten_models() -> pd.DataFrame:
    rows = list(DEFAULT_RUN)
    for k, model in enumerate(MORE_MODELS):
        for d, _, metric, value, low, high, n, total, _, msd in (r for r in DEFAULT_RUN if r[1] == "e5-small"):
            shift = 0.04 * (k - 3)  # from -0.12 to +0.12: some lower bounds negative
            oov = 0.125 if model == "word2vec-gnews-300" else 0.0  # the highest, missing words: never the best
            used = round(n * (1 - oov))
            rows.append((d, model, metric, value + shift, low + shift, high + shift, used, total, oov, msd))
    summary = _summary(rows)
    constant = (summary["model"] == "labse") & (summary["dataset"] == "demo-de")  # an n/a cell, with its note
    summary.loc[constant, ["value", "ci_low", "ci_high"]] = np.nan
    summary.loc[constant, "note"] = "the model's similarities are constant"
    return summary


def _set(pdflatex: str, directory, table: str) -> str:
    """pdflatex's log of the ACL page with ``table`` where the table goes."""
    (directory / "leaderboard.tex").write_text(table, encoding="utf-8")
    (directory / "paper.tex").write_text(ACL_PAGE, encoding="utf-8")
    command = [pdflatex, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "paper.tex"]
    done = subprocess.run(command, cwd=directory, capture_output=True, text=True, timeout=300)
    log = (directory / "paper.log").read_text(encoding="latin-1")
    assert done.returncode == 0, log[-3000:]
    assert "TEXTWIDTH=455.24408pt" in log  # the page is ACL's
    return log


def _too_wide(log: str) -> list[str]:
    return re.findall(r"^Overfull \\hbox.*$|^LaTeX Warning: Float too large.*$", log, re.M)


def test_the_default_runs_table_fits_an_acl_page_in_one_float(pdflatex, tmp_path):
    tex = leaderboard(_summary(DEFAULT_RUN), min_coverage=0.9)["tex"]
    lines = tex.splitlines()
    assert tex.count(r"\begin{table*}") == 1 and tex.count(r"\caption{") == 1
    assert lines[-2:] == [rf"\label{{{LABEL}}}", r"\end{table*}"] and LABEL == "tab:leaderboard"
    assert lines[lines.index(r"\toprule") + 1] == r"dataset & measure & e5-small & glove-6b-50d & minilm & MSD \\"
    at = lines.index(r"ws353 & Spearman & 0.623 (0.0\%) & 0.503 (0.0\%) & \textbf{0.729} (0.0\%) & 0.056 \\")
    assert lines[at + 1] == r" &  & [0.543, 0.692] & [0.414, 0.584] & [0.670, 0.777] &  \\"
    assert r"demo-he-rank & A\&G score & 0.664 (0.0\%) &  &  &  \\" in lines  # A&G: no MSD
    assert r"demo-da & Spearman & 0.291 (0.0\%) &  &  & 0.251 \\" in lines
    assert r" &  & [$-$0.053, 0.593] &  &  &  \\" in lines  # a minus sign, not a hyphen
    caption = tex[tex.index(r"\caption{") : tex.index(r"\label")]
    assert "95\\% bootstrap CI beneath" in caption and "at least 90\\% of its pairs" in caption
    assert _too_wide(_set(pdflatex, tmp_path, tex)) == []


def test_ten_models_are_split_into_floats_that_each_fit(pdflatex, tmp_path):
    tex = leaderboard(_ten_models(), min_coverage=0.9)["tex"]
    headers = [line for line in tex.splitlines() if line.startswith("dataset & measure & ")]
    # as few blocks of consecutive models as fit, of sizes as equal as can be: 3, 3, 2, 2
    assert headers == [
        r"dataset & measure & bge-m3 & e5-large & e5-small & MSD \\",
        r"dataset & measure & fasttext-cc-300 & glove-6b-50d & glove-840b-300d & MSD \\",
        r"dataset & measure & gte-multilingual-base & labse & MSD \\",
        r"dataset & measure & minilm & word2vec-gnews-300 & MSD \\",
    ]
    assert tex.count(r"\begin{table*}[tp]") == 4 and tex.count(r"\label{tab:leaderboard}") == 1
    for k in (2, 3, 4):
        continued = f"\\caption{{Table~\\ref{{tab:leaderboard}}, continued ({k} of 4).}}"
        assert f"{continued}\n\\label{{tab:leaderboard-{k}}}" in tex
    # the best of a dataset is the best of all ten, whichever float it is in (not the one missing
    # 12.5% of the pairs); an n/a cell says why in the caption
    assert r"ws353 & Spearman & \textbf{0.729} (0.0\%) & 0.743 (12.5\%) & 0.056 \\" in tex
    assert r"ws353 & Spearman & 0.663 (0.0\%) & 0.703 (0.0\%) & 0.056 \\" in tex
    assert r"demo-de & Spearman & \textbf{0.424} (0.0\%) & n/a & 0.310 \\" in tex
    assert "n/a, labse on demo-de: the model's similarities are constant.}" in " ".join(tex.split())
    assert _too_wide(_set(pdflatex, tmp_path, tex)) == []


def test_four_models_side_by_side_do_not_fit_so_three_is_the_most_a_float_holds(pdflatex, tmp_path, monkeypatch):
    """The split into blocks of at most three is the fewest that fit, by pdflatex's measure, not only by
    the module's estimate: the first four models of the ten, set in one float, are too wide."""
    from simgold.report import leaderboard as module

    summary = _ten_models()
    first_four = sorted(summary["model"].unique())[:4]
    monkeypatch.setattr(module, "TEXT_WIDTH_PT", 10_000.0)  # no split: the four side by side
    tex = leaderboard(summary[summary["model"].isin(first_four)], min_coverage=0.9)["tex"]
    assert tex.count(r"\begin{table*}") == 1
    assert _too_wide(_set(pdflatex, tmp_path, tex)) != []


def test_the_check_catches_a_table_too_wide(pdflatex, tmp_path):
    """A row of the table as it was (a dataset a column, the CI on the value's line): 995 pt."""
    cell = r"0.291 [$-$0.053, 0.593] (0.0\%)"
    wide = "\n".join([r"\begin{table*}[tp]", r"\centering", r"\small", r"\begin{tabular}{l" + "c" * 7 + "}",
                      " & ".join(["e5-small"] + [cell] * 7) + r" \\", r"\end{tabular}", r"\end{table*}", ""])  # fmt: skip
    assert [line.split(" in ")[0] for line in _too_wide(_set(pdflatex, tmp_path, wide))] == [
        r"Overfull \hbox (539.70287pt too wide)"
    ]
