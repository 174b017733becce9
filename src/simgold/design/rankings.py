"""Avraham & Goldberg's ranking groups (``simgold design rankings``): each target word with its
positives, its distractors and random words drawn from a vocabulary; raters rank the positives only.

As in the paper (Avraham & Goldberg 2016, section 3), the distractors and the random words are not
part of the annotation task: they are added to the bottom of every ranking, so that the comparisons
stage makes every positive > distractor (and > random) with ``r = 1``. The reader of
``kind: rankings`` wants, per rater and target, the ranks 1..m over all m candidates of the target
(a blank rank is missing, and a group whose ranks are not 1..m is rejected whole), so a rank cell
left blank cannot say "not shown". The design therefore writes two kinds of files:

* ``sheets/r01.xlsx`` (and ``.csv``), one per rater: the rater's targets in a random order, each
  with its positives in a random order and a ``rank`` cell to fill (1..p over the target's p
  positives); no distractor and no random word appears;
* ``implied_ranks.csv``, one for the design (long layout: target, candidate, category, rater,
  rank): for every rater and every target assigned to them, the target's distractors at ranks
  p+1.. and its random words below them, the places the paper gives them.

The dataset entry reads the returned sheets (wide layout, the ``rank`` column named as the rater by
``rater_names``) and the implied file (long layout) as sources of one dataset: per rater and target
the ranks are then 1..m, and the rankings table holds the distractors and random words with their
categories.

Examples
--------
>>> rows = [("car", "truck", "positive"), ("car", "bus", "positive"), ("car", "road", "distractor"),
...         ("dog", "wolf", "positive"), ("dog", "fox", "positive"), ("dog", "bone", "distractor")]
>>> design = design_rankings(rows, ["sky", "pen", "cup"], name="toy", language="en", n_raters=2,
...                          raters_per_group=1, seed=1, raw_dir="raw/toy")
>>> sorted(design.files)
['implied_ranks.csv', 'sheets/r01.csv', 'sheets/r01.xlsx', 'sheets/r02.csv', 'sheets/r02.xlsx']
>>> design.groups["category"].value_counts().to_dict()
{'positive': 4, 'distractor': 2, 'random': 2}
>>> [src["path"] for src in design.dataset["sources"]]
['raw/toy/r01.xlsx', 'raw/toy/r02.xlsx', 'raw/toy/implied_ranks.csv']
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

import numpy as np
import pandas as pd

from simgold.design.sheets import AnswerRule, Questionnaire, csv_text, fill_instructions, rater_names, xlsx_bytes
from simgold.io.cells import normalise_word
from simgold.io.languages import ISO_639_1
from simgold.stats.rating_design import RaterAssignment, assign_raters
from simgold.stats.seeds import seed_for

__all__ = ["DEFAULT_INSTRUCTIONS", "IMPLIED_FILE", "SHEET_NAME", "RankingDesign", "design_rankings"]

#: the questions' sheet of every workbook (the dataset entry names it)
SHEET_NAME = "rankings"
#: the file of the implied ranks (distractors and random words at the bottom of each ranking)
IMPLIED_FILE = "implied_ranks.csv"
#: what a rater reads first; fields: rater, n_targets, n_questions, max_rank, answer
DEFAULT_INSTRUCTIONS = (
    "Rater {rater}: thank you for taking part.\n"
    "The sheet 'rankings' lists {n_targets} target words, each with a few words that are similar to it"
    " ({n_questions} rows in all).\n"
    "For each target word, rank its words by how similar each one is to the target: write 1 beside the"
    " most similar, 2 beside the next, and so on, up to the number of words listed for that target."
    " Use each number once per target; no ties.\n"
    "A rank is {answer} (no target has more than {max_rank} words).\n"
    "Please do not add, delete, move or rename rows, columns or sheets."
)
_HEADER = ("target", "candidate", "rank")
_IMPLIED_HEADER = ("target", "candidate", "category", "rater", "rank")
_GIVEN = ("positive", "distractor")
_ORDER = {"positive": 0, "distractor": 1, "random": 2}


@dataclass(frozen=True)
class RankingDesign:
    """A ranking collection designed (``design_rankings``).

    Attributes
    ----------
    groups : pandas.DataFrame
        Every candidate: ``target``, ``candidate``, ``category`` (positive, distractor, random) and
        ``shown`` (whether raters see it for ranking: the positives); targets in the order given,
        each with its positives, distractors, then random words.
    assignment : simgold.stats.rating_design.RaterAssignment
        Which raters rank which target groups (the groups are its items, in the order of ``groups``).
    files : dict of str to bytes
        Relative path -> content: ``sheets/r01.xlsx``, ``sheets/r01.csv``, ... and ``implied_ranks.csv``.
    table : pandas.DataFrame
        The design: ``rater``, ``position`` (from 1), ``target``, ``candidate``, ``category``,
        ``role`` (``item``), one row per rank a rater fills in, sorted by rater and position.
    dataset : dict
        The config's dataset entry (``kind: rankings``) that reads the returned files as they are.
    summary : tuple of str
        The design in a few lines.
    """

    groups: pd.DataFrame
    assignment: RaterAssignment
    files: dict
    table: pd.DataFrame
    dataset: dict
    summary: tuple


def design_rankings(
    groups,
    vocabulary,
    *,
    name: str,
    language: str,
    n_random: int = 1,
    n_raters: int,
    raters_per_group: int,
    seed: int,
    formats=("xlsx", "csv"),
    raw_dir: str,
    instructions: str | None = None,
    first_row: int = 1,
) -> RankingDesign:
    """Avraham & Goldberg's ranking groups: random words drawn per target, groups assigned to
    raters, one questionnaire per rater (its positives to rank) and the dataset entry that reads them.

    Parameters
    ----------
    groups : sequence of (target, candidate, category)
        The candidates of every target, ``category`` positive or distractor (any case).
    vocabulary : sequence of str
        The words random words are drawn from (duplicates count once).
    name : str
        The dataset's name (in the summary and the entry's description).
    language : str
        The dataset's ISO 639-1 code.
    n_random : int, default 1
        Random words per target (never the target, one of its candidates or the same word twice).
    n_raters : int
        R, the raters.
    raters_per_group : int
        K, the raters who rank each target group.
    seed : int
        The seed of the random words, the assignment and every rater's order.
    formats : tuple of {"xlsx", "csv"}, default ("xlsx", "csv")
        The questionnaire files written; the dataset entry reads the XLSX ones when written, else the CSV.
    raw_dir : str
        The folder the returned files go to (the entry's paths are ``{raw_dir}/r01.xlsx``, ...,
        ``{raw_dir}/implied_ranks.csv``).
    instructions : str, optional
        The instructions template (``DEFAULT_INSTRUCTIONS``; fields as there).
    first_row : int, default 1
        The file row of ``groups[0]`` (2 under a header line), for the rows errors name.

    Returns
    -------
    RankingDesign

    Raises
    ------
    ValueError
        A target without a positive, a candidate listed twice for a target, a category other than
        positive or distractor, a candidate equal to its target, an empty word (each naming the row
        and value); a vocabulary too small for a target (naming how many words it needs); an
        unknown format or language; the counts ``simgold.stats.rating_design.assign_raters`` refuses.

    Examples
    --------
    >>> rows = [("cat", "lion", "positive"), ("cat", "tiger", "positive"), ("cat", "milk", "distractor")]
    >>> d = design_rankings(rows, ["cloud", "spoon"], name="x", language="en", n_raters=3,
    ...                     raters_per_group=2, seed=0, raw_dir="raw/x", formats=("csv",))
    >>> d.groups.values.tolist()[2:]
    [['cat', 'milk', 'distractor', False], ['cat', 'cloud', 'random', False]]
    >>> print(d.files["implied_ranks.csv"].decode(), end="")  # the two raters of cat's group
    target,candidate,category,rater,rank
    cat,milk,distractor,r01,3
    cat,cloud,random,r01,4
    cat,milk,distractor,r03,3
    cat,cloud,random,r03,4
    """
    formats = _check_formats(formats, language)
    frame = _draw_randoms(_read_groups(groups, first_row), vocabulary, n_random, seed)
    targets = list(dict.fromkeys(frame["target"]))
    assignment = assign_raters(len(targets), n_raters, raters_per_group, seed_for(seed, "rankings", "assignment"))
    ids = rater_names(n_raters)
    table = _design_table(frame, targets, assignment, ids, seed)
    template = DEFAULT_INSTRUCTIONS if instructions is None else instructions
    files = _sheets(table, frame, ids, template, formats)
    files[IMPLIED_FILE] = _implied_csv(frame, targets, assignment, ids).encode()
    ext = "xlsx" if "xlsx" in formats else "csv"
    dataset = _dataset_entry(name, language, ids, raw_dir, ext)
    summary = _summary(name, frame, assignment, raters_per_group, table, raw_dir)
    return RankingDesign(frame, assignment, files, table, dataset, summary)


def _check_formats(formats, language: str) -> tuple:
    formats = tuple(formats)
    unknown = [f for f in formats if f not in ("xlsx", "csv")]
    if unknown or not formats:
        raise ValueError(f"formats {formats!r}: expected one or both of 'xlsx', 'csv'")
    if language not in ISO_639_1:
        raise ValueError(f"language {language!r}: expected an ISO 639-1 code such as 'en' or 'he'")
    return formats


def _read_groups(groups, first_row: int) -> pd.DataFrame:
    """The rows checked: words normalised as the reader keeps them, categories known, no candidate
    twice for its target, none equal to it, every target with a positive. A blank row is skipped
    and counted, so that the rows named are the file's."""
    rows, seen, at = [], {}, []
    for k, row in enumerate(groups):
        if not any(str(cell).strip() for cell in row):
            continue
        where = f"groups row {first_row + k}"
        if len(row) != 3:
            raise ValueError(f"{where}: {tuple(row)!r} has {len(row)} fields; expected target, candidate, category")
        target, candidate = (normalise_word(w, "NFC", False) for w in row[:2])
        category = normalise_word(row[2], "NFC", True)
        if not target or not candidate:
            raise ValueError(f"{where}: {tuple(row)!r} has an empty word")
        if category not in _GIVEN:
            raise ValueError(f"{where}: category {row[2]!r}; expected positive or distractor")
        if candidate == target:
            raise ValueError(f"{where}: candidate {candidate!r} is its target")
        if (target, candidate) in seen:
            raise ValueError(
                f"{where}: candidate {candidate!r} of target {target!r} is listed twice (also {seen[target, candidate]})"
            )
        seen[target, candidate] = where
        rows.append((target, candidate, category))
        at.append(first_row + k)
    frame = pd.DataFrame(rows, columns=["target", "candidate", "category"])
    has_positive = frame["category"].eq("positive").groupby(frame["target"], sort=False).any()
    for target in has_positive.index[~has_positive.to_numpy()]:
        k = int(np.flatnonzero(frame["target"].to_numpy() == target)[0])
        raise ValueError(f"groups row {at[k]}: target {target!r} has no positive; raters rank the positives")
    if frame.empty:
        raise ValueError("groups: no rows; expected (target, candidate, category) rows")
    return frame


