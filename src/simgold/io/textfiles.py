"""Delimited text files read into a :class:`~simgold.io.rawtable.RawTable` (the text half of
``simgold.io.readers``): the encoding decoded strictly (with a hint of the likely code page), the
file's own line ends, the separator sniffed when not configured (comma, tab, semicolon, pipe,
single space or runs of whitespace), comment and title lines kept as notes, and rows with more
fields than the header flagged whole or rejoined (``extra_fields``).

Rows and columns are 1-based, as an editor shows them.
"""

from __future__ import annotations

import codecs
import csv
import functools
import re
from collections import Counter
from pathlib import Path

from simgold.errors import InputError
from simgold.io.rawrecords import finish_table, used_width
from simgold.io.rawtable import Note, RawTable, count_cells
from simgold.io.sniff import BOMS, KINDS, file_kind

__all__ = ["LINE", "WHITESPACE", "CODE_PAGES", "TEXT_INSTEAD", "decode_text", "read_text", "text_records"]

#: the column label of a ledger entry that stands for a whole text line (a comment, a title row)
LINE = "(line)"

# an LF ends a line, with any CRs before it (CRLF, and CRCRLF from a CRLF file converted twice)
_LF_LINE_END = re.compile(r"\r*\n")
# the whitespace separator: any run of white space that does not end a line somewhere (U+2028, NEL, ...)
_WHITESPACE_RUN = re.compile("[^\\S\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]+")
_SNIFF_ORDER = ("\t", ";", ",", "|")
_SEP_NAMES = {"tab": "\t", "\\t": "\t", "comma": ",", "semicolon": ";", "pipe": "|", "space": " "}
WHITESPACE = "whitespace"


def _count_fields(fields: list[str]) -> int:
    """:func:`count_cells` for text fields, at C speed (empty fields are skipped before stripping)."""
    return sum(map(bool, map(str.strip, filter(None, fields))))


#: the code pages a file in a language is saved in by Windows (or the usual legacy encodings),
#: most likely first: the hint for a file that is not UTF-8
CODE_PAGES = {
    **{lang: ("cp1250",) for lang in ("pl", "cs", "sk", "hu", "hr", "sl", "ro", "bs", "sq")},
    **{lang: ("cp1251",) for lang in ("ru", "uk", "bg", "mk", "be", "sr")},
    **{lang: ("cp1256",) for lang in ("ar", "fa", "ur")},
    **{lang: ("cp1257",) for lang in ("et", "lv", "lt")},
    "ja": ("cp932", "euc_jp"),
    "zh": ("gb18030", "big5"),
    "ko": ("cp949",),
    "el": ("cp1253",),
    "tr": ("cp1254",),
    "he": ("cp1255",),
    "vi": ("cp1258",),
    "th": ("cp874",),
}


def _encoding_hint(data: bytes, language: str | None) -> str:
    """What to set for a file that is not UTF-8: the code pages of the dataset's language (Western
    European ones otherwise), those that decode the whole file first.

    Examples
    --------
    >>> _encoding_hint("犬,猫,5".encode("cp932"), "ja")
    "; the dataset's language is ja: try encoding: cp932 (the file decodes in it; Windows' code page for ja)"
    >>> _encoding_hint("Straße".encode("cp1252"), None)
    '; a file saved by Excel on Windows needs its code page, e.g. encoding: cp1252 (Western Europe) or cp1250 (Central Europe)'
    """
    pages = CODE_PAGES.get(language or "", ())
    if not pages:
        return (
            "; a file saved by Excel on Windows needs its code page, e.g. encoding: cp1252 (Western Europe)"
            " or cp1250 (Central Europe)"
        )
    decodes = [page for page in pages if _decodes(data, page)]
    best = decodes[0] if decodes else pages[0]
    why = "the file decodes in it; " if decodes else ""
    return f"; the dataset's language is {language}: try encoding: {best} ({why}Windows' code page for {language})"


def _decodes(data: bytes, codec: str) -> bool:
    try:
        data.decode(codec)
    except UnicodeDecodeError:
        return False
    return True


