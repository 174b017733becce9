"""Cleaning's first step (``simgold.stages.clean``): a source's raw table -> its items as columns
and its value cells as arrays, every non-blank cell accounted for (values, labels of the items, or
the ledger's notes of columns the config does not name); a source's ``word_forms`` table.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from itertools import zip_longest

import numpy as np

from simgold.errors import ConfigError, InputError
from simgold.io import layouts
from simgold.io.cells import (
    cell_problem,
    cell_text,
    normalise_word,
    parse_value,
    word_problem,
)
from simgold.io.layouts import Plan
from simgold.io.patterns import compile_pattern, sub
from simgold.io.rawtable import ABSENT, RawTable, blank
from simgold.io.readers import read_columns

__all__ = ["ROLES", "ROLE_CODES", "CATEGORIES", "WordForms", "Items", "Extracted", "extract_source"]

#: the roles of a value cell, in the order of their codes
ROLES = ("rating", "rank", "mean", "sd", "n")
#: a role's code (its index in ROLES)
ROLE_CODES = {role: k for k, role in enumerate(ROLES)}
#: the categories of a rankings dataset's candidates
CATEGORIES = ("positive", "distractor", "random")


# --------------------------------------------------------------------------------------------
# values


@dataclass
class WordForms:
    """A source's ``word_forms``: its pairs -> the dataset's pairs (both normalised as items are).

    Attributes
    ----------
    pairs : dict
        (word1, word2) in the source's form -> in the dataset's form.
    file : str
        The table's file.
    symmetric : bool
        Whether (b, a) is (a, b).
    """

    pairs: dict  # (word1, word2) in the source's form -> (word1, word2) in the dataset's form
    file: str
    symmetric: bool

    @classmethod
    def read(cls, spec: dict, ds: dict, base_dir: str, where: str = "word_forms") -> "WordForms":
        """The table of ``spec`` (a source's word_forms), with ``strip`` removed from its source words.

        Parameters
        ----------
        spec : dict
            The source's ``word_forms`` config.
        ds : dict
            The dataset's config (``unicode``, ``casefold``, ``symmetric``).
        base_dir : str
            What the table's paths are relative to.
        where : str
            The table's config key, e.g. ``datasets.x.sources[1].word_forms``, for the errors.

        Returns
        -------
        WordForms
            The table, its pairs normalised as items are.

        Raises
        ------
        InputError
            For a row without all four words, or a source pair the table maps to two pairs (in a
            symmetric dataset b / a is the pair a / b, its target read reversed).
        ConfigError
            For a ``strip`` that leaves nothing of a source word, or that does not finish on one
            within ``simgold.io.patterns.PATTERN_SECONDS``.
        """
        refs = list(spec["source_words"]) + list(spec["target_words"])
        rows, name = read_columns(spec, refs, base_dir)
        strip_key = f"{where}.strip"
        strip = compile_pattern(spec["strip"], strip_key) if "strip" in spec else None
        form, fold = ds["unicode"], ds["casefold"]
        pairs, where_read = {}, {}
        for *words, row in rows:
            target = tuple(normalise_word(w, form, fold) for w in words[2:])
            if not all(words) or not all(target) or not all(normalise_word(w, form, fold) for w in words[:2]):
                raise InputError(name, "a word_forms row needs all four words", row=row, value=" | ".join(words))
            source = tuple(normalise_word(sub(strip, w, strip_key) if strip else w, form, fold) for w in words[:2])
            if not all(source):  # the strip took the whole word: every such pair would be one pair ""/""
                raise ConfigError(
                    strip_key,
                    f"{spec['strip']!r} leaves nothing of the source word {words[source.index('')]!r} ({name}, row "
                    f"{row}): a strip pattern removes a part of each word, e.g. '-[a-z]$' for a tag",
                )
            _check_one_form(pairs, where_read, source, target, ds["symmetric"], name, row)
            pairs[source], where_read[source] = target, row
        return cls(pairs, name, ds["symmetric"])

    def map(self, w1: str, w2: str) -> tuple[str, str, str]:
        """(word1, word2, problem): the pair in the dataset's form, or a problem naming the table."""
        if (w1, w2) in self.pairs:
            return (*self.pairs[w1, w2], "")
        if self.symmetric and (w2, w1) in self.pairs:
            t1, t2 = self.pairs[w2, w1]
            return t2, t1, ""
        return w1, w2, f"the pair {w1} / {w2} is not in the word_forms table {self.file}"


def _check_one_form(pairs: dict, rows: dict, source: tuple, target: tuple, symmetric: bool, file: str, row) -> None:
    """A word_forms row's source pair is not mapped to another pair by an earlier row: neither the
    same pair nor, in a symmetric dataset (where b / a is the pair a / b), the reversed one."""
    seen = [(source, target)]
    if symmetric and source[::-1] != source:
        seen.append((source[::-1], target[::-1]))
    for earlier, mapped in seen:
        if earlier not in pairs or pairs[earlier] == mapped:
            continue
        before, how = pairs[earlier], ""
        if earlier != source:  # the earlier row's target in this row's order
            before = before[::-1]
            how = f", as {earlier[0]} / {earlier[1]} -> {' / '.join(pairs[earlier])}: the same pair in a symmetric dataset"
        raise InputError(
            file,
            f"the pair {source[0]} / {source[1]} is mapped to {' / '.join(before)} (row {rows[earlier]}{how}) and to "
            f"{' / '.join(target)}",
            row=row,
            expected="one form of the dataset per source pair",
        )


def _text(raw: object) -> str | None:
    """A context paragraph or attribute text: NFC, stripped, None when empty."""
    text = "" if raw is ABSENT else (raw if isinstance(raw, str) else cell_text(raw))
    return unicodedata.normalize("NFC", text).strip() or None


def _attr_values(table: RawTable, i: int, cols, decimal: str) -> dict:
    """A row's attributes; a float attribute is read by the rules of a rating (the source's decimal)."""
    values = {}
    for name, j, typ in cols:
        raw = table.cell(i, j)
        text = "" if raw is ABSENT else (raw.strip() if isinstance(raw, str) else cell_text(raw))
        if text == "":
            values[name] = None
        elif typ == "string":
            values[name] = unicodedata.normalize("NFC", text)
        else:
            values[name] = _attr_number(table, (i, j), name, typ, (raw, text), decimal)
    return values


def _attr_number(table: RawTable, at: tuple, name: str, typ: str, cell: tuple, decimal: str):
    raw, text = cell
    if typ == "float":  # "1,234" in a file whose decimal is "." is no number, as for a rating
        value, _, detail = parse_value(raw, missing=frozenset(), decimal=decimal)
    else:
        try:
            value, detail = int(text), ""
        except ValueError:
            value, detail = None, "not a whole number"
    if value is None:
        file, row, col = table.where(*at)
        raise InputError(file, f"attribute {name!r} must be {typ}: {detail}", row=row, column=col, value=text)
    return value


# --------------------------------------------------------------------------------------------
# extraction: items as columns, value cells as arrays


@dataclass
class Items:
    """Item rows, one list per field (an item row is one appearance of an item in a source row).

    Attributes
    ----------
    word1, word2, context, context_text, attrs : list
        Each item row's words, context number and paragraph, attributes.
    file, row : list
        Where it was read.
    rater, per_rater : list
        Long layouts: the row's rater, and whether repetitions count per rater.
    problem : list
        Why the row's item is bad ("" when it is not).
    """

    word1: list = field(default_factory=list)
    word2: list = field(default_factory=list)
    context: list = field(default_factory=list)
    context_text: list = field(default_factory=list)
    attrs: list = field(default_factory=list)
    file: list = field(default_factory=list)
    row: list = field(default_factory=list)
    rater: list = field(default_factory=list)  # long layouts: the row's rater
    per_rater: list = field(default_factory=list)  # long layouts: repetitions are counted per rater
    problem: list = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.word1)

    def add(self, **values) -> None:
        for key, value in values.items():
            getattr(self, key).append(value)


