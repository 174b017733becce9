"""Comparisons (METHODS.md section 6, Avraham & Goldberg 2016) and the A&G score.

A comparison says, for a target word, how strongly people prefer ``w1`` over ``w2``: ``r`` is the
share preferring ``w1`` (stored with ``r >= 0.5``; the pair is swapped otherwise). ``type`` is
``positive`` (graded), ``distractor`` or ``random`` (a positive against a distractor or a random
word, r = 1).

* From rankings: every two positives of a target, ``r`` = share of the raters who ranked both that
  put ``w1`` higher; every positive against every distractor and random word, ``r = 1``.
* From per-rater ratings: items sharing a word form target groups; for items ``(t, a)`` and
  ``(t, b)``, ``r`` = share of the raters who rated both that gave ``(t, a)`` the higher score, ties
  counting one half.
* From ``ag-evaluation`` files: blocks of a target line, ``w1,p1,w2,p2`` lines and the section
  markers ``distractors`` / ``randoms`` (lines before a marker are positives). Blocks are separated
  by a blank line, or simply by the next target line (a line with no comma that is not a marker).

Score: ``delta = +1`` when the model's ``sim(t, w1) > sim(t, w2)``, ``-1`` when it is lower; a tie
goes to the second word *as the comparison was written* (the reference script's rule): the
comparisons made here are written preferred word first, so a tie counts -1, as the paper's
"otherwise"; a comparison read from a file whose first word was the less preferred one keeps the
tie for the word the file put second (``tie_to_w1``). ``s = delta (2r - 1)``; the score is
``sum(max(s, 0)) / sum(|s|)``. Comparisons with an OOV word are not scored and are counted.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd

from .errors import InputError
from .readers import decode_text, resolve_path
from .tables import TABLES

COMPARISON_COLUMNS = tuple(TABLES["comparisons"][0])  # the canonical schema's columns, in order
TYPES = ("positive", "distractor", "random")
_MARKERS = {"distractors": "distractor", "randoms": "random", "positives": "positive"}


def _row(dataset, target, a, b, kind, r, n, tie_to_first, set_name="", file="", line=None) -> dict:
    """A comparison with ``r >= 0.5``: swapped when ``a`` is the less preferred word."""
    if r < 0.5:
        a, b, r, tie_to_first = b, a, 1.0 - r, not tie_to_first
    return {
        "dataset": dataset,
        "target": target,
        "w1": a,
        "w2": b,
        "type": kind,
        "r": float(r),
        "n_raters": n,
        "tie_to_w1": bool(tie_to_first),
        "set": set_name,
        "source_file": file,
        "source_row": line,
    }


def read_ag_file(path: str, dataset: str, base_dir: str = ".") -> pd.DataFrame:
    """One ag-evaluation file; malformed lines are errors naming the file and line."""
    real = resolve_path(path, base_dir)
    if not real.is_file():
        raise InputError(path, "file not found")
    text = decode_text(real.read_bytes(), path, "utf-8")
    set_name = Path(path).stem
    rows, target, kind = [], None, "positive"
    for n, line in enumerate(re.split(r"\r\n|\r|\n", text), start=1):
        line = line.strip()
        if not line:
            target, kind = None, "positive"  # a blank line ends a block
            continue
        if "," not in line:
            if line in _MARKERS:
                if target is None:
                    raise InputError(path, f"section marker {line!r} before a target line", row=n)
                kind = _MARKERS[line]
            else:  # a new target; inflected/vb_inf.txt starts blocks without the blank line
                target, kind = line, "positive"
            continue
        if target is None:
            raise InputError(path, "a comparison before any target line", row=n, value=line)
        parts = [p.strip() for p in line.split(",")]
        if len(parts) != 4:
            raise InputError(path, f"{len(parts)} fields", row=n, value=line, expected="w1,p1,w2,p2")
        try:
            p1, p2 = float(parts[1]), float(parts[3])
        except ValueError:
            raise InputError(path, "a probability is not a number", row=n, value=line) from None
        if not (0 <= p1 <= 1 and 0 <= p2 <= 1) or abs(p1 + p2 - 1) > 0.011:
            raise InputError(
                path, f"p1 + p2 = {p1 + p2:g}", row=n, value=line, expected="two probabilities summing to 1"
            )
        # in the file's order a tie goes to the second word (w2 as written)
        rows.append(_row(dataset, target, parts[0], parts[2], kind, p1, None, False, set_name, path, n))
    return pd.DataFrame(rows, columns=list(COMPARISON_COLUMNS))


def from_rankings(dataset: str, rankings: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for target, group in rankings.groupby("target", sort=True):
        wide = group.pivot(index="rater", columns="candidate", values="rank")
        category = group.drop_duplicates("candidate").set_index("candidate")["category"]
        positives = sorted(c for c in wide.columns if category[c] == "positive")
        others = sorted(c for c in wide.columns if category[c] != "positive")
        for i, a in enumerate(positives):
            for b in positives[i + 1 :]:
                both = wide[[a, b]].dropna()
                if len(both):
                    r = float((both[a] < both[b]).mean())  # rank 1 = most similar
                    rows.append(_row(dataset, target, a, b, "positive", r, len(both), False))
            for c in others:
                rows.append(_row(dataset, target, a, c, category[c], 1.0, int(wide[[a, c]].dropna().shape[0]), False))
    return pd.DataFrame(rows, columns=list(COMPARISON_COLUMNS))


def from_ratings(dataset: str, items: pd.DataFrame, ratings: pd.DataFrame) -> pd.DataFrame:
    """Comparisons between items that share a word, from the raters who rated both."""
    scores = ratings.pivot_table(index="item_id", columns="rater", values="score", aggfunc="first")
    by_word: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for it in items.itertuples(index=False):
        if it.item_id not in scores.index or it.word1 == it.word2:
            continue
        by_word[it.word1].append((it.word2, it.item_id))
        by_word[it.word2].append((it.word1, it.item_id))
    rows = []
    for target in sorted(by_word):
        partners = sorted(by_word[target])
        for i, (a, ia) in enumerate(partners):
            for b, ib in partners[i + 1 :]:
                if a == b:
                    continue  # the same pair listed twice
                x, y = scores.loc[ia], scores.loc[ib]
                both = x.notna() & y.notna()
                n = int(both.sum())
                if n == 0:
                    continue
                r = float(((x[both] > y[both]) + 0.5 * (x[both] == y[both])).mean())
                rows.append(_row(dataset, target, a, b, "positive", r, n, False))
    return pd.DataFrame(rows, columns=list(COMPARISON_COLUMNS))


def ag_score_parts(sim1: np.ndarray, sim2: np.ndarray, r: np.ndarray, tie_to_w1: np.ndarray) -> np.ndarray:
    """Per comparison ``s = delta (2r - 1)`` (NaN where a similarity is missing)."""
    delta = np.where(sim1 > sim2, 1.0, np.where(sim1 < sim2, -1.0, np.where(tie_to_w1, 1.0, -1.0)))
    s = delta * (2.0 * r - 1.0)
    return np.where(np.isnan(sim1) | np.isnan(sim2), np.nan, s)


def ag_score(s: np.ndarray) -> float:
    s = s[~np.isnan(s)]
    weight = np.abs(s).sum()
    return float(np.maximum(s, 0).sum() / weight) if weight > 0 else float("nan")


def write_ag_file(comparisons: pd.DataFrame, path) -> None:
    """Write comparisons in the ag-evaluation text format (the reference script reads it).

    Probabilities are printed with two decimals, as in the published files. A comparison whose tie
    goes to ``w1`` (read from a file that put the preferred word second) is written in that order
    again, so that the reference rule scores it as before.
    """
    lines = []
    for target, group in comparisons.groupby("target", sort=True):
        lines.append(target)
        for kind, marker in (("positive", None), ("distractor", "distractors"), ("random", "randoms")):
            rows = group[group["type"] == kind]
            if rows.empty:
                continue
            if marker:
                lines.append(marker)
            for r in rows.itertuples(index=False):
                if r.tie_to_w1:
                    lines.append(f"{r.w2},{1 - r.r:.2f},{r.w1},{r.r:.2f}")
                else:
                    lines.append(f"{r.w1},{r.r:.2f},{r.w2},{1 - r.r:.2f}")
        lines.append("")
    Path(path).write_text("\n".join(lines), encoding="utf-8")