def decode_text(data: bytes, display: str, encoding: str, language: str | None = None) -> str:
    """Decode strictly; a UTF-8 BOM is dropped; a decoding error names the line and the byte, and
    for UTF-8 the code page to try (``_encoding_hint``, from the dataset's ``language``).

    A file declared in an 8-bit code page (cp1252, latin-1, ...) that is valid UTF-8 with non-ASCII
    text is refused: read in the code page its accents would turn into mojibake (``Ã©`` for ``é``).

    Parameters
    ----------
    data : bytes
        The file's bytes.
    display : str
        Its name in messages.
    encoding : str
        The configured encoding.
    language : str, optional
        The dataset's language (for the hint).

    Returns
    -------
    str
        The text.
    """
    try:
        codec = codecs.lookup(encoding).name
    except LookupError:
        raise InputError(display, f"unknown encoding {encoding!r}", expected="e.g. utf-8 or cp1252") from None
    _refuse_kind(data, display, codec)
    if codec in ("utf-8", "utf-8-sig"):
        codec = "utf-8-sig"  # drops a BOM when there is one
    elif not codec.startswith(("utf-16", "utf-32")):
        _refuse_utf8(data, display, encoding)
    try:
        return data.decode(codec)
    except UnicodeDecodeError as err:
        bad = data[err.start : err.start + 1]
        hint = _encoding_hint(data, language) if codec == "utf-8-sig" else ""
        raise InputError(
            display,
            f"byte 0x{bad.hex()} at byte offset {err.start} is not valid {encoding}",
            row=_line_of(data, err.start),
            expected=f"text in {encoding}{hint}",
        ) from None


#: what to do instead, for a file of each kind that is not text
TEXT_INSTEAD = {
    "gzip": "an uncompressed text file (gunzip it first)",
    "zip": "format: xlsx or ods",
    "ole2": "the sheet saved as .xlsx or .ods without a password, or as CSV",
}


def _refuse_kind(data: bytes, display: str, codec: str) -> None:
    """Name what the file is when it is not text in ``codec``: compressed, a spreadsheet, or
    UTF-16/32 declared as something else (with or without its byte order mark)."""
    kind = file_kind(data)
    if kind is None or codec.startswith("utf-") and kind.startswith(codec[:6]):
        return  # plain text, or UTF-16/32 declared as such
    if kind in TEXT_INSTEAD:
        raise InputError(display, f"the file is {KINDS[kind]}, not text", expected=TEXT_INSTEAD[kind])
    family = kind[:6]  # utf-16 or utf-32
    has_bom = data.startswith(BOMS[kind])
    raise InputError(
        display,
        f"the file is {KINDS[kind]} {'with' if has_bom else 'without'} a byte order mark, not {codec}",
        expected=f"encoding: {family if has_bom else kind}",
    )


def _split_lines(text: str) -> list[str]:
    """The lines of a text file, split by the file's own line ending: LF (CRLF too; lines of
    both kinds mix in files pasted together) where the file has an LF, else CR (an old Mac file).

    A CR that ends no line in an LF file is a character of its line, not a line break: a field
    that held one must not cut its row in two (the cell is then refused by what it holds).

    Examples
    --------
    >>> _split_lines("w1,w2\\r\\nca\\rt,dog\\n")
    ['w1,w2', 'ca\\rt,dog', '']
    >>> _split_lines("w1,w2\\rcat,dog\\r")
    ['w1,w2', 'cat,dog', '']
    """
    return _LF_LINE_END.split(text) if "\n" in text else text.split("\r")


def _line_of(data: bytes, offset: int) -> int:
    """The line (1-based) of byte ``offset``, counted as :func:`_split_lines` splits."""
    return data.count(b"\n" if b"\n" in data else b"\r", 0, offset) + 1


def _refuse_utf8(data: bytes, display: str, encoding: str) -> None:
    first = next((k for k, byte in enumerate(data) if byte >= 0x80), None)
    if first is None:
        return  # plain ASCII reads the same in every code page
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return  # not UTF-8: the declared code page is plausible
    word = re.search(r"[^\s,;|\"]*[^\x00-\x7f][^\s,;|\"]*", text).group()
    mojibake = word.encode("utf-8").decode(encoding, errors="replace")
    raise InputError(
        display,
        f"the file is UTF-8 but is declared {encoding}: {word!r} would be read as {mojibake!r}",
        row=_line_of(data, first),
        expected="encoding: utf-8 (the default) for this file",
    )


