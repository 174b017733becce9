"""Cleaning (docs/methods.md section 1): raw tables -> canonical ``items``, ``ratings``, ``means``,
``rankings`` and the ``rejects`` ledger (a ``bws`` dataset's ``answers``: ``simgold.stages.bws_answers``).

**The ledger counts the file, not the config.** ``raw_cells`` is the number of non-blank cells
the reader found (every row of every file or sheet read: header, title rows, comment lines and
data alike; a title or comment line of a text file is one cell, the whole line). Each of them is
in exactly one place:

* an output table: an accepted rating, rank, mean, SD or n;
* the ledger (``rejects``) with a reason: a value that is not a number, off the scale, a
  duplicate, ...; every cell of a row rejected whole (``extra_fields``; ``bad_item``: the row's
  word, attribute and context cells too); a header cell, a title row, a comment line, a header
  repeated mid-file (``ignored_row``); a cell of a column the config does not name
  (``ignored_column``, and a warning in the log; ``unnamed_column`` where the header has no name);
* ``label_cells``: the word, attribute, context, rater-id and category cells of the other rows,
  which are kept as fields of the items (and the rater id on the ratings).

``ledger_balanced`` is ``accepted + non-blank ledger rows + label_cells == raw_cells``. The ledger
also lists blank cells where a value was expected (``missing`` for an empty cell, ``short_row``,
``empty_rater``); being blank they count on neither side.

Cleaning is columnar: the value cells of a source column are arrays, each distinct raw text is
parsed once. Steps, in order:

1. words: Unicode normalisation (NFC by default; invisible characters such as a zero-width space
   or a stray BOM removed, Unicode spaces made plain; with ``unicode: none`` a word holding one is
   rejected instead), surrounding whitespace stripped, optional casefold;
2. missing markers become missing (ledger reason ``missing``), not zero;
3. values that are not numbers (``non_numeric``, ``non_finite``) or lie outside the scale
   (``out_of_scale``) are rejected;
4. duplicated items (same word pair, same context; unordered when ``symmetric``) are resolved per
   rater by ``duplicates``: ``reject`` (all copies to the ledger), ``first``/``last`` (the others
   to the ledger as ``duplicate_superseded``), ``mean`` (averaged; the other cells to the ledger as
   ``duplicate_merged``), or ``all`` (each repetition is its own item, ``occurrence`` 2, 3, ...).
   Only accepted values take part: a missing repeat does not displace a real answer;
5. raters who answered fewer than ``min_answered`` items are excluded (``rater_incomplete``).

Attention checks (the ``attention`` key, ``simgold.stages.controls``) come before step 4: a check
pair is not an item, each accepted answer to it goes to the ledger (``attention_check``, counted
apart, not a rejected value) and every accepted rating of a rater who failed more than
``max_failures`` checks goes there too (``attention_failed``). Anchors (``anchors``) stay items,
marked in the items table's ``anchor`` column. A check or anchor pair no source holds is a warning.

Rankings are checked per (target, rater): the ranks must be a permutation of 1..m over the m
candidates of the target, else the whole group goes to the ledger as ``invalid_ranking``.
"""

from __future__ import annotations

import logging
import math

import numpy as np
import pandas as pd

from simgold.errors import DataError
from simgold.io.cells import (
    number_text,
    parse_value,
    raw_text,
)
from simgold.io.config import check_dataset
from simgold.io.ledger import (
    ATTENTION_REASONS,
    DESIGN_REASONS,
    BLANK,
    BWS_REASONS,
    NOT_A_REJECTED_VALUE,
    REASONS,
    normalised_text,
    rejected_text,
    rejection_line,
)
from simgold.io.readers import read_source_table
from simgold.io.tables import TABLES, sort_canonical
from simgold.stages.bws_answers import BwsTables, clean_bws, empty_answers
from simgold.stages.controls import check_detail, control_pairs, design_problems, pair_index, read_design
from simgold.stages.extraction import ROLE_CODES, ROLES, Extracted, Items, WordForms, extract_source
from simgold.stages.valuecells import REASON_CODES, Cells, LedgerRows, text_column

__all__ = [
    "ITEM_COLUMNS",
    "TABLE_COLUMNS",
    "clean_dataset",
    "check_rejected",
    "accounted_cells",
    "summarise",
    "require_accepted",
]

_LOG = logging.getLogger(__name__)


# --------------------------------------------------------------------------------------------
# dataset


