"""Checking an unpacked paper-submission archive (``simgold verify``; ``simgold.report.archive``
writes it): it reads only inside the directory it checks and never follows a link.

    simgold verify <unpacked directory>

Every file against the MANIFEST, no file that the MANIFEST does not list, and every input left out
(supplied by a reader at the place EXTERNAL.tsv names) against its checksum.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path, PurePosixPath

from simgold.io.digests import sha256_file
from simgold.report.archive import EXTERNAL_HEADER, SCRATCH, WITHHELD_HEADER, archive_path, safe_member

__all__ = ["verify", "read_manifest", "read_external", "read_withheld", "archive_path_of"]


def _tree(directory: Path) -> tuple[dict[str, int], list[str], list[str], list[tuple[str, str]]]:
    """({regular file: size}, links, other non-regular files: FIFOs, devices, sockets, (folder, why)
    of the folders that cannot be listed) under ``directory``, relative, from ``lstat`` alone: nothing is
    followed or opened. Walked with a list of folders still to read, not by recursion, so that no
    depth of folders can exhaust the stack."""
    found, links, odd, problems = {}, [], [], []
    pending = [(directory, PurePosixPath())]
    while pending:
        top, rel_top = pending.pop()
        try:
            entries = list(os.scandir(top))
        except OSError as err:
            problems.append((f"{rel_top.as_posix()}/", err.strerror))
            continue
        for entry in entries:
            rel = rel_top / entry.name
            info = entry.stat(follow_symlinks=False)
            if stat.S_ISLNK(info.st_mode):
                links.append(rel.as_posix())
            elif stat.S_ISDIR(info.st_mode):
                if not (top == directory and entry.name == SCRATCH):  # rebuild's own working folder
                    pending.append((Path(entry.path), rel))
            elif stat.S_ISREG(info.st_mode):
                found[rel.as_posix()] = info.st_size
            else:
                odd.append(rel.as_posix())
    return dict(sorted(found.items())), sorted(links), sorted(odd), sorted(problems)


#: the largest MANIFEST or EXTERNAL.tsv read (a real one is a few hundred kilobytes)
MAX_TABLE_BYTES = 64 << 20


def _small_regular_file(path: Path) -> bool:
    """A regular file (not a link, FIFO or device) of at most MAX_TABLE_BYTES, by ``lstat``."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and info.st_size <= MAX_TABLE_BYTES


MANIFEST_LINE = re.compile(r"^([0-9a-f]{64})  (\d+)  (.+)$")


def _unsafe(rel: str) -> str:
    if PurePosixPath(rel).is_absolute() or re.match(r"^[A-Za-z]:[\\/]", rel):
        return "is an absolute path"
    if ".." in PurePosixPath(rel.replace("\\", "/")).parts:
        return "leaves the archive (a path with '..')"
    return "" if safe_member(rel) else "is not a plain relative path"


def read_manifest(directory: Path) -> tuple[dict[str, tuple[str, int]], list[str]]:
    """({path: (sha256, size)}, problems) of ``directory/MANIFEST``.

    Parameters
    ----------
    directory : Path
        The unpacked archive.

    Returns
    -------
    tuple[dict[str, tuple[str, int]], list[str]]
        (path -> (sha256 hex, size in bytes), problems): the lines that parse and are safe,
        and one message per refused line (or for a missing or empty MANIFEST).
    """
    path = directory / "MANIFEST"
    if not _small_regular_file(path):
        return {}, [
            "MANIFEST: missing, or not a regular file of at most 64 MiB; expected the MANIFEST of an unpacked "
            "simgold archive"
        ]
    lines = path.read_bytes().decode("utf-8", errors="replace").splitlines()
    if not any(line.strip() for line in lines):
        return {}, ["MANIFEST: empty; expected one line per file: <sha256>  <size>  <path>"]
    entries, problems = {}, []
    for number, line in enumerate(lines, 1):
        m = MANIFEST_LINE.match(line)
        if not m:
            problems.append(f"MANIFEST line {number}: {line[:80]!r} is not '<sha256>  <size>  <path>'")
            continue
        digest, size, rel = m.groups()
        if _unsafe(rel):
            problems.append(f"MANIFEST line {number}: {rel!r} {_unsafe(rel)}; refused")
        elif rel in entries:
            problems.append(f"MANIFEST line {number}: {rel!r} is listed twice")
        else:
            entries[rel] = (digest, int(size))
    return entries, problems


