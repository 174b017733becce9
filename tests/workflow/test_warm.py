"""The run's warm worker (src/simgold/workflow/warm.py): a job it runs is the job a fresh
interpreter runs, with the job process's streams, arguments, directory, environment and exit status;
a job of another environment runs alone; nothing outlives the job's process or the run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from simgold.workflow.warm import PER_JOB, PRELOAD, address

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the worker's socket is Linux's")

SRC = str(Path(__file__).resolve().parents[2] / "src")

#: a job's script: hands over, then says where it runs and what it was given
JOB = textwrap.dedent(
    """
    import os, sys
    from simgold.workflow.warm import hand_over

    hand_over()
    import pandas  # already loaded in the worker's copy
    print("ran", os.getpid(), os.getppid(), os.environ.get("SIMGOLD_WARM_CHILD"), os.getcwd(), sys.argv[1:],
          os.environ.get("OMP_NUM_THREADS"), os.environ.get("TMPDIR"), sep="|", flush=True)
    print("to stderr", file=sys.stderr, flush=True)
    what = sys.argv[1]
    if what == "sleep":
        open("job.pid", "w").write(str(os.getpid()))
        import time
        time.sleep(60)
    if what == "signal":
        os.kill(os.getpid(), 15)
    if what == "raise":
        raise ValueError("a bug in the job")
    sys.exit(int(what))
    """
)


def _env(tmp_path: Path, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in PER_JOB and not k.startswith("SIMGOLD_WARM")}
    return {**env, "PYTHONPATH": SRC, "HOME": str(tmp_path), **extra}


@pytest.fixture
def worker(tmp_path):
    """A worker started as the Snakefile starts it (``python -m simgold.workflow.warm``), in ``tmp_path``."""
    (tmp_path / "job.py").write_text(JOB, encoding="utf-8")
    env = _env(tmp_path)
    proc = subprocess.Popen([sys.executable, "-m", "simgold.workflow.warm", str(os.getpid())], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)  # fmt: skip
    deadline = time.monotonic() + 60
    while not _served(proc, tmp_path, env):  # ready once a job's parent is the worker
        assert time.monotonic() < deadline and proc.poll() is None, "the worker did not start"
        time.sleep(0.2)
    yield proc, env
    proc.terminate()
    proc.wait(timeout=30)
    assert proc.returncode == 0


def _served(proc, tmp_path, env) -> bool:
    out = subprocess.run([sys.executable, "job.py", "0"], cwd=tmp_path, env=env, capture_output=True, text=True)
    return out.stdout.split("|")[2] == str(proc.pid)  # the job's parent: the worker


def _job(tmp_path, env, *args, **kwargs):
    return subprocess.run([sys.executable, "job.py", *args], cwd=tmp_path, env=env, capture_output=True, text=True,
                          **kwargs)  # fmt: skip


def test_the_worker_runs_the_job_as_its_own_process_would(worker, tmp_path):
    proc, env = worker
    job_env = {**env, "OMP_NUM_THREADS": "2", "TMPDIR": str(tmp_path)}  # set by Snakemake per job
    out = _job(tmp_path, job_env, "3", "x y")
    assert out.returncode == 3
    ran, pid, parent, child, cwd, args, threads, tmp = out.stdout.rstrip("\n").split("|")
    assert ran == "ran" and parent == str(proc.pid) and child == "1"  # the worker's copy ran it
    assert cwd == str(tmp_path) and args == "['3', 'x y']"
    assert threads == "2" and tmp == str(tmp_path)
    assert out.stderr == "to stderr\n"  # the job process's own stderr
    failed = _job(tmp_path, env, "raise")
    assert failed.returncode == 1 and failed.stderr.rstrip().endswith("ValueError: a bug in the job")
    killed = _job(tmp_path, env, "signal")
    assert killed.returncode == -signal.SIGTERM  # the job process dies of the job's signal
    proc.terminate()
    lines = [line for line in proc.communicate(timeout=30)[0].splitlines() if " job job.py " in line]
    assert [line.split(": ")[-1] for line in lines[-3:]] == ["exit status 3", "exit status 1", "exit status -15"]


def test_a_job_of_another_environment_or_with_the_worker_off_runs_alone(worker, tmp_path):
    proc, env = worker
    for other in ({**env, "SOMETHING": "else"}, {**env, "SIMGOLD_WARM": "0"}):
        out = _job(tmp_path, other, "0")
        assert out.returncode == 0
        assert out.stdout.split("|")[2] != str(proc.pid) and out.stdout.split("|")[3] == "None"  # its own process
    module = Path(SRC) / "simgold" / "errors.py"
    before = module.stat()
    os.utime(module, ns=(before.st_atime_ns, before.st_mtime_ns + 10**9))  # changed: no longer the worker's
    try:
        out = _job(tmp_path, env, "0")
        assert out.returncode == 0 and out.stdout.split("|")[2] != str(proc.pid)
    finally:
        os.utime(module, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert _served(proc, tmp_path, env)  # as it was: the worker's again


def test_a_killed_job_process_ends_the_job_and_an_orphaned_worker_ends(worker, tmp_path):
    proc, env = worker
    client = subprocess.Popen([sys.executable, "job.py", "sleep"], cwd=tmp_path, env=env, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while not (tmp_path / "job.pid").is_file() or not (tmp_path / "job.pid").read_text():
        assert time.monotonic() < deadline
        time.sleep(0.1)
    copy = int((tmp_path / "job.pid").read_text())
    assert copy != client.pid
    client.kill()  # as Snakemake cancels a job
    client.wait()
    assert _gone(copy), "the job's copy outlived its process"
    # a worker whose parent (Snakemake) ends without stopping it ends too
    parent = subprocess.run(
        [sys.executable, "-c", "import subprocess, sys; p = subprocess.Popen([sys.executable, '-m', "
         "'simgold.workflow.warm', str(__import__('os').getpid())], stdout=subprocess.DEVNULL); print(p.pid)"],
        cwd=tmp_path, env={**env, "HOME": str(tmp_path / "other")}, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert _gone(int(parent.stdout)), "the orphaned worker did not end"


def _gone(pid: int, seconds: float = 20) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:  # a zombie child of this process counts as gone
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                return True
        except ChildProcessError:
            pass
        time.sleep(0.1)
    return False


def test_the_address_leaves_out_only_what_snakemake_sets_per_job():
    base = {"HOME": "/h", "PATH": "/bin"}
    assert {address({**base, var: "9"}) for var in PER_JOB} == {address(base)}
    assert address({**base, "PYTHONPATH": "/elsewhere"}) != address(base)
    assert address(base).startswith(b"\0simgold-warm-")


def test_the_worker_loads_what_the_scripts_import_and_names_what_it_cannot(tmp_path):
    """What the worker holds for its jobs (``load_ahead``): PRELOAD and each module the scripts import
    at their top, in a fresh interpreter as the worker starts; a module that cannot be imported is
    named with why, and the others are loaded all the same."""
    (tmp_path / "a.py").write_text("import wave\nfrom simgold.report.rocrate import ro_crate\nimport no_such_module_here\n")
    (tmp_path / "b.py").write_text("def f():\n    import imaplib  # not at the top: not loaded ahead\n")
    code = (
        "import sys\nfrom simgold.workflow.warm import load_ahead\n"
        f"failed = load_ahead({str(tmp_path)!r})\n"
        "print(repr(failed))\n"
        f"print(sorted(m for m in {['wave', 'simgold.report.rocrate', 'imaplib', *PRELOAD]!r} if m in sys.modules))\n"
    )
    env = {**os.environ, "PYTHONPATH": SRC}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    failed, loaded = out.stdout.splitlines()
    assert failed == repr({"no_such_module_here": "ModuleNotFoundError: No module named 'no_such_module_here'"})
    assert loaded == repr(sorted(["wave", "simgold.report.rocrate", *PRELOAD]))
