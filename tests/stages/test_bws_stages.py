"""The BWS stages: the gold standard from answers, reliability and rater filtering, MaxDiff accuracy
rows (simgold.stages.bws_gold, bws_agreement, maxdiff), on hand-computed answers and a simulated crowd."""

import numpy as np
import pandas as pd
import pytest

from simgold.stages.bws_agreement import bws_report
from simgold.stages.bws_gold import code_answers, gold_from_answers, scores_from_answers
from simgold.stages.maxdiff import maxdiff_scores
from simgold.stages.scores import ScoringSettings

from ..stats.bws_crowd import simulate

SETTINGS = {"score": "counting", "penalty": 0.01, "resamples": 200, "split_half_trials": 50, "target": 0.9}


def long_table(rows, dataset="d"):
    """One row per answer and position from (tuple, rater, items, best, worst)."""
    out = []
    for answer, (tup, rater, items, best, worst) in enumerate(rows):
        for position, item in enumerate(items, start=1):
            choice = "best" if item == best else "worst" if item == worst else ""
            out.append((dataset, answer, tup, rater, position, item, choice, "f.csv", answer + 2))
    columns = ["dataset", "answer", "tuple", "rater", "position", "item_id", "choice", "source_file", "source_row"]
    return pd.DataFrame(out, columns=columns)


# a: shown 2, best 1 (0.5); b: shown 3, best 1, worst 1 (0); c: shown 3, worst 2 (-2/3); d: shown 1, best 1 (1)
HAND = long_table(
    [
        ("t1", "r1", ["a", "b", "c"], "a", "c"),
        ("t1", "r2", ["a", "b", "c"], "b", "c"),
        ("t2", "r1", ["b", "c", "d"], "d", "b"),
    ]
)


def test_counting_gold_on_the_scale_by_hand():
    items = pd.DataFrame({"item_id": ["a", "b", "c", "d", "e"]})  # e: in no answer
    gold, scores = gold_from_answers("d", items, HAND, [1, 5], SETTINGS, confidence=0.9, seed=7)
    counting = {"a": 0.5, "b": 0.0, "c": -2 / 3, "d": 1.0}
    assert scores.set_index("item_id")["counting"].drop("e").to_dict() == pytest.approx(counting, abs=1e-15)
    assert scores.set_index("item_id")[["n_shown", "n_best", "n_worst"]].values.tolist() == [
        [2, 1, 0], [3, 1, 1], [3, 0, 2], [1, 1, 0], [0, 0, 0]
    ]  # fmt: skip
    g = gold.set_index("item_id")
    # 1..5 from -1..1: 3 + 2 x counting
    assert g["mean"].drop("e").tolist() == pytest.approx([4.0, 3.0, 3 - 4 / 3, 5.0], abs=1e-15)
    assert g["rank"].drop("e").tolist() == [2.0, 3.0, 4.0, 1.0]
    assert g["mean_unit"].drop("e").tolist() == pytest.approx([0.75, 0.5, 1 / 6, 1.0], abs=1e-15)
    assert g["n"].tolist() == [2, 3, 3, 1, 0]
    assert np.isnan(g.loc["e", ["mean", "rank", "ci_low", "ci_high"]].astype(float)).all()
    assert g["basis"].iloc[0].startswith("bws counting")
    # a and d are shown in one tuple each: no interval, a note; b and c in two
    assert scores["n_tuples"].tolist() == [1, 2, 2, 1, 0]
    assert g[["ci_low", "ci_high"]].loc[["a", "d"]].isna().all().all() and g.loc[["b", "c"], "ci_low"].notna().all()
    assert scores.set_index("item_id")["note"].loc[["a", "d"]].str.startswith("shown in a single tuple").all()
    assert (g["confidence"] == 0.9).all() and g["sd"].isna().all()
    assert scores["note"].iloc[4] == "in no answer" and scores["note"].iloc[1:3].tolist() == ["", ""]
    # a 90% interval rests on 20 resamples at least (one beyond each end): with 19, none, and a note
    few_gold, few = gold_from_answers("d", items, HAND, [1, 5], {**SETTINGS, "resamples": 19}, confidence=0.9, seed=7)
    assert few_gold[["ci_low", "ci_high"]].isna().all().all()
    assert few["note"].iloc[1:3].tolist() == ["fewer than 20 resamples show it: no 90% counting interval"] * 2
    assert few["counting"].tolist()[:4] == scores["counting"].tolist()[:4]


def test_logit_gold_spans_the_scale_and_orders_items_as_utilities():
    items = pd.DataFrame({"item_id": ["a", "b", "c", "d"]})
    gold, scores = gold_from_answers("d", items, HAND, [1, 5], {**SETTINGS, "score": "logit"}, confidence=0.95, seed=7)
    mean = gold.set_index("item_id")["mean"]
    assert mean.max() == pytest.approx(5.0) and mean.min() == pytest.approx(1.0)
    assert mean.idxmax() == "d" and mean.idxmin() == "c"  # always best, worst twice
    u = scores.set_index("item_id")["logit"]
    assert abs(u.sum()) < 1e-9  # sum to zero
    assert list(mean.sort_values().index) == list(u.sort_values().index)


