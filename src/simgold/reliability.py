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

from .rank_correlation import rankdata  # scipy's ranks to the bit, without importing scipy.stats
from .seeds import seed_for

TARGETS = (0.8, 0.9)
SPLIT_COLUMNS = ["dataset", "split", "n_items", "h", "r_half", "r_full", "r1"]


def spearman_brown(r, factor):
    """Reliability of a test ``factor`` times as long: ``k r / (1 + (k - 1) r)``.

    Examples
    --------
    >>> round(spearman_brown(0.6, 2), 6)
    0.75
    """
    r = np.asarray(r, dtype=float)
    return _scalar(factor * r / (1.0 + (factor - 1.0) * r))


def single_rater(r_half, h):
    """Reliability of one rater from the split-half correlation of halves of ``h`` raters.

    Examples
    --------
    >>> round(single_rater(0.75, 3), 6)
    0.5
    """
    r_half = np.asarray(r_half, dtype=float)
    return _scalar(r_half / (h - (h - 1.0) * r_half))


def raters_needed(r1: float, target: float) -> float:
    """Raters per item for reliability ``target``: ``R (1 - r1) / (r1 (1 - R))``, rounded up; NaN
    when ``r1 <= 0`` (no number of raters reaches it) or ``r1`` is NaN.

    Examples
    --------
    >>> raters_needed(0.5, 0.8), raters_needed(0.5, 0.9)
    (4.0, 9.0)
    """
    if not r1 > 0:
        return float("nan")
    if r1 >= target:
        return 1.0
    m = target * (1.0 - r1) / (r1 * (1.0 - target))
    return float(math.ceil(m - 1e-9))  # 4.000000000001 from rounding is 4


def _scalar(x):
    return float(x) if np.ndim(x) == 0 else x


# -------------------------------------------------------------------------------- split halves


def split_half_correlations(X: np.ndarray, in_first: np.ndarray) -> pd.DataFrame:
    """Split-half correlations of an items x raters array (NaN: no rating) for given splits.

    Parameters
    ----------
    X : ndarray, items x raters
    in_first : ndarray of bool, splits x raters
        True where a rater is in the first half of a split; the others form the second half.

    Returns
    -------
    DataFrame
        One row per split: ``split``, ``n_items`` (rated in both halves), ``h`` (mean ratings per
        item in a half over those items), ``r_half`` (Spearman between the halves' item means).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 2, 1, 1], [3, 3, 2, 4], [5, 4, 5, 5], [2, 4, 3, 1.]])
    >>> split_half_correlations(X, np.array([[True, True, False, False]]))["r_half"].round(4).tolist()
    [0.9487]
    """
    present = ~np.isnan(X)
    filled = np.where(present, X, 0.0)
    first = in_first.T.astype(float)
    second = (~in_first).T.astype(float)
    sums_a, sums_b = filled @ first, filled @ second
    counts_a, counts_b = present @ first, present @ second
    return _halves_table(sums_a, counts_a, sums_b, counts_b)


def _halves_table(sums_a, counts_a, sums_b, counts_b) -> pd.DataFrame:
    """items x splits sums and counts of the two halves -> the per-split table."""
    both = (counts_a > 0) & (counts_b > 0)
    with np.errstate(invalid="ignore", divide="ignore"):  # means equal to 10 decimals are ties
        mean_a = np.where(both, sums_a / counts_a, np.nan).round(10)
        mean_b = np.where(both, sums_b / counts_b, np.nan).round(10)
    n_items = both.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        h = np.where(both, (counts_a + counts_b) / 2.0, 0.0).sum(axis=0) / n_items
    r = _columnwise_spearman(mean_a, mean_b)
    return pd.DataFrame({"split": np.arange(len(n_items)), "n_items": n_items, "h": h, "r_half": r})


