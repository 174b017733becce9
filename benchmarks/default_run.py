"""The README's first run, timed as a new user meets it (not a test).

    python benchmarks/default_run.py [--ref COMMIT] [--keep DIR] [--jobs 5] [--quick]

In a fresh clone of the repository (the working tree as it is on disk, or ``--ref``'s commit),
the README's first command runs as written, in a user's shell: its setup part
(``python3 -m venv .venv && ... pip install ...``: a real install into a new virtual environment,
every package fetched by pip from the configured index and installed), then its run part
(``snakemake --cores 8``). Timed, each in wall and CPU seconds:

* the setup (the install);
* the dry run before the first run (``snakemake -n``: config checks and the DAG);
* the first run with every job alone (``SIMGOLD_WARM=0``: no warm worker), from nothing: no
  results, and an empty vector store (the clone's own ``.snakemake/simgold-cache``;
  ``SIMGOLD_CACHE`` is unset), so every vector is computed; then all it made is removed;
* the first run as the README runs it (with the run's warm worker), from nothing again;
* the no-op rerun (the same command again: nothing to do).

It prints the slowest jobs of the first run from Snakemake's own records (``.snakemake/metadata``:
each job's start and end) and the machine's load before and after: on a shared machine the
numbers are noisy, and the load says how shared it was. The aims (issue 16, this 2-core machine):
the first run under 2 minutes, the no-op rerun under 5 s.

Then the first run against its floor (issue 42): the floor is its CPU spread over the machine's
CPUs (CPU / CPUs), the ratio its wall time over the floor (on a shared machine, the load inflates
it). And its jobs' start-up: each job's script is run by an interpreter of its own that loads
Snakemake's preamble (``snakemake.script``, ``snakemake.logging``) and the script's module-level
imports before it works. That start-up is timed here, after the run, in the clone's environment as
the run had it (the same variables: under ``PYTHONDONTWRITEBYTECODE`` what the run left of bytecode
is what a job had): a fresh interpreter doing exactly those imports, CPU (user + sys) and peak
resident memory, median of 3 per script; times the run's jobs of each script, over the first run's
CPU, it is the start-up's share (aim: at most 15%). A job the warm worker ran (its log,
``.snakemake/simgold-warm.log``) does in its own process only the preamble and the imports before
its script's ``hand_over()``; the worker's own imports (``simgold.workflow.warm.load_ahead``)
count once. Both runs' CPU include the worker's and its copies' (it is Snakemake's child, reaped
before Snakemake ends).

Last, ``simgold --help`` (the installed console script; ``--quick``: ``simgold.cli`` of the clone run
by this environment's Python) against ``python -c pass``, alternating, 5 times each: CPU and peak
resident memory of the whole process (aim, issue 42: at most 0.15 s).

``--quick`` (for tests): no install and no run; only the dry run, with this environment's snakemake.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import resource
import statistics
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.userpath import fresh_clone, readme_commands, user_shell  # noqa: E402


class Failed(Exception):
    """A step of the README's command failed (the steps timed before it are still printed)."""


def timed(command: str, cwd: Path, env: dict) -> tuple[float, float, str]:
    """Wall and CPU seconds (this process's children: the command and everything it started)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    proc = subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise Failed(f"{command} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return wall, cpu, proc.stdout + proc.stderr


def split_readme_command(command: str) -> tuple[str, str]:
    """The README's first command: its setup (venv, pip) and its run (the final ``snakemake``)."""
    setup, sep, run = command.rpartition(" && snakemake ")
    if not sep:
        sys.exit(f"the README's first command does not end with a snakemake run: {command}")
    return setup, ". .venv/bin/activate && snakemake " + run


def job_times(project: Path) -> list[tuple[float, str, str]]:
    """(seconds, rule, first output) of every job, from Snakemake's metadata (one record per output)."""
    jobs: dict[tuple, list] = {}
    root = project / ".snakemake" / "metadata"
    for record in (p for p in root.rglob("*") if p.is_file()):
        meta = json.loads(record.read_text())
        if meta.get("starttime") is not None and meta.get("endtime") is not None:
            job = jobs.setdefault((meta["rule"], meta["job_hash"]), [])
            job.append((meta["starttime"], meta["endtime"], _output_name(record.relative_to(root))))
    out = []
    for (rule, _), outputs in jobs.items():
        seconds = max(end for _, end, _ in outputs) - min(start for start, _, _ in outputs)
        out.append((seconds, rule, min(name for _, _, name in outputs)))
    return sorted(out, reverse=True)


