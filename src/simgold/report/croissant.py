"""The Croissant 1.0 metadata of a release (``croissant.json``): each Parquet file a FileObject
with its SHA-256, one RecordSet per file whose fields are its columns, and the card's prose where
Croissant's Responsible AI vocabulary has a field for it.
"""

from __future__ import annotations

import pandas as pd

from simgold.io.cardtext import CARD_PROSE
from simgold.io.digests import sha256_bytes
from simgold.report.frontmatter import KIND_TEXT, column_types, license_link, pretty_name
from simgold.report.markup import md_prose

__all__ = ["croissant", "CROISSANT_CONTEXT"]

CROISSANT_CONTEXT = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "cr": "http://mlcommons.org/croissant/",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/",
    "equivalentProperty": "cr:equivalentProperty",
    "examples": {"@id": "cr:examples", "@type": "@json"},
    "extract": "cr:extract",
    "field": "cr:field",
    "fileProperty": "cr:fileProperty",
    "fileObject": "cr:fileObject",
    "fileSet": "cr:fileSet",
    "format": "cr:format",
    "includes": "cr:includes",
    "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath",
    "key": "cr:key",
    "md5": "cr:md5",
    "parentField": "cr:parentField",
    "path": "cr:path",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "regex": "cr:regex",
    "repeated": "cr:repeated",
    "replace": "cr:replace",
    "samplingRate": "cr:samplingRate",
    "sc": "https://schema.org/",
    "separator": "cr:separator",
    "source": "cr:source",
    "subField": "cr:subField",
    "transform": "cr:transform",
}


#: Croissant's Responsible AI fields -> the card's prose keys that fill them
RAI_FIELDS = {
    "rai:dataCollection": ["pairs"],
    "rai:dataAnnotationProtocol": ["instructions", "recruitment", "pay"],
    "rai:annotatorDemographics": ["demographics"],
    "rai:dataUseCases": ["intended_use"],
    "rai:dataLimitations": ["limitations"],
}


def croissant(
    name: str, ds: dict, record_sets: list[tuple[str, str, pd.DataFrame, dict]], files: dict[str, bytes], date: str
) -> dict:
    """Croissant 1.0 metadata: each Parquet file a FileObject with its SHA-256, and one RecordSet per
    file whose fields are its columns (``record_sets``: record set id, file, table, descriptions);
    ``date``: the publication date (``archive.date``).

    Parameters
    ----------
    name : str
        The dataset's name (the metadata's ``name``).
    ds : dict
        The dataset's resolved config block (``language``, ``kind``, ``release`` with its ``card``).
    record_sets : list[tuple[str, str, pd.DataFrame, dict]]
        (record set id, Parquet file, its table, column -> description), one per file.
    files : dict[str, bytes]
        The release's files by name; each Parquet file's bytes give its SHA-256.
    date : str
        The publication date, ISO (``archive.date``).

    Returns
    -------
    dict
        The JSON-LD metadata, ready for ``json.dumps``.
    """
    release = ds["release"]
    card = release.get("card", {})
    summary = md_prose(card["summary"]) if card.get("summary") else (
        f"A word-similarity gold standard in {ds['language']}: {KIND_TEXT.get(ds['kind'], ds['kind'])}."
        + (f" About the raw files: {ds['description']}" if ds.get("description") else "")
    )  # fmt: skip
    meta: dict = {
        "@context": CROISSANT_CONTEXT,
        "@type": "sc:Dataset",
        "name": name,
        "alternateName": pretty_name(name, ds),
        "description": summary,
        "conformsTo": "http://mlcommons.org/croissant/1.0",
        "version": release["version"],
        "datePublished": date,
        "inLanguage": [ds["language"]],
        "keywords": list(dict.fromkeys(["word similarity", "gold standard", *card.get("tags", []),
                                        *card.get("task_categories", [])])),  # fmt: skip
    }
    if release.get("license"):
        meta["license"] = license_link(release) or release["license"]
    if release.get("citation"):
        meta["citeAs"] = release["citation"]
    if release.get("homepage"):
        meta["url"] = release["homepage"]
    # the authors' prose where Croissant's Responsible AI vocabulary has a field for it
    for field_, keys in RAI_FIELDS.items():
        if texts := [f"{CARD_PROSE[k]}: {md_prose(card[k])}" if len(keys) > 1 else md_prose(card[k])
                     for k in keys if card.get(k)]:  # fmt: skip
            meta[field_] = texts[0] if field_ == "rai:dataCollection" else texts
    if creators := _creators(release):
        meta["creator"] = creators
    meta["distribution"] = [
        {
            "@type": "cr:FileObject",
            "@id": file,
            "name": file,
            "contentUrl": file,
            "encodingFormat": "application/x-parquet",
            "sha256": sha256_bytes(files[file]),
        }
        for _, file, _, _ in record_sets
    ]
    meta["recordSet"] = _record_sets(record_sets)
    return meta


def _creators(release: dict) -> list[dict]:
    """The release's creators as schema.org persons and organisations (a name alone: a person)."""
    creators = []
    for c in release.get("creators", []):
        c = {"name": c} if isinstance(c, str) else c
        kind = "sc:Organization" if c.get("type") == "organization" else "sc:Person"  # a name alone: a person
        creators.append({"@type": kind, **{k: v for k, v in c.items() if k != "type"}})
    return creators


def _record_sets(record_sets: list[tuple[str, str, pd.DataFrame, dict]]) -> list[dict]:
    """One RecordSet per Parquet file, its fields the file's columns with their types."""
    return [
        {
            "@type": "cr:RecordSet",
            "@id": record_set,
            "name": record_set,
            "field": [
                {
                    "@type": "cr:Field",
                    "@id": f"{record_set}/{column}",
                    "name": column,
                    "description": descriptions.get(column, f"the item attribute {column}"),
                    "dataType": types[1],  # the Parquet file's type
                    "source": {"fileObject": {"@id": file}, "extract": {"column": column}},
                }
                for column, types in column_types(table).items()
            ],
        }
        for record_set, file, table, descriptions in record_sets
    ]
