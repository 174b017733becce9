"""Read one sheet of an ODS spreadsheet by streaming its ``content.xml`` (no DOM of the document).

A DOM of a spreadsheet costs kilobytes per row; this reader keeps only the rows of the sheet it
reads, each row's cells as values, and drops each row's XML as soon as the row is read. Cell text is
kept as the document has it: runs of spaces (``text:s``), tabs, line breaks, several paragraphs
and the text of nested spans and links. What the values mean (a number written as text, a tab in
a word) is for cleaning to decide.

Repeated rows and cells (``table:number-rows-repeated``, ``table:number-columns-repeated``) are
expanded only when they hold a value, and only after the caller's size check has passed: a small
file can declare a billion of them.
"""

from __future__ import annotations

import datetime as _dt
import re
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO, NamedTuple
from xml.etree.ElementTree import ParseError, iterparse

from simgold.errors import InputError
from simgold.io.cells import NUMBER_PATTERN

__all__ = ["MAX_SPACES", "ods_rows"]

_OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
_TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
_TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
_STYLE = "{urn:oasis:names:tc:opendocument:xmlns:style:1.0}"

_SHEET = _TABLE + "table"
_ROW = _TABLE + "table-row"
#: what holds rows: a sheet, and the groups of rows in it
_ROW_CONTAINERS = frozenset(
    {_SHEET} | {_TABLE + group for group in ("table-row-group", "table-header-rows", "table-rows")}
)
_ROWS_REPEATED, _COLUMNS_REPEATED = _TABLE + "number-rows-repeated", _TABLE + "number-columns-repeated"
_STYLE_ELEMENT = _STYLE + "style"
_CELLS = frozenset({_TABLE + "table-cell", _TABLE + "covered-table-cell"})
_TABLE_PROPERTIES = _STYLE + "table-properties"
_PARAGRAPHS = frozenset({_TEXT + "p", _TEXT + "h"})
_SPACES, _TAB, _LINE_BREAK = _TEXT + "s", _TEXT + "tab", _TEXT + "line-break"
#: inside a paragraph but not its text: a comment attached to the cell
_NOT_TEXT = frozenset({_OFFICE + "annotation"})
_NUMBER_TYPES = frozenset({"float", "percentage", "currency"})
_BOOLEANS = {"true": True, "1": True, "false": False, "0": False}

#: a number as ODF writes office:value (xsd:double without INF and NaN), as every reader reads
#: one; float() alone would also take "1_000", " 7 " or "infinity"
_NUMBER = re.compile(NUMBER_PATTERN)
_WHOLE = re.compile(r"[0-9]+")
#: the spaces a sheet's text:s elements may add up to: a sheet of 20 million cells with a double
#: space in each stays below; a small file that declares runs of millions of spaces does not
MAX_SPACES = 40_000_000


class _OdsSheet(NamedTuple):
    """What :func:`ods_rows` read: the sheet's rows and what the log should say about them."""

    rows: list[tuple[int, list]]  # (1-based row number, the row's cells up to its last value)
    name: str | None  # the sheet read; None when ``sheet`` names none
    names: list[str]  # every sheet, in order
    visible: list[str]  # the sheets not hidden, in order
    blank_formulas: int  # formula cells read as empty: saved without a cached result


def ods_rows(
    real: Path | BinaryIO, display: str, sheet: str | int, check_size: Callable[[str, int, int, int], None]
) -> _OdsSheet:
    """Stream the rows of one sheet of an ODS file.

    Parameters
    ----------
    real : Path or binary file
        The ODS file.
    display : str
        The file's name as the messages give it.
    sheet : str or int
        A sheet by name (hidden or not), or by 0-based index among the visible sheets (a sheet is
        hidden by a table style with ``table:display="false"``).
    check_size : callable
        ``check_size(display, row, width, cells)`` raises :class:`InputError` when a row would
        reach beyond the spreadsheet limits; called before any repetition is expanded.

    Returns
    -------
    _OdsSheet
        The sheet's rows, numbered as a spreadsheet program shows them (empty rows left out, each
        row cut after its last value; a repeated row is there once per repetition), and the
        sheets of the file. ``name`` is None when ``sheet`` matched no sheet (the caller says
        which exist).

    Cells are float or int (float, percentage, currency: int when the value is written as a
    whole number), bool, datetime (date), str (string, time and any other type: the cell's text),
    or None (empty). A typed cell without its value (office:value, office:date-value,
    office:boolean-value) is read as its text. A repeat count that is not a positive whole number
    is an :class:`InputError`.

    Examples
    --------
    >>> import io, zipfile
    >>> urn = "urn:oasis:names:tc:opendocument:xmlns"
    >>> xmlns = f'xmlns:table="{urn}:table:1.0" xmlns:text="{urn}:text:1.0"'
    >>> cell = '<table:table-cell><text:p>ice<text:s text:c="2"/>cream</text:p></table:table-cell>'
    >>> row = f'<table:table-row table:number-rows-repeated="2">{cell}</table:table-row>'
    >>> ods = io.BytesIO()
    >>> with zipfile.ZipFile(ods, "w") as archive:
    ...     archive.writestr("content.xml", f'<doc {xmlns}><table:table table:name="S">{row}</table:table></doc>')
    >>> read = ods_rows(ods, "s.ods", 0, check_size=lambda display, row, width, cells: None)
    >>> read.rows, read.name
    ([(1, ['ice  cream']), (2, ['ice  cream'])], 'S')
    """
    reader = _SheetReader(display, sheet, check_size)
    with zipfile.ZipFile(real) as archive:
        _refuse_encrypted(archive, display)
        try:
            with archive.open("content.xml") as content:
                reader.read(content)
        except ParseError as err:
            line, column = err.position
            raise InputError(
                display,
                f"content.xml is not well-formed XML at line {line}, column {column + 1}",
                expected="an ODS file as a spreadsheet program saves it",
            ) from None
    return _OdsSheet(reader.rows, reader.picked, reader.names, reader.visible, reader.blank_formulas)


