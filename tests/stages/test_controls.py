"""Attention checks and anchors through cleaning, calibration, agreement and the gold standard
(simgold.stages.controls), every count worked out by hand from the sheets below."""

from __future__ import annotations

import logging

import pandas as pd

from simgold.stages.agreement import agreement_report
from simgold.stages.calibrate import calibrate
from simgold.stages.clean import clean_dataset
from simgold.stages.controls import (
    attention_counts,
    calibration_exclusions,
    excluded_by_attention,
    scored,
    with_attention,
)
from simgold.stages.gold import gold_from_ratings

# three raters, three pairs, two checks: "sun / sun" expects 6 and "please answer / zero" expects 0,
# tolerance 1. r1 answers 6 and 1 (both within 1), r2 answers 3 (off by 3: failed) and 0, r3 answers
# 5 (off by 1: passes) and leaves the second blank (missing, not a failure).
SHEET = "w1,w2,r1,r2,r3\nsun,sun,6,3,5\ncat,dog,4,5,3\ncar,bus,2,,1\nplease answer,zero,1,0,\nmoon,star,5,4,6\n"
CHECKS = [{"words": ["sun", "sun"], "expect": 6}, {"words": ["Please answer", "zero"], "expect": 0}]


def _spec(**keys):
    source = {"path": "a.csv", "words": ["w1", "w2"], "raters": "^r"}
    return {"language": "en", "kind": "ratings", "scale": [0, 6], "casefold": True, "sources": [source], **keys}


def _clean(tmp_path, sheet=SHEET, **keys):
    (tmp_path / "a.csv").write_text(sheet, encoding="utf-8")
    return clean_dataset("t", _spec(**keys), base_dir=str(tmp_path))


def test_attention_checks_exclude_the_failing_rater_and_the_ledger_balances(tmp_path):
    t = _clean(tmp_path, attention={"items": CHECKS, "tolerance": 1, "max_failures": 0})
    # the checks are not items: three pairs; r2 failed one check, more than 0: excluded
    assert t["items"][["item_id", "word1", "word2"]].values.tolist() == [
        ["t:000001", "cat", "dog"],
        ["t:000002", "car", "bus"],
        ["t:000003", "moon", "star"],
    ]
    assert t["ratings"][["item_id", "rater", "score"]].values.tolist() == [
        ["t:000001", "r1", 4.0],
        ["t:000001", "r3", 3.0],
        ["t:000002", "r1", 2.0],
        ["t:000002", "r3", 1.0],
        ["t:000003", "r1", 5.0],
        ["t:000003", "r3", 6.0],
    ]
    ledger = t["rejects"][t["rejects"]["reason"] != "ignored_row"]
    assert ledger[["source_row", "column", "raw_value", "reason"]].values.tolist() == [
        [2, "r1", "6", "attention_check"],
        [2, "r2", "3", "attention_check"],
        [2, "r3", "5", "attention_check"],
        [3, "r2", "5", "attention_failed"],
        [4, "r2", "", "missing"],
        [5, "r1", "1", "attention_check"],
        [5, "r2", "0", "attention_check"],
        [5, "r3", "", "missing"],
        [6, "r2", "4", "attention_failed"],
    ]
    assert ledger["detail"].iloc[1] == "rater 'r2': sun / sun expects 6 (tolerance 1), answered 3: failed"
    assert ledger["detail"].iloc[2] == "rater 'r3': sun / sun expects 6 (tolerance 1), answered 5: passed"
    assert ledger["detail"].iloc[3] == (
        "rater 'r2' failed 1 of 2 attention checks answered, more than max_failures 0 (tolerance 1)"
    )
    s = t["summary"].iloc[0]
    # 5 header cells + 25 cells - 2 blanks; 6 ratings + 12 ledger rows with a value + 10 word cells
    assert (s["raw_cells"], s["label_cells"], s["n_ratings"], s["n_raters"]) == (28, 10, 6, 2)
    assert bool(s["ledger_balanced"])
    assert (s["rejects_attention_check"], s["rejects_attention_failed"], s["rejects_missing"]) == (5, 2, 2)
    # 13 value cells held a value; the checks' answers are not rejections, the excluded rater's 2 ratings are
    # the excluded rater's answers are set aside, not rejected values (max_rejected does not count them)
    assert (s["n_values_held"], s["n_values_rejected"], s["values_rejected"]) == (13, 0, "")
    assert attention_counts(t["rejects"]).values.tolist() == [["r1", 2, 0], ["r2", 2, 1], ["r3", 1, 0]]
    assert excluded_by_attention(t["rejects"], {"max_failures": 0}) == (["r2"], 3)


def test_a_rater_within_max_failures_stays_and_without_the_key_nothing_changes(tmp_path):
    t = _clean(tmp_path, attention={"items": CHECKS, "tolerance": 1, "max_failures": 1})
    assert sorted(set(t["ratings"]["rater"])) == ["r1", "r2", "r3"] and len(t["ratings"]) == 8
    assert (t["rejects"]["reason"] == "attention_failed").sum() == 0
    assert t["summary"]["n_values_rejected"].iloc[0] == 0  # max_rejected sees nothing rejected
    # tolerance 0: r3's 5 fails too (and r1's 1): r1, r2 and r3 each fail one
    t = _clean(tmp_path, attention={"items": CHECKS, "tolerance": 0, "max_failures": 0})
    assert t["ratings"].empty
    plain = _clean(tmp_path)  # the checks are ordinary pairs; no attention columns in the summary
    assert len(plain["items"]) == 5 and len(plain["ratings"]) == 13
    assert not any(c.startswith("rejects_attention") for c in plain["summary"].columns)
    assert "anchor" not in plain["items"].columns


