"""``simgold design topup``: a budget of further answers goes to the widest intervals, to raters who
kept their place and have not rated the item, and the config reads both rounds with the raters' ids
kept."""

from __future__ import annotations

import numpy as np
import openpyxl
import pandas as pd
import pytest
import yaml

from simgold.cli import main
from simgold.design.pairs import parse_pairs
from simgold.design.ratings import design_ratings
from simgold.design.topup import design_topup
from simgold.io.paths import within_results
from simgold.io.tables import write_parquet
from simgold.stages.clean import clean_dataset
from simgold.stats.rating_design import allocate_answers


def test_the_answers_go_where_the_expected_width_is_largest_within_the_caps():
    # widths 3, 2, 1 over 9, 4, 1 answers: width * sqrt(n) = 9, 4, 1 per answer's scale; hand-stepped:
    # 9/sqrt(9)=3 > 4/2=2 > ...: item 0 until 9/sqrt(9+a) < 2 (a = 12 would be needed), so all 5 go to it
    assert allocate_answers([3.0, 2.0, 1.0], [9, 4, 1], 5).tolist() == [5, 0, 0]
    # capped at 2, the rest to item 1 (2, 4/sqrt(5) = 1.79, 1.63) before item 2 (1/1 = 1)
    assert allocate_answers([3.0, 2.0, 1.0], [9, 4, 1], 5, caps=[2, 9, 9]).tolist() == [2, 3, 0]
    # an item without an interval (NaN) first; a budget beyond every cap stops at the caps
    assert allocate_answers([np.nan, 2.0], [1, 4], 9, caps=[1, 2]).tolist() == [1, 2]
    with pytest.raises(ValueError, match="budget must be a whole number >= 0"):
        allocate_answers([1.0], [2], -1)


