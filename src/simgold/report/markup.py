"""Config text and data written into Markdown as data, never as markup (docs/methods.md section 12).

The dataset card is Markdown that GitHub and the Hugging Face Hub render as HTML. What the config
and the data put into it is escaped so that it shows as written and does nothing else:

* a name, a note or a table cell (``md_text``, ``md_cell``): Markdown's special characters
  escaped, ``<`` and ``>`` as HTML entities, line breaks as spaces, so that it cannot open a link,
  an HTML tag, a heading, a list or a table cell;
* a URL (checked by ``simgold.io.cardtext.check_url``): a link whose destination is in angle
  brackets (``[text](<url>)``), so that brackets in a valid URL still work;
* a citation (``code_fence``): in a fence longer than any run of backticks in it;
* an author's prose (``md_prose``): Markdown, parsed (CommonMark, with tables and strikethrough)
  and written again from its parse, so that every fence is closed, raw HTML is shown as text,
  links go only to http(s), mailto or a plain relative path, and headings stand below the card's
  own (``###``); nothing it holds can reach the front matter or the card's other sections.
"""

from __future__ import annotations

import re

__all__ = [
    "Markdown",
    "md_text",
    "md_cell",
    "md_link",
    "md_url",
    "md_code",
    "code_fence",
    "md_prose",
    "formula_cells",
    "FORMULA_START",
]

#: characters a spreadsheet takes for the start of a formula (OWASP's CSV injection list)
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
#: link schemes an author's prose may link to (besides a plain relative path)
LINK_SCHEMES = ("http", "https", "mailto")

_LINE_BREAKS = re.compile(r"[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]+")
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]")
_ENTITY = re.compile(r"&(?=#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};|[A-Za-z][A-Za-z0-9]{1,31};)")
_TEXT_SPECIAL = re.compile(r"([\\`*_\[\]|~#])")
# at the start of a line: what would open a block (a list, a quote, a heading, a setext underline)
_LINE_START = re.compile(r"^(\s*)([-+=>]|\d{1,9}(?=[.)]))")
_RELATIVE = re.compile(r"[A-Za-z0-9._~/#-][A-Za-z0-9._~/#%-]*")


class Markdown(str):
    """Text that is Markdown already (made by simgold, not taken from the config or the data):
    ``markdown_table`` writes it as it is.

    Attributes
    ----------
    """


def _one_line(text) -> str:
    return _CONTROL.sub("\ufffd", _LINE_BREAKS.sub(" ", str(text)))


def _entities(text: str) -> str:
    """``<``, ``>`` as entities, and ``&`` where it would start one (so that ``&lt;`` stays as written)."""
    return _ENTITY.sub("&amp;", text).replace("<", "&lt;").replace(">", "&gt;")


def md_text(text, line_start: bool = True) -> str:
    """One line of text that shows as written in Markdown and HTML.


    Parameters
    ----------
    text : object
        Any value; shown as ``str(text)``, line breaks made spaces, control characters replaced.
    line_start : bool, optional
        True: also escape what would start a list or heading at the start of a line.

    Returns
    -------
    str
        The text with Markdown's special characters backslash-escaped and ``&``, ``<``, ``>`` as entities.

    Examples
    --------
    >>> md_text("Ada <img src=x onerror=alert(1)> [x](javascript:y) *b*")
    'Ada &lt;img src=x onerror=alert(1)&gt; \\\\[x\\\\](javascript:y) \\\\*b\\\\*'
    >>> md_text("- not a list"), md_text("1. nor this")
    ('\\\\- not a list', '1\\\\. nor this')
    """
    out = _TEXT_SPECIAL.sub(r"\\\1", _entities(_one_line(text)))
    if line_start:
        out = _LINE_START.sub(
            lambda m: m.group(1) + ("\\" + m.group(2) if not m.group(2)[0].isdigit() else m.group(2) + "\\"),
            out,
            count=1,
        )
    return out


