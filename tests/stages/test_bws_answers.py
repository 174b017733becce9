"""Best-Worst Scaling answers (kind bws, issue 39): read from every format and preset, checked
whole, one ledger row per rejected answer, and counted from the file itself."""

from __future__ import annotations

import csv
import json
import unicodedata
from pathlib import Path

import openpyxl
import pandas as pd
import pytest

from simgold.errors import ConfigError, DataError
from simgold.io.config import check_dataset
from simgold.io.ledger import BWS_REASONS
from simgold.io.tables import TABLES, read_parquet, write_parquet
from simgold.stages.clean import check_rejected, clean_dataset

HEADER = "the header row (column names)"
ROWS = [  # tuple, rater, 4 items, best, worst
    ["t1", "ann", "tool:chisel", "car:automobile", "cup:tea", "dog:bark", "car:automobile", "dog:bark"],
    ["t1", "bob", "tool:chisel", "car:automobile", "cup:tea", "dog:bark", "tool:chisel", "cup:tea"],
    ["t2", "ann", "sun:moon", "king:queen", "bread:butter", "cat:mouse", "king:queen", "sun:moon"],
]


def bws(sources, **keys) -> dict:
    return {"language": "en", "kind": "bws", "sources": sources, **keys}


def write_csv(path: Path, header, rows, delimiter=",") -> Path:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, delimiter=delimiter)
        if header:
            writer.writerow(header)
        writer.writerows(rows)
    return path


def answer_rows(tables) -> list:
    """(answer, tuple, rater, position, word1:word2, choice) of the answers table."""
    words = tables["items"].set_index("item_id")
    pairs = [f"{words.at[i, 'word1']}:{words.at[i, 'word2']}" for i in tables["answers"]["item_id"]]
    frame = tables["answers"].assign(pair=pairs)
    return frame[["answer", "tuple", "rater", "position", "pair", "choice"]].values.tolist()


def bws_ledger(tables) -> list:
    ledger = tables["rejects"]
    rows = ledger[ledger["reason"].isin(BWS_REASONS)]
    return rows[["source_row", "column", "raw_value", "reason"]].values.tolist()


def data_rows(path: Path, delimiter=",", header=True, comment=None) -> int:
    """The answers a delimited file holds, counted here with the csv module (not the readers)."""
    with open(path, newline="", encoding="utf-8") as fh:
        lines = [line for line in fh if line.strip() and not (comment and line.startswith(comment))]
    records = list(csv.reader(lines, delimiter=delimiter))
    return len(records) - int(header)


EXPECTED = [
    [0, "t1", "ann", 1, "tool:chisel", ""],
    [0, "t1", "ann", 2, "car:automobile", "best"],
    [0, "t1", "ann", 3, "cup:tea", ""],
    [0, "t1", "ann", 4, "dog:bark", "worst"],
    [1, "t1", "bob", 1, "tool:chisel", "best"],
    [1, "t1", "bob", 2, "car:automobile", ""],
    [1, "t1", "bob", 3, "cup:tea", "worst"],
    [1, "t1", "bob", 4, "dog:bark", ""],
    [2, "t2", "ann", 1, "sun:moon", "worst"],
    [2, "t2", "ann", 2, "king:queen", "best"],
    [2, "t2", "ann", 3, "bread:butter", ""],
    [2, "t2", "ann", 4, "cat:mouse", ""],
]


# -------------------------------------------------------------------------------- presets


def test_kiritchenko_mohammad_csv(tmp_path):
    header = ["Item1", "Item2", "Item3", "Item4", "BestItem", "WorstItem"]
    path = write_csv(tmp_path / "km.csv", header, [row[2:] for row in ROWS])
    tables = clean_dataset("km", bws([{"path": str(path), "preset": "kiritchenko_mohammad"}]))
    t1 = "km:000001 | km:000002 | km:000003 | km:000004"
    t2 = "km:000005 | km:000006 | km:000007 | km:000008"
    assert answer_rows(tables) == [[a, t1 if a < 2 else t2, None, p, pair, c] for a, _, _, p, pair, c in EXPECTED]
    assert tables["items"]["item_id"].tolist() == [f"km:{k:06d}" for k in range(1, 9)]
    assert tables["items"][["word1", "word2"]].values.tolist()[:2] == [["tool", "chisel"], ["car", "automobile"]]
    summary = tables["summary"].iloc[0]
    assert (summary["n_answers"], summary["n_tuples"], summary["n_items"], summary["n_raters"]) == (3, 2, 8, 0)
    assert bool(summary["ledger_balanced"]) and summary["raw_cells"] == 24