@dataclass
class Extracted:
    """What the sources of one dataset hold: item rows, value cells, ledger notes and counts.

    Attributes
    ----------
    items : Items
        The item rows.
    blocks : list
        Value cells: one dict of arrays per source column.
    columns : list
        (file, column label) of each block.
    raters : dict
        Rater id -> code.
    notes : list
        Other ledger rows.
    label_cells, raw_cells : int
        The label cells kept on items, the non-blank cells read.
    normalised : list
        (file, row, raw word) of each word the normalisation changed.
    """

    items: Items = field(default_factory=Items)
    blocks: list = field(default_factory=list)  # value cells: one dict of arrays per source column
    columns: list = field(default_factory=list)  # (file, column label) of each block
    raters: dict = field(default_factory=dict)  # rater id -> code
    notes: list = field(default_factory=list)  # other ledger rows: (source, file, row, col, label, raw, reason, detail)
    label_cells: int = 0
    raw_cells: int = 0
    normalised: list = field(default_factory=list)  # (file, row, raw word) changed by the normalisation

    def rater_codes(self, raters) -> np.ndarray:
        """Codes of rater ids (None: -1)."""
        codes = [-1 if r is None else self.raters.setdefault(r, len(self.raters)) for r in raters]
        return np.asarray(codes, dtype=np.int32)

    def add_block(self, table: RawTable, s_idx: int, j: int, cells: dict, role: str, raters) -> None:
        """The value cells of column ``j``: ``cells`` holds their ``item``, ``raw`` and ``row`` arrays."""
        rater = self.rater_codes(raters) if isinstance(raters, list) else self.rater_codes([raters])[0]
        self.blocks.append(
            {**cells, "role": ROLE_CODES[role], "rater": rater, "src": s_idx, "j": j, "block": len(self.columns)}
        )
        self.columns.append((table.files[table.origin[j][0]], table.label(j)))


