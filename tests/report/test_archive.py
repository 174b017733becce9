"""The archive: what it copies, that it is safe to unpack, and that verify and rebuild refuse what
they must, with exact messages. (The end-to-end rebuild is in tests/workflow/test_workflow.py.)"""

from __future__ import annotations

import hashlib
import os
import posixpath
import subprocess
import tarfile
from pathlib import Path

import pandas as pd
import pytest
import yaml

from simgold.report import archive, rebuild as rebuild_module, verify as verify_module
from simgold.io.tables import write_parquet
from simgold.report.archive import archive_path, build, input_records
from simgold.report.rebuild import rebuild
from simgold.report.verify import verify


def test_translation_files_follow_their_dataset(tmp_path):
    for name, text in (("a.tsv", "w1\tw2\n"), ("b.tsv", "x\ty\n"), ("dict.tsv", "cat\tkat\n")):
        (tmp_path / name).write_text(text, encoding="utf-8")
    dictionary = {"dictionary": {"path": "dict.tsv"}}
    datasets = {
        "open": {"sources": [{"path": "a.tsv"}], "translation": dictionary, "redistribute": True},
        "closed": {
            "sources": [{"path": "b.tsv"}],
            "translation": dictionary,
            "redistribute": False,
            "licence": "research only",
            "source": "https://example.org/b",
        },
    }
    records = {r["path"]: r for r in input_records(datasets, tmp_path)}
    assert sorted(records) == ["a.tsv", "b.tsv", "dict.tsv"]
    shared = records["dict.tsv"]
    # the dictionary of a dataset that may not be redistributed is not copied either
    assert shared["datasets"] == ["closed", "open"] and shared["redistribute"] is False
    assert shared["licence"] == "research only" and shared["source"] == "https://example.org/b"
    assert shared["sha256"] == hashlib.sha256(b"cat\tkat\n").hexdigest() and shared["size"] == 8
    assert records["a.tsv"]["redistribute"] is True and records["a.tsv"]["inside"] is True


def test_archive_paths_never_leave_the_archive(tmp_path):
    project = tmp_path / "work" / "project"
    (project / "raw").mkdir(parents=True)
    (project / "raw" / "x.tsv").write_text("x")
    assert archive_path("raw/x.tsv", project) == "raw/x.tsv"
    assert archive_path("./raw/../raw/x.tsv", project) == "raw/x.tsv"
    assert archive_path("../shared/data/y.tsv", project) == "inputs/external/up/shared/data/y.tsv"
    assert archive_path("../../z.tsv", project) == "inputs/external/up/up/z.tsv"
    assert archive_path("/data/w.tsv", project) == "inputs/external/root/data/w.tsv"
    assert archive_path("pkg:gensim/test/test_data/wordsim353.tsv", project) == (
        "inputs/pkg/gensim/test/test_data/wordsim353.tsv"
    )
    with pytest.raises(ValueError, match="a pkg: path must stay inside its package"):
        archive_path("pkg:gensim/../../../etc/passwd", project)


# --------------------------------------------------------------------------------------------
# a small archive: a project with code (and a link in it), a raw file, a withheld file beside it


def _project(tmp_path: Path) -> tuple[Path, dict]:
    project = tmp_path / "work" / "project"
    for rel, text in {
        "Snakefile": "include: 'workflow/Snakefile'\n",
        "workflow/Snakefile": "rule all:\n    input: []\n",
        "src/simgold/__init__.py": "",
        "config/config.yaml": "datasets: {}\n",
        "raw/open.tsv": "cat\tdog\t5\n",
        "logs/clean/open.log": "INFO read 1 row\n",
    }.items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(text)
    # a real (empty) table: the archive's README reads the results it holds
    (project / "results" / "scores").mkdir(parents=True)
    pd.DataFrame({"dataset": pd.Series([], dtype=object)}).to_parquet(project / "results/scores/summary.parquet")
    (project / "config" / "current.yaml").symlink_to("config.yaml")  # a user's link among the code
    outside = tmp_path / "work" / "shared" / "closed.tsv"
    outside.parent.mkdir(parents=True)
    outside.write_text("sly\tstrange\t1\n")
    config = {
        "datasets": {
            "open": {"sources": [{"path": "raw/open.tsv"}], "redistribute": True},
            "closed": {"sources": [{"path": "../shared/closed.tsv"}], "redistribute": False, "source": "the web"},
        },
        "archive": {"name": "arch", "title": "t", "description": "d", "date": "2026-01-01", "license": "CC-BY-4.0"},
    }
    return project, config


