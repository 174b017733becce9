"""Comparisons made from ratings and rankings (docs/methods.md section 6), against plain Python loops
written here from the definitions: the same rows, in the same order, with the same values."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from simgold.stages.comparisons import from_rankings, from_ratings


def loop_from_ratings(items: pd.DataFrame, ratings: pd.DataFrame) -> list[tuple]:
    """Per target word, its partners sorted by (word, item); r = share of the raters who rated
    both items that scored the first higher, a tie counting one half; swapped when r < 0.5."""
    score = {}
    for it, rater, s in zip(ratings["item_id"], ratings["rater"], ratings["score"]):
        score.setdefault((it, rater), s)  # the first score of a rater for an item
    raters_of = {}
    for it, rater in score:
        raters_of.setdefault(it, set()).add(rater)
    by_word = {}
    for it, w1, w2 in zip(items["item_id"], items["word1"], items["word2"]):
        if it in raters_of and w1 != w2:
            by_word.setdefault(w1, []).append((w2, it))
            by_word.setdefault(w2, []).append((w1, it))
    rows = []
    for target in sorted(by_word):
        partners = sorted(by_word[target])
        for i, (a, ia) in enumerate(partners):
            for b, ib in partners[i + 1 :]:
                both = sorted(raters_of[ia] & raters_of[ib])
                if a == b or not both:
                    continue
                wins = sum(
                    1.0 if score[ia, r] > score[ib, r] else 0.5 if score[ia, r] == score[ib, r] else 0.0 for r in both
                )
                rows.append(_oriented(target, a, b, "positive", wins / len(both), len(both)))
    return rows


def loop_from_rankings(rankings: pd.DataFrame) -> list[tuple]:
    """Per target: positives sorted, then the others sorted; every positive against every later
    candidate; r = share of the raters who ranked both that ranked the first higher (rank 1 first)."""
    rows = []
    for target in sorted(rankings["target"].unique()):
        g = rankings[rankings["target"] == target]
        category, rank = {}, {}
        for c, cat, rater, k in zip(g["candidate"], g["category"], g["rater"], g["rank"]):
            category.setdefault(c, cat)
            rank[c, rater] = k
        raters = set(g["rater"])
        order = sorted(c for c in category if category[c] == "positive")
        n_positive = len(order)
        order += sorted(c for c in category if category[c] != "positive")
        for i in range(n_positive):
            for j in range(i + 1, len(order)):
                a, b = order[i], order[j]
                both = [r for r in raters if (a, r) in rank and (b, r) in rank]
                if j < n_positive:
                    if both:
                        r = sum(rank[a, x] < rank[b, x] for x in both) / len(both)
                        rows.append(_oriented(target, a, b, "positive", r, len(both)))
                else:
                    rows.append(_oriented(target, a, b, category[b], 1.0, len(both)))
    return rows


def _oriented(target, a, b, kind, r, n) -> tuple:
    return (target, b, a, kind, 1.0 - r, n, True) if r < 0.5 else (target, a, b, kind, r, n, False)


def as_rows(table: pd.DataFrame) -> list[tuple]:
    cols = ["target", "w1", "w2", "type", "r", "n_raters", "tie_to_w1"]
    return [(t, a, b, k, float(r), int(n), bool(tie)) for t, a, b, k, r, n, tie in table[cols].itertuples(index=False)]


def random_ratings(seed: int, n_words=25, n_items=120, n_raters=9):
    rng = np.random.default_rng(seed)
    words = [f"w{k:02d}" for k in range(n_words)]
    pairs = rng.integers(0, n_words, size=(n_items, 2))
    pairs[:3, 1] = pairs[:3, 0]  # a word paired with itself: no comparison
    pairs[3] = pairs[4]  # a pair listed twice (two items): not compared with itself
    items = pd.DataFrame(
        {
            "item_id": [f"i{k:03d}" for k in range(n_items)],
            "word1": [words[a] for a in pairs[:, 0]],
            "word2": [words[b] for b in pairs[:, 1]],
        }
    )
    mask = rng.random((n_items, n_raters)) < 0.6
    mask[-5:] = False  # items nobody rated
    item, rater = np.nonzero(mask)
    ratings = pd.DataFrame(
        {
            "item_id": items["item_id"].to_numpy()[item],
            "rater": [f"r{k}" for k in rater],
            "score": rng.integers(0, 4, len(item)).astype(float),
        }
    )
    extra = ratings.iloc[:4].assign(score=9.0)  # a second score for the same rater and item: the first counts
    return items, pd.concat([ratings, extra], ignore_index=True)


@pytest.mark.parametrize("seed", range(5))
def test_from_ratings_equals_the_loop(seed):
    items, ratings = random_ratings(seed)
    table = from_ratings("d", items, ratings)
    expected = loop_from_ratings(items, ratings)
    assert as_rows(table) == expected and len(expected) > 50
    assert table["tie_to_w1"].any() and (table["r"] >= 0.5).all()


def random_rankings(seed: int, n_targets=8, n_raters=6):
    rng = np.random.default_rng(seed)
    rows = []
    for t in range(n_targets):
        cands = [(f"p{t}{k}", "positive") for k in range(int(rng.integers(2, 6)))]
        cands += [(f"d{t}{k}", "distractor") for k in range(int(rng.integers(0, 3)))]
        cands += [(f"x{t}{k}", "random") for k in range(int(rng.integers(0, 2)))]
        for r in range(n_raters):
            shown = [c for c in cands if rng.random() < 0.8]  # a rater may not rank every candidate
            for k, i in enumerate(rng.permutation(len(shown)), start=1):
                rows.append((f"t{t}", f"r{r}", shown[i][0], shown[i][1], k))
    return pd.DataFrame(rows, columns=["target", "rater", "candidate", "category", "rank"])


@pytest.mark.parametrize("seed", range(5))
def test_from_rankings_equals_the_loop(seed):
    rankings = random_rankings(seed)
    table = from_rankings("d", rankings)
    expected = loop_from_rankings(rankings)
    assert as_rows(table) == expected and len(expected) > 20
    assert set(table["type"]) <= {"positive", "distractor", "random"}


def test_a_rater_ranking_a_candidate_twice_is_an_error():
    rankings = random_rankings(0)
    with pytest.raises(ValueError, match="twice"):
        from_rankings("d", pd.concat([rankings, rankings.iloc[:1]]))


@pytest.mark.shared
@pytest.mark.parametrize("name", ["ws353-set1", "card660", "men-experts"])
def test_shared_per_rater_datasets_equal_the_loop(cleaned, name):
    t = cleaned(name)
    table = from_ratings(name, t["items"], t["ratings"])
    assert as_rows(table) == loop_from_ratings(t["items"], t["ratings"])
    if name == "men-experts":  # MEN's two experts joined through word_forms: 35,844 comparisons over 709 targets
        assert len(table) == 35844 and table["target"].nunique() == 709
