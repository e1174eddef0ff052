"""What Scatter and asc_gather share: the elements a call moves, and the offsets it reads for them.

Both pages address one operand element by element through a tensor of byte offsets (uint32). The count
forms move elements 0..count-1. The repeat forms move, in repeat r, the elements of 8 data blocks
("每次迭代完成8个datablock的数据收集": 256 bytes, `units["repeat"]`); element e of repeat r reads offset
r * (256 / width) + e whatever the stride (inferred: the pages do not say how offsets are indexed across
repeats), and only the strided operand moves by r * stride bytes. A mask picks the elements of a repeat
(oracle/mask.py: bit mode or count mode).

Examples
--------
Two repeats of four 2-byte elements, the strided operand moving 64 bytes a repeat: element e of repeat r
reads offset entry r * 4 + e and lies r * 64 + e * 2 bytes into the strided operand:

>>> from oracle.apis.offsets import repeat_sides
>>> index, strided, entries = repeat_sides((2, 4, 64, 2, None, None))   # (repeat, per, stride, width, mask, advance)
>>> index.tolist()
[0, 1, 2, 3, 4, 5, 6, 7]
>>> strided.starts().tolist()
[0, 2, 4, 6, 64, 66, 68, 70]
"""
from __future__ import annotations

import functools
from typing import Any, Callable, Mapping, NamedTuple

import numpy as np

from ..call import Call, Tensor
from ..footprint import Runs, Spots
from ..mask import positions
from ..repeats import any_repeat

OFFSET = np.dtype("<u4")     # "dstOffsetLocal ... 支持数据类型(uint32_t)", "__ubuf__ uint32_t* src_offset"


# Index-math variants (the readings of an ambiguity that move bytes otherwise), by name: each turns the
# call's units into those the module's functions read. The default reading changes nothing.
FOLLOW_STRIDE = "variant.offsets_follow_stride"    # set: the offsets advance with the strided operand


def follow_stride(units: Mapping[str, int]) -> dict[str, Any]:
    """offsets_follow_stride: entry r * stride / width + e places element e of repeat r."""
    return {**units, FOLLOW_STRIDE: 1}


def advance(units: Mapping[str, int], stride: int) -> int | None:
    """The offset entries a repeat advances by: None (one whole repeat), or the stride in elements."""
    return stride // units["element"] if units.get(FOLLOW_STRIDE) else None


class _Kept:
    """Values by key, up to `budget` elements in all (past it, every one is forgotten at once)."""

    def __init__(self, budget: int):
        self.values: dict[Any, Any] = {}
        self.elements, self.budget = 0, budget

    def keep(self, key: object, value: object, elements: int) -> None:
        if self.elements + elements > self.budget:
            self.values.clear()
            self.elements = 0
        self.values[key] = value
        self.elements += elements


# a repeat form's elements by value: (repeat, per, stride, width, mask, advance), the mask None for every
# element, else as oracle/mask.py reads it; the offsets advance by `advance` entries a repeat (None: `per`)
Repeats = Callable[[Call, Mapping[str, int]], tuple[Any, ...]]
_SIDES = _Kept(1 << 20)              # a form's elements take 24 bytes each: 24 MiB at most


def plain_side(call: Call, units: Mapping[str, int], counted: bool, repeats: Repeats) -> tuple[Any, ...]:
    """(offset entries read: a count or an index array, footprint of the operand that is not addressed by
    the offsets, footprint of the offsets tensor). A count form needs no arrays: count may be anything a
    uint32 holds; a repeat form lists its elements (`repeats(call, units)`: its elements by value)."""
    width = units["element"]
    if counted:
        n = call.args["count"]
        return n, Runs(0, width, n, width), Runs(0, OFFSET.itemsize, n, OFFSET.itemsize)
    return repeat_sides(repeats(call, units))


def plain_extents(call: Call, units: Mapping[str, int], counted: bool, repeats: Repeats) -> tuple[Any, ...]:
    """plain_side with ends and bytes moved alone: (elements moved, the operand not addressed by the
    offsets, the offsets tensor); a count form's as plain_side gives them, a repeat form's in closed form."""
    if counted:
        return plain_side(call, units, True, repeats)
    return repeat_extents(repeats(call, units))