def _unpacked(tmp_path: Path, run_config: dict | None = None) -> tuple[Path, dict, Path]:
    project, config = _project(tmp_path)
    target = project / "results" / "archive" / "arch.tar.gz"
    summary = build(project, config, ["results/scores/summary.parquet"], target, run_config=run_config)
    out = tmp_path / "unpacked"
    with tarfile.open(target) as tar:
        tar.extractall(out, filter="data")
    return out / "arch", summary, target


def test_archive_holds_no_link_no_absolute_path_and_no_dotdot(tmp_path):
    root, summary, target = _unpacked(tmp_path, run_config={"datasets": {"open": {"kind": "means"}}})
    with tarfile.open(target) as tar:
        members = tar.getmembers()
    assert all(m.isfile() or m.isdir() for m in members)
    assert all(m.name.startswith("arch/") and ".." not in m.name.split("/") for m in members)
    assert summary["links"] == ["config/current.yaml"]  # left out and said so
    assert not (root / "config" / "current.yaml").exists()
    # the library itself, found by the archived workflow/Snakefile beside it (no link to it)
    assert (root / "src" / "simgold" / "__init__.py").is_file()
    assert summary["withheld"] == ["inputs/external/up/shared/closed.tsv"]
    assert not (root / "inputs" / "external").exists()
    # the config that ran is the archive's config
    text = (root / "config" / "config.yaml").read_text()
    assert text.startswith("# The configuration this archive's results were made with")
    assert yaml.safe_load(text) == {"datasets": {"open": {"kind": "means"}}}
    rows = (root / "inputs" / "EXTERNAL.tsv").read_text().splitlines()
    assert rows[0] == "path\tsha256\tsize\tdatasets\tredistributed\tarchive_path\tlicence\tsource"
    closed = hashlib.sha256(b"sly\tstrange\t1\n").hexdigest()
    assert rows[1] == f"../shared/closed.tsv\t{closed}\t14\tclosed\tno\tinputs/external/up/shared/closed.tsv\t\tthe web"


def test_a_directory_output_is_archived_as_its_files(tmp_path):
    """A report page's figures are one directory output: the archive holds each file in it (in the
    MANIFEST and the RO-Crate's results), not Snakemake's marker file, and verify checks them."""
    import json

    project, config = _project(tmp_path)
    figures = project / "results" / "report" / "open" / "figures"
    figures.mkdir(parents=True)
    (figures / "scores.png").write_bytes(b"png 1")
    (figures / "distribution.png").write_bytes(b"png 2")
    (figures / ".snakemake_timestamp").write_text("")
    outputs = ["results/scores/summary.parquet", "results/report/open/figures"]
    assert archive._result_files(project, outputs) == [
        "results/scores/summary.parquet",
        "results/report/open/figures/distribution.png",
        "results/report/open/figures/scores.png",
    ]
    target = project / "results" / "archive" / "arch.tar.gz"
    build(project, config, outputs, target)
    with tarfile.open(target) as tar:
        tar.extractall(tmp_path / "unpacked", filter="data")
    root = tmp_path / "unpacked" / "arch"
    manifest = (root / "MANIFEST").read_text()
    assert "  results/report/open/figures/scores.png\n" in manifest and "snakemake_timestamp" not in manifest
    assert (root / "results" / "report" / "open" / "figures" / "distribution.png").read_bytes() == b"png 2"
    crate = json.loads((root / "ro-crate-metadata.json").read_text())
    run = next(e for e in crate["@graph"] if e["@id"] == "#run")
    assert {"@id": "results/report/open/figures/scores.png"} in run["result"]
    assert {"@id": "results/report/open/figures"} not in run["result"]
    assert [line.split(":")[0] for line in verify(root)] == ["inputs/external/up/shared/closed.tsv"]  # withheld
    (root / "results" / "report" / "open" / "figures" / "scores.png").write_bytes(b"png 3")
    assert "results/report/open/figures/scores.png: checksum does not match the MANIFEST" in verify(root)


