"""Benchmark of the bootstrap CIs on agreement (not a test; prints what the CIs cost).

    python benchmarks/agreement_ci.py [--resamples 1000] [--crowd-resamples 20]

Two panels, synthetic (a 0-6 scale around a per-item truth):

* Danish size: 99 items x 38 raters, complete. Ours (``agreement_cis``: both schemes, the four
  statistics, B resamples) against the fastest fair peer for the costliest part, the pairwise
  Spearman of each resampled dataset by ``pandas.DataFrame.corr(method="spearman",
  min_periods=5)`` (timed on 50 resamples, scaled to B);
* crowd scale: 1000 raters x 2000 items at 10% density. Each part of ours is timed on
  ``--crowd-resamples`` resamples and scaled to B (per-resample costs are flat), pandas on 2.

Other jobs share the machine: the numbers are indicative; the sides run alternately.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from simgold.agreement_ci import (
    Panel,
    agreement_cis,
    alpha_items,
    alpha_raters,
    draw_counts,
    draws,
    pair_entries,
    pairwise_raters,
    reference_entries,
    reference_raters,
    weighted_spearman,
)


def panel(n_items: int, n_raters: int, density: float, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    X = np.clip(np.rint(rng.uniform(0, 6, (n_items, 1)) + rng.normal(0, 1.2, (n_items, n_raters))), 0, 6)
    X[rng.random(X.shape) >= density] = np.nan
    return X


def long(X: np.ndarray) -> pd.DataFrame:
    item, rater = np.nonzero(~np.isnan(X))
    return pd.DataFrame({"item_id": item, "rater": rater, "score": X[item, rater]})


def pandas_per_resample(X: np.ndarray, resamples: int, rng) -> float:
    """Seconds per resample: the pairwise Spearman of a resampled dataset by pandas."""
    t0 = time.perf_counter()
    for idx in draws(X.shape[0], resamples, rng):
        pd.DataFrame(X[idx]).corr(method="spearman", min_periods=5)
    return (time.perf_counter() - t0) / resamples


def timed(f, *args) -> float:
    t0 = time.perf_counter()
    f(*args)
    return time.perf_counter() - t0


def danish(B: int) -> None:
    X = panel(99, 38, 1.0)
    t_ours = timed(lambda: agreement_cis("bench", "raw", "all", long(X), resamples=B))
    t_pandas = pandas_per_resample(X, 50, np.random.default_rng(0)) * B
    print(f"Danish size (99 x 38), B = {B}: ours, both schemes and all four statistics: {t_ours:.2f} s;")
    print(f"  pandas corr per resample, pairwise of the item scheme only: {t_pandas:.1f} s (scaled from 50); {t_pandas / t_ours:.0f}x")


def crowd(B: int, sample: int) -> None:
    X = panel(2000, 1000, 0.10)
    p = Panel.from_dense(X)
    rng = np.random.default_rng(1)
    t0 = time.perf_counter()
    entries, a, b = pair_entries(p)
    t_entries = time.perf_counter() - t0
    w = draw_counts(draws(p.n_items, sample, rng), p.n_items)
    c = draw_counts(draws(p.n_raters, sample, rng), p.n_raters)
    rho = weighted_spearman(entries, np.ones((1, p.n_items)), 5)[0]
    scale = B / sample
    parts = {
        "pairwise, items": timed(weighted_spearman, entries, w, 5) * scale,
        "vs_mean, items": timed(lambda: weighted_spearman(reference_entries(p, False), w, 5)) * scale,
        "vs_rest, items": timed(lambda: weighted_spearman(reference_entries(p, True), w, 5)) * scale,
        "alpha, items": timed(alpha_items, p, w) * scale,
        "pairwise, raters": timed(pairwise_raters, a, b, rho, c, p.n_raters) * scale,
        "vs_mean, raters": timed(reference_raters, p, c, False, 5) * scale,
        "vs_rest, raters": timed(reference_raters, p, c, True, 5) * scale,
        "alpha, raters": timed(alpha_raters, p, c) * scale,
    }
    print(f"\ncrowd scale (2000 items x 1000 raters at 10%: {len(entries.group):,} pair x shared-item entries)")
    print(f"  the pair entries, once per stage and subset: {t_entries:.1f} s")
    for name, seconds in parts.items():
        print(f"  {name:18s} {seconds:8.1f} s for B = {B} (timed on {sample})")
    t_pandas = pandas_per_resample(X, 2, rng) * B
    print(f"  pandas corr per resample (pairwise, items): {t_pandas:.0f} s for B = {B} (timed on 2)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--crowd-resamples", type=int, default=20)
    args = parser.parse_args()
    print("machine shared with other jobs: indicative timings\n")
    danish(args.resamples)
    crowd(args.resamples, args.crowd_resamples)


if __name__ == "__main__":
    main()
