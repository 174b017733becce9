"""Cleaning: every layout, every duplicate policy, every reject reason, on small hand-made sheets."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from simgold.errors import ConfigError, DataError, InputError
from simgold.stages import clean, extraction, valuecells
from simgold.stages.clean import accounted_cells, clean_dataset, parse_value, require_accepted, summarise

MISSING = frozenset(["", "nan", "NA", "-"])


@pytest.mark.parametrize(
    "raw,expected",
    [
        ("5", 5.0),
        (" 4.5 ", 4.5),
        ("+1", 1.0),
        (".5", 0.5),
        ("6.", 6.0),
        ("1e0", 1.0),
        (3, 3.0),
        (2.5, 2.5),
    ],
)
def test_parse_accepts_plain_numbers(raw, expected):
    assert parse_value(raw, missing=MISSING, low=0, high=6) == (expected, None, "")


@pytest.mark.parametrize(
    "raw,reason",
    [
        ("nan", "missing"),
        ("", "missing"),
        ("  ", "missing"),
        ("-", "missing"),
        (float("nan"), "missing"),
        (None, "short_row"),
        ("NaN", "non_finite"),  # not in the configured markers: rejected, not guessed
        ("five", "non_numeric"),
        ("1_000", "non_numeric"),  # Python's float() would accept this
        ("0x5", "non_numeric"),
        ("inf", "non_finite"),
        ("1e999", "non_finite"),
        (True, "non_numeric"),
        ("7", "out_of_scale"),
        ("-0.5", "out_of_scale"),
        ("6.01", "out_of_scale"),
        ("3,5", "non_numeric"),
    ],
)
def test_parse_rejects(raw, reason):
    value, got, detail = parse_value(raw, missing=MISSING, low=0, high=6)
    assert value is None and got == reason and detail


def test_scale_bounds_are_inclusive_and_never_clipped():
    assert parse_value("0", missing=MISSING, low=0, high=6)[0] == 0.0
    assert parse_value("6", missing=MISSING, low=0, high=6)[0] == 6.0
    assert parse_value("60", missing=MISSING, low=0, high=6)[1] == "out_of_scale"


def test_decimal_comma():
    assert parse_value("7,5", missing=MISSING, decimal=",", low=0, high=10)[0] == 7.5
    assert parse_value("7.5", missing=MISSING, decimal=",", low=0, high=10)[1] == "non_numeric"
    assert "decimal" in parse_value("7,5", missing=MISSING, low=0, high=10)[2]


def write(tmp_path, name, text, encoding="utf-8"):
    (tmp_path / name).write_bytes(text.encode(encoding))
    return name


def ds(sources, kind="ratings", scale=(0, 6), **kw):
    return {"language": "en", "kind": kind, "scale": list(scale), "sources": sources, **kw}


def run(tmp_path, spec, name="t"):
    return clean_dataset(name, spec, base_dir=str(tmp_path))


HEADER = "the header row (column names)"


def rejects(t):
    """The ledger without the header's cells (every sheet has them; tests of them look at them)."""
    return [(r.source_row, r.column, r.raw_value, r.reason) for r in t["rejects"].itertuples() if r.detail != HEADER]


def ratings(t):
    items = t["items"].set_index("item_id")
    return sorted(
        (items.loc[r.item_id, "word1"], items.loc[r.item_id, "word2"], r.rater, r.score)
        for r in t["ratings"].itertuples()
    )


# -------------------------------------------------------------------------------- wide


def test_wide_sheet_every_cell_accounted_for(tmp_path):
    f = write(tmp_path, "w.tsv", "w1\tw2\tr1\tr2\tnote\nCat\tdog\t3\tnan\tok\nsun \t moon\t7\tx\t\nsea\tlake\t2\n")
    t = run(tmp_path, ds([{"path": f, "words": ["w1", "w2"], "raters": "^r\\d$"}]))
    assert t["items"][["item_id", "word1", "word2", "source_row"]].values.tolist() == [
        ["t:000001", "Cat", "dog", 2],
        ["t:000002", "sun", "moon", 3],
        ["t:000003", "sea", "lake", 4],
    ]
    assert ratings(t) == [("Cat", "dog", "r1", 3.0), ("sea", "lake", "r1", 2.0)]
    assert rejects(t) == [
        (2, "r2", "nan", "missing"),
        (2, "note", "ok", "ignored_column"),  # a column the config does not name: in the ledger, not lost
        (3, "r1", "7", "out_of_scale"),
        (3, "r2", "x", "non_numeric"),
        (4, "r2", "", "short_row"),
    ]
    header = t["rejects"][t["rejects"]["detail"] == HEADER]
    assert header[["source_row", "raw_value", "reason"]].values.tolist() == [
        [1, name, "ignored_row"] for name in ("w1", "w2", "r1", "r2", "note")
    ]
    # 17 non-blank cells in the file (5 + 5 + 4 + 3): 2 accepted, 9 in the ledger with a value (the
    # empty short_row cell is blank), 6 word cells kept on the items
    s = t["summary"].iloc[0]
    assert (s.raw_cells, s.n_ratings, s.n_rejects, s.label_cells, bool(s.ledger_balanced)) == (17, 2, 10, 6, True)
    assert t["ratings"]["source_file"].unique().tolist() == ["w.tsv"]


def test_values_in_unnamed_columns_are_ledgered(tmp_path):
    f = write(tmp_path, "w.csv", "w1,w2,,r1\na,b,x,1\nc,d,,2\n")
    t = run(tmp_path, ds([{"path": f, "words": ["w1", "w2"], "raters": ["r1"]}]))
    assert rejects(t) == [(2, "#3", "x", "unnamed_column")]
    assert len(t["ratings"]) == 2


