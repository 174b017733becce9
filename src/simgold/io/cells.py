r"""What a cell is: a word, a number. One definition for every reader (delimited text, XLSX,
ODS, the word_forms and translation tables, the vector files' numbers), so that no reader makes a
word or a number another would not (docs/methods.md section 1).

* a **word**: Unicode-normalised (NFC by default), the characters that do not print removed,
  Unicode spaces and tabs made plain spaces and a run of them one space, stripped
  (:func:`normalise_word`); a word that holds a line break or a control character, a spreadsheet
  error value or a date is refused with the reason (:func:`word_problem`, :func:`cell_problem`);
* a **number**: a sign, the ASCII digits 0-9, a point and an exponent (:data:`NUMBER_PATTERN`):
  never a digit of another script, ``1_000``, ``0x10``, a date or a decimal comma unless the
  source says ``decimal: ","`` (:func:`parse_value`).

Examples
--------
>>> normalise_word("ice\u00a0cream", "NFC", False), parse_value("5.5", missing=frozenset())
('ice cream', (5.5, None, ''))
>>> parse_value("1_000", missing=frozenset())
(None, 'non_numeric', 'not a number')
"""

from __future__ import annotations

import math
import re
import unicodedata

from simgold.io.rawtable import ABSENT, SheetError

__all__ = [
    "NUMBER_PATTERN",
    "DATE_LIKE",
    "raw_text",
    "parse_value",
    "number_text",
    "normalise_word",
    "cell_problem",
    "word_problem",
    "cell_text",
    "decomposed_forms",
]

# ASCII digits only: Python's \d and float() also take full-width, Arabic-Indic, ... digits
NUMBER_PATTERN = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_NUMBER = re.compile(NUMBER_PATTERN)
# "1.elo", "3-Mar", "12/04": how Excel shows a decimal it read as a day and month
DATE_LIKE = re.compile(r"\d{1,2}[./ -](?:[^\W\d_]{3,}\.?|\d{1,2})|[^\W\d_]{3,}[./ -]\d{1,2}")
# invisible characters that never belong in a word (zero-width space, BOM, soft hyphen, word
# joiner, direction marks); ZWJ and ZWNJ are left alone: they spell words in Persian and Indic scripts
_INVISIBLE = re.compile("[\u00ad\u061c\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")
_SPACES = re.compile("[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]")  # Unicode spaces other than " "
# a tab or a run of spaces inside a word is one space: "ice\tcream" and "ice  cream" are "ice cream"
_SPACE_RUN = re.compile("[ \t]{2,}|\t")
# what ends a line in some program: LF, CR, VT, FF, the file/group/record separators, NEL, U+2028/9
_LINE_BREAKS = re.compile("[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")
_CONTROL = re.compile("[\x00-\x08\x0e-\x1b\x1f\x7f-\x84\x86-\x9f]")  # the other C0 and C1 controls


def raw_text(raw: object) -> str:
    """The raw cell as it is stored in the ledger.

    Parameters
    ----------
    raw : object
        A cell as the reader gave it.

    Returns
    -------
    str
        Its text as the ledger keeps it (empty for an absent cell).
    """
    if raw is ABSENT:
        return ""
    if isinstance(raw, str):
        return raw
    if hasattr(raw, "isoformat"):
        return raw.isoformat()
    return repr(raw) if isinstance(raw, float) else str(raw)


