"""Benchmark of Best-Worst Scaling tuple designs (not a test; prints the designs' balance and CPU times).

    python benchmarks/bws_design.py [--items 100 1000 10000] [--k 4] [--factor 2] [--sets 100] [--seed 0]

Every generator makes the same number of k-tuples from N items: ``int(0.5 + factor * N)``, the
convention of Kiritchenko & Mohammad's ``generate-BWS-tuples.pl`` (factor 2: 2N tuples, each item
shown about ``factor * k`` times). For each N (the issue's: 100, 1,000 and 10,000 at factor 2 and
k = 4) the generators are

1. ours: ``simgold.stats.bws_design.bws_tuples(N, k, factor, seed)``;
2. Kiritchenko & Mohammad's generator as their script does it, written here: random shuffles of
   the items cut into k-tuples (a tuple that runs past a shuffle's end takes the next shuffle's
   first items, an item it already holds moved to that shuffle's end), ``--sets`` such sets (100
   in the script), the one with the lowest SD of pair co-occurrence kept (numpy's generator in
   place of Perl's ``shuffle``);
3. ``bwsample`` (its ``sample(..., method='overlap')`` fixes the number of sets at
   ``N // (k - 1)``; its ``n_sets`` argument is ignored), two ways to get the same number of tuples:

   * ``bwsample one call``: ``bwsample.sampling.indices_overlap(n_tuples, k, shuffle=True)`` (the
     function ``sample`` calls, asked for all the sets at once), its indices taken modulo N as
     ``sample`` does, then mapped through a random permutation of the items;
   * ``bwsample repeated``: ``sample``'s own design (``indices_overlap(N // (k - 1), k, True)``
     modulo N, what ``sample`` returns; checked equal to ``sample`` itself on the first N) on a
     fresh random permutation of the items, repeated until there are enough, the first
     ``n_tuples`` kept.

Printed for each: the SD (ddof 1, as K&M's script) of the pairs' co-occurrence counts over all
N(N-1)/2 pairs, those never together included; how many pairs share more than one tuple; the
largest distance of an item's appearances from their mean; CPU seconds (``time.process_time``;
K&M: all its sets). Then whether ours is at least as good as every peer on both the SD and the
repeated pairs (the issue's check), and the least SD any design of this size can have.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from bwsample import sample as bwsample_sample
from bwsample.sampling import indices_overlap

from simgold.stats.bws_design import bws_tuples


def pair_stats(tuples: np.ndarray, n_items: int) -> tuple[float, int]:
    """SD (ddof 1) of the pair counts over all pairs, zeros included, and the pairs counted more than once."""
    k = tuples.shape[1]
    first, second = np.triu_indices(k, 1)
    a, b = tuples[:, first].ravel(), tuples[:, second].ravel()
    _, counts = np.unique(np.minimum(a, b) * n_items + np.maximum(a, b), return_counts=True)
    n_pairs = n_items * (n_items - 1) // 2
    total, squares = int(counts.sum()), int((counts * counts).sum())
    return math.sqrt((squares * n_pairs - total * total) / (n_pairs * (n_pairs - 1))), int((counts > 1).sum())


def appearance_deviation(tuples: np.ndarray, n_items: int) -> float:
    shown = np.bincount(tuples.ravel(), minlength=n_items)
    return float(np.abs(shown - tuples.size / n_items).max())


def km_set(n_items: int, k: int, n_tuples: int, rng: np.random.Generator) -> np.ndarray:
    """One set of K&M's generator: shuffles cut into tuples, a tuple across two shuffles kept free of repeats."""
    tuples, shuffled, j = [], rng.permutation(n_items).tolist(), 0
    while len(tuples) < n_tuples:
        if j + k <= n_items:
            whole = (n_items - j) // k
            take = min(whole, n_tuples - len(tuples))
            tuples.extend(shuffled[j + t * k : j + (t + 1) * k] for t in range(take))
            j += take * k
            continue
        row = shuffled[j:]
        held, need = set(row), k - len(row)
        shuffled = rng.permutation(n_items).tolist()
        for j in range(need):
            while shuffled[j] in held:  # the script moves an item the tuple holds to the shuffle's end
                shuffled.append(shuffled.pop(j))
            row.append(shuffled[j])
        j = need
        tuples.append(row)
    return np.array(tuples, dtype=np.int64)


