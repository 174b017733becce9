"""The workflow end to end, as a user runs it.

Every test of this module uses one run, the session's (tests/workflow/conftest.py: ``readme_run``,
run once per session, by whichever worker process asks for it first); tests/workflow/test_workflow_configs.py
runs the workflow on other configurations. The shared run is the README's own path: a git clone of the
repository with its virtual environment `.venv` inside the checkout, set up and run by the README's
first command as written. The README's report and archive commands then run in it as written (report, archive,
unpack elsewhere, verify, rebuild byte for byte), and the other tests reuse the finished run.

Only that first run computes every vector from an empty store; the runs that follow it (the
rebuild, the cluster run, the bad-input run) read the vectors it computed from its store
(`SIMGOLD_CACHE`, simgold.io.vectorcache), and their tables are compared byte for byte with the first
run's: the store's promise (tables as without it) is checked on the way. The cluster and bad-input
runs build a subset of the targets that covers what they check, not the whole default run again.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from simgold.io.config import embedding_mem_mb
from simgold.io.tables import read_provenance
from simgold.report.mteb import model_folder

from ..mteb_format import model_meta_problems, task_result_problems
from ..userpath import bash, fresh_copy, snakemake
from .conftest import BUILT_UNDER, REBUILT_UNDER

pytestmark = pytest.mark.workflow


def output_bytes(root: Path) -> dict[str, bytes]:
    """Every table, figure and page under ``root/results`` (or under ``root`` when it is a results
    directory); not the archive, nor the `snakemake --report` file (it records the time it was made)."""
    base = root if root.name.startswith("results") else root / "results"
    files = [p for ext in ("parquet", "png", "html", "tsv", "json", "md", "tex") for p in base.rglob(f"*.{ext}")]
    files = [p for p in files if "archive" not in p.parts and p.relative_to(base).as_posix() != "report.html"]
    return {p.relative_to(base.parent).as_posix(): p.read_bytes() for p in sorted(files)}


def jobs_run(output: str) -> set[tuple[str, str]]:
    """(rule, wildcards) of every job a run finished, from its one-line-per-job output."""
    jobs = set()
    for line in re.findall(r"^\[\d+/\d+\] (.+)$", output, flags=re.M):
        for job in line.split("; "):
            rule, _, wildcards = job.partition(" ")
            jobs.add((rule, wildcards))
    return jobs


# --------------------------------------------------------------------------------------------
# the README's path


def product_digest(kernel: str) -> str:
    """The SHA-256 of a float32 matrix product (300 x 384 @ 384 x 1536) under an OpenBLAS kernel."""
    code = (
        "import hashlib, numpy as np; r = np.random.default_rng(0); "
        "a = r.standard_normal((300, 384), dtype=np.float32); b = r.standard_normal((384, 1536), dtype=np.float32); "
        "print(hashlib.sha256((a @ b).tobytes()).hexdigest())"
    )
    env = {**os.environ, "OPENBLAS_CORETYPE": kernel}
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout


def built_like_the_default_run(project: Path, default_run: Path, targets: list[str]) -> None:
    """The run in ``project`` built every target, and every result file it built (targets and the
    files they need) is byte for byte the one the default run built."""
    built, default = output_bytes(project), output_bytes(default_run)
    assert set(targets) <= set(built), sorted(set(targets) - set(built))
    assert [k for k in built if built[k] != default.get(k)] == []


def _snakemake_part(output: str) -> str:
    """What snakemake printed (after pip's lines)."""
    return output[output.index("Using workflow specific profile") :]


def embedded_pages(report: str) -> list[str]:
    """The HTML pages inside a `snakemake --report` file (stored as base64 data URIs)."""
    uris = re.findall(r"data:text/html[^\"',]*;base64,([A-Za-z0-9+/=]+)", report)
    return [base64.b64decode(u).decode("utf-8") for u in uris]


def unresolved_images(page: str, directory: Path | None = None) -> list[str]:
    """Images of a page that do not show: neither embedded nor a file beside the page."""
    sources = re.findall(r'<img[^>]*\ssrc="([^"]*)"', page)
    return [
        src for src in sources if not src.startswith("data:image/") and not (directory and (directory / src).is_file())
    ]


def test_readme_path_run_report_archive_verify_rebuild(readme_run):
    project, env = readme_run.project, readme_run.env
    printed = _snakemake_part(readme_run.run.stdout + readme_run.run.stderr)
    lines = printed.splitlines()
    # quiet: one line per job, no tables, and the last lines say where the answer is
    assert len(lines) < 200, printed[-3000:]
    assert not any(line.startswith(("Shell command", "localrule", "INFO")) for line in lines)
    ending = "\n".join(lines[-8:])
    assert "results/report/index.html" in ending and "results/scores/wide.tsv" in ending
    # the environment inside the checkout holds the packages; labels do not say where it lives
    assert (
        project
        / ".venv"
        / "lib"
        / f"python{sys.version_info.major}.{sys.version_info.minor}"
        / "site-packages"
        / "gensim"
    ).exists()
    ws = read_provenance(project / "results" / "clean" / "ws353" / "means.parquet")
    assert list(ws["inputs"]) == ["pkg:gensim/test/test_data/wordsim353.tsv"]
    assert ".venv" not in json.dumps([read_provenance(p) for p in (project / "results").rglob("*.parquet")])
    # the installed command
    scores = bash(".venv/bin/simgold scores", project, env).stdout
    assert re.search(r"^ws353\s+spearman\s+.*0\.503 \[0\.414, 0\.584\]", scores, re.M), scores
    agreement = bash(".venv/bin/simgold agreement", project, env).stdout
    icc = pd.read_parquet(project / "results" / "agreement" / "demo-da" / "icc.parquet")
    icc_k = icc.query("stage == 'filtered' and subset == 'all' and form == 'ICC(2,k)'")["value"].iloc[0]
    retest = pd.read_parquet(project / "results" / "agreement" / "demo-da" / "retest.parquet")["icc"].iloc[0]
    line = rf"^demo-da\s+22\s+2\s+37\s+0\.828\s+0\.895\s+0\.782\s+{icc_k:.3f}\s+{retest:.3f}\s+optimistic: 2 raters excluded"
    assert re.search(line, agreement, re.M), agreement
    # the README's report and archive commands, each as written, with the environment activated; the
    # rebuild as on another machine: another BLAS kernel, which rounds float products differently
    assert product_digest(BUILT_UNDER) != product_digest(REBUILT_UNDER)
    elsewhere = {**env, "OPENBLAS_CORETYPE": REBUILT_UNDER, "SIMGOLD_CACHE": "off"}
    outputs = [
        bash(f". .venv/bin/activate && {line}", project, elsewhere if "simgold rebuild" in line else env)
        for line in readme_run.archive_lines
    ]
    seconds = time.monotonic() - readme_run.started
    print(f"README path: {seconds:.0f} s; {len(lines)} lines printed by the run")
    said, progress = outputs[-1].stdout, outputs[-1].stderr  # rebuild's own lines; snakemake's, as they came
    assert said.startswith("rebuild runs the workflow code archived in "), said[:500]
    assert said.rstrip().endswith("rebuild: OK") and "rebuilt byte for byte" in said, said[-2000:]
    assert "rebuild: this machine: " in said and "BLAS: openblas" in said and REBUILT_UNDER in said
    assert re.search(rf"machine.json: reported, not compared: made on .*{BUILT_UNDER}", said), said[-3000:]
    assert not re.search(r"^\[\d+/\d+\] embeddings ", progress, re.M)  # scored from the archived vectors
    # every result file has a verdict: each archived one (the MANIFEST's) and each withheld one (WITHHELD.tsv's)
    unpacked = readme_run.work / "check" / "simgold-demo"
    verdicts = pd.read_csv(unpacked / "rebuild" / "verdicts.tsv", sep="\t", keep_default_na=False)
    listed = [line.split("  ")[-1] for line in (unpacked / "MANIFEST").read_text().splitlines()]
    listed += [line.split("\t")[0] for line in (unpacked / "WITHHELD.tsv").read_text().splitlines()[1:]]
    assert sorted(verdicts["path"]) == sorted(rel for rel in listed if rel.startswith("results/"))
    assert set(verdicts["verdict"]) <= {"identical", "within", "rendered", "reported", "withheld"}
    assert re.search(r"^\[1/\d+\] ", progress, re.M) and "simgold: finished" in progress, progress[-2000:]
    assert "verify: OK, every file matches the MANIFEST" in outputs[-2].stdout
    archived = outputs[1].stderr  # `snakemake --cores 8 archive`: its closing lines say where it is, not how to make it
    assert "archive  results/archive/simgold-demo.tar.gz" in archived and "for a paper" not in archived, archived[
        -1500:
    ]
    report_said = outputs[0].stdout + outputs[0].stderr  # `snakemake --report`: no warning, no traceback
    assert "Report created." in report_said and not re.search(r"Warning|Traceback", report_said), report_said[-2000:]
    # independently of rebuild's own comparison: every archived result file was rebuilt, and each
    # table equals the archived one by value, to its bound
    root = readme_run.work / "check" / "simgold-demo"
    archived, again = output_bytes(root), output_bytes(root / "rebuild" / "project")
    assert len(archived) > 150 and archived.keys() <= again.keys()
    check_rebuilt_values(root, verdicts)
    # the report: every dataset and model, every image shows
    report = (project / "results" / "report.html").read_text(encoding="utf-8")
    config = yaml.safe_load((project / "config" / "config.yaml").read_text(encoding="utf-8"))
    for name in [*config["datasets"], *config["models"]]:
        assert name in report, name
    # each figure of a page's figure directory carries its own caption (workflow/report/figures.rst)
    for caption in ("Model scores on ws353", "Noise sanity check on ws353", "Context effects in demo-en-context",
                    "Agreement of each rater of demo-da", "How many raters are enough for demo-da",
                    "Gold scores of simlex999"):  # fmt: skip
        assert caption in report, caption
    pages = embedded_pages(report)
    assert len(pages) == len(config["datasets"]) + 1 and sum(p.count("<img") for p in pages) >= 20
    assert [src for page in pages for src in unresolved_images(page)] == []
    for page in (project / "results" / "report").rglob("*.html"):
        assert unresolved_images(page.read_text(encoding="utf-8"), page.parent) == [], page
    check_archive(project, root, env)


def archived_pairs_of_simlex999(root: Path) -> list[str]:
    """Files of the archive that hold a SimLex-999 pair (two words in a row of a table, or next to each
    other in a text file), of the pairs that no other dataset of the run has, read from the raw files."""
    from gensim.test.utils import datapath

    def pairs(name: str) -> set[tuple[str, str]]:
        lines = Path(datapath(name)).read_text(encoding="utf-8").splitlines()
        return {tuple(line.lower().split("\t")[:2]) for line in lines if line and not line.startswith("#")}

    simlex = pairs("simlex999.txt") - pairs("wordsim353.tsv")
    assert len(simlex) > 950
    found = []
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "rebuild" not in p.relative_to(root).parts):
        rel = path.relative_to(root).as_posix()
        if path.suffix == ".parquet":
            table = pd.read_parquet(path)
            for a, b in (("word1", "word2"), ("w1", "w2")):
                if {a, b} <= set(table.columns):
                    hits = set(zip(table[a].astype(str).str.lower(), table[b].astype(str).str.lower())) & simlex
                    found += [f"{rel}: {len(hits)} pairs, such as {sorted(hits)[:3]}"] if len(hits) > 2 else []
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        hits = set()
        for line in text.splitlines():
            words = re.findall(r"\w+", re.sub(r"<[^>]+>", " ", line).lower())
            hits |= set(zip(words, words[1:])) & simlex
        if len(hits) > 2:  # two may be chance ("old new" in a sentence); a table of the dataset holds hundreds
            found.append(f"{rel}: {len(hits)} pairs, such as {sorted(hits)[:3]}")
    return found


