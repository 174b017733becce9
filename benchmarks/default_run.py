"""The README's first run, timed as a new user meets it (not a test).

    python benchmarks/default_run.py [--ref COMMIT] [--keep DIR] [--jobs 5] [--quick]

In a fresh clone of the repository (the working tree as it is on disk, or ``--ref``'s commit),
the README's first command runs as written, in a user's shell: its setup part
(``python3 -m venv .venv && ... pip install ...``: a real install into a new virtual environment,
every package fetched by pip from the configured index and installed), then its run part
(``snakemake --cores 8``). Timed, each in wall and CPU seconds:

* the setup (the install);
* the dry run before the first run (``snakemake -n``: config checks and the DAG);
* the first run, from nothing: no results, and an empty vector store (the clone's own
  ``.snakemake/simgold-cache``; ``SIMGOLD_CACHE`` is unset), so every vector is computed;
* the no-op rerun (the same command again: nothing to do).

It prints the slowest jobs of the first run from Snakemake's own records (``.snakemake/metadata``:
each job's start and end) and the machine's load before and after: on a shared machine the
numbers are noisy, and the load says how shared it was. The aims (issue 16, this 2-core machine):
the first run under 2 minutes, the no-op rerun under 5 s.

``--quick`` (for tests): no install and no run; only the dry run, with this environment's snakemake.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
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
            return
        rows: list[tuple[str, float, float]] = []
        try:
            rows.append(("setup (a real install into a new .venv)", *timed(setup, project, env)[:2]))
            rows.append(("dry run before the first run (-n)", *timed(run + " -n", project, env)[:2]))
            assert not (project / ".snakemake" / "simgold-cache").exists(), "the vector store is not empty"
            rows.append(("first run (no results, empty vector store)", *timed(run, project, env)[:2]))
            wall, cpu, again = timed(run, project, env)
            rows.append(("no-op rerun", wall, cpu))
        except Failed as failed:
            report(rows, [], 0)
            sys.exit(str(failed))
        if "Nothing to be done" not in again:
            print("warning: the rerun was not a no-op:\n" + again[-2000:])
        report(rows, job_times(project), args.jobs)
        if args.keep:
            shutil.copytree(project, args.keep, symlinks=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
