"""The noise check's inner loop, compiled (numba): draw a noisy copy of the word vectors, then its
words' squared norms and its items' dot products, with nothing else between them.

The draws are numpy's, to the bit: ``Generator(PCG64(stream)).random(dtype=float32)``, the stream
noise_check used when it drew with numpy (``default_rng(stream)``). PCG64 is a 128-bit linear
congruential generator; its state is kept here as two 64-bit halves, and four copies of it, one
step apart, advance four steps at a time so that the processor works on four independent chains
(the outputs come in the stream's own order). numpy fills a float32 array from the 64-bit outputs
a half at a time, low half first, keeping an unused upper half for the next call; ``fill_uniform``
does the same and keeps that half in the state array.

Sums run in float64 over eight partial sums in a fixed order, so a copy gives the same bits on any
machine and in any batch. That order is not numpy's einsum's: a cosine may move by about 1e-14,
below the 12 decimals at which noise_check ranks cosines, so the curves come out as before.
Compiled once per machine (``cache=True``: numba keeps the machine code beside this file, or in
``NUMBA_CACHE_DIR``); ``compile_once`` makes jobs that start together wait for one of them to
compile instead of each compiling.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

MULT_HI = np.uint64(2549297995355413924)  # PCG64's 128-bit multiplier (numpy's PCG_DEFAULT_MULTIPLIER_128)
MULT_LO = np.uint64(4865540595714422341)
LANES = 4  # fill_uniform's chains, written out as a, b, c, d
_MASK64 = (1 << 64) - 1
_ready = False


def pcg64_state(stream: np.random.SeedSequence) -> np.ndarray:
    """The state array the kernels advance: numpy's PCG64 seeded from ``stream``, as uint64 halves
    (state high, state low, increment high, increment low, buffered upper half: flag bit 63)."""
    state = np.random.PCG64(stream).state["state"]  # a new generator keeps no half
    s, inc = state["state"], state["inc"]
    return np.array([s >> 64, s & _MASK64, inc >> 64, inc & _MASK64, 0], dtype=np.uint64)


def lane_constants() -> np.ndarray:
    """(multiplier, increment factor) of ``LANES`` steps at once, as uint64 halves:
    ``s[n + L] = M**L * s[n] + inc * (1 + M + ... + M**(L - 1))`` modulo 2**128."""
    mult, modulus = int(MULT_HI) << 64 | int(MULT_LO), 1 << 128
    jump = pow(mult, LANES, modulus)
    factor = sum(pow(mult, j, modulus) for j in range(LANES)) % modulus
    return np.array([jump >> 64, jump & _MASK64, factor >> 64, factor & _MASK64], dtype=np.uint64)


@intrinsic
def _mulhi(typingctx, x, y):
    """The high 64 bits of the 128-bit product x * y (numba has no 128-bit integer; LLVM has)."""

    def codegen(context, builder, signature, args):
        wide = ir.IntType(128)
        product = builder.mul(builder.zext(args[0], wide), builder.zext(args[1], wide))
        return builder.trunc(builder.lshr(product, ir.Constant(wide, 64)), ir.IntType(64))

    return types.uint64(types.uint64, types.uint64), codegen


@njit(inline="always")
def _muladd128(ahi, alo, bhi, blo, chi, clo):
    """a * b + c modulo 2**128, on halves."""
    lo = alo * blo
    hi = _mulhi(alo, blo) + alo * bhi + ahi * blo
    low = lo + clo
    return hi + chi + (np.uint64(1) if low < lo else np.uint64(0)), low


@njit(inline="always")
def _output(shi, slo):
    """PCG64's output of a state (XSL-RR: xor the halves, rotate by the top six bits)."""
    x = shi ^ slo
    rot = shi >> np.uint64(58)
    return (x >> rot) | (x << ((np.uint64(64) - rot) & np.uint64(63)))


@njit(inline="always")
def _float(bits):
    """numpy's float32 of 32 random bits: the top 24 bits, times 2**-24 (through a signed integer,
    which converts in one instruction; 24 bits fit either way)."""
    return np.float32(np.int64(bits >> np.uint64(8))) * np.float32(1.0 / 16777216.0)