def test_a_row_with_extra_fields_is_rejected_whole_never_shifted(tmp_path):
    """An unquoted comma in a word: the whole row goes to the ledger with the line; trailing empty
    fields are not extra values."""
    f = write(tmp_path, "w.csv", "w1,w2,r1,r2\nsalt,pepper, ground,5,6\nsun,moon,2,3,,\n")
    t = run(tmp_path, ds([{"path": f, "words": ["w1", "w2"], "raters": "^r"}]))
    assert ratings(t) == [("sun", "moon", "r1", 2.0), ("sun", "moon", "r2", 3.0)]
    assert rejects(t) == [
        (2, "w1", "salt", "extra_fields"),
        (2, "w2", "pepper", "extra_fields"),
        (2, "r1", " ground", "extra_fields"),
        (2, "r2", "5", "extra_fields"),
        (2, "#5", "6", "extra_fields"),
    ]
    assert set(t["rejects"]["detail"][t["rejects"]["reason"] == "extra_fields"]) == {
        "5 fields where the header has 4: 'salt,pepper, ground,5,6'"
    }
    # the config can say how to repair it: the surplus belongs to w2
    t = run(tmp_path, ds([{"path": f, "words": ["w1", "w2"], "raters": "^r", "extra_fields": {"join": "w2"}}]))
    assert ratings(t)[:2] == [("salt", "pepper, ground", "r1", 5.0), ("salt", "pepper, ground", "r2", 6.0)]
    assert rejects(t) == [] and t["summary"]["ledger_balanced"].iloc[0]


def test_rater_capture_group_and_rater_names(tmp_path):
    f = write(tmp_path, "w.csv", "w1,w2,Deltager 01,Deltager 02\na,b,1,2\n")
    t = run(tmp_path, ds([{"path": f, "words": ["w1", "w2"], "raters": "^Deltager (\\d+)$"}]))
    assert sorted(t["ratings"]["rater"]) == ["01", "02"]
    t = run(tmp_path, ds([{"path": f, "words": [1, 2], "raters": [3], "rater_names": {"Deltager 01": "anna"}}]))
    assert t["ratings"]["rater"].tolist() == ["anna"]


def test_same_rater_twice_is_an_error(tmp_path):
    f = write(tmp_path, "w.csv", "w1,w2,r1,r1\na,b,1,2\n")
    with pytest.raises(InputError, match="rater 'r1' has two columns"):
        run(tmp_path, ds([{"path": f, "words": ["w1", "w2"], "raters": "^r"}]))


def test_headerless_positions_and_joined_files(tmp_path):
    write(tmp_path, "d.tsv", "a\tb\t2.0\nc\td\t1.5\n")
    write(tmp_path, "s.tsv", "2\t2\nx\t1\n")
    t = run(
        tmp_path, ds([{"path": ["d.tsv", "s.tsv"], "header": False, "words": [1, 2], "mean": 3, "raters": {"from": 4}}])
    )
    assert ratings(t) == [("a", "b", "r1", 2.0), ("a", "b", "r2", 2.0), ("c", "d", "r2", 1.0)]
    assert rejects(t) == [(2, "#1", "x", "non_numeric")]
    assert t["rejects"]["source_file"].tolist() == ["s.tsv"]
    assert t["means"][["mean", "source_file"]].values.tolist() == [[2.0, "d.tsv"], [1.5, "d.tsv"]]


def test_ragged_rows(tmp_path):
    f = write(tmp_path, "rw.txt", "a\tb\t5\t4\t6\nc\td\t3\t3\ne\tf\t1\t0\t2\t2\t-\n")
    t = run(
        tmp_path,
        ds([{"path": f, "layout": "ragged", "header": False, "words": [1, 2], "raters": {"from": 3}}], scale=(0, 10)),
    )
    per_item = t["ratings"].groupby("item_id").size().tolist()
    assert per_item == [3, 2, 4]
    assert rejects(t) == [(3, "#7", "-", "missing")]


def test_word_normalisation(tmp_path):
    # "e\u0301" (e + combining acute) becomes "é" (NFC); surrounding spaces go; casefold on request
    f = write(tmp_path, "w.csv", "w1,w2,r1\n Cafe\u0301 ,Tea,1\n")
    t = run(tmp_path, ds([{"path": f, "words": ["w1", "w2"], "raters": ["r1"]}]))
    assert t["items"][["word1", "word2"]].values.tolist() == [["Café", "Tea"]]
    t = run(tmp_path, ds([{"path": f, "words": ["w1", "w2"], "raters": ["r1"]}], casefold=True))
    assert t["items"][["word1", "word2"]].values.tolist() == [["café", "tea"]]


def test_empty_word_rejects_the_row(tmp_path):
    f = write(tmp_path, "w.csv", "w1,w2,r1,r2\na,,1,2\nb,c,3,nan\n")
    t = run(tmp_path, ds([{"path": f, "words": ["w1", "w2"], "raters": "^r"}]))
    assert len(t["items"]) == 1
    # the row's remaining word is in the ledger too: the row made no item to keep it on
    assert rejects(t) == [
        (2, "w1", "a", "bad_item"),
        (2, "r1", "1", "bad_item"),
        (2, "r2", "2", "bad_item"),
        (3, "r2", "nan", "missing"),
    ]


def test_attributes_typed(tmp_path):
    f = write(tmp_path, "w.csv", "w1,w2,POS,conc,flag,r1\na,b,N,2.5,1,3\nc,d,V,,,4\n")
    src = {"path": f, "words": ["w1", "w2"], "raters": ["r1"]}
    src["attributes"] = {
        "pos": "POS",
        "conc": {"column": "conc", "type": "float"},
        "flag": {"column": "flag", "type": "int"},
    }
    t = run(tmp_path, ds([src]))
    items = t["items"]
    assert items["pos"].tolist() == ["N", "V"]
    assert items["conc"].tolist()[0] == 2.5 and math.isnan(items["conc"].tolist()[1])
    assert items["flag"].tolist()[0] == 1
    bad = write(tmp_path, "b.csv", "w1,w2,conc,r1\na,b,high,3\n")
    with pytest.raises(InputError, match=r"b.csv, row 2, column 'conc'.*'high'"):
        run(tmp_path, ds([{**src, "path": bad, "attributes": {"conc": {"column": "conc", "type": "float"}}}]))


