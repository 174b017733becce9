"""Thresholds and bands checked against plain loops written here (docs/methods.md sections 3, 4 and
11.3): the raters-needed range and the 2.5 / 97.5 bands of the reliability projection, the two
outlier cuts and the shift calibration.

These are the places where a swapped bound, a wrong percentile, a flipped or non-strict comparison
or a mean of means instead of a mean of all scores gives plausible numbers that no figure would
show. So the data is not degenerate (unbalanced panels, values that vary between splits, raters
exactly at a threshold, in binary-exact numbers), every reported column is compared with a loop,
and each test first asserts that its data can tell the right answer from the likely wrong ones.
The loops reuse only the project's random split draws, never its arithmetic.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from simgold.stages.agreement import agreement_report
from simgold.stages.calibrate import calibrate
from simgold.stages.reliability import projection, reliability_projection
from simgold.stats.resampling import random_halves
from simgold.stats.seeds import seed_for

from ..conftest import loop_pairwise, ratings_frame

NO_CALIBRATION = pd.DataFrame(columns=["rater", "calib_diff", "calib_shift"])

# -------------------------------------------------------------------------------- reliability


def loop_raters_needed(r1: float, target: float) -> float:
    """The smallest m whose Spearman-Brown reliability m r1 / (1 + (m - 1) r1) reaches the target."""
    if not r1 > 0:
        return np.nan
    m = 1
    while m * r1 / (1 + (m - 1) * r1) < target - 1e-12:
        m += 1
    return float(m)


def unbalanced_panel(seed: int = 0) -> pd.DataFrame:
    """40 items, 10 raters rating from 35% to 94% of the items (15 to 39 ratings), scores 0-6."""
    rng = np.random.default_rng(seed)
    truth = rng.normal(0, 1, 40)
    rows = []
    for j in range(10):
        for i in np.flatnonzero(rng.random(40) < 0.35 + 0.065 * j):
            rows.append(("rel", f"i{i:02d}", f"r{j}", float(np.clip(np.rint(3 + truth[i] + rng.normal(0, 1.3)), 0, 6))))
    return ratings_frame(rows)


def test_split_half_summary_and_curve_against_a_loop_on_an_unbalanced_panel():
    """Every column of splits, summary and curve, from the project's split draws and plain loops."""
    ratings, splits = unbalanced_panel(), 200
    out = reliability_projection("rel", ratings, splits=splits, seed=0)
    raters = np.sort(ratings["rater"].unique())
    items = np.sort(ratings["item_id"].unique())
    X = ratings.pivot(index="item_id", columns="rater", values="score").reindex(index=items, columns=raters).to_numpy()
    halves = random_halves(len(raters), splits, np.random.default_rng(seed_for(0, "rel", "raw", "split_half")))
    rows = []
    for first in halves:
        a, b, h = [], [], []
        for row in X:
            x1, x2 = row[first][~np.isnan(row[first])], row[~first][~np.isnan(row[~first])]
            if len(x1) and len(x2):
                a.append(x1.mean()), b.append(x2.mean()), h.append((len(x1) + len(x2)) / 2)
        r, hh = spearmanr(a, b)[0], np.mean(h)
        rows.append({"n_items": len(a), "h": hh, "r_half": r, "r_full": 2 * r / (1 + r), "r1": r / (hh - (hh - 1) * r)})
    loop = pd.DataFrame(rows)
    got = out["splits"]
    assert got["split"].tolist() == list(range(splits)) and (got["dataset"] == "rel").all()
    assert (got["n_items"].to_numpy() == loop["n_items"].to_numpy()).all()
    for name in ("h", "r_half", "r_full", "r1"):
        np.testing.assert_allclose(got[name], loop[name], rtol=0, atol=1e-12, err_msg=name)

    s = out["summary"].iloc[0]
    assert (s["dataset"], s["stage"], s["n_splits"], s["n_splits_undefined"]) == ("rel", "raw", splits, 0)
    assert s["observed_raters"] == pytest.approx(len(ratings) / len(items))
    for name in ("r_half", "r_full", "r1", "h"):
        low, high = np.percentile(loop[name], [2.5, 97.5])
        assert s[name] == pytest.approx(loop[name].mean(), abs=1e-12), name
        assert (s[f"{name}_low"], s[f"{name}_high"]) == pytest.approx((low, high), abs=1e-12), f"{name} band"
        if name != "h":  # h hardly varies; the others tell 2.5 / 97.5 from 5 / 95
            assert np.percentile(loop[name], 5) > low + 1e-6 and np.percentile(loop[name], 95) < high - 1e-6
    r1_low, r1_high = np.percentile(loop["r1"], [2.5, 97.5])
    for target in (0.8, 0.9):
        key = f"m_{target:g}"
        expected = [loop_raters_needed(v, target) for v in (loop["r1"].mean(), r1_high, r1_low)]
        assert expected[1] < expected[0] < expected[2]  # high r1 -> fewest raters: the low bound
        assert [s[key], s[f"{key}_low"], s[f"{key}_high"]] == expected, f"{key}, low, high"

    curve = out["curve"]
    m = np.arange(1, max(2 * int(np.ceil(len(ratings) / len(items))), 50) + 1)
    assert curve["m"].tolist() == m.tolist() and (curve["dataset"] == "rel").all() and (curve["stage"] == "raw").all()
    for column, r1 in (("reliability", loop["r1"].mean()), ("low", r1_low), ("high", r1_high)):
        expected = [k * r1 / (1 + (k - 1) * r1) for k in m]
        np.testing.assert_allclose(curve[column], expected, rtol=0, atol=1e-12, err_msg=f"curve {column}")


