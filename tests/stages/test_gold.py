"""The gold standard (docs/methods.md section 5): columns by hand, shipped means, the released Danish gold."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from simgold.stages.gold import gold_from_means, gold_from_ratings, score_distribution

from ..conftest import ratings_frame


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
    dist = score_distribution("m", gold, (0, 5), 1.0).set_index("bin_low")
    assert dist["n_items"].tolist() == [1, 1, 0, 0, 2]  # 5.0 falls in the last bin [4, 5]
    assert dist.loc[4.0, "mean_of_means"] == 4.5 and dist.loc[4.0, "mean_sd"] == 1.25
    assert dist["share"].sum() == pytest.approx(1.0)


# -------------------------------------------------------------------------------- how precise the gold is


@pytest.mark.shared
@pytest.mark.parametrize("name, confidence", [("dsd-da", 0.95), ("ws353-set2", 0.9)])
def test_item_intervals_and_resolved_pairs_equal_scipy_on_real_ratings(cleaned, name, confidence):
    """Each item's t interval equals scipy.stats.t.interval on its ratings, and its share of resolved
    pairs equals a loop of scipy.stats.ttest_ind(equal_var=False) over the other items (on the
    first 80 items: 6,320 tests), at the level asked for."""
    from scipy.stats import t, ttest_ind

    tables = cleaned(name)
    items = tables["items"].sort_values("item_id").iloc[:80]
    ratings = tables["ratings"][tables["ratings"]["item_id"].isin(items["item_id"])]
    gold = gold_from_ratings(name, items, ratings, (0, 10), confidence=confidence).set_index("item_id")
    groups = {i: g["score"].to_numpy(float) for i, g in ratings.groupby("item_id")}
    assert (gold["confidence"] == confidence).all() and len(groups) == 80
    for item, scores in groups.items():
        low, high = t.interval(confidence, len(scores) - 1, loc=scores.mean(), scale=scores.std(ddof=1) / np.sqrt(len(scores)))
        assert gold.loc[item, ["ci_low", "ci_high"]].tolist() == pytest.approx([low, high], abs=1e-12)
        others = [ttest_ind(scores, groups[j], equal_var=False).pvalue < 1 - confidence for j in groups if j != item]
        assert gold.loc[item, "resolved_share"] == sum(others) / len(others)
    assert 0.2 < gold["resolved_share"].mean() < 0.95  # neither none nor all: the check has teeth


def test_item_intervals_need_two_ratings_and_shipped_means_use_their_sd_and_n():
    items = pd.DataFrame({"item_id": ["i1", "i2", "i3", "i4"]})
    rows = [("d", "i1", r, v) for r, v in zip("abcd", [4.0, 5.0, 6.0, 7.0])]
    rows += [("d", "i2", "a", 3.0)]  # one rating: no interval, no test
    rows += [("d", "i3", r, v) for r, v in zip("abc", [1.0, 1.0, 1.0])]  # raters agree: SD 0
    gold = gold_from_ratings("d", items, ratings_frame(rows), (0, 10)).set_index("item_id")
    assert gold.loc["i1", ["ci_low", "ci_high"]].round(3).tolist() == [3.446, 7.554]  # 5.5 -+ 3.182 x 1.291 / 2
    assert gold.loc[["i2", "i4"], ["ci_low", "ci_high", "resolved_share"]].isna().all().all()
    assert gold.loc["i3", ["ci_low", "ci_high"]].tolist() == [1.0, 1.0]
    assert gold.loc[["i1", "i3"], "resolved_share"].tolist() == [1.0, 1.0]  # 5.5 +- 0.65 against exactly 1
    means = pd.DataFrame({"item_id": ["i1", "i2"], "mean": [2.0, 2.5], "sd": [1.0, 1.0], "n": [25, 25]})
    shipped = gold_from_means("m", items.iloc[:2], means, (0, 5), confidence=0.9).set_index("item_id")
    assert shipped.loc["i1", "ci_high"] - 2.0 == pytest.approx(1.710882 / 5, abs=1e-6)  # t(0.95, 24) = 1.7109
    # 0.5 apart: Welch's t = 0.5 / sqrt(2 / 25) = 1.768 on 48 df, p = 0.083: resolved at 90%, not at 95%
    assert shipped["resolved_share"].tolist() == [1.0, 1.0]
    assert gold_from_means("m", items.iloc[:2], means, (0, 5), confidence=0.95)["resolved_share"].tolist() == [0.0, 0.0]
