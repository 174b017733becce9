"""Benchmark of the agreement stage at crowd scale (not a test; prints timings and ratios).

    python benchmarks/agreement.py [--raters 1000] [--items 2000] [--density 0.1] [--sample 2000]

A synthetic dataset of R raters x N items where each rater rates a random share of the items
(SimLex-999 had 500 raters rating about 119 items each). Two raters with a +1.5 bias and two random
raters are planted so that calibration and outlier filtering have something to do. Measured:

* ours: the whole agreement stage as the pipeline runs it (shift calibration; agreement at the
  raw, calibrated and filtered stages; pairwise_sd filtering), in a child process, with its peak
  resident memory;
* loop: the obvious implementation, scipy.stats.spearmanr for each rater pair on the items both
  rated, timed on a random sample of pairs and scaled to all pairs, for ONE stage only.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import resource
import time
import warnings

import numpy as np
import pandas as pd
from scipy.stats import spearmanr


def synthetic(R: int, N: int, density: float, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    truth = rng.uniform(0, 6, N)
    mask = rng.random((N, R)) < density
    noise = rng.normal(0, 1.0, (N, R))
    X = np.clip(np.rint(truth[:, None] + noise), 0, 6)
    X[:, :2] = np.clip(X[:, :2] + 1.5, 0, 6).round()  # biased
    X[:, 2:4] = rng.integers(0, 7, (N, 2))  # random
    item, rater = np.nonzero(mask)
    return pd.DataFrame(
        {
            "dataset": "bench",
            "item_id": [f"i{k:05d}" for k in item],
            "rater": [f"r{k:04d}" for k in rater],
            "score": X[item, rater],
            "source_file": "synthetic",
            "source_row": 0,
        }
    )


def stage(ratings: pd.DataFrame, queue) -> None:
    from simgold.calibrate import calibrate
    from simgold.reliability import agreement_report

    items = pd.DataFrame({"item_id": sorted(ratings["item_id"].unique())})
    t0 = time.perf_counter()
    calibrated, table = calibrate(ratings, (0, 6), "shift")
    report = agreement_report("bench", items, ratings, calibrated, table, outliers={"method": "pairwise_sd", "k": 1.0})
    elapsed = time.perf_counter() - t0
    row = report["agreement"].set_index("stage").loc["filtered"]
    excluded = int(report["raters"].query("stage == 'calibrated'")["excluded"].sum())
    queue.put((elapsed, float(row["pairwise"]), int(row["n_pairs"]), excluded))


def loop_sample(ratings: pd.DataFrame, n_sample: int, seed: int = 1):
    wide = ratings.pivot(index="item_id", columns="rater", values="score").to_numpy()
    R = wide.shape[1]
    rng = np.random.default_rng(seed)
    a = rng.integers(0, R, n_sample)
    b = (a + rng.integers(1, R, n_sample)) % R
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, j in zip(a, b):
            m = ~np.isnan(wide[:, i]) & ~np.isnan(wide[:, j])
            if m.sum() >= 5:
                spearmanr(wide[m, i], wide[m, j])
    per_pair = (time.perf_counter() - t0) / n_sample
    return per_pair, per_pair * R * (R - 1) / 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--raters", type=int, default=1000)
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--density", type=float, default=0.10)
    parser.add_argument("--sample", type=int, default=2000, help="rater pairs timed in the loop")
    args = parser.parse_args()

    ratings = synthetic(args.raters, args.items, args.density)
    print(f"synthetic: {args.raters} raters x {args.items} items, density {args.density:.0%}, {len(ratings):,} ratings")

    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    child = ctx.Process(target=stage, args=(ratings, queue))
    child.start()
    elapsed, pairwise, n_pairs, excluded = queue.get()
    child.join()
    peak_mb = max(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, before) / 1024
    print(f"ours: full agreement stage (calibrate, raw/calibrated/filtered, pairwise_sd) {elapsed:.2f} s")
    print(f"      {n_pairs:,} pairs with a value after filtering, pairwise {pairwise:.3f}, {excluded} raters excluded")
    print(f"      peak resident memory of the stage's process {peak_mb:.0f} MB")

    per_pair, total = loop_sample(ratings, args.sample)
    print(
        f"loop: scipy.stats.spearmanr per pair {per_pair * 1e6:.0f} us x {args.raters * (args.raters - 1) // 2:,} pairs"
    )
    print(f"      = {total:.1f} s for ONE stage (scaled from {args.sample} sampled pairs)")
    print(f"ratio: ours (three stages) is {total / elapsed:.0f}x faster than the loop doing one stage")


if __name__ == "__main__":
    main()
