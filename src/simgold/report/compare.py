"""A rebuilt result file against the archived one: by bytes first, then by value within a bound.

Another CPU or BLAS kernel may change the last bits of what is computed in floating point; nothing
else may change. ``simgold rebuild`` judges each result file (docs/methods.md section 10):

* **identical**: the same bytes;
* **within**: a Parquet table whose counts, words, ids, row order and column types are exact, whose
  floats differ by no more than the bound of their kind (:data:`BOUNDS`), and whose provenance
  differs at most in the digests of inputs that were themselves judged within the bound;
* **different**: anything else (a failure naming the columns and the size of the difference).

The bound of a float column depends on how it was computed: a statistic of the ratings, in float64
from exact inputs, may move by rounding alone (1e-12 relative); a value computed in float32 or from
float32 model vectors (vectors, cosines, the scores and tests made from them) by a few float32
units in the last place. Model outputs may change rank only where they tie within that bound; each
such pair of items is reported, and the rank statistics made from them may then differ beyond the
bound (reported as explained by those ties).

>>> import numpy as np
>>> alpha = np.array([[0.5], [0.25]])
>>> _judge(alpha, alpha * [[1], [1 + 1e-6]], "float64")[0], _judge(alpha, alpha * [[1], [1 + 1e-14]], "float64")[0]
('different', 'within')
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from graphlib import TopologicalSorter
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

__all__ = ["Verdict", "compare_tables", "largest_vector_difference", "BOUNDS"]

#: bounds by kind of column: (relative, absolute) -- |a - b| <= rel * max(|a|, |b|) + abs
BOUNDS = {
    "float64": (1e-12, 1e-15),  # statistics of the ratings, computed in float64
    "float32": (4 * 2.0**-23, 4 * 2.0**-24),  # 4 float32 ulps: vectors, cosines and what is made of them
}
#: tables made from model vectors: their float columns carry the float32 bound
MODEL_TABLES = frozenset(
    {
        "embeddings",
        "context_vectors",
        "predictions",
        "scores",
        "summary_scores",
        "model_differences",
        "differences_summary",
        "msd",
        "cosimlex",
        "cosimlex_summary",
        "noise",
    }
)
#: columns of a table of model outputs whose order (ranks) the statistics use
RANKED_COLUMNS = {"predictions": "sim"}


#: what each verdict says in a report
VERDICT_WORDS = {
    "identical": "byte-identical",
    "within": "equal within the bound",
    "different": "DIFFERENT",
    "rendered": "re-rendered",
    "reported": "reported, not compared",
    "withheld": "withheld from the archive, equal to its recorded checksum",
    "withheld_differs": "withheld from the archive, not equal to its recorded checksum (not judged by value)",
}


@dataclass
class Verdict:
    """How one rebuilt file compares with the archived one (``kind``: a key of :data:`VERDICT_WORDS`).

    Attributes
    ----------
    path : str
        The file's path, relative to the archive (and the project).
    kind : str
        The verdict: ``identical``, ``within``, ``different``, ``rendered``, ``reported``, ...
    detail : str
        What differs or how much ("" when nothing to add).
    table : str
        A Parquet file's table name, from its provenance ("" for other files).
    ties : list[str]
        Pairs of items tied within the bound that changed order.
    structural : bool
        True when columns, rows or exact values differ: no upstream tie explains it.
    """

    path: str
    kind: str
    detail: str = ""
    table: str = ""  # a Parquet file's table (its provenance)
    ties: list[str] = field(default_factory=list)  # pairs of items reordered within the bound
    structural: bool = False  # columns, rows or exact values differ: nothing upstream explains it

    def line(self) -> str:
        return f"{self.path}: {VERDICT_WORDS[self.kind]}{': ' + self.detail if self.detail else ''}"


def _bound_kind(table: str, dtype) -> str:
    if pa.types.is_float32(dtype) or table in MODEL_TABLES:
        return "float32"
    return "float64"


def _floats(dtype) -> bool:
    return pa.types.is_floating(dtype) or (
        (pa.types.is_list(dtype) or pa.types.is_fixed_size_list(dtype)) and pa.types.is_floating(dtype.value_type)
    )


def _matrix(column: pa.ChunkedArray) -> np.ndarray:
    """A float column as a 2-D float64 array (one row per row; a list column's values across)."""
    if pa.types.is_floating(column.type):
        return column.to_numpy(zero_copy_only=False).astype(np.float64).reshape(-1, 1)
    rows = column.to_pylist()
    width = max((len(r) for r in rows if r is not None), default=0)
    return np.array([r if r is not None else [np.nan] * width for r in rows], dtype=np.float64).reshape(len(rows), -1)


def _judge(a: np.ndarray, b: np.ndarray, kind: str) -> tuple[str, float]:
    """(identical, within or different; the largest relative difference) of two float arrays of the
    same shape, by the bound of their ``kind`` (a key of :data:`BOUNDS`; NaN must match NaN).

    Parameters
    ----------
    a : np.ndarray
        The archived values (float).
    b : np.ndarray
        The rebuilt values (float), compared element by element with ``a``.
    kind : str
        ``float64`` or ``float32``: which relative and absolute bound applies.

    Returns
    -------
    tuple[str, float]
        (``identical``, ``within`` or ``different``; the largest relative difference, ``inf``
        when shapes or NaN positions differ).
    """
    if a.shape != b.shape or not np.array_equal(np.isnan(a), np.isnan(b)):
        return "different", float("inf")
    ok = ~np.isnan(a)
    if np.array_equal(a[ok], b[ok]):
        return "identical", 0.0
    rel, floor = BOUNDS[kind]
    diff = np.abs(a[ok] - b[ok])
    scale = np.maximum(np.abs(a[ok]), np.abs(b[ok]))
    largest = float(np.max(diff / np.maximum(scale, np.finfo(float).tiny)))
    return ("within" if bool(np.all(diff <= rel * scale + floor)) else "different"), largest


def _reordered_ties(table: pa.Table, a: np.ndarray, b: np.ndarray, kind: str) -> tuple[list[str], bool]:
    """Pairs of items whose order by a ranked column changed: (described pairs, all within the bound)."""
    rel, floor = BOUNDS[kind]
    a, b = a.ravel(), b.ravel()
    ids = table.column("item_id").to_pylist() if "item_id" in table.column_names else list(range(len(a)))
    groups = list(zip(*(table.column(c).to_pylist() for c in ("dataset", "model") if c in table.column_names)))
    groups = groups or [()] * len(a)
    pairs, within = [], True
    order = np.argsort(a, kind="stable")
    for pos in range(len(order)):  # neighbours in the archived order, and any close ones beyond them
        i = order[pos]
        for j in order[pos + 1 :]:
            if np.isnan(a[i]) or np.isnan(a[j]) or groups[i] != groups[j]:
                continue
            gap = a[j] - a[i]
            if gap > 2 * (rel * max(abs(a[i]), abs(a[j])) + floor) and b[j] > b[i]:
                break  # far apart and still in order: no later item can tie with i
            if np.sign(a[j] - a[i]) != np.sign(b[j] - b[i]):
                tie = gap <= rel * max(abs(a[i]), abs(a[j])) + floor
                within &= bool(tie)
                pairs.append(f"{ids[i]} / {ids[j]} ({a[i]!r} vs {a[j]!r}, rebuilt {b[i]!r} vs {b[j]!r})")
    return pairs, within


def _compare_parquet(rel: str, archived: Path, rebuilt: Path, judged: dict[str, Verdict]) -> Verdict:
    """One Parquet table: structure exact, floats within their bound, provenance structurally."""
    if archived.read_bytes() == rebuilt.read_bytes():
        return Verdict(rel, "identical")
    ta, tb = pq.read_table(archived), pq.read_table(rebuilt)
    prov_a, prov_b = _provenance(ta.schema), _provenance(tb.schema)
    table = prov_a.get("table") or ""
    if ta.schema.remove_metadata() != tb.schema.remove_metadata():
        detail = f"columns or types differ: {ta.schema.names} vs {tb.schema.names}"
        return Verdict(rel, "different", detail, table, structural=True)
    if ta.num_rows != tb.num_rows:
        return Verdict(rel, "different", f"{ta.num_rows} rows archived, {tb.num_rows} rebuilt", table, structural=True)
    exact, problems, largest, ties = _compare_columns(ta, tb, table)
    if exact:
        problems.insert(0, f"values that must be exact differ in {', '.join(exact)}")
    problems += _provenance_problems(prov_a, prov_b, judged)
    if problems:
        return Verdict(rel, "different", "; ".join(problems), table, ties, structural=bool(exact))
    detail = (
        f"largest relative difference {largest[0]:.3g} in {largest[1]}"
        if largest[1]
        else "the same values; the provenance names inputs that differ within the bound"
    )
    if ties:
        detail += f"; {len(ties)} pairs of items tied within the bound change order: {'; '.join(ties)}"
    return Verdict(rel, "within", detail, table, ties)


def _compare_columns(
    ta: pa.Table, tb: pa.Table, table: str
) -> tuple[list[str], list[str], tuple[float, str], list[str]]:
    """Two tables of the same schema, column by column: the exact columns that differ, the float
    columns beyond their bound (and ranked items reordered beyond it), the largest relative
    difference within the bound and its column, and the pairs of items tied within the bound that
    change order."""
    exact, problems, largest, ties = [], [], (0.0, ""), []
    for name in ta.column_names:
        ca, cb = ta.column(name), tb.column(name)
        if not _floats(ca.type):
            if not ca.equals(cb):
                exact.append(name)
            continue
        kind = _bound_kind(table, ca.type)
        a, b = _matrix(ca), _matrix(cb)
        verdict, size = _judge(a, b, kind)
        if name == RANKED_COLUMNS.get(table) and verdict != "identical":
            found, within = _reordered_ties(ta, a, b, kind)
            ties += found
            if not within:
                problems.append(f"{name}: items change order beyond the bound ({'; '.join(found[:3])})")
        if verdict == "different":
            problems.append(f"{name}: largest relative difference {size:.3g} (bound {BOUNDS[kind][0]:.3g}, {kind})")
        elif size > largest[0]:
            largest = (size, name)
    return exact, problems, largest, ties


def _provenance(schema: pa.Schema) -> dict:
    """A table's provenance, from its Parquet schema's metadata (simgold.io.tables.write_parquet).

    Parameters
    ----------
    schema : pa.Schema
        A Parquet file's schema.

    Returns
    -------
    dict
        The ``simgold`` metadata entry decoded from JSON (``{}`` when it has none).
    """
    return json.loads((schema.metadata or {}).get(b"simgold", b"{}"))


def _provenance_problems(a: dict, b: dict, judged: dict[str, Verdict]) -> list[str]:
    """Provenance compared structurally: the same keys and values, except the digest of an input
    that was itself judged equal within the bound."""
    problems = []
    for key in sorted(set(a) | set(b)):
        if key == "inputs":
            continue
        if a.get(key) != b.get(key):
            problems.append(f"provenance {key!r} differs")
    ia, ib = a.get("inputs", {}), b.get("inputs", {})
    if sorted(ia) != sorted(ib):
        problems.append("provenance: the inputs differ")
        return problems
    for label in sorted(ia):
        if ia[label] != ib[label] and judged.get(label, Verdict(label, "different")).kind != "within":
            problems.append(f"provenance: input {label} has another digest, and was not judged equal within the bound")
    return problems


def compare_tables(directory: Path, project: Path, rels: list[str], judged: dict[str, Verdict]) -> None:
    """Judge the Parquet tables ``rels`` (archived in ``directory``, rebuilt in ``project``) into
    ``judged``, each once, inputs before the tables made from them (the order their provenance
    gives), so that a table's provenance is judged against its inputs' verdicts. A table of model
    statistics that differs beyond the bound, but only in floats and only downstream of items tied
    within the bound that changed order, is reported as explained by those ties.

    Parameters
    ----------
    directory : Path
        The unpacked archive.
    project : Path
        The project directory the tables were rebuilt in.
    rels : list[str]
        The Parquet tables to judge, relative paths.
    judged : dict[str, Verdict]
        Verdicts by relative path, filled in place (and read for the inputs' verdicts).
    """
    inputs = {
        rel: [i for i in _provenance(pq.read_schema(directory / rel)).get("inputs", {}) if i in rels] for rel in rels
    }
    tied: dict[str, list[str]] = {}  # each table -> the tables upstream of it (itself included) with reordered ties
    for rel in TopologicalSorter(inputs).static_order():
        verdict = _compare_parquet(rel, directory / rel, project / rel, judged)
        tied[rel] = sorted({t for i in inputs[rel] for t in tied[i]} | ({rel} if verdict.ties else set()))
        upstream = [t for t in tied[rel] if t != rel]
        if verdict.kind == "different" and not verdict.structural and upstream and verdict.table in MODEL_TABLES:
            verdict.kind = "within"
            verdict.detail += f"; explained by items tied within the bound in {', '.join(upstream)}"
        judged[rel] = verdict


def largest_vector_difference(pairs) -> float:
    """The largest absolute difference of a component over pairs of vectors (archived, recomputed).

    Parameters
    ----------
    pairs : object
        Iterable of (archived, recomputed) vectors, each array-like of floats.

    Returns
    -------
    float
        The largest absolute componentwise difference (0.0 with no pairs).
    """
    return max((float(np.max(np.abs(np.asarray(a, float) - np.asarray(b, float)))) for a, b in pairs), default=0.0)
