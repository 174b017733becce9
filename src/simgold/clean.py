"""Cleaning (METHODS.md section 1): raw tables -> canonical ``items``, ``ratings``, ``means``,
``rankings`` and the ``rejects`` ledger.

Every raw cell that could hold a value (a rating, a rank, a shipped mean/SD/n, or an unnamed
extra field) ends either in an output table or in ``rejects`` with a reason: nothing is dropped,
clipped or coerced. Steps, in order:

1. words: Unicode normalisation (NFC by default), surrounding whitespace stripped, optional casefold;
2. missing markers become missing (ledger reason ``missing``), not zero;
3. values that are not numbers (``non_numeric``, ``non_finite``) or lie outside the scale
   (``out_of_scale``) are rejected;
4. duplicated items (same word pair, same context; unordered when ``symmetric``) are resolved per
   rater by ``duplicates``: ``reject`` (all copies to the ledger), ``first``/``last`` (the others
   to the ledger as ``duplicate_superseded``), ``mean`` (averaged; the other cells to the ledger as
   ``duplicate_merged``), or ``all`` (each repetition is its own item, ``occurrence`` 2, 3, ...).
   Only accepted values take part: a missing repeat does not displace a real answer;
5. raters who answered fewer than ``min_answered`` items are excluded (``rater_incomplete``).

Rankings are checked per (target, rater): the ranks must be a permutation of 1..m over the m
candidates of the target, else the whole group goes to the ledger as ``invalid_ranking``.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass, field

import pandas as pd

from .config import check_dataset
from .errors import InputError
from .readers import ABSENT, RawTable, read_source_table
from .tables import TABLES, sort_canonical

REASONS = (
    "missing",  # a missing marker or an empty cell
    "short_row",  # the row ends before this rating column
    "unnamed_column",  # a value in a column without a header name (an extra field)
    "non_numeric",
    "non_finite",
    "out_of_scale",
    "bad_item",  # the row's words (or context, category) are unusable
    "bad_rater",  # long layout: the rater id is empty
    "duplicate",
    "duplicate_superseded",
    "duplicate_merged",
    "invalid_ranking",
    "rater_incomplete",
    "empty_rater",  # a rater with no value at all in a source: an empty column, not a few gaps
)
CATEGORIES = ("positive", "distractor", "random")
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
# "1.elo", "3-Mar", "12/04": how Excel shows a decimal it read as a day and month
_DATE_LIKE = re.compile(r"\d{1,2}[./ -](?:[^\W\d_]{3,}\.?|\d{1,2})|[^\W\d_]{3,}[./ -]\d{1,2}")


# --------------------------------------------------------------------------------------------
# values


def raw_text(raw: object) -> str:
    """The raw cell as it is stored in the ledger."""
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

    Accepted text is a plain decimal number (sign, digits, point, exponent); anything else is
    rejected, never guessed: ``"1_000"``, ``"0x10"``, ``"inf"`` and dates are not ratings.
    """
    if raw is ABSENT:
        return None, "short_row", "the row ends before this column"
    if isinstance(raw, bool):
        return None, "non_numeric", "a boolean cell, not a number"
    if isinstance(raw, (int, float)):
        value = float(raw)
        if math.isnan(value):
            return None, "missing", "an empty (NaN) numeric cell"
    elif isinstance(raw, str):
        text = raw.strip()
        if text in missing:
            return None, "missing", f"missing marker {text!r}"
        if decimal == ",":
            if "." in text:
                return None, "non_numeric", "a point where the decimal separator is a comma"
            text = text.replace(",", ".", 1)
        elif "," in text and _NUMBER.fullmatch(text.replace(",", ".", 1)):
            return None, "non_numeric", 'a decimal comma where the separator is a point (set decimal: ",")'
        if not _NUMBER.fullmatch(text):
            if text.lower().lstrip("+-") in ("inf", "infinity", "nan"):
                return None, "non_finite", f"{text!r} is not a finite number"
            if _DATE_LIKE.fullmatch(text):
                return None, "non_numeric", "not a number; looks like a number a spreadsheet turned into a date"
            return None, "non_numeric", "not a number"
        value = float(text)
    else:
        return None, "non_numeric", f"a {type(raw).__name__} cell (a spreadsheet date?), not a number"
    if not math.isfinite(value):
        return None, "non_finite", "an infinite value"
    if not low <= value <= high:
        return None, "out_of_scale", f"outside the scale [{_num(low)}, {_num(high)}]"
    return value, None, ""


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def normalise_word(raw: object, form: str, casefold: bool) -> str:
    text = "" if raw is ABSENT else (raw if isinstance(raw, str) else _cell_str(raw))
    if form != "none":
        text = unicodedata.normalize(form, text)
    text = text.strip()
    return text.casefold() if casefold else text


