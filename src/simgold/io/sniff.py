"""What a file is, from its first bytes: the kinds that are mistaken for a text table or a
spreadsheet (a compressed download, a spreadsheet saved with a password, a UTF-16 export without
its byte order mark, a directory), so that an error names the kind before any guess about an
encoding or a sheet.

Examples
--------
>>> file_kind(b"\\x1f\\x8b\\x08\\x00")
'gzip'
>>> file_kind("cat,dog,5\\n".encode("utf-16-le"))
'utf-16-le'
>>> file_kind(b"cat,dog,5\\n") is None
True
>>> KINDS["ole2"]
'an OLE2 compound file (an old binary .xls, or a workbook saved with a password)'
"""

from __future__ import annotations

import codecs
from pathlib import Path

__all__ = ["KINDS", "BOMS", "file_kind", "read_head", "path_problem"]

#: what each kind is, as an error message says it
KINDS = {
    "directory": "a directory, not a file",
    "gzip": "a gzip-compressed file",
    "zip": "a zip container (an XLSX or ODS spreadsheet, or a zip archive)",
    "ole2": "an OLE2 compound file (an old binary .xls, or a workbook saved with a password)",
    "utf-32-le": "UTF-32 text (little-endian)",
    "utf-32-be": "UTF-32 text (big-endian)",
    "utf-16-le": "UTF-16 text (little-endian)",
    "utf-16-be": "UTF-16 text (big-endian)",
}
_MAGIC = {"gzip": b"\x1f\x8b", "zip": b"PK\x03\x04", "ole2": bytes.fromhex("d0cf11e0a1b11ae1")}
#: each text kind's byte order mark: a BOM says the encoding outright; UTF-32's little-endian BOM starts with UTF-16's, so it goes first
BOMS = {
    "utf-32-le": codecs.BOM_UTF32_LE,
    "utf-32-be": codecs.BOM_UTF32_BE,
    "utf-16-le": codecs.BOM_UTF16_LE,
    "utf-16-be": codecs.BOM_UTF16_BE,
}
SNIFF_BYTES = 4096  # enough to see the NUL pattern of UTF-16/32 text


def file_kind(head: bytes) -> str | None:
    """The kind (a key of ``KINDS``) of a file that starts with ``head``, or None for a plain
    text file in an 8-bit encoding or UTF-8 (or one whose kind cannot be seen).

    UTF-16 and UTF-32 without a byte order mark are recognised by their NUL bytes: ASCII text
    (digits, separators, Latin words) in them has a NUL in every other (UTF-16) or in three of
    every four (UTF-32) byte positions, which 8-bit and UTF-8 text never has.

    Parameters
    ----------
    head : bytes
        The file's first bytes.

    Returns
    -------
    str or None
        The kind.
    """
    for kind, magic in _MAGIC.items():
        if head.startswith(magic):
            return kind
    for kind, bom in BOMS.items():
        if head.startswith(bom):
            return kind
    head = head[:SNIFF_BYTES]
    if len(head) < 4 or head.count(0) < len(head) // 4:
        return None
    quads = len(head) // 4 * 4
    nul = [sum(1 for b in head[k:quads:4] if b == 0) / (quads // 4) for k in range(4)]
    if min(nul[1:]) > 0.9:
        return "utf-32-le"
    if min(nul[:3]) > 0.9:
        return "utf-32-be"
    odd, even = (nul[1] + nul[3]) / 2, (nul[0] + nul[2]) / 2
    if odd > 0.4 and even < 0.05:
        return "utf-16-le"
    if even > 0.4 and odd < 0.05:
        return "utf-16-be"
    return None


def read_head(path: Path) -> bytes:
    """The first bytes of a file, enough for :func:`file_kind`.

    Parameters
    ----------
    path : pathlib.Path
        The file.

    Returns
    -------
    bytes
        Its first bytes.
    """
    with path.open("rb") as handle:
        return handle.read(SNIFF_BYTES)


def path_problem(path: Path) -> str | None:
    """Why ``path`` cannot be read as a data file: it does not exist, it is a directory, or it is
    not a regular file (a FIFO or a device would block or never end); None when it can.

    Parameters
    ----------
    path : pathlib.Path
        A configured file.

    Returns
    -------
    str or None
        The problem, or None.
    """
    if path.is_dir():
        return f"is {KINDS['directory']}"
    if not path.exists():
        return f"does not exist (looked for {path})"
    if not path.is_file():
        return "is not a regular file (a FIFO, a socket or a device)"
    return None
