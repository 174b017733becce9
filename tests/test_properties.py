"""Property-based: random wide sheets through cleaning keep the ledger and the raw values intact."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simgold.clean import clean_dataset

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
    assert len(t["ratings"]) + len(t["rejects"]) == len(rows) * n_raters
    # no accepted rating differs from its raw cell, and it lies on the scale
    for r in t["ratings"].itertuples():
        raw = rows[r.source_row - 2][2][raters.index(r.rater)]
        assert float(raw.strip()) == r.score and 0 <= r.score <= 6
    # the ledger keeps the raw text exactly
    for r in t["rejects"].itertuples():
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
    # an empty workbook cell at the end of a row is a short row, elsewhere a missing one: either
    # way one ledger row per cell
    assert len(t["ratings"]) + len(t["rejects"]) == len(rows) * n_raters
    for r in t["ratings"].itertuples():
        raw = rows[r.source_row - 2][2][raters.index(r.rater)]
        assert float(raw.strip() if isinstance(raw, str) else raw) == r.score and 0 <= r.score <= 6
    for r in t["rejects"].itertuples():
        raw = rows[r.source_row - 2][2][raters.index(r.column)]
        if isinstance(raw, str):
            assert r.raw_value == raw
        elif raw is not None:
            assert float(r.raw_value) == raw and r.reason == "out_of_scale"
        else:
            assert r.raw_value == "" and r.reason in ("missing", "short_row", "empty_rater")
