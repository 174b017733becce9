"""The formats a raw file (a source, a translation table, a frequency list) is read in: one
registry, :data:`RAW_FORMATS`, whose names are the config's ``format`` values (the schema's two
``format`` enums are filled from it, ``simgold.io.schema``) and whose entries say how a file of
the format is read and which file name endings it goes by under ``format: auto``.

Examples
--------
A format is one entry; say ``.tsv`` files read as delimited text under a name of their own:

>>> from simgold.io.schema import load_schema
>>> RAW_FORMATS["tsv"] = RawFormat(RAW_FORMATS["text"].reader, (".tsv",))
>>> detect_format("ratings.TSV"), detect_format("ratings.csv")
('tsv', 'text')
>>> load_schema.cache_clear()
>>> load_schema()["$defs"]["reader"]["properties"]["format"]["enum"]
['auto', 'text', 'xlsx', 'ods', 'json', 'tsv']
>>> del RAW_FORMATS["tsv"]
>>> load_schema.cache_clear()
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from simgold.errors import InputError
from simgold.io.rawtable import ABSENT, RawTable, blank
from simgold.io.sheets import read_sheet
from simgold.io.textfiles import read_text

__all__ = ["RAW_FORMATS", "RawFormat", "detect_format", "table_formats"]

_FALLBACK = "text"  # under format: auto, a file whose name ending no format claims


@dataclass(frozen=True)
class RawFormat:
    """A raw-file format.

    Attributes
    ----------
    reader : callable or None
        ``reader(real path, display name, reader options, language)`` returns the file's
        :class:`~simgold.io.rawtable.RawTable`; None for a format a stage reads whole (not a table).
    extensions : tuple of str
        The lower-case file name endings ``format: auto`` takes for this format.
    """

    reader: Callable[[Path, str, dict, str | None], RawTable] | None
    extensions: tuple[str, ...] = ()


def _read_text_source(real: Path, path: str, src: dict, language: str | None) -> RawTable:
    return read_text(
        real,
        path,
        encoding=src["encoding"],
        sep=src.get("sep"),
        quoting=src["quoting"],
        comment=src.get("comment"),
        skip_rows=src["skip_rows"],
        header=src["header"],
        ragged=src.get("layout") == "ragged",
        join=(src.get("extra_fields") or {}).get("join") if isinstance(src.get("extra_fields"), dict) else None,
        language=language,
    )


def _read_xlsx_source(real: Path, path: str, src: dict, language: str | None) -> RawTable:
    return read_sheet(real, path, fmt="xlsx", sheet=src["sheet"], skip_rows=src["skip_rows"], header=src["header"])


def _read_ods_source(real: Path, path: str, src: dict, language: str | None) -> RawTable:
    return read_sheet(real, path, fmt="ods", sheet=src["sheet"], skip_rows=src["skip_rows"], header=src["header"])


def _read_json_source(real: Path, path: str, src: dict, language: str | None) -> RawTable:
    """A JSON export (an array of objects, or JSON Lines: one object a line) as a table: a column
    per key (nested objects' keys joined with ".", e.g. ``label_annotations.bws.best``; a list
    kept as its JSON text), in order of first appearance; a row per object, numbered by its line
    (JSON Lines) or its place in the array (1-based)."""
    text = real.read_bytes().decode("utf-8-sig" if src["encoding"] == "utf-8" else src["encoding"])
    try:
        if text.lstrip().startswith("["):
            records = [(k, obj) for k, obj in enumerate(json.loads(text), start=1)]
        else:
            records = [(k, json.loads(line)) for k, line in enumerate(text.splitlines(), start=1) if line.strip()]
    except json.JSONDecodeError as err:
        raise InputError(path, f"not valid JSON: {err.msg}", row=err.lineno) from None
    flat = []
    for row, obj in records:
        if not isinstance(obj, dict):
            raise InputError(path, f"a JSON {type(obj).__name__} where an object was expected", row=row)
        flat.append((row, _flattened(obj)))
    header = list(dict.fromkeys(key for _, fields in flat for key in fields))
    rows = [[fields.get(key, ABSENT) for key in header] for _, fields in flat]
    return RawTable(
        files=[path],
        header=header,
        rows=rows,
        lines=[[row for row, _ in flat]],
        origin=[(0, j + 1) for j in range(len(header))],
        raw_cells=sum(1 for cells in rows for cell in cells if not blank(cell)),
    )


def _flattened(obj: dict, prefix: str = "") -> dict:
    """An object's scalar values by their dotted key; a list as its JSON text, null as absent."""
    out: dict = {}
    for key, value in obj.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(_flattened(value, f"{name}."))
        elif isinstance(value, list):
            out[name] = json.dumps(value, ensure_ascii=False)
        elif value is not None:
            out[name] = value
    return out


RAW_FORMATS: dict[str, RawFormat] = {
    "text": RawFormat(_read_text_source),
    "xlsx": RawFormat(_read_xlsx_source, (".xlsx", ".xlsm")),
    "ods": RawFormat(_read_ods_source, (".ods",)),
    # JSON exports of annotation platforms (Label Studio's JSON-MIN, Potato's annotated_instances)
    "json": RawFormat(_read_json_source, (".json", ".jsonl")),
    # ag-evaluation files: a comparisons dataset's sources, read whole by its stage (simgold.stages.scores)
    "ag": RawFormat(None),
}


def table_formats() -> list[str]:
    """The formats read into a table (every one but those a stage reads whole).

    Returns
    -------
    list of str
        Their names, in the registry's order.
    """
    return [name for name, entry in RAW_FORMATS.items() if entry.reader is not None]


def detect_format(path: str, declared: str = "auto") -> str:
    """The format a file is read in: the declared one, or under ``auto`` the one its name's
    ending says (delimited text when none does).

    Parameters
    ----------
    path : str
        The file's configured path.
    declared : str
        The configured ``format``.

    Returns
    -------
    str
        A key of :data:`RAW_FORMATS`.
    """
    if declared != "auto":
        return declared
    suffix = Path(path).suffix.lower()
    for name, entry in RAW_FORMATS.items():
        if suffix in entry.extensions:
            return name
    if suffix == ".xls":
        raise InputError(
            path, "the old binary .xls format is not supported", expected="the file saved as .xlsx or .ods"
        )
    return _FALLBACK
