"""The extension points are registries (a dict of entries) whose docstrings show, as doctests run
here, how to add an entry; a new alpha level and a new score metric reach their tables with no
other edit; the notebook API's docstring examples run."""

from __future__ import annotations

import doctest
import importlib
import inspect
from collections.abc import Mapping

import krippendorff
import numpy as np
import pandas as pd
import pytest
from scipy.stats import pearsonr

from simgold.io.tables import to_arrow
from simgold.stages.agreement import alpha_levels
from simgold.stages.scores import METRICS, Metric, ScoringSettings, pearson, pearson_resamples, score_dataset
from simgold.stages.vectors import Vectors
from simgold.stages.agreement import alpha_table
from simgold.stats.alpha import ALPHA_LEVELS, LEVELS, AlphaLevel

# registry -> the module that holds it, and the object whose docstring shows how to add an entry
# (a documented dict subclass, or the module docstring)
REGISTRIES = {
    "AGREEMENT_STATISTICS": ("simgold.stats.agreement_statistics", "AgreementStatistics"),
    "ALPHA_LEVELS": ("simgold.stats.alpha", "AlphaLevels"),
    "FIGURES": ("simgold.report.figures", "Figures"),
    "RESULTS": ("simgold.io.paths", None),
    "LAYOUTS": ("simgold.io.layouts", None),
    "FORMATS": ("simgold.io.models", None),
    "RAW_FORMATS": ("simgold.io.rawformats", None),
    "PACKAGES": ("simgold.io.models", None),
    "METRICS": ("simgold.stages.scores", "Metrics"),
}
DOCTEST_MODULES = sorted({module for module, _ in REGISTRIES.values()} | {"simgold.api"})


@pytest.mark.parametrize("name", sorted(REGISTRIES))
def test_every_registry_documents_adding_an_entry(name):
    module_name, holder = REGISTRIES[name]
    module = importlib.import_module(module_name)
    registry = getattr(module, name)
    doc = inspect.getdoc(getattr(module, holder) if holder else module)
    assert isinstance(registry, Mapping), name
    if holder:
        assert type(registry).__name__ == holder  # the registry is the documented dict subclass
    assert "Examples\n--------" in doc, name
    # the example adds an entry (or, for the read-only RESULTS, a copy with one more)
    assert f"{name}[" in doc or f"**{name}" in doc, name


def test_registry_examples_leave_the_registries_as_they_were():
    before = {name: list(getattr(importlib.import_module(m), name)) for name, (m, _) in REGISTRIES.items()}
    for module_name in DOCTEST_MODULES:
        doctest.testmod(importlib.import_module(module_name))
    after = {name: list(getattr(importlib.import_module(m), name)) for name, (m, _) in REGISTRIES.items()}
    assert after == before


# -------------------------------------------------------------------------------- a new alpha level


def _absolute(codes, v, m):
    """delta = |c - k|, by visiting every pair of values (a toy level, fine for small data)."""
    d = np.abs(v[:, None] - v[None, :])
    same_unit = codes[:, None] == codes[None, :]
    return float(((d * same_unit).sum(axis=1) / (m[codes] - 1)).sum()), float(d.sum()) / (len(v) - 1)


def _krippendorff_package(ratings: pd.DataFrame, level: str) -> float:
    wide = ratings.pivot(index="rater", columns="item_id", values="score")
    return krippendorff.alpha(reliability_data=wide.to_numpy(float), level_of_measurement=level)


