"""Copy's rules that no cell breaks alone (tests/rules/test_every_rule.py holds the others, one test per rule
id): a breaking call and a legal call at the edge, each written out."""
from __future__ import annotations

from oracle import Call, Tensor, check


def copy(dtype: str, mask: list[int]) -> Call:
    fields = {"dstStride": 1, "srcStride": 1, "dstRepeatSize": 8, "srcRepeatSize": 8}
    return Call("copy", "ascend910b", {"dst": Tensor("UB", 16384, dtype, 256), "src": Tensor("UB", 0, dtype, 256),
                                       "mask": mask, "repeatTime": 1, "repeatParams": fields}, "mask_bits")


def test_mask_bits_64bit_holds_though_no_product_copies_64_bit_types() -> None:
    """copy.mask.bits_64bit (the mask pages: maskLow in [0, 2^32-1], maskHigh = 0 for 64-bit operands): no
    product's Copy takes a 64-bit type (copy.dtype.supported), so no cell breaks it alone; beside that
    refusal, a word past 2^32-1 or a non-zero maskHigh breaks it, the edge 2^32-1 does not."""
    for dtype in ("int64", "uint64", "float64"):
        assert [v.rule for v in check(copy(dtype, [2**32 - 1, 0]))] == ["copy.dtype.supported"]
        assert [v.rule for v in check(copy(dtype, [2**32, 0]))] == ["copy.dtype.supported", "copy.mask.bits_64bit"]
        assert [v.rule for v in check(copy(dtype, [1, 1]))] == ["copy.dtype.supported", "copy.mask.bits_64bit"]
    assert check(copy("int32", [2**64 - 1, 0])) == []        # a 32-bit operand's word: bits_32bit's range
