"""Ascend C Copy, UB -> UB masked (asc-devkit@0da921b9:docs/zh/api/SIMD-API/基础API/Memory矢量计算/数据搬运/UB与UB数据搬运/
UBToUB掩码式高维数据搬运(Copy).md): an iteration covers 8 DataBlocks (256 bytes: `units["repeat"]`); element e
of iteration r, as the mask selects it (oracle/mask.py), lies in DataBlock j = e * width // 32, at byte
(e * width) % 32 of it, and that block is r * RepeatSize + j * Stride DataBlocks from the operand (each side
with its own CopyRepeatParams fields). Element by element, src's place is copied to dst's.

Examples
--------
mask_continuous: the first 3 int16 elements of one iteration, src 64 bytes (2 DataBlocks) after dst:

>>> import numpy as np
>>> from oracle import Call, Tensor
>>> from oracle.apis import copy
>>> from oracle.rules import context
>>> call = Call("copy", "ascend910b", {"dst": Tensor("UB", 0, "int16", 128),
...             "src": Tensor("UB", 64, "int16", 128), "mask": 3, "repeatTime": 1,
...             "repeatParams": {"dstStride": 1, "srcStride": 1, "dstRepeatSize": 8, "srcRepeatSize": 8}},
...             "mask_continuous")
>>> units = context(call).units
>>> copy.accesses(call, units)
{'dst': Spots(at=array([0, 2, 4]), length=2), 'src': Spots(at=array([0, 2, 4]), length=2)}
>>> ub = np.arange(320).astype(np.uint8)
>>> copy.apply(call, {"UB": ub}, units)
[]
>>> ub[:8].tolist()
[64, 65, 66, 67, 68, 69, 6, 7]
"""
from __future__ import annotations

import functools
from typing import Any, Mapping

import numpy as np

from ..call import Call
from ..footprint import Spots
from ..mask import hashable, positions
from .offsets import Extent, put, take

_FIELDS = {"dst": ("dstRepeatSize", "dstStride"), "src": ("srcRepeatSize", "srcStride")}   # of repeatParams


@functools.lru_cache(maxsize=1024)
def _picked(mask: int | tuple[int, ...], per: int, width: int, block: int) -> tuple[np.ndarray, np.ndarray]:
    """(DataBlock, byte in it) of each element of an iteration the mask selects (read-only arrays)."""
    e = positions(mask, per) * width
    blocks, inside = e // block, e % block
    blocks.flags.writeable = inside.flags.writeable = False
    return blocks, inside


_FAR = 1 << 40       # bytes past every buffer: a step held there keeps positions in int64


def _steps(call: Call, units: Mapping[str, int], operand: str) -> tuple[int, int]:
    """(bytes between iterations, bytes between the DataBlocks of one) of an operand; a step past every
    buffer (a call its range rule refuses) is held at _FAR, which leaves the buffers as surely."""
    repeat, stride = _FIELDS[operand]
    p = call.args["repeatParams"]
    return (min(p[repeat] * units["repeatParams." + repeat], _FAR),
            min(p[stride] * units["repeatParams." + stride], _FAR))


def _layout(call: Call, units: Mapping[str, int]) -> tuple[np.ndarray, np.ndarray]:
    width = units["element"]
    return _picked(hashable(call.args["mask"]), units["repeat"] // width, width, units["block"])


def places(call: Call, units: Mapping[str, int], operand: str) -> np.ndarray:
    """Byte of each element the call moves in `operand`, relative to its addr, iteration by iteration
    (read-only: kept, a generator asks for the same few calls' many times)."""
    width = units["element"]
    return _places(hashable(call.args["mask"]), units["repeat"] // width, width, units["block"],
                   max(call.args["repeatTime"], 0), *_steps(call, units, operand))


@functools.lru_cache(maxsize=256)
def _places(mask: int | tuple[int, ...], per: int, width: int, block: int, repeat: int, between: int, within: int) -> np.ndarray:
    blocks, inside = _picked(mask, per, width, block)
    r = np.arange(repeat, dtype=np.int64)[:, None]
    at: np.ndarray = (r * between + blocks * within + inside).reshape(-1)
    at.flags.writeable = False
    return at


def accesses(call: Call, units: Mapping[str, int], memory: Mapping[str, np.ndarray] | None = None) -> dict[str, Any]:
    width = units["element"]
    return {op: Spots(places(call, units, op), width) for op in ("dst", "src")}


def apply(call: Call, image: Mapping[str, np.ndarray], units: Mapping[str, int], runs: Mapping[str, Any] | None = None) -> list[Any]:
    """Every element read, then written (two sent to one dst place: copy.dst.self_overlap leaves it open)."""
    width = units["element"]
    src, dst = call.tensor("src"), call.tensor("dst")
    acc = runs or accesses(call, units)
    at = acc["src"].at
    if not at.size:
        return []
    values = take(image[src.scope], src.addr + at, width)
    put(image[dst.scope], dst.addr + acc["dst"].at, values, width)
    return []


def extents(call: Call, units: Mapping[str, int]) -> dict[str, Any]:
    """Each operand's end and bytes moved, in closed form: the furthest element is in the last iteration
    (the steps are not negative), at the furthest of the selected elements."""
    width = units["element"]
    blocks, inside = _layout(call, units)
    n = max(call.args["repeatTime"], 0) * blocks.size
    out = {}
    for op in ("dst", "src"):
        between, within = _steps(call, units, op)
        far = (call.args["repeatTime"] - 1) * between + int((blocks * within + inside).max()) if n else -width
        out[op] = Extent(far + width, n * width)
    return out


VARIANTS = {"default": dict}
