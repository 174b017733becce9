"""``simgold design ratings``: a rating study from a pairs file to one questionnaire per rater, the
design table, and the config entry that reads the returned questionnaires as they are.

Each item is rated by exactly K of R raters, loads within one, pairs of raters sharing items as
evenly as the design allows (``simgold.stats.rating_design.assign_raters``); each rater's
questionnaire asks the anchors first, then the rater's items in a random order with repeats far
apart and attention checks spread through, each pair's words in a random order
(``questionnaire_orders``).

Examples
--------
>>> from simgold.design.pairs import parse_pairs
>>> text = "word1,word2\\n" + "".join(f"w{i},v{i}\\n" for i in range(12))
>>> design = design_ratings(parse_pairs(text, "pairs.csv"), name="study", scale=(0, 6), n_raters=6,
...                         raters_per_item=3, seed=1, language="en")
>>> sorted(design.files)[:2], design.table["rater"].value_counts().tolist()
(['sheets/r01.xlsx', 'sheets/r02.xlsx'], [6, 6, 6, 6, 6, 6])
>>> design.dataset["sources"][0]
{'path': 'raw/study/r01.xlsx', 'sheet': 'ratings', 'layout': 'long', 'words': ['word 1', 'word 2'], 'rater': 'rater', 'score': 'rating'}
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from simgold.design.pairs import PairList
from simgold.io.paths import within_results
from simgold.io.tables import read_parquet
from simgold.design.sheets import AnswerRule, Questionnaire, csv_text, fill_instructions, rater_names, xlsx_bytes
from simgold.stats.rating_design import RaterAssignment, RatingSizing, assign_raters, questionnaire_orders

__all__ = [
    "RATING_INSTRUCTIONS",
    "RatingDesign",
    "design_ratings",
    "checked_r1",
    "pilot_reliability",
    "pilot_row",
    "rating_questionnaires",
    "rating_source",
]

#: the instructions a rater reads, unless the design is given its own template (same fields)
RATING_INSTRUCTIONS = """\
Thank you for taking part. Your id: {rater}.
The sheet "{sheet}" shows {n_questions} pairs of words, one per row.
For each pair, type in the column "rating" how similar the two words are in meaning: {answer}, where {low} means not similar at all and {high} means the same meaning.
Give your first impression; there are no right or wrong answers.
Some pairs come back later in the sheet: answer them again as you see them then.
A few rows check that you are reading closely; answer them like any other pair.
Please do not reorder, add or delete rows, and do not rename the sheet.
Return the file as it is when you are done."""

#: the columns of a ratings questionnaire (the config written reads them by name)
HEADER = ("rater", "word 1", "word 2", "rating")


@dataclass(frozen=True)
class RatingDesign:
    """A rating study's design (``design_ratings``).

    Attributes
    ----------
    assignment : RaterAssignment
        Which raters rate which items (the items in the pairs file's order of its ``item`` and
        ``repeat`` rows).
    table : pandas.DataFrame
        The design: one row per question, columns ``rater``, ``position`` (from 1), ``item`` (the
        pair's line in the pairs file), ``word1``, ``word2`` (as in the pairs file), ``role``
        (``item``, ``anchor``, ``repeat``, ``attention``), ``swapped`` (the words shown the other
        way round), ``file`` (the returned file the answer is read from); sorted by rater and
        position.
    files : dict
        Each questionnaire's path (``sheets/r01.xlsx``, ...) and bytes.
    dataset : dict
        The config's dataset entry that reads the returned questionnaires from ``raw_dir``.
    summary : list of str
        What the design is, in lines for the terminal.
    """

    assignment: RaterAssignment
    table: pd.DataFrame
    files: dict
    dataset: dict
    summary: list


def pilot_reliability(results: str | Path, dataset: str) -> float:
    """One rater's reliability in a pilot: ``r1`` of the reliability stage's last row (after
    outlier filtering where raters were excluded) of a dataset of an earlier run.

    Parameters
    ----------
    results : str or Path
        The run's results folder.
    dataset : str
        The pilot dataset's name.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        No reliability table for the dataset, or no finite ``r1`` in it.
    """
    return checked_r1(pilot_row(results, "reliability", dataset)["r1"], dataset)


def pilot_row(results: str | Path, table: str, dataset: str) -> pd.Series:
    """The last row of a pilot dataset's reliability table (after outlier filtering, where raters
    were excluded) of an earlier run.

    Parameters
    ----------
    results : str or Path
        The run's results folder.
    table : str
        The table's name in ``RESULTS`` (``reliability``, ``bws_reliability``).
    dataset : str
        The pilot dataset's name.

    Returns
    -------
    pandas.Series

    Raises
    ------
    ValueError
        No such table for the dataset.
    """
    path = Path(results) / within_results(table, dataset=dataset)
    if not path.is_file():
        raise ValueError(f"{path}: not found; run the pipeline on the pilot dataset {dataset!r} first")
    return read_parquet(path).iloc[-1]


def checked_r1(r1: float, dataset: str) -> float:
    """One rater's (or one answer's) reliability from a pilot, refused where it cannot size a design.

    Parameters
    ----------
    r1 : float
    dataset : str
        The pilot, for the message.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        ``r1`` outside (0, 1] (NaN included).
    """
    r1 = float(r1)
    if not 0.0 < r1 <= 1.0:
        raise ValueError(f"the pilot {dataset!r}'s single-rater reliability r1 is {r1!r}; it cannot size a design")
    return r1


def design_ratings(
    pairs: PairList,
    *,
    name: str,
    scale: tuple,
    n_raters: int,
    raters_per_item: int,
    seed: int,
    language: str,
    raw_dir: str | None = None,
    formats: tuple = ("xlsx",),
    instructions: str | None = None,
    tolerance: float = 0.0,
    max_failures: int = 0,
    whole_numbers: bool = True,
    sizing: RatingSizing | None = None,
    design_path: str | None = None,
) -> RatingDesign:
    """Design a rating study: who rates what in which order, their questionnaires, and the config
    entry that reads them back.

    Parameters
    ----------
    pairs : PairList
        The pairs and their roles (``simgold.design.pairs.read_pairs``).
    name : str
        The dataset's name in the config.
    scale : (float, float)
        The rating scale's ends.
    n_raters, raters_per_item : int
        R raters, K of whom rate each item (``item`` and ``repeat`` rows).
    seed : int
        The same seed gives the same files, byte for byte.
    language : str
        The dataset's ISO 639-1 code.
    raw_dir : str, optional
        Where the returned questionnaires will be (the config's paths); ``raw/{name}`` by default.
    formats : tuple of str, default ("xlsx",)
        ``xlsx`` and/or ``csv``; the config reads the first.
    instructions : str, optional
        The instructions' template (``RATING_INSTRUCTIONS`` and its fields by default).
    tolerance : float, default 0
        How far an answer to an attention check may lie from the answer it expects.
    max_failures : int, default 0
        A rater failing more checks than this is excluded.
    whole_numbers : bool, default True
        Whether the questionnaire accepts whole numbers only (else any number on the scale).
    sizing : RatingSizing, optional
        How K was chosen (``size_rating_design``), stated in the summary and the card.
    design_path : str, optional
        Where the design table will be (``design.parquet``): the entry's ``design`` key, so that
        cleaning checks the returned files against it (deleted rows, answers not asked for, raters
        not in the design).

    Returns
    -------
    RatingDesign

    Raises
    ------
    ValueError
        No item, R < K, an attention check expecting an answer off the scale, an unknown format, or
        a template naming an unknown field.
    """
    lo, hi = (float(v) for v in scale)
    raw_dir = raw_dir or f"raw/{name}"
    bad = set(formats) - {"xlsx", "csv"} or not formats
    if bad:
        raise ValueError(f"formats {list(formats)!r}: expected xlsx and/or csv")
    items, anchors, checks = (
        pairs.where("item") + pairs.where("repeat"),
        pairs.where("anchor"),
        pairs.where("attention"),
    )
    items.sort()
    if not items:
        raise ValueError(f"{pairs.path}: no pair to rate (every row is an anchor or an attention check)")
    for i in checks:
        if not lo <= pairs.expect[i] <= hi:
            raise ValueError(
                f"{pairs.path} line {pairs.line[i]} column expect: {pairs.expect[i]:g} is off the scale [{lo:g}, {hi:g}]"
            )
    if n_raters < raters_per_item:
        raise ValueError(f"R = {n_raters} raters cannot give each item K = {raters_per_item} raters: R < K")
    assignment = assign_raters(len(items), n_raters, raters_per_item, seed)
    rule = AnswerRule("whole" if whole_numbers else "decimal", lo, hi)
    table, files = rating_questionnaires(
        pairs, assignment.rater_items, rater_names(n_raters), rule, seed, formats=formats, instructions=instructions
    )
    summary = _summary(pairs, assignment, len(items), anchors, checks, sizing)
    entry = _dataset_entry(pairs, name, (lo, hi), language, anchors, checks, (tolerance, max_failures))
    table["file"] = [f"{raw_dir}/{rater}.{formats[0]}" for rater in table["rater"]]  # where its answer comes back
    if design_path:
        entry["design"] = {"path": design_path}
    entry["sources"] = [rating_source(raw_dir, rater, formats[0]) for rater in rater_names(n_raters)]
    card = entry["release"]["card"]
    card["pairs"] += "\n\n" + "\n".join(f"- {line}" for line in summary)
    card["instructions"] = fill_instructions(
        instructions or RATING_INSTRUCTIONS, _fields("(each rater's own)", _count_text(table), rule, lo, hi)
    )
    return RatingDesign(assignment, table, files, entry, summary)


def rating_questionnaires(
    pairs: PairList, rater_items, names, rule: AnswerRule, seed: int, *, formats=("xlsx",), instructions=None
) -> tuple[pd.DataFrame, dict]:
    """Every rater's questionnaire from the items each rates: the design table and the files.

    Parameters
    ----------
    pairs : PairList
        The pairs; its ``item`` and ``repeat`` rows, in file order, are the items ``rater_items``
        count (``anchor`` and ``attention`` rows are asked of every rater).
    rater_items : sequence of array_like of int
        Each rater's items (indices into the item and repeat rows, in file order).
    names : sequence of str
        The raters' ids, one per entry of ``rater_items``.
    rule : AnswerRule
        What a rating cell accepts.
    seed : int
        The orders' and the words' seed (each rater's stream derived from it).
    formats : tuple of str, default ("xlsx",)
        ``xlsx`` and/or ``csv``.
    instructions : str, optional
        The instructions' template (``RATING_INSTRUCTIONS`` by default).

    Returns
    -------
    table : pandas.DataFrame
        One row per question (``RatingDesign.table``'s columns).
    files : dict
        ``sheets/{rater}.xlsx`` (and ``.csv``) and their bytes.
    """
    table = _design_table(pairs, rater_items, names, seed)
    template = instructions or RATING_INSTRUCTIONS
    return table, _questionnaires(table, rule, formats, template, rule.low, rule.high)


def _design_table(pairs, rater_items, names, seed) -> pd.DataFrame:
    """One row per question: the item ids of ``questionnaire_orders`` mapped back to pair rows."""
    items = sorted(pairs.where("item") + pairs.where("repeat"))
    anchors, checks = pairs.where("anchor"), pairs.where("attention")
    rows = np.array(items + anchors + checks)  # design ids 0.. index this
    n_items, n_anchors = len(items), len(anchors)
    repeated = [items.index(i) for i in pairs.where("repeat")]
    order = questionnaire_orders(
        rater_items,
        seed,
        anchors=range(n_items, n_items + n_anchors),
        repeats=repeated,
        attention=range(n_items + n_anchors, len(rows)),
    )
    pair_row = rows[order.item]
    names = np.array(names)
    table = pd.DataFrame(
        {
            "rater": names[order.rater],
            "position": order.position + 1,
            "item": np.array(pairs.line)[pair_row],
            "word1": [pairs.words[i][0] for i in pair_row],
            "word2": [pairs.words[i][1] for i in pair_row],
            "role": order.role.astype(str),
            "swapped": order.swapped,
        }
    )
    return table.sort_values(["rater", "position"], ignore_index=True)


def _count_text(table: pd.DataFrame) -> str:
    """The questions per rater, for the card: ``19``, or ``19 to 20``."""
    counts = table.groupby("rater").size()
    low, high = int(counts.min()), int(counts.max())
    return str(low) if low == high else f"{low} to {high}"


def _fields(rater: str, n_questions, rule: AnswerRule, lo: float, hi: float) -> dict:
    """The fields an instructions template may name."""
    return {"rater": rater, "sheet": "ratings", "n_questions": n_questions, "answer": rule.text} | {
        "low": f"{lo:g}",
        "high": f"{hi:g}",
    }


def _questionnaires(table, rule, formats, template, lo, hi) -> dict:
    files = {}
    for rater, rows in table.groupby("rater", sort=True):
        shown = [
            (rater, b if s else a, a if s else b, None)
            for a, b, s in zip(rows["word1"], rows["word2"], rows["swapped"])
        ]
        sheet = Questionnaire(rater, HEADER, tuple(shown), ("rating",), rule)
        text = fill_instructions(template, _fields(rater, len(shown), rule, lo, hi))
        if "xlsx" in formats:
            files[f"sheets/{rater}.xlsx"] = xlsx_bytes(sheet, text, "ratings")
        if "csv" in formats:
            files[f"sheets/{rater}.csv"] = csv_text(sheet).encode()
    return files


def rating_source(raw_dir: str, rater: str, returned: str) -> dict:
    """The source that reads one rater's returned questionnaire: a row per answer, the rater's id on
    each (so that it travels with the answers, whatever the file is called).

    Parameters
    ----------
    raw_dir : str
        Where the returned file is.
    rater : str
        The rater's id (the file's name).
    returned : str
        ``xlsx`` or ``csv``.

    Returns
    -------
    dict
        The config's source entry.

    Examples
    --------
    >>> rating_source("raw/s", "r01", "csv")
    {'path': 'raw/s/r01.csv', 'layout': 'long', 'words': ['word 1', 'word 2'], 'rater': 'rater', 'score': 'rating'}
    """
    sheet = {"sheet": "ratings"} if returned == "xlsx" else {}
    return {"path": f"{raw_dir}/{rater}.{returned}", **sheet, "layout": "long", "words": ["word 1", "word 2"]} | {
        "rater": "rater",
        "score": "rating",
    }


def _number(value: float) -> int | float:
    """A whole number written as one (``6``, not ``6.0``) in the config."""
    return int(value) if float(value).is_integer() else float(value)


def _dataset_entry(pairs, name, scale, language, anchors, checks, attention) -> dict:
    entry = {
        "description": f"{name}: designed with simgold design ratings",
        "language": language,
        "kind": "ratings",
        "scale": [_number(v) for v in scale],
        "duplicates": "first",  # a repeat's first answer is the rating; both answers give test-retest
        "outliers": {"method": "pairwise_sd", "k": 2.0},
    }
    if checks:
        tolerance, max_failures = attention
        items = [{"words": list(pairs.words[i]), "expect": _number(pairs.expect[i])} for i in checks]
        entry["attention"] = {"items": items, "tolerance": _number(tolerance), "max_failures": int(max_failures)}
    if anchors:  # rated by everyone to calibrate by eye; not pairs of the gold standard
        entry["anchors"] = {"items": [list(pairs.words[i]) for i in anchors], "in_gold": False}
    entry["release"] = {"card": {"pairs": f"The pairs of `{pairs.path}`."}}
    return entry


def _summary(pairs, assignment, n_items, anchors, checks, sizing) -> list[str]:
    loads, n_raters = assignment.loads, len(assignment.loads)
    k = int(assignment.raters.shape[1])
    lines = [
        f"{n_items} pairs, each rated by K = {k} of R = {n_raters} raters "
        f"({len(pairs.where('repeat'))} of them asked twice for test-retest); "
        f"{len(anchors)} anchors and {len(checks)} attention checks asked of every rater",
        f"items per rater: {int(loads.min())} to {int(loads.max())}; pairs of raters share "
        f"{assignment.overlap_min} to {assignment.overlap_max} items (SD {assignment.overlap_sd:.3f}, "
        f"lowest possible {assignment.overlap_sd_bound:.3f}); {assignment.balance_note}",
    ]
    if sizing is not None:
        low, high = sizing.interval
        lines += [
            f"expected reliability of the mean of K raters {sizing.expected_reliability:.3f}; split-half "
            f"{sizing.expected_split_half:.3f}, {sizing.level:.0%} interval [{low:.3f}, {high:.3f}]",
            f"how: {sizing.method}",
        ]
    answers = n_items * k + len(pairs.where("repeat")) * k + n_raters * (len(anchors) + len(checks))
    lines.append(f"answers to collect: {answers}")
    return lines