def test_verify_checks_a_withheld_input_supplied_inside_the_archive(tmp_path):
    root, _, _ = _unpacked(tmp_path)
    closed = hashlib.sha256(b"sly\tstrange\t1\n").hexdigest()
    assert verify(root) == [
        "inputs/external/up/shared/closed.tsv: not in the archive (not redistributable); supply "
        f"../shared/closed.tsv there (sha256 {closed}; source: the web)"
    ]
    supplied = root / "inputs" / "external" / "up" / "shared" / "closed.tsv"
    supplied.parent.mkdir(parents=True)
    supplied.write_text("sly\tstrange\t9\n")
    assert verify(root) == [
        "inputs/external/up/shared/closed.tsv: the supplied file differs from the one the results were made from "
        f"(sha256 {closed})"
    ]
    supplied.write_text("sly\tstrange\t1\n")
    assert verify(root) == []
    summary_bytes = (root / "results" / "scores" / "summary.parquet").read_bytes()
    (root / "results" / "scores" / "summary.parquet").write_text("tampered")
    (root / "results" / "extra.txt").write_text("x")
    assert verify(root) == [
        f"results/scores/summary.parquet: 8 bytes, the MANIFEST says {len(summary_bytes):,}",
        "results/extra.txt: not in the MANIFEST",
    ]


def _write_manifest(root: Path, lines: list[str]) -> None:
    (root / "MANIFEST").write_text("".join(line + "\n" for line in lines))


def test_verify_refuses_manifest_entries_outside_the_archive(tmp_path):
    root = tmp_path / "arch"
    root.mkdir()
    secret = tmp_path / "secret.txt"
    secret.write_text("outside")
    digest = hashlib.sha256(b"outside").hexdigest()
    _write_manifest(root, [f"{digest}  7  ../secret.txt", f"{digest}  7  {secret}", "not a manifest line"])
    assert verify(root) == [
        "MANIFEST line 1: '../secret.txt' leaves the archive (a path with '..'); refused",
        f"MANIFEST line 2: '{secret}' is an absolute path; refused",
        "MANIFEST line 3: 'not a manifest line' is not '<sha256>  <size>  <path>'",
    ]


def test_verify_reports_empty_or_missing_manifest_and_external_table(tmp_path):
    root = tmp_path / "arch"
    root.mkdir()
    assert verify(root) == [
        "MANIFEST: missing, or not a regular file of at most 64 MiB; expected the MANIFEST of an unpacked simgold archive"
    ]
    _write_manifest(root, [])
    assert verify(root) == ["MANIFEST: empty; expected one line per file: <sha256>  <size>  <path>"]
    (root / "inputs").mkdir()
    external = root / "inputs" / "EXTERNAL.tsv"
    external.write_text("")
    _write_manifest(root, [f"{hashlib.sha256(b'').hexdigest()}  0  inputs/EXTERNAL.tsv"])
    header = "path\tsha256\tsize\tdatasets\tredistributed\tarchive_path\tlicence\tsource"
    assert verify(root) == [f"inputs/EXTERNAL.tsv: line 1 is nothing; expected the header {header!r}"]
    text = header + "\nraw/a.tsv\tnot-a-digest\t3\ta\tyes\traw/a.tsv\t\t\nraw/b.tsv\tshort row\n"
    text += f"x\t{'0' * 64}\t1\tx\tno\t../../etc/passwd\t\t\n"
    external.write_text(text)
    _write_manifest(root, [f"{hashlib.sha256(text.encode()).hexdigest()}  {len(text)}  inputs/EXTERNAL.tsv"])
    assert verify(root) == [
        "inputs/EXTERNAL.tsv line 2, column sha256: 'not-a-digest' is not a SHA-256 (64 hex digits)",
        "inputs/EXTERNAL.tsv line 3: 2 fields, expected 8 (path, sha256, size, datasets, redistributed, "
        "archive_path, licence, source)",
        "inputs/EXTERNAL.tsv line 4, column archive_path: '../../etc/passwd' leaves the archive (a path with '..'); "
        "refused",
    ]