def _draw_randoms(frame: pd.DataFrame, vocabulary, n_random: int, seed: int) -> pd.DataFrame:
    """Each target's random words, drawn without replacement from the vocabulary words that are
    neither the target nor one of its candidates (a stream of its own per target)."""
    if isinstance(n_random, bool) or not isinstance(n_random, (int, np.integer)) or n_random < 0:
        raise ValueError(f"n_random must be a whole number >= 0, not {n_random!r}")
    words = list(dict.fromkeys(w for w in (normalise_word(v, "NFC", False) for v in vocabulary) if w))
    parts = []
    for target, group in frame.groupby("target", sort=False):
        used = {target, *group["candidate"]}
        pool = [w for w in words if w not in used]
        if len(pool) < n_random:
            raise ValueError(
                f"vocabulary: {len(pool)} words can be random words for target {target!r} (not the target or"
                f" one of its {len(group)} candidates); n_random needs {n_random}"
            )
        rng = np.random.default_rng(seed_for(seed, "rankings", "random", target))
        drawn = [pool[i] for i in rng.choice(len(pool), size=n_random, replace=False)] if n_random else []
        randoms = pd.DataFrame({"target": target, "candidate": drawn, "category": "random"})
        parts.append(pd.concat([group, randoms]) if drawn else group)
    out = pd.concat(parts, ignore_index=True)
    out = out.iloc[np.lexsort((out["category"].map(_ORDER), out["target"].map(_first_index(out))))]
    out = out.reset_index(drop=True)
    return out.assign(shown=out["category"].eq("positive"))


