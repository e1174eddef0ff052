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
from typing import Any, Mapping, NamedTuple

import numpy as np

from ..call import Call
from ..footprint import Spots
from ..mask import hashable, positions
from .offsets import Extent, put, take

_FIELDS = {"dst": ("dstRepeatSize", "dstStride"), "src": ("srcRepeatSize", "srcStride")}   # of repeatParams
_UNIT_NAMES = {op: tuple("repeatParams." + f for f in fields) for op, fields in _FIELDS.items()}


@functools.lru_cache(maxsize=1024)
def _picked(mask: int | tuple[int, ...], per: int, width: int, block: int) -> tuple[np.ndarray, np.ndarray]:
    """(DataBlock, byte in it) of each element of an iteration the mask selects (read-only arrays)."""
    e = positions(mask, per) * width
    blocks, inside = e // block, e % block
    blocks.flags.writeable = inside.flags.writeable = False
    return blocks, inside


class Shape(NamedTuple):
    """What sizing reads of the elements an iteration selects: how many, their lowest and highest
    DataBlock, the furthest byte they start at in the highest, and in any."""

    selected: int
    low: int
    high: int
    inside_high: int
    inside_any: int


@functools.lru_cache(maxsize=1024)
def _shape(mask: int | tuple[int, ...], per: int, width: int, block: int) -> Shape:
    blocks, inside = _picked(mask, per, width, block)
    if not blocks.size:
        return Shape(0, 0, 0, 0, 0)
    high = int(blocks.max())
    return Shape(int(blocks.size), int(blocks.min()), high, int(inside[blocks == high].max()), int(inside.max()))


_FAR = 1 << 40       # bytes past every buffer: a step held there keeps positions in int64


def _steps(call: Call, units: Mapping[str, int], operand: str) -> tuple[int, int]:
    """(bytes between iterations, bytes between the DataBlocks of one) of an operand; a step past every
    buffer (a call its range rule refuses) is held at _FAR, which leaves the buffers as surely."""
    (repeat, stride), (repeat_unit, stride_unit) = _FIELDS[operand], _UNIT_NAMES[operand]
    p = call.args["repeatParams"]
    between, within = p[repeat] * units[repeat_unit], p[stride] * units[stride_unit]
    return (between if between < _FAR else _FAR, within if within < _FAR else _FAR)


def _layout(call: Call, units: Mapping[str, int]) -> tuple[np.ndarray, np.ndarray]:
    width = units["element"]
    return _picked(hashable(call.args["mask"]), units["repeat"] // width, width, units["block"])


def _shape_of(call: Call, units: Mapping[str, int]) -> Shape:
    width = units["element"]
    return _shape(hashable(call.args["mask"]), units["repeat"] // width, width, units["block"])


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
    shape = _shape_of(call, units)
    n = max(call.args["repeatTime"], 0) * shape.selected
    out = {}
    for op in ("dst", "src"):
        between, within = _steps(call, units, op)
        far = (call.args["repeatTime"] - 1) * between + _furthest(call, units, shape, within) if n else -width
        out[op] = Extent(far + width, n * width)
    return out


def _furthest(call: Call, units: Mapping[str, int], shape: Shape, within: int) -> int:
    """The furthest byte an element of one iteration starts at, DataBlocks `within` bytes apart."""
    if within >= units["block"]:        # DataBlocks apart: the furthest element lies in the highest
        return shape.high * within + shape.inside_high
    if within == 0:
        return shape.inside_any
    blocks, inside = _layout(call, units)
    return int((blocks * within + inside).max())


def apart(call: Call, units: Mapping[str, int], operand: str) -> dict[str, int]:
    """The strides of an operand to raise, by parameter name, with the least values that keep its elements
    apart: a DataBlock stride that parts the DataBlocks of an iteration, then iterations that nest between
    the DataBlocks of one (all the copies of a DataBlock inside its stride) or follow one another past an
    iteration's reach."""
    (repeat, stride), (repeat_unit, stride_unit) = _FIELDS[operand], _UNIT_NAMES[operand]
    p, block, n = call.args["repeatParams"], units["block"], max(call.args["repeatTime"], 0)
    unit_r, unit_s = units[repeat_unit], units[stride_unit]
    low, high = _shape_of(call, units)[1:3]
    within, between = p[stride], p[repeat]
    if high > low:
        within = max(within, -(-block // unit_s))

    def nests(step: int) -> bool:
        return step * unit_r >= block and (n - 1) * step * unit_r + block <= within * unit_s
    reach = (high - low) * within * unit_s + block
    if n > 1 and between * unit_r < reach and not nests(between):
        least = max(between, -(-block // unit_r))
        between = least if nests(least) else max(between, -(-reach // unit_r))
    raised = {stride: within, repeat: between}
    return {"repeatParams." + name: v for name, v in raised.items() if v != p[name]}


VARIANTS = {"default": dict}
