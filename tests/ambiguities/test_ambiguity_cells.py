"""Ambiguity cells: `cells(..., ambiguities=ids)` gives one cell per ambiguity and product whose
region holds calls; their calls lie in the region and are legal but for it (the plain rulebook flags the
ambiguity and its companions only; with a legal reading of each declared, nothing at all); both ends of
each region range come up; the edge sweep reaches every edge it lists; ordinary cells do not change.
"""
from __future__ import annotations

from functools import lru_cache

import pytest

from conformance.generate.ambiguity import ambiguity_calls, companions, region
from conformance.generate.case import Case
from conformance.generate.cells import Cell, ambiguity_ids, cells, select
from conformance.generate.edges import reached, sweep, targets
from oracle import check
from oracle.apis import index_math
from oracle.rules import context, violations
from oracle.spec import default_rulebook

RULEBOOK = default_rulebook()
PRODUCTS = list(RULEBOOK.products)
IDS = ambiguity_ids(rulebook=RULEBOOK)
EXAMPLES = 12

# Where an ambiguity's cell exists, and why not elsewhere: the api's products (scatter: 310P AI Core and
# 310B; asc_gather: 910B and 910_93; data_copy_nz2nd: 310P AI Core, 910B, 910_93), narrowed by the region.
ONLY = {
    "scatter.repeat.8bit": ["ascend310b"],                    # 8-bit types are legal on 310B only
    "vec_trans_scatter.b32.older_products": ["ascend310", "ascend910"],     # the region's products
}


@lru_cache(maxsize=None)
def _all() -> tuple[Cell, ...]:
    return tuple(cells(PRODUCTS, ambiguities=IDS, rulebook=RULEBOOK))


def _cells_of(amb: str) -> list[Cell]:
    return [c for c in _all() if c.expect == "ambiguity" and c.rule == amb]


def test_every_ambiguity_has_a_cell():
    # 26 of the seed pages' APIs; data_copy: a zero blockCount, a zero blockLen, an unaligned count;
    # data_copy_pad: a zero blockCount, a zero blockLen, the no-padding dummy with and without isPad, for
    # types up to 32 bits and for 64-bit types; data_copy_nd2nz: a zero matrix stride, the reserved UB;
    # gather: five; copy and gatherb: a zero repeatTime, and gatherb's dstRepStride past 4095
    assert len(IDS) == 53 and len(set(IDS)) == 53
    for amb in IDS:
        found = _cells_of(amb)
        assert found, f"{amb}: no product has a call in its region"
        for cell in found:
            assert cell.id == f"{cell.api}/{cell.product}/ambiguity/{amb}"
            assert cell.api == amb.split(".")[0]
        if amb in ONLY:
            assert [c.product for c in found] == ONLY[amb]
    assert [c.product for c in _cells_of("data_move.sid.reserved")] == [
        p for p in PRODUCTS if p != "ascend910_93"]           # data_move's page does not list 910_93


def test_no_ambiguity_cell_unless_asked_and_ordinary_cells_unchanged():
    plain = cells(PRODUCTS, rulebook=RULEBOOK)
    assert not [c for c in plain if c.expect == "ambiguity"]
    assert cells(PRODUCTS, ambiguities=[], rulebook=RULEBOOK) == plain
    assert [c for c in _all() if c.expect != "ambiguity"] == plain
    one = cells(["ascend910b"], ["data_move"], rulebook=RULEBOOK,
                ambiguities=["data_move.sid.reserved", "scatter.count.zero"])
    assert [c.id for c in one if c.expect == "ambiguity"] == ["data_move/ascend910b/ambiguity/data_move.sid.reserved"]
    assert one[-1].expect == "ambiguity"                         # after the api's other cells


def test_unknown_ambiguity_is_named():
    with pytest.raises(ValueError, match="data_move.sid.nope"):
        cells(["ascend910b"], ambiguities=["data_move.sid.nope"], rulebook=RULEBOOK)
    with pytest.raises(ValueError, match="scatter.count.zero"):
        ambiguity_calls("data_move", "ascend910b", "scatter.count.zero", rulebook=RULEBOOK)       # another api's


def test_select_by_ambiguity_glob():
    chosen = select(_all(), ["*/ascend910b/ambiguity/vec_trans_scatter.*"])
    assert chosen and all(c.expect == "ambiguity" and c.product == "ascend910b" for c in chosen)
    assert len(chosen) == len([a for a in IDS if a.startswith("vec_trans_scatter.")]) - 1     # not b32.older


