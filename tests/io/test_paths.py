"""The table of result paths (simgold.io.paths): its examples, and that it is the one source of the
workflow's result files (every file a run of the default config makes is an instance of exactly one
pattern, every pattern is made, and no rule file writes a result path out by hand)."""

from __future__ import annotations

import re

import pytest

from simgold.io.paths import RESULTS, result, within_results
from simgold.workflow.routing import all_targets, stages

from ..conftest import ROOT


#: a dataset's or model's name as the config schema allows it (no underscore: a dataset is never
#: "model_meta", so json/{model}/model_meta.json and json/{model}/{dataset}.json do not meet)
NAME = "[a-z0-9]+(?:-[a-z0-9]+)*"


def _regex(pattern: str) -> re.Pattern:
    """A pattern as a regex: {dataset} and {model} a name the config allows, each other {field} one
    path component or part of one; a field named twice has the same value both times, as a
    Snakemake wildcard does (results/release/{dataset}/{dataset}.parquet)."""
    seen: set[str] = set()

    def field(match: re.Match) -> str:
        name = match.group(1)
        if name in seen:
            return f"(?P={name})"
        seen.add(name)
        return f"(?P<{name}>{NAME if name in ('dataset', 'model') else '[^/]+'})"

    return re.compile(re.sub(r"\\\{(\w+)\\\}", field, re.escape(pattern)) + "$")


def test_result_fills_every_field_and_refuses_a_missing_one():
    assert (
        result("scores_json", dataset="ws353", model="minilm")
        == "results/scores/json/simgold__minilm/no_revision_available/ws353.json"
    )
    assert within_results("clean", dataset="demo-da", table="rejects") == "clean/demo-da/rejects.parquet"
    with pytest.raises(KeyError):
        result("clean", dataset="demo-da")  # no table
    with pytest.raises(KeyError):
        result("no-such-result")


def test_every_target_is_one_pattern_and_every_pattern_a_target(default_config):
    config = default_config
    targets = all_targets(stages(config))
    regexes = {name: _regex(pattern) for name, pattern in RESULTS.items()}
    matched = {path: [name for name, rx in regexes.items() if rx.match(path)] for path in targets}
    assert {path: names for path, names in matched.items() if len(names) != 1} == {}
    # the archive is made by `snakemake archive` alone
    assert {names[0] for names in matched.values()} == set(RESULTS) - {"archive"}


def test_no_rule_file_writes_a_result_path_by_hand():
    rules = sorted((ROOT / "workflow" / "rules").glob("*.smk"))
    assert rules
    assert [f.name for f in rules if "results/" in f.read_text(encoding="utf-8")] == []
