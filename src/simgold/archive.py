"""The paper-submission archive (METHODS.md section 10), and the commands that check it.

``snakemake archive`` writes ``results/archive/<name>.tar.gz`` holding, under ``<name>/``:

* the workflow (Snakefile, workflow/, config/, profiles/), the library it runs (src/simgold) and
  the project files (pyproject.toml, environment.yml, README.md);
* ``environment/requirements.lock.txt``: every installed package with its exact version;
* the raw inputs: files under the project as they are; inputs from elsewhere (an installed
  package, a directory beside the project) copied to ``inputs/``; the files of a dataset marked
  ``redistribute: false`` are left out, and only their checksum, licence and source are recorded
  (``inputs/EXTERNAL.tsv`` and the RO-Crate);
* every result table, figure and report page, and the logs;
* ``MANIFEST``: the SHA-256 and size of every file in the archive;
* ``ro-crate-metadata.json``: an RO-Crate 1.1 description of the run (the workflow, its inputs,
  its outputs).

The tar file is deterministic (sorted members, fixed times and owners), so the same results give
the same archive.

    python -m simgold.archive verify <unpacked directory>
    python -m simgold.archive rebuild <unpacked directory> [--cores N]

``verify`` checks every file against the manifest, and every input that was left out against its
recorded checksum (it must be supplied at its recorded place). ``rebuild`` verifies, then reruns the
pipeline from the archive's own code and config into a fresh ``results/`` and compares every
Parquet table with the archived one, byte for byte (in the environment the lock file describes).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
from importlib import metadata
from pathlib import Path

from .config import translation_files
from .readers import resolve_path, source_paths
from .tables import _version, sha256_file

PROJECT_FILES = ("Snakefile", "pyproject.toml", "environment.yml", "README.md", ".gitignore")
PROJECT_DIRS = ("config", "workflow", "profiles", "src/simgold", "raw")
SKIP = ("__pycache__", ".egg-info", ".snakemake", ".pytest_cache")
FIXED_MTIME = 0


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _walk(root: Path, rel: str):
    base = root / rel
    if base.is_file() or base.is_symlink():
        yield rel
        return
    for path in sorted(base.rglob("*")):
        if any(part in SKIP or part.endswith(SKIP) for part in path.relative_to(root).parts):
            continue
        if path.is_file() or path.is_symlink():
            yield path.relative_to(root).as_posix()


def lock_file() -> str:
    """Installed distributions, ``name==version``, sorted (pip freeze style)."""
    seen = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name:
            seen.setdefault(name.lower(), f"{name}=={dist.version}")
    return "\n".join(seen[k] for k in sorted(seen)) + "\n"


def input_records(datasets: dict, root: Path) -> list[dict]:
    """Every raw input of every dataset: where it is, its checksum, and whether it may be copied.

    A dataset's translation files follow the dataset's own ``redistribute``, licence and source.
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
                    "inside": not p.startswith("pkg:") and real.resolve().is_relative_to(root.resolve()),
                    "redistribute": True,
                    "licence": "",
                    "source": "",
                    "real": real,
                },
            )
            rec["datasets"].append(name)
            rec["redistribute"] &= ds.get("redistribute", True)
            rec["licence"] = rec["licence"] or ds.get("licence", "")
            rec["source"] = rec["source"] or ds.get("source", "")
    return [records[k] for k in sorted(records)]


def _external_name(path: str) -> str:
    """Where a copied outside input goes in the archive."""
    if path.startswith("pkg:"):
        return "inputs/pkg/" + path[4:]
    return "inputs/external/" + Path(path).as_posix().lstrip("./").replace("../", "up/")


def build(root: Path, config: dict, outputs: list[str], target: Path) -> dict:
    """Write the archive; returns a summary (file count, left-out inputs)."""
    root = Path(root)
    name = config["archive"]["name"]
    records = input_records(config["datasets"], root)
    withheld = {r["path"] for r in records if not r["redistribute"]}
    files: dict[str, bytes | tuple[str, str]] = {}  # archive path -> bytes, or ("symlink", target)
    for rel in PROJECT_FILES:
        if (root / rel).is_file():
            files[rel] = (root / rel).read_bytes()
    for d in PROJECT_DIRS:
        for rel in _walk(root, d):
            if rel in withheld:
                continue
            path = root / rel
            files[rel] = ("symlink", os.readlink(path)) if path.is_symlink() else path.read_bytes()
    for rec in records:
        if rec["redistribute"] and not rec["inside"]:
            files[_external_name(rec["path"])] = rec["real"].read_bytes()
    for rel in sorted(set(outputs)):
        if Path(rel).resolve() != target.resolve():
            files[rel] = (root / rel).read_bytes()
    for log in _walk(root, "logs") if (root / "logs").is_dir() else []:
        if log != "logs/archive.log":  # this job's own log is still being written
            files[log] = (root / log).read_bytes()
    files["environment/requirements.lock.txt"] = lock_file().encode()
    files["inputs/EXTERNAL.tsv"] = _external_table(records).encode()
    files["ro-crate-metadata.json"] = ro_crate(config, records, files, outputs).encode()
    files["MANIFEST"] = manifest(files).encode()
    target.parent.mkdir(parents=True, exist_ok=True)
    _write_tar(target, name, files)
    return {"files": len(files), "withheld": sorted(withheld)}


