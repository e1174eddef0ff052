"""Every rule of every spec (the mask rules each API takes from specs/masks.yaml included), one test each,
named by the rule's id: the edge sweep's calls in the rule's own cells break that rule and no other (the
checker names it), and the legal cell beside it sweeps calls the checker passes, a range rule's calls at
both ends of the range among them.

The API folders' plans (tests/<api>/README.md) name these tests for the rules they hold; a rule no cell
breaks alone is skipped here, saying so, and its plan names the test written for it."""
from __future__ import annotations

from collections import defaultdict
from functools import lru_cache
from typing import Any

import pytest

from conformance.generate.cells import Cell, cells
from conformance.generate.edges import sweep, targets
from oracle import check, verdict_class
from oracle.spec import default_rulebook

BOOK = default_rulebook()
RULES = [rule.id for api in sorted(BOOK.apis) for rule in BOOK.api(api).rules]
RANGES = [rule.id for api in sorted(BOOK.apis) for rule in BOOK.api(api).rules if rule.kind == "range"]


@lru_cache(maxsize=None)
def _cells() -> tuple[Cell, ...]:
    return tuple(c for product in BOOK.products for c in cells([product], rulebook=BOOK))


@lru_cache(maxsize=None)
def breaking_cells() -> dict[str, list[Cell]]:
    """rule id -> the cells of every product whose calls break that rule alone."""
    out: dict[str, list[Cell]] = defaultdict(list)
    for cell in _cells():
        if cell.expect != "legal" and cell.rule:
            out[cell.rule].append(cell)
    return out


@lru_cache(maxsize=None)
def range_ends(rule: str) -> frozenset[str]:
    """The ends of a range rule (`param=min`, `param=max`) the edge sweep of a legal cell it applies to reaches."""
    api = rule.split(".")[0]
    ranged = BOOK.api(api).rule(rule)
    wanted = {f"{ranged['param']}={end}" for end in ("min", "max")}
    return frozenset(tag for cell in _cells() if cell.api == api and cell.expect == "legal" and _applies(ranged, cell)
                     for tag in wanted & set(targets(cell, BOOK)))


def holds(test: str, rule: str) -> bool:
    """Does the test of this file named `test` hold the rule (rather than skip it)?"""
    if test == "test_range_ends_are_legal":
        return rule in RANGES and bool(range_ends(rule))
    return rule in breaking_cells()


def _memory(case: Any) -> Any:
    return case.memory.build() if case.memory.writes else None


def _applies(rule: Any, cell: Cell) -> bool:
    when = rule.when or {}
    return ((not when.get("forms") or cell.form in when["forms"]) and (not when.get("dtypes") or cell.dtype in when["dtypes"])
            and (not when.get("products") or cell.product in when["products"]))


def _value(call: Any, param: str) -> Any:
    value: Any = call.args
    for part in param.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def _skip_without_cells(rule: str) -> list[Cell]:
    found = breaking_cells().get(rule, [])
    if not found:
        pytest.skip(f"{rule}: no cell of any product breaks it alone; its plan names the test that holds it")
    return found


@pytest.mark.parametrize("rule", RULES, ids=RULES)
def test_sweep_breaks_only_its_rule(rule: str) -> None:
    for cell in _skip_without_cells(rule):
        cases = sweep(cell, BOOK)
        assert cases, f"{cell.id}: empty sweep"
        for case in cases:
            violations = check(case.call, _memory(case))
            assert [v.rule for v in violations] == [rule], (cell.id, case.tags, violations)
            assert verdict_class(violations) == cell.expect, (cell.id, case.tags, violations)


@pytest.mark.parametrize("rule", RULES, ids=RULES)
def test_the_legal_cell_beside_it_passes(rule: str) -> None:
    """For each breaking cell, the legal cell of the same API, product, form and dtype (where the product
    has one): every call of its sweep passes the checker."""
    seen = 0
    legal = {(c.api, c.product, c.form, c.dtype): c for c in _cells() if c.expect == "legal"}
    for cell in _skip_without_cells(rule):
        beside = legal.get((cell.api, cell.product, cell.form, cell.dtype))
        if beside is None:
            continue
        for case in sweep(beside, BOOK):
            assert check(case.call, _memory(case)) == [], (beside.id, case.tags)
            seen += 1
    assert seen or not any((c.api, c.product, c.form, c.dtype) in legal for c in breaking_cells()[rule])


@pytest.mark.parametrize("rule", RANGES, ids=RANGES)
def test_range_ends_are_legal(rule: str) -> None:
    """A range rule's lowest and highest values, where a legal cell it applies to reaches them: the sweep's
    call at that end passes the checker, with the value inside the rule's range."""
    api = rule.split(".")[0]
    ranged = BOOK.api(api).rule(rule)
    param = ranged["param"]
    reachable = range_ends(rule)
    if not reachable:
        pytest.skip(f"{rule}: no legal cell reaches an end of its range; its plan names the test that holds it")
    ends: set[str] = set()
    for cell in _cells():
        if cell.api != api or cell.expect != "legal" or not _applies(ranged, cell):
            continue
        wanted = set(reachable) & set(targets(cell, BOOK)) - ends
        if not wanted:
            continue
        for case in sweep(cell, BOOK):
            for tag in wanted & set(case.tags):
                assert check(case.call, _memory(case)) == [], (cell.id, tag)
                assert ranged["min"] <= int(_value(case.call, param)) <= ranged["max"], (cell.id, tag)
                ends.add(tag)
        if ends == reachable:
            break
    assert ends == reachable, f"{rule}: the sweep reaches {sorted(reachable)} but no call carries {sorted(reachable - ends)}"
