"""Words in their context: target spans, MiniLM's in-context vectors and the predictions made from them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from simgold.stages.cosimlex import cosimlex_scores
from simgold.stages.in_context import in_context_predictions, target_spans



@pytest.fixture(scope="module")
def demo(demo_data):
    return demo_data("demo-en-context")


def test_target_spans_use_strong_tags_then_words():
    text, spans = target_spans(
        "They <strong>Played</strong> on the <strong>court</strong> all day.", ["played", "court"]
    )
    assert text == "They Played on the court all day." and [text[a:b] for a, b in spans] == ["Played", "court"]
    text, spans = target_spans("He parked his car next to an old automobile.", ["car", "automobile"])
    assert [text[a:b] for a, b in spans] == ["car", "automobile"]
    _, spans = target_spans("No such words here.", ["tiger", "cat"])
    assert spans == [None, None]


def test_minilm_in_context_and_long_paragraphs():
    from simgold.io.minilm import get_model

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
    from simgold.io.minilm import get_model

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
    from simgold.io.minilm import get_model
    from simgold.stages.gold import gold_from_means

    t = cleaned("cosimlex-en")
    items = t["items"].head(80)
    pred = in_context_predictions("cosimlex-en", "minilm", items, get_model())
    assert not pred["oov"].any()
    gold = gold_from_means("cosimlex-en", items, t["means"], (0, 10))
    table = cosimlex_scores("cosimlex-en", "minilm", items, gold, pred).set_index("metric")["value"]
    assert table["subtask1_uncentred_pearson"] > 0.1 and table["subtask2_harmonic_mean"] > 0.3


class _UnitVectors:
    """An encoder whose two target vectors are (1, 0) and (1, 1) in every context: cosine 1/sqrt(2)."""

    def in_context_many(self, wanted, store=None, log=None):
        return [(np.array([1.0, 0.0]), np.array([1.0, 1.0])) for _ in wanted]


def test_prediction_rows_are_named_as_the_table_columns():
    from simgold.io.tables import TABLES
    from simgold.stages.in_context import PredictionRow

    assert PredictionRow._fields == TABLES["predictions"].names
    items = pd.DataFrame(
        {
            "item_id": ["a", "b"],
            "word1": ["bank", "tiger"],
            "word2": ["river", "cat"],
            "context_text": ["The bank of the river.", "A cat slept."],
        }
    )
    pred = in_context_predictions("d", "m", items, _UnitVectors())
    assert list(pred.columns) == list(PredictionRow._fields)
    pred = pred.set_index("item_id")
    assert pred.loc["a", "sim"] == pytest.approx(1 / np.sqrt(2)) and not pred.loc["a", "oov"]
    # "tiger" is not in its context: no similarity, and the missing form is named
    assert np.isnan(pred.loc["b", "sim"]) and pred.loc["b", "oov"] and pred.loc["b", "oov_words"] == "tiger"