def _cell_str(raw: object) -> str:
    if isinstance(raw, float) and raw.is_integer():
        return str(int(raw))
    return raw_text(raw)


# --------------------------------------------------------------------------------------------
# extraction


@dataclass
class ItemRow:
    """One appearance of an item in a source row."""

    word1: str
    word2: str
    context: int | None
    context_text: str | None
    attrs: dict
    file: str
    row: int
    order: tuple
    per_rater: bool = False  # long layout: repetitions are counted per rater
    rater: str | None = None
    problem: str = ""
    key: tuple = ()
    identity: tuple = ()


@dataclass
class Cell:
    item: int  # index into the item rows
    role: str  # rating | rank | mean | sd | n | extra
    rater: str | None
    raw: object
    file: str
    row: int
    column: str
    order: tuple
    value: float | None = None
    reason: str | None = None
    detail: str = ""


@dataclass
class Extracted:
    items: list[ItemRow] = field(default_factory=list)
    cells: list[Cell] = field(default_factory=list)


def _rater_columns(table: RawTable, spec, what: str, names: dict | None = None) -> list[tuple[int, str]]:
    """(column index, rater id) pairs for a wide sheet; ragged returns the start position only."""
    if isinstance(spec, str):
        if table.header is None:
            raise InputError(
                table.files[0], f"{what}: a pattern needs a header", expected="positions for header-less files"
            )
        pattern = re.compile(spec)
        out = []
        for j, name in enumerate(table.header):
            m = pattern.search(name) if name else None
            if m:
                out.append((j, m.group(1) if pattern.groups else name))
        if not out:
            raise InputError(
                table.files[0],
                f"{what}: no column matches {spec!r}",
                expected=f"rater columns among {[h for h in table.header if h]}",
            )
    elif isinstance(spec, list):
        idx = [table.column(ref, what) for ref in spec]
        out = [(j, _rater_label(table, j, k)) for k, j in enumerate(idx, start=1)]
    else:
        start = spec["from"]
        end = spec.get("to", table.width)
        if start > table.width:
            raise InputError(
                table.files[0], f"{what}: position {start} does not exist", expected=f"at most {table.width}"
            )
        out = [(j - 1, _rater_label(table, j - 1, j - start + 1)) for j in range(start, end + 1)]
    if names:
        unknown = set(names) - {rater for _, rater in out}
        if unknown:
            raise InputError(
                table.files[0],
                f"rater_names: no rater {sorted(unknown)[0]!r}",
                expected=f"one of {[r for _, r in out]}",
            )
        out = [(j, names.get(rater, rater)) for j, rater in out]
    seen: dict[str, int] = {}
    for j, rater in out:
        if rater in seen:
            raise InputError(
                table.files[0],
                f"{what}: rater {rater!r} has two columns ({seen[rater] + 1} and {j + 1})",
                column=rater,
                expected="one column per rater",
            )
        seen[rater] = j
    return out


def _rater_label(table: RawTable, j: int, k: int) -> str:
    if table.header is not None and table.header[j]:
        return table.header[j]
    return f"r{k}"


