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
['auto', 'text', 'xlsx', 'ods', 'tsv']
>>> del RAW_FORMATS["tsv"]
>>> load_schema.cache_clear()
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from simgold.errors import InputError
from simgold.io.rawtable import RawTable
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


RAW_FORMATS: dict[str, RawFormat] = {
    "text": RawFormat(_read_text_source),
    "xlsx": RawFormat(_read_xlsx_source, (".xlsx", ".xlsm")),
    "ods": RawFormat(_read_ods_source, (".ods",)),
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
