"""Read raw annotation files into a :class:`RawTable` without losing where any cell came from.

Supported: delimited text (comma, tab, semicolon, pipe, single space or runs of whitespace; the
separator is sniffed when not configured) in UTF-8 with or without BOM, cp1252 or any codec Python
knows, with LF, CRLF or CR-only line endings; XLSX; ODS. Cells are kept as they are in the file
(text stays text), so that cleaning can reject a value with its exact raw form.

Rows and columns are 1-based, as an editor or a spreadsheet program shows them.
"""

from __future__ import annotations

import codecs
import csv
import datetime as _dt
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from .errors import InputError

#: A field that the row does not have at all (short row), as opposed to an empty field "".
ABSENT = None

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_SNIFF_ORDER = ("\t", ";", ",", "|")
_SEP_NAMES = {"tab": "\t", "\\t": "\t", "comma": ",", "semicolon": ";", "pipe": "|", "space": " "}
WHITESPACE = "whitespace"


@dataclass
class RawTable:
    """A rectangular-ish table read from one or more line-aligned files.

    ``rows[i][j]`` is the raw cell (str for text files; str, int, float, bool or datetime for
    spreadsheets; :data:`ABSENT` where row ``i`` is shorter than column ``j``). Column ``j`` came
    from file ``files[origin[j][0]]`` at 1-based position ``origin[j][1]``; row ``i`` is at 1-based
    row ``lines[f][i]`` of file ``f``.
    """

    files: list[str]
    header: list[str] | None
    rows: list[list[object]]
    lines: list[list[int]]
    origin: list[tuple[int, int]] = field(default_factory=list)
    separator: str | None = None

    @property
    def width(self) -> int:
        return len(self.origin)

    def cell(self, i: int, j: int) -> object:
        row = self.rows[i]
        return row[j] if j < len(row) else ABSENT

    def where(self, i: int, j: int) -> tuple[str, int, str]:
        """(file, row, column label) of cell ``(i, j)``: the label is the header name or ``#pos``."""
        f, pos = self.origin[j]
        label = self.header[j] if self.header is not None and self.header[j] != "" else f"#{pos}"
        return self.files[f], self.lines[f][i], label

    def row_where(self, i: int) -> tuple[str, int]:
        return self.files[0], self.lines[0][i]

    def column(self, ref: str | int, what: str) -> int:
        """0-based index of a column given by header name or 1-based position."""
        if isinstance(ref, bool):  # bool is an int; never a valid reference
            raise InputError(self.files[0], f"{what}: {ref!r} is not a column name or position")
        if isinstance(ref, int):
            if not 1 <= ref <= self.width:
                raise InputError(
                    self.files[0],
                    f"{what}: column position {ref} does not exist",
                    expected=f"a position between 1 and {self.width}",
                )
            return ref - 1
        if self.header is None:
            raise InputError(
                self.files[0],
                f"{what}: column {ref!r} named, but the file is read without a header",
                expected="column positions (1-based integers) for header-less files",
            )
        hits = [j for j, name in enumerate(self.header) if name == ref]
        if not hits:
            raise InputError(
                self.files[0],
                f"{what}: no column named {ref!r}",
                expected=f"one of {[h for h in self.header if h]}",
            )
        if len(hits) > 1:
            raise InputError(
                self.files[0],
                f"{what}: column name {ref!r} is ambiguous (positions {[h + 1 for h in hits]})",
                expected="a 1-based column position instead of the name",
            )
        return hits[0]


def source_paths(src: dict) -> list[str]:
    """The configured path(s) of one source: one file, or several joined side by side."""
    return list(src["path"]) if isinstance(src["path"], list) else [src["path"]]


def read_source_table(src: dict, base_dir: str | Path = ".") -> RawTable:
    """Read the file(s) of one configured source. Several paths are joined side by side."""
    parts = [_read_one(p, src, base_dir) for p in source_paths(src)]
    if len(parts) == 1:
        return parts[0]
    return _join_columns(parts)