def _external_table(records: list[dict]) -> str:
    lines = ["path\tsha256\tsize\tdatasets\tin_archive\tlicence\tsource"]
    for r in records:
        where = (
            "no (not redistributable)"
            if not r["redistribute"]
            else ("yes" if r["inside"] else f"yes: {_external_name(r['path'])}")
        )
        lines.append(
            "\t".join(
                [r["path"], r["sha256"], str(r["size"]), ",".join(r["datasets"]), where, r["licence"], r["source"]]
            )
        )
    return "\n".join(lines) + "\n"


def manifest(files: dict) -> str:
    lines = []
    for rel in sorted(files):
        data = files[rel]
        if isinstance(data, tuple):
            data = data[1].encode()  # a symlink: the checksum of its target path
        lines.append(f"{_sha256(data)}  {len(data)}  {rel}")
    return "\n".join(lines) + "\n"


def _write_tar(target: Path, top: str, files: dict) -> None:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        dirs = sorted({str(Path(rel).parent) for rel in files} - {"."})
        for d in sorted({p for d in dirs for p in [*(str(x) for x in Path(d).parents), d]} - {"."}):
            info = tarfile.TarInfo(f"{top}/{d}")
            info.type, info.mode = tarfile.DIRTYPE, 0o755
            _fix(info)
            tar.addfile(info)
        for rel in sorted(files):
            data = files[rel]
            info = tarfile.TarInfo(f"{top}/{rel}")
            if isinstance(data, tuple):
                info.type, info.linkname, info.mode = tarfile.SYMTYPE, data[1], 0o777
                _fix(info)
                tar.addfile(info)
            else:
                info.size = len(data)
                info.mode = 0o755 if rel.startswith(".ci/") else 0o644
                _fix(info)
                tar.addfile(info, io.BytesIO(data))
    with open(target, "wb") as fh, gzip.GzipFile(fileobj=fh, mode="wb", mtime=FIXED_MTIME, filename="") as gz:
        gz.write(raw.getvalue())


def _fix(info: tarfile.TarInfo) -> None:
    info.mtime, info.uid, info.gid, info.uname, info.gname = FIXED_MTIME, 0, 0, "", ""


def ro_crate(config: dict, records: list[dict], files: dict, outputs: list[str]) -> str:
    """RO-Crate 1.1 metadata: the crate, the workflow, and the run (inputs -> outputs)."""
    arch = config["archive"]
    graph = [
        {
            "@id": "ro-crate-metadata.json",
            "@type": "CreativeWork",
            "conformsTo": {"@id": "https://w3id.org/ro/crate/1.1"},
            "about": {"@id": "./"},
        },
        {
            "@id": "./",
            "@type": "Dataset",
            "name": arch["title"],
            "description": arch["description"],
            "datePublished": arch["date"],
            "license": {"@id": f"https://spdx.org/licenses/{arch['license']}"},
            "mainEntity": {"@id": "Snakefile"},
            "mentions": {"@id": "#run"},
            "hasPart": [{"@id": rel} for rel in sorted(files) if rel not in ("ro-crate-metadata.json",)],
        },
        {"@id": f"https://spdx.org/licenses/{arch['license']}", "@type": "CreativeWork", "name": arch["license"]},
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
            "version": _version("snakemake"),
        },
        {"@id": "#simgold", "@type": "SoftwareApplication", "name": "simgold", "version": _version("simgold")},
    ]
    inputs = []
    for r in records:
        in_crate = r["redistribute"]
        ident = (
            (r["path"] if r["inside"] else _external_name(r["path"]))
            if in_crate
            else f"#input-{_sha256(r['path'].encode())[:12]}"
        )
        inputs.append({"@id": ident})
        entity = {
            "@id": ident,
            "@type": "File" if in_crate else "CreativeWork",
            "name": r["path"],
            "sha256": r["sha256"],
            "contentSize": str(r["size"]),
            "description": f"raw input of {', '.join(r['datasets'])}",
        }
        if r["licence"]:
            entity["license"] = r["licence"]
        if r["source"]:
            entity["isBasedOn"] = r["source"]
        if not in_crate:
            entity["description"] += "; not redistributable: only its checksum and source are recorded"
        graph.append(entity)
    result = [{"@id": rel} for rel in sorted(set(outputs))]
    graph.append(
        {
            "@id": "#run",
            "@type": "CreateAction",
            "name": "simgold pipeline run",
            "instrument": {"@id": "Snakefile"},
            "agent": {"@id": "#simgold"},
            "object": inputs,
            "result": result,
        }
    )
    for rel in sorted(set(outputs)):
        graph.append(
            {"@id": rel, "@type": "File", "sha256": _sha256(files[rel]) if isinstance(files.get(rel), bytes) else ""}
        )
    return (
        json.dumps(
            {"@context": "https://w3id.org/ro/crate/1.1/context", "@graph": graph},
            indent=1,
            sort_keys=True,
            ensure_ascii=False,
        )
        + "\n"
    )


