"""Rebuilding an unpacked paper-submission archive (``simgold rebuild``) and judging every result.

    simgold rebuild <unpacked directory> [--cores N]

``rebuild`` says that it will run the archived code, verifies (``simgold.report.verify``), checks
the installed packages' input files, reruns the pipeline from the archive's own code and config in
``<dir>/rebuild/`` (Snakemake's progress shown as it runs), and compares every result file with the
archived one, byte for byte (``simgold.report.compare``).
"""

from __future__ import annotations

import json
import os
import posixpath
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path, PurePosixPath

from simgold.io.machine import describe, machine_record
from simgold.io.paths import RESULTS, RESULTS_DIR, result
from simgold.io.readers import resolve_path
from simgold.io.digests import sha256_file
from simgold.io.tables import read_parquet
from simgold.report.archive import SCRATCH, result_pattern, tsv_field
from simgold.report.compare import Verdict, compare_tables, largest_vector_difference
from simgold.report.verify import archive_path_of, read_external, read_manifest, read_withheld, verify

__all__ = ["rebuild"]


def _rebuild_warning(directory: Path) -> str:
    return (
        f"rebuild runs the workflow code archived in {directory} (its Snakefile, workflow/ and src/) with "
        f"{sys.executable}: run it only on an archive whose code you trust"
    )


def _environment_problems(rows: list[dict]) -> list[str]:
    """Inputs that a rebuild reads from outside the archive: installed packages' files, absolute paths."""
    problems = []
    for row in rows:
        path = row["path"]
        if not (path.startswith("pkg:") or Path(path).is_absolute()):
            continue
        try:
            real = resolve_path(path)
        except Exception as err:  # a package that is not installed
            problems.append(f"{path}: {err}")
            continue
        if not real.is_file():
            problems.append(f"{path}: not found at {real}; the rebuild needs it there (sha256 {row['sha256']})")
        elif sha256_file(real) != row["sha256"]:
            problems.append(f"{path}: the file at {real} differs from the one the results were made from")
    return problems


def _prepare_scratch(directory: Path, entries: dict, rows: list[dict]) -> Path:
    """A fresh working copy in ``<dir>/rebuild/``: the project (code, config, raw inputs) in a
    subdirectory deep enough that every relative input outside it (``../shared/x``) lands inside
    ``<dir>/rebuild/`` too. Returns the project directory."""
    scratch = directory / SCRATCH
    if scratch.exists():
        shutil.rmtree(scratch)
    written = [r for r in rows if archive_path_of(r["path"]) is not None]  # relative paths: copied in
    depth = max([sum(1 for p in PurePosixPath(posixpath.normpath(r["path"])).parts if p == "..") for r in written],
                default=0)  # fmt: skip
    project = scratch.joinpath(*["up"] * max(depth - 1, 0), "project")
    skip = (f"{RESULTS_DIR}/", "logs/", "inputs/", "environment/")
    for rel in entries:
        if not rel.startswith(skip) and rel not in ("MANIFEST", "ro-crate-metadata.json"):
            _copy(directory / rel, project / rel)
    for row in rows:
        if row["path"].startswith("pkg:") or Path(row["path"]).is_absolute():
            continue  # read where they are (checked by environment_problems)
        target = Path(posixpath.normpath((project / row["path"]).as_posix()))
        # both normalised: the archive's own path may hold '..' (simgold rebuild ../check/study)
        if not target.is_relative_to(posixpath.normpath(scratch.as_posix())):  # verify refuses such a row
            raise ValueError(f"inputs/EXTERNAL.tsv: {row['path']!r} would be written outside {scratch}; refused")
        _copy(directory / row["archive_path"], target)
    return project


def _copy(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dst)


VECTOR_DIR = PurePosixPath(RESULTS["embeddings"]).parent.as_posix()  # results/embeddings: the models' outputs
VECTOR_RULES = ("embeddings", "context_vectors")


def _result_set(project: Path) -> set[str]:
    archives = PurePosixPath(RESULTS["archive"]).parent  # an archive is not one of the results it holds
    return {
        p.relative_to(project).as_posix()
        for p in (project / RESULTS_DIR).rglob("*")
        if p.is_file() and not p.name.startswith(".") and archives not in PurePosixPath(p.relative_to(project)).parents
    }


