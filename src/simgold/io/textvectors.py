"""word2vec and GloVe text files read at the disk's pace (docs/methods.md section 7).

A plain file is memory-mapped and read once, in place; a ``.gz`` file is decompressed in blocks.
The bytes are cut into chunks of whole lines (2 MiB, where a line ends, so the cut depends
on the content only) and each chunk is scanned by a few vectorised passes, in worker threads:

* one comparison marks the line ends and one the whitespace bytes; both are packed 64 to a
  machine word (``np.packbits``), a piece of the chunk at a time so that the bytes and their mask
  stay in the core's cache, and all the rest works on 1/64 of the data;
* a field starts where a non-blank byte follows a blank one: the fields of every line are counted
  (bit counts between line ends) and must be the dimension + 1, line by line, so that a short
  and a long line cannot make up for each other;
* the first 8 bytes of each line's first field are compared, as one 64-bit number, with those of
  the needed words; only the lines that match are looked at in Python.

The lines of needed words are parsed together with Arrow's CSV reader (correctly rounded, like
Python's ``float``); lines it refuses are parsed again in Python, which names the bad value.
Chunks are taken in file order: the first of a duplicated word is kept, and an error names the
file's line. Tabs, runs of blanks, a blank at the end of a line (fastText), CRLF line ends and a
UTF-8 byte-order mark are read as what they are; a file saved as UTF-16, or with CR-only line
ends, is refused with a message.

With a vector store (``$SIMGOLD_CACHE``; workflow jobs have one), the scan of a plain file also
notes each line's key and start, and a scan without error leaves them there as the file's line
index (``simgold.io.lineindex``). A later read of the unchanged file looks the needed words up in it
and parses only their lines, each checked to be where it was indexed; the result is the full
scan's, to the bit. A gzip file is always scanned.

Why not gensim's ``KeyedVectors.load_word2vec_format``: it parses every line of the file into
memory, where a dataset needs a few thousand words; on a text file of 50,000 words x 300 it takes
many times as long as the scan here (docs/benchmarks.md, section embeddings).
"""

from __future__ import annotations

import mmap
import os
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from simgold.errors import InputError
from simgold.io.cells import NUMBER_PATTERN
from simgold.io.lineindex import Stale, line_store
from simgold.io.progress import Progress
from simgold.io.vectorformats import BOM, Damaged, GzipStream

__all__ = ["CHUNK", "HEAD", "LoadReport", "read_text_vectors", "usable_vectors", "vector_problem"]

CHUNK = 1 << 21  # bytes per chunk (whole lines, 2 MiB): small enough to stay in the CPU cache
PIECE = 1 << 18  # bytes of a chunk compared and packed at once: they and their mask stay in the core's cache
HEAD = 1 << 20  # bytes searched for the first line
KEY = 8  # bytes of a line's first field compared as one number
PARSE_BATCH = 4096  # kept lines parsed at once


@dataclass
class LoadReport:
    """What a reader found (shared by every format).

    Attributes
    ----------
    file : str
        The file's name.
    format : str
        Its format.
    dim : int
        The dimension.
    lines : int
        Vector lines read.
    kept : int
        Needed words kept.
    duplicates : list of tuple
        (word, first line, repeated line) of each word seen twice.
    mean : numpy.ndarray or None
        The mean of every vector (``oov: mean``).
    notes : list of str
        What the report says besides.
    timings : dict of str to float
        Seconds: scan (all threads), parse.
    unusable : list of tuple
        (word, line, why) of each kept vector that is all zeros or holds a value not finite as
        float32 (:func:`vector_problem`): kept in the table as stored, out of vocabulary at scoring.
    """

    file: str
    format: str
    dim: int = 0
    lines: int = 0
    kept: int = 0
    duplicates: list[tuple[str, int, int]] = field(default_factory=list)  # word, first line, repeated line
    mean: np.ndarray | None = None
    notes: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)  # seconds: scan (all threads), parse
    unusable: list[tuple[str, int | None, str]] = field(default_factory=list)


class _LineError(Exception):
    """A bad line, by its index in the lines at hand (turned into an InputError with the file's line)."""

    def __init__(self, index: int, message: str, expected: str):
        super().__init__(message)
        self.index, self.message, self.expected = index, message, expected


