"""What a release says about itself, checked as data (docs/methods.md section 12): its URLs, its
BibTeX citation, the names of its creators, and the dataset card's prose that its authors write
(``release.card``, or a Markdown file named by ``release.card_file``).

Everything here is checked when the config is, so that a bad value stops the run before any job
with a one-line error naming the key. Nothing here renders: ``simgold.report.markup`` writes these
values into the card and the metadata, escaped.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
import urllib.parse
from pathlib import Path

from simgold.errors import ConfigError, InputError
from simgold.io.readers import resolve_path
from simgold.io.sniff import path_problem

__all__ = ["check_release", "check_url", "CARD_PROSE", "MAX_CARD_BYTES"]

#: the card's prose an author writes: key -> the card's heading (a card file's ``## `` headings)
CARD_PROSE = {
    "summary": "Summary",
    "intended_use": "Intended use",
    "limitations": "Limitations",
    "pairs": "How the pairs were chosen",
    "instructions": "Instructions to the raters",
    "recruitment": "How the raters were recruited",
    "pay": "What the raters were paid",
    "demographics": "Who the raters are",
}
#: the most bytes a card file, or one prose key, may hold (a card is read at every config check)
MAX_CARD_BYTES = 64 * 1024
#: the longest one-line value (a name, an affiliation, a pretty name, a tag)
MAX_LINE = 300
MAX_URL = 2048
URL_SCHEMES = ("http", "https")
# what may stay as it is in a URL's path, query and fragment (RFC 3986's unreserved and sub-delims,
# ":" and "@", "/" and "?", and "%" of an escape); everything else is percent-encoded
_URL_SAFE = "/?:@!$&'()*+,;=-._~%"
_HOST = re.compile(r"[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?")
_BIBTEX_KEY = re.compile(r"[^\s,{}()\"'#%~\\=]+")
_BIBTEX_FIELD = re.compile(r"\s*([^\s=,{}\"#%'()]+)\s*=")
_BIBTEX_START = re.compile(r"@\s*([A-Za-z]+)\s*([{(])")


def _char(c: str) -> str:
    """A character as an error names it."""
    return f"U+{ord(c):04X} ({unicodedata.name(c, 'a control character').lower()})"


def _hidden(c: str) -> bool:
    """A control or format character (a NUL, a bidi override, a zero-width space): never wanted in
    the card, and some would change how the text around them reads."""
    return unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn") and c not in "\t\n"


def check_url(where: str, url: str) -> str:
    """An http(s) URL, parsed and written encoded: characters a URL may not hold as they are
    (brackets outside the host, quotes, ``<``, ``>``, non-ASCII) percent-encoded, a non-ASCII host
    in IDNA; a ``ConfigError`` naming ``where`` for anything that is not an http(s) URL.


    Parameters
    ----------
    where : str
        Where the URL is in the config (``datasets.x.release.homepage``), for the error.
    url : str
        The URL as the config gives it.

    Returns
    -------
    str
        The URL, scheme lowercased, unsafe characters percent-encoded, host in IDNA.

    Examples
    --------
    >>> check_url("x", "https://en.wikipedia.org/wiki/Fish_(food)")
    'https://en.wikipedia.org/wiki/Fish_(food)'
    >>> check_url("x", "https://example.org/x)[a](javascript:alert(1))<img>")
    'https://example.org/x)%5Ba%5D(javascript:alert(1))%3Cimg%3E'
    >>> check_url("x", "javascript:alert(1)")
    Traceback (most recent call last):
    ...
    simgold.errors.ConfigError: config x: 'javascript:alert(1)' is not a URL: it must start with http:// or https://
    """
    if not isinstance(url, str) or not url:
        raise ConfigError(where, f"{url!r} is not a URL (an http:// or https:// address)")
    if len(url) > MAX_URL:
        raise ConfigError(where, f"a URL of {len(url):,} characters; at most {MAX_URL:,}")
    bad = next((c for c in url if c.isspace() or _hidden(c)), None)
    if bad is not None:
        raise ConfigError(
            where, f"{url!r} is not a URL: it holds {_char(bad)}, which a URL never does (write %20 for a space)"
        )
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port
    except ValueError as err:
        raise ConfigError(where, f"{url!r} is not a URL: {err}") from None
    if parts.scheme.lower() not in URL_SCHEMES or not url.lower().startswith(f"{parts.scheme.lower()}://"):
        raise ConfigError(where, f"{url!r} is not a URL: it must start with http:// or https://")
    netloc = parts.netloc
    userinfo, _, hostport = netloc.rpartition("@")
    host = parts.hostname or ""
    if hostport.startswith("["):  # an IPv6 literal
        if not re.fullmatch(r"[0-9a-f:.]+", host):
            raise ConfigError(where, f"{url!r} is not a URL: {hostport!r} is not an IPv6 address")
        host = f"[{host}]"
    else:
        try:
            host = host.encode("idna").decode("ascii") if not host.isascii() else host
        except UnicodeError:
            raise ConfigError(
                where, f"{url!r} is not a URL: the host {parts.hostname!r} is not a domain name"
            ) from None
        if not _HOST.fullmatch(host):
            raise ConfigError(where, f"{url!r} is not a URL: the host {parts.hostname!r} is not a domain name")
    netloc = (urllib.parse.quote(userinfo, safe=_URL_SAFE) + "@" if userinfo else "") + host
    if port is not None:
        netloc += f":{port}"

    def encode(part: str, safe: str = _URL_SAFE) -> str:
        part = re.sub(r"%(?![0-9A-Fa-f]{2})", "%25", part)  # a lone % is a character, not an escape
        return urllib.parse.quote(part, safe=safe)

    return urllib.parse.urlunsplit(
        (parts.scheme.lower(), netloc, encode(parts.path), encode(parts.query), encode(parts.fragment))
    )


def _check_line(where: str, text: str, what: str = "a name") -> str:
    """One line of text (a name, an affiliation, a pretty name, a tag), stripped: no line break,
    control or format character, at most :data:`MAX_LINE` characters."""
    bad = next((c for c in text if _hidden(c) or c in "\n\r\t\x0b\x0c\x85\u2028\u2029"), None)
    if bad is not None:
        raise ConfigError(where, f"{text!r} holds {_char(bad)}; {what} is one line of text")
    if len(text) > MAX_LINE:
        raise ConfigError(where, f"{what} of {len(text):,} characters; at most {MAX_LINE}")
    if not text.strip():
        raise ConfigError(where, f"is empty; give {what}")
    return text.strip()


def _check_prose(where: str, text: str) -> str:
    """An author's Markdown prose: line ends made ``\\n``, no control or format character, at most
    :data:`MAX_CARD_BYTES` in UTF-8; stripped."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    for number, line in enumerate(text.split("\n"), 1):
        bad = next((c for c in line if _hidden(c)), None)
        if bad is not None:
            raise ConfigError(where, f"line {number} holds {_char(bad)}; prose holds text, tabs and line breaks only")
    size = len(text.encode("utf-8"))
    if size > MAX_CARD_BYTES:
        raise ConfigError(where, f"{size:,} bytes of prose; at most {MAX_CARD_BYTES:,} (64 KiB)")
    if not text.strip():
        raise ConfigError(where, "is empty; give the text, or leave the key out")
    return text.strip()