def _attr_columns(table: RawTable, attrs: dict) -> list[tuple[str, int, str]]:
    out = []
    for name, spec in attrs.items():
        ref, typ = (spec["column"], spec.get("type", "string")) if isinstance(spec, dict) else (spec, "string")
        out.append((name, table.column(ref, f"attributes.{name}"), typ))
    return out


def _attr_values(table: RawTable, i: int, cols) -> dict:
    values = {}
    for name, j, typ in cols:
        raw = table.cell(i, j)
        text = "" if raw is ABSENT else (raw.strip() if isinstance(raw, str) else _cell_str(raw))
        if text == "":
            values[name] = None
        elif typ == "string":
            values[name] = unicodedata.normalize("NFC", text)
        else:
            try:
                values[name] = int(text) if typ == "int" else float(text.replace(",", "."))
            except ValueError:
                file, row, col = table.where(i, j)
                raise InputError(file, f"attribute {name!r} must be {typ}", row=row, column=col, value=text) from None
    return values


def extract_source(table: RawTable, src: dict, ds: dict, s_idx: int, out: Extracted) -> None:
    """Append the item rows and value cells of one source table to ``out``."""
    kind, layout = ds["kind"], src["layout"]
    form, fold = ds["unicode"], ds["casefold"]
    attrs = _attr_columns(table, src.get("attributes", {}))
    referenced: set[int] = {j for _, j, _ in attrs}

    def col(key):
        j = table.column(src[key], key)
        referenced.add(j)
        return j

    def new_item(i, w1, w2, context=None, text=None, extra_attrs=None, per_rater=False, rater=None):
        file, row = table.row_where(i)
        item = ItemRow(
            word1=normalise_word(table.cell(i, w1), form, fold),
            word2=normalise_word(table.cell(i, w2), form, fold),
            context=context,
            context_text=text,
            attrs={**_attr_values(table, i, attrs), **(extra_attrs or {})},
            file=file,
            row=row,
            order=(s_idx, i),
            per_rater=per_rater,
            rater=rater,
        )
        if not item.word1 or not item.word2:
            item.problem = "a word is empty"
        out.items.append(item)
        return len(out.items) - 1

    def add_cell(item, role, rater, i, j):
        file, row, column = table.where(i, j)
        out.cells.append(Cell(item, role, rater, table.cell(i, j), file, row, column, (s_idx, i, j)))

    def stats_cells(item, i, spec):
        for role in ("mean", "sd", "n"):
            if role in spec:
                j = table.column(spec[role], role)
                referenced.add(j)
                add_cell(item, role, None, i, j)

    if kind == "rankings":
        jt, jc = col("target"), col("candidate")
        jcat = col("category") if "category" in src else None
        if layout == "wide":
            raters = _rater_columns(table, src["raters"], "raters", src.get("rater_names"))
            referenced.update(j for j, _ in raters)
        else:
            jr, js = col("rater"), col("score")
        for i in range(len(table.rows)):
            category = "positive" if jcat is None else normalise_word(table.cell(i, jcat), "NFC", True)
            item = new_item(i, jt, jc, extra_attrs={"category": category})
            if category not in CATEGORIES:
                out.items[item].problem = f"category {category!r} is not one of {', '.join(CATEGORIES)}"
            if layout == "wide":
                for j, rater in raters:
                    add_cell(item, "rank", rater, i, j)
            else:
                out.items[item].per_rater = True
                rater = normalise_word(table.cell(i, jr), "NFC", False)
                out.items[item].rater = rater
                add_cell(item, "rank", rater, i, js)
        _flag_unnamed(table, referenced, out, s_idx)
        return

    w1, w2 = (table.column(ref, "words") for ref in src["words"])
    referenced.update((w1, w2))
    if layout in ("wide", "ragged") and kind != "contexts":
        raters = []
        if "raters" in src and layout == "wide":
            raters = _rater_columns(table, src["raters"], "raters", src.get("rater_names"))
            referenced.update(j for j, _ in raters)
        for i in range(len(table.rows)):
            item = new_item(i, w1, w2)
            stats_cells(item, i, src)
            if layout == "ragged":
                start = src["raters"]["from"]
                for j in range(start - 1, len(table.rows[i])):
                    add_cell(item, "rating", f"r{j - start + 2}", i, j)
            for j, rater in raters:
                add_cell(item, "rating", rater, i, j)
        if layout == "ragged":
            referenced.update(range(src["raters"]["from"] - 1, table.width))
    elif kind == "contexts" and layout == "wide":
        plans = []
        for k, ctx in enumerate(src["contexts"]):
            jt = table.column(ctx["text"], f"contexts[{k}].text")
            referenced.add(jt)
            ctx_attrs = _attr_columns(table, ctx.get("attributes", {}))
            referenced.update(j for _, j, _ in ctx_attrs)
            raters = _rater_columns(table, ctx["raters"], f"contexts[{k}].raters") if "raters" in ctx else []
            referenced.update(j for j, _ in raters)
            plans.append((ctx, jt, ctx_attrs, raters))
        for i in range(len(table.rows)):
            for ctx, jt, ctx_attrs, raters in plans:
                text = normalise_word(table.cell(i, jt), "NFC", False)
                item = new_item(i, w1, w2, ctx["context"], text or None, _attr_values(table, i, ctx_attrs))
                stats_cells(item, i, ctx)
                for j, rater in raters:
                    add_cell(item, "rating", rater, i, j)
    else:  # long: one rating per row
        jr, js = col("rater"), col("score")
        jctx = col("context") if "context" in src else None
        jtext = col("context_text") if "context_text" in src else None
        for i in range(len(table.rows)):
            context, problem = None, ""
            if jctx is not None:
                raw_ctx = normalise_word(table.cell(i, jctx), "NFC", False)
                if raw_ctx in ("1", "2", "1.0", "2.0"):
                    context = int(float(raw_ctx))
                else:
                    problem = f"context {raw_ctx!r} is not 1 or 2"
            text = normalise_word(table.cell(i, jtext), "NFC", False) if jtext is not None else None
            rater = normalise_word(table.cell(i, jr), "NFC", False)
            item = new_item(i, w1, w2, context, text or None, per_rater=True, rater=rater)
            if problem:
                out.items[item].problem = problem
            add_cell(item, "rating", rater, i, js)
    _flag_unnamed(table, referenced, out, s_idx)


