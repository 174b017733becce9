"""The paper-submission archive (docs/methods.md section 10), and the commands that check it.

``snakemake archive`` writes ``results/archive/<name>.tar.gz`` holding, under ``<name>/``:

* the workflow code, taken from the workflow's own directory (the checkout, or the directory a
  ``snakedeploy`` module deployment points to): Snakefile, workflow/, src/simgold, profiles/,
  config/ and the project files (pyproject.toml, environment.yml, README.md, LICENSE, ...);
* ``config/config.yaml``: the configuration that actually ran (Snakemake's merged config, so a
  run with ``--configfile X --replace-workflow-config`` is archived with X's content);
* ``environment/requirements.lock.txt``: every installed package with its exact version;
* the raw inputs: files under the project as they are; inputs from elsewhere (an installed
  package, a directory beside the project) copied to ``inputs/``; the files of a dataset marked
  ``redistribute: false`` are left out, and only their checksum, licence and source are recorded
  (``inputs/EXTERNAL.tsv`` and the RO-Crate);
* every result table, figure and report page, and the logs;
* ``MANIFEST``: the SHA-256 and size of every file in the archive;
* ``ro-crate-metadata.json``: an RO-Crate 1.1 description of the run.

The tar file is deterministic (sorted members, fixed times and owners) and safe to unpack: no
member is a link, has an absolute path or a ``..`` component.

The checks of an unpacked archive are ``simgold.report.verify`` and ``simgold.report.rebuild``;
its RO-Crate metadata ``simgold.report.rocrate``.
"""

from __future__ import annotations

import gzip
import io
import posixpath
import re
import tarfile
from importlib import metadata
from pathlib import Path, PurePosixPath

import numpy as np
import pandas as pd
import yaml

from simgold.io.config import dataset_raw_paths, kept_out, translation_files
from simgold.io.languages import model_languages
from simgold.io.paths import CLEAN_TABLES, RESULTS, result
from simgold.io.readers import resolve_path
from simgold.io.digests import package_version, sha256_bytes, sha256_file
from simgold.io.tables import read_provenance
from simgold.report.card import markdown_table
from simgold.report.markup import Markdown, md_prose, md_text
from simgold.report.release import model_text
from simgold.report.rocrate import NO_LICENCE, ro_crate

__all__ = [
    "build",
    "input_records",
    "archive_path",
    "safe_member",
    "result_pattern",
    "tsv_field",
    "EXTERNAL_HEADER",
    "WITHHELD_HEADER",
    "SCRATCH",
    "ITEM_RESULTS",
]

#: files and directories of the workflow's own directory that make up its code
CODE_FILES = (
    "Snakefile",
    "pyproject.toml",
    "environment.yml",
    "README.md",
    "LICENSE",
    ".gitignore",
    ".snakemake-workflow-catalog.yml",
)
CODE_DIRS = ("workflow", "src", "profiles", "config", "docs")
SKIP = ("__pycache__", ".egg-info", ".snakemake", ".pytest_cache")
FIXED_MTIME = 0
SCRATCH = "rebuild"  # where rebuild works, inside the unpacked archive
EXTERNAL_HEADER = ("path", "sha256", "size", "datasets", "redistributed", "archive_path", "licence", "source")
RUN_CONFIG_HEADER = (
    "# The configuration this archive's results were made with: Snakemake's merged config (config/config.yaml\n"
    "# and any --configfile or --config given on the command line). `simgold rebuild` runs with it.\n"
)


def safe_member(rel: str) -> bool:
    """A relative path with no ``..``, no absolute start and no empty or ``.`` component.

    Parameters
    ----------
    rel : str
        A member path of the archive, POSIX-style.

    Returns
    -------
    bool
        True when ``rel`` stays inside the archive (no backslash either).
    """
    p = PurePosixPath(rel)
    return (
        bool(rel) and not p.is_absolute() and "\\" not in rel and all(part not in ("", ".", "..") for part in p.parts)
    )