def _legal_readings(amb: str, product: str) -> dict[str, str]:
    """A reading of the ambiguity and of each companion that makes its region legal (one without a
    variant where there is one: legality is what is checked here)."""
    spec = RULEBOOK.api(amb.split(".")[0])
    ids = {amb} | set().union(*(companions(spec, RULEBOOK.ambiguity(amb), r, product)
                                for r in RULEBOOK.ambiguity(amb).regions))
    legal = {a: sorted((bool(r.variant), r.id) for r in RULEBOOK.ambiguity(a).readings if r.legality == "legal")
             for a in ids}
    return {a: found[0][1] for a, found in legal.items() if found}      # none: no reading makes it legal


@pytest.mark.parametrize("amb", IDS)
def test_calls_lie_in_the_region_and_are_otherwise_legal(amb):
    """On every product of the ambiguity: each drawn call is flagged by the plain rulebook with the
    ambiguity (and its companions, ambiguities holding the whole region); under each reading (a legal
    one of each companion declared) it breaks nothing else: the reading alone decides its verdict, also
    where a reading moves bytes otherwise (an index-math variant reaching further)."""
    ambiguity = RULEBOOK.ambiguity(amb)
    spec = RULEBOOK.api(amb.split(".")[0])
    for cell in _cells_of(amb):
        cases = cell.draw(EXAMPLES, 7, RULEBOOK)
        assert len(cases) >= EXAMPLES // 2, f"{cell.id}: {len(cases)} calls"
        declared = _legal_readings(amb, cell.product)
        for case in cases:
            assert (case.expect, case.rule, case.call.product) == ("ambiguity", amb, cell.product)
            memory = case.memory.build()
            flagged = {v.rule for v in check(case.call, memory)}
            assert amb in flagged and flagged - {amb} <= set(declared), (cell.id, flagged)
            assert any(RULEBOOK.matches(r, case.call, spec) for r in ambiguity.regions)
            left = {v.rule for v in check(case.call, memory, readings=declared)}
            assert left == (set() if amb in declared else {amb}), (cell.id, case.call)
            for reading in ambiguity.readings:
                under = {v.rule for v in check(case.call, memory, readings={**declared, amb: reading.id})}
                assert under == ({amb} if reading.legality != "legal" else set()), (cell.id, reading.id, under)


def test_both_ends_of_a_region_range_come_up():
    reserved = Cell("data_move", "ascend910b", "ambiguity", rule="data_move.sid.reserved")
    cases = reserved.draw(40, 3, RULEBOOK)
    sids = {c.call.args["sid"] for c in cases}
    assert {1, 15} <= sids and sids <= set(range(1, 16))
    tags = {t for c in cases for t in c.tags}
    assert {"sid=region-min", "sid=region-max"} <= tags
    assert all(("sid=region-min" in c.tags) == (c.call.args["sid"] == 1) for c in cases)


def test_companions_are_the_enclosing_ambiguities():
    spec = RULEBOOK.api("asc_gather")
    layout = "asc_gather.repeat.layout"
    assert companions(spec, RULEBOOK.ambiguity("asc_gather.repeat.zero"), {"forms": ["repeat"], "params": {"repeat": [0, 0]}},
                      "ascend910b") == {layout}
    advance = RULEBOOK.ambiguity("asc_gather.offset.repeat_advance")
    assert companions(spec, advance, advance.regions[0], "ascend910b") == {layout, "asc_gather.dst.repeat_overlap"}
    assert companions(spec, advance, advance.regions[1], "ascend910b") == {layout}
    older = RULEBOOK.ambiguity("vec_trans_scatter.b32.reserved_ub")
    vts = RULEBOOK.api("vec_trans_scatter")
    assert companions(vts, older, older.regions[0], "ascend910") == {"vec_trans_scatter.b32.older_products"}
    assert companions(vts, older, older.regions[0], "ascend910b") == frozenset()


def test_a_reserved_top_is_entered_from_its_bottom_to_the_top():
    """vec_trans_scatter.b32.reserved_ub: some entry ends inside the reserved 11 KB, never past UB."""
    cell = Cell("vec_trans_scatter", "ascend910b", "ambiguity", rule="vec_trans_scatter.b32.reserved_ub")
    cap = RULEBOOK.product("ascend910b").capacity("UB")
    reserve = RULEBOOK.ambiguity(cell.rule).checks[0]["reserve"]
    ends = set()
    for case in sweep(cell, RULEBOOK) + cell.draw(EXAMPLES, 5, RULEBOOK):
        tops = [t.addr + t.numel * RULEBOOK.itemsize(t.dtype) for op in ("dst_list", "src_list")
                for t in case.call.args[op]]
        assert cap - reserve < max(tops) <= cap
        ends |= {e for e in tops if e > cap - reserve}
    assert cap in ends and min(ends) <= cap - reserve + 4


