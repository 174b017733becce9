"""``design_bws``: the tuples and who answers them (every tuple by exactly K raters, loads and
item counts within one), the sheets' validation, byte-identical files per seed, bad pairs refused,
and a simulated crowd's filled workbooks read back by the config entry the design wrote."""

from __future__ import annotations

import io
from collections import Counter

import numpy as np
import openpyxl
import pandas as pd
import pytest

from simgold.design.bws import FORMATS, SHEET, design_bws
from simgold.stages.clean import clean_dataset

WORDS = [f"w{n:02d}" for n in range(40)]
PAIRS = [(WORDS[2 * n], WORDS[2 * n + 1]) for n in range(20)]  # 20 pairs: w00:w01, w02:w03, ...


def design(**keys):
    args = {"name": "demo", "n_raters": 7, "answers_per_tuple": 3, "seed": 3, "raw_dir": "raw/demo", **keys}
    return design_bws(PAIRS, **args)


def test_every_tuple_is_answered_by_exactly_k_raters_loads_and_appearances_within_one():
    d = design()
    table = d.table
    assert d.tuples.n_tuples == 40 and len(table) == 40 * 3  # factor 2 x 20 pairs, 3 answers each
    per_tuple = table.groupby("tuple")["rater"].agg(["size", "nunique"])
    assert (per_tuple["size"] == 3).all() and (per_tuple["nunique"] == 3).all() and len(per_tuple) == 40
    loads = table["rater"].value_counts()
    assert sorted(loads.index) == [f"r{x:02d}" for x in range(1, 8)]
    assert loads.max() - loads.min() <= 1 and loads.sum() == 120  # 120 answers over 7 raters: 17 or 18
    shown = Counter(table.drop_duplicates("tuple")[["item1", "item2", "item3", "item4"]].values.ravel())
    assert len(shown) == 20 and all(abs(n - 8) < 1 for n in shown.values())  # 40 x 4 / 20 = 8 each
    # no tuple shows an item twice; positions run 1..load per rater, in order
    assert (table[["item1", "item2", "item3", "item4"]].nunique(axis=1) == 4).all()
    for _, rows in table.groupby("rater"):
        assert rows["position"].tolist() == list(range(1, len(rows) + 1))
    assert table.columns.tolist() == ["rater", "position", "tuple", "role", "item1", "item2", "item3", "item4"]
    assert set(table["role"]) == {"item"} and table["tuple"].iloc[0].startswith("t0")


def test_the_table_agrees_with_the_tuples_and_the_assignment():
    d = design()
    codes = {f"{a}:{b}": n for n, (a, b) in enumerate(PAIRS)}
    for tuple_id, rows in d.table.groupby("tuple"):
        t = int(tuple_id[1:]) - 1
        items = rows[["item1", "item2", "item3", "item4"]].iloc[0].map(codes).tolist()
        assert items == d.tuples.tuples[t].tolist()
        assert sorted(int(r[1:]) - 1 for r in rows["rater"]) == d.assignment.raters[t].tolist()


def test_the_summary_says_the_design():
    lines = design().summary
    assert lines[0] == "40 tuples of 4 items over 20 items"
    assert lines[1] == "each item in 8 to 8 tuples (mean 8.00)"
    assert lines[2].startswith("pair co-occurrence SD ") and "pairs share more than one tuple" in lines[2]
    assert lines[3] == "each tuple answered by 3 of 7 raters; 17 to 18 tuples a rater"
    assert lines[4] == "120 answers in all"


def test_the_workbook_accepts_only_the_positions_in_best_and_worst():
    d = design(k=5)
    book = openpyxl.load_workbook(io.BytesIO(d.files["sheets/r01.xlsx"]))
    assert book.sheetnames == ["instructions", SHEET]
    sheet = book[SHEET]
    header = [c.value for c in sheet[1]]
    assert header == ["question", "rater", "tuple", "item1", "item2", "item3", "item4", "item5", "best", "worst"]
    n = sheet.max_row - 1
    (rule,) = sheet.data_validations.dataValidation
    assert (rule.type, rule.formula1, rule.showErrorMessage) == ("list", '"1,2,3,4,5"', True)
    assert str(rule.sqref) == f"I2:I{n + 1} J2:J{n + 1}"
    assert "1 to 5" in book["instructions"]["A3"].value and "one of 1, 2, 3, 4, 5" in book["instructions"]["A4"].value


