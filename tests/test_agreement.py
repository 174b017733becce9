"""Agreement, calibration, outlier filtering and gold (docs/methods.md sections 3-5).

Reference values come from scipy loops written out here, pandas' pairwise-complete
``DataFrame.corr(method="spearman")``, numpy's dense sums, the `krippendorff` package,
Krippendorff's worked example, the papers and the released Danish gold file, not from the code
under test.
"""

from __future__ import annotations

import itertools
import warnings

import krippendorff
import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

import simgold.agreement as ag
from simgold.agreement import (
    PairResult,
    RatingMatrix,
    agreement,
    krippendorff_alpha_interval,
    pairwise_spearman,
    row_sums,
    vs_reference,
)
from simgold.calibrate import calibrate
from simgold.gold import gold_from_means, gold_from_ratings, score_distribution
from simgold.reliability import agreement_report, ranking_agreement, ranking_report


def loop_pairwise(X, min_overlap=5):
    """The obvious implementation: scipy on the items both raters rated."""
    R = X.shape[1]
    rho = np.full((R, R), np.nan)
    few = constant = 0
    for a, b in itertools.combinations(range(R), 2):
        m = ~np.isnan(X[:, a]) & ~np.isnan(X[:, b])
        if m.sum() < min_overlap:
            few += 1
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = spearmanr(X[m, a], X[m, b])[0]
        if np.isnan(r):
            constant += 1
        rho[a, b] = rho[b, a] = r
    return rho, few, constant


def random_matrix(seed, n=60, R=15, density=0.6, levels=7, complete=3):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, levels, size=(n, R)).astype(float)
    X[rng.random((n, R)) > density] = np.nan
    X[:, :complete] = rng.integers(0, levels, size=(n, complete))
    X[:, complete] = np.where(np.isnan(X[:, complete]), np.nan, 3.0)  # a constant rater
    X[: n - 4, R - 1] = np.nan  # a rater who shares too few items with anyone
    return X


def spearman(X, min_overlap=5, previous=None) -> PairResult:
    return pairwise_spearman(RatingMatrix.from_dense(X), min_overlap, previous)


def small_blocks(monkeypatch):
    """Every bound tiny: many blocks of triples and rows, and ranks by sorting as well as counting."""
    monkeypatch.setattr(ag, "CHUNK_ENTRIES", 50)
    monkeypatch.setattr(ag, "BLOCK_CELLS", 40)
    monkeypatch.setattr(ag, "ROW_CELLS", 30)
    monkeypatch.setattr(ag, "RANK_TABLE_CELLS", 60)


@pytest.mark.parametrize("seed", range(6))
def test_pairwise_equals_scipy_loop(seed):
    X = random_matrix(seed, levels=3 + seed)
    res = spearman(X, min_overlap=5)
    rho, few, constant = loop_pairwise(X)
    np.testing.assert_allclose(res.dense(), rho, atol=1e-12, equal_nan=True)
    assert (res.n_few, res.n_constant) == (few, constant)
    assert res.n_pairs == int(np.triu(~np.isnan(rho), 1).sum())


def test_pairwise_with_continuous_values_and_small_blocks(monkeypatch):
    small_blocks(monkeypatch)
    rng = np.random.default_rng(7)
    X = rng.normal(size=(80, 20)).round(2)
    X[rng.random(X.shape) < 0.5] = np.nan
    X[:, :2] = rng.normal(size=(80, 2)).round(1)  # two complete raters
    np.testing.assert_allclose(spearman(X).dense(), loop_pairwise(X)[0], atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("seed", range(3))
def test_sparse_crowd_equals_pandas_pairwise_complete_corr(monkeypatch, seed):
    """Many raters with few ratings each: pandas ranks every pair on its shared items, as we do."""
    if seed == 2:
        small_blocks(monkeypatch)
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 7, size=(150, 120)).astype(float)
    X[rng.random(X.shape) > 0.15] = np.nan
    X[:, 0] = rng.integers(0, 7, 150)  # a complete rater among the others
    res = spearman(X, min_overlap=4)
    expected = pd.DataFrame(X).corr(method="spearman", min_periods=4).to_numpy().copy()
    np.fill_diagonal(expected, np.nan)
    np.testing.assert_allclose(res.dense(), expected, atol=1e-12, equal_nan=True)
    assert 0 < res.n_pairs < 120 * 119 // 2 and res.n_few > 0  # only some pairs share 4 items


