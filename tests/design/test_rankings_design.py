"""Avraham & Goldberg's ranking groups designed, filled in by a simulated crowd through openpyxl,
and read back by the cleaning stage as ``kind: rankings`` into the A&G comparisons."""

from __future__ import annotations

import csv
import io

import numpy as np
import openpyxl
import pandas as pd
import pytest
import yaml

from simgold.design.rankings import IMPLIED_FILE, SHEET_NAME, design_rankings
from simgold.stages.clean import clean_dataset
from simgold.stages.comparisons import from_rankings

VOCABULARY = [f"word{k:02d}" for k in range(40)]


def make_groups(n_targets: int = 12) -> list[tuple]:
    """Target t00..: 3, 4 or 5 positives (p00 most similar), 1 or 2 distractors."""
    rows = []
    for t in range(n_targets):
        target = f"t{t:02d}"
        rows += [(target, f"{target}p{j}", "positive") for j in range(3 + t % 3)]
        rows += [(target, f"{target}d{j}", "distractor") for j in range(1 + t % 2)]
    return rows


def design(rows=None, **kw):
    args = dict(name="demo", language="en", n_raters=8, raters_per_group=4, seed=7, raw_dir="raw/demo")
    args.update(kw)
    return design_rankings(make_groups() if rows is None else rows, VOCABULARY, **args)


def sheet_rows(data: bytes) -> list[list]:
    book = openpyxl.load_workbook(io.BytesIO(data))
    return [[c.value for c in row] for row in book[SHEET_NAME].iter_rows()]


# -------------------------------------------------------------------------------- balance


def test_every_group_is_ranked_by_exactly_k_raters_and_loads_are_equal():
    d = design()  # 12 groups x 4 raters = 48 = 8 raters x 6 groups
    per_target = d.table.groupby("target")["rater"].nunique()
    assert per_target.to_dict() == {f"t{t:02d}": 4 for t in range(12)}
    assert d.table.groupby("rater")["target"].nunique().tolist() == [6] * 8
    # every rater ranks exactly the positives of the groups given to them: 3, 4, 5 positives in turn
    positives = {f"t{t:02d}": 3 + t % 3 for t in range(12)}
    for rater, mine in d.table.groupby("rater"):
        assert len(mine) == sum(positives[t] for t in mine["target"].unique())
        assert mine["position"].tolist() == list(range(1, len(mine) + 1))
    assert len(d.table) == 4 * sum(positives.values()) == 4 * 48


def test_loads_within_one_when_they_cannot_be_equal():
    d = design(make_groups(7), n_raters=5, raters_per_group=3)  # 21 answers over 5 raters: 4 or 5 each
    loads = sorted(d.table.groupby("rater")["target"].nunique().tolist())
    assert loads == [4, 4, 4, 4, 5]
    assert set(d.table.groupby("target")["rater"].nunique()) == {3}


# -------------------------------------------------------------------------------- the sheets


def test_a_sheet_holds_the_positives_of_its_groups_only_contiguous_with_a_rank_rule():
    d = design()
    mine = d.table[d.table["rater"] == "r03"]
    rows = sheet_rows(d.files["sheets/r03.xlsx"])
    assert rows[0] == ["target", "candidate", "rank"]
    assert rows[1:] == [[t, c, None] for t, c in zip(mine["target"], mine["candidate"])]
    assert all("p" in c[3:] for _, c, _ in rows[1:])  # no distractor, no random word shown
    order = list(dict.fromkeys(mine["target"]))
    assert mine["target"].tolist() == [t for t in order for _ in range(3 + int(t[1:]) % 3)]  # contiguous
    book = openpyxl.load_workbook(io.BytesIO(d.files["sheets/r03.xlsx"]))
    (rule,) = book[SHEET_NAME].data_validations.dataValidation
    top = max(3 + int(t[1:]) % 3 for t in order)
    assert (rule.type, rule.formula1, rule.formula2) == ("whole", "1", str(top))
    assert str(rule.sqref) == f"C2:C{len(mine) + 1}"
    assert book.sheetnames == ["instructions", SHEET_NAME]
    assert "Rater r03" in book["instructions"]["A1"].value
    text = d.files["sheets/r03.csv"].decode()
    assert list(csv.reader(io.StringIO(text))) == [[str(v or "") for v in row] for row in rows]


