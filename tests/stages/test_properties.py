"""Property-based: random sheets through cleaning keep the ledger and the raw values intact, and
every non-blank cell of the file, counted here without the cleaner, is accounted for exactly once."""

from __future__ import annotations

import csv
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from simgold.errors import InputError
from simgold.stages.clean import clean_dataset

from ..io.test_bad_inputs import accounted, text_cells

HEADER = "the header row (column names)"
WORDS = ["a", "b", "c", "Ål", "ß"]
VALID = st.integers(0, 12).map(lambda k: k / 2)  # 0..6 in half points
CELL = st.one_of(
    VALID.map(lambda v: f"{v:g}"),
    VALID.map(lambda v: f" {v:.2f} "),
    st.sampled_from(["", "nan", "NA", "-", "x", "7", "-1", "1e999", "3,5", "NaN", "6.0001"]),
    st.text(alphabet="0123456789.,-+eE xy", max_size=5).filter(lambda s: "\t" not in s),
)


@st.composite
def sheets(draw):
    n_raters = draw(st.integers(1, 5))
    rows = draw(
        st.lists(
            st.tuples(
                st.sampled_from(WORDS), st.sampled_from(WORDS), st.lists(CELL, min_size=n_raters, max_size=n_raters)
            ),
            min_size=1,
            max_size=12,
        )
    )
    return n_raters, rows


def rated_cells(t) -> int:
    """Ledger rows of rating cells: all but the header's cells."""
    return int((t["rejects"]["detail"] != HEADER).sum())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sheet=sheets(), policy=st.sampled_from(["reject", "first", "last", "all"]), symmetric=st.booleans())
def test_ledger_and_values(sheet, policy, symmetric):
    n_raters, rows = sheet
    raters = [f"r{k}" for k in range(1, n_raters + 1)]
    text = (
        "w1\tw2\t" + "\t".join(raters) + "\n" + "".join(f"{a}\t{b}\t" + "\t".join(cells) + "\n" for a, b, cells in rows)
    )
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "s.tsv").write_text(text, encoding="utf-8")
        spec = {
            "language": "en",
            "kind": "ratings",
            "scale": [0, 6],
            "duplicates": policy,
            "symmetric": symmetric,
            "sources": [{"path": "s.tsv", "words": ["w1", "w2"], "raters": "^r\\d+$"}],
        }
        t = clean_dataset("p", spec, base_dir=tmp)
    # every raw rating cell is in exactly one of ratings / rejects
    assert len(t["ratings"]) + rated_cells(t) == len(rows) * n_raters
    # no accepted rating differs from its raw cell, and it lies on the scale
    for r in t["ratings"].itertuples():
        raw = rows[r.source_row - 2][2][raters.index(r.rater)]
        assert float(raw.strip()) == r.score and 0 <= r.score <= 6
    # the ledger keeps the raw text exactly
    for r in t["rejects"][t["rejects"]["detail"] != HEADER].itertuples():
        assert rows[r.source_row - 2][2][raters.index(r.column)] == r.raw_value
    # an (item, rater) never has two ratings
    assert not t["ratings"].duplicated(["item_id", "rater"]).any()


