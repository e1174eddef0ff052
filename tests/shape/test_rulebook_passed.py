"""The rulebook is passed, never fetched: below conformance/commands, no module names
`oracle.spec.default_rulebook` (the cached rulebook of the kit's own specs). The commands load it and
hand it down: as an argument, through the objects that were handed it (a cell's run, a session), or, to
the processes the kit starts, as what gives it (a worker's `specs`, the host's spec folder). The cells,
strategies, edge sweep and frozen list of conformance/generate are drawn from the rulebook their caller
hands them. The one exception is a command that lives below: `python -m conformance.generate.frozen`,
whose `main` loads the rulebook as the commands do (ENTRY_POINTS), and nothing else in its module.

The modules are read with ast, so that a name inside a function, an import under another name or an
attribute (`spec.default_rulebook`) counts, and the word in a docstring or a comment does not.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BELOW_COMMANDS = ("generate", "backends", "judge", "supervise", "report")
NAME = "default_rulebook"
MODULES = sorted(p for layer in BELOW_COMMANDS for p in (ROOT / "conformance" / layer).rglob("*.py"))
# module -> its command entry point (run as `python -m`), which may load the rulebook it hands down
ENTRY_POINTS = {"conformance/generate/frozen.py": "main"}


def references(source: str, name: str = NAME) -> list[int]:
    """The lines where `source` refers to `name`: imported (under any alias), used as a name, or read as
    an attribute of anything."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if any(alias.name.rpartition(".")[2] == name for alias in node.names):
                lines.append(node.lineno)
        elif isinstance(node, ast.Name) and node.id == name:
            lines.append(node.lineno)
        elif isinstance(node, ast.Attribute) and node.attr == name:
            lines.append(node.lineno)
    return sorted(set(lines))


def lines_of(source: str, function: str | None) -> set[int]:
    """The lines of the module-level function `function` of `source` (none for None, or where there is
    no such function)."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and node.name == function:
            return set(range(node.lineno, node.end_lineno + 1))
    return set()


def fetching(path: Path, source: str) -> list[int]:
    """The lines of `source` (the module at `path`) that refer to the name, its entry point's left out."""
    allowed = lines_of(source, ENTRY_POINTS.get(str(path.relative_to(ROOT))))
    return [n for n in references(source) if n not in allowed]


def test_the_layers_below_commands_have_modules():
    """The scan below reads something: each layer it names is there, with modules in it."""
    for layer in BELOW_COMMANDS:
        assert any(p.parent == ROOT / "conformance" / layer for p in MODULES), layer


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_below_commands_fetches_the_default_rulebook(path):
    found = fetching(path, path.read_text(encoding="utf-8"))
    assert not found, (f"{path.relative_to(ROOT)} refers to {NAME} on line(s) {', '.join(map(str, found))}: "
                       f"take the rulebook as an argument (the commands layer loads it)")


PLANTED = {
    "from oracle.spec import default_rulebook\n": [1],
    "from oracle.spec import Rulebook, default_rulebook as book\n": [1],
    "import oracle.spec.default_rulebook\n": [1],
    "def cost(api):\n    from oracle import spec\n    return spec.default_rulebook().apis[api].cost\n": [3],
    "def cost(api, rulebook=None):\n    rulebook = rulebook or default_rulebook()\n    return rulebook.apis[api]\n": [2],
    "lookup = {'rulebook': default_rulebook}\n": [1],
}


@pytest.mark.parametrize("snippet", PLANTED, ids=range(len(PLANTED)))
def test_the_scan_sees_a_planted_reference(snippet):
    """The check above could not fire if `references` found nothing ever: planted in a copy of a judge
    module's source, every way of naming it is seen, on its line."""
    source = (ROOT / "conformance" / "judge" / "verdicts.py").read_text(encoding="utf-8")
    offset = source.count("\n") + 2
    found = references(source + "\n" + snippet)
    assert found == [offset + line - 1 for line in PLANTED[snippet]]


def test_the_scan_ignores_words():
    """A docstring, a comment or another name with the word in it is no reference."""
    snippet = ('"""Not oracle.spec.default_rulebook: passed."""\n'
               "# default_rulebook() is the commands' to call\n"
               "default_rulebook_name = 'default_rulebook'\n")
    assert references(snippet) == []


@pytest.mark.parametrize("module", ENTRY_POINTS)
def test_an_entry_point_below_commands_is_a_command(module):
    """The exception is a command: the function is there, and the module runs it as `__main__`."""
    source = (ROOT / module).read_text(encoding="utf-8")
    assert lines_of(source, ENTRY_POINTS[module]), f"{module} has no function {ENTRY_POINTS[module]}"
    assert f"sys.exit({ENTRY_POINTS[module]}(sys.argv[1:]))" in source


def test_the_entry_point_is_the_only_exception():
    """In the entry point's module, a reference outside the entry point is seen (a function planted after
    it, and a fetch at import), and the entry point's own is not."""
    path = ROOT / "conformance" / "generate" / "frozen.py"
    source = path.read_text(encoding="utf-8")
    assert [n for n in references(source) if n in lines_of(source, "main")], "main loads no rulebook"
    assert fetching(path, source) == []
    offset = source.count("\n") + 2
    planted = source + "\ndef later():\n    return default_rulebook()\n\nBOOK = default_rulebook()\n"
    assert fetching(path, planted) == [offset + 1, offset + 3]


def test_a_cell_run_draws_from_the_plain_rulebook(monkeypatch):
    """run_cell judges by the rulebook with the readings declared, and draws its sweep and search from
    the one it was handed (generation draws from the plain specs)."""
    from oracle.spec import default_rulebook

    from conformance import OracleBackend
    from conformance.generate import edges, sweep_record
    from conformance.generate.cells import Cell
    from conformance.generate.profiles import Profile
    from conformance.judge.runner import run_cell

    plain, seen = default_rulebook(), []

    def heard(function):
        def hear(cell, book, *args, **kwargs):
            seen.append(book)
            return function(cell, book, *args, **kwargs)
        return hear

    monkeypatch.setattr(Cell, "strategy", heard(Cell.strategy))
    monkeypatch.setattr(sweep_record, "swept", heard(sweep_record.swept))
    monkeypatch.setattr(edges, "targets", heard(edges.targets))
    cell = Cell("data_move", "ascend910b", "legal", dtype="float16")
    result = run_cell(cell, OracleBackend(), Profile("t", 4, sweep=True), 1, rulebook=plain,
                      readings={"data_move.sid.reserved": "same_data"})
    assert result.conforms and result.sweep_calls > 0
    assert len(seen) == 3 and all(book is plain for book in seen)