def _refuse_encrypted(archive: zipfile.ZipFile, display: str) -> None:
    """An ODS saved with a password keeps its manifest in the clear and says there that
    content.xml is encrypted (``manifest:encryption-data``): named so, not as broken XML."""
    try:
        manifest = archive.read("META-INF/manifest.xml")
    except KeyError:
        return
    if b"encryption-data" in manifest:
        raise InputError(
            display,
            "the spreadsheet is saved with a password (its content is encrypted)",
            expected="the sheet saved without a password, or as CSV",
        )


class _SheetReader:
    """The state of one pass over content.xml."""

    def __init__(self, display: str, sheet: str | int, check_size: Callable[[str, int, int, int], None]):
        self.display, self.sheet, self.check_size = display, sheet, check_size
        self.by_index = isinstance(sheet, int) and not isinstance(sheet, bool)
        self.names: list[str] = []
        self.visible: list[str] = []
        self.hidden_styles: set[str] = set()
        self.picked: str | None = None
        self.rows: list[tuple[int, list]] = []
        self.blank_formulas = 0
        self.spaces = 0  # added by text:s so far
        self.row = 0  # the rows of the sheet read so far (repetitions counted)
        self.cells = 0  # the cells of those rows up to each row's last value

    def read(self, content) -> None:
        """One pass: a row is read when it ends (its cells complete), then dropped from the tree."""
        reading = False  # inside the sheet picked
        containers = []  # the open sheet and row groups: each row is dropped from its container
        cell_depth = 0  # open cells: what is inside a cell is its content, read with its row
        for event, element in iterparse(content, events=("start", "end")):
            tag = element.tag
            if event == "start":
                if tag in _CELLS:
                    cell_depth += 1
                elif cell_depth:
                    continue
                elif tag in _ROW_CONTAINERS:
                    containers.append(element)
                    if tag == _SHEET:
                        reading = self._start_sheet(element)
            elif tag in _CELLS:
                cell_depth -= 1
            elif not cell_depth:
                reading = self._end(tag, element, reading, containers)

    def _end(self, tag: str, element, reading: bool, containers: list) -> bool:
        """A row (read, then dropped), a sheet or row group (dropped) or a style (noted) has ended;
        whether the sheet picked is still being read."""
        if tag == _ROW:
            if reading:
                self._add_row(element)
            if containers:  # (a row outside a sheet is not read)
                del containers[-1][:]  # this row, and what ended before it (the rows read, columns)
        elif tag in _ROW_CONTAINERS:
            containers.pop()
            element.clear()
            if tag == _SHEET:
                reading = False
        elif tag == _STYLE_ELEMENT:
            self._note_style(element)
        return reading

    def _note_style(self, style) -> None:
        """A table style with table:display="false" hides the sheets that have it."""
        if style.get(_STYLE + "family") == "table" and any(
            p.tag == _TABLE_PROPERTIES and p.get(_TABLE + "display") == "false" for p in style
        ):
            self.hidden_styles.add(style.get(_STYLE + "name"))

    def _start_sheet(self, element) -> bool:
        """Note the sheet; whether it is the one to read (the first that matches ``sheet``)."""
        name = element.get(_TABLE + "name")
        self.names.append(name)
        shown = element.get(_TABLE + "style-name") not in self.hidden_styles
        if shown:
            self.visible.append(name)
        if self.picked is not None:
            return False
        if self.by_index:
            wanted = shown and len(self.visible) - 1 == self.sheet
        else:
            wanted = name == self.sheet
        if wanted:
            self.picked = name
        return wanted

    def _add_row(self, row) -> None:
        """The row's cells; a run of empty cells is expanded only when a value follows it, a repeated
        row only when it has a value (LibreOffice pads a sheet with a million empty rows)."""
        values, pending = [], 0
        for cell in row:
            if cell.tag not in _CELLS:
                continue
            column = len(values) + pending + 1
            repeated = cell.get(_COLUMNS_REPEATED)
            times = 1 if repeated is None else self._count(repeated, "table:number-columns-repeated", column)
            value = self._value(cell, column)
            if value is None:
                if cell.get(_TABLE + "formula") is not None:
                    self.blank_formulas += times
                pending += times
                continue
            if times > 1 or pending:
                self.check_size(self.display, self.row + 1, column - 1 + times, 0)
                values.extend([None] * pending + [value] * times)
                pending = 0
            else:
                values.append(value)
        repeated = row.get(_ROWS_REPEATED)
        repeat = 1 if repeated is None else self._count(repeated, "table:number-rows-repeated")
        if values:
            self.cells += repeat * len(values)
            self.check_size(self.display, self.row + repeat, len(values), self.cells)
            if repeat == 1:
                self.rows.append((self.row + 1, values))
            else:
                self.rows.extend((self.row + 1 + k, values) for k in range(repeat))
        self.row += repeat

    def _count(self, raw: str, attribute: str, column: int | None = None) -> int:
        """A count as the file gives it (a repetition, a run of spaces); one that is not a positive
        whole number is refused: it would drop or shift rows and cells without a trace."""
        digits = raw.lstrip("0")
        if digits and _WHOLE.fullmatch(digits):
            return int(digits) if len(digits) <= 18 else 10**18  # absurd, for the size check to refuse
        raise InputError(
            self.display,
            f"the repeat count {attribute} is not a count",
            row=self.row + 1,
            column=column,
            value=raw,
            expected="a positive whole number",
        )

    def _value(self, cell, column: int) -> object:
        """The cell's value; a typed cell without its value is read as its text, None when it has none."""
        kind = cell.get(_OFFICE + "value-type")
        if kind in _NUMBER_TYPES:
            raw = cell.get(_OFFICE + "value")
            if raw is not None and _NUMBER.fullmatch(raw):
                whole = _WHOLE.fullmatch(raw.lstrip("+-")) and len(raw) <= 20  # int() refuses 4,300 digits
                return int(raw) if whole else float(raw)
        elif kind == "boolean":
            value = _BOOLEANS.get(cell.get(_OFFICE + "boolean-value"))
            if value is not None:
                return value
        elif kind == "date":
            raw = cell.get(_OFFICE + "date-value")
            try:
                return _dt.datetime.fromisoformat(raw)
            except (TypeError, ValueError):
                pass
        text = self._text(cell, column)
        return text if text != "" or kind == "string" else None

    def _text(self, cell, column: int) -> str:
        """The cell's paragraphs joined by line breaks, each as the document has its text."""
        paragraphs = [p for p in cell if p.tag in _PARAGRAPHS]
        if len(paragraphs) == 1 and not len(paragraphs[0]):  # plain text: the common case, made fast
            return paragraphs[0].text or ""
        return "\n".join(self._paragraph(p, column) for p in paragraphs)

    def _paragraph(self, paragraph, column: int) -> str:
        """The text of a paragraph in document order, nested spans and links included (without
        recursion: a hostile file may nest spans a million deep)."""
        parts = []
        todo: list = [paragraph]  # elements to read, and the text that follows each (its tail)
        while todo:
            item = todo.pop()
            if isinstance(item, str):
                parts.append(item)
                continue
            tag = item.tag
            if tag == _SPACES:
                n = self._count(item.get(_TEXT + "c", "1"), "text:c (of text:s)", column)
                self.spaces += n
                if self.spaces > MAX_SPACES:
                    raise InputError(
                        self.display,
                        f"the sheet's runs of spaces (text:s) add up to more than {MAX_SPACES:,}",
                        row=self.row + 1,
                        column=column,
                        expected="a sheet of real size",
                    )
                parts.append(" " * n)
            elif tag == _TAB:
                parts.append("\t")
            elif tag == _LINE_BREAK:
                parts.append("\n")
            elif tag not in _NOT_TEXT:
                if item.text:
                    parts.append(item.text)
                for child in reversed(item):
                    if child.tail:
                        todo.append(child.tail)
                    todo.append(child)
        return "".join(parts)
