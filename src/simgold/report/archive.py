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

    simgold verify <unpacked directory>
    simgold rebuild <unpacked directory> [--cores N]

``verify`` reads only inside the directory it checks and never follows a link: every file against
the MANIFEST, no file that the MANIFEST does not list, and every input left out (supplied by a
reader at the place EXTERNAL.tsv names) against its checksum. ``rebuild`` says that it will run
the archived code, verifies, checks the installed packages' input files, reruns the pipeline from
the archive's own code and config in ``<dir>/rebuild/`` (Snakemake's progress shown as it runs),
and compares every result file with the archived one, byte for byte.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import posixpath
import re
import shutil
import stat
import subprocess
import sys
import tarfile
import time
from collections import Counter
from importlib import metadata
from pathlib import Path, PurePosixPath

import yaml

from simgold.io.config import kept_out, translation_files
from simgold.io.machine import describe, machine_record
from simgold.io.paths import CLEAN_TABLES, RESULTS, RESULTS_DIR, result
from simgold.io.readers import resolve_path, source_paths
from simgold.io.digests import package_version, sha256_bytes, sha256_file

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
    """A relative path with no ``..``, no absolute start and no empty or ``.`` component."""
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


def lock_file() -> str:
    """Installed distributions, ``name==version``, sorted (pip freeze style)."""
    seen = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name:
            seen.setdefault(name.lower(), f"{name}=={dist.version}")
    return "\n".join(seen[k] for k in sorted(seen)) + "\n"


def archive_path(path: str, root: Path) -> str:
    """Where a configured input goes in the archive (and where a reader supplies a withheld one).

    Inside the project: its path relative to the project root. ``pkg:<package>/<file>``:
    ``inputs/pkg/<package>/<file>``. Relative paths outside the project (``../shared/x``):
    ``inputs/external/up/shared/x``, one ``up`` per ``..``. Absolute paths outside the project:
    ``inputs/external/root/<path>``.
    """
    if path.startswith("pkg:"):
        inner = posixpath.normpath(path[4:])
        if not safe_member(inner):
            raise ValueError(f"{path}: a pkg: path must stay inside its package")
        return "inputs/pkg/" + inner
    real = resolve_path(path, root)
    if real.resolve().is_relative_to(root.resolve()):
        return real.resolve().relative_to(root.resolve()).as_posix()
    norm = PurePosixPath(posixpath.normpath(Path(path).as_posix()))
    if norm.is_absolute():
        return "inputs/external/root/" + "/".join(norm.parts[1:])
    ups = sum(1 for part in norm.parts if part == "..")
    return "inputs/external/" + "up/" * ups + "/".join(norm.parts[ups:])


def input_records(datasets: dict, root: Path) -> list[dict]:
    """Every raw input of every dataset: where it is, its checksum, and whether it may be copied.

    A dataset's translation files follow the dataset's own ``redistribute``, licence and source.
    ``datasets``: the resolved config's (``redistribute`` given or defaulted by the schema).
    """
    records = {}
    for name, ds in sorted(datasets.items()):
        sources = [p for src in ds["sources"] for p in source_paths(src)]
        for p in sources + translation_files(ds):
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


def run_config_text(run_config: dict) -> str:
    return RUN_CONFIG_HEADER + yaml.safe_dump(run_config, sort_keys=False, allow_unicode=True, width=120)


def collect_code(code_root: Path, files: dict, skipped_links: list[str]) -> None:
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
    "audit",
    "gold",
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


def _pattern(name: str) -> re.Pattern:
    """A result's pattern (a name of RESULTS, or a pattern itself) as a regular expression: the
    dataset captured, any file below it matched too."""
    parts = re.split(r"(\{[a-z_]+\})", RESULTS.get(name, name))
    regex = "".join(
        "(?P<dataset>[^/]+)" if part == "{dataset}" else "[^/]+" if part.startswith("{") else re.escape(part)
        for part in parts
    )
    return re.compile(regex + "(?P<rest>/.*)?$")


def withheld_results(config: dict, files: list[str]) -> dict[str, str]:
    """``{result file: dataset}``: the result files holding items or raw cells of a dataset marked
    ``redistribute: false`` (:data:`ITEM_RESULTS`; across datasets, :data:`ITEM_RESULTS_ACROSS`
    when one of them is in a translation group)."""
    closed = kept_out(config)
    if not closed:
        return {}
    patterns = [_pattern(name) for name in ITEM_RESULTS]
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


