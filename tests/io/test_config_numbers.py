"""Every number in the config is finite, every name pattern matches the whole value (issue 41).

YAML's ``.nan`` compares false with both ends of a bound, and JSON Schema's ``pattern`` searches
with Python's ``re``, whose ``$`` also matches before a final line feed. The tests walk the schema
(``load_schema``): each number, each pattern-constrained string and each name of a mapping gets a
minimal config of its own, first with a valid value (it must pass, or the test proves nothing),
then with NaN, the infinities and a trailing line feed, which must be refused naming the key. A key
added to the schema later is walked the same way."""

from __future__ import annotations

import copy
import math

import pandas as pd
import pytest
import yaml

from simgold.errors import ConfigError, DataError
from simgold.io.cardtext import check_url
from simgold.io.config import check_config, load_config, validate_schema
from simgold.io.schema import key_path, load_schema
from simgold.stages.clean import check_rejected

from .test_config import check, fails

SCHEMA = load_schema()


@pytest.fixture
def project(tmp_path):
    """A small project: (its directory, a valid config of one dataset, dsd-da)."""
    (tmp_path / "da.tsv").write_text("word1\tword2\tr1\nhund\tkat\t3\n", encoding="utf-8")
    source = {"path": "da.tsv", "words": ["word1", "word2"], "raters": "^r\\d+$"}
    return tmp_path, {
        "datasets": {"dsd-da": {"language": "da", "kind": "ratings", "scale": [0, 6], "sources": [source]}}
    }


#: a valid value of each pattern of the schema (a pattern added without one fails test_the_walk_finds_the_keys)
EXAMPLES = {
    r"^[a-z0-9]+(-[a-z0-9]+)*$(?!\n)": "ok-name",
    r"^[A-Za-z0-9][A-Za-z0-9._-]*$(?!\n)": "paper.v2",
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$(?!\n)": "2026-01-01",
    r"^https?://[^\s]+$(?!\n)": "https://example.org/licence",
    r"^[a-z][a-z0-9_]*$(?!\n)": "pos_tag",
    r"^[a-z]{2}$(?!\n)": "da",
    r"^[0-9A-Za-z][0-9A-Za-z.+-]*$(?!\n)": "1.0.0",
    r"^\s*@[A-Za-z]+\s*[{(]": "@misc{x, title={X}}",
    r"^https?://": "https://example.org",
}
#: patterns that check how a value begins, not the whole of it, and why a trailing line feed is right
OPEN_ENDED = {
    r"^\s*@[A-Za-z]+\s*[{(]": "a BibTeX entry: written as a YAML block it ends in a line feed",
    r"^https?://": "a URL: cardtext.check_url reads the whole of it and refuses any white space",
}


def example(pattern: str) -> str:
    """A valid value of the pattern (a pattern without one fails test_the_walk_finds_the_keys)."""
    return EXAMPLES.get(pattern, f"no example for {pattern}")


def resolve(node: dict) -> dict:
    """A schema node with its ``$ref`` merged in (properties and required keys of both)."""
    if "$ref" not in node:
        return node
    target = SCHEMA
    for part in node["$ref"].removeprefix("#/").split("/"):
        target = target[part]
    target = resolve(target)
    merged = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
    merged["properties"] = {**target.get("properties", {}), **node.get("properties", {})}
    merged["required"] = [*target.get("required", []), *node.get("required", [])]
    return merged


def types(node: dict) -> list:
    given = node.get("type", [])
    return given if isinstance(given, list) else [given]


def name_of(node: dict) -> str:
    """A valid name for a key of this mapping."""
    return example(node["propertyNames"]["pattern"]) if "propertyNames" in node else "x"