def extract_source(
    table: RawTable, src: dict, ds: dict, s_idx: int, out: Extracted, forms: WordForms | None = None
) -> dict[str, int]:
    """Append the items, value cells and ledger notes of one source table to ``out``; return the
    columns the config does not name that hold values (label -> count), for the log. ``forms``: the
    source's word_forms table, read (its pairs are mapped to the dataset's form).

    Parameters
    ----------
    table : RawTable
        The source's raw table.
    src : dict
        The source's config.
    ds : dict
        The dataset's resolved config.
    s_idx : int
        The source's index.
    out : Extracted
        What the dataset's sources hold so far (appended to).
    forms : WordForms, optional
        The source's word_forms table.

    Returns
    -------
    dict of str to int
        Label -> cells of the unnamed value columns.
    """
    plan = layouts.source_plan(table, src, ds["kind"])
    columns = list(zip_longest(*table.rows, fillvalue=ABSENT))  # the table transposed, once
    n, base, slots = len(table.rows), len(out.items), len(plan.slots)
    _add_items(table, plan, ds, out, forms, src["decimal"])
    i, lines = np.arange(n), np.asarray(table.lines[0], dtype=np.int64)
    for j, role, rater, slot in plan.values:
        raters = out.items.rater[base:] if plan.rater is not None else rater  # long layouts: the row's rater
        cells = {"item": base + i * slots + slot, "raw": _column(columns, j, n), "row": lines}
        out.add_block(table, s_idx, j, cells, role, raters)
    if plan.ragged is not None:
        lengths = np.fromiter((len(row) for row in table.rows), dtype=np.int64, count=n)
        for j in range(plan.ragged, table.width):
            k = np.flatnonzero(lengths > j)
            cells = {"item": base + k, "raw": _column(columns, j, n)[k], "row": lines[k]}
            out.add_block(table, s_idx, j, cells, "rating", f"r{j - plan.ragged + 1}")
    _account_labels(table, plan, columns, s_idx, base, out)
    out.notes += [(s_idx, table.files[m.file], m.row, m.col, m.label, m.raw, m.reason, m.detail) for m in table.notes]
    out.raw_cells += table.raw_cells
    out.label_cells += table.joined  # rejoined into a word or attribute: kept on the items with it
    return _ignored_columns(table, plan, columns, s_idx, out)


def _column(columns: list, j: int, n: int) -> np.ndarray:
    values = np.empty(n, dtype=object)
    values[:] = columns[j] if j < len(columns) else ABSENT
    return values