# -------------------------------------------------------------------------------- duplicates

SHEET = "w1,w2,r1,r2\nmoney,cash,9,8\nbank,money,8,7\nmoney,cash,10,nan\nmoney,bank,6,5\n"


def _dup(tmp_path, policy, **kw):
    f = write(tmp_path, "d.csv", SHEET)
    return run(
        tmp_path, ds([{"path": f, "words": ["w1", "w2"], "raters": "^r"}], scale=(0, 10), duplicates=policy, **kw)
    )


def test_duplicates_reject(tmp_path):
    t = _dup(tmp_path, "reject")
    assert len(t["items"]) == 2 and t["ratings"].empty is False
    # r2 has only one accepted answer for money/cash (row 4 is missing), so it is not a duplicate
    assert ratings(t) == [("money", "cash", "r2", 8.0)]
    reasons = [(row, col, reason) for row, col, _, reason in rejects(t)]
    assert reasons == [
        (2, "r1", "duplicate"),
        (3, "r1", "duplicate"),
        (3, "r2", "duplicate"),
        (4, "r1", "duplicate"),
        (4, "r2", "missing"),
        (5, "r1", "duplicate"),
        (5, "r2", "duplicate"),
    ]
    assert (
        t["rejects"]["detail"][t["rejects"]["reason"] == "duplicate"].iloc[0]
        == "rater 'r1' has 2 values for money/cash (d.csv row 2, d.csv row 4); duplicates: reject"
    )


@pytest.mark.parametrize(
    "policy,money_cash_r1,bank_money",
    [("first", 9.0, (8.0, 7.0)), ("last", 10.0, (6.0, 5.0)), ("mean", 9.5, (7.0, 6.0))],
)
def test_duplicates_first_last_mean(tmp_path, policy, money_cash_r1, bank_money):
    t = _dup(tmp_path, policy)
    got = {(w1, w2, r): s for w1, w2, r, s in ratings(t)}
    assert got[("money", "cash", "r1")] == money_cash_r1
    assert got[("money", "cash", "r2")] == 8.0
    assert (got[("bank", "money", "r1")], got[("bank", "money", "r2")]) == bank_money
    expected = {"first": "duplicate_superseded", "last": "duplicate_superseded", "mean": "duplicate_merged"}[policy]
    assert sorted(r for *_, r in rejects(t)) == sorted([expected] * 3 + ["missing"])
    assert t["summary"]["ledger_balanced"].iloc[0]


#: a child process whose address space may grow by 1 GiB only; it cleans 100,000 copies of one
#: pair in an ODS sheet under each policy and prints its ledger's size and longest duplicate detail
COPIES_UNDER_A_MEMORY_LIMIT = """
import resource, sys
from simgold.io.demo import ods_bytes
from simgold.stages.clean import clean_dataset

size = next(int(line.split()[1]) * 1024 for line in open("/proc/self/status") if line.startswith("VmSize:"))
resource.setrlimit(resource.RLIMIT_AS, (size + (1 << 30), resource.getrlimit(resource.RLIMIT_AS)[1]))
n = int(sys.argv[2])
with open(sys.argv[1] + "/d.ods", "wb") as fh:
    fh.write(ods_bytes([["w1", "w2", "r1"]] + [["money", "cash", 5]] * n, "answers"))
for policy in ("reject", "mean"):
    spec = {"language": "en", "kind": "ratings", "scale": [0, 10], "duplicates": policy, "max_rejected": 1.0,
            "sources": [{"path": "d.ods", "words": ["w1", "w2"], "raters": "^r"}]}
    t = clean_dataset("d", spec, base_dir=sys.argv[1])
    dup = t["rejects"][t["rejects"]["reason"].str.startswith("duplicate")]
    print(policy, len(t["ratings"]), len(dup), dup["detail"].iloc[0], sep="|")
"""


def test_a_hundred_thousand_copies_of_one_pair_stay_under_one_gib(tmp_path):
    """A duplicate's ledger detail names its group once (its first rows and how many more): the
    ledger grows with the copies, not with their square."""
    n = 100_000
    args = [sys.executable, "-c", COPIES_UNDER_A_MEMORY_LIMIT, str(tmp_path), str(n)]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = "d.ods row 2, d.ods row 3, d.ods row 4 and 99,997 more"
    assert proc.stdout.splitlines() == [
        f"reject|0|{n}|rater 'r1' has {n:,} values for money/cash ({rows}); duplicates: reject",
        f"mean|1|{n - 1}|rater 'r1': averaged into the value of d.ods row 2 (duplicates: mean)",
    ]


def test_duplicates_all_keeps_each_repetition(tmp_path):
    t = _dup(tmp_path, "all")
    assert t["items"][["word1", "word2", "occurrence"]].values.tolist() == [
        ["money", "cash", 1],
        ["bank", "money", 1],
        ["money", "cash", 2],
        ["money", "bank", 2],
    ]
    assert len(t["ratings"]) == 7


def test_ordered_pairs_when_not_symmetric(tmp_path):
    t = _dup(tmp_path, "reject", symmetric=False)
    assert len(t["items"]) == 3
    assert ("money", "bank", "r1", 6.0) in ratings(t) and ("bank", "money", "r1", 8.0) in ratings(t)


