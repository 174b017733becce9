"""The SHA-256 of inputs and outputs, and the provenance written with every table (docs/methods.md
section 10): no timestamps, no host names. A big input's digest is remembered in the vector store
under the file's identity, and a job's inputs are hashed on a thread of their own while it works.
"""

from __future__ import annotations

import hashlib
import json
import os
from concurrent.futures import Future, ThreadPoolExecutor
from importlib import metadata
from pathlib import Path

from simgold.io.vectorcache import cache_root, file_identity, identity, write_atomically

__all__ = [
    "SCHEMA_VERSION",
    "BIG_INPUT",
    "DIGESTS",
    "LIBRARIES",
    "sha256_bytes",
    "sha256_file",
    "input_sha256",
    "hash_in_background",
    "reads_large_input",
    "finish_digests",
    "input_digest",
    "provenance",
    "package_version",
]

#: the version of the canonical tables' layout, written into every provenance
SCHEMA_VERSION = "1"


def sha256_bytes(data: bytes) -> str:
    """The SHA-256 of bytes in memory, as hex (``sha256_file`` for a file).

    Parameters
    ----------
    data : bytes
        The bytes.

    Returns
    -------
    str
        The hex digest.
    """
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: str | Path) -> str:
    """The SHA-256 of a file, read in blocks, as hex.

    Parameters
    ----------
    path : str or pathlib.Path
        The file.

    Returns
    -------
    str
        The hex digest.
    """
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


BIG_INPUT = 16 << 20  # inputs from this size have their SHA-256 remembered in the vector store
DIGESTS = "digests"  # ... in this directory of it


def input_sha256(path: str | Path) -> str:
    """The SHA-256 of an input, remembered in the vector store (``$SIMGOLD_CACHE``, which workflow jobs
    have) for files of ``BIG_INPUT`` bytes or more, under the file's identity (path, size, mtime, inode,
    status-change time): a rerun of the embeddings job on an unchanged 4 GiB file does not read it all
    again for its provenance. Without a store, or for a changed file, it is computed (and noted).

    Parameters
    ----------
    path : str or pathlib.Path
        The input.

    Returns
    -------
    str
        The hex digest.
    """
    note = _note(path)
    if note is None:
        return sha256_file(path)
    known = _remembered(*note)
    if known is not None:
        return known
    digest = sha256_file(path)
    try:
        write_atomically(note[0], json.dumps({"file": note[1], "sha256": digest}).encode())
    except OSError:
        pass  # a read-only store: the digest is right, the next run computes it again
    return digest


def _note(path) -> tuple[Path, dict] | None:
    """Where the store keeps a big input's digest, and the file's identity it is kept under; None
    without a store or for a file under ``BIG_INPUT`` bytes (hashed each time: it is quick)."""
    root, st = cache_root(), os.stat(path)
    if root is None or st.st_size < BIG_INPUT:
        return None
    seen = file_identity(path, st)
    return Path(root) / DIGESTS / (identity(seen["path"]) + ".json"), seen


def _remembered(note: Path, seen: dict) -> str | None:
    """The digest the store keeps for this very file (the same identity), or None."""
    try:
        kept = json.loads(note.read_text(encoding="utf-8"))
        if kept["file"] == seen and len(kept["sha256"]) == 64:
            return kept["sha256"]
    except (OSError, ValueError, KeyError, TypeError):
        pass  # none yet, or not as written
    return None


_digests: dict[str, Future] = {}  # path -> its SHA-256 being computed (hash_in_background)
_reading: set[str] = set()  # of those, the inputs of BIG_INPUT bytes or more read in full (none remembered)


def hash_in_background(paths) -> None:
    """Start computing the SHA-256 of ``paths`` on one thread while the job works: hashlib releases
    the GIL, so an input read by the job (a 4 GiB embedding file scanned for its needed words) is
    hashed for its provenance at the same time rather than read a second time afterwards.
    ``provenance`` takes the digests from here; the files are inputs and do not change meanwhile.
    A big input whose digest the store remembers (``input_sha256``) is not read at all; one that is
    read keeps the thread busy about as long as the job's own read (``reads_large_input``).

    Parameters
    ----------
    paths : iterable of str or pathlib.Path
        The inputs.
    """
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sha256")
    for path in sorted({str(p) for p in paths}, key=lambda p: -os.path.getsize(p) if os.path.isfile(p) else 0):
        if path in _digests:
            continue
        big = os.path.isfile(path) and os.path.getsize(path) >= BIG_INPUT
        note = _note(path) if big else None
        known = _remembered(*note) if note is not None else None
        if known is None:
            _digests[path] = pool.submit(input_sha256, path)
            if big:
                _reading.add(path)
        else:
            _digests[path] = Future()
            _digests[path].set_result(known)
    pool.shutdown(wait=False)


def reads_large_input() -> bool:
    """Whether ``hash_in_background`` reads an input of ``BIG_INPUT`` bytes or more in full (one whose
    digest the store does not remember): its thread is then busy about as long as the job's own read
    of that file, and a job's own work gets one thread less while it is.

    Returns
    -------
    bool
        True once such a read was started in this process.
    """
    return bool(_reading)


def finish_digests() -> None:
    """Wait for the background digests (a process that ends at once would cut them short)."""
    for future in list(_digests.values()):
        future.exception()


def input_digest(path: str | Path) -> str:
    """The SHA-256 of an input: from the background hashing when it was started, else computed now.

    Parameters
    ----------
    path : str or pathlib.Path
        The input.

    Returns
    -------
    str
        The hex digest.
    """
    future = _digests.get(str(path))
    return future.result() if future is not None else input_sha256(path)


LIBRARIES = ("simgold", "pandas", "pyarrow", "numpy", "scipy")


def provenance(rule: str, wildcards: dict, params: dict, inputs: dict[str, str] | list[str]) -> dict:
    """Provenance for Parquet metadata (docs/methods.md section 10): no timestamps, no host names.

    ``inputs`` maps a label (the path as configured, never an absolute host path) to the file to hash.

    Parameters
    ----------
    rule : str
        The rule.
    wildcards : dict
        The job's wildcards.
    params : dict
        Its parameters.
    inputs : dict or list
        Its input files.

    Returns
    -------
    dict
        The provenance.
    """
    if not isinstance(inputs, dict):
        inputs = {str(p): str(p) for p in inputs}
    return {
        "schema_version": SCHEMA_VERSION,
        "rule": rule,
        "wildcards": dict(sorted(wildcards.items())),
        "params": params,
        "inputs": {label: input_digest(inputs[label]) for label in sorted(inputs)},
        "versions": {lib: package_version(lib) for lib in LIBRARIES},
    }


def package_version(lib: str) -> str:
    """The installed version of a distribution ("unknown" when it is not installed).

    Parameters
    ----------
    lib : str
        The distribution's name.

    Returns
    -------
    str
        Its version.
    """
    try:
        return metadata.version(lib)
    except metadata.PackageNotFoundError:
        return "unknown"