def check_rebuilt_values(root: Path, verdicts: pd.DataFrame) -> None:
    """Each verdict of the rebuild, checked again from the files themselves: a byte-identical or
    re-rendered file has the archived bytes, a table judged equal within the bound is, by its own
    numbers, and a withheld file has the checksum WITHHELD.tsv records; a planted change of 1e-6
    (relative) in one float64 statistic of the archive is reported as different."""
    from simgold.io.digests import sha256_file
    from simgold.report.compare import BOUNDS, _compare_parquet

    rebuilt = root / "rebuild" / "project"
    recorded = dict(line.split("\t")[:2] for line in (root / "WITHHELD.tsv").read_text().splitlines()[1:])
    by_kind = verdicts.groupby("verdict")["path"].apply(list).to_dict()
    for rel in by_kind.get("identical", []) + by_kind.get("rendered", []):
        assert (root / rel).read_bytes() == (rebuilt / rel).read_bytes(), rel
    for rel in by_kind.get("withheld", []):
        assert sha256_file(rebuilt / rel) == recorded[rel], rel
    for rel in by_kind.get("within", []):
        a, b = pd.read_parquet(root / rel), pd.read_parquet(rebuilt / rel)
        assert list(a.columns) == list(b.columns) and len(a) == len(b), rel
        for column in a.columns:
            if a[column].dtype.kind == "f":
                diff = (a[column] - b[column]).abs().fillna(0)
                scale = pd.concat([a[column].abs(), b[column].abs()], axis=1).max(axis=1).fillna(0)
                assert (diff <= BOUNDS["float32"][0] * scale + BOUNDS["float32"][1]).all(), (rel, column)
            else:  # counts, words, ids and order: exact
                assert a[column].astype(str).equals(b[column].astype(str)), (rel, column)
    rel = "results/agreement/demo-da/alpha.parquet"
    table = pq.read_table(root / rel)
    alpha = table.column("alpha").to_numpy(zero_copy_only=False).copy()
    first = int(np.flatnonzero(np.isfinite(alpha))[0])
    alpha[first] *= 1 + 1e-6
    planted = root.parent / "planted-alpha.parquet"
    pq.write_table(table.set_column(table.column_names.index("alpha"), "alpha", pa.array(alpha)), planted)
    verdict = _compare_parquet(rel, planted, root / "rebuild" / "project" / rel, {})
    assert verdict.kind == "different" and "alpha: largest relative difference 1e-06" in verdict.detail, verdict


