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

import codecs
import contextlib
import csv
import gc
import importlib.util
import re
import xml.etree.ElementTree as ET
import zipfile
import zlib
from collections import Counter
from pathlib import Path
from xml.etree.ElementTree import ParseError

from simgold.errors import InputError
from simgold.io.cells import cell_text
from simgold.io.ods import ods_rows
from simgold.io.rawtable import ABSENT, Note, RawTable, SheetError, blank, count_cells
from simgold.io.schema import resolve_reader
from simgold.io.sniff import BOMS, KINDS, file_kind, path_problem, read_head

#: the largest sheet XLSX and ODS can hold, and the most cells a sheet may expand to (repeated rows
#: and columns counted): a tiny file that declares more is refused instead of filling the memory
MAX_ROWS, MAX_COLUMNS, MAX_CELLS = 1_048_576, 16_384, 20_000_000
#: the column label of a ledger entry that stands for a whole text line (a comment, a title row)
LINE = "(line)"

# an LF ends a line, with any CRs before it (CRLF, and CRCRLF from a CRLF file converted twice)
_LF_LINE_END = re.compile(r"\r*\n")
# the whitespace separator: any run of white space that does not end a line somewhere (U+2028, NEL, ...)
_WHITESPACE_RUN = re.compile("[^\\S\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]+")
_SNIFF_ORDER = ("\t", ";", ",", "|")
_SEP_NAMES = {"tab": "\t", "\\t": "\t", "comma": ",", "semicolon": ";", "pipe": "|", "space": " "}
WHITESPACE = "whitespace"


def _count_fields(fields: list[str]) -> int:
    """:func:`count_cells` for text fields, at C speed (empty fields are skipped before stripping)."""
    return sum(map(bool, map(str.strip, filter(None, fields))))


def source_paths(src: dict) -> list[str]:
    """The configured path(s) of one source: one file, or several joined side by side."""
    return list(src["path"]) if isinstance(src["path"], list) else [src["path"]]


def read_source_table(src: dict, base_dir: str | Path = ".", language: str | None = None) -> RawTable:
    """Read the file(s) of one configured source. Several paths are joined side by side.

    Rows rejected whole (extra fields, a repeated header) are moved out of ``rows`` into ``notes``.
    Reader options not given take the schema's defaults. ``language``: the dataset's, for the hint
    on a file in the wrong encoding.
    """

    src = resolve_reader(src)
    parts = [_read_one(p, src, base_dir, language) for p in source_paths(src)]
    if len(parts) > 1:
        _align(parts)
    for part in parts:
        _drop_flagged(part)
    return parts[0] if len(parts) == 1 else _join_columns(parts)


def read_columns(spec: dict, refs: list, base_dir: str | Path = ".") -> tuple[list[list], str]:
    """Read a table file (reader options as for sources) and pick columns by name or position:
    (one row per data row: the referenced cells as stripped text, then the row's line number in the
    file; the file's name)."""
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


def _read_one(path: str, src: dict, base_dir, language: str | None = None) -> RawTable:
    real = resolve_path(path, base_dir)
    problem = path_problem(real)
    if problem:
        raise InputError(path, f"the path {problem}", expected="a ratings file (CSV, TSV, XLSX or ODS)")
    fmt = detect_format(path, src["format"])
    if fmt == "text":
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
    if fmt in ("xlsx", "ods"):
        return read_sheet(
            real,
            path,
            fmt=fmt,
            sheet=src["sheet"],
            skip_rows=src["skip_rows"],
            header=src["header"],
        )
    raise InputError(path, f"unknown format {fmt!r}", expected="text, xlsx or ods")


# --------------------------------------------------------------------------------------------
# text


#: the code pages a file in a language is saved in by Windows (or the usual legacy encodings),
#: most likely first: the hint for a file that is not UTF-8
CODE_PAGES = {
    **{lang: ("cp1250",) for lang in ("pl", "cs", "sk", "hu", "hr", "sl", "ro", "bs", "sq")},
    **{lang: ("cp1251",) for lang in ("ru", "uk", "bg", "mk", "be", "sr")},
    **{lang: ("cp1256",) for lang in ("ar", "fa", "ur")},
    **{lang: ("cp1257",) for lang in ("et", "lv", "lt")},
    "ja": ("cp932", "euc_jp"),
    "zh": ("gb18030", "big5"),
    "ko": ("cp949",),
    "el": ("cp1253",),
    "tr": ("cp1254",),
    "he": ("cp1255",),
    "vi": ("cp1258",),
    "th": ("cp874",),
}