def test_each_rater_sees_targets_and_positives_in_an_order_of_their_own():
    d = design(make_groups(8), n_raters=2, raters_per_group=2)  # both raters rank all 8 groups
    a, b = (d.table[d.table["rater"] == r] for r in ("r01", "r02"))
    assert (
        sorted(a["candidate"]) == sorted(b["candidate"]) == sorted(c for _, c, k in make_groups(8) if k == "positive")
    )
    assert list(dict.fromkeys(a["target"])) != list(dict.fromkeys(b["target"]))
    assert a["candidate"].tolist() != b["candidate"].tolist()


def test_the_implied_file_puts_distractors_then_random_words_below_the_positives():
    d = design(n_random=2)
    implied = pd.read_csv(io.BytesIO(d.files[IMPLIED_FILE]))
    assert implied.columns.tolist() == ["target", "candidate", "category", "rater", "rank"]
    pairs = d.table[["rater", "target"]].drop_duplicates()
    assert len(implied) == sum(4 * ((1 + t % 2) + 2) for t in range(12))  # 4 raters x (distractors + 2 randoms)
    for (rater, target), rows in implied.groupby(["rater", "target"]):
        p, n_d = 3 + int(target[1:]) % 3, 1 + int(target[1:]) % 2
        assert rows["category"].tolist() == ["distractor"] * n_d + ["random"] * 2
        assert rows["rank"].tolist() == list(range(p + 1, p + n_d + 3))
    assert set(map(tuple, implied[["rater", "target"]].drop_duplicates().values)) == set(map(tuple, pairs.values))


# -------------------------------------------------------------------------------- random words


def test_random_words_are_seeded_and_never_the_target_a_candidate_or_twice():
    rows = make_groups()
    first, again, other = (
        design_rankings(
            rows,
            VOCABULARY + list(rows[0][:2]) + ["word01"],
            name="x",
            language="en",
            n_random=3,
            n_raters=4,
            raters_per_group=2,
            seed=s,
            raw_dir="raw/x",
        )
        for s in (1, 1, 2)
    )
    assert first.files == again.files
    randoms = first.groups[first.groups["category"] == "random"]
    assert randoms.groupby("target").size().tolist() == [3] * 12
    assert not randoms.duplicated(["target", "candidate"]).any()
    given = first.groups[first.groups["category"] != "random"]
    for target, words in randoms.groupby("target")["candidate"]:
        own = {target, *given[given["target"] == target]["candidate"]}
        assert not set(words) & own and set(words) <= set(VOCABULARY) | {"t00", "t00p0"}
    assert not {"t00", "t00p0"} & set(randoms[randoms["target"] == "t00"]["candidate"])
    assert first.files["sheets/r01.xlsx"] == again.files["sheets/r01.xlsx"]
    other_randoms = other.groups[other.groups["category"] == "random"]
    assert randoms["candidate"].tolist() != other_randoms["candidate"].tolist()
    assert first.files["sheets/r01.xlsx"] != other.files["sheets/r01.xlsx"]


def test_a_vocabulary_just_large_enough_gives_every_remaining_word():
    rows = [("cat", "lion", "positive"), ("cat", "milk", "distractor")]
    d = design_rankings(
        rows,
        ["cat", "sky", "lion", "cup", "sky", "milk"],
        name="x",
        language="en",
        n_random=2,
        n_raters=1,
        raters_per_group=1,
        seed=0,
        raw_dir="r",
    )
    assert sorted(d.groups[d.groups["category"] == "random"]["candidate"]) == ["cup", "sky"]
    with pytest.raises(ValueError, match=r"2 words can be random words for target 'cat'.*n_random needs 3"):
        design_rankings(
            rows,
            ["cat", "sky", "lion", "cup", "sky", "milk"],
            name="x",
            language="en",
            n_random=3,
            n_raters=1,
            raters_per_group=1,
            seed=0,
            raw_dir="r",
        )


