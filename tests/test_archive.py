"""Which raw inputs an archive copies, and with what checksum."""

from __future__ import annotations

import hashlib

from simgold.archive import input_records


def test_translation_files_follow_their_dataset(tmp_path):
    for name, text in (("a.tsv", "w1\tw2\n"), ("b.tsv", "x\ty\n"), ("dict.tsv", "cat\tkat\n")):
        (tmp_path / name).write_text(text, encoding="utf-8")
    dictionary = {"dictionary": {"path": "dict.tsv"}}
    datasets = {
        "open": {"sources": [{"path": "a.tsv"}], "translation": dictionary},
        "closed": {
            "sources": [{"path": "b.tsv"}],
            "translation": dictionary,
            "redistribute": False,
            "licence": "research only",
            "source": "https://example.org/b",
        },
    }
    records = {r["path"]: r for r in input_records(datasets, tmp_path)}
    assert sorted(records) == ["a.tsv", "b.tsv", "dict.tsv"]
    shared = records["dict.tsv"]
    # the dictionary of a dataset that may not be redistributed is not copied either
    assert shared["datasets"] == ["closed", "open"] and shared["redistribute"] is False
    assert shared["licence"] == "research only" and shared["source"] == "https://example.org/b"
    assert shared["sha256"] == hashlib.sha256(b"cat\tkat\n").hexdigest() and shared["size"] == 8
    assert records["a.tsv"]["redistribute"] is True and records["a.tsv"]["inside"] is True
