"""XLSX and ODS sheets read into a :class:`~simgold.io.rawtable.RawTable` (the spreadsheet half
of ``simgold.io.readers``): the sheet picked by name or position (hidden sheets said), cells kept
as they are, the zip members' declared sizes checked before anything is unpacked, a sheet that
expands beyond what a spreadsheet can hold refused, and formulas without a cached value named.

Rows and columns are 1-based, as a spreadsheet program shows them.
"""

from __future__ import annotations

import contextlib
import gc
import re
import xml.etree.ElementTree as ET
import zipfile
import zlib
from pathlib import Path
from xml.etree.ElementTree import ParseError

from simgold.errors import InputError
from simgold.io.ods import ods_rows
from simgold.io.rawrecords import finish_table
from simgold.io.rawtable import Note, RawTable, SheetError, blank, count_cells
from simgold.io.sniff import KINDS, file_kind, read_head

__all__ = ["MAX_ROWS", "MAX_COLUMNS", "MAX_CELLS", "read_sheet"]

#: the largest sheet XLSX and ODS can hold, and the most cells a sheet may expand to (repeated rows
#: and columns counted): a tiny file that declares more is refused instead of filling the memory
MAX_ROWS, MAX_COLUMNS, MAX_CELLS = 1_048_576, 16_384, 20_000_000


def read_sheet(
    real: Path, display: str, *, fmt: str, sheet: str | int = 0, skip_rows: int = 0, header: bool = True
) -> RawTable:
    """Read one sheet of an XLSX or ODS file (its cells as they are; the hidden sheets said).

    Parameters
    ----------
    real : pathlib.Path
        The file.
    display : str
        Its name in messages.
    fmt : str
        ``xlsx`` or ``ods``.
    sheet : str or int
        The sheet's name, or its position among the visible sheets.
    skip_rows : int
        Title rows before the header.
    header : bool
        Whether the first row read is the header.

    Returns
    -------
    RawTable
        The table.
    """
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
    table = finish_table(display, records, header, notes, raw_cells)
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
#: (openpyxl's shared strings), 1 GiB (a million rows of words and sentences take a fraction of that)
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
    import openpyxl  # heavy (docs/benchmarks.md), only for an XLSX file

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
