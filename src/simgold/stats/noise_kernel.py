"""The noise check's inner loop, compiled (numba): draw a noisy copy of the word vectors, then its
words' squared norms and its items' dot products, with nothing else between them.

The draws are numpy's own: the kernel is handed the level's ``numpy.random.Generator`` (PCG64) and
calls its bit generator through the C interface numpy documents for numba (``BitGenerator.ctypes``:
``next_uint64``, ``next_uint32`` and the state's address, as in numpy's "Extending" examples). The
numbers are those of ``Generator(PCG64(stream)).random(n, dtype=np.float32)``, bit for bit, in any
pieces (tested): numpy's float32 draw is the top 24 bits of a 32-bit output times 2**-24, and its
32-bit step hands out a 64-bit output's lower half, then keeps the upper half for the next draw.
The kernel takes whole 64-bit outputs and uses both halves in that order; it takes a half numpy
holds first, and draws the very last element through numpy's 32-bit step so that numpy keeps the
other half, so numpy's and the kernel's draws interleave freely. numpy's generator takes a lock when
Python calls it; the kernel does not, so a generator must not be shared between threads
(noise_check gives each level its own).

What the draws cost, per float32 element: the Generator's own ``random(dtype=np.float32)`` called
from numba, one call into numpy per element, is the slowest; one call per two elements, as here,
is cheaper than numpy drawing a copy first into a buffer (``Generator.random(n, dtype=np.float32,
out=...)``) or than the bulk ``random_raw``. The copy of PCG64's arithmetic this module held before
drew faster still: the documented interface costs a 384-d check on WordSim-353 some more CPU than
that copy did, for numpy's own numbers (docs/benchmarks.md, section noise, times the whole check).

Sums run in float64 over eight partial sums in a fixed order, so a copy gives the same bits on any
machine and in any batch. That order is not numpy's einsum's: a cosine may move by about 1e-14,
below the 12 decimals at which noise_check ranks cosines, so the curves come out as before.

numba loads only when a kernel is first called (``compile_once`` or ``noisy_norms_dots``), so that
importing this module (``simgold.stages.noise`` does) stays cheap. Compiled once per machine
(``cache=True``: numba keeps the machine code beside this file, or in ``NUMBA_CACHE_DIR``).
``compile_once`` still earns its place: compiling is heavy, several times the cost of loading the
cache, and the workflow starts several noise jobs at once, which without the lock would each compile.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from pathlib import Path

import numpy as np

try:
    import fcntl
except ImportError:  # pragma: no cover - not on the platforms the workflow runs on (each job compiles)
    fcntl = None

__all__ = ["compile_once", "noisy_norms_dots"]

_ready = False
_compiling = threading.Lock()  # two threads must not wrap the kernel's functions at once


def _dot(x, y):
    """Sum of ``x * y`` (float64) over eight partial sums combined in a fixed order.

    Plain Python until ``_compiled_kernel`` compiles it (``njit(inline="always")``): the kernel
    calls it by this global name."""
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


def _noisy_norms_dots(vectors, first, second, level, next64, next32, state, buffered, norms, dots):
    n_words, dim = vectors.shape
    width, half = np.float32(2 * level), np.float32(level)
    scale = np.float32(1.0 / 16777216.0)  # numpy's float32 draw: the top 24 of 32 bits, times 2**-24
    low32, shift8, shift32, shift40 = np.uint64(0xFFFFFFFF), np.uint64(8), np.uint64(32), np.uint64(40)
    last = norms.shape[0] * n_words - 1  # the last word's index over all copies
    held, upper = False, np.uint64(0)  # the upper half of our last 64-bit output, not yet used
    draws = np.empty(dim, dtype=np.float32)  # a word's draws, apart from the arithmetic, which then vectorises
    noisy = np.empty((n_words, dim))
    for c in range(norms.shape[0]):
        for w in range(n_words):
            d = 0
            if dim and held:
                draws[0], held, d = np.float32(upper >> shift8) * scale, False, 1
            if d < dim and buffered:  # numpy holds an upper half: it comes first
                draws[d], buffered, d = np.float32(next32(state) >> 8) * scale, False, d + 1
            while d + 2 <= dim:  # two draws from a 64-bit output, its lower half first, as numpy's 32-bit step
                output = next64(state)
                draws[d] = np.float32((output & low32) >> shift8) * scale
                draws[d + 1] = np.float32(output >> shift40) * scale
                d += 2
            if d < dim:
                if c * n_words + w == last:  # numpy's 32-bit step keeps the other half for the next draw
                    draws[d] = np.float32(next32(state) >> 8) * scale
                else:
                    output = next64(state)
                    draws[d], upper, held = np.float32((output & low32) >> shift8) * scale, output >> shift32, True
            for d in range(dim):
                noisy[w, d] = np.float64(draws[d] * width - half + vectors[w, d])
            norms[c, w] = _dot(noisy[w], noisy[w])
        for p in range(first.shape[0]):
            dots[c, p] = _dot(noisy[first[p]], noisy[second[p]])


def _compiled_kernel():
    """numba's dispatcher of ``_noisy_norms_dots``, made on first use: the module's ``_dot`` and
    ``_noisy_norms_dots`` become their compiled selves (the kernel finds ``_dot`` as a global when
    numba compiles it), so numba loads only in a process that draws noise."""
    global _dot, _noisy_norms_dots
    with _compiling:
        if not hasattr(_noisy_norms_dots, "py_func"):
            from numba import njit  # heavy: numba (and LLVM), only in a job that draws noise

            _dot = njit(inline="always")(_dot)
            _noisy_norms_dots = njit(nogil=True, cache=True)(_noisy_norms_dots)
    return _noisy_norms_dots


def noisy_norms_dots(vectors, first, second, level, rng, norms, dots) -> None:
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
        A PCG64 generator, the stream the draws come from: they are its
        ``random(len(norms) * vectors.size, dtype=np.float32)``, bit for bit, and it advances as far.
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
    bits = rng.bit_generator
    if not isinstance(bits, np.random.PCG64):
        raise TypeError(f"the noise kernel draws from a PCG64 generator, not {type(bits).__name__}")
    pointers = bits.ctypes
    _compiled_kernel()(
        vectors,
        first,
        second,
        level,
        pointers.next_uint64,
        pointers.next_uint32,
        pointers.state_address,
        bool(bits.state["has_uint32"]),
        norms,
        dots,
    )


def compile_once() -> None:
    """Compile the kernel for the types noise_check passes, or load it from numba's cache, once per
    process. Jobs that start together on one machine take turns under a lock file in the temporary
    directory (one per user and installed copy), so the first compiles (heavy) and writes the cache,
    and the others load it (several times cheaper) instead of compiling too. The lock only saves
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