def test_projection_bands_are_order_statistics_2_and_40_of_41_and_raters_needed_at_the_target():
    """41 splits with a value: the 2.5 / 97.5 percentiles are the 2nd and 40th smallest values; r1
    there is 0.5 (4 raters give 0.8 exactly) and 0.8 (one rater is already 0.8)."""
    r1 = np.r_[0.3, 0.5, np.linspace(0.52, 0.78, 37), 0.8, 0.85]
    order = np.random.default_rng(3).permutation(41)
    per_split = pd.DataFrame({"dataset": "x", "split": range(42), "n_items": 20, "h": 4.0})
    per_split["r1"] = np.r_[r1[order], np.nan]
    per_split["r_half"] = np.r_[(r1 * 4 / (1 + 3 * r1))[order], np.nan]  # from h = 4
    per_split["r_full"] = 2 * per_split["r_half"] / (1 + per_split["r_half"])
    s = projection("x", per_split, observed=8.0)["summary"].iloc[0]
    assert s["n_splits_undefined"] == 1 and s["n_splits"] == 42
    for name in ("r1", "r_half", "r_full"):
        ordered = np.sort(per_split[name].dropna().to_numpy())
        assert (s[f"{name}_low"], s[f"{name}_high"]) == pytest.approx((ordered[1], ordered[39]), abs=1e-12), name
    assert loop_raters_needed(0.5, 0.8) == 4.0 and loop_raters_needed(0.8, 0.8) == 1.0
    assert (s["m_0.8_low"], s["m_0.8_high"]) == (1.0, 4.0), "m_0.8 low from r1_high, high from r1_low"
    assert (s["m_0.9_low"], s["m_0.9_high"]) == (loop_raters_needed(0.8, 0.9), loop_raters_needed(0.5, 0.9))


# -------------------------------------------------------------------------------- outliers


def vs_rest_panel() -> pd.DataFrame:
    """Four good raters on 10 items; T on 5 items with ranks 1 4 2 5 3 against the others' means
    (Spearman 0.5 exactly, and n = min_overlap), M at 0.4, H above 0.5, L reversed."""
    rows = [("d", f"i{i}", f"G{g}", i + (off if i % 2 else -off)) for g, off in enumerate([0, 0.25, -0.25, 0.5])
            for i in range(10)]  # fmt: skip
    rows += [("d", f"i{i}", "T", s) for i, s in zip([1, 3, 5, 7, 9], [1.0, 7.0, 3.0, 9.0, 5.0])]
    rows += [("d", f"i{i}", "M", s) for i, s in zip([0, 2, 4, 6, 8], [1.0, 9.0, 3.0, 5.0, 7.0])]
    rows += [("d", f"i{i}", "H", s) for i, s in zip([0, 2, 4, 6, 8, 9], [1.0, 0.0, 2.0, 6.0, 3.0, 4.0])]
    rows += [("d", f"i{i}", "L", 9.0 - i) for i in range(7)]
    return ratings_frame(rows)


