"""Split-half reliability and the Spearman-Brown projection: hand-computed cases, a plain loop over
splits with scipy, the published Rare Words figure (SOURCE.txt), and the projection from small
panels checked against the reliability observed with the whole panel of real datasets."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from simgold.stages.reliability import projection, reliability_projection
from simgold.stats.resampling import random_halves
from simgold.stats.reliability import (
    raters_needed,
    rating_splits,
    single_rater,
    spearman_brown,
    split_half_correlations,
)


def test_formulas_by_hand():
    assert spearman_brown(0.5, 2) == pytest.approx(2 / 3)
    assert single_rater(0.8, 4) == pytest.approx(0.8 / (4 - 3 * 0.8))  # 0.5
    r1 = single_rater(0.8, 4)
    # the projection to 2h raters is the Spearman-Brown doubling of r_half (the same quantity)
    assert spearman_brown(r1, 8) == pytest.approx(spearman_brown(0.8, 2), abs=1e-15)
    # m = R (1 - r1) / (r1 (1 - R)): r1 = 0.3, R = 0.8 -> 0.8 * 0.7 / (0.3 * 0.2) = 9.33 -> 10
    assert raters_needed(0.3, 0.8) == 10.0
    assert raters_needed(0.3, 0.9) == 21.0  # 0.9 * 0.7 / (0.3 * 0.1) = 21.0 exactly
    assert raters_needed(0.85, 0.8) == 1.0
    assert np.isnan(raters_needed(0.0, 0.8)) and np.isnan(raters_needed(-0.1, 0.8))
    assert np.isnan(raters_needed(np.nan, 0.8))


def test_split_half_by_hand_with_missing_ratings():
    nan = np.nan
    X = np.array(
        [
            [1, 2, 1, 1],
            [3, nan, 2, 4],  # one rating in the first half
            [5, 4, 5, 5],
            [2, 4, 3, 1],
            [nan, nan, 4, 4],  # no rating in the first half: left out
            [0, 1, 0, 2],
        ]
    )
    out = split_half_correlations(X, np.array([[True, True, False, False], [True, False, True, False]]))
    # split 0: first half means 1.5, 3, 4.5, 3, 0.5; second 1, 3, 5, 2, 1 (items 0-3 and 5)
    first, second = [1.5, 3, 4.5, 3, 0.5], [1, 3, 5, 2, 1]
    assert out["r_half"][0] == pytest.approx(spearmanr(first, second)[0], abs=1e-15)
    assert out["n_items"][0] == 5
    assert out["h"][0] == pytest.approx((2 + 1.5 + 2 + 2 + 2) / 5)  # item 1 has 1 + 2 ratings
    # split 1: raters {0, 2} against {1, 3}; item 4 has one rating on each side
    first = [1, 2.5, 5, 2.5, 4, 0]
    second = [1.5, 4, 4.5, 2.5, 4, 1.5]
    assert out["r_half"][1] == pytest.approx(spearmanr(first, second)[0], abs=1e-15)
    assert out["n_items"][1] == 6


def test_random_halves_against_a_plain_loop():
    rng = np.random.default_rng(5)
    X = rng.integers(0, 7, (40, 9)).astype(float)
    X[rng.random(X.shape) < 0.2] = np.nan
    halves = random_halves(9, 30, np.random.default_rng(1))
    assert (halves.sum(axis=1) == 4).all()
    out = split_half_correlations(X, halves)
    for s, first in enumerate(halves):
        a = np.array([np.nanmean(row[first]) if (~np.isnan(row[first])).any() else np.nan for row in X])
        b = np.array([np.nanmean(row[~first]) if (~np.isnan(row[~first])).any() else np.nan for row in X])
        ok = ~np.isnan(a) & ~np.isnan(b)
        assert out["r_half"][s] == pytest.approx(spearmanr(a[ok], b[ok])[0], abs=1e-12)
        assert out["n_items"][s] == ok.sum()


def test_rating_splits_against_a_plain_loop():
    """Raters are slots (Rare Words): each item's ratings split at random, floor(m/2) first."""
    rng = np.random.default_rng(2)
    counts = rng.integers(2, 8, 60)
    item = np.repeat(np.arange(60), counts)
    truth = rng.normal(size=60)
    score = np.clip(np.rint(3 * truth[item] + 5 + rng.normal(size=len(item))), 0, 10)  # 0-10 like RW
    out = rating_splits(item, score, 60, 25, np.random.default_rng(9))
    keys = np.random.default_rng(9).random((25, len(item)))  # the same draws, used by hand
    for s in range(25):
        a, b, h = [], [], []
        for i in range(60):
            idx = np.flatnonzero(item == i)
            ordered = idx[np.argsort(keys[s, idx])]
            half = counts[i] // 2
            a.append(score[ordered[:half]].mean())
            b.append(score[ordered[half:]].mean())
            h.append(counts[i] / 2)
        assert out["r_half"][s] == pytest.approx(spearmanr(a, b)[0], abs=1e-12)
        assert out["h"][s] == pytest.approx(np.mean(h))


def _ratings(X: np.ndarray) -> pd.DataFrame:
    item, rater = np.nonzero(~np.isnan(X))
    return pd.DataFrame({"item_id": item, "rater": rater, "score": X[item, rater]})