def read_text(
    real: Path,
    display: str,
    *,
    encoding: str = "utf-8",
    sep: str | None = None,
    quoting: str = "minimal",
    comment: str | None = None,
    skip_rows: int = 0,
    header: bool = True,
    ragged: bool = False,
    join: str | int | None = None,
    language: str | None = None,
) -> RawTable:
    """Read a delimited text file: decoded strictly, split at its own line ends and at the separator (sniffed when not given).

    Parameters
    ----------
    real : pathlib.Path
        The file.
    display : str
        Its name in messages.
    encoding, sep, quoting, comment, skip_rows, header
        The source's reader options.
    ragged : bool
        A ragged layout (rows of any length: none has extra fields).
    join : str or int, optional
        The column surplus fields belong to (``extra_fields: join``).
    language : str, optional
        The dataset's language (for an encoding hint).

    Returns
    -------
    RawTable
        The table.
    """
    text = decode_text(real.read_bytes(), display, encoding, language)
    records, spanning, notes, separator = text_records(text, display, real, sep, quoting, comment, skip_rows)
    # a ragged layout has rows of every width by design; elsewhere a long row is flagged
    flag_rows = None if ragged else functools.partial(_flag_long_rows, sep=separator, join=join)
    raw_cells = len(notes) + sum(_count_fields(fields) for _, fields, _ in records)
    table = finish_table(display, records, header, notes, raw_cells, flag_rows=flag_rows)
    if spanning:
        table.messages.append(
            f"{display}: {len(spanning)} quoted field(s) span several lines (first at row {spanning[0]});"
            " their line breaks are kept in the values"
        )
    table.separator, table.spanning = separator, spanning
    return table


def text_records(text: str, display: str, real: Path, sep, quoting: str, comment, skip_rows: int):
    """(records, rows of records spanning lines, notes of title and comment lines, separator) of a
    decoded text file: what ``read_text`` and ``text_header`` read alike.

    Parameters
    ----------
    text : str
        The decoded text.
    display : str
        The file's name in messages.
    real : pathlib.Path
        The file.
    sep : str or None
        The configured separator.
    quoting : str
        ``minimal`` or ``none``.
    comment : str or None
        The comment prefix.
    skip_rows : int
        Title rows before the header.

    Returns
    -------
    tuple
        ``(records, long records, notes, separator)``.
    """
    lines = _split_lines(text)
    if lines and lines[-1] == "":
        lines.pop()  # the final line break ends the last line; it does not start a new one
    fed, notes = _non_data_lines(lines, skip_rows, comment)
    sample = [(n, line) for n, line in fed if line.strip()][:50]
    if not sample:
        raise InputError(display, "the file has no data", expected="at least one non-empty line")
    separator = _resolve_sep(sep, display, real, sample)
    records, spanning = _split_records(fed, separator, quoting, display)
    return records, spanning, notes, separator


def _non_data_lines(lines: list[str], skip_rows: int, comment: str | None):
    """(number, line) of the lines to parse (blank ones kept: they may sit inside a quoted field),
    and a note for each non-blank title or comment line."""
    fed, notes = [], []
    for n, line in enumerate(lines, start=1):
        if n <= skip_rows or (comment and line.startswith(comment)):
            if line.strip():
                why = "a title row skipped by skip_rows" if n <= skip_rows else "a comment line"
                notes.append(Note(0, n, -1, LINE, line, "ignored_row", why))
        else:
            fed.append((n, line))
    return fed, notes


def _resolve_sep(sep: str | None, display: str, real: Path, sample: list[tuple[int, str]]) -> str:
    """The configured separator, or the one sniffed from ``sample`` ((row, line) of the first
    non-blank data lines): tab for .tsv, else the first of tab, semicolon, comma and pipe that every
    line (or, where a quoted field spans lines, every record) has, else runs of whitespace."""
    if sep is not None:
        return _SEP_NAMES.get(sep, sep)
    if real.suffix.lower() in (".tsv", ".tab"):
        return "\t"
    lines = [line for _, line in sample]
    for candidate in _SNIFF_ORDER:
        if all(candidate in line for line in lines):
            return candidate
    for candidate in _SNIFF_ORDER:  # a quoted line break leaves a line without the separator
        if _every_record_has(candidate, lines):
            return candidate
    counts = {len(_split_whitespace(line)) for line in lines}
    if len(counts) == 1 and counts.pop() > 1:
        return WHITESPACE
    most = max(_SNIFF_ORDER, key=lambda c: sum(c in line for line in lines))
    lacking = next((n for n, line in sample if most not in line), None)
    named = {"\t": "a tab", ";": "a semicolon", ",": "a comma", "|": "a pipe"}[most]
    if any(most in line for line in lines):
        problem = f"cannot detect the field separator: the other lines have {named}, this one has none"
    else:
        problem, lacking = "cannot detect the field separator (no tab, semicolon, comma or pipe on any line)", None
    raise InputError(
        display, problem, row=lacking, expected='an explicit sep: in the config, e.g. sep: "\\t" or sep: whitespace'
    )


def _every_record_has(sep: str, lines: list[str]) -> bool:
    """Whether every record of ``lines``, parsed as delimited text, has ``sep`` (holds two fields)."""
    try:
        records = list(csv.reader((line.replace("\r", " ") + "\n" for line in lines), delimiter=sep, strict=True))
    except csv.Error:
        return False
    return bool(records) and all(len(record) > 1 for record in records if record)


