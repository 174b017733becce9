"""Benchmark of the bootstrap CIs on agreement (not a test; prints what the CIs cost).

    python benchmarks/agreement_ci.py [--resamples 1000] [--repeat 3] [--crowd-resamples 10] [--crowd 1000 2000 0.1]

1. Danish size: 99 items x 38 raters on a 0-6 scale, 32 raters complete and 6 with 5% of the items
   missing (as dsd-da). Every statistic x scheme (items, raters, both) for B resamples: ours
   (``agreement_ci.replicates``) against the fastest fair peer computing the same resampled datasets one by one:
   ``pandas.DataFrame.corr(method="spearman", min_periods=5)`` per resample for ``pairwise``, and a
   per-resample numpy loop on the agreement engine (``vs_reference``, the leave-copies-out means,
   ``krippendorff_alpha(..., "interval")``) for the others. The peers run on ``--peer-resamples`` resamples,
   scaled to B.
2. Crowd scale: 1000 raters x 2000 items at 10% (benchmarks/agreement.py's synthetic data). Ours per
   statistic x scheme on ``--crowd-resamples`` resamples (setup included) scaled to B, what the
   default work cap allows and what that costs; the peers on 2 resamples (pandas on 300 raters,
   scaled to all pairs).
3. The whole agreement stage at crowd scale (calibrate; raw, calibrated, filtered; pairwise_sd), each
   run in a fresh process, without and with the CIs at the default cap: what the CIs cost.

CPU seconds (wall for the stage too); other jobs share the machine: the sides run alternately and
the medians of ``--repeat`` runs are printed.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import time
import warnings

import numpy as np
import pandas as pd
from agreement import MIN_OVERLAP, measure, synthetic, whole_stage

from simgold.io.schema import schema_defaults
from simgold.stats.agreement_ci import replicates, resamples_within, work_per_resample
from simgold.stats.agreement_statistics import AGREEMENT_STATISTICS, SCHEMES, ci_statistics
from simgold.stats.resampling import draw_counts, draws
from simgold.stats.alpha import krippendorff_alpha
from simgold.stats.grouped_ranks import grouped_spearman
from simgold.stats.rank_correlation import RatingMatrix, pairwise_spearman, vs_reference

KEYS = [(s, scheme) for s in ci_statistics() for scheme in SCHEMES if scheme in AGREEMENT_STATISTICS[s].replicates]
CI = {"resamples": 1000, "seed": 20261121, "confidence": 0.95, "max_work": schema_defaults("$defs", "dataset", "properties", "agreement")["ci_max_work"]}


def danish_like(seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    X = np.clip(np.rint(rng.uniform(0, 6, (99, 1)) + rng.normal(0, 1.2, (99, 38))), 0, 6)
    X[:, 32:][rng.random((99, 6)) < 0.05] = np.nan
    return X


# -------------------------------------------------------------------------------- the peers


def peer(X: np.ndarray, key: tuple, idx) -> float:
    """One replicate computed on the resampled dataset itself (rows, or columns, ``idx``; for the
    two-way scheme a pair of them)."""
    statistic, scheme = key
    rows, columns = {"items": (idx, None), "raters": (None, idx)}.get(scheme, idx)
    Xb = X if rows is None else X[rows]
    Xb = Xb if columns is None else Xb[:, columns]
    who = np.arange(X.shape[1]) if columns is None else columns
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if statistic == "pairwise":
            rho = pd.DataFrame(Xb).corr(method="spearman", min_periods=MIN_OVERLAP).to_numpy()
            return float(np.nanmean(rho[who[:, None] < who[None, :]]))
        m = RatingMatrix.from_dense(Xb)
        if statistic == "alpha_interval":
            return krippendorff_alpha(m.item, m.score, "interval")
        if statistic == "vs_rest" and columns is not None:  # the rest leaves out every copy of the rater
            return float(np.nanmean(_rest_of_copies(m, who)))
        vs_mean, vs_rest = vs_reference(m, MIN_OVERLAP)
        return float(np.nanmean(vs_mean if statistic == "vs_mean" else vs_rest))


def _rest_of_copies(m: RatingMatrix, who: np.ndarray) -> np.ndarray:
    n_items = m.shape[0]
    copies = who[m.rater] + len(who) * m.item  # (original rater, item)
    total = np.bincount(m.item, m.score, n_items)[m.item] - np.bincount(copies, m.score)[copies]
    count = np.bincount(m.item, minlength=n_items)[m.item] - np.bincount(copies)[copies]
    keep = count > 0
    codes = [np.unique(x, return_inverse=True)[1].reshape(-1) for x in (m.score[keep], total[keep] / count[keep])]
    rho, n = grouped_spearman(m.rater[keep], *codes, m.shape[1])
    rho[n < MIN_OVERLAP] = np.nan  # a copy sharing too few items with the rest has no rho
    return rho


# -------------------------------------------------------------------------------- timing


def cpu(f) -> float:
    t0 = time.process_time()
    f()
    return time.process_time() - t0


def _samples(idx: dict, scheme: str, k: int) -> list:
    """The first k resamples' rows, columns, or (for both) pairs of them."""
    return list(zip(idx["items"][:k], idx["raters"][:k])) if scheme == "both" else list(idx[scheme][:k])


