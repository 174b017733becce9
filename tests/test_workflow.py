"""The workflow end to end, as a user runs it: on a fresh copy of the repository."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
import yaml

from simgold.config import embedding_mem_mb
from simgold.tables import read_provenance

from .conftest import ROOT, SHARED

pytestmark = pytest.mark.workflow
SNAKEMAKE = [sys.executable, "-m", "snakemake"]


LOCAL_ONLY = {".git", ".venv", ".snakemake", "results", "logs", ".pytest_cache", ".hypothesis", "__pycache__"}


def _repository_files() -> list[str]:
    """The files a clone has: tracked, or new and not ignored (a plain tree walk outside git)."""
    proc = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True
    )
    if proc.returncode == 0:
        return [rel for rel in proc.stdout.decode().split("\0") if rel]
    return [
        p.relative_to(ROOT).as_posix()
        for p in ROOT.rglob("*")
        if (p.is_file() or p.is_symlink())
        and not LOCAL_ONLY & set(p.relative_to(ROOT).parts)
        and not any(part.endswith(".egg-info") for part in p.parts)
    ]


def fresh_copy(dest: Path) -> Path:
    """A copy of the repository as a fresh clone has it."""
    for rel in _repository_files():
        src = ROOT / rel
        if not src.exists() and not src.is_symlink():
            continue  # deleted in the working tree
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if src.is_symlink():
            target.symlink_to(src.readlink())
        else:
            shutil.copy2(src, target)
    return dest


def snakemake(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run(SNAKEMAKE + list(args), cwd=cwd, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(args)} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc


def output_bytes(root: Path) -> dict[str, bytes]:
    """Every table, figure and page under ``root/results`` (or under ``root`` when it is a results directory)."""
    base = root if root.name.startswith("results") else root / "results"
    files = [p for ext in ("parquet", "png", "html", "tsv") for p in base.rglob(f"*.{ext}") if "archive" not in p.parts]
    return {p.relative_to(base.parent).as_posix(): p.read_bytes() for p in sorted(files)}


@pytest.fixture(scope="module")
def default_run(tmp_path_factory):
    project = fresh_copy(tmp_path_factory.mktemp("clone") / "simgold")
    snakemake(project, "--cores", "8")  # compared with a --cores 1 run below
    return project


def test_default_config_builds_every_target(default_run):
    config = yaml.safe_load((default_run / "config" / "config.yaml").read_text(encoding="utf-8"))
    for dataset in config["datasets"]:
        for table in ("items", "ratings", "means", "rankings", "rejects", "summary"):
            assert (default_run / "results" / "clean" / dataset / f"{table}.parquet").is_file()
        assert (default_run / "logs" / "clean" / f"{dataset}.log").is_file()
    for dataset in config["datasets"]:
        for name in ("gold.parquet", "distribution.parquet", "distribution.png"):
            assert (default_run / "results" / "gold" / dataset / name).is_file()
    for dataset in ("demo-da", "demo-hr", "demo-de", "demo-en-context", "demo-he-rank"):
        for name in ("agreement.parquet", "raters.parquet", "raters.png"):
            assert (default_run / "results" / "agreement" / dataset / name).is_file()
    assert not (default_run / "results" / "agreement" / "ws353").exists()  # means only: no raters
    linked = pd.read_parquet(default_run / "results" / "translate" / "demo-hr" / "items.parquet")
    assert linked["source_item_id"].str.startswith("demo-da:").all() and len(linked) == 30
    corr = pd.read_parquet(default_run / "results" / "translate" / "crosslingual_correlations.parquet")
    assert (
        corr[["dataset_a", "dataset_b"]].values.tolist() == [["demo-da", "demo-hr"]] and corr["spearman"].iloc[0] > 0.9
    )
    # the two packaged models score the real data shipped with gensim, and every demo language
    scores = pd.read_parquet(default_run / "results" / "scores" / "summary.parquet")
    spearman = scores[(scores["metric"] == "spearman") & (scores["subset"] == "all")].set_index(["dataset", "model"])
    assert round(spearman.loc[("ws353", "glove-6b-50d"), "value"], 4) == 0.5033
    assert round(spearman.loc[("simlex999", "e5-small"), "value"], 3) == 0.514
    e5 = {d for d, m in spearman.index if m == "e5-small"}
    assert e5 == {"demo-da", "demo-de", "demo-en-context", "demo-hr", "simlex999", "ws353"}
    assert (spearman["ci_low"] < spearman["value"]).all() and (spearman["value"] < spearman["ci_high"]).all()
    assert spearman.loc[("demo-da", "e5-small"), "human_ceiling"] > 0.8
    ag = scores[(scores["dataset"] == "demo-he-rank") & (scores["metric"] == "ag_score")]
    assert set(ag["subset"]) == {"all", "type=positive", "type=distractor", "type=random"}
    diffs = pd.read_parquet(default_run / "results" / "scores" / "ws353" / "model_differences.parquet")
    pairs = diffs[["model_a", "model_b"]].values.tolist()
    assert pairs == [["e5-small", "glove-6b-50d"], ["e5-small", "minilm"], ["glove-6b-50d", "minilm"]]
    assert diffs["p"].between(0, 1).all()
    tests = pd.read_parquet(default_run / "results" / "context" / "demo-en-context" / "tests.parquet")
    assert (tests["q"] < 0.05).sum() == 8 and tests["recomputed"].all()  # the 8 planted context effects
    cosimlex = pd.read_parquet(default_run / "results" / "scores" / "cosimlex_summary.parquet")
    cosimlex = cosimlex[cosimlex["language"] == "en"].set_index("model")
    assert cosimlex.loc["glove-6b-50d", "subtask1"] == 0.0 and cosimlex.loc["minilm", "subtask1"] > 0.5
    embeddings = pd.read_parquet(default_run / "results" / "embeddings" / "glove-6b-50d.parquet")
    assert len(embeddings["vector"].iloc[0]) == 50 and embeddings["word"].is_monotonic_increasing
    summary = pd.read_parquet(default_run / "results" / "clean" / "summary.parquet")
    assert sorted(summary["dataset"]) == sorted(config["datasets"])
    assert summary["ledger_balanced"].all()
    # the gensim-shipped means are read through pkg: paths
    counts = summary.set_index("dataset")
    assert counts.loc["ws353", "n_means"] == 353 and counts.loc["simlex999", "n_means"] == 999


def test_pipeline_finds_the_planted_raters(default_run):
    raters = pd.read_parquet(default_run / "results" / "agreement" / "demo-da" / "raters.parquet")
    calibrated = raters[raters["stage"] == "calibrated"].set_index("rater")
    assert sorted(calibrated.index[calibrated["calib_shift"] != 0]) == ["Deltager 05", "Deltager 11"]
    assert sorted(calibrated.index[calibrated["excluded"]]) == ["Deltager 08", "Deltager 14"]
    shifted = pd.read_parquet(default_run / "results" / "calibrate" / "demo-da" / "ratings.parquet")
    moved = shifted[shifted["score"] != shifted["raw_score"]]
    assert set(moved["rater"]) == {"Deltager 05", "Deltager 11"}
    assert (moved["raw_score"] - moved["score"] == 1).all() and not moved["raw_score"].isin([0, 6]).any()
    gold = pd.read_parquet(default_run / "results" / "gold" / "demo-da" / "gold.parquet")
    filtered = pd.read_parquet(default_run / "results" / "agreement" / "demo-da" / "ratings.parquet")
    assert gold["n"].max() == 20 and filtered["rater"].nunique() == 20
    means = pd.read_parquet(default_run / "results" / "gold" / "ws353" / "gold.parquet")
    assert len(means) == 353 and (means["basis"] == "shipped means").all()


def test_parquet_carries_provenance(default_run):
    path = default_run / "results" / "clean" / "demo-da" / "ratings.parquet"
    prov = read_provenance(path)
    assert prov["rule"] == "clean_dataset" and prov["wildcards"] == {"dataset": "demo-da"}
    assert prov["inputs"] == {"raw/demo/da/sporgeskema.xlsx": prov["inputs"]["raw/demo/da/sporgeskema.xlsx"]}
    assert len(prov["inputs"]["raw/demo/da/sporgeskema.xlsx"]) == 64
    expected = hashlib.sha256((default_run / "raw" / "demo" / "da" / "sporgeskema.xlsx").read_bytes()).hexdigest()
    assert prov["inputs"]["raw/demo/da/sporgeskema.xlsx"] == expected
    assert prov["params"]["spec"]["duplicates"] == "last"
    assert str(default_run) not in str(prov) and "/tmp" not in str(prov)
    ws = read_provenance(default_run / "results" / "clean" / "ws353" / "means.parquet")
    assert list(ws["inputs"]) == ["pkg:gensim/test/test_data/wordsim353.tsv"]
    # no pandas index column, canonical column order
    assert pq.read_schema(path).names == ["dataset", "item_id", "rater", "score", "source_file", "source_row"]
    # every table carries the provenance of METHODS.md section 10
    for parquet in sorted((default_run / "results").rglob("*.parquet")):
        prov = read_provenance(parquet)
        assert {"schema_version", "rule", "wildcards", "params", "inputs", "versions"} <= set(prov), parquet
        assert all(len(digest) == 64 for digest in prov["inputs"].values()), parquet


def test_snakemake_report_holds_every_dataset_and_model(default_run, tmp_path):
    project = tmp_path / "simgold"
    shutil.copytree(default_run, project, symlinks=True)
    snakemake(project, "--report", "results/report.html")
    text = (project / "results" / "report.html").read_text(encoding="utf-8")
    config = yaml.safe_load((project / "config" / "config.yaml").read_text(encoding="utf-8"))
    for name in [*config["datasets"], *config["models"]]:
        assert name in text, name
    for figure in ("raters.png", "distribution.png", "scores.png", "noise.png", "context.png", "summary.tsv"):
        assert figure in text
    index = (project / "results" / "report" / "index.html").read_text(encoding="utf-8")
    assert all(f'href="{d}/index.html"' in index for d in config["datasets"]) and "<table" in index
    page = (project / "results" / "report" / "ws353" / "index.html").read_text(encoding="utf-8")
    assert 'src="noise.png"' in page and "human_ceiling" in page


def test_archive_verifies_and_rebuilds_byte_for_byte(default_run, tmp_path):
    import tarfile

    from simgold.archive import rebuild, verify

    project = tmp_path / "simgold"
    shutil.copytree(default_run, project, symlinks=True)
    snakemake(project, "--cores", "2", "archive")
    archive = project / "results" / "archive" / "simgold-demo.tar.gz"
    first = archive.read_bytes()
    snakemake(project, "--cores", "2", "archive", "--forcerun", "archive")
    assert archive.read_bytes() == first  # the archive itself is deterministic
    unpacked = tmp_path / "unpacked"
    with tarfile.open(archive) as tar:
        tar.extractall(unpacked, filter="tar")
    root = unpacked / "simgold-demo"
    names = (root / "MANIFEST").read_text().splitlines()
    assert any(line.endswith("  results/scores/summary.parquet") for line in names)
    assert any(line.endswith("  environment/requirements.lock.txt") for line in names)
    assert any(line.endswith("  inputs/pkg/gensim/test/test_data/wordsim353.tsv") for line in names)
    assert not any("simlex999.txt" in line for line in names)  # redistribute: false
    external = (root / "inputs" / "EXTERNAL.tsv").read_text()
    assert "pkg:gensim/test/test_data/simlex999.txt" in external and "no (not redistributable)" in external
    crate = json.loads((root / "ro-crate-metadata.json").read_text())
    run = next(e for e in crate["@graph"] if e["@id"] == "#run")
    assert run["@type"] == "CreateAction" and run["instrument"] == {"@id": "Snakefile"} and len(run["result"]) > 100
    assert "snakemake==" in (root / "environment" / "requirements.lock.txt").read_text().lower()
    assert verify(root) == []
    proc = subprocess.run(
        [sys.executable, "-m", "simgold.archive", "verify", str(root)], capture_output=True, text=True
    )
    assert proc.returncode == 0 and "OK" in proc.stdout
    # the pipeline rerun from the archive with --cores 1 gives the tables of the --cores 8 run, byte for byte
    assert rebuild(root, cores=1) == []
    first_run, second_run = output_bytes(root / "results.archived"), output_bytes(root)
    assert len(second_run) > 150 and {k.replace("results.archived/", "results/") for k in first_run} == set(second_run)
    differ = [k for k, v in second_run.items() if first_run[k.replace("results/", "results.archived/", 1)] != v]
    assert not differ, f"not byte-identical between --cores 8 and --cores 1: {differ}"
    shutil.rmtree(root / "results")  # back to the archived tables, then tamper with one
    (root / "results.archived").rename(root / "results")
    shutil.rmtree(root / "logs")  # and to the archived logs (progress lines come every 10 s: logs differ)
    (root / "logs.archived").rename(root / "logs")
    (root / "results" / "gold" / "ws353" / "gold.parquet").write_bytes(b"tampered")
    assert verify(root) == ["results/gold/ws353/gold.parquet: checksum does not match the MANIFEST"]


def test_rerun_has_nothing_to_do(default_run):
    proc = snakemake(default_run, "--cores", "1", "-n")
    assert "Nothing to be done" in proc.stdout + proc.stderr


def test_changed_params_rerun_only_that_dataset(default_run, tmp_path):
    project = tmp_path / "simgold"  # the finished default run, with its metadata and file times
    shutil.copytree(default_run, project, symlinks=True)
    config = (project / "config" / "config.yaml").read_text(encoding="utf-8")
    (project / "config" / "config.yaml").write_text(config.replace("min_answered: 16", "min_answered: 20"))
    proc = snakemake(project, "--cores", "1", "-n")
    out = proc.stdout + proc.stderr
    jobs = re.findall(r"^(?:local)?rule (\w+):\n(?:    .*\n)*?    wildcards: (.*)$", out, flags=re.M)
    per_dataset = {(rule, w) for rule, w in jobs if rule in ("clean_dataset", "calibrate", "agreement", "gold")}
    assert per_dataset == {(r, "dataset=demo-de") for r in ("clean_dataset", "calibrate", "agreement", "gold")}
    # the German words feed the multilingual model's vocabulary, so its embeddings and scores follow;
    # the English-only model is untouched
    rules = {rule for rule, _ in jobs}
    assert "embeddings" in rules and not any("glove" in w for _, w in jobs)


def test_lint_is_clean():
    proc = snakemake(ROOT, "--lint", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Congratulations" in proc.stdout + proc.stderr


def test_snakefmt_is_clean():
    files = ["Snakefile", *map(str, sorted((ROOT / "workflow" / "rules").glob("*.smk")))]
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


def test_bad_input_fails_cleanly_and_the_rerun_resumes(default_run, tmp_path):
    project = fresh_copy(tmp_path / "simgold")
    sheet = project / "raw" / "demo" / "hr" / "ocjene.tsv"
    data = sheet.read_bytes()
    row = data[: data.index("mačka".encode())].count(b"\n") + 1
    sheet.write_bytes(data.replace("mačka".encode(), "mačka".encode("cp1250")))  # one word saved in cp1250
    proc = snakemake(project, "--cores", "2", "--keep-going", check=False)
    assert proc.returncode != 0
    log = (project / "logs" / "clean" / "demo-hr.log").read_text()
    assert f"raw/demo/hr/ocjene.tsv, row {row}: byte 0xe8" in log and "cp1250" in log
    # the failed job left nothing behind: no table, no half-written temporary file
    assert not (project / "results" / "clean" / "demo-hr").exists() or not any(
        (project / "results" / "clean" / "demo-hr").iterdir()
    )
    assert not list((project / "results").rglob(".*.tmp"))
    built = {p: p.stat().st_mtime_ns for p in (project / "results").rglob("*.parquet")}
    assert project / "results" / "gold" / "demo-da" / "gold.parquet" in built  # the rest went on (--keep-going)
    # the input fixed, the rerun builds only what is missing and leaves finished tables alone
    sheet.write_bytes(data)
    proc = snakemake(project, "--cores", "2")
    ran = set(
        re.findall(r"^(?:local)?rule (\w+):\n(?:    .*\n)*?    wildcards: (.*)$", proc.stdout + proc.stderr, re.M)
    )
    assert ("clean_dataset", "dataset=demo-hr") in ran and ("clean_dataset", "dataset=demo-da") not in ran
    assert all(p.stat().st_mtime_ns == t for p, t in built.items())
    assert output_bytes(project) == output_bytes(default_run)


def test_cluster_executor_runs_every_job_apart_and_matches_the_local_run(default_run, tmp_path):
    """Each job is submitted as its own process by tests/cluster/submit.py (a stand-in sbatch)."""
    project = fresh_copy(tmp_path / "simgold")
    spool = tmp_path / "spool"
    submit = (
        f"{sys.executable} tests/cluster/submit.py --spool {spool} --rule {{rule}} --threads {{threads}}"
        " --mem-mb {resources.mem_mb} --runtime {resources.runtime}"
    )
    status = f"{sys.executable} tests/cluster/status.py {spool}"
    snakemake(
        project,
        *("--executor", "cluster-generic", "--jobs", "8", "--latency-wait", "10"),
        *("--cluster-generic-submit-cmd", submit, "--cluster-generic-status-cmd", status),
    )
    jobs = [json.loads(line) for line in (spool / "submissions.jsonl").read_text().splitlines()]
    local = snakemake(default_run, "--cores", "1", "-n", "--forceall").stdout
    assert len(jobs) == int(re.search(r"^total\s+(\d+)", local, re.M).group(1)) - 1  # all but the target rule
    assert all(j["threads"] >= 1 and j["mem_mb"] >= 500 and j["runtime"] >= 5 for j in jobs)
    # each model's load asks for memory by the size of its file (here: of its installed package)
    models = yaml.safe_load((project / "config" / "config.yaml").read_text(encoding="utf-8"))["models"]
    asked = sorted(j["mem_mb"] for j in jobs if j["rule"] == "embeddings")
    assert asked == sorted(embedding_mem_mb(m) for m in models.values()) and len(set(asked)) == len(models)
    assert output_bytes(project) == output_bytes(default_run)


@pytest.mark.shared
def test_shared_data_config_runs(shared, tmp_path):
    project = fresh_copy(tmp_path / "work" / "simgold")
    (tmp_path / "work" / "shared").symlink_to(shared)
    # without the on-demand e5 model (about 14,000 words to embed; tested on its own elsewhere)
    config = yaml.safe_load((project / "config/examples/shared-data.yaml").read_text(encoding="utf-8"))
    del config["models"]["e5-small"]
    (project / "config/examples/shared-test.yaml").write_text(
        yaml.safe_dump(config, allow_unicode=True), encoding="utf-8"
    )
    snakemake(project, "--cores", "2", "--configfile", "config/examples/shared-test.yaml", "--replace-workflow-config")
    summary = pd.read_parquet(project / "results" / "clean" / "summary.parquet").set_index("dataset")
    assert summary["ledger_balanced"].all() and len(summary) == 26  # the demo datasets are not merged in
    scores = pd.read_parquet(project / "results" / "scores" / "summary.parquet")
    spearman = scores[(scores["metric"] == "spearman") & (scores["subset"] == "all")]
    spearman = spearman.set_index(["dataset", "model"])["value"]
    for model in ("glove-6b-50d", "glove-6b-50d-file"):  # the package and the file give gensim's figures
        assert round(spearman[("ws353", model)], 4) == 0.5033 and round(spearman[("simlex999", model)], 4) == 0.2646
    ag = scores[(scores["metric"] == "ag_score") & (scores["subset"] == "all")].set_index("dataset")
    assert {"ws353-set1", "ws353-set2", "men-experts"} <= set(ag.index)
    context = pd.read_parquet(project / "results" / "context" / "cosimlex-en" / "summary.parquet").iloc[0]
    assert (context["n_pairs"], context["n_p_below_0_1"], context["n_p_below_0_05"]) == (340, 220, 208)
    cosimlex = pd.read_parquet(project / "results" / "scores" / "cosimlex_summary.parquet")
    minilm = cosimlex[(cosimlex["model"] == "minilm") & (cosimlex["language"] == "en")].iloc[0]
    assert minilm["subtask1"] > 0.1 and minilm["subtask2"] > 0.3
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