def check_archive(project: Path, root: Path, env: dict) -> None:
    """What the archive of the default run holds, that it is deterministic, and that tampering shows."""
    from simgold.report.verify import verify

    archive = project / "results" / "archive" / "simgold-demo.tar.gz"
    with tarfile.open(archive) as tar:
        assert all(m.isfile() or m.isdir() for m in tar.getmembers())  # no links
    names = (root / "MANIFEST").read_text().splitlines()
    study = (root / "README.md").read_text(encoding="utf-8")  # the study, not the tool's manual
    assert study.startswith("# simgold demo run") and "results/release/demo-da/README.md" in study
    assert (root / "SIMGOLD-README.md").read_text(encoding="utf-8").startswith("# simgold")
    for rel in ("results/scores/summary.parquet", "environment/requirements.lock.txt", "src/simgold/cli.py",
                "results/release/demo-da/croissant.json", "results/release/ws353/ws353.txt"):  # fmt: skip
        assert any(line.endswith(f"  {rel}") for line in names), rel
    assert any(line.endswith("  inputs/pkg/gensim/test/test_data/wordsim353.tsv") for line in names)
    # redistribute: false: the raw file, its release and every table or page holding its pairs stay out
    # (their checksums in WITHHELD.tsv), counted from the raw file itself; no env
    assert not any("test_data/simlex999.txt" in line or ".venv" in line for line in names)
    assert not any("results/release/simlex999/" in line for line in names)
    withheld = (root / "WITHHELD.tsv").read_text(encoding="utf-8").splitlines()
    assert "results/gold/simlex999/gold.parquet" in {row.split("\t")[0] for row in withheld}
    assert all(row.split("\t")[3] == "simlex999" for row in withheld[1:])
    assert archived_pairs_of_simlex999(root) == []
    study = (root / "README.md").read_text(encoding="utf-8")
    assert "No licence was chosen for this archive" in study and "- simlex999: may not be redistributed" in study
    external = (root / "inputs" / "EXTERNAL.tsv").read_text()
    assert "pkg:gensim/test/test_data/simlex999.txt\t" in external and "\tsimlex999\tno\t" in external
    archived_config = yaml.safe_load((root / "config" / "config.yaml").read_text(encoding="utf-8"))
    assert archived_config == yaml.safe_load((project / "config" / "config.yaml").read_text(encoding="utf-8"))
    crate = json.loads((root / "ro-crate-metadata.json").read_text())
    run = next(e for e in crate["@graph"] if e["@id"] == "#run")
    assert run["@type"] == "CreateAction" and run["instrument"] == {"@id": "Snakefile"} and len(run["result"]) > 100
    assert "snakemake==" in (root / "environment" / "requirements.lock.txt").read_text().lower()
    first = archive.read_bytes()
    bash(". .venv/bin/activate && snakemake --cores 2 archive --forcerun archive", project, env)
    assert archive.read_bytes() == first  # the archive itself is deterministic
    gold = root / "results" / "gold" / "ws353" / "gold.parquet"
    original = gold.read_bytes()
    gold.write_bytes(original[:-1] + bytes([original[-1] ^ 1]))  # one bit, the same size: the checksum tells
    assert verify(root) == ["results/gold/ws353/gold.parquet: checksum does not match the MANIFEST"]
    gold.write_bytes(b"tampered")  # another size: told before any hashing
    assert verify(root) == [f"results/gold/ws353/gold.parquet: 8 bytes, the MANIFEST says {len(original):,}"]