def resolve_path(path: str, base_dir: str | Path = ".") -> Path:
    """A configured path: relative to ``base_dir``, or ``pkg:<package>/<file>`` inside an installed package."""
    if path.startswith("pkg:"):
        import importlib.util

        package, _, inner = path[4:].partition("/")
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            raise InputError(path, f"package {package!r} is not installed")
        return Path(next(iter(spec.submodule_search_locations))) / inner
    p = Path(path)
    return p if p.is_absolute() else Path(base_dir) / p


def detect_format(path: str, declared: str = "auto") -> str:
    if declared != "auto":
        return declared
    suffix = Path(path).suffix.lower()
    if suffix in (".xlsx", ".xlsm"):
        return "xlsx"
    if suffix == ".ods":
        return "ods"
    if suffix == ".xls":
        raise InputError(
            path, "the old binary .xls format is not supported", expected="the file saved as .xlsx or .ods"
        )
    return "text"


def _read_one(path: str, src: dict, base_dir) -> RawTable:
    real = resolve_path(path, base_dir)
    if not real.is_file():
        raise InputError(path, "file not found", expected=f"a file at {real}")
    fmt = detect_format(path, src.get("format", "auto"))
    if fmt == "text":
        table = read_text(
            real,
            path,
            encoding=src.get("encoding", "utf-8"),
            sep=src.get("sep"),
            quoting=src.get("quoting", "minimal"),
            comment=src.get("comment"),
            skip_rows=src.get("skip_rows", 0),
            header=src.get("header", True),
        )
    elif fmt in ("xlsx", "ods"):
        table = read_sheet(
            real,
            path,
            fmt=fmt,
            sheet=src.get("sheet", 0),
            skip_rows=src.get("skip_rows", 0),
            header=src.get("header", True),
        )
    else:
        raise InputError(path, f"unknown format {fmt!r}", expected="text, xlsx or ods")
    return table


# --------------------------------------------------------------------------------------------
# text


def decode_text(data: bytes, display: str, encoding: str) -> str:
    """Decode strictly; a UTF-8 BOM is dropped; a decoding error names the line and the byte."""
    try:
        codec = codecs.lookup(encoding).name
    except LookupError:
        raise InputError(display, f"unknown encoding {encoding!r}", expected="e.g. utf-8 or cp1252") from None
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) and not codec.startswith("utf-16"):
        raise InputError(display, "the file starts with a UTF-16 byte order mark", expected="encoding: utf-16")
    if codec in ("utf-8", "utf-8-sig"):
        codec = "utf-8-sig"  # drops a BOM when there is one
    try:
        return data.decode(codec)
    except UnicodeDecodeError as err:
        before = data[: err.start]
        line = len(_LINE_BREAK.findall(before.decode("latin-1"))) + 1
        bad = data[err.start : err.start + 1]
        hint = (
            "; a file saved by Excel on Windows needs its code page, e.g. encoding: cp1252 (Western Europe)"
            " or cp1250 (Central Europe)"
            if codec == "utf-8-sig"
            else ""
        )
        raise InputError(
            display,
            f"byte 0x{bad.hex()} at byte offset {err.start} is not valid {encoding}",
            row=line,
            expected=f"text in {encoding}{hint}",
        ) from None


def read_text(
    real: Path,
    display: str,
    *,
    encoding: str = "utf-8",
    sep: str | None = None,
    quoting: str = "minimal",
    comment: str | None = None,
    skip_rows: int = 0,
    header: bool = True,
) -> RawTable:
    data = real.read_bytes()
    if data[:4] == b"PK\x03\x04":
        raise InputError(
            display, "this is a zip container (an XLSX or ODS spreadsheet), not text", expected="format: xlsx or ods"
        )
    text = decode_text(data, display, encoding)
    lines = _LINE_BREAK.split(text)
    if lines and lines[-1] == "":
        lines.pop()  # the final line break ends the last line; it does not start a new one
    numbered = [
        (n, line)
        for n, line in enumerate(lines, start=1)
        if n > skip_rows and line.strip() != "" and not (comment and line.startswith(comment))
    ]
    if not numbered:
        raise InputError(display, "the file has no data", expected="at least one non-empty line")
    separator = _resolve_sep(sep, display, real, [line for _, line in numbered[:50]])
    records = _split_records(numbered, separator, quoting, display)
    table = _table_from_records(display, records, header)
    table.separator = separator
    return table


