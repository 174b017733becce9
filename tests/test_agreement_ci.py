"""Bootstrap CIs on agreement: every replicate against a plain loop that builds each resampled
dataset and computes the statistic with scipy.stats.spearmanr and the krippendorff package; the
point estimates against simgold.agreement; counting of undefined resamples; seeds."""

from __future__ import annotations

import doctest

import krippendorff
import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from simgold import agreement_ci
from simgold.agreement import RatingMatrix, agreement
from simgold.agreement_ci import Panel, agreement_cis, draws, point_estimates, replicates

MIN_OVERLAP = 5


def test_docstring_examples():
    assert doctest.testmod(agreement_ci).failed == 0


# -------------------------------------------------------------------------------- the plain loop


def _rho(x: np.ndarray, y: np.ndarray, min_overlap: int = MIN_OVERLAP) -> float:
    ok = ~np.isnan(x) & ~np.isnan(y)
    x, y = x[ok], y[ok]
    if len(x) < min_overlap or np.ptp(x) == 0 or np.ptp(y) == 0:
        return np.nan
    return float(spearmanr(x, y)[0])


def _nanmean(values) -> float:
    values = np.asarray(values, dtype=float)
    values = values[~np.isnan(values)]
    return float(values.mean()) if len(values) else np.nan


def _means(X: np.ndarray, columns) -> np.ndarray:
    """Row means over the given columns (NaN where none rated), to 10 decimals."""
    sub = X[:, columns]
    n = (~np.isnan(sub)).sum(axis=1)
    with np.errstate(invalid="ignore"):
        return np.where(n > 0, np.nansum(sub, axis=1) / np.maximum(n, 1), np.nan).round(10)


def loop_statistics(X: np.ndarray, who: np.ndarray) -> dict:
    """The four statistics of a resampled dataset X (items x columns); ``who[j]`` is the original
    rater of column j (copies of one rater share it)."""
    R = X.shape[1]
    pairs = [_rho(X[:, j], X[:, k]) for j in range(R) for k in range(j + 1, R) if who[j] != who[k]]
    everyone = _means(X, np.arange(R))
    vs_mean = [_rho(X[:, j], everyone) for j in range(R)]
    vs_rest = [_rho(X[:, j], _means(X, np.flatnonzero(who != who[j]))) for j in range(R)]
    try:
        alpha = float(krippendorff.alpha(reliability_data=X.T, level_of_measurement="interval"))
    except ValueError:  # the package refuses data with no pairable unit or one value
        alpha = np.nan
    return {"pairwise": _nanmean(pairs), "vs_mean": _nanmean(vs_mean), "vs_rest": _nanmean(vs_rest), "alpha_interval": alpha}


def random_panel(seed: int, n_items: int = 24, n_raters: int = 7, missing: float = 0.25) -> np.ndarray:
    rng = np.random.default_rng(seed)
    truth = rng.uniform(0, 6, n_items)[:, None]
    X = np.clip(np.rint(truth + rng.normal(0, 1.3, (n_items, n_raters))), 0, 6)  # ties: scale 0-6
    X[rng.random(X.shape) < missing] = np.nan
    return X


@pytest.mark.parametrize("seed", range(4))
def test_replicates_equal_a_scipy_loop_on_each_resampled_dataset(seed):
    X = random_panel(seed)
    rng = np.random.default_rng(100 + seed)
    item_idx, rater_idx = draws(X.shape[0], 50, rng), draws(X.shape[1], 50, rng)
    ours = replicates(Panel.from_dense(X), item_idx, rater_idx, MIN_OVERLAP)
    raters = np.arange(X.shape[1])
    for b in range(50):
        by_items = loop_statistics(X[item_idx[b]], raters)
        by_raters = loop_statistics(X[:, rater_idx[b]], rater_idx[b])
        for statistic in agreement_ci.STATISTICS:
            for scheme, expected in (("items", by_items), ("raters", by_raters)):
                got = ours[statistic, scheme][b]
                want = expected[statistic]
                assert (np.isnan(got) and np.isnan(want)) or got == pytest.approx(want, abs=1e-12), (
                    statistic, scheme, b, got, want,
                )  # fmt: skip