def _walk(root: Path, rel: str, links: list[str] | None = None):
    """Regular files under ``root/rel`` (sorted, relative to root); links are never followed and are
    collected in ``links``."""
    base = root / rel
    if base.is_symlink():
        if links is not None:
            links.append(rel)
        return
    if base.is_file():
        yield rel
        return
    for path in sorted(base.rglob("*")):
        item = path.relative_to(root)
        if any(part in SKIP or part.endswith(SKIP) for part in item.parts):
            continue
        if any((root / parent).is_symlink() for parent in item.parents if parent != Path(".")):
            continue  # inside a linked directory (where rglob follows links)
        if path.is_symlink():
            if links is not None:
                links.append(item.as_posix())
        elif path.is_file():
            yield item.as_posix()


def _lock_file() -> str:
    """Installed distributions, ``name==version``, sorted (pip freeze style)."""
    seen = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name:
            seen.setdefault(name.lower(), f"{name}=={dist.version}")
    return "\n".join(seen[k] for k in sorted(seen)) + "\n"


def archive_path(path: str, root: Path) -> str:
    """Where a configured input goes in the archive (and where a reader supplies a withheld one).

    A relative path: itself, normalised (a link there is archived as a regular file holding the
    bytes it points to, so that the unpacked archive has the file where the config reads it); an
    absolute path inside the project: relative to the project root. ``pkg:<package>/<file>``:
    ``inputs/pkg/<package>/<file>``. Relative paths outside the project (``../shared/x``):
    ``inputs/external/up/shared/x``, one ``up`` per ``..``. Absolute paths outside the project:
    ``inputs/external/root/<path>``.

    Parameters
    ----------
    path : str
        A configured input path: relative to ``root``, absolute, or ``pkg:<package>/<file>``.
    root : Path
        The project directory relative paths are resolved from.

    Returns
    -------
    str
        The member path in the archive, POSIX-style.
    """
    if path.startswith("pkg:"):
        inner = posixpath.normpath(path[4:])
        if not safe_member(inner):
            raise ValueError(f"{path}: a pkg: path must stay inside its package")
        return "inputs/pkg/" + inner
    norm = PurePosixPath(posixpath.normpath(Path(path).as_posix()))
    if not norm.is_absolute():  # where the config says, even a link: archived as the file it points to
        ups = sum(1 for part in norm.parts if part == "..")
        return norm.as_posix() if not ups else "inputs/external/" + "up/" * ups + "/".join(norm.parts[ups:])
    real = resolve_path(path, root)
    if real.resolve().is_relative_to(root.resolve()):
        return real.resolve().relative_to(root.resolve()).as_posix()
    return "inputs/external/root/" + "/".join(norm.parts[1:])


def input_records(datasets: dict, root: Path) -> list[dict]:
    """Every raw input of every dataset: where it is, its checksum, and whether it may be copied.

    A dataset's translation files follow the dataset's own ``redistribute``, licence and source.
    ``datasets``: the resolved config's (``redistribute`` given or defaulted by the schema).

    Parameters
    ----------
    datasets : dict
        The resolved config's ``datasets`` block: name -> dataset spec (``sources``, ``redistribute``, ...).
    root : Path
        The project directory relative paths are resolved from.

    Returns
    -------
    list[dict]
        One record per input file, sorted by path: ``path``, ``sha256``, ``size``, ``datasets``,
        ``archive_path``, ``redistribute``, ``licence``, ``source``, ``real`` (its Path), ``inside``.
    """
    records = {}
    for name, ds in sorted(datasets.items()):
        # every file the dataset reads: sources, word_forms tables, item_list, design, translation
        for p in dataset_raw_paths(ds) + translation_files(ds):
            real = resolve_path(p, root)
            rec = records.setdefault(
                p,
                {
                    "path": p,
                    "sha256": sha256_file(real),
                    "size": real.stat().st_size,
                    "datasets": [],
                    "archive_path": archive_path(p, root),
                    "redistribute": True,
                    "licence": "",
                    "source": "",
                    "real": real,
                },
            )
            rec["inside"] = not p.startswith("pkg:") and not rec["archive_path"].startswith("inputs/")
            rec["datasets"].append(name)
            rec["redistribute"] &= ds["redistribute"]
            rec["licence"] = rec["licence"] or ds.get("licence", "")
            rec["source"] = rec["source"] or ds.get("source", "")
    return [records[k] for k in sorted(records)]


