"""The layout registry: the config checks and the schema's kind and layout values derive from it."""

from __future__ import annotations

import pytest
import yaml

from simgold.errors import ConfigError
from simgold.io.config import resolve_dataset
from simgold.io.layouts import COLUMN_KEYS, KINDS, LAYOUT_NAMES, LAYOUTS
from simgold.io.rawformats import RAW_FORMATS, table_formats
from simgold.io.schema import SCHEMA_PATH, load_schema
from simgold.io.sourcechecks import check_source


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
            check_source("s", kind, src, ".")


@pytest.mark.parametrize(("kind", "layout"), list(LAYOUTS))
def test_keys_of_other_layouts_are_refused(kind, layout):
    entry = LAYOUTS[(kind, layout)]
    for key in sorted(COLUMN_KEYS - entry.allowed):
        src = _source(kind, layout, entry.required | {key})
        with pytest.raises(ConfigError, match=f"s\\.{key}: is not used for kind '{kind}' with layout '{layout}'"):
            check_source("s", kind, src, ".")


def test_a_layout_a_kind_does_not_have():
    src = _source("means", "long", ["words", "mean"])
    with pytest.raises(ConfigError, match="layout 'long' is not possible for kind 'means' \\(use wide\\)"):
        check_source("s", "means", src, ".")


def test_the_schema_takes_kinds_and_layouts_from_the_registry():
    raw = yaml.safe_load(open(SCHEMA_PATH, encoding="utf-8"))["$defs"]
    assert "enum" not in raw["dataset"]["properties"]["kind"] and "enum" not in raw["source"]["properties"]["layout"]
    defs = load_schema()["$defs"]
    assert defs["dataset"]["properties"]["kind"]["enum"] == ["ratings", "rankings", "contexts", "means", "bws", "comparisons"]
    assert defs["source"]["properties"]["layout"]["enum"] == ["wide", "long", "ragged"]
    assert list(KINDS) == defs["dataset"]["properties"]["kind"]["enum"]
    assert list(LAYOUT_NAMES) == defs["source"]["properties"]["layout"]["enum"]
    # every column key a layout reads is a key the schema knows
    assert COLUMN_KEYS <= set(defs["source"]["properties"])


def test_the_schema_takes_raw_file_formats_from_the_registry():
    raw = yaml.safe_load(open(SCHEMA_PATH, encoding="utf-8"))["$defs"]
    assert "enum" not in raw["source"]["properties"]["format"] and "enum" not in raw["reader"]["properties"]["format"]
    defs = load_schema()["$defs"]
    assert defs["source"]["properties"]["format"]["enum"] == ["auto", *RAW_FORMATS] == ["auto", "text", "xlsx", "ods", "json", "ag"]
    # a translation table or a frequency list is a table: not the ag files a comparisons dataset reads whole
    assert defs["reader"]["properties"]["format"]["enum"] == ["auto", *table_formats()] == ["auto", "text", "xlsx", "ods", "json"]
    assert [name for name, entry in RAW_FORMATS.items() if entry.reader is None] == ["ag"]


@pytest.mark.parametrize(
    "keys,message",
    [
        ({"words": ["w1", "w1"], "raters": "^r"}, "column 'w1' has two roles: words[0] and words[1]"),
        ({"words": ["w1", "r1"], "raters": "^r"}, "column 'r1' has two roles: words[1] and rater 'r1'"),
    ],
)
def test_the_reader_refuses_a_column_in_two_roles(keys, message):
    """What the config check cannot see without a header (a spreadsheet), the reader checks on the sheet."""
    from simgold.errors import InputError
    from simgold.io.layouts import source_plan
    from simgold.io.rawtable import RawTable

    table = RawTable(files=["s.xlsx"], header=["w1", "w2", "r1", "r2"], rows=[["a", "b", 1, 2]], lines=[[2]],
                     origin=[(0, j) for j in range(1, 5)])  # fmt: skip
    src = resolve_dataset({"language": "en", "kind": "ratings", "scale": [0, 6], "sources": [{"path": "s.xlsx", **keys}]})
    with pytest.raises(InputError, match=message.replace("[", r"\[").replace("]", r"\]")):
        source_plan(table, src["sources"][0], "ratings")
