"""Progress lines for long jobs: at most one every ``interval`` seconds, into the rule's log."""

from __future__ import annotations

import time

__all__ = ["INTERVAL", "Progress", "counter"]

INTERVAL = 10.0  # seconds between two progress lines


class Progress:
    """Calls ``log(message())`` when ``interval`` seconds have passed since the last line.

    ``message`` is a function, so the text is only built when a line is written.

    Parameters
    ----------
    log : callable or None
        Where lines go.
    interval : float, optional
        Seconds between lines (default ``INTERVAL``).
    """

    def __init__(self, log, interval: float | None = None):
        self.log = log
        self.interval = INTERVAL if interval is None else interval
        self.last = time.monotonic()

    def update(self, message) -> None:
        if self.log is None:
            return
        now = time.monotonic()
        if now - self.last >= self.interval:
            self.log(message())
            self.last = now


def counter(name: str, todo: int, log, unit: str = "words"):
    """A function to call with the size of each batch done: logs how many of ``todo`` are done.

    Parameters
    ----------
    name : str
        What is counted (the line's start).
    todo : int
        How many there are.
    log : callable or None
        Where messages go (None: silent).
    unit : str
        What one of them is called.

    Returns
    -------
    callable
        ``done(size)``.
    """
    progress, done = Progress(log), [0]

    def count(n: int) -> None:
        done[0] += n
        progress.update(lambda: f"{name}: {done[0]:,} of {todo:,} {unit} embedded")

    return count
