"""The installed `simgold` command (the console script of this environment), on small results made here."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from simgold import cli
from simgold.io.tables import write_parquet

from .conftest import ROOT
from .report.test_archive import _unpacked

SIMGOLD = Path(sys.executable).with_name("simgold")


def simgold(*args, cwd=None) -> subprocess.CompletedProcess:
    # a relative PYTHONPATH (PYTHONPATH=src) keeps naming this checkout's code in another directory
    path = [str(Path(p).resolve()) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)} if path else None
    return subprocess.run([str(SIMGOLD), *map(str, args)], cwd=cwd, capture_output=True, text=True, env=env)


def test_the_console_script_is_installed_and_lists_its_commands():
    proc = simgold("--help")
    assert proc.returncode == 0
    for command in ("run", "scores", "agreement", "rejects", "verify", "rebuild", "demo"):
        assert f"\n    {command}" in proc.stdout, command
    assert simgold("frobnicate").returncode == 2


def test_bare_simgold_prints_its_help_and_version_says_the_version():
    from importlib import metadata

    bare = simgold()
    assert bare.returncode == 0 and bare.stdout == simgold("--help").stdout
    assert simgold("--version").stdout == f"simgold {metadata.version('simgold')}\n"
    run_help = simgold("run", "--help")
    assert run_help.returncode == 0 and run_help.stdout.startswith("usage: snakemake"), run_help.stdout[:200]


HEAVY = ("pandas", "pyarrow", "numpy", "scipy", "matplotlib")


def _heavy_modules_loaded(*args, cwd=None) -> tuple[int, list[str]]:
    """The exit status of ``simgold ARGS`` run in a fresh interpreter, and which of HEAVY it had loaded."""
    code = (
        "import atexit, sys\n"
        f"atexit.register(lambda: print(sorted(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr))\n"
        f"sys.argv = ['simgold', *{list(map(str, args))!r}]\n"
        "from simgold.cli import main\n"
        "raise SystemExit(main())\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True)
    return proc.returncode, eval(proc.stderr.splitlines()[-1])


@pytest.mark.parametrize(
    "args, status",
    [
        (["--help"], 0),
        ([], 0),
        (["scores", "--help"], 0),
        (["design", "ratings", "--help"], 0),
        (["design", "topup", "d"], 2),  # --budget missing: a usage error
        (["frobnicate"], 2),
        (["--version"], 0),
    ],
)
def test_help_usage_errors_and_version_load_none_of_the_commands_modules(args, status):
    assert _heavy_modules_loaded(*args) == (status, [])


def test_a_command_that_runs_loads_what_it_needs(tmp_path):
    # the check above sees the modules: a command that runs (and finds no results) has loaded pandas and pyarrow
    status, loaded = _heavy_modules_loaded("rejects", "--results", tmp_path)
    assert status == 1 and {"pandas", "pyarrow", "numpy"} <= set(loaded)


def test_rejects_prints_each_dataset_and_one_datasets_examples(tmp_path):
    summary = pd.DataFrame({"dataset": ["d"], "n_values_held": [12], "n_values_rejected": [3],
                            "values_rejected": ["non_numeric 2, out_of_scale 1"]})  # fmt: skip
    rejects = pd.DataFrame({"dataset": "d", "source_file": "d.csv", "source_row": [3, 4, 3, 1],
                            "column": ["r2", "r1", "r1", "w1"], "raw_value": ["7?", "８", "12", "w1"],
                            "reason": ["non_numeric", "non_numeric", "out_of_scale", "ignored_row"],
                            "detail": ["not a number", "a digit", "outside the scale [0, 6]", "the header"]})  # fmt: skip
    write_parquet(summary, tmp_path / "results/clean/d/summary.parquet")
    write_parquet(rejects, tmp_path / "results/clean/d/rejects.parquet", table="rejects")
    every = simgold("rejects", "--results", tmp_path / "results")
    assert every.stdout.startswith("d: 3 of 12 value cells rejected (25.0%): non_numeric 2, out_of_scale 1")
    one = simgold("rejects", "d", "--results", tmp_path / "results").stdout
    assert re.search(r"^non_numeric\s+2\s+d\.csv\s+3\s+r2\s+7\?", one, re.M) and "out_of_scale  1" in one
    assert "1 header, title or comment cells" in one and "ignored_row" not in one  # counted apart, not listed


def test_demo_writes_the_shipped_sheets(tmp_path):
    proc = simgold("demo", tmp_path / "demo")
    assert proc.returncode == 0
    shipped = sorted(p.relative_to(ROOT / "raw" / "demo") for p in (ROOT / "raw" / "demo").rglob("*") if p.is_file())
    assert len(proc.stdout.splitlines()) == len(shipped) == 6
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
        rows.append(
            (dataset, model, metric, "all", value, low, high, confidence, n_used, n_total, float("nan"), oov, oov)
        )
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
    proc = simgold("rebuild", root, "--recompute")
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


def test_a_closed_pipe_ends_quietly(monkeypatch):
    """`simgold rejects d | head`: the reader stops early; the command ends without a traceback."""
    from simgold import cli

    def broken(argv):
        raise BrokenPipeError

    monkeypatch.setattr(cli, "_main", broken)
    monkeypatch.setattr(cli.os, "dup2", lambda *a: None)  # keep this test's own stdout
    assert cli.main(["rejects"]) == 1


def _alias_bomb(levels: int = 6) -> str:
    """Mappings of nine aliases each, ``levels`` deep: 9**levels values (531,441 for 6) from a few
    lines. Mappings, not lists: Snakemake's merge of a --configfile walks every mapping it reaches
    (a bounded bomb, should the check ever come too late)."""
    keys = [f"k{i}" for i in range(9)]
    lines = ["datasets: {}", "a0: &a0 {" + ", ".join(f"{k}: lol" for k in keys) + "}"]
    lines += [f"a{n}: &a{n} {{" + ", ".join(f"{k}: *a{n - 1}" for k in keys) + "}" for n in range(1, levels)]
    return "\n".join(lines) + "\n"


BOMB = (
    "config bomb.yaml, line 7: a5 expands through YAML aliases to more than 100,000 values (an alias bomb?);"
    " refused before expanding it"
)
TWICE = (
    "config twice.yaml, line 3: models is given twice in one mapping (first at line 1);"
    " YAML would silently keep only the last one"
)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--configfile", "bomb.yaml"], BOMB),
        (["-n", "--configfile", "ok.yaml", "bomb.yaml", "all"], BOMB),
        (["--configfiles", "ok.yaml", "twice.yaml"], TWICE),
        (["--configfile=bomb.yaml", "-n"], BOMB),
        (["--configfiles=twice.yaml"], TWICE),
    ],
)
def test_run_refuses_a_bad_configfile_before_snakemake_starts(tmp_path, monkeypatch, capsys, args, message):
    """An alias bomb or a key given twice, in any spelling of --configfile: the one-line error,
    and Snakemake never started (it would merge the file, bomb and all, before the Snakefile's check)."""
    from simgold import cli

    (tmp_path / "bomb.yaml").write_text(_alias_bomb())
    (tmp_path / "twice.yaml").write_text("models: {}\ndatasets: {}\nmodels: {}\n")
    (tmp_path / "ok.yaml").write_text("datasets: {}\n")
    monkeypatch.chdir(tmp_path)
    started = []
    monkeypatch.setattr(subprocess, "call", lambda command: started.append(command) or 0)
    assert cli.main(["run", *args]) == 1
    assert capsys.readouterr().err == message + "\n" and started == []


def test_run_checks_the_workflows_config_and_passes_good_files_on(tmp_path, monkeypatch, capsys):
    from simgold import cli

    (tmp_path / "ok.yaml").write_text("datasets: {}\n")
    monkeypatch.chdir(tmp_path)
    started = []
    monkeypatch.setattr(subprocess, "call", lambda command: started.append(command) or 0)
    assert cli.main(["run", "-n", "--configfile", "ok.yaml"]) == 0
    assert started[0][-3:] == ["-n", "--configfile", "ok.yaml"]
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "config.yaml").write_text("datasets: {}\ndatasets: {}\n")
    assert cli.main(["run", "-n"]) == 1 and len(started) == 1
    assert capsys.readouterr().err.startswith("config config/config.yaml, line 2: datasets is given twice")


