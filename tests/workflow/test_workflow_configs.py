"""The workflow on other configurations than the default run of tests/workflow/test_workflow.py: deployed
as a module, with bad configs, on the third-party data in ../shared; and the workflow's own code
(lint, format). Each test runs on its own (on another worker process than the default run's).
"""

from __future__ import annotations

import base64
import html
import re
import shutil
import subprocess
import sys
import tarfile

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from ..conftest import ROOT, SHARED
from ..userpath import fresh_clone, fresh_copy, snakemake

pytestmark = pytest.mark.workflow


MODULE_CONFIG = yaml.safe_load((ROOT / "tests" / "configs" / "module.yaml").read_text(encoding="utf-8"))


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
    from simgold.report.verify import verify

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
    # embed; MiniLM: each CoSimLex context) and are tested on real data elsewhere (tests/stages/test_scoring.py,
    # test_in_context.py; the default run scores both, in context too); the same vectors from their
    # package are the default run's, with the same figures on ws353 and simlex999 (tests/workflow/test_workflow.py),
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
        "results/release/ag-he-basic/README.md",  # a comparisons dataset's release (one release rule per kind)
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
    # the repository as a remote gives it (its files, not a working directory's .venv and results: for
    # a local path, snakedeploy copies the whole directory before it checks the commit out)
    repository = fresh_clone(tmp_path / "repository")
    done = subprocess.run([str(deploy), "deploy-workflow", str(repository), str(study), "--commit", commit],
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
    stats = planned.split("\ntotal")[0]  # the first job-stats table (a dry run prints it twice)
    released = re.findall(r"^release_(?:ratings|means|contexts|rankings|comparisons)\s+(\d+)$", stats, re.M)
    # one release rule per kind; every dataset but simlex999 (redistribute: false: no release)
    assert re.search(r"^all\s+1$", planned, re.M) and sum(map(int, released)) == 6, planned[-2000:]


#: the degenerate datasets of ``test_degenerate_panels_finish_with_notes_and_pages``: the columns of
#: each one's sheet and its 12 rows of ratings (empty: not rated), by the row's number k
DEGENERATE = {
    "one": ("r1", lambda k: f"{k % 6}"),  # one rater
    "apart": ("r1,r2", lambda k: f"{k % 6}," if k < 6 else f",{k % 6}"),  # two raters, no item shared
    "constant": ("r1,r2,r3", lambda k: "3,3,3"),  # every rater gives every pair 3
    "flat": ("r1,r2,r3", lambda k: "2,4,5"),  # each rater constant, each another value
    "single": ("r1,r2,r3", lambda k: "2,3,4"),  # one pair (the first row only)
    "two": ("r1,r2,r3", lambda k: ("1,2,1", "5,4,6")[k]),  # two pairs
}
#: why each dataset's statistics are missing, as its page says it (one line of each stage it can have)
DEGENERATE_NOTES = {
    "one": ["1 rater: agreement between raters is not defined", "1 rater: no two halves to correlate"],
    "apart": [
        "no two raters share 5 items or more (min_overlap)",
        "no item has two ratings: each item's mean is its one rater's score",
        "in 200 of 200 splits the halves share fewer than 3 rated items",
    ],
    "constant": [
        "every rating is 3: constant scores have no ranks to correlate",
        "every rating is 3: no variance between items or raters, no ICC",
        "every pairable score is the same: no expected disagreement",
        "in 200 of 200 splits a half's item means are all equal",
        "the gold standard gives every item the same score (3): no correlation",
        "no difference to test: the gold standard gives every item the same score (3): no correlation",
        "no model has a Spearman with the gold standard",
    ],
    "flat": [
        "in every pair of raters sharing 5 items or more (min_overlap), one rater gives every shared item the same score",
        "no rater of 3 has a value: 3 give all their items one score",
        "no residual variance (every rating is its item's mean plus its rater's shift): no F-based interval",
        "the gold standard gives every item the same score (3.66667): no correlation",
    ],
    "single": [
        "1 item: an ICC needs two items or more",
        "one item has two ratings or more: alpha would be 0 whatever the ratings (it needs two such items)",
        "1 item with a gold score and a similarity: a correlation needs 3 or more",
    ],
    "two": ["2 items with a gold score and a similarity: a correlation needs 3 or more"],
}


def test_degenerate_panels_finish_with_notes_and_pages(tmp_path):
    """Degenerate data, each a dataset of one run scored by two small models (so that the scores,
    the model comparisons, the MSD, the noise check and every figure run too): one rater, two
    raters who share no item (common in crowd data), constant scores, each rater constant at another
    value, one pair, two pairs. Every stage finishes without a warning; a statistic that cannot be
    computed is NaN with a note saying why, in its table and on its dataset's page; every figure
    is drawn, and the front page is built."""
    project = fresh_copy(tmp_path / "simgold")
    words = [chr(ord("a") + k) for k in range(24)]
    pairs = list(zip(words[::2], words[1::2]))  # a/b, c/d, ...: 12 pairs, over min_shared_items (10)
    for name, (raters, ratings) in DEGENERATE.items():
        rows = pairs[:1] if name == "single" else pairs[:2] if name == "two" else pairs
        sheet = f"w1,w2,{raters}\n" + "".join(f"{a},{b},{ratings(k)}\n" for k, (a, b) in enumerate(rows))
        (project / "raw" / f"{name}.csv").write_text(sheet, encoding="utf-8")
    rng = np.random.default_rng(0)
    for model in ("vec-a", "vec-b"):  # word2vec text files, 4 dimensions: read in a second
        lines = [" ".join([w, *(f"{x:.4f}" for x in rng.normal(size=4))]) for w in words]
        (project / "raw" / f"{model}.txt").write_text(f"{len(words)} 4\n" + "\n".join(lines) + "\n", encoding="utf-8")
    config = ROOT / "tests" / "configs" / "degenerate.yaml"
    assert set(yaml.safe_load(config.read_text(encoding="utf-8"))["datasets"]) == set(DEGENERATE)
    (project / "config" / "config.yaml").write_bytes(config.read_bytes())
    run = snakemake(project, "--cores", "2")
    out = run.stdout + run.stderr
    for problem in ("Traceback", "RuntimeWarning", "ConstantInputWarning", "Warning:"):
        assert problem not in out, out[-3000:]
    results = project / "results"

    def table(*parts: str) -> pd.DataFrame:
        return pd.read_parquet(results.joinpath(*parts))

    for name, notes in DEGENERATE_NOTES.items():
        text = html.unescape((results / "report" / name / "index.html").read_text(encoding="utf-8"))
        for note in notes:
            assert note in text, (name, note)
        figures = results / "report" / name / "figures"
        for figure in ("scores", "noise", "raters", "reliability", "distribution"):
            png = (figures / f"{figure}.png").read_bytes()
            assert png[:4] == b"\x89PNG" and len(png) > 5000, (name, figure)
            assert f"data:image/png;base64,{base64.b64encode(png).decode()}" in text  # the page embeds it
    front = html.unescape((results / "report" / "index.html").read_text(encoding="utf-8"))
    assert DEGENERATE_NOTES["constant"][4] in front and DEGENERATE_NOTES["two"][0] in front
    assert "1 rater: no two halves to correlate" in front  # the raters-needed table across datasets
    # the agreement and its CIs: NaN where undefined, no interval around it, and why
    for name in ("one", "apart", "constant", "single", "two"):
        ci = table("agreement", name, "agreement_ci.parquet")
        pairwise = ci[ci["statistic"] == "pairwise"]
        assert pairwise[["value", "ci_low", "ci_high"]].isna().all().all(), (name, pairwise)
        assert pairwise["note"].str.startswith("no value: ").all(), (name, pairwise["note"])
    constant = table("agreement", "constant", "agreement_ci.parquet")  # every statistic, every scheme
    assert constant[["value", "ci_low", "ci_high"]].isna().all().all()
    assert constant["note"].str.startswith("no value: ").all()
    apart = table("agreement", "apart", "agreement_ci.parquet")  # duplicated items reach min_overlap in resamples
    assert apart[["ci_low", "ci_high"]].isna().all().all()
    single = table("agreement", "single", "alpha.parquet")
    assert single["alpha"].isna().all() and (single["note"] == DEGENERATE_NOTES["single"][1]).all()
    icc = table("agreement", "flat", "icc.parquet")  # items alike, raters apart: no agreement on the items, 0
    assert (icc["value"] == 0.0).all() and icc["ci_low"].isna().all()
    assert (icc["note"] == DEGENERATE_NOTES["flat"][2]).all()
    assert table("agreement", "two", "icc.parquet")["value"].notna().all()  # two items and three raters: an ICC
    for name in ("one", "apart", "constant", "flat", "single", "two"):
        reliability = table("reliability", name, "summary.parquet").iloc[0]
        assert np.isnan(reliability["r_half"]) and reliability["note"], name
    # the scores: no correlation with a constant gold standard or on fewer than 3 pairs, and why
    for name in ("constant", "flat", "single", "two"):
        for model in ("vec-a", "vec-b"):
            spearman = table("scores", name, model, "scores.parquet").set_index("metric").loc["spearman"]
            assert np.isnan(spearman["value"]) and np.isnan(spearman["ci_low"]) and spearman["note"], (name, model)
        noise = table("noise", name, "vec-a.parquet")
        assert noise["mean"].isna().all() and noise["note"].str.startswith("no Spearman at any level: ").all()
        msd = table("scores", name, "msd.parquet")
        assert msd["msd"].isna().all() and msd["note"].str.startswith("no model has a Spearman").all(), name
    differences = table("scores", "constant", "model_differences.parquet")
    assert differences["williams_p"].isna().all() and differences["r_ab"].notna().all()
    assert (differences["note"] == DEGENERATE_NOTES["constant"][5]).all()
    scored = table("scores", "one", "vec-a", "scores.parquet").set_index("metric")  # one rater still gives a gold
    assert np.isfinite(scored.loc["spearman", "value"]) and scored.loc["spearman", "note"] == ""
    assert "1 rater: agreement between raters is not defined" in scored.loc["human_ceiling", "note"]
