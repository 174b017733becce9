"""The release of a gold standard (simgold.report.release): what every reader of it gets back.

Each reader is the real one: pandas, csv, gensim's ``evaluate_word_pairs``, Hugging Face
``datasets.load_dataset`` (offline) and ``mlcroissant``. The gold standards are made by the
pipeline's own stage functions from raw files (a small sheet here; RG-65 from ../shared)."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from simgold.errors import ConfigError
from simgold.io.config import check_dataset, spdx_license
from simgold.report.release import release
from simgold.stages.clean import clean_dataset
from simgold.stages.gold import gold_from_means, gold_from_ratings, score_distribution

SHEET = (
    "w1,w2,r1,r2,r3\n"
    "NA,null,5,6,5\n"
    "nan,None,1,2,1\n"
    "cat,dog,4,4,5\n"
    "N/A,NULL,3,3,2\n"
    "cat,dog,4,5,5\n"  # the same pair again (duplicates: all): two items
    "sea,ocean,6,5,x\n"  # one rating is not a number: to the ledger
)
WORDS = [("NA", "null"), ("nan", "None"), ("cat", "dog"), ("N/A", "NULL"), ("cat", "dog"), ("sea", "ocean")]


def make_release(tmp_path: Path, **release_keys):
    (tmp_path / "d.csv").write_text(SHEET, encoding="utf-8")
    spec = {"language": "en", "kind": "ratings", "scale": [0, 6], "duplicates": "all", "description": "toy pairs"}
    spec["sources"] = [{"path": "d.csv", "words": ["w1", "w2"], "raters": "^r"}]
    spec["release"] = release_keys
    ds = check_dataset("toy", spec, tmp_path)
    tables = clean_dataset("toy", ds, base_dir=str(tmp_path))
    gold = gold_from_ratings("toy", tables["items"], tables["ratings"], ds["scale"], tables["means"])
    made = release(
        "toy",
        ds,
        {
            "items": tables["items"],
            "gold": gold,
            "distribution": score_distribution("toy", gold, ds["scale"], 1.0),
            "clean": tables["summary"],
        },
        [{"path": "d.csv", "sha256": "0" * 64, "size": len(SHEET)}],
        confidence=0.95,
        made_with="simgold test",
        date="2026-11-26",
    )
    out = tmp_path / "release"
    out.mkdir()
    for name, data in made.files.items():
        (out / name).write_bytes(data)
    return made, out, gold


def test_words_that_look_missing_stay_words_in_every_reader(tmp_path):
    made, out, _ = make_release(tmp_path, license="CC-BY-4.0")
    assert sorted(made.files) == ["README.md", "croissant.json", "toy.parquet", "toy.tsv", "toy.txt"]
    parquet = pd.read_parquet(out / "toy.parquet")
    assert list(zip(parquet["word1"], parquet["word2"])) == WORDS
    with (out / "toy.tsv").open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    assert [(r["word1"], r["word2"]) for r in rows] == WORDS
    # the card's pandas call
    tsv = pd.read_csv(out / "toy.tsv", sep="\t", keep_default_na=False, na_values=[""])
    assert list(zip(tsv["word1"], tsv["word2"])) == WORDS and tsv["score"].dtype == float
    assert tsv["score"].tolist() == pytest.approx(parquet["score"].tolist())
    # gensim's reader: every pair's line, split on tabs, gives the words back
    lines = [line for line in (out / "toy.txt").read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
    assert [tuple(line.split("\t")[:2]) for line in lines] == WORDS


def test_the_gold_columns_are_the_gold_standard(tmp_path):
    _, out, gold = make_release(tmp_path)
    table = pd.read_parquet(out / "toy.parquet")
    assert list(table.columns) == ["item_id", "word1", "word2", "score", "sd", "n", "ci_low", "ci_high", "rank"]
    # NA/null: ratings 5, 6, 5; sea/ocean: 6, 5 (the "x" is in the ledger, not a zero)
    assert table["score"].iloc[0] == pytest.approx(16 / 3) and table["n"].iloc[0] == 3
    assert table["score"].iloc[5] == pytest.approx(5.5) and table["n"].iloc[5] == 2
    source = gold.set_index("item_id").loc[table["item_id"]]
    for column, of in (("score", "mean"), ("sd", "sd"), ("ci_low", "ci_low"), ("ci_high", "ci_high"), ("rank", "rank")):
        np.testing.assert_array_equal(table[column].to_numpy(), source[of].to_numpy())


def test_same_inputs_same_bytes(tmp_path):
    made = []
    for run in ("a", "b"):
        (tmp_path / run).mkdir()
        made.append(make_release(tmp_path / run, license="MIT")[0].files)
    assert made[0] == made[1]


def test_card_front_matter_and_the_missing_licence(tmp_path):
    made, out, _ = make_release(tmp_path, creators=["A. Rater", {"name": "B. Lab", "url": "https://b.example"}])
    card = (out / "README.md").read_text(encoding="utf-8")
    front = yaml.safe_load(card.split("---\n")[1])
    assert "license" not in front  # not silently "unknown"
    assert "No licence was given for this release" in card
    assert any("no release licence" in w for w in made.warnings)
    assert front["language"] == ["en"] and front["size_categories"] == ["n<1K"]
    assert front["configs"] == [{"config_name": "default", "data_files": [{"split": "test", "path": "toy.parquet"}]}]
    # the ledger in the reader's words, counted here from SHEET: 6 rows x 3 raters, one "x"; no advice to the operator
    assert "Of the 18 answers in the raw files, 1 (5.6%) was rejected: 1 answer not a number." in card
    assert "check '" not in card and "- check" not in card
    assert "Made by A. Rater, [B. Lab](<https://b.example>)." in card


@pytest.mark.parametrize(
    "given,front",
    [("CC-BY-4.0", {"license": "cc-by-4.0"}), ("cc0-1.0", {"license": "cc0-1.0"}),
     ("CC-BY-4.0 OR MIT", {"license": "other", "license_name": "CC-BY-4.0 OR MIT"}),
     ("Unicode-3.0", {"license": "other", "license_name": "Unicode-3.0",
                      "license_link": "https://spdx.org/licenses/Unicode-3.0.html"})],
)  # fmt: skip
def test_licence_in_the_front_matter(tmp_path, given, front):
    made, out, _ = make_release(tmp_path, license=given)
    meta = yaml.safe_load((out / "README.md").read_text(encoding="utf-8").split("---\n")[1])
    assert {k: meta[k] for k in front} == front and not any("licence" in w for w in made.warnings)


def test_release_licence_is_checked_against_spdx():
    assert spdx_license("x", "cc-by-4.0") == "CC-BY-4.0" and spdx_license("x", "LicenseRef-mine") == "LicenseRef-mine"
    with pytest.raises(ConfigError, match=r"datasets\.d\.release\.license: 'CC BY 4\.0'.*did you mean 'CC-BY-4\.0'"):
        spdx_license("datasets.d.release.license", "CC BY 4.0")
    spec = {"language": "en", "kind": "means", "scale": [0, 1], "sources": [{"path": "x"}]}
    from simgold.io.config import validate_schema

    with pytest.raises(ConfigError, match="lisense"):
        validate_schema({"datasets": {"d": {**spec, "release": {"lisense": "MIT"}}}})


def _offline_env(tmp_path: Path) -> dict:
    return {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf")}


def test_the_folder_loads_with_hugging_face_datasets_offline(tmp_path):
    pytest.importorskip("datasets")
    _, out, _ = make_release(tmp_path, license="CC-BY-4.0")
    code = (
        "import json, sys, datasets\n"
        f"d = datasets.load_dataset({str(out)!r})\n"
        "t = d['test']\n"
        "print(json.dumps({'splits': list(d), **{c: list(t[c]) for c in ('word1', 'word2', 'score')}}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], env=_offline_env(tmp_path), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["splits"] == ["test"] and list(zip(got["word1"], got["word2"])) == WORDS
    assert got["score"] == pytest.approx(pd.read_parquet(out / "toy.parquet")["score"].tolist())


def test_croissant_validates_and_reads_back_the_tsv(tmp_path):
    mlc = pytest.importorskip("mlcroissant")
    made, out, _ = make_release(tmp_path, license="CC-BY-4.0", citation="@misc{toy, title={Toy}}")
    dataset = mlc.Dataset(jsonld=str(out / "croissant.json"))  # validates: raises on an error
    assert dataset.metadata.license == ["https://spdx.org/licenses/CC-BY-4.0.html"]
    records = [{k.split("/")[1]: v.decode() if isinstance(v, bytes) else v for k, v in r.items()}
               for r in dataset.records(record_set="gold")]  # fmt: skip
    with (out / "toy.tsv").open(encoding="utf-8", newline="") as f:
        tsv = list(csv.DictReader(f, delimiter="\t"))
    assert len(records) == len(tsv) == 6
    for record, row in zip(records, tsv):
        assert {k: record[k] for k in ("item_id", "word1", "word2")} == {k: row[k] for k in ("item_id", "word1", "word2")}
        for column in ("score", "sd", "ci_low", "ci_high", "rank"):
            want = float(row[column]) if row[column] else float("nan")
            assert record[column] == pytest.approx(want, nan_ok=True), (column, record, row)
        assert record["n"] == int(row["n"])
    meta = json.loads((out / "croissant.json").read_text(encoding="utf-8"))
    file_object = meta["distribution"][0]
    import hashlib

    assert file_object["sha256"] == hashlib.sha256((out / "toy.parquet").read_bytes()).hexdigest()
    assert [f["name"] for f in meta["recordSet"][0]["field"]] == list(pd.read_parquet(out / "toy.parquet").columns)


def test_gensim_evaluate_word_pairs_agrees_with_simgold_on_rg65(shared, shared_specs, tmp_path):
    """RG-65 (17 pairs with a word outside the GloVe file, one pair listed twice, kept twice here)
    released, then scored by gensim on the .txt and by simgold on the same KeyedVectors."""
    gensim_models = pytest.importorskip("gensim.models")
    import simgold

    ds = check_dataset("rg65", {**shared_specs["rg65"], "duplicates": "all"})
    tables = clean_dataset("rg65", ds)
    gold = gold_from_means("rg65", tables["items"], tables["means"], ds["scale"])
    made = release("rg65", ds, {"items": tables["items"], "gold": gold, "clean": tables["summary"]}, [],
                   confidence=0.95, made_with="simgold test", date="2026-11-26")  # fmt: skip
    (tmp_path / "rg65.txt").write_bytes(made.files["rg65.txt"])
    pairs = pd.read_parquet(io.BytesIO(made.files["rg65.parquet"]))
    key = [tuple(sorted(p)) for p in zip(pairs["word1"], pairs["word2"])]
    assert len(key) - len(set(key)) == 1  # the duplicated pair is in the release twice
    kv = gensim_models.KeyedVectors.load_word2vec_format(
        str(shared / "embeddings/glove-6B-50d/glove.6B.50d.ws353-simlex999.w2v.txt")
    )
    pearson, spearman, oov_percent = kv.evaluate_word_pairs(
        str(tmp_path / "rg65.txt"), restrict_vocab=len(kv), case_insensitive=True
    )
    ours = simgold.evaluate(kv, pairs, resamples=0).scores.set_index("metric")
    assert oov_percent > 0 and ours.loc["oov_pairs", "value"] * 100 == pytest.approx(oov_percent, abs=1e-9)
    # gensim's cosines are float32, simgold's float64: the correlations agree to float32's precision
    assert ours.loc["spearman", "value"] == pytest.approx(spearman.statistic, abs=1e-6)
    assert ours.loc["pearson", "value"] == pytest.approx(pearson.statistic, abs=1e-6)
    assert ours.loc["spearman", "n_used"] == len(pairs) - round(oov_percent / 100 * len(pairs))


def test_a_comparisons_dataset_releases_its_comparisons(shared, shared_specs, tmp_path):
    """Avraham & Goldberg's Hebrew files (kind comparisons: no gold scores, only weighted
    comparisons): the release is the comparisons table, loadable and described."""
    mlc = pytest.importorskip("mlcroissant")
    from simgold.stages.comparisons import read_ag_file

    ds = check_dataset("ag-he-basic", shared_specs["ag-he-basic"])
    comparisons = pd.concat([read_ag_file(src["path"], "ag-he-basic") for src in ds["sources"]], ignore_index=True)
    made = release("ag-he-basic", ds, {"comparisons": comparisons}, [], confidence=0.95, made_with="simgold test",
                   date="2026-11-26")  # fmt: skip
    assert sorted(made.files) == ["README.md", "ag-he-basic.parquet", "ag-he-basic.tsv", "croissant.json"]
    for name, data in made.files.items():
        (tmp_path / name).write_bytes(data)
    table = pd.read_parquet(tmp_path / "ag-he-basic.parquet")
    # counted from the source files: a comparison is a line with commas (targets and markers have none)
    lines = sum(1 for src in ds["sources"] for line in Path(src["path"]).read_text(encoding="utf-8").splitlines()
                if "," in line)  # fmt: skip
    assert len(table) == lines and set(table.columns) >= {"target", "w1", "w2", "r"}
    records = list(mlc.Dataset(jsonld=str(tmp_path / "croissant.json")).records(record_set="comparisons"))
    assert len(records) == len(table)
    card = made.files["README.md"].decode()
    assert "the A&G comparisons with their weights" in card and "evaluate_word_pairs" not in card


def test_the_card_gives_agreement_with_its_two_way_intervals(tmp_path):
    """A rated dataset's card: each stage's agreement with the interval resampling items and
    raters together (the report's rule: ``with_intervals``), the one-way ones left to the report."""
    from simgold.report.card import _agreement_section

    agreement = pd.DataFrame({"stage": ["raw", "raw"], "subset": ["all", "pos=n"], "n_raters": 3, "n_items": 6,
                              "pairwise": [0.61, 0.5], "vs_rest": [0.7, 0.6], "alpha_interval": [0.55, 0.4]})  # fmt: skip
    ci = pd.DataFrame({"stage": "raw", "subset": "all", "statistic": "pairwise", "scheme": ["items", "raters", "both"],
                       "ci_low": [0.5, 0.45, 0.4], "ci_high": [0.7, 0.72, 0.8]})  # fmt: skip
    parts = _agreement_section({"agreement": agreement, "agreement_ci": ci}, 0.95)
    assert parts[1].splitlines()[2] == "| raw | 3 | 6 | 0.610 | [0.400, 0.800] | 0.700 | 0.550 |"  # both, not items


def test_the_card_says_why_agreement_and_item_order_are_missing():
    """One rater: the agreement table is empty but for its note, which the card now carries. One
    item: no two items to order (the card said "nan%")."""
    from simgold.report.card import _agreement_section, _gold_section

    why = "pairwise, vs_mean, vs_rest: 1 rater: agreement between raters is not defined"
    agreement = pd.DataFrame({"stage": ["raw"], "subset": ["all"], "n_raters": 1, "n_items": 12, "pairwise": np.nan,
                              "vs_rest": np.nan, "alpha_interval": np.nan, "note": why})  # fmt: skip
    table = _agreement_section({"agreement": agreement}, 0.95)[1].splitlines()
    assert table[0].endswith("| note |") and table[2] == f"| raw | 1 | 12 |  |  |  | {why} |"
    single = gold_from_ratings("d", pd.DataFrame({"item_id": ["d:1"]}),
                               pd.DataFrame({"item_id": "d:1", "rater": ["a", "b", "c"], "score": [2.0, 3.0, 4.0]}),
                               (0, 6))  # fmt: skip
    text = "\n".join(_gold_section({"gold": single}, {}, 0.95))
    assert "nan" not in text and "no two items have intervals whose order a test could resolve" in text
