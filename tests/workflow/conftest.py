"""The default run the workflow tests share: the README's first command, run once per test session.

``readme_run`` is session-scoped and built once for the whole session, whichever worker process of
pytest-xdist (pyproject's addopts) asks for it first: that worker runs it under a lock in the directory
the workers share, the others wait for it and take the finished run from there (its output as a file).
Every test that checks the default run reads it (``default_run``) or starts from it (a copy of it,
or its vector store: ``warm_store``); none runs the default config from an empty checkout again.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from ..userpath import bash, fresh_clone, readme_commands, seed_environment, user_shell

#: the BLAS kernel the README's run uses, and the one its archive is rebuilt under: two machines'
#: arithmetic on one (both kernels run on any CPU with AVX2; they round float products differently)
BUILT_UNDER, REBUILT_UNDER = "Haswell", "Sandybridge"


def _readme_run_in(work: Path) -> SimpleNamespace:
    """The README's first command, as written, in a git clone under ``work`` with `.venv` inside it
    (under the BLAS kernel BUILT_UNDER); what it printed is kept beside it (``run.json``)."""
    project = fresh_clone(work / "simgold")
    env = {**user_shell(work), "OPENBLAS_CORETYPE": BUILT_UNDER}
    started = time.monotonic()  # CLOCK_MONOTONIC: one clock for every process of the machine
    bash("python3 -m venv --without-pip .venv", project, env)
    seed_environment(project / ".venv")
    run_command, archive_lines = readme_commands()
    proc = bash(run_command, project, env)
    record = {"args": proc.args, "stdout": proc.stdout, "stderr": proc.stderr, "started": started,
              "warm_log": _text(project / ".snakemake" / "simgold-warm.log"), "jobs": _jobs_run(project)}  # fmt: skip
    (work / "run.json").write_text(json.dumps({**record, "env": env, "archive_lines": archive_lines}))
    return _finished(work)


def _text(path: Path) -> str | None:
    return path.read_text(encoding="utf-8") if path.is_file() else None


def _jobs_run(project: Path) -> int:
    """The jobs a run ran, from Snakemake's own records (one per output: a job's outputs share its hash)."""
    records = (p for p in (project / ".snakemake" / "metadata").rglob("*") if p.is_file())
    return len({(meta["rule"], meta["job_hash"]) for meta in map(json.loads, (p.read_text() for p in records))})


def _finished(work: Path) -> SimpleNamespace:
    """The run made by ``_readme_run_in(work)``, read back from its record."""
    record = json.loads((work / "run.json").read_text())
    proc = subprocess.CompletedProcess(record["args"], 0, record["stdout"], record["stderr"])
    return SimpleNamespace(project=work / "simgold", work=work, env=record["env"], run=proc,
                           archive_lines=record["archive_lines"], started=record["started"],
                           warm_log=record["warm_log"], jobs=record["jobs"])  # fmt: skip


@pytest.fixture(scope="session")
def readme_run(tmp_path_factory):
    """The README's first command, as written, in a git clone with `.venv` inside it (under the
    BLAS kernel BUILT_UNDER): once per session, shared by every worker process."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):  # no worker processes (-n 0): this process's own directory
        return _readme_run_in(tmp_path_factory.mktemp("user"))
    shared = tmp_path_factory.getbasetemp().parent  # the directory every worker's own lies in
    work = shared / "readme-run"
    with open(shared / "readme-run.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the first worker runs it; the others wait here for it
        try:
            if (work / "run.json").is_file():
                return _finished(work)
            if work.exists():
                pytest.fail(f"the README's run in {work} failed in another worker process (its error is there)")
            work.mkdir()
            return _readme_run_in(work)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def default_run(readme_run) -> Path:
    """The checkout of the README's run, every result of the default config built."""
    return readme_run.project


@pytest.fixture(scope="session")
def warm_store(readme_run) -> dict:
    """This process's environment, with the vector store of the README's first run (its vectors
    computed from an empty store)."""
    return {
        **os.environ,
        "SIMGOLD_CACHE": str(readme_run.project / ".snakemake" / "simgold-cache"),
        "OPENBLAS_CORETYPE": BUILT_UNDER,  # the first run's kernel: its stored vectors are found, its tables matched
    }
