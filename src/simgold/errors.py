"""Errors that tell the user exactly where the problem is and what was expected."""

from __future__ import annotations

__all__ = ["ConfigError", "DataError", "InputError", "SimgoldError"]


class SimgoldError(Exception):
    """Base class of every error simgold raises on purpose.

    Parameters
    ----------
    *args
        As ``Exception``'s: the message first.
    """


class ConfigError(SimgoldError):
    """The configuration is invalid; the message names the dataset (or model) and the key.

    Parameters
    ----------
    where : str
        Where in the config: the dataset (or model) and the key.
    message : str
        What is wrong, and what was expected.

    Attributes
    ----------
    where, message : str
        As given.

    Examples
    --------
    >>> str(ConfigError("dataset demo-da, scale", "needs two numbers"))
    'config dataset demo-da, scale: needs two numbers'
    """

    def __init__(self, where: str, message: str):
        self.where, self.message = where, message
        super().__init__(f"config {where}: {message}")


class InputError(SimgoldError):
    """A raw input file cannot be read as configured.

    The message names the file and, where they are known, the 1-based row and column (as an
    editor or spreadsheet shows them), the offending value, and what was expected.

    Parameters
    ----------
    file : str
        The file.
    message : str
        What is wrong.
    row : int, optional
        The 1-based row.
    column : str or int, optional
        The column's name, or its 1-based number.
    value : object, optional
        The offending value.
    expected : str, optional
        What was expected instead.

    Attributes
    ----------
    file, row, column, value
        As given.

    Examples
    --------
    >>> str(InputError("raw/da.tsv", "not a number", row=3, column="score", value="7,5", expected="a decimal point"))
    "raw/da.tsv, row 3, column 'score': not a number (value '7,5'); expected a decimal point"
    """

    def __init__(
        self,
        file: str,
        message: str,
        *,
        row: int | None = None,
        column: str | int | None = None,
        value: object = None,
        expected: str | None = None,
    ):
        self.file, self.row, self.column, self.value = file, row, column, value
        parts = [str(file)]
        if row is not None:
            parts.append(f"row {row}")
        if column is not None:
            parts.append(f"column {column!r}" if isinstance(column, str) else f"column {column}")
        text = ", ".join(parts) + f": {message}"
        if value is not None:
            text += f" (value {value!r})"
        if expected:
            text += f"; expected {expected}"
        super().__init__(text)


class DataError(SimgoldError):
    """The input was read as configured, but holds nothing a stage can use (e.g. no accepted value).

    Parameters
    ----------
    *args
        As ``Exception``'s: the message first.
    """
