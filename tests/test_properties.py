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