# -------------------------------------------------------------------------------- BibTeX


def _bibtex_shape(text: str) -> tuple[list[tuple[str, int]], int | None]:
    """The fields of the first entry (name, line) and the offset just after the entry, or None
    where it never closes: a scan of braces and quotes, to say which field an error is in."""
    start = _BIBTEX_START.search(text)
    if start is None:
        return [], None
    closer = "}" if start.group(2) == "{" else ")"
    depth, quoted, fields = 0, False, []
    key_end = text.find(",", start.end())
    if key_end >= 0:
        fields.append(("(the entry's key)", text.count("\n", 0, start.end()) + 1))
    i = start.end()
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}" and depth > 0:
            depth -= 1
        elif c == closer and depth == 0 and not quoted:
            return fields, i + 1
        elif c == '"' and depth == 0:
            quoted = not quoted
        elif c == "," and depth == 0 and not quoted:
            field = _BIBTEX_FIELD.match(text, i + 1)
            if field:
                fields.append((field.group(1).lower(), text.count("\n", 0, field.start(1)) + 1))
        i += 1
    return fields, None


def _check_citation(where: str, text: str) -> str:
    """A BibTeX citation: exactly one entry, parsed by pybtex (BibTeX's own grammar), nothing but
    blank space after it; an error names the field it is in. Returned stripped, as written.

    Examples
    --------
    >>> _check_citation("c", "@misc{k, title = {A {B} C}, year = 2026}")
    '@misc{k, title = {A {B} C}, year = 2026}'
    >>> _check_citation("c", "@misc{k,\\n  title = {A,\\n  year = 2026\\n}")
    Traceback (most recent call last):
    ...
    simgold.errors.ConfigError: config c: not a BibTeX entry: syntax error in line 4: premature end of file (in the field 'title', from line 2)
    """
    from pybtex.database import parse_string  # heavy: only for a config with a citation
    from pybtex.exceptions import PybtexError  # with pybtex, above

    text = _check_prose(where, text)
    fields, end = _bibtex_shape(text)
    try:
        entries = parse_string(text, "bibtex").entries
    except PybtexError as err:
        line = getattr(err, "lineno", None)
        at = [(name, start) for name, start in fields if line is None or start <= line]  # the field it is in
        field = f" (in the field {at[-1][0]!r}, from line {at[-1][1]})" if at else ""
        raise ConfigError(where, f"not a BibTeX entry: {str(err).strip()}{field}") from None
    if len(entries) != 1:
        raise ConfigError(where, f"holds {len(entries)} BibTeX entries; give exactly one (the dataset's)")
    if end is None or text[end:].strip():
        raise ConfigError(where, f"text after the BibTeX entry: {text[end or 0:][:40]!r}; give the one entry alone")
    key = next(iter(entries))
    if not _BIBTEX_KEY.fullmatch(key):
        raise ConfigError(where, f"the BibTeX entry's key {key!r} is not a key (e.g. @misc{{lovelace2026, ...}})")
    return text


