"""Benchmark of Best-Worst Scaling at the issue's size (not a test; prints CPU times, memory and ratios).

    python benchmarks/bws.py [--items 25000] [--tuples 50000] [--answers-per-tuple 2] [--raters 200] [--repeat 3]

Data: a Kiritchenko & Mohammad CSV (``Item1..Item4,BestItem,WorstItem`` plus ``annotator`` and
``tuple_id``) written by this script from a seed: ``--items`` word pairs (``wNNNNN:wMMMMM``), random
shuffles of them cut into ``--tuples`` 4-tuples, each tuple answered by ``--answers-per-tuple``
distinct simulated raters (an item's true value plus the rater's Gumbel noise: best the highest,
worst the lowest). The issue's size (the defaults): 25,000 items, 50,000 tuples, 100,000 answers.

1. ours, the pipeline the issue times (its goal: at most 30 s of CPU for the first five parts):
   cleaning the CSV (``simgold.stages.clean.clean_dataset``: every answer checked, the items,
   answers and ledger tables); coding the answers (``simgold.stages.bws_gold.code_answers``);
   counting scores (``simgold.stats.bws.counting_scores``); their bootstrap CIs
   (``counting_intervals``, the default ``scoring.resamples`` of 1000, by raters as the gold stage
   does when every answer names its rater); split-half reliability over 100 trials (the default
   ``bws.split_half_trials``, ``simgold.stages.bws_agreement.reliability_row``). Stated apart, not
   in the goal: the agreement stage's per-rater agreement (``rater_agreement``) and the MaxDiff
   model's fit (``maxdiff_fit``, L-BFGS-B then Newton's steps; no SEs above its item cap).
2. The counting step (same work on every side: the parsed answers to each item's counting score),
   the peers starting from the CSV read by pandas, ours from the clean answers table:

   * ours: ``code_answers`` + ``counting_scores``;
   * ``bwsample.scoring_orme`` (bwsample's counting score; ``bwsample.count`` extracts pairs for its
     rankings, another job): its input, a list of (states, ids) per answer, is built from the
     same rows and timed apart from the call. It divides by all the answers, not by an item's
     showings: its score times the number of answers must equal ours' best minus worst (checked);
   * ``maxdiff``: ``calculate_scores_no_ci`` (its count score, a scan of every answer per item:
     timed on ``--maxdiff-items`` items, its own code on that sample, and scaled to all items) and
     ``perform_maxdiff_analysis`` (its numpy core, which holds answers x k x items booleans: timed
     on the first ``--maxdiff-answers`` answers and scaled to all answers), on integer codes made
     by ``pandas.factorize`` (timed apart); its score must be ours x 100 (checked);
   * a plain count (item codes by ``pandas.factorize`` and three ``np.bincount``), the floor a user could write.

Values are checked equal between the sides before any timing is printed. CPU seconds are the
process's user + system time around each call (``time.process_time``); every side runs
``--repeat`` times, alternately, and the medians are printed (other jobs share the machine). Each
ratio is the one above 1 and says which way it reads (``ours / peer``: ours slower; ``peer / ours``:
ours faster). Last, an estimate (not run) of maxdiff's ``bootstrap_analysis`` at the same resamples.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import csv
import logging
import resource
import statistics
import tempfile
import time
import types
from pathlib import Path

import numpy as np
import pandas as pd

from simgold.stages.bws_agreement import reliability_row
from simgold.stages.bws_gold import code_answers
from simgold.stages.clean import clean_dataset
from simgold.stats.bws import counting_intervals, counting_scores, rater_agreement
from simgold.stats.maxdiff_model import maxdiff_fit

try:
    import bwsample
except ImportError:  # CI installs it with --no-deps; say so and skip that side
    bwsample = None
try:
    import maxdiff
    import maxdiff.count
except ImportError:
    maxdiff = None

K = 4
ITEMS = [f"Item{j}" for j in range(1, K + 1)]
RESAMPLES, TRIALS, CONFIDENCE, SEED = 1000, 100, 0.95, 20261121
GOAL_CPU = 30.0
GOAL_PARTS = ("clean", "code", "counting", "intervals", "split-half")


# -------------------------------------------------------------------------------- data


def write_answers(path: Path, n_items: int, n_tuples: int, per_tuple: int, n_raters: int, seed: int = 0) -> dict:
    """The K&M CSV of ``n_tuples * per_tuple`` answers; returns its counts."""
    rng = np.random.default_rng(seed)
    vocabulary = max(2 * int(np.sqrt(2 * n_items)) + 10, 100)
    a, b = rng.integers(0, vocabulary, (2, 4 * n_items))
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    key = np.unique((lo * vocabulary + hi)[lo != hi])
    key = rng.permutation(key)[:n_items]
    if len(key) < n_items:
        raise ValueError("too few distinct pairs: raise the vocabulary")
    names = np.array([f"w{x // vocabulary:05d}:w{x % vocabulary:05d}" for x in key], dtype=object)
    shuffles = -(-n_tuples * K // n_items)
    slots = np.concatenate([rng.permutation(n_items) for _ in range(shuffles)])
    # a shuffle cut into tuples; a tuple across two shuffles may repeat an item: redraw its tail
    tuples = slots[: n_tuples * K].reshape(n_tuples, K)
    for t in np.flatnonzero([len(set(row)) < K for row in tuples]):
        tuples[t] = rng.choice(n_items, K, replace=False)
    value = rng.normal(size=n_items)
    noise_sd = rng.uniform(0.3, 1.5, n_raters)
    rater = np.stack([rng.choice(n_raters, per_tuple, replace=False) for _ in range(n_tuples)])
    seen = value[tuples][:, None, :] + noise_sd[rater][:, :, None] * rng.gumbel(size=(n_tuples, per_tuple, K))
    best = np.take_along_axis(np.repeat(tuples[:, None, :], per_tuple, 1), seen.argmax(axis=2)[..., None], 2)[..., 0]
    worst = np.take_along_axis(np.repeat(tuples[:, None, :], per_tuple, 1), seen.argmin(axis=2)[..., None], 2)[..., 0]
    with open(path, "w", encoding="utf-8", newline="") as f:
        out = csv.writer(f)
        out.writerow([*ITEMS, "BestItem", "WorstItem", "annotator", "tuple_id"])
        for t in range(n_tuples):
            shown = names[tuples[t]].tolist()
            for j in range(per_tuple):
                out.writerow([*shown, names[best[t, j]], names[worst[t, j]], f"r{rater[t, j]:04d}", f"t{t:06d}"])
    return {"items": n_items, "tuples": n_tuples, "answers": n_tuples * per_tuple, "raters": n_raters}


def spec_for(path: Path) -> dict:
    """The dataset's config entry: the K&M preset with the rater and tuple columns."""
    source = {"path": path.name, "preset": "kiritchenko_mohammad", "rater": "annotator", "tuple": "tuple_id"}
    return {"kind": "bws", "language": "en", "sources": [source]}


