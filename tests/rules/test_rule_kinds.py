"""A rule kind is one object (oracle/kinds/): registered once, named in the schema, and never tested by
name anywhere else. The machinery asks the registry; a kind's module holds all it means."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest
import yaml

from oracle.kinds import RULE_KINDS, UNBROKEN, RuleKind, kind_of
from oracle.spec import default_rulebook

ROOT = Path(__file__).resolve().parents[2]
HELPERS = {"__init__", "base", "tables", "grid", "offsets_read"}       # oracle/kinds/ modules that are no kind


def test_the_registry_and_the_schema_name_the_same_kinds():
    schema = yaml.safe_load((ROOT / "specs" / "schema.yaml").read_text(encoding="utf-8"))
    named = set(schema["$defs"]["rule_body"]["properties"]["kind"]["enum"])
    assert named == set(RULE_KINDS), \
        f"schema only: {named - set(RULE_KINDS)}; registry only: {set(RULE_KINDS) - named}"


def test_each_kind_is_one_module():
    modules = {p.stem for p in (ROOT / "oracle" / "kinds").glob("*.py")} - HELPERS
    assert modules == set(RULE_KINDS), "one module per kind, named as the kind (oracle/kinds/<kind>.py)"
    for name, kind in RULE_KINDS.items():
        assert type(kind).__module__ == f"oracle.kinds.{name}" and kind.name == name
        assert type(kind).check is not RuleKind.check, f"{name} has no check"


def test_every_rule_of_the_specs_has_a_kind_and_a_target_without_one_is_unbroken():
    for spec in default_rulebook().apis.values():
        for rule in [*spec.rules, *(c for amb in spec.ambiguities for c in amb.checks)]:
            assert kind_of(rule) is RULE_KINDS[rule.kind]
    assert kind_of(None) is UNBROKEN


def test_a_kind_with_a_fast_path_writes_its_lines():
    for name, kind in RULE_KINDS.items():
        if kind.fast_rank is not None and name != "product":     # product: it holds for the cell, or is left
            assert type(kind).fast_source is not RuleKind.fast_source, name


def kind_name_tests(source: str) -> list[int]:
    """Lines of `source` that compare something's `.kind` with a rule kind's name (or test it is in a
    collection of them)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        names = [s.value for s in sides if isinstance(s, ast.Constant)]
        names += [e.value for s in sides if isinstance(s, (ast.Tuple, ast.List, ast.Set)) for e in s.elts
                  if isinstance(e, ast.Constant)]
        kinds = [s for s in sides if isinstance(s, ast.Attribute) and s.attr == "kind"
                 or isinstance(s, ast.Name) and s.id == "kind"]
        if kinds and any(n in RULE_KINDS for n in names):
            found.append(node.lineno)
    return found


def _machinery() -> list[Path]:
    out = [p for p in sorted((ROOT / "conformance").rglob("*.py"))]
    return out + [p for p in sorted((ROOT / "oracle").rglob("*.py")) if "kinds" not in p.parts]


@pytest.mark.parametrize("path", _machinery(), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_machinery_never_tests_a_kind_s_name(path):
    lines = kind_name_tests(path.read_text(encoding="utf-8"))
    assert not lines, f"{path.relative_to(ROOT)}:{lines}: ask the rule's kind object (oracle.kinds.kind_of) instead"


def test_a_kind_name_test_is_seen():
    assert kind_name_tests('if rule.kind == "align":\n    pass\n') == [1]
    assert kind_name_tests('ok = kind in ("overlap", "reach")\n') == [1]
    assert kind_name_tests('if cell.kind == "legal":\n    pass\n') == []       # a cell's kind, not a rule's