def test_incremental_update_equals_full_recomputation():
    X = random_matrix(3)
    before = spearman(X)
    X2 = X.copy()
    X2[:, [1, 6]] = np.clip(X2[:, [1, 6]] + 1, 0, 6)  # a complete rater and another one
    m, m2 = RatingMatrix.from_dense(X), RatingMatrix.from_dense(X2)
    np.testing.assert_allclose(
        pairwise_spearman(m2, previous=(m, before)).dense(), loop_pairwise(X2)[0], atol=1e-12, equal_nan=True
    )
    assert pairwise_spearman(m, previous=(m, before)) is before


def test_incremental_update_when_a_rater_loses_ratings():
    # the counts of too-few and constant pairs follow the new missing values, as a full loop has them
    X = random_matrix(4)
    before = spearman(X)
    X2 = X.copy()
    X2[5:, 0] = np.nan  # rater 0 keeps 5 ratings: below min_overlap with most raters
    res = pairwise_spearman(RatingMatrix.from_dense(X2), previous=(RatingMatrix.from_dense(X), before))
    rho, few, constant = loop_pairwise(X2)
    np.testing.assert_allclose(res.dense(), rho, atol=1e-12, equal_nan=True)
    assert (res.n_few, res.n_constant) == (few, constant) and few > before.n_few


def test_restricted_pairs_equal_the_pairs_of_the_kept_raters():
    X = random_matrix(5)
    keep = np.ones(X.shape[1], dtype=bool)
    keep[[1, 4, 9]] = False
    res = spearman(X).restrict(keep)
    rho, few, constant = loop_pairwise(X[:, keep])
    np.testing.assert_allclose(res.dense(), rho, atol=1e-12, equal_nan=True)
    assert (res.n_raters, res.n_few, res.n_constant) == (keep.sum(), few, constant)