# -------------------------------------------------------------------------------- the card file


def _card_key(title: str) -> str | None:
    wanted = " ".join(title.lower().replace("_", " ").split())
    for key, heading in CARD_PROSE.items():
        if wanted in (heading.lower(), key.replace("_", " ")):
            return key
    return None


def _read_card_file(where: str, path: str, base_dir: str | Path = ".") -> dict[str, str]:
    """The prose of a card file: a Markdown file whose ``## `` headings are the card's headings
    (:data:`CARD_PROSE`; text before the first heading is the summary). The file must be a
    regular file (not a link), UTF-8, at most :data:`MAX_CARD_BYTES`, without front matter of
    its own (the card's comes from the config) and without a ``# `` title (``release.card.pretty_name``).

    Returns
    -------
    dict
        Prose key -> its text (sections without text left out).
    """
    text = _card_file_text(where, path, base_dir)
    from markdown_it import MarkdownIt  # heavy: only for a config with a card file

    lines = text.split("\n")
    headings = _card_headings(where, path, lines, MarkdownIt("commonmark").parse(text))
    # text before the first heading is the summary
    parts = [("summary", 0, headings[0][1] if headings else len(lines), 1)]
    for n, (key, start, end) in enumerate(headings):
        parts.append((key, end, headings[n + 1][1] if n + 1 < len(headings) else len(lines), start + 1))
    out = {}
    for key, first, last, line in parts:
        if body := "\n".join(lines[first:last]).strip():
            out[key] = _check_prose(f"{where} ({path}, line {line})", body)
    return out


def _card_file_text(where: str, path: str, base_dir: str | Path) -> str:
    """A card file's text, checked: a regular UTF-8 file of at most MAX_CARD_BYTES, without front
    matter or hidden characters; line ends made ``\\n``."""
    try:
        real = resolve_path(path, base_dir)
    except InputError as err:
        raise ConfigError(where, str(err)) from None
    if real.is_symlink():
        raise ConfigError(where, f"{path!r} is a symbolic link; name the file itself (a card file is read as it is)")
    if problem := path_problem(real):
        raise ConfigError(where, f"{path!r} {problem}")
    size = real.stat().st_size
    if size > MAX_CARD_BYTES:
        raise ConfigError(where, f"{path!r} is {size:,} bytes; a card file holds at most {MAX_CARD_BYTES:,} (64 KiB)")
    data = real.read_bytes()[: MAX_CARD_BYTES + 1]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise ConfigError(
            where, f"{path!r}, line {line}: byte 0x{data[err.start]:02x} is not UTF-8 (save the file as UTF-8)"
        ) from None
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    if text.lstrip().startswith("---"):
        raise ConfigError(
            where,
            f"{path!r} starts with '---', front matter of its own; the card's front matter is made from the config "
            "(release.card: pretty_name, task_categories, tags), so leave it out of the file",
        )
    for number, line in enumerate(text.split("\n"), 1):
        if bad := next((c for c in line if _hidden(c)), None):
            raise ConfigError(where, f"{path!r}, line {number} holds {_char(bad)}; a card file holds text only")
    return text


