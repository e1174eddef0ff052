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
HELPERS = {"__init__", "base", "phases", "protocols", "tables", "grid", "offsets_read"}       # oracle/kinds/ modules that are no kind


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


def test_the_registry_lists_no_kind():
    """Adding a kind is its module and its schema entry: the registry finds the module, no list names it."""
    source = (ROOT / "oracle" / "kinds" / "__init__.py").read_text(encoding="utf-8")
    named = [n for n in RULE_KINDS if f".{n} import" in source or f"import {n}" in source or repr(n) in source
             or f'"{n}"' in source]
    assert not named, f"oracle/kinds/__init__.py names {named}"


def test_every_rule_of_the_specs_has_a_kind_and_a_target_without_one_is_unbroken():
    for spec in default_rulebook().apis.values():
        for rule in [*spec.rules, *(c for amb in spec.ambiguities for c in amb.checks)]:
            assert kind_of(rule) is RULE_KINDS[rule.kind]
    assert kind_of(None) is UNBROKEN


def test_a_kind_with_a_fast_path_writes_its_lines():
    for name, kind in RULE_KINDS.items():
        if kind.fast_rank is not None and name != "product":     # product: it holds for the cell, or is left
            assert type(kind).fast_source is not RuleKind.fast_source, name


# kind names that are also words of the call and the reports (a tensor's scope and dtype, a cell's product,
# a call's path, the entry checks' align and bounds): spelled as such, they name no kind
VOCABULARY = frozenset({"scope", "dtype", "product", "path", "align", "bounds"})


def _names_kind(node: ast.AST) -> bool:
    """Is `node` something's kind: `x.kind`, `kind`, `x["kind"]`, `x.get("kind")`?"""
    if isinstance(node, ast.Attribute) and node.attr == "kind" or isinstance(node, ast.Name) and node.id == "kind":
        return True
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value == "kind":
        return True
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
            and bool(node.args) and isinstance(node.args[0], ast.Constant) and node.args[0].value == "kind")


def _selects_by_name(node: ast.AST) -> bool:
    """Is `node` a look-up by a kind's name: `RULE_KINDS[...]`, `RULE_KINDS.get(...)`, `rules_of(...)` and the like?"""
    if isinstance(node, ast.Subscript):
        return isinstance(node.value, ast.Name) and node.value.id == "RULE_KINDS"
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    owner = func.value if isinstance(func, ast.Attribute) else None
    return "rule" in name or "kind" in name or isinstance(owner, ast.Name) and owner.id == "RULE_KINDS"


def kind_name_tests(source: str) -> list[int]:
    """Lines of `source` that spell a rule kind's name: anywhere for a name that is no other word of the
    kit (VOCABULARY); for any kind's name, compared with something's kind (or tested to be in a collection
    of names) or used to look rules or kinds up by name."""
    found = set()
    tree = ast.parse(source)
    docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                  if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.body
                  and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and node.value in set(RULE_KINDS) - VOCABULARY and id(node) not in docstrings:
            found.add(node.lineno)
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            names = [s.value for s in sides if isinstance(s, ast.Constant)]
            names += [e.value for s in sides if isinstance(s, (ast.Tuple, ast.List, ast.Set)) for e in s.elts
                      if isinstance(e, ast.Constant)]
            if any(_names_kind(s) for s in sides) and any(n in RULE_KINDS for n in names):
                found.add(node.lineno)
        if _selects_by_name(node):
            keys = [node.slice] if isinstance(node, ast.Subscript) else [*node.args, *(k.value for k in node.keywords)]
            if any(isinstance(k, ast.Constant) and k.value in RULE_KINDS for k in keys):
                found.add(node.lineno)
    return sorted(found)


def _machinery() -> list[Path]:
    """Every module of the kit but the kinds' own, and the benchmarks."""
    out = [p for p in sorted((ROOT / "conformance").rglob("*.py"))] + sorted((ROOT / "benchmarks").rglob("*.py"))
    return out + [p for p in sorted((ROOT / "oracle").rglob("*.py")) if "kinds" not in p.parts]


@pytest.mark.parametrize("path", _machinery(), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_machinery_never_spells_a_kind_s_name(path):
    lines = kind_name_tests(path.read_text(encoding="utf-8"))
    assert not lines, (f"{path.relative_to(ROOT)}:{lines}: ask the rules' kinds (oracle.kinds.kind_of(rule).<hook>) "
                       "what they say instead of picking rules by a kind's name")


def test_a_kind_name_test_is_seen():
    assert kind_name_tests('if rule.kind == "align":\n    pass\n') == [1]
    assert kind_name_tests('ok = kind in ("overlap", "reach")\n') == [1]
    assert kind_name_tests('if cell.kind == "legal":\n    pass\n') == []       # a cell's kind, not a rule's
    assert kind_name_tests('if raw["kind"] == "dtype":\n    pass\n') == [1]
    assert kind_name_tests('x = spec.rules_of("range")\n') == [1]
    assert kind_name_tests('x = RULE_KINDS["path"].check(rule, ctx)\n') == [1]
    assert kind_name_tests('lim = [r for r in rules if r.get("kind") in ("offset_range",)]\n') == [1]
    assert kind_name_tests('name = "offset_range"\n') == [1]                       # no other word of the kit
    assert kind_name_tests('t = {"scope": s, "dtype": d}\n') == []                 # a tensor's fields
    assert kind_name_tests('def f():\n    """A range rule (kind range)."""\n') == []


def test_the_specs_rules_are_asked_not_picked_by_kind():
    """ApiSpec has no look-up of rules by a kind's name: the machinery asks the rules whose kinds answer a
    hook (by what they provide), in spec order."""
    spec = default_rulebook().api("data_move")
    assert not hasattr(spec, "rules_of")
    assert spec.supported_on("ascend910b") and spec.path_operands is not None
    intervals = spec.rules_that("interval")
    assert intervals and [r for r in spec.rules if r in intervals] == list(intervals)
    assert all(kind_of(r).provides("interval") for r in intervals)
    assert {r.id for r in spec.rules if kind_of(r).interval(r, r.get("param", "")) is not None} == {r.id for r in intervals}
    assert not UNBROKEN.provides("interval") and not UNBROKEN.provides("on_dtypes")
