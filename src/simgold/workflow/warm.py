"""The run's warm worker: jobs start in a process that has pandas, pyarrow and Snakemake loaded.

Each job's script is run by an interpreter of its own, which loads Snakemake's preamble and then
the script's imports before it works, most of it pandas and pyarrow: the larger part of a small
job's CPU (docs/benchmarks.md, the default_run section). A run on this machine starts one worker
(``start``, the Snakefile's ``onstart``): a process that imports those modules, and every module
the workflow's scripts import at their top, once, and waits. A job's script first calls
``hand_over``: where the run's worker answers, the worker forks a copy of itself that runs the
job's script file from its start, as a fresh interpreter would (same arguments, working
directory, environment, standard streams, ``sys.path``), and the job's own process only waits for
it and ends with its exit status. Where no worker answers, ``hand_over`` returns and the script
goes on in its own process, as before: nothing else changes.

What makes the copy the same as a fresh interpreter:

* the worker answers only jobs of the same run as itself: its socket's name is a digest of the
  interpreter, the working directory, the environment (but the variables Snakemake sets per job,
  thread counts and temporary folders, ``PER_JOB``, and those a shell sets, ``SHELL_SET``), the
  library's modules (path, size and time of change) and the package folders on ``sys.path``
  (their times of change). A job of another environment (a conda rule, a container, a changed
  module, another machine of a cluster) finds no worker under its name and runs alone;
* the worker has only imported modules: no file opened, nothing computed, no thread pool started
  (BLAS loads on one thread, as in every job: ``simgold.workflow.threads``; the one thread of its
  own is pyarrow's memory allocator's, which is fork-safe). The copy takes the job's environment
  and thread counts as its own (``simgold.workflow.job.run`` sets the pools), Python's ``random``
  reseeds in a forked child, and each job runs in a fresh fork: no job sees another's state;
* the job's exit status and death by a signal are the job process's; if the job's process is
  killed (Snakemake cancels it), the worker ends the copy; if Snakemake ends, the worker does.

``SIMGOLD_WARM=0`` turns the worker off (each job alone). Linux only (the socket is a Unix
socket of the abstract namespace, and only a process of the same user is answered); elsewhere
every job runs alone. The worker writes one line per job it ran to ``.snakemake/simgold-warm.log``.

This module imports nothing beyond Python's standard library: it runs before a job's imports.
"""

from __future__ import annotations

import ast
import gc
import hashlib
import importlib
import json
import os
import resource
import runpy
import select
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import traceback

__all__ = ["LOG", "PER_JOB", "PRELOAD", "SHELL_SET", "address", "hand_over", "load_ahead", "script_imports", "start",
           "stop"]  # fmt: skip

#: environment variables Snakemake (or the job) sets per job: left out of the run's digest
PER_JOB = frozenset(
    {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS",
     "RAYON_NUM_THREADS", "GOTO_NUM_THREADS", "NUMEXPR_NUM_THREADS", "OMP_WAIT_POLICY", "TMPDIR", "TMP", "TEMP",
     "TEMPDIR"}
)  # fmt: skip
#: variables a shell sets for the commands it runs (Snakemake runs a job through one): not Python's
SHELL_SET = frozenset({"_", "PS1", "PS2", "PS4", "SHLVL", "OLDPWD", "PWD", "COLUMNS", "LINES"})
#: what the worker imports once, for every job (and every module its scripts import at their top)
PRELOAD = ("numpy", "pandas", "pyarrow", "pyarrow.parquet", "snakemake.script", "snakemake.logging",
           "simgold.io.tables", "simgold.workflow.job")  # fmt: skip
LOG = os.path.join(".snakemake", "simgold-warm.log")
_CHILD = "SIMGOLD_WARM_CHILD"  # set in the worker's copy: the script's own hand_over then returns
_INT = struct.Struct("<q")
_worker = None  # the Popen of the worker this process started (the Snakefile's process)


def _on() -> bool:
    return sys.platform.startswith("linux") and os.environ.get("SIMGOLD_WARM", "1") != "0"


def address(environ=None) -> bytes:
    """The worker's socket name for a process of this interpreter, directory and environment.

    Parameters
    ----------
    environ : mapping, optional
        The environment (``os.environ`` by default).

    Returns
    -------
    bytes
        An abstract Unix socket name (a NUL byte, then ``simgold-warm-`` and a digest).

    Examples
    --------
    >>> a = address({"HOME": "/h", "OMP_NUM_THREADS": "1"})
    >>> a == address({"HOME": "/h", "OMP_NUM_THREADS": "4"}), a == address({"HOME": "/other"})
    (True, False)
    """
    environ = os.environ if environ is None else environ
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the simgold package
    modules = []
    for folder, dirs, files in os.walk(here):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                st = os.stat(os.path.join(folder, name))
                modules.append((os.path.relpath(os.path.join(folder, name), here), st.st_size, st.st_mtime_ns))
    packages = []  # the package folders (a package installed or removed changes its folder's time)
    for entry in sorted(set(sys.path)):
        if os.path.basename(entry) in ("site-packages", "dist-packages"):
            try:
                packages.append((entry, os.stat(entry).st_mtime_ns))
            except OSError:
                continue
    state = {
        "python": [sys.executable, sys.version],
        "cwd": os.getcwd(),
        "env": sorted((k, v) for k, v in environ.items() if k not in PER_JOB | SHELL_SET and k != _CHILD),
        "simgold": [here, modules],
        "packages": packages,
    }
    digest = hashlib.sha256(json.dumps(state, sort_keys=True).encode()).hexdigest()[:32]
    return b"\0simgold-warm-" + digest.encode()


