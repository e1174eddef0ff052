"""Scatter's readings beyond the seed page's first ones: repeatTimes = 0 (nop | reject), two equal offsets
(one_survives | undefined, the 2026 edition settling on undefined), and an offset off the element grid
(straddle | undefined | element_below, the last as the vendor's ascend310b code places it). Each image is
worked here by hand from the reading's sentence, element by element."""
from __future__ import annotations

import numpy as np
import pytest

from oracle import Call, IllegalCall, Tensor, check, expected
from oracle.rules import verdict_class
from oracle.spec import default_rulebook

BOOK = default_rulebook()
UB = 253952                                   # ascend310b
SRC, DST, OFFS = 0, 8192, 16384


def call(n=4, base=0, *, form="count", repeat=1, dtype="uint16") -> Call:
    width = np.dtype(dtype).itemsize
    args = {"dstLocal": Tensor("UB", DST, dtype, 4096 // width), "srcLocal": Tensor("UB", SRC, dtype, 4096 // width),
            "dstOffsetLocal": Tensor("UB", OFFS, "uint32", 1024), "dstBaseAddr": base}
    if form == "count":
        args["count"] = n
    else:
        args.update(mask=n, repeatTimes=repeat, srcRepStride=8)
    return Call("scatter", "ascend310b", args, form)


def image(offsets, dtype="uint16") -> dict[str, np.ndarray]:
    ub = np.zeros(UB, np.uint8)
    src = np.arange(1, 2049, dtype=dtype)            # element i holds i + 1
    ub[SRC:SRC + src.nbytes] = src.view(np.uint8)
    ub[DST:DST + 4096] = 0xEE
    ub[OFFS:OFFS + 4 * len(offsets)] = np.asarray(offsets, "<u4").view(np.uint8)
    return {"UB": ub}


def judged(c: Call, memory, **readings) -> str:
    return verdict_class(check(c, memory, readings={k.replace("__", "."): v for k, v in readings.items()}))


# -- repeatTimes = 0 ----------------------------------------------------------------------------------

def test_zero_repeats_is_an_ambiguity_judged_by_its_reading():
    c = call(8, form="mask_continuous", repeat=0)
    memory = image(range(0, 16, 2))
    assert [v.rule for v in check(c, memory)] == ["scatter.repeatTimes.zero"]
    assert judged(c, memory, scatter__repeatTimes__zero="reject") == "reject"
    assert judged(c, memory, scatter__repeatTimes__zero="nop") == "legal"
    out = expected(c, memory, readings={"scatter.repeatTimes.zero": "nop"})
    assert out.memory["UB"].tobytes() == memory["UB"].tobytes()           # nothing moved


def test_one_repeat_is_outside_the_zero_region():
    assert check(call(8, form="mask_continuous", repeat=1), image(range(0, 16, 2))) == []


# -- two equal offsets ----------------------------------------------------------------------------------

def test_equal_offsets_are_an_ambiguity():
    c, memory = call(4), image([0, 2, 2, 6])
    violations = check(c, memory)
    assert [v.rule for v in violations] == ["scatter.offset.duplicate"]
    assert verdict_class(violations) == "undefined"
    under = check(c, memory, readings={"scatter.offset.duplicate": "undefined"})
    assert [(v.rule, v.severity) for v in under] == [("scatter.offset.duplicate", "undefined")]


def test_one_survives_keeps_one_of_the_two_and_writes_the_others():
    c, memory = call(4), image([0, 2, 2, 6])
    assert judged(c, memory, scatter__offset__duplicate="one_survives") == "legal"
    out = expected(c, memory, readings={"scatter.offset.duplicate": "one_survives"})
    dst = out.memory["UB"][DST:DST + 8].view("<u2")
    assert dst[0] == 1 and dst[3] == 4 and dst[2] == 0xEEEE          # elements 0 and 3 where sent; byte 4 untouched
    (scope, starts, values), = out.choices
    assert scope == "UB" and starts.tolist() == [DST + 2, DST + 2]
    assert sorted(v.view("<u2")[0] for v in values) == [2, 3]          # the place holds element 1 or element 2


def test_distinct_offsets_are_outside_the_duplicate_region():
    c, memory = call(4), image([6, 4, 2, 0])
    assert check(c, memory) == []
    assert expected(c, memory).memory["UB"][DST:DST + 8].view("<u2").tolist() == [4, 3, 2, 1]


def test_the_2026_edition_settles_duplicates_as_undefined():
    amb = BOOK.ambiguity("scatter.offset.duplicate")
    assert amb.settled["2026"]["reading"] == "undefined"
    assert amb.reading("undefined").legality == "undefined"


# -- offsets off the element grid -----------------------------------------------------------------------

def test_element_below_rounds_each_offset_and_the_base_down():
    """uint16: base 1 and offsets 2, 6, 10 put elements 0, 1, 2 at elements 1, 3, 5 under element_below
    (base // 2 + offset // 2), where the byte reading straddles them at bytes 3, 7 and 11."""
    c, memory = call(3, base=1), image([2, 6, 10])
    assert [v.rule for v in check(c, memory)] == ["scatter.offset.unaligned"]
    assert judged(c, memory, scatter__offset__unaligned="element_below") == "legal"
    out = expected(c, memory, readings={"scatter.offset.unaligned": "element_below"})
    dst = out.memory["UB"][DST:DST + 16].view("<u2")
    assert dst.tolist() == [0xEEEE, 1, 0xEEEE, 2, 0xEEEE, 3, 0xEEEE, 0xEEEE]
    straddled = expected(c, memory, readings={"scatter.offset.unaligned": "straddle"}).memory["UB"][DST:DST + 16]
    assert [bytes(straddled[k:k + 2]) for k in (3, 7, 11)] == [b"\x01\x00", b"\x02\x00", b"\x03\x00"]


def test_element_below_can_make_two_offsets_meet():
    """Offsets 2 and 3 (uint16) both land on element 1 under element_below: the duplicate ambiguity's
    one_survives reading then keeps one of them."""
    c, memory = call(2), image([2, 3])
    readings = {"scatter.offset.unaligned": "element_below", "scatter.offset.duplicate": "one_survives"}
    assert [v.rule for v in check(c, memory, readings={"scatter.offset.unaligned": "element_below"})] == [
        "scatter.offset.duplicate"]
    (scope, starts, values), = expected(c, memory, readings=readings).choices
    assert starts.tolist() == [DST + 2, DST + 2] and sorted(v.view("<u2")[0] for v in values) == [1, 2]


def test_the_2026_edition_settles_unaligned_offsets_as_undefined():
    assert BOOK.ambiguity("scatter.offset.unaligned").settled["2026"]["reading"] == "undefined"


def test_8bit_repeats_are_settled_on_128_elements_by_the_2026_edition():
    assert BOOK.ambiguity("scatter.repeat.8bit").settled["2026"]["reading"] == "per_repeat_128"


def test_an_undeclared_reading_leaves_the_call_open():
    c, memory = call(3, base=1), image([2, 6, 10])
    out = expected(c, memory)
    assert [v.rule for v in out.violations] == ["scatter.offset.unaligned"]
    assert not out.defined["UB"].all()


def test_a_refusing_reading_leaves_nothing_to_expect():
    with pytest.raises(IllegalCall):
        expected(call(3, form="mask_continuous", repeat=0), image([0, 2, 4]), readings={"scatter.repeatTimes.zero": "reject"})
