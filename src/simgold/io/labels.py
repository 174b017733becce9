"""How a setting is said to readers: the CI level in captions, axis labels and the terminal.

Plain Python, no dependency: the Snakefile reads it at every parse (the report jobs' params), and
the report's pages, figures and the CLI read it from the tables' ``confidence`` column.
"""

from __future__ import annotations

from decimal import Decimal

__all__ = ["confidence_label", "confidence_labels"]


def confidence_label(confidence: float) -> str:
    """A CI level as readers see it in captions, axis labels and the terminal.

    The level's own decimal digits (the shortest decimal that reads back as the same float, as the
    config gave it) moved two places: never rounded, so that 0.9999999 is not said as "100%".

    Parameters
    ----------
    confidence : float
        The level (``scoring.confidence``, between 0 and 1), or NaN for a table without CIs.

    Returns
    -------
    str
        A percentage without trailing zeros; ``"no"`` for NaN (a run without resamples).

    Examples
    --------
    >>> confidence_label(0.95), confidence_label(0.9), confidence_label(0.975), confidence_label(float("nan"))
    ('95%', '90%', '97.5%', 'no')
    >>> confidence_label(0.9999999), confidence_label(0.999), confidence_label(1e-9)
    ('99.99999%', '99.9%', '0.0000001%')
    """
    if confidence != confidence:
        return "no"
    # repr: the shortest decimal of the float; Decimal moves the point without rounding it
    percent = (Decimal(repr(float(confidence))) * 100).normalize()
    return f"{percent:f}%"


def confidence_labels(levels) -> str:
    """The CI levels a table's ``confidence`` column holds, as one label (``confidence_label``).

    Parameters
    ----------
    levels : iterable of float
        The levels of a ``confidence`` column.

    Returns
    -------
    str
        One label for them.

    Examples
    --------
    >>> confidence_labels([0.9, float("nan"), 0.9]), confidence_labels([0.95, 0.9]), confidence_labels([])
    ('90%', '90% / 95%', 'no')
    """
    found = sorted({float(x) for x in levels if x == x})
    return " / ".join(confidence_label(x) for x in found) if found else "no"