def _columnwise_spearman(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Spearman per column over the rows where both are present (average ranks); NaN when fewer
    than 3 rows or a constant column."""
    ra = rankdata(a, axis=0, nan_policy="omit")
    rb = rankdata(b, axis=0, nan_policy="omit")
    ra -= np.nanmean(ra, axis=0)
    rb -= np.nanmean(rb, axis=0)
    num = np.nansum(ra * rb, axis=0)
    den = np.sqrt(np.nansum(ra * ra, axis=0) * np.nansum(rb * rb, axis=0))
    n = (~np.isnan(a)).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where((den > 1e-12) & (n >= 3), num / den, np.nan)
    return np.clip(r, -1.0, 1.0)


def rater_splits(n_raters: int, splits: int, rng: np.random.Generator) -> np.ndarray:
    """splits x raters booleans: a random floor(R/2) raters in the first half of each split."""
    keys = rng.random((splits, n_raters))
    order = np.argsort(keys, axis=1)
    in_first = np.zeros((splits, n_raters), dtype=bool)
    np.put_along_axis(in_first, order[:, : n_raters // 2], True, axis=1)
    return in_first


def rating_splits(item: np.ndarray, score: np.ndarray, n_items: int, splits: int, rng) -> pd.DataFrame:
    """Split-half table when raters are slots: each item's ratings are split at random (floor(m/2)
    to the first half)."""
    counts = np.bincount(item, minlength=n_items)
    order = np.argsort(item, kind="stable")
    item, score = item[order], score[order]
    start = np.r_[0, np.cumsum(counts)[:-1]]
    keys = rng.random((splits, len(item))) + item[None, :]  # sorts within items only
    position = np.empty_like(keys, dtype=np.int64)
    np.put_along_axis(position, np.argsort(keys, axis=1), np.arange(len(item))[None, :], axis=1)
    first = (position - start[item][None, :]) < (counts[item] // 2)[None, :]
    cell = (np.arange(splits)[:, None] * n_items + item[None, :]).ravel()
    size = splits * n_items

    def sums(mask, weight):
        return np.bincount(cell[mask.ravel()], np.broadcast_to(weight, mask.shape)[mask], size).reshape(splits, n_items).T

    ones = np.ones(len(item))
    return _halves_table(sums(first, score), sums(first, ones), sums(~first, score), sums(~first, ones))


# -------------------------------------------------------------------------------- per dataset


def split_half(
    dataset: str, ratings: pd.DataFrame, *, splits: int = 200, seed: int = 0, persistent_raters: bool = True, stage: str = "raw"
) -> pd.DataFrame:
    """Per-split table for a ratings table (``item_id``, ``rater``, ``score``).

    Columns: ``dataset``, ``split``, ``n_items``, ``h``, ``r_half``, ``r_full`` (Spearman-Brown),
    ``r1`` (single rater).
    """
    rng = np.random.default_rng(seed_for(seed, dataset, stage, "split_half"))
    item, items = pd.factorize(ratings["item_id"], sort=True)
    score = ratings["score"].to_numpy(float)
    if persistent_raters:
        rater, raters = pd.factorize(ratings["rater"], sort=True)
        X = np.full((len(items), len(raters)), np.nan)
        X[item, rater] = score
        table = split_half_correlations(X, rater_splits(len(raters), splits, rng))
    else:
        table = rating_splits(item, score, len(items), splits, rng)
    table.insert(0, "dataset", dataset)
    table["r_full"] = spearman_brown(table["r_half"].to_numpy(), 2.0)
    table["r1"] = single_rater(table["r_half"].to_numpy(), table["h"].to_numpy())
    return table[SPLIT_COLUMNS]


def projection(dataset: str, per_split: pd.DataFrame, observed: float, targets=TARGETS) -> dict[str, pd.DataFrame]:
    """Summary (one row) and curve tables from the per-split table.

    ``observed`` is the mean number of ratings per item. The summary holds, for ``r_half``,
    ``r_full`` and ``r1``, the mean and 2.5 / 97.5 percentiles over the splits with a value, the
    count of splits without one, and per target ``m_{target}`` (from the mean r1) with
    ``m_{target}_low`` / ``_high`` (from r1's 97.5 / 2.5 percentiles). The curve holds
    ``m``, ``reliability`` and its ``low`` / ``high`` band.
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


def reliability_projection(
    dataset: str, ratings: pd.DataFrame, *, splits: int = 200, seed: int = 0, persistent_raters: bool = True, stage: str = "raw"
) -> dict[str, pd.DataFrame]:
    """Split-half reliability, its Spearman-Brown projection and the raters-needed curve.

    Returns ``splits`` (one row per split), ``summary`` (one row) and ``curve`` (one row per m);
    the last two say which ``stage`` of the ratings they are of.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.normal(size=40)
    >>> r = pd.DataFrame([(i, j, truth[i] + rng.normal()) for i in range(40) for j in range(10)],
    ...                  columns=["item_id", "rater", "score"])
    >>> out = reliability_projection("toy", r, splits=50)
    >>> s = out["summary"].iloc[0]
    >>> bool(0.3 < s["r1"] < 0.7), int(s["m_0.8"]) >= 2, len(out["curve"])
    (True, True, 50)
    """
    per_split = split_half(dataset, ratings, splits=splits, seed=seed, persistent_raters=persistent_raters, stage=stage)
    observed = ratings.groupby("item_id").size().mean() if len(ratings) else 0.0
    tables = projection(dataset, per_split, observed)
    for table in tables.values():  # which ratings the projection is of
        table.insert(1, "stage", stage)
    return {"splits": per_split, **tables}