def test_long_layout_repeated_calibration_question(tmp_path):
    """Danish design: a rater meets the same pair twice; keep: last keeps the second answer."""
    text = "rater;w1;w2;s\nA;hund;kat;2\nA;sol;måne;4\nA;sol;måne;3\nB;hund;kat;1\nB;sol;måne;5\n;sol;måne;5\n"
    f = write(tmp_path, "l.csv", text)
    spec = ds([{"path": f, "layout": "long", "words": ["w1", "w2"], "rater": "rater", "score": "s"}], duplicates="last")
    t = run(tmp_path, spec)
    assert ratings(t) == [
        ("hund", "kat", "A", 2.0),
        ("hund", "kat", "B", 1.0),
        ("sol", "måne", "A", 3.0),
        ("sol", "måne", "B", 5.0),
    ]
    assert rejects(t) == [(3, "s", "4", "duplicate_superseded"), (7, "s", "5", "bad_rater")]
    all_spec = {**spec, "duplicates": "all"}
    t = run(tmp_path, all_spec)
    assert t["items"]["occurrence"].tolist() == [1, 1, 2]


# -------------------------------------------------------------------------------- raters


def test_min_answered(tmp_path):
    rows = "\n".join(f"p{i},q{i},{i % 5},{i % 4}," + ("3" if i < 2 else "") for i in range(6))
    f = write(tmp_path, "m.csv", "w1,w2,r1,r2,r3\n" + rows + "\n")
    t = run(tmp_path, ds([{"path": f, "words": ["w1", "w2"], "raters": "^r"}], min_answered=3))
    assert set(t["ratings"]["rater"]) == {"r1", "r2"}
    inc = t["rejects"][t["rejects"]["reason"] == "rater_incomplete"]
    assert len(inc) == 2 and "answered 2 items, fewer than min_answered 3" in inc["detail"].iloc[0]
    # a share: 0.5 of 6 items = 3
    t = run(tmp_path, ds([{"path": f, "words": ["w1", "w2"], "raters": "^r"}], min_answered=0.5))
    assert set(t["ratings"]["rater"]) == {"r1", "r2"}


# -------------------------------------------------------------------------------- contexts, means


def test_two_context_sheet_per_rater(tmp_path):
    f = write(
        tmp_path, "c.tsv", "w1\tw2\tc1\tc2\tc1_a1\tc1_a2\tc2_b1\nbank\tshore\tby the river\tat the bank\t8\t7\t1\n"
    )
    src = {
        "path": f,
        "words": ["w1", "w2"],
        "contexts": [
            {"context": 1, "text": "c1", "raters": "^c1_(a\\d)$"},
            {"context": 2, "text": "c2", "raters": "^c2_(b\\d)$"},
        ],
    }
    t = run(tmp_path, ds([src], kind="contexts", scale=(0, 10)))
    assert t["items"][["item_id", "context", "context_text"]].values.tolist() == [
        ["t:000001", 1, "by the river"],
        ["t:000002", 2, "at the bank"],
    ]
    assert t["ratings"][["item_id", "rater", "score"]].values.tolist() == [
        ["t:000001", "a1", 8.0],
        ["t:000001", "a2", 7.0],
        ["t:000002", "b1", 1.0],
    ]


def test_long_contexts(tmp_path):
    f = write(tmp_path, "c.csv", "w1,w2,ctx,rater,s\nbank,shore,1,a,8\nbank,shore,2,a,2\nbank,shore,3,a,2\n")
    src = {"path": f, "layout": "long", "words": ["w1", "w2"], "context": "ctx", "rater": "rater", "score": "s"}
    t = run(tmp_path, ds([src], kind="contexts", scale=(0, 10)))
    assert t["items"]["context"].tolist() == [1, 2]
    # context 3 makes the row unusable: its words, context, rater and score are in the ledger
    assert rejects(t) == [
        (4, c, v, "bad_item") for c, v in (("w1", "bank"), ("w2", "shore"), ("ctx", "3"), ("rater", "a"), ("s", "2"))
    ]


def test_means_with_sd_and_n(tmp_path):
    f = write(tmp_path, "m.csv", "a,b,mean,sd,n\nx,y,3.5,1.2,10\nz,w,11,-1,ten\n")
    t = run(
        tmp_path,
        ds([{"path": f, "words": ["a", "b"], "mean": "mean", "sd": "sd", "n": "n"}], kind="means", scale=(0, 10)),
    )
    assert t["means"][["mean", "sd", "n"]].values.tolist()[0] == [3.5, 1.2, 10.0]
    assert [(c, reason) for _, c, _, reason in rejects(t)] == [
        ("mean", "out_of_scale"),
        ("sd", "out_of_scale"),
        ("n", "non_numeric"),
    ]
    assert "negative standard deviation" in t["rejects"]["detail"][t["rejects"]["column"] == "sd"].iloc[-1]


# -------------------------------------------------------------------------------- rankings


