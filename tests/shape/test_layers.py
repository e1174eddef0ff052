"""The packages import one way (docs/architecture.md): oracle <- conformance.generate <- .backends <- .judge
<- .supervise <- .report <- .commands, with no import cycle anywhere, no module over 400 lines and no
function over 60 (its docstring left out).

The imports are read with ast, lazy ones inside functions included: a lazy import upwards is still an
arrow upwards, it only hides it from the interpreter until the day it runs.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ["oracle", "conformance.generate", "conformance.backends", "conformance.judge", "conformance.supervise",
          "conformance.report", "conformance.commands"]
# the two modules of conformance/ itself: the public facade (docs/architecture.md: `from conformance import Backend,
# Rejected, load_backend`) over the backends layer, and `python -m conformance` over the commands
TOP = {"conformance": "conformance.backends", "conformance.__main__": "conformance.commands"}
MAX_LINES = 400
MAX_FUNCTION_LINES = 60


def _modules() -> dict[str, Path]:
    found = {}
    for package in ("oracle", "conformance"):
        for path in sorted((ROOT / package).rglob("*.py")):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


MODULES = _modules()


def _imports(name: str, path: Path) -> dict[str, int]:
    """The kit's modules `name` imports ({module: first line}), relative imports resolved."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: dict[str, int] = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                base = ".".join(parts + ([node.module] if node.module else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        for target in targets:
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target and target != name:
                out.setdefault(target, node.lineno)
    return out


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def layer(name: str) -> int:
    """The rank of a module's layer; the facade modules of conformance/ sit on the layer they front."""
    name = TOP.get(name, name)
    for rank, prefix in reversed(list(enumerate(LAYERS))):
        if name == prefix or name.startswith(prefix + "."):
            return rank
    raise AssertionError(f"{name} is in no layer: add its package to LAYERS (tests/shape/test_layers.py)")


def test_every_module_is_in_a_layer():
    for name in MODULES:
        layer(name)


def test_no_import_goes_up_a_layer():
    upward = [f"{MODULES[a].relative_to(ROOT)}:{line} imports {b} ({LAYERS[layer(b)]} is above {LAYERS[layer(a)]})"
              for a, deps in GRAPH.items() for b, line in deps.items()
              if layer(b) > layer(a) and b not in TOP]
    assert not upward, "imports upwards:\n" + "\n".join(upward)


def test_the_facade_is_not_imported_from_inside():
    """`conformance` (the public names) is for users; the kit imports each name from its own module."""
    inside = [f"{MODULES[a].relative_to(ROOT)}:{line} imports the facade {b}" for a, deps in GRAPH.items()
              for b, line in deps.items() if b in TOP and a not in TOP]
    assert not inside, "\n".join(inside)


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each one import cycle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_no_import_cycle():
    found = cycles(GRAPH)
    assert not found, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_the_cycle_finder_finds_a_cycle():
    """The check above could not fire if `cycles` found nothing ever: it must name a planted one."""
    planted = {"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"a": 1}}
    assert cycles(planted) == [["a", "b", "c"]]


def test_an_upward_import_is_seen(tmp_path):
    """A lazy import inside a function counts: planted in a copy of a judge module's source."""
    planted = tmp_path / "verdicts.py"
    planted.write_text(MODULES["conformance.judge.verdicts"].read_text(encoding="utf-8")
                       + "\n\ndef _late():\n    from ..report.results import totals\n", encoding="utf-8")
    found = _imports("conformance.judge.verdicts", planted)
    assert "conformance.report.results" in found
    assert layer("conformance.report.results") > layer("conformance.judge.verdicts")


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_module_is_over_400_lines(name):
    lines = MODULES[name].read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"{MODULES[name].relative_to(ROOT)} has {lines} lines (at most {MAX_LINES}): split it by job"


def long_functions(source: str, limit: int = MAX_FUNCTION_LINES) -> list[tuple[str, int, int]]:
    """(name, first line, lines) of each function of `source` longer than `limit` lines, from its `def`
    to its last line, its docstring left out (a docstring explains; it does not make a hub)."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lines = node.end_lineno - node.lineno + 1
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                lines -= first.end_lineno - first.lineno + 1
            if lines > limit:
                out.append((node.name, node.lineno, lines))
    return out


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_function_is_over_60_lines(name):
    found = long_functions(MODULES[name].read_text(encoding="utf-8"))
    assert not found, (f"{MODULES[name].relative_to(ROOT)}: " + ", ".join(f"{f} (line {at}) has {n} lines"
                       for f, at, n in found) + f" (at most {MAX_FUNCTION_LINES}): give each phase a method")


def test_a_long_function_is_seen():
    body = "\n".join(f"    x{i} = {i}" for i in range(61))
    assert long_functions(f'def hub():\n    """Why."""\n{body}\n') == [("hub", 1, 62)]
    assert long_functions(f'def fine():\n    """Why."""\n' + "\n".join(f"    x{i} = {i}" for i in range(59)) + "\n") == []
