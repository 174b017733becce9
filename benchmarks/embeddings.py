"""Benchmark of the model-scoring path on a large embedding file (not a test; prints timings).

    python benchmarks/embeddings.py [--words 200000] [--dim 300] [--file /tmp/simgold-bench.vec]

Writes (once) a synthetic word2vec text file of N words x D dimensions (about 0.5 GB for the
defaults) that contains every word of WordSim-353 and SimLex-999 (gensim's copies), then prints, in
one run:

* ours: load the needed words in one streaming pass and score WordSim-353 and SimLex-999
  (Spearman, Pearson, Kendall; once without and once with the 1000-resample bootstrap CIs), in a
  child process, with its peak resident memory; the same on a file of half the vocabulary, to show
  that the peak does not grow with the vocabulary;
* gensim: KeyedVectors.load_word2vec_format + evaluate_word_pairs on both datasets;
* wc -l on the same file (the time to read it once).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import resource
import subprocess
import time
from pathlib import Path

import numpy as np
import pandas as pd
from gensim.test.utils import datapath

DATASETS = ("wordsim353.tsv", "simlex999.txt")


def dataset_pairs(name: str) -> pd.DataFrame:
    rows = [
        line.rstrip("\n").split("\t") for line in open(datapath(name), encoding="utf-8") if not line.startswith("#")
    ]
    return pd.DataFrame(
        {
            "item_id": [f"{name}:{k}" for k in range(len(rows))],
            "word1": [r[0] for r in rows],
            "word2": [r[1] for r in rows],
            "mean": [float(r[2]) for r in rows],
        }
    )


def write_file(path: Path, n_words: int, dim: int, seed: int = 0) -> None:
    words = sorted({w.lower() for name in DATASETS for col in ("word1", "word2") for w in dataset_pairs(name)[col]})
    words += [f"w{k:07d}" for k in range(n_words - len(words))]
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(words))  # the needed words spread through the file
    table = np.array([f"{v:.4f}" for v in np.linspace(-1, 1, 20001)])
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(f"{len(words)} {dim}\n")
        for start in range(0, len(words), 2000):
            block = order[start : start + 2000]
            values = table[rng.integers(0, len(table), size=(len(block), dim))]
            fh.write("".join(f"{words[i]} {' '.join(row)}\n" for i, row in zip(block, values)))


def ours(path: str, resamples: int, threads: int, queue) -> None:
    """Runs in a fresh (spawned) child process, so that its peak memory is its own."""
    from simgold.embeddings import load_model
    from simgold.scoring import Vectors, correlation_scores, predictions

    t0 = time.perf_counter()
    pairs = {name: dataset_pairs(name) for name in DATASETS}
    words = sorted({w for p in pairs.values() for w in pd.concat([p["word1"], p["word2"]])})
    table, report = load_model({"path": path}, words, threads=threads)
    vectors = Vectors(table)
    result = {}
    for name, p in pairs.items():
        pred = predictions(name, "bench", p, vectors)
        rows = correlation_scores(
            name, "bench", p["mean"].to_numpy(float), pred["sim"].to_numpy(float), len(p), resamples=resamples
        )
        result[name] = rows[0][4]
    elapsed = time.perf_counter() - t0
    queue.put((elapsed, result, report.kept, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))


def in_child(*args):
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    child = ctx.Process(target=ours, args=(*args, queue))
    child.start()
    out = queue.get()
    child.join()
    return out


def gensim_path(path: str) -> tuple[float, dict]:
    from gensim.models import KeyedVectors

    t0 = time.perf_counter()
    kv = KeyedVectors.load_word2vec_format(path)
    result = {name: kv.evaluate_word_pairs(datapath(name), case_insensitive=True)[1].statistic for name in DATASETS}
    return time.perf_counter() - t0, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--words", type=int, default=200_000)
    parser.add_argument("--dim", type=int, default=300)
    parser.add_argument("--file", default="/tmp/simgold-bench.vec")
    args = parser.parse_args()

    path, half = Path(args.file), Path(args.file + ".half")
    for p, n in ((path, args.words), (half, args.words // 2)):
        if not p.exists():
            print(f"writing {p} ({n:,} words x {args.dim})...", flush=True)
            write_file(p, n, args.dim)
    size = path.stat().st_size / 2**20
    print(f"file: {path}, {args.words:,} words x {args.dim} dimensions, {size:,.0f} MB")

    subprocess.run(["cat", str(path)], stdout=subprocess.DEVNULL, check=True)  # the same warm page cache for everyone
    t0 = time.perf_counter()
    subprocess.run(["wc", "-l", str(path)], stdout=subprocess.DEVNULL, check=True)
    wc = time.perf_counter() - t0

    fast, scores, kept, peak = in_child(str(path), 0, 2)
    one, _, _, _ = in_child(str(path), 0, 1)
    full, _, _, _ = in_child(str(path), 1000, 2)
    _, _, _, peak_half = in_child(str(half), 0, 2)
    print(
        f"ours:   {fast:6.2f} s (load {kept:,} needed words + score both datasets; 2 threads as the rule runs), {one:.2f} s on 1 thread"
    )
    print(f"        {full:.2f} s with the 1000-resample bootstrap CIs the pipeline adds")
    print(f"        Spearman WS353 {scores['wordsim353.tsv']:.4f}, SimLex-999 {scores['simlex999.txt']:.4f}")
    print(f"        peak memory {peak:,.0f} MB on this file, {peak_half:,.0f} MB on a file with half the vocabulary")
    g, gscores = gensim_path(str(path))
    print(f"gensim: {g:6.2f} s (load_word2vec_format + evaluate_word_pairs x 2)")
    print(f"        Spearman WS353 {gscores['wordsim353.tsv']:.4f}, SimLex-999 {gscores['simlex999.txt']:.4f}")
    print(f"wc -l:  {wc:6.2f} s")
    print(f"ratios: gensim / ours = {g / fast:.0f}x; ours / wc -l = {fast / wc:.1f}x")


if __name__ == "__main__":
    main()