def _flag_unnamed(table: RawTable, referenced: set[int], out: Extracted, s_idx: int) -> None:
    """Values under a column with no header name (extra fields) go to the ledger, not nowhere."""
    if table.header is None:
        return
    for j, name in enumerate(table.header):
        if name or j in referenced:
            continue
        for i in range(len(table.rows)):
            raw = table.cell(i, j)
            if raw is ABSENT or (isinstance(raw, str) and raw.strip() == ""):
                continue
            file, row, column = table.where(i, j)
            out.cells.append(
                Cell(
                    -1,
                    "extra",
                    None,
                    raw,
                    file,
                    row,
                    column,
                    (s_idx, i, j),
                    reason="unnamed_column",
                    detail="a value in a column without a header name",
                )
            )


# --------------------------------------------------------------------------------------------
# dataset


def clean_dataset(name: str, spec: dict, base_dir: str = ".", *, log=None) -> dict[str, pd.DataFrame]:
    """Read and clean every source of one dataset; return the canonical tables as DataFrames.

    Returns ``items``, ``ratings``, ``means``, ``rankings``, ``rejects`` and ``summary`` (one row:
    counts per output and per reject reason, and ``raw_cells``, the number of cells read).
    """
    ds = check_dataset(name, spec, base_dir)
    ext = Extracted()
    for s_idx, src in enumerate(ds["sources"]):
        table = read_source_table(src, base_dir)
        if log:
            sep = {None: "n/a", "\t": "tab", " ": "space"}.get(table.separator, table.separator)
            log(f"{', '.join(table.files)}: {len(table.rows)} data rows, {table.width} columns, separator {sep}")
        extract_source(table, src, ds, s_idx, ext)
    return _assemble(name, ds, ext)


