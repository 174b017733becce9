"""A Best-Worst Scaling study designed before anyone answers (``simgold design bws``): the k-tuples
(``simgold.stats.bws_design``), which raters answer which tuple in which order
(``simgold.stats.rating_design``, the tuples as its items), the files to hand out, and the config
entry that reads the returned files as they are.

The formats, each a set of files under ``files`` (path -> bytes) and an entry under ``datasets``:

* ``xlsx``, ``csv``: one questionnaire per rater, ``sheets/r01.xlsx`` (an instructions sheet, then
  the sheet ``answers``) or ``sheets/r01.csv``: columns ``question`` (1, 2, ... in the order
  asked), ``rater``, ``tuple``, ``item1``..``itemk`` (each ``word1:word2``), ``best`` and
  ``worst``, where the rater enters the number 1..k of the chosen item (``choice: position``; the
  workbook's data validation accepts only those numbers). The entry has one source per rater file,
  ``{raw_dir}/r01.xlsx``; the rater is read from the ``rater`` column the sheet carries, and
  ``question`` is kept as an attribute of each answer.
* ``label_studio``: ``label_studio/tasks.json`` and ``label_studio/labeling_config.xml``
  (``simgold.design.platforms``); the entry reads the project's JSON-MIN export saved as
  ``{raw_dir}/export.json`` with the ``label_studio`` preset, the tuple from the task's ``tuple``
  field (Label Studio numbers tasks itself; its task id is kept as the attribute ``task``).
* ``potato``: ``potato/data.jsonl`` and ``potato/config.yaml``; the entry reads Potato's
  ``annotated_instances.tsv`` saved as ``{raw_dir}/annotated_instances.tsv`` with the ``potato``
  preset.

The entries differ in their sources only; ``datasets`` holds one per format written.

Examples
--------
>>> pairs = [("cat", "dog"), ("car", "bus"), ("sun", "moon"), ("cup", "tea"), ("king", "queen")]
>>> d = design_bws(pairs, name="demo", n_raters=3, answers_per_tuple=2, seed=1, raw_dir="raw/demo")
>>> d.tuples.n_tuples, sorted(d.files)[:3]
(10, ['label_studio/labeling_config.xml', 'label_studio/tasks.json', 'potato/config.yaml'])
>>> d.datasets["potato"]["sources"]
[{'path': 'raw/demo/annotated_instances.tsv', 'preset': 'potato'}]
>>> d.table.columns.tolist()
['rater', 'position', 'tuple', 'role', 'item1', 'item2', 'item3', 'item4']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

import numpy as np
import pandas as pd

from simgold.design.platforms import (
    POTATO_SPLIT,
    label_studio_config,
    label_studio_tasks,
    potato_config,
    potato_instances,
)
from simgold.design.sheets import AnswerRule, Questionnaire, csv_text, fill_instructions, rater_names, xlsx_bytes
from simgold.io.cells import normalise_word, word_problem
from simgold.stats.bws_design import TupleDesign, bws_tuples
from simgold.stats.rating_design import RaterAssignment, assign_raters, questionnaire_orders

__all__ = ["FORMATS", "INSTRUCTIONS", "SHEET", "BwsDesign", "design_bws"]

#: the formats ``design_bws`` writes
FORMATS = ("xlsx", "csv", "potato", "label_studio")
#: the questions' sheet in every workbook (the config's ``sheet``)
SHEET = "answers"
#: the instructions a rater reads (``instructions`` replaces it; the same fields)
INSTRUCTIONS = (
    "Questionnaire of rater {rater}: {n_questions} questions.\n"
    "Each row shows {k} pairs of words, item1 to item{k}.\n"
    "In the column best, enter the number (1 to {k}) of the pair whose two words are the MOST similar in meaning; "
    "in the column worst, the number of the pair whose two words are the LEAST similar.\n"
    "The best and the worst are two different pairs. Each answer is {answer}.\n"
    "Change nothing else: not the other columns, not the order of the rows, not the name of the sheet."
)


@dataclass(frozen=True)
class BwsDesign:
    """A designed Best-Worst Scaling study: its tuples, who answers them, the files and the config.

    Attributes
    ----------
    tuples : TupleDesign
        The k-tuples (item codes index ``pairs``).
    assignment : RaterAssignment
        The raters of each tuple (tuple ``t`` is item ``t`` there).
    table : pandas.DataFrame
        The design: ``rater`` (r01, ...), ``position`` (from 1, the order asked), ``tuple`` (t0001,
        ...), ``role`` (``item``), ``item1``..``itemk`` (``word1:word2``); sorted by rater and position.
    files : dict of str to bytes
        Each file written, by its path relative to the output folder.
    datasets : dict of str to dict
        Per format written, the config's dataset entry that reads the returned files.
    summary : tuple of str
        What the design is, a line each.
    """

    tuples: TupleDesign
    assignment: RaterAssignment
    table: pd.DataFrame
    files: dict
    datasets: dict
    summary: tuple


def design_bws(
    pairs: Sequence,
    *,
    name: str,
    k: int = 4,
    factor: float = 2.0,
    n_raters: int,
    answers_per_tuple: int,
    seed: int,
    formats: Sequence[str] = FORMATS,
    raw_dir: str,
    instructions: str | None = None,
    separator: str = ":",
    language: str = "en",
    tuple_prefix: str = "t",
) -> BwsDesign:
    """Design a Best-Worst Scaling study of ``pairs``: ``round(factor * len(pairs))`` k-tuples, each
    answered by ``answers_per_tuple`` of ``n_raters`` raters, and the files of every format.

    Parameters
    ----------
    pairs : sequence of (str, str)
        The word pairs, each shown as ``word1<separator>word2``.
    name : str
        The dataset's name (Potato's page title).
    k : int, default 4
        Items per tuple (3 to 8, as the cleaning reads).
    factor : float, default 2.0
        Tuples per item (``simgold.stats.bws_design.bws_tuples``).
    n_raters : int
        R, the raters.
    answers_per_tuple : int
        K, the raters who answer each tuple.
    seed : int
        The seed of the tuples, the assignment and the orders: the same arguments give the same bytes.
    formats : sequence of str, default all of FORMATS
        ``xlsx``, ``csv``, ``potato``, ``label_studio``.
    raw_dir : str
        Where the returned files will be (the config's paths, relative to the project).
    instructions : str, optional
        The raters' instructions (default :data:`INSTRUCTIONS`), with the fields ``{rater}``,
        ``{n_questions}``, ``{k}``, ``{answer}`` and ``{name}``.
    separator : str, default ":"
        The text between an item's two words.
    language : str, default "en"
        The dataset's language.
    tuple_prefix : str, default "t"
        The tuples' ids are this and a number (``t0001``): a further round's tuples take another
        prefix, since a tuple id names one tuple in the whole dataset.

    Returns
    -------
    BwsDesign

    Raises
    ------
    ValueError
        A pair listed twice (named, with both its positions; (a, b) and (b, a) are one item, as a
        symmetric dataset reads them), a word that is empty or holds the separator (or, for Potato,
        `` | ``), fewer pairs than k, an unknown format, or counts the tuples or the assignment refuse.
    """
    unknown = sorted(set(formats) - set(FORMATS))
    if unknown or not formats:
        raise ValueError(f"formats {unknown or list(formats)!r}: expected some of {', '.join(FORMATS)}")
    texts = _items(pairs, separator, "potato" in formats)
    if not 3 <= k <= 8:
        raise ValueError(f"k = {k!r}: a tuple has 3 to 8 items (the cleaning reads no other)")
    if len(texts) < k:
        raise ValueError(f"{len(texts)} pairs: a tuple of k = {k} needs at least {k}")
    tuples = bws_tuples(len(texts), k=k, factor=factor, seed=seed)
    assignment = assign_raters(tuples.n_tuples, n_raters, answers_per_tuple, seed)
    table = _table(tuples, assignment, texts, seed, tuple_prefix)
    files = _files(table, set(formats), name, k, answers_per_tuple, instructions)
    datasets = {fmt: _dataset(fmt, table, raw_dir, k, separator, language) for fmt in FORMATS if fmt in formats}
    return BwsDesign(tuples, assignment, table, files, datasets, _summary(tuples, assignment, k))


def _items(pairs: Sequence, separator: str, potato: bool) -> list[str]:
    """Each pair as its item text, checked: two words, neither empty nor holding the separator,
    no pair twice."""
    texts, seen = [], {}
    for n, pair in enumerate(pairs, start=1):
        if isinstance(pair, str) or len(pair) != 2 or not all(isinstance(w, str) for w in pair):
            raise ValueError(f"pair {n}: {pair!r} is not two words")
        words = tuple(normalise_word(w, "NFC", False) for w in pair)
        for word in words:
            problem = word_problem(word, "NFC") or (
                f"the word {word!r} holds the separator {separator!r}" if separator in word else ""
            )
            if problem:
                raise ValueError(f"pair {n} ({pair[0]!r}, {pair[1]!r}): {problem}")
        text = separator.join(words)
        if potato and POTATO_SPLIT.strip() in text:
            raise ValueError(
                f"pair {n}: {text!r} holds {POTATO_SPLIT.strip()!r}, which joins a Potato instance's items"
            )
        key = tuple(sorted(words))
        if key in seen:
            raise ValueError(
                f"the pair {words[0]}/{words[1]} is listed twice: pairs {seen[key]} and {n} "
                "(1-based; a pair in either order is one item)"
            )
        seen[key] = n
        texts.append(text)
    return texts


def _table(tuples: TupleDesign, assignment: RaterAssignment, texts: list[str], seed: int, prefix: str) -> pd.DataFrame:
    rater_ids = rater_names(len(assignment.rater_items))
    tuple_ids = [f"{prefix}{t:0{max(4, len(str(tuples.n_tuples)))}d}" for t in range(1, tuples.n_tuples + 1)]
    order = questionnaire_orders(assignment.rater_items, seed)
    items = np.asarray(texts, dtype=object)[tuples.tuples[order.item]]
    frame = pd.DataFrame(
        {
            "rater": [rater_ids[x] for x in order.rater],
            "position": order.position.astype(np.int64) + 1,
            "tuple": [tuple_ids[t] for t in order.item],
            "role": order.role.astype(object),
            **{f"item{j + 1}": items[:, j] for j in range(tuples.k)},
        }
    )
    frame = frame.astype({c: "str" for c in frame.columns if c != "position"})
    return frame.sort_values(["rater", "position"], kind="stable").reset_index(drop=True)


def _item_columns(k: int) -> list[str]:
    return [f"item{j}" for j in range(1, k + 1)]


def _files(table: pd.DataFrame, formats: set, name: str, k: int, per_tuple: int, instructions: str | None) -> dict:
    files: dict[str, bytes] = {}
    rule = AnswerRule("list", choices=tuple(str(j) for j in range(1, k + 1)))
    header = ("question", "rater", "tuple", *_item_columns(k), "best", "worst")
    for rater, rows in table.groupby("rater", sort=True):
        sheet = Questionnaire(
            rater,
            header,
            tuple(
                (int(pos), rater, tid, *its, None, None)
                for pos, tid, its in zip(rows["position"], rows["tuple"], rows[_item_columns(k)].values.tolist())
            ),
            ("best", "worst"),
            rule,
        )
        fields = {"rater": rater, "n_questions": len(rows), "k": k, "answer": rule.text, "name": name}
        if "xlsx" in formats:
            text = fill_instructions(INSTRUCTIONS if instructions is None else instructions, fields)
            files[f"sheets/{rater}.xlsx"] = xlsx_bytes(sheet, text, SHEET)
        if "csv" in formats:
            files[f"sheets/{rater}.csv"] = csv_text(sheet).encode()
    once = table.drop_duplicates("tuple").sort_values("tuple")
    ids, items = once["tuple"].tolist(), once[_item_columns(k)].values.tolist()
    if "label_studio" in formats:
        files["label_studio/tasks.json"] = label_studio_tasks(ids, items).encode()
        files["label_studio/labeling_config.xml"] = label_studio_config(k).encode()
    if "potato" in formats:
        load = int(table["rater"].value_counts().max())
        files["potato/data.jsonl"] = potato_instances(ids, items).encode()
        files["potato/config.yaml"] = potato_config(name, k, per_tuple, load).encode()
    return dict(sorted(files.items()))


def _dataset(fmt: str, table: pd.DataFrame, raw_dir: str, k: int, separator: str, language: str) -> dict:
    """The config's dataset entry that reads format ``fmt``'s returned files from ``raw_dir``."""
    where = PurePosixPath(raw_dir)
    extra = {"separator": separator} if separator != ":" else {}
    if fmt == "potato":
        sources = [{"path": str(where / "annotated_instances.tsv"), "preset": "potato", **extra}]
    elif fmt == "label_studio":
        items = {"items": _item_columns(k)} if k != 4 else {}
        source = {"path": str(where / "export.json"), "preset": "label_studio", **items, "tuple": "tuple"}
        sources = [{**source, "attributes": {"task": {"column": "id", "type": "int"}}, **extra}]
    else:
        sheet = {"sheet": SHEET} if fmt == "xlsx" else {}
        keys = {"items": _item_columns(k), "best": "best", "worst": "worst", "choice": "position"}
        keys |= {"rater": "rater", "tuple": "tuple", "attributes": {"question": {"column": "question", "type": "int"}}}
        sources = [
            {"path": str(where / f"{rater}.{fmt}"), **sheet, **keys, **extra}
            for rater in sorted(table["rater"].unique())
        ]
    return {"language": language, "kind": "bws", "sources": sources}


def _summary(tuples: TupleDesign, assignment: RaterAssignment, k: int) -> tuple:
    mean = tuples.n_tuples * k / tuples.n_items
    loads = assignment.loads
    per_tuple = assignment.raters.shape[1]
    floor = "at its floor" if tuples.at_floor else f"its floor {tuples.pair_sd_floor:.4f}"
    lo, hi = int(loads.min()), int(loads.max())
    return (
        f"{tuples.n_tuples} tuples of {k} items over {tuples.n_items} items",
        f"each item in {int(tuples.appearances.min())} to {int(tuples.appearances.max())} tuples (mean {mean:.2f})",
        f"pair co-occurrence SD {tuples.pair_sd:.4f} ({floor}); "
        f"{tuples.repeated_pairs} pairs share more than one tuple",
        f"each tuple answered by {per_tuple} of {len(loads)} raters; {lo} to {hi} tuples a rater",
        f"{tuples.n_tuples * per_tuple} answers in all",
    )
