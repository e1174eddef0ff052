"""Ascend C Scatter (ISASI) (002_94c60850db7e14df.txt): element i of src goes to dst + dstBaseAddr +
dstOffsetLocal[i] bytes ("将源操作数src中的element按照指定的位置(由dst_offset和base_addr共同作用)分散到目的
操作数dst中"). Repeat forms: src moves by srcRepStride blocks per repeat; see offsets.py for the offsets.

Several elements sent to the same place leave it open: a conforming backend leaves one of them there
(the oracle marks the bytes not defined and lists the candidates).

Examples
--------
The count form: four uint16 elements, their byte offsets reversed (the page's example does the same):

>>> import numpy as np
>>> from oracle import Call, Tensor
>>> from oracle.apis import scatter
>>> from oracle.rules import context
>>> call = Call("scatter", "ascend310p-aicore", {"dstLocal": Tensor("UB", 0, "uint16", 4),
...             "dstOffsetLocal": Tensor("UB", 32, "uint32", 4), "srcLocal": Tensor("UB", 64, "uint16", 4),
...             "dstBaseAddr": 0, "count": 4}, "count")
>>> ub = np.zeros(72, dtype=np.uint8)
>>> ub[32:48] = np.array([6, 4, 2, 0], dtype="<u4").view(np.uint8)
>>> ub[64:72] = [0x11, 0x11, 0x22, 0x22, 0x33, 0x33, 0x44, 0x44]
>>> units = context(call).units
>>> scatter.accesses(call, units, {"UB": ub})["dstLocal"]
Spots(at=array([6, 4, 2, 0]), length=2)
>>> scatter.apply(call, {"UB": ub}, units)
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
from .offsets import (advance, follow_stride, inside, moved, offset_entries, plain_extents, plain_side, put,
                      put_distinct, read_plain, shifted, slots_within, stable_order)


def repeats(call: Call, units: Mapping[str, int]) -> tuple[Any, ...]:
    """What the elements of a repeat form depend on (offsets.Repeats): src moves by
    srcRepStride blocks a repeat, the mask picks the elements of each."""
    args, width = call.args, units["element"]
    per, stride, mask = units["repeat"] // width, args["srcRepStride"] * units["srcRepStride"], args["mask"]
    return args["repeatTimes"], per, stride, width, hashable(mask), advance(units, stride)


def accesses(call: Call, units: Mapping[str, int], memory: Mapping[str, np.ndarray] | None = None) -> dict[str, Any]:
    """dstLocal's elements are known only from the offsets in memory (None without memory)."""
    width = units["element"]
    index, src, offs = plain_side(call, units, call.form == "count", repeats)
    offsets = offset_entries(call, memory, "dstOffsetLocal", index)
    dst = None
    if offsets is not None:
        offsets, base = _placed(offsets, call.args["dstBaseAddr"], width, units)
        dst = Spots.offsets(offsets, base, width, memory)
    return {"dstLocal": dst, "srcLocal": src, "dstOffsetLocal": offs}


def apply(call: Call, image: Mapping[str, np.ndarray], units: Mapping[str, int], runs: Mapping[str, Any] | None = None) -> list[Any]:
    """Writes every element; returns the places several elements were sent to: (scope, starts, values),
    one row per element sent to a shared place, sorted by place."""
    width = units["element"]
    src, dst = call.tensor("srcLocal"), call.tensor("dstLocal")
    index, at = moved(call, units, call.form == "count", repeats)
    offsets = offset_entries(call, image, "dstOffsetLocal", index)
    if offsets is None or not offsets.size:
        return []
    values = read_plain(image[src.scope], src.addr, at, offsets.size, width)     # (n, width), read first
    offsets, base = _placed(offsets, call.args["dstBaseAddr"], width, units)
    target, shift = image[dst.scope], dst.addr + base
    placed = slots_within(offsets, shift, width, target.shape[0])
    if placed is not None and put_distinct(target, placed[0], values, width, placed[1:]):      # the usual case
        return []
    starts = shifted(offsets, shift)
    keep = inside(starts, width, target.shape[0])                  # the rest is undefined territory
    if keep is not None:
        starts, values = starts[keep], values[keep]
    collided = put(target, starts, values, width)
    if (starts % width).any():              # straddling elements (scatter.offset.unaligned, `straddle`)
        return _byte_choices(dst.scope, starts, values, width)
    if collided is None:
        return []
    order = stable_order(starts[collided])
    return [(dst.scope, starts[collided][order], values[collided][order])]


