"""The agreement stage (docs/methods.md section 4): agreement per stage and subset, outlier filtering,
rankings, on the demo's planted raters and on the real per-rater datasets (figures from the papers).
"""

from __future__ import annotations

import krippendorff
import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from simgold.stages.agreement import agreement_report, ranking_agreement, ranking_report
from simgold.stages.calibrate import calibrate
from simgold.stats.agreement_statistics import agreement_summary
from simgold.stats.rank_correlation import (
    RatingMatrix,
    agreement,
)

from ..conftest import loop_pairwise, ratings_frame

# -------------------------------------------------------------------------------- real data


@pytest.mark.shared
def test_danish_reference_figures(cleaned, shared):
    t = cleaned("dsd-da")
    m = RatingMatrix.from_ratings(t["ratings"])
    s = agreement_summary(agreement(m, min_overlap=5))
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
@pytest.mark.parametrize("name,pairwise", [("ws353-set1", 0.677), ("ws353-set2", 0.559), ("card660", None)])
def test_other_per_rater_datasets(cleaned, name, pairwise):
    m = RatingMatrix.from_ratings(cleaned(name)["ratings"])
    s = agreement_summary(agreement(m, min_overlap=5))
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
    report = agreement_report("rw", t["items"], t["ratings"], t["ratings"], pd.DataFrame(), persistent_raters=False, min_overlap=5)
    row = report["agreement"].iloc[0]
    assert np.isnan(row["pairwise"]) and "not persistent" in row["note"]
    X = RatingMatrix.from_ratings(t["ratings"], items=t["items"]["item_id"]).dense()
    assert row["alpha_interval"] == pytest.approx(
        krippendorff.alpha(reliability_data=X.T, level_of_measurement="interval"), abs=1e-12
    )
    assert report["raters"].empty


# -------------------------------------------------------------------------------- the demo's planted cases


@pytest.fixture(scope="module")
def demo(default_config, demo_data):
    return {n: (ds, demo_data(n)) for n, ds in default_config["datasets"].items()}


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
    , min_overlap=5)
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
    assert table.loc[("raw", "pos=adj"), "pairwise"] == pytest.approx(agreement_summary(agreement(sub, min_overlap=5))["pairwise"], abs=1e-12)
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
    report = agreement_report("d", items, one, one, pd.DataFrame(columns=["rater", "calib_diff", "calib_shift"]), min_overlap=5)
    row = report["agreement"].iloc[0]
    assert np.isnan(row["pairwise"]) and "1 rater" in row["note"]
    apart = ratings_frame([("d", f"i{k}", "a" if k < 3 else "b", float(k)) for k in range(6)])
    report = agreement_report("d", items, apart, apart, pd.DataFrame(columns=["rater", "calib_diff", "calib_shift"]), min_overlap=5)
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
         min_overlap=5)
        for row in report["agreement"].itertuples():
            stats = [row.pairwise, row.vs_mean, row.vs_rest, row.alpha_interval]
            if any(np.isnan(v) for v in stats):
                assert row.note, (name, row)
