"""The bad-input corpus (tests/bad_inputs/cases.yaml): each broken input gives its exact error or ledger rows."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
import yaml

from simgold.clean import clean_dataset
from simgold.config import check_config
from simgold.embeddings import load_model
from simgold.errors import SimgoldError

CORPUS = Path(__file__).parent / "bad_inputs"
CASES = yaml.safe_load((CORPUS / "cases.yaml").read_text(encoding="utf-8"))
# what every case's dataset has unless it says otherwise
DATASET = {"language": "en", "kind": "ratings", "scale": [0, 10]}
SOURCE = {"words": ["w1", "w2"], "raters": "^r\\d+$"}


def dataset_spec(given: dict) -> dict:
    return {**DATASET, **given, "sources": [{**SOURCE, **src} for src in given["sources"]]}


def raw_rating_cells(path: Path, encoding: str) -> int:
    """Rows times rater columns, plus any value in a field beyond the header (csv module, not simgold)."""
    with open(path, newline="", encoding=encoding) as fh:
        rows = list(csv.reader(fh, delimiter="," if path.suffix == ".csv" else "\t"))
    header, body = rows[0], [row for row in rows[1:] if row]
    raters = [name for name in header if re.fullmatch(r"r\d+", name)]
    return len(body) * len(raters) + sum(1 for row in body for value in row[len(header) :] if value.strip())


def run_case(case: dict):
    if "dataset" in case:
        return clean_dataset("bad", dataset_spec(case["dataset"]), base_dir=str(CORPUS))
    if "model" in case:
        return load_model(case["model"], ["cat", "dog", "car"], base_dir=str(CORPUS))
    config = dict(case["config"])
    config["datasets"] = {name: dataset_spec(spec) for name, spec in config["datasets"].items()}
    return check_config(config, base_dir=CORPUS)


def test_the_corpus_covers_the_issue():
    wanted = {
        "truncated-xlsx",
        "row-with-other-column-count",
        "ratings-outside-the-scale",
        "non-numeric-ratings",
        "rater-column-all-empty",
        "same-rater-twice",
        "unknown-language-code",
        "misspelled-config-key",
        "embedding-file-with-a-wrong-header",
        "embedding-with-nan-vectors",
        "empty-ratings-file",
        "empty-embedding-file",
        "cp1252-declared-utf-8",
    }
    assert wanted <= set(CASES)
    referenced = {src["path"] for c in CASES.values() for src in c.get("dataset", {}).get("sources", [])}
    referenced |= {c["model"]["path"] for c in CASES.values() if "model" in c}
    referenced |= {"ok.tsv"}
    assert referenced == {p.name for p in CORPUS.iterdir()} - {"cases.yaml"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input(name):
    case = CASES[name]
    if "error" in case:
        with pytest.raises(SimgoldError) as err:
            run_case(case)
        assert str(err.value) == case["error"]
        return
    if "kept" in case:  # an embedding file that must be read correctly
        table, _ = run_case(case)
        assert table["word"].tolist() == case["kept"]
        return
    tables = run_case(case)
    rejects = tables["rejects"][["source_row", "column", "raw_value", "reason", "detail"]].values.tolist()
    assert rejects == case["rejects"]
    summary = tables["summary"].iloc[0]
    assert bool(summary["ledger_balanced"])
    assert summary["raw_cells"] == len(tables["ratings"]) + len(rejects)
    # every rating cell of the file, counted here without the cleaner, is accepted or in the ledger
    source = dataset_spec(case["dataset"])["sources"][0]
    assert raw_rating_cells(CORPUS / source["path"], source.get("encoding", "utf-8")) == (
        len(tables["ratings"]) + len(rejects)
    )
    if "words" in case:
        assert tables["items"][["word1", "word2"]].values.tolist() == case["words"]
