"""The noise check's inner loop, compiled (numba): draw a noisy copy of the word vectors, then its
words' squared norms and its items' dot products, with nothing else between them.

The draws are numpy's own: the kernel is handed the level's ``numpy.random.Generator`` (PCG64) and
calls its ``random(dtype=np.float32)`` once per element, which numba compiles into a call to numpy's
bit generator through its C interface (``BitGenerator.ctypes``). So the numbers are those of
``Generator(PCG64(stream)).random(n, dtype=np.float32)``, bit for bit, in any pieces: numpy keeps
the unused upper half of a 64-bit output in the bit generator for the next draw, here or in numpy.
numpy's generator takes a lock when Python calls it; the kernel does not, so a generator must not
be shared between threads (noise_check gives each level its own). Each draw is a call into numpy's
one-step PCG64 (about 1.7 ns), most of a 384-d check's time; drawing a copy with numpy first and
handing the kernel the buffer (``Generator.random(n, dtype=np.float32, out=...)``) costs more, and
so does taking the bit generator's outputs in bulk (``random_raw``: 3.6-5.3 ns per 64-bit output
measured here, against 1.7 ns per float32 draw from the kernel). The replica of PCG64 this replaced
drew at about 0.9 ns: a 384-d check on WordSim-353 now costs about 15 s of CPU instead of 9.5 s.

Sums run in float64 over eight partial sums in a fixed order, so a copy gives the same bits on any
machine and in any batch. That order is not numpy's einsum's: a cosine may move by about 1e-14,
below the 12 decimals at which noise_check ranks cosines, so the curves come out as before.
Compiled once per machine (``cache=True``: numba keeps the machine code beside this file, or in
``NUMBA_CACHE_DIR``). ``compile_once`` still earns its place: compiling costs about 1.5 s of CPU and
loading the cache about 0.4 s, and the workflow starts several noise jobs at once, which without
the lock would each compile.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

import numpy as np
from numba import njit

try:
    import fcntl
except ImportError:  # pragma: no cover - not on the platforms the workflow runs on (each job compiles)
    fcntl = None

_ready = False


@njit(inline="always")
def _dot(x, y):
    """Sum of ``x * y`` (float64) over eight partial sums combined in a fixed order."""
    n = x.shape[0]
    a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = 0.0
    k = 0
    while k + 8 <= n:
        a0 += x[k] * y[k]
        a1 += x[k + 1] * y[k + 1]
        a2 += x[k + 2] * y[k + 2]
        a3 += x[k + 3] * y[k + 3]
        a4 += x[k + 4] * y[k + 4]
        a5 += x[k + 5] * y[k + 5]
        a6 += x[k + 6] * y[k + 6]
        a7 += x[k + 7] * y[k + 7]
        k += 8
    while k < n:
        a0 += x[k] * y[k]
        k += 1
    return ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7))


@njit(nogil=True, cache=True)
def noisy_norms_dots(vectors, first, second, level, rng, norms, dots):
    """Squared norms and dot products of ``len(norms)`` noisy copies of ``vectors``.

    Each copy adds ``U(-level, level)`` to every element of the float32 ``vectors``, drawn from
    ``rng``, row by row: the noisy element is ``draw * 2 level - level + vector`` in float32, as
    numpy computes it, kept as a float64 (exactly) for the sums.

    Parameters
    ----------
    vectors : numpy.ndarray
        The words' vectors, float32, C-ordered, (words, dim).
    first, second : numpy.ndarray
        int64 row indices of each item's two words (not bounds-checked).
    level : float
        The noise's half-width.
    rng : numpy.random.Generator
        The stream the draws come from (``rng.random(dtype=np.float32)``, one per element); it
        advances by ``len(norms) * vectors.size`` draws.
    norms, dots : numpy.ndarray
        float64 outputs, (copies, words) and (copies, items): ``norms[c, w]`` the squared norm of
        word ``w`` in copy ``c``, ``dots[c, p]`` the dot product of item ``p``'s words.

    Examples
    --------
    >>> import numpy as np
    >>> vectors = np.ones((2, 3), dtype=np.float32)
    >>> norms, dots = np.empty((1, 2)), np.empty((1, 1))
    >>> index = np.zeros(1, dtype=np.int64)
    >>> noisy_norms_dots(vectors, index, index + 1, 0.0, np.random.default_rng(0), norms, dots)
    >>> norms.tolist(), dots.tolist()
    ([[3.0, 3.0]], [[3.0]])
    """
    n_words, dim = vectors.shape
    width, half = np.float32(2 * level), np.float32(level)
    draws = np.empty(dim, dtype=np.float32)  # a word's draws, apart from the arithmetic, which then vectorises
    noisy = np.empty((n_words, dim))
    for c in range(norms.shape[0]):
        for w in range(n_words):
            for d in range(dim):
                draws[d] = rng.random(dtype=np.float32)
            for d in range(dim):
                noisy[w, d] = np.float64(draws[d] * width - half + vectors[w, d])
            norms[c, w] = _dot(noisy[w], noisy[w])
        for p in range(first.shape[0]):
            dots[c, p] = _dot(noisy[first[p]], noisy[second[p]])


def compile_once() -> None:
    """Compile the kernel for the types noise_check passes, or load it from numba's cache, once per
    process. Jobs that start together on one machine take turns under a lock file in the temporary
    directory (one per user and installed copy), so the first compiles (about 1.5 s of CPU) and writes
    the cache, and the others load it (about 0.4 s) instead of compiling too. The lock only saves
    time: where it cannot be had (no ``fcntl``, a temporary directory that is not writable or does
    not lock, a separate one per job), each job compiles, with the same results."""
    global _ready
    if _ready:
        return
    name = hashlib.sha256(f"{getattr(os, 'getuid', lambda: '')()} {Path(__file__).resolve()}".encode()).hexdigest()
    lock = None
    try:
        lock = open(Path(tempfile.gettempdir()) / f"simgold-noise-kernel-{name[:16]}.lock", "a")
        if fcntl:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or the process ends
    except OSError:
        pass  # no lock: this job compiles (or loads) on its own
    try:
        index = np.zeros(1, dtype=np.int64)
        noisy_norms_dots(
            np.zeros((1, 1), dtype=np.float32),
            index,
            index,
            0.0,
            np.random.default_rng(0),  # any Generator: numba gives them all one type
            np.empty((1, 1)),
            np.empty((1, 1)),
        )
    finally:
        if lock is not None:
            lock.close()
    _ready = True
