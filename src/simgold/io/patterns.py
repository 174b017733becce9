"""The regular expressions a config gives (a source's ``raters`` and ``contexts[j].raters`` header
patterns, a ``word_forms`` table's ``strip``), compiled and run with a time limit.

A pattern with nested repetition such as ``(a|aa)+$`` backtracks exponentially on a long value
that almost matches: Python's ``re`` has no way to stop it, and the job would hang. These run
with the ``regex`` package, which reads every pattern ``re`` reads the same way (look-around and
back-references included) and stops a match after ``timeout`` seconds: a pattern that takes
longer is a one-line ``PatternTimeout`` naming the key, the pattern and the value.
"""

from __future__ import annotations

import regex

from simgold.errors import ConfigError

__all__ = ["PATTERN_SECONDS", "PatternTimeout", "compile_pattern", "search", "sub"]

#: how long one match of a config's pattern against one value may take, in seconds
PATTERN_SECONDS = 1.0


class PatternTimeout(ConfigError):
    """A config's pattern did not finish on one value within ``PATTERN_SECONDS``.

    Parameters
    ----------
    where : str
        The config key of the pattern, e.g. ``datasets.x.sources[0].word_forms.strip``.
    pattern : str
        The pattern.
    value : str
        The value it was matched against.

    Attributes
    ----------
    pattern, value : str
        As given.
    reason : str
        The message without the key, for an error that names the key its own way.

    Examples
    --------
    >>> err = PatternTimeout("datasets.x.sources[0].raters", "(a|aa)+$", "aaab")
    >>> err.where, err.pattern, err.value
    ('datasets.x.sources[0].raters', '(a|aa)+$', 'aaab')
    >>> str(err).startswith("config datasets.x.sources[0].raters: the pattern '(a|aa)+$' did not finish within")
    True
    """

    def __init__(self, where: str, pattern: str, value: str):
        self.pattern, self.value = pattern, value
        self.reason = (
            f"the pattern {pattern!r} did not finish within {PATTERN_SECONDS:g} s on {value!r} (a nested repetition"
            " such as (a|aa)+ can take exponential time): simplify the pattern"
        )
        super().__init__(where, self.reason)


def compile_pattern(pattern: str, where: str) -> regex.Pattern:
    """A config's pattern, compiled as ``re`` would read it.

    Parameters
    ----------
    pattern : str
        The pattern.
    where : str
        Its config key, for the error.

    Returns
    -------
    regex.Pattern
        The compiled pattern; run it with ``search`` or ``sub``.

    Raises
    ------
    ConfigError
        For a pattern that does not compile, naming the key and the pattern.

    Examples
    --------
    >>> compile_pattern("^r(\\\\d+)$", "raters").groups
    1
    >>> compile_pattern("^r(\\\\d+", "raters")
    Traceback (most recent call last):
    ...
    simgold.errors.ConfigError: config raters: '^r(\\\\d+' is not a valid regular expression: missing ) at position 6
    """
    try:
        return regex.compile(pattern)
    except regex.error as err:
        raise ConfigError(where, f"{pattern!r} is not a valid regular expression: {err}") from None


def search(pattern: regex.Pattern, value: str, where: str) -> regex.Match | None:
    """``pattern.search(value)``, stopped after ``PATTERN_SECONDS``.

    Parameters
    ----------
    pattern : regex.Pattern
        A pattern from ``compile_pattern``.
    value : str
        The text searched.
    where : str
        The pattern's config key, for the error.

    Returns
    -------
    regex.Match or None
        The first match, or None.

    Raises
    ------
    PatternTimeout
        When the search takes longer.

    Examples
    --------
    >>> search(compile_pattern("^r(\\\\d+)$", "raters"), "r12", "raters").group(1)
    '12'
    """
    try:
        return pattern.search(value, timeout=PATTERN_SECONDS)
    except TimeoutError:
        raise PatternTimeout(where, pattern.pattern, value) from None


def sub(pattern: regex.Pattern, value: str, where: str) -> str:
    """``value`` with every match of ``pattern`` removed, stopped after ``PATTERN_SECONDS``.

    Parameters
    ----------
    pattern : regex.Pattern
        A pattern from ``compile_pattern``.
    value : str
        The text.
    where : str
        The pattern's config key, for the error.

    Returns
    -------
    str
        ``pattern.sub("", value)``.

    Raises
    ------
    PatternTimeout
        When the substitution takes longer.

    Examples
    --------
    >>> sub(compile_pattern("-[a-z]$", "strip"), "abandon-v", "strip")
    'abandon'
    """
    try:
        return pattern.sub("", value, timeout=PATTERN_SECONDS)
    except TimeoutError:
        raise PatternTimeout(where, pattern.pattern, value) from None