def test_a_new_alpha_level_reaches_the_alpha_table_with_no_other_edit(monkeypatch):
    monkeypatch.setitem(ALPHA_LEVELS, "absolute", AlphaLevel(_absolute, "|c - k|"))
    # units {1, 1}, {2, 3}, {3, 3}: D_o = 2 |2 - 3| / (2 - 1) = 2; D_e = 2 (2 x 1 + 6 x 2 + 3 x 1) / 5
    items = pd.DataFrame({"item_id": ["a", "b", "c"], "pos": ["N", "N", "V"]})
    ratings = pd.DataFrame(
        {"item_id": ["a", "a", "b", "b", "c", "c"], "rater": [1, 2] * 3, "score": [1.0, 1, 2, 3, 3, 3]}
    )
    table = alpha_levels("toy", items, {"raw": ratings}, ["pos"])
    assert table["level"].tolist() == [*LEVELS, "absolute"] * 3
    assert table["subset"].unique().tolist() == ["all", "pos=N", "pos=V"]
    absolute = table[table["level"] == "absolute"].set_index("subset")["alpha"]
    assert np.isnan(absolute["pos=V"])  # one unit {3, 3}: no expected disagreement
    assert absolute["all"] == pytest.approx(1 - 2 / 6.8, abs=1e-15)
    # pos=N: units {1, 1}, {2, 3}: D_o = 2, D_e = 2 (2 x 1 + 2 x 2 + 1 x 1) / 3
    assert absolute["pos=N"] == pytest.approx(1 - 2 / (14 / 3), abs=1e-15)
    # the four levels as before, and the canonical table takes the new rows
    for level in LEVELS:
        row = table[(table["level"] == level) & (table["subset"] == "all")].iloc[0]
        assert row["alpha"] == pytest.approx(_krippendorff_package(ratings, level), abs=1e-12)
    assert to_arrow(table, "alpha").column("level").to_pylist() == table["level"].tolist()


def test_the_toy_level_equals_the_package_where_it_is_a_known_metric(monkeypatch):
    """On 0/1 scores |c - k| = (c - k)^2 = [c != k]: the toy level is interval and nominal alpha,
    which the krippendorff package computes independently."""
    monkeypatch.setitem(ALPHA_LEVELS, "absolute", AlphaLevel(_absolute, "|c - k|"))
    rng = np.random.default_rng(7)
    X = (rng.random((6, 40)) < 0.4).astype(float)
    X[rng.random(X.shape) < 0.2] = np.nan
    ratings = pd.DataFrame(
        {"rater": np.repeat(np.arange(6), 40), "item_id": np.tile(np.arange(40), 6), "score": X.ravel()}
    ).dropna()
    alpha = alpha_table(ratings).set_index("level")["alpha"]
    expected = krippendorff.alpha(reliability_data=X, level_of_measurement="interval")
    assert alpha["absolute"] == pytest.approx(expected, abs=1e-12)
    assert alpha["absolute"] == pytest.approx(alpha["nominal"], abs=1e-12)


# -------------------------------------------------------------------------------- a new score metric


def test_a_new_metric_reaches_the_scores_table_with_no_other_edit(monkeypatch):
    monkeypatch.setitem(
        METRICS,
        "r_squared",
        Metric(lambda g, s: pearson(g, s) ** 2, lambda g, s, idx: pearson_resamples(g, s, idx) ** 2),
    )
    rng = np.random.default_rng(3)
    words = [f"w{k}" for k in range(12)]
    vectors = pd.DataFrame(
        {"word": words, "vector": list(rng.normal(size=(12, 5))), "source": "vocab", "line": range(1, 13)}
    )
    pairs = pd.DataFrame({"item_id": [f"i{k}" for k in range(11)], "word1": words[:11], "word2": words[1:]})
    gold = pd.DataFrame({"item_id": pairs["item_id"], "mean": rng.uniform(0, 10, 11)})
    pred, scores = score_dataset(
        "toy",
        "m",
        "means",
        pairs,
        Vectors(vectors, False, "skip"),
        gold=gold,
        scoring=ScoringSettings(resamples=200, seed=1, confidence=0.95),
    )
    assert scores["metric"].tolist()[:4] == ["spearman", "pearson", "kendall", "r_squared"]
    row = scores.set_index("metric").loc["r_squared"]
    assert row["value"] == pytest.approx(pearsonr(gold["mean"], pred["sim"]).statistic ** 2, abs=1e-12)
    assert row["ci_low"] <= row["value"] <= row["ci_high"] and row["n_used"] == 11
    assert "r_squared" in to_arrow(scores, "scores").column("metric").to_pylist()