def withheld_logs(config: dict, logs: list[str]) -> dict[str, str]:
    """The logs of a withheld dataset's jobs (``logs/<rule>/<dataset>.log`` or ``.../<dataset>/...``):
    they may quote its cells."""
    closed = kept_out(config)
    out = {}
    for rel in logs:
        hit = sorted((set(PurePosixPath(rel).parts[1:-1]) | {PurePosixPath(rel).stem}) & closed)
        if hit:
            out[rel] = hit[0]
    return out


def withheld_table(root: Path, withheld: dict[str, str]) -> str:
    lines = ["\t".join(WITHHELD_HEADER)]
    for rel in sorted(withheld):
        data = (root / rel).read_bytes()
        why = "holds items or raw cells of a dataset whose licence keeps it out (redistribute: false)"
        lines.append("\t".join([rel, sha256_bytes(data), str(len(data)), withheld[rel], why]))
    return "\n".join(lines) + "\n"


def result_files(root: Path, outputs: list[str]) -> list[str]:
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
    """
    root, code_root = Path(root), Path(code_root or root)
    outputs = result_files(root, outputs)
    records = input_records(config["datasets"], root)
    withheld = {r["archive_path"] for r in records if not r["redistribute"]}
    links: list[str] = []
    files: dict[str, bytes] = {}
    collect_code(code_root, files, links)
    if run_config is not None:
        files["config/config.yaml"] = run_config_text(run_config).encode()
    if (root / "raw").is_dir():
        for rel in _walk(root, "raw", links):
            files[rel] = (root / rel).read_bytes()
    for rec in records:
        files.pop(rec["archive_path"], None)
        if rec["redistribute"]:
            files[rec["archive_path"]] = rec["real"].read_bytes()
    logs = [log for log in (_walk(root, "logs") if (root / "logs").is_dir() else []) if log != "logs/archive.log"]
    left_out = {**withheld_results(config, sorted(set(outputs))), **withheld_logs(config, logs)}
    for rel in sorted(set(outputs)):
        if Path(rel).resolve() != target.resolve() and rel not in left_out:
            files[rel] = (root / rel).read_bytes()
    for log in logs:  # this job's own log (still being written) is not among them
        if log not in left_out:
            files[log] = (root / log).read_bytes()
    from simgold.report.release import study_readme  # heavy: pandas and pyarrow, only when an archive is built

    if "README.md" in files:  # the tool's manual keeps its own name; README.md tells the study
        files["SIMGOLD-README.md"] = files.pop("README.md")
    readme = study_readme(config, files, f"simgold {package_version('simgold')}")
    files["README.md"] = (readme.rstrip("\n") + "\n\n" + licence_section(config, left_out)).encode("utf-8")
    files["environment/requirements.lock.txt"] = lock_file().encode()
    files["inputs/EXTERNAL.tsv"] = external_table(records).encode()
    files["WITHHELD.tsv"] = withheld_table(root, left_out).encode()
    files["ro-crate-metadata.json"] = ro_crate(config, records, files, outputs).encode()
    files["MANIFEST"] = manifest(files).encode()
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


def _field(text: str) -> str:
    return re.sub(r"[\t\r\n]+", " ", str(text))


def external_table(records: list[dict]) -> str:
    lines = ["\t".join(EXTERNAL_HEADER)]
    for r in records:
        row = [r["path"], r["sha256"], str(r["size"]), ",".join(r["datasets"])]
        row += ["yes" if r["redistribute"] else "no", r["archive_path"], r["licence"], r["source"]]
        lines.append("\t".join(_field(v) for v in row))
    return "\n".join(lines) + "\n"


def manifest(files: dict[str, bytes]) -> str:
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


def _input_entity(r: dict) -> dict:
    ident = r["archive_path"] if r["redistribute"] else f"#input-{sha256_bytes(r['path'].encode())[:12]}"
    entity = {
        "@id": ident,
        "@type": "File" if r["redistribute"] else "CreativeWork",
        "name": r["path"],
        "sha256": r["sha256"],
        "contentSize": str(r["size"]),
        "description": f"raw input of {', '.join(r['datasets'])}",
    }
    if r["licence"]:
        entity["license"] = r["licence"]
    if r["source"]:
        entity["isBasedOn"] = r["source"]
    if not r["redistribute"]:
        entity["description"] += "; not redistributable: only its checksum and source are recorded"
    return entity


NO_LICENCE = (
    "No licence was chosen for this archive (archive.license is not set): without one, others may read it "
    "but not reuse it."
)


def licence_entity(expression: str, url: str | None = None) -> dict:
    """An RO-Crate entity for an SPDX expression: the spdx.org page of a single listed licence; the
    URL the user gave for a ``LicenseRef-`` (no page exists for it elsewhere); else a local one."""
    if url:
        return {"@id": url, "@type": "CreativeWork", "name": expression}
    if re.fullmatch(r"[A-Za-z0-9.+-]+", expression) and not expression.startswith("LicenseRef-"):
        return {"@id": f"https://spdx.org/licenses/{expression}", "@type": "CreativeWork", "name": expression}
    return {"@id": "#license-" + sha256_bytes(expression.encode())[:12], "@type": "CreativeWork", "name": expression}


def licence_section(config: dict, withheld: dict[str, str]) -> str:
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


def ro_crate(config: dict, records: list[dict], files: dict, outputs: list[str]) -> str:
    """RO-Crate 1.1 metadata: the crate, the workflow, the run (inputs -> outputs), and each release
    with its own licence."""
    arch = config["archive"]
    root = {
        "@id": "./",
        "@type": "Dataset",
        "name": arch["title"],
        "description": arch["description"],
        "datePublished": arch["date"],
        "mainEntity": {"@id": "Snakefile"},
        "mentions": {"@id": "#run"},
    }
    graph = [
        {
            "@id": "ro-crate-metadata.json",
            "@type": "CreativeWork",
            "conformsTo": {"@id": "https://w3id.org/ro/crate/1.1"},
            "about": {"@id": "./"},
        },
        root,
    ]
    licences = {}
    if arch.get("license"):
        entity = licence_entity(arch["license"], arch.get("license_url"))
        root["license"] = {"@id": entity["@id"]}
        licences[entity["@id"]] = entity
    else:
        root["conditionsOfAccess"] = NO_LICENCE
    releases = []
    for name, ds in sorted(config["datasets"].items()):
        folder = f"{RELEASE_FOLDER.format(dataset=name)}/"
        parts = sorted(rel for rel in files if rel.startswith(folder))
        if not parts:
            continue
        release = {"@id": folder, "@type": "Dataset", "name": f"{name}: release of the gold standard"}
        release["hasPart"] = [{"@id": rel} for rel in parts]
        licence = ds.get("release", {}).get("license")
        if licence:
            entity = licence_entity(licence, ds.get("release", {}).get("license_url"))
            release["license"] = {"@id": entity["@id"]}
            licences[entity["@id"]] = entity
        releases.append(release)
    root["hasPart"] = [{"@id": rel} for rel in sorted(files) if rel != "ro-crate-metadata.json"]
    root["hasPart"] += [{"@id": r["@id"]} for r in releases]
    graph += [licences[k] for k in sorted(licences)] + releases
    graph += [
        {
            "@id": "Snakefile",
            "@type": ["File", "SoftwareSourceCode", "ComputationalWorkflow"],
            "name": "simgold workflow",
            "programmingLanguage": {"@id": "#snakemake"},
        },
        {
            "@id": "#snakemake",
            "@type": "ComputerLanguage",
            "name": "Snakemake",
            "url": {"@id": "https://snakemake.github.io"},
            "version": package_version("snakemake"),
        },
        {"@id": "#simgold", "@type": "SoftwareApplication", "name": "simgold", "version": package_version("simgold")},
    ]
    entities = [_input_entity(r) for r in records]
    graph += entities
    results = sorted(rel for rel in set(outputs) if rel in files)
    graph.append(
        {
            "@id": "#run",
            "@type": "CreateAction",
            "name": "simgold pipeline run",
            "instrument": {"@id": "Snakefile"},
            "agent": {"@id": "#simgold"},
            "object": [{"@id": e["@id"]} for e in entities],
            "result": [{"@id": rel} for rel in results],
        }
    )
    graph += [{"@id": rel, "@type": "File", "sha256": sha256_bytes(files[rel])} for rel in results]
    doc = {"@context": "https://w3id.org/ro/crate/1.1/context", "@graph": graph}
    return json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


# --------------------------------------------------------------------------------------------
# checking an unpacked archive (reads inside the directory only, never through a link)


def _tree(directory: Path) -> tuple[dict[str, int], list[str], list[str]]:
    """({regular file: size}, links, other non-regular files: FIFOs, devices, sockets) under
    ``directory``, relative, from ``lstat`` alone: nothing is followed or opened."""
    found, links, odd = {}, [], []
    for top, dirs, names in os.walk(directory, followlinks=False):
        rel_top = Path(top).relative_to(directory)
        for name in sorted(dirs):
            if (Path(top) / name).is_symlink():
                links.append((rel_top / name).as_posix())
        dirs[:] = sorted(
            d for d in dirs if not (Path(top) / d).is_symlink() and (top != str(directory) or d != SCRATCH)
        )
        for name in names:
            rel = (rel_top / name).as_posix()
            info = os.lstat(Path(top) / name)
            if stat.S_ISLNK(info.st_mode):
                links.append(rel)
            elif stat.S_ISREG(info.st_mode):
                found[rel] = info.st_size
            else:
                odd.append(rel)
    return found, sorted(links), sorted(odd)


#: the largest MANIFEST or EXTERNAL.tsv read (a real one is a few hundred kilobytes)
MAX_TABLE_BYTES = 64 << 20


def _small_regular_file(path: Path) -> bool:
    """A regular file (not a link, FIFO or device) of at most MAX_TABLE_BYTES, by ``lstat``."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and info.st_size <= MAX_TABLE_BYTES