def clean_dataset(name: str, spec: dict, base_dir: str = ".", *, log: logging.Logger | None = None) -> dict:
    """Read and clean every source of one dataset; return the canonical tables as DataFrames.

    Returns ``items``, ``ratings``, ``means``, ``rankings``, ``rejects`` and ``summary`` (one row:
    counts per output and per reject reason, ``raw_cells`` counted from the files, ``label_cells``
    and whether the ledger balances). ``log`` (default: this module's logger) hears what was read.

    Parameters
    ----------
    name : str
        The dataset's name.
    spec : dict
        Its config entry.
    base_dir : str
        What its paths are relative to.
    log : logging.Logger, optional
        Where counts and warnings go.

    Returns
    -------
    dict of str to pandas.DataFrame
        The tables by name.
    """
    log = log or _LOG
    ds = check_dataset(name, spec, base_dir)
    if ds["kind"] == "bws":  # one row per answer, not value cells: stages.bws_answers
        return _assemble_bws(name, ds, clean_bws(name, ds, base_dir, log))
    ext = Extracted()
    for s_idx, src in enumerate(ds["sources"]):
        _extract(name, ds, s_idx, base_dir, ext, log)
    _log_counts(log, ext)
    _log_controls(log, ds, ext.items)
    return _assemble(name, ds, ext)


def _extract(name: str, ds: dict, s_idx: int, base_dir: str, ext: Extracted, log: logging.Logger) -> None:
    """Read source ``s_idx`` and append what it holds to ``ext`` (its raw table is let go on return)."""
    src = ds["sources"][s_idx]
    table = read_source_table(src, base_dir, ds["language"])
    sep = {None: "n/a", "\t": "tab", " ": "space"}.get(table.separator, table.separator)
    log.info(f"{', '.join(table.files)}: {len(table.rows)} data rows, {table.width} columns, separator {sep}")
    for message in table.messages:
        log.info(message)
    where = f"datasets.{name}.sources[{s_idx}].word_forms"
    forms = WordForms.read(src["word_forms"], ds, base_dir, where) if "word_forms" in src else None
    if forms is not None:
        log.info(f"{', '.join(table.files)}: pairs mapped to the dataset's form by {forms.file} ({len(forms.pairs)})")
    ignored = extract_source(table, src, ds, s_idx, ext, forms)
    if ignored:
        listed = ", ".join(f"{label!r} ({count} value{'s' * (count != 1)})" for label, count in ignored.items())
        log.warning(
            f"{', '.join(table.files)}: columns the config does not name: {listed}; their cells are in the"
            " ledger as ignored_column (a rater column the raters pattern misses?)"
        )


def _log_counts(log: logging.Logger, ext: Extracted) -> None:
    if ext.normalised:
        file, row, word = ext.normalised[0]
        log.warning(f"{normalised_text(len(ext.normalised))} (first: {file}, row {row}: {word!r})")
    extra = sum(1 for note in ext.notes if note[6] == "extra_fields")
    if extra:
        log.warning(f"{extra} cells of rows with more fields than the header are in the ledger as extra_fields")


def _log_controls(log: logging.Logger, ds: dict, items: Items) -> None:
    for key, what in (("attention", "attention check"), ("anchors", "anchor")):
        pairs = control_pairs(ds, key)
        found = set(pair_index(items.word1, items.word2, pairs, ds["symmetric"]).tolist())
        for k, (a, b) in enumerate(pairs):
            if k not in found:
                log.warning(f"the {what} {a} / {b} ({key}.items[{k}]) is in no source of the dataset")


def _assemble(name: str, ds: dict, ext: Extracted) -> dict[str, pd.DataFrame]:
    cells = Cells.from_extracted(ext)
    ext.blocks = []  # the cells hold them now
    _classify(cells, ds)
    _empty_raters(cells, ds)
    items = ext.items
    checks = control_pairs(ds, "attention")
    check = pair_index(items.word1, items.word2, checks, ds["symmetric"])
    ident, occurrence, first, same_pair = _identities(items, ds, check >= 0)  # a check pair is not an item
    _bad_rows(cells, items)
    if "design" in ds:
        _check_design(ds, cells, items, ext.notes)
    if checks:
        _attention_checks(ds["attention"], cells, check, checks)
    width = max(6, len(str(len(first))))
    item_ids = np.array([f"{name}:{k:0{width}d}" for k in range(1, len(first) + 1)], dtype=object)
    cid = ident[cells.item] if len(cells.item) else np.empty(0, dtype=np.int64)
    repeats = _repeated_answers(name, ds, cells, same_pair, item_ids)  # before the duplicates rule decides
    _resolve_duplicates(ds["duplicates"], cells, cid, items)
    if ds["kind"] == "rankings":
        _check_rankings(cells, items, ident)
    if "min_answered" in ds:
        _exclude_incomplete(ds["min_answered"], len(first), cells, cid)
    tables = _tables(name, ds, items, cells, cid, occurrence, first, item_ids)
    tables["rejects"] = None  # last: when the cells are gone (the tables keep their order)
    tables["repeats"] = sort_canonical(repeats, "repeats")
    tables["answers"] = empty_answers()
    held, rejected = _rejected_values(cells)
    del cid
    ledger = LedgerRows.of(cells, ext.notes)  # in file order: no sort; takes (empties) the cells
    tables["rejects"] = ledger.table(name, TABLE_COLUMNS["rejects"])
    del ledger
    tables["summary"] = summarise(name, ds, tables, raw_cells=ext.raw_cells, label_cells=ext.label_cells)
    tables["summary"] = tables["summary"].assign(
        n_values_held=held,
        n_values_rejected=sum(rejected.values()),
        values_rejected=rejected_text(rejected),
        n_words_normalised=len(ext.normalised),
    )
    return tables


