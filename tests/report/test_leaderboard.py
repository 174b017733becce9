"""The leaderboard from a hand-made summary and msd table, cell by cell: the best model is the
best of those that score enough pairs (the MSD's rule), an undefined CI is left out, a dataset
with one usable score has no best, and TeX and Markdown markup in names is escaped."""

from __future__ import annotations


import numpy as np
import pandas as pd

from simgold.report.leaderboard import leaderboard
from simgold.stages.msd import dataset_msd, with_msd

NAN = np.nan


def _summary() -> pd.DataFrame:
    # dataset, model, metric, value, ci_low, ci_high, n_used, n_total, oov_pairs
    rows = [
        ("rare_words", "full_100%", "spearman", 0.46, 0.42, 0.50, 2034, 2034, 0.0),
        ("rare_words", "near", "spearman", 0.41, NAN, NAN, 1900, 2034, 0.066),  # 93% of the pairs; no CI
        ("rare_words", "tiny#3", "spearman", 1.0, 1.0, 1.0, 3, 2034, 0.9985),  # the highest, on 3 pairs
        ("rare_words", "tiny#3", "pearson", 0.2, 0.1, 0.3, 3, 2034, 0.9985),  # not a headline metric
        ("ws353", "full_100%", "spearman", 0.62, -0.05, 0.69, 353, 353, 0.0),
        ("ws353", "near", "spearman", 0.70, 0.64, 0.75, 353, 353, 0.0),
        ("he-rank", "full_100%", "ag_score", 0.66, 0.58, 0.75, 112, 112, 0.0),
        ("he-rank", "near", "ag_score", 0.6, 0.2, 0.9, 5, 5, 0.0),  # 5 comparisons: no headline value
    ]
    columns = ["dataset", "model", "metric", "value", "ci_low", "ci_high", "n_used", "n_total", "oov_pairs"]
    summary = pd.DataFrame(rows, columns=columns).assign(subset="all", confidence=0.9, oov_words=0.0)
    # the msd tables: observed r_jk on rare_words, only fixed levels on ws353 (the 0.7 one is shown)
    msd = pd.DataFrame(
        [("rare_words", "fixed", 0.7, 0.040), ("rare_words", "observed", 0.8, 0.031),
         ("ws353", "fixed", 0.5, 0.070), ("ws353", "fixed", 0.7, 0.056), ("ws353", "fixed", 0.9, 0.033)],
        columns=["dataset", "r_jk_kind", "r_jk", "msd"],
    )  # fmt: skip
    return with_msd(summary, msd)


def test_every_cell_in_each_format():
    tables = leaderboard(_summary(), min_coverage=0.9)
    assert tables["tsv"].splitlines() == [
        "model\the-rank\trare_words\tws353",
        "measure (*: best of the models scoring >= 90% of pairs)\tA&G score [90% CI] (OOV pairs)"
        "\tSpearman [90% CI] (OOV pairs)\tSpearman [90% CI] (OOV pairs)",
        "full_100%\t0.660 [0.580, 0.750] (0.0%)\t0.460* [0.420, 0.500] (0.0%)\t0.620 [-0.050, 0.690] (0.0%)",
        "near\tn/a\t0.410 (6.6%)\t0.700* [0.640, 0.750] (0.0%)",
        "tiny#3\t\t1.000 [1.000, 1.000] (99.9%)\t",
        "MSD (p < 0.05)\t\t0.031\t0.056",
    ]
    md = tables["md"].splitlines()
    assert md[1].startswith("out-of-vocabulary word") and "at least 90% of its pairs" in md[1]
    assert md[4:] == [
        "| model | he-rank | rare\\_words | ws353 |",
        "|:---|---:|---:|---:|",
        "|  | A&G score \\[90% CI\\] (OOV pairs) | Spearman \\[90% CI\\] (OOV pairs) | Spearman \\[90% CI\\] (OOV pairs) |",
        "| full\\_100% | 0.660 [0.580, 0.750] (0.0%) | **0.460** [0.420, 0.500] (0.0%) | 0.620 [-0.050, 0.690] (0.0%) |",
        "| near | n/a | 0.410 (6.6%) | **0.700** [0.640, 0.750] (0.0%) |",
        "| tiny#3 |  | 1.000 [1.000, 1.000] (99.9%) |  |",
        "| MSD (p \\< 0.05) |  | 0.031 | 0.056 |",
        "",
        "- n/a, near on he-rank: A&G score on fewer than 10 comparisons (5)",  # why the cell has no value
    ]
    # LaTeX: datasets as rows, the CI on a line of its own, the MSD last; the n/a's reason in the caption
    tex = tables["tex"].splitlines()
    caption = " ".join(tex[tex.index(r"\end{tabular}") + 1 : tex.index(r"\label{tab:leaderboard}")])
    assert caption.startswith(r"\caption{The headline score of each model (column) on each dataset (row)")
    assert "90\\% bootstrap CI beneath" in caption and "at least 90\\% of its pairs" in caption
    assert caption.endswith(r"n/a, near on he-rank: A\&G score on fewer than 10 comparisons (5).}")
    assert tex[: tex.index(r"\end{tabular}") + 1] == [
        r"% simgold's leaderboard: \usepackage{booktabs} in the preamble; \input this file where it goes",
        r"\begin{table*}[tp]",
        r"\centering",
        r"\small",
        r"\begin{tabular}{llcccc}",
        r"\toprule",
        r"dataset & measure & full\_100\% & near & tiny\#3 & MSD \\",
        r"\midrule",
        r"he-rank & A\&G score & 0.660 (0.0\%) & n/a &  &  \\",
        r" &  & [0.580, 0.750] &  &  &  \\",
        r"\addlinespace",
        r"rare\_words & Spearman & \textbf{0.460} (0.0\%) & 0.410 (6.6\%) & 1.000 (99.9\%) & 0.031 \\",
        r" &  & [0.420, 0.500] &  & [1.000, 1.000] &  \\",  # near's CI is undefined
        r"\addlinespace",
        r"ws353 & Spearman & 0.620 (0.0\%) & \textbf{0.700} (0.0\%) &  & 0.056 \\",
        r" &  & [$-$0.050, 0.690] & [0.640, 0.750] &  &  \\",
        r"\bottomrule",
        r"\end{tabular}",
    ]
    assert tex[-2:] == [r"\label{tab:leaderboard}", r"\end{table*}"]


def test_the_best_model_is_the_one_that_carries_the_msd():
    summary = _summary()
    rare = summary[summary["dataset"] == "rare_words"]
    diffs = pd.DataFrame({"model_a": ["full_100%"], "model_b": ["near"], "r_ab": [0.8]})
    assert set(dataset_msd("rare_words", rare, diffs, min_coverage=0.9)["model"]) == {"full_100%"}
    # with a lower bar the 93% model still is not above the complete one; with none, 3 pairs win
    assert "1.000* [" in leaderboard(summary, min_coverage=0.0)["tsv"]
    assert "0.460* [" in leaderboard(summary, min_coverage=0.5)["tsv"]


def test_the_same_summary_gives_the_same_bytes():
    summary = _summary()
    assert leaderboard(summary, min_coverage=0.9) == leaderboard(summary.sample(frac=1, random_state=1), min_coverage=0.9)


