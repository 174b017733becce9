"""The report's tables of docs/methods.md section 11: each view holds the numbers of the table it
shows (counted here from that table), and the pages carry them with their captions."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from simgold.io.tables import AUDIT_CHECKS
from simgold.report.headline import headline, wide_table
from simgold.report.pages import _agreement_ci_view, _audit_overview, dataset_page, reliability_view


def _ci_table() -> pd.DataFrame:
    rows = []
    for stage in ("raw", "filtered"):
        for statistic, value in (("pairwise", 0.6), ("alpha_interval", 0.5)):
            for scheme, width, used, note in (("items", 0.05, 1000, ""), ("raters", 0.1, 75, "75 of 1000 resamples")):
                rows.append(("d", stage, "all", statistic, scheme, value, value - width, value + width, 0.95, used, 0, note))
    columns = ["dataset", "stage", "subset", "statistic", "scheme", "value", "ci_low", "ci_high", "confidence",
               "resamples", "n_undefined", "note"]  # fmt: skip
    return pd.DataFrame(rows, columns=columns)


def test_agreement_ci_view_puts_both_schemes_on_one_row():
    table = _ci_table()
    view = _agreement_ci_view(table)
    assert len(view) == len(table) // 2
    first = view.iloc[0]
    assert (first["stage"], first["statistic"], first["value"]) == ("raw", "pairwise", 0.6)
    assert first["CI, items resampled"] == "[0.550, 0.650]" and first["CI, raters resampled"] == "[0.500, 0.700]"
    assert (first["resamples (items)"], first["resamples (raters)"]) == (1000, 75)
    assert first["note"] == "raters: 75 of 1000 resamples"


def test_reliability_view_gives_the_raters_needed_with_their_range():
    summary = pd.DataFrame([{
        "dataset": "d", "stage": "raw", "observed_raters": 12.0, "n_splits": 200, "r_half": 0.9, "r_full": 0.95,
        "r_full_low": 0.93, "r_full_high": 0.97, "r1": 0.6, "m_0.8": 3.0, "m_0.8_low": 2.0, "m_0.8_high": 4.0,
        "m_0.9": np.nan, "m_0.9_low": 5.0, "m_0.9_high": np.nan,
    }])  # fmt: skip
    row = reliability_view(summary).iloc[0]
    assert row["raters for 0.8"] == "3 (2-4)" and row["raters for 0.9"] == "not reached"
    assert row["R_full 95%"] == "[0.930, 0.970]"


def test_audit_overview_counts_every_check_of_every_dataset():
    found = pd.DataFrame({"dataset": "a", "check": ["reversed_pair", "duplicate_pair", "reversed_pair"]})
    from simgold.report.pages import AUDIT_CHECK_TEXT

    table = _audit_overview({"a": found, "clean": found.iloc[:0]}).set_index("dataset")
    assert list(table.columns) == [AUDIT_CHECK_TEXT[c][0] for c in AUDIT_CHECKS]  # as a reader names them
    assert table.loc["a"].to_dict() == {AUDIT_CHECK_TEXT[c][0]: int((found["check"] == c).sum()) for c in AUDIT_CHECKS}
    assert table.loc["clean"].sum() == 0
    assert set(AUDIT_CHECK_TEXT) == set(AUDIT_CHECKS)  # every check named and explained


def test_wide_table_and_page_carry_the_minimum_significant_difference():
    summary = pd.DataFrame({
        "dataset": ["ws", "ws", "ws"], "model": ["a", "b", "a"], "metric": ["spearman", "spearman", "pearson"],
        "subset": "all", "value": [0.6, 0.5, 0.7], "ci_low": 0.4, "ci_high": 0.8, "n_used": 353, "n_total": 353,
        "oov_pairs": 0.0, "oov_words": 0.0, "human_ceiling": np.nan, "msd": [0.06, 0.06, np.nan],
        "msd_r_jk": [0.8, 0.8, np.nan],
    })  # fmt: skip
    wide = wide_table(headline(summary))
    assert wide.columns.tolist() == ["dataset", "metric", "msd", "a", "b"] and wide["msd"].tolist() == [0.06]
    msd = pd.DataFrame({"dataset": "ws", "n": 353, "r_best": 0.6, "r_jk": [0.7, 0.8], "r_jk_kind": ["fixed", "observed"],
                        "alpha": 0.05, "msd": [0.05, 0.06]})  # fmt: skip
    scores = summary.drop(columns=["msd", "msd_r_jk"])
    page = dataset_page("ws", clean=None, agreement=None, scores=scores, context=None, figures=[], statistics={"msd": msd})
    assert "<th>msd</th>" in page and "<td>0.060</td>" in page and "Minimum significant difference" in page


def test_a_pages_figures_are_drawn_in_one_call_as_each_function_draws_them(tmp_path):
    """draw_dataset_figures (the report job's one call) gives each figure the bytes its own function
    gives with the same title, chooses the function by the file's name, and refuses a name it does
    not know, naming the file."""
    import pytest

    from simgold.report.figures import _context_figure, draw_dataset_figures, _noise_figure, _scores_figure

    scores = pd.DataFrame(
        {
            "subset": "all",
            "metric": ["spearman", "spearman", "human_ceiling"],
            "model": ["a", "b", "a"],
            "value": [0.61, 0.48, 0.8],
            "ci_low": [0.52, 0.37, np.nan],
            "ci_high": [0.69, 0.58, np.nan],
            "n_used": [353, 353, 353],
        }
    )
    levels = np.round(np.arange(0, 1.2, 0.2), 10)
    noise = pd.DataFrame({"model": "a", "level": levels, "noise": levels, "mean": 0.6 - 0.1 * levels})
    noise = noise.assign(trend_spearman=-0.9)
    noise = noise.assign(p2_5=noise["mean"] - 0.05, p97_5=noise["mean"] + 0.05, monotonic_share=0.85, m=20)
    tests = pd.DataFrame(
        {"word1": ["cat", "bank"], "word2": ["dog", "river"], "mean1": [4.0, 1.5], "mean2": [3.5, 4.5], "q": [0.2, 0.01]}
    )
    figures = [(str(tmp_path / "page" / f"{name}.png"), "caption") for name in ("scores", "noise", "context")]
    draw_dataset_figures("ws", figures, {"scores": scores, "noise": [noise], "context": tests})
    _scores_figure(scores, tmp_path / "scores.png", "ws: model scores")
    _noise_figure([noise], tmp_path / "noise.png", "ws: noise sanity check")
    _context_figure(tests, tmp_path / "context.png", "ws: context effects")
    for name in ("scores", "noise", "context"):
        assert (tmp_path / "page" / f"{name}.png").read_bytes() == (tmp_path / f"{name}.png").read_bytes(), name
    with pytest.raises(ValueError, match="curve.png: no figure of that name"):
        draw_dataset_figures("ws", [(str(tmp_path / "curve.png"), "")], {})


def test_the_committed_figures_rst_is_the_one_the_registry_writes():
    """workflow/report/figures.rst (the captions of `snakemake --report`) is generated from
    simgold.report.figures.FIGURES: editing either alone fails here. To update it: `python -m
    simgold.report.figures` from the project's root."""
    from simgold.report.figures import FIGURES, figures_rst

    from ..conftest import ROOT

    committed = (ROOT / "workflow" / "report" / "figures.rst").read_text(encoding="utf-8")
    assert committed == figures_rst(), "run `python -m simgold.report.figures` to rewrite workflow/report/figures.rst"
    # one branch per figure, in page order, each naming the dataset
    assert re.findall(r'snakemake\.wildcards\.figure == "(\w+)"', committed) == list(FIGURES)
    assert committed.count("{{ snakemake.wildcards.dataset }}") == len(FIGURES)


def test_pages_and_the_routing_need_no_matplotlib():
    """matplotlib loads only when a figure is drawn: building a page, listing its figures (the
    workflow's routing, read when Snakemake parses the workflow) and writing figures.rst do not."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from simgold.report.figures import figures_rst\n"
        "from simgold.report.pages import dataset_page\n"
        "from simgold.workflow.routing import report_figures\n"
        "figures_rst(); dataset_page('ws', clean=None, agreement=None, scores=None, context=None, figures=[])\n"
        "assert 'matplotlib' not in sys.modules, sorted(m for m in sys.modules if m.startswith('matplotlib'))\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_noise_axis_says_when_levels_are_in_units_of_the_element_sd():
    """noise.relative: the table's noise column is the level times the model's element SD, and the
    figure's x axis says so; with absolute levels (noise = level) it says U(-n, n)."""
    from simgold.report.figures import _noise_axis_label

    levels = np.round(np.arange(0, 3.2, 0.2), 10)
    absolute = pd.DataFrame({"level": levels, "noise": levels})
    relative = pd.DataFrame({"level": levels, "noise": levels * 0.051})  # a 384-d model's element SD
    assert _noise_axis_label([absolute]) == "noise level n (U(-n, n) added to every vector element)"
    assert "in units of each model's element SD" in _noise_axis_label([relative])
    assert "in units of each model's element SD" in _noise_axis_label([relative.assign(noise=levels * 0.74), relative])


def test_the_page_shows_the_context_tests_columns_it_names():
    """The context stage's table (its canonical schema) holds more than a reader needs: the dataset,
    the pair's id and item ids, whether p was recomputed; the page shows the pair, both contexts'
    counts, means and SDs, and the test."""
    from simgold.io.tables import TABLES
    from simgold.report.pages import CONTEXT_COLUMNS

    row = {"dataset": "ctx", "pair_id": "pair-7", "word1": "bank", "word2": "river", "item1": "item-13",
           "item2": "item-14", "n1": 10, "n2": 11, "mean1": 1.5, "mean2": 4.5, "sd1": 0.5, "sd2": 0.7,
           "statistic": 3.0, "p": 0.001, "q": 0.002, "test": "mannwhitneyu", "recomputed": True,
           "note": "shipped"}  # fmt: skip
    assert list(row) == list(TABLES["context_tests"].names)
    page = dataset_page("ctx", clean=None, agreement=None, scores=None, context=pd.DataFrame([row]), figures=[])
    headers = re.findall(r"<th>([^<]*)</th>", page.split("Context effects")[1])
    assert headers == CONTEXT_COLUMNS == ["word1", "word2", "n1", "n2", "mean1", "mean2", "sd1", "sd2", "statistic",
                                          "p", "q", "test"]  # fmt: skip
    assert not re.search("pair-7|item-13|shipped", page) and "<td>river</td>" in page


def test_page_details_a_reader_sees():
    """Whole numbers as whole numbers, the caption above its table (not squeezed to its width), the
    page's language from the dataset's, one audit row per item, and a footer that says what made it."""
    from simgold.report.pages import _audit_sections, _html_table, run_footer

    table = _html_table(pd.DataFrame({"source_row": [9.0, np.nan], "alpha": [1.0, 0.5], "r": [1.0, 0.0]}), "cap")
    assert table.startswith('<p class="caption">cap</p><table') and "<td>9</td>" in table
    assert "<td>1.000</td>" in table and "<td>0.000</td>" in table  # statistics keep their decimals
    clean = pd.DataFrame({"dataset": ["ja"], "language": ["ja"], "n_items": [1]})
    footer = run_footer({"archive": {"name": "s", "date": "2026-01-02"}}, "9.9")
    page = dataset_page("ja", clean=clean, agreement=None, scores=None, context=None, figures=[], footer=footer)
    assert page.startswith('<!DOCTYPE html><html lang="ja">') and "run s of 2026-01-02, config sha256" in page
    audit = pd.DataFrame({
        "dataset": "d", "check": ["duplicate_pair"] * 3 + ["rater_mean"] * 2, "item_id": ["d:1"] * 3 + [None, None],
        "rater": [None, None, None, "r1", "r2"], "source_file": "f", "source_row": [2.0, 2.0, 2.0, np.nan, np.nan],
        "column": "c", "raw_value": "5", "detail": "",
    })  # fmt: skip
    rows = _audit_sections(audit)[1]
    assert rows.count("<td>pair listed twice</td>") == 1 and "<td>3</td>" in rows  # one row, its 3 cells
    assert rows.count("<td>rater&#x27;s mean far off</td>") == 2  # each rater's finding its own row


def test_rater_bars_start_at_zero():
    """Bars from 0.87 would make small differences look large: a bar's length is its value."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from simgold.report.figures import _rater_bars

    stage = pd.DataFrame({"rater": ["a", "b"], "avg_pairwise": [0.88, 0.93], "vs_mean": [0.9, 0.95],
                          "vs_rest": [0.87, 0.92], "excluded": [False, False]})  # fmt: skip
    agreement = pd.DataFrame({"stage": ["calibrated"], "subset": ["all"], "pairwise": [0.9], "vs_mean": [0.92]})
    fig, ax = plt.subplots()
    _rater_bars(ax, stage, agreement, None)
    assert ax.get_ylim()[0] == 0.0
    plt.close(fig)


def test_the_front_page_links_the_dataset_pages_before_the_tables():
    from simgold.report.pages import index_page

    clean = pd.DataFrame({"dataset": ["d"], "language": ["en"], "kind": ["ratings"], "n_items": [3], "n_raters": [2],
                          "n_ratings": [6], "n_rejects": [0], "ledger_balanced": [True]})  # fmt: skip
    agreement = pd.DataFrame({"dataset": ["d"], "raters": [2], "excluded": [0], "items": [3]})
    page = index_page(["d"], pd.DataFrame(columns=["subset", "metric", "n_used"]), clean, None, agreement)
    assert page.index('href="d/index.html"') < page.index("Agreement of the raters") < page.index("Datasets after")


def test_no_placeholder_panel_where_a_dataset_has_no_sds(monkeypatch, tmp_path):
    from simgold.report import figures as figures_module

    drawn = []
    monkeypatch.setattr(figures_module, "_save", lambda fig, path: drawn.append(fig))
    distribution = pd.DataFrame({"bin_low": [0.0, 1.0], "bin_high": [1.0, 2.0], "n_items": [3, 4],
                                 "mean_of_means": [0.5, 1.5], "mean_sd": [np.nan, np.nan], "mean_rsd": np.nan})  # fmt: skip
    figures_module._distribution_figure(pd.DataFrame(), distribution, tmp_path / "d.png", "means only")
    figures_module._distribution_figure(pd.DataFrame(), distribution.assign(mean_sd=[0.4, 0.5], mean_rsd=[80.0, 30.0]),
                                       tmp_path / "e.png", "with SDs")  # fmt: skip
    assert len(drawn[0].axes) == 1 and len(drawn[1].axes) == 3  # with SDs: the SD panel and its RSD twin
    assert not any(t.get_text() for ax in drawn[0].axes for t in ax.texts)  # no "no SDs" text panel


# -------------------------------------------------------------------------------- degenerate data


def test_a_score_without_a_value_keeps_its_note_on_the_front_page_and_the_dataset_page():
    from simgold.report.pages import _headline_matrix

    why = "the gold standard gives every item the same score (3): no correlation"
    summary = pd.DataFrame({
        "dataset": ["flat", "ws"], "model": "a", "metric": "spearman", "subset": "all", "value": [np.nan, 0.6],
        "ci_low": [np.nan, 0.5], "ci_high": [np.nan, 0.7], "confidence": 0.95, "n_used": 12, "n_total": 12,
        "oov_pairs": 0.0, "oov_words": 0.0, "note": [why, ""],
    })  # fmt: skip
    head = headline(summary).set_index("dataset")
    assert head.loc["flat", "note"] == why and head.loc["ws", "note"] == ""
    assert f'<td class="flag">{why}</td>' in _headline_matrix(headline(summary))
    page = dataset_page("flat", clean=None, agreement=None, scores=summary[summary["dataset"] == "flat"], context=None,
                        figures=[])  # fmt: skip
    assert f"<td>{why}</td>" in page and "note: why a value is missing" in page


def test_the_ci_view_says_once_why_a_statistic_has_no_value():
    why = "no value: every rating is 3: constant scores have no ranks to correlate"
    ci = pd.DataFrame({
        "stage": "raw", "subset": "all", "statistic": "pairwise", "scheme": ["items", "raters", "both"],
        "value": np.nan, "ci_low": np.nan, "ci_high": np.nan, "confidence": 0.95, "resamples": 1000,
        "note": [f"{why}; 1000 of 1000 resamples without a value", why, f"{why}; 12 of 1000 resamples without a value"],
    })  # fmt: skip
    assert _agreement_ci_view(ci)["note"].iloc[0] == (
        f"{why} (items: 1000 of 1000 resamples without a value; both: 12 of 1000 resamples without a value)"
    )
    # reasons that differ by scheme are each named, as before
    assert _agreement_ci_view(ci.assign(note=["a", "", "b"]))["note"].iloc[0] == "items: a; both: b"


def test_the_overview_and_the_raters_needed_say_why_they_are_empty():
    from simgold.report.headline import agreement_overview

    why = "pairwise, vs_mean, vs_rest: 1 rater: agreement between raters is not defined"
    agreement = pd.DataFrame({"dataset": "one", "stage": ["raw", "calibrated", "filtered"], "subset": "all",
                              "n_raters": 1, "n_items": 12, "pairwise": np.nan, "vs_rest": np.nan,
                              "alpha_interval": np.nan, "note": why})  # fmt: skip
    overview = agreement_overview([agreement], [])
    assert overview.columns[-1] == "note" and overview["note"].tolist() == [why]
    assert "note" not in agreement_overview([agreement.assign(note="")], []).columns  # nothing to say: no column
    summary = pd.DataFrame([{"dataset": "one", "stage": "raw", "observed_raters": 1.0, "n_splits": 200, "r_half": np.nan,
                             "r_full": np.nan, "r_full_low": np.nan, "r_full_high": np.nan, "r1": np.nan,
                             "m_0.8": np.nan, "m_0.8_low": np.nan, "m_0.8_high": np.nan, "m_0.9": np.nan,
                             "m_0.9_low": np.nan, "m_0.9_high": np.nan, "note": "1 rater: no two halves to correlate"}])  # fmt: skip
    assert reliability_view(summary)["note"].tolist() == ["1 rater: no two halves to correlate"]


def test_figures_without_values_say_why_in_place_of_an_empty_plot(monkeypatch, tmp_path):
    """A bar of height 0 read as a score of 0, an empty noise plot as a hidden curve, and a legend
    said "mean pairwise nan": each figure now writes the reason where the plot would be."""
    import warnings

    from simgold.report import figures as figures_module

    drawn = []
    monkeypatch.setattr(figures_module, "_save", lambda fig, path: drawn.append(fig))
    why = "the gold standard gives every item the same score (3): no correlation"
    scores = pd.DataFrame({"subset": "all", "metric": "spearman", "model": ["a", "b"], "value": np.nan,
                           "ci_low": np.nan, "ci_high": np.nan, "n_used": 12, "note": why})  # fmt: skip
    levels = np.round(np.arange(0, 1.2, 0.2), 10)
    noise = pd.DataFrame({"model": "a", "level": levels, "noise": levels, "mean": np.nan, "p2_5": np.nan,
                          "p97_5": np.nan, "trend_spearman": np.nan, "monotonic_share": np.nan, "m": 2,
                          "note": f"no Spearman at any level: {why}"})  # fmt: skip
    summary = pd.DataFrame([{"note": "1 rater: no two halves to correlate"}])
    curve = pd.DataFrame({"m": [1, 2], "reliability": np.nan, "low": np.nan, "high": np.nan})
    stage = pd.DataFrame({"stage": "calibrated", "rater": ["r1", "r2"], "avg_pairwise": np.nan, "vs_mean": [0.5, 0.7],
                          "vs_rest": np.nan, "excluded": False})  # fmt: skip
    agreement = pd.DataFrame({"stage": ["calibrated"], "subset": ["all"], "pairwise": [np.nan], "vs_mean": [0.6],
                              "note": ["pairwise: no two raters share 5 items or more (min_overlap)"]})  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        figures_module._scores_figure(scores, tmp_path / "s.png", "flat: model scores")
        figures_module._noise_figure([noise], tmp_path / "n.png", "flat: noise")
        figures_module._reliability_figure(summary, curve, tmp_path / "r.png", "one: reliability")
        figures_module._rater_agreement_figure(stage, agreement, tmp_path / "a.png", "apart: raters")

    def texts(fig) -> str:
        return "\n".join(t.get_text() for ax in fig.axes for t in ax.texts)

    assert texts(drawn[0]) == f"No model has a value for Spearman's rho.\n{why}"
    assert "No noise curve." in texts(drawn[1]) and "no Spearman at any level" in texts(drawn[1])
    assert texts(drawn[2]) == "The reliability cannot be projected.\n1 rater: no two halves to correlate"
    labels = drawn[3].axes[0].get_legend_handles_labels()[1]
    assert "mean with the item means 0.600" in labels and not any("nan" in label for label in labels)