# -------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "bad,message",
    [
        ([("dog", "bone", "distractor")], r"groups row 4: target 'dog' has no positive"),
        (
            [("cat", "lion", "positive")],
            r"groups row 4: candidate 'lion' of target 'cat' is listed twice \(also groups row 2\)",
        ),
        ([("cat", "puma", "hyponym")], r"groups row 4: category 'hyponym'; expected positive or distractor"),
        ([("cat", "cat", "positive")], r"groups row 4: candidate 'cat' is its target"),
        ([("cat", " ", "positive")], r"groups row 4: .* has an empty word"),
    ],
)
def test_bad_groups_are_refused_naming_the_row_and_value(bad, message):
    rows = [("cat", "lion", "positive"), ("cat", "milk", "distractor")] + bad
    with pytest.raises(ValueError, match=message):
        design_rankings(
            rows, VOCABULARY, name="x", language="en", n_raters=2, raters_per_group=1, seed=0, raw_dir="r", first_row=2
        )


def test_the_row_named_is_the_files_row_past_blank_rows(tmp_path, capsys):
    """The CLI hands every row of the file, blank ones too: the error names the row a user sees."""
    from simgold.cli import main

    groups = tmp_path / "groups.csv"
    groups.write_text("target,candidate,category\ncat,lion,positive\n\n,,\ncat,cat,positive\n\ndog,bone,distractor\n")
    (tmp_path / "vocab.txt").write_text(" ".join(VOCABULARY))
    args = ["design", "rankings", str(groups), "--name", "x", "--language", "en", "--raters", "2", "--per-group", "1"]
    args += ["--vocabulary", str(tmp_path / "vocab.txt"), "--out", str(tmp_path / "out")]
    assert main(args) == 1
    assert capsys.readouterr().err == f"simgold design rankings: {groups}: groups row 5: candidate 'cat' is its target\n"
    groups.write_text("target,candidate,category\ncat,lion,positive\n\ndog,bone,distractor\n")
    assert main(args) == 1
    assert capsys.readouterr().err.endswith("groups row 4: target 'dog' has no positive; raters rank the positives\n")


def test_bad_counts_formats_and_language_are_refused():
    rows = [("cat", "lion", "positive")]
    kw = dict(name="x", n_raters=2, raters_per_group=1, seed=0, raw_dir="r")
    with pytest.raises(ValueError, match="raters_per_item = 3 is more than n_raters = 2"):
        design_rankings(rows, VOCABULARY, language="en", **{**kw, "raters_per_group": 3})
    with pytest.raises(ValueError, match="formats .*'pdf'"):
        design_rankings(rows, VOCABULARY, language="en", formats=("pdf",), **kw)
    with pytest.raises(ValueError, match="language 'english'"):
        design_rankings(rows, VOCABULARY, language="english", **kw)


# -------------------------------------------------------------------------------- round trip


def fill(d, tmp_path, noise: float, seed: int, skip: tuple = ()) -> dict:
    """Every rater ranks their positives by the truth (p0 > p1 > ...) plus normal noise; the XLSX
    files filled through openpyxl and put in tmp_path/raw/demo beside the implied ranks."""
    rng = np.random.default_rng(seed)
    raw = tmp_path / "raw" / "demo"
    raw.mkdir(parents=True)
    given = {}
    for path, data in d.files.items():
        if not path.endswith(".xlsx"):
            continue
        rater = path.split("/")[1][:-5]
        book = openpyxl.load_workbook(io.BytesIO(data))
        sheet = book[SHEET_NAME]
        rows = list(sheet.iter_rows(min_row=2))
        for target in dict.fromkeys(r[0].value for r in rows):
            if (rater, target) in skip:
                continue
            mine = [r for r in rows if r[0].value == target]
            value = [-int(r[1].value[-1]) + rng.normal(0, noise) for r in mine]  # p0 highest
            for rank, k in enumerate(np.argsort(value)[::-1], start=1):
                mine[k][2].value = rank
                given[rater, target, mine[k][1].value] = rank
        book.save(raw / f"{rater}.xlsx")
    (raw / IMPLIED_FILE).write_bytes(d.files[IMPLIED_FILE])
    return given