def test_rankings_wide(tmp_path):
    text = (
        "target,candidate,category,r1,r2,r3\n"
        "apple,pear,positive,1,2,1\n"
        "apple,plum,positive,2,1,2\n"
        "apple,car,random,3,3,2\n"
        "dog,wolf,positive,1,,1\n"
        "dog,bone,Distractor,2,,3\n"
    )
    f = write(tmp_path, "r.csv", text)
    src = {"path": f, "target": "target", "candidate": "candidate", "category": "category", "raters": "^r\\d$"}
    t = run(tmp_path, {"language": "en", "kind": "rankings", "sources": [src]})
    assert t["items"][["word1", "word2", "category"]].values.tolist() == [
        ["apple", "pear", "positive"],
        ["apple", "plum", "positive"],
        ["apple", "car", "random"],
        ["dog", "wolf", "positive"],
        ["dog", "bone", "distractor"],
    ]
    ranks = t["rankings"]
    assert ranks[ranks["rater"] == "r1"][["target", "candidate", "rank"]].values.tolist() == [
        ["apple", "car", 3],
        ["apple", "pear", 1],
        ["apple", "plum", 2],
        ["dog", "bone", 2],
        ["dog", "wolf", 1],
    ]
    # r3 ranked apple [1, 2, 2]; r3 ranked dog [1, 3] for 2 candidates; r2 skipped dog entirely
    reasons = {(row, col): reason for row, col, _, reason in rejects(t)}
    assert reasons == {
        (2, "r3"): "invalid_ranking",
        (3, "r3"): "invalid_ranking",
        (4, "r3"): "invalid_ranking",
        (5, "r2"): "missing",
        (5, "r3"): "invalid_ranking",
        (6, "r2"): "missing",
        (6, "r3"): "invalid_ranking",
    }
    assert t["summary"]["ledger_balanced"].iloc[0]


def test_unknown_category_rejects_the_row(tmp_path):
    f = write(tmp_path, "r.csv", "t,c,cat,r1\napple,pear,hyponym,1\n")
    src = {"path": f, "target": "t", "candidate": "c", "category": "cat", "raters": ["r1"]}
    t = run(tmp_path, {"language": "en", "kind": "rankings", "sources": [src]})
    assert rejects(t) == [
        (2, c, v, "bad_item") for c, v in (("t", "apple"), ("c", "pear"), ("cat", "hyponym"), ("r1", "1"))
    ]
    assert "hyponym" in t["rejects"]["detail"].iloc[-1]


# -------------------------------------------------------------------------------- several sources


def test_sources_of_one_dataset_share_items_and_raters(tmp_path):
    a = write(tmp_path, "part1.csv", "w1,w2,r1,r2\nsun,moon,2,3\nsea,lake,3,3\n")
    b = write(tmp_path, "part2.csv", "w1,w2,r1,r2\nmoon,sun,1,2\ncat,dog,3,4\n")
    t = run(
        tmp_path,
        ds(
            [{"path": a, "words": ["w1", "w2"], "raters": "^r"}, {"path": b, "words": ["w1", "w2"], "raters": "^r"}],
            duplicates="last",
        ),
    )
    assert t["items"]["word1"].tolist() == ["sun", "sea", "cat"]
    got = {(w1, r): s for w1, _, r, s in ratings(t)}
    assert got[("sun", "r1")] == 1.0 and got[("sun", "r2")] == 2.0
    superseded = t["rejects"][t["rejects"]["reason"] == "duplicate_superseded"]
    assert superseded["source_file"].tolist() == ["part1.csv", "part1.csv"]


# -------------------------------------------------------------------------------- the ledger counts the file


def test_a_rater_column_the_pattern_misses_is_in_the_ledger_and_the_log(tmp_path, caplog):
    f = write(tmp_path, "w.csv", "w1,w2,r1,r2,R3,r4 (late)\ncat,dog,3,4,5,2\ncar,bus,5,6,,1\n")
    with caplog.at_level("WARNING", logger="simgold.stages.clean"):
        t = run(tmp_path, ds([{"path": f, "words": ["w1", "w2"], "raters": "^r\\d+$"}]))
    assert rejects(t) == [(2, "R3", "5", "ignored_column"), (2, "r4 (late)", "2", "ignored_column")] + [
        (3, "r4 (late)", "1", "ignored_column")
    ]
    warning = " ".join(r.getMessage() for r in caplog.records if r.levelname == "WARNING")
    assert "'R3' (1 value), 'r4 (late)' (2 values)" in warning and "ignored_column" in warning


def test_title_and_comment_lines_and_a_repeated_header_are_counted(tmp_path):
    text = "Ratings export\n# collected 2024\nw1\tw2\tr1\ncat\tdog\t3\nw1\tw2\tr1\n# second batch\ncar\tbus\t4\n"
    f = write(tmp_path, "w.tsv", text)
    t = run(tmp_path, ds([{"path": f, "words": ["w1", "w2"], "raters": ["r1"], "skip_rows": 1, "comment": "#"}]))
    reasons = [(row, col, reason) for row, col, _, reason in rejects(t)]
    assert reasons == [(1, "(line)", "ignored_row"), (2, "(line)", "ignored_row")] + [
        (5, c, "ignored_row") for c in ("w1", "w2", "r1")
    ] + [(6, "(line)", "ignored_row")]
    s = t["summary"].iloc[0]  # 1 + 1 + 3 + 3 + 3 + 1 + 3 cells; 2 ratings, 4 words
    assert (s.raw_cells, s.n_ratings, s.label_cells, bool(s.ledger_balanced)) == (15, 2, 4, True)


def _fabricated(raw_values, ratings=2):
    frame = pd.DataFrame
    return {
        "ratings": frame({"rater": ["a"] * ratings}),
        "rankings": frame({"rater": []}),
        "means": frame({"mean": [1.5, None], "sd": [None, None], "n": [None, None]}),
        "rejects": frame({"raw_value": raw_values, "reason": ["missing"] * len(raw_values)}),
        "items": frame({"item_id": []}),
    }


def test_the_ledger_balance_can_fail():
    """accepted (2 ratings + 1 mean) + ledger rows with a value ("x", "nan"; not "" or " ") + labels"""
    tables = _fabricated(["x", "", " ", "nan"])
    assert accounted_cells(tables, label_cells=4) == 3 + 2 + 4
    ds_ = {"language": "en", "kind": "ratings"}
    assert bool(summarise("t", ds_, tables, raw_cells=9, label_cells=4)["ledger_balanced"][0])
    # one cell too many in the file, or one lost by the cleaner: caught
    assert not summarise("t", ds_, tables, raw_cells=10, label_cells=4)["ledger_balanced"][0]
    assert not summarise("t", ds_, _fabricated(["x", "", " "]), raw_cells=9, label_cells=4)["ledger_balanced"][0]