def minimal(node: dict):
    """The smallest valid instance of a schema node (its required keys and items only)."""
    node = resolve(node)
    if "const" in node or "enum" in node:
        return node["const"] if "const" in node else node["enum"][0]
    if "oneOf" in node or "anyOf" in node:
        return minimal((node.get("oneOf") or node["anyOf"])[0])
    kind = types(node)[0]
    if kind == "object":
        out = {key: minimal(node["properties"][key]) for key in node.get("required", [])}
        if node.get("minProperties") and isinstance(node.get("additionalProperties"), dict):
            out[name_of(node)] = minimal(node["additionalProperties"])
        return out
    if kind == "array":
        return [minimal(node["items"]) for _ in range(node.get("minItems", 0))]
    if kind == "string":
        return example(node["pattern"]) if "pattern" in node else "x" * node.get("minLength", 1)
    return {"integer": node.get("minimum", 1), "number": node.get("minimum", 1), "boolean": False}[kind]


def build(node: dict, steps: tuple, leaf):
    """A minimal instance of ``node`` that follows ``steps`` to ``leaf(node at the end)``."""
    node = resolve(node)
    if not steps:
        return leaf(node)
    (step, arg), rest = steps[0], steps[1:]
    if step == "alt":
        return build((node.get("oneOf") or node["anyOf"])[arg], rest, leaf)
    if step == "item":
        return [build(node["items"], rest, leaf)] + [minimal(node["items"]) for _ in range(node.get("minItems", 1) - 1)]
    out = {key: value for key, value in minimal(node).items() if step == "key" or key != name_of(node)}
    if step == "key":
        out[arg] = build(node["properties"][arg], rest, leaf)
    else:
        out[name_of(node)] = build(node["additionalProperties"], rest, leaf)
    return out


def walk(node: dict, steps: tuple = (), refs: frozenset = frozenset()):
    """(what, steps, node) for every number, pattern-constrained string and name of a mapping."""
    if node.get("$ref") in refs:
        return
    refs = refs | {node["$ref"]} if "$ref" in node else refs
    node = resolve(node)
    if {"number", "integer"} & set(types(node)):
        yield "number", steps, node
    if "string" in types(node) and "pattern" in node:
        yield "pattern", steps, node
    if "pattern" in node.get("propertyNames", {}):
        yield "name", steps, node
    for i, alternative in enumerate(node.get("oneOf") or node.get("anyOf") or []):
        yield from walk(alternative, (*steps, ("alt", i)), refs)
    for key, child in node.get("properties", {}).items():
        yield from walk(child, (*steps, ("key", key)), refs)
    if isinstance(node.get("additionalProperties"), dict):
        yield from walk(node["additionalProperties"], (*steps, ("name", None)), refs)
    if isinstance(node.get("items"), dict):
        yield from walk(node["items"], (*steps, ("item", None)), refs)


def locate(steps: tuple) -> tuple[str, dict]:
    """The key path an error names for the value at the end of ``steps``, and its schema node."""
    parts, node = [], SCHEMA
    for step, arg in steps:
        node = resolve(node)
        if step == "alt":
            node = (node.get("oneOf") or node["anyOf"])[arg]
        elif step == "item":
            parts, node = [*parts, 0], node["items"]
        elif step == "key":
            parts, node = [*parts, arg], node["properties"][arg]
        else:
            parts, node = [*parts, name_of(node)], node["additionalProperties"]
    return key_path(parts), resolve(node)


def where(steps: tuple) -> str:
    return locate(steps)[0]


SLOTS = list(walk(SCHEMA))
NUMBERS = {
    where(steps) + "".join(f"<{a}>" for s, a in steps if s == "alt"): steps for w, steps, _ in SLOTS if w == "number"
}
PATTERNS = [(steps, node["pattern"]) for w, steps, node in SLOTS if w == "pattern"]
NAMES = [steps for w, steps, _ in SLOTS if w == "name"]


def refused(config: dict) -> str:
    with pytest.raises(ConfigError) as err:
        validate_schema(config)
    return str(err.value)