def timed(runs: dict, label: str, fn):
    """Call ``fn``; append its CPU and wall seconds to ``runs[label]``; return what it returned."""
    c0, t0 = time.process_time(), time.perf_counter()
    out = fn()
    runs.setdefault(label, []).append((time.process_time() - c0, time.perf_counter() - t0))
    return out


# -------------------------------------------------------------------------------- ours


def ours(path: Path, runs: dict, logit: bool) -> dict:
    """The pipeline the issue times, part by part; what the checks and the report need."""
    spec, quiet = spec_for(path), logging.getLogger("bench-bws-quiet")
    quiet.disabled = True
    tables = timed(runs, "clean", lambda: clean_dataset("bench", spec, base_dir=str(path.parent), log=quiet))
    answers, items = tables["answers"], tables["items"]
    codes = timed(runs, "code", lambda: code_answers(answers, items["item_id"]))
    counts = timed(runs, "counting", lambda: counting_scores(codes.coded))
    # the counting step the peers do: the answers table to scores
    runs.setdefault("ours counting", []).append(tuple(map(sum, zip(runs["code"][-1], runs["counting"][-1]))))
    by = "raters" if (codes.coded.rater >= 0).all() and len(codes.raters) > 1 else "answers"  # as the gold stage
    rng = np.random.default_rng(SEED)
    timed(runs, "intervals", lambda: counting_intervals(codes.coded, RESAMPLES, rng, CONFIDENCE, by=by))
    settings = {"split_half_trials": TRIALS, "target": 0.9}
    shr = timed(runs, "split-half", lambda: reliability_row("bench", "raw", codes, settings, CONFIDENCE, SEED))
    timed(runs, "rater agreement", lambda: rater_agreement(codes.coded))
    fit = timed(runs, "logit", lambda: maxdiff_fit(codes.coded, confidence=CONFIDENCE)) if logit else None
    by_id = items.set_index("item_id")
    names = (by_id["word1"] + ":" + by_id["word2"]).reindex(codes.item_ids).to_numpy(object)
    summary = tables["summary"].iloc[0]
    return {"names": names, "counts": counts, "coded": codes.coded, "by": by, "shr": shr, "fit": fit,
            "kept": int(summary.n_answers), "ledger": tables["rejects"]["reason"].value_counts().to_dict(),
            "balanced": bool(summary.ledger_balanced)}  # fmt: skip