def loop_vs_rest(ratings: pd.DataFrame, min_overlap: int = 5) -> dict:
    """Each rater's Spearman with the mean of the other raters, over the items someone else rated."""
    out = {}
    for rater, own in ratings.groupby("rater"):
        mine, rest = [], []
        for item, score in zip(own["item_id"], own["score"]):
            others = ratings[(ratings["item_id"] == item) & (ratings["rater"] != rater)]["score"]
            if len(others):
                mine.append(score), rest.append(others.mean())
        out[rater] = spearmanr(mine, rest)[0] if len(mine) >= min_overlap else np.nan
    return out


def test_vs_rest_min_excludes_below_the_threshold_and_keeps_a_rater_exactly_at_it():
    """docs section 4 and select_outliers: excluded when vs_rest < threshold, so 0.5 at 0.5 stays."""
    ratings = vs_rest_panel()
    items = pd.DataFrame({"item_id": [f"i{i}" for i in range(10)]})
    report = agreement_report("d", items, ratings, ratings, NO_CALIBRATION,
                              outliers={"method": "vs_rest_min", "threshold": 0.5}, min_overlap=5)  # fmt: skip
    raters = report["raters"][report["raters"]["stage"] == "calibrated"].set_index("rater")
    vs_rest = loop_vs_rest(ratings)
    assert vs_rest["T"] == pytest.approx(0.5, abs=1e-12) and raters.loc["T", "vs_rest"] == 0.5
    for rater, value in vs_rest.items():
        assert raters.loc[rater, "vs_rest"] == pytest.approx(value, abs=1e-12), rater
    expected = {r for r, v in vs_rest.items() if round(v, 12) < 0.5}
    assert expected == {"M", "L"}  # T (at 0.5) and H, G0-G3 (above) are kept
    assert set(raters.index[raters["excluded"]]) == expected, "vs_rest_min: excluded raters"
    assert raters.loc[sorted(expected), "exclusion_reason"].str.startswith("vs_rest_min: vs_rest").all()
    assert (raters.loc[~raters["excluded"], "exclusion_reason"] == "").all()
    assert set(report["ratings"]["rater"]) == set(vs_rest) - expected
    filtered = report["agreement"].set_index(["stage", "subset"]).loc[("filtered", "all")]
    assert filtered["n_raters"] == len(vs_rest) - len(expected)


def sd_panel(seed: int = 10) -> np.ndarray:
    """16 items x 10 raters, 8 to 16 ratings each, noise SD from 0.5 to 4, scores 0-6."""
    rng = np.random.default_rng(seed)
    noise = [0.5, 0.7, 0.9, 1.0, 1.2, 1.4, 1.6, 2.0, 2.5, 4.0]
    truth = rng.uniform(0, 6, 16)
    X = np.full((16, len(noise)), np.nan)
    for j, sd in enumerate(noise):
        rated = rng.choice(16, 8 + j % 5 * 2, replace=False)
        X[rated, j] = np.clip(np.rint(truth[rated] + rng.normal(0, sd, len(rated))), 0, 6)
    return X