def repeat_sides(key: tuple[Any, ...]) -> tuple[Any, ...]:
    """plain_side of a repeat form by its elements' values (Repeats), kept: a generator sizing operands asks
    it of the same few forms hundreds of times a case. The arrays are read-only (shared). Each footprint is
    Runs where its elements lie side by side from byte 0 (cheap to check; told without their positions:
    _side_by_side), else Spots."""
    sides = _SIDES.values.get(key)
    if sides is None:
        repeat, per, stride, width, mask, adv = key
        e = _elements(mask, per)
        r = np.arange(max(repeat, 0), dtype=np.int64)[:, None]
        index = np.empty(r.size * e.size, dtype=np.int64)          # its own array (offset_entries keeps its bounds)
        np.add(r * (per if adv is None else adv), e[None, :], out=index.reshape(r.size, e.size))
        index.flags.writeable = False
        n, k = index.size, e.size
        if _side_by_side(n, k, e, stride, width):
            strided: Runs | Spots = Runs(0, width, n, width)
        else:
            strided = Spots(_read_only((r * stride + e[None, :] * width).reshape(-1)), width)
        entries: Runs | Spots
        if _side_by_side(n, k, e, (per if adv is None else adv) * OFFSET.itemsize, OFFSET.itemsize):
            entries = Runs(0, OFFSET.itemsize, n, OFFSET.itemsize)
        else:
            entries = Spots(_read_only(index * OFFSET.itemsize), OFFSET.itemsize)
        sides = index, strided, entries
        _SIDES.keep(key, sides, index.size)
    return sides


def _side_by_side(n: int, k: int, e: np.ndarray, stride: int, width: int) -> bool:
    """Do the n positions r * stride + e[j] * width (k = e.size a repeat, e ascending) lie side by side
    from byte 0 (none at all, or e = 0..k-1 and one repeat, or repeats k elements apart)?"""
    return n == 0 or (int(e[-1]) == k - 1 and (n == k or stride == k * width))


