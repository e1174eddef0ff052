"""A cell's fast path (oracle/fast_path.py) may only say "every screened rule holds" when each screened rule's
kind says so too: on drawn calls of every cell (legal, broken, undefined), with memory and without, and
under a declared reading. It must also say so for legal calls (or it saves nothing), and not for calls
that break a screened rule."""
from __future__ import annotations

import pytest

from oracle import Call, Tensor, check, default_rulebook
from oracle.rulebook import in_ranges
from oracle.rules import RULE_KINDS, cell_plan, context
from tests.rules.test_check_plan import PRODUCTS, drawn


def screened(ctx):
    """(screen, the rules it screens) of ctx's cell."""
    rules, _, _, _, screen = cell_plan(ctx)
    rest = {id(rule) for rule, _ in screen.rest} if screen is not None else set()
    return screen, [rule for rule, _ in rules if screen is not None and id(rule) not in rest]


@pytest.mark.parametrize("api,product", [(a, p) for a, ps in PRODUCTS.items() for p in ps])
def test_the_screen_holds_only_where_every_screened_rule_holds(api, product):
    held = missed = 0
    for case in drawn(product, api):
        memory = case.memory.build()
        for given_memory in (None, memory):
            ctx = context(case.call, given_memory)
            screen, rules = screened(ctx)
            assert screen is not None and rules, api            # every API has plain rules to screen
            broken = [rule.id for rule in rules if RULE_KINDS[rule.kind].check(rule, ctx)]
            if screen.holds(ctx):
                assert not broken, (broken, case.call.to_json())
                if screen.outside_regions:       # and then no ambiguity region of the cell holds the call
                    inside = [amb.id for amb, regions in cell_plan(ctx)[1] for ranges in regions   # (its checks:
                              if (ranges is None or in_ranges(ranges, case.call.args))             # a half_by bounds
                              and (not amb.checks or any(RULE_KINDS[c.kind].check(c, ctx) for c in amb.checks))]  # check)
                    assert not inside, (inside, case.call.to_json())
                held += 1
            elif not broken:
                missed += 1                                     # allowed (the kinds decide), but rare
    assert held > 0 and missed <= held // 4, (held, missed)


def _move(**args) -> Call:
    base = {"dst": Tensor("UB", 4096, "float16", 256), "src": Tensor("UB", 0, "float16", 256),
            "sid": 0, "nburst": 2, "burst": 8, "src_stride": 0, "dst_stride": 0}
    return Call("data_move", "ascend910b", {**base, **args})


@pytest.mark.parametrize("change,rule", [
    ({"sid": 16}, "data_move.sid.range"),
    ({"nburst": 0}, "data_move.nburst.range"),
    ({"burst": 0}, "data_move.burst.range"),
    ({"src_stride": 65536}, "data_move.src_stride.range"),
    ({"dst": Tensor("UB", 4100, "float16", 256)}, "data_move.dst.align.UB"),
    ({"src": Tensor("L1", 16, "float16", 256), "dst": Tensor("GM", 0, "float16", 256)}, "data_move.src.align.L1"),
    ({"dst": Tensor("UB", 4096, "float16", 255)}, "data_move.dst.bounds"),
    ({"dst": Tensor("UB", 4096, "int16", 256)}, "data_move.dtype.same"),
    ({"dst": Tensor("UB", 4096, "bfloat16", 256), "src": Tensor("UB", 0, "bfloat16", 256)},
     "data_move.dtype.supported"),
    ({"dst": Tensor("UB", 196608, "float16", 256)}, "data_move.dst.capacity"),
    ({"dst": Tensor("L1", 0, "float16", 256)}, "data_move.path.supported"),
    ({"dst": Tensor("UB", 256, "float16", 256)}, "data_move.overlap"),
])
def test_a_call_that_breaks_a_screened_rule_gets_past_the_screen(change, rule):
    legal = _move()
    assert check(legal) == []
    ctx = context(legal)
    assert screened(ctx)[0].holds(ctx)
    call = _move(**change)
    ctx = context(call)
    assert not screened(ctx)[0].holds(ctx)
    assert rule in [v.rule for v in check(call)]


def test_a_rulebook_with_readings_has_its_own_screens():
    """sid 1..15 is data_move.sid.reserved's region; the reading that makes it legal judges sid by it."""
    rulebook = default_rulebook()
    amb = rulebook.ambiguity("data_move.sid.reserved")
    legal = next(r for r in amb.readings if r.legality == "legal")
    call = _move(sid=3)
    assert [v.rule for v in check(call)] == ["data_move.sid.reserved"]
    assert check(call, readings={amb.id: legal.id}) == []
    assert [v.rule for v in check(call)] == ["data_move.sid.reserved"]


def test_a_call_inside_an_ambiguity_region_gets_past_the_screen():
    """data_move.sid.reserved's region is sid 1..15: there the screen does not hold, so the region is
    judged; its edges on either side of the region."""
    for sid, inside in ((0, False), (1, True), (15, True)):
        ctx = context(_move(sid=sid))
        screen = screened(ctx)[0]
        assert screen.outside_regions
        assert screen.holds(ctx) is not inside, sid
        assert ("data_move.sid.reserved" in [v.rule for v in check(_move(sid=sid))]) is inside


def test_the_screen_is_one_python_function_read_from_the_tables():
    """Each range rule's numbers are written into the function; the source is there to read."""
    ctx = context(_move())
    screen = screened(ctx)[0]
    source = screen.source
    assert source.startswith("def holds(ctx):")
    for name, lo, hi in screen.tables["range"]:
        assert f"v = args[{name!r}]" in source and f"{lo} <= v <= {hi}" in source
    assert screen.holds(ctx) and screen.holds.__name__ == "holds"