def md_cell(value) -> str:
    """A table cell's text: inert like :func:`md_text`, but ``[``, ``]``, ``*`` and ``_`` kept where
    they cannot make a link (an interval ``[0.40, 0.80]``, a name ``pairwise_sd``).


    Parameters
    ----------
    value : object
        Any value; shown as ``str(value)`` on one line.

    Returns
    -------
    str
        The cell text: backslashes and ``|`` escaped, HTML as entities, ``](`` and ``]:`` broken.

    Examples
    --------
    >>> md_cell("[0.400, 0.800]"), md_cell("a|b <b>"), md_cell("[x](javascript:y)")
    ('[0.400, 0.800]', 'a\\\\|b &lt;b&gt;', '[x]\\\\(javascript:y)')
    """
    text = _entities(_one_line(value).replace("\\", "\\\\").replace("|", "\\|"))
    return text.replace("](", "]\\(").replace("]:", "]\\:")


def _destination(url: str) -> str:
    """A link destination in angle brackets: nothing in it may end it or be decoded."""
    return "<" + _ENTITY.sub("&amp;", url).replace("\\", "%5C").replace("<", "%3C").replace(">", "%3E") + ">"


def md_link(text, url: str) -> str:
    """A link to a URL checked by ``simgold.io.cardtext.check_url``; ``text`` shows as written.

    Parameters
    ----------
    text : object
        The link's text (any value, escaped as :func:`md_text`).
    url : str
        The destination, already checked (``check_url``).

    Returns
    -------
    str
        A Markdown inline link, the destination in angle brackets.
    """
    return f"[{md_text(text, line_start=False)}]({_destination(url)})"


def md_url(url: str) -> str:
    """A checked URL as a link that shows the URL.

    Parameters
    ----------
    url : str
        The destination, already checked (``check_url``).

    Returns
    -------
    str
        A Markdown inline link whose text is the URL.
    """
    return md_link(url, url)


def code_fence(text: str, info: str = "") -> str:
    """``text`` in a backtick fence longer than any run of backticks in it (at least three), so
    that nothing in it can close the fence.


    Parameters
    ----------
    text : str
        The block's content (trailing newlines dropped).
    info : str, optional
        The info string (a language such as ``bibtex``); other than ``[A-Za-z0-9_+.#-]`` dropped.

    Returns
    -------
    str
        The fenced block, without a final newline.

    Examples
    --------
    >>> print(code_fence("a ``` b", "bibtex"))
    ````bibtex
    a ``` b
    ````
    """
    runs = [len(m) for m in re.findall(r"`+", text)]
    fence = "`" * max(3, max(runs, default=0) + 1)
    info = re.sub(r"[^A-Za-z0-9_+.#-]", "", info)
    return f"{fence}{info}\n{text.rstrip(chr(10))}\n{fence}"


def _code_span(text: str, in_table: bool) -> str:
    runs = [len(m) for m in re.findall(r"`+", text)]
    ticks = "`" * (max(runs, default=0) + 1)
    pad = " " if text.startswith(("`", " ")) or text.endswith(("`", " ")) or not text.strip() else ""
    text = text.replace("|", "\\|") if in_table else text  # a table splits its cells before code spans
    return f"{ticks}{pad}{_one_line(text)}{pad}{ticks}"


def md_code(text) -> str:
    """Text as an inline code span, shown exactly as written (a tab or a leading ``=`` included).

    Parameters
    ----------
    text : object
        Any value, shown as ``str(text)``.

    Returns
    -------
    str
        An inline code span, with backtick runs longer than any in the text.
    """
    return _code_span(str(text), in_table=False)


def _safe_href(href: str | None) -> bool:
    if not href:
        return False
    scheme = re.match(r"([A-Za-z][A-Za-z0-9+.-]*):", href)
    if scheme:
        return scheme.group(1).lower() in LINK_SCHEMES and not any(c.isspace() or c in "<>" for c in href)
    return bool(_RELATIVE.fullmatch(href))


