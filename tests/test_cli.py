"""The installed `simgold` command (the console script of this environment), on small results made here."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from simgold.io.tables import write_parquet

from .conftest import ROOT
from .test_archive import _unpacked

SIMGOLD = Path(sys.executable).with_name("simgold")


def simgold(*args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([str(SIMGOLD), *map(str, args)], cwd=cwd, capture_output=True, text=True)


def test_the_console_script_is_installed_and_lists_its_commands():
    proc = simgold("--help")
    assert proc.returncode == 0
    for command in ("run", "scores", "agreement", "verify", "rebuild", "demo"):
        assert f"\n    {command}" in proc.stdout, command
    assert simgold("frobnicate").returncode == 2


def test_demo_writes_the_shipped_sheets(tmp_path):
    proc = simgold("demo", tmp_path / "demo")
    assert proc.returncode == 0
    shipped = sorted(p.relative_to(ROOT / "raw" / "demo") for p in (ROOT / "raw" / "demo").rglob("*") if p.is_file())
    assert len(proc.stdout.splitlines()) == len(shipped) == 5
    for rel in shipped:
        assert (tmp_path / "demo" / rel).read_bytes() == (ROOT / "raw" / "demo" / rel).read_bytes(), rel


def cells(text: str) -> list[list[str]]:
    """The cells of a printed table: columns are two spaces or more apart, a cell has single spaces only."""
    return [re.split(r"\s{2,}", line.strip()) for line in text.splitlines()]


def _score_rows(confidence=0.95):
    rows = []
    for dataset, model, metric, value, low, high, n_used, n_total, oov in [
        ("sim-a", "m1", "spearman", 0.5, 0.4, 0.6, 90, 100, 0.1),
        ("sim-a", "m2", "spearman", 0.7, 0.65, 0.75, 100, 100, 0.0),
        ("rank-b", "m1", "ag_score", 0.9, 0.8, 1.0, 6, 6, 0.0),
        ("rank-c", "m2", "ag_score", 0.6, 0.55, 0.66, 40, 44, 0.25),
    ]:
        rows.append((dataset, model, metric, "all", value, low, high, confidence, n_used, n_total, float("nan"), oov, oov))
    columns = ["dataset", "model", "metric", "subset", "value", "ci_low", "ci_high", "confidence", "n_used", "n_total"]
    return pd.DataFrame(rows, columns=columns + ["human_ceiling", "oov_pairs", "oov_words"])


def test_scores_prints_the_dataset_by_model_table(tmp_path):
    results = tmp_path / "results"
    (results / "scores").mkdir(parents=True)
    _score_rows().to_parquet(results / "scores" / "summary.parquet", index=False)
    proc = simgold("scores", "--results", results)
    assert proc.returncode == 0, proc.stderr
    # an A&G score on 6 comparisons is flagged, not shown as a number
    assert proc.stdout.splitlines()[0] == "ag_score; spearman with 95% bootstrap CI; oov: share of pairs not scored"
    assert cells(proc.stdout)[1:] == [
        ["dataset", "metric", "m1", "m2"],
        ["rank-b", "ag_score", "A&G score on fewer than 10 comparisons (6)"],
        ["rank-c", "ag_score", "0.600 [0.550, 0.660] oov 25%"],
        ["sim-a", "spearman", "0.500 [0.400, 0.600] oov 10%", "0.700 [0.650, 0.750]"],
    ]
    assert simgold("scores", "--results", tmp_path / "none").returncode == 1


def test_agreement_prints_one_row_per_dataset(tmp_path):
    base = tmp_path / "results" / "agreement"
    for name, n_raters, kept, excluded, pairwise, vs_rest, alpha in (
        ("da", 22, 20, 2, 0.8275, 0.8954, 0.7818),
        ("hr", 12, 12, 0, 0.8133, 0.8686, 0.7641),
    ):
        stages = pd.DataFrame(
            {
                "dataset": name,
                "stage": ["raw", "calibrated", "filtered", "filtered"],
                "subset": ["all", "all", "all", "pos=noun"],
                "n_raters": [n_raters, n_raters, kept, kept],
                "n_items": [37, 37, 37, 12],
                "pairwise": [0.1, 0.2, pairwise, 0.3],
                "vs_rest": [0.1, 0.2, vs_rest, 0.3],
                "alpha_interval": [0.1, 0.2, alpha, 0.3],
            }
        )
        raters = pd.DataFrame(
            {
                "dataset": name,
                "stage": "calibrated",
                "rater": [f"r{i}" for i in range(n_raters)],
                "excluded": [i < excluded for i in range(n_raters)],
            }
        )
        (base / name).mkdir(parents=True)
        write_parquet(stages, base / name / "agreement.parquet")
        write_parquet(raters, base / name / "raters.parquet")
    proc = simgold("agreement", "--results", tmp_path / "results")
    assert proc.returncode == 0, proc.stderr
    assert cells(proc.stdout)[1:] == [
        ["dataset", "raters", "excluded", "items", "pairwise", "vs_rest", "alpha"],
        ["da", "22", "2", "37", "0.828", "0.895", "0.782"],
        ["hr", "12", "0", "37", "0.813", "0.869", "0.764"],
    ]


def test_verify_and_rebuild_through_the_command(tmp_path):
    root, _, _ = _unpacked(tmp_path)
    proc = simgold("verify", root)
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[-1] == "verify: 1 problem(s)"
    proc = simgold("rebuild", root)
    lines = proc.stdout.splitlines()
    assert proc.returncode == 1 and lines[0].startswith(f"rebuild runs the workflow code archived in {root}")
    assert lines[-2] == "rebuild: refused: the archive does not verify (problems above); nothing was run"
    supplied = root / "inputs" / "external" / "up" / "shared" / "closed.tsv"
    supplied.parent.mkdir(parents=True)
    supplied.write_text("sly\tstrange\t1\n")
    proc = simgold("verify", root)
    assert proc.returncode == 0 and proc.stdout == "verify: OK, every file matches the MANIFEST\n"


@pytest.mark.workflow
def test_run_passes_its_arguments_to_snakemake():
    proc = simgold("run", "-n", "--quiet", "rules", cwd=ROOT)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-2000:]
    assert "Job stats:" in out or "Nothing to be done" in out