def _output_name(record: Path) -> str:
    """The output a record is about (a long name is split into directories marked with @)."""
    from base64 import urlsafe_b64decode

    key = "".join(part.removeprefix("@") for part in record.parts)
    try:
        return urlsafe_b64decode(key + "=" * (-len(key) % 4)).decode()
    except ValueError:
        return key


#: what Snakemake's preamble loads in every script job before the script's own imports
PREAMBLE = "import sys, pickle; import snakemake.script; from snakemake.logging import logger"


def rule_scripts(project: Path) -> dict[str, str]:
    """The script of each rule of the workflow's rule files (``rule NAME: ... script: "..."``); a rule
    named by its file (``release_ratings`` of release.smk, made in a loop) by its file's first script."""
    scripts: dict[str, str] = {}
    for smk in sorted((project / "workflow" / "rules").glob("*.smk")):
        text = smk.read_text(encoding="utf-8")
        found = [(m.group(1), m.start()) for m in re.finditer(r"^\s*rule\s*(\w*)\s*:", text, re.M)]
        for i, (name, start) in enumerate(found):
            end = found[i + 1][1] if i + 1 < len(found) else len(text)
            script = re.search(r'script:\s*\n\s*"([^"]+)"', text[start:end])
            if script:
                scripts[name or smk.stem + "_"] = Path(script.group(1)).name
    return scripts


def script_of(rule: str, scripts: dict[str, str]) -> str | None:
    if rule in scripts:
        return scripts[rule]
    return next((s for name, s in scripts.items() if name.endswith("_") and rule.startswith(name)), None)


def module_imports(script: Path, handed_over: bool = False) -> str:
    """The script's module-level import statements, as it runs them before its work; with
    ``handed_over``, those before its ``hand_over()`` call (the rest run in the warm worker's copy)."""
    source = script.read_text(encoding="utf-8")
    nodes = []
    for node in ast.parse(source).body:
        call = isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
        if handed_over and call and getattr(node.value.func, "id", None) == "hand_over":
            break
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            nodes.append(node)
    return "\n".join(ast.get_source_segment(source, n) for n in nodes)


def forget_run(project: Path) -> None:
    """What a run leaves removed (results, logs, the vector store, Snakemake's records, the library's
    bytecode and numba's compiled kernels beside it): the next run starts from nothing as well."""
    made = ["results", "logs", ".snakemake/simgold-cache", ".snakemake/metadata", ".snakemake/simgold-warm.log"]
    made += [str(p.relative_to(project)) for p in (project / "src").rglob("__pycache__")]
    for name in made:
        path = project / name
        shutil.rmtree(path) if path.is_dir() else path.unlink(missing_ok=True)


def served_by_worker(project: Path) -> dict[str, int]:
    """Jobs the run's warm worker ran, per script (its log: one line per job)."""
    log = project / ".snakemake" / "simgold-warm.log"
    lines = log.read_text(encoding="utf-8").splitlines() if log.is_file() else []
    served: dict[str, int] = {}
    for line in lines:
        found = re.search(r" job tmp\w+\.(\w+\.py) \(process", line)  # Snakemake's copy: tmpXXXX.<script>
        if found:
            served[found.group(1)] = served.get(found.group(1), 0) + 1
    return served


