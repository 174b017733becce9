"""The dataset audit: small tables with known damage, and the damage known to be in the real files
of ../shared (counted from the raw files here, not from the cleaner)."""

from __future__ import annotations

import copy
import re

import numpy as np
import pandas as pd
import pytest

from simgold.stages.audit import AUDIT_COLUMNS, audit_dataset


def _tables(ratings=None, means=None, rejects=None, items=None) -> dict:
    rating_cols = ["item_id", "rater", "score", "source_file", "source_row"]
    ratings = pd.DataFrame(ratings or [], columns=rating_cols)
    if items is None:
        ids = sorted(set(ratings["item_id"]))
        items = pd.DataFrame(
            {"item_id": ids, "word1": [f"w{k}" for k in range(len(ids))], "word2": "x", "context": None, "occurrence": 1,
             "source_file": "f.csv", "source_row": range(2, len(ids) + 2)}  # fmt: skip
        )
    means = pd.DataFrame(means or [], columns=["item_id", "mean", "sd", "n", "source_file", "source_row"])
    rejects = pd.DataFrame(rejects or [], columns=["source_file", "source_row", "column", "raw_value", "reason", "detail"])
    return {"items": items, "ratings": ratings, "means": means, "rejects": rejects}


SPEC = {"scale": [0, 10], "sources": [{"mean": "avg"}]}


def test_released_means_rounded_and_exact():
    ratings = [("a", r, s, "f.csv", 2) for r, s in zip("pqr", [1.0, 2.0, 4.0])]  # mean 2.3333
    ratings += [("b", r, s, "f.csv", 3) for r, s in zip("pqr", [5.0, 6.0, 6.0])]  # mean 5.6667
    # rounded releases (2 decimals): 2.33 is fine, 6.2 is 0.53 off (> 0.5)
    t = _tables(ratings, means=[("a", 2.33, None, None, "f.csv", 2), ("b", 6.2, None, None, "f.csv", 3)])
    found = audit_dataset("d", SPEC, t)
    assert found["check"].tolist() == ["released_mean"] and found["item_id"].tolist() == ["b"]
    assert found["detail"][0] == "released 6.2, mean of 3 ratings 5.66667: differs by 0.533333 (> 0.5, half the scale's unit step 1)"
    assert found["column"][0] == "avg" and found["raw_value"][0] == "6.2"
    # released at full precision: they should be exact; a 1e-5 slip is a finding
    exact = [("a", 7 / 3, None, None, "f.csv", 2), ("b", 17 / 3 + 1e-5, None, None, "f.csv", 3)]
    found = audit_dataset("d", SPEC, _tables(ratings, means=exact))
    assert found["item_id"].tolist() == ["b"] and "the released values are exact" in found["detail"][0]


def test_damaged_cells_from_the_ledger():
    rejects = [
        ("f.csv", 2, "score", "3-Mar", "non_numeric", "not a number; looks like a number a spreadsheet turned into a date"),
        ("f.csv", 3, "score", "'7", "non_numeric", "not a number"),
        ("f.csv", 4, "score", "5,5", "non_numeric", 'a decimal comma where the separator is a point (set decimal: ",")'),
        ("f.csv", 5, "score", "seven", "non_numeric", "not a number"),
        ("f.csv", 6, "score", "2021-04-01T00:00:00", "non_numeric", "a datetime cell (a spreadsheet date?), not a number"),
        ("f.csv", 7, "score", "", "missing", "an empty cell"),
    ]
    items = _tables([("a", "p", 1.0, "f.csv", 2)])["items"]
    found = audit_dataset("d", {"scale": [0, 10], "sources": [{}]}, _tables([("a", "p", 1.0, "f.csv", 2)], rejects=rejects, items=items))
    assert found[["check", "source_row", "raw_value"]].values.tolist() == [
        ["spreadsheet_date", 2, "3-Mar"],
        ["spreadsheet_date", 6, "2021-04-01T00:00:00"],
        ["text_number", 3, "'7"],
        ["text_number", 4, "5,5"],
        ["single_rating", 2, "1"],
    ]
    assert found["item_id"][0] == "a"  # the item first seen on that file row


def test_pairs_repeated_and_reversed():
    items = pd.DataFrame(
        {"item_id": ["d:1", "d:2", "d:3", "d:4"], "word1": ["cat", "dog", "cat", "cat"], "word2": ["dog", "cat", "dog", "cow"],
         "context": None, "occurrence": [1, 2, 3, 1], "source_file": "f", "source_row": [2, 3, 4, 5]}  # fmt: skip
    )
    rejects = [("f", 9, "r1", "5", "duplicate", "the pair is listed 2 times (rows 8, 9); duplicates: reject")]
    found = audit_dataset("d", {"scale": [0, 10], "sources": [{}]}, _tables(items=items, rejects=rejects))
    assert found[["check", "item_id", "source_row"]].values.tolist() == [
        ["duplicate_pair", "d:3", 4],
        ["duplicate_pair", None, 9],
        ["reversed_pair", "d:2", 3],
    ]
    assert found["detail"][0] == "the same pair: cat / dog first at row 2 (d:1)"