def _add_items(table: RawTable, plan: Plan, ds: dict, out: Extracted, forms: WordForms | None, decimal: str) -> None:
    form, fold = ds["unicode"], ds["casefold"]
    for i in range(len(table.rows)):
        file, row = table.row_where(i)
        raw_words = [table.cell(i, j) for j in plan.words]
        plain = [normalise_word(w, form, False) for w in raw_words]  # each word normalised once
        words = [w.casefold() for w in plain] if fold else plain
        problem = next(filter(None, map(cell_problem, raw_words)), "")
        problem = problem or word_problem(words[0], form) or word_problem(words[1], form)
        if forms is not None and not problem:
            *words, problem = forms.map(*words)
        if form != "none":
            # changed beyond its surrounding spaces (a casefold is asked for, not a repair)
            out.normalised += [
                (file, row, w) for w, p in zip(raw_words, plain) if isinstance(w, str) and p != w.strip(" ")
            ]
        attrs = {**plan.constants, **_attr_values(table, i, plan.attrs, decimal)}
        rater, context, text = None, None, None
        if plan.rater is not None:
            rater = normalise_word(table.cell(i, plan.rater), "NFC", False)
        if plan.category is not None:
            attrs["category"] = normalise_word(table.cell(i, plan.category), "NFC", True)
        elif ds["kind"] == "rankings":
            attrs["category"] = "positive"
        if ds["kind"] == "rankings" and attrs["category"] not in CATEGORIES:
            problem = f"category {attrs['category']!r} is not one of {', '.join(CATEGORIES)}"
        if plan.context is not None:
            context, why = _context_number(table.cell(i, plan.context))
            problem = why or problem
        if plan.text is not None:
            text = _text(table.cell(i, plan.text))
        for slot in plan.slots:
            out.items.add(
                word1=words[0],
                word2=words[1],
                context=slot.context if slot.context is not None else context,
                context_text=_text(table.cell(i, slot.text)) if slot.text is not None else text,
                attrs={**attrs, **slot.constants, **_attr_values(table, i, slot.attrs, decimal)},
                file=file,
                row=row,
                rater=rater,
                per_rater=plan.rater is not None,
                problem=problem,
            )


def _context_number(raw: object) -> tuple[int | None, str]:
    text = normalise_word(raw, "NFC", False)
    if text in ("1", "2", "1.0", "2.0"):
        return int(float(text)), ""
    return None, f"context {text!r} is not 1 or 2"


def _nonblank(values) -> np.ndarray:
    return np.fromiter((not blank(v) for v in values), dtype=bool, count=len(values))


def _account_labels(table: RawTable, plan: Plan, columns: list, s_idx: int, base: int, out: Extracted) -> None:
    """Word, attribute, context and rater-id cells: kept on the items (counted in ``label_cells``),
    or, where every item of the row is unusable, in the ledger as ``bad_item``."""
    n, slots = len(table.rows), len(plan.slots)
    problems = out.items.problem[base:]
    usable = np.array([any(not problems[i * slots + k] for k in range(slots)) for i in range(n)], dtype=bool)
    for j in sorted(plan.label_columns(table.width)):
        values = _column(columns, j, n)
        present = _nonblank(values)
        out.label_cells += int((present & usable).sum())
        for i in np.flatnonzero(present & ~usable):
            file, row, label = table.where(i, j)
            out.notes.append((s_idx, file, row, j, label, values[i], "bad_item", problems[i * slots]))


def _ignored_columns(table: RawTable, plan: Plan, columns: list, s_idx: int, out: Extracted) -> dict[str, int]:
    """Every value in a column the config does not name goes to the ledger (it might be a rater
    the ``raters`` pattern missed); return the named ones with their counts."""
    used = plan.label_columns(table.width) | plan.value_columns(table.width)
    ignored = {}
    for j in range(table.width):
        if j in used:
            continue
        values = _column(columns, j, len(table.rows))
        present = np.flatnonzero(_nonblank(values))
        unnamed = table.header is not None and table.header[j] == ""
        if unnamed:
            reason, detail = "unnamed_column", "a value in a column without a header name"
        else:
            reason, detail = "ignored_column", "a column the config does not name (words, raters, mean, sd, n, ...)"
            if len(present):
                ignored[table.label(j)] = len(present)
        for i in present:
            file, row, label = table.where(i, j)
            out.notes.append((s_idx, file, row, j, label, values[i], reason, detail))
    return ignored
