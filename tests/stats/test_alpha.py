"""Krippendorff's alpha at every level against the `krippendorff` package (an independent
implementation), against Krippendorff's published worked example, and, where the package cannot
run (many distinct values), the integral path against the exact pairs."""

from __future__ import annotations


import krippendorff
import numpy as np
import pandas as pd
import pytest

from simgold.stats import alpha as alpha_module
from simgold.stages.agreement import alpha_table
from simgold.stats.alpha import LEVELS, alpha_from_matrix, krippendorff_alpha

from ..conftest import demo_tables


def package(X: np.ndarray, level: str) -> float:
    """The krippendorff package on an items x raters array (it wants raters x items)."""
    return float(krippendorff.alpha(reliability_data=X.T, level_of_measurement=level))


def wide(ratings: pd.DataFrame) -> np.ndarray:
    return ratings.pivot_table(index="item_id", columns="rater", values="score", aggfunc="first").to_numpy(float)


def demo_ratings(name: str) -> pd.DataFrame:
    return demo_tables(name)["ratings"]  # the session's cleaned demo (tests/conftest.py)


# -------------------------------------------------------------------------------- hand and paper


def test_krippendorff_2011_worked_example_all_levels():
    # Krippendorff (2011), "Computing Krippendorff's alpha-reliability", the 4 coders x 12 units
    # example: nominal 0.743, ordinal 0.815, interval 0.849, ratio 0.797 (the package's docstring
    # quotes the same figures)
    nan = np.nan
    data = np.array(
        [
            [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
            [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
            [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
            [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan],
        ]
    ).T
    got = {level: round(alpha_from_matrix(data, level), 3) for level in LEVELS}
    assert got == {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}


def test_hand_computed_small_case():
    # units {1, 1}, {2, 3}, {3, 3}: n = 6 pairable values
    # interval: D_o = 2 (2-3)^2 / 1 = 2; D_e = sum over ordered pairs of (c - k)^2 / 5:
    # values 1,1,2,3,3,3 -> sum_{i != j} (v_i - v_j)^2 = 2 * (6 * 33 - 13^2) = 58 -> 11.6; alpha = 1 - 2/11.6
    X = np.array([[1.0, 1.0], [2.0, 3.0], [3.0, 3.0]])
    assert alpha_from_matrix(X, "interval") == pytest.approx(1 - 2 / 11.6, abs=1e-15)
    # nominal: D_o = 2 (one unequal ordered pair, twice); D_e = (36 - (4 + 1 + 9)) / 5 = 4.4
    assert alpha_from_matrix(X, "nominal") == pytest.approx(1 - 2 / 4.4, abs=1e-15)
    # ordinal: n_1 = 2, n_2 = 1, n_3 = 3: M = 1, 2.5, 4.5; delta(2, 3) = 4, delta(1, 2) = 2.25, delta(1, 3) = 12.25
    # D_o = 2 * 4 = 8; D_e = 2 * (2*1*2.25 + 2*3*12.25 + 1*3*4) / 5 = 2 * 90 / 5 = 36
    assert alpha_from_matrix(X, "ordinal") == pytest.approx(1 - 8 / 36, abs=1e-15)
    # ratio: delta(2, 3) = 1/25; delta(1, 2) = 1/9; delta(1, 3) = 1/4
    d_e = 2 * (2 * 1 / 9 + 2 * 3 / 4 + 3 / 25) / 5
    assert alpha_from_matrix(X, "ratio") == pytest.approx(1 - (2 / 25) / d_e, abs=1e-15)


def test_undefined_cases_are_nan_and_bad_input_is_refused():
    assert np.isnan(krippendorff_alpha([1, 2, 3], [1.0, 2.0, 3.0]))  # no unit with two values
    assert np.isnan(krippendorff_alpha([1, 1, 2, 2], [4.0, 4.0, 4.0, 4.0]))  # no expected disagreement
    with pytest.raises(ValueError, match="ratio alpha needs non-negative values; found -1"):
        krippendorff_alpha([1, 1, 2, 2], [-1.0, 2.0, 3.0, 3.0], "ratio")
    with pytest.raises(ValueError, match="level 'metric': expected one of nominal, ordinal, interval, ratio"):
        krippendorff_alpha([1, 1], [1.0, 2.0], "metric")
    with pytest.raises(ValueError, match="differ in length"):
        krippendorff_alpha([1, 1, 2], [1.0, 2.0])


def test_one_unit_gives_no_alpha_and_says_why():
    """One item rated 2, 3, 4 (and any other values): D_o = D_e, so 1 - D_o / D_e is 0 whatever the
    ratings (the package's answer); it says nothing of agreement, so it is NaN with the reason."""
    for values in ([2.0, 3.0, 4.0], [1.0, 1.0, 6.0], [0.0, 5.0]):
        unit = ["a"] * len(values)
        assert package(np.array([values]), "interval") == 0.0
        assert all(np.isnan(krippendorff_alpha(unit, values, level)) for level in LEVELS)
        table = alpha_table(pd.DataFrame({"item_id": unit, "score": values}))
        assert table["alpha"].isna().all() and (table["note"] == alpha_module.ONE_UNIT).all()
        assert alpha_module.undefined_note(unit, values) == alpha_module.ONE_UNIT
    # a second unit of one value is not pairable: still one unit; a second pairable unit gives alpha
    assert np.isnan(krippendorff_alpha(["a", "a", "a", "b"], [2.0, 3.0, 4.0, 5.0]))
    assert krippendorff_alpha(["a", "a", "b", "b"], [2.0, 3.0, 4.0, 5.0]) == pytest.approx(
        package(np.array([[2.0, 3.0], [4.0, 5.0]]), "interval"), abs=1e-15
    )
    # constant scores on one unit: the constant is the reason given
    constant = alpha_module.undefined_note(["a", "a"], [3.0, 3.0])
    assert constant == "every pairable score is the same: no expected disagreement"
    assert alpha_module.undefined_note(["a", "b"], [3.0, 4.0]) == "no item has two ratings"


def test_alpha_table_notes_negative_scores_for_ratio():
    r = pd.DataFrame({"item_id": ["a", "a", "b", "b", "c"], "score": [-1.0, 0.5, 2.0, 2.5, 9.0]})
    table = alpha_table(r).set_index("level")
    assert np.isnan(table.loc["ratio", "alpha"]) and "negative" in table.loc["ratio", "note"]
    assert table.loc["interval", "alpha"] == pytest.approx(package(np.array([[-1, 0.5], [2, 2.5]]), "interval"))
    assert (table["n_units"] == 2).all() and (table["n_values"] == 4).all() and (table["n_distinct"] == 4).all()


# -------------------------------------------------------------------------------- the package


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("level", LEVELS)
def test_equals_package_on_random_data_with_missing_values(seed, level):
    rng = np.random.default_rng(seed)
    n_items, n_raters = int(rng.integers(5, 80)), int(rng.integers(2, 15))
    X = rng.integers(0, int(rng.integers(2, 11)), (n_items, n_raters)).astype(float)
    if seed % 3 == 1:  # continuous scores (calibrated, fractional)
        X = np.abs(X + rng.normal(0, 0.4, X.shape)).round(2)
    X[rng.random(X.shape) < rng.uniform(0.0, 0.5)] = np.nan
    X[0, :] = np.nan  # a unit nobody rated
    X[1, 1:] = np.nan  # a unit with one value
    assert alpha_from_matrix(X, level) == pytest.approx(package(X, level), abs=1e-9)


@pytest.mark.parametrize("name", ["demo-da", "demo-de", "demo-hr"])
@pytest.mark.parametrize("level", LEVELS)
def test_equals_package_on_demo_data(name, level):
    ratings = demo_ratings(name)
    assert len(ratings) > 100
    X = wide(ratings)
    ours = alpha_table(ratings, [level])["alpha"].iloc[0]
    assert ours == pytest.approx(package(X, level), abs=1e-9)


@pytest.mark.shared
@pytest.mark.parametrize("name", ["dsd-da", "ws353-set1", "ws353-set2", "card660", "rw", "men-experts"])
@pytest.mark.parametrize("level", LEVELS)
def test_equals_package_on_shared_datasets(cleaned, name, level):
    ratings = cleaned(name)["ratings"]
    ours = alpha_table(ratings, [level])["alpha"].iloc[0]
    assert ours == pytest.approx(package(wide(ratings), level), abs=1e-9)


@pytest.mark.shared
def test_danish_figures_of_source_txt(cleaned):
    # SOURCE.txt (computed there, not by us): alpha interval 0.599, ordinal 0.599
    table = alpha_table(cleaned("dsd-da")["ratings"]).set_index("level")["alpha"]
    assert round(table["interval"], 3) == 0.599 and round(table["ordinal"], 3) == 0.599


# -------------------------------------------------------------------------------- beyond the package


def test_ratio_integral_equals_exact_pairs(monkeypatch):
    """Many distinct values (the crowd-scale calibrated case): the integral path against the exact
    pairs of distinct values (the path the package tests cover)."""
    rng = np.random.default_rng(7)
    n_items, n_raters = 400, 30
    truth = rng.uniform(0, 6, n_items)[:, None]
    X = np.clip(truth + rng.normal(0, 1, (n_items, n_raters)), 0, None)
    X[rng.random(X.shape) < 0.5] = np.nan
    X[:3, :] = 0.0  # exact zeros: delta(0, 0) = 0, delta(0, k) = 1
    assert np.unique(X[~np.isnan(X)]).size > alpha_module.EXACT_DISTINCT
    integral = alpha_from_matrix(X, "ratio")
    monkeypatch.setattr(alpha_module, "EXACT_DISTINCT", 10**9)  # D_e: the distinct values' pairs
    assert integral == pytest.approx(alpha_from_matrix(X, "ratio"), abs=1e-13)


@pytest.mark.parametrize("scores", ["continuous", "7-point"])
def test_ratio_pair_chunks_give_the_same_value(monkeypatch, scores):
    rng = np.random.default_rng(3)
    X = rng.uniform(0, 10, (50, 9)) if scores == "continuous" else rng.integers(0, 7, (50, 9)).astype(float)
    X[rng.random(X.shape) < 0.3] = np.nan
    whole = alpha_from_matrix(X, "ratio")
    monkeypatch.setattr(alpha_module, "PAIR_CHUNK", 7)  # units (and rows of D_e's pairs) one or two at a time
    assert alpha_from_matrix(X, "ratio") == pytest.approx(whole, abs=1e-14)
    assert whole == pytest.approx(package(X, "ratio"), abs=1e-9)


def test_crowd_scale_continuous_scores_where_the_package_cannot_run():
    """1000 raters x 2000 items at 10%, continuous scores: about 200,000 distinct values (the
    package would need a 200,000 x 200,000 coincidence matrix). Ordinal and nominal are checked
    against their definitions on ranks (no ties: ordinal is interval on mid-ranks; nominal: every
    two values differ, so alpha is exactly 1 - (n - 1) sum_u m_u / (n (n - 1)) ... = 0 here)."""
    rng = np.random.default_rng(11)
    n_items, n_raters = 2000, 1000
    item = np.repeat(np.arange(n_items), n_raters)
    value = rng.uniform(0, 6, n_items)[item] + rng.normal(0, 1, len(item))
    keep = rng.random(len(item)) < 0.1
    item, value = item[keep], np.abs(value[keep])
    assert np.unique(value).size == len(value)
    interval = krippendorff_alpha(item, value, "interval")
    ranks = pd.Series(value).rank().to_numpy()
    assert krippendorff_alpha(item, value, "ordinal") == pytest.approx(krippendorff_alpha(item, ranks), abs=1e-12)
    # all values distinct: D_o = sum_u m_u (each unit's m(m-1) unequal pairs over m - 1) = n; D_e = n
    assert krippendorff_alpha(item, value, "nominal") == pytest.approx(0.0, abs=1e-12)
    ratio = krippendorff_alpha(item, value, "ratio")
    assert 0.5 < interval < 0.9 and 0.3 < ratio < 0.9


# -------------------------------------------------------------------------------- per stage and subset


def test_alpha_levels_per_stage_and_subset_equal_the_package_and_the_agreement_table(default_config, demo_data):
    """demo-da (pos subsets, shift calibration, two raters filtered out): every stage x subset x
    level equals the krippendorff package on that stage's ratings of that subset's items, and the
    interval level is the agreement table's alpha_interval."""
    from simgold.stages.agreement import agreement_report, alpha_levels
    from simgold.stages.calibrate import calibrate

    spec = default_config["datasets"]["demo-da"]
    tables = demo_data("demo-da")
    items, raw = tables["items"], tables["ratings"]
    calibrated, calibration = calibrate(raw, spec["scale"], **spec["calibration"])
    report = agreement_report("demo-da", items, raw, calibrated, calibration, subset_names=["pos"], outliers=spec["outliers"], min_overlap=5)
    stages = {"raw": raw, "calibrated": calibrated, "filtered": report["ratings"]}
    table = alpha_levels("demo-da", items, stages, ["pos"])
    subsets = sorted(set(table["subset"]))
    assert subsets[0] == "all" and len(subsets) >= 3 and report["ratings"]["rater"].nunique() == 20
    assert len(table) == 3 * len(subsets) * len(LEVELS)
    for row in table.itertuples():
        chosen = stages[row.stage]
        if row.subset != "all":
            value = row.subset.split("=", 1)[1]
            chosen = chosen[chosen["item_id"].isin(items.loc[items["pos"].astype(str) == value, "item_id"])]
        assert row.alpha == pytest.approx(package(wide(chosen), row.level), abs=1e-9), row
    interval = table[table["level"] == "interval"].set_index(["stage", "subset"])["alpha"]
    agreement = report["agreement"].set_index(["stage", "subset"])["alpha_interval"]
    assert np.allclose(interval.sort_index().to_numpy(), agreement.reindex(interval.index).sort_index().to_numpy(), atol=1e-12)


def test_alpha_levels_are_named_as_the_alpha_table_columns_after_dataset_stage_subset():
    from simgold.io.tables import TABLES
    from simgold.stats.alpha import AlphaRow

    assert TABLES["alpha"].names[:3] == ("dataset", "stage", "subset")
    assert AlphaRow._fields == TABLES["alpha"].names[3:]
    # the hand-computed small case above, as a ratings table: units {1, 1}, {2, 3}, {3, 3}
    ratings = pd.DataFrame({"item_id": ["a", "a", "b", "b", "c", "c"], "score": [1.0, 1.0, 2.0, 3.0, 3.0, 3.0]})
    table = alpha_table(ratings)
    assert list(table.columns) == list(AlphaRow._fields)
    interval = AlphaRow(*table.set_index("level", drop=False).loc["interval"])
    assert interval == AlphaRow("interval", pytest.approx(1 - 2 / 11.6, abs=1e-15), 3, 6, 3, "")