def test_verify_does_not_follow_links(tmp_path):
    root, _, _ = _unpacked(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    # the very bytes the MANIFEST lists
    (outside / "summary.parquet").write_bytes((root / "results" / "scores" / "summary.parquet").read_bytes())
    os.remove(root / "results" / "scores" / "summary.parquet")
    (root / "results" / "scores" / "summary.parquet").symlink_to(outside / "summary.parquet")
    (root / "logs").rename(root / "logs.real")
    (root / "logs").symlink_to(root / "logs.real", target_is_directory=True)
    problems = verify(root)
    assert "logs: a link; an archive holds no links and verify does not follow them" in problems
    assert (
        "results/scores/summary.parquet: a link; an archive holds no links and verify does not follow them" in problems
    )
    # one line per member: the listed file that is a link is not "missing" as well
    assert "results/scores/summary.parquet: missing" not in problems and "logs/clean/open.log: missing" in problems


def test_verify_says_in_one_line_what_a_member_is_instead(tmp_path, monkeypatch):
    """A folder where the MANIFEST lists a file, a file that cannot be read and a folder that cannot
    be listed are each one line naming it (not a traceback, not two lines)."""
    from simgold.report import verify as verify_module

    root, _, _ = _unpacked(tmp_path)
    listed = root / "results" / "scores" / "summary.parquet"
    listed.unlink()
    listed.mkdir()
    real_digest, real_scandir = verify_module.sha256_file, os.scandir

    def unreadable(path):
        if Path(path).name == "open.log":
            raise PermissionError(13, "Permission denied")
        return real_digest(path)

    def unlistable(path):
        if Path(path).name == "simgold":
            raise PermissionError(13, "Permission denied")
        return real_scandir(path)

    monkeypatch.setattr(verify_module, "sha256_file", unreadable)
    monkeypatch.setattr(verify_module.os, "scandir", unlistable)
    problems = verify(root)
    assert "results/scores/summary.parquet: a folder where the MANIFEST lists a file" in problems
    assert "logs/clean/open.log: cannot be read (Permission denied)" in problems
    assert "src/simgold/: a folder that cannot be listed (Permission denied)" in problems
    assert not [p for p in problems if p.startswith("results/scores/summary.parquet") and "folder" not in p]
    assert not [p for p in problems if p.startswith("src/simgold/") and "cannot be listed" not in p]


def test_rebuild_says_what_it_runs_and_refuses_an_archive_that_does_not_verify(tmp_path, monkeypatch):
    root, _, _ = _unpacked(tmp_path)
    said = []
    ran = []
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: ran.append(a))
    problems = rebuild(root, say=said.append)
    assert said == [
        f"rebuild runs the workflow code archived in {root} (its Snakefile, workflow/ and src/) with "
        f"{rebuild_module.sys.executable}: run it only on an archive whose code you trust"
    ]
    assert problems[-1] == "rebuild: refused: the archive does not verify (problems above); nothing was run"
    assert problems[0].startswith("inputs/external/up/shared/closed.tsv: not in the archive")
    assert ran == [] and not (root / "rebuild").exists()


def test_rebuild_runs_in_a_scratch_copy_and_fails_with_nothing_to_compare(tmp_path, monkeypatch):
    project, config = _project(tmp_path)
    target = project / "results" / "archive" / "arch.tar.gz"
    build(project, config, [], target)  # an archive without any result
    with tarfile.open(target) as tar:
        tar.extractall(tmp_path / "unpacked", filter="data")
    root = tmp_path / "unpacked" / "arch"
    supplied = root / "inputs" / "external" / "up" / "shared" / "closed.tsv"
    supplied.parent.mkdir(parents=True)
    supplied.write_text("sly\tstrange\t1\n")
    runs = []

    def fake_run(command, cwd, env):
        runs.append((command, Path(cwd), env["PYTHONPATH"]))
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.setattr(subprocess, "run", fake_run)
    said = []
    assert rebuild(root, cores=3, say=said.append) == [
        "results: the archive holds no result files; a rebuild with nothing to compare proves nothing"
    ]
    ((command, cwd, pythonpath),) = runs
    assert command[-3:] == ["snakemake", "--cores", "3"] and cwd == root / "rebuild" / "project"
    assert pythonpath.split(os.pathsep)[0] == str(cwd / "src")
    # the project's code and raw inputs, and the input from beside the project where ../ finds it
    assert (cwd / "workflow" / "Snakefile").is_file() and (cwd / "raw" / "open.tsv").read_text() == "cat\tdog\t5\n"
    assert (cwd / ".." / "shared" / "closed.tsv").read_text() == "sly\tstrange\t1\n"
    assert said[1].startswith("rebuild: this machine: ") and "BLAS: " in said[1]
    assert said[2] == f"rebuild: running the archived workflow in {cwd}"


# -------------------------------------------------------------------------------- hostile archives


