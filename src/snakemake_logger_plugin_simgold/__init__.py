"""A Snakemake logger plugin for simgold's terminal: one line per finished job, errors in full.

Enabled by the default profile (``logger: [simgold]``). Snakemake's own output for a job is a
block of eight to ten lines (its input and output lists, the reason, the resources); here a job
is one line, ``[12/72] gold dataset=demo-da``, and everything else (the job counts, warnings,
errors with the failed job's log, the lines a run ends with) is printed as Snakemake prints it.
A dry run (``-n``) and ``--verbose`` print exactly what Snakemake prints.
"""

from __future__ import annotations

import logging
import re
import sys

from snakemake_interface_logger_plugins.base import LogHandlerBase
from snakemake_interface_logger_plugins.common import LogEvent

#: scheduler chatter without information for the reader
_CHATTER = re.compile(
    r"^(Select jobs to execute\.\.\.|Execute \d+ jobs\.\.\.|Using shell: .*|Rules claiming more threads will be "
    r"scaled down\.|Assuming unrestricted shared filesystem usage\.|Conda environments: ignored)$"
)
#: events whose message may be chatter
_PLAIN = (None, LogEvent.JOB_STARTED, LogEvent.RESOURCES_INFO)


def _job_text(record) -> str:
    wildcards = ", ".join(f"{k}={v}" for k, v in (getattr(record, "wildcards", None) or {}).items())
    return f"{record.rule_name} {wildcards}".strip()


class LogHandler(LogHandlerBase):
    def __post_init__(self) -> None:
        from snakemake.logging import DefaultFilter, DefaultFormatter

        s = self.common_settings
        self.stream = sys.stdout if getattr(s, "stdout", False) else sys.stderr
        self.full = bool(s.dryrun or s.verbose)
        self.default_filter = DefaultFilter(s.quiet, s.debug_dag, s.verbose, s.dryrun, s.printshellcmds)
        self.default_format = DefaultFormatter(s.quiet, s.show_failed_logs)
        self.jobs: dict[int, str] = {}
        self.finished: list[int] = []

    def emit(self, record: logging.LogRecord) -> None:
        if not self.default_filter.filter(record):
            return
        text = self.default_format.format(record) if self.full else self._compact(record)
        if text:
            self.stream.write(text + "\n")
            self.stream.flush()

    def _compact(self, record) -> str | None:
        event = getattr(record, "event", None)
        if event == LogEvent.JOB_INFO:
            self.jobs[record.jobid] = _job_text(record)
            return None
        if event == LogEvent.JOB_FINISHED:
            self.finished.append(record.job_id)
            return None
        if event == LogEvent.PROGRESS:
            done = "; ".join(self.jobs.pop(j, f"job {j}") for j in self.finished)
            self.finished.clear()
            return f"[{record.done}/{record.total}] {done}"
        if event == LogEvent.WORKFLOW_STARTED:
            return f"snakemake {record.snakemake_version}: {record.snakefile_main}, config {record.configfiles}"
        if event in _PLAIN and _CHATTER.match(str(record.msg or "")):
            return None
        return self.default_format.format(record)

    @property
    def writes_to_stream(self) -> bool:
        return True

    @property
    def writes_to_file(self) -> bool:
        return False

    @property
    def has_filter(self) -> bool:
        return True

    @property
    def has_formatter(self) -> bool:
        return True

    @property
    def needs_rulegraph(self) -> bool:
        return False