def encoding_hint(data: bytes, language: str | None) -> str:
    """What to set for a file that is not UTF-8: the code pages of the dataset's language (Western
    European ones otherwise), those that decode the whole file first.

    Examples
    --------
    >>> encoding_hint("犬,猫,5".encode("cp932"), "ja")
    "; the dataset's language is ja: try encoding: cp932 (the file decodes in it; Windows' code page for ja)"
    >>> encoding_hint("Straße".encode("cp1252"), None)
    '; a file saved by Excel on Windows needs its code page, e.g. encoding: cp1252 (Western Europe) or cp1250 (Central Europe)'
    """
    pages = CODE_PAGES.get(language or "", ())
    if not pages:
        return (
            "; a file saved by Excel on Windows needs its code page, e.g. encoding: cp1252 (Western Europe)"
            " or cp1250 (Central Europe)"
        )
    decodes = [page for page in pages if _decodes(data, page)]
    best = decodes[0] if decodes else pages[0]
    why = "the file decodes in it; " if decodes else ""
    return f"; the dataset's language is {language}: try encoding: {best} ({why}Windows' code page for {language})"


def _decodes(data: bytes, codec: str) -> bool:
    try:
        data.decode(codec)
    except UnicodeDecodeError:
        return False
    return True


def decode_text(data: bytes, display: str, encoding: str, language: str | None = None) -> str:
    """Decode strictly; a UTF-8 BOM is dropped; a decoding error names the line and the byte, and
    for UTF-8 the code page to try (``encoding_hint``, from the dataset's ``language``).

    A file declared in an 8-bit code page (cp1252, latin-1, ...) that is valid UTF-8 with non-ASCII
    text is refused: read in the code page its accents would turn into mojibake (``Ã©`` for ``é``).
    """
    try:
        codec = codecs.lookup(encoding).name
    except LookupError:
        raise InputError(display, f"unknown encoding {encoding!r}", expected="e.g. utf-8 or cp1252") from None
    _refuse_kind(data, display, codec)
    if codec in ("utf-8", "utf-8-sig"):
        codec = "utf-8-sig"  # drops a BOM when there is one
    elif not codec.startswith(("utf-16", "utf-32")):
        _refuse_utf8(data, display, encoding)
    try:
        return data.decode(codec)
    except UnicodeDecodeError as err:
        bad = data[err.start : err.start + 1]
        hint = encoding_hint(data, language) if codec == "utf-8-sig" else ""
        raise InputError(
            display,
            f"byte 0x{bad.hex()} at byte offset {err.start} is not valid {encoding}",
            row=_line_of(data, err.start),
            expected=f"text in {encoding}{hint}",
        ) from None


#: what to do instead, for a file of each kind that is not text
TEXT_INSTEAD = {
    "gzip": "an uncompressed text file (gunzip it first)",
    "zip": "format: xlsx or ods",
    "ole2": "the sheet saved as .xlsx or .ods without a password, or as CSV",
}


def _refuse_kind(data: bytes, display: str, codec: str) -> None:
    """Name what the file is when it is not text in ``codec``: compressed, a spreadsheet, or
    UTF-16/32 declared as something else (with or without its byte order mark)."""
    kind = file_kind(data)
    if kind is None or codec.startswith("utf-") and kind.startswith(codec[:6]):
        return  # plain text, or UTF-16/32 declared as such
    if kind in TEXT_INSTEAD:
        raise InputError(display, f"the file is {KINDS[kind]}, not text", expected=TEXT_INSTEAD[kind])
    family = kind[:6]  # utf-16 or utf-32
    has_bom = data.startswith(BOMS[kind])
    raise InputError(
        display,
        f"the file is {KINDS[kind]} {'with' if has_bom else 'without'} a byte order mark, not {codec}",
        expected=f"encoding: {family if has_bom else kind}",
    )