def _study(tmp_path):
    """A first round designed, filled in and cleaned: 8 pairs, each rated by 2 of 4 raters."""
    pairs = parse_pairs("word1,word2\n" + "".join(f"a{i},b{i}\n" for i in range(8)), "pairs.csv")
    first = design_ratings(pairs, name="s", scale=(0, 6), n_raters=4, raters_per_item=2, seed=3, language="en")
    for rel, data in first.files.items():
        path = tmp_path / "raw" / "s" / rel.removeprefix("sheets/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        book = openpyxl.load_workbook(path)
        for k, row in enumerate(book["ratings"].iter_rows(min_row=2)):
            row[3].value = k % 7
        book.save(path)
    return first, clean_dataset("s", first.dataset)


def test_a_second_round_asks_raters_who_kept_their_place_and_reads_both_rounds(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    first, tables = _study(tmp_path)
    items = tables["items"]
    # hand-made intervals: the first two items widest
    gold = pd.DataFrame({"item_id": items["item_id"], "n": 2, "ci_low": 0.0, "ci_high": [5.0, 4.0] + [1.0] * 6})
    topup = design_topup(
        "s", first.dataset, items, tables["ratings"], gold, budget=3, seed=0, excluded={"r01"}, new_raters=["r05"]
    )
    # 5/sqrt(3) = 2.89 > 4/sqrt(2) = 2.83 > 5/sqrt(4) = 2.5: two answers for the widest, one for the next
    assert topup.extra["extra"].tolist() == [2, 1] and topup.extra["item_id"].tolist() == items["item_id"][:2].tolist()
    rated = set(zip(tables["ratings"]["item_id"], tables["ratings"]["rater"]))
    asked = topup.table[topup.table["role"] == "item"]
    assert "r01" not in set(asked["rater"])  # excluded: never asked again
    assert not any((i, r) in rated for i, r in zip(asked["item"], asked["rater"]))  # nobody rates an item twice
    assert asked.groupby("item").size().to_dict() == dict(zip(topup.extra["item_id"], topup.extra["extra"]))
    assert set(topup.table["round"]) == {2}
    # the round's files, filled in, read with the first round's by the entry written
    for rel, data in topup.files.items():
        path = tmp_path / "raw" / "s" / rel.replace("sheets/", "")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        book = openpyxl.load_workbook(path)
        for row in book["ratings"].iter_rows(min_row=2):
            row[3].value = 6
        book.save(path)
    both = clean_dataset("s", topup.dataset)
    new = both["ratings"][both["ratings"]["source_file"].str.contains("round2")]
    assert len(new) == 3 and set(new["score"]) == {6.0}
    assert set(new["rater"]) <= {"r02", "r03", "r04", "r05"}
    assert len(both["ratings"]) == len(tables["ratings"]) + 3


def test_the_topup_command_reads_the_run_and_says_where_the_round_goes(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    first, tables = _study(tmp_path)
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "config.yaml").write_text(yaml.safe_dump({"datasets": {"s": first.dataset}}))
    results = tmp_path / "results"
    write_parquet(tables["items"], results / within_results("clean", dataset="s", table="items"))
    write_parquet(tables["ratings"], results / within_results("clean", dataset="s", table="ratings"))
    gold = pd.DataFrame({"item_id": tables["items"]["item_id"], "n": 2, "ci_low": 0.0, "ci_high": 1.0})
    write_parquet(gold, results / within_results("gold", dataset="s"))
    raters = pd.DataFrame({"rater": ["r01", "r02", "r03", "r04"], "excluded": [False, False, True, False]})
    write_parquet(raters, results / within_results("agreement_raters", dataset="s"))
    assert main(["design", "topup", "s", "--budget", "4", "--new-raters", "1"]) == 0
    out = capsys.readouterr().out
    assert "4 answers of a budget of 4 to" in out and "raw/s/round2/" in out
    table = pd.read_parquet(tmp_path / "design" / "s-round2" / "design.parquet")
    assert "r03" not in set(table["rater"]) and len(table) == 4
    config = yaml.safe_load((tmp_path / "design" / "s-round2" / "config.yaml").read_text())["datasets"]["s"]
    assert len(config["sources"]) == 4 + table["rater"].nunique()
    assert main(["design", "topup", "nope", "--budget", "4"]) == 1
    assert "no dataset 'nope' in config/config.yaml" in capsys.readouterr().err


def _answer_bws(files: dict, folder):
    """Every BWS sheet answered (best: the first pair, worst: the last) and put in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for rel, data in files.items():
        if not rel.endswith(".xlsx"):
            continue
        path = folder / rel.rsplit("/", 1)[-1]
        path.write_bytes(data)
        book = openpyxl.load_workbook(path)
        for row in book["answers"].iter_rows(min_row=2):
            row[-2].value, row[-1].value = 1, 4
        book.save(path)


def test_a_bws_topup_shows_the_least_certain_pairs_again_in_tuples_of_its_own(tmp_path, monkeypatch):
    from simgold.design.bws import design_bws
    from simgold.design.topup import design_bws_topup

    monkeypatch.chdir(tmp_path)
    pairs = [(f"a{i}", f"b{i}") for i in range(12)]
    first = design_bws(pairs, name="b", n_raters=3, answers_per_tuple=2, seed=2, formats=("xlsx",), raw_dir="raw/b")
    _answer_bws(first.files, tmp_path / "raw" / "b")
    tables = clean_dataset("b", first.datasets["xlsx"])
    items = tables["items"]
    # hand-made intervals: the first six pairs the widest
    scores = pd.DataFrame({"item_id": items["item_id"], "n_shown": 4, "counting_low": -0.5})
    scores["counting_high"] = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4] + [-0.4] * 6
    topup = design_bws_topup(
        "b", first.datasets["xlsx"], items, scores, budget=6, seed=1, n_raters=2, answers_per_tuple=2
    )
    # 6 // 2 = 3 tuples of 4: 12 slots, each pair in about two, so the 6 widest pairs
    assert topup.extra["item_id"].tolist() == items["item_id"][:6].tolist() and topup.extra["extra"].sum() == 12
    assert set(topup.table["tuple"]) == {"r2t0001", "r2t0002", "r2t0003"} and set(topup.table["round"]) == {2}
    _answer_bws(topup.files, tmp_path / "raw" / "b" / "round2")
    both = clean_dataset("b", topup.dataset)
    answers = both["answers"].drop_duplicates(["tuple", "rater"])
    assert len(answers) == len(tables["answers"].drop_duplicates(["tuple", "rater"])) + 3 * 2
    assert answers["tuple"].str.startswith("r2t").sum() == 6