def test_the_walk_finds_the_keys():
    # every number of the schema, each column that a position may give counted: a walk that lost its way finds few
    assert len(NUMBERS) > 60, sorted(NUMBERS)
    for key in (
        "datasets.ok-name.max_rejected",
        "scoring.confidence",
        "datasets.ok-name.gold.bin_width",
        "datasets.ok-name.scale[0]",
        "datasets.ok-name.attention.items[0].expect",
        "noise.levels.step",
        "datasets.ok-name.sources[0].raters.from<2>",
        "datasets.ok-name.agreement.ci_min_resamples",
    ):
        assert key in NUMBERS, key
    assert {where(steps) for steps, _ in PATTERNS} >= {
        "archive.name",
        "archive.date",
        "datasets.ok-name.language",
        "models.ok-name.language[0]",
        "datasets.ok-name.translation_of",
    }
    assert {where(steps) for steps in NAMES} == {
        "datasets",
        "models",
        "datasets.ok-name.sources[0].attributes",
        "datasets.ok-name.sources[0].contexts[0].attributes",
    }
    names = {locate(steps)[1]["propertyNames"]["pattern"] for steps in NAMES}
    assert set(EXAMPLES) == {pattern for _, pattern in PATTERNS} | names  # no example without its pattern


@pytest.mark.parametrize("key", sorted(NUMBERS))
def test_no_number_takes_nan_or_an_infinity(key):
    steps, valid = NUMBERS[key], None
    path = key.split("<")[0]
    node = locate(steps)[1]
    for candidate in (node.get("default"), node.get("minimum"), 1, 0.5, 0):  # the first its bounds allow
        if candidate is None:
            continue
        config = build(SCHEMA, steps, lambda node, v=candidate: v)
        try:
            validate_schema(config)
        except ConfigError:
            continue
        valid = candidate
        break
    assert valid is not None, f"no valid number for {key}: the walk's config is wrong"
    for value, text in ((math.nan, ".nan"), (math.inf, ".inf"), (-math.inf, "-.inf")):
        assert refused(build(SCHEMA, steps, lambda node, v=value: v)) == f"config {path}: {text} is not a finite number"


@pytest.mark.parametrize("steps, pattern", PATTERNS, ids=[where(steps) for steps, _ in PATTERNS])
def test_a_pattern_matches_the_whole_value(steps, pattern):
    good = example(pattern)
    validate_schema(build(SCHEMA, steps, lambda node: good))
    if pattern in OPEN_ENDED:
        validate_schema(build(SCHEMA, steps, lambda node: good + "\n"))
        if pattern.startswith("^https"):
            with pytest.raises(ConfigError, match="it holds U[+]000A"):
                check_url(where(steps), good + "\n")
        return
    for bad in (good + "\n", good + "\n\n", "\n" + good):
        message = refused(build(SCHEMA, steps, lambda node, v=bad: v))
        assert message.startswith(f"config {where(steps)}: {bad!r}"), message


@pytest.mark.parametrize("steps", NAMES, ids=[where(steps) for steps in NAMES])
def test_a_name_matches_the_whole_value(steps):
    good = name_of(locate(steps)[1])

    def mapping(name):
        return lambda node: {name: minimal(node["additionalProperties"])}

    validate_schema(build(SCHEMA, steps, mapping(good)))
    for bad in (good + "\n", good + "\n\n"):
        message = refused(build(SCHEMA, steps, mapping(bad)))
        assert message.startswith(f"config {where(steps)}: {bad!r} does not match"), message


