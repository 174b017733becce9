"""Benchmark of cleaning at crowd scale (not a test; prints timings, memory and the ratio).

    python benchmarks/clean.py [--raters 1000] [--items 2000] [--density 0.1] [--repeats 3]

A synthetic wide TSV sheet: two word columns and one column per rater, each rater rating a random
share of the items (half points on a 0-6 scale), the other cells empty; one cell in a thousand is
a typing slip (off the scale, or not a number) so that the ledger has work. Each side runs in its
own fresh process, alternately, and the medians are printed: CPU time (user + sys) of the call
alone and of the whole process (interpreter start, imports, writing the sheet's result), and the
process's peak resident memory (its own ``ru_maxrss``):

* ours: ``simgold.stages.clean.clean_dataset`` on the sheet: every cell classified, each empty or bad
  cell in the ledger with its row, column and reason, duplicates resolved, the file's non-blank
  cells counted and the ledger balanced against them;
* peer: the fairest alternative a user could write, pandas ``read_csv`` (every cell as text) +
  ``melt`` + ``to_numeric`` and a scale filter, keeping the same ledger: every header cell
  (``ignored_row``), every empty cell (``missing``, or ``empty_rater`` for a rater column with no
  value), every value that is not a number (``non_numeric``) or off the scale (``out_of_scale``),
  each with its file, row, column and raw value; repeated word pairs are looked for, and the
  non-blank cells are counted and balanced against the accepted ratings, the ledger and the word
  cells. Its ledger's counts per reason are checked against ours.

The ratios printed are peer / ours: CPU in call, CPU of the whole process, and peak memory;
above 1, ours is the faster (or the smaller).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def write_sheet(path: Path, raters: int, items: int, density: float, seed: int = 0) -> int:
    """The sheet as a TSV file; returns the number of rating cells."""
    rng = np.random.default_rng(seed)
    rated = rng.random((items, raters)) < density
    scores = rng.integers(0, 13, (items, raters)) / 2
    slips = rng.random((items, raters)) < 0.001
    header = "w1\tw2\t" + "\t".join(f"r{k:04d}" for k in range(1, raters + 1))
    lines = [header]
    for i in range(items):
        cells = [
            ("7" if scores[i, j] > 3 else "x") if slips[i, j] else f"{scores[i, j]:g}" if rated[i, j] else ""
            for j in range(raters)
        ]
        lines.append(f"word{i}\tother{i}\t" + "\t".join(cells))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return int(rated.sum())


def ours(path: Path) -> dict:
    from simgold.stages.clean import clean_dataset

    spec = {
        "language": "en",
        "kind": "ratings",
        "scale": [0, 6],
        "sources": [{"path": path.name, "words": ["w1", "w2"], "raters": "^r\\d+$"}],
    }
    t0, c0 = time.perf_counter(), time.process_time()
    tables = clean_dataset("bench", spec, base_dir=str(path.parent))
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    s = tables["summary"].iloc[0]
    return {
        "seconds": elapsed,
        "cpu_call": cpu,
        "accepted": int(s.n_ratings),
        "ledger": int(s.n_rejects),
        "balanced": bool(s.ledger_balanced),
        "reasons": {k: int(v) for k, v in tables["rejects"]["reason"].value_counts().sort_index().items()},
    }


def peer(path: Path) -> dict:
    import pandas as pd

    t0, c0 = time.perf_counter(), time.process_time()
    wide = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)
    words = ["w1", "w2"]
    raters = [c for c in wide.columns if c not in words]
    wide["source_row"] = np.arange(2, len(wide) + 2)  # the header is row 1
    header = pd.DataFrame({"source_row": 1, "column": wide.columns[:-1], "raw_value": wide.columns[:-1]})
    header["reason"] = "ignored_row"
    long = wide.melt(id_vars=[*words, "source_row"], value_vars=raters, var_name="column", value_name="raw_value")
    score = pd.to_numeric(long["raw_value"], errors="coerce")
    empty = long["raw_value"] == ""
    reason = pd.Series(pd.NA, index=long.index, dtype="object")
    reason[empty] = "missing"
    reason[empty & ~(~empty).groupby(long["column"]).transform("any")] = "empty_rater"
    reason[~empty & score.isna()] = "non_numeric"
    reason[score.notna() & ~score.between(0, 6)] = "out_of_scale"
    long["reason"] = reason
    bad = long["reason"].notna()
    ledger = pd.concat([header, long.loc[bad, ["source_row", "column", "raw_value", "reason"]]], ignore_index=True)
    ledger.insert(0, "source_file", path.name)
    accepted = long.loc[~bad, [*words, "column", "source_row"]].assign(score=score[~bad], source_file=path.name)
    duplicates = int(wide.duplicated(words).sum())
    raw_cells = int((wide[wide.columns[:-1]] != "").to_numpy().sum()) + len(header)
    label_cells = int((wide[words] != "").to_numpy().sum())
    balanced = len(accepted) + int((ledger["raw_value"] != "").sum()) + label_cells == raw_cells
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {
        "seconds": elapsed,
        "cpu_call": cpu,
        "accepted": len(accepted),
        "ledger": len(ledger),
        "balanced": bool(balanced and duplicates == 0),
        "reasons": ledger["reason"].value_counts().sort_index().to_dict(),
    }


def child(side: str, path: str) -> None:
    import pandas  # noqa: F401  (imported before the baseline, as both sides need it)

    if side == "ours":  # the peer needs none of simgold: its whole process does not pay for it
        import simgold.stages.clean  # noqa: F401

    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = {"ours": ours, "peer": peer}[side](Path(path))
    result["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    result["base_mb"] = base / 1024
    print(json.dumps(result))


def run(side: str, path: Path) -> dict:
    """One side in a fresh process: its result, with the CPU (user + sys) of the whole process."""
    proc = subprocess.Popen([sys.executable, __file__, "--child", side, str(path)], stdout=subprocess.PIPE, text=True)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)  # this child's own rusage, not every child's so far
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"the {side} side failed (exit {proc.returncode})")
    result = json.loads(out.strip().splitlines()[-1])
    result["cpu_whole"] = usage.ru_utime + usage.ru_stime
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--raters", type=int, default=1000)
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--density", type=float, default=0.10)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(*args.child)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "crowd.tsv"
        n = write_sheet(path, args.raters, args.items, args.density)
        size = path.stat().st_size / 2**20
        print(
            f"sheet: {args.raters} raters x {args.items} items, density {args.density:.0%}: {n:,} ratings, {size:.1f} MB"
        )
        runs = {"ours": [], "peer": []}
        for _ in range(args.repeats):  # alternately, so that a busy moment hits both sides
            for side in runs:
                runs[side].append(run(side, path))
    report(runs)


def report(runs: dict) -> None:
    med = {
        side: {
            k: statistics.median(r[k] for r in rs) for k in ("seconds", "cpu_call", "cpu_whole", "peak_mb", "base_mb")
        }
        for side, rs in runs.items()
    }
    o, p = runs["ours"][0], runs["peer"][0]
    for side, what, r in (
        ("ours", "clean_dataset", o),
        ("peer", "pandas read_csv + melt + to_numeric with the ledger", p),
    ):
        m = med[side]
        print(
            f"{side}: {what}: CPU {m['cpu_call']:.2f} s in call, {m['cpu_whole']:.2f} s whole process"
            f" (wall {m['seconds']:.2f} s in call), peak RSS {m['peak_mb']:.0f} MB ({m['base_mb']:.0f} MB after"
            f" imports), medians of {len(runs[side])}; {r['accepted']:,} ratings accepted, {r['ledger']:,} ledger"
            f" rows, ledger balanced: {r['balanced']}"
        )
    print(f"the same ledger (rows per reason): {o['reasons'] == p['reasons']} ({o['reasons']})")
    ratios = {k: med["peer"][k] / med["ours"][k] for k in ("cpu_call", "cpu_whole", "peak_mb")}
    print(
        f"ratio peer / ours (above 1: ours faster or smaller): CPU in call {ratios['cpu_call']:.2f}x, CPU whole"
        f" process {ratios['cpu_whole']:.2f}x, peak memory {ratios['peak_mb']:.2f}x"
    )


if __name__ == "__main__":
    main()
