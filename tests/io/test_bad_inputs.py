"""The bad-input corpus (tests/bad_inputs/cases.yaml): each broken input gives its exact error or ledger rows.

For every case that cleans, the file's non-blank cells are also counted here, with the csv module
(or by hand for spreadsheets: the case's ``cells``), and must all be accounted for: accepted,
in the ledger with a value, or kept on the items as words and attributes.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
import yaml

from simgold.errors import SimgoldError
from simgold.io.config import check_config, load_config
from simgold.io.embeddings import load_model
from simgold.stages.clean import clean_dataset, require_accepted

CORPUS = Path(__file__).parents[1] / "bad_inputs"
CASES = yaml.safe_load((CORPUS / "cases.yaml").read_text(encoding="utf-8"))
# what every case's dataset has unless it says otherwise
DATASET = {"language": "en", "kind": "ratings", "scale": [0, 10]}
SOURCE = {"words": ["w1", "w2"], "raters": "^r\\d+$"}
HEADER = "the header row (column names)"


def dataset_spec(given: dict) -> dict:
    """The case's dataset over the defaults (a key set to null drops the default)."""
    sources = [{k: v for k, v in {**SOURCE, **src}.items() if v is not None} for src in given["sources"]]
    return {**DATASET, **given, "sources": sources}


def run_case(case: dict, monkeypatch):
    if "dataset" in case:  # as the clean_dataset job runs it
        tables = clean_dataset("bad", dataset_spec(case["dataset"]), base_dir=str(CORPUS))
        require_accepted("bad", tables)
        return tables
    if "model" in case:
        return load_model(case["model"], ["cat", "dog", "car"], base_dir=str(CORPUS))
    if "config_file" in case:  # a YAML file as the Snakefile reads it (paths relative to the corpus)
        monkeypatch.chdir(CORPUS)
        return check_config(load_config(case["config_file"]), base_dir=CORPUS)
    config = dict(case["config"])
    config["datasets"] = {name: dataset_spec(spec) for name, spec in config["datasets"].items()}
    return check_config(config, base_dir=CORPUS)


def text_cells(path: Path, src: dict) -> int:
    """Non-blank cells of a text file, counted with the csv module: a title or comment line is
    one cell, a data line as many as its non-blank fields."""
    encoding = src.get("encoding", "utf-8")
    text = path.read_bytes().decode("utf-8-sig" if encoding == "utf-8" else encoding)
    # the file's own line ending; a CR inside an LF file's line is a character of a field
    lines = [line.rstrip("\r") for line in text.split("\n")] if "\n" in text else text.split("\r")
    skipped = [
        line
        for n, line in enumerate(lines, start=1)
        if n <= src.get("skip_rows", 0) or (src.get("comment") and line.startswith(src["comment"]))
    ]
    data = [line for line in lines if line not in skipped]
    sep = src.get("sep") or {".tsv": "\t", ".csv": ","}.get(path.suffix, "whitespace")
    if sep == "whitespace":
        fields = [field for line in data for field in line.split()]
    else:
        records = csv.reader((line.replace("\r", "\x01") for line in data), delimiter=sep)
        fields = [field for record in records for field in record]
    return sum(1 for line in skipped if line.strip()) + sum(1 for field in fields if field.strip())


def accounted(tables) -> int:
    """Accepted values + ledger rows that hold a value + cells kept on the items, from the tables."""
    means = tables["means"][["mean", "sd", "n"]].notna().sum().sum()
    ledger = sum(1 for value in tables["rejects"]["raw_value"] if value.strip())
    return len(tables["ratings"]) + len(tables["rankings"]) + int(means) + ledger + tables["summary"]["label_cells"][0]


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
        # issue 12: the ledger counts the file; hostile but ordinary input
        "rater-columns-the-pattern-misses",
        "unquoted-comma-in-a-word",
        "header-repeated-mid-file",
        "joined-files-with-a-blank-line-in-one",
        "quoted-line-break-in-a-word",
        "hidden-first-sheet-xlsx",
        "hidden-first-sheet-ods",
        "zero-width-space-in-a-word",
        "stray-bom-in-a-word",
        "no-break-space-in-a-word",
        "capture-group-gives-an-empty-rater-id",
        "utf-8-declared-cp1252",
        "dataset-pasted-twice-under-one-key",
        "yaml-alias-bomb",
        "nothing-accepted",
        "pkg-path-climbing-out-of-its-package",
        "ods-row-repeated-three-million-times",
        "xlsx-declaring-a-huge-dimension",
        # issue 30: one normalisation for a word; errors name what the file is
        "lone-cr-in-a-word",
        "nul-in-a-word",
        "line-separators-in-words",
        "quoted-tab-in-a-word",
        "quoted-line-break-without-sep",
        "gzip-compressed-ratings",
        "utf-16-without-bom",
        "utf-32-with-bom",
        "encrypted-xlsx",
        "strict-ooxml-xlsx",
        "sheet-error-values-and-dates",
        "directory-as-path",
        # issue 30: hostile spreadsheets
        "ods-spaces-tabs-and-line-breaks-kept",
        "ods-row-repeated-a-negative-number-of-times",
        "ods-cell-repeated-zero-times",
        "ods-float-cells-without-a-value",
        "ods-formulas-without-cached-results",
    }
    assert wanted <= set(CASES)
    assert len(CASES) >= 60
    referenced = {"ok.tsv"}
    for case in CASES.values():
        for src in case.get("dataset", {}).get("sources", []):
            referenced |= set(src["path"]) if isinstance(src["path"], list) else {src["path"]}
    referenced |= {c["model"]["path"] for c in CASES.values() if "model" in c}
    referenced |= {c["config_file"] for c in CASES.values() if "config_file" in c}
    files = {p.name for p in CORPUS.iterdir()} - {"cases.yaml"}
    assert {r for r in referenced if not r.startswith("pkg:")} == files


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input(name, monkeypatch):
    case = CASES[name]
    if "error" in case:
        with pytest.raises(SimgoldError) as err:
            run_case(case, monkeypatch)
        assert str(err.value) == case["error"]
        return
    if "kept" in case:  # an embedding file that must be read correctly
        table, report = run_case(case, monkeypatch)
        assert table["word"].tolist() == case["kept"]
        assert [list(u) for u in report.unusable] == case.get("unusable", [])
        return
    result = run_case(case, monkeypatch)
    if "config_file" in case:
        assert sorted(result["datasets"]) == case["datasets"]
        return
    tables = result
    ledger = tables["rejects"]
    rows = ledger[ledger["detail"] != HEADER][["source_row", "column", "raw_value", "reason", "detail"]]
    assert rows.values.tolist() == case["rejects"]
    if "words" in case:
        assert tables["items"][["word1", "word2"]].values.tolist() == case["words"]
    if "n_items" in case:
        assert len(tables["items"]) == case["n_items"] and len(tables["ratings"]) == case["n_ratings"]
    for attribute, values in case.get("attributes", {}).items():
        assert tables["items"][attribute].tolist() == values
    # the ledger counts the file: every non-blank cell, counted here, is accounted for exactly once
    source = dataset_spec(case["dataset"])["sources"][0]
    paths = source["path"] if isinstance(source["path"], list) else [source["path"]]
    cells = case.get("cells") or sum(text_cells(CORPUS / path, source) for path in paths)
    summary = tables["summary"].iloc[0]
    assert summary["raw_cells"] == cells and accounted(tables) == cells and bool(summary["ledger_balanced"])