# in a workbook a cell is a number, text, or empty; numbers may be off the scale or not finite
XLSX_CELL = st.one_of(
    VALID,
    st.floats(-3, 9, allow_nan=False).map(lambda v: round(v, 3)),
    st.integers(-2, 8),
    st.sampled_from([None, "nan", "", "x", " 4 ", "2,5", "1.elo"]),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n_raters=st.integers(1, 4),
    rows=st.lists(
        st.tuples(st.sampled_from(WORDS), st.sampled_from(WORDS), st.lists(XLSX_CELL, min_size=4, max_size=4)),
        min_size=1,
        max_size=10,
    ),
)
def test_ledger_and_values_in_a_workbook(n_raters, rows):
    import openpyxl

    raters = [f"r{k}" for k in range(1, n_raters + 1)]
    with tempfile.TemporaryDirectory() as tmp:
        wb = openpyxl.Workbook()
        ws = wb.active
        ws.append(["w1", "w2", *raters])
        for a, b, cells in rows:
            ws.append([a, b, *cells[:n_raters]])
        wb.save(Path(tmp, "s.xlsx"))
        spec = {
            "language": "en",
            "kind": "ratings",
            "scale": [0, 6],
            "duplicates": "all",
            "sources": [{"path": "s.xlsx", "words": ["w1", "w2"], "raters": "^r\\d+$"}],
        }
        t = clean_dataset("p", spec, base_dir=tmp)
        # the workbook's non-blank cells, counted by openpyxl, are all accounted for
        values = [
            v for row in openpyxl.load_workbook(Path(tmp, "s.xlsx")).active.iter_rows(values_only=True) for v in row
        ]
        cells = sum(1 for v in values if v is not None and not (isinstance(v, str) and not v.strip()))
    assert t["summary"]["raw_cells"][0] == cells and accounted(t) == cells
    # an empty workbook cell at the end of a row is a short row, elsewhere a missing one: either
    # way one ledger row per cell
    assert len(t["ratings"]) + rated_cells(t) == len(rows) * n_raters
    for r in t["ratings"].itertuples():
        raw = rows[r.source_row - 2][2][raters.index(r.rater)]
        assert float(raw.strip() if isinstance(raw, str) else raw) == r.score and 0 <= r.score <= 6
    for r in t["rejects"][t["rejects"]["detail"] != HEADER].itertuples():
        raw = rows[r.source_row - 2][2][raters.index(r.column)]
        if isinstance(raw, str):
            assert r.raw_value == raw
        elif raw is not None:
            assert float(r.raw_value) == raw and r.reason == "out_of_scale"
        else:
            assert r.raw_value == "" and r.reason in ("missing", "short_row", "empty_rater")


# ------------------------------------------------------------------------------------------
# hostile sheets: wide, long and ragged, with columns the config does not name, rows with extra
# fields, short rows, blank lines, comment and title lines, byte order marks and odd Unicode

ODD_WORDS = ["cat", "dog", "Ål", "ß", "ca\u200bt", "ice\u00a0cream", "cafe\u0301", "\ufeffsun", "", "  ", "x y"]
VALUES = st.one_of(
    VALID.map(lambda v: f"{v:g}"),
    st.sampled_from(["", " ", "nan", "NA", "-", "x", "7", "-1", "1e999", "NaN", "6.0001", "\u00a0", "\u200b4"]),
)
EXTRA_COLUMNS = st.lists(st.sampled_from(["note", "R9", "r4 (late)", "score2", ""]), max_size=3)


@st.composite
def hostile_sheets(draw):
    """(file text, source config) of a random hostile sheet."""
    layout = draw(st.sampled_from(["wide", "long", "ragged"]))
    sep = draw(st.sampled_from(["\t", ";"]))
    extra = draw(EXTRA_COLUMNS)
    if layout == "wide":
        header = ["w1", "w2"] + draw(st.permutations([f"r{k}" for k in range(1, draw(st.integers(1, 4)) + 1)] + extra))
        src = {"words": ["w1", "w2"], "raters": "^r\\d+$"}
    elif layout == "long":
        header = ["w1", "w2", "rater", "score", *extra]
        src = {"layout": "long", "words": ["w1", "w2"], "rater": "rater", "score": "score"}
    else:
        header = None
        src = {"layout": "ragged", "header": False, "words": [1, 2], "raters": {"from": 3}}
    lines = [draw(st.sampled_from(["Similarity survey", "exported 2024", ""])) for _ in range(draw(st.integers(0, 2)))]
    src.update(path="s.txt", sep=sep, comment="#", skip_rows=len(lines))
    lines += [sep.join(header)] if header else []
    for k in range(draw(st.integers(1, 10))):
        kind = draw(st.sampled_from(["row", "row", "row", "blank", "comment"])) if k else "row"
        if kind != "row":
            lines.append("" if kind == "blank" else "# a note")
            continue
        words = [draw(st.sampled_from(ODD_WORDS)) for _ in range(2)]
        width = len(header) - 2 if header else draw(st.integers(0, 5))
        fields = words + [
            draw(st.sampled_from(["A", "B", ""])) if h == "rater" else draw(VALUES)
            for h in (header or [""] * 2 + [None] * width)[2:]
        ]
        change = draw(st.sampled_from(["none", "none", "extra", "short"]))
        if change == "extra":
            fields += [draw(VALUES.filter(str.strip)) for _ in range(draw(st.integers(1, 2)))]
        elif change == "short":
            fields = fields[: draw(st.integers(2, len(fields)))]
        lines.append(sep.join(fields))
    bom = "\ufeff" if draw(st.booleans()) else ""
    return bom + "\n".join(lines) + "\n", src


