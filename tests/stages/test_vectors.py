"""Vectors with no direction (a value not finite as float32, or all zeros): kept as the file holds
them, named with their lines in the embeddings job's log and in the scores' notes, never counted as
found, and no numpy warning on the way, in every reader."""

from __future__ import annotations

import logging
import warnings

import numpy as np
import pandas as pd
import pytest
from gensim.models import KeyedVectors

from simgold.api import evaluate
from simgold.io.embeddings import load_model
from simgold.stages.scores import ScoringSettings, score_dataset
from simgold.stages.vectors import NOTE_WORDS, Vectors, log_load, unusable_note

# line 1 is the header; cat, dog and car are usable; owl, eel, yak and ant are not
TEXT = (
    "7 3\n"
    "cat 0.1 0.2 0.3\n"
    "dog 0.2 0.1 0.4\n"
    "owl 1e39 0.2 0.3\n"
    "eel 0.1 nan 0.3\n"
    "yak 0.5 0.2 inf\n"
    "ant 0 0.0 -0\n"
    "car -0.5 0.0 0.25\n"
)
UNUSABLE = [
    ("owl", 4, "a value is not finite as float32 (1e+39)"),
    ("eel", 5, "a value is NaN"),
    ("yak", 6, "a value is infinite (inf)"),
    ("ant", 7, "all zeros"),
]
PAIRS = pd.DataFrame(
    {
        "item_id": [f"i{k}" for k in range(6)],
        "word1": ["cat", "cat", "Dog", "owl", "eel", "yak"],
        "word2": ["dog", "car", "car", "cat", "ant", "dog"],
    }
)
GOLD = pd.DataFrame({"item_id": PAIRS["item_id"], "mean": [4.0, 1.0, 2.0, 3.0, 5.0, 0.5]})
SETTINGS = ScoringSettings(resamples=0, seed=0, confidence=0.95)
NOTE = (
    "4 word(s) out of vocabulary by their vectors (a value not finite as float32, or all zeros): "
    "'ant' (line 7), 'eel' (line 5), 'owl' (line 4), 'yak' (line 6)"
)


def needed() -> list[str]:
    return sorted(set(PAIRS["word1"]) | set(PAIRS["word2"]))


def logged(caplog, table, report, lowercase=True) -> tuple[int, list[tuple[str, str]]]:
    log = logging.getLogger("simgold.test_vectors")
    with caplog.at_level(logging.INFO, logger=log.name):
        found = log_load(log, needed(), table, report, lowercase)
    return found, [(r.levelname, r.getMessage()) for r in caplog.records if r.name == log.name]