def test_a_cell_the_cleaner_loses_unbalances_the_ledger(tmp_path, monkeypatch):
    f = write(tmp_path, "w.csv", "w1,w2,r1,note\ncat,dog,3,see\n")
    spec = ds([{"path": f, "words": ["w1", "w2"], "raters": ["r1"]}])
    assert run(tmp_path, spec)["summary"]["ledger_balanced"].iloc[0]
    monkeypatch.setattr(extraction, "_ignored_columns", lambda *args: {})  # a cleaner that forgets unnamed columns
    assert not run(tmp_path, spec)["summary"]["ledger_balanced"].iloc[0]


def test_nothing_accepted_stops_with_the_counts(tmp_path):
    f = write(tmp_path, "w.tsv", "w1\tw2\tr1\tr2\ncat\tdog\t9\tx\n")
    t = run(tmp_path, ds([{"path": f, "words": ["w1", "w2"], "raters": "^r"}]))
    with pytest.raises(DataError) as err:
        require_accepted("t", t)
    assert "dataset 't': cleaning accepted no rating, rank or mean (ledger: non_numeric 1, out_of_scale 1," in str(
        err.value
    )


def test_equal_raw_values_of_different_types_are_parsed_apart():
    raws = np.array([1, 1.0, True, "1", "1", None, 1], dtype=object)
    codes, uniques = clean._factorize(raws)
    assert codes.tolist() == [0, 1, 2, 3, 3, 4, 0]
    assert [type(u).__name__ for u in uniques] == ["int", "float", "bool", "str", "NoneType"]


def test_a_column_read_twice_is_refused(tmp_path):
    f = write(tmp_path, "m.csv", "a,b,m\nx,y,3\n")
    with pytest.raises(ConfigError, match="sd: column 'm' is already mean: a column has one role"):
        run(tmp_path, ds([{"path": f, "words": ["a", "b"], "mean": "m", "sd": "m"}], kind="means"))
    with pytest.raises(InputError, match="column 'm' is read twice \\(as mean and as sd\\)"):  # by position and name
        run(tmp_path, ds([{"path": f, "words": ["a", "b"], "mean": "m", "sd": 3}], kind="means"))


def test_word_normalisation_never_makes_two_items_that_print_the_same(tmp_path):
    f = write(tmp_path, "w.tsv", "w1\tw2\tr1\ncat\tdog\t3\nca\u200bt\tdog\t4\n\ufeffcat\tdo\u00adg\t5\n")
    t = run(tmp_path, ds([{"path": f, "words": ["w1", "w2"], "raters": ["r1"]}], duplicates="all"))
    assert t["items"][["word1", "word2", "occurrence"]].values.tolist() == [
        ["cat", "dog", 1],
        ["cat", "dog", 2],
        ["cat", "dog", 3],
    ]


# -------------------------------------------------------------------------------- word forms


def _forms_files(tmp_path, lemma_rows):
    (tmp_path / "lemma.txt").write_text("w1 w2\n" + "".join(f"{a} {b}\n" for a, b in lemma_rows), encoding="utf-8")
    natural = [("cats", "dogs"), ("running", "man"), ("sun", "sunlight")][: len(lemma_rows)]
    (tmp_path / "natural.txt").write_text("w1 w2\n" + "".join(f"{a} {b}\n" for a, b in natural), encoding="utf-8")
    (tmp_path / "a.csv").write_text("w1,w2,ann\ncats,dogs,5\nrunning,man,2\nsun,sunlight,6\n", encoding="utf-8")
    (tmp_path / "b.csv").write_text("w1,w2,bob\ndog,cat,4\nrun,man,1\nmoon,star,3\n", encoding="utf-8")
    forms = {"path": ["lemma.txt", "natural.txt"], "sep": "whitespace", "source_words": [1, 2],
             "target_words": [3, 4], "strip": "-[a-z]$"}  # fmt: skip
    return ds([{"path": "a.csv", "words": ["w1", "w2"], "raters": ["ann"]},
               {"path": "b.csv", "words": ["w1", "w2"], "raters": ["bob"], "word_forms": forms}])  # fmt: skip


def test_word_forms_map_a_sources_pairs_and_ledger_what_they_do_not_map(tmp_path):
    """bob wrote lemmas: dog/cat (reversed, symmetric dataset) and run/man map onto ann's items;
    moon/star is in no row of the table: its rating goes to the ledger, never to a guessed item."""
    t = run(tmp_path, _forms_files(tmp_path, [("cat-n", "dog-n"), ("run-v", "man-n"), ("sun-n", "sunlight-n")]))
    assert ratings(t) == [("cats", "dogs", "ann", 5.0), ("cats", "dogs", "bob", 4.0), ("running", "man", "ann", 2.0),
                          ("running", "man", "bob", 1.0), ("sun", "sunlight", "ann", 6.0)]  # fmt: skip
    bad = t["rejects"][t["rejects"]["reason"] == "bad_item"]
    assert bad[["source_row", "raw_value"]].values.tolist() == [[4, "moon"], [4, "star"], [4, "3"]]  # the row's cells
    assert set(bad["detail"]) == {"the pair moon / star is not in the word_forms table lemma.txt"}
    assert len(t["items"]) == 3 and t["summary"]["ledger_balanced"].all()


def test_a_pair_the_word_forms_map_two_ways_is_an_error(tmp_path):
    spec = _forms_files(tmp_path, [("cat-n", "dog-n"), ("cat-v", "dog-v")])  # both strip to cat/dog
    with pytest.raises(
        InputError, match=r"lemma\.txt.*cat / dog is mapped to cats / dogs \(row 2\) and to running / man"
    ):
        run(tmp_path, spec)