def test_front_page_and_score_files(default_run):
    index = (default_run / "results" / "report" / "index.html").read_text(encoding="utf-8")
    matrix = index.split("</table>")[0]
    assert matrix.startswith("<!DOCTYPE html>") and 'class="data matrix"' in matrix
    assert "<th>ws353 <small>(Spearman)</small></th>" in matrix and "<b>0.503</b><br><small>[0.414, 0.584]" in matrix
    assert "OOV pairs 0.0%" in matrix and "demo-he-rank <small>(A&amp;G score)</small>" in matrix
    assert "Agreement of the raters of each dataset" in index.split("</table>")[1]
    wide = pd.read_csv(default_run / "results" / "scores" / "wide.tsv", sep="\t").set_index("dataset")
    summary = pd.read_parquet(default_run / "results" / "scores" / "summary.parquet")
    spearman = summary[(summary["metric"] == "spearman") & (summary["subset"] == "all")]
    for row in spearman.itertuples():
        assert wide.loc[row.dataset, row.model] == pytest.approx(row.value, abs=5e-6)
        result = json.loads(
            (default_run / "results" / "scores" / "json" / model_folder(row.model) / f"{row.dataset}.json").read_text()
        )
        test = result["scores"]["test"][0]
        assert result["task_name"] == row.dataset and test["main_score"] == row.value
        assert test["cosine_spearman_ci"] == [row.ci_low, row.ci_high] and test["oov_pairs"] == row.oov_pairs
        assert (test["n_used"], test["n_total"]) == (row.n_used, row.n_total)  # the Spearman's, not A&G's
    # every MTEB file of the run: exactly the fields of the pinned TaskResult and ModelMeta
    written = sorted((default_run / "results" / "scores" / "json").rglob("*.json"))
    assert len(written) == len(spearman) + 1 + 3  # the A&G-only demo-he-rank, a model_meta.json per model
    for path in written:
        data = json.loads(path.read_text(encoding="utf-8"))
        assert (model_meta_problems if path.name == "model_meta.json" else task_result_problems)(data) == [], path
        assert (
            path.parent.relative_to(default_run / "results" / "scores" / "json")
            .as_posix()
            .endswith("/no_revision_available")
        )
    he = json.loads(
        (default_run / "results" / "scores" / "json" / model_folder("e5-small") / "demo-he-rank.json").read_text()
    )
    assert he["scores"]["test"][0]["languages"] == ["heb-Hebr"] and len(he["dataset_revision"]) == 16
    # the leaderboard: models as rows, the best of ws353 (MiniLM) bold, the MSD row
    board = (default_run / "results" / "scores" / "leaderboard.md").read_text(encoding="utf-8")
    assert "| minilm |" in board and "**0.729** [" in board and "| MSD (p \\< 0.05) |" in board
    # LaTeX: one float, the default run's three models side by side (set by tests/report/test_leaderboard_tex.py)
    tex = (default_run / "results" / "scores" / "leaderboard.tex").read_text(encoding="utf-8")
    assert tex.count("\\begin{table*}") == 1 and tex.endswith("\\label{tab:leaderboard}\n\\end{table*}\n")
    assert "../scores/leaderboard.md" in index
    assert wide.loc["demo-he-rank", "metric"] == "ag_score"
    flags = pd.read_csv(default_run / "results" / "report" / "summary.tsv", sep="\t", keep_default_na=False)
    ag = flags[flags["metric"] == "ag_score"]
    assert ((ag["n_used"] < 10) == (ag["flag"] == "fewer than 10 comparisons")).all()
    # no placeholder figures: noise curves only where the noise check ran
    noise = {p.parent.parent.name for p in (default_run / "results" / "report").glob("*/figures/noise.png")}
    assert noise == {"demo-en-context", "ws353"}  # the config's noise datasets
    # a curve starts at the score the report shows: level 0 adds no noise to the vectors the model scored
    # with (MiniLM scores the context demo with in-context vectors, so it has no curve there)
    curves = sorted((default_run / "results" / "noise").glob("*/*.parquet"))
    assert [(p.parent.name, p.stem) for p in curves] == [
        ("demo-en-context", "e5-small"),
        ("demo-en-context", "glove-6b-50d"),
        ("ws353", "e5-small"),
        ("ws353", "glove-6b-50d"),
        ("ws353", "minilm"),
    ]
    scored = spearman.set_index(["dataset", "model"])["value"]
    for path in curves:
        curve = pd.read_parquet(path)
        assert curve["level"].iloc[0] == 0 and curve["mean"].iloc[0] == pytest.approx(
            scored[(path.parent.name, path.stem)], abs=1e-9
        ), path


def test_the_bws_demo_from_answers_to_release(default_run):
    """What a user of the BWS demo looks at: the random clicker excluded, the reliability, the gold
    and both scores, the models' MaxDiff accuracy, and a release whose answers give the scores back."""
    from simgold.stages.bws_gold import scores_from_answers

    results = default_run / "results"
    raters = pd.read_parquet(results / "agreement" / "demo-en-bws" / "raters.parquet")
    assert raters.loc[raters["excluded"], "rater"].tolist() == ["a07"]  # the planted random clicker
    reliability = pd.read_parquet(results / "agreement" / "demo-en-bws" / "bws_reliability.parquet")
    assert reliability["stage"].tolist() == ["raw", "filtered"]
    assert reliability["n_answers"].tolist() == [144, 126]  # 148 rows, 4 to the ledger; a07's 18 out
    assert (reliability["shr_spearman_sb"] > 0.9).all()
    gold = pd.read_parquet(results / "gold" / "demo-en-bws" / "gold.parquet")
    items = pd.read_parquet(results / "clean" / "demo-en-bws" / "items.parquet").set_index("item_id")
    ranked = gold.sort_values("rank")["item_id"].map(lambda i: f"{items.loc[i, 'word1']}:{items.loc[i, 'word2']}")
    assert set(ranked.iloc[-3:]) == {"cord:smile", "noon:string", "rooster:voyage"}  # latent 0.02 to 0.05
    scores = pd.read_parquet(results / "scores" / "demo-en-bws" / "minilm" / "scores.parquet").set_index("metric")
    for metric in ("maxdiff_best", "maxdiff_worst", "maxdiff_accuracy", "spearman"):
        assert 0 < scores.loc[metric, "ci_low"] <= scores.loc[metric, "value"] <= scores.loc[metric, "ci_high"]
    assert scores.loc["maxdiff_accuracy", "n_used"] == 48
    release = results / "release" / "demo-en-bws"
    again = scores_from_answers(pd.read_parquet(release / "demo-en-bws.answers.parquet"))
    table = pd.read_parquet(release / "demo-en-bws.parquet").set_index("item_id")
    assert again.set_index("item_id")["counting"].to_dict() == pytest.approx(table["counting"].to_dict(), abs=1e-15)
    card = (release / "README.md").read_text(encoding="utf-8")
    assert "## Best-Worst Scaling" in card and "split-half" in card.lower()