def split_lines(text: str) -> list[str]:
    """The lines of a text file, split by the file's own line ending: LF (CRLF too; lines of
    both kinds mix in files pasted together) where the file has an LF, else CR (an old Mac file).

    A CR that ends no line in an LF file is a character of its line, not a line break: a field
    that held one must not cut its row in two (the cell is then refused by what it holds).

    Examples
    --------
    >>> split_lines("w1,w2\\r\\nca\\rt,dog\\n")
    ['w1,w2', 'ca\\rt,dog', '']
    >>> split_lines("w1,w2\\rcat,dog\\r")
    ['w1,w2', 'cat,dog', '']
    """
    return _LF_LINE_END.split(text) if "\n" in text else text.split("\r")


def _line_of(data: bytes, offset: int) -> int:
    """The line (1-based) of byte ``offset``, counted as :func:`split_lines` splits."""
    return data.count(b"\n" if b"\n" in data else b"\r", 0, offset) + 1


def _refuse_utf8(data: bytes, display: str, encoding: str) -> None:
    first = next((k for k, byte in enumerate(data) if byte >= 0x80), None)
    if first is None:
        return  # plain ASCII reads the same in every code page
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return  # not UTF-8: the declared code page is plausible
    word = re.search(r"[^\s,;|\"]*[^\x00-\x7f][^\s,;|\"]*", text).group()
    mojibake = word.encode("utf-8").decode(encoding, errors="replace")
    raise InputError(
        display,
        f"the file is UTF-8 but is declared {encoding}: {word!r} would be read as {mojibake!r}",
        row=_line_of(data, first),
        expected="encoding: utf-8 (the default) for this file",
    )


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
    ragged: bool = False,
    join: str | int | None = None,
    language: str | None = None,
) -> RawTable:
    text = decode_text(real.read_bytes(), display, encoding, language)
    records, spanning, notes, separator = _text_records(text, display, real, sep, quoting, comment, skip_rows)
    # a ragged layout has rows of every width by design; elsewhere a long row is flagged
    long_rows = None if ragged else (separator, join)
    raw_cells = len(notes) + sum(_count_fields(fields) for _, fields, _ in records)
    table = _finish(display, records, header, notes, raw_cells, long_rows=long_rows)
    if spanning:
        table.messages.append(
            f"{display}: {len(spanning)} quoted field(s) span several lines (first at row {spanning[0]});"
            " their line breaks are kept in the values"
        )
    table.separator = separator
    return table


def _text_records(text: str, display: str, real: Path, sep, quoting: str, comment, skip_rows: int):
    """(records, rows of records spanning lines, notes of title and comment lines, separator) of a
    decoded text file: what ``read_text`` and ``text_header`` read alike."""
    lines = split_lines(text)
    if lines and lines[-1] == "":
        lines.pop()  # the final line break ends the last line; it does not start a new one
    fed, notes = _non_data_lines(lines, skip_rows, comment)
    sample = [(n, line) for n, line in fed if line.strip()][:50]
    if not sample:
        raise InputError(display, "the file has no data", expected="at least one non-empty line")
    separator = _resolve_sep(sep, display, real, sample)
    records, spanning = _split_records(fed, separator, quoting, display)
    return records, spanning, notes, separator


HEADER_BYTES = 1 << 16  # the start of a file the config check reads for its column names


def text_header(real: Path, src: dict) -> list[str] | None:
    """The column names of a delimited text source, from the first 64 KiB of the file only, read
    as ``read_text`` reads them (encoding, skipped rows, comments, the separator): the config
    check's early look, before any job runs. None where that start cannot say (no header, a zip
    container, no complete line, an encoding or quoting problem the clean job will report)."""
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
        records, *_ = _text_records(
            text, real.name, real, src.get("sep"), src["quoting"], src.get("comment"), src["skip_rows"]
        )
    except InputError:
        return None
    return [_name(f) for f in records[0][1]] if records else None


def _non_data_lines(lines: list[str], skip_rows: int, comment: str | None):
    """(number, line) of the lines to parse (blank ones kept: they may sit inside a quoted field),
    and a note for each non-blank title or comment line."""
    fed, notes = [], []
    for n, line in enumerate(lines, start=1):
        if n <= skip_rows or (comment and line.startswith(comment)):
            if line.strip():
                why = "a title row skipped by skip_rows" if n <= skip_rows else "a comment line"
                notes.append(Note(0, n, -1, LINE, line, "ignored_row", why))
        else:
            fed.append((n, line))
    return fed, notes


