"""Cleaning's Best-Worst Scaling path (``kind: bws``; docs/methods.md section 1): each source row
is one answer (its tuple's k items, the best and the worst, optionally a rater and a tuple id),
read with the raw readers, checked whole, and either kept in the ``answers`` table or put in the
rejects ledger as one row with its reason. ``simgold.stages.clean`` dispatches a bws dataset here
and makes its summary.

An answer is checked in this order, and the first problem found is its ledger row (file, row, the
column and the raw cell that shows it):

* ``bws_malformed_item``: an item without its ``separator`` (or with it twice), or a word that is
  empty or unusable (as for every kind's words);
* ``bws_wrong_size``: k outside 3..8;
* ``bws_repeated_item``: an item twice in the tuple (unordered when the dataset is ``symmetric``);
* ``bws_unknown_item``: an item the dataset's ``item_list`` does not hold;
* ``bws_blank_choice``: no best or no worst;
* ``bws_not_in_tuple``, ``bws_position_out_of_range``: the best or the worst is not one of the
  tuple's items (``choice: item``; spelled after the dataset's ``unicode`` and ``casefold``) or not
  a position 1..k (``choice: position``, or a letter A.. for ``choice: letter``);
* ``bws_best_is_worst``;
* ``bws_wrong_size`` again: the tuple id was answered elsewhere with another k;
* ``bws_repeated_answer``: the rater answered this tuple before (the later answer is rejected).

Examples
--------
>>> parse_item(" Tool:chisel", ":", "NFC", True)
(('tool', 'chisel'), '')
>>> parse_item("toolchisel", ":", "NFC", False)
(None, "no separator ':' in 'toolchisel'")
>>> choice_position("B", "letter", 4), choice_position("5", "position", 4)
(2, None)
"""

from __future__ import annotations

import logging
import unicodedata
from dataclasses import dataclass, field

import pandas as pd

from simgold.errors import InputError
from simgold.io.cells import cell_problem, cell_text, normalise_word, raw_text, word_problem
from simgold.io.layouts import BWS_PRESETS
from simgold.io.rawtable import RawTable, blank
from simgold.io.readers import read_columns, read_source_table
from simgold.io.tables import TABLES, sort_canonical

__all__ = [
    "K_MIN",
    "K_MAX",
    "SEPARATOR",
    "BwsTables",
    "parse_item",
    "choice_position",
    "read_item_list",
    "clean_bws",
    "empty_answers",
]

#: the sizes of a tuple an answer may have
K_MIN, K_MAX = 3, 8
#: the text between an item's two words when the source says none
SEPARATOR = ":"
_UNNAMED = "a value in a column without a header name"
_IGNORED = "a column the config does not name (items, best, worst, rater, tuple, attributes)"


@dataclass
class BwsTables:
    """A bws dataset cleaned: its tables and the counts its summary needs.

    Attributes
    ----------
    items, answers, rejects : pandas.DataFrame
        The canonical tables.
    raw_cells : int
        The non-blank cells the readers found.
    label_cells : int
        The non-blank cells of answer rows that no ledger row shows (kept with their answer).
    n_read : int
        The answers read (accepted and rejected).
    n_tuples : int
        The distinct tuples of the accepted answers.
    normalised : int
        The word cells the Unicode normalisation changed.
    """

    items: pd.DataFrame
    answers: pd.DataFrame
    rejects: pd.DataFrame
    raw_cells: int = 0
    label_cells: int = 0
    n_read: int = 0
    n_tuples: int = 0
    normalised: int = 0


@dataclass
class _Columns:
    """The columns one source names: per position its item column(s), or one column to split."""

    items: list  # per position: (column,) or (word1 column, word2 column)
    split: tuple | None  # (column, text) when one column holds all k items
    best: int
    worst: int
    rater: int | None
    tuple: int | None
    attrs: list  # (name, column, type)
    constants: dict
    choice: str
    separator: str

    def named(self) -> list[int]:
        cols = [j for entry in self.items for j in entry] + ([self.split[0]] if self.split else [])
        cols += [self.best, self.worst] + [j for j in (self.rater, self.tuple) if j is not None]
        return cols + [j for _, j, _ in self.attrs]


