"""The table a reader gives: :class:`RawTable`, each cell as the file has it and where it came
from, with the ledger notes of what is not data (:class:`Note`). Shared by the readers
(``simgold.io.readers``) and the layouts that turn it into items and ratings
(``simgold.io.layouts``)."""

from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass, field
from typing import NamedTuple

from simgold.errors import InputError

__all__ = ["ABSENT", "SheetError", "Note", "RawTable", "blank", "count_cells", "close_names", "did_you_mean"]

#: A field that the row does not have at all (short row), as opposed to an empty field "".
ABSENT = None


class SheetError(str):
    """A spreadsheet cell that holds an error value (``#REF!``, ``#N/A``, ``#DIV/0!``, ...) as the
    sheet cached it: text that is never a word or a number.

    >>> SheetError("#REF!"), isinstance(SheetError("#REF!"), str)
    ('#REF!', True)

    Parameters
    ----------
    value : str
        The error value as the sheet shows it.
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return str.__repr__(self)


class Note(NamedTuple):
    """A ledger entry for a cell that is not read as data (a header cell, a title row, a comment
    line, a row rejected whole).

    Attributes
    ----------
    file : int
        The file's index in the table's files.
    row : int
        The 1-based row (line).
    col : int
        The 0-based column (-1 for a whole line).
    label : str
        The column's label.
    raw : object
        The cell as read.
    reason : str
        The ledger's reason.
    detail : str
        What the entry says.
    """

    file: int  # index into RawTable.files
    row: int  # 1-based row (line) in that file
    col: int  # 0-based column of the table; -1 for a whole line
    label: str  # column label as the ledger shows it
    raw: object
    reason: str  # ignored_row or extra_fields
    detail: str


@dataclass
class RawTable:
    """A rectangular-ish table read from one or more line-aligned files.

    ``rows[i][j]`` is the raw cell (str for text files; str, int, float, bool or datetime for
    spreadsheets; :data:`ABSENT` where row ``i`` is shorter than column ``j``). Column ``j`` came
    from file ``files[origin[j][0]]`` at 1-based position ``origin[j][1]``; row ``i`` is at 1-based
    row ``lines[f][i]`` of file ``f`` (the same for every file: joined files are line-aligned).

    Attributes
    ----------
    files : list of str
        The files' names, in the order they are joined.
    header : list of str or None
        The column names.
    rows : list of list
        The data rows, cells as read.
    lines : list of list of int
        Each file's line (row) of each data row.
    origin : list of tuple of int
        (file, 1-based column in it) of each column.
    separator : str or None
        A delimited text's separator.
    raw_cells : int
        The non-blank cells read.
    joined : int
        Non-blank fields joined into another's value (``extra_fields: join``).
    notes : list of Note
        The ledger's notes of what is not data.
    messages : list of str
        Lines for the job's log.
    flagged : dict
        Rows rejected whole: index -> (reason, detail).
    spanning : list of int
        The rows (lines) where a record whose quoted field spans several lines starts.
    """

    files: list[str]
    header: list[str] | None
    rows: list[list[object]]
    lines: list[list[int]]
    origin: list[tuple[int, int]] = field(default_factory=list)
    separator: str | None = None
    raw_cells: int = 0  # non-blank cells read from the file(s), data or not
    joined: int = 0  # non-blank cells rejoined into another field's value (extra_fields: join)
    notes: list[Note] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)  # what the log should say about the reading
    flagged: dict[int, tuple[str, str]] = field(default_factory=dict)  # row -> (reason, detail), until dropped
    spanning: list[int] = field(default_factory=list)

    @property
    def width(self) -> int:
        return len(self.origin)

    def cell(self, i: int, j: int) -> object:
        row = self.rows[i]
        return row[j] if j < len(row) else ABSENT

    def label(self, j: int) -> str:
        """The column label the ledger shows: the header name, or ``#pos``."""
        if j >= self.width:
            return f"#{j + 1}"
        if self.header is not None and self.header[j] != "":
            return self.header[j]
        return f"#{self.origin[j][1]}"

    def where(self, i: int, j: int) -> tuple[str, int, str]:
        """(file, row, column label) of cell ``(i, j)``."""
        f = self.origin[j][0]
        return self.files[f], self.lines[f][i], self.label(j)

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
            names = [h for h in self.header if h]
            close = close_names(ref, names)
            hint = did_you_mean(close) + (" (names are matched exactly)" if close else "")
            raise InputError(self.files[0], f"{what}: no column named {ref!r}{hint}", expected=f"one of {names}")
        if len(hits) > 1:
            raise InputError(
                self.files[0],
                f"{what}: column name {ref!r} is ambiguous (positions {[h + 1 for h in hits]})",
                expected="a 1-based column position instead of the name",
            )
        return hits[0]


def blank(value: object) -> bool:
    """An empty cell: absent, or text that is empty or only whitespace. Every other cell counts.

    Parameters
    ----------
    value : object
        A cell.

    Returns
    -------
    bool
        Whether it is blank.
    """
    return value is None or (isinstance(value, str) and not value.strip())


def count_cells(values) -> int:
    """The number of non-blank cells among ``values`` (the unit of the ledger's accounting).

    Parameters
    ----------
    values : iterable
        Cells.

    Returns
    -------
    int
        The count.
    """
    return sum(1 for v in values if not blank(v))


def _folded(name: str) -> str:
    """A column name without the differences a person does not see or mean: case, spaces,
    underscores and hyphens."""
    return re.sub(r"[\s_\-]+", "", unicodedata.normalize("NFKC", name)).casefold()


def close_names(ref: str, names: list[str]) -> list[str]:
    """The header names a misspelt column reference may mean: those equal but for case and
    spacing, else difflib's closest (at most three).

    Parameters
    ----------
    ref : str
        The reference.
    names : list of str
        The header's names.

    Returns
    -------
    list of str
        The close names.

    Examples
    --------
    >>> close_names("mean", ["Word 1", "Word 2", "Mean", "SD"]), close_names("Word1", ["Word 1", "Word 2"])
    (['Mean'], ['Word 1'])
    >>> close_names("Bewertng", ["Teilnehmer", "Bewertung"]), close_names("zzz", ["a", "b"])
    (['Bewertung'], [])
    """
    same = [n for n in names if _folded(n) == _folded(ref)]
    return same or difflib.get_close_matches(ref, names, 3, 0.75)


def did_you_mean(close: list[str]) -> str:
    """The hint an error gives for the names close to a wrong one; "" for none.

    >>> did_you_mean(["Mean", "mean_sd"]), did_you_mean([])
    ("; did you mean 'Mean' or 'mean_sd'?", '')

    Parameters
    ----------
    close : list of str
        The close names.

    Returns
    -------
    str
        The hint.
    """
    return f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