# -------------------------------------------------------------------------------- the peers


def numpy_counting(wide: pd.DataFrame) -> tuple:
    """The plain count a user would write: item codes by ``pandas.factorize``, three ``bincount``."""
    shown = wide[ITEMS].to_numpy(dtype=object).ravel()
    code, ids = pd.factorize(
        np.concatenate([shown, wide["BestItem"].to_numpy(object), wide["WorstItem"].to_numpy(object)])
    )
    n, m, a = len(ids), len(shown), len(wide)
    n_shown = np.bincount(code[:m], minlength=n)
    n_best, n_worst = np.bincount(code[m : m + a], minlength=n), np.bincount(code[m + a :], minlength=n)
    return np.asarray(ids, dtype=object), n_shown, n_best, n_worst, (n_best - n_worst) / n_shown


def bwsample_input(wide: pd.DataFrame) -> list:
    """bwsample's evaluations: per answer (states: 1 best, 2 worst, 0 neither; the item ids)."""
    rows = wide[ITEMS].to_numpy(dtype=object).tolist()
    return [
        ([1 if x == b else 2 if x == w else 0 for x in row], row)
        for row, b, w in zip(rows, wide["BestItem"].tolist(), wide["WorstItem"].tolist())
    ]


def maxdiff_frame(wide: pd.DataFrame) -> pd.DataFrame:
    """maxdiff's ready format: ``Response ID``, ``Attribute1..k``, ``Most``, ``Least``."""
    names = {"annotator": "Response ID", **{c: f"Attribute{j}" for j, c in enumerate(ITEMS, start=1)},
             "BestItem": "Most", "WorstItem": "Least"}  # fmt: skip
    return wide.rename(columns=names)[list(names.values())]


@contextlib.contextmanager
def maxdiff_items(sample):
    """``maxdiff.count.calculate_scores_no_ci`` runs over these items (its own code; it loops over
    ``pd.unique`` of the shown items, one scan of every answer per item)."""
    real = maxdiff.count.pd
    maxdiff.count.pd = types.SimpleNamespace(unique=lambda values: np.asarray(sample, dtype=object), notna=pd.notna,
                                             DataFrame=pd.DataFrame)  # fmt: skip
    try:
        yield
    finally:
        maxdiff.count.pd = real