def _peer_is_me(sock: socket.socket) -> bool:
    """Whether the process at the other end of a Unix socket runs as this process's user."""
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", creds)[1] == os.getuid()


# -------------------------------------------------------------------------------- the job's side


def hand_over() -> None:
    """Run this job in the run's warm worker if one answers: this process then ends with the job's
    exit status. Returns where none answers (the job goes on here) and in the worker's copy."""
    if os.environ.get(_CHILD) or not _on() or not (sys.argv and os.path.isfile(sys.argv[0])):
        return  # in the worker's copy, turned off, or not a script file (the copy runs the file)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        sock.connect(address())
        if not _peer_is_me(sock):
            return
        request = {"argv": sys.argv, "cwd": os.getcwd(), "env": dict(os.environ), "path": sys.path}
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        socket.send_fds(sock, [json.dumps(request).encode()], [0, 1, 2])
        started = sock.recv(_INT.size)
    except OSError:  # no worker for this run (or it just ended): the job runs here
        sock.close()
        return
    if len(started) != _INT.size:  # the worker ended before it began this job: the job runs here
        sock.close()
        return
    (pid,) = _INT.unpack(started)
    try:
        ended = sock.recv(_INT.size)
    except KeyboardInterrupt:  # Ctrl-C reached the job's copy too (one process group); the worker ends it
        os._exit(130)
    if len(ended) != _INT.size:
        print(f"simgold: the warm worker ended while it ran this job (process {pid})", file=sys.stderr, flush=True)
        os._exit(1)
    (status,) = _INT.unpack(ended)
    if status < 0:  # the job died of a signal: so does this process
        signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)
    os._exit(status)


# -------------------------------------------------------------------------------- the run's side


def start(scripts: str | None = None):
    """Start the run's worker (the Snakefile's ``onstart``), unless turned off or not on Linux.

    Parameters
    ----------
    scripts : str, optional
        The workflow's scripts folder: the worker imports what they import at their top, once.

    Returns
    -------
    subprocess.Popen or None
        The worker's process; ``stop`` ends it.
    """
    global _worker
    if not _on() or _worker is not None:
        return _worker
    os.makedirs(os.path.dirname(LOG), exist_ok=True)
    with open(LOG, "w", encoding="utf-8") as log:  # the log of the last run
        command = [sys.executable, "-m", "simgold.workflow.warm", str(os.getpid()), *([scripts] if scripts else [])]
        _worker = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log, close_fds=True)
    return _worker


def stop() -> None:
    """End the run's worker and wait for it (the Snakefile's ``onsuccess`` and ``onerror``)."""
    global _worker
    if _worker is None:
        return
    _worker.terminate()
    try:
        _worker.wait(timeout=30)
    except Exception:  # noqa: BLE001 - whatever stops the wait, the worker must not outlive the run
        _worker.kill()
        _worker.wait()
    _worker = None


