"""The project installs as documented: dependencies agree, the README's commands are what CI runs."""

from __future__ import annotations

import re
import tomllib

import yaml

from .conftest import ROOT


def _requirement(spec: str) -> tuple[str, str]:
    name = re.match(r"[A-Za-z0-9_.\-]+", spec).group(0)
    return name.lower().replace("_", "-"), spec[len(name) :].replace(" ", "")


def test_environment_yml_matches_pyproject():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    pip = dict(_requirement(s) for s in pyproject["project"]["dependencies"])
    env = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    specs = [s for s in env["dependencies"] if isinstance(s, str)]
    specs += [s for d in env["dependencies"] if isinstance(d, dict) for s in d.get("pip", [])]  # PyPI-only packages
    conda = dict(_requirement(s) for s in specs)
    python = conda.pop("python")
    conda.pop("pip")
    assert conda == pip
    assert python.lstrip("=") == pyproject["project"]["requires-python"].lstrip(">=")


def test_readme_starts_with_the_two_commands_and_ci_runs_the_test_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```bash\n(.*?)\n```", readme, flags=re.S)
    run, test = blocks[0].strip(), blocks[1].strip()
    assert run.endswith("snakemake --cores 8") and "pip install -e ." in run
    assert test.endswith("pytest") and 'pip install -e ".[test]"' in test
    first_section = readme.split("## ")[0]
    assert run in first_section and test in first_section
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert test in ci.splitlines()
    assert "SIMGOLD_REQUIRE_SHARED=1" in ci


def test_results_are_not_committed_and_scripts_link_to_the_library():
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8").split()
    assert "results/" in ignored and "logs/" in ignored
    link = ROOT / "workflow" / "scripts" / "simgold"
    assert link.is_symlink() and link.resolve() == (ROOT / "src" / "simgold").resolve()


def test_every_rule_declares_log_threads_resources_and_conda():
    for smk in sorted((ROOT / "workflow" / "rules").glob("*.smk")):
        text = smk.read_text(encoding="utf-8")
        for rule in re.split(r"\n(?=rule )", text)[1:]:
            name = rule.split(":")[0]
            for directive in ("log:", "threads:", "resources:", "mem_mb=", "runtime=", "conda:"):
                assert directive in rule, f"{smk.name}: {name} lacks {directive}"
