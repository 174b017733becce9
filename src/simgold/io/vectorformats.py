"""An embedding file's format, from its first bytes: what ``format: auto`` resolves to, and the
check of a declared format. NumPy-free, so that the config check can name a file's format without
loading the readers (``simgold.io.embeddings``).

A ``.gz`` file is looked at decompressed; the gzip stream (:class:`GzipStream`) is the one the
text-vector reader (``simgold.io.textvectors``) cuts into chunks.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

from simgold.errors import InputError

__all__ = ["BOM", "FASTTEXT_MAGIC", "Damaged", "GzipStream", "detect_format", "_gzip_head"]

#: the UTF-8 byte-order mark
BOM = b"\xef\xbb\xbf"
#: the first four bytes of a fastText ``.bin`` file, as a little-endian int32
FASTTEXT_MAGIC = 793712314
_SNIFF = 1 << 16  # the bytes of a file's start its format is named from
_GZIP_HEAD = 1 << 20  # decompressed bytes a gzip file's head holds (as many as the text reader searches)
_GZIP_BLOCK = 1 << 21  # compressed bytes read at a time


class Damaged(Exception):
    """The gzip stream cannot be decompressed further.

    Parameters
    ----------
    *args : str
        What broke.
    """


class GzipStream:
    """A gzip file, decompressed in blocks (several members one after another, zero padding after
    the last); a stream that ends before its end marker or that cannot be decompressed raises
    :class:`Damaged`.

    Parameters
    ----------
    path : pathlib.Path
        The gzip file.
    block : int
        Compressed bytes read at a time.
    head_size : int
        Decompressed bytes :meth:`head` gathers.

    Attributes
    ----------
    buffer : bytes
        The decompressed bytes gathered by :meth:`head`.
    broken : Damaged or None
        The error found while reading the head, raised when more is asked for.
    """

    def __init__(self, path: Path, block: int = _GZIP_BLOCK, head_size: int = _GZIP_HEAD):
        self.fh = open(path, "rb")
        self.size = Path(path).stat().st_size
        self.block, self.head_size = block, head_size
        self.inflate = zlib.decompressobj(wbits=31)
        self.buffer = b""
        self.done = 0
        self.broken: Damaged | None = None  # found while reading the head; raised when more is needed

    def more(self) -> bytes:
        """The next decompressed block; b"" at the end of a complete stream.

        Returns
        -------
        bytes
            The block (empty at the end).
        """
        if self.broken is not None:
            raise self.broken
        while True:
            raw = self.fh.read(self.block)
            try:
                out = self.inflate.decompress(raw)
                if self.inflate.eof and self.inflate.unused_data:  # another gzip member follows
                    out += self._next_member(self.inflate.unused_data)
            except zlib.error as err:
                raise Damaged(str(err)) from None
            if out:
                return out
            if not raw:
                if not self.inflate.eof:
                    raise Damaged("the compressed data ends before its end marker")
                return b""

    def _next_member(self, data: bytes) -> bytes:
        if not data.strip(b"\0"):  # zero padding after the last member
            return b""
        self.inflate = zlib.decompressobj(wbits=31)
        return self.inflate.decompress(data)

    def head(self) -> bytes:
        """The first decompressed bytes (those there are, if the stream breaks early).

        Returns
        -------
        bytes
            At most ``head_size`` bytes.
        """
        try:
            while len(self.buffer) < self.head_size:
                block = self.more()
                if not block:
                    break
                self.buffer += block
        except Damaged as err:
            if not self.buffer:
                raise
            self.broken = err
        return self.buffer[: self.head_size]

    def close(self) -> None:
        """Close the file."""
        self.fh.close()


def _gzip_head(path: Path) -> bytes:
    """The first decompressed bytes of a gzip file (raises ``Damaged``).

    Parameters
    ----------
    path : pathlib.Path
        The gzip file.

    Returns
    -------
    bytes
        Its first decompressed bytes.
    """
    source = GzipStream(path)
    try:
        return source.head()
    finally:
        source.close()


def detect_format(path: str | Path, declared: str = "auto", display: str | None = None) -> str:
    """The file's format; checks a declared one against the file's first bytes.

    Parameters
    ----------
    path : str or pathlib.Path
        The embedding file.
    declared : str
        The configured format (``auto``: whatever the file looks like).
    display : str, optional
        The file's name in messages (default: the path).

    Returns
    -------
    str
        The format's name (a key of ``simgold.io.models.FORMATS``, or what else the file looks like).
    """
    path = Path(path)
    display = display or str(path)
    head = _first_bytes(path, display)
    looks = _looks_like(head, path.name.lower())
    if declared == "auto":
        return looks
    if declared != looks:
        raise InputError(
            display,
            f"declared format {declared!r}, but the file looks like {looks}",
            row=1,
            expected=f"format: {looks}",
        )
    return declared


def _first_bytes(path: Path, display: str) -> bytes:
    """The file's first bytes (decompressed when it is gzip); refuses UTF-16 and broken gzip."""
    with open(path, "rb") as fh:
        head = fh.read(_SNIFF)
    if not head:
        raise InputError(display, "the embedding file is empty")
    if head[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise InputError(
            display,
            "the file is UTF-16 text",
            row=1,
            expected="UTF-8 (convert it, e.g. iconv -f UTF-16 -t UTF-8)",
        )
    if head[:2] != b"\x1f\x8b":
        return head
    try:
        return _gzip_head(path)[:_SNIFF]
    except Damaged as err:
        raise InputError(display, f"not a readable gzip file ({err})", row=1, expected="a complete gzip file") from None


def _looks_like(head: bytes, name: str) -> str:
    if len(head) >= 4 and struct.unpack("<i", head[:4])[0] == FASTTEXT_MAGIC:
        return "fasttext-bin"
    if head[:1] == b"\x80" or name.endswith((".kv", ".model")):  # a pickle (gensim KeyedVectors)
        return "gensim-kv"
    first, _, rest = head.removeprefix(BOM).partition(b"\n")
    fields = first.split()
    if len(fields) == 2 and all(f.isdigit() for f in fields):
        return "word2vec-binary" if _is_binary(rest[:4096]) else "word2vec-text"
    if _is_binary(head[:4096]):
        return "unknown binary data"
    return "glove-text"


def _is_binary(data: bytes) -> bool:
    """Whether a sample is binary vectors rather than text: it is not UTF-8 (a character cut at its
    end aside), or over 1% of it (and more than 2) is control characters (float32 zeros are NULs; a text file with a
    stray NUL in a word is still text, and its word simply matches no dataset word)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        if err.start < len(data) - 4:
            return True
        text = data[: err.start].decode("utf-8")
    controls = sum(1 for c in text if c < " " and c not in "\t\n\r")
    return controls > 2 and controls * 100 > len(text)