def test_shifted_rows_within_a_file():
    scores = {2: [1, 3, 2], 3: [4, 6, 5], 4: [4, 6, 5], 5: [6, 6, 6], 6: [6, 6, 6]}
    ratings = [(f"i{row}", r, float(s), "f.csv", row) for row, v in scores.items() for r, s in zip("pqr", v)]
    found = audit_dataset("d", SPEC, _tables(ratings))
    shifted = found[found["check"] == "shifted_row"]
    # rows 3 and 4 repeat one another; rows 5 and 6 are unanimous: agreement, not damage
    assert shifted[["item_id", "source_row", "raw_value"]].values.tolist() == [["i3", 3, "4, 6, 5"]]


def test_rater_means_beyond_the_threshold():
    ratings = [(f"i{k}", r, s, "f.csv", k) for k in range(6) for r, s in (("p", 5.0), ("q", 5.0), ("r", 2.0))]
    found = audit_dataset("d", SPEC, _tables(ratings), threshold=1.5)
    # dataset mean 4: p and q are 1 above (kept), r is 2 below
    assert found[found["check"] == "rater_mean"]["rater"].tolist() == ["r"]
    assert audit_dataset("d", {**SPEC, "persistent_raters": False}, _tables(ratings), threshold=1.5).empty


def test_rater_means_within_a_context():
    """A two-context dataset: each context has its own raters and its own level (context 1 about 3,
    context 2 about 7). Against the dataset mean (5.2) the raters of context 1 are 2.2 below it and two
    of context 2 are 2.3 above it; within a context only the rater 2.5 below the others of context 2
    is off."""
    rows = [(k, c) for k in range(4) for c in (1, 2)]
    items = pd.DataFrame({"item_id": [f"i{k}c{c}" for k, c in rows], "word1": [f"w{k}" for k, _ in rows], "word2": "x",
                          "context": [c for _, c in rows], "occurrence": 1, "source_file": "f.csv",
                          "source_row": [k + 2 for k, _ in rows]})  # fmt: skip
    level = {("a", 1): 3.0, ("b", 1): 3.0, ("c", 2): 7.5, ("d", 2): 7.5, ("e", 2): 5.0}
    ratings = [(f"i{k}c{c}", r, s, "f.csv", k + 2) for (r, c), s in level.items() for k in range(4)]
    found = audit_dataset("d", SPEC, _tables(ratings, items=items), threshold=1.5)
    off = found[found["check"] == "rater_mean"]
    # context 2's mean: (7.5 + 7.5 + 5) / 3 = 6.6667; e is 1.6667 below it, c and d 0.8333 above
    assert off["rater"].tolist() == ["e"]
    assert off["detail"].iloc[0] == "mean 5 over 4 ratings against the mean of context 2 6.66667: differs by -1.66667 (threshold 1.5)"
    plain = items.assign(context=None)
    assert set(audit_dataset("d", SPEC, _tables(ratings, items=plain), threshold=1.5)["rater"].dropna()) == set("abcd")


def test_columns_and_types():
    found = audit_dataset("d", SPEC, _tables([("a", "p", 1.0, "f.csv", 2)]))
    assert list(found.columns) == AUDIT_COLUMNS and str(found["source_row"].dtype) == "Int64"


# -------------------------------------------------------------------------------- real data


@pytest.fixture(scope="module")
def audited(cleaned, shared_specs):
    def run(name: str, source: str | None = None):
        spec = copy.deepcopy(shared_specs[name])
        return audit_dataset(name, spec, cleaned(name), source=cleaned(source) if source else None)

    return run


@pytest.mark.shared
def test_finnsim_date_cells(audited, shared):
    found = audited("finnsim")
    # the date-like cells of the sim_score column, read from the raw file here
    lines = (shared / "data/finnsim/FinSemEvl/FinnSim/FinnSim_judgment_scores.csv").read_bytes().decode("utf-8-sig")
    rows = [line.split(";") for line in re.split(r"\r\n|\n", lines) if line]
    expected = [(k + 1, r[2]) for k, r in enumerate(rows) if k and re.fullmatch(r"\d+\.[a-z]+", r[2])]
    assert len(expected) == 8 and expected[:2] == [(64, "1.elo"), (103, "2.huhti")]
    dates = found[found["check"] == "spreadsheet_date"]
    assert list(zip(dates["source_row"], dates["raw_value"])) == expected
    assert set(found["check"]) == {"spreadsheet_date"}