def _relist(root: Path, rel: str) -> None:
    """Put ``rel``'s current checksum and size into the MANIFEST (as a forger would)."""
    data = (root / rel).read_bytes()
    lines = [line for line in (root / "MANIFEST").read_text().splitlines() if not line.endswith(f"  {rel}")]
    _write_manifest(root, [*lines, f"{hashlib.sha256(data).hexdigest()}  {len(data)}  {rel}"])


def test_an_external_row_that_would_write_outside_is_refused_and_nothing_is_written(tmp_path, monkeypatch):
    """A row whose path climbs out (with the checksum of a file the archive holds, the MANIFEST
    updated): verify refuses it, and rebuild, which would copy the file to that path, runs nothing."""
    root, _, _ = _unpacked(tmp_path)
    supplied = root / "inputs" / "external" / "up" / "shared" / "closed.tsv"
    supplied.parent.mkdir(parents=True)
    supplied.write_text("sly\tstrange\t1\n")
    target = tmp_path / "pwned.txt"
    climb = "../" * (len(root.parts) + 2) + str(target).lstrip("/")
    data = (root / "raw" / "open.tsv").read_bytes()
    row = [climb, hashlib.sha256(data).hexdigest(), str(len(data)), "open", "yes", "raw/open.tsv", "", ""]
    with (root / "inputs" / "EXTERNAL.tsv").open("a") as table:
        table.write("\t".join(row) + "\n")
    _relist(root, "inputs/EXTERNAL.tsv")
    problems = verify(root)
    assert (
        len(problems) == 1
        and "column path" in problems[0]
        and "does not go with archive_path 'raw/open.tsv'" in problems[0]
    )
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: pytest.fail("rebuild ran something"))
    said = rebuild(root, say=lambda text: None)
    assert said[-1] == "rebuild: refused: the archive does not verify (problems above); nothing was run"
    assert not target.exists() and not (root / "rebuild").exists()


def test_verify_never_opens_what_is_not_a_regular_file_and_checks_sizes_first(tmp_path):
    root, _, _ = _unpacked(tmp_path)
    supplied = root / "inputs" / "external" / "up" / "shared" / "closed.tsv"
    supplied.parent.mkdir(parents=True)
    supplied.write_text("sly\tstrange\t1\n")
    listed = root / "results" / "scores" / "summary.parquet"
    size = listed.stat().st_size
    listed.unlink()
    os.mkfifo(listed)  # opening it would block for ever
    sparse = root / "logs" / "clean" / "open.log"
    with sparse.open("r+b") as handle:
        handle.truncate(6 << 30)  # 6 GB of holes: never read whole
    problems = verify(root)  # returns at once: nothing above was opened
    assert (
        problems
        == [
            "results/scores/summary.parquet: not a regular file (a FIFO, device or socket); verify does not open it",
            f"logs/clean/open.log: {6 << 30:,} bytes, the MANIFEST says 16",
        ]
        and size > 0
    )
    (root / "MANIFEST").unlink()
    os.mkfifo(root / "MANIFEST")
    assert verify(root) == [
        "MANIFEST: missing, or not a regular file of at most 64 MiB; expected the MANIFEST of an unpacked simgold archive"
    ]


@pytest.mark.skipif(os.geteuid() != 0, reason="creating a character device needs root (as unpacking one does)")
def test_verify_does_not_read_a_device_member(tmp_path):
    """A tarball member that is the character device 1,5 (/dev/zero), unpacked by root: reading it
    would never end."""
    import stat as stat_module

    root, _, _ = _unpacked(tmp_path)
    listed = root / "results" / "scores" / "summary.parquet"
    listed.unlink()
    os.mknod(listed, stat_module.S_IFCHR | 0o600, os.makedev(1, 5))
    assert "results/scores/summary.parquet: not a regular file (a FIFO, device or socket); verify does not open it" in (
        verify(root)
    )


def test_scratch_copies_of_an_archive_reached_through_dotdot_stay_inside(tmp_path):
    """`simgold rebuild ../check/study`: the archive's own path holds '..'; its inputs still go in."""
    root, _, _ = _unpacked(tmp_path)
    supplied = root / "inputs" / "external" / "up" / "shared" / "closed.tsv"
    supplied.parent.mkdir(parents=True)
    supplied.write_text("sly\tstrange\t1\n")
    via = Path(f"{root.parent}/../{root.parent.name}/{root.name}").absolute()
    entries, _ = verify_module.read_manifest(via)
    rows, _ = verify_module.read_external(via)
    project = rebuild_module._prepare_scratch(via, entries, rows)
    assert (project / "raw" / "open.tsv").read_text() == "cat\tdog\t5\n"
    assert Path(posixpath.normpath(project / ".." / "shared" / "closed.tsv")).read_text() == "sly\tstrange\t1\n"


