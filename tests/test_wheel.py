"""The installed package, as a wheel gives it: built from the checkout, installed in a new virtual
environment, and run outside the checkout (``simgold demo`` needs nothing but the package).

Offline: the wheel is built with this environment's setuptools (``--no-build-isolation``) and
installed without its dependencies (``--no-deps``); the environment sees this one's packages through
links (tests/userpath.py), never this checkout's ``src``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from .conftest import ROOT
from .userpath import fresh_copy, seed_environment

DEMO = ROOT / "raw" / "demo"


def _run(command: list, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(c) for c in command], cwd=cwd, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, f"{' '.join(map(str, command))} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def test_simgold_demo_runs_from_an_installed_wheel(tmp_path):
    # the build writes build/ and an egg-info beside the sources: in a copy, not in this checkout
    source = fresh_copy(tmp_path / "source")
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-cache-dir"]
    _run([*pip, "wheel", "--no-build-isolation", "--no-deps", "--no-index", "-w", tmp_path / "dist", source], tmp_path)
    (wheel,) = (tmp_path / "dist").glob("simgold-*.whl")

    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", venv], tmp_path)
    seed_environment(venv)  # the dependencies, linked from this environment (no download)
    python = venv / "bin" / "python"
    _run([*pip, "--python", python, "install", "--no-deps", "--no-index", wheel], tmp_path)

    # nothing points back at this checkout: no PYTHONPATH, a working directory outside it
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    where = _run([python, "-c", "import simgold, simgold.io.demo as d; print(simgold.__file__); print(d.__file__)"],
                 elsewhere, env).stdout.split()  # fmt: skip
    assert all(Path(p).resolve().is_relative_to(venv.resolve()) for p in where), where
    assert not any(Path(p).resolve().is_relative_to(ROOT) for p in where), where

    proc = _run([venv / "bin" / "simgold", "demo", "out"], elsewhere, env)
    written = sorted(p.relative_to(elsewhere / "out").as_posix() for p in (elsewhere / "out").rglob("*") if p.is_file())
    shipped = sorted(p.relative_to(DEMO).as_posix() for p in DEMO.rglob("*") if p.is_file())
    assert written == shipped and len(shipped) == 6
    assert len(proc.stdout.splitlines()) == 6
    for rel in shipped:
        assert (elsewhere / "out" / rel).read_bytes() == (DEMO / rel).read_bytes(), rel
