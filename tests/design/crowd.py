"""A simulated crowd that fills in the very questionnaires ``simgold design`` wrote (through openpyxl,
as a rater's spreadsheet program would): known true values, each rater's bias and noise, and the
careless raters a real study meets."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import openpyxl

#: what a simulated rater does
BEHAVIOURS = ("good", "inattentive", "stops", "random")


@dataclass
class Filled:
    """What the crowd wrote, counted from the sheets themselves."""

    blanks: dict = field(default_factory=dict)  # rater -> rating cells left empty
    answers: dict = field(default_factory=dict)  # rater -> rating cells filled in
    repeats_answered: dict = field(default_factory=dict)  # rater -> pairs answered twice


def true_values(pairs: list[tuple[str, str]], scale: tuple[float, float], seed: int) -> dict:
    """Each pair's true similarity, uniform over the scale's inner range."""
    rng = np.random.default_rng(seed)
    lo, hi = scale
    margin = (hi - lo) / 12
    return {frozenset(p): float(v) for p, v in zip(pairs, rng.uniform(lo + margin, hi - margin, len(pairs)))}


def fill_sheets(
    sheets: Path,
    out: Path,
    truth: dict,
    expect: dict,
    behaviour: dict,
    scale: tuple[float, float],
    noise_sd: float,
    seed: int,
    bias_sd: float = 0.3,
) -> Filled:
    """Fill every ``sheets/r*.xlsx`` and save it under ``out`` (the returned files)."""
    rng = np.random.default_rng(seed)
    filled = Filled()
    out.mkdir(parents=True, exist_ok=True)
    for path in sorted(sheets.glob("r*.xlsx")):
        rater = path.stem
        book = openpyxl.load_workbook(path)
        rows = list(book["ratings"].iter_rows(min_row=2))
        bias = rng.normal(0.0, bias_sd)
        seen, blanks, answers, twice = set(), 0, 0, 0
        for n, row in enumerate(rows):
            key = frozenset((row[1].value, row[2].value))
            value = _answer(behaviour[rater], key, truth, expect, scale, bias, noise_sd, rng, n / len(rows))
            row[3].value = value
            blanks += value is None
            answers += value is not None
            twice += key in seen and value is not None and key in truth
            seen.add(key)
        filled.blanks[rater], filled.answers[rater], filled.repeats_answered[rater] = blanks, answers, twice
        book.save(out / path.name)
    return filled


def _answer(kind, key, truth, expect, scale, bias, noise_sd, rng, progress):
    lo, hi = scale
    if kind == "stops" and progress >= 0.5:
        return None
    if key in expect:  # an attention check
        if kind == "inattentive":
            return hi if expect[key] < (lo + hi) / 2 else lo
        return expect[key]
    if kind == "random":
        return int(rng.integers(lo, hi + 1))
    return int(np.clip(np.rint(truth[key] + bias + rng.normal(0.0, noise_sd)), lo, hi))


def label_studio_export(table, truth: dict, random_raters: set, noise_sd: float, seed: int, separator: str = ":"):
    """Label Studio's JSON-MIN export (the fields of tests/design/fixtures/label_studio_export.json)
    of a crowd answering a BWS design's tuples: each answer's best and worst are the positions of
    the highest and lowest of the items' true values plus the answer's own noise; a random rater's
    are two positions at random."""
    rng = np.random.default_rng(seed)
    items = sorted(c for c in table.columns if c.startswith("item"))
    tasks = {t: k + 1 for k, t in enumerate(sorted(set(table["tuple"])))}  # Label Studio numbers tasks itself
    records = []
    for n, row in enumerate(table.itertuples(index=False), start=1):
        shown = [getattr(row, c) for c in items]
        if row.rater in random_raters:
            best, worst = rng.choice(len(shown), 2, replace=False)
        else:
            value = [truth[frozenset(p.split(separator))] + rng.normal(0.0, noise_sd) for p in shown]
            best, worst = int(np.argmax(value)), int(np.argmin(value))
        records.append(
            {**dict(zip(items, shown)), "tuple": row.tuple, "id": tasks[row.tuple], "best": str(best + 1)}
            | {"worst": str(worst + 1), "annotator": int(row.rater[1:]), "annotation_id": n}
            | {"created_at": "2026-11-28T10:33:01.716211Z", "updated_at": "2026-11-28T10:33:01.716237Z"}
            | {"lead_time": None}
        )
    return records