# -------------------------------------------------------------------------------- judging a rebuilt table


def _table(path: Path, table: str, frame: pd.DataFrame, inputs: dict | None = None) -> Path:
    write_parquet(frame, path, table=table, provenance={"rule": table, "inputs": inputs or {}})
    return path


def test_a_rebuilt_table_is_judged_by_its_bytes_then_by_value_within_the_bound_of_its_kind(tmp_path):
    from simgold.report.compare import _compare_parquet

    alpha = pd.DataFrame({"dataset": ["d", "d"], "stage": ["raw", "filtered"], "alpha": [0.61, 0.72], "n": [3, 4]})
    a = _table(tmp_path / "a.parquet", "alpha_table", alpha)
    assert _compare_parquet("t", a, _table(tmp_path / "b.parquet", "alpha_table", alpha.copy()), {}).kind == "identical"
    # rounding alone: 1e-14 relative in a float64 statistic of the ratings
    b = _table(tmp_path / "b.parquet", "alpha_table", alpha.assign(alpha=[0.61, 0.72 * (1 + 1e-14)]))
    verdict = _compare_parquet("t", a, b, {})
    assert verdict.kind == "within" and verdict.detail.startswith("largest relative difference 1e-14 in alpha")
    # a planted change of 1e-6 relative: different, naming the column, its size and the bound
    b = _table(tmp_path / "b.parquet", "alpha_table", alpha.assign(alpha=[0.61, 0.72 * (1 + 1e-6)]))
    verdict = _compare_parquet("t", a, b, {})
    assert (
        verdict.kind == "different"
        and "alpha: largest relative difference 1e-06 (bound 1e-12, float64)" in verdict.detail
    )
    # counts exact
    b = _table(tmp_path / "b.parquet", "alpha_table", alpha.assign(n=[3, 5]))
    assert "values that must be exact differ in n" in _compare_parquet("t", a, b, {}).detail


def test_model_outputs_carry_the_float32_bound_and_reordered_ties_are_reported(tmp_path):
    from simgold.report.compare import BOUNDS, _compare_parquet

    ulp = 2.0**-24  # a float32 ulp at 0.5 to 1
    pred = pd.DataFrame(
        {"dataset": "d", "model": "m", "item_id": ["1", "2", "3"], "word1": ["a", "b", "c"], "word2": ["x", "y", "z"],
         "sim": [0.5, 0.5 + ulp, 0.9], "oov": False, "oov_words": ""}  # fmt: skip
    )
    a = _table(tmp_path / "a.parquet", "predictions", pred)
    swapped = pred.assign(sim=[0.5 + 2 * ulp, 0.5 + ulp, 0.9 * (1 + 2 * ulp)])  # items 1 and 2 change order
    verdict = _compare_parquet("p", a, _table(tmp_path / "b.parquet", "predictions", swapped), {})
    assert verdict.kind == "within" and len(verdict.ties) == 1 and verdict.ties[0].startswith("1 / 2 (")
    assert "1 pairs of items tied within the bound change order" in verdict.detail
    far = pred.assign(sim=[0.5, 0.5 + ulp, 0.9 * (1 + 2 * BOUNDS["float32"][0])])  # beyond 4 ulps
    assert _compare_parquet("p", a, _table(tmp_path / "b.parquet", "predictions", far), {}).kind == "different"


def test_provenance_may_differ_only_in_the_digest_of_an_input_judged_within_the_bound(tmp_path):
    from simgold.report.compare import Verdict, _compare_parquet

    frame = pd.DataFrame({"dataset": ["d"], "value": [0.5]})
    a = _table(tmp_path / "a.parquet", "t", frame, {"results/x.parquet": "1" * 64})
    b = _table(tmp_path / "b.parquet", "t", frame, {"results/x.parquet": "2" * 64})
    assert _compare_parquet("t", a, b, {}).kind == "different"
    within = {"results/x.parquet": Verdict("results/x.parquet", "within")}
    assert _compare_parquet("t", a, b, within).kind == "within"