def read_external(directory: Path) -> tuple[list[dict], list[str]]:
    """(rows, problems) of ``inputs/EXTERNAL.tsv``.

    Parameters
    ----------
    directory : Path
        The unpacked archive.

    Returns
    -------
    tuple[list[dict], list[str]]
        (rows, problems): each valid line as column -> str (``EXTERNAL_HEADER``), and one
        message per bad line (or for a missing file or header).
    """
    name = "inputs/EXTERNAL.tsv"
    path = directory / name
    if not _small_regular_file(path):
        return [], [
            f"{name}: missing, or not a regular file of at most 64 MiB; expected the table of the archive's raw inputs"
        ]
    lines = path.read_bytes().decode("utf-8", errors="replace").splitlines()
    header = "\t".join(EXTERNAL_HEADER)
    if not lines or lines[0] != header:
        found = repr(lines[0][:80]) if lines else "nothing"
        return [], [f"{name}: line 1 is {found}; expected the header {header!r}"]
    rows, problems = [], []
    for number, line in enumerate(lines[1:], 2):
        fields = line.split("\t")
        where = f"{name} line {number}"
        if len(fields) != len(EXTERNAL_HEADER):
            problems.append(
                f"{where}: {len(fields)} fields, expected {len(EXTERNAL_HEADER)} ({', '.join(EXTERNAL_HEADER)})"
            )
            continue
        row = dict(zip(EXTERNAL_HEADER, fields))
        problem = _external_row_problem(row)
        if problem:
            problems.append(f"{where}, column {problem}")
        else:
            rows.append(row)
    return rows, problems


def _external_row_problem(row: dict) -> str:
    if not re.fullmatch(r"[0-9a-f]{64}", row["sha256"]):
        return f"sha256: {row['sha256'][:80]!r} is not a SHA-256 (64 hex digits)"
    if not row["size"].isdigit():
        return f"size: {row['size'][:80]!r} is not a number of bytes"
    if row["redistributed"] not in ("yes", "no"):
        return f"redistributed: {row['redistributed'][:80]!r}, expected yes or no"
    if _unsafe(row["archive_path"]):
        return f"archive_path: {row['archive_path'][:80]!r} {_unsafe(row['archive_path'])}; refused"
    expected = archive_path_of(row["path"])
    if expected is not None and expected != row["archive_path"]:
        # rebuild copies the archived file to `path`: a path that does not go with its archive_path
        # could write anywhere
        return (
            f"path: {row['path'][:80]!r} does not go with archive_path {row['archive_path'][:80]!r} "
            f"(it would be {expected[:80]!r}); refused"
        )
    return ""


def archive_path_of(path: str) -> str | None:
    """The archive path a configured input's path maps to (``archive_path``), from the path alone;
    None for a path rebuild never writes (``pkg:`` files and absolute paths are read in place).

    Parameters
    ----------
    path : str
        A configured input path, as the config spells it.

    Returns
    -------
    str | None
        The POSIX member path (``inputs/external/up/...`` for paths above the project); None for
        ``pkg:`` and absolute paths.
    """
    if path.startswith("pkg:") or PurePosixPath(path).is_absolute() or re.match(r"^[A-Za-z]:[\\/]", path):
        return None
    return archive_path(path, Path("."))  # a relative path maps by its spelling alone, as the archive mapped it


