"""A :class:`~simgold.io.rawtable.RawTable` from the records a reader found, common to text files
(``simgold.io.textfiles``) and sheets (``simgold.io.sheets``): the header taken off (its cells
noted), a repetition of the header mid-file flagged, the width set; and the rows rejected whole
moved into the notes (``simgold.io.readers``).
"""

from __future__ import annotations

from collections.abc import Callable

from simgold.io.cells import cell_text
from simgold.io.rawtable import Note, RawTable, blank

__all__ = ["finish_table", "drop_flagged", "header_name", "used_width"]


def header_name(value: object) -> str:
    """A header name: text, without surrounding space or a stray byte order mark.

    Parameters
    ----------
    value : object
        A header cell.

    Returns
    -------
    str
        The name.
    """
    return (value if isinstance(value, str) else cell_text(value)).replace("\ufeff", "").strip()


def finish_table(
    display: str, records: list, header: bool, notes: list[Note], raw_cells: int, flag_rows: Callable | None = None
) -> RawTable:
    """A table from (row, fields, raw) records and the count of their non-blank cells: the header
    taken off (its cells noted), a repetition of the header mid-file flagged, and (``flag_rows``:
    ``flag_rows(table, data records)``, a delimited text's check of rows with extra fields) rows
    flagged or rejoined before the width is set.

    Parameters
    ----------
    display : str
        The file's name in messages.
    records : list
        (row, fields, raw line) of each row read.
    header : bool
        Whether the first record is the header.
    notes : list of Note
        The ledger notes so far (title rows, comments).
    raw_cells : int
        The non-blank cells read.
    flag_rows : callable, optional
        A delimited text's check of rows with extra fields.

    Returns
    -------
    RawTable
        The table.
    """
    names = None
    if header:
        n0, fields, _ = records[0]
        names = [header_name(f) for f in fields]
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
    if flag_rows is not None:
        flag_rows(table, records)
    _set_width(table)
    return table


def _flag_repeated_header(table: RawTable, header_row: int) -> None:
    key = [header_name(v) for v in table.header[: used_width(table.header)]]
    if not key:
        return
    for i, row in enumerate(table.rows):
        if header_name(row[0]) == key[0] and [header_name(v) for v in row[: used_width(row)]] == key:
            detail = f"the header of row {header_row} again (a second file pasted below the first?)"
            table.flagged[i] = ("ignored_row", detail)


def _set_width(table: RawTable) -> None:
    """Columns: the header and every row not flagged (a rejected long row does not widen the table)."""
    widths = [len(row) for i, row in enumerate(table.rows) if i not in table.flagged]
    width = max([len(table.header or [])] + widths)
    if table.header is not None:
        table.header = table.header + [""] * (width - len(table.header))
    table.origin = [(0, j + 1) for j in range(width)]


def drop_flagged(table: RawTable) -> None:
    """Move the rows rejected whole into the notes: each non-blank cell, with the reason.

    Parameters
    ----------
    table : RawTable
        A table whose ``flagged`` rows are rejected whole.
    """
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


def used_width(row: list) -> int:
    """The position of the last non-blank field: trailing empty fields are not extra values.

    Parameters
    ----------
    row : list
        A row's fields.

    Returns
    -------
    int
        The number of fields up to the last non-blank one.
    """
    k = len(row)
    while k and blank(row[k - 1]):
        k -= 1
    return k
