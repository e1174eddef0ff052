"""Ascend C Gather (asc-devkit@0da921b9:docs/zh/api/SIMD-API/基础API/Memory矢量计算/离散与聚合/Gather.md): element i
of dst is the src element srcBaseAddr + srcOffset[i] bytes from src (「dst[i] = src[(srcBaseAddr +
srcOffset[i]) // inputType.itemsize]」). The mask forms fill one iteration of dst (8 DataBlocks; 4 of 8-bit
data) per repeat, dst moving by dstRepStride DataBlocks, the mask (oracle/mask.py) picking the elements of
each; the offsets are read as for asc_gather (offsets.py).

Examples
--------
The count form: four int16 elements, read srcBaseAddr + srcOffset[i] bytes from src (2 + 6, 2 + 4, ...):

>>> import numpy as np
>>> from oracle import Call, Tensor
>>> from oracle.apis import gather
>>> from oracle.rules import context
>>> call = Call("gather", "ascend910b", {"dst": Tensor("UB", 0, "int16", 4),
...             "src": Tensor("UB", 32, "int16", 5), "srcOffset": Tensor("UB", 64, "uint32", 4),
...             "srcBaseAddr": 2, "count": 4}, "count")
>>> ub = np.zeros(80, dtype=np.uint8)
>>> ub[32:42] = [0x00, 0x00, 0x11, 0x11, 0x22, 0x22, 0x33, 0x33, 0x44, 0x44]
>>> ub[64:80] = np.array([6, 4, 2, 0], dtype="<u4").view(np.uint8)
>>> units = context(call).units
>>> gather.accesses(call, units, {"UB": ub})["src"]
Spots(at=array([8, 6, 4, 2]), length=2)
>>> gather.apply(call, {"UB": ub}, units)
[]
>>> [hex(b) for b in ub[:8]]
['0x44', '0x44', '0x33', '0x33', '0x22', '0x22', '0x11', '0x11']
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from ..call import Call
from ..footprint import Runs, Spots
from ..mask import hashable
from .gathering import gather_into
from .offsets import advance, follow_stride, moved, offset_entries, plain_extents, plain_side


def repeats(call: Call, units: Mapping[str, int]) -> tuple[Any, ...]:
    """What the elements of a mask form depend on (offsets.Repeats): dst moves by
    dstRepStride DataBlocks an iteration, the mask picks the elements of each."""
    args, width = call.args, units["element"]
    per = (units["repeat_8bit"] if width == 1 else units["repeat"]) // width
    stride = args["dstRepStride"] * units["dstRepStride"]
    return args["repeatTime"], per, stride, width, hashable(args["mask"]), advance(units, stride)


def accesses(call: Call, units: Mapping[str, int], memory: Mapping[str, np.ndarray] | None = None) -> dict[str, Any]:
    """src's elements are known only from the offsets in memory (None without memory)."""
    width = units["element"]
    index, dst, offs = plain_side(call, units, call.form == "count", repeats)
    offsets = offset_entries(call, memory, "srcOffset", index)
    if offsets is None:
        return {"dst": dst, "src": None, "srcOffset": offs}
    offsets, base = _placed(offsets, call.args["srcBaseAddr"], width, units)
    return {"dst": dst, "src": Spots.offsets(offsets, base, width, memory), "srcOffset": offs}


def apply(call: Call, image: Mapping[str, np.ndarray], units: Mapping[str, int], runs: Mapping[str, Any] | None = None) -> list[Any]:
    width = units["element"]
    src, dst = call.tensor("src"), call.tensor("dst")
    index, at = moved(call, units, call.form == "count", repeats)
    offsets = offset_entries(call, image, "srcOffset", index)
    if offsets is None or not offsets.size:
        return []
    offsets, base = _placed(offsets, call.args["srcBaseAddr"], width, units)
    gather_into(image, src, dst, offsets, src.addr + base, at, width)
    return []


FLOORED = "variant.floored"      # a units flag: the reading gather.offset.unaligned=floored


def _placed(offsets: np.ndarray, base: int, width: int, units: Mapping[str, int]) -> tuple[np.ndarray, int]:
    """The offsets and srcBaseAddr as the call reads elements by them: as given (bytes), or under the reading
    floored their sum rounded down to a whole element (「src[(srcBaseAddr + srcOffset[i]) // inputType.itemsize]」),
    as uint32 (a sum past 2^32 - 1, past every UB, is held there)."""
    if not units.get(FLOORED):
        return offsets, base
    sums = offsets.astype(np.int64) + base
    sums -= sums % width
    return np.minimum(sums, 2**32 - 1).astype(offsets.dtype), 0


def _floored(units: Mapping[str, int]) -> dict[str, Any]:
    """floored: element i reads the src element (srcBaseAddr + srcOffset[i]) // width."""
    return {**units, FLOORED: 1}


def nominal(call: Call, units: Mapping[str, int]) -> dict[str, Any]:
    """src's footprint if the offsets were 0, w, 2w, ...: what a generator sizes it by."""
    return {"src": extents(call, units)["src"]}


def extents(call: Call, units: Mapping[str, int]) -> dict[str, Any]:
    """Each operand's end and bytes moved as accesses (src as nominal) give them, in closed form (see
    scatter.extents)."""
    width = units["element"]
    n, dst, offs = plain_extents(call, units, call.form == "count", repeats)
    return {"dst": dst, "src": Runs(call.args["srcBaseAddr"], width, n, width), "srcOffset": offs}


VARIANTS = {"default": dict, "offsets_follow_stride": follow_stride, "floored": _floored}