def test_the_same_seed_gives_the_same_bytes_another_seed_other_files():
    first, again, other = design(), design(), design(seed=4)
    assert first.files == again.files and list(first.files) == sorted(first.files)
    assert len(first.files) == 7 * 2 + 4
    for path in ("sheets/r01.xlsx", "sheets/r01.csv", "potato/data.jsonl", "label_studio/tasks.json"):
        assert first.files[path] != other.files[path], path
    assert first.files["label_studio/labeling_config.xml"] == other.files["label_studio/labeling_config.xml"]


def test_only_the_formats_asked_for_are_written():
    d = design(formats=("csv",))
    assert sorted(d.files) == [f"sheets/r{x:02d}.csv" for x in range(1, 8)] and list(d.datasets) == ["csv"]
    with pytest.raises(ValueError, match="formats \\['pdf'\\]"):
        design(formats=("csv", "pdf"))


def test_the_config_entries_name_one_source_per_rater_file_or_the_platforms_export():
    d = design(separator="/")
    assert list(d.datasets) == list(FORMATS)
    xlsx = d.datasets["xlsx"]
    assert (xlsx["kind"], xlsx["language"], len(xlsx["sources"])) == ("bws", "en", 7)
    assert xlsx["sources"][0] == {
        "path": "raw/demo/r01.xlsx", "sheet": SHEET, "items": ["item1", "item2", "item3", "item4"], "best": "best",
        "worst": "worst", "choice": "position", "rater": "rater", "tuple": "tuple",
        "attributes": {"question": {"column": "question", "type": "int"}}, "separator": "/",
    }  # fmt: skip
    assert (
        d.datasets["csv"]["sources"][6]["path"] == "raw/demo/r07.csv" and "sheet" not in d.datasets["csv"]["sources"][0]
    )
    assert d.datasets["potato"]["sources"] == [
        {"path": "raw/demo/annotated_instances.tsv", "preset": "potato", "separator": "/"}
    ]
    assert d.datasets["label_studio"]["sources"][0]["path"] == "raw/demo/export.json"
    assert design(k=3).datasets["label_studio"]["sources"][0]["items"] == ["item1", "item2", "item3"]


@pytest.mark.parametrize(
    "pairs, message",
    [
        ([("a", "b"), ("c", "d"), ("e", "f"), ("a", "b"), ("g", "h")], "the pair a/b is listed twice: pairs 1 and 4"),
        ([("a", "b"), ("c", "d"), ("e", "f"), ("g", "h"), ("d", "c")], "the pair d/c is listed twice: pairs 2 and 5"),
        ([("a", "b"), ("c", "d"), ("e", "f")], "3 pairs: a tuple of k = 4 needs at least 4"),
        ([("a", "b"), ("c:x", "d"), ("e", "f"), ("g", "h")], "pair 2 .*holds the separator ':'"),
        ([("a", "b"), ("c", " "), ("e", "f"), ("g", "h")], "pair 2 .*a word is empty"),
        ([("a", "b"), ("c", "d"), ("e | x", "f"), ("g", "h")], "pair 3: 'e | x:f' holds '|'"),
        ([("a", "b", "c"), ("c", "d"), ("e", "f"), ("g", "h")], "pair 1: .* is not two words"),
    ],
)
def test_bad_pairs_are_refused_with_what_is_wrong(pairs, message):
    with pytest.raises(ValueError, match=message):
        design_bws(pairs, name="x", n_raters=2, answers_per_tuple=1, seed=0, raw_dir="raw")


def test_more_answers_per_tuple_than_raters_is_refused():
    with pytest.raises(ValueError, match="raters_per_item = 8 is more than n_raters = 7"):
        design(answers_per_tuple=8)


# -------------------------------------------------------------------------------- a crowd fills the sheets


def crowd_answer(items: list, rng, careless: bool) -> tuple[int, int]:
    """The positions (1-based) a rater picks: the pair with the highest and lowest true value (its
    first word's number); two random positions when careless."""
    truth = [int(item.split(":")[0][1:]) for item in items]
    if careless:
        best, worst = rng.choice(len(items), size=2, replace=False)
        return int(best) + 1, int(worst) + 1
    return int(np.argmax(truth)) + 1, int(np.argmin(truth)) + 1


