"""DataCopy ND->NZ's rules one by one, each with a call at its edge that the checker passes and a call that
breaks that rule alone (tests/rules/test_every_rule.py holds every rule again on the edge sweep's calls).
Calls on ascend910b (UB 192 KB): one int16 ND matrix of one row and one column, every stride at its least
(dstNzMatrixStride one matrix of 16 elements: 0 is an ambiguity of its own), unless a rule is about
something else."""
from __future__ import annotations

import pytest

from oracle import Call, Tensor, check

UB_END = 192 << 10
LEAST = {"ndNum": 1, "nValue": 1, "dValue": 1, "srcNdMatrixStride": 0, "srcDValue": 1, "dstNzC0Stride": 1,
         "dstNzNStride": 1, "dstNzMatrixStride": 16}


def nd2nz(dtype: str = "int16", dst: Tensor | None = None, src: Tensor | None = None, **params: int) -> Call:
    return Call("data_copy_nd2nz", "ascend910b", {"dst": dst or Tensor("UB", 0, dtype, 16),
                                                  "src": src or Tensor("GM", 0, dtype, 1), "intriParams": {**LEAST, **params}})


def ub(addr: int, numel: int, dtype: str = "int16") -> Tensor:
    return Tensor("UB", addr, dtype, numel)


def gm(addr: int, numel: int, dtype: str = "int16") -> Tensor:
    return Tensor("GM", addr, dtype, numel)


# rule id -> (a legal call at its edge, a call that breaks it alone)
RULES = {
    "data_copy_nd2nz.path.supported": (nd2nz(), nd2nz(dst=gm(0, 16), src=ub(0, 1))),
    "data_copy_nd2nz.dtype.supported": (nd2nz("int32", dst=ub(0, 8, "int32")), nd2nz("int64", dst=ub(0, 4, "int64"))),
    "data_copy_nd2nz.dtype.same": (nd2nz(dst=ub(0, 16, "int16")), nd2nz(dst=ub(0, 16, "uint16"))),
    "data_copy_nd2nz.ndNum.range": (nd2nz(ndNum=4095, dst=ub(0, 16 * 4095)), nd2nz(ndNum=4096, dst=ub(0, 16 * 4096))),
    "data_copy_nd2nz.nValue.range": (nd2nz(nValue=0), nd2nz(nValue=-1)),
    "data_copy_nd2nz.dValue.range": (nd2nz(dValue=0), nd2nz(dValue=-1)),
    "data_copy_nd2nz.srcNdMatrixStride.range": (nd2nz(srcNdMatrixStride=65535), nd2nz(srcNdMatrixStride=65536)),
    "data_copy_nd2nz.srcDValue.range": (nd2nz(srcDValue=65535), nd2nz(srcDValue=65536)),
    "data_copy_nd2nz.dstNzC0Stride.range": (nd2nz(dstNzC0Stride=16384), nd2nz(dstNzC0Stride=16385)),
    "data_copy_nd2nz.dstNzNStride.range": (nd2nz(dstNzNStride=16384), nd2nz(dstNzNStride=16385)),
    "data_copy_nd2nz.dstNzMatrixStride.range": (nd2nz(dstNzMatrixStride=65535), nd2nz(dstNzMatrixStride=65536)),
    "data_copy_nd2nz.dst.align": (nd2nz(dst=ub(32, 16)), nd2nz(dst=ub(16, 16))),
    "data_copy_nd2nz.src.bounds": (nd2nz(src=gm(0, 1)), nd2nz(src=gm(0, 0))),
    "data_copy_nd2nz.dst.bounds": (nd2nz(dst=ub(0, 16)), nd2nz(dst=ub(0, 15))),
    "data_copy_nd2nz.dst.capacity": (nd2nz(dst=ub(UB_END - 64, 32)), nd2nz(dst=ub(UB_END - 32, 32))),
}


@pytest.mark.parametrize("rule", RULES, ids=list(RULES))
def test_edge_passes_and_breaking_call_names_its_rule(rule: str) -> None:
    edge, breaking = RULES[rule]
    assert check(edge) == [], rule
    assert [v.rule for v in check(breaking)] == [rule]
