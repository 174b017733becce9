"""The RO-Crate 1.1 metadata of a paper-submission archive (``ro-crate-metadata.json``): the
crate, the workflow, the run (inputs -> outputs), and each release with its own licence.
"""

from __future__ import annotations

import json
import re
from pathlib import PurePosixPath

from simgold.io.paths import result
from simgold.io.digests import package_version, sha256_bytes

__all__ = ["ro_crate", "NO_LICENCE"]


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


def _licence_entity(expression: str, url: str | None = None) -> dict:
    """An RO-Crate entity for an SPDX expression: the spdx.org page of a single listed licence; the
    URL the user gave for a ``LicenseRef-`` (no page exists for it elsewhere); else a local one."""
    if url:
        return {"@id": url, "@type": "CreativeWork", "name": expression}
    if re.fullmatch(r"[A-Za-z0-9.+-]+", expression) and not expression.startswith("LicenseRef-"):
        return {"@id": f"https://spdx.org/licenses/{expression}", "@type": "CreativeWork", "name": expression}
    return {"@id": "#license-" + sha256_bytes(expression.encode())[:12], "@type": "CreativeWork", "name": expression}


def ro_crate(config: dict, records: list[dict], files: dict, outputs: list[str]) -> str:
    """RO-Crate 1.1 metadata: the crate, the workflow, the run (inputs -> outputs), and each release
    with its own licence.

    Parameters
    ----------
    config : dict
        The resolved config (``archive``: title, description, date, licence; the datasets).
    records : list[dict]
        The raw inputs' records of ``archive.input_records``.
    files : dict
        Archive member path -> its bytes (results' checksums are taken from them).
    outputs : list[str]
        The result files of the run (those in ``files`` become the run's results).

    Returns
    -------
    str
        The JSON-LD of ``ro-crate-metadata.json``: keys sorted, indented, ending in a newline.
    """
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
        entity = _licence_entity(arch["license"], arch.get("license_url"))
        root["license"] = {"@id": entity["@id"]}
        licences[entity["@id"]] = entity
    else:
        root["conditionsOfAccess"] = NO_LICENCE
    releases = _releases(config, files, licences)
    root["hasPart"] = [{"@id": rel} for rel in sorted(files) if rel != "ro-crate-metadata.json"]
    root["hasPart"] += [{"@id": r["@id"]} for r in releases]
    graph += [licences[k] for k in sorted(licences)] + releases
    graph += _software()
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


def _releases(config: dict, files: dict, licences: dict) -> list[dict]:
    """Each release folder the archive holds as a Dataset with its parts and its own licence
    (``licences``: the licence entities by id, added to)."""
    releases = []
    for name, ds in sorted(config["datasets"].items()):
        folder = f"{PurePosixPath(result('release_card', dataset=name)).parent.as_posix()}/"
        parts = sorted(rel for rel in files if rel.startswith(folder))
        if not parts:
            continue
        release = {"@id": folder, "@type": "Dataset", "name": f"{name}: release of the gold standard"}
        release["hasPart"] = [{"@id": rel} for rel in parts]
        licence = ds.get("release", {}).get("license")
        if licence:
            entity = _licence_entity(licence, ds.get("release", {}).get("license_url"))
            release["license"] = {"@id": entity["@id"]}
            licences[entity["@id"]] = entity
        releases.append(release)
    return releases


def _software() -> list[dict]:
    """The workflow, the language it is written in and simgold, with their versions."""
    return [
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