def ours_and_peer(X, B: int, peer_resamples: int, repeat: int) -> dict:
    """key -> (ours for B, the peer scaled to B): medians of alternating runs. The two-way scheme
    runs on the items' and the raters' draws together."""
    m = RatingMatrix.from_dense(X)
    pairs = pairwise_spearman(m, MIN_OVERLAP)
    rng = np.random.default_rng(1)
    idx = {"items": draws(X.shape[0], B, rng), "raters": draws(X.shape[1], B, rng)}
    counts = {"items": draw_counts(idx["items"], X.shape[0]), "raters": draw_counts(idx["raters"], X.shape[1])}
    out = {}
    for key in KEYS:
        runs = {"ours": [], "peer": []}
        for _ in range(repeat):
            runs["ours"].append(cpu(lambda: replicates(m, pairs, counts["items"], counts["raters"], MIN_OVERLAP, {key: B})))
            sample = _samples(idx, key[1], peer_resamples)
            runs["peer"].append(cpu(lambda: [peer(X, key, i) for i in sample]) * B / len(sample))
        out[key] = (statistics.median(runs["ours"]), statistics.median(runs["peer"]))
    return out


def danish(args) -> None:
    B = args.resamples
    print(f"1. Danish size: 99 items x 38 raters (32 complete), B = {B}, CPU seconds "
          f"(medians of {args.repeat}; peers on {args.peer_resamples} resamples, scaled)")  # fmt: skip
    times = ours_and_peer(danish_like(), B, args.peer_resamples, args.repeat)
    print(f"   {'statistic':15s} {'scheme':7s} {'ours':>7s} {'peer':>7s} {'peer/ours':>9s}")
    for (statistic, scheme), (ours, other) in times.items():
        print(f"   {statistic:15s} {scheme:7s} {ours:7.3f} {other:7.2f} {other / ours:8.0f}x")
    total_ours, total_peer = (sum(t[i] for t in times.values()) for i in (0, 1))
    print(f"   {f'all {len(times)}':23s} {total_ours:7.3f} {total_peer:7.2f} {total_peer / total_ours:8.0f}x")


