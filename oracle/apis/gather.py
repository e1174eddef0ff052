"""Ascend C Gather (asc-devkit@0da921b9:docs/zh/api/SIMD-API/基础API/Memory矢量计算/离散与聚合/Gather.md): element i
of dst is the src element srcBaseAddr + srcOffset[i] bytes from src (「dst[i] = src[(srcBaseAddr +
srcOffset[i]) // inputType.itemsize]」). The mask forms fill one iteration of dst (8 DataBlocks; 4 of 8-bit
data) per repeat, dst moving by dstRepStride DataBlocks, the mask (oracle/mask.py) picking the elements of
each; the offsets are read as for asc_gather (offsets.py).
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from ..call import Call
from ..footprint import Runs, Spots
from ..mask import hashable
from .offsets import advance, follow_stride, gather_into, moved, offset_entries, plain_extents, plain_side


def repeats(call: Call, units: Mapping[str, int]) -> tuple:
    """What the elements of a mask form depend on (offsets.repeat_elements's arguments): dst moves by
    dstRepStride DataBlocks an iteration, the mask picks the elements of each."""
    args, width = call.args, units["element"]
    per = (units["repeat_8bit"] if width == 1 else units["repeat"]) // width
    stride = args["dstRepStride"] * units["dstRepStride"]
    return args["repeatTime"], per, stride, width, hashable(args["mask"]), advance(units, stride)


def accesses(call: Call, units: Mapping[str, int], memory: Mapping[str, np.ndarray] | None = None) -> dict:
    """src's elements are known only from the offsets in memory (None without memory)."""
    width = units["element"]
    index, dst, offs = plain_side(call, units, call.form == "count", repeats)
    offsets = offset_entries(call, memory, "srcOffset", index)
    src = None if offsets is None else Spots.offsets(offsets, call.args["srcBaseAddr"], width)
    return {"dst": dst, "src": src, "srcOffset": offs}


def apply(call: Call, image: Mapping[str, np.ndarray], units: Mapping[str, int], runs: Mapping | None = None) -> list:
    width = units["element"]
    src, dst = call.tensor("src"), call.tensor("dst")
    index, at = moved(call, units, call.form == "count", repeats)
    offsets = offset_entries(call, image, "srcOffset", index)
    if offsets is None or not offsets.size:
        return []
    gather_into(image, src, dst, offsets, src.addr + call.args["srcBaseAddr"], at, width)
    return []


def nominal(call: Call, units: Mapping[str, int]) -> dict:
    """src's footprint if the offsets were 0, w, 2w, ...: what a generator sizes it by."""
    return {"src": extents(call, units)["src"]}


def extents(call: Call, units: Mapping[str, int]) -> dict:
    """Each operand's end and bytes moved as accesses (src as nominal) give them, in closed form (see
    scatter.extents)."""
    width = units["element"]
    n, dst, offs = plain_extents(call, units, call.form == "count", repeats)
    return {"dst": dst, "src": Runs(call.args["srcBaseAddr"], width, n, width), "srcOffset": offs}


VARIANTS = {"default": dict, "offsets_follow_stride": follow_stride}