def test_a_crowd_fills_the_workbooks_and_the_written_config_reads_them_back(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    d = design(raw_dir="raw/demo")
    rng = np.random.default_rng(0)
    expected, raw = [], tmp_path / "raw" / "demo"
    raw.mkdir(parents=True)
    for path, data in d.files.items():
        if not path.endswith(".xlsx"):
            continue
        rater = path.split("/")[1][:-5]
        book = openpyxl.load_workbook(io.BytesIO(data))
        sheet = book[SHEET]
        for row in sheet.iter_rows(min_row=2):
            items = [c.value for c in row[3:7]]
            best, worst = crowd_answer(items, rng, careless=rater == "r07")
            if rater == "r03" and row[0].value > 10:  # r03 stops half way: rows left blank
                continue
            if rater == "r05" and row[0].value == 2:  # typed past the validation (openpyxl does not check)
                best = 9
            row[7].value, row[8].value = best, worst
            expected.append((row[2].value, rater, items[best - 1] if best <= 4 else None, items[worst - 1]))
        book.save(raw / f"{rater}.xlsx")
    tables = clean_dataset("demo", d.datasets["xlsx"])
    answers = tables["answers"]
    got = []
    words = tables["items"].set_index("item_id")
    for _, rows in answers.groupby("answer", sort=True):
        pick = {c: rows.loc[rows["choice"] == c, "item_id"].item() for c in ("best", "worst")}
        text = {c: f"{words.at[i, 'word1']}:{words.at[i, 'word2']}" for c, i in pick.items()}
        got.append((rows["tuple"].iloc[0], rows["rater"].iloc[0], text["best"], text["worst"]))
    accepted = [e for e in expected if e[2] is not None]
    unanswered = int((d.table["rater"] == "r03").sum()) - 10
    assert sorted(got) == sorted(accepted) and len(accepted) == 120 - unanswered - 1
    # the careful raters' best is the pair with the highest true value: the answers say so
    assert all(int(b.split(":")[0][1:]) > int(w.split(":")[0][1:]) for _, r, b, w in got if r != "r07")
    ledger = tables["rejects"]
    out = ledger[ledger["reason"] == "bws_position_out_of_range"]
    assert out[["source_file", "source_row", "column", "raw_value"]].values.tolist() == [
        ["raw/demo/r05.xlsx", 3, "best", "9"]
    ]
    # r03's unanswered rows: one ledger row each, at its best cell
    blank = ledger[ledger["reason"] == "bws_blank_choice"]
    assert blank[["source_file", "source_row", "column"]].values.tolist() == [
        ["raw/demo/r03.xlsx", row, "best"] for row in range(12, 12 + unanswered)
    ]
    assert unanswered in (7, 8)
    assert set(answers["question"]) == set(range(1, 19)) and bool(tables["summary"]["ledger_balanced"].iloc[0])


def test_the_bws_command_sizes_answers_per_tuple_from_a_pilot(tmp_path, monkeypatch, capsys):
    import yaml

    from simgold.cli import main
    from simgold.io.tables import write_parquet

    monkeypatch.chdir(tmp_path)
    (tmp_path / "pairs.csv").write_text("word1,word2\n" + "".join(f"a{i},b{i}\n" for i in range(12)))
    pilot = pd.DataFrame({"dataset": ["p", "p"], "stage": ["raw", "filtered"], "shr_spearman_sb": [0.7, 0.8]})
    write_parquet(pilot.assign(answers_per_tuple=[3.0, 2.0]), tmp_path / "results/agreement/p/bws_reliability.parquet")
    args = ["design", "bws", "pairs.csv", "--name", "b", "--language", "en", "--raters", "10"]
    assert main([*args, "--reliability", "0.9", "--pilot", "p", "--formats", "label_studio", "xlsx"]) == 0
    out = capsys.readouterr().out
    # the filtered row: r1 = 0.8 / (2 - 0.8) = 2/3; K = 0.9 (1/3) / ((2/3) 0.1) = 4.5, rounded up: 5
    assert "answers per tuple K = 5" in out and "each tuple answered by 5 of 10 raters" in out
    config = yaml.safe_load((tmp_path / "design/b/config.yaml").read_text())["datasets"]["b"]
    assert config["sources"][0]["preset"] == "label_studio" and config["sources"][0]["path"] == "raw/b/export.json"
    assert "&id" not in (tmp_path / "design/b/config.yaml").read_text()
    assert main([*args, "--reliability", "0.9"]) == 1
    assert "--reliability needs --pilot DATASET" in capsys.readouterr().err
    (tmp_path / "pairs.csv").write_text("word1,word2,role,expect\ncat,dog,,\nsun,sun,attention,6\n")
    assert main([*args, "--per-tuple", "2"]) == 1
    assert "roles ['attention'] are for rating questionnaires" in capsys.readouterr().err