def verify(directory: Path) -> list[str]:
    """Problems found (empty: the archive is intact and every left-out input is in place).

    Parameters
    ----------
    directory : Path
        The unpacked archive.

    Returns
    -------
    list[str]
        One message per problem: missing, changed, unlisted or odd files, bad MANIFEST or
        EXTERNAL.tsv lines, withheld inputs not supplied as recorded.
    """
    directory = Path(directory)
    entries, problems = read_manifest(directory)
    if not entries:
        return problems
    found, links, odd, closed = _tree(directory)
    problems += [f"{folder}: a folder that cannot be listed ({why})" for folder, why in closed]
    problems += [f"{rel}: a link; an archive holds no links and verify does not follow them" for rel in links]
    problems += [f"{rel}: not a regular file (a FIFO, device or socket); verify does not open it" for rel in odd]
    for rel, (digest, size) in sorted(entries.items()):
        if rel not in found:  # one line per member: said already if odd, a link or in a closed folder
            if rel not in odd and rel not in links and not rel.startswith(tuple(folder for folder, _ in closed)):
                folder = os.path.isdir(directory / rel) and not os.path.islink(directory / rel)
                problems.append(f"{rel}: a folder where the MANIFEST lists a file" if folder else f"{rel}: missing")
            continue
        if found[rel] != size:  # the size first: a sparse or swapped file is never read whole
            problems.append(f"{rel}: {found[rel]:,} bytes, the MANIFEST says {size:,}")
        else:
            problems += _digest_problem(directory, rel, digest)
    rows, external_problems = read_external(directory) if "inputs/EXTERNAL.tsv" in entries else ([], [])
    problems += external_problems
    supplied = set()
    for row in rows:
        if row["redistributed"] == "no" and not row["path"].startswith("pkg:"):
            supplied.add(row["archive_path"])
            problems += _check_supplied(directory, row, found)
    unlisted = set(found) - set(entries) - supplied - {"MANIFEST"}
    problems += [f"{rel}: not in the MANIFEST" for rel in sorted(unlisted)]
    return problems


def _digest_problem(directory: Path, rel: str, digest: str) -> list[str]:
    """A file of the MANIFEST whose bytes are not the ones listed, or that cannot be read."""
    try:
        same = sha256_file(directory / rel) == digest
    except OSError as err:
        return [f"{rel}: cannot be read ({err.strerror})"]
    return [] if same else [f"{rel}: checksum does not match the MANIFEST"]


def _check_supplied(directory: Path, row: dict, found: dict[str, int]) -> list[str]:
    """A withheld input, supplied by the reader at its archive_path inside the directory."""
    rel = row["archive_path"]
    if rel not in found:
        source = row["source"] or "unknown"
        return [
            f"{rel}: not in the archive (not redistributable); supply {row['path']} there (sha256 {row['sha256']}; source: {source})"
        ]
    if found[rel] != int(row["size"]) or sha256_file(directory / rel) != row["sha256"]:
        return [f"{rel}: the supplied file differs from the one the results were made from (sha256 {row['sha256']})"]
    return []


def read_withheld(directory: Path) -> dict[str, tuple[str, int]]:
    """``{path: (sha256, size)}`` of the result files WITHHELD.tsv records (none in an older archive).

    Parameters
    ----------
    directory : Path
        The unpacked archive.

    Returns
    -------
    dict[str, tuple[str, int]]
        Result path -> (sha256 hex, size in bytes) of each well-formed row; {} without the file.
    """
    path = directory / "WITHHELD.tsv"
    if not _small_regular_file(path):
        return {}
    rows = {}
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines()[1:]:
        fields = line.split("\t")
        if len(fields) == len(WITHHELD_HEADER) and re.fullmatch(r"[0-9a-f]{64}", fields[1]) and fields[2].isdigit():
            rows[fields[0]] = (fields[1], int(fields[2]))
    return rows