MANIFEST_LINE = re.compile(r"^([0-9a-f]{64})  (\d+)  (.+)$")


def _unsafe(rel: str) -> str:
    if PurePosixPath(rel).is_absolute() or re.match(r"^[A-Za-z]:[\\/]", rel):
        return "is an absolute path"
    if ".." in PurePosixPath(rel.replace("\\", "/")).parts:
        return "leaves the archive (a path with '..')"
    return "" if safe_member(rel) else "is not a plain relative path"


def read_manifest(directory: Path) -> tuple[dict[str, tuple[str, int]], list[str]]:
    """({path: (sha256, size)}, problems) of ``directory/MANIFEST``."""
    path = directory / "MANIFEST"
    if not _small_regular_file(path):
        return {}, [
            "MANIFEST: missing, or not a regular file of at most 64 MiB; expected the MANIFEST of an unpacked "
            "simgold archive"
        ]
    lines = path.read_bytes().decode("utf-8", errors="replace").splitlines()
    if not any(line.strip() for line in lines):
        return {}, ["MANIFEST: empty; expected one line per file: <sha256>  <size>  <path>"]
    entries, problems = {}, []
    for number, line in enumerate(lines, 1):
        m = MANIFEST_LINE.match(line)
        if not m:
            problems.append(f"MANIFEST line {number}: {line[:80]!r} is not '<sha256>  <size>  <path>'")
            continue
        digest, size, rel = m.groups()
        if _unsafe(rel):
            problems.append(f"MANIFEST line {number}: {rel!r} {_unsafe(rel)}; refused")
        elif rel in entries:
            problems.append(f"MANIFEST line {number}: {rel!r} is listed twice")
        else:
            entries[rel] = (digest, int(size))
    return entries, problems