def maxdiff_codes(frame: pd.DataFrame) -> tuple:
    """Integer codes for ``perform_maxdiff_analysis`` (``pandas.factorize``: faster than the
    ``replace(attr_to_index)`` its bootstrap uses)."""
    attrs = [f"Attribute{j}" for j in range(1, K + 1)]
    shown = frame[attrs].to_numpy(object)
    code, ids = pd.factorize(
        np.concatenate([shown.ravel(), frame["Most"].to_numpy(object), frame["Least"].to_numpy(object)])
    )
    m, a = shown.size, len(frame)
    return code[:m].reshape(shown.shape), code[m : m + a], code[m + a :], np.asarray(ids, dtype=object)


def peers(wide: pd.DataFrame, runs: dict, args) -> dict:
    """Every peer's counting on the parsed CSV, timed into ``runs``; their results for the checks."""
    out = {"numpy": timed(runs, "numpy", lambda: numpy_counting(wide))}
    if bwsample is not None:
        evaluations = timed(runs, "bwsample input", lambda: bwsample_input(wide))
        out["bwsample"] = timed(runs, "bwsample", lambda: bwsample.scoring_orme(evaluations))
    if maxdiff is None:
        return out
    frame = timed(runs, "maxdiff input", lambda: maxdiff_frame(wide))
    attrs = [f"Attribute{j}" for j in range(1, K + 1)]
    names = pd.unique(frame[attrs].to_numpy(object).ravel())
    sample = (
        names
        if args.maxdiff_items >= len(names)
        else np.random.default_rng(1).choice(names, args.maxdiff_items, replace=False)
    )
    with maxdiff_items(sample) if len(sample) < len(names) else contextlib.nullcontext():
        out["maxdiff"] = timed(runs, "maxdiff", lambda: maxdiff.calculate_scores_no_ci(frame, attrs, "Most", "Least"))
    out["maxdiff share"] = len(sample) / len(names)
    shown, best, worst, ids = timed(runs, "maxdiff codes", lambda: maxdiff_codes(frame))
    block = min(args.maxdiff_answers, len(frame))
    core = maxdiff.perform_maxdiff_analysis
    out["maxdiff core"] = timed(runs, "maxdiff core", lambda: core(shown[:block], best[:block], worst[:block], ids))
    out["maxdiff core share"] = block / len(frame)
    return out


# -------------------------------------------------------------------------------- checks


def checks(mine: dict, theirs: dict, n_answers: int) -> list[str]:
    """One line per peer: whether its values are ours (printed before any timing)."""
    counts, names = mine["counts"], mine["names"]
    where = {name: j for j, name in enumerate(names)}
    numer = counts.n_best - counts.n_worst
    ids, n_shown, n_best, n_worst, score = theirs["numpy"]
    at = np.array([where[i] for i in ids])
    same = all(np.array_equal(x[at], y) for x, y in ((counts.n_shown, n_shown), (counts.n_best, n_best),
                                                     (counts.n_worst, n_worst), (counts.score, score)))  # fmt: skip
    lines = [f"numpy count: the same items, shown / best / worst counts and scores as ours, to the last bit: {same}"]
    if "bwsample" in theirs:
        ids, score = theirs["bwsample"]
        at = np.array([where[i] for i in ids])
        others = np.setdiff1d(np.arange(len(names)), at)
        same = (
            np.array_equal(score, numer[at] / n_answers) and not (counts.n_best[others] | counts.n_worst[others]).any()
        )
        lines.append(f"bwsample scoring_orme: its score = ours' (best - worst) / all {n_answers:,} answers, to the last "
                     f"bit, on its {len(ids):,} items (the {len(others):,} others never chosen best or worst): {same}")  # fmt: skip
    if "maxdiff" in theirs:
        table = theirs["maxdiff"]
        at = np.array([where[i] for i in table["Item"]])
        same = np.allclose(table["Score"].to_numpy(float), 100 * counts.score[at], rtol=1e-12, atol=1e-12)
        lines.append(
            f"maxdiff calculate_scores_no_ci: ours x 100 (1e-12) on the {len(table):,} items it ran on: {same}"
        )
        table = theirs["maxdiff core"]
        block = round(theirs["maxdiff core share"] * n_answers)
        a = mine["coded"]
        part = counting_scores(dataclasses.replace(a, tuples=a.tuples[:block], best=a.best[:block], worst=a.worst[:block],
                                                   tuple_code=a.tuple_code[:block], rater=a.rater[:block]))  # fmt: skip
        at = np.array([where[i] for i in table["Item"]])
        ok = part.n_shown[at] > 0
        same = np.allclose(table["Score"].to_numpy(float)[ok], 100 * part.score[at][ok], rtol=1e-12, atol=1e-12)
        lines.append(f"maxdiff perform_maxdiff_analysis: ours x 100 (1e-12) on the {int(ok.sum()):,} items of its "
                     f"{block:,} answers: {same}")  # fmt: skip
    return lines