def _compare_results(directory: Path, project: Path, entries: dict, withheld: dict | None = None):
    """(verdicts, problems): every archived result file against the rebuilt one (simgold.report.compare),
    and every withheld one against its recorded checksum."""
    withheld = {rel: row for rel, row in (withheld or {}).items() if rel.startswith(f"{RESULTS_DIR}/")}  # not logs
    archived = {rel for rel in entries if rel.startswith(f"{RESULTS_DIR}/")}
    rebuilt = _result_set(project)
    if not archived:
        return [], ["results: the archive holds no result files; a rebuild with nothing to compare proves nothing"]
    problems = [f"{rel}: archived, not rebuilt" for rel in sorted(archived - rebuilt)]
    problems += [f"{rel}: withheld from the archive, not rebuilt" for rel in sorted(set(withheld) - rebuilt)]
    problems += [f"{rel}: rebuilt, not archived" for rel in sorted(rebuilt - archived - set(withheld))]
    verdicts: dict[str, Verdict] = {}
    for rel in sorted(set(withheld) & rebuilt):
        same = sha256_file(project / rel) == withheld[rel][0]
        verdicts[rel] = Verdict(rel, "withheld" if same else "withheld_differs")
    both = sorted(archived & rebuilt)
    compare_tables(directory, project, [rel for rel in both if rel.endswith(".parquet")], verdicts)
    for rel in both:
        if rel.endswith(".parquet"):
            continue
        if rel.endswith(".machine.json"):
            verdicts[rel] = Verdict(rel, "reported", _machine_line(directory / rel, project / rel))
        elif (directory / rel).read_bytes() == (project / rel).read_bytes():
            verdicts[rel] = Verdict(rel, "identical")
        else:
            verdicts[rel] = Verdict(rel, "rendered", "differs; to be re-rendered from the archived tables")
    problems += [v.line() for v in verdicts.values() if v.kind == "different"]
    return [verdicts[rel] for rel in sorted(verdicts)], problems


def _machine_line(archived: Path, rebuilt: Path) -> str:
    def load(path):
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}

    made, again = describe(load(archived)), describe(load(rebuilt))
    return f"made on {made}" + ("" if made == again else f"; rebuilt on {again}")


def _snakemake(project: Path, cores: int, *args: str) -> int:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(project / "src"), os.environ.get("PYTHONPATH")])),
    }
    command = [sys.executable, "-m", "snakemake", "--cores", str(cores), *args]
    return subprocess.run(command, cwd=project, env=env).returncode


VERDICTS = "verdicts.tsv"  # in DIR/rebuild/: every result file with its verdict


def _write_verdicts(path: Path, verdicts) -> Path:
    """Every result file, its verdict and why, one per line (path order)."""
    lines = ["path\tverdict\tdetail"] + [f"{v.path}\t{v.kind}\t{tsv_field(v.detail)}" for v in verdicts]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _place_archived(directory: Path, project: Path, rels: list[str]) -> None:
    """Archived result files put in the rebuild, all with one modification time (so that Snakemake
    finds none older than another, and each newer than what the first pass made)."""
    stamp = time.time()
    for rel in rels:
        _copy(directory / rel, project / rel)
        os.utime(project / rel, (stamp, stamp))


def _rerender(directory: Path, project: Path, verdicts, cores: int) -> list[str]:
    """Re-render the figures, pages, cards and paper tables from the archived tables: put every
    archived table in place, let Snakemake remake what depends on them, compare the bytes."""
    rendered = [v for v in verdicts if v.kind == "rendered"]
    if not rendered:
        return []
    tables = sorted(v.path for v in verdicts if v.path.endswith(".parquet") and not v.kind.startswith("withheld"))
    _place_archived(directory, project, tables)
    figures = result_pattern("report_figures")  # a directory output: remade as one
    targets = set()
    for v in rendered:
        (project / v.path).unlink()
        m = figures.match(v.path)
        targets.add(v.path[: m.start("rest")] if m and m.group("rest") else v.path)
    status = _snakemake(project, cores, *sorted(targets))
    if status != 0:
        return [f"rebuild: re-rendering from the archived tables failed in {project} (exit status {status})"]
    problems = []
    within = sum(1 for v in verdicts if v.kind == "within")
    for v in rendered:
        if (project / v.path).is_file() and (project / v.path).read_bytes() == (directory / v.path).read_bytes():
            v.detail = (
                f"differs because tables of the run differ within the bound ({within}, listed here); "
                "re-rendered from the archived tables: byte-identical"
            )
        else:
            v.kind, v.detail = "different", "re-rendered from the archived tables, it still differs"
            problems.append(v.line())
    return problems


def _recompute_report(directory: Path, project: Path, entries: dict) -> list[str]:
    """Per model: the largest difference of its vectors, and the largest change of each score."""
    lines = []
    for rel in sorted(rel for rel in entries if rel.startswith(f"{VECTOR_DIR}/") and rel.endswith(".parquet")):
        if not (project / rel).is_file():
            continue
        a, b = read_parquet(directory / rel), read_parquet(project / rel)
        key, column = ("word", "vector") if "word" in a else ("item_id", "vector1")  # static or in-context
        merged = a[[key, column]].merge(b[[key, column]], on=key)
        pairs = [
            (x, y) for x, y in zip(merged[f"{column}_x"], merged[f"{column}_y"]) if x is not None and y is not None
        ]
        largest = largest_vector_difference(pairs)
        lines.append(f"recompute: {rel}: largest vector component difference {largest:.3g} over {len(pairs)} vectors")
    summary = result("scores_summary")
    if summary in entries and (project / summary).is_file():
        key = ["dataset", "model", "metric", "subset"]
        a, b = read_parquet(directory / summary), read_parquet(project / summary)
        both = a[key + ["value"]].merge(b[key + ["value"]], on=key)
        both["change"] = (both["value_x"] - both["value_y"]).abs()
        for (model, metric), group in both.groupby(["model", "metric"], sort=True):
            if group["change"].notna().any():
                row = group.loc[group["change"].idxmax()]
                lines.append(
                    f"recompute: {model} {metric}: largest change {row['change']:.3g} ({row['dataset']}, "
                    f"{row['value_x']:.6g} archived, {row['value_y']:.6g} recomputed)"
                )
    return lines


