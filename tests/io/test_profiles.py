"""simgold.io.profiles finds the config files Snakemake reads as Snakemake itself does: checked
against snakemake.cli's own profile lookup and argument parsing on the same folders."""

import os
from pathlib import Path

import pytest

from simgold.errors import SimgoldError
from simgold.io.profiles import (
    MAX_CONFIG_BYTES,
    check_run_configs,
    command_line_config_files,
    file_problem,
    profile_config_files,
    profile_files,
)

snakemake_cli = pytest.importorskip("snakemake.cli")


def _write(path, text="datasets: {}\n"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SNAKEMAKE_PROFILE", raising=False)
    return tmp_path


@pytest.mark.parametrize(
    "names, chosen",
    [
        (["profile.yaml"], ["profile.yaml"]),
        (["config.yaml", "notes.yaml"], ["config.yaml"]),
        (["profile.yaml", "profile.v9+.yaml", "profile.v8+.yaml"], ["profile.v9+.yaml"]),
        (["profile.yaml", "profile.v99+.yaml"], ["profile.yaml"]),  # a version above the installed one
    ],
)
def test_a_profile_folder_gives_the_file_snakemake_picks(here, names, chosen):
    for name in names:
        _write(here / "prof" / name, "cores: 1\n")
    assert profile_files("prof") == [Path("prof", name) for name in chosen]
    _, expected = snakemake_cli.get_profile_dir("prof")
    assert profile_files("prof")[0] == expected
    assert profile_files("prof/") == [Path("prof", name) for name in chosen]
    assert profile_files("prof/" + names[0]) == [Path("prof", names[0])]  # the file itself


def test_a_profile_name_is_looked_for_in_the_search_folders_and_two_equal_files_are_both_read(here):
    _write(here / "user" / "prof" / "profile.yaml", "cores: 1\n")
    _write(here / "user" / "prof" / "config.yaml", "cores: 2\n")
    files = profile_files("prof", search_dirs=[str(here / "site"), str(here / "user")])
    assert files == [here / "user" / "prof" / "config.yaml", here / "user" / "prof" / "profile.yaml"]
    assert profile_files("prof", search_dirs=[str(here / "site")]) == []
    assert profile_files("nothing") == []


def test_a_profiles_configfile_is_found_where_snakemake_looks(here, monkeypatch):
    monkeypatch.setenv("SIMGOLD_TEST_DIR", "sub")
    _write(here / "prof" / "in_profile.yaml")
    _write(here / "prof" / "profile.yaml", "configfile: in_profile.yaml\nconfigfiles: [a.yaml, b.yaml]\n")
    assert profile_config_files("prof/profile.yaml") == ["prof/in_profile.yaml", "a.yaml", "b.yaml"]
    _write(here / "prof" / "profile.yaml", "configfile: $SIMGOLD_TEST_DIR/c.yaml\n")
    assert profile_config_files("prof/profile.yaml") == ["sub/c.yaml"]  # not in the folder: from here
    _write(here / "prof" / "profile.yaml", "cores: 1\nconfigfile:\n")
    assert profile_config_files("prof/profile.yaml") == []


def _snakemake_configfiles(args):
    """What Snakemake's own argument parsing makes of the command line (profiles included)."""
    _, parsed = snakemake_cli.parse_args(args)
    return [str(p) for p in parsed.configfile]


@pytest.mark.parametrize(
    "args, env, expected",
    [
        (["--profile", "prof"], None, ["prof/p.yaml"]),
        (["--profile=prof/profile.yaml"], None, ["prof/p.yaml"]),
        ([], "prof", ["prof/p.yaml"]),  # $SNAKEMAKE_PROFILE
        (["--profile", "none"], "prof", []),
        (["--profile", "prof", "--configfile", "c.yaml"], None, ["c.yaml"]),  # the command line wins
        (["--snakefile", "wf/Snakefile"], None, ["wf/profiles/default/w.yaml"]),  # the workflow profile
        (["--snakefile", "wf/Snakefile", "--profile", "prof"], None, ["wf/profiles/default/w.yaml"]),
        (["--snakefile", "wf/Snakefile", "--workflow-profile", "none", "--pro", "prof"], None, ["prof/p.yaml"]),
        (["-s", "wf/Snakefile", "--workflow-profile", "other"], None, ["wf/profiles/other/o.yaml"]),
        (["--profile", "prof", "--profile", "second"], None, ["s1.yaml", "s2.yaml"]),  # the later one
        (["--profile", "yte"], None, ["c.yaml"]),  # a yte template: its ?if and ? expressions decide
    ],
)
def test_the_config_files_are_those_snakemakes_own_parser_reads(here, monkeypatch, args, env, expected):
    for name in (
        "c.yaml",
        "s1.yaml",
        "s2.yaml",
        "prof/p.yaml",
        "wf/profiles/default/w.yaml",
        "wf/profiles/other/o.yaml",
    ):
        _write(here / name)
    _write(here / "prof" / "profile.yaml", "cores: 1\nconfigfile: p.yaml\n")
    _write(here / "second" / "profile.yaml", "configfiles: [s1.yaml, s2.yaml]\n")
    _write(here / "wf" / "profiles" / "default" / "profile.yaml", "configfile: w.yaml\n")
    _write(here / "wf" / "profiles" / "other" / "profile.yaml", "configfile: o.yaml\n")
    _write(here / "wf" / "Snakefile", "rule all:\n    input: []\n")
    yte = "__use_yte__: true\n?if 1 + 1 == 3:\n  configfile: missing.yaml\n?else:\n  configfile: ?'c' + '.yaml'\n"
    _write(here / "yte" / "profile.yaml", yte)
    if env:
        monkeypatch.setenv("SNAKEMAKE_PROFILE", env)
    assert _snakemake_configfiles(args) == expected
    assert check_run_configs(args) == expected


def test_the_workflows_own_config_is_the_one_in_the_working_directory(here):
    """The Snakefile's `configfile:` is read after Snakemake changes to --directory (or a profile's
    `directory:`): that file is checked, not the one where the command runs."""
    _write(here / "config" / "config.yaml", "datasets: {}\ndatasets: {}\n")  # a key given twice
    _write(here / "work" / "config" / "config.yaml")
    _write(here / "prof" / "profile.yaml", "directory: work\n")
    for args in (["--directory", "work"], ["-d", "work"], ["--directory=work"], ["--profile", "prof"]):
        assert check_run_configs(args) == ["work/config/config.yaml"]
    _write(here / "work" / "config" / "config.yaml", "a: &a [1]\nb: *a\na: 2\n")
    with pytest.raises(SimgoldError, match=r"^config work/config/config.yaml"):
        check_run_configs(["-d", "work"])
    with pytest.raises(SimgoldError, match=r"^config config/config.yaml"):
        check_run_configs(["--profile", "prof", "--directory", "."])  # the command line's wins


def test_a_yte_profile_that_fails_is_one_line(here):
    _write(here / "prof" / "profile.yaml", "__use_yte__: true\nconfigfile: ?1 / 0\n")
    with pytest.raises(SimgoldError) as err:
        check_run_configs(["--profile", "prof"])
    assert str(err.value) == (
        "config profile prof/profile.yaml: its yte template fails: Error processing template in section"
        " /configfile: ZeroDivisionError: division by zero"
    )


def test_the_workflows_default_profile_beside_a_snakefile_here_is_read(here):
    _write(here / "Snakefile", "rule all:\n    input: []\n")
    _write(here / "profiles" / "default" / "profile.yaml", "configfile: missing.yaml\n")
    with pytest.raises(SimgoldError) as err:
        check_run_configs(["-n"])
    assert str(err.value) == (
        "config file missing.yaml (configfile of profile profiles/default/profile.yaml): does not exist"
    )
    assert check_run_configs(["-n", "--workflow-profile", "none"]) == []


def test_what_is_not_a_regular_readable_file_is_named(here):
    os.mkfifo(here / "fifo.yaml")
    os.symlink("loop.yaml", here / "loop.yaml")
    os.symlink("gone.yaml", here / "dangling.yaml")
    (here / "big.yaml").write_bytes(b"#" * (MAX_CONFIG_BYTES + 1))
    assert file_problem(here / "fifo.yaml") == "is a FIFO (a named pipe), not a regular file"
    assert file_problem(here / "loop.yaml") == "is a symbolic link loop"
    assert file_problem(here / "dangling.yaml") == "is a symbolic link to nothing"
    assert file_problem(here) == "is a directory, not a regular file"
    assert file_problem(here / "big.yaml") == f"holds {MAX_CONFIG_BYTES + 1:,} bytes; a config is at most 16,777,216"
    assert file_problem(_write(here / "ok.yaml")) is None


def test_a_nan_in_any_config_file_is_refused_before_snakemake_merges_it(here):
    """A NaN passes every bound of the schema and would be merged before the Snakefile's check: the
    file that holds it is named with the key, whichever route reads it."""
    _write(here / "nan.yaml", "datasets: {}\nscoring: {confidence: .nan}\n")
    _write(here / "prof" / "profile.yaml", "configfile: nan.yaml\n")
    with pytest.raises(SimgoldError) as err:
        check_run_configs(["--configfile", "nan.yaml"])
    assert str(err.value) == "config nan.yaml, scoring.confidence: .nan is not a finite number"
    with pytest.raises(SimgoldError) as err:
        check_run_configs(["--profile", "prof"])
    assert str(err.value) == (
        "config nan.yaml, scoring.confidence: .nan is not a finite number (configfile of profile prof/profile.yaml)"
    )


def test_the_command_line_config_files_in_every_spelling():
    assert command_line_config_files(["--configfile", "a.yaml", "b.yaml", "-n", "t"]) == ["a.yaml", "b.yaml"]
    assert command_line_config_files(["--configf=a.yaml", "t", "--configfiles", "b.json"]) == ["a.yaml", "b.json"]
    assert command_line_config_files(["-n", "--", "--configfile", "a.yaml"]) == []