def test_deterministic_and_seeded_by_names():
    rng = np.random.default_rng(0)
    r = _ratings(rng.normal(size=(30, 1)) + rng.normal(size=(30, 8)))
    one = reliability_projection("a", r, splits=20, seed=0)
    again = reliability_projection("a", r, splits=20, seed=0)
    other = reliability_projection("b", r, splits=20, seed=0)
    pd.testing.assert_frame_equal(one["splits"], again["splits"])
    assert not np.allclose(one["splits"]["r_half"], other["splits"]["r_half"])


def test_summary_and_curve():
    per_split = pd.DataFrame(
        {"dataset": "x", "split": range(4), "n_items": 10, "h": 3.0, "r_half": [0.75, 0.75, np.nan, 0.75]}
    )
    per_split["r_full"] = spearman_brown(per_split["r_half"].to_numpy(), 2.0)
    per_split["r1"] = single_rater(per_split["r_half"].to_numpy(), 3.0)  # 0.5
    out = projection("x", per_split, observed=6.0)
    s = out["summary"].iloc[0]
    assert s["n_splits_undefined"] == 1 and s["r1"] == pytest.approx(0.5) and s["r_full"] == pytest.approx(6 / 7)
    assert (s["m_0.8"], s["m_0.9"]) == (4.0, 9.0)
    assert s["note"] == "in 1 of 4 splits a half's item means are all equal"  # 10 items shared: a constant half
    curve = out["curve"]
    assert list(curve["m"]) == list(range(1, 51))  # max(2 x 6, 50)
    assert curve["reliability"].iloc[5] == pytest.approx(6 * 0.5 / (1 + 5 * 0.5))
    assert len(projection("x", per_split, observed=37.9)["curve"]) == 76


def test_crowd_scale_sparse_panel():
    rng = np.random.default_rng(4)
    n_items, n_raters = 2000, 1000
    X = np.clip(np.rint(rng.uniform(0, 6, (n_items, 1)) + rng.normal(0, 1.2, (n_items, n_raters))), 0, 6)
    X[rng.random(X.shape) >= 0.1] = np.nan
    out = reliability_projection("crowd", _ratings(X), splits=50, seed=0)
    s = out["summary"].iloc[0]
    assert s["n_splits_undefined"] == 0 and 0.9 < s["r_full"] < 1.0 and 45 < s["h"] < 55
    # truth variance 3 against noise variance 1.44 (before rounding and clipping): r1 near 0.65
    assert 0.5 < s["r1"] < 0.75


# -------------------------------------------------------------------------------- real data


@pytest.mark.shared
def test_rare_words_split_half_equals_source_txt(cleaned, shared_specs):
    # SOURCE.txt: "random split-half reliability (Spearman between means of two random halves of
    # each pair's ratings, 100 draws) = 0.754"
    assert shared_specs["rw"]["persistent_raters"] is False
    out = reliability_projection("rw", cleaned("rw")["ratings"], persistent_raters=False, seed=0)
    s = out["summary"].iloc[0]
    assert s["r_half"] == pytest.approx(0.754, abs=0.005)
    assert s["n_splits_undefined"] == 0


@pytest.mark.shared
@pytest.mark.parametrize("name,subset", [("dsd-da", 8), ("ws353-set1", 6), ("ws353-set2", 6), ("card660", 4)])
def test_projection_from_small_panels_predicts_the_whole_panel(cleaned, name, subset):
    """Spearman-Brown checked on data: the single-rater reliability estimated from random panels
    of a few raters predicts the split-half reliability observed with the whole panel."""
    ratings = cleaned(name)["ratings"]
    whole = reliability_projection(name, ratings, seed=0)["summary"].iloc[0]
    raters = np.sort(ratings["rater"].unique())
    rng = np.random.default_rng(0)
    predicted = []
    for k in range(12):
        panel = ratings[ratings["rater"].isin(rng.choice(raters, subset, replace=False))]
        r1 = reliability_projection(f"{name}-{k}", panel, splits=100, seed=0)["summary"]["r1"].iloc[0]
        predicted.append(spearman_brown(r1, whole["h"]))
    assert np.mean(predicted) == pytest.approx(whole["r_half"], abs=0.015)


@pytest.mark.parametrize(
    "X,note",
    [
        (np.arange(8.0)[:, None], "1 rater: no two halves to correlate"),
        (np.full((8, 4), 3.0), "no split-half correlation: in 20 of 20 splits a half's item means are all equal"),
        (
            np.array([[1.0, 2, 1, 2], [5, 4, 6, 5]]),  # two items: a Spearman needs three
            "no split-half correlation: in 20 of 20 splits the halves share fewer than 3 rated items",
        ),
        (
            np.array([[1.0, np.nan]] * 4 + [[np.nan, 2.0]] * 4) + np.arange(8.0)[:, None],  # no item shared
            "no split-half correlation: in 20 of 20 splits the halves share fewer than 3 rated items",
        ),
    ],
    ids=["one rater", "constant scores", "two items", "no item shared"],
)
def test_degenerate_panels_say_why_there_is_no_reliability(X, note):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the undefined splits are counted, not warned about
        out = reliability_projection("d", _ratings(X), splits=20, seed=0)
    s = out["summary"].iloc[0]
    assert s["n_splits_undefined"] == 20 and np.isnan(s["r_half"]) and np.isnan(s["m_0.8"]) and s["note"] == note
    assert out["curve"]["reliability"].isna().all()