@pytest.mark.shared
def test_finnsim_translation_table_dumb_clever_carries_the_next_row(audited):
    found = audited("finnsim-simlex", source="simlex999")
    shifted = found[found["check"] == "shifted_row"]
    assert len(shifted) == 1
    row = shifted.iloc[0]
    assert row["raw_value"] == "8.65"
    assert row["detail"] == (
        "dumb / clever has 8.65 where the source has 1.17; 8.65 is the next source row's (delightful / wonderful)"
    )


@pytest.mark.shared
def test_wordsim_money_cash_and_simlex_sly_strange(audited):
    ws = audited("ws353")
    assert ws[["check", "raw_value"]].values.tolist() == [
        ["duplicate_pair", "money / cash"],
        ["reversed_pair", "money / bank"],
    ]
    sl = audited("simlex999")
    assert sl[["check", "raw_value"]].values.tolist() == [["reversed_pair", "strange / sly"]]
    assert "reversed: sly / strange" in sl["detail"].iloc[0]


@pytest.mark.shared
def test_rare_words_released_avg_is_not_the_mean(audited, shared):
    """SOURCE.txt: RW's avg is a filtered mean; count from the raw file the rows whose avg lies more
    than half a point from the plain mean of the listed ratings."""
    found = audited("rw")
    text = (shared / "data/rw/rw/rw.txt").read_text(encoding="utf-8")
    expected = 0
    for line in text.splitlines():
        fields = line.split("\t")
        ratings = np.array(fields[3:], dtype=float)
        expected += abs(float(fields[2]) - ratings.mean()) > 0.5
    assert (found["check"] == "released_mean").sum() == expected > 900
    assert "rater_mean" not in set(found["check"])  # rating slots are not raters


@pytest.mark.shared
def test_danish_has_nothing_to_report(audited):
    # released means exact (SOURCE.txt: max abs diff 0.0); no duplicate; raters within 1.0 of the mean
    assert audited("dsd-da").empty


@pytest.mark.shared
def test_workflow_audit_on_the_shared_data_config(cleaned, shared_specs, tmp_path):
    """What the audit rule runs (``audit_configured`` on the resolved config entry, the cleaned tables
    as Parquet, the source's tables where the translation carries the source's words), on
    config/examples/shared-data.yaml: the known damage of each file, and nothing else where the
    file is known to be clean."""
    from simgold.io.config import resolve_dataset
    from simgold.io.tables import read_parquet, write_parquet
    from simgold.stages.audit import audit_configured

    def as_written(name: str) -> dict:
        out = {}
        for table in ("items", "ratings", "means", "rejects"):
            write_parquet(cleaned(name)[table], tmp_path / f"{name}-{table}.parquet")
            out[table] = read_parquet(tmp_path / f"{name}-{table}.parquet")
        return out

    def audit(name: str):
        spec = resolve_dataset(shared_specs[name])
        words = "source_words" in spec.get("translation", {})  # the audit rule's input function
        source = as_written(spec["translation_of"]) if words else None
        return audit_configured(name, spec, as_written(name), source=source)

    finnsim = audit("finnsim")
    assert finnsim["check"].tolist() == ["spreadsheet_date"] * 8
    assert finnsim["raw_value"].tolist()[:2] == ["1.elo", "2.huhti"]
    shifted = audit("finnsim-simlex")
    shifted = shifted[shifted["check"] == "shifted_row"]
    assert shifted["raw_value"].tolist() == ["8.65"] and "dumb / clever" in shifted["detail"].iloc[0]
    assert "the source has 1.17" in shifted["detail"].iloc[0]
    assert audit("ws353")[["check", "raw_value"]].values.tolist() == [
        ["duplicate_pair", "money / cash"],
        ["reversed_pair", "money / bank"],
    ]
    assert audit("simlex999")[["check", "raw_value"]].values.tolist() == [["reversed_pair", "strange / sly"]]
    assert audit("dsd-da").empty


def test_rater_means_on_an_unbalanced_panel_use_the_mean_of_all_scores():
    """Issue 41: a balanced panel cannot tell the mean of all scores from the mean of the raters'
    means. Here p gives 6 to six items, q 4 to the same six, r 2 to two of them: the dataset mean is
    (36 + 24 + 4) / 14 = 4.571429, the mean of the raters' means (6 + 4 + 2) / 3 = 4. Threshold 1.5:
    only r is off (2.571 below; p is 1.429 above). Against 4, p and r would both be 2 off."""
    ratings = [(f"i{k}", r, s, "f.csv", k + 2) for r, s, n in (("p", 6.0, 6), ("q", 4.0, 6), ("r", 2.0, 2)) for k in range(n)]
    found = audit_dataset("d", SPEC, _tables(ratings), threshold=1.5)
    off = found[found["check"] == "rater_mean"]
    assert off["rater"].tolist() == ["r"]
    assert off["detail"].tolist() == ["mean 2 over 2 ratings against the dataset mean 4.57143: differs by -2.57143 (threshold 1.5)"]