def test_default_config_builds_every_target(default_run):
    config = yaml.safe_load((default_run / "config" / "config.yaml").read_text(encoding="utf-8"))
    for dataset in config["datasets"]:
        for table in ("items", "ratings", "means", "rankings", "answers", "repeats", "rejects", "summary"):
            assert (default_run / "results" / "clean" / dataset / f"{table}.parquet").is_file()
        assert (default_run / "logs" / "clean" / f"{dataset}.log").is_file()
    for dataset in config["datasets"]:
        for name in ("gold.parquet", "distribution.parquet"):
            assert (default_run / "results" / "gold" / dataset / name).is_file()
        assert (default_run / "results" / "report" / dataset / "figures" / "distribution.png").is_file()
    for dataset in ("demo-da", "demo-hr", "demo-de", "demo-en-context", "demo-he-rank"):
        for name in ("agreement.parquet", "raters.parquet"):
            assert (default_run / "results" / "agreement" / dataset / name).is_file()
        assert (default_run / "results" / "report" / dataset / "figures" / "raters.png").is_file()
    assert not (default_run / "results" / "agreement" / "ws353").exists()  # means only: no raters
    # every dataset released, linked from its page and the front page; gensim's file only where it fits
    front = (default_run / "results" / "report" / "index.html").read_text(encoding="utf-8")
    closed = [d for d, ds in config["datasets"].items() if ds.get("redistribute") is False]
    assert closed == ["simlex999"] and not (default_run / "results" / "release" / "simlex999").exists()
    for dataset in sorted(set(config["datasets"]) - set(closed)):
        release = default_run / "results" / "release" / dataset
        assert {"README.md", "croissant.json", f"{dataset}.parquet", f"{dataset}.tsv"} <= {
            p.name for p in release.iterdir()
        }
        assert not [p.name for p in release.iterdir() if p.name.startswith(".")]  # no marker file to upload
        # one score per word pair: ratings, means and Best-Worst Scaling
        assert (release / f"{dataset}.txt").exists() == (
            config["datasets"][dataset]["kind"] in ("ratings", "means", "bws")
        )
        page = (default_run / "results" / "report" / dataset / "index.html").read_text(encoding="utf-8")
        assert f'href="../../release/{dataset}/README.md"' in page and f'href="../release/{dataset}/README.md"' in front
        gold = pd.read_parquet(default_run / "results" / "gold" / dataset / "gold.parquet")
        assert len(pd.read_parquet(release / f"{dataset}.parquet")) == gold["mean"].notna().sum()  # scored items
    card = (default_run / "results" / "release" / "demo-da" / "README.md").read_text(encoding="utf-8")
    assert "license: cc0-1.0" in card and "@misc{simgold-demo-da," in card
    assert "No licence was given" in (default_run / "results" / "release" / "ws353" / "README.md").read_text()
    linked = pd.read_parquet(default_run / "results" / "translate" / "demo-hr" / "items.parquet")
    assert linked["source_item_id"].str.startswith("demo-da:").all() and len(linked) == 30
    corr = pd.read_parquet(default_run / "results" / "translate" / "crosslingual_correlations.parquet")
    assert (
        corr[["dataset_a", "dataset_b"]].values.tolist() == [["demo-da", "demo-hr"]] and corr["spearman"].iloc[0] > 0.9
    )
    # the two packaged models score the real data shipped with gensim, and every demo language
    scores = pd.read_parquet(default_run / "results" / "scores" / "summary.parquet")
    spearman = scores[(scores["metric"] == "spearman") & (scores["subset"] == "all")].set_index(["dataset", "model"])
    assert round(spearman.loc[("ws353", "glove-6b-50d"), "value"], 4) == 0.5033  # gensim's figures
    assert round(spearman.loc[("simlex999", "glove-6b-50d"), "value"], 4) == 0.2646
    assert round(spearman.loc[("simlex999", "e5-small"), "value"], 3) == 0.514
    e5 = {d for d, m in spearman.index if m == "e5-small"}
    assert e5 == {"demo-da", "demo-de", "demo-en-bws", "demo-en-context", "demo-hr", "simlex999", "ws353"}
    assert (spearman["ci_low"] < spearman["value"]).all() and (spearman["value"] < spearman["ci_high"]).all()
    assert spearman.loc[("demo-da", "e5-small"), "human_ceiling"] > 0.8
    raters = pd.read_parquet(default_run / "results" / "agreement" / "demo-da" / "raters.parquet")
    kept = raters[(raters["stage"] == "filtered") & ~raters["excluded"]]["vs_rest"].dropna()
    e5 = spearman.loc[("demo-da", "e5-small")]
    assert e5["raters_below"] == (kept < e5["value"]).mean() and len(kept) > 5
    ag = scores[(scores["dataset"] == "demo-he-rank") & (scores["metric"] == "ag_score")]
    assert set(ag["subset"]) == {"all", "type=positive", "type=distractor", "type=random"}
    diffs = pd.read_parquet(default_run / "results" / "scores" / "ws353" / "model_differences.parquet")
    pairs = diffs[["model_a", "model_b", "metric"]].values.tolist()
    models = [["e5-small", "glove-6b-50d"], ["e5-small", "minilm"], ["glove-6b-50d", "minilm"]]
    assert pairs == [pair + [metric] for pair in models for metric in ("pearson", "spearman")]
    assert diffs["p"].between(0, 1).all() and (diffs["p_holm"] >= diffs["p"]).all() and (diffs["note"] == "").all()
    assert (diffs["zou_low"] < diffs["difference"]).all() and (diffs["difference"] < diffs["zou_high"]).all()
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