def _run_config_text(run_config: dict) -> str:
    return RUN_CONFIG_HEADER + yaml.safe_dump(run_config, sort_keys=False, allow_unicode=True, width=120)


def _collect_code(code_root: Path, files: dict, skipped_links: list[str]) -> None:
    """The workflow's code from its own directory (never through a link)."""
    for rel in CODE_FILES:
        path = code_root / rel
        if path.is_file() and not path.is_symlink():
            files[rel] = path.read_bytes()
    for d in CODE_DIRS:
        if (code_root / d).exists():
            for rel in _walk(code_root, d, skipped_links):
                files[rel] = (code_root / rel).read_bytes()


#: a dataset's release folder (its data files, card, Croissant metadata and scores)
RELEASE_FOLDER = PurePosixPath(RESULTS["release_card"]).parent.as_posix()
#: results that hold a dataset's items (pairs, words with their scores) or raw cells: for a dataset
#: whose licence keeps it out (``redistribute: false``) they stay out of the archive, with their
#: checksums recorded in WITHHELD.tsv; its aggregate tables (agreement, scores, ...) go in
ITEM_RESULTS = (
    *(RESULTS["clean"].replace("{table}", table) for table in CLEAN_TABLES if table != "summary"),  # not counts
    "translate_items",
    "translate_dropped",
    "calibrate_ratings",
    "agreement_ratings",
    "agreement_rankings",
    "agreement_answers",
    "audit",
    "gold",
    "bws_scores",
    "comparisons",
    "comparisons_ag",
    "predictions",
    "context_vectors",
    "context_tests",
    "report_page",
    "report_figures",
    RELEASE_FOLDER,
)
#: results across datasets that hold items of each (a withheld dataset keeps them all out)
ITEM_RESULTS_ACROSS = ("crosslingual",)
WITHHELD_HEADER = ("path", "sha256", "size", "dataset", "why")


def result_pattern(name: str) -> re.Pattern:
    """A result's pattern (a name of RESULTS, or a pattern itself) as a regular expression: the
    dataset captured, any file below it matched too.

    Parameters
    ----------
    name : str
        A key of ``RESULTS`` or a path pattern with ``{dataset}``-style fields.

    Returns
    -------
    re.Pattern
        A regex matching the result's relative paths, with groups ``dataset`` and ``rest``.
    """
    parts = re.split(r"(\{[a-z_]+\})", RESULTS.get(name, name))
    regex = "".join(
        "(?P<dataset>[^/]+)" if part == "{dataset}" else "[^/]+" if part.startswith("{") else re.escape(part)
        for part in parts
    )
    return re.compile(regex + "(?P<rest>/.*)?$")


def _withheld_results(config: dict, files: list[str]) -> dict[str, str]:
    """``{result file: dataset}``: the result files holding items or raw cells of a dataset marked
    ``redistribute: false`` (:data:`ITEM_RESULTS`; across datasets, :data:`ITEM_RESULTS_ACROSS`
    when one of them is in a translation group)."""
    closed = kept_out(config)
    if not closed:
        return {}
    patterns = [result_pattern(name) for name in ITEM_RESULTS]
    across = {RESULTS[name] for name in ITEM_RESULTS_ACROSS}
    linked = {d for d, ds in config["datasets"].items() if "translation_of" in ds}  # and what they translate:
    linked |= {config["datasets"][d]["translation_of"] for d in linked}
    closed_linked = ",".join(sorted(closed & linked))
    out = {}
    for rel in files:
        m = next((m for pattern in patterns if (m := pattern.match(rel)) and m.group("dataset") in closed), None)
        if m:
            out[rel] = m.group("dataset")
        elif rel in across and closed_linked:
            out[rel] = closed_linked
    return out


def _withheld_logs(config: dict, logs: list[str]) -> dict[str, str]:
    """The logs of a withheld dataset's jobs (``logs/<rule>/<dataset>.log`` or ``.../<dataset>/...``):
    they may quote its cells."""
    closed = kept_out(config)
    out = {}
    for rel in logs:
        hit = sorted((set(PurePosixPath(rel).parts[1:-1]) | {PurePosixPath(rel).stem}) & closed)
        if hit:
            out[rel] = hit[0]
    return out


