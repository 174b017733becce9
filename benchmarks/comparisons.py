"""Benchmark of making A&G comparisons from per-rater ratings (not a test; prints timings and ratios).

    python benchmarks/comparisons.py [--raters 40] [--items 4000] [--words 800] [--density 0.5]

Data: MEN re-rated by two of its authors (3,000 pairs, 49,732 comparisons), read by the project's
cleaner from ../shared (or $SIMGOLD_SHARED) when it is there, and a synthetic crowd sheet
(items are random pairs of a vocabulary, each rater rating a share of them). Compared, on the same
input, all giving the same comparisons (checked):

* ours: ``simgold.stages.comparisons.from_ratings`` (every pair of items sharing a word at once, numpy);
* a numpy loop, the fair peer: the obvious loop over target words and item pairs, with the scores
  in a numpy array (one lookup per comparison);
* pandas joins: the items paired on their shared word by a self-merge, joined with the ratings of
  both items by rater, and a groupby per comparison;
* for reference, the previous implementation (pandas ``.loc`` per comparison), timed on a sample
  of target words and scaled.

Each side runs ``--repeat`` times, alternately; the medians are printed (other jobs share the machine).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from simgold.stages.comparisons import from_ratings

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SIMGOLD_SHARED", ROOT.parent / "shared"))


def men_experts() -> tuple[pd.DataFrame, pd.DataFrame] | None:
    from simgold.stages.clean import clean_dataset

    if not (SHARED / "data").is_dir():
        return None
    spec = yaml.safe_load((ROOT / "config/examples/shared-data.yaml").read_text(encoding="utf-8"))["datasets"][
        "men-experts"
    ]
    for src in spec["sources"]:
        src["path"] = str(SHARED / src["path"][len("../shared/") :])
    t = clean_dataset("men-experts", spec)
    return t["items"], t["ratings"]


def synthetic(n_raters: int, n_items: int, n_words: int, density: float, seed: int = 0):
    rng = np.random.default_rng(seed)
    words = np.array([f"w{k:05d}" for k in range(n_words)], dtype=object)
    a = rng.integers(0, n_words, n_items)
    b = (a + rng.integers(1, n_words, n_items)) % n_words
    items = pd.DataFrame({"item_id": [f"i{k:05d}" for k in range(n_items)], "word1": words[a], "word2": words[b]})
    item, rater = np.nonzero(rng.random((n_items, n_raters)) < density)
    ratings = pd.DataFrame(
        {
            "item_id": items["item_id"].to_numpy()[item],
            "rater": [f"r{k:03d}" for k in rater],
            "score": rng.integers(0, 7, len(item)).astype(float),
        }
    )
    return items, ratings


# -------------------------------------------------------------------------------- the alternatives


def _partners(items: pd.DataFrame, rated: set) -> dict:
    by_word: dict = {}
    for it, w1, w2 in zip(items["item_id"], items["word1"], items["word2"]):
        if it in rated and w1 != w2:
            by_word.setdefault(w1, []).append((w2, it))
            by_word.setdefault(w2, []).append((w1, it))
    return by_word


def numpy_loop(items: pd.DataFrame, ratings: pd.DataFrame, targets=None) -> list[tuple]:
    scores = ratings.pivot_table(index="item_id", columns="rater", values="score", aggfunc="first")
    M, row = scores.to_numpy(), {it: k for k, it in enumerate(scores.index)}
    by_word = _partners(items, set(row))
    rows = []
    for target in targets if targets is not None else sorted(by_word):
        partners = sorted(by_word[target])
        for i, (a, ia) in enumerate(partners):
            for b, ib in partners[i + 1 :]:
                x, y = M[row[ia]], M[row[ib]]
                both = ~np.isnan(x) & ~np.isnan(y)
                n = int(both.sum())
                if a != b and n:
                    r = float(((x[both] > y[both]) + 0.5 * (x[both] == y[both])).mean())
                    rows.append((target, a, b, r, n) if r >= 0.5 else (target, b, a, 1.0 - r, n))
    return rows


def pandas_loc_loop(items: pd.DataFrame, ratings: pd.DataFrame, targets) -> int:
    """The previous implementation's inner loop (pandas .loc per comparison), on some targets."""
    scores = ratings.pivot_table(index="item_id", columns="rater", values="score", aggfunc="first")
    by_word = _partners(items, set(scores.index))
    count = 0
    for target in targets:
        partners = sorted(by_word[target])
        for i, (a, ia) in enumerate(partners):
            for b, ib in partners[i + 1 :]:
                x, y = scores.loc[ia], scores.loc[ib]
                both = x.notna() & y.notna()
                if a != b and both.sum():
                    float(((x[both] > y[both]) + 0.5 * (x[both] == y[both])).mean())
                    count += 1
    return count


