"""The CoSimLex metrics: the official scorer's formulas, for any number of pairs and any sign."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import pearsonr, spearmanr

from simgold.stages.cosimlex import cosimlex_scores, harmonic_mean, uncentred_pearson


def test_uncentred_pearson_and_harmonic_mean():
    x, y = np.array([1.0, -2.0, 0.5]), np.array([2.0, -1.0, 0.0])
    assert uncentred_pearson(x, y) == pytest.approx((2 + 2) / np.sqrt(5.25 * 5))
    assert uncentred_pearson(np.zeros(3), y) == 0.0
    assert harmonic_mean(0.5, 0.25) == pytest.approx(1 / 3)
    assert harmonic_mean(-0.5, -0.25) == pytest.approx(-1 / 3)  # defined for negatives
    assert np.isnan(harmonic_mean(0.5, -0.25))


def _pair_items(n):
    rows = []
    for k in range(n):
        for c in (1, 2):
            rows.append((f"i{k}c{c}", f"w{k}", f"v{k}", c, "f", k + 2))
    return pd.DataFrame(rows, columns=["item_id", "word1", "word2", "context", "source_file", "source_row"])


def _official(gold1, gold2, pred1, pred2):
    """The scorer's definitions, written out independently."""
    change_g, change_p = gold2 - gold1, pred2 - pred1
    s1 = (change_g * change_p).sum() / np.sqrt((change_g**2).sum() * (change_p**2).sum())
    g = np.ravel(np.column_stack([gold1, gold2]))
    p = np.ravel(np.column_stack([pred1, pred2]))
    pr, sr = pearsonr(p, g)[0], spearmanr(p, g)[0]
    return s1, 2 * pr * sr / (pr + sr)


@pytest.mark.parametrize("n", [2, 5, 40])
def test_cosimlex_scores_follow_the_scorer_for_any_length(n):
    rng = np.random.default_rng(n)
    items = _pair_items(n)
    g1, g2 = rng.uniform(0, 10, n), rng.uniform(0, 10, n)
    p1, p2 = g1 + rng.normal(size=n), g2 + rng.normal(size=n)
    gold = pd.DataFrame({"item_id": items["item_id"], "mean": np.ravel(np.column_stack([g1, g2]))})
    pred = pd.DataFrame({"item_id": items["item_id"], "sim": np.ravel(np.column_stack([p1, p2]))})
    table = cosimlex_scores("d", "m", items, gold, pred).set_index("metric")["value"]
    s1, s2 = _official(g1, g2, p1, p2)
    assert table["subtask1_uncentred_pearson"] == pytest.approx(s1)
    assert table["subtask2_harmonic_mean"] == pytest.approx(s2)


def test_context_free_model_scores_zero_on_subtask_one_and_says_so():
    items = _pair_items(6)
    gold = pd.DataFrame({"item_id": items["item_id"], "mean": np.arange(12.0)})
    pred = pd.DataFrame({"item_id": items["item_id"], "sim": np.repeat(np.linspace(0, 1, 6), 2)})
    table = cosimlex_scores("d", "m", items, gold, pred).set_index("metric")
    assert table.loc["subtask1_uncentred_pearson", "value"] == 0.0
    assert "no change" in table.loc["subtask1_uncentred_pearson", "note"]


def test_negative_correlations_do_not_crash():
    items = _pair_items(8)
    gold = pd.DataFrame({"item_id": items["item_id"], "mean": np.arange(16.0)})
    pred = pd.DataFrame({"item_id": items["item_id"], "sim": -(np.arange(16.0) ** 1.5)})
    table = cosimlex_scores("d", "m", items, gold, pred).set_index("metric")["value"]
    assert table["subtask2_pearson"] < 0 and table["subtask2_spearman"] == -1.0 and table["subtask2_harmonic_mean"] < 0


# -------------------------------------------------------------------------------- in context


def test_cosimlex_rows_are_named_as_the_table_columns_and_say_what_was_left_out():
    from simgold.io.tables import TABLES
    from simgold.stages.cosimlex import CosimlexRow

    assert CosimlexRow._fields == TABLES["cosimlex"].names
    items = _pair_items(6)
    gold = pd.DataFrame({"item_id": items["item_id"], "mean": np.arange(12.0)})
    # a context-free model that has no similarity for the first pair's second context
    pred = pd.DataFrame({"item_id": items["item_id"][1:], "sim": np.repeat(np.linspace(0, 1, 6), 2)[1:]})
    table = cosimlex_scores("d", "m", items, gold, pred)
    assert list(table.columns) == list(CosimlexRow._fields)
    notes = table.set_index("metric")["note"]
    left_out = "1 pairs without both similarities left out"
    assert notes["subtask2_pearson"] == left_out
    assert notes["subtask1_uncentred_pearson"].endswith(f"0 by definition; {left_out}")
    assert table.set_index("metric").loc["subtask2_pearson", "n"] == 10  # five pairs, two contexts each