def script_imports(folder: str) -> list[str]:
    """The modules the scripts of a folder import at their top level (``import m``, ``from m import x``).

    Parameters
    ----------
    folder : str
        The workflow's scripts folder.

    Returns
    -------
    list of str
        Module names, sorted, each once.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = pathlib.Path(d, "job.py").write_text("import os.path; from json import dumps; f = lambda: 1")
    ...     script_imports(d)
    ['json', 'os.path']
    """
    found = set()
    for name in sorted(os.listdir(folder)):
        if name.endswith(".py"):
            with open(os.path.join(folder, name), encoding="utf-8") as source:
                tree = ast.parse(source.read())
            for node in tree.body:
                if isinstance(node, ast.Import):
                    found.update(alias.name for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    found.add(node.module)
    return sorted(found)


def load_ahead(scripts: str | None = None) -> dict[str, str]:
    """Import what the worker holds for its jobs: ``PRELOAD`` and what the scripts of a folder import
    at their top (``script_imports``), by name, once for all of them.

    Parameters
    ----------
    scripts : str, optional
        The workflow's scripts folder.

    Returns
    -------
    dict of str to str
        The modules that could not be imported, each with why (a job that needs one imports it
        itself, and says why not).
    """
    failed = {}
    for module in [*PRELOAD, *(script_imports(scripts) if scripts and os.path.isdir(scripts) else [])]:
        try:
            importlib.import_module(module)  # what the jobs import: by name, once, for all of them
        except Exception as err:  # noqa: BLE001 - whatever stops it, the job meets it again and says so
            failed[module] = f"{type(err).__name__}: {err}"
    return failed


def _serve(parent: int, scripts: str | None) -> None:
    """The worker: import ``PRELOAD`` and its scripts' imports, then fork a copy per job until told
    to stop or until its parent (the process that started it: Snakemake) is gone."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:  # as a job's process starts: before the imports (some set variables of their own)
        listener.bind(address())
    except OSError:  # a worker of this very run already listens
        return
    listener.listen(64)  # the run's first jobs wait here while the modules load
    for module, why in load_ahead(scripts).items():
        print(f"not loaded ahead: {module} ({why})", flush=True)
    gc.collect()
    gc.freeze()  # the loaded modules' objects: out of the copies' garbage collections, so their pages stay shared
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    stopping = []
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches every process of the run: Snakemake stops this one
    running: dict[int, list] = {}  # the job copies: process id -> [socket of the job's process, script, ended]
    while not stopping or running:
        if stopping and listener.fileno() >= 0:
            listener.close()
        if os.getppid() != parent:  # Snakemake ended without stopping the worker: so do its jobs
            _end(running, list(running))
            stopping.append(True)
        watched = [wake_r, *(conn for conn, _, ended in running.values() if not ended)]
        if listener.fileno() >= 0:
            watched.append(listener)
        ready, _, _ = select.select(watched, [], [], 1.0)
        if wake_r in ready:
            os.read(wake_r, 4096)
        _reap(running)
        _end(running, [pid for pid, job in running.items() if job[0] in ready and _hung_up(job[0])])
        if listener.fileno() >= 0 and listener in ready:
            _accept(listener, running, [listener, wake_r, wake_w])
    own, jobs = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"{time.strftime('%H:%M:%S')} the worker ends; CPU (user + sys): its own {own.ru_utime + own.ru_stime:.2f} s, "
          f"its jobs' copies {jobs.ru_utime + jobs.ru_stime:.2f} s", flush=True)  # fmt: skip


def _end(running: dict, pids: list[int]) -> None:
    """End these job copies (their job's process is gone, or Snakemake is), once each."""
    for pid in pids:
        if not running[pid][2]:
            os.kill(pid, signal.SIGTERM)
            running[pid][2] = True


def _hung_up(conn: socket.socket) -> bool:
    """Whether the job's process closed its end (it sends nothing after its request)."""
    try:
        return not conn.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
    except BlockingIOError:
        return False
    except OSError:
        return True


def _accept(listener: socket.socket, running: dict, own: list) -> None:
    conn, _ = listener.accept()
    try:
        if not _peer_is_me(conn):
            conn.close()
            return
        message, fds, _, _ = socket.recv_fds(conn, 1 << 20, 3)
        request = json.loads(message)
    except (OSError, ValueError):
        conn.close()
        return
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    pid = os.fork()
    if pid == 0:  # the copy keeps none of the worker's sockets and pipes: the job's are its own
        signal.set_wakeup_fd(-1)
        for other in [*own, *(job[0] for job in running.values()), conn]:
            os.close(other) if isinstance(other, int) else other.close()
        _run_job(request, fds)  # never returns
    for fd in fds:
        os.close(fd)
    script = os.path.basename(request["argv"][0]) if request["argv"] else "?"
    running[pid] = [conn, script, False]
    conn.send(_INT.pack(pid))


def _reap(running: dict) -> None:
    while running:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        conn, script, _ = running.pop(pid, (None, "?", True))
        code = os.waitstatus_to_exitcode(status)
        print(f"{time.strftime('%H:%M:%S')} job {script} (process {pid}): exit status {code}", flush=True)
        if conn is not None:
            try:
                conn.send(_INT.pack(code))
            except OSError:
                pass
            conn.close()


def _run_job(request: dict, fds: list[int]) -> None:
    """In the worker's copy: become the job's process and run its script as ``python script`` would."""
    code = 1
    try:
        for signum in (signal.SIGCHLD, signal.SIGTERM):
            signal.signal(signum, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        os.environ[_CHILD] = "1"
        tempfile.tempdir = None  # the job's TMPDIR, read again
        sys.argv[:] = request["argv"]
        sys.path[:] = request["path"]
        runpy.run_path(sys.argv[0], run_name="__main__")
        code = 0
    except SystemExit as err:
        code = err.code if isinstance(err.code, int) else (0 if err.code is None else 1)
        if not isinstance(err.code, (int, type(None))):
            print(err.code, file=sys.stderr)
    except BaseException:  # noqa: BLE001 - as the interpreter does: the traceback, exit status 1
        traceback.print_exc()
        code = 1
    finally:
        try:
            for stream in (sys.stdout, sys.stderr):
                stream.flush()
        finally:
            os._exit(code)


if __name__ == "__main__":
    _serve(int(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else None)
