"""Ascend C Scatter (ISASI) (002_94c60850db7e14df.txt): element i of src goes to dst + dstBaseAddr +
dstOffsetLocal[i] bytes ("将源操作数src中的element按照指定的位置(由dst_offset和base_addr共同作用)分散到目的
操作数dst中"). Repeat forms: src moves by srcRepStride blocks per repeat; see offsets.py for the offsets.

Several elements sent to the same place leave it open: a conforming backend leaves one of them there
(the oracle marks the bytes not defined and lists the candidates).
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from ..call import Call
from ..footprint import Runs, Spots
from .offsets import offset_values, picked, plain_side, put, repeated, shared, take


def elements(call: Call, units: Mapping[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """(offset index, src byte position) of every element the call moves, in order."""
    args, width = call.args, units["element"]
    if call.form == "count":
        index = np.arange(args["count"], dtype=np.int64)
        return index, index * width
    per = units["repeat"] // width
    return repeated(args["repeatTimes"], per, args["srcRepStride"] * units["srcRepStride"], width,
                    picked(args["mask"], per))


def accesses(call: Call, units: Mapping[str, int], memory: Mapping[str, np.ndarray] | None = None) -> dict:
    """dstLocal's elements are known only from the offsets in memory (None without memory)."""
    width = units["element"]
    index, src, offs = plain_side(call, units, call.form == "count", elements)
    offsets = offset_values(call, memory, "dstOffsetLocal", index)
    dst = Spots(call.args["dstBaseAddr"] + offsets, width) if offsets is not None else None
    return {"dstLocal": dst, "srcLocal": src, "dstOffsetLocal": offs}


def apply(call: Call, image: Mapping[str, np.ndarray], units: Mapping[str, int]) -> list:
    """Writes every element; returns the places several elements were sent to: (scope, starts, values),
    one row per element sent to a shared place, sorted by place."""
    width = units["element"]
    src, dst = call.tensor("srcLocal"), call.tensor("dstLocal")
    index, at = elements(call, units)
    offsets = offset_values(call, image, "dstOffsetLocal", index)
    if offsets is None or not index.size:
        return []
    values = take(image[src.scope], src.addr + at, width)                     # (n, width), read first
    starts = dst.addr + call.args["dstBaseAddr"] + offsets
    target = image[dst.scope]
    inside = (starts >= 0) & (starts + width <= target.shape[0])     # the rest is undefined territory
    starts, values = starts[inside], values[inside]
    put(target, starts, values, width)
    collided = shared(starts, width)
    if not collided.any():
        return []
    order = np.argsort(starts[collided], kind="stable")
    return [(dst.scope, starts[collided][order], values[collided][order])]


def nominal(call: Call, units: Mapping[str, int]) -> dict:
    """dstLocal's footprint if the offsets were 0, w, 2w, ...: what a generator sizes it by."""
    width = units["element"]
    n = call.args["count"] if call.form == "count" else elements(call, units)[0].size
    return {"dstLocal": Runs(call.args["dstBaseAddr"], width, n, width)}
