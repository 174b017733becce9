"""What a finished run says last (the Snakefile's ``onsuccess``): the values cleaning rejected, the
release warnings, no licence for the archive, then where the results are or what a targeted run made.

Apart from ``simgold.workflow.routing``, which the Snakefile imports at every parse: the rejected
values are read from the cleaning summaries (pandas and pyarrow), once, at the end of a run; the
Snakefile's ``onsuccess`` imports this module there.
"""

from __future__ import annotations

from pathlib import Path

from simgold.io.ledger import rejection_line
from simgold.io.paths import result
from simgold.io.tables import read_parquet
from simgold.workflow.routing import (
    RELEASE_RULES,
    Stages,
    archive_licence_warning,
    asked_for,
    datasets_of,
    finished_message,
    release_report,
    withheld_warning,
)

__all__ = ["last_lines"]


def _rejection_report(cleaned: list[str]) -> str:
    """For the end of a run: one line per cleaned dataset whose cleaning rejected values (from its
    cleaning summary; simgold.io.ledger.rejection_line), and where the ledger is; empty when
    none was rejected or no summary was made."""
    lines = []
    for d in cleaned:
        path = Path(result("clean", dataset=d, table="summary"))
        line = rejection_line(read_parquet(path).iloc[0]) if path.is_file() else None
        if line:
            lines.append(f"  {line}")
    if not lines:
        return ""
    where = result("clean", dataset="{dataset}", table="rejects")
    return "\n".join(
        ["", f"simgold: values rejected by cleaning (every one, with file, row and column: {where}):", *lines]
    )


def last_lines(
    routing: Stages,
    targets: list[str],
    rule_outputs: dict[str, list[str]],
    jobs: list[tuple[str, dict]] | None,
    *,
    archive: str,
    archive_license: str | None,
) -> str:
    """What a finished run says last (the Snakefile's ``onsuccess``): the values cleaning rejected
    (``_rejection_report``), the release warnings (``release_report``), no licence for the archive
    (a whole run only: ``archive_licence_warning``), then where the results are or, for a targeted
    run, what it made (``finished_message``). Rejections and release warnings are said for the
    datasets whose cleaning and release jobs are in the run's ``jobs`` (each job's rule name and
    wildcards: run or already done); for every dataset where the jobs are not known (None).
    ``targets``: as named on the command line; ``rule_outputs``: rule -> its output files;
    ``archive``: the archive's path (``results/archive/{name}.tar.gz``).

    Parameters
    ----------
    routing : Stages
        The run's stages, from ``simgold.workflow.routing.stages`` of the resolved config.
    targets : list[str]
        The targets as named on the command line (rules or paths; empty: the whole workflow).
    rule_outputs : dict[str, list[str]]
        Rule name -> its output files.
    jobs : list[tuple[str, dict]] | None
        (rule name, wildcards) of each job of the run, run or already done; None: not known.
    archive : str
        The archive's path (``results/archive/{name}.tar.gz``).
    archive_license : str | None
        The config's ``archive.license`` (None or "": none chosen).

    Returns
    -------
    str
        The text to print, lines joined by newlines (each part may be "").
    """
    made = asked_for(targets, rule_outputs)
    cleaned = routing.cleaned if jobs is None else datasets_of(jobs, "clean_dataset")
    released = routing.released if jobs is None else datasets_of(jobs, *RELEASE_RULES)
    text = _rejection_report(cleaned) + release_report(released)
    if made is None:
        text += withheld_warning(routing) + archive_licence_warning(archive_license)
    return text + finished_message(routing, archive if "archive" in targets else None, made)