def _assemble_bws(name: str, ds: dict, bws: BwsTables) -> dict[str, pd.DataFrame]:
    """A bws dataset's tables: items, answers and the ledger; the value tables empty; its summary
    counts answers (read, rejected by reason) where the other kinds count value cells."""
    empty = {table: pd.DataFrame([], columns=list(TABLES[table].names)) for table in ("ratings", "means", "rankings")}
    tables = {**{k: sort_canonical(v, k) for k, v in empty.items()}, "items": bws.items, "answers": bws.answers}
    tables["rejects"] = bws.rejects
    tables["repeats"] = pd.DataFrame([], columns=list(TABLES["repeats"].names))
    summary = summarise(name, ds, tables, raw_cells=bws.raw_cells, label_cells=bws.label_cells)
    counts = bws.rejects["reason"].value_counts()
    rejected = {r: int(counts[r]) for r in BWS_REASONS if r in counts}
    raters = bws.answers["rater"].dropna()
    tables["summary"] = summary.assign(
        n_raters=int(raters.nunique()),
        n_values_held=bws.n_read,
        n_values_rejected=sum(rejected.values()),
        values_rejected=rejected_text(rejected),
        n_words_normalised=bws.normalised,
        n_answers=int(bws.answers["answer"].nunique()),
        n_tuples=bws.n_tuples,
    )
    return tables


def _rejected_values(cells: Cells) -> tuple[int, dict[str, int]]:
    """The value cells (ratings, ranks, means, SDs, counts) that held a value, and of them those
    rejected, by reason, in ``REASONS`` order. Blanks and missing markers held none; an answer the
    duplicates rule kept, averaged or superseded as configured is not a rejection."""
    blank = _among(cells.reason, [REASON_CODES[r] for r in BLANK])
    resolved = _among(cells.reason, [REASON_CODES[r] for r in NOT_A_REJECTED_VALUE])
    counts = np.bincount(cells.reason[~resolved & (cells.reason > 0)], minlength=len(REASONS) + 1)
    return int((~blank).sum()), {r: int(counts[REASON_CODES[r]]) for r in REASONS if counts[REASON_CODES[r]]}


def _among(codes: np.ndarray, wanted) -> np.ndarray:
    """``np.isin`` for int8 codes (reasons, roles), by a lookup table."""
    table = np.zeros(256, dtype=bool)
    table[list(wanted)] = True
    return table[codes.view(np.uint8)]


def check_rejected(summary: pd.Series, max_rejected: float, ledger_path: str) -> None:
    """Stop when more than ``max_rejected`` of a dataset's values were rejected: a wrong scale or
    column must not end in a run that says "finished". ``ledger_path``: where the job wrote the
    ledger (a failed job's outputs are deleted).

    Parameters
    ----------
    summary : pandas.Series
        The dataset's cleaning summary.
    max_rejected : float
        The largest share of values the ledger may reject.
    ledger_path : str
        Where the ledger was written.
    """
    held, rejected = int(summary["n_values_held"]), int(summary["n_values_rejected"])
    if held and rejected / held > max_rejected:
        raise DataError(
            f"{rejection_line(summary)}; more than max_rejected {max_rejected * 100:g}% of the dataset's values: "
            f"stopped (the ledger, every rejected cell with file, row, column and reason: {ledger_path})"
        )


def _classify(cells: Cells, ds: dict) -> None:
    """Steps 2-3: each distinct raw cell of a (source, role) is parsed once."""
    low, high = ds.get("scale", (-math.inf, math.inf))
    bounds = {"rating": (low, high), "mean": (low, high), "rank": (1, math.inf), "sd": (0, math.inf)}
    bounds["n"] = (0, math.inf)
    for s, src in enumerate(ds["sources"]):
        missing = frozenset(src["missing"])
        for role, code in ROLE_CODES.items():
            mask = (cells.src == s) & (cells.role == code)
            count = np.count_nonzero(mask)
            if count:
                idx = None if count == len(mask) else np.flatnonzero(mask)  # None: all the cells
                args = (role, missing, src["decimal"], *bounds[role])
                _classify_cells(cells, idx, lambda raw: _classify_one(raw, *args))  # noqa: B023 (used at once)
    cells.raw = None  # classified: the ledger shows each cell's ``text``


_CHUNK = 1 << 18  # cells factorized at a time: the hash table of a million cells is not needed at once