# -------------------------------------------------------------------------------- printing


def ratio(ours_cpu: float, peer_cpu: float) -> str:
    """The ratio that is at least 1, and which way it reads."""
    if ours_cpu <= peer_cpu:
        return f"peer / ours {peer_cpu / max(ours_cpu, 1e-9):.1f}x (ours faster)"
    return f"ours / peer {ours_cpu / max(peer_cpu, 1e-9):.1f}x (ours slower)"


def report_ours(med: dict, mine: dict) -> None:
    parts = {
        "clean": "cleaning the CSV (clean_dataset)",
        "code": "coding the answers (code_answers)",
        "counting": "counting scores (counting_scores)",
        "intervals": f"bootstrap CIs (counting_intervals, {RESAMPLES} resamples by {mine['by']})",
        "split-half": f"split-half reliability ({TRIALS} trials, reliability_row)",
    }
    print("ours, the pipeline (CPU s, wall s):")
    for label, what in parts.items():
        print(f"  {what:<62} {med[label][0]:7.2f} {med[label][1]:7.2f}")
    total = sum(med[label][0] for label in GOAL_PARTS)
    print(f"  {'total':<62} {total:7.2f} {sum(med[label][1] for label in GOAL_PARTS):7.2f}")
    print(f"goal: <= {GOAL_CPU:.0f} s CPU: {'met' if total <= GOAL_CPU else 'not met'} ({total:.1f} s CPU)")
    shr = mine["shr"]
    print(f"  SHR (Spearman-Brown of the halves' Spearman): {shr['shr_spearman_sb']:.3f}, {CONFIDENCE:.0%} CI "
          f"{shr['ci_low']:.3f}..{shr['ci_high']:.3f}")  # fmt: skip
    print("not in the goal:")
    print(f"  {'per-rater agreement (rater_agreement, the agreement stage)':<62} {med['rater agreement'][0]:7.2f} "
          f"{med['rater agreement'][1]:7.2f}")  # fmt: skip
    fit = mine["fit"]
    if fit is None:
        print("  MaxDiff logit fit: skipped (--no-logit)")
        return
    what = f"MaxDiff logit fit (maxdiff_fit, {fit.n_iterations} L-BFGS-B iterations and Newton steps)"
    print(f"  {what:<62} {med['logit'][0]:7.2f} {med['logit'][1]:7.2f}")
    print(f"    converged: {fit.converged}; {fit.note or 'with standard errors'}")


