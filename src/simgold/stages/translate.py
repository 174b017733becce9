"""Translation merges (docs/methods.md section 2): link a translated dataset's items to its source items
and compare the languages' gold standards.

How a target item finds its source item (``translation.by``):

* ``row``: the i-th item of the target is the i-th of the source (SimLex-999 translations are
  line-aligned with the original); both must have one item per row (``duplicates: all``).
* ``columns``: the target's own attributes carry the source pair (WordSim-353-da keeps the English).
* ``table``: a file of pair translations (source word1, word2 -> target word1, word2).
* ``dictionary``: a word-level, many-to-many dictionary (source word -> target word); every
  combination of the two words' translations is a candidate (the SemEval-2012 Chinese file).
* ``translators``: two translators' pair tables; where they agree the translation is accepted,
  where they differ an adjudication table, then the rules (``two_characters``: prefer the
  candidate whose words both have two characters; ``more_common``: prefer the candidate whose
  rarer word is more frequent in a frequency list), decide; otherwise the source item is dropped
  with the reason. The accepted translations then link like a ``table``.

Linking is one-to-one and never guesses: a target item with exactly one available candidate source
item is linked (repeatedly, so that links made elsewhere can resolve an ambiguity); a candidate
with the target's word order is preferred over a reversed one; repetitions of one source pair
(WordSim-353 lists money/cash twice) are linked in order of appearance and the note says so;
anything else is reported in ``dropped`` with the reason and the candidates. Word matching ignores
case.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd

from simgold.errors import InputError
from simgold.io.cells import normalise_word, parse_value
from simgold.io.readers import read_columns
from simgold.io.schema import schema_defaults
from simgold.io.tables import TABLES
from simgold.stats.correlation import spearman
from simgold.stats.resampling import draws, spearman_resamples, supported_interval
from simgold.stats.seeds import seed_for

__all__ = [
    "DROPPED_COLUMNS",
    "DroppedRow",
    "adjudicate",
    "crosslingual",
    "link",
    "link_to_root",
    "read_frequencies",
    "translate_dataset",
]

DROPPED_COLUMNS = TABLES["dropped"].names  # the canonical schema's columns, in order
_SCORING = schema_defaults("properties", "scoring")  # the CIs' seed and level, as the scores take them


class DroppedRow(NamedTuple):
    """One row of the dropped table, by name (its fields are the table's columns, in order).

    Attributes
    ----------
    dataset : str
        The table's ``dataset`` column.
    side : str
        Source (translators) or target.
    item_id : str
        The table's ``item_id`` column.
    word1 : str
        The table's ``word1`` column.
    word2 : str
        The table's ``word2`` column.
    reason : str
        The table's ``reason`` column.
    candidates : str
        The table's ``candidates`` column.
    """

    dataset: str
    side: str  # source (translators) or target
    item_id: str
    word1: str
    word2: str
    reason: str
    candidates: str


def _fold(word) -> str:
    """A word of an item or of a translation table as the tables are matched: normalised as
    cleaning normalises words (NFC, invisible characters, Unicode spaces), then casefolded."""
    return "" if word is None else normalise_word(str(word), "NFC", True)


def _key(w1, w2) -> tuple[str, str]:
    return tuple(sorted((_fold(w1), _fold(w2))))


def _columns_frame(spec: dict, refs: list, base_dir: str) -> tuple[pd.DataFrame, str]:
    rows, name = read_columns(spec, refs, base_dir)
    return pd.DataFrame(rows, columns=[f"c{k}" for k in range(len(refs))] + ["row"]), name


def _read_pair_table(spec: dict, base_dir: str = ".") -> pd.DataFrame:
    """(source1, source2, target1, target2, file, row) from a pair-translation table."""
    frame, name = _columns_frame(spec, list(spec["source_words"]) + list(spec["target_words"]), base_dir)
    frame.columns = ["source1", "source2", "target1", "target2", "row"]
    frame["file"] = name
    return frame


def _read_dictionary(spec: dict, base_dir: str = ".") -> dict[str, set[str]]:
    """target word (casefolded) -> the source words it translates."""
    frame, name = _columns_frame(spec, [spec["source"], spec["target"]], base_dir)
    out: dict[str, set[str]] = defaultdict(set)
    for src, tgt, row in frame.itertuples(index=False):
        if not src or not tgt:
            raise InputError(name, "a dictionary row needs both a source and a target word", row=row)
        out[_fold(tgt)].add(_fold(src))
    return out


def read_frequencies(spec: dict, base_dir: str = ".") -> dict[str, float]:
    """Word frequencies from a table file (its ``word`` and ``count`` columns).

    Parameters
    ----------
    spec : dict
        The file and its columns, as the config's translation block gives them.
    base_dir : str
        The directory relative paths are resolved from.

    Returns
    -------
    dict
        Frequency by word.
    """
    frame, name = _columns_frame(spec, [spec["word"], spec["count"]], base_dir)
    out = {}
    for word, count, row in frame.itertuples(index=False):
        value, reason, detail = parse_value(count, missing=frozenset(), low=0)
        if reason is not None:
            raise InputError(name, f"a frequency must be a number of 0 or more: {detail}", row=row, value=count)
        out[_fold(word)] = value
    return out


# --------------------------------------------------------------------------------------------
# translators


def adjudicate(
    source_items: pd.DataFrame,
    translators: list[pd.DataFrame],
    adjudication: pd.DataFrame | None = None,
    rules: list[str] | None = None,
    frequencies: dict[str, float] | None = None,
    dataset: str = "",
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Accepted translations of the source items, and the source items dropped with a reason.

    Parameters
    ----------
    source_items : pd.DataFrame
        The source dataset's items.
    translators : list[pd.DataFrame]
        The two translators' pair tables (``source1``, ``source2``, ``target1``, ``target2``).
    adjudication : pd.DataFrame | None
        A pair table of decided translations, used where the translators disagree (None: none).
    rules : list[str] | None
        The adjudication rules, in order.
    frequencies : dict[str, float] | None
        Word frequencies, by word.
    dataset : str
        The dataset's name.

    Returns
    -------
    tuple[pd.DataFrame, pd.DataFrame]
        (accepted, dropped): the accepted pair table (``source1``, ``source2``, ``target1``,
        ``target2``, ``file`` = how it was decided, ``row``), and the dropped source items (``DROPPED_COLUMNS``).
    """
    rules = rules or []

    def lookup(table):
        out = {}
        for r in table.itertuples(index=False):
            out.setdefault(_key(r.source1, r.source2), (r.target1, r.target2))
        return out

    a, b = (lookup(t) for t in translators)
    adj = lookup(adjudication) if adjudication is not None else {}
    accepted, dropped = [], []
    for it in source_items.itertuples(index=False):
        key = _key(it.word1, it.word2)
        ta, tb = a.get(key), b.get(key)
        decided, how = None, ""
        if ta is None or tb is None:
            missing = "first" if ta is None else "second"
            reason = f"the {missing} translator has no translation"
            dropped.append(DroppedRow(dataset, "source", it.item_id, it.word1, it.word2, reason, candidates=""))
            continue
        if _key(*ta) == _key(*tb):
            decided, how = ta, "translators agree"
        elif key in adj:
            decided, how = adj[key], "adjudication table"
        else:
            for rule in rules:
                pick = _apply_rule(rule, ta, tb, frequencies or {})
                if pick is not None:
                    decided, how = pick, f"rule {rule}"
                    break
        if decided is None:
            reason, candidates = "the translators disagree and nothing decides", f"{'/'.join(ta)} | {'/'.join(tb)}"
            dropped.append(DroppedRow(dataset, "source", it.item_id, it.word1, it.word2, reason, candidates))
            continue
        accepted.append((it.word1, it.word2, decided[0], decided[1], how, 0))
    table = pd.DataFrame(accepted, columns=["source1", "source2", "target1", "target2", "file", "row"])
    return table, pd.DataFrame(dropped, columns=list(DROPPED_COLUMNS))


def _apply_rule(rule: str, ta, tb, frequencies) -> tuple | None:
    if rule == "two_characters":
        ok = [t for t in (ta, tb) if all(len(w) == 2 for w in t)]
        return ok[0] if len(ok) == 1 else None
    if rule == "more_common":
        fa = min(frequencies.get(_fold(w), 0.0) for w in ta)
        fb = min(frequencies.get(_fold(w), 0.0) for w in tb)
        return None if fa == fb else (ta if fa > fb else tb)
    raise ValueError(f"unknown adjudication rule {rule!r}")


# --------------------------------------------------------------------------------------------
# linking


@dataclass
class _Target:
    pos: int
    item_id: str
    word1: str
    word2: str
    candidates: list[tuple[int, bool]]  # (source position, keeps the target's word order)
    reason: str = ""


def _source_index(source_items: pd.DataFrame) -> dict[tuple, list[int]]:
    index = defaultdict(list)
    for pos, (w1, w2) in enumerate(zip(source_items["word1"], source_items["word2"])):
        index[_key(w1, w2)].append(pos)
    return index


def _candidates_for(
    target_items: pd.DataFrame,
    source_items: pd.DataFrame,
    spec: dict,
    base_dir: str,
    pair_table: pd.DataFrame | None = None,
) -> list[_Target]:
    """Candidate source items of every target item, with a reason where there are none."""
    by = spec["by"]
    index = _source_index(source_items)
    ordered = list(zip(source_items["word1"].map(_fold), source_items["word2"].map(_fold)))
    dictionary, translations = {}, defaultdict(list)
    if by == "dictionary":
        dictionary = _read_dictionary(spec["dictionary"], base_dir)
    elif by in ("table", "translators"):
        table = pair_table if pair_table is not None else _read_pair_table(spec["table"], base_dir)
        for r in table.itertuples(index=False):
            translations[_key(r.target1, r.target2)].append((_fold(r.source1), _fold(r.source2)))
    out = []
    for pos, it in enumerate(target_items.itertuples(index=False)):
        t = _Target(pos, it.item_id, it.word1, it.word2, [])
        out.append(t)
        if by == "row":
            if pos < len(source_items):
                t.candidates = [(pos, True)]
            else:
                t.reason = f"row {pos + 1} has no counterpart: the source has {len(source_items)} items"
            continue
        pairs, t.reason = _source_pairs(it, by, spec, dictionary, translations)
        found = sorted({c for p in pairs for c in index.get(_key(*p), [])})
        t.candidates = [(c, ordered[c] in pairs) for c in found]
        if pairs and not found and not t.reason:
            shown = ", ".join("/".join(p) for p in pairs[:6]) + (" ..." if len(pairs) > 6 else "")
            t.reason = f"no source item for {shown}"
    return out


def _source_pairs(it, by: str, spec: dict, dictionary: dict, translations: dict) -> tuple[list[tuple], str]:
    """The (folded) source word pairs a target item may translate, and why there are none ("" when
    there are)."""
    if by == "columns":
        a, b = (getattr(it, c) for c in spec["source_words"])
        pairs = [(_fold(a), _fold(b))] if a and b else []
        return pairs, "" if pairs else f"the source words ({', '.join(spec['source_words'])}) are empty"
    if by == "dictionary":
        e1, e2 = dictionary.get(_fold(it.word1), set()), dictionary.get(_fold(it.word2), set())
        unknown = [w for w, e in ((it.word1, e1), (it.word2, e2)) if not e]
        reason = f"the dictionary has no entry for {', '.join(repr(w) for w in unknown)}" if unknown else ""
        return [(x, y) for x in sorted(e1) for y in sorted(e2)], reason
    pairs = translations.get(_key(it.word1, it.word2), [])
    return pairs, "" if pairs else f"no translation of {it.word1}/{it.word2} in the table"


def link(target_items: pd.DataFrame, source_items: pd.DataFrame, targets: list[_Target], dataset: str):
    """One-to-one links; returns (items with source_item_id and link columns, dropped rows).

    Repeated passes in target order: among a target's free candidates, those keeping its word order
    come first; a single one links; several repetitions of one source pair link the earliest free
    one (order of appearance); several distinct source pairs wait, since a later link may take one
    of them, and are reported as ambiguous if they never resolve.

    Parameters
    ----------
    target_items : pd.DataFrame
        The translated dataset's items.
    source_items : pd.DataFrame
        The source dataset's items.
    targets : list[_Target]
        Each target item with its candidate source rows (and why it has none).
    dataset : str
        The dataset's name.

    Returns
    -------
    object
        (items, dropped): a copy of ``target_items`` with ``source_item_id`` (None if unlinked),
        ``link_status`` and ``link_note``; and the unlinked target items with reasons (``DROPPED_COLUMNS``).
    """
    src_key = [_key(a, b) for a, b in zip(source_items["word1"], source_items["word2"])]
    linked: dict[int, int] = {}
    notes: dict[int, str] = {}
    used: set[int] = set()
    changed = True
    while changed:
        changed = False
        for t in targets:
            if t.pos in linked:
                continue
            free = [(c, same) for c, same in t.candidates if c not in used]
            tier = [c for c, same in free if same] or [c for c, _ in free]
            if not tier or len({src_key[c] for c in tier}) > 1:
                continue
            pick = tier[0]
            linked[t.pos], changed = pick, True
            used.add(pick)
            pair = f"{source_items['word1'].iloc[pick]}/{source_items['word2'].iloc[pick]}"
            same_pair = [(c, same) for c, same in t.candidates if src_key[c] == src_key[pick]]
            pick_order = dict(t.candidates)[pick]
            repeats = sum(1 for _, same in same_pair if same == pick_order)  # repetitions in the same word order
            if repeats > 1:
                notes[t.pos] = f"the source lists {pair} {repeats} times; linked in order of appearance"
            elif len(same_pair) > 1:
                notes[t.pos] = f"the source also lists {pair} in the other word order; linked to the same order"
            elif len(t.candidates) > 1:
                notes[t.pos] = "the other candidate source items are linked to other target items"
    ids = source_items["item_id"].to_numpy()
    items = target_items.copy()
    items["source_item_id"] = [ids[linked[p]] if p in linked else None for p in range(len(items))]
    items["link_status"] = ["linked" if p in linked else "unlinked" for p in range(len(items))]
    items["link_note"] = [notes.get(p, "") for p in range(len(items))]
    dropped = []
    for t in targets:
        if t.pos in linked:
            continue
        cands = "; ".join(
            f"{ids[c]} {source_items['word1'].iloc[c]}/{source_items['word2'].iloc[c]}" for c, _ in t.candidates
        )
        if not t.candidates:
            reason = t.reason or "no candidate source item"
        elif any(c not in used for c, _ in t.candidates):
            reason = "ambiguous: several source items fit"
        else:
            reason = "every candidate source item is linked to another target item"
        dropped.append(DroppedRow(dataset, "target", t.item_id, t.word1, t.word2, reason, candidates=cands))
        items.loc[t.pos, "link_note"] = reason
    return items, pd.DataFrame(dropped, columns=list(DROPPED_COLUMNS))


def _row_alignment(
    target_gold: pd.DataFrame, source_gold: pd.DataFrame, target_items, source_items
) -> tuple[float, int]:
    """Spearman between the two gold standards, row i against row i (a translation in the same
    order correlates well; a file in another order does not)."""
    n = min(len(target_items), len(source_items))
    t = target_items["item_id"].iloc[:n].map(target_gold.set_index("item_id")["mean"]).to_numpy(float)
    s = source_items["item_id"].iloc[:n].map(source_gold.set_index("item_id")["mean"]).to_numpy(float)
    ok = ~np.isnan(t) & ~np.isnan(s)
    if ok.sum() < 10:
        return float("nan"), int(ok.sum())
    return spearman(t[ok], s[ok]), int(ok.sum())


def translate_dataset(
    dataset: str,
    target_items: pd.DataFrame,
    source_items: pd.DataFrame,
    spec: dict,
    base_dir: str = ".",
    gold: tuple[pd.DataFrame, pd.DataFrame] | None = None,
):
    """Link a translated dataset; returns (items with source_item_id, dropped items with reasons).

    ``gold = (target gold, source gold)`` lets ``by: row`` check that the rows really are in the
    source's order before linking them.

    Parameters
    ----------
    dataset : str
        The dataset's name.
    target_items : pd.DataFrame
        The translated dataset's items.
    source_items : pd.DataFrame
        The source dataset's items.
    spec : dict
        The dataset's config block.
    base_dir : str
        The directory relative paths are resolved from.
    gold : tuple[pd.DataFrame, pd.DataFrame] | None
        (target gold, source gold) means tables, to check ``by: row`` (None: no check).

    Returns
    -------
    object
        (items, dropped) as :func:`link` gives them; with ``by: translators`` the dropped table
        also holds the source items the adjudication dropped, first.
    """
    if spec["by"] == "row" and gold is not None:
        rho, n = _row_alignment(gold[0], gold[1], target_items, source_items)
        threshold = spec["min_row_correlation"]
        if not np.isnan(rho) and rho < threshold:
            reason = (
                f"by: row refused: the rows are not in the source's order (the two gold standards correlate "
                f"{rho:.3f} row by row over {n} rows, below min_row_correlation {threshold:g}); "
                "link with a translation table or dictionary"
            )
            targets = [
                _Target(p, it.item_id, it.word1, it.word2, [], reason) for p, it in enumerate(target_items.itertuples())
            ]
            return link(target_items, source_items, targets, dataset)
    dropped_source = None
    pair_table = None
    if spec["by"] == "translators":
        translators = [_read_pair_table(t, base_dir) for t in spec["translators"]]
        adjudication = _read_pair_table(spec["adjudication"], base_dir) if "adjudication" in spec else None
        frequencies = read_frequencies(spec["frequencies"], base_dir) if "frequencies" in spec else None
        pair_table, dropped_source = adjudicate(
            source_items, translators, adjudication, spec.get("rules", []), frequencies, dataset
        )
    targets = _candidates_for(target_items, source_items, spec, base_dir, pair_table)
    items, dropped = link(target_items, source_items, targets, dataset)
    if dropped_source is not None and len(dropped_source):
        dropped = pd.concat([dropped_source, dropped], ignore_index=True)
    return items, dropped


# --------------------------------------------------------------------------------------------
# cross-lingual comparison


def link_to_root(dataset: str, links: dict[str, pd.DataFrame], sources: dict[str, str], root: str) -> pd.DataFrame:
    """The translated items of ``dataset`` with ``source_item_id`` pointing into the root dataset
    (following a chain of translations: a translation of a translation).

    Parameters
    ----------
    dataset : str
        The dataset's name.
    links : dict[str, pd.DataFrame]
        Each translated dataset's links to its source (``item_id``, ``source_item_id``).
    sources : dict[str, str]
        Each translated dataset's source dataset.
    root : str
        The root dataset.

    Returns
    -------
    pd.DataFrame
        ``item_id`` of ``dataset`` and ``source_item_id`` in ``root`` (NaN/None where a link in
        the chain is missing).
    """
    items = links[dataset][["item_id", "source_item_id"]].copy()
    current = sources[dataset]
    while current != root:
        step = links[current].set_index("item_id")["source_item_id"]
        items["source_item_id"] = items["source_item_id"].map(step)
        current = sources[current]
    return items


def crosslingual(groups: dict[str, dict], languages: dict[str, str], *, resamples: int = 0,
                 seed: int = _SCORING["seed"], confidence: float = _SCORING["confidence"]):  # fmt: skip
    """``groups``: root dataset -> {"items": root items, "gold": {dataset: gold}, "links": {dataset:
    translated items (source_item_id = root item id)}}. Returns (wide table, correlations).

    Each correlation has a percentile bootstrap CI over the shared items (``resamples`` of them, at
    ``confidence``, seeded from ``seed`` and the three datasets' names, as the model scores' CIs):
    a cross-lingual correlation on 30 items moves by tenths, and the interval says so.

    Parameters
    ----------
    groups : dict[str, dict]
        Root dataset -> ``items``, ``gold`` (dataset -> gold means) and ``links`` (dataset -> linked items).
    languages : dict[str, str]
        The language of each dataset.
    resamples : int
        Bootstrap resamples.
    seed : int
        The root of the seeds (``scoring.seed``).
    confidence : float
        The intervals' coverage (``scoring.confidence``).

    Returns
    -------
    object
        (wide, correlations): per root item its gold mean in each dataset (a column per dataset),
        and one row per dataset pair with ``n``, Spearman and its CI (NaN without resamples).
    """
    wide_parts, corr_rows = [], []
    for root, g in sorted(groups.items()):
        base = g["items"][["item_id", "word1", "word2"]].rename(columns={"item_id": "source_item_id"})
        base.insert(0, "source_dataset", root)
        base[root] = base["source_item_id"].map(g["gold"][root].set_index("item_id")["mean"])
        for ds, linked in sorted(g["links"].items()):
            mean = (
                linked[["item_id", "source_item_id"]].dropna().merge(g["gold"][ds][["item_id", "mean"]], on="item_id")
            )
            base[ds] = base["source_item_id"].map(mean.set_index("source_item_id")["mean"])
        members = [root] + sorted(g["links"])
        for a_i, a in enumerate(members):
            for b in members[a_i + 1 :]:
                both = base[[a, b]].dropna()
                rho = spearman(both[a], both[b]) if len(both) >= 3 else np.nan
                low, high, note = _bootstrap_interval(
                    both[a].to_numpy(float), both[b].to_numpy(float), resamples, confidence,
                    np.random.default_rng(seed_for(seed, root, a, b, "crosslingual")),
                )  # fmt: skip
                corr_rows.append(
                    {
                        "source_dataset": root,
                        "dataset_a": a,
                        "language_a": languages[a],
                        "dataset_b": b,
                        "language_b": languages[b],
                        "n": len(both),
                        "spearman": float(rho),
                        "ci_low": low,
                        "ci_high": high,
                        "confidence": confidence if resamples else np.nan,
                        "note": note,
                    }
                )
        wide_parts.append(base)
    wide = (
        pd.concat(wide_parts, ignore_index=True)
        if wide_parts
        else pd.DataFrame(columns=["source_dataset", "source_item_id", "word1", "word2"])
    )
    corr = pd.DataFrame(corr_rows, columns=list(TABLES["crosslingual_correlations"].names))
    return wide, corr


def _bootstrap_interval(x: np.ndarray, y: np.ndarray, resamples: int, confidence: float, rng):
    """(low, high, note): the percentile interval of Spearman's rho over ``resamples`` resamples of
    the pairs (NaN with fewer than 3 pairs or no resamples; a resample with a constant side is left
    out), none with a note where too few resamples have a value for the level (as the scores' CIs)."""
    if resamples <= 0:
        return float("nan"), float("nan"), ""
    if len(x) < 3:
        return float("nan"), float("nan"), f"{len(x)} shared items: no correlation"
    values = spearman_resamples(x, y, draws(len(x), resamples, rng))
    return supported_interval(values, confidence)
