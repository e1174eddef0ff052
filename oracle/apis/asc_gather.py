"""C-API asc_gather (003_5f0a5de14d724856.txt): element i of dst comes from src + src_offset[i] bytes
("将src按照src_offset给定的偏移按元素收集到dst中"). The repeat form fills 8 data blocks of dst per repeat,
dst moving by dst_repeat_stride blocks (see offsets.py); asc_gather_sync is the count form, synchronous.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from ..call import Call
from ..footprint import Runs, Spots
from .offsets import offset_values, plain_side, put, repeated, take


def elements(call: Call, units: Mapping[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """(offset index, dst byte position) of every element the call moves, in order."""
    args, width = call.args, units["element"]
    if call.form in ("count", "count_sync"):
        index = np.arange(args["count"], dtype=np.int64)
        return index, index * width
    return repeated(args["repeat"], units["repeat"] // width,
                    args["dst_repeat_stride"] * units["dst_repeat_stride"], width)


def accesses(call: Call, units: Mapping[str, int], memory: Mapping[str, np.ndarray] | None = None) -> dict:
    """src's elements are known only from the offsets in memory (None without memory)."""
    width = units["element"]
    index, dst, offs = plain_side(call, units, call.form in ("count", "count_sync"), elements)
    offsets = offset_values(call, memory, "src_offset", index)
    return {"dst": dst, "src": Spots(offsets, width) if offsets is not None else None, "src_offset": offs}


def apply(call: Call, image: Mapping[str, np.ndarray], units: Mapping[str, int]) -> list:
    width = units["element"]
    src, dst = call.tensor("src"), call.tensor("dst")
    index, at = elements(call, units)
    offsets = offset_values(call, image, "src_offset", index)
    if offsets is None or not index.size:
        return []
    source = image[src.scope]
    starts = src.addr + offsets
    inside = (starts >= 0) & (starts + width <= source.shape[0])       # the rest is undefined territory
    values = np.zeros((index.size, width), dtype=np.uint8)
    values[inside] = take(source, starts[inside], width)                   # every read before any write
    put(image[dst.scope], dst.addr + at, values, width)
    return []


def nominal(call: Call, units: Mapping[str, int]) -> dict:
    """src's footprint if the offsets were 0, w, 2w, ...: what a generator sizes it by."""
    width = units["element"]
    n = call.args["count"] if call.form in ("count", "count_sync") else elements(call, units)[0].size
    return {"src": Runs(0, width, n, width)}