@dataclass
class _State:
    """What the dataset's answers so far have made: item ids, tuples' k, answered (rater, tuple)."""

    ds: dict
    known: dict | None  # the item_list's pairs (key -> (word1, word2)), or None
    items: dict = field(default_factory=dict)  # key -> (word1, word2, file, row), in order of first appearance
    tuple_k: dict = field(default_factory=dict)  # tuple key -> (k, file, row)
    answered: dict = field(default_factory=dict)  # (rater, tuple key) -> (file, row)
    answers: list = field(default_factory=list)
    ledger: list = field(default_factory=list)  # (source, file, row, column, label, raw, reason, detail)
    label_cells: int = 0
    n_read: int = 0
    normalised: int = 0
    # an item cell's text -> (pair, problem, words normalisation changed): items recur across
    # answers and as best and worst, so each distinct cell is parsed and normalised once
    parsed: dict = field(default_factory=dict)

    def item(self, raw: object, separator: str) -> tuple[tuple[str, str] | None, str, int]:
        """``parse_item`` of a one-column item cell, and how many of its words normalisation changed."""
        if not isinstance(raw, str):
            pair, problem = parse_item(raw, separator, self.ds["unicode"], self.ds["casefold"])
            return pair, problem, 0
        key = (raw, separator)
        if key not in self.parsed:
            pair, problem = parse_item(raw, separator, self.ds["unicode"], self.ds["casefold"])
            self.parsed[key] = (pair, problem, _changed(raw.split(separator), self.ds["unicode"]))
        return self.parsed[key]

    def key(self, pair: tuple[str, str]) -> tuple[str, str]:
        """The identity of an item: unordered in a symmetric dataset."""
        return tuple(sorted(pair)) if self.ds["symmetric"] else pair


def parse_item(raw: object, separator: str, form: str, casefold: bool) -> tuple[tuple[str, str] | None, str]:
    """An item cell ``word1<separator>word2`` as its two words, normalised as the dataset's words
    are; or (None, the problem).

    Parameters
    ----------
    raw : object
        The cell.
    separator : str
        The text between the words.
    form : str
        The dataset's ``unicode`` form.
    casefold : bool
        The dataset's ``casefold``.

    Returns
    -------
    tuple
        ((word1, word2), "") or (None, why the cell is not an item).
    """
    problem = cell_problem(raw)
    if problem:
        return None, problem
    text = raw if isinstance(raw, str) else cell_text(raw)
    parts = text.split(separator)
    if len(parts) != 2:
        what = "no separator" if len(parts) == 1 else f"{len(parts) - 1} separators"
        return None, f"{what} {separator!r} in {text!r}" + ("" if len(parts) == 1 else " (an item has two words)")
    return _pair(parts[0], parts[1], form, casefold)


def _pair(a: object, b: object, form: str, casefold: bool) -> tuple[tuple[str, str] | None, str]:
    words = (normalise_word(a, form, casefold), normalise_word(b, form, casefold))
    for word in words:
        problem = word_problem(word, form)
        if problem:
            return None, problem
    return words, ""


def choice_position(raw: object, choice: str, k: int) -> int | None:
    """The 1-based position a best or worst cell names (``choice: position``: 1..k; ``letter``:
    A, B, ... in either case); None when it names none of the k.

    Parameters
    ----------
    raw : object
        The cell.
    choice : str
        ``position`` or ``letter``.
    k : int
        The tuple's size.

    Returns
    -------
    int or None
        The position.
    """
    if isinstance(raw, bool):
        return None
    if isinstance(raw, float) and raw.is_integer():
        raw = int(raw)
    text = str(raw).strip() if isinstance(raw, (str, int)) else ""
    if choice == "letter":
        position = ord(text.upper()) - ord("A") + 1 if len(text) == 1 and text.isascii() and text.isalpha() else 0
    else:
        position = int(text) if text.isascii() and text.isdigit() else 0
    return position if 1 <= position <= k else None


def read_item_list(spec: dict, ds: dict, base_dir: str = ".") -> tuple[dict, str]:
    """A bws dataset's ``item_list``: its pairs, normalised as the dataset's words, in file order.

    Parameters
    ----------
    spec : dict
        The ``item_list`` config (reader options, and ``item`` or ``words``).
    ds : dict
        The resolved dataset.
    base_dir : str
        What its path is relative to.

    Returns
    -------
    tuple of (dict, str)
        Item key -> (word1, word2, file, row), and the file's name.
    """
    refs = [spec["item"]] if "item" in spec else list(spec["words"])
    rows, name = read_columns(spec, refs, base_dir)
    form, fold, state = ds["unicode"], ds["casefold"], _State(ds, None)
    out: dict = {}
    for *cells, row in rows:
        if len(cells) == 1:
            pair, problem = parse_item(cells[0], spec.get("separator", SEPARATOR), form, fold)
        else:
            pair, problem = _pair(cells[0], cells[1], form, fold)
        if pair is None:
            raise InputError(name, f"item_list: {problem}", row=row, value=" ".join(cells))
        key = state.key(pair)
        if key in out:
            raise InputError(name, f"item_list: the pair {pair[0]}/{pair[1]} is listed twice", row=row)
        out[key] = (*pair, name, row)
    return out, name