def patched(call: Call, memory: Mapping[str, np.ndarray], units: Mapping[str, int],
            runs: Mapping[str, Any] | None = None) -> dict[str, tuple[int, np.ndarray]] | None:
    """{dstLocal's scope: (lo, data)} of a legal call: dst's bytes from the lowest element written to the
    highest, as the call leaves them, read from `memory` (not modified); None where an element lies outside
    its image, off its slot or on another's (the caller checks the images, copies and applies)."""
    src, dst = call.args["srcLocal"], call.args["dstLocal"]      # tensors, as `context` has validated them
    source, target = memory.get(src.scope), memory.get(dst.scope)
    if source is None or target is None:
        return None
    width = units["element"]
    index, at = moved(call, units, call.form == "count", repeats)
    offsets = offset_entries(call, memory, "dstOffsetLocal", index)
    if offsets is None or not offsets.size:
        return None if offsets is None else {dst.scope: (0, target[:0])}
    n = offsets.size
    lo, hi = (0, n * width) if at is None else (int(at.min()), int(at.max()) + width)
    if src.addr + lo < 0 or src.addr + hi > source.shape[0]:
        return None
    values = read_plain(source, src.addr, at, n, width)
    offsets, base = _placed(offsets, call.args["dstBaseAddr"], width, units)
    placed = slots_within(offsets, dst.addr + base, width, target.shape[0])
    if placed is None:
        return None
    slots, first, last = placed
    data = target[first * width:(last + 1) * width].copy()
    slots -= first                      # its own array: the slots of `data`
    if not put_distinct(data, slots, values, width, (0, last - first)):      # two elements on one slot
        return None
    data.flags.writeable = False
    return {dst.scope: (first * width, data)}


def _placed(offsets: np.ndarray, base: int, width: int, units: Mapping[str, int]) -> tuple[np.ndarray, int]:
    """The offsets and dstBaseAddr as the call places elements by them: as given (bytes), or under the
    reading element_below each rounded down to a whole element."""
    if not units.get(ELEMENT_BELOW):
        return offsets, base
    return offsets - offsets % width, base - base % width


def _byte_choices(scope: str, starts: np.ndarray, values: np.ndarray, width: int) -> list[Any]:
    """Elements that straddle their slots can share some bytes without starting at one place: every byte
    several elements write keeps one of the bytes sent there (one row per byte sent, a place one byte
    wide), and no element as a whole is promised."""
    where = (starts[:, None] + np.arange(width)).reshape(-1)
    sent = np.ascontiguousarray(values).reshape(-1)
    _, inverse, counts = np.unique(where, return_inverse=True, return_counts=True)
    shared = counts[inverse] > 1
    if not shared.any():
        return []
    order = np.argsort(where[shared], kind="stable")
    return [(scope, where[shared][order], sent[shared][order].reshape(-1, 1))]


def nominal(call: Call, units: Mapping[str, int]) -> dict[str, Any]:
    """dstLocal's footprint if the offsets were 0, w, 2w, ...: what a generator sizes it by."""
    return {"dstLocal": extents(call, units)["dstLocal"]}


def extents(call: Call, units: Mapping[str, int]) -> dict[str, Any]:
    """Each operand's end and bytes moved as accesses (dstLocal as nominal) give them, in closed form: a
    generator sizes operands hundreds of times a case, and a repeat form's arrays are costly to build."""
    width = units["element"]
    n, src, offs = plain_extents(call, units, call.form == "count", repeats)
    return {"dstLocal": Runs(call.args["dstBaseAddr"], width, n, width), "srcLocal": src, "dstOffsetLocal": offs}


def _per_repeat_128(units: Mapping[str, int]) -> dict[str, Any]:
    """per_repeat_128: a repeat moves 128 elements (the mask's width), not 8 datablocks of them."""
    return {**units, "repeat": 128 * units["element"]}


ELEMENT_BELOW = "offsets_in_elements"      # a units flag: the reading scatter.offset.unaligned=element_below


def _element_below(units: Mapping[str, int]) -> dict[str, Any]:
    """element_below: dstBaseAddr and the offsets count whole elements (each rounded down to one)."""
    return {**units, ELEMENT_BELOW: 1}


VARIANTS = {"default": dict, "per_repeat_128": _per_repeat_128, "offsets_follow_stride": follow_stride,
            "element_below": _element_below}