def _resolve_sep(sep: str | None, display: str, real: Path, sample: list[tuple[int, str]]) -> str:
    """The configured separator, or the one sniffed from ``sample`` ((row, line) of the first
    non-blank data lines): tab for .tsv, else the first of tab, semicolon, comma and pipe that every
    line (or, where a quoted field spans lines, every record) has, else runs of whitespace."""
    if sep is not None:
        return _SEP_NAMES.get(sep, sep)
    if real.suffix.lower() in (".tsv", ".tab"):
        return "\t"
    lines = [line for _, line in sample]
    for candidate in _SNIFF_ORDER:
        if all(candidate in line for line in lines):
            return candidate
    for candidate in _SNIFF_ORDER:  # a quoted line break leaves a line without the separator
        if _every_record_has(candidate, lines):
            return candidate
    counts = {len(_split_whitespace(line)) for line in lines}
    if len(counts) == 1 and counts.pop() > 1:
        return WHITESPACE
    most = max(_SNIFF_ORDER, key=lambda c: sum(c in line for line in lines))
    lacking = next((n for n, line in sample if most not in line), None)
    named = {"\t": "a tab", ";": "a semicolon", ",": "a comma", "|": "a pipe"}[most]
    if any(most in line for line in lines):
        problem = f"cannot detect the field separator: the other lines have {named}, this one has none"
    else:
        problem, lacking = "cannot detect the field separator (no tab, semicolon, comma or pipe on any line)", None
    raise InputError(
        display, problem, row=lacking, expected='an explicit sep: in the config, e.g. sep: "\\t" or sep: whitespace'
    )


def _every_record_has(sep: str, lines: list[str]) -> bool:
    """Whether every record of ``lines``, parsed as delimited text, has ``sep`` (holds two fields)."""
    try:
        records = list(csv.reader((line.replace("\r", " ") + "\n" for line in lines), delimiter=sep, strict=True))
    except csv.Error:
        return False
    return bool(records) and all(len(record) > 1 for record in records if record)


def _split_whitespace(line: str) -> list[str]:
    """The fields of a line separated by runs of white space (a line break character is not one)."""
    return [field for field in _WHITESPACE_RUN.split(line) if field]


def _split_records(fed: list[tuple[int, str]], sep: str, quoting: str, display: str):
    """(row, fields, raw line) of every record, and the rows of records that span several lines.

    A quoted field may hold a line break; it is kept in the value (as "\\n"), never deleted.
    """
    if sep == WHITESPACE:
        return [(n, _split_whitespace(line), line) for n, line in fed if line.strip()], []
    if len(sep) != 1:
        raise InputError(
            display, f"separator {sep!r} is not a single character", expected="one character or 'whitespace'"
        )
    mode = {"minimal": csv.QUOTE_MINIMAL, "none": csv.QUOTE_NONE}[quoting]
    # the csv module ends a record at any CR; a CR inside a line (split_lines) rides through it
    # as a character the file does not hold, and is put back in the fields
    stand_in = _absent_character(fed) if any("\r" in line for _, line in fed) else None
    source = (line + "\n" for _, line in fed)
    if stand_in:
        source = (line.replace("\r", stand_in) + "\n" for _, line in fed)
    reader = csv.reader(source, delimiter=sep, quoting=mode, strict=True)
    out, spanning, start = [], [], 0
    try:
        for record in reader:
            if stand_in:
                record = [value.replace(stand_in, "\r") for value in record]
            end = reader.line_num
            first_line = fed[start][1]
            if end - start > 1:
                spanning.append(fed[start][0])
                out.append((fed[start][0], record, "\n".join(line for _, line in fed[start:end])))
            elif first_line.strip():  # a blank line outside quotes is no record
                out.append((fed[start][0], record, first_line))
            start = end
    except csv.Error as err:
        raise InputError(
            display,
            f"malformed delimited text: {err}",
            row=fed[min(start, len(fed) - 1)][0],
            expected="balanced quotes, or quoting: none",
        ) from None
    return out, spanning


def _absent_character(fed: list[tuple[int, str]]) -> str:
    """A private-use character that no line holds."""
    used = set().union(*(set(line) for _, line in fed if not line.isascii()))
    return next(chr(c) for c in range(0xE000, 0xF900) if chr(c) not in used)