def clean_bws(name: str, ds: dict, base_dir: str = ".", log: logging.Logger | None = None) -> BwsTables:
    """Read and check every answer of a bws dataset: the items, answers and rejects tables.

    Parameters
    ----------
    name : str
        The dataset's name.
    ds : dict
        The dataset, checked and resolved (``simgold.io.config.check_dataset``).
    base_dir : str
        What its paths are relative to.
    log : logging.Logger, optional
        Where what was read is said.

    Returns
    -------
    BwsTables
        The tables and counts.
    """
    log = log or logging.getLogger(__name__)
    known = None
    if "item_list" in ds:
        known, file = read_item_list(ds["item_list"], ds, base_dir)
        log.info(f"{file}: {len(known)} pairs in the item list")
    state, raw_cells = _State(ds, known), 0
    if known:
        state.items.update(known)
    for s_idx, src in enumerate(ds["sources"]):
        src = {**BWS_PRESETS.get(src.get("preset"), {}), **src}
        table = read_source_table(src, base_dir, ds["language"])
        log.info(f"{', '.join(table.files)}: {len(table.rows)} data rows, {table.width} columns")
        raw_cells += table.raw_cells
        cols = _source_columns(table, src)
        state.ledger += [
            (s_idx, table.files[n.file], n.row, n.col, n.label, n.raw, n.reason, n.detail) for n in table.notes
        ]
        _ignored_cells(table, cols, s_idx, state)
        for i in range(len(table.rows)):
            _read_answer(table, i, cols, s_idx, state)
    return _tables(name, ds, state, raw_cells)


# --------------------------------------------------------------------------------------------
# a source's columns


def _source_columns(table: RawTable, src: dict) -> _Columns:
    items, split = src["items"], None
    if isinstance(items, dict):
        split, items = (table.column(items["column"], "items.column"), items["split"]), []
    entries = [
        tuple(table.column(r, f"items[{k}]") for r in (e if isinstance(e, list) else [e])) for k, e in enumerate(items)
    ]
    attrs, constants = [], {}
    for attr, spec in src.get("attributes", {}).items():
        if isinstance(spec, dict) and "value" in spec:
            constants[attr] = spec["value"]
            continue
        ref, typ = (spec["column"], spec.get("type", "string")) if isinstance(spec, dict) else (spec, "string")
        attrs.append((attr, table.column(ref, f"attributes.{attr}"), typ))
    opt = {key: table.column(src[key], key) if key in src else None for key in ("rater", "tuple")}
    cols = _Columns(
        entries, split, table.column(src["best"], "best"), table.column(src["worst"], "worst"), opt["rater"],
        opt["tuple"], attrs, constants, src.get("choice", "item"), src.get("separator", SEPARATOR),
    )  # fmt: skip
    named = cols.named()
    for j in named:
        if named.count(j) > 1:
            raise InputError(
                table.files[0], f"column {table.label(j)!r} has two roles", expected="each column in one role"
            )
    return cols


def _ignored_cells(table: RawTable, cols: _Columns, s_idx: int, state: _State) -> None:
    """Every value in a column the config does not name goes to the ledger, as for every kind."""
    named = set(cols.named())
    for j in range(table.width):
        if j in named:
            continue
        unnamed = table.header is not None and table.header[j] == ""
        reason, detail = ("unnamed_column", _UNNAMED) if unnamed else ("ignored_column", _IGNORED)
        for i in range(len(table.rows)):
            raw = table.cell(i, j)
            if not blank(raw):
                file, row, label = table.where(i, j)
                state.ledger.append((s_idx, file, row, j, label, raw, reason, detail))


# --------------------------------------------------------------------------------------------
# an answer


class _Rejected(Exception):
    """An answer's first problem: the column that shows it, the reason and what it says."""

    def __init__(self, column: int, reason: str, detail: str):
        super().__init__(detail)
        self.column, self.reason, self.detail = column, reason, detail