def report_counting(med: dict, theirs: dict, n_items: int, n_answers: int) -> None:
    ours_cpu = med["ours counting"][0]

    def row(what: str, cpu: float, against: float | None = None) -> None:
        print(f"  {what:<64} {cpu:7.2f}" + ("" if against is None else f"  {ratio(against, cpu)}"))

    print("the counting step (the parsed answers to every item's counting score; CPU s; ratios against ours):")
    row("ours: code_answers + counting_scores", ours_cpu)
    row("numpy: factorize + bincount", med["numpy"][0], ours_cpu)
    if "bwsample" not in theirs:
        print("  bwsample: not installed; skipped")
    else:
        call, built = med["bwsample"][0], med["bwsample input"][0]
        row("bwsample: scoring_orme", call, ours_cpu)
        row("bwsample: its input built + scoring_orme", built + call, ours_cpu)
    if "maxdiff" not in theirs:
        print("  maxdiff: not installed; skipped")
        return
    share, core_share = theirs["maxdiff share"], theirs["maxdiff core share"]
    scaled, core = med["maxdiff"][0] / share, med["maxdiff core"][0] / core_share
    block = round(core_share * n_answers)
    how = "all items" if share == 1 else f"{med['maxdiff'][0]:.2f} s on {round(share * n_items):,} items, scaled"
    row(f"maxdiff: calculate_scores_no_ci ({how})", scaled, ours_cpu)
    how = "all answers" if core_share == 1 else f"{med['maxdiff core'][0]:.2f} s on {block:,} answers, scaled"
    row(f"maxdiff: perform_maxdiff_analysis ({how})", core, ours_cpu)
    row("maxdiff: codes (factorize) + perform_maxdiff_analysis", med["maxdiff codes"][0] + core, ours_cpu)
    memory = block * K * n_items / 2**20
    print(f"    (perform_maxdiff_analysis holds answers x {K} x items booleans: {memory:,.0f} MB for {block:,} answers, "
          f"{n_answers * K * n_items / 2**20:,.0f} MB for all)")  # fmt: skip
    print(f"the CIs: maxdiff's bootstrap_analysis ({RESAMPLES} resamples of the raters, each a perform_maxdiff_analysis "
          f"call; estimated, not run) {RESAMPLES * core:,.0f} s CPU against ours' {med['intervals'][0]:.2f} s: "
          f"{ratio(med['intervals'][0], RESAMPLES * core)}")  # fmt: skip


# -------------------------------------------------------------------------------- main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=25000)
    parser.add_argument("--tuples", type=int, default=50000)
    parser.add_argument("--answers-per-tuple", type=int, default=2)
    parser.add_argument("--raters", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--maxdiff-items", type=int, default=500, help="items maxdiff's count score runs on")
    parser.add_argument("--maxdiff-answers", type=int, default=2000, help="answers its numpy core runs on")
    parser.add_argument("--no-logit", action="store_true", help="leave the MaxDiff fit out")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="simgold-bws-") as tmp:
        path = Path(tmp) / "answers.csv"
        took = time.process_time()
        size = write_answers(path, args.items, args.tuples, args.answers_per_tuple, args.raters, args.seed)
        took = time.process_time() - took
        print(f"answers: {size['answers']:,} ({size['items']:,} items in {size['tuples']:,} {K}-tuples, "
              f"{args.answers_per_tuple} answers each by {size['raters']} simulated raters; seed {args.seed}): "
              f"a K&M CSV of {path.stat().st_size / 2**20:.1f} MB, written in {took:.1f} s CPU")  # fmt: skip
        print(f"(medians of {args.repeat} alternating runs; CPU = user + system seconds of this process; the machine "
              "may be shared with other jobs)")  # fmt: skip
        wide = pd.read_csv(path, dtype=str, keep_default_na=False)
        runs, peak, base = {}, None, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        for _ in range(args.repeat):  # alternately, so that a busy moment hits every side
            mine = ours(path, runs, not args.no_logit)
            peak = peak or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            theirs = peers(wide, runs, args)
    print(f"ours: {mine['kept']:,} answers kept, ledger {mine['ledger']}, balanced: {mine['balanced']}")
    print("values (checked before any timing):")
    for line in checks(mine, theirs, size["answers"]):
        print(f"  {line}")
    med = {label: tuple(statistics.median(x) for x in zip(*values)) for label, values in runs.items()}
    report_ours(med, mine)
    report_counting(med, theirs, size["items"], size["answers"])
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(f"process: {usage.ru_utime + usage.ru_stime:.1f} s CPU in all; peak resident memory {base:.0f} MB after the "
          f"imports and the CSV, {peak:.0f} MB after ours' first run, {usage.ru_maxrss / 1024:.0f} MB in all")  # fmt: skip


if __name__ == "__main__":
    main()