def _flag_long_rows(table: RawTable, records: list, sep: str, join) -> None:
    """A row with more (non-blank) fields than the header, or without a header than most rows,
    would shift values into other columns: flag it whole, or rejoin the configured column."""
    expected = len(table.header) if table.header is not None else _usual_width(table.rows)
    raw_by_row = {n: raw for n, _, raw in records}
    at = None if join is None else _join_index(table.header, table.files[0], join, expected)
    repaired = 0
    for i, row in enumerate(table.rows):
        used = _used_width(row) if len(row) > expected else 0
        if used <= expected or i in table.flagged:
            continue
        if at is not None:
            table.rows[i] = _rejoin(table, row, at, used - expected, " " if sep == WHITESPACE else sep)
            repaired += 1
            continue
        what = "the header has" if table.header is not None else "most rows have"
        line = raw_by_row[table.lines[0][i]]
        table.flagged[i] = ("extra_fields", f"{used} fields where {what} {expected}: {line!r}")
    if repaired:
        table.messages.append(f"{table.files[0]}: {repaired} row(s) with extra fields rejoined (extra_fields: join)")


def _rejoin(table: RawTable, row: list, at: int, extra: int, glue: str) -> list:
    """The row with fields ``at`` .. ``at + extra`` joined into one value; the non-blank fields
    that went into another's value are counted in ``table.joined``."""
    parts = row[at : at + extra + 1]
    table.joined += max(count_cells(parts) - 1, 0)
    return row[:at] + [glue.join(parts)] + row[at + extra + 1 :]


def _usual_width(rows: list[list]) -> int:
    """The most common number of used fields (the larger on a tie)."""
    counts = Counter(_used_width(row) for row in rows)
    return max(counts, key=lambda w: (counts[w], w)) if counts else 0


def _used_width(row: list) -> int:
    """The position of the last non-blank field: trailing empty fields are not extra values."""
    k = len(row)
    while k and blank(row[k - 1]):
        k -= 1
    return k


def _join_index(header: list[str] | None, display: str, ref, expected: int) -> int:
    if isinstance(ref, int):
        j = ref - 1
    elif header is not None and header.count(ref) == 1:
        j = header.index(ref)
    else:
        raise InputError(display, f"extra_fields.join: no single column named {ref!r}", expected=f"one of {header}")
    if not 0 <= j < expected:
        raise InputError(display, f"extra_fields.join: column {ref!r} is not among the {expected} fields of a row")
    return j


# --------------------------------------------------------------------------------------------
# header, notes, width: common to text and spreadsheets


def _name(value: object) -> str:
    """A header name: text, without surrounding space or a stray byte order mark."""
    return (value if isinstance(value, str) else cell_text(value)).replace("\ufeff", "").strip()


def _finish(display: str, records: list, header: bool, notes: list[Note], raw_cells: int, long_rows=None) -> RawTable:
    """A table from (row, fields, raw) records and the count of their non-blank cells: the header
    taken off (its cells noted), a repetition of the header mid-file flagged, and (``long_rows``:
    separator and join column of a delimited text) rows with extra fields flagged or rejoined."""
    names = None
    if header:
        n0, fields, _ = records[0]
        names = [_name(f) for f in fields]
        notes = notes + [
            Note(0, n0, j, names[j] or f"#{j + 1}", f, "ignored_row", "the header row (column names)")
            for j, f in enumerate(fields)
            if not blank(f)
        ]
        records = records[1:]
    table = RawTable(
        files=[display],
        header=names,
        rows=[r for _, r, _ in records],
        lines=[[n for n, _, _ in records]],
        raw_cells=raw_cells,
        notes=notes,
    )
    if names is not None:
        _flag_repeated_header(table, n0)
    if long_rows is not None:
        _flag_long_rows(table, records, *long_rows)
    _set_width(table)
    return table


def _flag_repeated_header(table: RawTable, header_row: int) -> None:
    key = [_name(v) for v in table.header[: _used_width(table.header)]]
    if not key:
        return
    for i, row in enumerate(table.rows):
        if _name(row[0]) == key[0] and [_name(v) for v in row[: _used_width(row)]] == key:
            detail = f"the header of row {header_row} again (a second file pasted below the first?)"
            table.flagged[i] = ("ignored_row", detail)


def _set_width(table: RawTable) -> None:
    """Columns: the header and every row not flagged (a rejected long row does not widen the table)."""
    widths = [len(row) for i, row in enumerate(table.rows) if i not in table.flagged]
    width = max([len(table.header or [])] + widths)
    if table.header is not None:
        table.header = table.header + [""] * (width - len(table.header))
    table.origin = [(0, j + 1) for j in range(width)]


