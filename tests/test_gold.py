"""The gold standard (docs/methods.md section 5): columns by hand, shipped means, the released Danish gold."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from simgold.stages.gold import gold_from_means, gold_from_ratings, score_distribution

from .conftest import ratings_frame


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