def test_control_pairs_in_no_source_are_warnings(tmp_path, caplog):
    checks = [*CHECKS, {"words": ["x", "y"], "expect": 3}]
    with caplog.at_level(logging.WARNING, logger="simgold.stages.clean"):
        _clean(tmp_path, attention={"items": checks}, anchors={"items": [["dog", "cat"], ["no", "where"]]})
    warned = [r.getMessage() for r in caplog.records]
    assert warned == [
        "the attention check x / y (attention.items[2]) is in no source of the dataset",
        "the anchor no / where (anchors.items[1]) is in no source of the dataset",
    ]


# anchors: r1, r2 and r3 rate the anchor A (cat/dog) first, then x (car/bus) and y (moon/star).
# Without A the means are 5, 3 and 4, the dataset's 4: |d| = 1 is not above threshold 1, no shift.
# With A (6, 0, 3) they are 16/3, 2 and 11/3, the dataset's 33/9 = 11/3: r1 is 5/3 above and moves
# down 1, r2 5/3 below and moves up 1 (its 0 and r1's 6 are at the scale's ends and stay).
ANCHORED = "w1,w2,r1,r2,r3\ncat,dog,6,0,3\ncar,bus,5,3,4\nmoon,star,5,3,4\n"


def test_calibration_leaves_the_anchors_out_unless_told(tmp_path):
    t = _clean(tmp_path, ANCHORED, anchors={"items": [["Dog", "cat"]]})
    items, ratings = t["items"], t["ratings"]
    assert items["anchor"].tolist() == [True, False, False]
    without = calibration_exclusions(items, {"calibration": False, "in_gold": False})
    assert without == {"t:000001"}
    out, table = calibrate(ratings, (0, 6), "shift", threshold=1.0, step=1.0, without=without)
    assert table["calib_diff"].tolist() == [1.0, -1.0, 0.0] and table["calib_shift"].tolist() == [0.0, 0.0, 0.0]
    assert table["n_items"].tolist() == [2, 2, 2] and table["mean_score"].tolist() == [5.0, 3.0, 4.0]
    assert out["score"].tolist() == out["raw_score"].tolist()
    assert calibration_exclusions(items, {"calibration": True, "in_gold": False}) == set()
    out, table = calibrate(ratings, (0, 6), "shift", threshold=1.0, step=1.0)  # anchors.calibration: true
    assert table["calib_shift"].tolist() == [-1.0, 1.0, 0.0]
    moved = out.set_index(["rater", "item_id"])["score"]
    assert [moved["r1", i] for i in ("t:000001", "t:000002", "t:000003")] == [6.0, 4.0, 4.0]
    assert [moved["r2", i] for i in ("t:000001", "t:000002", "t:000003")] == [0.0, 4.0, 4.0]


def test_anchors_are_not_in_agreement_or_the_gold_unless_in_gold(tmp_path):
    t = _clean(tmp_path, ANCHORED, anchors={"items": [["cat", "dog"]]})
    items, ratings = t["items"], t["ratings"]
    kept, raw = scored({"in_gold": False, "calibration": False}, items, ratings)
    assert kept["item_id"].tolist() == ["t:000002", "t:000003"] and len(raw) == 6
    assert "anchor" not in kept.columns and "anchor" in items.columns
    gold = gold_from_ratings("t", kept, raw, (0, 6))
    assert gold[["item_id", "n", "mean"]].values.tolist() == [["t:000002", 3, 4.0], ["t:000003", 3, 4.0]]
    _, table = calibrate(raw, (0, 6), "none", 1.0, 1.0)
    report = agreement_report("t", kept, raw, raw.assign(raw_score=raw["score"]), table, min_overlap=2)
    assert report["raters"].query("stage == 'raw'")["n_items"].tolist() == [2, 2, 2]
    assert report["raters"]["attention_checks"].isna().all()  # no attention key: null
    kept, raw = scored({"in_gold": True, "calibration": False}, items, ratings)
    assert kept is items and raw is ratings
    gold = gold_from_ratings("t", kept, raw, (0, 6))
    assert gold[["item_id", "n", "mean"]].values.tolist()[0] == ["t:000001", 3, 3.0]
    assert scored(None, items, ratings)[0] is items  # no anchors key: every item


def test_the_raters_table_counts_each_raters_checks(tmp_path):
    t = _clean(tmp_path, attention={"items": CHECKS, "tolerance": 1})
    raters = pd.DataFrame({"stage": ["raw", "raw"], "rater": ["r1", "r3"], "attention_checks": None})
    out = with_attention(raters, t["rejects"], {"items": CHECKS, "tolerance": 1, "max_failures": 0})
    assert out[["rater", "attention_checks", "attention_failures"]].values.tolist() == [["r1", 2, 0], ["r3", 1, 0]]
    assert with_attention(raters, t["rejects"], None) is raters
