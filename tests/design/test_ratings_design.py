"""``simgold design ratings``: the pairs file read strictly, the design counted from the files it
wrote, and the command's sizing."""

from __future__ import annotations

import io

import numpy as np
import openpyxl
import pandas as pd
import pytest
import yaml

from simgold.cli import main
from simgold.design.pairs import parse_pairs
from simgold.design.ratings import design_ratings
from simgold.io.tables import write_parquet


def _pairs(n=30, repeats=2, anchors=2, checks=2):
    rows = ["word1,word2,role,expect"]
    rows += [f"a{i},b{i},{'repeat' if i < repeats else ''}," for i in range(n)]
    rows += [f"anchor{i},fixed{i},anchor," for i in range(anchors)]
    rows += [f"check{i},check{i},attention,{1 + 5 * (i % 2)}" for i in range(checks)]
    return parse_pairs("\n".join(rows) + "\n", "pairs.csv")


@pytest.mark.parametrize(
    "text, message",
    [
        (
            "word1,word2\ncat,dog\ndog,cat\n",
            r"pairs.csv line 3: the pair 'dog'/'cat' is listed twice \(first on line 2\)",
        ),
        ("word1,word2,role\ncat,dog,filler\n", r"line 2 column role: 'filler' is not a role; expected one of item"),
        ("word1,word2,role,expect\nsun,sun,attention,\n", r"line 2 column expect: ''; an attention check needs"),
        ("word1,word2,role,expect\ncat,dog,item,3\n", r"line 2 column expect: '3' on a row of role 'item'"),
        ("w1,word2\ncat,dog\n", r"pairs.csv line 1: no column word1; the header is \['w1', 'word2'\]"),
        ("word1,word2\ncat,\n", r"line 2 column word2: empty"),
    ],
)
def test_a_bad_pairs_file_is_refused_naming_line_column_and_value(text, message):
    with pytest.raises(ValueError, match=message):
        parse_pairs(text, "pairs.csv")


def test_every_item_is_rated_exactly_k_times_and_loads_differ_by_at_most_one():
    design = design_ratings(_pairs(), name="s", scale=(0, 6), n_raters=7, raters_per_item=3, seed=4, language="en")
    table = design.table
    items = table[table["role"] == "item"]
    assert items.groupby("item").size().eq(3).all() and items["item"].nunique() == 30
    loads = items.groupby("rater").size()
    assert len(loads) == 7 and loads.max() - loads.min() <= 1 and loads.sum() == 90  # 30 x 3 over 7 raters
    per_rater = table.groupby("rater")
    assert per_rater.apply(lambda t: t.sort_values("position")["role"].iloc[:2].eq("anchor").all()).all()
    assert table[table["role"] == "attention"].groupby("rater").size().eq(2).all()
    # a repeat comes back at least half the rater's questions after the anchors later
    for rater, t in per_rater:
        for item in t.loc[t["role"] == "repeat", "item"]:
            first, second = sorted(t.loc[t["item"] == item, "position"])
            assert second - first >= np.ceil((len(t) - 2 - 2) / 2), (rater, item)


def test_the_workbook_shows_the_design_with_the_words_in_their_shown_order():
    design = design_ratings(_pairs(), name="s", scale=(1, 7), n_raters=5, raters_per_item=2, seed=0, language="en")
    book = openpyxl.load_workbook(io.BytesIO(design.files["sheets/r02.xlsx"]))
    rows = [[c.value for c in row] for row in book["ratings"].iter_rows()]
    mine = design.table[design.table["rater"] == "r02"]
    shown = [[r, b, a] if s else [r, a, b] for r, a, b, s in mine[["rater", "word1", "word2", "swapped"]].to_numpy()]
    assert rows[0] == ["rater", "word 1", "word 2", "rating"]
    assert [row[:3] for row in rows[1:]] == shown and all(row[3] is None for row in rows[1:])
    assert 0 < mine["swapped"].sum() < len(mine)  # some pairs shown the other way round, not all
    (rule,) = book["ratings"].data_validations.dataValidation
    assert (rule.type, rule.formula1, rule.formula2, str(rule.sqref)) == ("whole", "1", "7", f"D2:D{len(mine) + 1}")


def test_the_same_seed_gives_the_same_bytes_and_another_seed_other_questionnaires():
    a, b, c = (
        design_ratings(_pairs(), name="s", scale=(0, 6), n_raters=6, raters_per_item=3, seed=s, language="en")
        for s in (1, 1, 2)
    )
    assert a.files == b.files and a.table.equals(b.table) and a.dataset == b.dataset
    assert a.files["sheets/r01.xlsx"] != c.files["sheets/r01.xlsx"]


def test_a_design_that_cannot_be_made_says_why():
    with pytest.raises(ValueError, match=r"R = 2 raters cannot give each item K = 3 raters: R < K"):
        design_ratings(_pairs(), name="s", scale=(0, 6), n_raters=2, raters_per_item=3, seed=0, language="en")
    bad = parse_pairs("word1,word2,role,expect\ncat,dog,,\nsun,sun,attention,9\n", "p.csv")
    with pytest.raises(ValueError, match=r"p.csv line 3 column expect: 9 is off the scale \[0, 6\]"):
        design_ratings(bad, name="s", scale=(0, 6), n_raters=2, raters_per_item=2, seed=0, language="en")


def test_a_load_that_cannot_be_balanced_is_said_with_the_balance_reached():
    design = design_ratings(_pairs(n=10), name="s", scale=(0, 6), n_raters=4, raters_per_item=3, seed=0, language="en")
    assert "N*K = 30 answers do not split evenly over R = 4 raters: loads 7 to 8" in design.summary[1]


def test_the_command_sizes_k_from_a_pilot_and_writes_the_config(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pairs.csv").write_text("word1,word2\n" + "".join(f"a{i},b{i}\n" for i in range(40)))
    pilot = pd.DataFrame({"dataset": ["p", "p"], "stage": ["raw", "filtered"], "r1": [0.4, 0.5]})
    write_parquet(pilot, tmp_path / "results" / "reliability" / "p" / "summary.parquet")
    args = ["design", "ratings", "pairs.csv", "--name", "s", "--language", "da", "--scale", "0", "6"]
    assert main([*args, "--raters", "12", "--reliability", "0.9", "--pilot", "p"]) == 0
    out = capsys.readouterr().out
    # r1 = 0.5 (the filtered row): K = 0.9 (1 - 0.5) / (0.5 (1 - 0.9)) = 9 raters for 0.9
    assert "each rated by K = 9 of R = 12 raters" in out and "answers to collect: 360" in out
    config = yaml.safe_load((tmp_path / "design" / "s" / "config.yaml").read_text())["datasets"]["s"]
    assert [s["path"] for s in config["sources"]] == [f"raw/s/r{j:02d}.xlsx" for j in range(1, 13)]
    assert config["scale"] == [0, 6] and config["language"] == "da" and config["duplicates"] == "first"
    table = pd.read_parquet(tmp_path / "design" / "s" / "design.parquet")
    assert len(table) == 360 and table.groupby("item").size().eq(9).all()
    assert main([*args, "--raters", "12", "--reliability", "0.9"]) == 1
    assert "--reliability needs --pilot DATASET, or --item-sd and --noise-sd" in capsys.readouterr().err
    assert main([*args, "--raters", "12", "--reliability", "0.9", "--pilot", "nope"]) == 1
    assert "results/reliability/nope/summary.parquet: not found" in capsys.readouterr().err