def crowd(args, ratings: pd.DataFrame) -> None:
    B, r = args.resamples, args.crowd_resamples
    m = RatingMatrix.from_ratings(ratings)
    pairs = pairwise_spearman(m, MIN_OVERLAP)
    work = work_per_resample(m)
    X = m.dense()
    rng = np.random.default_rng(2)
    w, c = draw_counts(draws(m.shape[0], r, rng), m.shape[0]), draw_counts(draws(m.shape[1], r, rng), m.shape[1])
    print(f"\n2. crowd scale: {m.shape[1]} raters x {m.shape[0]} items, {len(m.score):,} ratings; ours on {r} "
          f"resamples (setup included) scaled to B = {B}; the default cap ({CI['max_work']:,})")  # fmt: skip
    print(f"   {'statistic':15s} {'scheme':7s} {'work/resample':>13s} {'B (est.)':>9s} {'cap allows':>10s} "
          f"{'costs':>6s} {'peer, B (est.)':>14s}")  # fmt: skip
    for key in KEYS:
        seconds = cpu(lambda: replicates(m, pairs, w, c, MIN_OVERLAP, {key: r}))
        allowed = resamples_within(B, work[key], CI["max_work"], CI["confidence"])
        print(f"   {key[0]:15s} {key[1]:7s} {work[key]:13,} {seconds * B / r:9.1f} {allowed:10d} "
              f"{seconds * allowed / r:6.1f} {_crowd_peer(X, key, B):14.0f}")  # fmt: skip


def _crowd_peer(X: np.ndarray, key: tuple, B: int) -> float:
    """The peer for B resamples, from 2 (pandas' pairwise on 300 random raters, scaled to all pairs)."""
    rng = np.random.default_rng(3)
    scale = 1.0
    if key[0] == "pairwise":
        R = X.shape[1]
        k = min(R, 300)
        X = X[:, np.sort(rng.choice(R, k, replace=False))]
        scale = R * (R - 1) / (k * (k - 1))
    sample = _samples({"items": draws(X.shape[0], 2, rng), "raters": draws(X.shape[1], 2, rng)}, key[1], 2)
    return cpu(lambda: [peer(X, key, i) for i in sample]) * B / 2 * scale


def stage(args) -> None:
    R, N, d = args.crowd
    R, N = int(R), int(N)
    print(f"\n3. the agreement stage at crowd scale ({R} x {N} at {d:.0%}; medians of {args.repeat}, fresh processes)")
    runs = {"without": [], "with": []}
    with_cis = functools.partial(whole_stage, ci=CI)
    for _ in range(args.repeat):
        runs["without"].append(measure(R, N, d, whole_stage))
        runs["with"].append(measure(R, N, d, with_cis))
    med = {k: {f: statistics.median(x[f] for x in v) for f in ("wall", "cpu")} for k, v in runs.items()}
    for k in ("without", "with"):
        print(f"   {k} CIs: wall {med[k]['wall']:.1f} s, CPU {med[k]['cpu']:.1f} s")
    print(f"   the CIs cost: wall {med['with']['wall'] - med['without']['wall']:.1f} s, "
          f"CPU {med['with']['cpu'] - med['without']['cpu']:.1f} s (B = {CI['resamples']}, cap {CI['max_work']:,})")  # fmt: skip
    table = runs["with"][0]["agreement_ci"]
    used = table.groupby(["statistic", "scheme"], sort=False)["resamples"].agg(lambda x: "/".join(map(str, x)))
    print("   resamples used (raw/calibrated/filtered):", "; ".join(f"{s} {sc} {u}" for (s, sc), u in used.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3, help="alternating runs of each side (medians)")
    parser.add_argument("--peer-resamples", type=int, default=100, help="Danish size: resamples the peers run")
    parser.add_argument("--crowd-resamples", type=int, default=10, help="crowd scale: resamples ours runs")
    parser.add_argument(
        "--crowd", type=float, nargs=3, default=[1000, 2000, 0.10], metavar=("RATERS", "ITEMS", "DENSITY")
    )
    args = parser.parse_args()
    print("machine shared with other jobs: indicative timings\n")
    danish(args)
    crowd(args, synthetic(int(args.crowd[0]), int(args.crowd[1]), args.crowd[2]))
    stage(args)


if __name__ == "__main__":
    main()
