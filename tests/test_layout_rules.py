"""The layout's rules as tests (fitness functions): each fails with the offending name.

Size and complexity (functions, modules, ruff's C901), imports of simgold's own modules inside
functions, private names taken from another module, the README's budget, the layout page that
names every module and registry, measured figures kept out of the code, the public API of each
layer (``__all__``, with numpydoc sections) and no tracked symbolic link.
"""

from __future__ import annotations

import ast
import importlib
import io
import re
import shutil
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "simgold"
SCRIPTS = ROOT / "workflow" / "scripts"
LAYERS = ("stats", "io", "stages", "report", "design", "workflow")

MAX_FUNCTION_LINES = 60
MAX_MODULE_LINES = 800
MAX_COMPLEXITY = 12  # ruff's C901 (mccabe), set in pyproject.toml
MAX_OWN_LAZY_IMPORTS = 10
MAX_README_LINES = 200


def _sources() -> list[Path]:
    """The library and the workflow's scripts (thin: they call the library)."""
    return sorted(PACKAGE.rglob("*.py")) + sorted(SCRIPTS.glob("*.py"))


def _where(path: Path, line: int | None = None) -> str:
    name = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
    return f"{name}" + (f":{line}" if line else "")


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _docstring_lines(node) -> set[int]:
    body = getattr(node, "body", [])
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        if isinstance(body[0].value.value, str):
            return set(range(body[0].lineno, body[0].end_lineno + 1))
    return set()


