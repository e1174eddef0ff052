"""The gathers' move (Gather, asc_gather): element k of dst is the src element that offset k addresses, every
element read before any is written; made in the images in place (`gather_into`), or as the bytes of dst
that change (`gather_patch`, for a legal call's expected image).

Examples
--------
Three 2-byte elements read 4, 0 and 2 bytes into src (at byte 0) and written side by side at byte 8:

>>> import numpy as np
>>> from oracle import Tensor
>>> from oracle.apis.gathering import gather_into, gather_patch
>>> ub = np.arange(16, dtype=np.uint8)
>>> offsets = np.array([4, 0, 2], dtype="<u4")
>>> lo, data = gather_patch(ub, ub, offsets, 0, 8, None, 2)
>>> lo, data.tolist()
(8, [4, 5, 0, 1, 2, 3])
>>> gather_into({"UB": ub}, Tensor("UB", 0, "int16", 4), Tensor("UB", 8, "int16", 3), offsets, 0, None, 2)
>>> ub[8:14].tolist()
[4, 5, 0, 1, 2, 3]
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from ..call import Tensor
from .offsets import inside, shifted, slots_of, take, take_slots, write_plain


def _gathered(source: np.ndarray, offsets: np.ndarray, shift: int, width: int) -> np.ndarray | None:
    """(count, width) bytes (a fresh array) of the elements starting `shift` + offsets[k] bytes into
    `source`, where every element starts aligned inside it; None otherwise. The usual case, a shift and
    offsets all multiples of a power-of-two width, is one OR over the offsets and one typed take from the
    image seen from the shift on, numpy checking each index against its end (uint32 offsets: none lies
    below the shift); the others are told as slots_of tells them."""
    if shift < 0 or width & (width - 1) or offsets.dtype.kind != "u" or \
            (shift | int(np.bitwise_or.reduce(offsets))) & (width - 1):
        slots = slots_of(offsets, shift, width, source.shape[0])
        if slots is None:
            return None
        read: np.ndarray = take_slots(source, slots, width)
        return read
    try:
        view = source[shift:]
        typed = view[:view.shape[0] - view.shape[0] % width].view(f"u{width}")
        taken = typed.take(np.right_shift(offsets, width.bit_length() - 1, dtype=np.intp))
    except IndexError:                  # an element past the image's end
        return None
    elements: np.ndarray = taken.view(np.uint8).reshape(-1, width)
    return elements


def gather_into(image: Mapping[str, np.ndarray], src: Tensor, dst: Tensor, offsets: np.ndarray, shift: int, at: np.ndarray | None,
                width: int) -> None:
    """The gathers' move: element k of dst (at `at`, or side by side) is the src element starting `shift` +
    offsets[k] bytes into src's scope; one read before any write. An element outside the scope (undefined
    territory) reads as zeros."""
    source = image[src.scope]
    values = _gathered(source, offsets, shift, width)             # a fresh array: every read before any write
    if values is None:
        starts = shifted(offsets, shift)
        keep = inside(starts, width, source.shape[0])
        if keep is None:
            values = take(source, starts, width)
        else:
            values = np.zeros((starts.size, width), dtype=np.uint8)
            values[keep] = take(source, starts[keep], width)
    write_plain(image[dst.scope], dst.addr, at, values, width)


def gather_patch(source: np.ndarray, target: np.ndarray, offsets: np.ndarray, shift: int, base: int,
                 at: np.ndarray | None, width: int) -> tuple[int, np.ndarray] | None:
    """(lo, data): the bytes from lo on of `target` that gather_into changes (it writes dst at `base` of
    `target`; neither image is modified), a read-only array, where every element read starts aligned
    inside `source` and every element written lies inside `target`; None otherwise (the caller checks the
    images and applies). No offset: nothing changes (data empty)."""
    if not offsets.size:
        return (base, target[:0]) if 0 <= base <= target.shape[0] else None
    values = _gathered(source, offsets, shift, width)             # a fresh array
    if values is None:
        return None
    if at is None:                                                 # dst's elements side by side
        lo, hi = base, base + values.size
        data = values.reshape(-1)
    else:
        lo, hi = base + int(at.min()), base + int(at.max()) + width
    if lo < 0 or hi > target.shape[0]:
        return None
    if at is not None:
        data = target[lo:hi].copy()
        write_plain(data, base - lo, at, values, width)
    data.flags.writeable = False
    return lo, data