def _classify_cells(cells: Cells, idx: np.ndarray | None, parse) -> None:
    """The cells ``idx`` (None: all) classified by ``parse``, once per distinct raw cell, a chunk at a time."""
    n = len(cells.raw) if idx is None else len(idx)
    known: dict = {}  # a raw cell's key -> its code in ``parsed``
    parsed: list = []
    for start in range(0, n, _CHUNK):
        at = slice(start, min(start + _CHUNK, n)) if idx is None else idx[start : start + _CHUNK]
        codes, uniques = _factorize(cells.raw[at])
        for raw in uniques:
            if _raw_key(raw) not in known:
                known[_raw_key(raw)] = len(parsed)
                value, reason, detail, text = parse(raw)
                parsed.append((value, reason, cells.details.code(detail), cells.texts.code(text)))
        local = np.array([known[_raw_key(raw)] for raw in uniques], dtype=np.int64)
        for column, per_code in zip((cells.value, cells.reason, cells.detail, cells.text), zip(*parsed)):
            per_unique = np.asarray(per_code, dtype=column.dtype)[local]
            if idx is None:
                np.take(per_unique, codes, out=column[at])
            else:
                column[at] = per_unique[codes]


def _raw_key(raw) -> object:
    """1, 1.0, True and "1" kept apart."""
    return raw if type(raw) is str else f"\0{type(raw).__name__}:{raw!r}"