def test_a_dataset_kept_out_by_its_licence_leaves_its_item_tables_out_with_their_checksums(tmp_path):
    from simgold.report.archive import _licence_section, _withheld_results

    config = {"datasets": {"open": {"redistribute": True, "release": {"license": "CC0-1.0"}},
                           "closed": {"redistribute": False, "release": {}}},
              "archive": {}}  # fmt: skip
    files = [
        "results/clean/closed/items.parquet", "results/clean/closed/summary.parquet", "results/gold/closed/gold.parquet",
        "results/scores/closed/m/predictions.parquet", "results/scores/closed/m/scores.parquet",
        "results/report/closed/index.html", "results/report/closed/figures/scores.png",
        "results/agreement/closed/alpha.parquet", "results/clean/open/items.parquet", "results/gold/open/gold.parquet",
    ]  # fmt: skip
    assert sorted(_withheld_results(config, files)) == [
        "results/clean/closed/items.parquet", "results/gold/closed/gold.parquet", "results/report/closed/figures/scores.png",
        "results/report/closed/index.html", "results/scores/closed/m/predictions.parquet",
    ]  # fmt: skip
    text = _licence_section(config, _withheld_results(config, files))
    assert "No licence was chosen for this archive" in text and "- open: its release is under `CC0-1.0`" in text
    assert "- closed: may not be redistributed: no release is built, and its raw files and the 5 files" in text
    config["archive"]["license"] = "CC-BY-4.0"
    assert "This archive is released under `CC-BY-4.0` (SPDX)." in _licence_section(config, {})


def test_recompute_reports_each_models_largest_vector_difference_and_score_change(tmp_path):
    import pyarrow as pa

    from simgold.report.rebuild import _recompute_report

    vectors = pd.DataFrame({"word": ["cat", "dog"], "source": "file", "line": [1, 2]})
    vectors["vector"] = [[0.5, 0.25], [1.0, -1.0]]
    summary = pd.DataFrame(
        {"dataset": ["a", "b", "a"], "model": "m", "metric": ["spearman", "spearman", "pearson"], "subset": "all",
         "value": [0.61, 0.40, 0.55]}  # fmt: skip
    )
    types = {"vector": pa.list_(pa.float32(), 2)}
    for root, shift, moved in (
        (tmp_path / "archived", 0.0, [0.61, 0.40, 0.55]),
        (tmp_path / "again", 2**-10, [0.61, 0.4125, 0.55]),
    ):
        table = vectors.assign(vector=[[0.5, 0.25 + shift], [1.0, -1.0]])
        write_parquet(table, root / "results/embeddings/m.parquet", table="embeddings", types=types)
        write_parquet(summary.assign(value=moved), root / "results/scores/summary.parquet")
    entries = {"results/embeddings/m.parquet": None, "results/scores/summary.parquet": None}
    lines = _recompute_report(tmp_path / "archived", tmp_path / "again", entries)
    assert lines == [
        "recompute: results/embeddings/m.parquet: largest vector component difference 0.000977 over 2 vectors",
        "recompute: m pearson: largest change 0 (a, 0.55 archived, 0.55 recomputed)",
        "recompute: m spearman: largest change 0.0125 (b, 0.4 archived, 0.4125 recomputed)",
    ]


def test_every_file_a_dataset_reads_is_an_input_of_the_archive(tmp_path):
    """Sources, their word_forms tables, a bws item_list and a ratings design: each is archived (a
    rebuild reads every one of them)."""
    for name in ("a.tsv", "forms.tsv", "items.tsv", "design.parquet", "b.csv"):
        (tmp_path / name).write_text(name)
    datasets = {
        "r": {
            "sources": [{"path": "a.tsv", "word_forms": {"path": "forms.tsv"}}],
            "design": {"path": "design.parquet"},
        },
        "b": {"sources": [{"path": "b.csv"}], "item_list": {"path": "items.tsv"}},
    }
    for ds in datasets.values():
        ds["redistribute"] = True
    records = input_records(datasets, tmp_path)
    assert [(r["path"], r["datasets"], r["archive_path"]) for r in records] == [
        ("a.tsv", ["r"], "a.tsv"),
        ("b.csv", ["b"], "b.csv"),
        ("design.parquet", ["r"], "design.parquet"),
        ("forms.tsv", ["r"], "forms.tsv"),
        ("items.tsv", ["b"], "items.tsv"),
    ]


