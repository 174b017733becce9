"""Context significance and the CoSimLex metrics (docs/methods.md sections 7 and 8); the in-context model."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import yaml
from scipy.stats import mannwhitneyu, pearsonr, spearmanr, wilcoxon

from simgold.clean import clean_dataset
from simgold.config import check_config
from simgold.context import (
    benjamini_hochberg,
    context_summary,
    cosimlex_scores,
    harmonic_mean,
    in_context_predictions,
    significance,
    target_spans,
    uncentred_pearson,
)

from .conftest import ROOT


@pytest.fixture(scope="module")
def demo():
    config = check_config(yaml.safe_load((ROOT / "config" / "config.yaml").read_text(encoding="utf-8")), base_dir=ROOT)
    return clean_dataset("demo-en-context", config["datasets"]["demo-en-context"], base_dir=str(ROOT))


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


# -------------------------------------------------------------------------------- metrics


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


def test_target_spans_use_strong_tags_then_words():
    text, spans = target_spans(
        "They <strong>Played</strong> on the <strong>court</strong> all day.", ["played", "court"]
    )
    assert text == "They Played on the court all day." and [text[a:b] for a, b in spans] == ["Played", "court"]
    text, spans = target_spans("He parked his car next to an old automobile.", ["car", "automobile"])
    assert [text[a:b] for a, b in spans] == ["car", "automobile"]
    _, spans = target_spans("No such words here.", ["tiger", "cat"])
    assert spans == [None, None]


@pytest.mark.shared
def test_minilm_static_vectors_equal_the_reference_file(shared):
    from gensim.models import KeyedVectors

    from simgold.minilm import get_model

    ref = KeyedVectors.load_word2vec_format(
        str(shared / "embeddings/all-MiniLM-L6-v2-static/all-MiniLM-L6-v2.ws353-simlex999.w2v.txt")
    )
    words = ref.index_to_key[::40]
    np.testing.assert_allclose(get_model().static(words), ref[words], atol=1e-6)


def test_minilm_in_context_and_long_paragraphs():
    from simgold.minilm import get_model

    model = get_model()
    river = "He fished from the muddy bank of the river."
    money = "She put her money in the bank on Monday."
    # character spans of the target words, found in the text rather than counted by hand
    span = lambda text, word: (text.index(word), text.index(word) + len(word))  # noqa: E731
    assert river[slice(*span(river, "bank"))] == "bank"
    b1, r = model.in_context(river, [span(river, "bank"), span(river, "river")])
    b2, m = model.in_context(money, [span(money, "bank"), span(money, "money")])
    cos = lambda a, b: float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))  # noqa: E731
    assert cos(b1, r) < cos(b2, m) and cos(b1, b2) < 0.95  # the same word, two different vectors
    long = ("The weather was calm. " * 150) + "He fished from the muddy bank of the river."
    start = long.index("bank")
    v = model.in_context(long, [(start, start + 4)])[0]
    assert v is not None and np.isfinite(v).all()


def test_in_context_predictions_on_the_demo(demo):
    from simgold.minilm import get_model

    pred = in_context_predictions("d", "minilm", demo["items"], get_model())
    assert not pred["oov"].any() and pred["sim"].notna().all()
    items = demo["items"].set_index("item_id")
    sims = pred.set_index("item_id")["sim"]
    # bank/shore is closer by the river than at the bank
    one = items[(items["word1"] == "bank") & (items["context"] == 1)].index[0]
    two = items[(items["word1"] == "bank") & (items["context"] == 2)].index[0]
    assert sims[one] > sims[two]


@pytest.mark.shared
def test_in_context_subtask_one_is_not_zero_on_cosimlex(cleaned):
    from simgold.gold import gold_from_means
    from simgold.minilm import get_model

    t = cleaned("cosimlex-en")
    items = t["items"].head(80)
    pred = in_context_predictions("cosimlex-en", "minilm", items, get_model())
    assert not pred["oov"].any()
    gold = gold_from_means("cosimlex-en", items, t["means"], (0, 10))
    table = cosimlex_scores("cosimlex-en", "minilm", items, gold, pred).set_index("metric")["value"]
    assert table["subtask1_uncentred_pearson"] > 0.1 and table["subtask2_harmonic_mean"] > 0.3