def _withheld_table(root: Path, withheld: dict[str, str]) -> str:
    lines = ["\t".join(WITHHELD_HEADER)]
    for rel in sorted(withheld):
        data = (root / rel).read_bytes()
        why = "holds items or raw cells of a dataset whose licence keeps it out (redistribute: false)"
        lines.append("\t".join([rel, sha256_bytes(data), str(len(data)), withheld[rel], why]))
    return "\n".join(lines) + "\n"


def _result_files(root: Path, outputs: list[str]) -> list[str]:
    """The outputs as files: a directory output (a report page's figures) stands for the files in
    it, without the marker files Snakemake leaves there (names starting with a dot)."""
    files = []
    for rel in outputs:
        path = root / rel
        if path.is_dir() and not path.is_symlink():
            files += sorted(
                p.relative_to(root).as_posix()
                for p in path.rglob("*")
                if p.is_file() and not any(part.startswith(".") for part in p.relative_to(path).parts)
            )
        else:
            files.append(rel)
    return files


def build(
    root: Path,
    config: dict,
    outputs: list[str],
    target: Path,
    *,
    code_root: Path | None = None,
    run_config: dict | None = None,
) -> dict:
    """Write the archive; returns a summary (file count, left-out inputs, links left out).

    ``root``: the project directory the run worked in (results, logs, raw inputs); ``code_root``:
    the workflow's own directory (default: ``root``); ``run_config``: the config as Snakemake
    merged it, archived as ``config/config.yaml``.

    Parameters
    ----------
    root : Path
        The project directory the run worked in (results, logs, raw inputs).
    config : dict
        The resolved config (``datasets``, ``archive`` and the redistribution settings).
    outputs : list[str]
        The results to archive: names of ``RESULTS`` or paths relative to ``root``.
    target : Path
        The archive file to write (a tar).
    code_root : Path | None, optional
        The workflow's own directory, whose code is archived (None: ``root``).
    run_config : dict | None, optional
        The config as Snakemake merged it, archived as ``config/config.yaml`` (None: not archived).

    Returns
    -------
    dict
        ``files`` (member count), ``withheld`` (inputs not copied), ``withheld_results`` (results
        and logs left out) and ``links`` (symbolic links left out), the lists sorted.
    """
    root, code_root = Path(root), Path(code_root or root)
    outputs = _result_files(root, outputs)
    records = _stale_inputs(root, input_records(config["datasets"], root))
    withheld = {r["archive_path"] for r in records if not r["redistribute"]}
    links: list[str] = []
    files: dict[str, bytes] = {}
    _collect_code(code_root, files, links)
    if run_config is not None:
        files["config/config.yaml"] = _run_config_text(run_config).encode()
    if (root / "raw").is_dir():
        for rel in _walk(root, "raw", links):
            files[rel] = (root / rel).read_bytes()
    for rec in records:
        files.pop(rec["archive_path"], None)
        if rec["redistribute"]:
            files[rec["archive_path"]] = rec["real"].read_bytes()
    logs = [log for log in (_walk(root, "logs") if (root / "logs").is_dir() else []) if log != "logs/archive.log"]
    left_out = {**_withheld_results(config, sorted(set(outputs))), **_withheld_logs(config, logs)}
    for rel in sorted(set(outputs)):
        if Path(rel).resolve() != target.resolve() and rel not in left_out:
            files[rel] = (root / rel).read_bytes()
    for log in logs:  # this job's own log (still being written) is not among them
        if log not in left_out:
            files[log] = (root / log).read_bytes()
    if "README.md" in files:  # the tool's manual keeps its own name; README.md tells the study
        files["SIMGOLD-README.md"] = files.pop("README.md")
    readme = _study_readme(config, files, f"simgold {package_version('simgold')}")
    files["README.md"] = (readme.rstrip("\n") + "\n\n" + _licence_section(config, left_out)).encode("utf-8")
    files["environment/requirements.lock.txt"] = _lock_file().encode()
    files["inputs/EXTERNAL.tsv"] = _external_table(records).encode()
    files["WITHHELD.tsv"] = _withheld_table(root, left_out).encode()
    files["ro-crate-metadata.json"] = ro_crate(config, records, files, outputs).encode()
    files["MANIFEST"] = _manifest(files).encode()
    unsafe = [rel for rel in files if not safe_member(rel)]
    if unsafe:
        raise ValueError(f"archive members that would leave the archive: {unsafe}")
    target.parent.mkdir(parents=True, exist_ok=True)
    _write_tar(target, config["archive"]["name"], files)
    return {
        "files": len(files),
        "withheld": sorted(withheld),
        "withheld_results": sorted(left_out),
        "links": sorted(set(links)),
    }


