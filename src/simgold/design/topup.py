"""``simgold design topup``: a second round of a rating study where it helps most. The answers a
budget allows go to the items whose gold-standard intervals are widest
(``simgold.stats.rating_design.allocate_answers``), each to raters who kept their place (not
excluded) and have not rated the item yet, least loaded first, then to new raters when named. The
config entry it returns is the first round's with the second round's files added: the raters keep
their ids, so that a rater's answers of both rounds are one rater's.

A Best-Worst Scaling dataset's further round (``design_bws_topup``) shows again the pairs whose
counting scores are least certain (the widest bootstrap intervals), in new tuples of their own (each
pair in about two of them), with ids of the round's own (``r2t0001``: a tuple id names one tuple in
the whole dataset).

Examples
--------
>>> import pandas as pd
>>> items = pd.DataFrame({"item_id": ["d:1", "d:2", "d:3"], "word1": ["a", "b", "c"], "word2": ["x", "y", "z"]})
>>> ratings = pd.DataFrame({"item_id": ["d:1", "d:1", "d:2", "d:2", "d:3", "d:3"],
...                         "rater": ["r01", "r02", "r01", "r03", "r02", "r03"]})
>>> gold = pd.DataFrame({"item_id": ["d:1", "d:2", "d:3"], "n": [2, 2, 2],
...                      "ci_low": [1.0, 2.0, 3.0], "ci_high": [5.0, 3.0, 3.5]})
>>> entry = {"kind": "ratings", "scale": [0, 6], "sources": []}
>>> design = design_topup("d", entry, items, ratings, gold, budget=1, seed=0)
>>> design.extra[["item_id", "extra"]].values.tolist(), design.table["rater"].tolist()
([['d:1', 1]], ['r03'])
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np
import pandas as pd

from simgold.design.bws import design_bws
from simgold.design.pairs import PairList
from simgold.design.ratings import rating_questionnaires, rating_source
from simgold.design.sheets import AnswerRule
from simgold.stats.rating_design import allocate_answers

__all__ = ["TopupDesign", "design_bws_topup", "design_topup"]


@dataclass(frozen=True)
class TopupDesign:
    """A second round's design (``design_topup``).

    Attributes
    ----------
    extra : pandas.DataFrame
        The items topped up: ``item_id``, ``word1``, ``word2``, ``n`` (answers now), ``width`` (the
        interval's width now), ``extra`` (answers asked for) and ``expected_width`` (as expected
        after them: ``width * sqrt(n / (n + extra))``), widest first.
    table : pandas.DataFrame
        The round's design (``RatingDesign.table``'s columns, ``item`` holding the item's id), and
        ``round``.
    files : dict
        The round's questionnaires.
    dataset : dict
        The dataset entry reading both rounds.
    summary : list of str
        What the round is, in lines for the terminal.
    """

    extra: pd.DataFrame
    table: pd.DataFrame
    files: dict
    dataset: dict
    summary: list


def design_topup(
    name: str,
    entry: dict,
    items: pd.DataFrame,
    ratings: pd.DataFrame,
    gold: pd.DataFrame,
    *,
    budget: int,
    seed: int,
    excluded=(),
    new_raters=(),
    round_number: int = 2,
    raw_dir: str | None = None,
    formats: tuple = ("xlsx",),
    instructions: str | None = None,
) -> TopupDesign:
    """Design a further round of a rating dataset: ``budget`` answers where the intervals are widest.

    Parameters
    ----------
    name : str
        The dataset.
    entry : dict
        Its config entry (kind ``ratings``; its ``attention`` checks are asked again).
    items, ratings : pandas.DataFrame
        Its cleaned ``items`` (``item_id``, ``word1``, ``word2``) and ``ratings`` (``item_id``,
        ``rater``).
    gold : pandas.DataFrame
        Its gold standard (``item_id``, ``n``, ``ci_low``, ``ci_high``).
    budget : int
        The answers to ask for.
    seed : int
        The same seed gives the same files.
    excluded : iterable of str, default ()
        Raters outlier filtering or an attention check excluded: never asked again.
    new_raters : iterable of str, default ()
        Ids of raters who join in this round.
    round_number : int, default 2
        The round; its files are read from ``{raw_dir}/round{round_number}/``.
    raw_dir : str, optional
        The first round's folder (``raw/{name}`` by default).
    formats, instructions
        As for ``design_ratings``.

    Returns
    -------
    TopupDesign

    Raises
    ------
    ValueError
        A dataset that is not of kind ratings, a budget of no answer, or no rater who could answer.
    """
    if entry.get("kind") != "ratings":
        raise ValueError(f"dataset {name!r} is of kind {entry.get('kind')!r}; topup designs ratings datasets")
    raters = sorted(set(ratings["rater"]) - set(excluded)) + [r for r in new_raters if r not in set(ratings["rater"])]
    frame = _widths(items, gold, entry)
    rated = set(zip(ratings["item_id"], ratings["rater"]))
    caps = [sum((i, r) not in rated for r in raters) for i in frame["item_id"]]
    frame["extra"] = allocate_answers(frame["width"], frame["n"], budget, caps)
    if frame["extra"].sum() == 0:
        raise ValueError(f"{name}: no answer to ask for (budget {budget}; raters who could answer: {len(raters)})")
    frame = frame[frame["extra"] > 0].reset_index(drop=True)
    frame["expected_width"] = frame["width"] * np.sqrt(frame["n"] / (frame["n"] + frame["extra"]))
    asked = _assign(frame, raters, rated, seed)
    names = [r for r in raters if asked[r]]
    pairs = _pair_list(frame, entry)
    scale = entry["scale"]
    rule = AnswerRule("whole" if all(float(v).is_integer() for v in scale) else "decimal", *scale)
    rater_items = [sorted(asked[r]) for r in names]
    table, files = rating_questionnaires(
        pairs, rater_items, names, rule, seed, formats=formats, instructions=instructions
    )
    ids = list(frame["item_id"]) + [""] * (len(pairs.words) - len(frame))  # the checks are no items
    table["item"] = table["item"].map(dict(zip(pairs.line, ids)))
    table["round"] = round_number
    folder = f"{raw_dir or f'raw/{name}'}/round{round_number}"
    dataset = copy.deepcopy(entry)
    dataset["sources"] = list(dataset["sources"]) + [rating_source(folder, r, formats[0]) for r in names]
    summary = _summary(frame, names, budget, folder)
    return TopupDesign(frame, table, {f"round{round_number}/{k}": v for k, v in files.items()}, dataset, summary)


def _widths(items: pd.DataFrame, gold: pd.DataFrame, entry: dict) -> pd.DataFrame:
    """Each gold item's words, answers and interval width (the scale's width where there is none)."""
    frame = gold[["item_id", "n", "ci_low", "ci_high"]].merge(items[["item_id", "word1", "word2"]], on="item_id")
    width = (frame["ci_high"] - frame["ci_low"]).to_numpy(dtype=float)
    span = float(entry["scale"][1]) - float(entry["scale"][0])
    frame["width"] = np.where(np.isfinite(width), width, span)  # one answer: no interval, as wide as the scale
    frame = frame.sort_values(["width", "item_id"], ascending=[False, True], ignore_index=True)
    return frame[["item_id", "word1", "word2", "n", "width"]]


def _assign(frame: pd.DataFrame, raters: list, rated: set, seed: int) -> dict:
    """Each extra answer to a rater who has not rated the item, least loaded first (ties: seeded)."""
    rng = np.random.default_rng(seed)
    tie = dict(zip(raters, rng.permutation(len(raters))))
    load = dict.fromkeys(raters, 0)
    asked = {r: [] for r in raters}
    for k, (item, extra) in enumerate(zip(frame["item_id"], frame["extra"])):
        free = sorted((r for r in raters if (item, r) not in rated), key=lambda r: (load[r], tie[r]))
        for r in free[:extra]:
            asked[r].append(k)
            load[r] += 1
    return asked


def _pair_list(frame: pd.DataFrame, entry: dict) -> PairList:
    """The items to ask again and the attention checks, as a pairs file would list them."""
    checks = entry.get("attention", {}).get("items", [])
    words = [(a, b) for a, b in zip(frame["word1"], frame["word2"])] + [tuple(c["words"]) for c in checks]
    roles = ("item",) * len(frame) + ("attention",) * len(checks)
    expect = (float("nan"),) * len(frame) + tuple(float(c["expect"]) for c in checks)
    return PairList(tuple(words), roles, expect, tuple(range(2, len(words) + 2)), "the gold standard")


def _summary(frame: pd.DataFrame, names: list, budget: int, folder: str) -> list[str]:
    return [
        f"{int(frame['extra'].sum())} answers of a budget of {budget} to {len(frame)} items, the widest "
        f"intervals first: mean width {frame['width'].mean():.3f} now, {frame['expected_width'].mean():.3f} expected",
        f"{len(names)} raters asked (ids kept); their files are read from {folder}/",
    ]


def design_bws_topup(
    name: str,
    entry: dict,
    items: pd.DataFrame,
    scores: pd.DataFrame,
    *,
    budget: int,
    seed: int,
    n_raters: int,
    answers_per_tuple: int,
    k: int = 4,
    round_number: int = 2,
    raw_dir: str | None = None,
    formats: tuple = ("xlsx",),
    language: str = "en",
) -> TopupDesign:
    """Design a further round of a Best-Worst Scaling dataset: ``budget`` answers to tuples of the
    pairs whose counting scores are least certain.

    Parameters
    ----------
    name : str
        The dataset.
    entry : dict
        Its config entry (kind ``bws``).
    items : pandas.DataFrame
        Its cleaned ``items`` (``item_id``, ``word1``, ``word2``).
    scores : pandas.DataFrame
        Its ``bws_scores`` (``item_id``, ``n_shown``, ``counting_low``, ``counting_high``).
    budget : int
        The answers to ask for: ``budget // answers_per_tuple`` tuples.
    seed : int
        The same seed gives the same files.
    n_raters, answers_per_tuple, k : int
        The round's raters, answers per tuple and pairs per tuple (``design_bws``).
    round_number : int, default 2
        The round; its files are read from ``{raw_dir}/round{round_number}/``.
    raw_dir : str, optional
        The first round's folder (``raw/{name}`` by default).
    formats : tuple of str, default ("xlsx",)
        As for ``design_bws``; the entry reads the first.
    language : str, default "en"
        The dataset's language.

    Returns
    -------
    TopupDesign
        ``extra``: the pairs shown again, widest interval first (``width``, and ``extra``: the
        tuples each is in).

    Raises
    ------
    ValueError
        A dataset not of kind bws, or a budget too small for one tuple of k pairs per round.
    """
    if entry.get("kind") != "bws":
        raise ValueError(f"dataset {name!r} is of kind {entry.get('kind')!r}; a BWS topup needs kind bws")
    n_tuples = budget // answers_per_tuple
    frame = scores[["item_id", "n_shown", "counting_low", "counting_high"]].merge(items[["item_id", "word1", "word2"]])
    width = (frame["counting_high"] - frame["counting_low"]).to_numpy(dtype=float)
    frame = frame.assign(n=frame["n_shown"], width=np.where(np.isfinite(width), width, 2.0))  # no interval: -1..1
    frame = frame.sort_values(["width", "item_id"], ascending=[False, True], ignore_index=True)
    chosen = min(len(frame), max(k, -(-n_tuples * k // 2)))  # each pair in about two of the round's tuples
    if n_tuples < 1 or chosen < k:
        raise ValueError(
            f"{name}: a budget of {budget} answers is not one tuple of {k} pairs answered {answers_per_tuple} times"
        )
    frame = frame.head(chosen)
    folder = f"{raw_dir or f'raw/{name}'}/round{round_number}"
    design = design_bws(
        list(zip(frame["word1"], frame["word2"])),
        name=name,
        k=k,
        factor=n_tuples / chosen,
        n_raters=n_raters,
        answers_per_tuple=answers_per_tuple,
        seed=seed,
        formats=formats,
        raw_dir=folder,
        language=language,
        tuple_prefix=f"r{round_number}t",
    )
    shown = np.bincount(design.tuples.tuples.ravel(), minlength=chosen)  # the tuples each pair is in
    frame = frame.assign(extra=shown, expected_width=np.nan)[
        ["item_id", "word1", "word2", "n", "width", "extra", "expected_width"]
    ]
    dataset = copy.deepcopy(entry)
    dataset["sources"] = list(dataset["sources"]) + design.datasets[formats[0]]["sources"]
    summary = [
        f"{design.tuples.n_tuples} tuples of {k} of the {chosen} pairs whose counting intervals are widest "
        f"(mean width {frame['width'].mean():.3f}), each answered {answers_per_tuple} times: "
        f"{design.tuples.n_tuples * answers_per_tuple} answers of a budget of {budget}",
        *design.summary[1:],
        f"the round's files are read from {folder}/ (its raters are r01, r02, ...: where the first round's "
        "had those ids, send rNN's file to the first round's rNN, so that a rater's answers stay one rater's)",
    ]
    table = design.table.assign(round=round_number)
    files = {f"round{round_number}/{rel}": data for rel, data in design.files.items()}
    return TopupDesign(frame, table, files, dataset, summary)