# --------------------------------------------------------------------------------------------
# where the bytes come from


class _Mapped:
    """A plain file, memory-mapped: chunks are views of the mapping, never copies. The pages of
    chunks already scanned are given back (the file stays in the page cache), so that the
    process's resident memory does not grow with the file."""

    def __init__(self, path: Path):
        self.fh = open(path, "rb")
        self.mm = mmap.mmap(self.fh.fileno(), 0, access=mmap.ACCESS_READ)
        self.mm.madvise(mmap.MADV_SEQUENTIAL)
        self.size = len(self.mm)
        self.done = self.released = 0

    def head(self) -> bytes:
        return self.mm[:HEAD]

    def chunks(self, start: int):
        """(end offset, chunk) of each chunk of whole lines from ``start``."""
        data = np.frombuffer(self.mm, dtype=np.uint8)
        pos = start
        while pos < self.size:
            end = self.mm.find(b"\n", pos + CHUNK - 1)
            end = self.size if end < 0 else end + 1
            yield end, data[pos:end]
            pos = end
        del data  # the mapping can only close once no array points into it

    def scanned(self, upto: int) -> None:
        """Everything before ``upto`` is scanned: its pages can go."""
        self.done = upto
        upto -= upto % mmap.PAGESIZE
        if upto > self.released:
            self.mm.madvise(mmap.MADV_DONTNEED, self.released, upto - self.released)
            self.released = upto

    def close(self) -> None:
        self.fh.close()
        try:
            self.mm.close()
        except BufferError:  # a view is still alive (e.g. in a traceback): the mapping goes with it
            pass


class _Gzipped(GzipStream):
    """A gzip file, decompressed in blocks and cut into the same chunks as the plain file.

    A stream that ends before its end marker (a download cut short) or that cannot be
    decompressed raises ``Damaged`` before its incomplete last line is looked at.
    """

    def __init__(self, path: Path):
        super().__init__(path, block=CHUNK, head_size=HEAD)

    def chunks(self, start: int):
        """(compressed bytes read, chunk) of each chunk of whole lines from ``start``."""
        buf, pos = self.buffer, start
        while True:
            end = buf.find(b"\n", pos + CHUNK - 1)
            if end >= 0:
                yield self.fh.tell(), np.frombuffer(buf, dtype=np.uint8, count=end + 1 - pos, offset=pos)
                pos = end + 1
                continue
            try:
                block = self.more()
            except Damaged:  # the whole lines before the break first: the error names where the data stops
                last = buf.rfind(b"\n", pos) + 1
                if last > pos:
                    yield self.fh.tell(), np.frombuffer(buf, dtype=np.uint8, count=last - pos, offset=pos)
                raise
            buf, pos = buf[pos:] + block, 0
            if not block:
                if buf:
                    yield self.fh.tell(), np.frombuffer(buf, dtype=np.uint8)
                return

    def scanned(self, upto: int) -> None:
        self.done = upto  # compressed bytes read (for progress lines)


def _open_source(path: Path):
    with open(path, "rb") as fh:
        gz = fh.read(2) == b"\x1f\x8b"
    return _Gzipped(path) if gz else _Mapped(path)


# --------------------------------------------------------------------------------------------
# the first line


@dataclass
class _Header:
    dim: int
    count: int | None  # the number of words a word2vec header announces
    lines_before: int  # lines before the first vector line
    offset: int  # byte offset of the first vector line


def _read_header(head: bytes, display: str, word2vec: bool, notes: list[str]) -> _Header:
    """The dimension (and word count) from the first line; refuses what cannot be a vector file."""
    skip = 0
    if head.startswith(BOM):
        skip = len(BOM)
        notes.append("the file starts with a UTF-8 byte-order mark (skipped)")
    end = head.find(b"\n", skip)
    if end < 0 and b"\r" not in head:
        raise InputError(display, f"no line end in the first {len(head):,} bytes", row=1, expected="lines")
    first = head[skip:end]
    if end < 0 or b"\r" in first.rstrip(b"\r"):
        raise InputError(display, "CR-only line ends (an old Mac file)", row=1, expected="LF or CRLF line ends")
    fields = first.split()
    is_header = len(fields) == 2 and all(f.isdigit() for f in fields)
    if word2vec:
        return _word2vec_header(first, fields, is_header, display, end + 1)
    _check_glove_first_line(first, fields, is_header, display)
    return _Header(dim=len(fields) - 1, count=None, lines_before=0, offset=skip)