def test_round_trip_through_openpyxl_and_the_cleaning_stage_into_comparisons(tmp_path, monkeypatch):
    d = design()
    given = fill(d, tmp_path, noise=0.8, seed=3)
    monkeypatch.chdir(tmp_path)
    t = clean_dataset("demo", d.dataset)
    summary = t["summary"].iloc[0]
    assert summary["n_values_rejected"] == 0 and summary["ledger_balanced"]
    assert set(t["rejects"]["reason"]) == {"ignored_row"}  # the header rows, nothing else
    ranks = t["rankings"]
    positive = ranks[ranks["category"] == "positive"]
    got = {(r.rater, r.target, r.candidate): r.rank for r in positive.itertuples()}
    assert got == given and len(given) == 4 * 48
    sizes = {f"t{t:02d}": (3 + t % 3, 1 + t % 2) for t in range(12)}
    assert len(ranks) == sum(4 * (p + n_d + 1) for p, n_d in sizes.values())
    for (rater, target), group in ranks.groupby(["rater", "target"]):
        assert sorted(group["rank"]) == list(range(1, sum(sizes[target]) + 2))
    comparisons = from_rankings("demo", ranks)
    groups = d.groups
    for target, group in groups.groupby("target"):
        pos = group[group["category"] == "positive"]["candidate"].tolist()
        rows = comparisons[comparisons["target"] == target]
        implied = rows[rows["type"] != "positive"]
        expected = {(p, c, k) for p in pos for c, k in zip(group["candidate"], group["category"]) if k != "positive"}
        assert set(zip(implied["w1"], implied["w2"], implied["type"])) == expected
        assert (implied["r"] == 1.0).all()
        graded = rows[rows["type"] == "positive"]
        assert len(graded) == len(pos) * (len(pos) - 1) // 2
        for row in graded.itertuples():  # r: the share of the 4 raters who put w1 above w2 (a tie: none)
            raters = positive[positive["target"] == target].pivot(index="rater", columns="candidate", values="rank")
            assert row.r == pytest.approx((raters[row.w1] < raters[row.w2]).mean()) and row.n_raters == 4
    assert {"distractor", "random", "positive"} == set(comparisons["type"])


def test_a_group_left_unranked_goes_to_the_ledger_whole(tmp_path, monkeypatch):
    d = design()
    target = d.table[d.table["rater"] == "r02"]["target"].iloc[0]
    fill(d, tmp_path, noise=0.0, seed=0, skip=(("r02", target),))
    monkeypatch.chdir(tmp_path)
    t = clean_dataset("demo", d.dataset)
    p, n_d = 3 + int(target[1:]) % 3, 1 + int(target[1:]) % 2
    ledger = t["rejects"][t["rejects"]["reason"] != "ignored_row"]
    # the positives' blank cells (openpyxl writes no cell: the row ends before the rank column), and
    # the implied ranks of the group, which are not 1..m alone
    assert ledger["reason"].tolist() == ["short_row"] * p + ["invalid_ranking"] * (n_d + 1)
    ledger = ledger[ledger["reason"] == "invalid_ranking"]
    assert f"rater 'r02' ranked target {target!r} {list(range(p + 1, p + n_d + 2))}" in ledger["detail"].iloc[0]
    ranks = t["rankings"]
    assert ranks[(ranks["rater"] == "r02") & (ranks["target"] == target)].empty
    assert len(ranks) == sum(4 * (3 + k % 3 + 1 + k % 2 + 1) for k in range(12)) - (p + n_d + 1)