def test_config_files_of_a_snakemake_command_line():
    from simgold.commands import config_files

    assert config_files(["-n", "all"]) == ["config/config.yaml"]
    assert config_files(["--configfile", "a.yaml", "b.yaml", "-n", "c"]) == ["config/config.yaml", "a.yaml", "b.yaml"]
    assert config_files(["--configfile=a.yaml", "b"]) == ["config/config.yaml", "a.yaml"]  # b: a target
    assert config_files(["--config", "x=1", "--configfiles", "a.yaml", "--", "b.yaml"])[1:] == ["a.yaml"]


def test_run_ends_on_a_bomb_in_one_line_and_starts_no_snakemake(tmp_path):
    """The console script: exit 1, the error alone on stderr (no traceback), no .snakemake directory."""
    (tmp_path / "bomb.yaml").write_text(_alias_bomb())
    proc = simgold("run", "-n", "--configfile", "bomb.yaml", cwd=tmp_path)
    assert (proc.returncode, proc.stderr, proc.stdout) == (1, BOMB + "\n", "")
    assert not (tmp_path / ".snakemake").exists()


def test_run_help_reads_no_config_and_a_config_not_in_utf8_is_one_line(tmp_path, monkeypatch, capsys):
    """`simgold run --help` works beside a broken config; a cp1252 config names its line and byte."""
    from simgold import cli

    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "config.yaml").write_bytes("datasets: {}\n# Zoë\nmodels: {}\n".encode("cp1252"))
    monkeypatch.chdir(tmp_path)
    started = []
    monkeypatch.setattr(subprocess, "call", lambda command: started.append(command) or 0)
    assert cli.main(["run", "--help"]) == 0 and started[0][-1] == "--help"
    assert cli.main(["run", "-n"]) == 1 and len(started) == 1
    assert capsys.readouterr().err == (
        "config config/config.yaml, line 2: byte 0xeb is not UTF-8; a config is read as UTF-8 (save it so,"
        " e.g. iconv -f cp1252 -t utf-8)\n"
    )


