"""Gather's rules one by one, each with a call at its edge that the checker passes and a call that breaks
that rule alone (tests/rules/test_every_rule.py holds every rule again on the edge sweep's calls). Calls on
ascend910b (UB 192 KB): 128 halves gathered in reverse (the page's offsets 254, 252, ..., 0), count form,
unless a rule is about something else. Rules read on offsets' values are checked with the UB image that
holds them."""
from __future__ import annotations

import numpy as np
import pytest

from oracle import Call, Tensor, check

A2 = "ascend910b"
UB_END = 192 << 10
SRC, OFFS, DST = 0, 4096, 8192
REVERSED = [2 * (127 - i) for i in range(128)]


def call(form: str = "count", dtype: str = "float16", dst: Tensor | None = None, src: Tensor | None = None,
         offsets: Tensor | None = None, base: int = 0, product: str = A2, **params) -> Call:
    args = {"dst": dst or Tensor("UB", DST, dtype, 128), "src": src or Tensor("UB", SRC, dtype, 128),
            "srcOffset": offsets or Tensor("UB", OFFS, "uint32", 128), "srcBaseAddr": base}
    if form == "count":
        args["count"] = params.get("count", 128)
    else:
        args.update(mask=params.get("mask", 128), repeatTime=params.get("repeatTime", 1),
                    dstRepStride=params.get("dstRepStride", 8))
    return Call("gather", product, args, form)


def ub(addr: int, numel: int, dtype: str = "float16") -> Tensor:
    return Tensor("UB", addr, dtype, numel)


def image(values, at: int = OFFS) -> dict[str, np.ndarray]:
    ub_bytes = np.zeros(UB_END, np.uint8)
    ub_bytes[at:at + 4 * len(values)] = np.array(values, "<u4").view(np.uint8)
    return {"UB": ub_bytes}


FLOATS = {"form": "mask_continuous", "dtype": "float32", "mask": 64, "dstRepStride": 8, "src": ub(0, 64, "float32"),
          "dst": ub(69632, 256 * 64, "float32"), "offsets": ub(OFFS, 256 * 64, "uint32")}
A200 = {"product": "ascend310b"}
# rule id -> (a legal call at its edge, a call that breaks it alone, the offsets the UB holds at OFFS for the
# edge and for the breaking call; None: the rule reads no offset)
RULES = {
    "gather.srcOffset.dtype": (call(), call(offsets=ub(OFFS, 128, "int32")), None),
    "gather.dtype.same": (call(src=ub(SRC, 128, "float16")), call(src=ub(SRC, 128, "int16")), None),
    "gather.dst.scope": (call(), call(dst=Tensor("GM", DST, "float16", 128)), None),
    "gather.src.scope": (call(), call(src=Tensor("GM", SRC, "float16", 128)), None),
    "gather.srcOffset.scope": (call(), call(offsets=Tensor("GM", OFFS, "uint32", 128)), None),
    "gather.dst.align": (call(dst=ub(DST + 32, 128)), call(dst=ub(DST + 16, 128)), None),
    "gather.src.align": (call(src=ub(SRC + 32, 128)), call(src=ub(SRC + 16, 128)), None),
    "gather.srcOffset.align": (call(offsets=ub(OFFS + 32, 128, "uint32")), call(offsets=ub(OFFS + 16, 128, "uint32")),
                               None),
    "gather.srcBaseAddr.range": (call(base=0), call(base=-2), None),
    "gather.count.range": (call(count=0), call(count=-1), None),
    "gather.repeatTime.range": (call(repeatTime=255, **FLOATS), call(repeatTime=256, **FLOATS), None),
    "gather.dstRepStride.range": (call("mask_continuous", dstRepStride=0), call("mask_continuous", dstRepStride=65536),
                                  None),
    "gather.dst.bounds": (call(dst=ub(DST, 128)), call(dst=ub(DST, 127)), None),
    "gather.srcOffset.bounds": (call(offsets=ub(OFFS, 128, "uint32")), call(offsets=ub(OFFS, 127, "uint32")), None),
    "gather.dst.capacity": (call(dst=ub(UB_END - 256, 128)), call(dst=ub(UB_END - 224, 128)), None),
    "gather.src.capacity": (call(src=ub(UB_END - 256, 128)), call(src=ub(UB_END - 224, 128)), ([0] * 128, [0] * 128)),
    "gather.srcOffset.capacity": (call(offsets=ub(UB_END - 512, 128, "uint32")),
                                  call(offsets=ub(UB_END - 480, 128, "uint32")), None),
    "gather.src.reach": (call(), call(), ([UB_END - 2] + [0] * 127, [UB_END] + [0] * 127)),
    "gather.offset.range_8bit_310b": (call(dtype="int8", **A200), call(dtype="int8", **A200),
                                      ([65535] + [0] * 127, [65536] + [0] * 127)),
    "gather.offset.range_16bit_310b": (call(**A200), call(**A200), ([131070] + [0] * 127, [131072] + [0] * 127)),
    "gather.overlap.src": (call(dst=ub(SRC + 256, 128)), call(dst=ub(SRC + 224, 128)), (REVERSED, REVERSED)),
    "gather.overlap.offsets": (call(dst=ub(OFFS + 512, 128)), call(dst=ub(OFFS + 480, 128)), (REVERSED, REVERSED)),
    "gather.mask.bits_16bit": (call("mask_bits", mask=[2**64 - 1, 2**64 - 1]), call("mask_bits", mask=[1, 2, 3]), None),
    "gather.mask.count_range": (call("mask_continuous", mask=2**64 - 1), call("mask_continuous", mask=2**64), None),
}


@pytest.mark.parametrize("rule", RULES, ids=list(RULES))
def test_edge_passes_and_breaking_call_names_its_rule(rule: str) -> None:
    edge, breaking, values = RULES[rule]
    edge_memory, memory = (None, None) if values is None else (image(values[0]), image(values[1]))
    assert check(edge, edge_memory) == [], rule
    assert [v.rule for v in check(breaking, memory)] == [rule]


def gather(product: str, dtype: str, mask: list[int]) -> Call:
    return call("mask_bits", dtype, ub(8192, 256, dtype), ub(0, 256, dtype), ub(16384, 256, "uint32"),
                product=product, mask=mask)


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
