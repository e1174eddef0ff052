"""DataCopyPad's rules one by one, each with a call at its edge that the checker passes and a call that
breaks that rule alone (tests/rules/test_every_rule.py holds every rule again on the edge sweep's calls).
Calls on ascend910b (UB 192 KB), float16 blocks of 64 bytes unless a rule is about the dtype."""
from __future__ import annotations

import pytest

from oracle import Call, Tensor, check
from oracle.spec import default_rulebook

A2 = "ascend910b"
UB_END = 192 << 10
UB0, GM0 = Tensor("UB", 0, "float16", 8192), Tensor("GM", 0, "float16", 8192)


def gm_to_ub(dtype: str = "float16", count: int = 1, length: int = 64, src_stride: int = 0, dst_stride: int = 0,
             left: int = 0, right: int = 0, value: int = 0, dst: Tensor | None = None, src: Tensor | None = None) -> Call:
    return Call("data_copy_pad", A2, {
        "dst": dst or Tensor("UB", 0, dtype, 8192), "src": src or Tensor("GM", 0, dtype, 8192),
        "dataCopyParams": {"blockCount": count, "blockLen": length, "srcStride": src_stride, "dstStride": dst_stride},
        "padParams": {"isPad": True, "leftPadding": left, "rightPadding": right, "paddingValue": value}}, "gm_to_ub")


def ub_to_gm(count: int = 1, length: int = 64, src_stride: int = 0, dst_stride: int = 0, dst: Tensor | None = None,
             src: Tensor | None = None) -> Call:
    return Call("data_copy_pad", A2, {
        "dst": dst or GM0, "src": src or UB0,
        "dataCopyParams": {"blockCount": count, "blockLen": length, "srcStride": src_stride, "dstStride": dst_stride}},
        "ub_to_gm")


def ub(addr: int, numel: int, dtype: str = "float16") -> Tensor:
    return Tensor("UB", addr, dtype, numel)


def gm(addr: int, numel: int, dtype: str = "float16") -> Tensor:
    return Tensor("GM", addr, dtype, numel)


BIG_GM = gm(0, 1 << 32)
# rule id -> (a legal call at its edge, a call that breaks it alone)
RULES = {
    "data_copy_pad.path.gm_to_ub": (gm_to_ub(), gm_to_ub(dst=gm(0, 8192))),
    "data_copy_pad.path.ub_to_gm": (ub_to_gm(), ub_to_gm(dst=ub(32768, 8192))),
    "data_copy_pad.dtype.same": (gm_to_ub(src=gm(0, 8192, "float16")), gm_to_ub(src=gm(0, 8192, "int16"))),
    "data_copy_pad.dst.align.UB": (gm_to_ub(dst=ub(32, 8192)), gm_to_ub(dst=ub(16, 8192))),
    "data_copy_pad.src.align.UB": (ub_to_gm(src=ub(32, 8192)), ub_to_gm(src=ub(16, 8192))),
    "data_copy_pad.blockCount.range": (gm_to_ub(count=4095, length=32, src=gm(0, 65536), dst=ub(0, 65536)),
                                       gm_to_ub(count=4096, length=32, src=gm(0, 65536), dst=ub(0, 65536))),
    "data_copy_pad.blockLen.range": (ub_to_gm(length=0), ub_to_gm(length=-32)),
    "data_copy_pad.srcStride.range": (gm_to_ub(count=2, src_stride=2**32 - 1, src=BIG_GM),
                                      gm_to_ub(count=2, src_stride=2**32, src=BIG_GM)),
    "data_copy_pad.dstStride.range": (ub_to_gm(count=2, dst_stride=2**32 - 1, dst=BIG_GM),
                                      ub_to_gm(count=2, dst_stride=2**32, dst=BIG_GM)),
    "data_copy_pad.src.bounds": (gm_to_ub(src=gm(0, 32)), gm_to_ub(src=gm(0, 16))),
    "data_copy_pad.dst.bounds": (gm_to_ub(dst=ub(0, 32)), gm_to_ub(dst=ub(0, 16))),
    "data_copy_pad.src.capacity": (ub_to_gm(src=ub(UB_END - 64, 32)), ub_to_gm(src=ub(UB_END - 32, 32))),
    "data_copy_pad.dst.capacity": (gm_to_ub(dst=ub(UB_END - 64, 32)), gm_to_ub(dst=ub(UB_END - 32, 32))),
}
# the paddings (at most 32 bytes: 32 / 16 / 8 / 4 elements) and the padding value per element width
RULES.update({
    "data_copy_pad.leftPadding.b8": (gm_to_ub("int8", left=32), gm_to_ub("int8", left=33)),
    "data_copy_pad.rightPadding.b8": (gm_to_ub("int8", right=32), gm_to_ub("int8", right=33)),
    "data_copy_pad.paddingValue.b8": (gm_to_ub("int8", value=255), gm_to_ub("int8", value=256)),
    "data_copy_pad.leftPadding.b16": (gm_to_ub("int16", left=16), gm_to_ub("int16", left=17)),
    "data_copy_pad.rightPadding.b16": (gm_to_ub("int16", right=16), gm_to_ub("int16", right=17)),
    "data_copy_pad.paddingValue.b16": (gm_to_ub("int16", value=65535), gm_to_ub("int16", value=65536)),
    "data_copy_pad.leftPadding.b32": (gm_to_ub("int32", left=8), gm_to_ub("int32", left=9)),
    "data_copy_pad.rightPadding.b32": (gm_to_ub("int32", right=8), gm_to_ub("int32", right=9)),
    "data_copy_pad.paddingValue.b32": (gm_to_ub("int32", value=2**32 - 1), gm_to_ub("int32", value=2**32)),
    "data_copy_pad.leftPadding.b64": (gm_to_ub("int64", left=4), gm_to_ub("int64", left=5)),
    "data_copy_pad.rightPadding.b64": (gm_to_ub("int64", right=4), gm_to_ub("int64", right=5)),
    "data_copy_pad.paddingValue.b64": (gm_to_ub("int64", value=0), gm_to_ub("int64", value=1)),
})


@pytest.mark.parametrize("rule", RULES, ids=list(RULES))
def test_edge_passes_and_breaking_call_names_its_rule(rule: str) -> None:
    edge, breaking = RULES[rule]
    assert check(edge) == [], rule
    assert [v.rule for v in check(breaking)] == [rule]


@pytest.mark.parametrize("product", ["ascend910_93", "ascend910b"])
def test_dtype_supported_lists_every_type(product: str) -> None:
    """data_copy_pad.dtype.supported: the A2 / A3 list is every element type the kit knows, so no call breaks
    it (no cell does); a padded move of each type on each of those products passes."""
    book = default_rulebook()
    assert sorted(book.api("data_copy_pad").rule("data_copy_pad.dtype.supported")["allowed"]) == sorted(book.dtypes)
    for dtype in book.dtypes:
        call = Call("data_copy_pad", product, {**gm_to_ub(dtype).args}, "gm_to_ub")
        assert check(call) == [], dtype