def test_sweep_reaches_every_edge_of_every_ambiguity_cell():
    """The sweep's calls are checked like the search's and reach every edge targets() lists; each
    region of an ambiguity of several (and each check) is an edge."""
    for cell in (c for c in _all() if c.expect == "ambiguity"):
        cases = sweep(cell, RULEBOOK)
        assert cases, cell.id
        want = targets(cell, RULEBOOK)
        assert reached(cases, want) == want, (cell.id, sorted(set(want) - set(reached(cases, want))))
        assert all(c.expect == "ambiguity" and c.rule == cell.rule for c in cases)
    stride = Cell("vec_trans_scatter", "ascend910b", "ambiguity", rule="vec_trans_scatter.stride.single_repeat")
    # under the reading "applied" a single repeat starts one stride in: 65535 blocks fit no UB
    assert {"region=0", "region=1", "dst_rep_stride=region-largest-fit@0",
            "src_rep_stride=region-largest-fit@1"} <= set(targets(stride, RULEBOOK))
    half = Cell("vec_trans_scatter", "ascend910b", "ambiguity", rule="vec_trans_scatter.overlap.half_block")
    assert {"region=0.0", "region=0.1", "region=1.0", "region=1.1"} <= set(targets(half, RULEBOOK))


def test_region_keys_follow_the_product():
    older = region("vec_trans_scatter", "ascend910b", "vec_trans_scatter.b32.older_products", RULEBOOK)
    assert older.keys == []
    assert region("vec_trans_scatter", "ascend910", "vec_trans_scatter.b32.older_products", RULEBOOK).keys


def test_a_filling_variant_moves_the_bytes_the_default_math_moves() -> None:
    """A reading whose variant is one of its API's FILLING only adds units that apply alone reads: under it
    a call of the region reads and writes the bytes of the default math, and the rules find what the plain
    rulebook finds but the ambiguity (the generator sizes and checks the calls once for it)."""
    seen = 0
    for amb in IDS:
        math = index_math(amb.split(".")[0])
        readings = [r for r in RULEBOOK.ambiguity(amb).readings if r.variant in getattr(math, "FILLING", ())]
        for cell in _cells_of(amb) if readings else []:
            for case in cell.draw(EXAMPLES, 11, RULEBOOK):
                memory = case.memory.build()
                plain = context(case.call, memory, RULEBOOK)
                flagged = {v.rule for v in violations(plain)}
                for reading in readings:
                    ctx = context(case.call, memory, RULEBOOK.with_readings({amb: reading.id}))
                    assert ctx.variants == (reading.variant,) and set(ctx.units) > set(plain.units)
                    assert {k: ctx.units[k] for k in plain.units} == plain.units
                    assert ctx.accesses == plain.accesses, (cell.id, reading.id)
                    assert {v.rule for v in violations(ctx)} == flagged - {amb}, (cell.id, reading.id)
                    seen += 1
    assert seen > 100


def test_a_call_is_checked_in_two_parts_as_the_plain_rulebook_checks_it() -> None:
    """Region.split: a call's check by the generation rulebook (its fast path) and the lacked ambiguities'
    regions accept the calls the plain rulebook flags with the ambiguity and its companions alone, and no
    other: on calls of every cell of the api and product (legal, broken, in other regions)."""
    accepted = refused = 0
    for amb in IDS:
        for cell in _cells_of(amb):
            where = region(cell.api, cell.product, amb, RULEBOOK)
            if not where.split:
                continue
            for case in _neighbours(cell.api, cell.product):
                memory = case.memory.build()
                plain = {v.rule for v in violations(context(case.call, memory, RULEBOOK))}
                ctx = context(case.call, memory, where.env.rulebook)
                for key in where.keys:
                    flagged = {amb} | where.companions[key]
                    split = not violations(ctx) and where.lacked_holding(ctx) == flagged
                    assert split == (plain == flagged), (cell.id, key, case.call)
                    accepted += split
                    refused += not split
    assert accepted > 200 and refused > 2000


@lru_cache(maxsize=None)
def _neighbours(api: str, product: str) -> tuple[Case, ...]:
    """A few calls of every cell of the api on the product, ambiguity cells included."""
    return tuple(case for cell in _all() if (cell.api, cell.product) == (api, product)
                 for case in cell.draw(2, 5, RULEBOOK))