@njit(nogil=True, cache=True)
def fill_uniform(state, jump, out):
    """``out[:]`` = the next ``len(out)`` float32 draws of the stream, advancing ``state``."""
    shi, slo, ihi, ilo = state[0], state[1], state[2], state[3]
    low32 = np.uint64(0xFFFFFFFF)
    n, i = out.shape[0], 0
    if n and state[4] >> np.uint64(63):  # the upper half the previous call left
        out[0] = _float(state[4] & low32)
        state[4] = np.uint64(0)
        i = 1
    rounds = (n - i) // (2 * LANES)
    if rounds:
        fhi, flo = _muladd128(ihi, ilo, jump[2], jump[3], np.uint64(0), np.uint64(0))
        ahi, alo = _muladd128(shi, slo, MULT_HI, MULT_LO, ihi, ilo)  # the next four states
        bhi, blo = _muladd128(ahi, alo, MULT_HI, MULT_LO, ihi, ilo)
        chi, clo = _muladd128(bhi, blo, MULT_HI, MULT_LO, ihi, ilo)
        dhi, dlo = _muladd128(chi, clo, MULT_HI, MULT_LO, ihi, ilo)
        for r in range(rounds):
            k = i + 2 * LANES * r
            x = _output(ahi, alo)
            out[k], out[k + 1] = _float(x & low32), _float(x >> np.uint64(32))
            x = _output(bhi, blo)
            out[k + 2], out[k + 3] = _float(x & low32), _float(x >> np.uint64(32))
            x = _output(chi, clo)
            out[k + 4], out[k + 5] = _float(x & low32), _float(x >> np.uint64(32))
            x = _output(dhi, dlo)
            out[k + 6], out[k + 7] = _float(x & low32), _float(x >> np.uint64(32))
            shi, slo = dhi, dlo  # the last state used
            ahi, alo = _muladd128(ahi, alo, jump[0], jump[1], fhi, flo)
            bhi, blo = _muladd128(bhi, blo, jump[0], jump[1], fhi, flo)
            chi, clo = _muladd128(chi, clo, jump[0], jump[1], fhi, flo)
            dhi, dlo = _muladd128(dhi, dlo, jump[0], jump[1], fhi, flo)
        i += 2 * LANES * rounds
    while i < n:  # the tail, one step at a time
        shi, slo = _muladd128(shi, slo, MULT_HI, MULT_LO, ihi, ilo)
        x = _output(shi, slo)
        out[i] = _float(x & low32)
        if i + 1 < n:
            out[i + 1] = _float(x >> np.uint64(32))
        else:
            state[4] = np.uint64(1) << np.uint64(63) | (x >> np.uint64(32))
        i += 2
    state[0], state[1] = shi, slo


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
def noisy_norms_dots(vectors, first, second, level, state, jump, norms, dots):
    """For each of ``len(norms)`` noisy copies (``U(-level, level)`` added to every element of the
    float32 ``vectors``, drawn from ``state``): the words' squared norms into ``norms[c]`` and the
    items' dot products (words ``first[p]``, ``second[p]``) into ``dots[c]``. The noisy element is
    ``draw * 2 level - level + vector`` in float32, as numpy computed it, and is kept as a float64
    (exactly) for the sums."""
    n_words, dim = vectors.shape
    width, half = np.float32(2 * level), np.float32(level)
    draws = np.empty(dim, dtype=np.float32)  # a word's draws: they stay in the fastest cache
    noisy = np.empty((n_words, dim))
    for c in range(norms.shape[0]):
        for w in range(n_words):
            fill_uniform(state, jump, draws)
            for d in range(dim):
                noisy[w, d] = np.float64(draws[d] * width - half + vectors[w, d])
            norms[c, w] = _dot(noisy[w], noisy[w])
        for p in range(first.shape[0]):
            dots[c, p] = _dot(noisy[first[p]], noisy[second[p]])


def compile_once() -> None:
    """Compile the kernel for the types noise_check passes, or load it from numba's cache, once per
    process. Jobs that start together on one machine take turns under a lock file in the temporary
    directory (one per user and installed copy), so the first compiles (about 3 s of CPU) and writes
    the cache, and the others load it (about 0.5 s) instead of compiling too. The lock only saves
    time: where it cannot be had (no ``fcntl``, a temporary directory that is not writable or does
    not lock, a separate one per job), each job compiles, with the same results."""
    global _ready
    if _ready:
        return
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on the platforms the workflow runs on
        fcntl = None
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
            pcg64_state(np.random.SeedSequence(0)),
            lane_constants(),
            np.empty((1, 1)),
            np.empty((1, 1)),
        )
    finally:
        if lock is not None:
            lock.close()
    _ready = True
