"""The pairs a design starts from: a CSV or TSV file with a header, one pair per row.

Columns: ``word1`` and ``word2`` (required); ``role`` (optional): ``item`` (the default: rated by K
raters), ``repeat`` (an item its raters are asked twice, for test-retest), ``anchor`` (rated first by
every rater) or ``attention`` (an attention check every rater answers); ``expect`` (required for an
attention row, empty on the others): the answer the check expects.

Examples
--------
>>> text = "word1,word2,role,expect\\ncat,dog,,\\nsun,sun,attention,6\\n"
>>> pairs = parse_pairs(text, "pairs.csv")
>>> pairs.words, pairs.role, pairs.expect[1]
((('cat', 'dog'), ('sun', 'sun')), ('item', 'attention'), 6.0)
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from pathlib import Path

__all__ = ["PAIR_ROLES", "PairList", "parse_pairs", "read_pairs"]

#: what a row of the pairs file may be, and what it means
PAIR_ROLES = {
    "item": "rated by K of the R raters",
    "repeat": "an item its K raters are asked twice, far apart, for test-retest",
    "anchor": "rated by every rater, first",
    "attention": "an attention check every rater answers, with the answer it expects",
}


@dataclass(frozen=True)
class PairList:
    """The rows of a pairs file.

    Attributes
    ----------
    words : tuple of (str, str)
        Each row's two words, stripped.
    role : tuple of str
        Each row's role (``PAIR_ROLES``).
    expect : tuple of float
        The answer an attention row expects (NaN on the other rows).
    line : tuple of int
        Each row's line in the file (the header is line 1).
    path : str
        The file, for messages.
    """

    words: tuple
    role: tuple
    expect: tuple
    line: tuple
    path: str

    def where(self, role: str) -> list[int]:
        """The rows of one role, in file order.

        Parameters
        ----------
        role : str

        Returns
        -------
        list of int
        """
        return [i for i, r in enumerate(self.role) if r == role]


def read_pairs(path: str | Path, symmetric: bool = True) -> PairList:
    """Read a pairs file (UTF-8, a byte order mark dropped; tab-separated for ``.tsv`` and ``.tab``,
    comma-separated otherwise).

    Parameters
    ----------
    path : str or Path
    symmetric : bool, default True
        Whether (a, b) and (b, a) are one pair (then a file holding both is refused).

    Returns
    -------
    PairList

    Raises
    ------
    ValueError
        As ``parse_pairs``.
    """
    path = Path(path)
    return parse_pairs(path.read_text(encoding="utf-8-sig"), str(path), symmetric)


def parse_pairs(text: str, path: str, symmetric: bool = True) -> PairList:
    """The rows of a pairs file's text.

    Parameters
    ----------
    text : str
    path : str
        The file's name: its extension says the separator (``.tsv``, ``.tab``: tab), and messages
        name it.
    symmetric : bool, default True
        Whether (a, b) and (b, a) are one pair.

    Returns
    -------
    PairList

    Raises
    ------
    ValueError
        A missing ``word1``/``word2`` column, an empty word, an unknown role, an attention row whose
        ``expect`` is not a number, an ``expect`` on a row that is no check, or a pair listed twice:
        each naming the file, the line, the column and the value.
    """
    sep = "\t" if path.lower().endswith((".tsv", ".tab")) else ","
    reader = csv.reader(io.StringIO(text), delimiter=sep)
    header = [h.strip() for h in next(reader, [])]
    missing = [c for c in ("word1", "word2") if c not in header]
    if missing:
        raise ValueError(f"{path} line 1: no column {' or '.join(missing)}; the header is {header!r}")
    col = {name: header.index(name) for name in ("word1", "word2", "role", "expect") if name in header}
    words, roles, expects, lines, seen = [], [], [], [], {}
    for line, row in enumerate(reader, start=2):
        if not any(cell.strip() for cell in row):
            continue  # a blank line
        cell = {name: (row[j].strip() if j < len(row) else "") for name, j in col.items()}
        pair = _pair(cell, path, line)
        key = frozenset(pair) if symmetric else pair
        if key in seen:
            raise ValueError(
                f"{path} line {line}: the pair {pair[0]!r}/{pair[1]!r} is listed twice (first on line {seen[key]})"
            )
        seen[key] = line
        role = cell.get("role") or "item"
        words.append(pair), roles.append(role), expects.append(_expect(cell, role, path, line)), lines.append(line)
    if not words:
        raise ValueError(f"{path}: no pair below the header")
    return PairList(tuple(words), tuple(roles), tuple(expects), tuple(lines), path)


def _pair(cell: dict, path: str, line: int) -> tuple[str, str]:
    for name in ("word1", "word2"):
        if not cell[name]:
            raise ValueError(f"{path} line {line} column {name}: empty; every row needs two words")
    if cell.get("role", "") not in ("", *PAIR_ROLES):
        raise ValueError(
            f"{path} line {line} column role: {cell['role']!r} is not a role; expected one of {', '.join(PAIR_ROLES)}"
        )
    return cell["word1"], cell["word2"]


def _expect(cell: dict, role: str, path: str, line: int) -> float:
    text = cell.get("expect", "")
    if role != "attention":
        if text:
            raise ValueError(
                f"{path} line {line} column expect: {text!r} on a row of role {role!r}; only checks expect"
            )
        return math.nan
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise ValueError(
            f"{path} line {line} column expect: {text!r}; an attention check needs the answer it expects, a number"
        )
    return value