@pytest.mark.parametrize(
    "edit, where, text",
    [  # the three: the stop turned off, the score job and the gold job killed
        (lambda c: c["datasets"]["dsd-da"].update(max_rejected=math.nan), "datasets.dsd-da.max_rejected", ".nan"),
        (lambda c: c.update(scoring={"confidence": math.nan}), "scoring.confidence", ".nan"),
        (
            lambda c: c["datasets"]["dsd-da"].update(gold={"bin_width": math.nan}),
            "datasets.dsd-da.gold.bin_width",
            ".nan",
        ),
        (lambda c: c["datasets"]["dsd-da"].update(min_answered=math.inf), "datasets.dsd-da.min_answered", ".inf"),
        (lambda c: c["datasets"]["dsd-da"].update(scale=[0, math.inf]), "datasets.dsd-da.scale[1]", ".inf"),
        (lambda c: c.update(noise={"levels": {"start": -math.inf}}), "noise.levels.start", "-.inf"),
    ],
)
def test_the_whole_check_refuses_nan_from_a_yaml_file(project, edit, where, text):
    tmp_path, config = project
    config = copy.deepcopy(config)
    edit(config)
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")  # .nan, .inf, -.inf
    with pytest.raises(ConfigError) as err:
        check_config(load_config(tmp_path / "config.yaml"), base_dir=tmp_path)
    assert str(err.value) == f"config {where}: {text} is not a finite number"


def test_every_yaml_spelling_of_nan_and_infinity(project):
    tmp_path, config = project
    for spelling, text in ((".NaN", ".nan"), (".NAN", ".nan"), ("+.inf", ".inf"), (".Inf", ".inf"), ("-.INF", "-.inf")):
        path = tmp_path / "config.yaml"
        path.write_text(yaml.safe_dump(config) + f"scoring: {{msd_min_coverage: {spelling}}}\n", encoding="utf-8")
        with pytest.raises(ConfigError) as err:
            check_config(load_config(path), base_dir=tmp_path)
        assert str(err.value) == f"config scoring.msd_min_coverage: {text} is not a finite number"
    # the words are text, not numbers: a string "nan" is no number and not refused as one
    path.write_text(yaml.safe_dump(config) + "scoring: {msd_min_coverage: nan}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="'nan' is not of type 'number'"):
        check_config(load_config(path), base_dir=tmp_path)


def test_booleans_are_not_numbers_and_finite_numbers_pass(project):
    resolved = check(project, lambda c: c.update(scoring={"confidence": 0.9, "seed": 0}))
    assert (resolved["scoring"]["confidence"], resolved["scoring"]["seed"]) == (0.9, 0)
    fails(
        project, lambda c: c.update(scoring={"confidence": True}), "scoring.confidence", "True is not of type 'number'"
    )


@pytest.mark.parametrize(
    "yaml_text, where, key, read",
    [
        ("datasets: {3: {language: da}}", "datasets", "3", "a number"),
        (
            "datasets: {x: {sources: [{rater_names: {yes: ann}}]}}",
            "datasets.x.sources[0].rater_names",
            "True",
            "true or false",
        ),
        ("datasets: {x: {attributes: {null: 1}}}", "datasets.x.attributes", "None", "null"),
        ("datasets: {.nan: {}}", "datasets", "nan", "a number"),
    ],
)
def test_a_key_that_yaml_reads_as_no_text_is_refused(tmp_path, yaml_text, where, key, read):
    (tmp_path / "c.yaml").write_text(yaml_text + "\n", encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        validate_schema(load_config(tmp_path / "c.yaml"))
    assert (
        str(err.value)
        == f"config {where}: the key {key} is not text (YAML read it as {read}; write the name in quotes)"
    )


def test_max_rejected_is_said_with_the_digits_it_has():
    # 2 of 250 values rejected: 0.8%, more than 0.004 (0.4%, not "0%"); 1 of 250 is exactly 0.4%
    summary = pd.Series(
        {"dataset": "d", "n_values_held": 250, "n_values_rejected": 2, "values_rejected": "out_of_scale 2"}
    )
    with pytest.raises(DataError, match=r"\(0\.8%\).*; more than max_rejected 0\.4% of the dataset's values"):
        check_rejected(summary, 0.004, "ledger.tsv")
    with pytest.raises(DataError, match=r"more than max_rejected 0\.125% of"):
        check_rejected(summary, 0.00125, "ledger.tsv")
    check_rejected(pd.Series({**summary, "n_values_rejected": 1}), 0.004, "ledger.tsv")  # not more than 0.4%