def start_up(project: Path, env: dict, script: str, repeats: int = 3, handed_over: bool = False,
             code: str | None = None) -> tuple[float, float]:  # fmt: skip
    """Median CPU seconds and peak RSS (MB) of a fresh interpreter doing what a job of ``script`` does
    before its work: Snakemake's preamble and the script's imports (in the clone's .venv); with
    ``handed_over``, only those its own process does when the warm worker runs it; ``code``: that."""
    if code is None:
        code = PREAMBLE + "\n" + module_imports(project / "workflow" / "scripts" / script, handed_over)
    # and ends as a job ends (simgold.workflow.job: os._exit, without the interpreter's teardown)
    code += "\nimport os, resource\nprint(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, flush=True)\nos._exit(0)"
    python = project / ".venv" / "bin" / "python"
    env = {**env, "PYTHONPATH": str(project / "src")}  # as the Snakefile sets it for its jobs
    cpus, peaks = [], []
    for _ in range(repeats):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        proc = subprocess.run([str(python), "-c", code], cwd=project, env=env, capture_output=True, text=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != 0:
            raise Failed(f"the imports of {script} failed:\n{proc.stderr[-2000:]}")
        cpus.append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
        peaks.append(int(proc.stdout.split()[-1]) / 1024)
    return statistics.median(cpus), statistics.median(peaks)


def start_up_report(project: Path, env: dict, jobs: list[tuple[float, str, str]], first: tuple[float, float]) -> None:
    """The first run against its floor, and its jobs' start-up: per script, and its share of the CPU."""
    wall, cpu = first
    n_cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    floor = cpu / n_cpus
    print(f"\nfirst run: {cpu:.1f} s CPU; floor (CPU / {n_cpus} CPUs) {floor:.1f} s; wall / floor {wall / floor:.2f}x")
    scripts = rule_scripts(project)
    count: dict[str, int] = {}
    for _, rule, _ in jobs:
        key = script_of(rule, scripts) or f"(rule {rule}: no script)"
        count[key] = count.get(key, 0) + 1
    served = served_by_worker(project)
    print(
        "job start-up (a fresh interpreter: Snakemake's preamble and the script's imports, those before its "
        "hand_over() where the warm worker ran the job; median of 3):"
    )
    print(f"  {'script':<16}{'jobs':>6}{'worker':>8}{'CPU s':>8}{'alone':>8}{'peak MB':>9}{'total s':>9}")
    total, each = 0.0, []
    for script, n in sorted(count.items()):
        if script.startswith("("):
            print(f"  {script}: {n} jobs, not timed")
            continue
        warm = min(served.get(script, 0), n)
        seconds, peak = start_up(project, env, script, handed_over=True)
        alone, _ = start_up(project, env, script) if warm < n else (0.0, 0.0)
        total += warm * seconds + (n - warm) * alone
        each += [seconds] * warm + [alone] * (n - warm)
        print(f"  {script:<16}{n:>6}{warm:>8}{seconds:>8.3f}{alone:>8.3f}{peak:>9.0f}"
              f"{warm * seconds + (n - warm) * alone:>9.1f}")  # fmt: skip
    if served:  # the worker's own start-up, once per run: its imports and every script's, as it does them
        folder = project / "workflow" / "scripts"
        preload = f"from simgold.workflow.warm import load_ahead\nassert not load_ahead({str(folder)!r})"
        seconds, peak = start_up(project, env, "", code=preload)
        total += seconds
        print(f"  {'(the worker)':<16}{1:>6}{'':>8}{seconds:>8.3f}{'':>8}{peak:>9.0f}{seconds:>9.1f}")
    if each:
        print(
            f"start-up: {total:.1f} s CPU over {len(each)} jobs (median {statistics.median(each):.3f} s a job; "
            f"{sum(served.values())} run by the warm worker), {total / cpu:.0%} of the first run's CPU "
            "(aim: at most 15%)"
        )


def cpu_and_peak(command: list[str], cwd: Path, env: dict) -> tuple[float, float]:
    """CPU seconds (user + sys) and peak RSS (MB, the child's own ru_maxrss) of one command."""
    wrapped = [sys.executable, "-c", _MEASURED, *command]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(wrapped, cwd=cwd, env=env, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise Failed(f"{command} failed:\n{proc.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu - float(proc.stdout.split()[-2]), float(proc.stdout.split()[-1])


#: runs a command as a child and prints its own CPU (to take off: the wrapper) and the child's peak RSS
_MEASURED = (
    "import resource, subprocess, sys\n"
    "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)\n"
    "me = resource.getrusage(resource.RUSAGE_SELF)\n"
    "print(me.ru_utime + me.ru_stime, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)\n"
)


def help_report(project: Path, env: dict) -> None:
    """``simgold --help`` against ``python -c pass``: alternating, 5 each, medians."""
    script = project / ".venv" / "bin" / "simgold"
    if script.is_file():
        python, command = project / ".venv" / "bin" / "python", [str(script), "--help"]
    else:  # --quick: no install; the clone's simgold.cli, run as the console script runs it
        python, env = Path(sys.executable), {**env, "PYTHONPATH": str(project / "src")}
        command = [str(python), "-c", "import sys; from simgold.cli import main; sys.exit(main(['--help']))"]
    sides: dict[str, list[tuple[float, float]]] = {"simgold --help": [], "python -c pass": []}
    for _ in range(5):
        sides["simgold --help"].append(cpu_and_peak(command, project, env))
        sides["python -c pass"].append(cpu_and_peak([str(python), "-c", "pass"], project, env))
    (ours, ours_mb), (peer, peer_mb) = (
        (statistics.median(c for c, _ in runs), statistics.median(m for _, m in runs)) for runs in sides.values()
    )
    print(
        f"\nsimgold --help: {ours:.3f} s CPU, {ours_mb:.0f} MB peak; python -c pass: {peer:.3f} s CPU, "
        f"{peer_mb:.0f} MB peak; {ours / peer:.1f}x the CPU (aim: at most 0.15 s; median of 5, alternating)"
    )


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def report(rows: list[tuple[str, float, float]], jobs: list[tuple[float, str, str]], slowest: int) -> None:
    print(f"\n{'':<62}{'wall s':>8}{'CPU s':>8}")
    for name, w, c in rows:
        print(f"{name:<62}{w:>8.1f}{c:>8.1f}")
    if jobs:
        print(f"\n{len(jobs)} jobs, {sum(t for t, _, _ in jobs):.0f} s of job time; the slowest:")
        for seconds, rule, output in jobs[:slowest]:
            print(f"  {seconds:6.1f} s  {rule:<20} {output}")
    print(f"\nload after: {load()} (1, 5, 15 min; 2 CPUs: above 2 the machine was shared)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ref", help="clone this commit instead of the working tree")
    parser.add_argument("--keep", type=Path, help="keep the clone (with its results) here")
    parser.add_argument("--jobs", type=int, default=5, help="how many of the slowest jobs to print")
    parser.add_argument("--quick", action="store_true", help="linked packages, setup and dry run only")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="simgold-first-run-"))
    try:
        project = fresh_clone(work / "simgold", args.ref)
        env = {k: v for k, v in user_shell(work).items() if k != "SIMGOLD_CACHE"}
        setup, run = split_readme_command(readme_commands(project)[0])
        print(f"clone of {args.ref or 'the working tree'} in {project}; load before: {load()}")
        print(f"README's first command:\n  setup: {setup}\n  run:   {run}")
        if args.quick:
            command = f"{sys.executable} -m snakemake --cores 8 -n"
            report(
                [("quick: dry run only, this environment's snakemake", *timed(command, project, os.environ)[:2])], [], 0
            )
            help_report(project, dict(os.environ))
            return
        rows: list[tuple[str, float, float]] = []
        try:
            rows.append(("setup (a real install into a new .venv)", *timed(setup, project, env)[:2]))
            rows.append(("dry run before the first run (-n)", *timed(run + " -n", project, env)[:2]))
            assert not (project / ".snakemake" / "simgold-cache").exists(), "the vector store is not empty"
            alone = {**env, "SIMGOLD_WARM": "0"}
            rows.append(("first run, every job alone (SIMGOLD_WARM=0)", *timed(run, project, alone)[:2]))
            forget_run(project)  # from nothing again
            rows.append(("first run (no results, empty vector store)", *timed(run, project, env)[:2]))
            wall, cpu, again = timed(run, project, env)
            rows.append(("no-op rerun", wall, cpu))
        except Failed as failed:
            report(rows, [], 0)
            sys.exit(str(failed))
        if "Nothing to be done" not in again:
            print("warning: the rerun was not a no-op:\n" + again[-2000:])
        jobs = job_times(project)
        report(rows, jobs, args.jobs)
        start_up_report(project, env, jobs, rows[3][1:])
        print(f"the warm worker: the first run's CPU {rows[3][2] / rows[2][2]:.2f}x that of every job alone")
        help_report(project, env)
        if args.keep:
            shutil.copytree(project, args.keep, symlinks=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