def test_word_forms_files_and_pattern_are_checked_with_the_config(tmp_path):
    from simgold.io.config import ConfigError, check_dataset

    spec = _forms_files(tmp_path, [("cat-n", "dog-n")])
    spec["sources"][1]["word_forms"]["strip"] = "-[a-z"
    with pytest.raises(ConfigError, match=r"sources\[1\]\.word_forms\.strip.*not a valid regular expression"):
        check_dataset("t", spec, str(tmp_path))
    spec["sources"][1]["word_forms"] = {
        **spec["sources"][1]["word_forms"],
        "strip": "-x",
        "path": ["lemma.txt", "gone.txt"],
    }
    with pytest.raises(ConfigError, match=r"word_forms\.path\[1\].*'gone\.txt' does not exist"):
        check_dataset("t", spec, str(tmp_path))


def _forms_table(tmp_path, rows, strip=None, **dataset):
    """A dataset whose second source is mapped by a word_forms table of ``rows`` (w1 w2 t1 t2)."""
    (tmp_path / "forms.txt").write_text("".join(" ".join(r) + "\n" for r in rows), encoding="utf-8")
    (tmp_path / "a.csv").write_text("w1,w2,ann\nfeline,canine,5\n", encoding="utf-8")
    (tmp_path / "b.csv").write_text("w1,w2,bob\ncat,dog,4\n", encoding="utf-8")
    forms = {"path": "forms.txt", "header": False, "sep": "whitespace", "source_words": [1, 2], "target_words": [3, 4]}
    return ds([{"path": "a.csv", "words": ["w1", "w2"], "raters": ["ann"]},
               {"path": "b.csv", "words": ["w1", "w2"], "raters": ["bob"],
                "word_forms": {**forms, **({"strip": strip} if strip else {})}}], **dataset)  # fmt: skip


def test_a_symmetric_datasets_reversed_pair_mapped_another_way_is_an_error_naming_both_rows(tmp_path):
    """dog / cat is cat / dog in a symmetric dataset: mapping it to puppy / kitten after cat / dog
    went to feline / canine gave two forms of one pair, and the first row silently won."""
    spec = _forms_table(tmp_path, [("cat", "dog", "feline", "canine"), ("dog", "cat", "puppy", "kitten")])
    message = (
        "forms.txt, row 2: the pair dog / cat is mapped to canine / feline (row 1, as cat / dog -> feline / canine: "
        "the same pair in a symmetric dataset) and to puppy / kitten; expected one form of the dataset per source pair"
    )
    with pytest.raises(InputError) as err:
        run(tmp_path, spec)
    assert str(err.value) == message
    # the reversed pair mapped to the reversed target is the same mapping: no error, bob's rating lands on ann's item
    spec = _forms_table(tmp_path, [("cat", "dog", "feline", "canine"), ("dog", "cat", "canine", "feline")])
    assert ratings(run(tmp_path, spec)) == [("feline", "canine", "ann", 5.0), ("feline", "canine", "bob", 4.0)]
    # a pair of one word twice is its own reverse; an asymmetric dataset keeps the two orders apart
    run(tmp_path, _forms_table(tmp_path, [("cat", "dog", "feline", "canine"), ("cat", "cat", "a", "b")] * 2))
    spec = _forms_table(tmp_path, [("cat", "dog", "feline", "canine"), ("dog", "cat", "puppy", "kitten")],
                        symmetric=False)  # fmt: skip
    assert ratings(run(tmp_path, spec)) == [("feline", "canine", "ann", 5.0), ("feline", "canine", "bob", 4.0)]


def test_a_strip_that_empties_a_word_is_an_error_naming_the_pattern(tmp_path):
    """``strip: ".*"`` emptied every word, and the error spoke of "the pair  /  mapped two ways"."""
    spec = _forms_table(tmp_path, [("cat", "dog", "feline", "canine"), ("cow", "hen", "bovine", "fowl")], strip=".*")
    with pytest.raises(ConfigError) as err:
        run(tmp_path, spec)
    assert str(err.value) == (
        "config datasets.t.sources[1].word_forms.strip: '.*' leaves nothing of the source word 'cat' (forms.txt, "
        "row 1): a strip pattern removes a part of each word, e.g. '-[a-z]$' for a tag"
    )
    # a strip that leaves something: the table maps as before (look-around works as with re)
    spec = _forms_table(tmp_path, [("cat-n", "dog-n", "feline", "canine")], strip=r"(?<=[a-z])-[a-z]$")
    assert ratings(run(tmp_path, spec)) == [("feline", "canine", "ann", 5.0), ("feline", "canine", "bob", 4.0)]


def test_a_strip_that_backtracks_without_end_stops_with_a_one_line_error(tmp_path, monkeypatch):
    """``(a|aa)+$`` on 40 letters and a b backtracks exponentially: with re the clean job hung."""
    from simgold.io import patterns

    monkeypatch.setattr(patterns, "PATTERN_SECONDS", 0.2)
    word = "a" * 40 + "b"
    spec = _forms_table(tmp_path, [(word, "dog", "feline", "canine")], strip="(a|aa)+$")
    with pytest.raises(patterns.PatternTimeout) as err:
        run(tmp_path, spec)
    assert str(err.value) == (
        f"config datasets.t.sources[1].word_forms.strip: the pattern '(a|aa)+$' did not finish within 0.2 s on "
        f"'{word}' (a nested repetition such as (a|aa)+ can take exponential time): simplify the pattern"
    )
    assert "\n" not in str(err.value) and isinstance(err.value, ConfigError)


# -------------------------------------------------------------------------------- the ledger's making