def _resolve_sep(sep: str | None, display: str, real: Path, sample: list[str]) -> str:
    if sep is not None:
        return _SEP_NAMES.get(sep, sep)
    if real.suffix.lower() in (".tsv", ".tab"):
        return "\t"
    for candidate in _SNIFF_ORDER:
        if all(candidate in line for line in sample):
            return candidate
    counts = {len(line.split()) for line in sample}
    if len(counts) == 1 and counts.pop() > 1:
        return WHITESPACE
    raise InputError(
        display,
        "cannot detect the field separator (no tab, semicolon, comma or pipe on every line)",
        expected='an explicit sep: in the config, e.g. sep: "\\t" or sep: whitespace',
    )


def _split_records(
    numbered: list[tuple[int, str]], sep: str, quoting: str, display: str
) -> list[tuple[int, list[str]]]:
    if sep == WHITESPACE:
        return [(n, line.split()) for n, line in numbered]
    if len(sep) != 1:
        raise InputError(
            display, f"separator {sep!r} is not a single character", expected="one character or 'whitespace'"
        )
    mode = {"minimal": csv.QUOTE_MINIMAL, "none": csv.QUOTE_NONE}[quoting]
    line_numbers = [n for n, _ in numbered]
    reader = csv.reader((line for _, line in numbered), delimiter=sep, quoting=mode, strict=True)
    out, consumed = [], 0
    try:
        for record in reader:
            out.append((line_numbers[consumed], record))
            consumed = reader.line_num
    except csv.Error as err:
        row = line_numbers[min(consumed, len(line_numbers) - 1)]
        raise InputError(
            display, f"malformed delimited text: {err}", row=row, expected="balanced quotes, or quoting: none"
        ) from None
    return out


def _table_from_records(display: str, records: list[tuple[int, list[str]]], header: bool) -> RawTable:
    names = None
    if header:
        _, names = records[0]
        names = [name.strip() for name in names]
        records = records[1:]
    width = max([len(names or [])] + [len(r) for _, r in records])
    if names is not None:
        names = names + [""] * (width - len(names))
    return RawTable(
        files=[display],
        header=names,
        rows=[r for _, r in records],
        lines=[[n for n, _ in records]],
        origin=[(0, j + 1) for j in range(width)],
    )


# --------------------------------------------------------------------------------------------
# spreadsheets


def read_sheet(
    real: Path, display: str, *, fmt: str, sheet: str | int = 0, skip_rows: int = 0, header: bool = True
) -> RawTable:
    if not zipfile.is_zipfile(real):
        raise InputError(
            display, f"not a valid {fmt.upper()} file (not a complete zip container; truncated or mislabelled?)"
        )
    try:
        numbered = _xlsx_rows(real, display, sheet) if fmt == "xlsx" else _ods_rows(real, display, sheet)
    except InputError:
        raise
    except (zipfile.BadZipFile, KeyError, ValueError, OSError, EOFError) as err:
        raise InputError(display, f"cannot read the {fmt.upper()} file: {err}") from None
    records = []
    for n, values in numbered:
        if n <= skip_rows:
            continue
        cells = ["" if v is None else v for v in values]
        while cells and cells[-1] == "":
            cells.pop()
        if not any(not (isinstance(c, str) and c.strip() == "") for c in cells):
            continue
        records.append((n, cells))
    if not records:
        raise InputError(display, f"sheet {sheet!r} has no data", expected="at least one non-empty row")
    if header:
        n0, names = records[0]
        records[0] = (n0, [_sheet_text(v) for v in names])
    return _table_from_records(display, records, header)


