"""A ratings questionnaire's control pairs (docs/methods.md sections 1 and 3): attention checks
(the dataset's ``attention`` key) and anchors (its ``anchors`` key).

* An attention check is a pair with a known answer. It is not an item of the dataset: cleaning
  puts every accepted answer to it in the ledger (reason ``attention_check``, its detail made and
  read here) and excludes a rater who fails more than ``max_failures`` of them
  (``attention_failed``). The raters table of the agreement stage counts each rater's checks.
* An anchor is a pair every rater rated first, for calibration. It stays an item (the items table's
  ``anchor`` column); calibration leaves its ratings out of its parameters unless
  ``anchors.calibration``, and agreement, outlier filtering and the gold standard see the items
  ``scored`` keeps: all but the anchors, unless ``anchors.in_gold``.

Pairs are matched as the dataset matches items: its ``unicode`` form, ``casefold`` and ``symmetric``.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from simgold.errors import DataError
from simgold.io.cells import normalise_word
from simgold.io.tables import read_parquet

__all__ = [
    "control_pairs",
    "pair_index",
    "check_detail",
    "read_checks",
    "attention_counts",
    "with_attention",
    "excluded_by_attention",
    "calibration_exclusions",
    "scored",
    "recorded_params",
    "DESIGN_COLUMNS",
    "DesignProblems",
    "design_problems",
    "read_design",
]

#: the columns a design table must have (``simgold design ratings`` writes them)
DESIGN_COLUMNS = ("rater", "position", "word1", "word2", "role")

_DETAIL = re.compile(r"""^rater ('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"): .*: (passed|failed)$""", re.DOTALL)


def control_pairs(ds: dict, key: str) -> list[tuple[str, str]]:
    """The pairs of a dataset's ``attention`` or ``anchors`` key in the form its items take.

    Parameters
    ----------
    ds : dict
        The dataset's resolved config.
    key : {"attention", "anchors"}
        Which control pairs.

    Returns
    -------
    list of tuple of str
        (word1, word2) per pair, in the config's order ([] without the key).

    Examples
    --------
    >>> ds = {"unicode": "NFC", "casefold": True, "anchors": {"items": [[" Cat", "DOG"]]}}
    >>> control_pairs(ds, "anchors")
    [('cat', 'dog')]
    """
    if key not in ds:
        return []
    entries = [e["words"] for e in ds[key]["items"]] if key == "attention" else ds[key]["items"]
    return [tuple(normalise_word(w, ds["unicode"], ds["casefold"]) for w in words) for words in entries]


def pair_index(word1, word2, pairs: list[tuple[str, str]], symmetric: bool) -> np.ndarray:
    """Which of ``pairs`` each (word1, word2) is: its position, -1 for none.

    Parameters
    ----------
    word1, word2 : array_like of str
        The rows' words, as items keep them.
    pairs : list of tuple of str
        The pairs, as ``control_pairs`` gives them.
    symmetric : bool
        Whether (b, a) is (a, b).

    Returns
    -------
    numpy.ndarray of int
        One position per row.

    Examples
    --------
    >>> pair_index(["dog", "sun", "a"], ["cat", "sun", "b"], [("cat", "dog"), ("sun", "sun")], True).tolist()
    [0, 1, -1]
    """
    where = {}
    for k, (a, b) in enumerate(pairs):
        where.setdefault((a, b), k)
        if symmetric:
            where.setdefault((b, a), k)
    return np.array([where.get((a, b), -1) for a, b in zip(word1, word2)], dtype=np.int64)


def check_detail(rater, pair: tuple[str, str], expect: float, tolerance: float, answered: float) -> str:
    """An ``attention_check`` ledger row's detail: who, the check, its answer, passed or failed
    (``read_checks`` reads it back).

    Parameters
    ----------
    rater : str
        The rater.
    pair : tuple of str
        The check's words.
    expect, tolerance : float
        The expected answer and how far off an answer may be.
    answered : float
        The rater's answer.

    Returns
    -------
    str
        The detail.

    Examples
    --------
    >>> check_detail("r2", ("sun", "sun"), 6, 1, 3.0)
    "rater 'r2': sun / sun expects 6 (tolerance 1), answered 3: failed"
    """
    verdict = "passed" if abs(answered - expect) <= tolerance else "failed"
    asked = f"{pair[0]} / {pair[1]} expects {expect:g} (tolerance {tolerance:g})"
    return f"rater {rater!r}: {asked}, answered {answered:g}: {verdict}"


def read_checks(rejects: pd.DataFrame) -> pd.DataFrame:
    """The ledger's answers to attention checks: one row per answer, ``rater`` and ``passed``.

    Parameters
    ----------
    rejects : pandas.DataFrame
        A dataset's ledger (``reason``, ``detail``).

    Returns
    -------
    pandas.DataFrame
        ``rater``, ``passed`` (bool), in ledger order.
    """
    details = rejects.loc[rejects["reason"] == "attention_check", "detail"].astype(str)
    found = [_DETAIL.match(d) for d in details]
    rows = [(ast.literal_eval(m.group(1)), m.group(2) == "passed") for m in found if m]
    return pd.DataFrame(rows, columns=["rater", "passed"]).astype({"passed": bool})


def attention_counts(rejects: pd.DataFrame) -> pd.DataFrame:
    """Each rater's attention checks answered and failed, from the ledger.

    Parameters
    ----------
    rejects : pandas.DataFrame
        A dataset's ledger.

    Returns
    -------
    pandas.DataFrame
        ``rater``, ``attention_checks``, ``attention_failures``, sorted by rater.

    Examples
    --------
    >>> ledger = pd.DataFrame({"reason": ["attention_check", "missing", "attention_check"], "detail": [
    ...     check_detail("a", ("x", "x"), 6, 0, 6), "", check_detail("a", ("y", "z"), 0, 0, 2)]})
    >>> attention_counts(ledger).values.tolist()
    [['a', 2, 1]]
    """
    checks = read_checks(rejects)
    grouped = checks.assign(failed=~checks["passed"]).groupby("rater", sort=True)
    counts = pd.DataFrame({"attention_checks": grouped.size(), "attention_failures": grouped["failed"].sum()})
    return counts.astype("int64").rename_axis("rater").reset_index()


def with_attention(raters: pd.DataFrame, rejects: pd.DataFrame | None, attention: dict | None) -> pd.DataFrame:
    """The raters table with ``attention_checks`` and ``attention_failures`` filled in from the
    ledger (0 for a rater who answered none); left null when the dataset has no ``attention`` key.

    Parameters
    ----------
    raters : pandas.DataFrame
        The agreement stage's raters table.
    rejects : pandas.DataFrame or None
        The dataset's ledger.
    attention : dict or None
        The dataset's ``attention`` key.

    Returns
    -------
    pandas.DataFrame
        The table, its columns in their order.
    """
    if attention is None or rejects is None:
        return raters
    counts = attention_counts(rejects).set_index("rater")
    out = raters.copy()
    for column in ("attention_checks", "attention_failures"):
        out[column] = out["rater"].map(counts[column]).fillna(0).astype("int64")
    return out


def excluded_by_attention(rejects: pd.DataFrame, attention: dict) -> tuple[list, int]:
    """The raters who failed more attention checks than ``max_failures``, and how many raters
    answered a check.

    Parameters
    ----------
    rejects : pandas.DataFrame
        A dataset's ledger.
    attention : dict
        The dataset's ``attention`` key.

    Returns
    -------
    tuple of (list, int)
        The excluded raters, sorted; the raters with a check answered.
    """
    counts = attention_counts(rejects)
    failed = counts[counts["attention_failures"] > attention["max_failures"]]
    return failed["rater"].tolist(), len(counts)


def calibration_exclusions(items: pd.DataFrame, anchors: dict | None) -> set:
    """The item ids whose ratings calibration leaves out of its parameters: the anchors, unless
    ``anchors.calibration``.

    Parameters
    ----------
    items : pandas.DataFrame
        The items table (its ``anchor`` column marks the anchors).
    anchors : dict or None
        The dataset's ``anchors`` key.

    Returns
    -------
    set of str
        The item ids.
    """
    if anchors is None or anchors["calibration"] or "anchor" not in items:
        return set()
    return set(items.loc[items["anchor"].fillna(False).astype(bool), "item_id"])


def scored(anchors: dict | None, items: pd.DataFrame, *ratings: pd.DataFrame) -> tuple[pd.DataFrame, ...]:
    """What agreement, outlier filtering and the gold standard see: the items and ratings without
    the anchors, unless ``anchors.in_gold`` (the one place anchors leave them); without them, the
    items have no ``anchor`` column either (it would be false throughout).

    Parameters
    ----------
    anchors : dict or None
        The dataset's ``anchors`` key (None: every item).
    items : pandas.DataFrame
        The items table.
    *ratings : pandas.DataFrame
        Ratings tables (``item_id``).

    Returns
    -------
    tuple of pandas.DataFrame
        The items, then each ratings table, as given when nothing is left out.

    Examples
    --------
    >>> items = pd.DataFrame({"item_id": ["a", "b"], "anchor": [True, False]})
    >>> ratings = pd.DataFrame({"item_id": ["a", "b", "b"], "score": [1.0, 2.0, 3.0]})
    >>> kept, rated = scored({"in_gold": False}, items, ratings)
    >>> kept["item_id"].tolist(), rated["score"].tolist()
    (['b'], [2.0, 3.0])
    """
    if anchors is None or anchors["in_gold"] or "anchor" not in items:
        return (items, *ratings)
    anchor = items["anchor"].fillna(False).astype(bool).to_numpy()
    left_out = set(items.loc[anchor, "item_id"])
    kept = [r[~r["item_id"].isin(left_out)].reset_index(drop=True) for r in ratings]
    return (items[~anchor].drop(columns="anchor").reset_index(drop=True), *kept)


def recorded_params(params) -> dict:
    """A job's params as its provenance records them: ``attention`` and ``anchors`` only where the
    dataset has them, so that a dataset without them keeps the bytes its tables had.

    Parameters
    ----------
    params : mapping
        The job's params (``snakemake.params``).

    Returns
    -------
    dict
        The params to record.

    Examples
    --------
    >>> recorded_params({"scale": [0, 6], "anchors": None, "attention": {"items": []}})
    {'scale': [0, 6], 'attention': {'items': []}}
    """
    return {k: v for k, v in params.items() if k not in ("attention", "anchors") or v is not None}


@dataclass(frozen=True)
class DesignProblems:
    """How returned questionnaires differ from their design (``design_problems``).

    Attributes
    ----------
    unknown : list of str
        Raters of the files the design does not name, sorted.
    unassigned : numpy.ndarray of bool
        Per answer: a pair the design did not ask its rater (a rater the design names).
    unanswered : pandas.DataFrame
        The design's rows no answer is for (``rater``, ``position``, ``word1``, ``word2``, ``role``,
        and ``file`` where the design names the returned files; a pair asked twice and answered
        once: its second asking), in design order.
    """

    unknown: list
    unassigned: np.ndarray
    unanswered: pd.DataFrame


def design_problems(design: pd.DataFrame, word1, word2, raters, ds: dict) -> DesignProblems:
    """Compare the answers read with the design they answer: who was not in it, which answers it
    did not ask for, which of its questions have no answer.

    Parameters
    ----------
    design : pandas.DataFrame
        The design (``DESIGN_COLUMNS``; words as in the pairs file).
    word1, word2 : array_like of str
        Each answer's pair, as items keep it (every row read, whatever its value).
    raters : array_like of str
        Each answer's rater.
    ds : dict
        The dataset's resolved config (its ``unicode``, ``casefold`` and ``symmetric``).

    Returns
    -------
    DesignProblems

    Examples
    --------
    >>> design = pd.DataFrame({"rater": ["r1", "r1", "r2"], "position": [1, 2, 1],
    ...                        "word1": ["cat", "sun", "cat"], "word2": ["dog", "moon", "dog"], "role": "item"})
    >>> ds = {"unicode": "NFC", "casefold": False, "symmetric": True}
    >>> found = design_problems(design, ["dog", "car"], ["cat", "bus"], ["r1", "r1"], ds)
    >>> found.unknown, found.unassigned.tolist(), found.unanswered[["rater", "word1"]].values.tolist()
    ([], [False, True], [['r1', 'sun'], ['r2', 'cat']])
    """
    words = [design[c].map(lambda w: normalise_word(w, ds["unicode"], ds["casefold"])) for c in ("word1", "word2")]
    pairs = list(dict.fromkeys(zip(*words)))
    asked_pair = pair_index(*words, pairs, ds["symmetric"])
    answer_pair = pair_index(word1, word2, pairs, ds["symmetric"])
    raters = np.asarray(raters, dtype=object)
    answer_keys = pd.MultiIndex.from_arrays([raters, answer_pair])
    asked_keys = pd.MultiIndex.from_arrays([design["rater"].to_numpy(dtype=object), asked_pair])
    unassigned = np.isin(raters, design["rater"].unique()) & ~answer_keys.isin(asked_keys)
    # the design's rows past the answers given, per (rater, pair): a deleted row, or a repeat's second asking
    order = design.assign(_pair=asked_pair).sort_values(["rater", "position"], kind="stable")
    nth = order.groupby(["rater", "_pair"]).cumcount().to_numpy()
    answered = pd.Series(1, index=answer_keys).groupby(level=[0, 1]).size()
    given = answered.reindex(pd.MultiIndex.from_frame(order[["rater", "_pair"]]), fill_value=0).to_numpy()
    columns = list(DESIGN_COLUMNS) + (["file"] if "file" in design else [])  # the file the answer was to come back in
    unanswered = order.loc[nth >= given, columns].reset_index(drop=True)
    return DesignProblems(sorted(set(raters) - set(design["rater"])), unassigned, unanswered)


def read_design(path) -> pd.DataFrame:
    """A design table (``design.parquet``), its columns checked.

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    simgold.errors.DataError
        A file that is not a design table, naming the columns it lacks.
    """
    design = read_parquet(path)
    missing = [c for c in DESIGN_COLUMNS if c not in design]
    if missing:
        raise DataError(f"{path}: not a design table: no column {', '.join(missing)} (simgold design writes it)")
    return design