def pandas_joins(items: pd.DataFrame, ratings: pd.DataFrame) -> list[tuple]:
    rated = ratings.drop_duplicates(["item_id", "rater"])[["item_id", "rater", "score"]]
    items = items[items["item_id"].isin(rated["item_id"]) & (items["word1"] != items["word2"])]
    sides = pd.concat(
        [
            items.rename(columns={"word1": "target", "word2": "partner"})[["target", "partner", "item_id"]],
            items.rename(columns={"word2": "target", "word1": "partner"})[["target", "partner", "item_id"]],
        ]
    )
    pairs = sides.merge(sides, on="target", suffixes=("_a", "_b"))
    first = (pairs["partner_a"] < pairs["partner_b"]) | (
        (pairs["partner_a"] == pairs["partner_b"]) & (pairs["item_id_a"] < pairs["item_id_b"])
    )
    pairs = pairs[first & (pairs["partner_a"] != pairs["partner_b"])]
    side_a = rated.rename(columns={"item_id": "item_id_a", "score": "score_a"})
    side_b = rated.rename(columns={"item_id": "item_id_b", "score": "score_b"})
    x = pairs.merge(side_a, on="item_id_a").merge(side_b, on=["item_id_b", "rater"])
    x["win"] = (x["score_a"] > x["score_b"]) + 0.5 * (x["score_a"] == x["score_b"])
    keys = ["target", "partner_a", "item_id_a", "partner_b", "item_id_b"]
    g = x.groupby(keys, sort=True)["win"].agg(["sum", "count"]).reset_index()
    r = g["sum"] / g["count"]
    return [
        (t, a, b, v, n) if v >= 0.5 else (t, b, a, 1.0 - v, n)
        for t, a, b, v, n in zip(g["target"], g["partner_a"], g["partner_b"], r, g["count"])
    ]


def ours(items: pd.DataFrame, ratings: pd.DataFrame) -> list[tuple]:
    table = from_ratings("bench", items, ratings)
    return list(zip(table["target"], table["w1"], table["w2"], table["r"], table["n_raters"]))


# -------------------------------------------------------------------------------- printing


def compare(label: str, items: pd.DataFrame, ratings: pd.DataFrame, repeat: int) -> None:
    times = {"ours": [], "numpy loop": [], "pandas joins": []}
    results = {}
    for _ in range(repeat):  # alternate the sides
        for name, fn in (("ours", ours), ("numpy loop", numpy_loop), ("pandas joins", pandas_joins)):
            t0 = time.perf_counter()
            results[name] = fn(items, ratings)
            times[name].append(time.perf_counter() - t0)
    med = {k: statistics.median(v) for k, v in times.items()}
    same = {k: _same(results["ours"], v) for k, v in results.items() if k != "ours"}
    print(f"{label}: {len(items):,} items, {len(ratings):,} ratings, {len(results['ours']):,} comparisons")
    for name, t in med.items():
        extra = "" if name == "ours" else f"  ({t / med['ours']:.0f}x ours; same comparisons: {same[name]})"
        print(f"  {name:<13} {t:8.3f} s{extra}")
    by_word = sorted({t for t, *_ in results["ours"]})
    sample = by_word[:: max(1, len(by_word) // 40)]
    t0 = time.perf_counter()
    done = pandas_loc_loop(items, ratings, sample)
    per = (time.perf_counter() - t0) / max(done, 1)
    print(
        f"  previous (pandas .loc per comparison), for reference: {per * 1e6:.0f} us x {len(results['ours']):,} = {per * len(results['ours']):.0f} s (scaled from {done:,} comparisons)"
    )


def _same(a: list[tuple], b: list[tuple]) -> bool:
    key = lambda rows: sorted((t, w1, w2, round(r, 12), int(n)) for t, w1, w2, r, n in rows)  # noqa: E731
    return key(a) == key(b)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--raters", type=int, default=40)
    parser.add_argument("--items", type=int, default=4000)
    parser.add_argument("--words", type=int, default=800)
    parser.add_argument("--density", type=float, default=0.5)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-men", action="store_true", help="the synthetic sheet only")
    args = parser.parse_args()
    print(f"(medians of {args.repeat} alternating runs; the machine may be shared with other jobs)")
    men = None if args.no_men else men_experts()
    if args.no_men:
        print("MEN expert ratings: skipped (--no-men)")
    elif men is None:
        print(f"MEN expert ratings: not found under {SHARED}/data (set SIMGOLD_SHARED); skipped")
    else:
        compare("MEN expert ratings", *men, args.repeat)
    compare(
        f"synthetic crowd ({args.raters} raters, {args.density:.0%} density)",
        *synthetic(args.raters, args.items, args.words, args.density),
        args.repeat,
    )


if __name__ == "__main__":
    main()