def _read_answer(table: RawTable, i: int, cols: _Columns, s_idx: int, state: _State) -> None:
    named = [table.cell(i, j) for j in cols.named()]
    if all(blank(v) for v in named):
        return  # no answer in this row (the ledger has what other columns hold)
    state.n_read += 1
    filled = sum(1 for v in named if not blank(v))
    try:
        answer = _check_answer(table, i, cols, state)
    except _Rejected as rejected:
        raw = table.cell(i, rejected.column)
        file, row, label = table.where(i, rejected.column)
        state.ledger.append((s_idx, file, row, rejected.column, label, raw, rejected.reason, rejected.detail))
        state.label_cells += filled - (not blank(raw))
        return
    state.label_cells += filled
    state.answers.append(answer)


def _check_answer(table: RawTable, i: int, cols: _Columns, state: _State) -> dict:
    """The accepted answer of row ``i``, or :class:`_Rejected` with its first problem."""
    items, where = _row_items(table, i, cols, state)
    k = len(items)
    if not K_MIN <= k <= K_MAX:
        raise _Rejected(where, "bws_wrong_size", f"{k} items; a BWS tuple has {K_MIN} to {K_MAX}")
    keys = [state.key(pair) for pair, _ in items]
    for n, key in enumerate(keys):
        if key in keys[:n]:
            pair = items[n][0]
            raise _Rejected(items[n][1], "bws_repeated_item", f"{pair[0]}/{pair[1]} is twice in the tuple")
        if state.known is not None and key not in state.known:
            pair = items[n][0]
            raise _Rejected(items[n][1], "bws_unknown_item", f"{pair[0]}/{pair[1]} is not in the item list")
    best = _choice(table, i, cols.best, "best", cols, keys, state)
    worst = _choice(table, i, cols.worst, "worst", cols, keys, state)
    if best == worst:
        raise _Rejected(cols.worst, "bws_best_is_worst", f"the best and the worst are the same item (position {best})")
    file, row = table.row_where(i)
    tuple_id = _label_text(table.cell(i, cols.tuple)) if cols.tuple is not None else None
    tuple_key = ("id", tuple_id) if tuple_id is not None else ("items", frozenset(keys))
    seen = state.tuple_k.get(tuple_key)
    if seen is not None and seen[0] != k:
        detail = f"{k} items; tuple {tuple_id!r} has {seen[0]} at {seen[1]} row {seen[2]}"
        raise _Rejected(cols.tuple, "bws_wrong_size", detail)
    rater = _label_text(table.cell(i, cols.rater)) if cols.rater is not None else None
    if rater is not None and (rater, tuple_key) in state.answered:
        first = state.answered[rater, tuple_key]
        what = f"tuple {tuple_id!r}" if tuple_id is not None else "this tuple"
        raise _Rejected(
            cols.rater, "bws_repeated_answer", f"rater {rater!r} answered {what} before ({first[0]} row {first[1]})"
        )
    state.tuple_k.setdefault(tuple_key, (k, file, row))
    if rater is not None:
        state.answered[rater, tuple_key] = (file, row)
    for (pair, _), key in zip(items, keys):
        state.items.setdefault(key, (*pair, file, row))
    attrs = {name: _attribute(table, i, j, typ, name) for name, j, typ in cols.attrs}
    return {"keys": keys, "best": best, "worst": worst, "tuple": tuple_id, "rater": rater, "file": file, "row": row,
            "attrs": {**cols.constants, **attrs}}  # fmt: skip


def _row_items(table: RawTable, i: int, cols: _Columns, state: _State) -> tuple[list, int]:
    """The row's items ((word1, word2), column) in position order, blank positions left out, and the
    column a wrong size is shown at."""
    form, fold = state.ds["unicode"], state.ds["casefold"]
    if cols.split is not None:
        j, text = cols.split
        raw = table.cell(i, j)
        parts = [] if blank(raw) else str(raw if isinstance(raw, str) else cell_text(raw)).split(text)
        out = []
        for part in parts:
            pair, problem, changed = state.item(part, cols.separator)
            if pair is None:
                raise _Rejected(j, "bws_malformed_item", problem)
            state.normalised += changed
            out.append((pair, j))
        return out, j
    out = []
    for entry in cols.items:
        raws = [table.cell(i, j) for j in entry]
        if all(blank(v) for v in raws):
            continue
        if len(entry) == 1:
            pair, problem, changed = state.item(raws[0], cols.separator)
        else:
            pair, problem = _pair(*raws, form, fold)
            changed = _changed([w for w in raws if isinstance(w, str)], form)
        if pair is None:
            raise _Rejected(entry[int(len(entry) == 2 and not blank(raws[0]))], "bws_malformed_item", problem)
        state.normalised += changed
        out.append((pair, entry[0]))
    return out, cols.items[0][0]