def _assemble(name: str, ds: dict, ext: Extracted) -> dict[str, pd.DataFrame]:
    kind = ds["kind"]
    low, high = ds.get("scale", (-math.inf, math.inf))
    missing_by_source = [frozenset(s["missing"]) for s in ds["sources"]]
    decimal_by_source = [s["decimal"] for s in ds["sources"]]

    # 2-3: classify values
    for c in ext.cells:
        if c.reason is not None:
            continue
        s_idx = c.order[0]
        bounds = {
            "rating": (low, high),
            "mean": (low, high),
            "rank": (1, math.inf),
            "sd": (0, math.inf),
            "n": (0, math.inf),
        }[c.role]
        c.value, c.reason, c.detail = parse_value(
            c.raw, missing=missing_by_source[s_idx], decimal=decimal_by_source[s_idx], low=bounds[0], high=bounds[1]
        )
        if c.reason is None and c.role == "rank" and not float(c.value).is_integer():
            c.value, c.reason, c.detail = None, "invalid_ranking", "a rank must be a whole number"
        if c.reason == "out_of_scale" and c.role in ("sd", "n", "rank"):
            c.detail = {"sd": "a negative standard deviation", "n": "a negative count", "rank": "a rank below 1"}[
                c.role
            ]

    # a rater column with no value in any row is a sheet problem (a wrong column, an unfilled
    # form), not missing ratings: say so in the ledger instead of as many ordinary gaps
    by_rater: dict = defaultdict(list)
    for c in ext.cells:
        # in a ragged layout a position is not a person, so an empty one means nothing
        if c.role == "rating" and c.rater and ds["sources"][c.order[0]].get("layout") != "ragged":
            by_rater[(c.order[0], c.rater)].append(c)
    for (_, rater), group in by_rater.items():
        if all(c.reason in ("missing", "short_row") for c in group):
            for c in group:
                c.reason, c.detail = "empty_rater", f"rater {rater!r} has no rating in any row of {c.file}"

    # 1, 4: item identities
    items = ext.items
    seen_rows: dict = defaultdict(int)
    symmetric = ds["symmetric"] and kind != "rankings"  # a target and its candidate are not interchangeable
    for it in items:
        pair = tuple(sorted((it.word1, it.word2))) if symmetric else (it.word1, it.word2)
        it.key = (pair, it.context, it.context_text)
        counter_key = (it.key, it.rater if it.per_rater else None)
        seen_rows[counter_key] += 1
        it.identity = (it.key, seen_rows[counter_key] if ds["duplicates"] == "all" else 1)
    for c in ext.cells:
        if c.item >= 0 and items[c.item].problem and c.reason is None:
            c.value, c.reason, c.detail = None, "bad_item", items[c.item].problem
        elif (
            c.item >= 0
            and c.role in ("rating", "rank")
            and items[c.item].per_rater
            and not c.rater
            and c.reason is None
        ):
            c.value, c.reason, c.detail = None, "bad_rater", "the rater id is empty"

    # identities in order of first appearance -> item ids
    order: dict = {}
    for idx, it in enumerate(items):
        if not it.problem and it.identity not in order:
            order[it.identity] = idx
    width = max(6, len(str(len(order))))
    item_id = {ident: f"{name}:{k:0{width}d}" for k, ident in enumerate(order, start=1)}

    _resolve_duplicates(ds["duplicates"], items, ext.cells, item_id)
    if kind == "rankings":
        _check_rankings(items, ext.cells)
    if "min_answered" in ds:
        _exclude_incomplete(ds["min_answered"], len(order), items, ext.cells)

    return _tables(name, ds, items, ext.cells, order, item_id)


