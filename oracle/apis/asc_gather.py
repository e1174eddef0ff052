"""C-API asc_gather (003_5f0a5de14d724856.txt): element i of dst comes from src + src_offset[i] bytes
("将src按照src_offset给定的偏移按元素收集到dst中"). The repeat form fills 8 data blocks of dst per repeat,
dst moving by dst_repeat_stride blocks (see offsets.py); asc_gather_sync is the count form, synchronous.

Examples
--------
The count form: four int16 elements gathered by byte offsets in reverse order:

>>> import numpy as np
>>> from oracle import Call, Tensor
>>> from oracle.apis import asc_gather
>>> from oracle.rules import context
>>> call = Call("asc_gather", "ascend910b", {"dst": Tensor("UB", 0, "int16", 4),
...             "src": Tensor("UB", 32, "int16", 4), "src_offset": Tensor("UB", 64, "uint32", 4),
...             "count": 4}, "count")
>>> ub = np.zeros(80, dtype=np.uint8)
>>> ub[32:40] = [0x11, 0x11, 0x22, 0x22, 0x33, 0x33, 0x44, 0x44]
>>> ub[64:80] = np.array([6, 4, 2, 0], dtype="<u4").view(np.uint8)
>>> units = context(call).units
>>> asc_gather.accesses(call, units, {"UB": ub})["src"]
Spots(at=array([6, 4, 2, 0]), length=2)
>>> asc_gather.apply(call, {"UB": ub}, units)
[]
>>> [hex(b) for b in ub[:8]]
['0x44', '0x44', '0x33', '0x33', '0x22', '0x22', '0x11', '0x11']
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from ..call import Call
from ..footprint import Runs, Spots
from .gathering import gather_into, gather_patch
from .offsets import advance, follow_stride, moved, offset_entries, plain_extents, plain_side


def repeats(call: Call, units: Mapping[str, int]) -> tuple[Any, ...]:
    """What the elements of the repeat form depend on (offsets.Repeats): dst moves by
    dst_repeat_stride blocks a repeat, every element of a repeat moves."""
    args, width = call.args, units["element"]
    stride = args["dst_repeat_stride"] * units["dst_repeat_stride"]
    return args["repeat"], units["repeat"] // width, stride, width, None, advance(units, stride)


def accesses(call: Call, units: Mapping[str, int], memory: Mapping[str, np.ndarray] | None = None) -> dict[str, Any]:
    """src's elements are known only from the offsets in memory (None without memory)."""
    width = units["element"]
    index, dst, offs = plain_side(call, units, call.form in ("count", "count_sync"), repeats)
    offsets = offset_entries(call, memory, "src_offset", index)
    return {"dst": dst, "src": Spots.offsets(offsets, 0, width, memory) if offsets is not None else None, "src_offset": offs}


def apply(call: Call, image: Mapping[str, np.ndarray], units: Mapping[str, int], runs: Mapping[str, Any] | None = None) -> list[Any]:
    width = units["element"]
    src, dst = call.tensor("src"), call.tensor("dst")
    index, at = moved(call, units, call.form in ("count", "count_sync"), repeats)
    offsets = offset_entries(call, image, "src_offset", index)
    if offsets is None or not offsets.size:
        return []
    gather_into(image, src, dst, offsets, src.addr, at, width)
    return []


def patched(call: Call, memory: Mapping[str, np.ndarray], units: Mapping[str, int],
            runs: Mapping[str, Any] | None = None) -> dict[str, tuple[int, np.ndarray]] | None:
    """{dst's scope: (lo, data)} of a legal call (gathering.gather_patch), read from `memory` (not modified);
    None where an operand or an element lies outside its image (the caller checks them and applies)."""
    src, dst = call.args["src"], call.args["dst"]          # tensors, as `context` has validated them
    source, target = memory.get(src.scope), memory.get(dst.scope)
    if source is None or target is None:
        return None
    index, at = moved(call, units, call.form in ("count", "count_sync"), repeats)
    offsets = offset_entries(call, memory, "src_offset", index)
    made = None if offsets is None else gather_patch(source, target, offsets, src.addr, dst.addr, at, units["element"])
    return None if made is None else {dst.scope: made}


def nominal(call: Call, units: Mapping[str, int]) -> dict[str, Any]:
    """src's footprint if the offsets were 0, w, 2w, ...: what a generator sizes it by."""
    return {"src": extents(call, units)["src"]}


def extents(call: Call, units: Mapping[str, int]) -> dict[str, Any]:
    """Each operand's end and bytes moved as accesses (src as nominal) give them, in closed form (see
    scatter.extents)."""
    width = units["element"]
    n, dst, offs = plain_extents(call, units, call.form in ("count", "count_sync"), repeats)
    return {"dst": dst, "src": Runs(0, width, n, width), "src_offset": offs}


VARIANTS = {"default": dict, "offsets_follow_stride": follow_stride}
