"""Rater calibration (docs/methods.md section 3).

``shift`` (Danish gold standard, following SimLex-999): ``d_r = mean(r's scores) - mean(all
scores)``; when ``|d_r| > threshold`` every score of ``r`` moves by ``step`` towards the dataset
mean, except scores equal to the scale's minimum or maximum, which stay as they are. A moved score
that would cross a scale bound stops at the bound (possible only on scales finer than ``step``),
so results never leave the scale and never change order.

``zscore``: per rater ``(x - mean_r) / sd_r`` mapped back onto the pooled mean and SD of all
scores. A rater whose scores are all equal (sd 0) gets the pooled mean. The result is on the
dataset's pooled scale and may lie beyond the nominal bounds.

``without``: items whose ratings are calibrated but left out of the parameters (the dataset's
anchors unless ``anchors.calibration``: ``simgold.stages.controls.calibration_exclusions``): the
means, SDs and the per-rater table are of the other ratings.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simgold.io.tables import TABLES

__all__ = ["RATER_COLUMNS", "calibrate"]

RATER_COLUMNS = TABLES["calibration"].names  # the canonical schema's columns, in order


def calibrate(ratings: pd.DataFrame, scale, method: str, threshold: float, step: float, *, without=()):
    """Return (calibrated ratings with a ``raw_score`` column, per-rater calibration table).

    Parameters
    ----------
    ratings : pandas.DataFrame
        Long ratings (``dataset``, ``item_id``, ``rater``, ``score``), as the cleaning stage writes them.
    scale : tuple of float
        The scale's minimum and maximum (``shift`` keeps scores at a bound, and stops at a bound).
    method : str
        ``"shift"``, ``"zscore"`` or ``"none"``.
    threshold : float
        ``shift``: a rater whose mean is further than this from the dataset mean moves.
    step : float
        ``shift``: how far the scores of such a rater move, towards the dataset mean.
    without : collection of str
        Item ids whose ratings are calibrated but do not count in the means and SDs (and in the
        table's ``n_items`` and ``mean_score``).

    Returns
    -------
    tuple of pandas.DataFrame
        The ratings, calibrated (``score``) beside their ``raw_score``, and the per-rater table
        (``RATER_COLUMNS``): mean, difference from the dataset mean, shift and scores changed.

    Examples
    --------
    >>> import pandas as pd
    >>> ratings = pd.DataFrame({"dataset": "d", "item_id": ["a", "b", "a", "b"], "rater": list("ppqq"),
    ...                         "score": [4.0, 5.0, 1.0, 2.0]})
    >>> out, table = calibrate(ratings, (0, 6), "shift", threshold=1.0, step=1.0)
    >>> out["score"].tolist(), table["calib_shift"].tolist()
    ([3.0, 4.0, 2.0, 3.0], [-1.0, 1.0])
    """
    out = ratings.copy()
    out["raw_score"] = out["score"]
    if out.empty:
        return out, pd.DataFrame(columns=list(RATER_COLUMNS))
    low, high = scale
    basis = out[~out["item_id"].isin(list(without))] if len(without) else out  # the ratings the parameters are of
    grouped = basis.groupby("rater", sort=True)["score"]  # the raw scores, whatever happens to out["score"]
    raters = pd.Index(np.unique(out["rater"].to_numpy()), name="rater")
    raw_mean = grouped.mean().reindex(raters)
    overall = basis["score"].mean()
    diff = raw_mean - overall
    shift = pd.Series(0.0, index=diff.index)
    if method == "shift":
        shift[diff > threshold] = -step
        shift[diff < -threshold] = step
        delta = out["rater"].map(shift).to_numpy()
        x = out["score"].to_numpy()
        at_bound = (x == low) | (x == high)
        moved = np.clip(x + delta, low, high)
        out["score"] = np.where(at_bound, x, moved)
    elif method == "zscore":
        pooled_sd = basis["score"].std(ddof=1)
        sd_r = out["rater"].map(grouped.std())  # ddof=1
        z = (out["score"] - out["rater"].map(grouped.mean())) / sd_r
        out["score"] = np.where((sd_r > 0) & sd_r.notna(), overall + z * pooled_sd, overall)
        by_rater = out.groupby("rater")
        shift = (by_rater["score"].mean() - by_rater["raw_score"].mean()).round(12)
    elif method != "none":
        raise ValueError(f"unknown calibration method {method!r}")
    changed = (out["score"] != out["raw_score"]).groupby(out["rater"]).sum()
    dataset = out["dataset"].iloc[0]
    table = pd.DataFrame(
        {
            "dataset": dataset,
            "rater": diff.index,
            "n_items": grouped.size().reindex(raters, fill_value=0).to_numpy(),
            "mean_score": raw_mean.to_numpy(),
            "calib_diff": diff.to_numpy(),
            "calib_shift": shift.reindex(diff.index).to_numpy(),
            "n_changed": changed.reindex(diff.index).fillna(0).astype(int).to_numpy(),
        }
    )
    return out, table