def _group_key(c: Cell, items: list[ItemRow]):
    return (items[c.item].identity, c.role, c.rater)


def _resolve_duplicates(policy: str, items: list[ItemRow], cells: list[Cell], item_id: dict) -> None:
    groups: dict = defaultdict(list)
    for c in cells:
        if c.reason is None and c.item >= 0:
            groups[_group_key(c, items)].append(c)
    for (identity, role, rater), group in groups.items():
        if len(group) < 2:
            continue
        group.sort(key=lambda c: c.order)
        rows = ", ".join(f"{c.file} row {c.row}" for c in group)
        who = f"rater {rater!r}" if rater is not None else role
        first = items[group[0].item]
        pair = f"{first.word1}/{first.word2}"
        if policy == "reject":
            for c in group:
                c.value, c.reason = None, "duplicate"
                c.detail = f"{who} has {len(group)} values for {pair} ({rows}); duplicates: reject"
        elif policy in ("first", "last"):
            keep = group[0] if policy == "first" else group[-1]
            for c in group:
                if c is not keep:
                    c.value, c.reason = None, "duplicate_superseded"
                    c.detail = f"{who}: {pair} also at {keep.file} row {keep.row}, which is kept (duplicates: {policy})"
        elif policy == "mean":
            keep = group[0]
            keep.value = sum(c.value for c in group) / len(group)
            for c in group[1:]:
                c.value, c.reason = None, "duplicate_merged"
                c.detail = f"{who}: averaged into the value of {keep.file} row {keep.row} (duplicates: mean)"
        else:  # "all": repetitions are separate items, so a group can only come from one row
            raise AssertionError(f"duplicate cells under duplicates: all for {item_id.get(identity)}")


def _check_rankings(items: list[ItemRow], cells: list[Cell]) -> None:
    candidates: dict = defaultdict(set)
    for it in items:
        if not it.problem:
            candidates[it.word1].add(it.identity)
    groups: dict = defaultdict(list)
    for c in cells:
        if (
            c.item >= 0
            and c.role == "rank"
            and not items[c.item].problem
            and c.reason in (None, "missing", "invalid_ranking")
        ):
            groups[(items[c.item].word1, c.rater)].append(c)
    for (target, rater), group in groups.items():
        m = len(candidates[target])
        ranks = sorted(int(c.value) for c in group if c.reason is None)
        if not ranks and all(c.reason == "missing" for c in group):
            continue  # this rater did not rank this target at all: the cells are already "missing"
        if ranks != list(range(1, m + 1)):
            detail = (
                f"rater {rater!r} ranked target {target!r} {ranks} for {m} candidates; expected each of 1..{m} once"
            )
            for c in group:
                c.value, c.reason, c.detail = None, "invalid_ranking", detail


def _exclude_incomplete(threshold: float, n_items: int, items: list[ItemRow], cells: list[Cell]) -> None:
    need = threshold * n_items if threshold < 1 else threshold
    answered: dict = defaultdict(set)
    for c in cells:
        if c.reason is None and c.role == "rating":
            answered[c.rater].add(items[c.item].identity)
    for c in cells:
        if c.reason is None and c.role == "rating" and len(answered[c.rater]) < need:
            c.value, c.reason = None, "rater_incomplete"
            c.detail = (
                f"rater {c.rater!r} answered {len(answered[c.rater])} items, fewer than min_answered {_num(need)}"
            )