LABEL_STUDIO = ["id", "item1", "item2", "item3", "item4", "best", "worst", "annotator", "annotation_id", "lead_time"]


def _label_studio_rows():
    positions = [(2, 4), (1, 3), (2, 1)]
    return [
        [row[0][1:], *row[2:6], str(b), str(w), row[1], str(10 + n), "3.5"]
        for n, (row, (b, w)) in enumerate(zip(ROWS, positions))
    ]


def test_label_studio_csv_and_json_min_read_the_same_answers(tmp_path):
    rows = _label_studio_rows()
    path = write_csv(tmp_path / "ls.csv", LABEL_STUDIO, rows)
    records = [dict(zip(LABEL_STUDIO, row)) for row in rows]
    for record in records:  # JSON-MIN: the task id and the annotator as numbers, the choices as text
        record["id"], record["annotation_id"], record["lead_time"] = (
            int(record["id"]),
            int(record["annotation_id"]),
            3.5,
        )
    (tmp_path / "ls.json").write_text(json.dumps(records), encoding="utf-8")
    from_csv = clean_dataset("ls", bws([{"path": str(path), "preset": "label_studio"}]))
    from_json = clean_dataset("ls", bws([{"path": str(tmp_path / "ls.json"), "preset": "label_studio"}]))
    expected = [[a, t[1:], r, p, pair, c] for a, t, r, p, pair, c in EXPECTED]
    assert answer_rows(from_csv) == answer_rows(from_json) == expected
    assert from_csv["answers"]["source_row"].unique().tolist() == [2, 3, 4]
    assert from_json["answers"]["source_row"].unique().tolist() == [1, 2, 3]  # the object's place in the array
    # the export's bookkeeping the preset does not name: in the ledger, never read as answers
    ignored = from_json["rejects"][from_json["rejects"]["reason"] == "ignored_column"]
    assert ignored["column"].tolist() == ["annotation_id", "lead_time"] * 3
    assert ignored["raw_value"].tolist()[:2] == ["10", "3.5"]
    for tables in (from_csv, from_json):
        assert bool(tables["summary"]["ledger_balanced"].iloc[0])


def test_potato_tsv_export(tmp_path):
    header = ["user", "instance_id", "displayed_text", "bws:::best", "bws:::worst"]
    letters = [("B", "D"), ("A", "C"), ("B", "A")]
    rows = [[r[1], r[0], " | ".join(r[2:6]), b, w] for r, (b, w) in zip(ROWS, letters)]
    path = write_csv(tmp_path / "annotated_instances.tsv", header, rows, delimiter="\t")
    tables = clean_dataset("po", bws([{"path": str(path), "preset": "potato"}]))
    assert answer_rows(tables) == EXPECTED
    assert bool(tables["summary"]["ledger_balanced"].iloc[0]) and tables["summary"]["raw_cells"].iloc[0] == 20


def test_a_key_beside_a_preset_wins(tmp_path):
    header = ["Item1", "Item2", "Item3", "BestItem", "WorstItem"]
    path = write_csv(tmp_path / "km3.csv", header, [["a:b", "c:d", "e:f", "c:d", "a:b"]])
    src = {"path": str(path), "preset": "kiritchenko_mohammad", "items": ["Item1", "Item2", "Item3"]}
    tables = clean_dataset("km", bws([src]))
    assert tables["answers"]["choice"].tolist() == ["worst", "best", ""]


# -------------------------------------------------------------------------------- formats


@pytest.mark.parametrize("header", [True, False])
def test_xlsx_with_and_without_a_header(tmp_path, header):
    book = openpyxl.Workbook()
    sheet = book.active
    if header:
        sheet.append(["tuple", "rater", "a", "b", "c", "d", "most", "least"])
    for row in ROWS:
        sheet.append(row)
    book.save(tmp_path / "bws.xlsx")
    keys = {"items": ["a", "b", "c", "d"], "best": "most", "worst": "least", "rater": "rater", "tuple": "tuple"}
    if not header:
        keys = {"items": [3, 4, 5, 6], "best": 7, "worst": 8, "rater": 2, "tuple": 1, "header": False}
    tables = clean_dataset("x", bws([{"path": str(tmp_path / "bws.xlsx"), **keys}]))
    assert answer_rows(tables) == EXPECTED
    assert tables["answers"]["source_row"].unique().tolist() == ([2, 3, 4] if header else [1, 2, 3])
    assert (
        bool(tables["summary"]["ledger_balanced"].iloc[0]) and tables["summary"]["raw_cells"].iloc[0] == 24 + 8 * header
    )