# --------------------------------------------------------------------------------------------
# checking an unpacked archive


def verify(directory: Path) -> list[str]:
    """Problems found (empty: the archive is intact and every left-out input is in place)."""
    directory = Path(directory)
    problems = []
    manifest_path = directory / "MANIFEST"
    if not manifest_path.is_file():
        return [f"{manifest_path}: no MANIFEST"]
    listed = set()
    for line in manifest_path.read_text(encoding="utf-8").splitlines():
        digest, size, rel = line.split("  ", 2)
        listed.add(rel)
        path = directory / rel
        if path.is_symlink():
            data = os.readlink(path).encode()
        elif path.is_file():
            data = path.read_bytes()
        else:
            problems.append(f"{rel}: missing")
            continue
        if _sha256(data) != digest or len(data) != int(size):
            problems.append(f"{rel}: checksum does not match the MANIFEST")
    for rel in _walk(directory, "."):
        rel = rel.removeprefix("./")
        if (
            rel not in listed
            and rel != "MANIFEST"
            and not rel.startswith(("results.archived/", "logs.archived/", "results/", "logs/", ".snakemake/"))
        ):
            problems.append(f"{rel}: not in the MANIFEST")
    table = directory / "inputs" / "EXTERNAL.tsv"
    if table.is_file():
        rows = [line.split("\t") for line in table.read_text(encoding="utf-8").splitlines()[1:]]
        for path, digest, _size, datasets, in_archive, _licence, source in rows:
            if in_archive.startswith("no"):
                real = resolve_path(path, directory)
                if not real.is_file():
                    problems.append(
                        f"{path}: not in the archive (not redistributable); supply it there (sha256 {digest}; source: {source or 'unknown'})"
                    )
                elif _sha256(real.read_bytes()) != digest:
                    problems.append(
                        f"{path}: the supplied file differs from the one the results were made from (sha256 {digest})"
                    )
            elif path.startswith("pkg:") and resolve_path(path, directory).is_file():
                if _sha256(resolve_path(path, directory).read_bytes()) != digest:
                    problems.append(f"{path}: the installed package's file differs from the archived copy")
    return problems


def rebuild(directory: Path, cores: int = 2) -> list[str]:
    """Verify, rerun the pipeline from the archive into a fresh results/, compare the Parquet bytes."""
    directory = Path(directory)
    problems = verify(directory)
    if problems:
        return problems
    archived = directory / "results.archived"
    if archived.exists():
        shutil.rmtree(archived)
    (directory / "results").rename(archived)
    if (directory / "logs").exists():
        shutil.rmtree(directory / "logs.archived", ignore_errors=True)
        (directory / "logs").rename(directory / "logs.archived")
    env = {
        **os.environ,
        "PYTHONPATH": str((directory / "src").resolve()) + os.pathsep + os.environ.get("PYTHONPATH", ""),
    }
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "--cores", str(cores), "--nolock"],
        cwd=directory,
        env=env,
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        return [f"the pipeline failed in {directory}:\n{proc.stderr[-3000:]}"]
    old = {p.relative_to(archived).as_posix() for p in archived.rglob("*.parquet")}
    new = {p.relative_to(directory / "results").as_posix() for p in (directory / "results").rglob("*.parquet")}
    problems += [f"results/{rel}: archived, not rebuilt" for rel in sorted(old - new)]
    problems += [f"results/{rel}: rebuilt, not archived" for rel in sorted(new - old)]
    for rel in sorted(old & new):
        if (archived / rel).read_bytes() != (directory / "results" / rel).read_bytes():
            problems.append(f"results/{rel}: differs from the archived table")
    return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m simgold.archive", description="Check an unpacked simgold archive.")
    parser.add_argument("command", choices=["verify", "rebuild"])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--cores", type=int, default=2)
    args = parser.parse_args(argv)
    problems = verify(args.directory) if args.command == "verify" else rebuild(args.directory, args.cores)
    for p in problems:
        print(p)
    if problems:
        print(f"{args.command}: {len(problems)} problem(s)")
        return 1
    what = (
        "every file matches the MANIFEST" if args.command == "verify" else "every Parquet table rebuilt byte for byte"
    )
    print(f"{args.command}: OK, {what}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
