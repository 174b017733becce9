"""Columns to Arrow (simgold.io.tables.to_arrow): at once where Arrow can, value by value where it
cannot, with the same table and the same Parquet bytes either way."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from simgold.io.tables import to_arrow, write_parquet

TYPES = {
    "text": pa.string(),
    "obj": pa.string(),
    "num": pa.float64(),
    "na": pa.string(),
    "whole": pa.int64(),
    "vec": pa.list_(pa.float32()),
}


def _frame() -> pd.DataFrame:
    chunked = pd.Series(pd.arrays.ArrowStringArray(pa.chunked_array([["b", None], ["a"]])))
    return pd.DataFrame(
        {
            "text": chunked,  # arrow-backed strings in two chunks
            "obj": pd.Series(["x", None, np.nan], dtype=object),
            "num": [1.5, np.nan, -0.0],
            "na": pd.Series([pd.NA, "y", "z"], dtype=object),
            "whole": pd.Series([1, None, 3], dtype="Int64"),
            "vec": [np.float32([1, 2]), np.float32([3, 4]), None],
        }
    )


def _missing(v) -> bool:
    return v is None or v is pd.NA or (isinstance(v, float) and v != v)


def _by_value(series: pd.Series, typ: pa.DataType) -> pa.Array:
    return pa.array([None if _missing(v) else v for v in series.tolist()], type=typ)


def test_columns_convert_as_value_by_value_conversion_does(tmp_path):
    """NaN, None and NA are null; every column is one chunk; the Parquet bytes do not depend on how
    a column was held (arrow-backed in chunks, or Python objects)."""
    frame = _frame()
    got = to_arrow(frame, types=TYPES)
    assert got.equals(pa.table({c: _by_value(frame[c], t) for c, t in TYPES.items()}))
    assert all(got[c].num_chunks == 1 for c in TYPES) and got["num"].null_count == 1
    write_parquet(frame, tmp_path / "a.parquet", types=TYPES)
    write_parquet(frame.astype({"text": object}), tmp_path / "b.parquet", types=TYPES)
    assert (tmp_path / "a.parquet").read_bytes() == (tmp_path / "b.parquet").read_bytes()


def test_a_column_of_mixed_values_is_refused_not_coerced():
    """A word among numbers (or a number among words): Arrow refuses the column at once, and the
    value-by-value conversion refuses it too: nothing is coerced to the column's type."""
    with pytest.raises((pa.ArrowInvalid, pa.ArrowTypeError), match="'one'"):
        to_arrow(pd.DataFrame({"m": pd.Series(["one", 2.5, None], dtype=object)}), types={"m": pa.float64()})
    with pytest.raises((pa.ArrowInvalid, pa.ArrowTypeError)):
        to_arrow(pd.DataFrame({"m": pd.Series(["one", 2, None], dtype=object)}), types={"m": pa.string()})