def _drop_flagged(table: RawTable) -> None:
    """Move the rows rejected whole into the notes: each non-blank cell, with the reason."""
    if not table.flagged:
        return
    keep = [i for i in range(len(table.rows)) if i not in table.flagged]
    for i, (reason, detail) in sorted(table.flagged.items()):
        for j, raw in enumerate(table.rows[i]):
            if not blank(raw):
                f = table.origin[j][0] if j < table.width else len(table.files) - 1
                table.notes.append(Note(f, table.lines[f][i], j, table.label(j), raw, reason, detail))
    table.rows = [table.rows[i] for i in keep]
    table.lines = [[lines[i] for i in keep] for lines in table.lines]
    table.flagged = {}


# --------------------------------------------------------------------------------------------
# spreadsheets


def read_sheet(
    real: Path, display: str, *, fmt: str, sheet: str | int = 0, skip_rows: int = 0, header: bool = True
) -> RawTable:
    if not zipfile.is_zipfile(real):
        kind = file_kind(read_head(real))
        if kind == "zip":
            problem = "not a complete zip container; truncated or mislabelled?"
            raise InputError(display, f"not a valid {fmt.upper()} file ({problem})")
        what = KINDS[kind] if kind else "not a zip container (text?)"
        raise InputError(display, f"not a valid {fmt.upper()} file: it is {what}", expected=SHEET_INSTEAD[kind])
    # millions of small objects and not one reference cycle: the cyclic garbage collector would
    # walk them all again and again (over half the time of reading 400,000 rows)
    with _collector_paused():
        return _sheet_table(real, display, fmt, sheet, skip_rows, header)


def _sheet_table(real: Path, display: str, fmt: str, sheet: str | int, skip_rows: int, header: bool) -> RawTable:
    try:
        _check_zip_members(real, display)
        numbered, messages = _xlsx_rows(real, display, sheet) if fmt == "xlsx" else _ods_rows(real, display, sheet)
    except InputError:
        raise
    except (zipfile.BadZipFile, KeyError, ValueError, OSError, EOFError, zlib.error, ParseError) as err:
        raise InputError(display, f"cannot read the {fmt.upper()} file: {err}") from None
    records, notes = [], []
    for n, values in numbered:
        cells = ["" if v is None else v for v in values]
        while cells and blank(cells[-1]):
            cells.pop()
        if not cells:
            continue
        if n <= skip_rows:
            why = "a title row skipped by skip_rows"
            notes += [Note(0, n, j, f"#{j + 1}", v, "ignored_row", why) for j, v in enumerate(cells) if not blank(v)]
            continue
        records.append((n, cells, None))
    if not records:
        raise InputError(display, f"sheet {sheet!r} has no data", expected="at least one non-empty row")
    raw_cells = len(notes) + sum(count_cells(cells) for _, cells, _ in records)
    table = _finish(display, records, header, notes, raw_cells)
    table.messages += [f"{display}: {message}" for message in messages]
    return table


@contextlib.contextmanager
def _collector_paused():
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


#: the most a zip member may inflate to: a sheet's XML, streamed, 4 GiB (MAX_CELLS cells at 200
#: bytes each; LibreOffice writes about 110 for a number, Excel 40); any other part, read whole
#: (openpyxl's shared strings), 1 GiB (a million rows of words and sentences take about 200 MB)
MAX_SHEET_BYTES, MAX_PART_BYTES = 4 << 30, 1 << 30
#: above 64 MiB, a member may inflate at most 500 times: spreadsheet XML deflates about 10 times
#: (XLSX) to 60 times (ODS), 330 times at most (an empty ODS sheet written cell by cell, as pandas
#: writes a sparse one); a run of one repeated byte, a zip bomb, about 1,000 times (deflate's limit)
BOMB_CHECK_BYTES, MAX_RATIO = 64 << 20, 500


def _check_zip_members(real: Path, display: str) -> None:
    """Refuse a spreadsheet whose zip members declare absurd sizes, before any of them is unpacked
    (Python's zipfile stops a member at its declared size: the declaration bounds what is read)."""
    with zipfile.ZipFile(real) as archive:
        for member in archive.infolist():
            size, packed = member.file_size, member.compress_size
            streamed = member.filename == "content.xml" or member.filename.startswith("xl/worksheets/")
            limit = MAX_SHEET_BYTES if streamed else MAX_PART_BYTES
            ratio = size / max(packed, 1)
            if size > limit or (size > BOMB_CHECK_BYTES and ratio > MAX_RATIO):
                raise InputError(
                    display,
                    f"the zip member {member.filename!r} declares {size:,} bytes unpacked from {packed:,}"
                    f" ({ratio:,.0f} to 1), more than a real spreadsheet holds; nothing was unpacked",
                    expected="a spreadsheet of real size, or the data as CSV/TSV",
                )


