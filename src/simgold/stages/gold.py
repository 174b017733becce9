"""Gold standard (docs/methods.md section 5) and the score-distribution table.

Per item (items of a two-context dataset are per context): ``n``, ``mean``, ``sd`` (ddof=1),
``median``, ``rsd = 100 * sd / mean`` (null when the mean is 0), ``mean_unit = (mean - min) /
(max - min)`` on the declared scale, ``mean_minmax`` (the item means rescaled to [0, 1] by their
own min and max, as the Danish dataset's released ``gold_sims_da.csv``), and ``rank`` (1 = most
similar, average ranks for ties). ``ci_low`` / ``ci_high``: Student's t interval of the mean at
``confidence`` (the scoring's level), and ``resolved_share``: the share of the other items whose
order with this one Welch's test resolves at that level (simgold.stats.item_means); both need two
ratings of an item, or a shipped SD and n.

A ``means`` dataset (or a two-context dataset that ships only aggregates) takes mean, SD and n
from the shipped values; ``median`` is then unknown (null). A rankings dataset's gold is the mean
rank of each candidate (lower = more similar), ``rank`` orders candidates within their target, and
the scale-based columns are null.

The distribution table counts items per bin of the scale (unit bins by default, as in Table 1 of
the SemEval-2012 Chinese paper) with the average mean, SD and RSD of each bin (its Figure 1).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from simgold.io.schema import schema_defaults
from simgold.io.tables import TABLES
from simgold.stats.item_means import resolved_share, t_interval
from simgold.stats.correlation import rankdata

__all__ = [
    "CONFIDENCE",
    "DISTRIBUTION_COLUMNS",
    "GOLD_COLUMNS",
    "finish_gold",
    "gold_from_means",
    "gold_from_rankings",
    "gold_from_ratings",
    "score_distribution",
]

GOLD_COLUMNS = TABLES["gold"].names  # the canonical schema's columns, in order
DISTRIBUTION_COLUMNS = TABLES["distribution"].names  # the canonical schema's columns, in order
CONFIDENCE = schema_defaults("properties", "scoring")["confidence"]  # the per-item CIs' level by default


def finish_gold(
    dataset: str, frame: pd.DataFrame, scale, basis: str, confidence: float, intervals: tuple | None = None
) -> pd.DataFrame:
    """The gold table from each item's ``n``, ``mean``, ``sd`` and ``median``: the intervals, the
    share of item pairs resolved, the scale-based columns and the rank, sorted by item id.

    Parameters
    ----------
    dataset : str
        The dataset's name.
    frame : pandas.DataFrame
        One row per item: ``item_id``, ``n``, ``mean``, ``sd``, ``median`` (and any attribute).
    scale : sequence of float or None
        The declared scale's minimum and maximum; None leaves the scale-based columns null.
    basis : str
        What the gold is made from (the ``basis`` column).
    confidence : float
        The intervals' level.
    intervals : tuple of numpy.ndarray, optional
        (low, high, resolved share) made otherwise (a BWS dataset's bootstrap); by default
        Student's t intervals of the mean and Welch's test.

    Returns
    -------
    pandas.DataFrame
        The gold table (``GOLD_COLUMNS``).
    """
    for col in ("mean", "sd", "median"):
        frame[col] = pd.to_numeric(frame[col], errors="raise").astype(float)
    mean = frame["mean"]
    counts = pd.to_numeric(frame["n"]).astype(float).to_numpy()
    if intervals is None:
        frame["ci_low"], frame["ci_high"] = t_interval(mean, frame["sd"], counts, confidence)
        frame["resolved_share"] = resolved_share(mean, frame["sd"], counts, confidence)
    else:
        frame["ci_low"], frame["ci_high"], frame["resolved_share"] = intervals
    frame["confidence"] = confidence
    with np.errstate(divide="ignore", invalid="ignore"):
        frame["rsd"] = np.where(mean != 0, 100.0 * frame["sd"] / mean, np.nan)
    if scale is not None:
        low, high = scale
        frame["mean_unit"] = (mean - low) / (high - low)
        lo, hi = mean.min(), mean.max()
        frame["mean_minmax"] = (mean - lo) / (hi - lo) if hi > lo else np.nan
        valid = mean.notna().to_numpy()
        ranks = np.full(len(frame), np.nan)
        ranks[valid] = rankdata(-mean[valid].to_numpy())
        frame["rank"] = ranks
    frame["dataset"] = dataset
    frame["basis"] = basis
    if "released_mean" not in frame:
        frame["released_mean"] = np.nan
    return frame[list(GOLD_COLUMNS)].sort_values("item_id", kind="stable").reset_index(drop=True)


def gold_from_ratings(
    dataset: str,
    items: pd.DataFrame,
    ratings: pd.DataFrame,
    scale,
    released: pd.DataFrame | None = None,
    *,
    confidence: float = CONFIDENCE,
):
    """Gold from (calibrated, filtered) per-rater ratings; items without ratings get n = 0.

    Parameters
    ----------
    dataset : str
        The dataset's name (the table's ``dataset``).
    items : pandas.DataFrame
        The dataset's items (``item_id``): every one gets a row.
    ratings : pandas.DataFrame
        Long ratings (``item_id``, ``score``).
    scale : tuple of float or None
        The declared scale's minimum and maximum (``mean_unit``); None leaves the scale-based columns null.
    released : pandas.DataFrame, optional
        Means released with the dataset (``item_id``, ``mean``): the table's ``released_mean``.
    confidence : float
        The level of the items' t intervals and of Welch's tests (the scoring's ``confidence``).

    Returns
    -------
    pandas.DataFrame
        The gold table (``GOLD_COLUMNS``), one row per item, sorted by ``item_id``.

    Examples
    --------
    >>> items = pd.DataFrame({"item_id": ["a", "b"]})
    >>> ratings = pd.DataFrame({"item_id": ["a", "a", "b"], "score": [2.0, 4.0, 5.0]})
    >>> gold_from_ratings("d", items, ratings, (0, 6))[["item_id", "n", "mean", "rank"]].values.tolist()
    [['a', 2, 3.0, 2.0], ['b', 1, 5.0, 1.0]]
    """
    g = ratings.groupby("item_id")["score"]
    frame = pd.DataFrame({"item_id": items["item_id"]}).set_index("item_id")
    frame["n"] = g.size().reindex(frame.index).fillna(0).astype(int)
    frame["mean"] = g.mean().reindex(frame.index)
    frame["sd"] = g.std(ddof=1).reindex(frame.index)
    frame["median"] = g.median().reindex(frame.index)
    if released is not None and len(released):
        frame["released_mean"] = released.set_index("item_id")["mean"].reindex(frame.index)
    return finish_gold(dataset, frame.reset_index(), scale, "ratings", confidence)


def gold_from_means(dataset: str, items: pd.DataFrame, means: pd.DataFrame, scale, *, confidence: float = CONFIDENCE):
    """Gold from shipped aggregates (``means`` datasets, aggregated two-context datasets).

    Parameters
    ----------
    dataset : str
        The dataset's name (the table's ``dataset``).
    items : pandas.DataFrame
        The dataset's items (``item_id``): every one gets a row.
    means : pandas.DataFrame
        The shipped aggregates (``item_id``, ``mean``, ``sd``, ``n``).
    scale : tuple of float or None
        The declared scale's minimum and maximum (``mean_unit``); None leaves the scale-based columns null.
    confidence : float
        The level of the items' t intervals and of Welch's tests (the scoring's ``confidence``).

    Returns
    -------
    pandas.DataFrame
        The gold table (``GOLD_COLUMNS``), one row per item, sorted by ``item_id``.
    """
    m = means.set_index("item_id")
    frame = pd.DataFrame({"item_id": items["item_id"]}).set_index("item_id")
    frame["n"] = m["n"].reindex(frame.index)
    frame["mean"] = m["mean"].reindex(frame.index)
    frame["sd"] = m["sd"].reindex(frame.index)
    frame["median"] = np.nan
    frame["released_mean"] = frame["mean"]
    frame = frame.reset_index()
    frame["n"] = frame["n"].astype("Int64")
    return finish_gold(dataset, frame, scale, "shipped means", confidence)


def gold_from_rankings(dataset: str, items: pd.DataFrame, rankings: pd.DataFrame, *, confidence: float = CONFIDENCE):
    """Mean rank of each (target, candidate); ``rank`` orders candidates within their target.

    Parameters
    ----------
    dataset : str
        The dataset's name (the table's ``dataset``).
    items : pandas.DataFrame
        The dataset's items (``item_id``, ``word1`` the target, ``word2`` the candidate).
    rankings : pandas.DataFrame
        Long rankings (``target``, ``candidate``, ``rank``).
    confidence : float
        The level of the items' t intervals and of Welch's tests (the scoring's ``confidence``).

    Returns
    -------
    pandas.DataFrame
        The gold table (``GOLD_COLUMNS``), one row per item, sorted by ``item_id``.
    """
    g = rankings.groupby(["target", "candidate"])["rank"]
    stats = pd.DataFrame({"n": g.size(), "mean": g.mean(), "sd": g.std(ddof=1), "median": g.median()}).reset_index()
    frame = items[["item_id", "word1", "word2"]].merge(
        stats, left_on=["word1", "word2"], right_on=["target", "candidate"], how="left"
    )
    frame["n"] = frame["n"].fillna(0).astype(int)
    frame["rank"] = frame.groupby("word1")["mean"].rank(method="average")
    for col in ("mean_unit", "mean_minmax"):
        frame[col] = np.nan
    return finish_gold(dataset, frame, None, "rankings (mean rank; lower = more similar)", confidence)


def score_distribution(dataset: str, gold: pd.DataFrame, scale, bin_width: float) -> pd.DataFrame:
    """Items per bin of the scale; the last bin includes the maximum.

    Parameters
    ----------
    dataset : str
        The dataset's name (the table's ``dataset``).
    gold : pandas.DataFrame
        The dataset's gold table (``mean``, ``sd``, ``rsd``).
    scale : tuple of float
        The scale's minimum and maximum.
    bin_width : float
        The width of a bin (the last bin ends at the maximum).

    Returns
    -------
    pandas.DataFrame
        The distribution table (``DISTRIBUTION_COLUMNS``), one row per bin.

    Examples
    --------
    >>> gold = pd.DataFrame({"mean": [0.5, 1.5, 2.0], "sd": [1.0, 1.0, 0.5], "rsd": [200.0, 66.7, 25.0]})
    >>> table = score_distribution("d", gold, (0, 2), 1.0)  # the maximum 2.0 falls in the last bin
    >>> table["n_items"].tolist(), table["mean_sd"].tolist()
    ([1, 2], [1.0, 0.75])
    """
    low, high = scale
    n_bins = max(1, math.ceil((high - low) / bin_width - 1e-9))
    edges = [low + k * bin_width for k in range(n_bins)] + [high]
    mean = gold["mean"].to_numpy(float)
    valid = ~np.isnan(mean)
    idx = np.clip(np.floor((mean[valid] - low) / bin_width).astype(int), 0, n_bins - 1)
    rows = []
    total = int(valid.sum())
    sd = gold["sd"].to_numpy(float)[valid]
    rsd = gold["rsd"].to_numpy(float)[valid]
    for k in range(n_bins):
        inside = idx == k
        rows.append(
            {
                "dataset": dataset,
                "bin_low": float(edges[k]),
                "bin_high": float(edges[k + 1]),
                "n_items": int(inside.sum()),
                "share": float(inside.sum() / total) if total else np.nan,
                "mean_of_means": float(mean[valid][inside].mean()) if inside.any() else np.nan,
                "mean_sd": _nanmean(sd[inside]),
                "mean_rsd": _nanmean(rsd[inside]),
            }
        )
    return pd.DataFrame(rows, columns=list(DISTRIBUTION_COLUMNS))


def _nanmean(values: np.ndarray) -> float:
    values = values[~np.isnan(values)]
    return float(values.mean()) if len(values) else np.nan