def km_best(n_items: int, k: int, n_tuples: int, sets: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    best, best_sd = None, math.inf
    for _ in range(sets):
        tuples = km_set(n_items, k, n_tuples, rng)
        sd = pair_stats(tuples, n_items)[0]
        if sd < best_sd:
            best, best_sd = tuples, sd
    return best


def bwsample_one_call(n_items: int, k: int, n_tuples: int, seed: int) -> np.ndarray:
    np.random.seed(seed)  # bwsample draws from numpy's global generator
    indices, _ = indices_overlap(n_tuples, k, shuffle=True)
    relabel = np.random.default_rng(seed).permutation(n_items)
    return relabel[np.asarray(indices, dtype=np.int64) % n_items]


def bwsample_repeated(n_items: int, k: int, n_tuples: int, seed: int) -> np.ndarray:
    np.random.seed(seed)
    rng, parts, made = np.random.default_rng(seed), [], 0
    while made < n_tuples:
        indices, _ = indices_overlap(n_items // (k - 1), k, shuffle=True)
        parts.append(rng.permutation(n_items)[np.asarray(indices, dtype=np.int64) % n_items])
        made += len(indices)
    return np.concatenate(parts)[:n_tuples]


def check_sample_equivalence(n_items: int, k: int, seed: int) -> bool:
    """``sample`` itself and ``indices_overlap`` modulo N give the same sets (members, in order of the sets)."""
    np.random.seed(seed)
    theirs = bwsample_sample(list(range(n_items)), n_items=k, method="overlap")
    np.random.seed(seed)
    indices, _ = indices_overlap(n_items // (k - 1), k, shuffle=True)
    return [sorted(s) for s in theirs] == [sorted(i % n_items for i in s) for s in indices]


def timed(fn, *args) -> tuple[np.ndarray, float]:
    started = time.process_time()
    out = fn(*args)
    return out, time.process_time() - started


def one_size(n_items: int, args) -> bool:
    n_tuples = int(0.5 + args.factor * n_items)
    mine, mine_cpu = timed(bws_tuples, n_items, args.k, args.factor, args.seed)
    rows = {"ours (bws_tuples)": (mine.tuples, mine_cpu)}
    rows[f"K&M best of {args.sets}"] = timed(km_best, n_items, args.k, n_tuples, args.sets, args.seed)
    rows["bwsample one call"] = timed(bwsample_one_call, n_items, args.k, n_tuples, args.seed)
    rows["bwsample repeated"] = timed(bwsample_repeated, n_items, args.k, n_tuples, args.seed)
    print(f"\nN = {n_items:,} items, {n_tuples:,} {args.k}-tuples (factor {args.factor:g}), "
          f"{n_items * (n_items - 1) // 2:,} pairs")  # fmt: skip
    print(f"  {'generator':<22} {'pair SD':>10} {'repeated pairs':>15} {'max |appearances - mean|':>25} {'CPU s':>8}")
    stats = {}
    for label, (tuples, cpu) in rows.items():
        assert tuples.shape == (n_tuples, args.k) and (np.sort(tuples, 1)[:, 1:] != np.sort(tuples, 1)[:, :-1]).all()
        sd, repeated = pair_stats(tuples, n_items)
        stats[label] = (sd, repeated)
        print(f"  {label:<22} {sd:>10.6f} {repeated:>15,} {appearance_deviation(tuples, n_items):>25.3f} {cpu:>8.2f}")
    ours_sd, ours_repeated = stats["ours (bws_tuples)"]
    assert ours_repeated == mine.repeated_pairs and math.isclose(ours_sd, mine.pair_sd, rel_tol=1e-12)  # its own stats
    met = all(ours_sd <= sd * (1 + 1e-12) and ours_repeated <= rep for sd, rep in stats.values())
    print(f"  ours <= every peer on SD and repeated pairs: {'met' if met else 'NOT met'} "
          f"(least SD possible at this size: {mine.pair_sd_floor:.6f}; ours at it: {mine.at_floor})")  # fmt: skip
    return met


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, nargs="+", default=[100, 1000, 10000])
    parser.add_argument("--k", type=int, default=4)
    parser.add_argument("--factor", type=float, default=2.0)
    parser.add_argument("--sets", type=int, default=100, help="K&M's random sets, the best one kept")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"bwsample's sample() equals indices_overlap modulo N on N = {args.items[0]}: "
          f"{check_sample_equivalence(args.items[0], args.k, args.seed)}")  # fmt: skip
    met = [one_size(n, args) for n in args.items]
    print(f"\nthe issue's check (ours <= both peers on SD and repeats) at every N: {'met' if all(met) else 'NOT met'}")


if __name__ == "__main__":
    main()