def function_lines(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Lines of a function from its ``def`` to its end, its docstring left out (the docstrings of
    functions defined inside it too): numpydoc sections and examples never count against it.

    >>> function_lines(ast.parse('def f(x):\\n    \"\"\"Doc.\\n\\n    More.\"\"\"\\n    return x\\n').body[0])
    2
    """
    docstrings = set()
    for node in ast.walk(function):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            docstrings |= _docstring_lines(node)
    return len(set(range(function.lineno, function.end_lineno + 1)) - docstrings)


def test_no_function_over_60_lines():
    seen, long = 0, []
    for path in _sources():
        for node in ast.walk(_tree(path)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                seen += 1
                if (n := function_lines(node)) > MAX_FUNCTION_LINES:
                    long.append(f"{_where(path, node.lineno)} {node.name}: {n} lines")
    assert seen > 300  # the walk reached the functions
    assert long == [], f"functions over {MAX_FUNCTION_LINES} lines of code (docstrings excluded)"


def test_no_module_over_800_lines():
    sizes = {_where(p): len(p.read_text(encoding="utf-8").splitlines()) for p in _sources()}
    assert max(sizes.values()) > 200  # the files were read
    assert {p: n for p, n in sizes.items() if n > MAX_MODULE_LINES} == {}


def test_the_function_rules_count_from_the_source():
    long = "def f():\n" + "    x = 1\n" * 61
    assert function_lines(ast.parse(long).body[0]) == 62
    documented = 'def f():\n    """' + "doc\n" * 100 + '"""\n    return 1\n'
    assert function_lines(ast.parse(documented).body[0]) == 2


def _ruff() -> str:
    found = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    if not Path(found).exists():
        pytest.fail("ruff is not installed: it is in the test extra (pip install -e '.[test]')")
    return found


def test_complexity_at_most_12():
    proc = subprocess.run(
        [_ruff(), "check", "--no-cache", "--select", "C901", "--output-format", "concise", "src", "workflow/scripts"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, "too complex (ruff C901 > 12):\n" + proc.stdout[-4000:] + proc.stderr[-2000:]


def test_the_complexity_check_finds_a_complex_function(tmp_path):
    branches = "".join(f"    if x == {i}:\n        return {i}\n" for i in range(MAX_COMPLEXITY + 1))
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "complex.py").write_text(f"def f(x):\n{branches}    return -1\n", encoding="utf-8")
    proc = subprocess.run(
        [_ruff(), "check", "--no-cache", "--select", "C901", "complex.py"], cwd=tmp_path, capture_output=True, text=True
    )
    assert proc.returncode == 1 and "`f` is too complex (14 > 12)" in proc.stdout


def _own(name: str) -> bool:
    return name == "simgold" or name.startswith("simgold.")


def own_lazy_imports(path: Path) -> list[tuple[int, str]]:
    """simgold's own modules loaded inside a function: an import statement, ``importlib.import_module``,
    ``__import__``, and a module-level ``__getattr__`` (PEP 562), each as (line, its text)."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    tree = ast.parse(source)
    found = []
    doors = [f for f in tree.body if isinstance(f, ast.FunctionDef) and f.name == "__getattr__"]
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or function in doors:
            continue  # a module's __getattr__ is one door, whatever it imports
        for node in ast.walk(function):
            if isinstance(node, ast.Import) and any(_own(a.name) for a in node.names):
                found.append(node)
            elif isinstance(node, ast.ImportFrom) and (node.level or _own(node.module or "")):
                found.append(node)
            elif isinstance(node, ast.Call):
                callee = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                if callee in ("import_module", "__import__"):
                    found.append(node)
    found += doors
    return [(n.lineno, "\n".join(lines[n.lineno - 1 : n.end_lineno])) for n in sorted(found, key=lambda n: n.lineno)]


def test_few_own_imports_inside_functions_each_with_its_reason():
    every = [(path, line, text) for path in _sources() for line, text in own_lazy_imports(path)]
    silent = [f"{_where(p, line)}: {text.strip()}" for p, line, text in every if "#" not in text.splitlines()[0]]
    assert silent == [], "an import of simgold inside a function without its reason on the line"
    listed = "\n".join(f"{_where(p, line)}: {text.splitlines()[0].strip()}" for p, line, text in every)
    assert len(every) <= MAX_OWN_LAZY_IMPORTS, f"{len(every)} imports of simgold inside functions:\n{listed}"


def test_the_lazy_import_count_sees_every_door(tmp_path):
    module = tmp_path / "m.py"
    module.write_text(
        "import importlib\n"
        "def a():\n    from simgold.io import tables  # why\n"
        "def b():\n    return importlib.import_module('simgold.io.tables')\n"
        "def c():\n    return __import__('simgold')\n"
        "def d():\n    import numpy\n"
        "def __getattr__(name):\n    return name\n",
        encoding="utf-8",
    )
    assert [line for line, _ in own_lazy_imports(module)] == [3, 5, 7, 10]


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _imported_names(tree: ast.Module, module: str):
    """(line, the module a name comes from, the name, what it is called here) of simgold's imports."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = node.module or ""
            if node.level:
                base = module.split(".")[: -node.level]
                source = ".".join(base + ([node.module] if node.module else []))
            if _own(source):
                yield from ((node.lineno, source, a.name, a.asname or a.name) for a in node.names)
        elif isinstance(node, ast.Import):
            for a in node.names:
                if _own(a.name):  # `import simgold.io.paths` binds simgold; `as paths` binds the module
                    yield node.lineno, "", a.name if a.asname else "simgold", a.asname or "simgold"


def private_imports(path: Path, module: str) -> list[str]:
    """``_private`` names one module takes from another of simgold (``from x import _y`` or ``x._y``)."""
    tree = _tree(path)
    aliases, found = {}, []
    for line, source, name, local in _imported_names(tree, module):
        if _private(name):
            found.append(f"{_where(path, line)}: {source}.{name}")
        aliases[local] = f"{source}.{name}" if source else name
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            if _private(node.attr):
                found.append(f"{_where(path, node.lineno)}: {aliases[node.value.id]}.{node.attr}")
    return found


def test_no_module_takes_another_modules_private_name():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        found += private_imports(path, ".".join(parts))
    for path in sorted(SCRIPTS.glob("*.py")):
        found += private_imports(path, f"scripts.{path.stem}")
    for path in sorted((ROOT / "benchmarks").glob("*.py")):
        found += private_imports(path, f"benchmarks.{path.stem}")
    assert found == []


def test_the_private_check_finds_one(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("from simgold.io.tables import _arrow\nfrom simgold.io import paths\npaths._x\n", encoding="utf-8")
    assert [f.split(": ")[1] for f in private_imports(module, "simgold.stages.m")] == [
        "simgold.io.tables._arrow",
        "simgold.io.paths._x",
    ]


def test_the_readme_keeps_its_budget():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_README_LINES, f"README.md has {len(lines)} lines (at most {MAX_README_LINES})"


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def registries() -> dict[str, str]:
    """Every registry of the library: a module-level dict (or dict subclass) named in capitals whose
    entries are objects of a class simgold defines (a format, a layout, a metric, a figure...)."""
    found = {}
    for name, path in _modules().items():
        module = importlib.import_module(name)
        assigned = {  # defined here, not imported
            t.id
            for node in _tree(path).body
            if isinstance(node, (ast.Assign, ast.AnnAssign))
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(t, ast.Name)
        }
        for attr, value in vars(module).items():
            if attr in assigned and attr.isupper() and isinstance(value, dict) and value:
                entries = list(value.values())
                if all(_own(type(e).__module__) and not isinstance(e, type) for e in entries):
                    if not any(isinstance(e, (str, int, float, tuple, list, dict)) for e in entries):
                        found[f"{name}.{attr}"] = attr
    return found


def test_the_layout_page_names_every_module_and_registry():
    page = (ROOT / "docs" / "layout.md").read_text(encoding="utf-8")
    words = set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", page))
    modules = [m for m in _modules() if m.count(".") >= 1]
    missing = [m for m in modules if m.rsplit(".", 1)[1] not in words]
    found = registries()
    assert len(found) >= 5, found  # the search finds the registries (LAYOUTS, FORMATS, METRICS, ...)
    missing += [f"registry {where}" for where, name in found.items() if name not in words]
    assert missing == [], "docs/layout.md does not name these"


#: a measured figure: a number with a unit of time, memory or a ratio (0.15 s, 12 ms, 2 GB, 3.8x)
MEASURED = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?:\s?(?:s|ms|ns|µs|GB|MB)|x)(?![\w-])")


def measured_figures(path: Path) -> list[str]:
    """Measured figures in the comments and docstrings of one file."""
    source = path.read_text(encoding="utf-8")
    texts = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            texts.append((token.start[0], token.string))
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                texts.append((node.body[0].lineno, doc))
    return [f"{_where(path, line)}: {m.group(0)!r}" for line, text in texts for m in MEASURED.finditer(text)]


def test_measured_figures_live_in_the_benchmarks_page():
    found = [f for path in _sources() for f in measured_figures(path)]
    assert found == [], "measured figures in code comments or docstrings (docs/benchmarks.md holds them)"


def test_the_figure_check_finds_figures(tmp_path):
    module = tmp_path / "m.py"
    module.write_text('"""Takes 0.15 s."""\nx = 1  # 12.4x faster, 5.26 GB\ny = "3 s"  # not a comment: 3 x 4\n')
    assert [f.split(": ")[1] for f in measured_figures(module)] == ["'12.4x'", "'5.26 GB'", "'0.15 s'"]


def _public_names(path: Path) -> dict[str, ast.AST]:
    return {
        node.name: node
        for node in _tree(path).body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and not node.name.startswith("_")
    }


def _sections(doc: str) -> set[str]:
    lines = (doc or "").splitlines()
    return {
        lines[i].strip()
        for i in range(len(lines) - 1)
        if lines[i + 1].strip() and set(lines[i + 1].strip()) == {"-"} and len(lines[i + 1].strip()) >= 3
    }


def _returns_value(function) -> bool:
    for node in ast.walk(function):
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return True
        if isinstance(node, ast.Return) and node.value is not None:
            return True
    return False


def numpydoc_gaps(node) -> list[str]:
    """The numpydoc sections a public function or class lacks: ``Parameters`` where it takes any,
    ``Returns`` (or ``Yields``) where it gives a value; a class says its ``Parameters`` or
    ``Attributes``."""
    doc = ast.get_docstring(node) or ""
    sections = _sections(doc)
    if isinstance(node, ast.ClassDef):
        return [] if sections & {"Parameters", "Attributes"} else ["Parameters or Attributes"]
    args = node.args
    named = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs if a.arg not in ("self", "cls")]
    gaps = []
    if (named or args.vararg or args.kwarg) and "Parameters" not in sections:
        gaps.append("Parameters")
    if _returns_value(node) and not sections & {"Returns", "Yields"}:
        gaps.append("Returns")
    return gaps


def test_every_layer_and_module_says_its_public_api():
    problems = []
    for layer in LAYERS:
        init = importlib.import_module(f"simgold.{layer}")
        modules = sorted(p.stem for p in (PACKAGE / layer).glob("*.py") if p.stem != "__init__")
        if sorted(getattr(init, "__all__", [])) != modules:
            problems.append(f"simgold.{layer}.__all__ is not its modules {modules}")
    for name, path in _modules().items():
        if path.name == "__init__.py" or name in ("simgold.cli",):
            continue
        declared = None
        for node in _tree(path).body:
            if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in node.targets):
                declared = ast.literal_eval(node.value)
        if declared is None:
            problems.append(f"{name}: no __all__")
            continue
        public = _public_names(path)
        problems += [f"{name}.{n}: public but not in __all__ (list it or make it private)" for n in public if n not in declared]
        problems += [f"{name}.{n}: in __all__ but not defined" for n in declared if not hasattr(importlib.import_module(name), n)]
        problems += [f"{name}.{n}: numpydoc lacks {g}" for n in declared if n in public for g in numpydoc_gaps(public[n])]
    assert problems == [], "\n".join(problems)


def test_the_numpydoc_check_finds_gaps():
    source = 'def f(x):\n    """Doc."""\n    return x\ndef g(x):\n    """Doc.\n\n    Parameters\n    ----------\n    x : int\n\n    Returns\n    -------\n    int\n    """\n    return x\n'
    tree = ast.parse(source)
    assert [numpydoc_gaps(f) for f in tree.body] == [["Parameters", "Returns"], []]


def test_no_tracked_symbolic_link():
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    listed = subprocess.run(["git", "ls-files", "-s"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert listed.strip()  # git listed the files
    assert [line.split("\t")[1] for line in listed.splitlines() if line.startswith("120000")] == []


#: the tests about the project as a whole, beside the layers' folders
PROJECT_TESTS = {
    "test_api",
    "test_architecture",
    "test_benchmarks",
    "test_cli",
    "test_layout_rules",
    "test_packaging",
    "test_registries",
    "test_wheel",
}


def test_the_tests_are_laid_out_like_the_code():
    tests = ROOT / "tests"
    top = {p.stem for p in tests.glob("test_*.py")}
    assert top == PROJECT_TESTS, "a test file at the top that belongs in its layer's folder (or a project test)"
    folders = {p.parent.name for p in tests.glob("*/test_*.py")}
    assert folders == set(LAYERS), folders
    assert sum(1 for _ in tests.glob("*/test_*.py")) > 40
    assert not list(tests.rglob("**/*/*/test_*.py")), "one folder per layer, no deeper"
    assert sorted(p.name for p in (tests / "configs").glob("*.yaml")), "the workflow tests' configs are files"
