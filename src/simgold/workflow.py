"""Glue between Snakemake scripts and the library: logging into the rule's log, clean errors,
and provenance for Parquet metadata. Scripts stay thin: read ``snakemake``, call the library."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

from .errors import SimgoldError
from .tables import provenance
from .threads import limit_threads
from .vectorcache import DEFAULT as DEFAULT_STORE


def run(snakemake, main) -> None:
    """Run ``main(snakemake, log)`` with logging to the rule's log file.

    A :class:`SimgoldError` (bad input or config) is written to the log and to stderr as one clear
    line and ends the job with exit status 1; anything else is a bug and keeps its traceback.
    BLAS and OpenMP thread pools are limited to the job's threads (``simgold.threads``); computed
    vectors are kept in the store under .snakemake/ unless $SIMGOLD_CACHE says otherwise.
    """
    limit_threads(snakemake.threads)
    os.environ.setdefault("SIMGOLD_CACHE", DEFAULT_STORE)
    log = logging.getLogger(f"simgold.{snakemake.rule}")
    log.setLevel(logging.INFO)
    log.handlers.clear()
    fmt = logging.Formatter("%(levelname)s %(message)s")
    targets = [logging.StreamHandler(sys.stderr)]
    if snakemake.log:
        Path(snakemake.log[0]).parent.mkdir(parents=True, exist_ok=True)
        targets.append(logging.FileHandler(snakemake.log[0], mode="w", encoding="utf-8"))
    for handler in targets:
        handler.setFormatter(fmt)
        log.addHandler(handler)
    try:
        main(snakemake, log)
    except SimgoldError as err:
        log.error("%s", err)
        raise SystemExit(1) from None


def input_label(path: str) -> str:
    """How an input is named in provenance: never an absolute path of this machine."""
    p = Path(path)
    if not p.is_absolute():
        return str(path)
    try:
        return str(p.relative_to(Path.cwd()))
    except ValueError:
        pass
    parts = p.parts
    if "site-packages" in parts:
        return "pkg:" + "/".join(parts[parts.index("site-packages") + 1 :])
    return p.name


def provenance_for(snakemake, params: dict | None = None) -> dict:
    inputs = {input_label(str(f)): str(f) for f in snakemake.input}
    if params is None:
        params = {k: v for k, v in snakemake.params.items()}
    return provenance(snakemake.rule, dict(snakemake.wildcards.items()), params, inputs)
