"""The comparisons (A&G) a dataset is scored on (docs/methods.md section 6, Avraham & Goldberg
2016): read from ag-evaluation files, or made from rankings or per-rater ratings, written back in
the ag-evaluation format, and the A&G score of a model's similarities on them (its bootstrap CIs:
``simgold.stages.scores.comparison_scores``).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from simgold.errors import InputError
from simgold.io.readers import decode_text, resolve_path
from simgold.io.tables import TABLES

__all__ = [
    "COMPARISON_COLUMNS",
    "TYPES",
    "ag_score",
    "ag_score_parts",
    "from_rankings",
    "from_ratings",
    "read_ag_file",
    "write_ag_file",
]

COMPARISON_COLUMNS = TABLES["comparisons"].names  # the canonical schema's columns, in order
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
    """One ag-evaluation file; malformed lines are errors naming the file and line.

    Parameters
    ----------
    path : str
        The file.
    dataset : str
        The dataset's name.
    base_dir : str
        The directory relative paths are resolved from.

    Returns
    -------
    pd.DataFrame
        One row per comparison line (``COMPARISON_COLUMNS``): target, w1, w2, type (positive,
        distractor, random), ``r`` = p1, the set (file stem), the file and line.
    """
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
    """Every two positives of a target (``r`` from the raters who ranked both) and every positive
    against every distractor and random word (``r = 1``); per target, positives first, each sorted.

    Parameters
    ----------
    dataset : str
        The dataset's name.
    rankings : pd.DataFrame
        The rankings (``target``, ``candidate``, ``rater``, ``rank``, ``category``).

    Returns
    -------
    pd.DataFrame
        The comparisons table (``COMPARISON_COLUMNS``), ``r >= 0.5`` (pairs swapped where below);
        only graded pairs ranked by some rater kept, ``n`` the raters behind ``r``.
    """
    first = rankings.drop_duplicates(["target", "candidate"])  # a candidate's category: its first row
    first = first.assign(other=first["category"] != "positive")
    cands = first.sort_values(["target", "other", "candidate"], kind="stable").reset_index(drop=True)
    where = pd.MultiIndex.from_frame(cands[["target", "candidate"]])
    row = where.get_indexer(pd.MultiIndex.from_frame(rankings[["target", "candidate"]]))
    if pd.MultiIndex.from_arrays([row, rankings["rater"]]).has_duplicates:
        raise ValueError(f"{dataset}: a rater ranks a candidate of a target twice")
    M = _matrix(row, rankings["rater"], rankings["rank"], len(cands))
    sizes = cands.groupby("target", sort=False).size().to_numpy()
    positives = (~cands["other"]).groupby(cands["target"], sort=False).sum().to_numpy()
    ia, ib = _pairs_in_groups(sizes, positives)  # a positive, then every later candidate
    n, better = _preference(M, ia, ib, lambda x, y: (x < y).astype(float))  # rank 1 = most similar
    graded = ~cands["other"].to_numpy()[ib]
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(graded, better / n, 1.0)
    keep = ~graded | (n > 0)
    kind = np.where(graded, "positive", cands["category"].to_numpy()[ib])
    return _table(dataset, cands["target"], cands["candidate"], ia[keep], ib[keep], kind[keep], r[keep], n[keep])


def from_ratings(dataset: str, items: pd.DataFrame, ratings: pd.DataFrame) -> pd.DataFrame:
    """Comparisons between items that share a word, from the raters who rated both (a tie counts
    one half); per target word, its partners sorted by word, then item.

    Parameters
    ----------
    dataset : str
        The dataset's name.
    items : pd.DataFrame
        The items table (``item_id``, ``word1``, ``word2``, ...).
    ratings : pd.DataFrame
        The ratings (``item_id``, ``rater``, ``score``).

    Returns
    -------
    pd.DataFrame
        The comparisons table (``COMPARISON_COLUMNS``), all of type positive, ``r >= 0.5``; only
        pairs some rater rated both items of.
    """
    rated = ratings[ratings["score"].notna()].drop_duplicates(["item_id", "rater"])  # the first score
    item_index = pd.Index(rated["item_id"].unique())
    items = items[(item_index.get_indexer(items["item_id"]) >= 0) & (items["word1"] != items["word2"])]
    sides = pd.concat(
        [
            pd.DataFrame({"target": items["word1"], "partner": items["word2"], "item_id": items["item_id"]}),
            pd.DataFrame({"target": items["word2"], "partner": items["word1"], "item_id": items["item_id"]}),
        ]
    )
    sides = sides.sort_values(["target", "partner", "item_id"], kind="stable").reset_index(drop=True)
    M = _matrix(item_index.get_indexer(rated["item_id"]), rated["rater"], rated["score"], len(item_index))
    ia, ib = _pairs_in_groups(sides.groupby("target", sort=False).size().to_numpy())
    partner = sides["partner"].to_numpy()
    ia, ib = ia[partner[ia] != partner[ib]], ib[partner[ia] != partner[ib]]  # not the same pair listed twice
    at = item_index.get_indexer(sides["item_id"])
    n, better = _preference(M, at[ia], at[ib], lambda x, y: (x > y) + 0.5 * (x == y))
    keep = n > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        r = better / n
    kind = np.full(int(keep.sum()), "positive")
    return _table(dataset, sides["target"], sides["partner"], ia[keep], ib[keep], kind, r[keep], n[keep])


def _matrix(row: np.ndarray, rater: pd.Series, value: pd.Series, n_rows: int) -> np.ndarray:
    """Rows x raters values, NaN where a rater gave none."""
    codes, raters = pd.factorize(rater)
    M = np.full((n_rows, len(raters)), np.nan)
    M[row, codes] = value.to_numpy(float)
    return M


def _pairs_in_groups(sizes: np.ndarray, firsts: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Row positions (i, j), i < j, of every two rows of each group of consecutive rows, in order;
    with ``firsts``, only the pairs whose i is among the group's first ``firsts`` rows."""
    firsts = sizes if firsts is None else firsts
    start = np.repeat(np.cumsum(sizes) - sizes, firsts)  # one entry per row i that starts pairs
    i = start + _ranges(firsts)
    later = start + sizes.repeat(firsts) - i - 1  # rows after i in its group
    return np.repeat(i, later), np.repeat(i + 1, later) + _ranges(later)


