"""Ascend C Gatherb (asc-devkit@0da921b9:docs/zh/api/SIMD-API/基础API/Memory矢量计算/离散与聚合/Gatherb(ISASI).md):
DataBlock j of iteration i (8 an iteration) is the 32 bytes offset[i * 8 + j] bytes from src, written
i * dstRepStride + j * dstBlkStride DataBlocks from dst, a dstBlkStride of 0 read as 1 (「当dstBlkStride值为0时，
默认按照1来处理」). Every block is read before any is written.

Examples
--------
One iteration: eight DataBlocks of 32 bytes, read in reverse order (offset[j] = (7 - j) * 32), written
one after another (dstBlkStride 1). Each block of src holds its own number in every byte:

>>> import numpy as np
>>> from oracle import Call, Tensor
>>> from oracle.apis import gatherb
>>> from oracle.rules import context
>>> call = Call("gatherb", "ascend910b", {"dst": Tensor("UB", 0, "uint16", 128),
...             "src": Tensor("UB", 256, "uint16", 128), "offset": Tensor("UB", 512, "uint32", 8),
...             "repeatTime": 1, "repeatParams": {"dstBlkStride": 1, "dstRepStride": 8}})
>>> ub = np.zeros(544, dtype=np.uint8)
>>> ub[256:512] = np.repeat(np.arange(8, dtype=np.uint8), 32)
>>> ub[512:544] = np.array([224, 192, 160, 128, 96, 64, 32, 0], dtype="<u4").view(np.uint8)
>>> units = context(call).units
>>> gatherb.accesses(call, units, {"UB": ub})["src"]
Spots(at=array([224, 192, 160, 128,  96,  64,  32,   0]), length=32)
>>> gatherb.apply(call, {"UB": ub}, units)
[]
>>> ub[:256].reshape(8, 32).tolist() == [[7 - j] * 32 for j in range(8)]
True
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from ..call import Call
from ..footprint import Grid, Runs, Spots
from ..repeats import any_repeat
from .offsets import OFFSET, element_bytes, offset_entries

_BLK, _REP = "repeatParams.dstBlkStride", "repeatParams.dstRepStride"


def _dst(call: Call, units: Mapping[str, int]) -> Grid:
    p, block = call.args["repeatParams"], units["block"]
    return Grid(0, p["dstRepStride"] * units[_REP], call.args["repeatTime"],
                max(p["dstBlkStride"], 1) * units[_BLK], units["repeat"], block)


def _blocks(call: Call, units: Mapping[str, int]) -> int:
    repeat: int = call.args["repeatTime"]
    return max(repeat, 0) * units["repeat"]


def accesses(call: Call, units: Mapping[str, int], memory: Mapping[str, np.ndarray] | None = None) -> dict[str, Any]:
    """src's blocks are known only from the offsets in memory (None without memory)."""
    n = _blocks(call, units)
    offsets = offset_entries(call, memory, "offset", n)
    return {"dst": _dst(call, units), "src": None if offsets is None else Spots.offsets(offsets, 0, units["block"], memory),
            "offset": Runs(0, OFFSET.itemsize, n, OFFSET.itemsize)}


def apply(call: Call, image: Mapping[str, np.ndarray], units: Mapping[str, int], runs: Mapping[str, Any] | None = None) -> list[Any]:
    block, n = units["block"], _blocks(call, units)
    src, dst = call.tensor("src"), call.tensor("dst")
    offsets = offset_entries(call, image, "offset", n)
    if offsets is None or not offsets.size:
        return []
    source = image[src.scope]
    starts = offsets.astype(np.int64) + src.addr
    rows = _rows(starts, block, source.shape[0])
    if rows is not None:                                            # the usual case: whole blocks, one gather
        values = _blocks_of(source, block)[rows]
    else:
        inside = (starts + block <= source.shape[0])
        values = np.zeros((n, block), dtype=np.uint8)                 # past UB: undefined territory, read as zeros
        values[inside] = source[element_bytes(starts[inside], block)]
    target = image[dst.scope]
    at = dst.addr + _dst(call, units).starts()
    rows = _rows(at, block, target.shape[0])
    if rows is not None and target.flags.c_contiguous and not any_repeat(rows):     # the usual case: a write per block
        _blocks_of(target, block)[rows] = values
    else:
        target[element_bytes(at, block).reshape(-1)] = values.reshape(-1)
    return []


def _rows(starts: np.ndarray, block: int, size: int) -> np.ndarray | None:
    """starts // block where every start is a multiple of `block` and its block lies inside an image of
    `size` bytes (None otherwise): the blocks as rows of the image seen as whole blocks."""
    if not starts.size or int(starts.min()) < 0 or int(starts.max()) + block > size or (starts % block).any():
        return None
    return starts // block


def _blocks_of(image: np.ndarray, block: int) -> np.ndarray:
    """The image as rows of `block` bytes (a view; the bytes past the last whole block left out)."""
    return image[:image.shape[0] - image.shape[0] % block].reshape(-1, block)


def nominal(call: Call, units: Mapping[str, int]) -> dict[str, Any]:
    """src's footprint if the offsets were 0, 32, 64, ...: what a generator sizes it by."""
    block = units["block"]
    return {"src": Runs(0, block, _blocks(call, units), block)}


VARIANTS = {"default": dict}
