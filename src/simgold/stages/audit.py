"""Dataset audit (docs/methods.md section 11): what the data say against what was released with them.

Reads the cleaning outputs (``items``, ``ratings``, ``means``, ``rejects`` as made by
``simgold.stages.clean.clean_dataset``) and the dataset's config; returns one row per finding with the
columns of ``results/audit/{dataset}.parquet``: dataset, check, item_id, rater, source_file,
source_row, column, raw_value, detail. Checks:

* ``released_mean``: the released mean of an item against the mean of its ratings; a finding when
  they differ by more than half the scale's unit step (``unit_step``, default one point), or by
  more than 1e-6 where the released values are written at full precision (more than 6 decimals:
  they should be exact);
* ``spreadsheet_date``: a score cell that a spreadsheet turned into a date (``1.elo``, ``3-Mar``,
  a date-typed cell): the cleaning ledger's ``non_numeric`` cells that match
  ``simgold.io.cells.DATE_LIKE`` or that were date cells;
* ``text_number``: a score cell holding a number written as text (a leading apostrophe, quotes,
  spaces inside, a decimal comma where the file uses points);
* ``duplicate_pair`` / ``reversed_pair``: a word pair listed again in the same order, or in the
  other order (items with ``occurrence`` > 1, and the ledger's duplicate cells);
* ``shifted_row``: a row whose values (every rating, or mean and SD) repeat the next row's of the
  same file (two values at least, not all equal, and a combination found in no other row: unanimous
  rows and common patterns repeat by agreement); and, for a translated dataset that carries its source's scores
  (nearly all linked scores equal the source's), a row whose score differs from its own source
  item's and equals the next source row's;
* ``single_rating``: an item with one rating;
* ``rater_mean``: a rater whose mean differs from the dataset mean by more than the calibration
  threshold; on a two-context dataset, from the mean of the context(s) the rater rated (each
  context has its own raters, and the contexts' means differ by design).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from simgold.io.cells import DATE_LIKE
from simgold.io.tables import AUDIT_CHECKS as CHECKS

__all__ = ["AUDIT_COLUMNS", "COPIED_SHARE", "EXACT_DECIMALS", "audit_configured", "audit_dataset"]

AUDIT_COLUMNS = ["dataset", "check", "item_id", "rater", "source_file", "source_row", "column", "raw_value", "detail"]
EXACT_DECIMALS = 6  # released values with more decimals than this are taken to be exact
COPIED_SHARE = 0.9  # a translation whose linked scores equal the source's this often carries them
_NUMBER = re.compile(r"[+-]?(?:\d+(?:[.,]\d*)?|[.,]\d+)(?:[eE][+-]?\d+)?", re.ASCII)  # as cleaning reads numbers
_TEXT_WRAP = "'\"`\u2018\u2019\u201c\u201d \u00a0\t"


def audit_dataset(
    name: str, spec: dict, tables: dict, *, threshold: float = 1.0, unit_step: float = 1.0, source: dict | None = None
) -> pd.DataFrame:
    """Every finding of every check for one dataset, sorted by check, file, row and column.

    Parameters
    ----------
    name : str
        The dataset's name.
    spec : dict
        Its config entry (``scale``, ``sources``, ``persistent_raters``, ``translation``).
    tables : dict of DataFrame
        ``items``, ``ratings``, ``means``, ``rejects`` from the cleaning stage.
    threshold : float
        The calibration threshold (a rater mean this far from the dataset mean is listed).
    unit_step : float
        The scale's unit step: released means further than half of it from the recomputed mean
        are listed.
    source : dict of DataFrame, optional
        ``items`` and ``means`` of the dataset this one translates, for the shifted-row check
        against the source.

    Returns
    -------
    pandas.DataFrame
        One row per finding, in ``AUDIT_COLUMNS``; empty when the dataset has nothing to report.

    Examples
    --------
    >>> import pandas as pd
    >>> items = pd.DataFrame({"item_id": ["a:1", "a:2"], "word1": ["cat", "dog"], "word2": ["dog", "cat"],
    ...                       "context": [None, None], "occurrence": [1, 2], "source_file": "f", "source_row": [2, 3]})
    >>> empty = {"ratings": pd.DataFrame(columns=["item_id", "rater", "score", "source_file", "source_row"]),
    ...          "means": pd.DataFrame(columns=["item_id", "mean", "sd", "n", "source_file", "source_row"]),
    ...          "rejects": pd.DataFrame(columns=["source_file", "source_row", "column", "raw_value", "reason", "detail"])}
    >>> audit_dataset("a", {"scale": [0, 10], "sources": [{}]}, {"items": items, **empty})[["check", "item_id"]].values.tolist()
    [['reversed_pair', 'a:2']]
    """
    parts = [
        _released_means(name, spec, tables, unit_step),
        _damaged_cells(name, tables["rejects"], tables["items"]),
        _repeated_pairs(name, tables["items"], tables["rejects"]),
        _shifted_rows(name, tables),
        _single_ratings(name, tables),
    ]
    if spec.get("persistent_raters", True):
        parts.append(_rater_means(name, tables["ratings"], threshold, tables["items"]))
    if source is not None:
        parts.append(_shifted_from_source(name, spec, tables, source))
    out = pd.concat([p for p in parts if len(p)], ignore_index=True) if any(len(p) for p in parts) else _empty()
    out["order"] = out["check"].map({c: k for k, c in enumerate(CHECKS)})
    out = out.sort_values(
        ["order", "source_file", "source_row", "column", "item_id", "rater"], kind="stable", na_position="first"
    )
    out = out[AUDIT_COLUMNS].reset_index(drop=True)
    out["source_row"] = out["source_row"].astype("Int64")
    for column in ("item_id", "rater", "source_file", "column", "raw_value", "detail"):  # text or null
        out[column] = pd.Series([None if pd.isna(v) else str(v) for v in out[column]], dtype=object)
    return out


def audit_configured(name: str, spec: dict, tables: dict, source: dict | None = None) -> pd.DataFrame:
    """The audit of a dataset as its resolved config entry (``simgold.io.config.resolve_dataset``) sets
    it: the rater-mean threshold is its calibration ``threshold``, the released-mean tolerance half
    its calibration ``step`` (the scale's unit step); ``source``: the cleaned ``items`` and ``means``
    of the dataset it translates, when its translation names ``source_words``.

    Parameters
    ----------
    name : str
        The dataset's name.
    spec : dict
        Its resolved config entry (with ``calibration``'s ``threshold`` and ``step``).
    tables : dict of DataFrame
        ``items``, ``ratings``, ``means``, ``rejects`` from the cleaning stage.
    source : dict of DataFrame, optional
        ``items`` and ``means`` of the dataset this one translates.

    Returns
    -------
    pandas.DataFrame
        One row per finding, in ``AUDIT_COLUMNS`` (as ``audit_dataset``).
    """
    calibration = spec["calibration"]
    return audit_dataset(
        name, spec, tables, threshold=calibration["threshold"], unit_step=calibration["step"], source=source
    )


def _empty() -> pd.DataFrame:
    return pd.DataFrame(columns=AUDIT_COLUMNS)


def _rows(name: str, check: str, frame: pd.DataFrame) -> pd.DataFrame:
    """Findings in the audit's columns (missing columns are null)."""
    out = frame.reindex(columns=AUDIT_COLUMNS).copy()
    out["dataset"], out["check"] = name, check
    return out


def _num(x: float) -> str:
    return f"{x:.6g}"


# -------------------------------------------------------------------------------- released means


def _released_means(name: str, spec: dict, tables: dict, unit_step: float = 1.0) -> pd.DataFrame:
    """Items whose released mean differs from the mean of their ratings beyond the tolerance."""
    ratings, means = tables["ratings"], tables["means"]
    released = means.dropna(subset=["mean"]) if "mean" in means else means
    if ratings.empty or released.empty:
        return _empty()
    grouped = ratings.groupby("item_id")["score"]
    frame = released.merge(grouped.mean().rename("ours"), on="item_id").merge(grouped.size().rename("k"), on="item_id")
    exact = _decimals(frame["mean"].to_numpy(float)) > EXACT_DECIMALS
    tolerance = 1e-6 if exact else 0.5 * unit_step
    diff = (frame["mean"] - frame["ours"]).abs()
    bad = frame[diff > tolerance].copy()
    why = "the released values are exact" if exact else f"half the scale's unit step {_num(unit_step)}"
    bad["raw_value"] = bad["mean"].map(_num)
    bad["column"] = str(spec["sources"][0].get("mean", "mean"))
    bad["detail"] = [
        f"released {_num(r)}, mean of {k} ratings {_num(o)}: differs by {_num(abs(r - o))} (> {_num(tolerance)}, {why})"
        for r, o, k in zip(bad["mean"], bad["ours"], bad["k"])
    ]
    return _rows(name, "released_mean", bad)


def _decimals(values: np.ndarray) -> int:
    """The most decimals any value needs (its shortest repr), 0 for none."""
    most = 0
    for v in values[np.isfinite(values)]:
        text = repr(float(v))
        if "e" in text:
            return 17
        most = max(most, len(text.split(".")[1].rstrip("0")) if "." in text else 0)
    return most


# -------------------------------------------------------------------------------- damaged cells


def _damaged_cells(name: str, rejects: pd.DataFrame, items: pd.DataFrame) -> pd.DataFrame:
    """Score cells the ledger refused that look like spreadsheet dates or numbers stored as text."""
    cells = rejects[rejects["reason"] == "non_numeric"]
    if cells.empty:
        return _empty()
    raw = cells["raw_value"].fillna("").astype(str).str.strip()
    date = raw.map(lambda t: bool(DATE_LIKE.fullmatch(t))) | cells["detail"].fillna("").str.contains("date")
    text = ~date & raw.map(_number_as_text)
    dates = cells[date].assign(detail="a score a spreadsheet turned into a date: " + cells["detail"][date].fillna(""))
    texts = cells[text].assign(detail="a number stored as text: " + cells["detail"][text].fillna(""))
    out = pd.concat([_rows(name, "spreadsheet_date", dates), _rows(name, "text_number", texts)], ignore_index=True)
    return _with_item_ids(out, items)


def _with_item_ids(found: pd.DataFrame, items: pd.DataFrame) -> pd.DataFrame:
    """The item of a ledger row: the item first seen on that file row (none for other rows)."""
    where = items.drop_duplicates(["source_file", "source_row"]).set_index(["source_file", "source_row"])["item_id"]
    keys = pd.MultiIndex.from_arrays([found["source_file"], found["source_row"]])
    found["item_id"] = where.reindex(keys).to_numpy()
    return found


def _number_as_text(text: str) -> bool:
    """A number once quotes, apostrophes, (no-break) spaces and a decimal comma are taken away.

    Examples
    --------
    >>> [_number_as_text(t) for t in ["'7", "5,5", "1 000", "\u00a03.5", "seven", "3-Mar"]]
    [True, True, True, True, False, False]
    """
    stripped = text.strip(_TEXT_WRAP).replace("\u00a0", "").replace(" ", "")
    return stripped != text and bool(_NUMBER.fullmatch(stripped)) or ("," in text and bool(_NUMBER.fullmatch(stripped)))


# -------------------------------------------------------------------------------- pairs


def _repeated_pairs(name: str, items: pd.DataFrame, rejects: pd.DataFrame) -> pd.DataFrame:
    """Items listed again (``occurrence`` > 1), in the same order or reversed; and the ledger's
    duplicate cells (policies that keep one copy or reject all)."""
    frames = []
    if "occurrence" in items and (items["occurrence"] > 1).any():
        key = _pair_key(items)
        first = items.assign(key=key).drop_duplicates("key").set_index("key")
        again = items[items["occurrence"] > 1].assign(key=key[items["occurrence"] > 1])
        base = first.loc[again["key"]]
        reversed_ = (again["word1"].to_numpy() == base["word2"].to_numpy()) & (
            again["word1"].to_numpy() != base["word1"].to_numpy()
        )
        again = again.assign(
            raw_value=again["word1"] + " / " + again["word2"],
            detail=[
                f"{'reversed' if r else 'the same pair'}: {w1} / {w2} first at row {row} ({first_id})"
                for r, w1, w2, row, first_id in zip(
                    reversed_, base["word1"], base["word2"], base["source_row"], base["item_id"]
                )
            ],
        )
        frames += [_rows(name, "reversed_pair", again[reversed_]), _rows(name, "duplicate_pair", again[~reversed_])]
    dup = rejects[rejects["reason"].astype(str).str.startswith("duplicate")]
    if len(dup):
        found = _rows(name, "duplicate_pair", dup.assign(detail=dup["reason"] + ": " + dup["detail"].fillna("")))
        frames.append(_with_item_ids(found, items))
    return pd.concat(frames, ignore_index=True) if frames else _empty()


def _pair_key(items: pd.DataFrame) -> pd.Series:
    """The unordered word pair and context of each item."""
    keys = [
        "\x1f".join([*sorted((str(a), str(b))), str(c)])
        for a, b, c in zip(items["word1"], items["word2"], items["context"])
    ]
    return pd.Series(keys, index=items.index)


# -------------------------------------------------------------------------------- shifted rows


def _shifted_rows(name: str, tables: dict) -> pd.DataFrame:
    """A row whose values (two or more) all equal those of the next row of the same file."""
    values = _row_values(tables)
    if values.empty:
        return _empty()
    values = values.sort_values(["source_file", "source_row"], kind="stable")
    nxt = values.shift(-1)
    same_file = values["source_file"] == nxt["source_file"]
    adjacent = nxt["source_row"] == values["source_row"] + 1
    same = values["values"].to_numpy(dtype=object) == nxt["values"].to_numpy(dtype=object)
    long_enough = values["values"].map(len) >= 2
    varied = values["values"].map(lambda v: len({x for _, x in v}) > 1)  # unanimous rows repeat by agreement
    seen = values["values"].value_counts()
    rare = values["values"].map(seen) == 2  # seen elsewhere too: a common pattern, not a copied row
    hit = values[same_file & adjacent & same & long_enough & varied & rare & (values["item_id"] != nxt["item_id"])]
    hit = hit.assign(
        raw_value=hit["values"].map(lambda v: ", ".join(_num(x) for _, x in v)),
        detail=[
            f"the values of row {r} repeat in row {r + 1} ({i}), and nowhere else in the dataset"
            for r, i in zip(hit["source_row"], nxt.loc[hit.index, "item_id"])
        ],
    )
    return _rows(name, "shifted_row", hit)


def _row_values(tables: dict) -> pd.DataFrame:
    """Per source row: item_id and the tuple of its (column, value) pairs."""
    ratings, means = tables["ratings"], tables["means"]
    if len(ratings):
        grouped = ratings.sort_values("rater", kind="stable").groupby(["source_file", "source_row"], sort=False)
        rows = grouped.apply(lambda g: tuple(zip(g["rater"].astype(str), g["score"])), include_groups=False)
        item = grouped["item_id"].first()
    elif len(means):
        frame = means.set_index(["source_file", "source_row"])
        cols = [c for c in ("mean", "sd", "n") if c in frame]
        rows = frame[cols].apply(lambda r: tuple((c, v) for c, v in r.items() if pd.notna(v)), axis=1)
        item = frame["item_id"]
    else:
        return pd.DataFrame(columns=["source_file", "source_row", "item_id", "values"])
    return pd.DataFrame({"item_id": item, "values": rows}).reset_index()


def _shifted_from_source(name: str, spec: dict, tables: dict, source: dict) -> pd.DataFrame:
    """Rows of a translation carrying its source's scores whose score is the next source row's."""
    translation = spec.get("translation") or {}
    words = translation.get("source_words")
    means, items = tables["means"], tables["items"]
    if not words or not set(words) <= set(items.columns) or means.empty:
        return _empty()
    src = source["items"].merge(source["means"][["item_id", "mean"]], on="item_id").sort_values("source_row")
    src = src.assign(next_mean=src["mean"].shift(-1), next_pair=(src["word1"] + " / " + src["word2"]).shift(-1))
    ours = items.merge(means[["item_id", "mean"]], on="item_id")
    linked = ours.merge(src, left_on=words, right_on=["word1", "word2"], suffixes=("", "_src"))
    if len(linked) == 0 or (np.isclose(linked["mean"], linked["mean_src"])).mean() < COPIED_SHARE:
        return _empty()  # re-rated, not copied: differences are expected
    bad = linked[~np.isclose(linked["mean"], linked["mean_src"]) & np.isclose(linked["mean"], linked["next_mean"])]
    bad = bad.assign(
        raw_value=bad["mean"].map(_num),
        column=str(spec["sources"][0].get("mean", "mean")),
        detail=[
            f"{w1} / {w2} has {_num(m)} where the source has {_num(s)}; {_num(m)} is the next source row's ({p})"
            for w1, w2, m, s, p in zip(bad[words[0]], bad[words[1]], bad["mean"], bad["mean_src"], bad["next_pair"])
        ],
    )
    return _rows(name, "shifted_row", bad)


# -------------------------------------------------------------------------------- ratings


def _single_ratings(name: str, tables: dict) -> pd.DataFrame:
    """Items with exactly one rating (or a released n of 1)."""
    ratings, means = tables["ratings"], tables["means"]
    frames = []
    if len(ratings):
        counts = ratings.groupby("item_id")["score"].transform("size")
        one = ratings[counts == 1]
        frames.append(
            _rows(
                name,
                "single_rating",
                one.assign(
                    raw_value=one["score"].map(_num),
                    column=one["rater"].astype(str),
                    detail="the only rating of this item",
                ),
            )
        )
    if "n" in means and (means["n"] == 1).any():
        one = means[means["n"] == 1]
        frames.append(_rows(name, "single_rating", one.assign(raw_value="1", column="n", detail="the released n is 1")))
    return pd.concat(frames, ignore_index=True) if frames else _empty()


def _rater_means(
    name: str, ratings: pd.DataFrame, threshold: float = 1.0, items: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Raters whose mean score differs from the dataset mean by more than ``threshold``; where the
    items have a ``context`` (a two-context dataset), from the mean of the ratings of the contexts
    the rater rated, since each context has its own raters and its own level of similarity.

    Examples
    --------
    >>> ratings = pd.DataFrame({"item_id": ["a", "b", "a", "b", "c", "d", "c", "d"], "rater": list("ppqqxxyy"),
    ...                         "score": [2.0, 3, 2, 2, 8, 8, 6, 9]})
    >>> items = pd.DataFrame({"item_id": list("abcd"), "context": [1, 1, 2, 2]})
    >>> _rater_means("d", ratings, 1.0)["rater"].tolist()  # against the dataset mean 5: everyone
    ['p', 'q', 'x', 'y']
    >>> _rater_means("d", ratings, 1.0, items)["rater"].tolist()  # within a context: no one
    []
    """
    if ratings.empty:
        return _empty()
    per = ratings.groupby("rater")["score"].agg(["mean", "size"])
    per["reference"], per["against"] = ratings["score"].mean(), "the dataset mean"
    if items is not None and "context" in items and items["context"].notna().any():
        context = ratings["item_id"].map(items.set_index("item_id")["context"]).map(_context_name)
        rated = context.groupby(ratings["rater"]).agg(lambda c: tuple(sorted(set(c))))
        for contexts, raters in rated.groupby(rated).groups.items():
            inside = context.isin(contexts)
            per.loc[raters, "reference"] = ratings.loc[inside, "score"].mean()
            per.loc[raters, "against"] = f"the mean of context {' and '.join(contexts)}"
    bad = per[(per["mean"] - per["reference"]).abs() > threshold].reset_index()
    bad = bad.assign(
        raw_value=bad["mean"].map(_num),
        detail=[
            f"mean {_num(m)} over {k} ratings against {what} {_num(ref)}: differs by {_num(m - ref)} (threshold {_num(threshold)})"
            for m, k, what, ref in zip(bad["mean"], bad["size"], bad["against"], bad["reference"])
        ],
    )
    return _rows(name, "rater_mean", bad)


def _context_name(value) -> str:
    """A context as the detail says it (``1``, not ``1.0``); ``none`` for an item without one."""
    if pd.isna(value):
        return "none"
    return _num(float(value)) if isinstance(value, (int, float, np.number)) else str(value)