def _inline(children, in_table: bool = False) -> str:
    """Inline tokens written again as Markdown: text escaped, emphasis, code spans, and links to
    safe destinations; raw HTML and anything else as escaped text."""
    out: list[str] = []
    links: list[tuple[str, bool, bool]] = []
    for tok in children or []:
        start = not out or out[-1].endswith("\n")
        kind = tok.type
        if kind in ("text", "text_special"):
            text = md_text(tok.content, line_start=start)
        elif kind == "softbreak":
            text = "\n"
        elif kind == "hardbreak":
            text = "\\\n"
        elif kind == "code_inline":
            text = _code_span(tok.content, in_table)
        elif kind in ("em_open", "em_close"):
            text = "*"
        elif kind in ("strong_open", "strong_close"):
            text = "**"
        elif kind in ("s_open", "s_close"):
            text = "~~"
        elif kind == "link_open":  # a link elsewhere is shown as the text it was written as
            href, auto = tok.attrGet("href") or "", tok.markup == "autolink"
            links.append((href, _safe_href(href), auto))
            text = "[" if links[-1][1] else "&lt;" if auto else "\\["
        elif kind == "link_close":
            href, safe, auto = links.pop() if links else ("", False, False)
            text = f"]({_destination(href)})" if safe else "&gt;" if auto else f"\\]({md_text(href, line_start=False)})"
        elif kind == "image":
            alt = md_text("".join(c.content for c in tok.children or []), line_start=False)
            src = tok.attrGet("src")
            safe = _safe_href(src) and src.lower().startswith(("http://", "https://"))
            text = f"![{alt}]({_destination(src)})" if safe else alt
        else:  # html_inline and anything unforeseen: shown as text
            text = md_text(tok.content, line_start=start)
        out.append(text)
    return "".join(out)


def _close(tokens, i: int) -> int:
    """The index of the token that closes ``tokens[i]``."""
    depth = 0
    for j in range(i, len(tokens)):
        depth += tokens[j].nesting
        if depth == 0:
            return j
    return len(tokens) - 1


def _table(tokens, i: int, end: int) -> list[str]:
    rows: list[list[str]] = []
    aligns: list[str] = []
    for j in range(i, end):
        tok = tokens[j]
        if tok.type == "tr_open":
            rows.append([])
        elif tok.type in ("th_open", "td_open"):
            rows[-1].append(_inline(tokens[j + 1].children, in_table=True).replace("\n", " "))
            if tok.type == "th_open":
                style = tok.attrGet("style") or ""
                aligns.append(
                    {"text-align:left": ":---", "text-align:right": "---:", "text-align:center": ":---:"}.get(
                        style, "---"
                    )
                )
    width = max((len(r) for r in rows), default=0)
    lines = []
    for n, row in enumerate(rows):
        row = row + [""] * (width - len(row))
        lines.append("| " + " | ".join(row) + " |")
        if n == 0:
            lines.append("|" + "|".join(aligns + ["---"] * (width - len(aligns))) + "|")
    return lines


def _blocks(tokens, i: int, end: int, tight: bool = False) -> list[str]:
    """Block tokens ``tokens[i:end]`` of one container written again as Markdown lines."""
    blocks: list[list[str]] = []
    marks = ""
    while i < end:
        tok = tokens[i]
        kind = tok.type
        if kind == "paragraph_open":
            blocks.append(_inline(tokens[i + 1].children).split("\n"))
            i = _close(tokens, i) + 1
        elif kind == "heading_open":  # below the card's own "## " sections
            level = max(3, int(tok.tag[1]))
            blocks.append(["#" * level + " " + _inline(tokens[i + 1].children).replace("\n", " ")])
            i = _close(tokens, i) + 1
        elif kind in ("fence", "code_block"):
            info = tok.info.strip().split()[0] if kind == "fence" and tok.info.strip() else ""
            blocks.append(code_fence(tok.content, info).split("\n"))
            i += 1
        elif kind == "html_block":  # shown as text, line by line
            blocks.append([md_text(line) for line in tok.content.rstrip("\n").split("\n")])
            i += 1
        elif kind == "hr":
            blocks.append(["***"])
            i += 1
        elif kind == "blockquote_open":
            close = _close(tokens, i)
            blocks.append([f"> {line}" if line else ">" for line in _blocks(tokens, i + 1, close)])
            i = close + 1
        elif kind in ("bullet_list_open", "ordered_list_open"):
            close = _close(tokens, i)
            # two lists one after the other stay two lists: each with another marker than the one before
            after_list = bool(blocks) and i > 0 and tokens[i - 1].type == tok.type.replace("open", "close")
            marks = marks[1:] + marks[:1] if after_list else ("-*+" if kind == "bullet_list_open" else ".)")
            blocks.append(_list(tokens, i, close, marks[0]))
            i = close + 1
        elif kind == "table_open":
            close = _close(tokens, i)
            blocks.append(_table(tokens, i, close))
            i = close + 1
        else:
            i += 1
    lines: list[str] = []
    for block in blocks:
        if lines and not tight:
            lines.append("")
        lines += block
    return lines