def test_rater_figure_threshold_is_the_one_that_excluded_the_raters(default_run):
    from simgold.report.figures import _exclusion_threshold

    raters = pd.read_parquet(default_run / "results" / "agreement" / "demo-da" / "raters.parquet")
    calibrated = raters[raters["stage"] == "calibrated"]
    column, cut, _ = _exclusion_threshold(calibrated, {"method": "pairwise_sd", "k": 1.0})
    assert column == "avg_pairwise"
    assert sorted(calibrated.loc[calibrated[column] < cut, "rater"]) == ["Deltager 08", "Deltager 14"]
    assert ((calibrated[column] < cut) == calibrated["excluded"]).all()


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
    # every table carries the provenance of docs/methods.md section 10
    for parquet in sorted((default_run / "results").rglob("*.parquet")):
        prov = read_provenance(parquet)
        assert {"schema_version", "rule", "wildcards", "params", "inputs", "versions"} <= set(prov), parquet
        assert all(len(digest) == 64 for digest in prov["inputs"].values()), parquet


def test_the_warm_worker_ran_every_job_of_the_readme_run(readme_run):
    """The README's run started its warm worker (simgold.workflow.warm), which ran each of the run's
    jobs (counted from Snakemake's records) once, each ending with exit status 0, and ended with the run."""
    assert readme_run.warm_log is not None, "the run started no warm worker"
    lines = readme_run.warm_log.splitlines()
    jobs = [line for line in lines if " job tmp" in line]
    assert len(jobs) == readme_run.jobs > 50
    assert all(line.endswith("): exit status 0") for line in jobs), [line for line in jobs if "status 0" not in line]
    assert "the worker ends" in lines[-1] and not any("not loaded ahead" in line for line in lines)


def test_rerun_has_nothing_to_do(readme_run):
    # in the README's environment: with another one, gensim's files have another path (a changed input)
    proc = bash(". .venv/bin/activate && snakemake --cores 1 -n", readme_run.project, readme_run.env)
    assert "Nothing to be done" in proc.stdout + proc.stderr


def test_changed_params_rerun_only_that_dataset(readme_run, tmp_path):
    project = tmp_path / "simgold"  # the finished default run, with its metadata and file times
    shutil.copytree(readme_run.project, project, symlinks=True)
    config = (project / "config" / "config.yaml").read_text(encoding="utf-8")
    (project / "config" / "config.yaml").write_text(config.replace("min_answered: 16", "min_answered: 20"))
    # the copy's .venv/bin/activate names the run's environment, whose files the run's metadata records
    proc = bash(". .venv/bin/activate && snakemake --cores 1 -n", project, readme_run.env)
    out = proc.stdout + proc.stderr
    jobs = re.findall(r"^(?:local)?rule (\w+):\n(?:    .*\n)*?    wildcards: (.*)$", out, flags=re.M)
    per_dataset = {(rule, w) for rule, w in jobs if rule in ("clean_dataset", "calibrate", "agreement", "gold")}
    assert per_dataset == {(r, "dataset=demo-de") for r in ("clean_dataset", "calibrate", "agreement", "gold")}
    # the German words feed the multilingual model's vocabulary, so its embeddings and scores follow;
    # the English-only model is untouched
    rules = {rule for rule, _ in jobs}
    assert "embeddings" in rules and not any("glove" in w for _, w in jobs)


BAD_INPUT_STAGES = ("clean", "translate", "calibrate", "agreement", "gold")


def test_bad_input_fails_cleanly_and_the_rerun_resumes(default_run, warm_store, tmp_path):
    """A Croatian sheet saved with one word in cp1250; the run asks for every table of the Croatian
    dataset and of the Danish one it translates (an independent branch that must go on)."""
    project = fresh_copy(tmp_path / "simgold")
    targets = [
        rel
        for rel in output_bytes(default_run)
        if rel.split("/")[1] in BAD_INPUT_STAGES and rel.split("/")[2] in ("demo-da", "demo-hr")
    ]
    assert "results/gold/demo-hr/gold.parquet" in targets and "results/translate/demo-hr/items.parquet" in targets
    sheet = project / "raw" / "demo" / "hr" / "ocjene.tsv"
    data = sheet.read_bytes()
    row = data[: data.index("mačka".encode())].count(b"\n") + 1
    sheet.write_bytes(data.replace("mačka".encode(), "mačka".encode("cp1250")))  # one word saved in cp1250
    proc = snakemake(project, "--cores", "2", "--keep-going", *targets, check=False, env=warm_store)
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
    proc = snakemake(project, "--cores", "2", *targets, env=warm_store)
    ran = jobs_run(proc.stdout + proc.stderr)
    assert ("clean_dataset", "dataset=demo-hr") in ran and ("clean_dataset", "dataset=demo-da") not in ran
    assert all(p.stat().st_mtime_ns == t for p, t in built.items())
    built_like_the_default_run(project, default_run, targets)


