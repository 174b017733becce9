"""Canonical tables (docs/methods.md section 0) written as deterministic Parquet.

Each table has a fixed Arrow schema and a documented sort key. The writer sorts, casts, and stores
provenance as key-value metadata (no timestamps, no host names), so identical inputs give
byte-identical files. Files are written to a temporary name and renamed, so a failed job never
leaves a half-written table behind.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from simgold.stats.agreement_statistics import AGREEMENT_STATISTICS

__all__ = [
    "SCORE_COLUMNS",
    "SCORE_KEY",
    "SUMMARY_EXTRAS",
    "AUDIT_CHECKS",
    "TABLES",
    "TableSpec",
    "sort_canonical",
    "to_arrow",
    "write_parquet",
    "read_parquet",
    "read_provenance",
    "tsv_bytes",
    "tsv_text",
]


S, F, I, B = pa.string(), pa.float64(), pa.int64(), pa.bool_()  # noqa: E741 (short column-type aliases)

SCORE_COLUMNS = {
    "dataset": S,
    "model": S,
    "metric": S,
    "subset": S,
    "value": F,
    "ci_low": F,
    "ci_high": F,
    "confidence": F,  # the CIs' level (scoring.confidence); NaN for a metric without CIs or with 0 resamples
    "n_used": I,
    "n_total": I,
    "note": S,  # why the value (or its CI) is missing; empty when it is there
}
SCORE_KEY = ["dataset", "model", "metric", "subset"]
#: score rows that the summary shows as columns beside the other metrics
SUMMARY_EXTRAS = ("oov_pairs", "oov_words", "human_ceiling", "raters_below")

#: the checks of the dataset audit (simgold.stages.audit), in the order its table lists them
AUDIT_CHECKS = (
    "released_mean", "spreadsheet_date", "text_number", "duplicate_pair", "reversed_pair",
    "shifted_row", "single_rating", "rater_mean",
)  # fmt: skip


class TableSpec(NamedTuple):
    """A canonical table: its columns (name -> Arrow type, in column order) and its sort key
    (None: rows keep the order they are given in).

    Attributes
    ----------
    columns : dict of str to pyarrow.DataType
        Name -> type, in column order.
    key : list of str or None
        The sort key.
    """

    columns: dict[str, pa.DataType]
    key: list[str] | None

    @property
    def names(self) -> tuple[str, ...]:
        """The column names, in order."""
        return tuple(self.columns)


def _agreement_columns() -> dict[str, pa.DataType]:
    """The agreement table's columns: one per statistic of the registry, in its order, between
    the stage and subset they are of and the note."""
    types = {"int": I, "float": F}
    statistics = {name: types[s.dtype] for name, s in AGREEMENT_STATISTICS.items()}
    return {"dataset": S, "stage": S, "subset": S, **statistics, "note": S}


#: name -> (columns, sort key); columns given by a function are derived at each look-up
_SPECS: dict[str, tuple[dict[str, pa.DataType] | Callable[[], dict[str, pa.DataType]], list[str] | None]] = {
    "items": (
        {
            "dataset": S,
            "item_id": S,
            "language": S,
            "word1": S,
            "word2": S,
            "context": pa.int8(),
            "context_text": S,
            "pos": S,
            "relation": S,
            "source_item_id": S,
            "occurrence": pa.int32(),
            "source_file": S,
            "source_row": I,
        },
        ["dataset", "item_id"],
    ),
    "ratings": (
        {"dataset": S, "item_id": S, "rater": S, "score": F, "source_file": S, "source_row": I},
        ["dataset", "item_id", "rater"],
    ),
    # a rater's repeated answers to one pair, before the duplicates rule (test-retest material)
    "repeats": (
        {"dataset": S, "item_id": S, "rater": S, "answer": I, "score": F, "source_file": S, "source_row": I},
        ["dataset", "item_id", "rater", "answer"],
    ),
    "means": (
        {"dataset": S, "item_id": S, "mean": F, "sd": F, "n": F, "source_file": S, "source_row": I},
        ["dataset", "item_id"],
    ),
    "rankings": (
        {
            "dataset": S,
            "target": S,
            "rater": S,
            "candidate": S,
            "category": S,
            "rank": I,
            "source_file": S,
            "source_row": I,
        },
        ["dataset", "target", "rater", "candidate"],
    ),
    # Best-Worst Scaling answers (kind bws; empty for the other kinds): one row per item of an
    # accepted answer, choice "best", "worst" or ""; answer numbers in file order, sources in config order
    "answers": (
        {
            "dataset": S,
            "answer": I,
            "tuple": S,
            "rater": S,
            "position": I,
            "item_id": S,
            "choice": S,
            "source_file": S,
            "source_row": I,
        },
        ["dataset", "answer", "position"],
    ),
    "calibration": (
        {"dataset": S, "rater": S, "n_items": I, "mean_score": F, "calib_diff": F, "calib_shift": F, "n_changed": I},
        ["dataset", "rater"],
    ),
    # agreement rows in stage order (raw, calibrated, filtered), "all" first, then subsets by name;
    # a column per statistic of simgold.stats.agreement_ci.AGREEMENT_STATISTICS
    "agreement": (_agreement_columns, None),
    # raters in stage order, then by rater id
    "raters": (
        {
            "dataset": S,
            "stage": S,
            "rater": S,
            "n_items": I,
            "mean_score": F,
            "calib_diff": F,
            "calib_shift": F,
            "avg_pairwise": F,
            "vs_mean": F,
            "vs_rest": F,
            "excluded": B,
            "exclusion_reason": S,
            # answers to the dataset's attention checks and those failed (null without an attention key)
            "attention_checks": I,
            "attention_failures": I,
        },
        None,
    ),
    "gold": (
        {
            "dataset": S,
            "item_id": S,
            "n": I,
            "mean": F,
            "sd": F,
            "median": F,
            "rsd": F,
            "mean_unit": F,
            "mean_minmax": F,
            "rank": F,
            "ci_low": F,  # Student's t interval of the mean, at the scoring's level
            "ci_high": F,
            "confidence": F,
            "resolved_share": F,  # share of the other items whose order with this one Welch's test resolves
            "basis": S,
            "released_mean": F,
        },
        ["dataset", "item_id"],
    ),
    "distribution": (
        {
            "dataset": S,
            "bin_low": F,
            "bin_high": F,
            "n_items": I,
            "share": F,
            "mean_of_means": F,
            "mean_sd": F,
            "mean_rsd": F,
        },
        ["dataset", "bin_low"],
    ),
    # a Best-Worst Scaling dataset's items: counts, the counting score with its bootstrap interval
    # (raters resampled where every answer names one, else answers: counting_resampled) and with the
    # answers resampled, the MaxDiff utility with its Wald interval
    "bws_scores": (
        {
            "dataset": S,
            "item_id": S,
            "n_shown": I,
            "n_best": I,
            "n_worst": I,
            "n_tuples": I,  # the distinct tuples that showed the item
            "counting": F,
            "counting_low": F,
            "counting_high": F,
            "counting_resampled": S,
            "answers_low": F,  # the interval with the answers resampled, whatever counting_resampled says
            "answers_high": F,
            "logit": F,
            "logit_se": F,
            "logit_low": F,
            "logit_high": F,
            "confidence": F,
            "note": S,  # why an interval is missing
        },
        ["dataset", "item_id"],
    ),
    # a Best-Worst Scaling dataset's split-half reliability, raw then filtered (when a rater is out)
    "bws_reliability": (
        {
            "dataset": S,
            "stage": S,
            "n_answers": I,
            "n_tuples": I,
            "n_items": I,
            "n_raters": I,
            "k_min": I,
            "k_max": I,
            "answers_per_tuple": F,
            "trials": I,
            "shr_spearman": F,
            "shr_pearson": F,
            "shr_spearman_sb": F,
            "shr_pearson_sb": F,
            "ci_low": F,
            "ci_high": F,
            "confidence": F,
            "target": F,
            "answers_needed": F,
            "note": S,
        },
        None,
    ),
    # dropped translations, in the order found: source items first (translators), then target items
    "dropped": (
        {"dataset": S, "side": S, "item_id": S, "word1": S, "word2": S, "reason": S, "candidates": S},
        None,
    ),
    "crosslingual": (
        {"source_dataset": S, "source_item_id": S, "word1": S, "word2": S},
        ["source_dataset", "source_item_id"],
    ),
    "crosslingual_correlations": (
        {
            "source_dataset": S,
            "dataset_a": S,
            "language_a": S,
            "dataset_b": S,
            "language_b": S,
            "n": I,
            "spearman": F,
            "ci_low": F,  # percentile bootstrap over the shared items, at scoring.confidence
            "ci_high": F,
            "confidence": F,
            "note": S,  # why there is no correlation or no CI
        },
        ["source_dataset", "dataset_a", "dataset_b"],
    ),
    "embeddings": ({"word": S, "source": S, "line": I}, ["word"]),  # + vector: float32[dim]
    # each item's two words in its context; vectors null where a word was not found in the context
    "context_vectors": (
        {"dataset": S, "model": S, "item_id": S, "word1": S, "word2": S, "missing": S},
        ["dataset", "model", "item_id"],
    ),  # + vector1, vector2: float64[dim] (the model's own precision)
    "comparisons": (
        {
            "dataset": S,
            "target": S,
            "w1": S,
            "w2": S,
            "type": S,
            "r": F,
            "n_raters": I,
            "tie_to_w1": B,
            "set": S,
            "source_file": S,
            "source_row": I,
        },
        ["dataset", "set", "target", "w1", "w2", "type"],
    ),
    "predictions": (
        {"dataset": S, "model": S, "item_id": S, "word1": S, "word2": S, "sim": F, "oov": B, "oov_words": S},
        ["dataset", "model", "item_id"],
    ),
    "scores": (SCORE_COLUMNS, SCORE_KEY),
    # the summary puts the OOV shares and the human ceiling beside each score, and flags a model
    # that found fewer than half of the dataset's words (a file read wrongly looks like that)
    # and the dataset's minimum significant Spearman difference (with the r_jk it assumes) beside it
    "summary_scores": (
        {**SCORE_COLUMNS, **dict.fromkeys(SUMMARY_EXTRAS, F), "low_coverage": B, "msd": F, "msd_r_jk": F},
        SCORE_KEY,
    ),
    "model_differences": (
        _MODEL_DIFFERENCES := {
            "dataset": S,
            "model_a": S,
            "model_b": S,
            "metric": S,
            "n_used": I,
            "value_a": F,
            "value_b": F,
            "difference": F,
            "ci_low": F,
            "ci_high": F,
            "confidence": F,
            "p": F,
            "r_ab": F,
            "williams_t": F,
            "williams_p": F,
            "zou_low": F,
            "zou_high": F,
            "p_holm": F,
            "williams_p_holm": F,
            "note": S,
        },
        ["dataset", "model_a", "model_b", "metric"],
    ),
    # every dataset's model differences, with q values (Benjamini-Hochberg) across the datasets
    "differences_summary": (
        {**_MODEL_DIFFERENCES, "q_bh": F, "williams_q_bh": F},
        ["dataset", "model_a", "model_b", "metric"],
    ),
    # minimum significant differences of a dataset: the fixed r_jk levels, then the observed one
    "msd": (
        {
            "dataset": S,
            "model": S,
            "n": I,
            "n_items": I,
            "r_best": F,
            "r_jk": F,
            "r_jk_kind": S,
            "model_k": S,
            "alpha": F,
            "msd": F,
            "items_d02": F,
            "items_d05": F,
            "items_d10": F,
            "note": S,
        },
        None,
    ),
    "context_tests": (
        {
            "dataset": S,
            "pair_id": S,
            "word1": S,
            "word2": S,
            "item1": S,
            "item2": S,
            "n1": I,
            "n2": I,
            "mean1": F,
            "mean2": F,
            "sd1": F,
            "sd2": F,
            "statistic": F,
            "p": F,
            "q": F,
            "test": S,
            "recomputed": B,
            "note": S,
        },
        ["dataset", "pair_id"],
    ),
    "context_summary": (
        {
            "dataset": S,
            "language": S,
            "n_pairs": I,
            "n_tested": I,
            "n_p_below_0_1": I,
            "share_p_below_0_1": F,
            "n_p_below_0_05": I,
            "share_p_below_0_05": F,
            "n_q_below_0_05": I,
            "recomputed": B,
            "test": S,
        },
        None,
    ),
    "cosimlex": (
        {"dataset": S, "model": S, "metric": S, "value": F, "n": I, "note": S},
        ["dataset", "model", "metric"],
    ),
    "cosimlex_summary": (
        {"model": S, "language": S, "dataset": S, "subtask1": F, "subtask2": F},
        ["model", "language", "dataset"],
    ),
    "noise": (
        {
            "dataset": S,
            "model": S,
            "level": F,
            "noise": F,
            "mean": F,
            "sd": F,
            "p2_5": F,
            "p97_5": F,
            "k": I,
            "m": I,
            "n_items": I,
            "trend_spearman": F,
            "monotonic_share": F,
            "note": S,  # why there is no curve (simgold.stages.noise.noise_check)
        },
        ["dataset", "model", "level"],
    ),
    # bootstrap CIs on agreement, in stage, subset, statistic and scheme order (simgold.stats.agreement_ci)
    "agreement_ci": (
        {
            "dataset": S,
            "stage": S,
            "subset": S,
            "statistic": S,
            "scheme": S,
            "value": F,
            "ci_low": F,
            "ci_high": F,
            "confidence": F,
            "resamples": I,
            "n_undefined": I,
            "note": S,
        },
        None,
    ),
    # intraclass correlations per stage, subset and form, in that order (simgold.stats.icc)
    "icc": (
        {
            "dataset": S,
            "stage": S,
            "subset": S,
            "form": S,
            "value": F,
            "ci_low": F,
            "ci_high": F,
            "confidence": F,
            "n_items": I,
            "n_raters": I,
            "note": S,
        },
        None,
    ),
    # test-retest reliability: all raters pooled first, then each rater (simgold.stats.retest)
    "retest": (
        {
            "dataset": S,
            "rater": S,
            "n_pairs": I,
            "n_items": I,
            "n_raters": I,
            "mean_abs_diff": F,
            "share_equal": F,
            "spearman": F,
            "pearson": F,
            "icc": F,
            "ci_low": F,
            "ci_high": F,
            "confidence": F,
            "note": S,
        },
        None,
    ),
    # Krippendorff's alpha per stage, subset and level of measurement, in that order
    "alpha": (
        {
            "dataset": S,
            "stage": S,
            "subset": S,
            "level": S,
            "alpha": F,
            "n_units": I,
            "n_values": I,
            "n_distinct": I,
            "note": S,
        },
        None,
    ),
    # split-half reliability and raters needed (one row), and the projected curve
    "reliability": (
        {
            "dataset": S,
            "stage": S,
            "n_splits": I,
            "observed_raters": F,
            "n_splits_undefined": I,
            **{f"{name}{end}": F for name in ("r_half", "r_full", "r1", "h") for end in ("", "_low", "_high")},
            **{f"m_{target}{end}": F for target in ("0.8", "0.9") for end in ("", "_low", "_high")},
            "note": S,  # why splits have no value (simgold.stages.reliability.split_note)
        },
        None,
    ),
    "reliability_curve": (
        {"dataset": S, "stage": S, "m": I, "reliability": F, "low": F, "high": F},
        ["dataset", "m"],
    ),
    # dataset audit findings, in the order of AUDIT_CHECKS, then file, row and column
    "audit": (
        {
            "dataset": S,
            "check": S,
            "item_id": S,
            "rater": S,
            "source_file": S,
            "source_row": I,
            "column": S,
            "raw_value": S,
            "detail": S,
        },
        None,
    ),
    # the ledger is kept in file order: source, row, column position (the cleaner sorts it)
    "rejects": (
        {"dataset": S, "source_file": S, "source_row": I, "column": S, "raw_value": S, "reason": S, "detail": S},
        None,
    ),
}


class _Tables(Mapping):
    """The canonical tables by name, as ``_SPECS`` has them when looked up: the agreement table
    has a column for every statistic of the registry at that time."""

    def __getitem__(self, name: str) -> TableSpec:
        columns, key = _SPECS[name]
        return TableSpec(columns() if callable(columns) else columns, key)

    def __iter__(self) -> Iterator[str]:
        return iter(_SPECS)

    def __len__(self) -> int:
        return len(_SPECS)


#: every canonical table by name; adding a table is one entry above
TABLES: Mapping[str, TableSpec] = _Tables()


def _arrow_type_for(values: pd.Series) -> pa.DataType:
    """Type of an extra (attribute) column: string unless every non-null value is numeric or boolean."""
    present = [v for v in values.tolist() if not _is_null(v)]
    if present and all(isinstance(v, bool) for v in present):
        return B
    if present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return I
    if present and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        return F
    return S


def sort_canonical(df: pd.DataFrame, table: str) -> pd.DataFrame:
    """Rows in the documented order of ``table`` (a fresh 0..n-1 index).

    Parameters
    ----------
    df : pandas.DataFrame
        A table's rows.
    table : str
        Its name in ``TABLES``.

    Returns
    -------
    pandas.DataFrame
        The rows sorted.
    """
    key = TABLES[table].key if table in TABLES else None
    return (df.sort_values(key, kind="stable") if key else df).reset_index(drop=True)


def to_arrow(df: pd.DataFrame, table: str | None = None, types: dict | None = None) -> pa.Table:
    """Sort and cast a DataFrame to its canonical schema (extra columns typed by ``types`` or by
    their values).

    Parameters
    ----------
    df : pandas.DataFrame
        The rows.
    table : str, optional
        Its name in ``TABLES`` (None: typed by its values).
    types : dict, optional
        Arrow types of extra columns.

    Returns
    -------
    pyarrow.Table
        The table.
    """
    fixed = TABLES[table].columns if table in TABLES else {}
    missing = [c for c in fixed if c not in df.columns]
    if missing:
        raise ValueError(f"table {table}: missing columns {missing}")
    df = sort_canonical(df, table)
    arrays, fields = [], []
    for col in df.columns:
        typ = fixed.get(col) or (types or {}).get(col) or _arrow_type_for(df[col])
        arrays.append(_column_array(df[col], typ))
        fields.append(pa.field(col, typ))
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def _column_array(series: pd.Series, typ: pa.DataType) -> pa.Array:
    """One column as one contiguous Arrow array, nulls where the value is missing (None, NA, NaT, a
    float NaN): converted by Arrow from the column itself, or, where Arrow cannot take the column as
    it is (mixed objects), value by value as Python objects."""
    try:
        array = pa.array(series, type=typ, from_pandas=True)  # from_pandas: NaN is null, as _is_null says
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, TypeError, ValueError):
        array = pa.array([None if _is_null(v) else v for v in series.tolist()], type=typ)
    # one chunk, as the value-by-value array is: the Parquet pages do not depend on the column's history
    return array.combine_chunks() if isinstance(array, pa.ChunkedArray) else array


def _is_null(v) -> bool:
    if v is None or v is pd.NA or v is pd.NaT:
        return True
    return isinstance(v, float) and math.isnan(v)  # an undefined statistic is stored as null, not NaN


def write_parquet(
    df: pd.DataFrame,
    path: str | Path,
    table: str | None = None,
    provenance: dict | None = None,
    types: dict | None = None,
) -> None:
    """Write a table as deterministic Parquet: canonical order and types, its provenance in the metadata, no timestamps.

    Parameters
    ----------
    df : pandas.DataFrame
        The rows.
    path : str or pathlib.Path
        The Parquet file.
    table : str, optional
        Its name in ``TABLES``.
    provenance : dict, optional
        Written into the file's metadata.
    types : dict, optional
        Arrow types of extra columns.
    """
    arrow = to_arrow(df, table, types)
    meta = {"simgold": json.dumps({"table": table, **(provenance or {})}, sort_keys=True, ensure_ascii=False)}
    arrow = arrow.replace_schema_metadata(meta)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    pq.write_table(arrow, tmp, compression="zstd", write_statistics=True, use_dictionary=True)
    os.replace(tmp, path)


def read_parquet(path: str | Path) -> pd.DataFrame:
    """A Parquet table as a DataFrame.

    Parameters
    ----------
    path : str or pathlib.Path
        The Parquet file.

    Returns
    -------
    pandas.DataFrame
        Its rows.
    """
    return pq.read_table(path).to_pandas()


def read_provenance(path: str | Path) -> dict:
    """The provenance a Parquet file's metadata holds.

    Parameters
    ----------
    path : str or pathlib.Path
        The Parquet file.

    Returns
    -------
    dict
        The provenance ({} without one).
    """
    meta = pq.read_schema(path).metadata or {}
    return json.loads(meta.get(b"simgold", b"{}"))


def tsv_bytes(frame: pd.DataFrame) -> bytes:
    """A table as UTF-8 TSV: a header, numbers as Python writes them (the shortest text that reads
    back the same float), missing values empty, fields quoted only where they must be: where they
    hold a tab, a quote or a line break, a CR included (the csv module leaves a CR bare when lines
    end in LF, and a reader then cuts the row there).

    Parameters
    ----------
    frame : pandas.DataFrame
        The table.

    Returns
    -------
    bytes
        The TSV.

    Examples
    --------
    >>> frame = pd.DataFrame({"w": ["NA", "a\\tb", "ca\\rt"], "x": [0.1, np.nan, 2.0], "n": pd.array([3, None, 1], "Int64")})
    >>> tsv_bytes(frame).decode().split("\\n")
    ['w\\tx\\tn', 'NA\\t0.1\\t3', '"a\\tb"\\t\\t', '"ca\\rt"\\t2.0\\t1', '']
    """
    lines = ["\t".join(map(_tsv_field, map(str, frame.columns)))]
    lines += ["\t".join(_tsv_field(tsv_text(v)) for v in row) for row in frame.itertuples(index=False)]
    return ("\n".join(lines) + "\n").encode("utf-8")


def _tsv_field(text: str) -> str:
    if any(c in text for c in '\t"\n\r'):
        return '"' + text.replace('"', '""') + '"'
    return text


def tsv_text(value) -> str:
    """A cell as TSV and text tables write it: empty for a missing value, true/false, a float's shortest exact text.

    Parameters
    ----------
    value : object
        A cell.

    Returns
    -------
    str
        Its text.
    """
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    return str(value)