def _word2vec_header(first: bytes, fields: list[bytes], is_header: bool, display: str, offset: int) -> _Header:
    if not is_header:
        raise InputError(
            display,
            f"the first line is not a word2vec header ('count dim'): {first.strip()[:60]!r}",
            row=1,
            expected="format: glove-text for a file without a header",
        )
    count, dim = int(fields[0]), int(fields[1])
    if count == 0 or dim == 0:
        raise InputError(
            display,
            f"the header announces {count} words of {dim} dimensions",
            row=1,
            expected="a header 'count dim' with both numbers above 0",
        )
    return _Header(dim=dim, count=count, lines_before=1, offset=offset)


def _check_glove_first_line(first: bytes, fields: list[bytes], is_header: bool, display: str) -> None:
    if is_header:
        raise InputError(
            display,
            f"the first line looks like a word2vec header: {first.strip().decode()!r}",
            row=1,
            expected="format: word2vec-text",
        )
    if len(fields) < 2 or not all(_is_float(f) for f in fields[1:]):
        # a damaged or foreign header ("400000 50 extra", a CSV title row) would otherwise be
        # read as the vector of an unneeded word and never looked at
        raise InputError(
            display,
            f"the first line is neither a word2vec header ('count dim') nor a word and its vector: "
            f"{first.strip()[:60].decode('utf-8', 'replace')!r}",
            row=1,
            expected="'count dim' or 'word v1 v2 ...'",
        )


# a number as a vector file writes it: ASCII digits, point, exponent; NaN and infinity pass here
# to be refused by name (Python's float also takes "1_0", which it reads as 10)
_NUMBER = re.compile(f"(?:{NUMBER_PATTERN}|[+-]?(?i:nan|inf|infinity))".encode())


def _is_float(token: bytes) -> bool:
    return _NUMBER.fullmatch(token) is not None


# --------------------------------------------------------------------------------------------
# scanning one chunk (runs in a worker thread; numpy releases the GIL in every pass)


class _Targets:
    """The needed words as bytes, and the sorted 64-bit keys of their first 8 bytes."""

    def __init__(self, needed):
        self.words = {w.encode("utf-8"): w for w in needed}
        keys = [int.from_bytes(w[:KEY].ljust(KEY, b"\0"), "little") for w in self.words]
        self.keys = np.unique(np.array(keys, dtype=np.uint64))


@dataclass
class _ChunkScan:
    n_lines: int
    hits: list[tuple[int, bytes, bytes]]  # (line index in the chunk, word, whole line) of needed words
    error: _LineError | None = None
    sums: np.ndarray | None = None  # sum of every vector (oov: mean only)
    seconds: float = 0.0
    size: int = 0  # bytes in the chunk
    keys: np.ndarray | None = None  # every line's key and start in the chunk (for the line index only)
    starts: np.ndarray | None = None


_scratch = threading.local()
_ONE, _TOP = np.uint64(1), np.uint64(63)


