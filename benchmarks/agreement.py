"""Benchmark of the agreement stage at crowd scale (not a test; prints timings, ratios and memory).

    python benchmarks/agreement.py                 # 1000 raters x 2000 items at 10%, then the growth table
    python benchmarks/agreement.py --no-growth     # the first part only
    python benchmarks/agreement.py --raters 10000 --items 20000 --density 0.01 --no-growth

Synthetic ratings: R raters x N items, each rater rating a random share (the density) of the items
on a 0-6 scale around a per-item truth; two raters biased by +1.5 and two random raters are planted
so that calibration and outlier filtering have something to do (SimLex-999 had 500 raters rating
about 119 items each). Each measurement runs in a fresh (spawned) process that makes its own data,
and reports wall time and CPU time (user + sys) in the call, the CPU time of the whole process
(start-up, imports, data, call) and its peak resident memory (``ru_maxrss``):

* ours, whole stage: shift calibration; agreement at the raw, calibrated and filtered stages;
  pairwise_sd filtering, as the pipeline runs it;
* ours, one stage: ``pairwise_spearman`` of every rater pair, from the rating matrix;
* pandas, the fastest fair peer: ``DataFrame.corr(method="spearman", min_periods=5)`` on the items x
  raters table computes the same pairwise-complete Spearman (the values are checked against ours),
  on all the raters. It visits every pair (O(R^2 N)): above ``--pandas-raters`` raters (default
  1000) it is not run (the reason is printed); the growth table times it on 300 random raters and
  scales its time by the number of pairs ("est.");
* for reference, ``scipy.stats.spearmanr`` once per pair, timed on a sample of pairs and scaled.

The sides run alternately, ``--repeat`` times, and the medians are printed (other jobs share the
machine). The growth table runs each size once.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import resource
import statistics
import time
import warnings

import numpy as np

# each side's fresh process imports what that side uses (pandas, scipy, simgold's stages or only
# its rank correlations): its whole-process CPU and peak memory are its own

MIN_OVERLAP = 5
DENSE_GROWTH = [(250, 2000, 0.10), (500, 2000, 0.10), (1000, 2000, 0.10), (2000, 2000, 0.10), (4000, 2000, 0.10)]
SPARSE_GROWTH = [(2000, 4000, 0.01), (5000, 10000, 0.01), (10000, 20000, 0.01)]


def synthetic(R: int, N: int, density: float, seed: int = 0):
    """Long-format ratings (a pandas.DataFrame), made without an N x R array (10,000 x 20,000 would not fit)."""
    return synthetic_frame(*synthetic_arrays(R, N, density, seed), R, N)


def synthetic_arrays(R: int, N: int, density: float, seed: int = 0) -> tuple:
    """The ratings as (rater, item, score) arrays, raters and items as their numbers."""
    rng = np.random.default_rng(seed)
    truth = rng.uniform(0, 6, N)
    counts = rng.binomial(N, density, R)
    rater = np.repeat(np.arange(R), counts)
    item = np.concatenate([np.sort(rng.choice(N, k, replace=False)) for k in counts])
    score = np.clip(np.rint(truth[item] + rng.normal(0, 1.0, len(item))), 0, 6)
    biased, random = rater < 2, (rater >= 2) & (rater < 4)
    score[biased] = np.clip(score[biased] + 1.5, 0, 6).round()
    score[random] = rng.integers(0, 7, int(random.sum()))
    return rater, item, score


# -------------------------------------------------------------------------------- the steps


def whole_stage(ratings, ci: dict | None = None) -> dict:
    """The stage as the pipeline runs it; with ``ci``, with the bootstrap CIs on agreement too."""
    import pandas as pd

    from simgold.stages.agreement import agreement_report
    from simgold.stages.calibrate import calibrate

    items = pd.DataFrame({"item_id": sorted(ratings["item_id"].unique())})
    calibrated, table = calibrate(ratings, (0, 6), "shift", threshold=1.0, step=1.0)
    report = agreement_report(
        "bench",
        items,
        ratings,
        calibrated,
        table,
        min_overlap=MIN_OVERLAP,
        outliers={"method": "pairwise_sd", "k": 1.0},
        ci=ci,
    )
    filtered = report["agreement"].set_index("stage").loc["filtered"]
    excluded = int(report["raters"].query("stage == 'calibrated'")["excluded"].sum())
    out = {"pairwise": float(filtered["pairwise"]), "n_pairs": int(filtered["n_pairs"]), "excluded": excluded}
    if ci is not None:
        out["agreement_ci"] = report["agreement_ci"]
    return out


def prepare_frame(arrays: tuple, R: int, N: int):
    rater, item, score = arrays
    return synthetic_frame(rater, item, score, R, N)


def prepare_matrix(arrays: tuple, R: int, N: int):
    """Our rating matrix straight from the arrays (no pandas in this process)."""
    from simgold.stats.rank_correlation import RatingMatrix

    rater, item, score = arrays
    return RatingMatrix.from_entries(item, rater, score, np.arange(N), np.arange(R))


def one_stage(matrix) -> dict:
    from simgold.stats.rank_correlation import pairwise_spearman

    pairs = pairwise_spearman(matrix, MIN_OVERLAP)
    return {"n_pairs": pairs.n_pairs, "n_computed": len(pairs.rho)}


def prepare_pandas(arrays: tuple, R: int, N: int, k: int):
    """The items x raters table of k random raters (all of them when k >= R)."""
    rater, item, score = arrays
    ratings = synthetic_frame(rater, item, score, R, N)
    raters = np.sort(ratings["rater"].unique())
    if k < len(raters):
        raters = np.sort(np.random.default_rng(1).choice(raters, k, replace=False))
    chosen = ratings[ratings["rater"].isin(raters)]
    return chosen.pivot(index="item_id", columns="rater", values="score"), chosen


def pandas_corr(prepared: tuple) -> dict:
    wide, _ = prepared
    return {"corr": wide.corr(method="spearman", min_periods=MIN_OVERLAP)}


def _check_against_ours(prepared: tuple, corr) -> dict:
    """pandas' values against ours on the same raters: the same missing pairs, the largest difference
    (after pandas' measurement: ours is imported only now)."""
    from simgold.stats.rank_correlation import RatingMatrix, pairwise_spearman

    wide, chosen = prepared
    ours = pairwise_spearman(RatingMatrix.from_ratings(chosen, items=wide.index), MIN_OVERLAP).dense()
    theirs = corr.to_numpy().copy()
    np.fill_diagonal(theirs, np.nan)
    same_missing = bool((np.isnan(ours) == np.isnan(theirs)).all())
    both = ~np.isnan(ours) & ~np.isnan(theirs)
    return {"same_missing": same_missing, "max_diff": float(np.abs(ours[both] - theirs[both]).max(initial=0.0))}


def synthetic_frame(rater, item, score, R: int, N: int):
    import pandas as pd

    return pd.DataFrame(
        {
            "dataset": "bench",
            "item_id": np.array([f"i{k:05d}" for k in range(N)], dtype=object)[item],
            "rater": np.array([f"r{k:05d}" for k in range(R)], dtype=object)[rater],
            "score": score,
            "source_file": "synthetic",
            "source_row": 0,
        }
    )


# -------------------------------------------------------------------------------- measuring


def _child(queue, R, N, density, prepare, step, extra) -> None:
    arrays = synthetic_arrays(R, N, density)
    data = prepare(arrays, R, N, *extra)
    t0, c0 = time.perf_counter(), time.process_time()
    out = step(data)
    out.update(wall=time.perf_counter() - t0, cpu=time.process_time() - c0)
    usage = resource.getrusage(resource.RUSAGE_SELF)  # the whole process: start-up, imports, data, step
    out.update(whole_cpu=usage.ru_utime + usage.ru_stime, peak_mb=usage.ru_maxrss / 1024)
    out["ratings"] = len(arrays[0])
    if "corr" in out:
        out.update(_check_against_ours(data, out.pop("corr")))
    queue.put(out)


def measure(R, N, density, step, prepare=prepare_frame, extra=()) -> dict:
    """Run one step in a fresh (spawned) process that imports what it uses and makes its own data."""
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    child = ctx.Process(target=_child, args=(queue, R, N, density, prepare, step, extra))
    child.start()
    out = queue.get()
    child.join()
    return out


def scipy_loop_per_pair(R, N, density, n_sample, seed=1) -> float:
    from scipy.stats import spearmanr

    ratings = synthetic(R, N, density)
    wide = ratings.pivot(index="item_id", columns="rater", values="score").to_numpy()
    rng = np.random.default_rng(seed)
    a = rng.integers(0, R, n_sample)
    b = (a + rng.integers(1, R, n_sample)) % R
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, j in zip(a, b):
            m = ~np.isnan(wide[:, i]) & ~np.isnan(wide[:, j])
            if m.sum() >= MIN_OVERLAP:
                spearmanr(wide[m, i], wide[m, j])
    return (time.perf_counter() - t0) / n_sample


def pandas_estimate(R, N, density, k) -> dict:
    """pandas on min(R, k) raters, its time scaled to all R(R-1)/2 pairs."""
    out = measure(R, N, density, pandas_corr, prepare_pandas, (k,))
    used = min(R, k)
    out["scale"] = (R * (R - 1)) / (used * (used - 1))
    out["estimate"] = out["wall"] * out["scale"]
    return out


# -------------------------------------------------------------------------------- printing


def headline(args) -> None:
    R, N, d = args.raters, args.items, args.density
    pairs = R * (R - 1) // 2
    with_pandas = R <= args.pandas_raters
    runs = {"stage": [], "one": [], "pandas": []}
    for _ in range(args.repeat):  # alternate the sides
        runs["stage"].append(measure(R, N, d, whole_stage))
        runs["one"].append(measure(R, N, d, one_stage, prepare_matrix))
        if with_pandas:
            runs["pandas"].append(pandas_estimate(R, N, d, args.pandas_raters))
    fields = ("wall", "cpu", "whole_cpu", "peak_mb")
    med = {k: {f: statistics.median(r[f] for r in v) for f in fields} for k, v in runs.items() if v}
    stage, one = runs["stage"][0], runs["one"][0]
    print(f"synthetic: {R} raters x {N} items, density {d:.0%}, {stage['ratings']:,} ratings, {pairs:,} rater pairs")
    print(f"(medians of {args.repeat} alternating runs; the machine is shared with other jobs)")
    _line("ours, whole stage (calibrate; raw, calibrated, filtered; pairwise_sd)", med["stage"])
    print(
        f"      filtered: {stage['n_pairs']:,} pairs with a value, pairwise {stage['pairwise']:.3f}, {stage['excluded']} raters excluded"
    )
    _line("ours, one stage (pairwise_spearman)", med["one"])
    print(
        f"      {one['n_computed']:,} pairs share >= {MIN_OVERLAP} items and were ranked; {one['n_pairs']:,} have a value"
    )
    if not with_pandas:
        print(
            f"pandas corr: not run: {R} raters > --pandas-raters {args.pandas_raters} (it visits every one of the "
            f"{pairs:,} pairs, O(R^2 N): from 1000 x 2000 @10%, hours here, beyond the 10 minutes the issue allows)"
        )
        return
    pd_run = runs["pandas"][0]
    scale = pd_run["scale"]
    used = (
        "all raters" if scale == 1 else f"{args.pandas_raters} random raters, scaled x{scale:.1f} to all pairs (est.)"
    )
    pandas_wall = med["pandas"]["wall"] * scale
    print(
        f"pandas corr(method='spearman', min_periods={MIN_OVERLAP}), one stage: wall {pandas_wall:.2f} s, CPU {med['pandas']['cpu'] * scale:.2f} s [{used}]"
    )
    _line("pandas, its whole process", med["pandas"])
    print(
        f"      same values as ours: missing pairs identical {pd_run['same_missing']}, max |difference| {pd_run['max_diff']:.1e}"
    )
    per_pair = scipy_loop_per_pair(R, N, d, args.sample)
    print(
        f"scipy.stats.spearmanr per pair (reference): {per_pair * 1e6:.0f} us x {pairs:,} pairs = {per_pair * pairs:.1f} s for one stage"
    )
    print(f"ratio, one stage: pandas / ours = {pandas_wall / med['one']['wall']:.1f}x (wall)")
    if scale == 1:
        p, o = med["pandas"], med["one"]
        print(
            f"ratio, one stage, CPU: {p['cpu'] / o['cpu']:.1f}x in call, {p['whole_cpu'] / o['whole_cpu']:.1f}x whole "
            f"process; peak memory of the whole process: ours {o['peak_mb'] / p['peak_mb']:.2f}x pandas'"
        )
    print(
        f"ratio, ours doing three stages and filtering vs pandas doing one: {pandas_wall / med['stage']['wall']:.1f}x (wall)"
    )


def _line(label: str, m: dict) -> None:
    print(
        f"{label}: wall {m['wall']:.2f} s, CPU in call {m['cpu']:.2f} s, CPU whole process {m['whole_cpu']:.2f} s, "
        f"peak resident memory of the process {m['peak_mb']:.0f} MB"
    )


def growth(args) -> None:
    print("\ngrowth (one run each, wall and CPU seconds): the whole stage; one stage (pairwise_spearman);")
    print("pandas doing one stage, est. from a subset of raters; the ratio of pandas to our one stage, by wall time")
    print(
        f"{'raters':>7} {'items':>6} {'dens.':>5} {'ratings':>10} {'pairs >=5':>10} | {'stage':>6} {'CPU':>6} {'peak MB':>7} "
        f"| {'1 stage':>7} {'CPU':>6} | {'pandas':>10} {'ratio':>6}"
    )
    for R, N, d in DENSE_GROWTH + SPARSE_GROWTH:
        stage = measure(R, N, d, whole_stage)
        one = measure(R, N, d, one_stage, prepare_matrix)
        pd_run = pandas_estimate(R, N, d, min(R, 300))
        est = " " if pd_run["scale"] == 1 else "*"
        print(
            f"{R:>7} {N:>6} {d:>5.0%} {stage['ratings']:>10,} {one['n_computed']:>10,} | {stage['wall']:>6.2f} "
            f"{stage['cpu']:>6.2f} {stage['peak_mb']:>7.0f} | {one['wall']:>7.2f} {one['cpu']:>6.2f} | "
            f"{pd_run['estimate']:>9.0f}{est} {pd_run['estimate'] / one['wall']:>5.0f}x"
        )
    print("* pandas timed on 300 random raters and scaled to all pairs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--raters", type=int, default=1000)
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--density", type=float, default=0.10)
    parser.add_argument("--repeat", type=int, default=3, help="alternating runs of each side (medians)")
    parser.add_argument(
        "--pandas-raters", type=int, default=1000, help="pandas runs on all the raters up to this many, else not"
    )
    parser.add_argument("--sample", type=int, default=1000, help="rater pairs timed in the scipy loop")
    parser.add_argument("--no-growth", action="store_true", help="skip the growth table")
    args = parser.parse_args()
    headline(args)
    if not args.no_growth:
        growth(args)


if __name__ == "__main__":
    main()