def parse_value(
    raw: object, *, missing: frozenset[str], decimal: str = ".", low: float = -math.inf, high: float = math.inf
):
    """Classify one raw cell: ``(value, None, "")`` when accepted, else ``(None, reason, detail)``.

    Accepted text is a plain decimal number (sign, the digits 0-9, point, exponent); anything else
    is rejected, never guessed: ``"1_000"``, ``"0x10"``, ``"inf"``, dates and digits of other
    scripts (full-width ``"８"``, Arabic-Indic ``"٣"``) are not ratings.

    Parameters
    ----------
    raw : object
        A value cell as the reader gave it.
    missing : frozenset of str
        The dataset's missing markers.
    decimal : str
        The decimal separator of text cells (``.`` or ``,``).
    low, high : float
        The scale's bounds.

    Returns
    -------
    tuple
        ``(value, None, "")`` or ``(None, reason, detail)``: the ledger's reason and what it says.
    """
    if raw is ABSENT:
        return None, "short_row", "the row ends before this column"
    if isinstance(raw, bool):
        return None, "non_numeric", "a boolean cell, not a number"
    if isinstance(raw, SheetError):
        return None, "non_numeric", f"the spreadsheet error value {raw} (a formula that failed), not a number"
    if isinstance(raw, (int, float)):
        value = float(raw)
        if math.isnan(value):
            return None, "missing", "an empty (NaN) numeric cell"
    elif isinstance(raw, str):
        value, reason, detail = _parse_text(raw.strip(), missing, decimal)
        if reason is not None:
            return None, reason, detail
    else:
        return None, "non_numeric", f"a {type(raw).__name__} cell (a spreadsheet date?), not a number"
    if not math.isfinite(value):
        return None, "non_finite", "an infinite value"
    if not low <= value <= high:
        return None, "out_of_scale", f"outside the scale [{number_text(low)}, {number_text(high)}]"
    return value, None, ""


def _parse_text(text: str, missing: frozenset[str], decimal: str) -> tuple:
    """(the number, None, "") of a stripped text cell, or (None, reason, detail)."""
    if text in missing:
        return None, "missing", f"missing marker {text!r}"
    if decimal == ",":
        if "." in text:
            return None, "non_numeric", "a point where the decimal separator is a comma"
        text = text.replace(",", ".", 1)
    elif "," in text and _NUMBER.fullmatch(text.replace(",", ".", 1)):
        return None, "non_numeric", 'a decimal comma where the separator is a point (set decimal: ",")'
    if not _NUMBER.fullmatch(text):
        return None, *_not_a_number(text)
    return float(text), None, ""


def _not_a_number(text: str) -> tuple[str, str]:
    """(reason, detail) of a text that is not a plain decimal number."""
    other = [ch for ch in text if unicodedata.category(ch) == "Nd" and not "0" <= ch <= "9"]
    if other:
        name = unicodedata.name(other[0], "a digit of another script")
        return "non_numeric", f"the digit {other[0]!r} ({name}): only the digits 0-9 are read as numbers"
    if text.lower().lstrip("+-") in ("inf", "infinity", "nan"):
        return "non_finite", f"{text!r} is not a finite number"
    if DATE_LIKE.fullmatch(text):
        return "non_numeric", "not a number; looks like a number a spreadsheet turned into a date"
    return "non_numeric", "not a number"


def _char_name(char: str) -> str:
    """U+XXXX and the character's name (or what kind of character it is)."""
    name = unicodedata.name(char, "") or _CONTROL_NAMES.get(char, "a control character")
    return f"U+{ord(char):04X} ({name})"


# the names of the control characters a file holds by mistake (unicodedata names none of them)
_CONTROL_NAMES = {
    "\x00": "NULL",
    "\r": "CARRIAGE RETURN, inside a line",
    "\x0b": "LINE TABULATION",
    "\x0c": "FORM FEED",
    "\x1c": "FILE SEPARATOR",
    "\x1d": "GROUP SEPARATOR",
    "\x1e": "RECORD SEPARATOR",
    "\x85": "NEXT LINE",
}


def number_text(x: float) -> str:
    """A bound as a message writes it: 10, not 10.0.

    Parameters
    ----------
    x : float
        A bound.

    Returns
    -------
    str
        Its text in a message.
    """
    return str(int(x)) if float(x).is_integer() else str(x)


