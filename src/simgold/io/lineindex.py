"""The line index of a text embedding file: a second read parses the needed lines only.

The first full scan of a plain word2vec or GloVe text file (``simgold.io.textvectors``) notes, for
every line, where it starts and the first 8 bytes of its word as one number. After a scan without
error they are written here, sorted by that number, with what else the read reports (the word
count, the dimension, where the first vector line starts, and the sum of every vector when the
scan computed it for ``oov: mean``). A later read of the same file finds the lines of the needed
words by binary search and reads only those lines (one positioned read each): a job rerun because
a dataset was added reads a 4 GiB file in a fraction of a second.

Where: ``line-index/`` in the vector store's directory (``$SIMGOLD_CACHE``, see
``simgold.io.vectorcache``; none when it is unset or ``off``), one file per embedding file and
format, written under a temporary name and renamed (jobs at once, a cluster's shared file
system). Deleting it is always safe: the next read scans the file and writes it again.

An index serves a read only when the file is the one that was indexed: the same resolved path,
size, modification time (in ns), inode and status-change time (like Snakemake, which reruns a rule
when an input's mtime changes; the status-change time cannot be set back by ``touch`` or
``os.utime``), and the same reader code. Each line read through it is checked to start after a
line end, to end with one where the index says, and to begin with the bytes recorded; its fields
are counted when it is parsed. Anything else, or an index file that does not read back as
written, is said in one log line, and the whole file is scanned (which writes a new index). A
gzip file is always scanned: its lines cannot be reached without decompressing all before them.
"""

from __future__ import annotations

import hashlib
import json
import os
import zlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from simgold.io.vectorcache import FILE_FIELDS, cache_root, file_identity, identity, write_atomically

__all__ = ["Stale", "LineStore", "code_version", "line_store"]

DIRECTORY = "line-index"
SUFFIX = ".lines"
LAYOUT = "simgold line index 1"  # how the file is laid out (a change of it is also a change of code)


class Stale(Exception):
    """The index cannot serve this read (the message says why); the file is scanned instead.

    Attributes
    ----------
    args : tuple
        The message: why the index cannot serve.
    """


@lru_cache(maxsize=1)
def code_version() -> str:
    """The hash of the code that writes and reads an index: a change of it makes old indexes stale.

    Returns
    -------
    str
        The hash.
    """
    here = Path(__file__).parent
    return hashlib.sha256(
        b"".join((here / name).read_bytes() for name in ("textvectors.py", "lineindex.py"))
    ).hexdigest()[:16]