def test_point_estimates_equal_the_agreement_stage():
    X = random_panel(9, n_items=40, n_raters=9)
    ratings = pd.DataFrame(
        [(i, j, X[i, j]) for i in range(X.shape[0]) for j in range(X.shape[1]) if not np.isnan(X[i, j])],
        columns=["item_id", "rater", "score"],
    )
    ours = point_estimates(Panel.from_ratings(ratings), MIN_OVERLAP)
    theirs = agreement(RatingMatrix.from_ratings(ratings), MIN_OVERLAP).summary()
    for statistic in agreement_ci.STATISTICS:
        assert ours[statistic] == pytest.approx(theirs[statistic], abs=1e-12)
    for statistic, value in loop_statistics(X, np.arange(X.shape[1])).items():
        assert ours[statistic] == pytest.approx(value, abs=1e-12)


def test_undefined_resamples_are_counted():
    # rater a varies only on the last item: every item resample without it leaves a constant, so
    # the pair has no value and pairwise is undefined in exactly those resamples
    X = np.array([[0, 1], [0, 2], [0, 3], [0, 4], [0, 5], [1, 6]], dtype=float)
    ratings = pd.DataFrame([(i, j, X[i, j]) for i in range(6) for j in range(2)], columns=["item_id", "rater", "score"])
    ci = agreement_cis("x", "raw", "all", ratings, resamples=300, schemes=("items",), statistics=("pairwise",))
    rng = np.random.default_rng(agreement_ci.seed_for(0, "x", "raw", "all", "items"))
    idx = draws(6, 300, rng)
    without_last = int((~(idx == 5).any(axis=1)).sum())
    row = ci.table.iloc[0]
    assert row["n_undefined"] == without_last > 0
    assert row["note"] == f"{without_last} of 300 resamples without a value"
    assert np.isnan(ci.replicates["pairwise", "items"]).sum() == without_last


def test_deterministic_and_seeded_by_the_names():
    X = random_panel(3)
    ratings = pd.DataFrame(
        [(i, j, X[i, j]) for i in range(X.shape[0]) for j in range(X.shape[1]) if not np.isnan(X[i, j])],
        columns=["item_id", "rater", "score"],
    )
    one = agreement_cis("d", "raw", "all", ratings, resamples=60)
    again = agreement_cis("d", "raw", "all", ratings.sample(frac=1.0, random_state=1), resamples=60)
    pd.testing.assert_frame_equal(one.table, again.table)  # row order of the input does not matter
    other = agreement_cis("d", "raw", "pos=N", ratings, resamples=60)
    assert not np.array_equal(one.replicates["pairwise", "items"], other.replicates["pairwise", "items"])
    assert list(one.table["statistic"]) == ["pairwise", "pairwise", "vs_mean", "vs_mean", "vs_rest", "vs_rest",
                                            "alpha_interval", "alpha_interval"]  # fmt: skip


# -------------------------------------------------------------------------------- real data


@pytest.mark.shared
def test_danish_intervals(cleaned):
    ratings = cleaned("dsd-da")["ratings"]
    ci = agreement_cis("dsd-da", "raw", "all", ratings, resamples=1000)
    table = ci.table.set_index(["statistic", "scheme"])
    # the point estimates are the paper's figures (Figure 2, section 4.1.2) and SOURCE.txt's alpha
    assert round(table.loc[("pairwise", "items"), "value"], 3) == 0.678
    assert round(table.loc[("vs_mean", "items"), "value"], 3) == 0.823
    assert round(table.loc[("vs_rest", "items"), "value"], 3) == 0.813
    assert round(table.loc[("alpha_interval", "items"), "value"], 3) == 0.599
    assert (table["n_undefined"] == 0).all()
    assert ((table["ci_low"] < table["value"]) & (table["value"] < table["ci_high"])).all()
    # 99 items: the item intervals are a few hundredths wide, not tenths
    width = table["ci_high"] - table["ci_low"]
    assert (width.xs("items", level="scheme") < 0.2).all() and (width > 0.005).all()
