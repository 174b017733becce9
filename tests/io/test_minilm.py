"""The batched MiniLM (src/simgold/io/minilm.py) against the one-at-a-time forward pass it replaced
(tests/minilm_reference.py), and its vectors through the vector store."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from threadpoolctl import threadpool_limits

from simgold.io.minilm import get_model
from simgold.io.vectorcache import VectorStore
from simgold.stages.in_context import in_context_predictions

from ..minilm_reference import OneAtATime, vocabulary

# words of one to six word-pieces, and an accented one
ODD = ["x", "unbelievably", "nanoseconds", "copenhagen", "naïve", "antidisestablishmentarianism", "self-evident"]


def sample() -> list[str]:
    return vocabulary()[::9] + ODD


@pytest.fixture(scope="module")
def model():
    return get_model()


@pytest.fixture(scope="module")
def reference(model):
    """The one-at-a-time pass, on one BLAS thread (its tiny products only wait for a second thread)."""
    with threadpool_limits(1, user_api="blas"):
        yield OneAtATime(model)


@pytest.fixture(scope="module")
def demo_items(demo_data):
    return demo_data("demo-en-context")["items"]


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a, b = a.astype(np.float64), b.astype(np.float64)
    return (a * b).sum(axis=1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)


def test_static_vectors_equal_the_one_at_a_time_pass(model, reference):
    words = sample()
    batched = model.static(words, threads=2)
    alone = reference.static(words)
    assert cosines(batched, alone).min() > 1 - 1e-5  # what the batching may change at most
    np.testing.assert_array_equal(batched, alone)  # and what it does change: nothing


def test_a_vector_does_not_depend_on_its_batch_or_the_threads(model):
    words = sample()
    together = model.static(words)
    np.testing.assert_array_equal(model.static(words[::-1], threads=2)[::-1], together)
    alone = np.array([model.static([w])[0] for w in words[::7]])
    np.testing.assert_array_equal(alone, together[::7])


def test_in_context_vectors_equal_the_one_at_a_time_pass(model, reference, demo_items):
    from simgold.stages.in_context import target_spans

    requests = [target_spans(it.context_text, [it.word1, it.word2]) for it in demo_items.itertuples()]
    requests.append(("No target here at all.", [(0, 2), (3, 3)]))  # a span that covers no token
    batched = model.in_context_many(requests, threads=2)
    pairs = []
    for (text, spans), got in zip(requests, batched):
        for g, r in zip(got, reference.in_context(text, spans)):
            assert (g is None) == (r is None)
            pairs += [] if r is None else [(g, r)]
    assert batched[-1][1] is None
    got, ref = np.array([g for g, _ in pairs]), np.array([r for _, r in pairs])
    assert cosines(got, ref).min() > 1 - 1e-5
    # float64 rows of a paragraph at other places of a matrix product: the last bits may differ
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-12)


def test_in_context_predictions_through_the_store_equal_an_uncached_run(model, demo_items, tmp_path, monkeypatch):
    store = VectorStore(tmp_path, model.identity("in-context"))
    plain = in_context_predictions("d", "minilm", demo_items, model)
    first = in_context_predictions("d", "minilm", demo_items, model, store=store)
    assert len(list(tmp_path.rglob("*.vectors"))) == 1

    def no_encoding(*args, **kwargs):
        raise AssertionError("everything should come from the store")

    monkeypatch.setattr(model, "encode_many", no_encoding)
    second = in_context_predictions("d", "minilm", demo_items, model, store=store)
    for table in (first, second):
        pd.testing.assert_frame_equal(table, plain, check_exact=True)
    assert plain["sim"].notna().all()


@pytest.mark.shared
def test_minilm_static_vectors_equal_the_reference_file(shared):
    from gensim.models import KeyedVectors

    from simgold.io.minilm import get_model

    ref = KeyedVectors.load_word2vec_format(
        str(shared / "embeddings/all-MiniLM-L6-v2-static/all-MiniLM-L6-v2.ws353-simlex999.w2v.txt")
    )
    words = ref.index_to_key[::40]
    np.testing.assert_allclose(get_model().static(words), ref[words], atol=1e-6)