@dataclass
class _LineIndex:
    """Every vector line of a file: ``keys`` (sorted) and the ``rows`` (0-based, in file order) they
    begin; ``bounds``: where each line starts, then the end of the file."""

    keys: np.ndarray
    rows: np.ndarray
    bounds: np.ndarray
    words: int
    total: np.ndarray | None  # the sum of every vector, when the scan computed it

    def candidates(self, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(rows in file order, their keys) of the lines that begin like a wanted key, and of those
        that begin with a blank (key 0; the scan looks at these too)."""
        lo = np.r_[0, np.searchsorted(self.keys, wanted, "left")]
        hi = np.r_[np.searchsorted(self.keys, np.uint64(0), "right"), np.searchsorted(self.keys, wanted, "right")]
        counts = hi - lo
        at = np.repeat(lo - np.cumsum(counts) + counts, counts) + np.arange(counts.sum())
        at = np.unique(at)  # sorted; once each, should 0 be a wanted key too
        order = np.argsort(self.rows[at], kind="stable")
        return self.rows[at][order], self.keys[at][order]


class LineStore:
    """The line index of one plain text file: read before a scan, collected during it, written after.

    Parameters
    ----------
    root : pathlib.Path
        The vector store's directory.
    path : pathlib.Path
        The text file.
    fh : file
        The file, open (its identity is taken from it).
    fmt : str
        The file's format.
    log : callable or None
        Where messages go (None: silent).
    """

    def __init__(self, root: Path, path: Path, fh, fmt: str, log=None):
        # the file mapped, even if the path is replaced meanwhile
        self.file_identity = file_identity(path, os.fstat(fh.fileno()))
        self.code = {"layout": LAYOUT, "format": fmt, "code": code_version()}
        self.file = Path(root) / DIRECTORY / (identity(self.file_identity["path"], fmt) + SUFFIX)
        self.log = log
        self.keys: list[np.ndarray] = []  # per chunk, while a full scan runs
        self.starts: list[np.ndarray] = []

    def say(self, message: str) -> None:
        if self.log:
            self.log(message)

    def add(self, keys: np.ndarray, starts: np.ndarray) -> None:
        """The keys and start offsets of the next chunk's lines (in file order)."""
        self.keys.append(keys)
        self.starts.append(starts.astype(np.int64))

    def load(self, dim: int, offset: int, lines_before: int, want_mean: bool) -> _LineIndex | None:
        """The index of this very file (None when there is none); raises ``Stale`` with the reason
        when there is one that cannot serve this read."""
        try:
            body = self.file.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as err:
            raise Stale(f"it cannot be read ({err})") from None
        try:
            meta, data = _parts(body)
            self._check_meta(meta, (dim, offset, lines_before), want_mean)
            return _arrays(meta, data)
        except (ValueError, KeyError, TypeError, AttributeError) as err:
            raise Stale(f"it does not read back as written ({err})") from None

    def _check_meta(self, meta: dict, header: tuple[int, int, int], want_mean: bool) -> None:
        if {k: meta["code"].get(k) for k in self.code} != self.code:
            raise Stale("it was written by another version of the reader")
        changed = [k for k in FILE_FIELDS if meta["file"].get(k) != self.file_identity[k]]
        if changed:
            raise Stale(f"the file changed since it was indexed ({', '.join(changed)} differ)")
        if tuple(meta["header"]) != header:
            raise Stale("the file's first line reads differently")
        if want_mean and not meta["has_total"]:
            raise Stale("it holds no sum of the vectors, which oov: mean needs")

    def save(self, dim: int, offset: int, lines_before: int, words: int, total: np.ndarray | None) -> None:
        """Write the index collected by a full scan without error (temporary name, then renamed)."""
        keys = np.concatenate(self.keys) if self.keys else np.zeros(0, np.uint64)
        starts = np.concatenate(self.starts) if self.starts else np.zeros(0, np.int64)
        order = _stable_order(keys)
        arrays = [
            keys[order].astype("<u8"),
            order.astype("<i8"),
            np.append(starts, self.file_identity["size"]).astype("<i8"),
        ]
        if total is not None:
            arrays.append(np.asarray(total, dtype="<f8"))
        data = b"".join(a.tobytes() for a in arrays)
        meta = {
            "code": self.code,
            "file": self.file_identity,
            "header": [dim, offset, lines_before],
            "words": words,
            "has_total": total is not None,
            "bytes": len(data),
            "crc32": zlib.crc32(data),
        }
        try:
            write_atomically(self.file, json.dumps(meta).encode() + b"\n" + data)
        except OSError as err:
            self.say(f"the line index could not be written to {self.file} ({err}); the next read scans the file again")
            return
        self.say(f"line index written to {self.file}: the next read of this file parses the needed lines only")


def _stable_order(keys: np.ndarray) -> np.ndarray:
    """``np.argsort(keys, kind="stable")``, the same rows in the same order, sorted faster: an unstable
    argsort, then each row by the rank of its key and its own number, as one int64."""
    n = len(keys)
    if n < 2 or n > 2**31:  # rank * n + row must fit in an int64
        return np.argsort(keys, kind="stable")
    order = np.argsort(keys)
    ordered = keys[order]
    rank = np.zeros(n, dtype=np.int64)
    np.cumsum(ordered[1:] != ordered[:-1], out=rank[1:])
    del ordered
    rank *= n
    rank += order
    rank.sort()
    rank %= n
    return rank


def _parts(body: bytes) -> tuple[dict, memoryview]:
    end = body.index(b"\n")
    meta, data = json.loads(body[:end]), memoryview(body)[end + 1 :]  # the arrays: not copied
    if len(data) != meta["bytes"] or zlib.crc32(data) != meta["crc32"]:
        raise ValueError("its checksum does not match: the file is damaged")
    return meta, data


def _arrays(meta: dict, data: memoryview) -> _LineIndex:
    n, dim = meta["words"], meta["header"][0]
    sizes = [n * 8, n * 8, (n + 1) * 8, dim * 8 if meta["has_total"] else 0]
    if sum(sizes) != len(data):
        raise ValueError(f"{len(data):,} bytes of arrays for {n:,} lines")
    ends = np.cumsum(sizes)
    keys, rows, bounds, total = (
        np.frombuffer(data, dtype=t, count=s // 8, offset=e - s)
        for t, s, e in zip(("<u8", "<i8", "<i8", "<f8"), sizes, ends)
    )
    return _LineIndex(keys, rows, bounds, n, total if meta["has_total"] else None)


def line_store(source, path, display: str, fmt: str, gzipped: bool, log=None) -> LineStore | None:
    """The line index of a text file being read (None without a vector store, or for gzip).

    Parameters
    ----------
    source : object
        Where the bytes come from (a mapped or a gzip file).
    path : pathlib.Path
        The text file.
    display : str
        Its name in messages.
    fmt : str
        Its format.
    gzipped : bool
        Whether it is gzip.
    log : callable or None
        Where messages go (None: silent).

    Returns
    -------
    LineStore or None
        The index.
    """
    root = cache_root()
    if root is None:
        return None
    if gzipped:
        if log:
            log(f"{display}: gzip, so no line index (a line cannot be reached without decompressing all before it)")
        return None
    return LineStore(root, Path(path), source.fh, fmt, log)