def test_comment_lines_quoted_fields_and_column_order(tmp_path):
    # "least" before "most", a quoted item holding the file's separator, a comment line
    text = (
        "# batch 1\n"
        "least,most,i1,i2,i3,rater\n"
        'cup:tea,"salt, sea:pepper",tool:chisel,"salt, sea:pepper",cup:tea,ann\n'
        "# batch 2\n"
        'tool:chisel,cup:tea,tool:chisel,"salt, sea:pepper",cup:tea,bob\n'
    )
    path = tmp_path / "quoted.csv"
    path.write_text(text, encoding="utf-8")
    src = {
        "path": str(path),
        "comment": "#",
        "items": ["i1", "i2", "i3"],
        "best": "most",
        "worst": "least",
        "rater": "rater",
    }
    tables = clean_dataset("x", bws([src]))
    assert tables["items"][["word1", "word2"]].values.tolist() == [
        ["tool", "chisel"],
        ["salt, sea", "pepper"],
        ["cup", "tea"],
    ]
    assert tables["answers"]["choice"].tolist() == ["", "best", "worst", "worst", "", "best"]
    assert tables["answers"]["source_row"].tolist() == [3, 3, 3, 5, 5, 5]
    comments = tables["rejects"][tables["rejects"]["detail"] == "a comment line"]
    assert comments["source_row"].tolist() == [1, 4]
    assert bool(tables["summary"]["ledger_balanced"].iloc[0])


def test_two_word_columns_per_item_and_positions(tmp_path):
    header = ["a1", "a2", "b1", "b2", "c1", "c2", "best", "worst"]
    rows = [
        ["tool", "chisel", "car", "automobile", "cup", "tea", "3", "1"],
        ["tool", "", "car", "automobile", "cup", "tea", "1", "2"],
    ]
    path = write_csv(tmp_path / "pairs.csv", header, rows)
    src = {"path": str(path), "items": [["a1", "a2"], ["b1", "b2"], ["c1", "c2"]], "best": "best", "worst": "worst"}
    tables = clean_dataset("x", bws([{**src, "choice": "position"}]))
    assert answer_rows(tables)[0][4:] == ["tool:chisel", "worst"] and answer_rows(tables)[2][4:] == ["cup:tea", "best"]
    assert bws_ledger(tables) == [[3, "a2", "", "bws_malformed_item"]]
    assert tables["rejects"]["detail"].iloc[-1] == "a word is empty"


def test_k_varies_between_files_and_is_checked_within_a_tuple(tmp_path):
    three = write_csv(
        tmp_path / "k3.csv", ["id", "i1", "i2", "i3", "b", "w"], [["q1", "a:b", "c:d", "e:f", "a:b", "e:f"]]
    )
    five = write_csv(
        tmp_path / "k5.csv",
        ["id", "i1", "i2", "i3", "i4", "i5", "b", "w"],
        [
            ["q2", "a:b", "c:d", "e:f", "g:h", "i:j", "i:j", "c:d"],
            ["q1", "a:b", "c:d", "e:f", "g:h", "i:j", "a:b", "c:d"],
        ],
    )
    common = {"best": "b", "worst": "w", "tuple": "id"}
    sources = [
        {"path": str(three), "items": ["i1", "i2", "i3"], **common},
        {"path": str(five), "items": ["i1", "i2", "i3", "i4", "i5"], **common},
    ]
    tables = clean_dataset("x", bws(sources))
    assert tables["answers"].groupby("answer")["position"].max().tolist() == [3, 5]
    assert tables["answers"]["tuple"].unique().tolist() == ["q1", "q2"]
    assert bws_ledger(tables) == [[3, "id", "q1", "bws_wrong_size"]]
    assert tables["rejects"]["detail"].iloc[-1] == f"5 items; tuple 'q1' has 3 at {three} row 2"


# -------------------------------------------------------------------------------- the ledger


def test_an_item_list_rejects_unknown_items_and_orders_the_items(tmp_path):
    listed = write_csv(
        tmp_path / "list.tsv", ["pair"], [["dog:bark"], ["Cup:tea"], ["car:automobile"], ["tool:chisel"]], "\t"
    )
    path = write_csv(
        tmp_path / "a.csv",
        ["i1", "i2", "i3", "b", "w"],
        [
            ["tool:chisel", "cup:tea", "dog:bark", "cup:tea", "dog:bark"],
            ["tool:chisel", "cup:tea", "sun:moon", "cup:tea", "sun:moon"],
        ],
    )
    ds = bws(
        [{"path": str(path), "items": ["i1", "i2", "i3"], "best": "b", "worst": "w"}],
        casefold=True,
        item_list={"path": str(listed), "item": "pair"},
    )
    tables = clean_dataset("x", ds)
    assert tables["items"][["word1", "word2"]].values.tolist() == [
        ["dog", "bark"],
        ["cup", "tea"],
        ["car", "automobile"],
        ["tool", "chisel"],
    ]
    assert tables["answers"]["item_id"].tolist() == ["x:000004", "x:000002", "x:000001"]
    assert bws_ledger(tables) == [[3, "i3", "sun:moon", "bws_unknown_item"]]
    assert tables["rejects"]["detail"].iloc[-1] == "sun/moon is not in the item list"