def _list(tokens, i: int, close: int, mark: str) -> list[str]:
    ordered = tokens[i].type == "ordered_list_open"
    number = int(tokens[i].attrGet("start") or 1) if ordered else 0
    level = tokens[i].level
    tight = any(t.type == "paragraph_open" and t.hidden for t in tokens[i:close] if t.level == level + 2)
    lines: list[str] = []
    j = i + 1
    while j < close:
        if tokens[j].type != "list_item_open":
            j += 1
            continue
        item_close = _close(tokens, j)
        marker = f"{number}{mark} " if ordered else f"{mark} "
        number += 1
        body = _blocks(tokens, j + 1, item_close, tight)
        if lines and not tight:
            lines.append("")
        if not body:
            lines.append(marker.rstrip())
        for n, line in enumerate(body):
            lines.append((marker if n == 0 else " " * len(marker)) + line if line else "")
        j = item_close + 1
    return lines


def md_prose(text: str) -> str:
    """An author's Markdown prose written again from its parse, inert (see the module's doc):
    fences closed, raw HTML shown as text, links only to safe destinations, headings ``###``.


    Parameters
    ----------
    text : str
        The author's Markdown (CommonMark with tables and strikethrough).

    Returns
    -------
    str
        The rewritten Markdown, blocks joined by newlines, no leading or trailing blank line.

    Examples
    --------
    >>> print(md_prose("# Pairs\\n\\nWe chose *99* pairs <script>alert(1)</script> [x](javascript:y).\\n\\n```\\nopen"))
    ### Pairs
    <BLANKLINE>
    We chose *99* pairs &lt;script&gt;alert(1)&lt;/script&gt; \\[x\\](javascript:y).
    <BLANKLINE>
    ```
    open
    ```
    """
    from markdown_it import MarkdownIt  # heavy: only for a card with an author's prose

    parser = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    parser.validateLink = lambda url: True  # every link is judged here (_safe_href), none dropped unseen
    tokens = parser.parse(text)
    return "\n".join(_blocks(tokens, 0, len(tokens))).strip("\n")


def formula_cells(table, columns) -> dict[str, int]:
    """How many cells of each text column start with a character a spreadsheet would run as a
    formula (:data:`FORMULA_START`), for the columns that have any.


    Parameters
    ----------
    table : object
        A table with columns by name (a pandas DataFrame).
    columns : object
        The names of the columns to check.

    Returns
    -------
    dict[str, int]
        Column -> number of its str cells starting with ``FORMULA_START``; columns with none left out.

    Examples
    --------
    >>> import pandas as pd
    >>> formula_cells(pd.DataFrame({"word1": ["=1+1", "cat", "-ish"], "word2": ["dog", "@home", None]}), ["word1", "word2"])
    {'word1': 2, 'word2': 1}
    """
    counts = {}
    for column in columns:
        n = sum(1 for v in table[column] if isinstance(v, str) and v.startswith(FORMULA_START))
        if n:
            counts[column] = n
    return counts
