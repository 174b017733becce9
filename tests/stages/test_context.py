"""Context significance (docs/methods.md section 8): per-pair tests, q-values and the shipped p-values."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import mannwhitneyu, wilcoxon

from simgold.stages.context import context_summary, significance
from simgold.stats.multiple import benjamini_hochberg



@pytest.fixture(scope="module")
def demo(demo_data):
    return demo_data("demo-en-context")


def test_mann_whitney_equals_scipy_on_the_same_rating_sets(demo):
    tests = significance("d", demo["items"], demo["ratings"], demo["means"])
    r = demo["ratings"]
    for t in tests.itertuples():
        x = r.loc[r["item_id"] == t.item1, "score"].to_numpy()
        y = r.loc[r["item_id"] == t.item2, "score"].to_numpy()
        ref = mannwhitneyu(x, y, alternative="two-sided")
        assert (t.statistic, t.p) == pytest.approx((ref.statistic, ref.pvalue), abs=1e-15)
        assert (t.n1, t.n2, t.mean1, t.sd2) == (len(x), len(y), pytest.approx(x.mean()), pytest.approx(y.std(ddof=1)))
    assert tests["recomputed"].all() and set(tests["test"]) == {"Mann-Whitney U (two-sided)"}


def test_planted_context_effects_are_found(demo):
    tests = significance("d", demo["items"], demo["ratings"], demo["means"]).set_index("word1")
    strong = ["bank", "bat", "plant", "spring", "crane", "star", "mouse", "court"]
    null = ["car", "cat", "coffee", "happy", "king", "teacher"]
    assert (tests.loc[strong, "q"] < 0.05).all()
    assert (tests.loc[null, "p"] >= 0.05).sum() >= 5


def test_wilcoxon_pairs_the_raters_who_rated_both_contexts():
    items = pd.DataFrame(
        {
            "item_id": ["a1", "a2"],
            "word1": ["x", "x"],
            "word2": ["y", "y"],
            "context": [1, 2],
            "source_file": ["f", "f"],
            "source_row": [2, 2],
        }
    )
    c1 = [7, 8, 6, 9, 7, 8, 6, 7]
    c2 = [3, 4, 5, 2, 4, 5, 3, 9]
    ratings = pd.DataFrame(
        [("a1", f"r{k}", v) for k, v in enumerate(c1)]
        + [("a2", f"r{k}", v) for k, v in enumerate(c2)]
        + [("a2", "extra", 1)],
        columns=["item_id", "rater", "score"],
    )
    t = significance("d", items, ratings, None, test="wilcoxon").iloc[0]
    ref = wilcoxon(c1, c2)
    assert (t.statistic, t.p) == pytest.approx((ref.statistic, ref.pvalue)) and t.test.startswith("Wilcoxon")


def test_benjamini_hochberg_by_hand():
    p = np.array([0.01, 0.04, 0.03, np.nan, 0.20])
    # sorted 0.01, 0.03, 0.04, 0.20 (m = 4): 0.04, 0.06, 0.0533, 0.20 -> step-up minima 0.04, 0.0533, 0.0533, 0.20
    np.testing.assert_allclose(benjamini_hochberg(p), [0.04, 0.16 / 3, 0.16 / 3, np.nan, 0.20], equal_nan=True)


def test_benjamini_hochberg_equals_the_step_up_rule_with_missing_p_values():
    rng = np.random.default_rng(4)
    p = np.round(rng.uniform(size=60) ** 2, 2)  # ties
    p[rng.random(60) < 0.2] = np.nan
    ok = np.flatnonzero(~np.isnan(p))
    m = len(ok)
    expected = np.full(60, np.nan)
    for i in ok:  # q_i = min over the p-values at least as large of p_j m / rank_j, at most 1
        larger = p[ok][p[ok] >= p[i]]
        ranks = np.array([(p[ok] <= v).sum() for v in larger])
        expected[i] = min(1.0, (larger * m / ranks).min())
    np.testing.assert_allclose(benjamini_hochberg(p), expected, rtol=1e-15, equal_nan=True)
    assert np.isnan(benjamini_hochberg(np.array([np.nan, np.nan]))).all() and len(benjamini_hochberg(np.array([]))) == 0


@pytest.mark.shared
@pytest.mark.parametrize(
    "lang,pairs,below_01,below_005",
    [("en", 340, 220, 208), ("hr", 112, 73, None), ("sl", 111, 65, None), ("fi", 24, 8, None)],
)
def test_cosimlex_shipped_p_values_give_the_papers_counts(cleaned, lang, pairs, below_01, below_005):
    t = cleaned(f"cosimlex-{lang}")
    tests = significance(f"cosimlex-{lang}", t["items"], None, t["means"])
    s = context_summary(f"cosimlex-{lang}", lang, tests).iloc[0]
    assert (s.n_pairs, s.n_p_below_0_1) == (pairs, below_01)
    if below_005 is not None:
        assert s.n_p_below_0_05 == below_005
    assert not s.recomputed and tests["note"].str.contains("not recomputed").all()
    assert tests["mean1"].notna().all() and tests["sd2"].notna().all()


def test_context_pairs_are_named_as_the_context_tests_columns_after_dataset():
    from simgold.io.tables import TABLES
    from simgold.stages.context import ContextPair, context_pairs

    assert ContextPair._fields == TABLES["context_tests"].names[1:6]
    # a wide sheet (both contexts on source row 2) and a long one (the same words on rows 3 and 4)
    items = pd.DataFrame(
        {
            "item_id": ["a1", "a2", "b1", "b2"],
            "word1": ["x", "x", "cup", "tea"],
            "word2": ["y", "y", "tea", "cup"],
            "context": [1, 2, 1, 2],
            "source_file": ["f", "f", "f", "f"],
            "source_row": [2, 2, 3, 4],
        }
    )
    pairs = context_pairs(items)
    assert list(pairs.columns) == list(ContextPair._fields)
    assert [ContextPair(*r) for r in pairs.itertuples(index=False)] == [
        ContextPair("a1", "x", "y", item1="a1", item2="a2"),
        ContextPair("b1", "cup", "tea", item1="b1", item2="b2"),
    ]
