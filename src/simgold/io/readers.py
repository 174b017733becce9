"""Read raw annotation files into a :class:`RawTable` without losing where any cell came from.

Supported: delimited text (comma, tab, semicolon, pipe, single space or runs of whitespace; the
separator is sniffed when not configured) in UTF-8 with or without BOM, cp1252 or any codec Python
knows, with LF, CRLF or CR-only line endings; XLSX; ODS. Cells are kept as they are in the file
(text stays text), so that cleaning can reject a value with its exact raw form.

The reader counts every non-blank cell it reads (``raw_cells``: header, title rows, comment lines
and data rows alike) and keeps what is not data as ``notes`` (ledger entries): the header cells,
title rows skipped by ``skip_rows``, comment lines, a header repeated mid-file, and rows with more
fields than the header (``extra_fields``: never shifted into other columns).

Rows and columns are 1-based, as an editor or a spreadsheet program shows them.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from simgold.errors import InputError
from simgold.io.rawformats import RAW_FORMATS, detect_format, table_formats
from simgold.io.rawrecords import drop_flagged, header_name
from simgold.io.rawtable import ABSENT, RawTable
from simgold.io.schema import resolve_reader
from simgold.io.sniff import file_kind, path_problem
from simgold.io.textfiles import TEXT_INSTEAD, decode_text, text_records

__all__ = ["source_paths", "read_source_table", "read_columns", "resolve_path", "text_header"]


def source_paths(src: dict) -> list[str]:
    """The configured path(s) of one source: one file, or several joined side by side.

    Parameters
    ----------
    src : dict
        A source's config.

    Returns
    -------
    list of str
        Its paths.
    """
    return list(src["path"]) if isinstance(src["path"], list) else [src["path"]]


def read_source_table(src: dict, base_dir: str | Path = ".", language: str | None = None) -> RawTable:
    """Read the file(s) of one configured source. Several paths are joined side by side.

    Rows rejected whole (extra fields, a repeated header) are moved out of ``rows`` into ``notes``.
    Reader options not given take the schema's defaults. ``language``: the dataset's, for the hint
    on a file in the wrong encoding.

    Parameters
    ----------
    src : dict
        The source's config (reader options).
    base_dir : str or pathlib.Path
        What its paths are relative to.
    language : str, optional
        The dataset's language.

    Returns
    -------
    RawTable
        The table.
    """

    src = resolve_reader(src)
    parts = [_read_one(p, src, base_dir, language) for p in source_paths(src)]
    if len(parts) > 1:
        _align(parts)
    for part in parts:
        drop_flagged(part)
    return parts[0] if len(parts) == 1 else _join_columns(parts)


def read_columns(spec: dict, refs: list, base_dir: str | Path = ".") -> tuple[list[list], str]:
    """Read a table file (reader options as for sources) and pick columns by name or position:
    (one row per data row: the referenced cells as stripped text, then the row's line number in the
    file; the file's name).

    Parameters
    ----------
    spec : dict
        The table file's reader options.
    refs : list
        Column names or 1-based positions.
    base_dir : str or pathlib.Path
        What its path is relative to.

    Returns
    -------
    tuple of (list of list, str)
        The rows and the file's name.
    """
    table = read_source_table(spec, base_dir)
    idx = [table.column(ref, f"table column {ref!r}") for ref in refs]
    rows = []
    for i in range(len(table.rows)):
        values = [table.cell(i, j) for j in idx]
        rows.append([("" if v is None else str(v)).strip() for v in values] + [table.lines[0][i]])
    return rows, table.files[0]


def resolve_path(path: str, base_dir: str | Path = ".") -> Path:
    """A configured path: relative to ``base_dir``, or ``pkg:<package>/<file>`` inside an installed package.

    A ``pkg:`` path must stay inside its package (no ``..`` that climbs out, no absolute part).

    Parameters
    ----------
    path : str
        A configured path.
    base_dir : str or pathlib.Path
        What a relative path is relative to.

    Returns
    -------
    pathlib.Path
        The file's path.
    """
    if path.startswith("pkg:"):
        package, _, inner = path[4:].partition("/")
        if not package.isidentifier():
            raise InputError(path, f"{package!r} is not a package name", expected="pkg:<package>/<file>")
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            raise InputError(path, f"package {package!r} is not installed")
        root = Path(next(iter(spec.submodule_search_locations)))
        if not (root / inner).resolve().is_relative_to(root.resolve()):
            raise InputError(
                path,
                f"the path leaves the package {package!r}",
                expected="a file inside the package (no '..' that climbs out of it, no absolute path)",
            )
        return root / inner
    p = Path(path)
    return p if p.is_absolute() else Path(base_dir) / p


def _read_one(path: str, src: dict, base_dir, language: str | None = None) -> RawTable:
    real = resolve_path(path, base_dir)
    problem = path_problem(real)
    if problem:
        raise InputError(path, f"the path {problem}", expected="a ratings file (CSV, TSV, XLSX or ODS)")
    fmt = detect_format(path, src["format"])
    entry = RAW_FORMATS.get(fmt)
    if entry is None or entry.reader is None:
        raise InputError(path, f"unknown format {fmt!r}", expected=_one_of(table_formats()))
    return entry.reader(real, path, src, language)


def _one_of(names: list[str]) -> str:
    return f"{', '.join(names[:-1])} or {names[-1]}" if len(names) > 1 else names[0]


HEADER_BYTES = 1 << 16  # the start of a file the config check reads for its column names


def text_header(real: Path, src: dict) -> list[str] | None:
    """The column names of a delimited text source, from the first 64 KiB of the file only, read
    as ``read_text`` reads them (encoding, skipped rows, comments, the separator): the config
    check's early look, before any job runs. None where that start cannot say (no header, a zip
    container, no complete line, an encoding or quoting problem the clean job will report).

    Parameters
    ----------
    real : pathlib.Path
        The file.
    src : dict
        The source's config.

    Returns
    -------
    list of str or None
        The names.
    """
    src = resolve_reader(src)
    if not src["header"]:
        return None
    with real.open("rb") as handle:
        data = handle.read(HEADER_BYTES)
    if file_kind(data) in TEXT_INSTEAD:
        return None
    if len(data) == HEADER_BYTES:  # keep whole lines only: a cut character would not decode
        cut = max(data.rfind(b"\n"), data.rfind(b"\r"))
        if cut <= 0:
            return None
        data = data[: cut + 1]
    try:
        text = decode_text(data, real.name, src["encoding"])
        records, *_ = text_records(
            text, real.name, real, src.get("sep"), src["quoting"], src.get("comment"), src["skip_rows"]
        )
    except InputError:
        return None
    return [header_name(f) for f in records[0][1]] if records else None


# --------------------------------------------------------------------------------------------
# line-aligned files


def _align(parts: list[RawTable]) -> None:
    """Line-aligned files must have their data rows on the same lines; a row rejected in one file
    is rejected in all (its partners would otherwise pair with the wrong row)."""
    first = parts[0]
    for p in parts[1:]:
        if len(p.rows) != len(first.rows):
            spans = [
                f"{q.files[0]} row {q.spanning[0]} starts a quoted field spanning lines"
                for q in (first, p)
                if q.spanning
            ]
            raise InputError(
                p.files[0],
                f"has {len(p.rows)} data rows but {first.files[0]} has {len(first.rows)}"
                + "".join(f" ({span})" for span in spans),
                expected="line-aligned files with the same number of data rows",
            )
        if p.lines[0] != first.lines[0]:
            _misaligned(first, p)
    if any(p.header is None for p in parts) and not all(p.header is None for p in parts):
        raise InputError(first.files[0], "joined files must all have a header or all lack one")
    for p in parts:
        for i, (reason, detail) in p.flagged.items():
            for q in parts:
                q.flagged.setdefault(i, (reason, f"{p.files[0]}: {detail}"))


def _misaligned(first: RawTable, p: RawTable) -> None:
    """The error for two files whose data rows are not on the same lines: at the first row where
    they part, a record spanning lines (a quoted line break) or a blank or comment line."""
    row = min(set(p.lines[0]) ^ set(first.lines[0]))
    holder = first if row in first.lines[0] else p
    other = p if holder is first else first
    spans = [line for part in (first, p) for line in part.spanning if line < row]
    if spans:
        start = max(spans)
        spanner = first if start in first.spanning else p
        raise InputError(
            spanner.files[0],
            "a quoted field spans several lines (a line break inside quotes), so the rows after it no longer"
            f" sit on the lines of {(p if spanner is first else first).files[0]}'s rows",
            row=start,
            expected="line-aligned files with one record per line: remove the line break inside the quotes",
        )
    raise InputError(
        other.files[0],
        f"a blank or comment line where {holder.files[0]} has a data row",
        row=row,
        expected="line-aligned files with their data rows on the same lines (nothing is paired)",
    )


def _join_columns(parts: list[RawTable]) -> RawTable:
    """Files that are line-aligned (Card-660's dataset.tsv + scores.tsv) become one table."""
    rows = []
    for i in range(len(parts[0].rows)):
        row = []
        for p in parts:
            row.extend(list(p.rows[i]) + [ABSENT] * (p.width - len(p.rows[i])))
        rows.append(row)
    origin = [(f, pos) for f, p in enumerate(parts) for (_, pos) in p.origin]
    offsets = [sum(p.width for p in parts[:f]) for f in range(len(parts))]
    notes = [
        n._replace(file=f, col=n.col + offsets[f] if n.col >= 0 else -1) for f, p in enumerate(parts) for n in p.notes
    ]
    return RawTable(
        files=[p.files[0] for p in parts],
        header=None if parts[0].header is None else [name for p in parts for name in p.header],
        rows=rows,
        lines=[p.lines[0] for p in parts],
        origin=origin,
        raw_cells=sum(p.raw_cells for p in parts),
        joined=sum(p.joined for p in parts),
        notes=notes,
        messages=[m for p in parts for m in p.messages],
    )
