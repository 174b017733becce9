"""Rejections said aloud (issue: a run that rejects most of a file does not end "finished"):
the count of rejected values, the line that names them, max_rejected, the ledger a failed job
leaves under logs/, digits of other scripts. Counts are taken from the raw files here."""

from __future__ import annotations

import csv
import re

import pandas as pd
import pytest
import yaml

from simgold.errors import DataError
from simgold.io.ledger import rejected_examples, rejection_line
from simgold.stages.clean import check_rejected, clean_dataset, parse_value

from ..conftest import ROOT
from ..userpath import fresh_copy, snakemake

SHEET = "w1,w2,r1,r2,r3\ncat,dog,5,6,\nsea,ocean,12,7?,nan\nsun,moon,８,3,4\ncar,bus,2,,1\ncat,dog,4,4,4\n"


def _clean(tmp_path, **keys):
    (tmp_path / "d.csv").write_text(SHEET, encoding="utf-8")
    spec = {"language": "en", "kind": "ratings", "scale": [0, 6], "duplicates": "last", **keys}
    spec["sources"] = [{"path": "d.csv", "words": ["w1", "w2"], "raters": "^r"}]
    from simgold.io.config import check_dataset

    return clean_dataset("d", check_dataset("d", spec, tmp_path), base_dir=str(tmp_path))


def test_the_line_counts_values_not_blanks_headers_or_resolved_answers(tmp_path):
    summary = _clean(tmp_path)["summary"].iloc[0]
    # from SHEET: 15 rating cells; 2 blank and 1 missing marker hold no value: 12 held a value;
    # rejected: 12 (out of scale), 7? (not a number), ８ (a full-width digit); cat/dog's first
    # answers are superseded by the repeat (duplicates: last), as configured: not rejected
    assert (summary["n_values_held"], summary["n_values_rejected"]) == (12, 3)
    assert rejection_line(summary) == (
        "d: 3 of 12 value cells rejected (25.0%): non_numeric 2, out_of_scale 1"
        " - check 'missing' (the missing markers), 'decimal' and the value columns"
    )


def test_above_max_rejected_cleaning_stops_and_says_where_the_ledger_is(tmp_path):
    summary = _clean(tmp_path)["summary"].iloc[0]
    with pytest.raises(DataError, match=r"d: 3 of 12 value cells rejected \(25\.0%\).*max_rejected 20%.*logs/x\.tsv"):
        check_rejected(summary, 0.2, "logs/x.tsv")
    check_rejected(summary, 0.25, "logs/x.tsv")  # 25% is not more than 25%


def test_examples_per_reason_and_digits_of_other_scripts(tmp_path):
    rejects = _clean(tmp_path)["rejects"]
    examples = rejected_examples(rejects)
    assert examples[["reason", "count", "source_row", "column", "raw_value"]].values.tolist() == [
        ["non_numeric", 2, 3, "r2", "7?"],
        ["non_numeric", 2, 4, "r1", "８"],
        ["out_of_scale", 1, 3, "r1", "12"],
    ]
    assert "FULLWIDTH DIGIT EIGHT" in examples["detail"].iloc[1]


@pytest.mark.parametrize("text", ["８", "1٠", "٣", "१", "6.５"])
def test_only_the_digits_0_to_9_are_numbers(text):
    value, reason, detail = parse_value(text, missing=frozenset())
    assert value is None and reason == "non_numeric" and "only the digits 0-9" in detail