def _card_headings(where: str, path: str, lines: list[str], tokens: list) -> list[tuple[str, int, int]]:
    """The card's headings of a card file (``tokens``: markdown-it's), each checked: no title, no
    heading the card does not have, no section twice."""
    headings: list[tuple[str, int, int]] = []  # key, the heading's first and last+1 line (0-based)
    for i, tok in enumerate(tokens):
        if tok.type != "heading_open" or tok.level != 0 or tok.tag not in ("h1", "h2"):
            continue
        title, line = tokens[i + 1].content.strip(), tok.map[0] + 1
        if tok.tag == "h1":
            raise ConfigError(
                where, f"{path!r}, line {line}: a title ({title!r}); the card's title is release.card.pretty_name"
            )
        key = _card_key(title)
        if key is None:
            close = difflib.get_close_matches(title, list(CARD_PROSE.values()), n=1, cutoff=0.5)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ConfigError(
                where,
                f"{path!r}, line {line}: the heading {title!r} is not one of the card's: "
                f"{', '.join(CARD_PROSE.values())}{hint} (### and deeper headings may stand inside a section)",
            )
        before = "\n".join(lines[: tok.map[0]]).strip() if not headings else ""
        if key in [k for k, _, _ in headings] or (key == "summary" and before):
            raise ConfigError(where, f"{path!r}, line {line}: the section {title!r} is given twice")
        headings.append((key, tok.map[0], tok.map[1]))
    return headings


# -------------------------------------------------------------------------------- the release block


def check_release(where: str, release: dict, base_dir: str | Path = ".") -> dict:
    """A dataset's ``release`` block with every value checked as data: URLs parsed and encoded
    (``homepage``, ``license_url``, each creator's ``url``), names one line each, the citation one
    BibTeX entry, and the card's prose (``card``, and ``card_file`` read into it) checked.

    Parameters
    ----------
    where : str
        Where the block is in the config (``datasets.x.release``), for the errors.
    release : dict
        The dataset's ``release`` block as the config gives it (left unchanged).
    base_dir : str | Path, optional
        The directory a relative ``card_file`` is read from.

    Returns
    -------
    dict
        A new release block: the URLs as they will be written, ``card`` holding the prose of both
        places (a key given in both is an error).
    """
    out = dict(release)
    for key in ("homepage", "license_url"):
        if key in out:
            out[key] = check_url(f"{where}.{key}", out[key])
    if "creators" in out:
        out["creators"] = [_check_creator(f"{where}.creators[{i}]", c) for i, c in enumerate(out["creators"])]
    if "citation" in out:
        out["citation"] = _check_citation(f"{where}.citation", out["citation"])
    card = _check_card(where, out.get("card", {}))
    if "card_file" in out:
        for key, text in _read_card_file(f"{where}.card_file", out["card_file"], base_dir).items():
            if key in card and card[key] != text:  # the same text: a resolved block checked again
                raise ConfigError(
                    f"{where}.card.{key}",
                    f"is given here and as the section {CARD_PROSE[key]!r} of {out['card_file']!r}; give it in one place",
                )
            card[key] = text
    if card:
        out["card"] = card
    return out


def _check_creator(at: str, creator: str | dict) -> str | dict:
    """A creator: a name, or its name, affiliation and URL, each checked."""
    if isinstance(creator, str):
        return _check_line(at, creator)
    creator = {**creator, "name": _check_line(f"{at}.name", creator["name"])}
    if "affiliation" in creator:
        creator["affiliation"] = _check_line(f"{at}.affiliation", creator["affiliation"], "an affiliation")
    if "url" in creator:
        creator["url"] = check_url(f"{at}.url", creator["url"])
    return creator


def _check_card(where: str, given: dict) -> dict:
    """The ``card`` of a release block: its prose, pretty name, tags and task categories checked."""
    card = dict(given)
    for key in CARD_PROSE:
        if key in card:
            card[key] = _check_prose(f"{where}.card.{key}", card[key])
    if "pretty_name" in card:
        card["pretty_name"] = _check_line(f"{where}.card.pretty_name", card["pretty_name"], "a pretty name")
    for key in ("tags", "task_categories"):
        if key in card:
            card[key] = [_check_line(f"{where}.card.{key}[{i}]", t, "a tag") for i, t in enumerate(card[key])]
    return card