def tsv_field(text: str) -> str:
    """A value as one field of a TSV line: tabs and line breaks made a space.

    Parameters
    ----------
    text : str
        The value (any value: written as ``str``).

    Returns
    -------
    str
        The field.
    """
    return re.sub(r"[\t\r\n]+", " ", str(text))


def _stale_inputs(root: Path, records: list[dict]) -> list[dict]:
    """``records``, refused (ValueError) where an input's bytes are not those its dataset's cleaned
    tables were made from (the Parquet provenance): an archive of them would not rebuild its own results."""
    problems = []
    for rec in records:
        for name in rec["datasets"]:
            table = root / result("clean", dataset=name, table="summary")
            made_from = read_provenance(table).get("inputs", {}) if table.is_file() else {}
            if made_from.get(rec["path"], rec["sha256"]) != rec["sha256"]:
                problems.append(
                    f"{rec['path']}: sha256 {rec['sha256'][:12]}... is not the file {table.relative_to(root)} was "
                    f"made from ({made_from[rec['path']][:12]}...); rerun the dataset (snakemake --forcerun clean "
                    f"--cores 1 {table.relative_to(root)}) and then the archive"
                )
    if problems:
        raise ValueError("; ".join(problems))
    return records


def _external_table(records: list[dict]) -> str:
    lines = ["\t".join(EXTERNAL_HEADER)]
    for r in records:
        row = [r["path"], r["sha256"], str(r["size"]), ",".join(r["datasets"])]
        row += ["yes" if r["redistribute"] else "no", r["archive_path"], r["licence"], r["source"]]
        lines.append("\t".join(tsv_field(v) for v in row))
    return "\n".join(lines) + "\n"


def _manifest(files: dict[str, bytes]) -> str:
    return "".join(f"{sha256_bytes(files[rel])}  {len(files[rel])}  {rel}\n" for rel in sorted(files))


def _write_tar(target: Path, top: str, files: dict[str, bytes]) -> None:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        dirs = {str(p) for rel in files for p in PurePosixPath(rel).parents} - {"."}
        for d in sorted(dirs):
            info = tarfile.TarInfo(f"{top}/{d}")
            info.type, info.mode = tarfile.DIRTYPE, 0o755
            _fix(info)
            tar.addfile(info)
        for rel in sorted(files):
            info = tarfile.TarInfo(f"{top}/{rel}")
            info.size = len(files[rel])
            info.mode = 0o755 if rel.startswith(".ci/") else 0o644
            _fix(info)
            tar.addfile(info, io.BytesIO(files[rel]))
    with open(target, "wb") as fh, gzip.GzipFile(fileobj=fh, mode="wb", mtime=FIXED_MTIME, filename="") as gz:
        gz.write(raw.getvalue())


def _fix(info: tarfile.TarInfo) -> None:
    info.mtime, info.uid, info.gid, info.uname, info.gname = FIXED_MTIME, 0, 0, "", ""


