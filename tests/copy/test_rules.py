"""Copy's rules one by one, each with a call at its edge that the checker passes and a call that breaks that
rule alone (tests/rules/test_every_rule.py holds every rule again on the edge sweep's calls). Calls on
ascend910b (UB 192 KB): one repeat of 64 int32 (mask 64, count mode), strides {1, 1, 8, 8}, unless a rule is
about something else."""
from __future__ import annotations

import pytest

from oracle import Call, Tensor, check

UB_END = 192 << 10


def call(dst: Tensor | None = None, src: Tensor | None = None, mask=64, repeat: int = 1,
         strides: tuple[int, int, int, int] = (1, 1, 8, 8), form: str = "mask_continuous", dtype: str = "int32") -> Call:
    """strides in CopyRepeatParams's order: {dstStride, srcStride, dstRepeatSize, srcRepeatSize}."""
    fields = dict(zip(("dstStride", "srcStride", "dstRepeatSize", "srcRepeatSize"), strides))
    return Call("copy", "ascend910b", {"dst": dst or Tensor("UB", 16384, dtype, 64), "src": src or Tensor("UB", 0, dtype, 64),
                                       "mask": mask, "repeatTime": repeat, "repeatParams": fields}, form)


def ub(addr: int, numel: int, dtype: str = "int32") -> Tensor:
    return Tensor("UB", addr, dtype, numel)


HALVES = {"dtype": "int16", "dst": ub(16384, 128, "int16"), "src": ub(0, 128, "int16"), "form": "mask_bits"}
# rule id -> (a legal call at its edge, a call that breaks it alone); a mask of 8 int32 moves one DataBlock
# per repeat, so a block stride changes nothing the bounds see
RULES = {
    "copy.dtype.same": (call(src=ub(0, 64, "int32")), call(src=ub(0, 64, "float32"))),
    "copy.dst.scope": (call(), call(dst=Tensor("GM", 16384, "int32", 64))),
    "copy.src.scope": (call(), call(src=Tensor("GM", 0, "int32", 64))),
    "copy.dst.align": (call(dst=ub(16416, 64)), call(dst=ub(16400, 64))),
    "copy.src.align": (call(src=ub(32, 64)), call(src=ub(16, 64))),
    "copy.repeatTime.range": (call(repeat=255, dst=ub(65536, 256 * 64), src=ub(0, 256 * 64)),
                              call(repeat=256, dst=ub(65536, 256 * 64), src=ub(0, 256 * 64))),
    "copy.dstStride.range": (call(mask=8, strides=(65535, 1, 8, 8)), call(mask=8, strides=(65536, 1, 8, 8))),
    "copy.srcStride.range": (call(mask=8, strides=(1, 65535, 8, 8)), call(mask=8, strides=(1, 65536, 8, 8))),
    "copy.dstRepeatSize.range": (call(strides=(1, 1, 4095, 8)), call(strides=(1, 1, 4096, 8))),
    "copy.srcRepeatSize.range": (call(strides=(1, 1, 8, 4095)), call(strides=(1, 1, 8, 4096))),
    "copy.dst.bounds": (call(dst=ub(16384, 64)), call(dst=ub(16384, 63))),
    "copy.src.bounds": (call(src=ub(0, 64)), call(src=ub(0, 63))),
    "copy.dst.capacity": (call(dst=ub(UB_END - 256, 64)), call(dst=ub(UB_END - 224, 64))),
    "copy.src.capacity": (call(src=ub(UB_END - 256, 64)), call(src=ub(UB_END - 224, 64))),
    "copy.overlap": (call(dst=ub(256, 64)), call(dst=ub(224, 64))),
    "copy.mask.bits_16bit": (call(mask=[2**64 - 1, 2**64 - 1], **HALVES), call(mask=[1, 2, 3], **HALVES)),
    "copy.mask.bits_32bit": (call(form="mask_bits", mask=[2**64 - 1, 0]), call(form="mask_bits", mask=[1, 1])),
    "copy.mask.count_range": (call(mask=2**64 - 1), call(mask=2**64)),
}


@pytest.mark.parametrize("rule", RULES, ids=list(RULES))
def test_edge_passes_and_breaking_call_names_its_rule(rule: str) -> None:
    edge, breaking = RULES[rule]
    assert check(edge) == [], rule
    assert [v.rule for v in check(breaking)] == [rule]


def copy(dtype: str, mask: list[int]) -> Call:
    return call(ub(16384, 256, dtype), ub(0, 256, dtype), mask, form="mask_bits", dtype=dtype)


def test_mask_bits_64bit_holds_though_no_product_copies_64_bit_types() -> None:
    """copy.mask.bits_64bit (the mask pages: maskLow in [0, 2^32-1], maskHigh = 0 for 64-bit operands): no
    product's Copy takes a 64-bit type (copy.dtype.supported), so no cell breaks it alone; beside that
    refusal, a word past 2^32-1 or a non-zero maskHigh breaks it, the edge 2^32-1 does not."""
    for dtype in ("int64", "uint64", "float64"):
        assert [v.rule for v in check(copy(dtype, [2**32 - 1, 0]))] == ["copy.dtype.supported"]
        assert [v.rule for v in check(copy(dtype, [2**32, 0]))] == ["copy.dtype.supported", "copy.mask.bits_64bit"]
        assert [v.rule for v in check(copy(dtype, [1, 1]))] == ["copy.dtype.supported", "copy.mask.bits_64bit"]
    assert check(copy("int32", [2**64 - 1, 0])) == []        # a 32-bit operand's word: bits_32bit's range