def test_cluster_executor_runs_every_job_apart_and_matches_the_local_run(default_run, warm_store, tmp_path):
    """Each job is submitted as its own process by tests/cluster/submit.py (a stand-in sbatch). The
    targets need a job of every kind of stage up to the scores: every dataset cleaned, every model's
    vectors, a rater dataset's calibration, agreement and gold, and a dataset scored by every model."""
    project = fresh_copy(tmp_path / "simgold")
    models = yaml.safe_load((project / "config" / "config.yaml").read_text(encoding="utf-8"))["models"]
    targets = [
        *(f"results/embeddings/{m}.parquet" for m in models),
        *(f"results/scores/ws353/{m}/scores.parquet" for m in models),
        "results/gold/demo-da/gold.parquet",
    ]
    spool = tmp_path / "spool"
    submit = (
        f"{sys.executable} tests/cluster/submit.py --spool {spool} --rule {{rule}} --threads {{threads}}"
        " --mem-mb {resources.mem_mb} --runtime {resources.runtime}"
    )
    status = f"{sys.executable} tests/cluster/status.py {spool}"
    # status.py reads a file, so asking every second costs little; Snakemake's default (10 s) left the
    # jobs of each step waiting for the next round (67 s -> 53 s for these 17 jobs)
    snakemake(
        project,
        *("--executor", "cluster-generic", "--jobs", "8", "--latency-wait", "10"),
        *("--seconds-between-status-checks", "1"),
        *("--cluster-generic-submit-cmd", submit, "--cluster-generic-status-cmd", status),
        *targets,
        env=warm_store,
    )
    jobs = [json.loads(line) for line in (spool / "submissions.jsonl").read_text().splitlines()]
    local = snakemake(default_run, "--cores", "1", "-n", "--forceall", *targets).stdout
    assert len(jobs) == int(re.search(r"^total\s+(\d+)", local, re.M).group(1))  # every job (no local rule)
    assert {j["rule"] for j in jobs} >= {"clean_dataset", "calibrate", "agreement", "gold", "embeddings", "score"}
    assert all(j["threads"] >= 1 and j["mem_mb"] >= 500 and j["runtime"] >= 5 for j in jobs)
    # each model's load asks for memory by the size of its file (here: of its installed package)
    asked = sorted(j["mem_mb"] for j in jobs if j["rule"] == "embeddings")
    assert asked == sorted(embedding_mem_mb(m) for m in models.values()) and len(set(asked)) == len(models)
    built_like_the_default_run(project, default_run, targets)


# -------------------------------------------------------------------------------- issue 15 statistics
# What the run wrote for docs/methods.md section 11 is what the library gives on the run's own inputs.


def _stats_config(project: Path) -> dict:
    from simgold.io.config import check_config

    config = yaml.safe_load((project / "config" / "config.yaml").read_text(encoding="utf-8"))
    return check_config(config, base_dir=project)


def _result(project: Path, *parts: str) -> pd.DataFrame:
    return pd.read_parquet(project.joinpath("results", *parts))


def test_agreement_cis_and_alpha_levels_are_the_librarys(default_run):
    from simgold.stages.agreement import agreement_report, alpha_levels

    config = _stats_config(default_run)
    for name in ("demo-da", "demo-de", "demo-en-context", "demo-hr"):  # every per-rater dataset
        spec, settings = config["datasets"][name], config["datasets"][name]["agreement"]
        items, raw = _result(default_run, "clean", name, "items.parquet"), _result(
            default_run, "clean", name, "ratings.parquet"
        )
        calibrated = _result(default_run, "calibrate", name, "ratings.parquet")
        ci = {"resamples": settings["resamples"], "max_work": settings["ci_max_work"]}
        ci.update(seed=config["scoring"]["seed"], confidence=config["scoring"]["confidence"])
        report = agreement_report(
            name, items, raw, calibrated, _result(default_run, "calibrate", name, "raters.parquet"),
            min_overlap=settings["min_overlap"], subset_names=settings["subsets"], outliers=spec["outliers"],
            persistent_raters=spec["persistent_raters"], ci=ci,
        )  # fmt: skip
        got = _result(default_run, "agreement", name, "agreement_ci.parquet")
        pd.testing.assert_frame_equal(got, report["agreement_ci"], check_dtype=False)
        # stages x subsets x 4 statistics x 3 schemes
        assert (got["resamples"] == 1000).all() and len(got) == 3 * 12 * got["subset"].nunique()
        table = _result(default_run, "agreement", name, "agreement.parquet").set_index(["stage", "subset"])
        for statistic in ("pairwise", "vs_mean", "vs_rest", "alpha_interval"):  # the point values are the table's
            rows = got[got["statistic"] == statistic]
            expected = table.loc[list(zip(rows["stage"], rows["subset"])), statistic].to_numpy()
            assert (
                (rows["value"].to_numpy() == expected) | (rows["value"].isna().to_numpy() & pd.isna(expected))
            ).all()
        stages = {
            "raw": raw,
            "calibrated": calibrated,
            "filtered": _result(default_run, "agreement", name, "ratings.parquet"),
        }
        alpha = _result(default_run, "agreement", name, "alpha.parquet")
        pd.testing.assert_frame_equal(alpha, alpha_levels(name, items, stages, settings["subsets"]), check_dtype=False)
        assert set(alpha["level"]) == {"nominal", "ordinal", "interval", "ratio"}
    da = _result(default_run, "agreement", "demo-da", "agreement_ci.parquet")
    assert set(da["subset"]) > {"all"}  # the pos subsets of the config


def test_reliability_projection_per_rated_dataset(default_run):
    from simgold.stages.reliability import reliability_projection

    config = _stats_config(default_run)
    for name in ("demo-da", "demo-de", "demo-en-context", "demo-hr"):
        spec = config["datasets"][name]
        expected = reliability_projection(
            name, _result(default_run, "clean", name, "ratings.parquet"), seed=config["scoring"]["seed"],
            persistent_raters=spec["persistent_raters"], stage="raw",
        )  # fmt: skip
        for table in ("summary", "curve"):
            got = _result(default_run, "reliability", name, f"{table}.parquet")
            pd.testing.assert_frame_equal(got, expected[table], check_dtype=False)
        summary = _result(default_run, "reliability", name, "summary.parquet").iloc[0]
        assert summary["n_splits"] == 200 and 0 < summary["r_full"] <= 1
        assert (default_run / "results" / "report" / name / "figures" / "reliability.png").is_file()
        page = (default_run / "results" / "report" / name / "index.html").read_text(encoding="utf-8")
        assert "How many raters are enough" in page and "Uncertainty of the agreement" in page
        assert "Krippendorff&#x27;s alpha at each level of measurement" in page
        gold = _result(default_run, "gold", name, "gold.parquet")
        assert (gold["ci_low"].isna() == (gold["n"] < 2)).all() and (gold["n"] >= 2).mean() > 0.9
        assert (gold["confidence"] == config["scoring"]["confidence"]).all()
        resolved = f"<td>{gold['resolved_share'].mean():.3f}</td>"
        assert "How precise the gold standard is: each item&#x27;s mean has a 95% Student" in page and resolved in page
        icc = _result(default_run, "agreement", name, "icc.parquet")
        assert set(icc["form"]) == {"ICC(2,1)", "ICC(2,k)"} and set(icc["stage"]) == {"raw", "calibrated", "filtered"}
        assert "Intraclass correlations (Shrout &amp; Fleiss 1979)" in page