def _first_index(frame: pd.DataFrame) -> dict:
    return {t: k for k, t in enumerate(dict.fromkeys(frame["target"]))}


def _design_table(frame, targets, assignment: RaterAssignment, ids, seed: int) -> pd.DataFrame:
    """Per rater: the assigned targets in a random order, each target's positives in a random order."""
    positives = frame[frame["shown"]].groupby("target", sort=False)["candidate"].apply(list).to_dict()
    rows = []
    for r, items in enumerate(assignment.rater_items):
        rng = np.random.default_rng(seed_for(seed, "rankings", "order", ids[r]))
        position = 0
        for i in rng.permutation(np.asarray(items, dtype=np.int64)):
            target = targets[int(i)]
            for j in rng.permutation(len(positives[target])):
                position += 1
                rows.append((ids[r], position, target, positives[target][int(j)], "positive", "item"))
    return pd.DataFrame(rows, columns=["rater", "position", "target", "candidate", "category", "role"])


def _sheets(table: pd.DataFrame, frame: pd.DataFrame, ids, template: str, formats: tuple) -> dict:
    """Each rater's questionnaire: target, candidate and a rank cell (whole numbers 1..the largest
    number of positives among the rater's targets)."""
    n_pos = frame[frame["shown"]].groupby("target").size()
    files = {}
    for rater in ids:
        mine = table[table["rater"] == rater]
        top = int(n_pos[mine["target"].unique()].max()) if len(mine) else 1
        rule = AnswerRule.whole_numbers(1, top)
        rows = tuple((t, c, None) for t, c in zip(mine["target"], mine["candidate"]))
        sheet = Questionnaire(rater, _HEADER, rows, ("rank",), rule)
        fields = {
            "rater": rater,
            "n_targets": mine["target"].nunique(),
            "n_questions": len(mine),
            "max_rank": top,
            "answer": rule.text,
        }
        if "xlsx" in formats:
            files[f"sheets/{rater}.xlsx"] = xlsx_bytes(sheet, fill_instructions(template, fields), SHEET_NAME)
        if "csv" in formats:
            files[f"sheets/{rater}.csv"] = csv_text(sheet).encode()
    return files