def _check_size(display: str, row: int, width: int, cells: int) -> None:
    """Refuse a sheet that would expand beyond what a spreadsheet can hold (a tiny file can declare
    millions of repeated rows or cells at absurd positions)."""
    if row > MAX_ROWS:
        problem = f"the sheet reaches row {row:,}, beyond the {MAX_ROWS:,} rows a spreadsheet can have"
    elif width > MAX_COLUMNS:
        problem = f"row {row} reaches column {width:,}, beyond the {MAX_COLUMNS:,} columns a spreadsheet can have"
    elif cells > MAX_CELLS:
        problem = f"the sheet expands to more than {MAX_CELLS:,} cells (at row {row:,})"
    else:
        return
    raise InputError(
        display, problem + "; nothing was expanded", expected="a sheet of real size, or the data as CSV/TSV"
    )


#: what to do instead, for a file given as a spreadsheet that is of another kind
SHEET_INSTEAD = {
    "ole2": "the workbook saved as .xlsx (Excel Workbook) without a password",
    "gzip": "the spreadsheet decompressed (gunzip it first)",
    **{kind: "format: text, with its encoding" for kind in ("utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be")},
    None: "an XLSX or ODS file (format: text for CSV/TSV)",
}
_SPREADSHEETML = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_STRICT = "{http://purl.oclc.org/ooxml/spreadsheetml/main}"
_RELATIONSHIP = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
# a formula cell without its cached value: <f>...</f> (or <f .../>), then nothing or an empty <v/>
_UNCACHED = re.compile(
    rb'<(?:\w+:)?c r="([A-Z]+[0-9]+)"[^>]*>\s*<(?:\w+:)?f\b(?:[^>]*/>|[^>]*>[^<]*</(?:\w+:)?f>)'
    rb"\s*(?:<(?:\w+:)?v\s*/>|<(?:\w+:)?v>\s*</(?:\w+:)?v>)?\s*</(?:\w+:)?c>"
)


def _xlsx_rows(real: Path, display: str, sheet: str | int):
    import openpyxl  # heavy: about 0.2 s, only for an XLSX file

    members = _xlsx_sheet_members(real, display)
    wb = openpyxl.load_workbook(real, read_only=True, data_only=True)
    try:
        names = wb.sheetnames
        visible = [name for name in names if wb[name].sheet_state == "visible"]
        name = _pick_sheet(names, visible, sheet, display)
        ws = wb[name]
        ws.reset_dimensions()  # read-only mode trusts the declared dimension and pads every row to it
        rows, cells = [], 0
        for n, row in enumerate(ws.iter_rows(), start=1):
            cells += len(row)
            _check_size(display, n, len(row), cells)
            if row:  # an error value (data type "e") is kept apart from text that reads the same
                rows.append((n, tuple(SheetError(c.value) if c.data_type == "e" else c.value for c in row)))
        messages = [_sheet_message(name, names, visible)]
    finally:
        wb.close()
    uncached = _uncached_formulas(real, members.get(name))
    if uncached:
        messages.append(_uncached_message(len(uncached), uncached[0]))
    return rows, messages


def _uncached_message(count: int, first: str | None = None) -> str:
    where = f" (first: {first})" if first else ""
    return (
        f"{count:,} formula cell(s) have no cached value{where} and are read as empty: the file was saved"
        " without calculating (open and save it in a spreadsheet program)"
    )


