"""The value cells of a dataset as arrays (:class:`Cells`), for ``simgold.stages.clean``, and the
rejects ledger built from them (:class:`LedgerRows`).

A cell's ledger detail and raw text are codes into a table of distinct strings (:class:`Strings`):
a crowd sheet's million empty cells share one text and one detail. The ledger's text columns are
made from those codes by Arrow, never by turning a million Python strings into Arrow strings one
by one; the cells' arrays can be dropped before the ledger is assembled.

Examples
--------
>>> texts = Strings([""])
>>> texts.codes(["5", "", "x", "5"]).tolist(), texts.values
([1, 0, 2, 1], ['', '5', 'x'])
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from simgold.io.cells import raw_text
from simgold.io.ledger import REASONS
from simgold.stages.extraction import Extracted

__all__ = ["REASON_CODES", "Strings", "Cells", "LedgerRows", "text_column"]

#: a ledger reason's code in :attr:`Cells.reason` (0: accepted)
REASON_CODES = {reason: k for k, reason in enumerate(REASONS, start=1)}


class Strings:
    """Distinct strings (or None) and their codes, in order of first appearance.

    Parameters
    ----------
    values : list, optional
        The first entries (codes 0, 1, ...).

    Attributes
    ----------
    values : list
        The strings by code.
    """

    def __init__(self, values: list | None = None) -> None:
        self.values: list = []
        self._index: dict = {}
        for value in values or []:
            self.code(value)

    def code(self, value) -> int:
        """The code of one string (a new one for a string not seen yet).

        Parameters
        ----------
        value : str or None
            A string.

        Returns
        -------
        int
            Its code.
        """
        code = self._index.get(value)
        if code is None:
            code = self._index[value] = len(self.values)
            self.values.append(value)
        return code

    def codes(self, values) -> np.ndarray:
        """The codes of several strings.

        Parameters
        ----------
        values : iterable of str or None
            The strings.

        Returns
        -------
        numpy.ndarray
            Their codes (int32).
        """
        return np.fromiter((self.code(v) for v in values), dtype=np.int32)


@dataclass
class Cells:
    """Every value cell of a dataset as arrays, one source column after another.

    Attributes
    ----------
    item, role, rater, raw, src, row, j, block : numpy.ndarray
        Each cell's item row, role code, rater code, raw value (None once classified), source, file row, column and source column.
    raters, files, labels : numpy.ndarray
        The rater ids, file names and column labels the codes point to.
    value, reason, detail, text : numpy.ndarray
        What cleaning made of each cell: its value, ledger reason code, and the codes of its
        ledger detail (into ``details``) and raw text as the ledger shows it (into ``texts``).
    details, texts : Strings
        The distinct details and texts.
    """

    item: np.ndarray  # index into the item rows
    role: np.ndarray  # index into ROLES
    rater: np.ndarray  # code into ``raters`` (-1: no rater)
    raw: np.ndarray  # the raw cell (object); None once classified
    src: np.ndarray
    row: np.ndarray  # 1-based row in the file
    j: np.ndarray  # column of the table
    block: np.ndarray  # the source column: its file and label are ``files[block]``, ``labels[block]``
    raters: np.ndarray  # rater ids by code, None last (code -1)
    files: np.ndarray
    labels: np.ndarray
    value: np.ndarray = None
    reason: np.ndarray = None  # codes into REASONS (0: accepted)
    detail: np.ndarray = None  # codes into ``details`` (0: None)
    text: np.ndarray = None  # codes into ``texts`` (0: "")
    details: Strings = None
    texts: Strings = None

    @classmethod
    def from_extracted(cls, ext: Extracted) -> Cells:
        """The value cells of ``ext.blocks``, stacked.

        Parameters
        ----------
        ext : Extracted
            What the sources hold.

        Returns
        -------
        Cells
            Every value cell, none classified yet.
        """
        lengths = np.fromiter((len(b["raw"]) for b in ext.blocks), dtype=np.int64, count=len(ext.blocks))

        def stack(key, dtype):
            if all(np.ndim(b[key]) == 0 for b in ext.blocks):  # one value per block (or no block)
                return np.repeat(np.array([b[key] for b in ext.blocks], dtype=dtype), lengths)
            parts = [np.broadcast_to(b[key], n) for b, n in zip(ext.blocks, lengths)]
            return np.concatenate(parts, dtype=dtype, casting="unsafe")

        types = {"item": np.int32, "role": np.int8, "rater": np.int32, "raw": object, "src": np.int16}
        types.update({"row": np.int64, "j": np.int32, "block": np.int32})
        cells = cls(
            **{key: stack(key, dtype) for key, dtype in types.items()},
            raters=np.array([*ext.raters, None], dtype=object),
            files=np.array([f for f, _ in ext.columns], dtype=object),
            labels=np.array([label for _, label in ext.columns], dtype=object),
        )
        n = len(cells.raw)
        cells.value, cells.reason = np.full(n, np.nan), np.zeros(n, dtype=np.int8)
        cells.detail, cells.text = np.zeros(n, dtype=np.int32), np.zeros(n, dtype=np.int32)
        cells.details, cells.texts = Strings([None]), Strings([""])
        return cells

    def reject(self, mask, reason: str, detail) -> None:
        """Send cells to the ledger.

        Parameters
        ----------
        mask : numpy.ndarray or int
            The cells (a boolean mask, indices or one index).
        reason : str
            The ledger's reason.
        detail : str or numpy.ndarray
            What the ledger says: one text for all, or one per cell of ``mask``.
        """
        code = self.details.codes(detail) if isinstance(detail, np.ndarray) else self.details.code(detail)
        self.value[mask], self.reason[mask], self.detail[mask] = np.nan, REASON_CODES[reason], code

    def named(self) -> np.ndarray:
        """Whether each cell has a non-empty rater id.

        Returns
        -------
        numpy.ndarray
            One bool per cell.
        """
        return np.array([bool(r) for r in self.raters], dtype=bool)[self.rater]

    def where(self, k: int) -> str:
        """``file row n`` of cell ``k``.

        Parameters
        ----------
        k : int
            A cell.

        Returns
        -------
        str
            Where it is.
        """
        return f"{self.files[self.block[k]]} row {self.row[k]}"


_LEDGER_TEXT = ("source_file", "column", "raw_value", "reason", "detail")


@dataclass
class LedgerRows:
    """The ledger's rows in file order (source, row, column position): rejected value cells and
    notes, each text column as codes into its distinct strings.

    Attributes
    ----------
    row : numpy.ndarray
        Each ledger row's file row.
    codes : dict
        Text column -> (codes per ledger row, the strings they point to).
    """

    row: np.ndarray
    codes: dict

    @classmethod
    def of(cls, cells: Cells, notes: list) -> LedgerRows:
        """The ledger rows of the rejected cells and of ``notes`` (``(source, file, row, column,
        label, raw, reason, detail)`` each), in file order. Takes the cells' arrays: ``cells`` is
        empty afterwards (the ledger is the last thing cleaning makes of them), and what the
        ledger does not show is let go before the rows are gathered.

        Parameters
        ----------
        cells : Cells
            The classified value cells.
        notes : list of tuple
            The ledger's other rows.

        Returns
        -------
        LedgerRows
            The rows.
        """
        k = np.flatnonzero(cells.reason != 0)
        for key in ("item", "role", "rater", "raw", "value"):
            setattr(cells, key, None)
        note = list(zip(*notes)) if notes else [()] * 8
        row = _gathered(cells.row, k, note[2], np.int64)
        order = _file_order(_gathered(cells.src, k, note[0], np.int64), row, _gathered(cells.j, k, note[3], np.int64))
        own = {
            "source_file": (cells.block, cells.files.tolist(), note[1]),
            "column": (cells.block, cells.labels.tolist(), note[4]),
            "raw_value": (cells.text, cells.texts.values, [raw_text(raw) for raw in note[5]]),
            "reason": (cells.reason, [None, *REASONS], note[6]),  # code 0 (accepted) is never gathered
            "detail": (cells.detail, cells.details.values, note[7]),
        }
        for field in fields(Cells):
            setattr(cells, field.name, None)
        n = len(own["reason"][0])
        at = np.concatenate([k, np.arange(n, n + len(notes))])[order]  # into the cells, then the notes
        row = row[order]
        del k, order
        codes = {}
        for key, (code, values, noted) in own.items():  # a note's strings follow the cells' in the table
            noted_codes = np.arange(len(values), len(values) + len(noted))
            codes[key] = (np.concatenate([code, noted_codes], dtype=np.int32)[at], [*values, *noted])
        return cls(row, codes)

    def table(self, name: str, columns: tuple) -> pd.DataFrame:
        """The ledger as a DataFrame: ``dataset`` ``name``, the text columns Arrow strings (the
        rows' codes are used up: a second call has none).

        Parameters
        ----------
        name : str
            The dataset's name.
        columns : tuple of str
            The ledger's columns, in order.

        Returns
        -------
        pandas.DataFrame
            The ledger (empty, with its columns, when there is no row).
        """
        n = len(self.row)
        if not n:
            return pd.DataFrame([], columns=list(columns))
        data = {"dataset": text_column(np.zeros(n, dtype=np.int32), [name]), "source_row": self.row}
        for key in _LEDGER_TEXT:  # each column's codes let go once it is made
            data[key] = text_column(*self.codes.pop(key))
        return pd.DataFrame({c: data[c] for c in columns})


def _gathered(values: np.ndarray, k: np.ndarray, noted, dtype) -> np.ndarray:
    """``values[k]`` and then ``noted``, as ``dtype``."""
    out = np.empty(len(k) + len(noted), dtype=dtype)
    if values.dtype == dtype:
        np.take(values, k, out=out[: len(k)])
    else:
        out[: len(k)] = values[k]
    out[len(k) :] = noted
    return out


def _file_order(src: np.ndarray, row: np.ndarray, j: np.ndarray) -> np.ndarray:
    """The order of (source, row, column) keys (int64), ties in their given order: one stable sort
    of a combined key where it fits in 63 bits (made in ``src``'s place), else a lexicographic sort."""
    if not len(src):
        return np.empty(0, dtype=np.int64)
    lows = [int(a.min()) for a in (src, row, j)]
    spans = [int(a.max()) - low + 1 for a, low in zip((src, row, j), lows)]
    if spans[0] * spans[1] * spans[2] >= 2**63:
        return np.lexsort((j, row, src))
    key = src
    key -= lows[0]
    key *= spans[1]
    key += row
    key -= lows[1]
    key *= spans[2]
    key += j
    key -= lows[2]
    return np.argsort(key, kind="stable")


_CHUNK = 1 << 16  # ledger rows per Arrow chunk: small buffers fit in the memory the cells gave back


def text_column(codes: np.ndarray, values: list):
    """A text column from codes into distinct strings, as pandas holds text: Arrow strings taken
    from ``values`` (a null for None) in chunks by malloc (Arrow's system pool), so that memory
    numpy gave back is used again; an object column where every value is None.

    Parameters
    ----------
    codes : numpy.ndarray
        Each row's index into ``values``.
    values : list of str or None
        The distinct strings.

    Returns
    -------
    pandas.Series or numpy.ndarray
        The column (``str`` dtype), or an object array of None.

    Examples
    --------
    >>> text_column(np.array([1, 0, 1]), ["a", "b"]).tolist()
    ['b', 'a', 'b']
    """
    pool = pa.system_memory_pool()
    strings = pa.array(values, type=pa.large_string())
    chunks = [
        pc.take(strings, pa.array(codes[start : start + _CHUNK]), memory_pool=pool)
        for start in range(0, len(codes), _CHUNK)
    ]
    if sum(chunk.null_count for chunk in chunks) == len(codes):
        return np.full(len(codes), None, dtype=object)
    return pd.Series(pa.chunked_array(chunks, type=pa.large_string()), dtype="str")
