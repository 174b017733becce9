"""Which datasets go through which stage, for the default config (its datasets listed by hand)."""

from __future__ import annotations

import copy

from simgold.config import check_config, load_config
from simgold.stages import stages

from .conftest import ROOT

EN = ["demo-en-context", "simlex999", "ws353"]
ALL = ["demo-da", "demo-de", "demo-en-context", "demo-he-rank", "demo-hr", "simlex999", "ws353"]


def _config():
    return check_config(load_config(ROOT / "config" / "config.yaml"), base_dir=ROOT)


def test_the_default_configs_stages():
    s = stages(_config())
    assert s.datasets == ALL and s.models == ["e5-small", "glove-6b-50d", "minilm"]
    assert s.cleaned == ALL  # no ag-evaluation files
    assert s.rated == ["demo-da", "demo-de", "demo-en-context", "demo-hr"]  # the contexts sheet has raters
    assert s.ranked == ["demo-he-rank"] and s.context == ["demo-en-context"]
    assert s.compared == ["demo-da", "demo-de", "demo-he-rank", "demo-hr"]  # ratings of persistent raters, rankings
    assert s.translated == ["demo-hr"] and s.groups == {"demo-da": ["demo-hr"]}
    assert s.model_datasets["glove-6b-50d"] == EN == s.model_datasets["minilm"]
    assert s.model_datasets["e5-small"] == ALL  # da, hr, de, en, he
    assert len(s.scored) == 7 + 3 + 3 and s.scored_by["ws353"] == ["e5-small", "glove-6b-50d", "minilm"]
    assert s.scored_by["demo-da"] == ["e5-small"]
    assert s.gold_scored == set(ALL) - {"demo-he-rank"}
    assert s.cosimlex == [("demo-en-context", m) for m in ("e5-small", "glove-6b-50d", "minilm")]
    # noise: models: [glove-6b-50d]; every dataset with a gold standard that glove scores
    assert s.noised == [("demo-en-context", "glove-6b-50d"), ("simlex999", "glove-6b-50d"), ("ws353", "glove-6b-50d")]


def test_the_noise_block_restricts_datasets_and_models():
    raw = load_config(ROOT / "config" / "config.yaml")
    raw = copy.deepcopy(raw)
    raw["noise"] = {"datasets": ["ws353"]}  # every model, one dataset
    s = stages(check_config(raw, base_dir=ROOT))
    assert s.noised == [("ws353", "e5-small"), ("ws353", "glove-6b-50d"), ("ws353", "minilm")]