def _implied_csv(frame: pd.DataFrame, targets, assignment: RaterAssignment, ids) -> str:
    """The distractors then the random words of every (rater, target), ranked below the positives."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(_IMPLIED_HEADER)
    by_target = {t: g for t, g in frame.groupby("target", sort=False)}
    for r, items in enumerate(assignment.rater_items):
        for i in sorted(int(i) for i in items):
            group = by_target[targets[i]]
            below = group[~group["shown"]]
            first = int(group["shown"].sum()) + 1
            for k, (candidate, category) in enumerate(zip(below["candidate"], below["category"])):
                writer.writerow((targets[i], candidate, category, ids[r], first + k))
    return out.getvalue()


def _dataset_entry(name: str, language: str, ids, raw_dir: str, ext: str) -> dict:
    """The sources: each rater's returned sheet (its rank column is the rater), then the implied ranks."""
    base = raw_dir.rstrip("/")
    sources = []
    for rater in ids:
        src = {"path": f"{base}/{rater}.{ext}"}
        if ext == "xlsx":
            src["sheet"] = SHEET_NAME
        src.update({"target": "target", "candidate": "candidate", "raters": ["rank"], "rater_names": {"rank": rater}})
        sources.append(src)
    sources.append(
        {
            "path": f"{base}/{IMPLIED_FILE}",
            "layout": "long",
            "target": "target",
            "candidate": "candidate",
            "category": "category",
            "rater": "rater",
            "score": "rank",
        }
    )
    description = f"{name}: target groups ranked by raters (Avraham & Goldberg's design, simgold design rankings)"
    return {"description": description, "language": language, "kind": "rankings", "sources": sources}


def _summary(name, frame, assignment: RaterAssignment, k: int, table, raw_dir: str) -> tuple:
    counts = frame["category"].value_counts()
    n_targets = frame["target"].nunique()
    loads = assignment.loads
    return (
        f"{name}: {n_targets} target groups: {counts.get('positive', 0)} positives to rank, "
        f"{counts.get('distractor', 0)} distractors and {counts.get('random', 0)} random words below them",
        f"{len(loads)} raters, each group ranked by {k}: {int(loads.min())} to {int(loads.max())} groups per rater, "
        f"{len(table)} ranks to fill in",
        f"pairs of raters share {assignment.overlap_min} to {assignment.overlap_max} groups; {assignment.balance_note}",
        f"put the returned sheets and {IMPLIED_FILE} (the distractors' and random words' places at the bottom of "
        f"every ranking, never shown to raters) in {raw_dir.rstrip('/')}/",
    )