def test_rejects_shows_control_characters_escaped(tmp_path):
    """A rejected word may hold a CR, a NUL or a terminal escape: printed as \\r, \\x00, \\x1b, so
    it neither breaks the table nor drives the terminal; other scripts print as they are."""
    summary = pd.DataFrame({"dataset": ["d"], "n_values_held": [3], "n_values_rejected": [3],
                            "values_rejected": ["bad_item 3"], "n_words_normalised": [2]})  # fmt: skip
    rejects = pd.DataFrame({"dataset": "d", "source_file": "d.csv", "source_row": [2, 3, 4],
                            "column": "w1", "raw_value": ["ca\rt", "\x1b[2Jdog", "חתול\x00"],
                            "reason": "bad_item", "detail": "a damaged word"})  # fmt: skip
    write_parquet(summary, tmp_path / "results/clean/d/summary.parquet")
    write_parquet(rejects, tmp_path / "results/clean/d/rejects.parquet", table="rejects")
    out = simgold("rejects", "d", "--results", tmp_path / "results").stdout
    assert "\x1b" not in out and "\r" not in out and "\x00" not in out
    for shown in ("ca\\rt", "\\x1b[2Jdog", "חתול\\x00"):
        assert shown in out, out
    assert "\n2 word cell(s) normalised (Unicode form, invisible characters removed" in out


# `simgold run` reads every config file Snakemake will read before Snakemake starts: the profiles'
# too, and refuses in one line what is not a regular readable file, a bomb, or a target taken as a file


