"""The rulebook is passed, never fetched: below conformance/commands, no module names
`oracle.spec.default_rulebook` (the cached rulebook of the kit's own specs). The commands load it and
hand it down: as an argument, through the objects that were handed it (a cell's run, a session), or, to
the processes the kit starts, as what gives it (a worker's `specs`, the host's spec folder).

The modules are read with ast, so that a name inside a function, an import under another name or an
attribute (`spec.default_rulebook`) counts, and the word in a docstring or a comment does not.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BELOW_COMMANDS = ("backends", "judge", "supervise", "report")
NAME = "default_rulebook"
MODULES = sorted(p for layer in BELOW_COMMANDS for p in (ROOT / "conformance" / layer).rglob("*.py"))


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


def test_the_layers_below_commands_have_modules():
    """The scan below reads something: each layer it names is there, with modules in it."""
    for layer in BELOW_COMMANDS:
        assert any(p.parent == ROOT / "conformance" / layer for p in MODULES), layer


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_below_commands_fetches_the_default_rulebook(path):
    found = references(path.read_text(encoding="utf-8"))
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
