"""How `check` finds the rules a call falls under, and the footprints it reads them on.

`violations` matches a rule's `when` in two parts: products, forms, dtypes and paths once per (product,
form, dtype, path), kept on the spec, and parameter ranges per call. Evaluated the plain way (every rule,
Rulebook.matches on its whole `when`) it must give the same violations, in the same order, on calls of
every cell of every API, with memory and without. Spots made from the offsets in memory keep their
meaning when that memory is written afterwards."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings

from conformance.generate.cells import ambiguity_ids, cells
from oracle import Call, Tensor, check
from oracle.footprint import Spots, Still
from oracle.rules import RULE_KINDS, Violation, context, rejection, violations
from oracle.spec import default_rulebook

PRODUCTS = {"data_move": ["ascend910b", "ascend310p-vectorcore"], "scatter": ["ascend310b", "ascend310p-aicore"],
            "asc_gather": ["ascend910b"], "vec_trans_scatter": ["ascend910b"], "data_copy_nz2nd": ["ascend910b"]}


def plain_violations(call: Call, memory) -> list[Violation]:
    """Every rule and ambiguity of the spec, its whole `when` matched for this call alone."""
    ctx = context(call, memory)
    spec, matches = ctx.spec, ctx.rulebook.matches
    out = []
    for rule in spec.rules:
        if matches(rule.when, call, spec):
            message = RULE_KINDS[rule.kind].check(rule, ctx)
            if message:
                out.append(Violation(rule.id, rule.severity, message))
    for amb in spec.ambiguities:
        if any(matches(r, call, spec) for r in amb.regions) and (
                not amb.checks or any(RULE_KINDS[c.kind].check(c, ctx) for c in amb.checks)):
            out.append(Violation(amb.id, "undefined", f"ambiguous: {amb.question.strip()}"))
    return out


def drawn(product: str, api: str, per_cell: int = 2, regions: bool = False) -> list:
    """`per_cell` cases of each cell of the api on the product (`regions`: its ambiguity cells too)."""
    out = []
    ambiguities = ambiguity_ids([api], rulebook=default_rulebook()) if regions else None
    for cell in cells([product], [api], rulebook=default_rulebook(), ambiguities=ambiguities):
        @settings(max_examples=per_cell, database=None, deadline=None, phases=(Phase.generate,),
                  suppress_health_check=list(HealthCheck))
        @seed(20)
        @given(cell.strategy(default_rulebook()))
        def collect(case):
            out.append(case)
        collect()
    return out


@pytest.mark.parametrize("api,product", [(a, p) for a, ps in PRODUCTS.items() for p in ps])
def test_check_finds_the_rules_a_plain_evaluation_finds(api, product):
    cases = drawn(product, api)
    assert cases
    kinds = set()
    for case in cases:
        memory = case.memory.build()
        for given_memory in (None, memory):
            got = check(case.call, given_memory)
            assert got == plain_violations(case.call, given_memory), case.call.to_json()
            kinds.update(v.severity for v in got)
    assert kinds == {"reject", "undefined"}          # the cells reach both kinds of rule


def _declared(api: str) -> list:
    """The plain rulebook and, where the api's ambiguities have such readings, the rulebook with every one
    declared refusing, and with every one declared legal."""
    plain = default_rulebook()
    books = [plain]
    for legality in ("reject", "legal"):
        readings = {amb.id: next(r.id for r in amb.readings if r.legality == legality)
                    for amb in plain.api(api).ambiguities if any(r.legality == legality for r in amb.readings)}
        if readings:
            books.append(plain.with_readings(readings))
    return books


@pytest.mark.parametrize("api,product", [(a, p) for a, ps in {**PRODUCTS, "data_copy_pad": ["ascend910b"],
                                                                  "data_copy_slice": ["ascend910b"]}.items() for p in ps])
def test_rejection_is_the_first_reject_violation(api, product):
    """A refusing backend's check (`rejection`, which asks a region only whether it sets aside a rule found
    broken) gives the first violation of severity reject that `violations` lists, or None, on calls of every
    cell and ambiguity region, with memory and without, undeclared and under declared readings."""
    refused = passed = 0
    for case in drawn(product, api, regions=True):
        memory = case.memory.build()
        for book in _declared(api):
            for given_memory in (None, memory):
                first = next((v for v in violations(context(case.call, given_memory, book)) if v.severity == "reject"), None)
                assert rejection(context(case.call, given_memory, book)) == first, case.call.to_json()
                assert rejection(context(case.call, given_memory, book, still=True)) == first, case.call.to_json()
                refused, passed = refused + (first is not None), passed + (first is None)
    assert refused and passed, (refused, passed)


def test_a_rule_whose_when_names_a_parameter_range_is_matched_per_call():
    """scatter.count.zero covers count 0 only: calls of one cell (same product, form, dtype) either side."""
    def call(count: int) -> Call:
        return Call("scatter", "ascend310b", {"dstLocal": Tensor("UB", 0, "float16", 128),
                                              "srcLocal": Tensor("UB", 4096, "float16", 128),
                                              "dstOffsetLocal": Tensor("UB", 8192, "uint32", 128),
                                              "dstBaseAddr": 0, "count": count}, "count")
    ids = lambda c: [v.rule for v in check(c)]          # noqa: E731
    assert "scatter.count.zero" in ids(call(0))
    assert "scatter.count.zero" not in ids(call(1))
    assert "scatter.count.zero" in ids(call(0))


def test_spots_from_offsets_keep_their_meaning_when_memory_is_written():
    entries = np.array([8, 0, 4, 12], dtype="<u4")
    spots = Spots.offsets(entries, 100, 2)
    entries[:] = 1 << 20                              # the image the offsets were read from is written
    assert spots.begin == 100 and spots.end == 114
    assert spots.starts().tolist() == [108, 100, 104, 112]
    assert spots == Spots(np.array([108, 100, 104, 112]), 2)
    assert spots.count == 4 and spots.nbytes == 8 and spots.first == 108 and not spots.empty
    assert Spots.offsets(entries[:0], 5, 2).empty and Spots.offsets(entries[:0], 5, 2).end == 0


def test_spots_over_still_memory_view_the_offsets_and_bound_their_lowest_start():
    """Over images no one writes while they are read (Still) the offsets are viewed, not copied; `floor`
    is at most `begin`, the base itself for unsigned offsets not yet made starts."""
    image = np.array([8, 0, 4, 12], dtype="<u4")
    viewed, copied = Spots.offsets(image, 100, 2, Still(UB=image)), Spots.offsets(image, 100, 2, {"UB": image})
    assert np.shares_memory(viewed.unshifted(), image) and not np.shares_memory(copied.unshifted(), image)
    assert viewed.floor == 100 <= viewed.begin == 100 and viewed.end == 114
    signed = Spots(np.array([-6, 3]), 2)
    assert signed.floor == signed.begin == -6 and signed.end == 5
    assert Spots.offsets(image[:0], 5, 2, Still()).floor == Spots.offsets(image[:0], 5, 2).begin == 0
