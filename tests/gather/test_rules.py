"""Gather's rules that no cell breaks alone (tests/rules/test_every_rule.py holds the others, one test per
rule id): a breaking call and a legal call at the edge, each written out."""
from __future__ import annotations

import pytest

from oracle import Call, Tensor, check


def gather(product: str, dtype: str, mask: list[int]) -> Call:
    return Call("gather", product, {"dst": Tensor("UB", 8192, dtype, 256), "src": Tensor("UB", 0, dtype, 256),
                                    "srcOffset": Tensor("UB", 16384, "uint32", 256), "srcBaseAddr": 0, "mask": mask,
                                    "repeatTime": 1, "dstRepStride": 8}, "mask_bits")


@pytest.mark.parametrize("product, refusal", [("ascend910b", "gather.dtype.supported_a2_a3"),
                                              ("ascend310b", "gather.dtype.supported_310b"),
                                              ("ascend310p-aicore", "gather.dtype.supported_310p")])
def test_mask_bits_64bit_holds_though_no_product_gathers_64_bit_types(product: str, refusal: str) -> None:
    """gather.mask.bits_64bit (the mask pages: maskLow in [0, 2^32-1], maskHigh = 0 for 64-bit operands): no
    product's Gather takes a 64-bit type, so no cell breaks it alone; beside the dtype refusal, a word past
    2^32-1 or a non-zero maskHigh breaks it, the edge 2^32-1 does not."""
    for dtype in ("int64", "uint64", "float64"):
        assert [v.rule for v in check(gather(product, dtype, [2**32 - 1, 0]))] == [refusal]
        assert [v.rule for v in check(gather(product, dtype, [2**32, 0]))] == [refusal, "gather.mask.bits_64bit"]
        assert [v.rule for v in check(gather(product, dtype, [1, 1]))] == [refusal, "gather.mask.bits_64bit"]
    assert [v.rule for v in check(gather(product, "int32", [1, 1]))] == ["gather.mask.bits_32bit"]
    assert check(gather(product, "int32", [2**64 - 1, 0])) == []