def test_csv_sheets_are_read_when_no_workbook_is_written(tmp_path, monkeypatch):
    rows = [("cat", "lion", "positive"), ("cat", "tiger", "positive"), ("cat", "milk", "distractor")]
    d = design_rankings(
        rows,
        VOCABULARY,
        name="x",
        language="en",
        n_raters=2,
        raters_per_group=2,
        seed=0,
        raw_dir="raw/x",
        formats=("csv",),
    )
    assert sorted(d.files) == [IMPLIED_FILE, "sheets/r01.csv", "sheets/r02.csv"]
    assert [s["path"] for s in d.dataset["sources"]] == ["raw/x/r01.csv", "raw/x/r02.csv", f"raw/x/{IMPLIED_FILE}"]
    raw = tmp_path / "raw" / "x"
    raw.mkdir(parents=True)
    for rater, ranks in (("r01", "1 2"), ("r02", "2 1")):
        lines = d.files[f"sheets/{rater}.csv"].decode().splitlines()
        filled = [lines[0]] + [line + r for line, r in zip(lines[1:], ranks.split())]
        (raw / f"{rater}.csv").write_text("\n".join(filled) + "\n")
    (raw / IMPLIED_FILE).write_bytes(d.files[IMPLIED_FILE])
    monkeypatch.chdir(tmp_path)
    t = clean_dataset("x", d.dataset)
    assert t["summary"].iloc[0]["n_values_rejected"] == 0
    comparisons = from_rankings("x", t["rankings"])
    graded = comparisons[comparisons["type"] == "positive"]
    assert graded[["w1", "w2", "r", "n_raters"]].values.tolist() == [["lion", "tiger", 0.5, 2]]
    assert sorted(comparisons["type"]) == ["distractor", "distractor", "positive", "random", "random"]


def test_the_same_seed_gives_the_same_bytes_and_table():
    first, again = design(), design()
    assert first.files == again.files
    pd.testing.assert_frame_equal(first.table, again.table)
    assert first.summary == again.summary and first.dataset == again.dataset


def test_the_rankings_command_writes_the_design_and_refuses_a_bad_header(tmp_path, monkeypatch, capsys):
    from simgold.cli import main

    monkeypatch.chdir(tmp_path)
    rows = ["target,candidate,category", "car,truck,positive", "car,bus,positive", "car,road,distractor"]
    rows += ["dog,wolf,positive", "dog,fox,positive", "dog,bone,distractor"]
    (tmp_path / "groups.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    (tmp_path / "vocab.txt").write_text("sky pen cup lamp\n", encoding="utf-8")
    args = ["design", "rankings", "groups.csv", "--vocabulary", "vocab.txt", "--name", "toy", "--language", "en"]
    assert main([*args, "--raters", "3", "--per-group", "2", "--seed", "2"]) == 0
    out = tmp_path / "design" / "toy"
    assert sorted(p.name for p in (out / "sheets").iterdir()) == ["r01.xlsx", "r02.xlsx", "r03.xlsx"]
    table = pd.read_parquet(out / "design.parquet")
    assert len(table) == 2 * 2 * 2  # 2 groups x 2 raters x 2 positives to rank
    config = yaml.safe_load((out / "config.yaml").read_text(encoding="utf-8"))["datasets"]["toy"]
    assert config["kind"] == "rankings" and config["sources"][-1]["path"] == "raw/toy/implied_ranks.csv"
    assert "copy design/toy/implied_ranks.csv to raw/toy/ as well" in capsys.readouterr().out
    (tmp_path / "groups.csv").write_text("word,cand,cat\ncar,truck,positive\n", encoding="utf-8")
    assert main([*args, "--raters", "3", "--per-group", "2"]) == 1
    assert "groups.csv: line 1: the header is ['word', 'cand', 'cat']" in capsys.readouterr().err