def test_rebuild_refuses_an_archive_holding_a_file_where_it_works(tmp_path, monkeypatch):
    """A member named ``rebuild`` (listed in the MANIFEST, so the archive verifies): one line, no traceback."""
    root, _, _ = _unpacked(tmp_path)
    (root / "inputs" / "external" / "up" / "shared").mkdir(parents=True, exist_ok=True)
    (root / "inputs" / "external" / "up" / "shared" / "closed.tsv").write_text("sly\tstrange\t1\n")
    (root / "rebuild").write_text("x")
    manifest = (root / "MANIFEST").read_text()
    _write_manifest(root, [*manifest.splitlines(), f"{hashlib.sha256(b'x').hexdigest()}  1  rebuild"])
    assert verify(root) == []
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: pytest.fail("nothing may run"))
    assert rebuild(root, say=lambda _: None) == [
        "rebuild: the archive holds a file there, where rebuild makes its working folder; nothing was run"
    ]


def test_verify_walks_folders_of_any_depth(tmp_path):
    """1,300 nested folders: no RecursionError (the walk keeps a list, it does not recurse)."""
    root, _, _ = _unpacked(tmp_path)
    deep = root / "results"
    for _ in range(1300):  # one level at a time (os.makedirs itself recurses)
        deep = deep / "d"
        deep.mkdir()
    (deep / "x.txt").write_text("x")
    try:
        problems = verify(root)
    finally:  # removed one level at a time too: pytest's own clean-up of tmp_path recurses
        (deep / "x.txt").unlink()
        while deep != root / "results":
            deep.rmdir()
            deep = deep.parent
    assert "results/" + "d/" * 1300 + "x.txt: not in the MANIFEST" in problems


def test_a_source_that_is_a_link_is_archived_as_the_file_it_points_to_where_the_config_reads_it(tmp_path):
    """A configured source linked to a file outside the project: archived at its configured path as a
    regular file with the target's bytes, so that the unpacked archive verifies (and rebuild finds it)."""
    project, config = _project(tmp_path)
    elsewhere = tmp_path / "elsewhere.tsv"
    elsewhere.write_text("cup\ttea\t4\n")
    (project / "raw" / "linked.tsv").symlink_to(elsewhere)
    config["datasets"]["linked"] = {"sources": [{"path": "raw/linked.tsv"}], "redistribute": True}
    target = project / "results" / "archive" / "arch.tar.gz"
    build(project, config, ["results/scores/summary.parquet"], target)
    with tarfile.open(target) as tar:
        member = tar.getmember("arch/raw/linked.tsv")
        assert member.isfile() and tar.extractfile(member).read() == b"cup\ttea\t4\n"
        tar.extractall(tmp_path / "unpacked", filter="data")
    root = tmp_path / "unpacked" / "arch"
    external = (root / "inputs" / "EXTERNAL.tsv").read_text()
    assert (
        "raw/linked.tsv\t" in external and "inputs/external" not in external.split("raw/linked.tsv")[1].split("\n")[0]
    )
    assert [p for p in verify(root) if "linked" in p] == []


def test_an_input_edited_after_the_run_stops_the_archive_naming_it_and_the_rerun(tmp_path):
    """Same size, same time: only the digest tells; the cleaned tables' provenance names the bytes they
    were made from."""
    from simgold.io.digests import provenance
    from simgold.io.tables import write_parquet

    project, config = _project(tmp_path)
    made_from = provenance("clean", {"dataset": "open"}, {}, {"raw/open.tsv": str(project / "raw" / "open.tsv")})
    write_parquet(
        pd.DataFrame({"dataset": ["open"]}), project / "results/clean/open/summary.parquet", provenance=made_from
    )
    stat = (project / "raw" / "open.tsv").stat()
    (project / "raw" / "open.tsv").write_text("cat\tdog\t6\n")  # one digit edited
    os.utime(project / "raw" / "open.tsv", ns=(stat.st_atime_ns, stat.st_mtime_ns))
    target = project / "results" / "archive" / "arch.tar.gz"
    with pytest.raises(
        ValueError, match=r"raw/open.tsv: sha256 \w{12}\.\.\. is not the file results/clean/open/summary"
    ):
        build(project, config, ["results/scores/summary.parquet"], target)
    assert not target.exists()
    (project / "raw" / "open.tsv").write_text("cat\tdog\t5\n")  # as it was: the archive is made
    build(project, config, ["results/scores/summary.parquet"], target)