def test_scores_from_answers_recompute_the_stage_scores():
    items = pd.DataFrame({"item_id": ["a", "b", "c", "d"]})
    _, scores = gold_from_answers("d", items, HAND, None, SETTINGS, confidence=0.95, seed=7)
    again = scores_from_answers(HAND[["answer", "tuple", "rater", "position", "item_id", "choice"]])
    for column in ("n_shown", "n_best", "n_worst", "counting", "logit", "logit_se"):
        np.testing.assert_allclose(again[column].to_numpy(float), scores[column].to_numpy(float), rtol=1e-12)


def test_an_item_outside_the_item_list_is_an_error():
    with pytest.raises(ValueError, match="not in the item list"):
        code_answers(HAND, ["a", "b", "c"])


def crowd_table(seed):
    crowd = simulate(seed, n_items=120, rounds=3, answers_per_tuple=4)
    a = crowd.answers
    rows = [
        (f"t{a.tuple_code[i]}", f"r{a.rater[i]:02d}", [f"i{j:03d}" for j in a.tuples[i]], f"i{a.best[i]:03d}",
         f"i{a.worst[i]:03d}")
        for i in range(len(a.best))
    ]  # fmt: skip
    return crowd, long_table(rows)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_random_clicker_is_the_rater_excluded(seed):
    crowd, table = crowd_table(seed)
    report = bws_report("d", table, outliers={"method": "pairwise_sd", "k": 1.5}, settings=SETTINGS,
                        confidence=0.95, seed=seed)  # fmt: skip
    raters = report["raters"]
    clicker = f"r{crowd.clickers[0]:02d}"
    assert raters.loc[raters["excluded"], "rater"].tolist() == [clicker]
    assert raters.set_index("rater")["n_items"].sum() == table["answer"].nunique()  # every answer, by rater
    assert set(report["answers"]["rater"]) == set(raters["rater"]) - {clicker}
    rel = report["reliability"].set_index("stage")
    assert rel.loc["raw", "n_answers"] == table["answer"].nunique()
    assert rel.loc["filtered", "n_answers"] == report["answers"]["answer"].nunique()
    assert (
        rel.loc["filtered", "shr_spearman"] > rel.loc["raw", "shr_spearman"] - 0.05
    )  # no worse for the clicker's loss
    sb = rel["shr_spearman_sb"]
    assert (sb == 2 * rel["shr_spearman"] / (1 + rel["shr_spearman"])).all()


def test_without_outliers_the_answers_pass_through():
    _, table = crowd_table(4)
    report = bws_report("d", table, outliers={"method": "none", "k": 1.0}, settings=SETTINGS, confidence=0.95, seed=4)
    assert list(report["reliability"]["stage"]) == ["raw"]
    assert report["answers"].equals(table)


def test_maxdiff_rows_by_hand_with_a_tie_for_the_majority():
    # tuple t: a best twice, b best twice (tied majority); c worst three times, a once
    table = long_table(
        [
            ("t", "r1", ["a", "b", "c"], "a", "c"),
            ("t", "r2", ["a", "b", "c"], "a", "c"),
            ("t", "r3", ["a", "b", "c"], "b", "c"),
            ("t", "r4", ["a", "b", "c"], "b", "a"),
            ("u", "r1", ["b", "c", "d"], "d", "c"),
        ]
    )
    for sims, expected in (
        ({"a": 0.1, "b": 0.9, "c": 0.0, "d": 0.5}, (0.5, 1.0)),  # u: b guessed best, d chosen; worst c right twice
        ({"a": 0.9, "b": 0.1, "c": 0.5, "d": 0.95}, (1.0, 0.0)),  # best a (tied majority) and d; worst b, b
    ):
        pred = pd.DataFrame({"item_id": list(sims), "sim": list(sims.values())})
        rows = {r.metric: r for r in maxdiff_scores("d", "m", table, pred, ScoringSettings(0, 1, 0.95))}
        assert (rows["maxdiff_best"].value, rows["maxdiff_worst"].value) == expected
        assert rows["maxdiff_accuracy"].value == sum(expected) / 2
        assert rows["maxdiff_best"].n_used == 2 and np.isnan(rows["maxdiff_best"].ci_low)


def test_maxdiff_rows_skip_a_tuple_the_model_cannot_answer():
    pred = pd.DataFrame({"item_id": ["a", "b", "c", "d"], "sim": [0.9, 0.5, 0.1, np.nan]})
    rows = maxdiff_scores("d", "m", HAND, pred, ScoringSettings(100, 1, 0.95))
    assert [(r.n_used, r.n_total) for r in rows] == [(1, 2)] * 3  # t2 holds d, which the model lacks