def _sheet_text(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _xlsx_rows(real: Path, display: str, sheet: str | int):
    import openpyxl

    wb = openpyxl.load_workbook(real, read_only=True, data_only=True)
    try:
        ws = _pick_sheet(wb.sheetnames, sheet, display, lambda name: wb[name])
        return [(n, list(values)) for n, values in enumerate(ws.iter_rows(values_only=True), start=1)]
    finally:
        wb.close()


def _ods_rows(real: Path, display: str, sheet: str | int):
    from odf.namespaces import OFFICENS, TABLENS
    from odf.opendocument import load
    from odf.table import Table, TableRow

    doc = load(str(real))
    tables = doc.spreadsheet.getElementsByType(Table)
    names = [t.getAttribute("name") for t in tables]
    table = _pick_sheet(names, sheet, display, lambda name: tables[names.index(name)])
    rows, n = [], 0
    for row in table.getElementsByType(TableRow):
        repeat = int(row.attributes.get((TABLENS, "number-rows-repeated"), 1))
        values = []
        for cell in row.childNodes:
            if cell.qname[1] not in ("table-cell", "covered-table-cell"):
                continue
            times = int(cell.attributes.get((TABLENS, "number-columns-repeated"), 1))
            values.extend([_ods_value(cell, OFFICENS)] * times)
        while values and values[-1] is None:
            values.pop()
        if values:
            rows.extend((n + k + 1, list(values)) for k in range(repeat))
        n += repeat
    return rows


def _ods_value(cell, officens) -> object:
    kind = cell.attributes.get((officens, "value-type"))
    if kind in ("float", "percentage", "currency"):
        raw = cell.attributes.get((officens, "value"))
        number = float(raw)
        return int(number) if number.is_integer() and "." not in raw and "e" not in raw.lower() else number
    if kind == "boolean":
        return cell.attributes.get((officens, "boolean-value")) == "true"
    if kind == "date":
        return _dt.datetime.fromisoformat(cell.attributes.get((officens, "date-value")))
    text = "\n".join(str(p) for p in cell.childNodes if p.qname[1] == "p")
    return text if text != "" or kind == "string" else None


def _pick_sheet(names: list[str], sheet: str | int, display: str, get):
    if isinstance(sheet, int) and not isinstance(sheet, bool):
        if not 0 <= sheet < len(names):
            raise InputError(
                display, f"sheet index {sheet} does not exist", expected=f"0 to {len(names) - 1} ({names})"
            )
        return get(names[sheet])
    if sheet not in names:
        raise InputError(display, f"no sheet named {sheet!r}", expected=f"one of {names}")
    return get(sheet)


# --------------------------------------------------------------------------------------------


def _join_columns(parts: list[RawTable]) -> RawTable:
    """Files that are line-aligned (Card-660's dataset.tsv + scores.tsv) become one table."""
    n = len(parts[0].rows)
    for p in parts[1:]:
        if len(p.rows) != n:
            raise InputError(
                p.files[0],
                f"has {len(p.rows)} data rows but {parts[0].files[0]} has {n}",
                expected="line-aligned files with the same number of data rows",
            )
    headers = [p.header for p in parts]
    if any(h is None for h in headers) and not all(h is None for h in headers):
        raise InputError(parts[0].files[0], "joined files must all have a header or all lack one")
    rows = []
    for i in range(n):
        row = []
        for p in parts:
            cells = list(p.rows[i]) + [ABSENT] * (p.width - len(p.rows[i]))
            row.extend(cells)
        rows.append(row)
    origin = [(f, pos) for f, p in enumerate(parts) for (_, pos) in p.origin]
    header = None if headers[0] is None else [name for h in headers for name in h]
    return RawTable(
        files=[p.files[0] for p in parts],
        header=header,
        rows=rows,
        lines=[p.lines[0] for p in parts],
        origin=origin,
    )