def read_external(directory: Path) -> tuple[list[dict], list[str]]:
    """(rows, problems) of ``inputs/EXTERNAL.tsv``."""
    name = "inputs/EXTERNAL.tsv"
    path = directory / name
    if not _small_regular_file(path):
        return [], [
            f"{name}: missing, or not a regular file of at most 64 MiB; expected the table of the archive's raw inputs"
        ]
    lines = path.read_bytes().decode("utf-8", errors="replace").splitlines()
    header = "\t".join(EXTERNAL_HEADER)
    if not lines or lines[0] != header:
        found = repr(lines[0][:80]) if lines else "nothing"
        return [], [f"{name}: line 1 is {found}; expected the header {header!r}"]
    rows, problems = [], []
    for number, line in enumerate(lines[1:], 2):
        fields = line.split("\t")
        where = f"{name} line {number}"
        if len(fields) != len(EXTERNAL_HEADER):
            problems.append(
                f"{where}: {len(fields)} fields, expected {len(EXTERNAL_HEADER)} ({', '.join(EXTERNAL_HEADER)})"
            )
            continue
        row = dict(zip(EXTERNAL_HEADER, fields))
        problem = _external_row_problem(row)
        if problem:
            problems.append(f"{where}, column {problem}")
        else:
            rows.append(row)
    return rows, problems