def _read_only(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


class Extent(NamedTuple):
    """How far a footprint reaches and the bytes it moves, without its arrays (Runs and Spots read the
    same): what a generator sizes operands by."""

    end: int
    nbytes: int


@functools.lru_cache(maxsize=4096)
def _elements(mask: int | tuple[int, ...] | None, per: int) -> np.ndarray:
    """The positions a repeat moves under `mask` (as Repeats gives it), read-only: the calls drawn
    for one cell share a few masks."""
    return _read_only(np.arange(per, dtype=np.int64) if mask is None else positions(mask, per))


@functools.lru_cache(maxsize=4096)
def _chosen(mask: int | tuple[int, ...] | None, per: int) -> tuple[int, int]:
    """(elements a repeat moves, the position of the last one) under `mask` (as Repeats gives it)."""
    e = _elements(mask, per)
    return int(e.size), int(e[-1]) if e.size else -1


def repeat_extents(key: tuple[Any, ...]) -> tuple[int, Extent, Extent]:
    """repeat_sides(key) in closed form: (elements moved, extent of the strided operand, extent of the
    offsets tensor). An element's place is r * stride + e * width (entry r * advance + e), so the furthest
    is the last element's in the first or the last repeat, whichever lies further. Kept by key: a generator
    sizing operands asks it of the same few forms several times a call."""
    found = _EXTENTS.get(key)
    if found is None:
        repeat, per, stride, width, mask, adv = key
        k, last = _chosen(mask, per)
        n = max(repeat, 0) * k
        if n == 0:
            found = 0, Extent(0, 0), Extent(0, 0)
        else:
            far = max(0, (repeat - 1) * stride) + last * width
            entries = max(0, (repeat - 1) * (per if adv is None else adv)) + last
            found = n, Extent(far + width, n * width), Extent((entries + 1) * OFFSET.itemsize, n * OFFSET.itemsize)
        if len(_EXTENTS) >= _EXTENTS_KEPT:
            _EXTENTS.clear()
        _EXTENTS[key] = found
    return found


_EXTENTS: dict[tuple[Any, ...], tuple[int, Extent, Extent]] = {}
_EXTENTS_KEPT = 4096


def offset_entries(call: Call, memory: Mapping[str, np.ndarray] | None, operand: str,
                   index: np.ndarray | int) -> np.ndarray | None:
    """The offsets the call reads: entries `index` of `operand` (entries 0..index-1 for an int) as
    little-endian uint32, a view of memory for an int (read it before writing), or None where memory is
    not given or an entry lies outside the image."""
    if memory is None:
        return None
    tensor = call.tensor(operand)
    kind = OFFSET          # what the instruction reads, whatever dtype the call's tensor claims
    image = memory.get(tensor.scope)
    if image is None:
        return None
    if isinstance(index, (int, np.integer)):            # entries 0..index-1: one slice, checked first
        end = tensor.addr + max(int(index), 0) * kind.itemsize
        if end > image.shape[0]:
            return None
        return image[tensor.addr:end].view(kind)
    if not index.size:
        return np.zeros(0, dtype=kind)
    entries = (image.shape[0] - tensor.addr) // kind.itemsize      # whole entries from the tensor's address
    lowest, highest = _bounds(index)
    if lowest < 0 or highest >= entries:
        return None
    read: np.ndarray = image[tensor.addr:tensor.addr + entries * kind.itemsize].view(kind)[index]
    return read


_BOUNDS = _Kept(1 << 20)         # id of a read-only index array -> (it, its lowest, its highest)


def _bounds(index: np.ndarray) -> tuple[int, int]:
    """The lowest and highest of an index array, kept for a read-only one of its own (repeat_sides')."""
    found = _BOUNDS.values.get(id(index))
    if found is None or found[0] is not index:
        found = index, int(index.min()), int(index.max())
        if not index.flags.writeable and index.flags.owndata:
            _BOUNDS.keep(id(index), found, index.size)
    return found[1], found[2]


def shifted(entries: np.ndarray, shift: int) -> np.ndarray:
    """shift + each offset, as a fresh int64 array (byte positions)."""
    out: np.ndarray = entries.astype(np.int64) + shift
    return out


def moved(call: Call, units: Mapping[str, int], counted: bool, repeats: Repeats) -> tuple[Any, ...]:
    """(offset entries read: a count or an index array, byte position of each element in the operand the
    offsets do not address: None where element i is at i * width, a count form's and a repeat form's
    whose elements lie side by side). A repeat form's as repeat_sides keeps them (read-only)."""
    if counted:
        return call.args["count"], None
    index, strided, _ = repeat_sides(repeats(call, units))
    return index, None if isinstance(strided, Runs) else strided.at


def element_bytes(at: np.ndarray, width: int) -> np.ndarray:
    """(count, width) byte addresses of elements starting at `at`."""
    return at[:, None] + np.arange(width, dtype=np.int64)


def _typed(image: np.ndarray, width: int) -> np.ndarray:
    """The image seen as unsigned integers of `width` bytes (element i at byte i * width)."""
    return image[:image.shape[0] - image.shape[0] % width].view(f"u{width}")


def _slots(at: np.ndarray, width: int) -> np.ndarray | None:
    """at // width where every start is a multiple of width (None otherwise): the elements as indices
    of the typed image. Widths are powers of two: one OR over the starts says whether all are aligned."""
    if width == 1:
        return at
    if width & (width - 1):
        return None if (at % width).any() else at // width
    if int(np.bitwise_or.reduce(at)) & (width - 1):       # two's complement: holds for negatives too
        return None
    return at >> (width.bit_length() - 1)


def slots_of(entries: np.ndarray, shift: int, width: int, size: int) -> np.ndarray | None:
    """(entries + shift) // width as int64 (the elements as indices of the image seen as `width`-byte integers)
    where every element starts aligned and lies inside an image of `size` bytes, the usual case, told by
    reductions over the uint32 offsets: each one's low bits are -shift's (their OR, and their AND where a
    base between elements gives the shift low bits); else None."""
    placed = slots_within(entries, shift, width, size)
    return None if placed is None else placed[0]


def slots_within(entries: np.ndarray, shift: int, width: int, size: int) -> tuple[np.ndarray, int, int] | None:
    """(slots_of's slots, a fresh array; the lowest of them, the highest), told from the lowest and highest
    offset (each read once); None where slots_of gives None."""
    if not entries.size or width & (width - 1):
        return None
    lowest, highest = int(entries.min()), int(entries.max())
    if lowest + shift < 0 or highest + shift + width > size:
        return None                 # (uint32 offsets: none lies below the base unless the shift does)
    low = -shift & (width - 1)
    if int(np.bitwise_or.reduce(entries)) & (width - 1) != low or (low and low & ~int(np.bitwise_and.reduce(entries))):
        return None
    slots: np.ndarray = entries.astype(np.intp)        # in numpy's index type, made once, then in place
    if shift:
        slots += shift
    k = width.bit_length() - 1
    slots >>= k
    return slots, (lowest + shift) >> k, (highest + shift) >> k


def take_slots(image: np.ndarray, slots: np.ndarray, width: int) -> np.ndarray:
    """(count, width) bytes (a fresh array) of the elements at `slots` of the typed image."""
    taken: np.ndarray = _typed(image, width)[slots].view(np.uint8).reshape(-1, width)
    return taken


def put_distinct(image: np.ndarray, slots: np.ndarray, values: np.ndarray, width: int,
                 bounds: tuple[int, int] | None = None) -> bool:
    """Write element k at slot slots[k] of the typed image, in one assignment, when no two slots are
    equal (True); otherwise write nothing (False). `bounds`: the lowest and highest slot, where known."""
    typed = _typed(image, width)
    if any_repeat(slots, bounds):
        return False
    typed[slots] = np.ascontiguousarray(values).view(f"u{width}").reshape(-1)
    return True


def inside(at: np.ndarray, width: int, size: int) -> np.ndarray | None:
    """Which elements starting at `at` lie inside an image of `size` bytes; None when all do (the usual
    case, told by the lowest and highest start alone)."""
    if not at.size or (int(at.min()) >= 0 and int(at.max()) + width <= size):
        return None
    return (at >= 0) & (at + width <= size)


def shared(at: np.ndarray, width: int) -> np.ndarray:
    """Which elements start where another one does (several elements sent to one place)."""
    if at.size < 2:
        return np.zeros(at.size, dtype=bool)
    if not (at % width).any():
        slots = at // width - at.min() // width
        repeated: np.ndarray = np.bincount(slots)[slots] > 1
        return repeated
    _, inverse, counts = np.unique(at, return_inverse=True, return_counts=True)
    return counts[inverse] > 1


def take(image: np.ndarray, at: np.ndarray, width: int) -> np.ndarray:
    """(count, width) bytes of the elements starting at `at` (a fresh array); one typed gather when all
    are aligned."""
    slots = _slots(at, width)
    if slots is not None:
        return take_slots(image, slots, width)
    taken: np.ndarray = image[element_bytes(at, width)]
    return taken


def put(image: np.ndarray, at: np.ndarray, values: np.ndarray, width: int) -> np.ndarray | None:
    """Write element k's bytes at at[k]; for a place written twice the later element stays. Returns which
    elements start where another one does (None: none does). All aligned and distinct, the usual case,
    is one typed assignment."""
    slots = _slots(at, width)
    if slots is not None:
        if put_distinct(image, slots, values, width):
            return None
        typed = _typed(image, width)
        flat = np.ascontiguousarray(values).view(f"u{width}").reshape(-1)
        # numpy does not promise which of repeated indices an assignment keeps: choose the last here
        order = np.arange(at.size)
        last = np.full(typed.shape[0], -1, dtype=np.int64)
        np.maximum.at(last, slots, order)
        keep = last[slots] == order
        typed[slots[keep]] = flat[keep]
        twice: np.ndarray = np.bincount(slots)[slots] > 1
        return twice
    where = element_bytes(at, width).reshape(-1)
    flat = np.ascontiguousarray(values).reshape(-1)
    if np.unique(where).size != where.size:
        keep = where.size - 1 - np.unique(where[::-1], return_index=True)[1]
        where, flat = where[keep], flat[keep]
    image[where] = flat
    collided = shared(at, width)
    return collided if collided.any() else None


def stable_order(keys: np.ndarray) -> np.ndarray:
    """np.argsort(keys, kind="stable") for int64 keys, fast for many: numpy sorts 16-bit keys stably by
    radix, so keys spanning less than 2**32 are sorted by their low half, then stably by their high half."""
    if keys.size < 4096 or int(keys.max()) - int(keys.min()) >= 1 << 32:
        return np.argsort(keys, kind="stable")
    rebased = (keys - keys.min()).astype(np.uint32)
    by_low = np.argsort(rebased.astype(np.uint16), kind="stable")                # the low 16 bits
    return by_low[np.argsort((rebased[by_low] >> 16).astype(np.uint16), kind="stable")]


def read_plain(image: np.ndarray, base: int, at: np.ndarray | None, n: int, width: int) -> np.ndarray:
    """(n, width) bytes (a fresh array) of the elements of the operand the offsets do not address: at
    base + at, or side by side from base (at None)."""
    if at is None:
        if 0 <= base and base + n * width <= image.shape[0]:
            return image[base:base + n * width].reshape(n, width).copy()
        at = np.arange(n, dtype=np.int64) * width
    return take(image, base + at, width)


def write_plain(image: np.ndarray, base: int, at: np.ndarray | None, values: np.ndarray, width: int) -> None:
    """Write the elements of the operand the offsets do not address (see read_plain); a place written
    twice keeps the later element."""
    n = values.shape[0]
    if at is None:
        if 0 <= base and base + n * width <= image.shape[0]:
            image[base:base + n * width] = values.reshape(-1)
            return
        at = np.arange(n, dtype=np.int64) * width
    put(image, base + at, values, width)