def test_a_text_file_names_each_unusable_word_with_its_line_in_the_log_and_the_notes(tmp_path, caplog):
    (tmp_path / "v.txt").write_text(TEXT, encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's "overflow encountered in cast" would be an error here
        table, report = load_model({"path": "v.txt"}, needed(), base_dir=str(tmp_path))
        vectors = Vectors(table, True, "skip")
        pred, scores = score_dataset("d", "m", "means", PAIRS, vectors, gold=GOLD, scoring=SETTINGS)
    assert report.unusable == UNUSABLE
    # the table keeps them as the file holds them (float32), with their lines
    assert table["word"].tolist() == ["ant", "car", "cat", "dog", "eel", "owl", "yak"]
    assert table["line"].tolist() == [7, 8, 2, 3, 5, 4, 6]
    assert np.isinf(table.set_index("word").loc["owl", "vector"][0])
    found, records = logged(caplog, table, report)
    assert found == 4  # Dog (as dog), car, cat, dog; not owl, eel, yak or ant
    assert records == [
        ("INFO", "v.txt (word2vec-text, 3 dimensions): 7 words in the file, 7 kept; 4 of 8 needed words found (50.0%)"),
        ("WARNING", "v.txt: 4 kept vector(s) all zeros or not finite as float32: out of vocabulary"),
        ("INFO", "  word 'owl' (line 4): a value is not finite as float32 (1e+39); it is out of vocabulary"),
        ("INFO", "  word 'eel' (line 5): a value is NaN; it is out of vocabulary"),
        ("INFO", "  word 'yak' (line 6): a value is infinite (inf); it is out of vocabulary"),
        ("INFO", "  word 'ant' (line 7): all zeros; it is out of vocabulary"),
    ]
    assert vectors.unusable == ["ant", "eel", "owl", "yak"]
    assert pred["oov"].tolist() == [False, False, False, True, True, True]
    rows = scores.set_index("metric")
    assert rows.loc["oov_pairs", "value"] == pytest.approx(3 / 6) and rows.loc["oov_words", "value"] == 4 / 8
    assert rows.loc["oov_pairs", "note"] == NOTE and rows.loc["oov_words", "note"] == NOTE
    assert rows.loc["spearman", "n_used"] == 3 and rows.loc["spearman", "note"] == ""


def test_a_dataset_names_only_the_unusable_words_it_needs():
    table = pd.DataFrame({"word": ["ant", "cat", "dog", "owl"], "source": "vocab", "line": [7, 2, 3, 4],
                          "vector": [np.zeros(2, np.float32), np.float32([1, 0]), np.float32([0, 1]),
                                     np.float32([np.inf, 1])]})  # fmt: skip
    pairs = pd.DataFrame({"item_id": ["a", "b"], "word1": ["cat", "Owl"], "word2": ["dog", "cat"]})
    _, scores = score_dataset("d", "m", "means", pairs, Vectors(table, True, "skip"), scoring=SETTINGS)
    note = scores.set_index("metric").loc["oov_words", "note"]
    assert note.endswith(": 'owl' (line 4)") and note.startswith("1 word(s) out of vocabulary")
    _, scores = score_dataset("d", "m", "means", pairs, Vectors(table, False, "skip"), scoring=SETTINGS)
    assert scores.set_index("metric").loc["oov_words", "note"] == ""  # Owl is not looked up as owl


def test_the_note_names_the_first_few_and_counts_the_rest():
    found = [(f"w{k:04d}", k + 2) for k in range(2500)]
    note = unusable_note(found)
    assert note.startswith("2500 word(s) out of vocabulary by their vectors")
    assert note.endswith(": 'w0000' (line 2), 'w0001' (line 3), 'w0002' (line 4), 'w0003' (line 5), "
                         "'w0004' (line 6) and 2495 more")  # fmt: skip
    assert NOTE_WORDS == 5 and len(note) < 250


def test_oov_mean_leaves_the_unusable_vectors_out_of_its_sum(tmp_path):
    (tmp_path / "v.txt").write_text(TEXT, encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, report = load_model({"path": "v.txt", "oov": "mean"}, ["cat"], base_dir=str(tmp_path))
    # cat + dog + ant + car over the 7 lines (owl, eel and yak add nothing)
    expected = np.array([0.1 + 0.2 + 0 - 0.5, 0.2 + 0.1 + 0 + 0.0, 0.3 + 0.4 + 0 + 0.25]) / 7
    np.testing.assert_allclose(report.mean, expected.astype(np.float32), rtol=1e-6)


def test_a_word2vec_binary_nan_and_zero_vector_are_named_with_their_lines(tmp_path, caplog):
    words = ["cat", "eel", "dog", "ant", "car"]
    matrix = np.float32([[0.1, 0.2, 0.3], [0.1, np.nan, 0.3], [0.2, 0.1, 0.4], [0, 0, 0], [-0.5, 0.0, 0.25]])
    kv = KeyedVectors(vector_size=3)
    kv.add_vectors(words, matrix)
    kv.save_word2vec_format(str(tmp_path / "v.bin"), binary=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table, report = load_model({"path": "v.bin", "oov": "mean"}, needed(), base_dir=str(tmp_path))
    assert report.format == "word2vec-binary"
    assert report.unusable == [("eel", 3, "a value is NaN"), ("ant", 5, "all zeros")]
    np.testing.assert_allclose(report.mean, np.float32([-0.2, 0.3, 0.95]) / 5, rtol=1e-6)  # eel adds nothing
    found, records = logged(caplog, table, report)
    assert found == 4 and records[0][1].endswith("4 of 8 needed words found (50.0%)")
    assert records[2:] == [
        ("INFO", "  word 'eel' (line 3): a value is NaN; it is out of vocabulary"),
        ("INFO", "  word 'ant' (line 5): all zeros; it is out of vocabulary"),
    ]


def test_a_saved_keyedvectors_in_float64_names_a_value_float32_cannot_hold(tmp_path):
    kv = KeyedVectors(vector_size=2, dtype=np.float64)
    kv.add_vectors(["cat", "owl", "dog"], np.array([[0.1, 0.2], [1e39, 0.5], [0.3, 0.1]]))
    kv.save(str(tmp_path / "v.kv"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table, report = load_model({"path": "v.kv"}, ["cat", "owl", "dog"], base_dir=str(tmp_path))
    assert report.format == "gensim-kv"
    assert report.unusable == [("owl", 2, "a value is not finite as float32 (1e+39)")]
    assert Vectors(table, True, "skip").unusable_for(["owl", "cat"]) == [("owl", 2)]


def test_the_notebook_api_names_a_keyedvectors_value_float32_cannot_hold():
    kv = KeyedVectors(vector_size=2, dtype=np.float64)
    kv.add_vectors(["cat", "owl", "dog", "car", "bus"], np.array([[1, 0], [1e39, 1], [1, 1], [0, 1], [1, 2]], float))
    pairs = pd.DataFrame({"word1": ["cat", "cat", "cat", "dog", "owl"],
                          "word2": ["dog", "car", "bus", "car", "cat"], "score": [3.0, 1, 2, 4, 2]})  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = evaluate(kv, pairs, resamples=0)
    assert result.oov_pairs == 0.2 and result.predictions["oov_words"].tolist() == ["", "", "", "", "owl"]
    rows = result.scores.set_index("metric")
    assert rows.loc["oov_words", "note"].endswith("(a value not finite as float32, or all zeros): 'owl' (line 2)")


def test_a_read_through_the_line_index_names_the_same_words(tmp_path, monkeypatch):
    path = tmp_path / "v.txt"
    path.write_text(TEXT, encoding="utf-8")
    monkeypatch.setenv("SIMGOLD_CACHE", str(tmp_path / "store"))
    reads = []
    for _ in range(2):  # the first scans the file and indexes it, the second reads the needed lines only
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            reads.append(load_model({"path": str(path), "oov": "mean"}, needed()))
    (first_table, first), (second_table, second) = reads
    assert "scan" in first.timings and "scan" not in second.timings and "index" in second.timings
    assert first.unusable == second.unusable == UNUSABLE
    assert first.mean.tobytes() == second.mean.tobytes()
    assert all(a.tobytes() == b.tobytes() for a, b in zip(first_table["vector"], second_table["vector"]))