def test_pairwise_sd_cuts_once_at_mean_minus_k_sd_with_ddof_1():
    """avg_pairwise < mean - k SD (ddof=1) over the raters, decided once (docs: not iterated)."""
    X, k = sd_panel(), 1.25
    item, rater = np.nonzero(~np.isnan(X))
    ratings = ratings_frame([("d", f"i{i:02d}", f"r{j}", X[i, j]) for i, j in zip(item, rater)])
    items = pd.DataFrame({"item_id": [f"i{i:02d}" for i in range(16)]})
    report = agreement_report("d", items, ratings, ratings, NO_CALIBRATION, outliers={"method": "pairwise_sd", "k": k}, min_overlap=5)
    raters = report["raters"][report["raters"]["stage"] == "calibrated"].set_index("rater")
    rho = loop_pairwise(X)[0]
    avg = {f"r{j}": np.nanmean(rho[j]) for j in range(X.shape[1])}
    for r, value in avg.items():
        assert raters.loc[r, "avg_pairwise"] == pytest.approx(value, abs=1e-12), r
        assert raters.loc[r, "n_items"] == (~np.isnan(X[:, int(r[1:])])).sum(), r
    values = np.array(list(avg.values()))
    cut = values.mean() - k * values.std(ddof=1)
    expected = {r for r, v in avg.items() if v < cut}
    # the data tells the rule from its likely variants: ddof=0 and an iterated cut exclude more
    assert expected and {r for r, v in avg.items() if v < values.mean() - k * values.std(ddof=0)} != expected
    kept = values[values >= cut]
    assert (kept < kept.mean() - k * kept.std(ddof=1)).any()
    assert set(raters.index[raters["excluded"]]) == expected, f"pairwise_sd: cut {cut:.4f}"
    assert set(report["ratings"]["rater"]) == set(avg) - expected


# -------------------------------------------------------------------------------- calibration


def calibration_panel() -> pd.DataFrame:
    """Unbalanced and binary-exact: A 8 ratings (mean 2.5), B, C, D 2 each (2.25, 4.25, 4.5), E and
    F 1 each (5.0). The mean of all 16 scores is 3.25, so B and C sit at d = -1 and +1 exactly; the
    mean of the raters' means is 3.92."""
    scores = {"A": [0.0, 1.0, 2.0, 2.5, 3.0, 3.5, 4.0, 4.0], "B": [1.5, 3.0], "C": [3.5, 5.0],
              "D": [3.0, 6.0], "E": [5.0], "F": [5.0]}  # fmt: skip
    start = {"A": 0, "B": 0, "C": 2, "D": 4, "E": 6, "F": 7}
    return ratings_frame([("c", f"i{start[r] + n}", r, x) for r, xs in scores.items() for n, x in enumerate(xs)])


def test_shift_uses_the_mean_of_all_scores_and_a_strict_threshold():
    """d_r = mean_r - mean(all scores); shifted by step towards the mean only when |d_r| > threshold."""
    ratings, low, high, threshold, step = calibration_panel(), 0.0, 6.0, 1.0, 1.0
    cal, table = calibrate(ratings, (low, high), "shift", threshold=threshold, step=step)
    overall = sum(ratings["score"]) / len(ratings)
    means = {r: sum(g["score"]) / len(g) for r, g in ratings.groupby("rater")}
    assert overall == 3.25 and np.mean(list(means.values())) == pytest.approx(3.9167, abs=1e-4)
    expected = {}
    for r, mean in means.items():
        d = mean - overall
        shift = -step if d > threshold else step if d < -threshold else 0.0
        expected[r] = (mean, d, shift)
    # the data tells the rule from its likely variants: B and C sit on the threshold, and with the
    # mean of the raters' means A (d -1.42) and D (d 0.58) would change sides
    assert expected["B"][1] == -threshold and expected["C"][1] == threshold
    assert {r for r, e in expected.items() if e[2]} == {"D", "E", "F"}
    t = table.set_index("rater")
    assert list(t.columns) == ["dataset", "n_items", "mean_score", "calib_diff", "calib_shift", "n_changed"]
    old = {(row.item_id, row.rater): row.score for row in ratings.itertuples()}
    new = {}
    for (item, r), x in old.items():
        new[(item, r)] = x if x in (low, high) else min(max(x + expected[r][2], low), high)
    for r, (mean, d, shift) in expected.items():
        assert t.loc[r, "n_items"] == (ratings["rater"] == r).sum(), r
        assert (t.loc[r, "mean_score"], t.loc[r, "calib_diff"]) == (mean, d), f"{r}: mean, d_r"
        assert t.loc[r, "calib_shift"] == shift, f"{r}: d_r {d} against threshold {threshold}"
        assert t.loc[r, "n_changed"] == sum(new[key] != old[key] for key in old if key[1] == r), r
    got = {(row.item_id, row.rater): (row.score, row.raw_score) for row in cal.itertuples()}
    assert got == {key: (new[key], old[key]) for key in old}
