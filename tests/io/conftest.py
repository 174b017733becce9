"""The config every test of ``simgold.io.config`` starts from, edited per test."""

from __future__ import annotations

import pytest


@pytest.fixture
def base(tmp_path):
    (tmp_path / "raw").mkdir()
    (tmp_path / "raw" / "da.tsv").write_text("word1\tword2\tr1\nhund\tkat\t3\n")
    config = {
        "datasets": {
            "dsd-da": {
                "language": "da",
                "kind": "ratings",
                "scale": [0, 6],
                "sources": [{"path": "raw/da.tsv", "words": ["word1", "word2"], "raters": "^r\\d+$"}],
            }
        },
        "models": {"my-vectors": {"language": "da", "path": "raw/da.tsv"}},
    }
    return tmp_path, config