def source_cells(text: str, src: dict) -> Counter:
    """Every non-blank cell of the file as (row, column label), read with the csv module."""
    lines = text.lstrip("\ufeff").split("\n")[:-1]
    cells: Counter = Counter()
    header = None
    for n, line in enumerate(lines, start=1):
        if n <= src["skip_rows"] or line.startswith("#"):
            cells[(n, "(line)")] += bool(line.strip())
            continue
        fields = next(csv.reader([line], delimiter=src["sep"]), [])
        if header is None and src.get("header", True):
            header = [f.strip() for f in fields]
        for j, field in enumerate(fields):
            name = header[j] if header and j < len(header) and header[j] else f"#{j + 1}"
            cells[(n, name)] += bool(field.strip())
    return +cells


def data_lines(text: str, src: dict) -> list[str]:
    """The lines a reader parses (after the title rows, not comments) that hold anything but blanks."""
    lines = text.lstrip("\ufeff").split("\n")[:-1]
    return [line for line in lines[src["skip_rows"] :] if line.strip() and not line.startswith("#")]


RAGGED_BLANKS_ONLY = {
    **{"layout": "ragged", "header": False, "words": [1, 2], "raters": {"from": 3}},
    **{"path": "s.txt", "sep": "\t", "comment": "#", "skip_rows": 0},
}


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sheet=hostile_sheets(), policy=st.sampled_from(["reject", "first", "mean", "all"]))
@example(sheet=("\t\n", RAGGED_BLANKS_ONLY), policy="reject")  # found by CI: a headerless sheet of blank cells
def test_every_cell_of_a_hostile_sheet_is_accounted_for_once(sheet, policy):
    text, src = sheet
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "s.txt").write_text(text, encoding="utf-8")
        spec = {"language": "en", "kind": "ratings", "scale": [0, 6], "duplicates": policy, "sources": [src]}
        if not data_lines(text, src):  # nothing but blanks to read: a clear error, not an empty table
            with pytest.raises(InputError, match="s.txt: the file has no data"):
                clean_dataset("p", spec, base_dir=tmp)
            return
        t = clean_dataset("p", spec, base_dir=tmp)
        counted = text_cells(Path(tmp, "s.txt"), src)
    expected = source_cells(text, src)
    assert sum(expected.values()) == counted  # two independent counts of the file agree
    assert t["summary"]["raw_cells"][0] == counted and accounted(t) == counted
    assert bool(t["summary"]["ledger_balanced"][0])
    # cell by cell: the ledger and the accepted ratings hold every cell that is not a word or a
    # rater id kept on the items, once; the words and rater ids kept are the label_cells
    found = Counter((r.source_row, r.column) for r in t["rejects"].itertuples() if r.raw_value.strip())
    found += Counter((r.source_row, _rating_column(r.rater, src)) for r in t["ratings"].itertuples())
    assert not found - expected  # nothing found that the file does not hold, nothing twice
    labels = {"w1", "w2", "rater", "#1", "#2"}
    assert {cell for cell in expected - found if cell[1] not in labels} == set()
    assert sum((expected - found).values()) == t["summary"]["label_cells"][0]


def _rating_column(rater: str, src: dict) -> str:
    if src.get("layout") == "long":
        return "score"
    if src.get("layout") == "ragged":
        return f"#{int(rater[1:]) + 2}"
    return rater