def test_rater_means_and_row_sums_are_numpys_dense_sums_to_the_bit(monkeypatch):
    small_blocks(monkeypatch)
    rng = np.random.default_rng(2)
    X = rng.normal(size=(70, 40)).round(1)  # tenths: sums depend on their order
    X[rng.random(X.shape) < 0.4] = np.nan
    rho = spearman(X, min_overlap=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(rho.rater_means(), np.nanmean(rho.dense(), axis=1))
    m = RatingMatrix.from_dense(X)
    np.testing.assert_array_equal(row_sums([(m.item, m.rater, m.score)], m.shape), np.nansum(X, axis=1))
    halves = np.round(X * 2) / 2  # on a grid of 1/2 every order gives the same sum
    m = RatingMatrix.from_dense(halves)
    np.testing.assert_array_equal(row_sums([(m.item, m.rater, m.score)], m.shape), np.nansum(halves, axis=1))


def test_argsort_ints_packed_and_not():
    rng = np.random.default_rng(0)
    for high in (50, 2**62):  # keys that fit beside their positions in 63 bits, and keys that do not
        key = rng.integers(0, high, 5000) // 7  # ties
        order = ag.argsort_ints(key)
        assert np.array_equal(key[order], np.sort(key)) and np.array_equal(np.sort(order), np.arange(5000))


def test_rating_matrix_keeps_the_last_of_two_scores_and_drops_nan():
    m = RatingMatrix.from_entries(
        np.array([1, 0, 1, 2]), np.array([0, 0, 0, 1]), np.array([3.0, 1.0, 5.0, np.nan]), ["a", "b", "c"], ["r", "s"]
    )
    expected = np.array([[1.0, np.nan], [5.0, np.nan], [np.nan, np.nan]])
    np.testing.assert_array_equal(m.dense(), expected)
    np.testing.assert_array_equal(m.subset(np.array([False, True, True])).dense(), expected[1:])
    np.testing.assert_array_equal(m.keep_raters(np.array([False, True])).dense(), expected[:, 1:])


@pytest.mark.parametrize("seed", range(4))
def test_vs_mean_and_vs_rest_equal_scipy(seed):
    X = random_matrix(seed)
    vm, vr = vs_reference(RatingMatrix.from_dense(X), min_overlap=5)
    mean = np.nanmean(X, axis=1)
    for a in range(X.shape[1]):
        m = ~np.isnan(X[:, a])
        others = np.delete(X, a, axis=1)
        has_other = (~np.isnan(others)).any(axis=1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref_m = spearmanr(X[m, a], mean[m])[0] if m.sum() >= 5 else np.nan
            rest = np.nanmean(others[m & has_other], axis=1)
            ref_r = spearmanr(X[m & has_other, a], rest)[0] if (m & has_other).sum() >= 5 else np.nan
        np.testing.assert_allclose([vm[a], vr[a]], [ref_m, ref_r], atol=1e-12, equal_nan=True)


def test_alpha_krippendorff_worked_example():
    nan = np.nan
    data = np.array(  # Krippendorff (2011), "Computing Krippendorff's alpha-reliability", 4 coders x 12 units
        [
            [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
            [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
            [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
            [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan],
        ]
    )
    assert krippendorff_alpha_interval(RatingMatrix.from_dense(data.T)) == pytest.approx(0.849, abs=5e-4)


@pytest.mark.parametrize("seed", range(4))
def test_alpha_equals_krippendorff_package(seed):
    X = random_matrix(seed)
    expected = krippendorff.alpha(reliability_data=X.T, level_of_measurement="interval")
    assert krippendorff_alpha_interval(RatingMatrix.from_dense(X)) == pytest.approx(expected, abs=1e-12)


# -------------------------------------------------------------------------------- real data


@pytest.mark.shared
def test_danish_reference_figures(cleaned, shared):
    t = cleaned("dsd-da")
    m = RatingMatrix.from_ratings(t["ratings"])
    s = agreement(m).summary()
    got = {
        k: round(s[k], 3)
        for k in (
            "pairwise",
            "pairwise_min",
            "pairwise_max",
            "vs_mean",
            "vs_mean_min",
            "vs_mean_max",
            "vs_rest",
            "mean_score",
        )
    }
    assert got == {
        "pairwise": 0.678,
        "pairwise_min": 0.288,
        "pairwise_max": 0.872,
        "vs_mean": 0.823,
        "vs_mean_min": 0.615,
        "vs_mean_max": 0.918,
        "vs_rest": 0.813,
        "mean_score": 2.805,
    }
    assert round(s["alpha_interval"], 3) == 0.599 and s["n_raters"] == 38 and s["n_pairs"] == 703
    # the alpha from an independent implementation
    assert s["alpha_interval"] == pytest.approx(
        krippendorff.alpha(reliability_data=m.dense().T, level_of_measurement="interval"), abs=1e-12
    )


@pytest.mark.shared
def test_danish_gold_equals_released_file(cleaned, shared):
    t = cleaned("dsd-da")
    gold = gold_from_ratings("dsd-da", t["items"], t["ratings"], (0, 6), t["means"])
    released = pd.read_csv(shared / "data/danish-sim/gold_sims_da.csv", sep="\t")
    ours = gold.merge(t["items"][["item_id", "word1", "word2"]], on="item_id")
    both = ours.merge(released, on=["word1", "word2"])
    assert len(both) == 99
    assert np.abs(both["mean_minmax"] - both["similarity"]).max() < 1e-9
    assert np.abs(both["mean"] - both["released_mean"]).max() < 1e-12  # all_sims_da.csv's "similarity"


@pytest.mark.shared
@pytest.mark.parametrize("name,pairwise", [("ws353-set1", 0.677), ("ws353-set2", 0.559), ("card660", None)])
def test_other_per_rater_datasets(cleaned, name, pairwise):
    m = RatingMatrix.from_ratings(cleaned(name)["ratings"])
    s = agreement(m).summary()
    if pairwise is not None:
        assert round(s["pairwise"], 3) == pairwise
    rho, _, _ = loop_pairwise(m.dense())
    assert s["pairwise"] == pytest.approx(np.nanmean(rho[np.triu_indices_from(rho, 1)]), abs=1e-12)
    assert s["alpha_interval"] == pytest.approx(
        krippendorff.alpha(reliability_data=m.dense().T, level_of_measurement="interval"), abs=1e-12
    )


@pytest.mark.shared
def test_rare_words_slots_give_alpha_only(cleaned):
    t = cleaned("rw")
    report = agreement_report("rw", t["items"], t["ratings"], t["ratings"], pd.DataFrame(), persistent_raters=False)
    row = report["agreement"].iloc[0]
    assert np.isnan(row["pairwise"]) and "not persistent" in row["note"]
    X = RatingMatrix.from_ratings(t["ratings"], items=t["items"]["item_id"]).dense()
    assert row["alpha_interval"] == pytest.approx(
        krippendorff.alpha(reliability_data=X.T, level_of_measurement="interval"), abs=1e-12
    )
    assert report["raters"].empty


# -------------------------------------------------------------------------------- calibration


def ratings_frame(rows):
    return pd.DataFrame(rows, columns=["dataset", "item_id", "rater", "score"]).assign(source_file="f", source_row=0)


def test_shift_moves_biased_raters_except_at_the_scale_ends():
    rows = []
    for i in range(6):
        rows += [
            ("d", f"i{i}", "a", float(i)),
            ("d", f"i{i}", "b", float(min(6, i + 2))),
            ("d", f"i{i}", "c", float(i)),
        ]
    cal, table = calibrate(ratings_frame(rows), (0, 6), "shift", threshold=1.0, step=1.0)
    # means: a 2.5, b 4.333, c 2.5; overall 3.111; b differs by +1.22 -> shifted down, except 6
    assert table.set_index("rater")["calib_shift"].to_dict() == {"a": 0.0, "b": -1.0, "c": 0.0}
    b = cal[cal["rater"] == "b"].sort_values("item_id")
    assert b["raw_score"].tolist() == [2.0, 3.0, 4.0, 5.0, 6.0, 6.0]
    assert b["score"].tolist() == [1.0, 2.0, 3.0, 4.0, 6.0, 6.0]
    assert (cal.loc[cal["rater"] != "b", "score"] == cal.loc[cal["rater"] != "b", "raw_score"]).all()
    assert table.set_index("rater").loc["b", "n_changed"] == 4


def test_shift_never_leaves_the_scale_on_fine_scales():
    rows = [("d", f"i{i}", "a", v) for i, v in enumerate([0.5, 0.25, 1.0, 2.0])]
    rows += [("d", f"i{i}", "b", v) for i, v in enumerate([5.0, 5.5, 6.0, 5.75])]
    cal, _ = calibrate(ratings_frame(rows), (0, 6), "shift", threshold=1.0, step=1.0)
    assert cal["score"].between(0, 6).all()
    a = cal[cal["rater"] == "a"]["score"].tolist()
    assert a == [1.5, 1.25, 2.0, 3.0]  # a is low: moved up by 1
    b = cal[cal["rater"] == "b"]["score"].tolist()
    assert b == [4.0, 4.5, 6.0, 4.75]  # 6 is the maximum and stays


def test_zscore_maps_onto_the_pooled_mean_and_sd():
    rows = [("d", f"i{i}", "a", v) for i, v in enumerate([1.0, 2.0, 3.0])]
    rows += [("d", f"i{i}", "b", v) for i, v in enumerate([4.0, 6.0, 5.0])]
    cal, _ = calibrate(ratings_frame(rows), (0, 6), "zscore")
    pooled_mean, pooled_sd = 3.5, np.std([1, 2, 3, 4, 6, 5], ddof=1)
    np.testing.assert_allclose(
        cal[cal["rater"] == "a"]["score"], [pooled_mean - pooled_sd, pooled_mean, pooled_mean + pooled_sd]
    )
    np.testing.assert_allclose(
        cal[cal["rater"] == "b"]["score"], [pooled_mean - pooled_sd, pooled_mean + pooled_sd, pooled_mean]
    )


# -------------------------------------------------------------------------------- the demo's planted cases


@pytest.fixture(scope="module")
def demo():
    import yaml

    from simgold.clean import clean_dataset
    from simgold.config import check_config

    from .conftest import ROOT

    config = check_config(yaml.safe_load((ROOT / "config" / "config.yaml").read_text(encoding="utf-8")), base_dir=ROOT)
    return {n: (ds, clean_dataset(n, ds, base_dir=str(ROOT))) for n, ds in config["datasets"].items()}


def test_demo_biased_raters_are_shifted_exactly(demo):
    ds, t = demo["demo-da"]
    cal, table = calibrate(t["ratings"], ds["scale"], **ds["calibration"])
    shifted = table[table["calib_shift"] != 0]
    assert shifted["rater"].tolist() == ["Deltager 05", "Deltager 11"] and (shifted["calib_shift"] == -1).all()
    for r in cal.itertuples():
        if r.rater in ("Deltager 05", "Deltager 11") and r.raw_score not in (0.0, 6.0):
            assert r.score == r.raw_score - 1
        else:
            assert r.score == r.raw_score


def test_demo_random_raters_and_only_they_are_excluded(demo):
    ds, t = demo["demo-da"]
    cal, table = calibrate(t["ratings"], ds["scale"], **ds["calibration"])
    report = agreement_report(
        "demo-da", t["items"], t["ratings"], cal, table, outliers=ds["outliers"], subset_names=["pos"]
    )
    raters = report["raters"]
    excluded = raters[(raters["stage"] == "calibrated") & raters["excluded"]]
    assert excluded["rater"].tolist() == ["Deltager 08", "Deltager 14"]
    assert excluded["exclusion_reason"].str.startswith("pairwise_sd: avg_pairwise").all()
    assert set(report["ratings"]["rater"]) == set(t["ratings"]["rater"]) - {"Deltager 08", "Deltager 14"}
    table = report["agreement"].set_index(["stage", "subset"])
    assert table.loc[("filtered", "all"), "n_raters"] == 20 and table.loc[("raw", "all"), "n_raters"] == 22
    assert table.loc[("filtered", "all"), "pairwise"] > table.loc[("calibrated", "all"), "pairwise"] + 0.1
    assert {s for _, s in table.index} == {"all", "pos=adj", "pos=verb", "pos=sub"}
    assert table.loc[("raw", "pos=adj"), "n_items"] == 10
    # the subset figure is the same computation on the subset's items
    adj = t["items"].loc[t["items"]["pos"] == "adj", "item_id"]
    sub = RatingMatrix.from_ratings(t["ratings"][t["ratings"]["item_id"].isin(adj)])
    assert table.loc[("raw", "pos=adj"), "pairwise"] == pytest.approx(agreement(sub).summary()["pairwise"], abs=1e-12)
    rho = loop_pairwise(sub.dense())[0]  # and the obvious loop on the subset's items
    assert table.loc[("raw", "pos=adj"), "pairwise"] == pytest.approx(
        np.nanmean(rho[np.triu_indices_from(rho, 1)]), abs=1e-12
    )


def test_rankings_pairwise_is_the_mean_over_targets(demo):
    _, t = demo["demo-he-rank"]
    ranks = t["rankings"]
    stats = ranking_agreement(ranks)
    raters = sorted(ranks["rater"].unique())
    a, b = raters[0], raters[6]  # rater_07 has one invalid (rejected) group: fewer shared targets
    values = []
    for _, g in ranks.groupby("target"):
        wide = g.pivot(index="candidate", columns="rater", values="rank")
        if a in wide and b in wide and wide[[a, b]].notna().all().all():
            values.append(spearmanr(wide[a], wide[b])[0])
    assert len(values) == 7
    assert stats.pairs.dense()[0, 6] == pytest.approx(np.mean(values), abs=1e-12)
    report = ranking_report("demo-he-rank", ranks, outliers={"method": "pairwise_sd", "k": 1.0})
    kept = report["raters"][report["raters"]["stage"] == "calibrated"]
    avg = kept.set_index("rater")["avg_pairwise"]
    expected = set(avg[avg < avg.mean() - avg.std(ddof=1)].index)
    assert set(kept.loc[kept["excluded"], "rater"]) == expected and expected


# -------------------------------------------------------------------------------- missing data


def test_one_rater_and_no_overlap_are_explained():
    items = pd.DataFrame({"item_id": [f"i{k}" for k in range(6)]})
    one = ratings_frame([("d", f"i{k}", "a", float(k % 3)) for k in range(6)])
    report = agreement_report("d", items, one, one, pd.DataFrame(columns=["rater", "calib_diff", "calib_shift"]))
    row = report["agreement"].iloc[0]
    assert np.isnan(row["pairwise"]) and "1 rater" in row["note"]
    apart = ratings_frame([("d", f"i{k}", "a" if k < 3 else "b", float(k)) for k in range(6)])
    report = agreement_report("d", items, apart, apart, pd.DataFrame(columns=["rater", "calib_diff", "calib_shift"]))
    row = report["agreement"].iloc[0]
    assert row["n_pairs"] == 0 and row["n_pairs_few_items"] == 1 and "min_overlap" in row["note"]


@pytest.mark.shared
def test_no_statistic_is_missing_without_a_note(cleaned):
    for name in ("dsd-da", "ws353-set1", "card660", "men-experts", "rw", "simverb-ratings"):
        t = cleaned(name)
        persistent = name not in ("rw", "simverb-ratings")
        report = agreement_report(
            "x",
            t["items"],
            t["ratings"],
            t["ratings"],
            pd.DataFrame(columns=["rater", "calib_diff", "calib_shift"]),
            persistent_raters=persistent,
        )
        for row in report["agreement"].itertuples():
            stats = [row.pairwise, row.vs_mean, row.vs_rest, row.alpha_interval]
            if any(np.isnan(v) for v in stats):
                assert row.note, (name, row)


# -------------------------------------------------------------------------------- gold


def test_gold_columns_by_hand():
    items = pd.DataFrame({"item_id": ["i1", "i2", "i3", "i4"]})
    rows = [("d", "i1", r, v) for r, v in zip("abc", [6.0, 5.0, 4.0])]
    rows += [("d", "i2", r, v) for r, v in zip("abc", [0.0, 0.0, 0.0])]
    rows += [("d", "i3", r, v) for r, v in zip("ab", [6.0, 4.0])]
    gold = gold_from_ratings("d", items, ratings_frame(rows), (0, 6)).set_index("item_id")
    assert gold.loc["i1", ["n", "mean", "sd", "median"]].tolist() == [3, 5.0, 1.0, 5.0]
    assert gold.loc["i1", "rsd"] == pytest.approx(20.0)
    assert np.isnan(gold.loc["i2", "rsd"])  # mean 0
    assert gold.loc["i1", "mean_unit"] == pytest.approx(5 / 6)
    assert gold["mean_minmax"].tolist()[:3] == [1.0, 0.0, 1.0]
    assert gold["rank"].tolist()[:3] == [1.5, 3.0, 1.5]  # i1 and i3 tie at 5.0
    assert gold.loc["i4", "n"] == 0 and np.isnan(gold.loc["i4", "mean"])


def test_gold_from_shipped_means_and_distribution():
    items = pd.DataFrame({"item_id": ["a", "b", "c", "d"]})
    means = pd.DataFrame(
        {"item_id": ["a", "b", "c", "d"], "mean": [0.5, 1.5, 4.0, 5.0], "sd": [1.0, 1.0, 2.0, 0.5], "n": [np.nan] * 4}
    )
    gold = gold_from_means("m", items, means, (0, 5))
    assert gold["basis"].unique().tolist() == ["shipped means"] and gold["median"].isna().all()
    dist = score_distribution("m", gold, (0, 5)).set_index("bin_low")
    assert dist["n_items"].tolist() == [1, 1, 0, 0, 2]  # 5.0 falls in the last bin [4, 5]
    assert dist.loc[4.0, "mean_of_means"] == 4.5 and dist.loc[4.0, "mean_sd"] == 1.25
    assert dist["share"].sum() == pytest.approx(1.0)
