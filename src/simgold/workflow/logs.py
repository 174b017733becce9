"""The jobs' log records: how simgold.workflow.job.run writes them, and how the last lines of a
run (simgold.workflow.routing) read a job's warnings back. The standard library only: the job
scripts and the Snakefile both import it.

>>> import logging
>>> record = logging.LogRecord("simgold.release_means", logging.WARNING, "", 0, "m: no licence", None, None)
>>> logged_warnings(logging.Formatter(LOG_FORMAT).format(record))
['m: no licence']
"""

from __future__ import annotations

import logging

__all__ = ["LOG_FORMAT", "logged_warnings"]

#: one record: its level, a space, its message (lines after the first are the message's)
LOG_FORMAT = "%(levelname)s %(message)s"
_LEVELS = tuple(logging.getLevelNamesMapping())


def logged_warnings(text: str) -> list[str]:
    """The WARNING records of a job's log (``simgold.workflow.job.run``'s format), in order; a
    record's further lines (a message of several lines) kept with it.

    Parameters
    ----------
    text : str
        The log file's text.

    Returns
    -------
    list of str
        The warnings' messages, a message's further lines joined to it by a newline and an indent.
    """
    records: list[list[str]] = []
    for line in text.splitlines():
        level, _, message = line.partition(" ")
        if level in _LEVELS:
            records.append([level, message])
        elif records:  # the next line of the record above
            records[-1].append(line)
    return ["\n    ".join(lines) for level, *lines in records if level == "WARNING"]
