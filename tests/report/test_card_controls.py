"""The card's lines on attention checks and anchors (simgold.report.card), from a cleaned sheet
whose counts are worked out by hand in tests/stages/test_controls.py."""

from __future__ import annotations

from simgold.io.config import resolve_dataset
from simgold.report.card import _anchors_text, _attention_text, _raters_section
from simgold.stages.clean import clean_dataset
from simgold.stages.gold import gold_from_ratings

from ..stages.test_controls import CHECKS, SHEET, _spec


def _tables(tmp_path, **keys):
    (tmp_path / "a.csv").write_text(SHEET, encoding="utf-8")
    t = clean_dataset("t", _spec(**keys), base_dir=str(tmp_path))
    gold = gold_from_ratings("t", t["items"], t["ratings"], (0, 6))
    return {"gold": gold, "clean": t["summary"], "rejects": t["rejects"]}, resolve_dataset(_spec(**keys))


def test_the_card_names_the_raters_excluded_by_the_attention_checks(tmp_path):
    tables, ds = _tables(tmp_path, attention={"items": CHECKS, "tolerance": 1})
    line = (
        "1 of 3 raters was excluded for failing attention checks (more than 0 of the 2 checks off by more than 1"
        " from the expected answer): r2; their 2 ratings are not used and they are not counted above."
    )
    assert _attention_text(tables["rejects"], ds) == line
    parts = _raters_section(tables, ds)
    assert parts[:2] == ["2 raters; each pair has 2 ratings.", line]
    tables, ds = _tables(tmp_path, attention={"items": CHECKS, "tolerance": 1, "max_failures": 1})
    assert _attention_text(tables["rejects"], ds) == (
        "No rater was excluded for failing attention checks (3 answered them; excluded: more than 1 of the 2"
        " checks off by more than 1 from the expected answer)."
    )
    tables, ds = _tables(tmp_path)
    assert _attention_text(tables["rejects"], ds) == "" and _anchors_text(ds) == ""


def test_the_card_says_whether_the_anchors_are_in_the_gold_standard():
    ds = resolve_dataset(_spec(anchors={"items": [["cat", "dog"], ["car", "bus"]]}))
    assert _anchors_text(ds) == (
        "The 2 anchor pairs, rated by every rater first, are not in the gold standard, agreement or outlier"
        " filtering; calibration is computed without them."
    )
    ds = resolve_dataset(_spec(anchors={"items": [["cat", "dog"]], "in_gold": True, "calibration": True}))
    assert _anchors_text(ds) == (
        "The 1 anchor pair, rated by every rater first, is in the gold standard, agreement and outlier"
        " filtering like every pair; calibration is computed with it."
    )
