"""Gatherb's rules one by one, each with a call at its edge that the checker passes and a call that breaks
that rule alone (tests/rules/test_every_rule.py holds every rule again on the edge sweep's calls). Calls on
ascend910b (UB 192 KB): eight uint16 DataBlocks gathered by the offsets 224, 192, ..., 0 (the page's
example), one repeat, unless a rule is about something else. Rules read on offsets' values are checked with
the UB image that holds them."""
from __future__ import annotations

import numpy as np
import pytest

from oracle import Call, Tensor, check

A2, A200 = "ascend910b", "ascend310b"
UB_END = 192 << 10
SRC, OFFS, DST = 0, 4096, 8192
PAGE_OFFSETS = (224, 192, 160, 128, 96, 64, 32, 0)


def gatherb(repeat: int = 1, blk: int = 1, rep: int = 8, dst: Tensor | None = None, src: Tensor | None = None,
            offset: Tensor | None = None, product: str = A2) -> Call:
    return Call("gatherb", product, {
        "dst": dst or Tensor("UB", DST, "uint16", 128), "src": src or Tensor("UB", SRC, "uint16", 128),
        "offset": offset or Tensor("UB", OFFS, "uint32", 8), "repeatTime": repeat,
        "repeatParams": {"dstBlkStride": blk, "dstRepStride": rep}})


def ub(addr: int, numel: int, dtype: str = "uint16") -> Tensor:
    return Tensor("UB", addr, dtype, numel)


def offsets(values=PAGE_OFFSETS, at: int = OFFS) -> dict[str, np.ndarray]:
    image = np.zeros(UB_END, np.uint8)
    image[at:at + 4 * len(values)] = np.array(values, "<u4").view(np.uint8)
    return {"UB": image}


MANY = ub(65536, 256 * 128)                 # 256 repeats of 8 DataBlocks, one after the other
MANY_OFFSETS = ub(OFFS, 8 * 256, "uint32")
# rule id -> (a legal call at its edge, a call that breaks it alone, the offsets the UB holds)
RULES = {
    "gatherb.offset.dtype": (gatherb(), gatherb(offset=ub(OFFS, 8, "int32")), PAGE_OFFSETS),
    "gatherb.dtype.same": (gatherb(dst=ub(DST, 128, "int16"), src=ub(SRC, 128, "int16"), product=A200),
                           gatherb(dst=ub(DST, 128, "uint16"), src=ub(SRC, 128, "int16"), product=A200), PAGE_OFFSETS),
    "gatherb.dtype.supported_310b": (gatherb(dst=ub(DST, 32, "int64"), src=ub(SRC, 32, "int64"), product=A200),
                                     gatherb(dst=ub(DST, 32, "uint64"), src=ub(SRC, 32, "uint64"), product=A200),
                                     PAGE_OFFSETS),
    "gatherb.dst.scope": (gatherb(), gatherb(dst=Tensor("GM", DST, "uint16", 128)), PAGE_OFFSETS),
    "gatherb.src.scope": (gatherb(), gatherb(src=Tensor("GM", SRC, "uint16", 128)), None),
    "gatherb.offset.scope": (gatherb(), gatherb(offset=Tensor("GM", OFFS, "uint32", 8)), None),
    "gatherb.dst.align": (gatherb(dst=ub(DST + 32, 128)), gatherb(dst=ub(DST + 16, 128)), PAGE_OFFSETS),
    "gatherb.src.align": (gatherb(src=ub(SRC + 32, 128)), gatherb(src=ub(SRC + 16, 128)), None),
    "gatherb.offset.align": (gatherb(offset=ub(OFFS + 32, 8, "uint32")), gatherb(offset=ub(OFFS + 16, 8, "uint32")),
                             None),
    "gatherb.repeatTime.range": (gatherb(repeat=255, dst=MANY, offset=MANY_OFFSETS),
                                 gatherb(repeat=256, dst=MANY, offset=MANY_OFFSETS), PAGE_OFFSETS * 256),
    "gatherb.dstBlkStride.range": (gatherb(blk=255, dst=ub(DST, 16 * (255 * 7 + 1))),
                                   gatherb(blk=256, dst=ub(DST, 16 * (256 * 7 + 1))), PAGE_OFFSETS),
    "gatherb.dstRepStride.range": (gatherb(rep=0), gatherb(rep=65536), PAGE_OFFSETS),
    "gatherb.dst.bounds": (gatherb(dst=ub(DST, 128)), gatherb(dst=ub(DST, 127)), PAGE_OFFSETS),
    "gatherb.offset.bounds": (gatherb(offset=ub(OFFS, 8, "uint32")), gatherb(offset=ub(OFFS, 7, "uint32")),
                              PAGE_OFFSETS),
    "gatherb.dst.capacity": (gatherb(dst=ub(UB_END - 256, 128)), gatherb(dst=ub(UB_END - 224, 128)), PAGE_OFFSETS),
    "gatherb.src.capacity": (gatherb(src=ub(UB_END - 256, 128)), gatherb(src=ub(UB_END - 224, 128)), (0,) * 8),
    "gatherb.offset.capacity": (gatherb(offset=ub(UB_END - 32, 8, "uint32")),
                                gatherb(offset=ub(UB_END - 32, 16, "uint32")), None),
    "gatherb.offset.block_align": (gatherb(), gatherb(), (224, 192, 160, 128, 96, 64, 32, 2)),
    "gatherb.src.reach": (gatherb(), gatherb(), (224, 192, 160, 128, 96, 64, 32, UB_END)),
    "gatherb.overlap.src": (gatherb(dst=ub(SRC + 256, 128)), gatherb(dst=ub(SRC + 224, 128)), PAGE_OFFSETS),
    "gatherb.overlap.offsets": (gatherb(dst=ub(OFFS + 32, 128)), gatherb(dst=ub(OFFS, 128)), PAGE_OFFSETS),
    "gatherb.dst.self_overlap": (gatherb(repeat=2, rep=8, dst=ub(DST, 256), offset=ub(OFFS, 16, "uint32")),
                                 gatherb(repeat=2, rep=7, dst=ub(DST, 256), offset=ub(OFFS, 16, "uint32")),
                                 PAGE_OFFSETS * 2),
}
EDGE_OFFSETS = {"gatherb.offset.block_align": PAGE_OFFSETS, "gatherb.src.reach": (224, 192, 160, 128, 96, 64, 32,
                                                                                  UB_END - 32)}


@pytest.mark.parametrize("rule", RULES, ids=list(RULES))
def test_edge_passes_and_breaking_call_names_its_rule(rule: str) -> None:
    edge, breaking, values = RULES[rule]
    memory = None if values is None else offsets(values)
    edge_memory = offsets(EDGE_OFFSETS[rule]) if rule in EDGE_OFFSETS else memory
    assert check(edge, edge_memory) == [], rule
    assert [v.rule for v in check(breaking, memory)] == [rule]
