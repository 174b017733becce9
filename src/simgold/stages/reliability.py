"""How many raters are enough: split-half reliability, the Spearman-Brown projection and the
number of raters needed per item (docs/methods.md section 11).

* **Split-half.** S times (default 200), split the raters at random into two halves (sizes
  floor(R/2) and ceil(R/2)); with ``persistent_raters: false`` (rating slots, not people: Rare
  Words) split each item's ratings instead. ``r_half`` is the Spearman correlation between the two
  halves' item means over the items rated in both halves.
* **Spearman-Brown.** ``R_full = 2 r_half / (1 + r_half)``: the reliability of the means of the
  whole panel. Reported as the mean and the 2.5 / 97.5 percentiles over splits.
* **Single rater.** With ``h`` ratings per item in a half (the mean over the items used and the two
  halves; ``R / 2`` for a complete panel), ``r1 = r_half / (h - (h - 1) r_half)`` is the
  reliability of one rater's scores, and ``R_m = m r1 / (1 + (m - 1) r1)`` the expected reliability
  of the means of m raters per item. Raters needed for a target R:
  ``m = R (1 - r1) / (r1 (1 - R))``, rounded up (undefined when ``r1 <= 0``).
* The curve runs over ``m = 1 .. max(2 x observed raters per item, 50)``, from the mean ``r1``,
  with a band from ``r1``'s 2.5 / 97.5 percentiles over splits.

Splits are drawn from a numpy Generator seeded from a SHA-256 digest of the config seed and the
names given (dataset, stage), never from Python's ``hash()``.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from simgold.stats.reliability import (
    raters_needed,
    rating_splits,
    single_rater,
    spearman_brown,
    split_half_correlations,
)
from simgold.stats.correlation import MIN_CORRELATION_ITEMS
from simgold.stats.resampling import random_halves
from simgold.stats.seeds import seed_for

__all__ = ["SPLIT_COLUMNS", "TARGETS", "projection", "reliability_projection", "split_half", "split_note"]

TARGETS = (0.8, 0.9)
SPLIT_COLUMNS = ["dataset", "split", "n_items", "h", "r_half", "r_full", "r1"]


# -------------------------------------------------------------------------------- split halves


# -------------------------------------------------------------------------------- per dataset


def split_half(
    dataset: str,
    ratings: pd.DataFrame,
    *,
    splits: int = 200,
    seed: int,
    persistent_raters: bool = True,
    stage: str = "raw",
) -> pd.DataFrame:
    """Per-split table for a ratings table (``item_id``, ``rater``, ``score``).

    Columns: ``dataset``, ``split``, ``n_items``, ``h``, ``r_half``, ``r_full`` (Spearman-Brown),
    ``r1`` (single rater).

    Parameters
    ----------
    dataset : str
        The dataset's name.
    ratings : pd.DataFrame
        The ratings (``item_id``, ``rater``, ``score``).
    splits : int
        How many random splits.
    seed : int
        The root of the seeds (``scoring.seed``).
    persistent_raters : bool
        False: the rating columns are slots, not people.
    stage : str
        The stage (``raw``, ``calibrated``, ``filtered``).

    Returns
    -------
    pd.DataFrame
        One row per split, ``SPLIT_COLUMNS``: ``dataset``, ``split``, ``n_items``, ``h``,
        ``r_half``, ``r_full``, ``r1`` (NaN where the halves give no correlation).
    """
    rng = np.random.default_rng(seed_for(seed, dataset, stage, "split_half"))
    item, items = pd.factorize(ratings["item_id"], sort=True)
    score = ratings["score"].to_numpy(float)
    if persistent_raters:
        rater, raters = pd.factorize(ratings["rater"], sort=True)
        X = np.full((len(items), len(raters)), np.nan)
        X[item, rater] = score
        table = pd.DataFrame(split_half_correlations(X, random_halves(len(raters), splits, rng)))
    else:
        table = pd.DataFrame(rating_splits(item, score, len(items), splits, rng))
    table.insert(0, "dataset", dataset)
    table["r_full"] = spearman_brown(table["r_half"].to_numpy(), 2.0)
    table["r1"] = single_rater(table["r_half"].to_numpy(), table["h"].to_numpy())
    return table[SPLIT_COLUMNS]


def projection(dataset: str, per_split: pd.DataFrame, observed: float, targets=TARGETS) -> dict[str, pd.DataFrame]:
    """Summary (one row) and curve tables from the per-split table.

    ``observed`` is the mean number of ratings per item. The summary holds, for ``r_half``,
    ``r_full`` and ``r1``, the mean and 2.5 / 97.5 percentiles over the splits with a value, the
    count of splits without one, and per target ``m_{target}`` (from the mean r1) with
    ``m_{target}_low`` / ``_high`` (from r1's 97.5 / 2.5 percentiles), and a ``note`` on the splits
    without a value (``split_note``). The curve holds ``m``, ``reliability`` and its ``low`` /
    ``high`` band.

    Parameters
    ----------
    dataset : str
        The dataset's name.
    per_split : pd.DataFrame
        The per-split table of ``split_half``.
    observed : float
        The mean number of ratings per item.
    targets : object
        The target reliabilities.

    Returns
    -------
    dict[str, pd.DataFrame]
        ``summary`` (one row: means, percentile bounds, raters needed per target, note) and
        ``curve`` (``m`` = 1 to at least 50, ``reliability``, ``low``, ``high``).
    """
    row = {"dataset": dataset, "n_splits": len(per_split), "observed_raters": float(observed)}
    valid = per_split.dropna(subset=["r_half"])
    row["n_splits_undefined"] = len(per_split) - len(valid)
    for name in ("r_half", "r_full", "r1", "h"):
        values = valid[name].to_numpy()
        row[name] = float(values.mean()) if len(values) else np.nan
        low, high = np.percentile(values, [2.5, 97.5]) if len(values) else (np.nan, np.nan)
        row[f"{name}_low"], row[f"{name}_high"] = float(low), float(high)
    for target in targets:
        key = f"m_{target:g}"
        row[key] = raters_needed(row["r1"], target)
        row[f"{key}_low"] = raters_needed(row["r1_high"], target)
        row[f"{key}_high"] = raters_needed(row["r1_low"], target)
    row["note"] = split_note(per_split)
    m = np.arange(1, max(2 * math.ceil(observed), 50) + 1, dtype=float)
    curve = pd.DataFrame(
        {
            "dataset": dataset,
            "m": m.astype(np.int64),
            "reliability": spearman_brown(row["r1"], m),
            "low": spearman_brown(row["r1_low"], m),
            "high": spearman_brown(row["r1_high"], m),
        }
    )
    return {"summary": pd.DataFrame([row]), "curve": curve}


def split_note(per_split: pd.DataFrame) -> str:
    """Why splits have no ``r_half``: their halves share fewer than ``MIN_CORRELATION_ITEMS`` rated
    items, or a half's item means are all equal; "" when every split has one.

    Parameters
    ----------
    per_split : pd.DataFrame
        The per-split table of ``split_half``.

    Returns
    -------
    str
        The note (how many splits lack a value and why; prefixed "no split-half correlation"
        when all do); "" when every split has an ``r_half``.

    Examples
    --------
    >>> split_note(pd.DataFrame({"n_items": [8, 8], "r_half": [float("nan")] * 2}))
    "no split-half correlation: in 2 of 2 splits a half's item means are all equal"
    >>> split_note(pd.DataFrame({"n_items": [2, 8, 8], "r_half": [float("nan"), 0.5, 0.7]}))
    'in 1 of 3 splits the halves share fewer than 3 rated items'
    """
    undefined = per_split["r_half"].isna().to_numpy()
    if not undefined.any():
        return ""
    few = undefined & (per_split["n_items"].to_numpy() < MIN_CORRELATION_ITEMS)
    flat = undefined & ~few
    total, least = len(per_split), MIN_CORRELATION_ITEMS
    parts = [
        f"in {few.sum()} of {total} splits the halves share fewer than {least} rated items" if few.any() else "",
        f"in {flat.sum()} of {total} splits a half's item means are all equal" if flat.any() else "",
    ]
    note = "; ".join(part for part in parts if part)
    return f"no split-half correlation: {note}" if undefined.all() else note


def reliability_projection(
    dataset: str,
    ratings: pd.DataFrame,
    *,
    splits: int = 200,
    seed: int,
    persistent_raters: bool = True,
    stage: str = "raw",
) -> dict[str, pd.DataFrame]:
    """Split-half reliability, its Spearman-Brown projection and the raters-needed curve.

    Returns ``splits`` (one row per split), ``summary`` (one row) and ``curve`` (one row per m);
    the last two say which ``stage`` of the ratings they are of.

    Parameters
    ----------
    dataset : str
        The dataset's name.
    ratings : pd.DataFrame
        The ratings (``item_id``, ``rater``, ``score``).
    splits : int
        How many random splits.
    seed : int
        The root of the seeds (``scoring.seed``).
    persistent_raters : bool
        False: the rating columns are slots, not people.
    stage : str
        The stage (``raw``, ``calibrated``, ``filtered``).

    Returns
    -------
    dict[str, pd.DataFrame]
        ``splits`` (as :func:`split_half`), ``summary`` and ``curve`` (as :func:`projection`,
        with a ``stage`` column).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.normal(size=40)
    >>> r = pd.DataFrame([(i, j, truth[i] + rng.normal()) for i in range(40) for j in range(10)],
    ...                  columns=["item_id", "rater", "score"])
    >>> out = reliability_projection("toy", r, splits=50, seed=0)
    >>> s = out["summary"].iloc[0]
    >>> bool(0.3 < s["r1"] < 0.7), int(s["m_0.8"]) >= 2, len(out["curve"])
    (True, True, 50)
    """
    per_split = split_half(dataset, ratings, splits=splits, seed=seed, persistent_raters=persistent_raters, stage=stage)
    observed = ratings.groupby("item_id").size().mean() if len(ratings) else 0.0
    tables = projection(dataset, per_split, observed)
    n_raters = ratings["rater"].nunique()
    if persistent_raters and n_raters < 2:  # a half is empty in every split: say so rather than count them
        tables["summary"]["note"] = f"{n_raters} rater{'s' if n_raters != 1 else ''}: no two halves to correlate"
    for table in tables.values():  # which ratings the projection is of
        table.insert(1, "stage", stage)
    return {"splits": per_split, **tables}