@pytest.mark.workflow
def test_a_wrong_scale_stops_the_run_loudly(tmp_path):
    """demo-de rated 0-10 with scale [0, 1]: the clean job fails naming the share, the reason and
    the key to check, and leaves the ledger under logs/ (Snakemake deletes a failed job's outputs)."""
    project = fresh_copy(tmp_path / "simgold")
    config = yaml.safe_load((project / "config" / "config.yaml").read_text(encoding="utf-8"))
    config["datasets"]["demo-de"]["scale"] = [0, 1]
    (project / "config" / "config.yaml").write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")
    # counted from the raw file: the ratings above 1 (decimal commas)
    with (ROOT / "raw/demo/de/bewertungen.csv").open(encoding="cp1252", newline="") as f:
        scores = [row["Bewertung"].strip() for row in csv.DictReader(f, delimiter=";")]
    held = [s for s in scores if s not in ("", "nan", "NA", "-")]  # the default missing markers hold no value
    above = sum(float(s.replace(",", ".")) > 1 for s in held)
    proc = snakemake(project, "--cores", "1", "results/clean/demo-de/summary.parquet", check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert re.search(
        rf"demo-de: [\d,]+ of {len(held):,} value cells rejected \(\d+\.\d%\): out_of_scale {above:,}", out
    )
    assert "check 'scale'" in out and "max_rejected 20%" in out, out[-3000:]
    assert "logs/clean/demo-de.rejects.tsv" in out
    ledger = pd.read_csv(project / "logs/clean/demo-de.rejects.tsv", sep="\t", keep_default_na=False)
    assert (ledger["reason"] == "out_of_scale").sum() == above
    assert not (project / "results/clean/demo-de/summary.parquet").exists()


def test_the_dataset_page_shows_rejected_values_by_reason_and_counts_the_rest_apart(tmp_path):
    from simgold.report.pages import _ledger_section

    tables = _clean(tmp_path)
    html = _ledger_section(tables["summary"].iloc[0], tables["rejects"])
    assert "Rejected values: d: 3 of 12 value cells rejected (25.0%)" in html
    assert "<td>7?</td>" in html and "<td>８</td>" in html and "<td>12</td>" in html
    # SHEET's blanks and missing marker (3), cat/dog's superseded answers (2), the header (5)
    assert "3 blank or missing; 2 resolved by the duplicates rule; 5 header, title or comment cells" in html


def test_a_dataset_no_model_scores_is_named():
    from simgold.workflow.routing import Stages, finished_message, unscored_warning

    routing = Stages(
        datasets=["ja-noun", "ws353"], models=["glove"], cleaned=["ja-noun", "ws353"], compared=[], rated=[],
        ranked=[], bws=[], context=[], translated=[], groups={}, model_datasets={"glove": ["ws353"]},
        scored=[("ws353", "glove")], scored_by={"ws353": ["glove"]}, gold_scored={"ja-noun", "ws353"},
        cosimlex=[], noised=[], released=["ja-noun", "ws353"], in_context=[], kinds={"ja-noun": "means", "ws353": "means"},
    )  # fmt: skip
    warning = unscored_warning(routing, {"ja-noun": "ja", "ws353": "en"})
    assert warning == (
        "simgold: ja-noun is not scored: no configured model covers its language ('ja');"
        " add one under models (with that language) to score it\n"
    )
    assert "not scored (no model covers their language): ja-noun" in finished_message(routing)


def test_the_scores_figure_draws_the_human_ceiling_on_the_spearman_panel_only(monkeypatch, tmp_path):
    """A&G beside Spearman under a ceiling that only applies to Spearman made A&G look better
    than the raters: each metric has its own panel and axis."""
    from simgold.report import figures as figures_module

    drawn = []
    monkeypatch.setattr(figures_module, "_save", lambda fig, path: drawn.append(fig))
    scores = pd.DataFrame({
        "subset": "all", "metric": ["spearman", "ag_score", "human_ceiling"], "model": ["m", "m", "m"],
        "value": [0.27, 0.634, 0.616], "ci_low": [0.2, 0.6, float("nan")], "ci_high": [0.34, 0.67, float("nan")],
        "n_used": [958, 5628, 958],
    })  # fmt: skip
    figures_module._scores_figure(scores, tmp_path / "s.png", "ja: model scores")
    spearman, ag = drawn[0].axes
    assert "Spearman" in spearman.get_ylabel() and "A&G" in ag.get_ylabel()
    assert [line.get_label() for line in spearman.get_lines() if line.get_linestyle() == "--"] == [
        "human ceiling 0.616"
    ]
    assert not [line for line in ag.get_lines() if line.get_linestyle() == "--"] and ag.get_ylim() == (0.0, 1.0)


def test_the_dataset_page_counts_the_words_the_normalisation_changed(tmp_path):
    """SHEET with a no-break space in sun and a tab in moon: 2 word cells changed (counted from the
    sheet written here), in the summary and on the page."""
    from simgold.report.pages import _ledger_section

    (tmp_path / "d.csv").write_text(SHEET.replace("sun,moon", 'sun\u00a0,"mo\ton"'), encoding="utf-8")
    spec = {"language": "en", "kind": "ratings", "scale": [0, 6], "duplicates": "last"}
    spec["sources"] = [{"path": "d.csv", "words": ["w1", "w2"], "raters": "^r"}]
    tables = clean_dataset("d", spec, base_dir=str(tmp_path))
    summary = tables["summary"].iloc[0]
    assert summary["n_words_normalised"] == 2 and "sun" in tables["items"]["word1"].tolist()
    assert "mo on" in tables["items"]["word2"].tolist()
    html = _ledger_section(summary, tables["rejects"])
    assert " 2 word cell(s) normalised (Unicode form, invisible characters removed" in html
