"""Benchmark of Krippendorff's alpha at every level (not a test; prints timings and peak memory).

    python benchmarks/alpha.py [--repeat 3] [--cases CASE ...] [--levels LEVEL ...]

Ours (``simgold.stats.alpha``) against the ``krippendorff`` package, the fastest available peer (it is
vectorised with numpy, but builds a units x V x V array for V distinct values). Each measurement
runs in a fresh process, which reports the CPU time (user + sys) of the call and, from a second
call under ``tracemalloc`` (numpy reports its arrays to it), the peak memory the call allocates; the
parent reads the whole process's CPU time and peak resident memory from its rusage (``os.wait4``):
imports, data and both calls. The sides run alternately, ``--repeat`` times; medians are printed
(other jobs share the machine), with the ratios package / ours of the CPU in call and of the whole
process (above 1: ours is faster). Cases:

* crowd, integer scores: 1000 raters x 2000 items at 10% density, scores 0-6 (V = 7): both run;
* small, continuous scores: 60 items x 8 raters, scores with two decimals (V about 450): both run;
* crowd, continuous scores: the first case with calibrated (continuous) scores, V about 200,000:
  only ours runs; the package's units x V x V array is computed and printed, not attempted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc

import numpy as np

LEVELS = ("nominal", "ordinal", "interval", "ratio")
CASES = ("crowd-integer", "small-continuous", "crowd-continuous")


def make(case: str) -> np.ndarray:
    """Items x raters with NaN for no rating."""
    rng = np.random.default_rng(0)
    if case == "small-continuous":
        n_items, n_raters, density = 60, 8, 1.0
    else:
        n_items, n_raters, density = 2000, 1000, 0.10
    truth = rng.uniform(0, 6, n_items)[:, None]
    X = truth + rng.normal(0, 1, (n_items, n_raters))
    X = np.clip(np.rint(X), 0, 6) if case == "crowd-integer" else np.abs(X)
    if case == "small-continuous":
        X = X.round(2)
    X[rng.random(X.shape) >= density] = np.nan
    return X


def run_one(case: str, side: str, level: str) -> dict:
    if side == "ours":
        from simgold.stats.alpha import alpha_from_matrix as compute
    else:
        import krippendorff

        def compute(X, level):
            return float(krippendorff.alpha(reliability_data=X.T, level_of_measurement=level))

    X = make(case)  # imports and data first: the call alone is measured
    t0 = time.process_time()
    value = compute(X, level)
    took = time.process_time() - t0
    tracemalloc.start()  # a second call, traced: the peak of the memory it allocates (numpy reports to tracemalloc)
    compute(X, level)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {"value": value, "seconds": took, "peak_mb": peak / 2**20}


def measure(case: str, side: str, level: str) -> dict:
    """One side in a fresh process: its report, and from its rusage the whole process's CPU (user +
    sys) and peak resident memory."""
    with tempfile.TemporaryFile("w+") as out:
        proc = subprocess.Popen([sys.executable, __file__, "--one", case, side, level], stdout=out)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode:
            raise SystemExit(f"{side} {case} {level}: exit {proc.returncode}")
        out.seek(0)
        result = json.loads(out.read())
    return {**result, "whole": usage.ru_utime + usage.ru_stime, "rss_mb": usage.ru_maxrss / 1024}


def package_cells(X: np.ndarray) -> int:
    """Cells of the package's largest array: units x V x V (float64)."""
    return X.shape[0] * np.unique(X[~np.isnan(X)]).size ** 2


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--one", nargs=3, metavar=("CASE", "SIDE", "LEVEL"))
    parser.add_argument("--cases", nargs="+", default=list(CASES), choices=CASES)
    parser.add_argument("--levels", nargs="+", default=list(LEVELS), choices=LEVELS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(*args.one)))
        return
    print("machine shared with other jobs: medians of alternating runs in fresh processes\n")
    for case in args.cases:
        X = make(case)
        cells = package_cells(X)
        distinct = np.unique(X[~np.isnan(X)]).size
        print(
            f"{case}: {X.shape[0]} items x {X.shape[1]} raters, {int((~np.isnan(X)).sum()):,} ratings, {distinct:,} distinct values"
        )
        print(f"  package's units x V x V array: {cells:,} cells = {cells * 8 / 2**30:,.2f} GiB")
        sides = ("ours", "package") if cells * 8 < 2**31 else ("ours",)
        for level in args.levels:
            runs = {side: [] for side in sides}
            for _ in range(args.repeat):
                for side in sides:
                    runs[side].append(measure(case, side, level))
            med = {side: {k: statistics.median(r[k] for r in runs[side]) for k in runs[side][0]} for side in sides}
            line = [f"  {level:8s}"]
            for side in sides:
                m = med[side]
                line.append(
                    f"{side}: CPU {m['seconds']:.3f} s in call, {m['whole']:.3f} s whole process, call allocates"
                    f" {m['peak_mb']:.1f} MB, peak RSS {m['rss_mb']:.0f} MB (alpha {runs[side][0]['value']:.6f})"
                )
            if "package" in med:
                call = med["package"]["seconds"] / med["ours"]["seconds"]
                whole = med["package"]["whole"] / med["ours"]["whole"]
                line.append(f"package / ours: {call:.1f}x in call, {whole:.2f}x whole process")
            else:
                line.append("package: not run (does not fit in memory)")
            print(" | ".join(line))
        print()


if __name__ == "__main__":
    main()
