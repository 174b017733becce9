"""Questionnaires as they really come back: rows reordered or deleted, a sheet renamed, a value typed
past the validation, a file sent to someone the design did not name. Each is read with the config
the design wrote, nothing changed by hand."""

from __future__ import annotations

import openpyxl
import pytest

from simgold.design.pairs import parse_pairs
from simgold.design.ratings import design_ratings
from simgold.errors import DataError, SimgoldError
from simgold.io.tables import write_parquet
from simgold.stages.clean import clean_dataset

PAIRS = "word1,word2,role,expect\n" + "".join(f"a{i},b{i},,\n" for i in range(12)) + "sun,sun,attention,6\n"


@pytest.fixture
def returned(tmp_path, monkeypatch):
    """A design of 12 pairs, 2 of 4 raters each, every questionnaire filled in (the answer: the row's
    number modulo 7) and put where the config reads it."""
    monkeypatch.chdir(tmp_path)
    design = design_ratings(
        parse_pairs(PAIRS, "pairs.csv"),
        name="s",
        scale=(0, 6),
        n_raters=4,
        raters_per_item=2,
        seed=5,
        language="en",
        design_path="design/s/design.parquet",
    )
    write_parquet(design.table, tmp_path / "design" / "s" / "design.parquet")
    for rel, data in design.files.items():
        path = tmp_path / "raw" / "s" / rel.removeprefix("sheets/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        book = openpyxl.load_workbook(path)
        for k, row in enumerate(book["ratings"].iter_rows(min_row=2)):
            row[3].value = 6 if row[1].value == "sun" else k % 7
        book.save(path)
    return design


def _edit(path, change):
    book = openpyxl.load_workbook(path)
    change(book)
    book.save(path)


def _ratings(tables):
    """(word1, word2, rater, score) per rating: item ids follow the order pairs are first read in."""
    words = tables["items"].set_index("item_id")[["word1", "word2"]]
    rows = tables["ratings"].join(words, on="item_id")[["word1", "word2", "rater", "score"]]
    return sorted(map(tuple, rows.values.tolist()))


def test_the_returned_files_read_back_whole(returned):
    tables = clean_dataset("s", returned.dataset)
    assert len(tables["ratings"]) == 12 * 2 and tables["summary"]["ledger_balanced"].all()
    reasons = set(tables["rejects"]["reason"])
    assert reasons == {"ignored_row", "attention_check"}  # the headers, and the checks' answers


def test_rows_in_another_order_give_the_same_ratings(returned, tmp_path):
    before = _ratings(clean_dataset("s", returned.dataset))

    def reverse(book):
        sheet = book["ratings"]
        rows = [[c.value for c in row] for row in sheet.iter_rows(min_row=2)]
        for row, values in zip(sheet.iter_rows(min_row=2), rows[::-1]):
            for cell, value in zip(row, values):
                cell.value = value

    _edit(tmp_path / "raw" / "s" / "r02.xlsx", reverse)
    assert _ratings(clean_dataset("s", returned.dataset)) == before


def test_a_deleted_row_is_a_blank_ledger_row_at_the_question_it_was(returned, tmp_path):
    mine = returned.table[returned.table["rater"] == "r03"]
    asked = mine[mine["role"] == "item"].iloc[2]  # its third item
    _edit(tmp_path / "raw" / "s" / "r03.xlsx", lambda book: book["ratings"].delete_rows(int(asked["position"]) + 1))
    tables = clean_dataset("s", returned.dataset)
    gone = tables["rejects"][tables["rejects"]["reason"] == "design_unanswered"]
    assert gone[["source_file", "source_row", "column", "raw_value"]].values.tolist() == [
        ["raw/s/r03.xlsx", int(asked["position"]) + 1, "rating", ""]
    ]
    assert f"rater 'r03' was asked {asked['word1']} / {asked['word2']} (item, question {asked['position']})" in (
        gone["detail"].iloc[0]
    )
    summary = tables["summary"].iloc[0]
    assert summary["ledger_balanced"] and summary["rejects_design_unanswered"] == 1
    assert len(tables["ratings"]) == 12 * 2 - 1


def test_an_answer_the_design_did_not_ask_for_is_rejected(returned, tmp_path):
    mine = set(map(frozenset, returned.table.loc[returned.table["rater"] == "r01", ["word1", "word2"]].values))
    other = next(p for p in zip(returned.table["word1"], returned.table["word2"]) if frozenset(p) not in mine)
    _edit(tmp_path / "raw" / "s" / "r01.xlsx", lambda book: book["ratings"].append(["r01", *other, 3]))
    tables = clean_dataset("s", returned.dataset)
    rejected = tables["rejects"][tables["rejects"]["reason"] == "design_unassigned"]
    assert rejected["raw_value"].tolist() == ["3"] and rejected["source_file"].tolist() == ["raw/s/r01.xlsx"]
    assert (
        rejected["detail"].iloc[0]
        == f"rater 'r01' was not asked {other[0]} / {other[1]} by the design design/s/design.parquet"
    )
    assert tables["summary"]["ledger_balanced"].all()


def test_a_value_typed_past_the_validation_reaches_the_ledger(returned, tmp_path):
    def type_over(book):
        book["ratings"]["D2"].value, book["ratings"]["D3"].value = 7, "very"

    _edit(tmp_path / "raw" / "s" / "r04.xlsx", type_over)
    tables = clean_dataset("s", returned.dataset)
    rows = tables["rejects"][
        tables["rejects"]["source_row"].isin([2, 3]) & (tables["rejects"]["source_file"] == "raw/s/r04.xlsx")
    ]
    assert sorted(rows[["source_row", "raw_value", "reason"]].values.tolist()) == [
        [2, "7", "out_of_scale"],
        [3, "very", "non_numeric"],
    ]


def test_a_file_whose_rater_is_not_in_the_design_stops_the_run_naming_it(returned, tmp_path):
    def someone_else(book):
        for row in book["ratings"].iter_rows(min_row=2):
            row[0].value = "r09"

    _edit(tmp_path / "raw" / "s" / "r02.xlsx", someone_else)
    with pytest.raises(
        DataError, match=r"raw/s/r02.xlsx row 2: rater 'r09' is not in the design design/s/design.parquet"
    ):
        clean_dataset("s", returned.dataset)


def test_a_renamed_sheet_stops_the_run_naming_the_sheets_the_file_has(returned, tmp_path):
    def rename(book):
        book["ratings"].title = "Ark1"

    _edit(tmp_path / "raw" / "s" / "r01.xlsx", rename)
    with pytest.raises(SimgoldError, match=r"r01.xlsx.*ratings.*Ark1"):
        clean_dataset("s", returned.dataset)
