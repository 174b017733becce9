"""The layout registry: the config checks and the schema's kind and layout values derive from it."""

from __future__ import annotations

import pytest
import yaml

from simgold.errors import ConfigError
from simgold.io import config as config_module
from simgold.io.config import resolve_dataset
from simgold.io.layouts import COLUMN_KEYS, KINDS, LAYOUT_NAMES, LAYOUTS
from simgold.io.schema import SCHEMA_PATH, load_schema


def _source(kind: str, layout: str, keys) -> dict:
    values = {"words": ["a", "b"], "raters": "^r\\d+$", "contexts": [{"context": 1, "text": "t", "mean": "m"}]}
    src = {"path": "x.tsv", "layout": layout, **{k: values.get(k, "col") for k in keys}}
    return resolve_dataset({"language": "en", "kind": kind, "sources": [src]})["sources"][0]


@pytest.mark.parametrize(("kind", "layout"), list(LAYOUTS))
def test_every_required_key_is_checked(kind, layout):
    entry = LAYOUTS[(kind, layout)]
    for key in sorted(entry.required):
        src = _source(kind, layout, entry.required - {key})
        with pytest.raises(ConfigError, match=f"s\\.{key}: is required for kind '{kind}' with layout '{layout}'"):
            config_module._check_source("s", kind, src, ".")


@pytest.mark.parametrize(("kind", "layout"), list(LAYOUTS))
def test_keys_of_other_layouts_are_refused(kind, layout):
    entry = LAYOUTS[(kind, layout)]
    for key in sorted(COLUMN_KEYS - entry.allowed):
        src = _source(kind, layout, entry.required | {key})
        with pytest.raises(ConfigError, match=f"s\\.{key}: is not used for kind '{kind}' with layout '{layout}'"):
            config_module._check_source("s", kind, src, ".")


def test_a_layout_a_kind_does_not_have():
    src = _source("means", "long", ["words", "mean"])
    with pytest.raises(ConfigError, match="layout 'long' is not possible for kind 'means' \\(use wide\\)"):
        config_module._check_source("s", "means", src, ".")


def test_the_schema_takes_kinds_and_layouts_from_the_registry():
    raw = yaml.safe_load(open(SCHEMA_PATH, encoding="utf-8"))["$defs"]
    assert "enum" not in raw["dataset"]["properties"]["kind"] and "enum" not in raw["source"]["properties"]["layout"]
    defs = load_schema()["$defs"]
    assert defs["dataset"]["properties"]["kind"]["enum"] == ["ratings", "rankings", "contexts", "means", "comparisons"]
    assert defs["source"]["properties"]["layout"]["enum"] == ["wide", "long", "ragged"]
    assert list(KINDS) == defs["dataset"]["properties"]["kind"]["enum"]
    assert list(LAYOUT_NAMES) == defs["source"]["properties"]["layout"]["enum"]
    # every column key a layout reads is a key the schema knows
    assert COLUMN_KEYS <= set(defs["source"]["properties"])