def test_williams_test_and_minimum_significant_difference_beside_the_scores(default_run):
    from simgold.stages.msd import dataset_msd, with_msd
    from simgold.stats.dependent_correlations import compare_predictions

    gold = _result(default_run, "gold", "ws353", "gold.parquet").set_index("item_id")["mean"]
    sims = {
        m: _result(default_run, "scores", "ws353", m, "predictions.parquet").set_index("item_id")["sim"].reindex(gold.index)
        for m in ("e5-small", "glove-6b-50d", "minilm")
    }  # fmt: skip
    diffs = _result(default_run, "scores", "ws353", "model_differences.parquet")
    for row in diffs.itertuples():
        expected = compare_predictions(
            gold.to_numpy(),
            sims[row.model_a].to_numpy(),
            sims[row.model_b].to_numpy(),
            row.metric,
            confidence=row.confidence,
        )
        assert (row.zou_low, row.zou_high) == (expected["zou_low"], expected["zou_high"])
        assert (row.r_ab, row.williams_t, row.williams_p) == (expected["r_jk"], expected["t"], expected["p"])
        assert row.n_used == expected["n"] and row.value_a == pytest.approx(expected["r_jg"], abs=1e-12)
    scores = pd.concat([_result(default_run, "scores", "ws353", m, "scores.parquet") for m in sims])
    msd = _result(default_run, "scores", "ws353", "msd.parquet")
    pd.testing.assert_frame_equal(msd, dataset_msd("ws353", scores, diffs, min_coverage=0.9), check_dtype=False)
    assert msd["r_jk_kind"].tolist() == ["fixed", "fixed", "fixed", "observed"] and msd["n"].iloc[0] == 353
    summary = _result(default_run, "scores", "summary.parquet")
    across = _result(default_run, "scores", "differences.parquet")
    per_dataset = pd.concat(
        [_result(default_run, "scores", d, "model_differences.parquet") for d in sorted(summary["dataset"].unique())]
    )
    pd.testing.assert_frame_equal(
        across[per_dataset.columns].reset_index(drop=True), per_dataset.reset_index(drop=True)
    )
    from scipy.stats import false_discovery_control

    spearman_rows = across[(across["metric"] == "spearman") & across["williams_p"].notna()]
    expected_q = false_discovery_control(spearman_rows["williams_p"].to_numpy(), method="bh")
    assert spearman_rows["williams_q_bh"].to_numpy() == pytest.approx(expected_q, abs=1e-15)
    msds = pd.concat([_result(default_run, "scores", d, "msd.parquet") for d in summary["dataset"].unique()])
    recomputed = with_msd(summary.drop(columns=["msd", "msd_r_jk"]), msds)
    pd.testing.assert_frame_equal(summary, recomputed[summary.columns], check_dtype=False)
    wide = pd.read_csv(default_run / "results" / "scores" / "wide.tsv", sep="\t").set_index("dataset")
    head = summary[(summary["metric"] == "spearman") & (summary["subset"] == "all")].groupby("dataset")["msd"].first()
    assert wide.loc[head.index, "msd"].to_numpy() == pytest.approx(head.to_numpy(), abs=5e-6)
    assert 0 < wide.loc["ws353", "msd"] < 0.1
    page = (default_run / "results" / "report" / "ws353" / "index.html").read_text(encoding="utf-8")
    assert "Williams&#x27; test" in page and "Minimum significant difference" in page
    assert "<th>msd</th>" in (default_run / "results" / "report" / "index.html").read_text(encoding="utf-8")


def test_every_cleaned_dataset_is_audited(default_run):
    from simgold.io.tables import to_arrow
    from simgold.stages.audit import audit_configured

    config = _stats_config(default_run)
    cleaned = [d for d, spec in config["datasets"].items() if spec["kind"] != "comparisons"]
    for name in cleaned:
        spec = config["datasets"][name]
        tables = {
            t: _result(default_run, "clean", name, f"{t}.parquet") for t in ("items", "ratings", "means", "rejects")
        }
        source = None
        if "source_words" in spec.get("translation", {}):
            source = {
                t: _result(default_run, "clean", spec["translation_of"], f"{t}.parquet") for t in ("items", "means")
            }
        got = _result(default_run, "audit", f"{name}.parquet")
        expected = to_arrow(audit_configured(name, spec, tables, source=source), "audit").to_pandas()  # nulls as read
        pd.testing.assert_frame_equal(got, expected)
        page = (default_run / "results" / "report" / name / "index.html").read_text(encoding="utf-8")
        assert "Dataset audit: what the data say" in page
    ws = _result(default_run, "audit", "ws353.parquet")
    assert ws[["check", "raw_value"]].values.tolist() == [
        ["duplicate_pair", "money / cash"],
        ["reversed_pair", "money / bank"],
    ]
    simlex = _result(default_run, "audit", "simlex999.parquet")
    assert simlex[["check", "raw_value"]].values.tolist() == [["reversed_pair", "strange / sly"]]
    assert "Dataset audit: findings per dataset" in (default_run / "results" / "report" / "index.html").read_text(
        encoding="utf-8"
    )