def _ranges(counts: np.ndarray) -> np.ndarray:
    """0..c-1 for each count c, concatenated."""
    counts = np.asarray(counts, dtype=np.int64)
    return np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)


def _preference(M, ia, ib, better, chunk: int = 1 << 22) -> tuple[np.ndarray, np.ndarray]:
    """Per pair of rows: how many raters gave both a value, and the sum of ``better`` over them."""
    n, total = np.zeros(len(ia), np.int64), np.zeros(len(ia))
    step = max(1, chunk // max(M.shape[1], 1))
    for k in range(0, len(ia), step):
        x, y = M[ia[k : k + step]], M[ib[k : k + step]]
        both = ~np.isnan(x) & ~np.isnan(y)
        n[k : k + step] = both.sum(axis=1)
        total[k : k + step] = np.where(both, better(x, y), 0.0).sum(axis=1)
    return n, total


def _table(dataset, target, word, ia, ib, kind, r, n) -> pd.DataFrame:
    """Comparisons (target, word[ia], word[ib]) with ``r >= 0.5``: swapped where ``r < 0.5``; a tie
    then goes to the swapped pair's first word (docs/methods.md: a tie counts for the word written second
    when the comparison was made)."""
    target, word = np.asarray(target, dtype=object), np.asarray(word, dtype=object)
    swap = r < 0.5
    w1, w2 = np.where(swap, word[ib], word[ia]), np.where(swap, word[ia], word[ib])
    return pd.DataFrame(
        {
            "dataset": dataset,
            "target": target[ia],
            "w1": w1,
            "w2": w2,
            "type": kind,
            "r": np.where(swap, 1.0 - r, r),
            "n_raters": n,
            "tie_to_w1": swap,
            "set": "",
            "source_file": "",
            "source_row": None,
        },
        columns=list(COMPARISON_COLUMNS),
    )


def ag_score_parts(sim1: np.ndarray, sim2: np.ndarray, r: np.ndarray, tie_to_w1: np.ndarray) -> np.ndarray:
    """Per comparison ``s = delta (2r - 1)`` (NaN where a similarity is missing).

    Parameters
    ----------
    sim1 : np.ndarray
        The similarity of each target and w1.
    sim2 : np.ndarray
        The similarity of each target and w2.
    r : np.ndarray
        The share of raters preferring w1 over w2 (in ``[0, 1]``).
    tie_to_w1 : np.ndarray
        Whether a tie counts for w1.

    Returns
    -------
    np.ndarray
        Float array, one ``s`` per comparison in ``[-1, 1]``: positive where the model sides with
        the raters; NaN where ``sim1`` or ``sim2`` is.
    """
    delta = np.where(sim1 > sim2, 1.0, np.where(sim1 < sim2, -1.0, np.where(tie_to_w1, 1.0, -1.0)))
    s = delta * (2.0 * r - 1.0)
    return np.where(np.isnan(sim1) | np.isnan(sim2), np.nan, s)


def ag_score(s: np.ndarray) -> float:
    """The A&G score: the positive parts' share of the absolute parts, over the comparisons scored.

    Parameters
    ----------
    s : numpy.ndarray
        The per-comparison parts ``delta (2r - 1)`` (``ag_score_parts``), NaN where not scored.

    Returns
    -------
    float
        The score; NaN without a part of any weight.

    Examples
    --------
    >>> ag_score(np.array([1.0, -0.5, np.nan]))
    0.6666666666666666
    """
    s = s[~np.isnan(s)]
    weight = np.abs(s).sum()
    return float(np.maximum(s, 0).sum() / weight) if weight > 0 else float("nan")


def write_ag_file(comparisons: pd.DataFrame, path) -> None:
    """Write comparisons in the ag-evaluation text format (the reference script reads it).

    Probabilities are printed with two decimals, as in the published files. A comparison whose tie
    goes to ``w1`` (read from a file that put the preferred word second) is written in that order
    again, so that the reference rule scores it as before.

    Parameters
    ----------
    comparisons : pd.DataFrame
        The comparisons (``target``, ``w1``, ``w2``, ``type``, ``r``, ``tie_to_w1``).
    path : object
        The file.
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
