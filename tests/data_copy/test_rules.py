"""DataCopy's rules one by one, each with a call at its edge that the checker passes and a call that breaks
that rule alone (tests/rules/test_every_rule.py holds every rule again on the edge sweep's calls). Calls on
ascend910b: UB 192 KB, float16 unless a rule is about the dtype."""
from __future__ import annotations

import pytest

from oracle import Call, Tensor, check
from oracle.spec import default_rulebook

A2 = "ascend910b"
UB_END = 192 << 10


def ub(addr: int, numel: int, dtype: str = "float16") -> Tensor:
    return Tensor("UB", addr, dtype, numel)


def gm(addr: int, numel: int, dtype: str = "float16") -> Tensor:
    return Tensor("GM", addr, dtype, numel)


def count(dst: Tensor, src: Tensor, n: int) -> Call:
    return Call("data_copy", A2, {"dst": dst, "src": src, "count": n}, "count")


def blocks(dst: Tensor, src: Tensor, block_count: int, block_len: int, src_gap: int = 0, dst_gap: int = 0) -> Call:
    return Call("data_copy", A2, {"dst": dst, "src": src, "repeatParams": {
        "blockCount": block_count, "blockLen": block_len, "srcGap": src_gap, "dstGap": dst_gap}}, "params")


# rule id -> (a legal call at its edge, a call that breaks it alone)
RULES = {
    "data_copy.dtype.same": (count(ub(0, 512, "int16"), gm(0, 512, "int16"), 512),
                             count(ub(0, 512), gm(0, 512, "int16"), 512)),
    "data_copy.src.align.UB": (count(gm(0, 512), ub(32, 512), 512), count(gm(0, 512), ub(16, 512), 512)),
    "data_copy.dst.align.GM": (count(gm(2, 512), ub(0, 512), 512), count(gm(1, 512), ub(0, 512), 512)),
    "data_copy.count.range": (count(ub(0, 512), gm(0, 512), 0), count(ub(0, 512), gm(0, 512), -1)),
    "data_copy.blockCount.range": (blocks(ub(0, 4095 * 16), gm(0, 4095 * 16), 4095, 1),
                                   blocks(ub(0, 4096 * 16), gm(0, 4096 * 16), 4096, 1)),
    "data_copy.blockLen.range": (blocks(ub(0, 512), gm(0, 512), 1, 0), blocks(ub(0, 512), gm(0, 512), 1, -1)),
    "data_copy.srcGap.range": (blocks(ub(0, 512), gm(0, 1 << 22), 2, 1, src_gap=65535),
                               blocks(ub(0, 512), gm(0, 1 << 22), 2, 1, src_gap=65536)),
    "data_copy.dstGap.range": (blocks(gm(0, 1 << 22), ub(0, 512), 1, 1, dst_gap=65535),
                               blocks(gm(0, 1 << 22), ub(0, 512), 1, 1, dst_gap=65536)),
    "data_copy.src.bounds": (count(ub(0, 512), gm(0, 512), 512), count(ub(0, 512), gm(0, 256), 512)),
    "data_copy.dst.bounds": (count(ub(0, 512), gm(0, 512), 512), count(ub(0, 256), gm(0, 512), 512)),
    "data_copy.src.capacity": (count(gm(0, 512), ub(UB_END - 1024, 512), 512),
                               count(gm(0, 512), ub(UB_END - 512, 512), 512)),
    "data_copy.dst.capacity": (count(ub(UB_END - 1024, 512), gm(0, 512), 512),
                               count(ub(UB_END - 512, 512), gm(0, 512), 512)),
    "data_copy.overlap": (count(ub(1024, 512), ub(0, 512), 512), count(ub(0, 512), ub(992, 512), 512)),
}


@pytest.mark.parametrize("rule", RULES, ids=list(RULES))
def test_edge_passes_and_breaking_call_names_its_rule(rule: str) -> None:
    edge, breaking = RULES[rule]
    assert check(edge) == [], rule
    assert [v.rule for v in check(breaking)] == [rule]


@pytest.mark.parametrize("product", ["ascend910_93", "ascend910b", "ascend310b"])
def test_dtype_supported_lists_every_type(product: str) -> None:
    """data_copy.dtype.supported: the A2 / A3 / 200I-500 A2 list is every element type the kit knows, so no
    call breaks it (no cell does); a move of each type on each of those products passes."""
    book = default_rulebook()
    assert sorted(book.api("data_copy").rule("data_copy.dtype.supported")["allowed"]) == sorted(book.dtypes)
    for dtype in book.dtypes:
        n = 256 // book.itemsize(dtype)
        call = Call("data_copy", product, {"dst": ub(0, n, dtype), "src": gm(0, n, dtype), "count": n}, "count")
        assert check(call) == [], dtype