def _factorize(raws: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes of equal raw cells and one raw cell per code; 1, 1.0, True and "1" are kept apart."""
    codes, uniques = pd.factorize(raws, use_na_sentinel=False)
    if all(type(u) is str for u in uniques):  # in order of first appearance: each one's first cell
        return codes, uniques
    codes, _ = pd.factorize(np.array([_raw_key(v) for v in raws], dtype=object), use_na_sentinel=False)
    _, first = np.unique(codes, return_index=True)
    return codes, raws[first]


def _classify_one(raw, role: str, missing, decimal: str, low: float, high: float) -> tuple:
    value, reason, detail = parse_value(raw, missing=missing, decimal=decimal, low=low, high=high)
    if reason is None and role == "rank" and not float(value).is_integer():
        value, reason, detail = None, "invalid_ranking", "a rank must be a whole number"
    if reason == "out_of_scale" and role in ("sd", "n", "rank"):
        detail = {"sd": "a negative standard deviation", "n": "a negative count", "rank": "a rank below 1"}[role]
    return (math.nan if value is None else value), REASON_CODES.get(reason, 0), detail or None, raw_text(raw)


def _empty_raters(cells: Cells, ds: dict) -> None:
    """A rater column with no value in any row is a sheet problem (a wrong column, an unfilled
    form), not missing ratings: say so instead of as many ordinary gaps."""
    # in a ragged layout a position is not a person, so an empty one means nothing
    ragged = np.array([src["layout"] == "ragged" for src in ds["sources"]], dtype=bool)
    rated = (cells.role == ROLE_CODES["rating"]) & cells.named() & ~ragged[cells.src]
    if not rated.any():
        return
    key = cells.src.astype(np.int64)  # (source, rater) as one number; rater -1 (no rater) is 0
    key *= len(cells.raters) + 1
    key += cells.rater
    key += 1
    answered = rated & ~_among(cells.reason, [REASON_CODES["missing"], REASON_CODES["short_row"]])
    idx = np.flatnonzero(rated & ~(np.bincount(key[answered], minlength=int(key.max()) + 1) > 0)[key])
    for _, group in pd.Series(idx).groupby(cells.rater[idx]):
        k = group.to_numpy()
        rater, file = cells.raters[cells.rater[k[0]]], cells.files[cells.block[k[0]]]
        cells.reject(k, "empty_rater", f"rater {rater!r} has no rating in any row of {file}")


def _identities(items: Items, ds: dict, left_out) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Step 4's item identities: (identity per item row, -1 when unusable or ``left_out``; occurrence per
    identity; the first item row of each identity; per item row, the identity of the pair's first
    occurrence, which differs from the row's identity only under ``duplicates: all``), identities
    in order of first appearance."""
    n = len(items)
    if not n:
        return (np.empty(0, dtype=np.int64),) * 4
    a, b = np.asarray(items.word1, dtype=object), np.asarray(items.word2, dtype=object)
    if ds["symmetric"] and ds["kind"] != "rankings":  # a target and its candidate are not interchangeable
        swap = b < a
        a, b = np.where(swap, b, a), np.where(swap, a, b)
    key = pd.DataFrame(
        {
            "a": a,
            "b": b,
            "context": [-1 if c is None else c for c in items.context],
            "text": ["\0" if t is None else t for t in items.context_text],
            "rater": [r if per else "\0" for r, per in zip(items.rater, items.per_rater)],
        }
    )
    seen = key.groupby(list(key.columns), sort=False).cumcount().to_numpy() + 1
    key["occurrence"] = seen if ds["duplicates"] == "all" else 1
    usable = np.array([not p for p in items.problem], dtype=bool) & ~np.asarray(left_out, dtype=bool)
    groups = key[usable].groupby(["a", "b", "context", "text", "occurrence"], sort=False).ngroup().to_numpy()
    ident = np.full(n, -1, dtype=np.int64)
    ident[usable] = groups
    _, first = np.unique(groups, return_index=True)
    first = np.flatnonzero(usable)[first]
    # the pair without its occurrence: its first occurrence comes first in the file
    pair = key[usable].groupby(["a", "b", "context", "text"], sort=False).ngroup().to_numpy()
    _, pair_first = np.unique(pair, return_index=True)
    same_pair = np.full(n, -1, dtype=np.int64)
    same_pair[usable] = groups[pair_first][pair]
    return ident, key["occurrence"].to_numpy()[first], first, same_pair


def _bad_rows(cells: Cells, items: Items) -> None:
    problem = np.array([bool(p) for p in items.problem] or [False], dtype=bool)[cells.item]
    per_rater = np.array(items.per_rater or [False], dtype=bool)[cells.item]
    open_ = cells.reason == 0
    for k in np.flatnonzero(open_ & problem):
        cells.reject(k, "bad_item", items.problem[cells.item[k]])
    valued = _among(cells.role, [ROLE_CODES["rating"], ROLE_CODES["rank"]])
    cells.reject(open_ & ~problem & per_rater & ~cells.named() & valued, "bad_rater", "the rater id is empty")


def _repeated_answers(name: str, ds: dict, cells: Cells, same_pair: np.ndarray, item_ids) -> pd.DataFrame:
    """The ``repeats`` table (test-retest material): every accepted rating of a rater who rated the
    same pair more than once, ``answer`` 1, 2, ... in file order (the order ``first``/``last``
    go by), taken before the duplicates rule keeps, averages or rejects them, and under
    ``duplicates: all`` across the repetitions that became items of their own. Rating slots
    (``persistent_raters: false``) and ragged positions are not people: no repeats."""
    columns = TABLES["repeats"].names
    ragged = np.array([src["layout"] == "ragged" for src in ds["sources"]], dtype=bool)
    if not ds["persistent_raters"] or not len(cells.item):
        return pd.DataFrame([], columns=list(columns))
    ok = (cells.reason == 0) & (cells.role == ROLE_CODES["rating"]) & cells.named() & ~ragged[cells.src]
    k = np.flatnonzero(ok)
    pair = same_pair[cells.item[k]]
    frame = pd.DataFrame({"pair": pair, "rater": cells.rater[k]})
    again = frame.duplicated(["pair", "rater"], keep=False).to_numpy()
    k, frame = k[again], frame[again]
    data = {
        "dataset": name,
        "item_id": item_ids[frame["pair"].to_numpy()],
        "rater": cells.raters[cells.rater[k]],
        "answer": frame.groupby(["pair", "rater"]).cumcount().to_numpy() + 1,
        "score": cells.value[k],
        "source_file": cells.files[cells.block[k]],
        "source_row": cells.row[k],
    }
    return _frame(columns, data, len(k))


def _resolve_duplicates(policy: str, cells: Cells, cid: np.ndarray, items: Items) -> None:
    acc = np.flatnonzero(cells.reason == 0)
    frame = pd.DataFrame({"id": cid[acc], "role": cells.role[acc], "rater": cells.rater[acc], "k": acc})
    frame = frame[frame.duplicated(["id", "role", "rater"], keep=False)]
    if frame.empty:
        return
    if policy == "all":  # repetitions are separate items, so a group can only come from one row
        raise AssertionError("duplicate cells under duplicates: all")
    for _, group in frame.groupby(["id", "role", "rater"], sort=False):
        _resolve_group(policy, cells, np.sort(group["k"].to_numpy()), items)


def _resolve_group(policy: str, cells: Cells, group: np.ndarray, items: Items, named: int = 3) -> None:
    """One item's values from one rater (or one mean, SD, n column), in file order. The detail names
    the group once (its first ``named`` rows and how many more): the ledger grows with the copies."""
    more = len(group) - named
    rows = ", ".join(cells.where(k) for k in group[:named]) + (f" and {more:,} more" if more > 0 else "")
    rater = cells.raters[cells.rater[group[0]]]
    who = f"rater {rater!r}" if rater is not None else ROLES[cells.role[group[0]]]
    first = cells.item[group[0]]
    pair = f"{items.word1[first]}/{items.word2[first]}"
    if policy == "reject":
        cells.reject(group, "duplicate", f"{who} has {len(group):,} values for {pair} ({rows}); duplicates: reject")
    elif policy in ("first", "last"):
        keep = group[0] if policy == "first" else group[-1]
        detail = f"{who}: {pair} also at {cells.where(keep)}, which is kept (duplicates: {policy})"
        cells.reject(group[group != keep], "duplicate_superseded", detail)
    else:  # mean
        keep = group[0]
        cells.value[keep] = sum(cells.value[group].tolist()) / len(group)  # summed in file order
        detail = f"{who}: averaged into the value of {cells.where(keep)} (duplicates: mean)"
        cells.reject(group[1:], "duplicate_merged", detail)


def _check_rankings(cells: Cells, items: Items, ident: np.ndarray) -> None:
    targets = np.asarray(items.word1, dtype=object)
    candidates = pd.Series(ident[ident >= 0]).groupby(targets[ident >= 0]).nunique().to_dict()
    open_ = _among(cells.reason, [0, REASON_CODES["missing"], REASON_CODES["invalid_ranking"]])
    idx = np.flatnonzero((cells.role == ROLE_CODES["rank"]) & (ident[cells.item] >= 0) & open_)
    frame = pd.DataFrame({"target": targets[cells.item[idx]], "rater": cells.rater[idx], "k": idx})
    for (target, code), group in frame.groupby(["target", "rater"], sort=False):
        ks = group["k"].to_numpy()
        ranks = sorted(int(cells.value[k]) for k in ks[cells.reason[ks] == 0])
        if not ranks and (cells.reason[ks] == REASON_CODES["missing"]).all():
            continue  # this rater did not rank this target at all: the cells are already "missing"
        m = candidates[target]
        if ranks != list(range(1, m + 1)):
            rater = cells.raters[code]
            detail = (
                f"rater {rater!r} ranked target {target!r} {ranks} for {m} candidates; expected each of 1..{m} once"
            )
            cells.reject(ks, "invalid_ranking", detail)


def _attention_checks(spec: dict, cells: Cells, check: np.ndarray, pairs: list) -> None:
    """Every accepted answer on a check pair's row to the ledger (``attention_check``, its detail
    saying passed or failed); then every accepted rating of a rater who failed more than
    ``max_failures`` checks (``attention_failed``). A blank answer is ``missing``, not a failure."""
    expect, tolerance = [float(e["expect"]) for e in spec["items"]], float(spec["tolerance"])
    answered = np.flatnonzero((check[cells.item] >= 0) & (cells.reason == 0)) if len(cells.item) else []
    failed: dict[int, int] = {}
    asked: dict[int, int] = {}
    for k in answered:
        c, code = check[cells.item[k]], int(cells.rater[k])
        asked[code] = asked.get(code, 0) + 1
        failed[code] = failed.get(code, 0) + int(abs(cells.value[k] - expect[c]) > tolerance)
        detail = check_detail(cells.raters[code], pairs[c], expect[c], tolerance, cells.value[k])
        cells.reject(k, "attention_check", detail)
    rated = (cells.reason == 0) & (cells.role == ROLE_CODES["rating"])
    for code in sorted(c for c, n in failed.items() if n > spec["max_failures"] and cells.raters[c] is not None):
        detail = (
            f"rater {cells.raters[code]!r} failed {failed[code]} of {asked[code]} attention checks answered, more"
            f" than max_failures {spec['max_failures']} (tolerance {number_text(tolerance)})"
        )
        cells.reject(rated & (cells.rater == code), "attention_failed", detail)


def _check_design(ds: dict, cells: Cells, items: Items, notes: list) -> None:
    """The answers against their design: a rater it does not name stops the run, an answer it did not
    ask for is rejected, a question without an answer (a deleted row) is a blank ledger row."""
    path = ds["design"]["path"]
    k = np.flatnonzero(cells.role == ROLE_CODES["rating"])
    who = cells.raters[cells.rater[k]]
    word1, word2 = (np.asarray(w, dtype=object)[cells.item[k]] for w in (items.word1, items.word2))
    found = design_problems(read_design(path), word1, word2, who, ds)
    if found.unknown:
        first = k[np.flatnonzero(who == found.unknown[0])[0]]
        raise DataError(
            f"{cells.where(first)}: rater {found.unknown[0]!r} is not in the design {path} (raters not in it: "
            f"{', '.join(map(repr, found.unknown))}); is the file one the design wrote, returned by its rater?"
        )
    bad = found.unassigned & (cells.reason[k] == 0)
    details = [
        f"rater {r!r} was not asked {a} / {b} by the design {path}" for r, a, b in zip(who[bad], word1[bad], word2[bad])
    ]
    cells.reject(k[bad], "design_unassigned", np.array(details, dtype=object))
    answers = pd.DataFrame({"rater": who, "file": cells.files[cells.block[k]], "cell": k})
    by_file = answers.drop_duplicates(["rater", "file"]).set_index(["rater", "file"])["cell"]  # where a note goes
    by_rater = answers.drop_duplicates("rater").set_index("rater")["cell"]
    for row in found.unanswered.to_dict("records"):
        c = by_file.get((row["rater"], row["file"])) if "file" in row else by_rater.get(row["rater"])
        if c is not None:  # a file without any answer: the source's own checks say so
            asked = f"{row['word1']} / {row['word2']} ({row['role']}, question {row['position']})"
            detail = f"rater {row['rater']!r} was asked {asked} and the file has no row for it"
            where = (cells.src[c], cells.files[cells.block[c]], int(row["position"]) + 1, cells.j[c])
            notes.append((*where, cells.labels[cells.block[c]], "", "design_unanswered", detail))


def _exclude_incomplete(threshold: float, n_items: int, cells: Cells, cid: np.ndarray) -> None:
    need = threshold * n_items if threshold < 1 else threshold
    rated = (cells.reason == 0) & (cells.role == ROLE_CODES["rating"])
    answered = pd.Series(cid[rated]).groupby(cells.rater[rated]).nunique()
    for code, count in answered[answered < need].items():
        rater = cells.raters[code]
        detail = f"rater {rater!r} answered {count} items, fewer than min_answered {number_text(need)}"
        cells.reject(rated & (cells.rater == code), "rater_incomplete", detail)


# --------------------------------------------------------------------------------------------
# tables


ITEM_COLUMNS = TABLES["items"].names  # the canonical schema's columns, in order
TABLE_COLUMNS = {name: TABLES[name].names for name in ("ratings", "means", "rankings", "rejects")}


def _tables(name, ds, items, cells, cid, occurrence, first, item_ids) -> dict[str, pd.DataFrame]:
    accepted = cells.reason == 0
    rated = np.flatnonzero(accepted & (cells.role == ROLE_CODES["rating"]))
    tables = {
        "items": _items_table(name, ds, items, occurrence, first, item_ids),
        "ratings": _ratings_table(name, cells, rated, cid, item_ids),
        "means": _means_table(
            name, cells, np.flatnonzero(accepted & (cells.role >= ROLE_CODES["mean"])), cid, item_ids
        ),
        "rankings": _rankings_table(name, cells, np.flatnonzero(accepted & (cells.role == ROLE_CODES["rank"])), items),
    }
    return {k: sort_canonical(v, k) for k, v in tables.items()}


def _attribute_names(ds: dict) -> list[str]:
    """Configured item attributes beyond the standard columns, in order of first mention."""
    names: list[str] = []
    for src in ds["sources"]:
        for spec in [src, *src.get("contexts", [])]:
            names += [a for a in spec.get("attributes", {}) if a not in names]
    if ds["kind"] == "rankings":
        names.append("category")
    return [a for a in names if a not in ("pos", "relation")]


def _items_table(name, ds, items: Items, occurrence, first, item_ids) -> pd.DataFrame:
    extra = _attribute_names(ds)
    rows = []
    for k, idx in enumerate(first):
        attrs = items.attrs[idx]
        row = {
            "dataset": name,
            "item_id": item_ids[k],
            "language": ds["language"],
            "word1": items.word1[idx],
            "word2": items.word2[idx],
            "context": items.context[idx],
            "context_text": items.context_text[idx],
            "pos": attrs.get("pos"),
            "relation": attrs.get("relation"),
            "source_item_id": None,
            "occurrence": int(occurrence[k]),
            "source_file": items.file[idx],
            "source_row": items.row[idx],
        }
        row.update({a: attrs.get(a) for a in extra})
        rows.append(row)
    table = pd.DataFrame(rows, columns=list(ITEM_COLUMNS) + extra)
    if "anchors" in ds:  # a column of its own only where the dataset has anchors
        words = [np.asarray(w, dtype=object)[first] for w in (items.word1, items.word2)]
        table["anchor"] = pair_index(*words, control_pairs(ds, "anchors"), ds["symmetric"]) >= 0
    return table


def _frame(columns: tuple, data: dict, n: int) -> pd.DataFrame:
    return pd.DataFrame(data, columns=list(columns)) if n else pd.DataFrame([], columns=list(columns))


def _ratings_table(name, cells: Cells, k, cid, item_ids) -> pd.DataFrame:
    if not len(k):
        return _frame(TABLE_COLUMNS["ratings"], {}, 0)
    data = {  # text columns taken by Arrow from the distinct ids, files and raters
        "dataset": name,
        "item_id": text_column(cid[k], item_ids.tolist()),
        "rater": text_column(cells.rater[k] % len(cells.raters), cells.raters.tolist()),  # -1: None, last
        "score": cells.value[k],
        "source_file": text_column(cells.block[k], cells.files.tolist()),
        "source_row": cells.row[k],
    }
    return _frame(TABLE_COLUMNS["ratings"], data, len(k))


def _rankings_table(name, cells: Cells, k, items: Items) -> pd.DataFrame:
    k = k[np.lexsort((cells.j[k], cells.row[k], cells.src[k]))]  # file order breaks ties in the sort
    it = cells.item[k]
    data = {
        "dataset": name,
        "target": np.asarray(items.word1, dtype=object)[it],
        "rater": cells.raters[cells.rater[k]],
        "candidate": np.asarray(items.word2, dtype=object)[it],
        "category": [items.attrs[x].get("category") for x in it],
        "rank": cells.value[k].astype(np.int64),
        "source_file": cells.files[cells.block[k]],
        "source_row": cells.row[k],
    }
    return _frame(TABLE_COLUMNS["rankings"], data, len(k))


def _means_table(name, cells: Cells, k, cid, item_ids) -> pd.DataFrame:
    """One row per item with its accepted mean, SD and n; file and row of its first such cell."""
    k = k[np.lexsort((cells.j[k], cells.row[k], cells.src[k]))]
    frame = pd.DataFrame({"item_id": item_ids[cid[k]], "role": cells.role[k], "value": cells.value[k]})
    frame["source_file"], frame["source_row"] = cells.files[cells.block[k]], cells.row[k]
    out = frame.drop_duplicates("item_id")[["item_id", "source_file", "source_row"]].assign(dataset=name)
    for role in ("mean", "sd", "n"):
        values = frame[frame["role"] == ROLE_CODES[role]].set_index("item_id")["value"]
        out[role] = out["item_id"].map(values)
    return _frame(TABLE_COLUMNS["means"], {c: out[c].to_numpy() for c in TABLE_COLUMNS["means"]}, len(out))


# --------------------------------------------------------------------------------------------
# summary: the ledger's balance


def accounted_cells(tables: dict, label_cells: int) -> int:
    """The non-blank source cells the tables account for: accepted values, ledger rows whose raw
    value is not blank, and the label cells kept on items.

    Parameters
    ----------
    tables : dict of str to pandas.DataFrame
        The cleaned tables.
    label_cells : int
        The label cells kept on items.

    Returns
    -------
    int
        The count.
    """
    means = tables["means"]
    accepted = len(tables["ratings"]) + len(tables["rankings"]) + int(means[["mean", "sd", "n"]].notna().sum().sum())
    raw = tables["rejects"]["raw_value"]
    ledger = sum(1 for value in raw[raw != ""].to_numpy(dtype=object) if value.strip())  # few: no blank cell
    return accepted + ledger + label_cells


def summarise(name: str, ds: dict, tables: dict, raw_cells: int, label_cells: int) -> pd.DataFrame:
    """Counts per output and per ledger reason; ``ledger_balanced``: every non-blank cell of the
    file(s) is accounted for exactly once.

    Parameters
    ----------
    name : str
        The dataset's name.
    ds : dict
        Its resolved config.
    tables : dict of str to pandas.DataFrame
        The cleaned tables.
    raw_cells : int
        The non-blank cells read.
    label_cells : int
        The label cells kept on items.

    Returns
    -------
    pandas.DataFrame
        One row.
    """
    means = tables["means"]
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
        "label_cells": label_cells,
        "ledger_balanced": accounted_cells(tables, label_cells) == raw_cells,
    }
    counts = tables["rejects"]["reason"].value_counts()
    # a BWS answer's reasons are columns of a bws dataset's summary only (the other kinds' stay as they were)
    reasons = [r for r in REASONS if ds["kind"] == "bws" or r not in BWS_REASONS]
    reasons = [r for r in reasons if "attention" in ds or r not in ATTENTION_REASONS]  # likewise the checks'
    reasons = [r for r in reasons if "design" in ds or r not in DESIGN_REASONS]  # and the design's
    row.update({f"rejects_{r}": int(counts.get(r, 0)) for r in reasons})
    return pd.DataFrame([row])


def require_accepted(name: str, tables: dict, ledger_path: str | None = None) -> None:
    """Stop when cleaning accepted no value at all: no later stage has anything to work on.
    ``ledger_path``: where the job wrote the ledger (a failed job's outputs are deleted).

    Parameters
    ----------
    name : str
        The dataset's name.
    tables : dict of str to pandas.DataFrame
        The cleaned tables.
    ledger_path : str, optional
        Where the ledger was written.
    """
    means = tables["means"]
    if len(tables["ratings"]) or len(tables["rankings"]) or means[["mean", "sd", "n"]].notna().any().any():
        return
    if len(tables.get("answers", ())):  # a bws dataset's accepted answers
        return
    counts = tables["rejects"]["reason"].value_counts()
    listed = ", ".join(f"{reason} {int(counts[reason])}" for reason in REASONS if reason in counts)
    raise DataError(
        f"dataset {name!r}: cleaning accepted no rating, rank or mean (ledger: {listed or 'empty'}); expected"
        " values that fit the config (the scale, the missing markers, the value columns): see the ledger"
        + (f" ({ledger_path})" if ledger_path else "")
    )