def _split_whitespace(line: str) -> list[str]:
    """The fields of a line separated by runs of white space (a line break character is not one)."""
    return [field for field in _WHITESPACE_RUN.split(line) if field]


def _split_records(fed: list[tuple[int, str]], sep: str, quoting: str, display: str):
    """(row, fields, raw line) of every record, and the rows of records that span several lines.

    A quoted field may hold a line break; it is kept in the value (as "\\n"), never deleted.
    """
    if sep == WHITESPACE:
        return [(n, _split_whitespace(line), line) for n, line in fed if line.strip()], []
    if len(sep) != 1:
        raise InputError(
            display, f"separator {sep!r} is not a single character", expected="one character or 'whitespace'"
        )
    mode = {"minimal": csv.QUOTE_MINIMAL, "none": csv.QUOTE_NONE}[quoting]
    # the csv module ends a record at any CR; a CR inside a line (_split_lines) rides through it
    # as a character the file does not hold, and is put back in the fields
    stand_in = _absent_character(fed) if any("\r" in line for _, line in fed) else None
    source = (line + "\n" for _, line in fed)
    if stand_in:
        source = (line.replace("\r", stand_in) + "\n" for _, line in fed)
    reader = csv.reader(source, delimiter=sep, quoting=mode, strict=True)
    out, spanning, start = [], [], 0
    try:
        for record in reader:
            if stand_in:
                record = [value.replace(stand_in, "\r") for value in record]
            end = reader.line_num
            first_line = fed[start][1]
            if end - start > 1:
                spanning.append(fed[start][0])
                out.append((fed[start][0], record, "\n".join(line for _, line in fed[start:end])))
            elif first_line.strip():  # a blank line outside quotes is no record
                out.append((fed[start][0], record, first_line))
            start = end
    except csv.Error as err:
        raise InputError(
            display,
            f"malformed delimited text: {err}",
            row=fed[min(start, len(fed) - 1)][0],
            expected="balanced quotes, or quoting: none",
        ) from None
    return out, spanning


def _absent_character(fed: list[tuple[int, str]]) -> str:
    """A private-use character that no line holds."""
    used = set().union(*(set(line) for _, line in fed if not line.isascii()))
    return next(chr(c) for c in range(0xE000, 0xF900) if chr(c) not in used)


def _flag_long_rows(table: RawTable, records: list, sep: str, join) -> None:
    """A row with more (non-blank) fields than the header, or without a header than most rows,
    would shift values into other columns: flag it whole, or rejoin the configured column."""
    expected = len(table.header) if table.header is not None else _usual_width(table.rows)
    raw_by_row = {n: raw for n, _, raw in records}
    at = None if join is None else _join_index(table.header, table.files[0], join, expected)
    repaired = 0
    for i, row in enumerate(table.rows):
        used = used_width(row) if len(row) > expected else 0
        if used <= expected or i in table.flagged:
            continue
        if at is not None:
            table.rows[i] = _rejoin(table, row, at, used - expected, " " if sep == WHITESPACE else sep)
            repaired += 1
            continue
        what = "the header has" if table.header is not None else "most rows have"
        line = raw_by_row[table.lines[0][i]]
        table.flagged[i] = ("extra_fields", f"{used} fields where {what} {expected}: {line!r}")
    if repaired:
        table.messages.append(f"{table.files[0]}: {repaired} row(s) with extra fields rejoined (extra_fields: join)")


def _rejoin(table: RawTable, row: list, at: int, extra: int, glue: str) -> list:
    """The row with fields ``at`` .. ``at + extra`` joined into one value; the non-blank fields
    that went into another's value are counted in ``table.joined``."""
    parts = row[at : at + extra + 1]
    table.joined += max(count_cells(parts) - 1, 0)
    return row[:at] + [glue.join(parts)] + row[at + extra + 1 :]


def _usual_width(rows: list[list]) -> int:
    """The most common number of used fields (the larger on a tie)."""
    counts = Counter(used_width(row) for row in rows)
    return max(counts, key=lambda w: (counts[w], w)) if counts else 0


def _join_index(header: list[str] | None, display: str, ref, expected: int) -> int:
    if isinstance(ref, int):
        j = ref - 1
    elif header is not None and header.count(ref) == 1:
        j = header.index(ref)
    else:
        raise InputError(display, f"extra_fields.join: no single column named {ref!r}", expected=f"one of {header}")
    if not 0 <= j < expected:
        raise InputError(display, f"extra_fields.join: column {ref!r} is not among the {expected} fields of a row")
    return j