@pytest.mark.parametrize(
    "casefold,unicode,accepted",
    [(True, "NFC", True), (False, "NFC", True), (False, "none", False)],
)
def test_best_and_worst_follow_the_word_normalisation(tmp_path, casefold, unicode, accepted):
    nfd = unicodedata.normalize("NFD", "café:bar")
    # the best in another case and in decomposed form: NFC makes the forms one, casefold the cases
    best = nfd.upper() if casefold else nfd
    path = write_csv(
        tmp_path / "n.csv", ["i1", "i2", "i3", "b", "w"], [["café:bar", "tea:cup", "dog:cat", best, "dog:cat"]]
    )
    ds = bws(
        [{"path": str(path), "items": ["i1", "i2", "i3"], "best": "b", "worst": "w"}],
        casefold=casefold,
        unicode=unicode,
    )
    tables = clean_dataset("x", {**ds, "max_rejected": 1})
    assert (len(tables["answers"]) == 3) == accepted
    if not accepted:
        assert bws_ledger(tables) == [[2, "b", best, "bws_not_in_tuple"]]


def test_case_spelled_differently_without_casefold_is_not_in_the_tuple(tmp_path):
    path = write_csv(
        tmp_path / "c.csv", ["i1", "i2", "i3", "b", "w"], [["tool:chisel", "a:b", "c:d", "Tool:chisel", "c:d"]]
    )
    src = {"path": str(path), "items": ["i1", "i2", "i3"], "best": "b", "worst": "w"}
    rejected = clean_dataset("x", {**bws([src]), "max_rejected": 1})
    assert bws_ledger(rejected) == [[2, "b", "Tool:chisel", "bws_not_in_tuple"]]
    assert len(clean_dataset("x", bws([src], casefold=True))["answers"]) == 3


@pytest.mark.parametrize(
    "row,reason,column,detail",
    [
        (["a:b", "c:d", "e:f", "g:h", "x", "a:b"], "bws_position_out_of_range", "b", "the best is not a letter A..D"),
        (["a:b", "c:d", "e:f", "g:h", "E", "a:b"], "bws_position_out_of_range", "b", "the best is not a letter A..D"),
        (["a:b", "c:d", "e:f", "g:h", "B", ""], "bws_blank_choice", "w", "no worst item"),
        (
            ["a:b:c", "c:d", "e:f", "g:h", "B", "A"],
            "bws_malformed_item",
            "i1",
            "2 separators ':' in 'a:b:c' (an item has two words)",
        ),
        (["a: ", "c:d", "e:f", "g:h", "B", "A"], "bws_malformed_item", "i1", "a word is empty"),
        (["a:b", "c:d", "b:a", "g:h", "B", "A"], "bws_repeated_item", "i3", "b/a is twice in the tuple"),
    ],
)
def test_each_letter_answer_problem_has_its_ledger_row(tmp_path, row, reason, column, detail):
    header = ["i1", "i2", "i3", "i4", "b", "w"]
    path = write_csv(tmp_path / "l.csv", header, [["a:b", "c:d", "e:f", "g:h", "B", "A"], row])
    src = {"path": str(path), "items": header[:4], "best": "b", "worst": "w", "choice": "letter"}
    tables = clean_dataset("x", {**bws([src]), "max_rejected": 1})
    raw = row[header.index(column)]
    assert bws_ledger(tables) == [[3, column, raw, reason]]
    assert tables["rejects"]["detail"].iloc[-1] == detail
    assert len(tables["answers"]) == 4 and bool(tables["summary"]["ledger_balanced"].iloc[0])


#: the bad-input corpus's BWS file (tests/bad_inputs/bws_answers.csv), as a source
CORPUS_SOURCE = {"path": "bws_answers.csv", "items": ["i1", "i2", "i3", "i4"], "best": "best", "worst": "worst",
                 "rater": "rater", "tuple": "tuple"}  # fmt: skip