def _external_row_problem(row: dict) -> str:
    if not re.fullmatch(r"[0-9a-f]{64}", row["sha256"]):
        return f"sha256: {row['sha256'][:80]!r} is not a SHA-256 (64 hex digits)"
    if not row["size"].isdigit():
        return f"size: {row['size'][:80]!r} is not a number of bytes"
    if row["redistributed"] not in ("yes", "no"):
        return f"redistributed: {row['redistributed'][:80]!r}, expected yes or no"
    if _unsafe(row["archive_path"]):
        return f"archive_path: {row['archive_path'][:80]!r} {_unsafe(row['archive_path'])}; refused"
    expected = _archive_path_of(row["path"])
    if expected is not None and expected != row["archive_path"]:
        # rebuild copies the archived file to `path`: a path that does not go with its archive_path
        # could write anywhere
        return (
            f"path: {row['path'][:80]!r} does not go with archive_path {row['archive_path'][:80]!r} "
            f"(it would be {expected[:80]!r}); refused"
        )
    return ""


def _archive_path_of(path: str) -> str | None:
    """The archive path a configured input's path maps to (``archive_path``), from the path alone;
    None for a path rebuild never writes (``pkg:`` files and absolute paths are read in place)."""
    if path.startswith("pkg:") or PurePosixPath(path).is_absolute() or re.match(r"^[A-Za-z]:[\\/]", path):
        return None
    norm = PurePosixPath(posixpath.normpath(path))
    ups = sum(1 for part in norm.parts if part == "..")
    return norm.as_posix() if not ups else "inputs/external/" + "up/" * ups + "/".join(norm.parts[ups:])


def verify(directory: Path) -> list[str]:
    """Problems found (empty: the archive is intact and every left-out input is in place)."""
    directory = Path(directory)
    entries, problems = read_manifest(directory)
    if not entries:
        return problems
    found, links, odd = _tree(directory)
    problems += [f"{rel}: a link; an archive holds no links and verify does not follow them" for rel in links]
    problems += [f"{rel}: not a regular file (a FIFO, device or socket); verify does not open it" for rel in odd]
    for rel, (digest, size) in sorted(entries.items()):
        if rel not in found:
            if rel not in odd:
                problems.append(f"{rel}: missing")
            continue
        if found[rel] != size:  # the size first: a sparse or swapped file is never read whole
            problems.append(f"{rel}: {found[rel]:,} bytes, the MANIFEST says {size:,}")
        elif sha256_file(directory / rel) != digest:
            problems.append(f"{rel}: checksum does not match the MANIFEST")
    rows, external_problems = read_external(directory) if "inputs/EXTERNAL.tsv" in entries else ([], [])
    problems += external_problems
    supplied = set()
    for row in rows:
        if row["redistributed"] == "no" and not row["path"].startswith("pkg:"):
            supplied.add(row["archive_path"])
            problems += _check_supplied(directory, row, found)
    unlisted = set(found) - set(entries) - supplied - {"MANIFEST"}
    problems += [f"{rel}: not in the MANIFEST" for rel in sorted(unlisted)]
    return problems


def _check_supplied(directory: Path, row: dict, found: dict[str, int]) -> list[str]:
    """A withheld input, supplied by the reader at its archive_path inside the directory."""
    rel = row["archive_path"]
    if rel not in found:
        source = row["source"] or "unknown"
        return [
            f"{rel}: not in the archive (not redistributable); supply {row['path']} there (sha256 {row['sha256']}; source: {source})"
        ]
    if found[rel] != int(row["size"]) or sha256_file(directory / rel) != row["sha256"]:
        return [f"{rel}: the supplied file differs from the one the results were made from (sha256 {row['sha256']})"]
    return []


# --------------------------------------------------------------------------------------------
# rebuilding


def rebuild_warning(directory: Path) -> str:
    return (
        f"rebuild runs the workflow code archived in {directory} (its Snakefile, workflow/ and src/) with "
        f"{sys.executable}: run it only on an archive whose code you trust"
    )


def environment_problems(rows: list[dict]) -> list[str]:
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


def prepare_scratch(directory: Path, entries: dict, rows: list[dict]) -> Path:
    """A fresh working copy in ``<dir>/rebuild/``: the project (code, config, raw inputs) in a
    subdirectory deep enough that every relative input outside it (``../shared/x``) lands inside
    ``<dir>/rebuild/`` too. Returns the project directory."""
    scratch = directory / SCRATCH
    if scratch.exists():
        shutil.rmtree(scratch)
    written = [r for r in rows if _archive_path_of(r["path"]) is not None]  # relative paths: copied in
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