@pytest.fixture
def started(tmp_path, monkeypatch):
    """Run in an empty folder; subprocess.call records the command instead of starting Snakemake."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SNAKEMAKE_PROFILE", raising=False)
    commands = []
    monkeypatch.setattr(subprocess, "call", lambda command: commands.append(command) or 0)
    return commands


def _write(path, text="datasets: {}\n"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_a_bomb_in_a_profiles_configfile_is_refused_quickly(tmp_path, started, capsys):
    _write(tmp_path / "prof" / "profile.yaml", "cores: 1\nconfigfile: bomb.yaml\n")
    _write(tmp_path / "prof" / "bomb.yaml", _alias_bomb(levels=12))  # 9**12 values once expanded
    begin = time.perf_counter()
    assert cli.main(["run", "-n", "--profile", "prof"]) == 1
    assert time.perf_counter() - begin < 5 and started == []
    assert capsys.readouterr().err == (
        "config prof/bomb.yaml, line 7: a5 expands through YAML aliases to more than 100,000 values (an alias"
        " bomb?); refused before expanding it (configfile of profile prof/profile.yaml)\n"
    )


def test_a_bomb_in_the_profile_itself_is_refused(tmp_path, started, capsys):
    _write(tmp_path / "prof" / "profile.yaml", _alias_bomb(levels=12).replace("datasets: {}", "cores: 1"))
    assert cli.main(["run", "-n", "--profile", "prof"]) == 1 and started == []
    assert capsys.readouterr().err.startswith("config prof/profile.yaml, line 7: a5 expands through YAML aliases")


def test_snakemake_profile_in_the_environment_is_read(tmp_path, started, capsys, monkeypatch):
    _write(tmp_path / "prof" / "profile.yaml", "configfile: typo.yaml\n")
    monkeypatch.setenv("SNAKEMAKE_PROFILE", "prof")
    assert cli.main(["run", "-n"]) == 1 and started == []
    assert (
        capsys.readouterr().err == "config file typo.yaml (configfile of profile prof/profile.yaml): does not exist\n"
    )
    assert cli.main(["run", "-n", "--profile", "none"]) == 0 and len(started) == 1  # `none` overrides it


@pytest.mark.parametrize("kind", ["device", "fifo", "missing", "loop", "directory"])
def test_what_is_not_a_regular_file_is_one_line_naming_it(tmp_path, started, capsys, kind):
    path = {"device": "/dev/zero", "directory": "."}.get(kind, str(tmp_path / "bad.yaml"))
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "loop":
        os.symlink("bad.yaml", path)
    problem = {
        "device": "is a character device, not a regular file",
        "fifo": "is a FIFO (a named pipe), not a regular file",
        "missing": "does not exist",
        "loop": "is a symbolic link loop",
        "directory": "is a directory, not a regular file",
    }[kind]
    assert cli.main(["run", "-n", "--configfile", path]) == 1 and started == []
    assert capsys.readouterr().err == f"config file {path}: {problem}\n"


def test_a_target_after_configfile_is_refused_with_the_fix(tmp_path, started, capsys):
    _write(tmp_path / "design" / "x" / "config.yaml")
    assert cli.main(["run", "--configfile", "design/x/config.yaml", "archive"]) == 1 and started == []
    assert capsys.readouterr().err == (
        "simgold run: 'archive' follows --configfile, so Snakemake would read it as a config file, and there is"
        " no such file; put targets before --configfile or after `--` (simgold run archive --configfile FILE,"
        " or simgold run --configfile FILE -- archive)\n"
    )
    assert cli.main(["run", "archive", "--configfile", "design/x/config.yaml"]) == 0
    assert cli.main(["run", "--configfile", "design/x/config.yaml", "--", "archive"]) == 0
    assert [command[-3:] for command in started] == [
        ["archive", "--configfile", "design/x/config.yaml"],
        ["design/x/config.yaml", "--", "archive"],
    ]


def test_good_configs_from_every_route_run(tmp_path, started, capsys):
    _write(tmp_path / "config" / "config.yaml")
    _write(tmp_path / "Snakefile", "rule all:\n    input: []\n")
    _write(tmp_path / "profiles" / "default" / "profile.yaml", "configfile: local.yaml\n")
    _write(tmp_path / "profiles" / "default" / "local.yaml")
    _write(tmp_path / "ok.yaml")
    assert cli.main(["run", "-n"]) == 0
    assert cli.main(["run", "-n", "--configfile", "ok.yaml"]) == 0
    assert [command[1:] for command in started] == [["-n"], ["-n", "--configfile", "ok.yaml"]]
    # the workflow profile's configfile was read: a key given twice in it stops the run
    _write(tmp_path / "profiles" / "default" / "local.yaml", "datasets: {}\ndatasets: {}\n")
    assert cli.main(["run", "-n"]) == 1 and len(started) == 2
    assert capsys.readouterr().err.startswith("config profiles/default/local.yaml, line 2: datasets is given twice")
    assert cli.main(["run", "-n", "--configfile", "ok.yaml"]) == 0  # the command line's replaces it


def test_the_console_script_refuses_a_device_in_one_line(tmp_path):
    """No Python traceback and no .snakemake directory: Snakemake never started."""
    _write(tmp_path / "prof" / "profile.yaml", "configfile: /dev/zero\n")
    proc = simgold("run", "-n", "--profile", "prof", cwd=tmp_path)
    message = (
        "config file /dev/zero (configfile of profile prof/profile.yaml): is a character device, not a regular file"
    )
    assert (proc.returncode, proc.stderr, proc.stdout) == (1, message + "\n", "")
    assert not (tmp_path / ".snakemake").exists()
