"""The config checks of one source (a dataset's raw file(s) and how to read them) that the schema
cannot express: the layout fits the dataset's kind, each named column has one role and is in the
file's header (read cheaply, before any job runs), rater patterns compile, and each file is there
in a format it can be read in. Every error names the key, e.g. ``datasets.dsd-da.sources[0].raters``
(``simgold.io.config`` checks the rest of a config).
"""

from __future__ import annotations

import codecs
from pathlib import Path

from simgold.errors import ConfigError, InputError
from simgold.io.layouts import COLUMN_KEYS, LAYOUTS, ONE_COLUMN_KEYS
from simgold.io.patterns import compile_pattern, search
from simgold.io.rawformats import detect_format
from simgold.io.rawtable import close_names, did_you_mean
from simgold.io.readers import resolve_path, source_paths, text_header
from simgold.io.sniff import path_problem

__all__ = ["check_source", "resolved_path"]


def check_source(where: str, kind: str, src: dict, base_dir) -> None:
    """Check one source of a dataset; a ConfigError names the key that is wrong.

    Parameters
    ----------
    where : str
        The source's key, e.g. ``datasets.x.sources[0]``.
    kind : str
        The dataset's kind.
    src : dict
        The source's resolved config.
    base_dir
        What its paths are relative to.
    """
    _check_layout(where, kind, src)
    _check_bws(where, kind, src)
    _check_columns(where, src)
    _check_files(where, src, base_dir)
    if "word_forms" in src:
        _check_word_forms(where, src["word_forms"], base_dir)


def _check_layout(where: str, kind: str, src: dict) -> None:
    """The layout fits the kind, and the source gives the column keys the layout takes."""
    layout = src["layout"]
    if (kind, layout) not in LAYOUTS:
        allowed = sorted(lay for k, lay in LAYOUTS if k == kind)
        raise ConfigError(
            f"{where}.layout", f"layout {layout!r} is not possible for kind {kind!r} (use {' or '.join(allowed)})"
        )
    given = {k for k in src if k in COLUMN_KEYS}
    missing = LAYOUTS[(kind, layout)].required - given
    if missing:
        raise ConfigError(f"{where}.{min(missing)}", f"is required for kind {kind!r} with layout {layout!r}")
    extra = given - LAYOUTS[(kind, layout)].allowed
    if extra:
        raise ConfigError(f"{where}.{min(extra)}", f"is not used for kind {kind!r} with layout {layout!r}")
    if layout == "ragged" and not isinstance(src["raters"], dict):
        raise ConfigError(f"{where}.raters", "a ragged layout takes its ratings from a position on: raters: {from: N}")


#: the source keys only a bws source takes (their columns are checked with the others)
_BWS_KEYS = ("choice", "separator", "preset")


def _check_bws(where: str, kind: str, src: dict) -> None:
    """A bws source's own keys, and no bws key in a source of another kind."""
    if kind != "bws":
        for key in _BWS_KEYS:
            if key in src:
                raise ConfigError(f"{where}.{key}", f"is only for kind 'bws' (not {kind!r})")
        return
    items = src["items"]
    if isinstance(items, list) and len(items) < 3:
        raise ConfigError(
            f"{where}.items", f"names {len(items)} item(s); a BWS tuple has 3 to 8 (one entry per position)"
        )


def _check_columns(where: str, src: dict) -> None:
    """Rater patterns, contexts, one role per column, positions without a header."""
    if isinstance(src.get("raters"), str):
        _check_regex(f"{where}.raters", src["raters"])
    for j, ctx in enumerate(src.get("contexts", [])):
        if ("raters" in ctx) == ("mean" in ctx):
            raise ConfigError(
                f"{where}.contexts[{j}]", "needs either raters (per-rater ratings) or mean (aggregated), not both"
            )
        if isinstance(ctx.get("raters"), str):
            _check_regex(f"{where}.contexts[{j}].raters", ctx["raters"])
    if len({c["context"] for c in src.get("contexts", [])}) != len(src.get("contexts", [])):
        raise ConfigError(f"{where}.contexts", "each context number may appear once")
    _check_one_role(where, src)
    if not src["header"]:
        for key, ref in _column_refs(src):
            if isinstance(ref, str):
                raise ConfigError(
                    f"{where}.{key}", f"{ref!r} is a column name, but header: false; use a 1-based position"
                )


def _check_files(where: str, src: dict, base_dir) -> None:
    """The encoding, and each file: its format, that it is there, and (text) its column names."""
    layout = src["layout"]
    try:
        codecs.lookup(src["encoding"])
    except LookupError:
        raise ConfigError(
            f"{where}.encoding", f"{src['encoding']!r} is not an encoding Python knows (e.g. utf-8, cp1252)"
        ) from None
    seen = {}
    for k, p in enumerate(source_paths(src)):
        key = f"{where}.path" + (f"[{k}]" if isinstance(src["path"], list) else "")
        real = resolved_path(p, base_dir, key)
        if (first := seen.setdefault(real.resolve(), k)) != k:  # joined with itself: every column twice
            raise ConfigError(key, f"{p!r} is path[{first}] again; a path list joins different files side by side")
        try:
            fmt = detect_format(p, src["format"])
        except InputError as err:  # an .xls file
            raise ConfigError(key, str(err)) from None
        if problem := path_problem(real):
            raise ConfigError(key, f"{p!r} {problem}")
        if fmt == "text" and "sheet" in src and src["sheet"] != 0:
            raise ConfigError(f"{where}.sheet", "is only for xlsx/ods files")
        if isinstance(src["extra_fields"], dict) and (fmt != "text" or layout == "ragged"):
            raise ConfigError(f"{where}.extra_fields", "join is for delimited text files in a wide or long layout")
        if fmt == "text" and len(source_paths(src)) == 1:  # several files: their columns are joined
            _check_column_names(where, src, text_header(real, src))