def _tables(name, ds, items, cells, order, item_id) -> dict[str, pd.DataFrame]:
    attr_names: list[str] = []
    for src in ds["sources"]:
        for a in src.get("attributes", {}):
            if a not in attr_names:
                attr_names.append(a)
        for ctx in src.get("contexts", []):
            for a in ctx.get("attributes", {}):
                if a not in attr_names:
                    attr_names.append(a)
    if ds["kind"] == "rankings":
        attr_names.append("category")
    extra = [a for a in attr_names if a not in ("pos", "relation")]

    item_rows = []
    for ident, idx in order.items():
        it = items[idx]
        row = {
            "dataset": name,
            "item_id": item_id[ident],
            "language": ds["language"],
            "word1": it.word1,
            "word2": it.word2,
            "context": it.context,
            "context_text": it.context_text,
            "pos": it.attrs.get("pos"),
            "relation": it.attrs.get("relation"),
            "source_item_id": None,
            "occurrence": ident[1],
            "source_file": it.file,
            "source_row": it.row,
        }
        row.update({a: it.attrs.get(a) for a in extra})
        item_rows.append(row)

    ratings, means, rankings, rejects = [], {}, [], []
    for c in sorted(cells, key=lambda c: c.order):
        if c.reason is not None:
            rejects.append((name, c.file, c.row, c.column, raw_text(c.raw), c.reason, c.detail, c.order))
            continue
        it = items[c.item]
        iid = item_id[it.identity]
        if c.role == "rating":
            ratings.append((name, iid, c.rater, c.value, c.file, c.row))
        elif c.role == "rank":
            rankings.append((name, it.word1, c.rater, it.word2, it.attrs.get("category"), int(c.value), c.file, c.row))
        else:
            m = means.setdefault(
                iid,
                {
                    "dataset": name,
                    "item_id": iid,
                    "mean": None,
                    "sd": None,
                    "n": None,
                    "source_file": c.file,
                    "source_row": c.row,
                },
            )
            m[c.role] = c.value

    tables = {
        "items": pd.DataFrame(item_rows, columns=list(ITEM_COLUMNS) + extra),
        "ratings": pd.DataFrame(ratings, columns=list(TABLE_COLUMNS["ratings"])),
        "means": pd.DataFrame(list(means.values()), columns=list(TABLE_COLUMNS["means"])),
        "rankings": pd.DataFrame(rankings, columns=list(TABLE_COLUMNS["rankings"])),
        "rejects": pd.DataFrame(rejects, columns=list(TABLE_COLUMNS["rejects"]) + ["_order"]),
    }
    # the ledger stays in file order (source, row, column position)
    tables["rejects"] = (
        tables["rejects"].sort_values("_order", kind="stable").drop(columns="_order").reset_index(drop=True)
    )
    tables = {k: sort_canonical(v, k) for k, v in tables.items()}
    tables["summary"] = summarise(name, ds, tables, raw_cells=len(cells))
    return tables


ITEM_COLUMNS = tuple(TABLES["items"][0])  # the canonical schema's columns, in order
TABLE_COLUMNS = {name: tuple(TABLES[name][0]) for name in ("ratings", "means", "rankings", "rejects")}


def summarise(name: str, ds: dict, tables: dict, raw_cells: int) -> pd.DataFrame:
    means = tables["means"]
    accepted = len(tables["ratings"]) + len(tables["rankings"]) + int(means[["mean", "sd", "n"]].notna().sum().sum())
    row = {
        "dataset": name,
        "language": ds["language"],
        "kind": ds["kind"],
        "n_items": len(tables["items"]),
        "n_raters": int(pd.concat([tables["ratings"]["rater"], tables["rankings"]["rater"]]).nunique()),
        "n_ratings": len(tables["ratings"]),
        "n_rankings": len(tables["rankings"]),
        "n_means": int(means["mean"].notna().sum()),
        "n_rejects": len(tables["rejects"]),
        "raw_cells": raw_cells,
        "ledger_balanced": accepted + len(tables["rejects"]) == raw_cells,
    }
    counts = tables["rejects"]["reason"].value_counts()
    row.update({f"rejects_{r}": int(counts.get(r, 0)) for r in REASONS})
    return pd.DataFrame([row])