def test_data_rows_counted_from_the_file_are_accepted_answers_plus_ledger_rows():
    corpus = Path(__file__).parents[1] / "bad_inputs"
    src = CORPUS_SOURCE
    tables = clean_dataset("x", {**bws([src]), "max_rejected": 1}, base_dir=str(corpus))
    rows = data_rows(corpus / "bws_answers.csv")
    assert rows == 10
    assert tables["answers"]["answer"].nunique() + len(bws_ledger(tables)) == rows
    summary = tables["summary"].iloc[0]
    assert (summary["n_values_held"], summary["n_values_rejected"], summary["n_answers"]) == (10, 8, 2)
    # every reason is a summary column of a bws dataset, counted
    assert sum(summary[f"rejects_{r}"] for r in BWS_REASONS) == 8


def test_max_rejected_counts_answers(tmp_path):
    corpus = Path(__file__).parents[1] / "bad_inputs"
    src = CORPUS_SOURCE
    tables = clean_dataset("x", bws([src]), base_dir=str(corpus))
    with pytest.raises(DataError, match="x: 8 of 10 value cells rejected"):
        check_rejected(tables["summary"].iloc[0], 0.2, "ledger.tsv")


# -------------------------------------------------------------------------------- tables and config


def test_the_answers_table_is_written_with_its_schema(tmp_path):
    header = ["Item1", "Item2", "Item3", "Item4", "BestItem", "WorstItem"]
    path = write_csv(tmp_path / "km.csv", header, [row[2:] for row in ROWS])
    tables = clean_dataset("km", bws([{"path": str(path), "preset": "kiritchenko_mohammad"}]))
    write_parquet(tables["answers"], tmp_path / "answers.parquet", table="answers")
    back = read_parquet(tmp_path / "answers.parquet")
    assert list(back.columns) == list(TABLES["answers"].names)
    assert back["answer"].dtype == "int64" and back["rater"].isna().all()
    # the same values in the types Parquet gives back (a missing rater: null either way)
    pd.testing.assert_frame_equal(back, tables["answers"].astype(back.dtypes.to_dict()))


def test_other_kinds_get_an_empty_answers_table_and_their_summary_columns(tmp_path):
    path = write_csv(tmp_path / "r.tsv", ["w1", "w2", "r1"], [["cat", "dog", "5"]], "\t")
    tables = clean_dataset(
        "r",
        {
            "language": "en",
            "kind": "ratings",
            "scale": [0, 10],
            "sources": [{"path": str(path), "words": ["w1", "w2"], "raters": ["r1"]}],
        },
    )
    assert tables["answers"].empty and list(tables["answers"].columns) == list(TABLES["answers"].names)
    assert not [c for c in tables["summary"] if c.startswith("rejects_bws") or c in ("n_answers", "n_tuples")]


@pytest.mark.parametrize(
    "ds,message",
    [
        (bws([{"path": "x.csv", "items": ["a", "b"], "best": "c", "worst": "d"}]), "items: names 2 item"),
        (bws([{"path": "x.csv", "items": ["a", "b", "c"], "best": "c", "worst": "d"}]), "column 'c' is already items"),
        (bws([{"path": "x.csv", "items": ["a", "b", "c"], "best": "e"}]), "worst: is required for kind 'bws'"),
        (
            {
                "language": "en",
                "kind": "ratings",
                "scale": [0, 1],
                "sources": [{"path": "x.csv", "words": [1, 2], "raters": [3], "choice": "item"}],
            },
            "choice: is only for kind 'bws'",
        ),
        (
            {
                "language": "en",
                "kind": "ratings",
                "scale": [0, 1],
                "item_list": {"path": "x.csv", "item": 1},
                "sources": [{"path": "x.csv", "words": [1, 2], "raters": [3]}],
            },
            "item_list: is only for kind 'bws'",
        ),
        (
            bws([{"path": "x.csv", "items": ["a", "b", "c"], "best": "e", "worst": "f"}], item_list={"path": "x.csv"}),
            "give item",
        ),
    ],
)
def test_config_errors(tmp_path, ds, message):
    (tmp_path / "x.csv").write_text("a,b,c,e,f\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=message):
        check_dataset("x", ds, tmp_path)


def test_a_bws_dataset_takes_the_scale_of_counting_scores():
    ds = check_dataset(
        "x",
        bws(
            [
                {
                    "path": "pkg:simgold/__init__.py",
                    "format": "text",
                    "items": [1, 2, 3],
                    "best": 4,
                    "worst": 5,
                    "header": False,
                }
            ]
        ),
    )
    assert ds["scale"] == [-1, 1]