def normalise_word(raw: object, form: str, casefold: bool) -> str:
    r"""A word as items keep it: Unicode-normalised (``form``: NFC, NFKC or none), invisible
    characters removed, Unicode spaces and tabs made plain spaces and a run of them one space
    (unless ``none``), stripped, casefolded.

    Line breaks and control characters are kept: :func:`word_problem` refuses such a word (a NUL
    or a line separator that went unseen would make a twin of a word that prints the same).

    Parameters
    ----------
    raw : object
        A word cell.
    form : str
        The dataset's ``unicode`` form (NFC, NFKC or none).
    casefold : bool
        Whether the dataset casefolds its words.

    Returns
    -------
    str
        The word as items keep it.

    Examples
    --------
    >>> [normalise_word(w, "NFC", False) for w in ["ice\u00a0cream", "ice\tcream", " ca\u200bt ", "Cafe\u0301"]]
    ['ice cream', 'ice cream', 'cat', 'Café']
    >>> word_problem(normalise_word("cat\x00", "NFC", False), "NFC")
    "the word 'cat\\x00' holds U+0000 (NULL), which does not print: a damaged file?"
    """
    text = "" if raw is ABSENT else (raw if isinstance(raw, str) else cell_text(raw))
    if form != "none":
        text = _SPACE_RUN.sub(" ", _SPACES.sub(" ", _INVISIBLE.sub("", unicodedata.normalize(form, text))))
    text = text.strip()
    return text.casefold() if casefold else text


def cell_problem(raw: object) -> str:
    """Why a spreadsheet cell cannot be a word whatever it holds ("" when it can): an error value,
    a date (often a word the spreadsheet turned into one, e.g. "MARCH1" or "1-2"), a boolean.

    Parameters
    ----------
    raw : object
        A word cell.

    Returns
    -------
    str
        The problem, or "".
    """
    if isinstance(raw, SheetError):
        return f"the cell holds the spreadsheet error value {raw}, not a word"
    if hasattr(raw, "isoformat"):
        return f"the cell holds a date ({raw.isoformat()}), not a word"
    if isinstance(raw, bool):
        return f"the cell holds the boolean {raw}, not a word"
    return ""


def word_problem(word: str, form: str) -> str:
    """Why a normalised word cannot name an item ("" when it can).

    Parameters
    ----------
    word : str
        A normalised word.
    form : str
        The dataset's ``unicode`` form.

    Returns
    -------
    str
        The problem, or "".
    """
    if not word:
        return "a word is empty"
    if "\n" in word:
        return f"the word {word!r} holds a line break (a quoted field spanning lines, or a line break typed in a cell)"
    broken = _LINE_BREAKS.search(word)
    if broken:
        return f"the word {word!r} holds a line break, {_char_name(broken.group())}"
    control = _CONTROL.search(word)
    if control:
        return f"the word {word!r} holds {_char_name(control.group())}, which does not print: a damaged file?"
    if form == "none" and "\t" in word:
        return f"the word {word!r} holds a tab: with unicode: none it would make an item that looks like another (use unicode: NFC)"
    hidden = _INVISIBLE.search(word) or _SPACES.search(word) if form == "none" else None
    if hidden:
        char = hidden.group()
        name = unicodedata.name(char, "an unnamed character")
        return (
            f"the word {word!r} holds U+{ord(char):04X} {name}, which does not print: with unicode: none it"
            " would make an item that looks like another (use unicode: NFC)"
        )
    return ""


def cell_text(raw: object) -> str:
    """A spreadsheet cell as text: a whole float without its ".0" (a word typed as 7 is "7").

    Parameters
    ----------
    raw : object
        A cell as the reader gave it.

    Returns
    -------
    str
        Its text.
    """
    if isinstance(raw, float) and raw.is_integer():
        return str(int(raw))
    return raw_text(raw)


def decomposed_forms(words) -> dict[str, str]:
    """The decomposed (NFD) spelling of each word that has one of its own, mapped to the word: the
    form a file written on another system (macOS, Korean jamo) may use for it.

    >>> decomposed_forms(["café", "cat"])
    {'cafe\u0301': 'café'}

    Parameters
    ----------
    words : iterable of str
        The needed words.

    Returns
    -------
    dict of str to str
        Decomposed spelling -> the word.
    """
    words = set(words)
    forms = {unicodedata.normalize("NFD", w): w for w in sorted(words) if not w.isascii()}
    return {d: w for d, w in forms.items() if d != w and d not in words}
