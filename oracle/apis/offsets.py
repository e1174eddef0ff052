"""What Scatter and asc_gather share: the elements a call moves, and the offsets it reads for them.

Both pages address one operand element by element through a tensor of byte offsets (uint32). The count
forms move elements 0..count-1. The repeat forms move, in repeat r, the elements of 8 data blocks
("每次迭代完成8个datablock的数据收集": 256 bytes, `units["repeat"]`); element e of repeat r reads offset
r * (256 / width) + e whatever the stride (inferred: the pages do not say how offsets are indexed across
repeats), and only the strided operand moves by r * stride bytes. A mask picks the elements of a repeat:
bit e % 64 of word e // 64 (mask_bits), or the first `mask` elements (mask_continuous).
"""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from ..call import Call
from ..footprint import Runs, Spots


def picked(mask: int | Sequence[int], per: int) -> np.ndarray:
    """Which of the `per` elements of a repeat a mask selects (an int: the first `mask` ones)."""
    e = np.arange(per)
    if isinstance(mask, int):
        return e < mask
    words = np.array([int(w) for w in mask], dtype=object)
    bit = np.zeros(per, dtype=bool)
    for k in range(min(per, 64 * len(words))):
        bit[k] = (int(words[k // 64]) >> (k % 64)) & 1
    return bit


def repeated(repeat: int, per: int, stride: int, width: int,
             mask: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(offset index, byte position in the strided operand) of each element of `repeat` repeats."""
    r = np.arange(max(repeat, 0), dtype=np.int64)[:, None]
    e = np.arange(per, dtype=np.int64)[None, :]
    index, at = r * per + e, r * stride + e * width
    if mask is not None:
        index, at = index[:, mask], at[:, mask]
    return index.reshape(-1), at.reshape(-1)


def footprint(at: np.ndarray, width: int) -> Runs | Spots:
    """Elements side by side from byte 0 are Runs (cheap to check); anything else is Spots."""
    n = at.size
    if n == 0 or np.array_equal(at, np.arange(n, dtype=np.int64) * width):
        return Runs(0, width, n, width)
    return Spots(at, width)


def offset_values(call: Call, memory: Mapping[str, np.ndarray] | None, operand: str,
                  index: np.ndarray | int) -> np.ndarray | None:
    """The offsets the call reads (entries `index` of `operand`, or entries 0..index-1 for an int;
    little-endian of its dtype), or None where memory is not given or an entry lies outside the image."""
    if memory is None:
        return None
    tensor = call.tensor(operand)
    kind = np.dtype(tensor.dtype).newbyteorder("<")
    image = memory.get(tensor.scope)
    if image is None:
        return None
    if isinstance(index, (int, np.integer)):            # entries 0..index-1: one slice, checked first
        end = tensor.addr + int(index) * kind.itemsize
        if end > image.shape[0]:
            return None
        return image[tensor.addr:end].view(kind).astype(np.int64)
    where = tensor.addr + index[:, None] * kind.itemsize + np.arange(kind.itemsize)
    if where.size and (where.min() < 0 or where.max() >= image.shape[0]):
        return None
    return np.ascontiguousarray(image[where]).view(kind).reshape(-1).astype(np.int64)


def element_bytes(at: np.ndarray, width: int) -> np.ndarray:
    """(count, width) byte addresses of elements starting at `at`."""
    return at[:, None] + np.arange(width, dtype=np.int64)