def _changed(words: list, form: str) -> int:
    """How many of the words the Unicode normalisation changed (beyond the surrounding spaces)."""
    return sum(1 for w in words if isinstance(w, str) and normalise_word(w, form, False) != w.strip())


def _choice(table: RawTable, i: int, j: int, which: str, cols: _Columns, keys: list, state: _State) -> int:
    """The 1-based position of the tuple's item the best (or worst) cell names."""
    raw = table.cell(i, j)
    if blank(raw):
        raise _Rejected(j, "bws_blank_choice", f"no {which} item")
    if cols.choice != "item":
        position = choice_position(raw, cols.choice, len(keys))
        if position is None:
            names = (
                "a position 1.." + str(len(keys)) if cols.choice == "position" else f"a letter A..{chr(64 + len(keys))}"
            )
            raise _Rejected(j, "bws_position_out_of_range", f"the {which} is not {names}")
        return position
    pair, problem, _ = state.item(raw, cols.separator)
    if pair is None or state.key(pair) not in keys:
        why = problem or f"{pair[0]}/{pair[1]} is not one of the tuple's items"
        raise _Rejected(j, "bws_not_in_tuple", f"the {which}: {why}")
    return keys.index(state.key(pair)) + 1


def _label_text(raw: object) -> str | None:
    """A rater or tuple id as text (NFC, stripped); None when blank."""
    if blank(raw):
        return None
    return unicodedata.normalize("NFC", raw if isinstance(raw, str) else cell_text(raw)).strip()


def _attribute(table: RawTable, i: int, j: int, typ: str, name: str):
    text = _label_text(table.cell(i, j))
    if text is None or typ == "string":
        return text
    try:
        return int(text) if typ == "int" else float(text.replace(",", "."))
    except ValueError:
        file, row, col = table.where(i, j)
        raise InputError(file, f"attribute {name!r} must be {typ}", row=row, column=col, value=text) from None


# --------------------------------------------------------------------------------------------
# tables


def _tables(name: str, ds: dict, state: _State, raw_cells: int) -> BwsTables:
    keys = list(state.items)
    width = max(6, len(str(len(keys))))
    ids = {key: f"{name}:{k:0{width}d}" for k, key in enumerate(keys, start=1)}
    columns = TABLES["items"].names
    rows = [
        {"dataset": name, "item_id": ids[key], "language": ds["language"], "word1": w1, "word2": w2, "context": None,
         "context_text": None, "pos": None, "relation": None, "source_item_id": None, "occurrence": 1,
         "source_file": file, "source_row": row}
        for key, (w1, w2, file, row) in state.items.items()
    ]  # fmt: skip
    items = pd.DataFrame(rows, columns=list(columns))
    answers = sort_canonical(_answers_table(name, state, ids), "answers")
    return BwsTables(
        items=sort_canonical(items, "items"),
        answers=answers,
        rejects=_rejects_table(name, state.ledger),
        raw_cells=raw_cells,
        label_cells=state.label_cells,
        n_read=state.n_read,
        n_tuples=int(answers["tuple"].nunique()),
        normalised=state.normalised,
    )


def _answers_table(name: str, state: _State, ids: dict) -> pd.DataFrame:
    columns = list(TABLES["answers"].names)
    extra = list(dict.fromkeys(attr for answer in state.answers for attr in answer["attrs"]))
    rows = []
    for number, answer in enumerate(state.answers):
        item_ids = [ids[key] for key in answer["keys"]]
        tuple_id = answer["tuple"] if answer["tuple"] is not None else " | ".join(sorted(item_ids))
        for position, item_id in enumerate(item_ids, start=1):
            choice = "best" if position == answer["best"] else "worst" if position == answer["worst"] else ""
            rows.append([name, number, tuple_id, answer["rater"], position, item_id, choice, answer["file"],
                         answer["row"], *(answer["attrs"].get(a) for a in extra)])  # fmt: skip
    return pd.DataFrame(rows, columns=columns + extra)


def _rejects_table(name: str, ledger: list) -> pd.DataFrame:
    """The ledger in file order: source, row, column position (a whole line first)."""
    ordered = sorted(ledger, key=lambda e: (e[0], e[2], e[3]))
    rows = [
        [name, file, row, label, raw_text(raw), reason, detail]
        for _, file, row, _, label, raw, reason, detail in ordered
    ]
    return pd.DataFrame(rows, columns=list(TABLES["rejects"].names))


def empty_answers() -> pd.DataFrame:
    """The answers table of a dataset of another kind: its columns, no row.

    Returns
    -------
    pandas.DataFrame
        The empty table.
    """
    return pd.DataFrame([], columns=list(TABLES["answers"].names))