def _packed(a: np.ndarray, op, value: int, fill: bool) -> np.ndarray:
    """The mask ``op(a, value)`` packed 64 bytes to a little-endian word, padded with ``fill`` bits
    to whole words and one spare word. The mask is made and packed a ``PIECE`` at a time in a
    per-thread buffer, so that the bytes it reads and the mask it writes stay in the CPU cache."""
    n = len(a)
    size = -(-n // 64) * 64 + 64
    buf = getattr(_scratch, "buf", None)
    if buf is None or len(buf) != PIECE:
        buf = _scratch.buf = np.empty(PIECE, dtype=bool)
    out = np.empty(size // 8, dtype=np.uint8)
    for s in range(0, size, PIECE):
        part = buf[: min(PIECE, size - s)]
        m = max(0, min(n - s, len(part)))
        op(a[s : s + m], value, out=part[:m])
        part[m:] = fill
        out[s // 8 : s // 8 + len(part) // 8] = np.packbits(part, bitorder="little")
    return out.view("<u8")


def _set_bits(words: np.ndarray) -> np.ndarray:
    """Positions of the set bits of little-endian words (lowest bit first, one round per bit a word holds)."""
    hit = np.flatnonzero(words)
    bits, found = words[hit], []
    while len(hit):
        low = bits & (~bits + np.uint64(1))  # the lowest set bit
        found.append(hit * 64 + np.frexp(low.astype(np.float64))[1] - 1)
        bits = bits ^ low
        more = bits != 0
        hit, bits = hit[more], bits[more]
    return np.sort(np.concatenate(found)) if len(found) > 1 else (found[0] if found else hit)


def _line_ends(a: np.ndarray) -> np.ndarray:
    """Offsets of the line ends (and of the end of the chunk when its last line has none)."""
    ends = _set_bits(_packed(a, np.equal, 10, False))
    return np.append(ends, len(a)) if len(a) and a[-1] != 10 else ends


def _fields_per_line(a: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Fields (runs of bytes above the space) in each line, counted with bit operations: the field
    starts of the whole words between two line ends summed at once (``reduceat``), those of the
    words a line end falls in counted up to it."""
    blank = _packed(a, np.less_equal, 32, True)
    starts = np.left_shift(blank, _ONE)
    starts[1:] |= blank[:-1] >> _TOP
    starts[0] |= _ONE  # the chunk begins after a line end
    starts &= ~blank  # a non-blank byte after a blank one
    counts = np.bitwise_count(starts).astype(np.int32)
    word = ends >> 6
    upto = np.bitwise_count(starts[word] & ((_ONE << (ends & 63).astype(np.uint64)) - _ONE)).astype(np.int32)
    bounds = np.zeros(len(word) + 1, dtype=word.dtype)
    bounds[1:] = word
    whole = np.add.reduceat(counts, bounds)[: len(word)]
    whole[bounds[1:] == bounds[:-1]] = 0  # reduceat gives an element, not 0, for an empty segment
    upto[1:] -= upto[:-1].copy()
    return whole + upto


def _line_keys(a: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """The first 8 bytes of each line's first field as one little-endian number (zero-padded);
    0 for a line that begins with a blank. The 8 bytes at each start are read as one number (a view of
    the chunk at every byte offset) unless a line starts in the chunk's last 7 bytes."""
    if len(starts) and starts[-1] <= len(a) - KEY:
        window = np.ndarray((len(a) - KEY + 1,), dtype="<u8", buffer=a, strides=(1,))[starts]
        window = window.view(np.uint8).reshape(-1, KEY)
    else:
        window = a[np.minimum(starts[:, None] + np.arange(KEY), len(a) - 1)]
    blank = window <= 32
    first = np.where(blank.any(axis=1), blank.argmax(axis=1), KEY)
    window[np.arange(KEY) >= first[:, None]] = 0
    return window.view("<u8").ravel()


def _key_matches(keys_of_lines: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Lines whose first field begins like a needed word, or that begin with a blank (key 0)."""
    at = np.minimum(np.searchsorted(keys, keys_of_lines), len(keys) - 1)
    return np.flatnonzero((keys[at] == keys_of_lines) | (keys_of_lines == 0))


def _scan_chunk(a: np.ndarray, targets: _Targets, dim: int, want_mean: bool, index: bool = False) -> _ChunkScan:
    """The lines of needed words in a chunk of whole lines, after checking every line's field count
    (with ``index``, also every line's key and start, for the line index)."""
    t0 = time.perf_counter()
    ends = _line_ends(a)
    starts = np.zeros_like(ends)
    np.add(ends[:-1], 1, out=starts[1:])
    odd = np.flatnonzero(_fields_per_line(a, ends) != dim + 1)
    keys = _line_keys(a, starts) if len(targets.keys) or index else None
    look = _key_matches(keys, targets.keys) if len(targets.keys) else odd
    if len(odd) and len(targets.keys):
        look = np.union1d(odd, look)
    scan, odd = _ChunkScan(len(ends), [], size=len(a)), set(odd.tolist())
    if index:
        scan.keys, scan.starts = keys, starts
    for i in look.tolist():
        line = a[starts[i] : ends[i]].tobytes()
        fields = line.split() if i in odd else line.split(None, 1)  # the whole line only when in doubt
        if i in odd and len(fields) != dim + 1:
            scan.error = _LineError(i, _count_message(fields), f"{dim:,} values per word")
            break
        if fields[0] in targets.words:
            scan.hits.append((i, fields[0], line))
    if want_mean and scan.error is None:
        try:
            every = _parse_lines(_lines_of(a), dim)
            with np.errstate(over="ignore"):  # a vector with a value not finite as float32 adds nothing
                finite = np.isfinite(every.astype(np.float32)).all(axis=1)
            scan.sums = every[finite].sum(axis=0)
        except _LineError as err:
            scan.error = err
    scan.seconds = time.perf_counter() - t0
    return scan


def _lines_of(a: np.ndarray) -> list[bytes]:
    lines = a.tobytes().split(b"\n")
    return lines[:-1] if lines[-1] == b"" else lines


def _count_message(fields: list[bytes]) -> str:
    if not fields:
        return "an empty line"
    return f"{fields[0].decode('utf-8', 'replace')!r} has {len(fields) - 1} values"


# --------------------------------------------------------------------------------------------
# parsing lines of numbers


@lru_cache(maxsize=8)
def _csv_options(dim: int):
    names = ["word"] + [f"v{k}" for k in range(dim)]
    types = {"word": pa.binary(), **{n: pa.float64() for n in names[1:]}}
    return (
        pacsv.ReadOptions(column_names=names, use_threads=False, block_size=1 << 30),
        pacsv.ParseOptions(delimiter=" ", quote_char=False, double_quote=False, escape_char=False),
        pacsv.ConvertOptions(column_types=types, null_values=[], strings_can_be_null=False),
    )


def _parse_lines(lines: list[bytes], dim: int) -> np.ndarray:
    """The vectors (float64, one row per line) of whole lines ``word v1 ... vdim``.

    Arrow's CSV reader parses them at once (once more after making the blanks single spaces, if
    the lines have other blanks); if it still refuses them, Python's ``float`` parses them line
    by line and raises a ``_LineError`` naming the first bad line and value.
    """
    data = b"\n".join(lines) + b"\n"
    table = _arrow_table(data, dim)
    if table is None or table.num_rows != len(lines):
        table = _arrow_table(_single_spaced(data), dim)
    if table is None or table.num_rows != len(lines):
        return _parse_in_python(lines, dim)
    return np.stack([column.to_numpy() for column in table.columns[1:]], axis=1)


def _arrow_table(data: bytes, dim: int):
    try:
        return pacsv.read_csv(pa.py_buffer(data), *_csv_options(dim))
    except pa.ArrowInvalid:
        return None


def _single_spaced(data: bytes) -> bytes:
    """Tabs, runs of blanks and blanks at either end of a line, as the single spaces Arrow expects."""
    if b"\t" in data:
        data = data.replace(b"\t", b" ")
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n")
    while b"  " in data:
        data = data.replace(b"  ", b" ")
    if b" \n" in data:
        data = data.replace(b" \n", b"\n")
    if b"\n " in data or data.startswith(b" "):
        data = data.replace(b"\n ", b"\n").removeprefix(b" ")
    return data


def _parse_in_python(lines: list[bytes], dim: int) -> np.ndarray:
    out = np.empty((len(lines), dim))
    for i, line in enumerate(lines):
        fields = line.split()
        if len(fields) != dim + 1:
            raise _LineError(i, _count_message(fields), f"{dim:,} values per word")
        if all(map(_is_float, fields[1:])):
            out[i] = [float(t) for t in fields[1:]]
        else:
            bad = next(t for t in fields[1:] if not _is_float(t)).decode("utf-8", "replace")
            word = fields[0].decode("utf-8", "replace")
            raise _LineError(i, f"non-numeric value {bad!r} for {word!r}", "numbers")
    return out


def vector_problem(vec) -> str | None:
    """Why a vector has no direction to compare, as float32 stores it: a NaN, an infinite value, a
    value too large for float32 (finite as read, infinite as stored), or all zeros; None if usable.

    Parameters
    ----------
    vec : array-like
        The vector as read (float64, or the float32 a file stores).

    Returns
    -------
    str or None
        The reason, naming the first offending value.

    Examples
    --------
    >>> vector_problem([1e39, 0.5]), vector_problem([0.0, 0.0]), vector_problem([0.1, float("-inf")])
    ('a value is not finite as float32 (1e+39)', 'all zeros', 'a value is infinite (-inf)')
    >>> vector_problem(np.array([np.nan, 1.0], np.float32)), vector_problem([0.1, 0.2]) is None
    ('a value is NaN', True)
    """
    read = np.asarray(vec, dtype=np.float64)
    with np.errstate(over="ignore"):  # the overflow is the finding, said in the reason
        stored = read.astype(np.float32)
    if np.isfinite(stored).all():
        return None if stored.any() else ("all zeros" if not read.any() else "all zeros as float32")
    if np.isnan(read).any():
        return "a value is NaN"
    inf = np.isinf(read)
    if inf.any():
        return f"a value is infinite ({read[inf][0]:g})"
    return f"a value is not finite as float32 ({read[~np.isfinite(stored)][0]:g})"


def usable_vectors(stored: np.ndarray) -> np.ndarray:
    """Which rows of vectors as float32 stores them have a direction: ``vector_problem`` gives None
    for each (every value finite, not all zeros), for all rows at once.

    Parameters
    ----------
    stored : numpy.ndarray
        The vectors as stored, float32, (words, dim).

    Returns
    -------
    numpy.ndarray
        One bool per row.

    Examples
    --------
    >>> usable_vectors(np.array([[0.5, 0.0], [0.0, 0.0], [np.inf, 1.0]], np.float32)).tolist()
    [True, False, False]
    """
    return np.isfinite(stored).all(axis=1) & stored.any(axis=1)


# --------------------------------------------------------------------------------------------
# the whole file


class _Kept:
    """The lines of needed words in file order, parsed in batches; the first of a duplicated word is kept."""

    def __init__(self, targets: _Targets, dim: int, display: str):
        self.targets, self.dim, self.display = targets, dim, display
        self.pending: list[tuple[int, bytes, bytes]] = []  # (line in the file, word, line)
        self.vectors: dict[str, tuple[np.ndarray, int]] = {}
        self.unusable: dict[str, str] = {}  # word: why its vector has no direction (as read, before float32)
        self.duplicates: list[tuple[str, int, int]] = []
        self.seconds = 0.0

    def add(self, line_no: int, hits) -> None:
        self.pending += [(line_no + i + 1, word, line) for i, word, line in hits]
        if len(self.pending) >= PARSE_BATCH:
            self.flush()

    def flush(self) -> None:
        if not self.pending:
            return
        t0 = time.perf_counter()
        rows, words, lines = zip(*self.pending)
        self.pending = []
        try:
            vectors = _parse_lines(list(lines), self.dim)
        except _LineError as err:
            raise InputError(self.display, err.message, row=rows[err.index], expected=err.expected) from None
        with np.errstate(over="ignore"):  # 1e39 is infinite as float32: said in ``unusable``
            stored = vectors.astype(np.float32)
        usable = usable_vectors(stored)
        for row, word_b, vec, kept, ok in zip(rows, words, vectors, stored, usable.tolist()):
            word = self.targets.words[word_b]
            if word in self.vectors:
                self.duplicates.append((word, self.vectors[word][1], row))
            else:
                if not ok:
                    self.unusable[word] = vector_problem(vec)
                self.vectors[word] = (kept, row)
        self.seconds += time.perf_counter() - t0


def _in_order(source, start: int, scan, threads: int):
    """(end offset, ``scan`` of the chunk) for every chunk, in file order, ``threads`` chunks at a time."""
    if threads <= 1:
        yield from ((end, scan(chunk)) for end, chunk in source.chunks(start))
        return
    with ThreadPoolExecutor(max_workers=threads) as pool:
        queue = []
        for end, chunk in source.chunks(start):
            queue.append((end, pool.submit(scan, chunk)))
            if len(queue) > 2 * threads:
                end, future = queue.pop(0)
                yield end, future.result()
        for end, future in queue:
            yield end, future.result()


def read_text_vectors(
    path, display: str, needed, *, header: bool, want_mean: bool = False, threads: int = 1, log=None
) -> tuple[dict[str, tuple[np.ndarray, int]], LoadReport]:
    """Stream a word2vec (``header``) or GloVe text file, plain or gzip; return
    ({word: (float32 vector, line)}, report) for the needed words found. A plain file with a
    line index in the vector store (``simgold.io.lineindex``) has only its needed lines read.

    Parameters
    ----------
    path : pathlib.Path
        The file.
    display : str
        Its name in messages.
    needed : set of str
        The words to keep.
    header : bool
        word2vec (a header line) rather than GloVe.
    want_mean : bool
        Sum every vector for ``oov: mean``.
    threads : int
        Scan threads.
    log : callable or None
        Where messages go (None: silent).

    Returns
    -------
    tuple of (dict, LoadReport)
        ``{word: (float32 vector, line)}`` and the report.
    """
    source = _open_source(Path(path))
    gzipped, fmt = isinstance(source, _Gzipped), "word2vec-text" if header else "glove-text"
    report = LoadReport(display, fmt + (" (gzip)" if gzipped else ""))
    try:
        first = _read_header(_head(source, display), display, header, report.notes)
        report.dim, targets = first.dim, _Targets(needed)
        store = line_store(source, path, display, fmt, gzipped, log)
        body = _through_index(source, first, targets, report, want_mean, store)
        scanned = body is None
        if scanned:
            body = _read_body(source, first, targets, report, want_mean, threads, log, store)
    finally:
        source.close()
    kept, total, words = body
    if first.count is not None and first.count != words:
        raise InputError(display, f"the header says {first.count} words, but the file has {words}", row=1,
                         expected="a header matching the body")  # fmt: skip
    if store is not None and scanned:
        t0 = time.perf_counter()
        store.save(first.dim, first.offset, first.lines_before, words, total)
        report.timings["index written"] = time.perf_counter() - t0
    report.lines, report.kept, report.duplicates = words, len(kept.vectors), kept.duplicates
    report.unusable = sorted(((w, kept.vectors[w][1], why) for w, why in kept.unusable.items()), key=lambda u: u[1])
    report.timings["parse"] = kept.seconds
    if want_mean and words:
        report.mean = (total / words).astype(np.float32)
    return kept.vectors, report


def _through_index(source, first: _Header, targets: _Targets, report: LoadReport, want_mean: bool, store):
    """(kept, sum of every vector, word count) through the file's line index; None when there is
    no index that can serve this read (said in the log when there is one): then the file is scanned."""
    if store is None:
        return None
    t0 = time.perf_counter()
    try:
        index = store.load(first.dim, first.offset, first.lines_before, want_mean)
        if index is None:
            return None
        kept, looked_at = _indexed_lines(source, first, targets, index, report.file)
    except Stale as err:
        store.say(f"{report.file}: line index {store.file} not used: {err}; the whole file is scanned")
        return None
    report.timings["index"] = time.perf_counter() - t0 - kept.seconds
    store.say(
        f"{report.file}: read through its line index {store.file} (the file has the size, times and inode it "
        f"had when indexed): {looked_at:,} of its {index.words:,} lines looked at, the rest not read"
    )
    return kept, index.total if want_mean else None, index.words


def _indexed_lines(source: _Mapped, first: _Header, targets: _Targets, index, display: str) -> tuple[_Kept, int]:
    """The needed lines at the places the index gives, each checked to be where it was indexed
    (raises ``Stale`` otherwise); and the number of lines looked at."""
    if index.bounds[-1] != source.size:
        raise Stale(f"the file has {source.size:,} bytes, the index {int(index.bounds[-1]):,}")
    rows, keys = index.candidates(targets.keys)
    starts, ends = index.bounds[rows], index.bounds[rows + 1]
    # read, not mapped: a page fault per line (and the pages around it) costs more than a read
    pieces = [_read_at(source.fh.fileno(), start - 1, end) for start, end in zip(starts.tolist(), ends.tolist())]
    moved = _misplaced(pieces, rows, starts, ends, keys, first.offset, index.words, source.size)
    if len(moved):
        raise Stale(f"line {first.lines_before + int(moved[0]) + 1:,} is not where it was indexed")
    hits = []
    for row, piece in zip(rows.tolist(), pieces):
        line = piece[1:].removesuffix(b"\n")
        if b"\n" in line:
            raise Stale(f"line {first.lines_before + row + 1:,} is not where it was indexed")
        fields = line.split(None, 1)
        if fields and fields[0] in targets.words:
            hits.append((row, fields[0], line))
    kept = _Kept(targets, first.dim, display)
    try:
        kept.add(first.lines_before, hits)
        kept.flush()
    except InputError as err:
        raise Stale(f"a line it points to does not read as a word and {first.dim} numbers ({err})") from None
    return kept, len(rows)


def _read_at(fd: int, start: int, end: int) -> bytes:
    """The bytes from ``start`` to ``end``; from -1: a line end stands in for the byte before the file."""
    return os.pread(fd, end - start, start) if start >= 0 else b"\n" + os.pread(fd, end, 0)


def _misplaced(pieces: list[bytes], rows, starts, ends, keys, offset: int, n_lines: int, size: int) -> np.ndarray:
    """Rows of the lines (``pieces``: each after the byte before it) that are not whole, do not start
    after a line end (the first line: at ``offset``), do not end with one (the last line: at the end
    of the file), or do not begin with the key they were indexed by."""
    lengths = np.array([len(p) for p in pieces], dtype=np.int64)
    if not len(lengths):
        return rows
    data = np.frombuffer(b"".join(pieces), dtype=np.uint8)
    first = np.cumsum(lengths) - lengths + 1  # where each line begins in ``data``
    whole = lengths == ends - starts + 1
    begins = np.where(rows == 0, starts == offset, data[first - 1] == 10)
    closed = np.where(rows == n_lines - 1, ends == size, data[np.clip(first + lengths - 2, 0, len(data) - 1)] == 10)
    same = _line_keys(data, np.minimum(first, len(data) - 1)) == keys
    return rows[~(whole & begins & closed & same)]


def _head(source, display: str) -> bytes:
    try:
        return source.head()
    except Damaged as err:
        raise InputError(display, f"not a readable gzip file ({err})", row=1, expected="a complete gzip file") from None


def _read_body(source, first: _Header, targets: _Targets, report: LoadReport, want_mean, threads, log, store=None):
    """Every chunk's scan taken in file order: kept lines, the sum of every vector, the line count
    (and, with a line ``store``, every line's key and start given to it)."""
    display, dim, index = report.file, first.dim, store is not None
    # no sum before a chunk's lines are checked to have the header's number of values: a header
    # "2 10000000000" would otherwise take 74.5 GiB before line 2 is read
    kept, total, line_no = _Kept(targets, dim, display), None, first.lines_before
    progress, report.timings["scan"] = Progress(log), 0.0
    scans = _in_order(source, first.offset, lambda a: _scan_chunk(a, targets, dim, want_mean, index), threads)
    try:
        for end, scan in scans:
            kept.add(line_no, scan.hits)
            if scan.error is not None:
                kept.flush()  # a bad needed line before this one is reported first
                err = scan.error
                raise InputError(display, err.message, row=line_no + err.index + 1, expected=err.expected)
            if want_mean:
                if total is None:
                    total = scan.sums
                else:
                    total += scan.sums
            if index:
                store.add(scan.keys, scan.starts + (end - scan.size))
            line_no += scan.n_lines
            report.timings["scan"] += scan.seconds
            source.scanned(end)
            progress.update(lambda: _progress_line(display, source, line_no - first.lines_before, kept))
    except Damaged as err:
        raise InputError(
            display,
            f"the gzip data ends or breaks after line {line_no:,} ({err})",
            row=line_no + 1,
            expected="a complete gzip file (a download cut short?)",
        ) from None
    kept.flush()
    return kept, total, line_no - first.lines_before


def _progress_line(display: str, source, words: int, kept: _Kept) -> str:
    done, size = source.done, max(1, source.size)
    return (
        f"{display}: read {done / 2**20:,.0f} of {size / 2**20:,.0f} MB ({100 * done / size:.0f}%), "
        f"{words:,} words, {len(kept.vectors) + len(kept.pending):,} kept"
    )
