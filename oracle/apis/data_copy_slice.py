"""Ascend C DataCopy by SliceInfo (asc-devkit@0da921b9:docs/zh/api/SIMD-API/基础API/Memory矢量计算/数据搬运/
GM与UB数据搬运/GM与UB切片数据搬运(DataCopy).md): GM -> UB and UB -> GM, a subset of a tensor of up to eight
dimensions onto a subset of another.

Each side places its slices by its own SliceInfo list (oracle/slicing.py: startIndex, stride and shapeValue per
dimension); how many move is srcSliceInfo's (N slices of srcSliceInfo[0]'s burstLen x 32 B per row, and each
higher dimension's index count), and the j-th slice of the source, dimension 0 fastest, lands on the j-th of
the destination. The variant `truncated_ub_stride` (a reading of data_copy_slice.ub_stride.truncated) rounds
the UB side's dimension-0 gap down to whole DataBlocks.

Examples
--------
One dimension, int16 (a DataBlock is 16 elements): from a 48-element row in GM, two slices of one DataBlock
with 16 elements between them (endIndex 47 = (2-1) x 16 + 2 x 16 - 1, the page's formula), onto a filled
32-element row in UB:

>>> import numpy as np
>>> from oracle import Call, Tensor
>>> from oracle.apis import data_copy_slice
>>> from oracle.rules import context
>>> def info(start, end, stride, burst, shape):
...     return {"startIndex": start, "endIndex": end, "stride": stride, "burstLen": burst, "shapeValue": shape}
>>> call = Call("data_copy_slice", "ascend910b", {"dst": Tensor("UB", 0, "int16", 32),
...             "src": Tensor("GM", 0, "int16", 48), "dstSliceInfo": [info(0, 31, 0, 1, 32)],
...             "srcSliceInfo": [info(0, 47, 16, 1, 48)], "dimValue": 1})
>>> units = context(call).units
>>> data_copy_slice.accesses(call, units)
{'src': Lattice(first=0, steps=(64,), counts=(2,), length=32), 'dst': Lattice(first=0, steps=(32,), counts=(2,), length=32)}
>>> gm, ub = np.arange(96, dtype=np.uint8), np.zeros(64, dtype=np.uint8)
>>> data_copy_slice.apply(call, {"GM": gm, "UB": ub}, units)
>>> ub.tolist()
[0, 1, ..., 31, 64, 65, ..., 95]
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from ..call import Call
from ..lattice import Lattice
from ..slicing import burst, counts, fields, places

TRUNCATED = "ub_gap_truncated"      # a units key: the UB side's gap in whole DataBlocks, rounded down


def accesses(call: Call, units: Mapping[str, int],
             memory: Mapping[str, np.ndarray] | None = None) -> dict[str, Lattice]:
    args = call.args
    dims = max(args["dimValue"], 0)                                # the entries the call reads
    src, dst = fields(args["srcSliceInfo"])[:dims], fields(args["dstSliceInfo"])[:dims]
    numbers, piece = counts(src, units), burst(src, units)
    if len(dst) < len(numbers):
        numbers = numbers[:len(dst)]
    out = {}
    for name, entries in (("src", src), ("dst", dst)):
        gap = None
        if units.get(TRUNCATED) and call.args[name].scope == "UB" and entries:
            block = units["datablock"]
            gap = entries[0]["stride"] * units["element"] // block * block
        out[name] = places(entries[:len(numbers)], units, numbers, piece, gap)
    return out


def apply(call: Call, image: Mapping[str, np.ndarray], units: Mapping[str, int],
          runs: Mapping[str, Lattice] | None = None) -> None:
    acc = runs or accesses(call, units)
    s, d = acc["src"], acc["dst"]
    if s.empty or d.empty or s.counts != d.counts:
        return                                                     # nothing moves
    src, dst = call.tensor("src"), call.tensor("dst")
    source = s.view(image[src.scope], src.addr).copy()             # read before any byte is written
    d.view(image[dst.scope], dst.addr)[...] = source


def _truncated(units: Mapping[str, int]) -> dict[str, int]:
    return {**units, TRUNCATED: 1}


VARIANTS = {"default": dict, "truncated_ub_stride": _truncated}