def _licence_section(config: dict, withheld: dict[str, str]) -> str:
    """The archive README's licence: the archive's own, each release's, and what the licences kept out."""
    arch = config["archive"]
    lines = ["## Licence", ""]
    if arch.get("license"):
        lines.append(f"This archive is released under `{arch['license']}` (SPDX).")
    else:
        lines.append(NO_LICENCE)
    lines.append("")
    closed = kept_out(config)
    for name, ds in sorted(config["datasets"].items()):
        if name in closed:
            count = sum(1 for d in withheld.values() if name in d.split(","))
            lines.append(
                f"- {name}: may not be redistributed: no release is built, and its raw files and the {count} files that "
                "hold its items or raw cells (tables, pages, logs) are left out (their checksums are in "
                "`inputs/EXTERNAL.tsv` and `WITHHELD.tsv`)"
            )
        else:
            licence = ds.get("release", {}).get("license")
            lines.append(f"- {name}: its release is under `{licence}`" if licence else f"- {name}: no licence given")
    return "\n".join(lines) + "\n"


# -------------------------------------------------------------------------------- the archive's README


def _study_readme(config: dict, files: dict[str, bytes], made_with: str) -> str:
    """The README.md at the top of a paper-submission archive: the study, from the config and the
    results the archive holds (``files``: its members, name -> bytes): each dataset with its card's
    key figures and its release, the models, the headline table, and how to verify and rebuild.
    ``made_with``: what made it (``simgold 0.1.0``)."""
    arch = config["archive"]
    lines = [f"# {md_text(arch['title'])}", "", md_prose(arch["description"]), "",
             f"Published {arch['date']}; this archive is `{arch['name']}`, made by {made_with}.", ""]  # fmt: skip
    clean = _table(files, result("clean_summary"))
    rows = []
    for name, ds in sorted(config["datasets"].items()):
        summary = clean[clean["dataset"] == name] if clean is not None else pd.DataFrame()
        agreement = _table(files, result("agreement", dataset=name))
        kept = (
            agreement[(agreement["stage"] == "filtered") & (agreement["subset"] == "all")]
            if agreement is not None
            else []
        )
        card = result("release_card", dataset=name)
        rows.append(
            {
                "dataset": name,
                "language": ds.get("language", ""),
                "kind": ds.get("kind", ""),
                "items": int(summary["n_items"].iloc[0]) if len(summary) else "",
                "raters": int(summary["n_raters"].iloc[0]) if len(summary) and summary["n_raters"].iloc[0] else "",
                "alpha (kept raters)": float(kept["alpha_interval"].iloc[0]) if len(kept) else np.nan,
                "licence": ds.get("release", {}).get("license") or "none given",
                "card": Markdown(f"[{card}]({card})") if card in files else "",
            }
        )
    if rows:
        lines += ["## Datasets", "", "Each released with its dataset card, data files and Croissant metadata:", "",
                  markdown_table(pd.DataFrame(rows)), ""]  # fmt: skip
    models = [
        {"model": name, "what": model_text(m),
         "languages": ", ".join(model_languages(m)) if m.get("language") else ""}  # fmt: skip
        for name, m in sorted(config.get("models", {}).items())
    ]
    if models:
        lines += ["## Models", "", markdown_table(pd.DataFrame(models)), ""]
    leaderboard = files.get(result("leaderboard_md"))
    if leaderboard is not None:  # the run's own leaderboard (simgold.report.leaderboard), as it wrote it
        lines += ["## Results", "", leaderboard.decode("utf-8").rstrip(), "",
                  "Every figure is in `results/`, the report in `results/report/index.html`.", ""]  # fmt: skip
    lines += [
        "## Verify and rebuild",
        "",
        "`MANIFEST` lists every file with its SHA-256; `inputs/EXTERNAL.tsv` the raw inputs kept outside the archive "
        "(their checksum, licence and source). With simgold installed (`pip install -e .` here; the versions that "
        "ran are in `environment/requirements.lock.txt`):",
        "",
        "```bash\nsimgold verify .    # every file against the MANIFEST\n"
        "simgold rebuild .   # the pipeline again in rebuild/, every result compared byte for byte\n```",
        "",
        "`ro-crate-metadata.json` describes the run (RO-Crate 1.1); `SIMGOLD-README.md` is the manual of the "
        "simgold version that made it.",
    ]
    return "\n".join(lines) + "\n"


def _table(files: dict[str, bytes], rel: str) -> pd.DataFrame | None:
    return pd.read_parquet(io.BytesIO(files[rel])) if rel in files else None
