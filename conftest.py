"""The examples in the library's docstrings are tests (``--doctest-modules`` over ``src/simgold``,
set in pyproject.toml). A module whose examples need an optional package skips them, with the
reason, where that package is not installed (the core install has no Snakemake, numba or gensim)."""

from __future__ import annotations

import importlib.util

import pytest

#: module -> the optional package its examples run
OPTIONAL = {
    "simgold.report.figures": "matplotlib",
    "simgold.stats.noise_kernel": "numba",
    "simgold.io.minilm": "tokenizers",
    "simgold.workflow.routing": "snakemake",
}


def pytest_collection_modifyitems(items):
    for item in items:
        if isinstance(item, pytest.DoctestItem):
            module = item.name.rsplit(".", 1)[0] if item.dtest is None else item.dtest.globs.get("__name__", "")
            needed = OPTIONAL.get(module)
            if needed and importlib.util.find_spec(needed) is None:
                item.add_marker(pytest.mark.skip(reason=f"{module}'s examples need {needed} (not installed)"))