def rebuild(directory: Path, cores: int = 2, say=print, recompute: bool = False) -> list[str]:
    """Say what will run, verify, rerun the pipeline in ``<dir>/rebuild/``, judge every result file.

    By default the models' outputs are not recomputed: the archived vectors (results/embeddings/,
    with the in-context vectors) are put in place and everything else is made from them.
    ``recompute``: the models too, with a report of how far their vectors and scores moved.
    Snakemake's output goes straight to this process's stdout and stderr (progress as it runs).

    Parameters
    ----------
    directory : Path
        The unpacked archive; the rerun goes to its ``rebuild/`` folder.
    cores : int, optional
        Cores Snakemake may use.
    say : object, optional
        Callable taking one str, for progress lines (default: ``print``).
    recompute : bool, optional
        True: recompute the models' vectors too, and report how far they moved.

    Returns
    -------
    list[str]
        The problems found (empty: every result file matches within its bound).
    """
    directory = Path(directory).absolute()
    say(_rebuild_warning(directory))
    problems = verify(directory)
    if problems:
        return problems + ["rebuild: refused: the archive does not verify (problems above); nothing was run"]
    entries, _ = read_manifest(directory)
    scratch = directory / SCRATCH
    if scratch.is_symlink() or (scratch.exists() and not scratch.is_dir()):  # a member of the archive, even
        return [f"{SCRATCH}: the archive holds a file there, where rebuild makes its working folder; nothing was run"]
    rows, _ = read_external(directory)
    problems = _environment_problems(rows)
    if problems:
        return problems + ["rebuild: refused: inputs read from outside the archive differ (above); nothing was run"]
    project = _prepare_scratch(directory, entries, rows)
    failed = _run_pipeline(directory, project, entries, cores, recompute, say)
    if failed:
        return failed
    verdicts, problems = _compare_results(directory, project, entries, read_withheld(directory))
    if not verdicts:
        return problems
    if recompute:
        for line in _recompute_report(directory, project, entries):
            say(line)
    if not problems:
        problems += _rerender(directory, project, verdicts, cores)
    for v in verdicts:
        if v.kind not in ("identical", "different", "withheld"):
            say(f"rebuild: {v.line()}")
    report = _write_verdicts(directory / SCRATCH / VERDICTS, verdicts)
    say(f"rebuild: every result file's verdict: {os.path.normpath(report)}")
    if not problems:
        say(_summary_line(verdicts))
    return problems


def _run_pipeline(directory: Path, project: Path, entries: dict, cores: int, recompute: bool, say) -> list[str]:
    """Run the archived workflow in ``project``: by default in two passes, the archived model
    outputs put in place between them; the problem, if it fails (else none)."""
    vectors = sorted(rel for rel in entries if rel.startswith(f"{VECTOR_DIR}/"))
    say(f"rebuild: this machine: {describe(machine_record({}, {}))}")
    if vectors and not recompute:
        say(
            f"rebuild: scoring from the {len(vectors)} archived model output files ({VECTOR_DIR}/; --recompute to recompute them)"
        )
        say(f"rebuild: running the archived workflow in {project}, first what does not need the models")
        status = _snakemake(project, cores, "--omit-from", *VECTOR_RULES)
        if status != 0:
            return [f"rebuild: the pipeline failed in {project} (exit status {status}; its output is above)"]
        _place_archived(directory, project, vectors)
    say(f"rebuild: running the archived workflow in {project}")
    status = _snakemake(project, cores)
    if status != 0:
        return [f"rebuild: the pipeline failed in {project} (exit status {status}; its output is above)"]
    return []


def _summary_line(verdicts) -> str:
    """The last line of a rebuild that found no problem: the result files by verdict."""
    counts = Counter(v.kind for v in verdicts)
    unmatched = counts["withheld_differs"]
    return (
        f"rebuild: {len(verdicts)} result files: {counts['identical']} byte-identical (rebuilt byte for byte), "
        f"{counts['within']} equal within the bound, {counts['rendered']} re-rendered from the archived tables "
        f"byte for byte, {counts['withheld']} withheld files equal to their recorded checksums"
        + (f" ({unmatched} withheld files differ from theirs: not archived, so not judged)" if unmatched else "")
    )