def _check_word_forms(where: str, forms: dict, base_dir) -> None:
    """A source's word_forms table: its files are there, its strip pattern compiles."""
    for k, p in enumerate(source_paths(forms)):
        key = f"{where}.word_forms.path" + (f"[{k}]" if isinstance(forms["path"], list) else "")
        if problem := path_problem(resolved_path(p, base_dir, key)):
            raise ConfigError(key, f"{p!r} {problem}")
    if "strip" in forms:
        compile_pattern(forms["strip"], f"{where}.word_forms.strip")


def _named_columns(src: dict) -> list[tuple[str, str | int]]:
    """(key, column) of each column the source names exactly (a rater pattern names none)."""
    pattern = isinstance(src.get("raters"), str)
    return [(key, ref) for key, ref in _column_refs(src) if not (key == "raters" and pattern)]


def _check_one_role(where: str, src: dict) -> None:
    """Each column the source names has one role (words, a rater list, score, rater, mean,
    attributes, contexts). The clean job checks the same on the file (``layouts``), by position
    and for spreadsheets too."""
    seen: dict = {}
    for key, ref in _named_columns(src):
        if key == "extra_fields.join":  # it points at a word or attribute column, by design
            continue
        if ref in seen and (seen[ref] != key or key == "words"):  # words: [w1, w1] would make items cat/cat
            raise ConfigError(f"{where}.{key}", f"column {ref!r} is already {seen[ref]}: a column has one role")
        seen.setdefault(ref, key)


def _check_column_names(where: str, src: dict, names: list[str] | None) -> None:
    """Every column the source names is in its file's header (read cheaply: ``text_header``), and a
    rater pattern matches none of them, so that a misspelt name or a pattern that takes a word
    column stops the run before any job, with the names that are close."""
    if names is None:
        return
    named = [(key, ref) for key, ref in _named_columns(src) if isinstance(ref, str)]
    pattern = compile_pattern(src["raters"], f"{where}.raters") if isinstance(src.get("raters"), str) else None
    header = [n for n in names if n]
    for key, ref in named:
        if ref not in names:
            close = close_names(ref, header)
            hint = did_you_mean(close)
            raise ConfigError(f"{where}.{key}", f"no column named {ref!r} in the file's header{hint} (it has {header})")
        if pattern and key != "extra_fields.join" and search(pattern, ref, f"{where}.raters"):
            raise ConfigError(f"{where}.raters", f"the pattern {pattern.pattern!r} also matches {key} column {ref!r}")


def resolved_path(path: str, base_dir, where: str) -> Path:
    """A configured path resolved, or a ConfigError (an uninstalled package, a pkg: path that climbs out).

    Parameters
    ----------
    path : str
        A configured path.
    base_dir
        What a relative path is relative to.
    where : str
        The key an error names.

    Returns
    -------
    pathlib.Path
        The file's path.
    """
    try:
        return resolve_path(path, base_dir)
    except InputError as err:
        raise ConfigError(where, str(err)) from None


def _column_refs(src: dict):
    yield from _item_refs(src.get("items"))
    for key in ("words", "raters"):
        val = src.get(key)
        if isinstance(val, list):
            for v in val:
                yield key, v
        elif isinstance(val, str) and key == "raters":
            yield key, val
    for key in ONE_COLUMN_KEYS:
        if key in src:
            yield key, src[key]
    yield from _attribute_refs(src)


def _item_refs(items):
    """(key, column) of a bws source's items: a column or a pair of columns per position, or one column."""
    if isinstance(items, dict):
        yield "items.column", items["column"]
    elif isinstance(items, list):
        for k, entry in enumerate(items):
            for ref in entry if isinstance(entry, list) else [entry]:
                yield f"items[{k}]", ref


def _attribute_refs(src: dict):
    """(key, column) of the attributes, an extra_fields join column and the contexts' columns."""
    for name, att in src.get("attributes", {}).items():
        if not (isinstance(att, dict) and "value" in att):  # a constant names no column
            yield f"attributes.{name}", att["column"] if isinstance(att, dict) else att
    if isinstance(src.get("extra_fields"), dict):
        yield "extra_fields.join", src["extra_fields"]["join"]
    for j, ctx in enumerate(src.get("contexts", [])):
        for key in ("text", "mean", "sd", "n"):
            if key in ctx:
                yield f"contexts[{j}].{key}", ctx[key]


def _check_regex(where: str, pattern: str) -> None:
    compiled = compile_pattern(pattern, where)
    if compiled.groups > 1:
        raise ConfigError(
            where, f"{pattern!r} has {compiled.groups} capture groups; at most one (the rater id) is allowed"
        )