def test_chunks_of_cells_and_of_ledger_rows_change_nothing(tmp_path, monkeypatch):
    """Raw cells are factorized a chunk at a time and the ledger's text columns taken in chunks: with
    chunks of 2 and 3 the ledger is the one written by hand, in file order (comment lines, header
    cells and a column the config does not name among the cells), every string where it was."""
    text = "# batch 1\nw1\tw2\tr1\tr2\tnote\ncat\tdog\t3\tx\tok\n# batch 2\nsun\tmoon\t\t7\t\nsea\tlake\tx\t2\tyes\n"
    f = write(tmp_path, "w.tsv", text)
    spec = ds([{"path": f, "words": ["w1", "w2"], "raters": "^r\\d$", "comment": "#"}])
    monkeypatch.setattr(clean, "_CHUNK", 3)
    monkeypatch.setattr(valuecells, "_CHUNK", 2)
    t = run(tmp_path, spec)
    ledger = t["rejects"][["source_row", "column", "raw_value", "reason"]].values.tolist()
    assert ledger == [
        [1, "(line)", "# batch 1", "ignored_row"],
        *[[2, c, c, "ignored_row"] for c in ("w1", "w2", "r1", "r2", "note")],
        [3, "r2", "x", "non_numeric"],
        [3, "note", "ok", "ignored_column"],
        [4, "(line)", "# batch 2", "ignored_row"],
        [5, "r1", "", "missing"],
        [5, "r2", "7", "out_of_scale"],
        [6, "r1", "x", "non_numeric"],
        [6, "note", "yes", "ignored_column"],
    ]
    assert t["rejects"]["detail"].tolist()[6:9] == ["not a number", IGNORED, "a comment line"]
    assert ratings(t) == [("cat", "dog", "r1", 3.0), ("sea", "lake", "r2", 2.0)]
    assert (
        t["rejects"]["raw_value"].dtype == "str" and t["rejects"]["raw_value"].array._pa_array.num_chunks == 7
    )  # 13 rows by 2
    monkeypatch.undo()
    again = run(tmp_path, spec)
    pd.testing.assert_frame_equal(again["rejects"], t["rejects"])
    pd.testing.assert_frame_equal(again["ratings"], t["ratings"])


IGNORED = "a column the config does not name (words, raters, mean, sd, n, ...)"


def test_the_file_order_of_ledger_rows_and_its_fallback_past_63_bits():
    src, row, j = np.array([0, 0, 1, 0, 0]), np.array([5, 9, 1, 5, 5]), np.array([1, 0, 0, -1, 1])
    # (0, 5, -1) first, then the two (0, 5, 1) in their given order, (0, 9, 0), (1, 1, 0)
    assert valuecells._file_order(src.copy(), row, j).tolist() == [3, 0, 4, 1, 2]
    huge = np.array([5, 2**62, 1, 5, 5])  # spans multiply past 2**63: a lexicographic sort instead
    assert valuecells._file_order(src.copy(), huge, j).tolist() == [3, 0, 4, 1, 2]
    assert valuecells._file_order(*(np.empty(0, dtype=np.int64),) * 3).tolist() == []


def test_a_text_column_from_codes_keeps_its_nulls():
    column = valuecells.text_column(np.array([1, 0, 1, 2]), [None, "a", "bé"])
    assert str(column.dtype) == "str" and column.isna().tolist() == [False, True, False, False]
    assert column.tolist()[2:] == ["a", "bé"] and column.iloc[0] == "a"
    nulls = valuecells.text_column(np.array([0, 0]), [None])
    assert nulls.dtype == object and nulls.tolist() == [None, None]
    strings = valuecells.Strings([None, ""])
    assert strings.codes(["7", "", None, "7"]).tolist() == [2, 1, 0, 2] and strings.values == [None, "", "7"]


#: a child process cleaning a wide sheet of 2,000 items x 300 raters, each rater answering every
#: tenth item: it prints the tables' sizes and how far its peak resident memory grew (MiB)
WIDE_SHEET_MEMORY = """
import resource, sys
import pandas
from simgold.stages.clean import clean_dataset

n, m = 2000, 300
rows = ["w1\\tw2\\t" + "\\t".join(f"r{j}" for j in range(m))]
rows += [f"a{i}\\tb{i}\\t" + "\\t".join("3" if (i + j) % 10 == 0 else "" for j in range(m)) for i in range(n)]
with open(sys.argv[1] + "/wide.tsv", "w") as fh:
    fh.write("\\n".join(rows) + "\\n")
del rows
spec = {"language": "en", "kind": "ratings", "scale": [0, 6],
        "sources": [{"path": "wide.tsv", "words": ["w1", "w2"], "raters": "^r"}]}
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = clean_dataset("d", spec, base_dir=sys.argv[1])
grew = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) // 1024
counts = t["rejects"]["reason"].value_counts()
print(len(t["ratings"]), counts["missing"], counts["ignored_row"], bool(t["summary"]["ledger_balanced"].iloc[0]), grew)
"""


def test_cleaning_a_wide_sheet_grows_the_process_by_less_than_its_cells_as_python_strings(tmp_path):
    """600,000 cells, 540,302 of them ledger rows: the ledger's text is made by Arrow from codes into
    its few distinct strings, the cells' arrays let go before it is made. Cleaning stays under
    150 MiB more than the process held before (a ledger of Python strings needed about 220)."""
    proc = subprocess.run(
        [sys.executable, "-c", WIDE_SHEET_MEMORY, str(tmp_path)], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    ratings_, missing, header, balanced, grew = proc.stdout.split()
    # each item is answered by the 30 raters j with (i + j) % 10 == 0; the header's 302 cells
    assert (int(ratings_), int(missing), int(header), balanced) == (60_000, 540_000, 302, "True")
    assert int(grew) < 150, f"cleaning grew the process by {grew} MiB"
