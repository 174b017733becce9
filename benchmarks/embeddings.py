"""Benchmark of the embedding reader and the model-scoring path on a large file (not a test).

    python benchmarks/embeddings.py [--words 200000] [--dim 300] [--file /tmp/simgold-bench.vec] [--runs 5] [--start spawn]

Writes (once) a synthetic word2vec text file of N words x D dimensions (about 450 MB for the
defaults) that contains every word of WordSim-353 and SimLex-999 (gensim's copies), and, for
gensim's faster paths, the same vectors as a saved KeyedVectors and as word2vec binary (the
preparation is timed and printed: it is a full text load and two writes, paid once per file).
Then, in one run, each side in a fresh process (spawned: it imports only what it uses, so that
its peak memory is its own; ``--start forkserver`` for a smoke run, where the sides fork from one
process that imported them all), the fast sides alternately and `--runs` times (medians):

* ours: the needed words from the text file, one pass over a memory map (2 threads and 1), with
  where the time goes (scan of every line, parse of the kept lines, writing the embeddings table);
  and the workflow job's whole path, which also records the file's SHA-256 in the table's
  provenance: hashed after the read, or on one of the rule's 2 threads meanwhile while the other
  scans (the job's way; and, beside it, while 2 more scan);
* ours with the vector store (``$SIMGOLD_CACHE``, as workflow jobs have it): the first read, which
  scans and writes the file's line index, and a later read through that index (only the needed
  lines are read; simgold.io.lineindex), alone and as the job's path, whose digest the store
  remembers under the file's identity (simgold.io.digests.input_sha256): nothing is hashed, and
  the read has both threads;
* gensim KeyedVectors.load(mmap="r") of the prepared KV, then the needed words looked up: the
  fastest fair alternative (it reads no vectors until asked, but needs the prepared copy);
* gensim load_word2vec_format of the binary copy, and of the text file (once: it takes a minute);
* `cat` and `wc -l` on the text file: the time to read it once;
* the first read (no line index yet: the store empty, the index written), 2 threads and 1 (the
  job's scan: its other thread hashes the file): CPU (user + sys) in the call (``load_model``) and
  of the whole process (interpreter, imports, the call, the table written), and the process's peak
  resident memory (``ru_maxrss``), against `wc -l` and `cat` (each a whole process: the call is
  all they do), with both ratios;
* the scoring path (load + Spearman/Pearson/Kendall on both datasets): ours (full scan, and through
  the line index) against gensim's mmap load + evaluate_word_pairs, with the same scores.

CPU and wall time and peak memory for each; the ratios at the end.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import resource
import shutil
import statistics
import subprocess
import time
from pathlib import Path

import numpy as np

DATASETS = ("wordsim353.tsv", "simlex999.txt")
# beside --file (main sets them), so that runs on other files do not share them
PLACES = {
    "store": "/tmp/simgold-bench-store",  # the vector store (line index, remembered digests) of the runs that use one
    "first": "/tmp/simgold-bench-store-first",  # emptied before each first read
}


def datapath(name: str) -> str:
    """gensim's copy of a dataset, found without importing gensim (``gensim.test.utils.datapath``
    imports it): a spawned side imports this module, and ours should not pay for gensim."""
    import importlib.util

    package = importlib.util.find_spec("gensim").submodule_search_locations[0]
    return os.path.join(package, "test", "test_data", name)


def dataset_pairs(name: str):
    import pandas as pd  # here, not at the top: see datapath

    rows = [
        line.rstrip("\n").split("\t") for line in open(datapath(name), encoding="utf-8") if not line.startswith("#")
    ]
    return pd.DataFrame(
        {
            "item_id": [f"{name}:{k}" for k in range(len(rows))],
            "word1": [r[0] for r in rows],
            "word2": [r[1] for r in rows],
            "mean": [float(r[2]) for r in rows],
        }
    )


def needed() -> list[str]:
    import pandas as pd  # here, not at the top: see datapath

    pairs = [dataset_pairs(name) for name in DATASETS]
    return sorted({w for p in pairs for w in pd.concat([p["word1"], p["word2"]])})


def write_file(path: Path, n_words: int, dim: int, seed: int = 0) -> None:
    words = sorted({w.lower() for w in needed()})
    words += [f"w{k:07d}" for k in range(n_words - len(words))]
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(words))  # the needed words spread through the file
    table = np.array([f"{v:.4f}" for v in np.linspace(-1, 1, 20001)])
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(f"{len(words)} {dim}\n")
        for start in range(0, len(words), 2000):
            block = order[start : start + 2000]
            values = table[rng.integers(0, len(table), size=(len(block), dim))]
            fh.write("".join(f"{words[i]} {' '.join(row)}\n" for i, row in zip(block, values)))


# --------------------------------------------------------------------------------------------
# the sides (each runs in a fresh child process)


def use_store(store: str | None) -> None:
    """The vector store of this process (its line index); None: none, whatever the caller's environment
    says. Also imports what ``load_model`` imports on its first call: each side's library is imported
    before its clock starts (gensim's too), also where Python writes no bytecode (this machine); and
    parses the config schema, as a workflow job has done before it reads a model (the whole-process
    figures include it)."""
    import simgold.io.config  # noqa: F401
    import simgold.io.readers  # noqa: F401
    from simgold.io.schema import load_schema

    load_schema()  # parsed once per process; a job has parsed it (its config checked) before it reads a model

    os.environ["SIMGOLD_CACHE"] = store or "off"


def ours_load(path: str, threads: int | str, digest: str | None = None, store: str | None = None) -> dict:
    """The needed words read and written; with ``digest``, also the file's SHA-256 for the table's
    provenance, as the workflow's job does: "after" the read (a second pass), or "meanwhile" (on a
    thread of its own while the file is scanned, simgold.io.digests.hash_in_background: the job's way);
    with ``store``, the vector store (and the file's line index) there. ``threads="job"``: the rule's
    2, of which the read gets what the digest leaves (simgold.workflow.job.work_threads)."""
    from types import SimpleNamespace

    from simgold.io.embeddings import load_model, needed_words, write_embeddings
    from simgold.io.digests import hash_in_background, provenance
    from simgold.workflow.job import work_threads

    use_store(store)
    words = needed()
    t0, c0 = time.perf_counter(), _cpu()
    if digest == "meanwhile":
        hash_in_background([path])
    if threads == "job":
        threads = work_threads(SimpleNamespace(threads=2))
    table, report = load_model({"path": path}, words, threads=threads)
    t1, c1 = time.perf_counter(), _cpu()
    prov = provenance("embeddings", {}, {}, {"file": path}) if digest else {}
    write_embeddings(table, report, f"{path}.parquet", prov)  # as the workflow's job writes it
    t2 = time.perf_counter()
    wall, cpu = t2 - t0, _cpu() - c0
    have = set(table["word"].tolist())
    found = sum(1 for w in needed_words(words, True) if w in have)
    timings = {**report.timings, "write": t2 - t1}
    return {"wall": wall, "load": t1 - t0, "cpu": cpu, "call": c1 - c0, "found": found, "timings": timings,
            "threads": threads}  # fmt: skip


def gensim_load(path: str, how: str) -> dict:
    from gensim.models import KeyedVectors

    words = needed()
    t0, c0 = time.perf_counter(), _cpu()
    if how == "mmap":
        kv = KeyedVectors.load(path, mmap="r")
    else:
        kv = KeyedVectors.load_word2vec_format(path, binary=how == "binary")
    wanted = {w for word in words for w in (word, word.lower())}
    vectors = {w: np.array(kv[w]) for w in wanted if w in kv.key_to_index}
    return {"wall": time.perf_counter() - t0, "cpu": _cpu() - c0, "found": len(vectors)}


def ours_scores(path: str, threads: int, store: str | None = None) -> dict:
    from simgold.io.embeddings import load_model
    from simgold.stages.scores import ScoringSettings, Vectors, correlation_scores, predictions

    use_store(store)
    t0, c0 = time.perf_counter(), _cpu()
    pairs = {name: dataset_pairs(name) for name in DATASETS}
    table, _ = load_model({"path": path}, needed(), threads=threads)
    vectors, scores = Vectors(table, True, "skip"), {}
    for name, p in pairs.items():
        pred = predictions(name, "bench", p, vectors)
        gold, sim = p["mean"].to_numpy(float), pred["sim"].to_numpy(float)
        rows = correlation_scores(
            name, "bench", gold, sim, len(p), ScoringSettings(0, 0, 0.95)
        )  # gensim has no CIs either
        scores[name] = rows[0][4]
    return {"wall": time.perf_counter() - t0, "cpu": _cpu() - c0, "scores": scores}


def gensim_scores(path: str) -> dict:
    from gensim.models import KeyedVectors

    t0, c0 = time.perf_counter(), _cpu()
    kv = KeyedVectors.load(path, mmap="r")
    scores = {name: kv.evaluate_word_pairs(datapath(name), case_insensitive=True)[1].statistic for name in DATASETS}
    return {"wall": time.perf_counter() - t0, "cpu": _cpu() - c0, "scores": scores}


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _child(func, args, queue) -> None:
    result = func(*args)
    result["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    result["whole"] = _cpu()  # the whole process: interpreter, imports, the side's work
    queue.put(result)


START = {"method": "spawn"}  # how the sides' fresh processes start (--start)
PRELOAD = ["numpy", "pandas", "gensim.models", "simgold.io.embeddings", "simgold.stages.scores"]


def in_child(func, *args) -> dict:
    ctx = mp.get_context(START["method"])
    if START["method"] == "forkserver":  # every side forks from one process that imported all the sides' modules
        ctx.set_forkserver_preload(PRELOAD)
    queue = ctx.Queue()
    child = ctx.Process(target=_child, args=(func, args, queue))
    child.start()
    out = queue.get()
    child.join()
    return out


def command(*argv: str) -> dict:
    """A command's wall and CPU time (its rusage) and peak memory (as GNU time reports it)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run(["/usr/bin/time", "-f", "%M", *argv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    # a command's call is its whole process
    return {"wall": wall, "cpu": cpu, "call": cpu, "whole": cpu, "peak_mb": int(out.stderr.split()[-1]) / 1024}


# --------------------------------------------------------------------------------------------


def prepare(path: Path, args) -> tuple[Path, Path, float]:
    """The text file, and gensim's saved KV and binary copies of it (with the time to make them)."""
    for p, n in ((path, args.words), (Path(f"{path}.half"), args.words // 2)):
        if not p.exists():
            print(f"writing {p} ({n:,} words x {args.dim})...", flush=True)
            write_file(p, n, args.dim)
    kv_path, bin_path = Path(f"{path}.kv"), Path(f"{path}.bin")
    t0 = time.perf_counter()
    if not kv_path.exists() or not bin_path.exists():
        from gensim.models import KeyedVectors

        print("preparing gensim's copies (a full text load, then save and save_word2vec_format)...", flush=True)
        kv = KeyedVectors.load_word2vec_format(str(path))
        kv.save(str(kv_path))
        kv.save_word2vec_format(str(bin_path), binary=True)
        return kv_path, bin_path, time.perf_counter() - t0
    return kv_path, bin_path, float("nan")


def alternate(sides: dict, runs: int) -> dict:
    """Each side ``runs`` times, taking turns; the median of each measure."""
    results: dict = {name: [] for name in sides}
    for _ in range(runs):
        for name, run in sides.items():
            results[name].append(run())
    return {
        name: rs[-1]
        | {
            k: statistics.median(r[k] for r in rs)
            for k in ("wall", "load", "cpu", "call", "whole", "peak_mb")
            if k in rs[0]
        }
        for name, rs in results.items()
    }


def line(name: str, r: dict, base: dict | None = None) -> str:
    text = f"{name:50s} {r['wall']:7.3f} s wall {r['cpu']:7.3f} s CPU {r['peak_mb']:7,.0f} MB peak"
    if base is not None:
        text += f"   {r['wall'] / base['wall']:6.1f}x wall, {r['cpu'] / base['cpu']:5.1f}x CPU of wc -l"
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--words", type=int, default=200_000)
    parser.add_argument("--dim", type=int, default=300)
    parser.add_argument("--file", default="/tmp/simgold-bench.vec")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--only",
        choices=["all", "first-read"],
        default="all",
        help="first-read: only the first read against wc -l and cat (no gensim copies prepared)",
    )
    parser.add_argument(
        "--start",
        choices=["spawn", "forkserver"],
        default="spawn",
        help="spawn (default): each side imports only what it uses, so its peak memory is its own; "
        "forkserver: the sides start in milliseconds, but each one's peak memory includes every side's "
        "modules (for smoke runs)",
    )
    args = parser.parse_args()
    START["method"] = args.start
    path = Path(args.file)
    PLACES["store"], PLACES["first"] = f"{path}.store", f"{path}.store-first"
    if args.only == "first-read":
        if not path.exists():
            print(f"writing {path} ({args.words:,} words x {args.dim})...", flush=True)
            write_file(path, args.words, args.dim)
        command("cat", str(path))  # the same warm page cache for everyone
        report_first_read(alternate(first_read_sides(str(path)), args.runs), args.runs)
        return
    kv_path, bin_path, prep = prepare(path, args)
    size = path.stat().st_size / 2**20
    print(
        f"file: {path}, {args.words:,} words x {args.dim} dimensions, {size:,.0f} MB; {len(needed()):,} dataset words"
    )
    if prep == prep:
        print(f"preparing gensim's KV and binary copies took {prep:.1f} s (once per file)")
    command("cat", str(path))  # the same warm page cache for everyone
    p = str(path)
    store = PLACES["store"]
    shutil.rmtree(store, ignore_errors=True)
    in_child(ours_load, p, "job", "meanwhile", store)  # the store as a job leaves it: line index and digest
    fast = alternate(
        {
            "cat": lambda: command("cat", p),
            "wc -l": lambda: command("wc", "-l", p),
            "ours, 2 threads": lambda: in_child(ours_load, p, 2),
            "ours, 1 thread": lambda: in_child(ours_load, p, 1),
            "index written": lambda: first_read(p),
            "index written, 1 thread": lambda: first_read(p, 1),
            "through the index": lambda: in_child(ours_load, p, 2, None, store),
            "job: hashed after": lambda: in_child(ours_load, p, 2, "after"),
            "job: hashed meanwhile": lambda: in_child(ours_load, p, "job", "meanwhile"),
            "job: hashed meanwhile, 2 scan threads": lambda: in_child(ours_load, p, 2, "meanwhile"),
            "job: index, digest remembered": lambda: in_child(ours_load, p, "job", "meanwhile", store),
            "gensim mmap": lambda: in_child(gensim_load, str(kv_path), "mmap"),
        },
        args.runs,
    )
    binary = alternate({"gensim binary": lambda: in_child(gensim_load, str(bin_path), "binary")}, 1)
    half = in_child(ours_load, f"{path}.half", 2)
    scoring = alternate(
        {
            "ours": lambda: in_child(ours_scores, p, 2),
            "ours, through the line index": lambda: in_child(ours_scores, p, 2, store),
            "gensim": lambda: in_child(gensim_scores, str(kv_path)),
        },
        args.runs,
    )
    text = in_child(gensim_load, p, "text")
    report_reads(fast, binary, half, text, args.runs)
    report_first_read(fast, args.runs)
    report_scoring(fast, scoring, binary, text)


def first_read(path: str, threads: int = 2) -> dict:
    """Our first read with a vector store: the full scan, which writes the file's line index."""
    shutil.rmtree(PLACES["first"], ignore_errors=True)
    return in_child(ours_load, path, threads, None, PLACES["first"])


def first_read_sides(path: str) -> dict:
    return {
        "cat": lambda: command("cat", path),
        "wc -l": lambda: command("wc", "-l", path),
        "index written": lambda: first_read(path),
        "index written, 1 thread": lambda: first_read(path, 1),
    }


def report_first_read(fast: dict, runs: int) -> None:
    """The issue's measure: the first read (the line index written) against wc -l, in the call and whole."""
    wc = fast["wc -l"]
    print(
        f"\nthe first read (no line index yet; the store empty, the index written): CPU (user + sys) in the "
        f"call and of the whole process, peak resident memory of the process (medians of {runs} runs, taking turns)"
    )
    for name, label in (
        ("cat", "cat"),
        ("wc -l", "wc -l"),
        ("index written", "ours, first read, 2 threads"),
        ("index written, 1 thread", "ours, first read, 1 thread (the job's)"),
    ):
        r = fast[name]
        print(
            f"{label:40s} {r['call']:7.3f} s CPU in call {r['whole']:7.3f} s CPU whole {r['peak_mb']:7,.0f} MB peak"
            f"   {r['call'] / wc['call']:5.1f}x in call, {r['whole'] / wc['whole']:5.1f}x whole of wc -l"
        )
    if "timings" in fast["index written"]:
        print(where_the_time_goes(fast["index written"]))


def report_reads(fast, binary, half, text, runs) -> None:
    wc = fast["wc -l"]
    print(f"\nthe needed words from the file (medians of {runs} runs, taking turns; the machine may be shared):")
    print(line("cat", fast["cat"], wc))
    print(line("wc -l", wc, wc))
    for name in ("ours, 2 threads", "ours, 1 thread"):
        print(line(f"{name} (found {fast[name]['found']:,})", fast[name], wc))
        print(where_the_time_goes(fast[name]))
    print(f"{'':8s}peak memory on a file of half the vocabulary: {half['peak_mb']:,.0f} MB")
    print("with the vector store ($SIMGOLD_CACHE): the file's line index (simgold.io.lineindex)")
    print(line("  first read: scan, index written", fast["index written"], wc))
    print(where_the_time_goes(fast["index written"]))
    print(
        line(f"  read through the index (found {fast['through the index']['found']:,})", fast["through the index"], wc)
    )
    print(where_the_time_goes(fast["through the index"]))
    print("the workflow job's path: the same, plus the file's SHA-256 for the table's provenance")
    print(line("  hashed after the read (a second pass)", fast["job: hashed after"], wc))
    job = fast["job: hashed meanwhile"]
    scan = f"{job['threads']} scan thread{'s' if job['threads'] > 1 else ''}"
    print(line(f"  hashed meanwhile, {scan} (the job's way)", job, wc))
    print(line("  hashed meanwhile, 2 scan threads (3 on 2)", fast["job: hashed meanwhile, 2 scan threads"], wc))
    rerun = fast["job: index, digest remembered"]
    print(line(f"  a rerun: the index, digest remembered, {rerun['threads']} threads", rerun, wc))
    print(line(f"gensim KeyedVectors.load(mmap='r') (found {fast['gensim mmap']['found']:,})", fast["gensim mmap"], wc))
    print(line("gensim load_word2vec_format, binary (1 run)", binary["gensim binary"], wc))
    print(line("gensim load_word2vec_format, text (1 run)", text, wc))


def where_the_time_goes(r: dict) -> str:
    t = r["timings"]
    parts = [
        f"scan of every line {t['scan']:.3f} s (summed over threads)" if "scan" in t else None,
        f"line index written {t['index written']:.3f} s" if "index written" in t else None,
        f"index looked up and lines checked {t['index']:.3f} s" if "index" in t else None,
        f"parse of the kept lines {t['parse']:.3f} s",
        f"write of the table {t['write']:.3f} s (the load alone: {r['load']:.3f} s wall)",
    ]
    return f"{'':8s}where the time goes: " + ", ".join(part for part in parts if part)


def report_scoring(fast, scoring, binary, text) -> None:
    wc, ours, indexed, g = fast["wc -l"], fast["ours, 2 threads"], fast["through the index"], fast["gensim mmap"]
    meanwhile2 = fast["job: hashed meanwhile, 2 scan threads"]
    print("\nscoring path (load + Spearman/Pearson/Kendall on WordSim-353 and SimLex-999):")
    for name, r in scoring.items():
        s = r["scores"]
        print(line(name, r) + f"   Spearman {s['wordsim353.tsv']:.4f} / {s['simlex999.txt']:.4f}")
    print(
        f"\nratios (wall): ours / wc -l = {ours['wall'] / wc['wall']:.1f}x; "
        f"through the line index / wc -l = {indexed['wall'] / wc['wall']:.2f}x; "
        f"full scan / through the index = {ours['wall'] / indexed['wall']:.1f}x; "
        f"first read with the index written / without = {fast['index written']['wall'] / ours['wall']:.2f}x; "
        f"gensim mmap / ours = {g['wall'] / ours['wall']:.2f}x, "
        f"/ ours through the index = {g['wall'] / indexed['wall']:.2f}x, / its load alone (no table written, as "
        f"gensim's side) = {g['wall'] / indexed['load']:.2f}x (fastest fair alternative; it needs the "
        f"prepared copy); gensim binary / ours = {binary['gensim binary']['wall'] / ours['wall']:.0f}x; "
        f"gensim text / ours = {text['wall'] / ours['wall']:.0f}x; "
        f"scoring path gensim / ours = {scoring['gensim']['wall'] / scoring['ours']['wall']:.2f}x, "
        f"/ ours through the index = {scoring['gensim']['wall'] / scoring['ours, through the line index']['wall']:.2f}x; "
        f"job with the digest, after / meanwhile = "
        f"{fast['job: hashed after']['wall'] / fast['job: hashed meanwhile']['wall']:.2f}x; "
        f"job hashed meanwhile, 2 scan threads / 1 = "
        f"{meanwhile2['wall'] / fast['job: hashed meanwhile']['wall']:.2f}x wall, "
        f"{meanwhile2['cpu'] / fast['job: hashed meanwhile']['cpu']:.2f}x CPU; "
        f"job's rerun (index, digest remembered) / wc -l = {fast['job: index, digest remembered']['wall'] / wc['wall']:.2f}x"
    )


if __name__ == "__main__":
    main()