def _xlsx_sheet_members(real: Path, display: str) -> dict[str, str]:
    """Sheet name -> its member in the zip, from the workbook and its relationships; a workbook
    saved as Strict Open XML (which openpyxl reads as empty) is refused."""
    with zipfile.ZipFile(real) as z:
        try:
            workbook = ET.fromstring(z.read("xl/workbook.xml"))
            rels = ET.fromstring(z.read("xl/_rels/workbook.xml.rels"))
        except KeyError as err:
            raise InputError(display, f"not an XLSX workbook (no {err.args[0]})", expected="an .xlsx file") from None
    if workbook.tag.startswith(_STRICT):
        raise InputError(
            display,
            "saved as Strict Open XML Spreadsheet, which cannot be read",
            expected="the workbook saved as Excel Workbook (.xlsx)",
        )
    targets = {rel.get("Id"): rel.get("Target", "") for rel in rels}
    members = {}
    for entry in workbook.iter(f"{_SPREADSHEETML}sheet"):
        target = targets.get(entry.get(_RELATIONSHIP), "")
        members[entry.get("name")] = target.lstrip("/") if target.startswith("/") else f"xl/{target}"
    return members


_BLOCK = 1 << 20  # how much of a sheet's XML is scanned at a time


def _uncached_formulas(real: Path, member: str | None) -> list[str]:
    """The cells (e.g. "A3") of the sheet's formulas that have no cached value, which a reader of
    cached values sees as empty; the sheet's XML is scanned in blocks, never held whole."""
    if member is None:
        return []
    found, tail = [], b""
    with zipfile.ZipFile(real) as z, z.open(member) as handle:
        while block := handle.read(_BLOCK):
            text = tail + block
            matches = list(_UNCACHED.finditer(text))
            found += [m.group(1).decode() for m in matches]
            # the last cell (a formula is seldom over 4 KiB) may be cut: it is searched again
            # with the next block, unless it was found already
            cell = text.rfind(b'c r="', max(len(text) - 4096, 0))
            start = text.rfind(b"<", 0, cell) if cell > 0 else len(text)
            tail = text[max(start, matches[-1].end() if matches else 0) :]
    return found


def _ods_rows(real: Path, display: str, sheet: str | int):
    """The rows of the sheet, and what the log should say: the sheet read, formulas without results."""
    read = ods_rows(real, display, sheet, check_size=_check_size)
    name = _pick_sheet(read.names, read.visible, sheet, display)  # refuses a sheet that matched none
    messages = [_sheet_message(name, read.names, read.visible)]
    if read.blank_formulas:
        messages.append(_uncached_message(read.blank_formulas))
    return read.rows, messages


def _pick_sheet(names: list[str], visible: list[str], sheet: str | int, display: str) -> str:
    """A sheet by name (hidden or not), or by index among the visible sheets (the tabs a user sees)."""
    if isinstance(sheet, int) and not isinstance(sheet, bool):
        if not 0 <= sheet < len(visible):
            raise InputError(
                display,
                f"sheet index {sheet} does not exist",
                expected=f"0 to {len(visible) - 1} (visible sheets: {visible})",
            )
        return visible[sheet]
    if sheet not in names:
        raise InputError(display, f"no sheet named {sheet!r}", expected=f"one of {names}")
    return sheet


def _sheet_message(name: str, names: list[str], visible: list[str]) -> str:
    hidden = [n for n in names if n not in visible]
    text = f"read sheet {name!r} ({names.index(name) + 1} of {len(names)})"
    return text + (f"; hidden sheets not read: {hidden}" if hidden else "")


# --------------------------------------------------------------------------------------------
# line-aligned files


def _align(parts: list[RawTable]) -> None:
    """Line-aligned files must have their data rows on the same lines; a row rejected in one file
    is rejected in all (its partners would otherwise pair with the wrong row)."""
    first = parts[0]
    for p in parts[1:]:
        if len(p.rows) != len(first.rows):
            raise InputError(
                p.files[0],
                f"has {len(p.rows)} data rows but {first.files[0]} has {len(first.rows)}",
                expected="line-aligned files with the same number of data rows",
            )
        if p.lines[0] != first.lines[0]:
            row = min(set(p.lines[0]) ^ set(first.lines[0]))
            holder = first if row in first.lines[0] else p
            other = p if holder is first else first
            raise InputError(
                other.files[0],
                f"a blank or comment line where {holder.files[0]} has a data row",
                row=row,
                expected="line-aligned files with their data rows on the same lines (nothing is paired)",
            )
    if any(p.header is None for p in parts) and not all(p.header is None for p in parts):
        raise InputError(first.files[0], "joined files must all have a header or all lack one")
    for p in parts:
        for i, (reason, detail) in p.flagged.items():
            for q in parts:
                q.flagged.setdefault(i, (reason, f"{p.files[0]}: {detail}"))


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