def read_withheld(directory: Path) -> dict[str, tuple[str, int]]:
    """``{path: (sha256, size)}`` of the result files WITHHELD.tsv records (none in an older archive)."""
    path = directory / "WITHHELD.tsv"
    if not _small_regular_file(path):
        return {}
    rows = {}
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines()[1:]:
        fields = line.split("\t")
        if len(fields) == len(WITHHELD_HEADER) and re.fullmatch(r"[0-9a-f]{64}", fields[1]) and fields[2].isdigit():
            rows[fields[0]] = (fields[1], int(fields[2]))
    return rows


def _result_set(project: Path) -> set[str]:
    archives = PurePosixPath(RESULTS["archive"]).parent  # an archive is not one of the results it holds
    return {
        p.relative_to(project).as_posix()
        for p in (project / RESULTS_DIR).rglob("*")
        if p.is_file() and not p.name.startswith(".") and archives not in PurePosixPath(p.relative_to(project)).parents
    }


def compare_results(directory: Path, project: Path, entries: dict, withheld: dict | None = None):
    """(verdicts, problems): every archived result file against the rebuilt one (simgold.report.compare),
    and every withheld one against its recorded checksum."""
    from simgold.report.compare import (
        Verdict,
        compare_tables,
    )  # heavy: pandas and pyarrow, only when a rebuild compares

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


def write_verdicts(path: Path, verdicts) -> Path:
    """Every result file, its verdict and why, one per line (path order)."""
    lines = ["path\tverdict\tdetail"] + [f"{v.path}\t{v.kind}\t{_field(v.detail)}" for v in verdicts]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def place_archived(directory: Path, project: Path, rels: list[str]) -> None:
    """Archived result files put in the rebuild, all with one modification time (so that Snakemake
    finds none older than another, and each newer than what the first pass made)."""
    stamp = time.time()
    for rel in rels:
        _copy(directory / rel, project / rel)
        os.utime(project / rel, (stamp, stamp))


def rerender(directory: Path, project: Path, verdicts, cores: int) -> list[str]:
    """Re-render the figures, pages, cards and paper tables from the archived tables: put every
    archived table in place, let Snakemake remake what depends on them, compare the bytes."""
    rendered = [v for v in verdicts if v.kind == "rendered"]
    if not rendered:
        return []
    tables = sorted(v.path for v in verdicts if v.path.endswith(".parquet") and not v.kind.startswith("withheld"))
    place_archived(directory, project, tables)
    figures = _pattern("report_figures")  # a directory output: remade as one
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


def recompute_report(directory: Path, project: Path, entries: dict) -> list[str]:
    """Per model: the largest difference of its vectors, and the largest change of each score."""
    from simgold.io.tables import read_parquet  # heavy: pandas and pyarrow, only when a rebuild compares
    from simgold.report.compare import largest_vector_difference  # heavy: the same

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
    """
    directory = Path(directory).absolute()
    say(rebuild_warning(directory))
    problems = verify(directory)
    if problems:
        return problems + ["rebuild: refused: the archive does not verify (problems above); nothing was run"]
    entries, _ = read_manifest(directory)
    rows, _ = read_external(directory)
    problems = environment_problems(rows)
    if problems:
        return problems + ["rebuild: refused: inputs read from outside the archive differ (above); nothing was run"]
    project = prepare_scratch(directory, entries, rows)
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
        place_archived(directory, project, vectors)
    say(f"rebuild: running the archived workflow in {project}")
    status = _snakemake(project, cores)
    if status != 0:
        return [f"rebuild: the pipeline failed in {project} (exit status {status}; its output is above)"]
    verdicts, problems = compare_results(directory, project, entries, read_withheld(directory))
    if not verdicts:
        return problems
    if recompute:
        for line in recompute_report(directory, project, entries):
            say(line)
    if not problems:
        problems += rerender(directory, project, verdicts, cores)
    for v in verdicts:
        if v.kind not in ("identical", "different", "withheld"):
            say(f"rebuild: {v.line()}")
    report = write_verdicts(directory / SCRATCH / VERDICTS, verdicts)
    say(f"rebuild: every result file's verdict: {os.path.normpath(report)}")
    counts = Counter(v.kind for v in verdicts)
    unmatched = counts["withheld_differs"]
    if not problems:
        say(
            f"rebuild: {len(verdicts)} result files: {counts['identical']} byte-identical (rebuilt byte for byte), "
            f"{counts['within']} equal within the bound, {counts['rendered']} re-rendered from the archived tables "
            f"byte for byte, {counts['withheld']} withheld files equal to their recorded checksums"
            + (f" ({unmatched} withheld files differ from theirs: not archived, so not judged)" if unmatched else "")
        )
    return problems
