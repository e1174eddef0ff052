"""TIK vec_trans_scatter / vnchwconv (000_4bcb8e5856d111e9.txt): a transpose of 16 addressed blocks.

Each repeat r reads one 32-byte block at every src_list entry (+ r * src_rep_stride blocks) and writes one
at every dst_list entry (+ r * dst_rep_stride blocks): "第一次 repeat 中目的操作数/源操作数的有效起始位置为
dst_list/src_list 序列输入的起始位置,第二次需要加上 dst_rep_stride/src_rep_stride, 以此类推".

One rule covers the three element widths of the page's examples: the 16 source parts (a whole block; for
8-bit types the 16-byte half that src_high_half picks) form a 16 x m matrix of elements, m = part / width;
its transpose, read row after row, is cut into 16 parts of m elements, part k going to dst entry k (for
8-bit types into the half dst_high_half picks; the other half is untouched). 16-bit: a 16 x 16
transpose. 32-bit: m = 8, so dst block k element e = src block (k mod 2) * 8 + e, element k div 2.
All reads of a call happen before its writes (under the in_order reading of a later dependency, each
iteration's happen after the writes of the ones before it); a block two iterations write keeps the later one.

Examples
--------
One repeat of 16-bit data: src_list entry i is block i of src, dst_list entry k block k of dst, and dst
is the 16 x 16 transpose of src. Element e of src block i holds i * 16 + e:

>>> import numpy as np
>>> from oracle import Call, Tensor
>>> from oracle.apis import vec_trans_scatter
>>> from oracle.rules import context
>>> call = Call("vec_trans_scatter", "ascend910b", {"dst_high_half": False, "src_high_half": False,
...             "dst_list": [Tensor("UB", 512 + 32 * k, "int16", 16) for k in range(16)],
...             "src_list": [Tensor("UB", 32 * i, "int16", 16) for i in range(16)],
...             "repeat_times": 1, "dst_rep_stride": 0, "src_rep_stride": 0})
>>> units = context(call).units
>>> vec_trans_scatter.accesses(call, units)["src_list"][0]
Runs(first=0, step=0, count=1, length=32)
>>> ub = np.zeros(1024, dtype=np.uint8)
>>> ub[:512] = np.arange(256, dtype="<u2").view(np.uint8)
>>> vec_trans_scatter.apply(call, {"UB": ub}, units)
>>> ub[512:].view("<u2").reshape(16, 16)[:2].tolist()
[[0, 16, 32, ..., 224, 240], [1, 17, 33, ..., 225, 241]]
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..call import Call
from ..footprint import Runs

FIRST_REPEAT = "variant.first_repeat"   # strides added to the first repeat (0: "第二次需要加上", the default)
IN_ORDER = "variant.in_order"           # 1: each iteration reads after the ones before it wrote


def _stride_on_single_repeat(units: Mapping[str, int]) -> dict[str, Any]:
    """stride_on_single_repeat: the first repeat already starts one stride past each list entry."""
    return {**units, FIRST_REPEAT: 1}


def _in_order(units: Mapping[str, int]) -> dict[str, Any]:
    """in_order (vec_trans_scatter.overlap.later_dependency): iterations run one after the other, so an
    iteration reads what an earlier one wrote ("第N次迭代的目的操作数是第N+1次的源操作数" names the next
    one only)."""
    return {**units, IN_ORDER: 1}


VARIANTS = {"default": dict, "stride_on_single_repeat": _stride_on_single_repeat,
            "in_order": _in_order}


def accesses(call: Call, units: Mapping[str, int],
             memory: Mapping[str, np.ndarray] | None = None) -> dict[str, list[Runs]]:
    """Entry i of a list touches one block per repeat, `stride` blocks apart."""
    args, block = call.args, units["block"]
    repeat = args["repeat_times"]
    first = units.get(FIRST_REPEAT, 0)
    dst_step, src_step = args["dst_rep_stride"] * units["dst_rep_stride"], args["src_rep_stride"] * units["src_rep_stride"]
    dst = _new(Runs, (first * dst_step, dst_step, repeat, block))       # Runs(first, step, count, length)
    src = _new(Runs, (first * src_step, src_step, repeat, block))
    return {"dst_list": [dst] * len(args["dst_list"]), "src_list": [src] * len(args["src_list"])}


_new = tuple.__new__     # a Runs without the named tuple's Python-level __new__ (every call is sized by it)


def part_offsets(call: Call, units: Mapping[str, int]) -> tuple[int, int, int]:
    """(bytes of the part of a block one entry moves, offset of the src part, offset of the dst part)."""
    block, width = units["block"], units["element"]
    if width != 1:
        return block, 0, 0
    half = block // 2
    return half, half * bool(call.args["src_high_half"]), half * bool(call.args["dst_high_half"])


def apply(call: Call, image: Mapping[str, np.ndarray], units: Mapping[str, int], runs: Mapping[str, Any] | None = None) -> None:
    args = call.args
    if args["repeat_times"] <= 0:
        return
    if units.get(IN_ORDER) and args["repeat_times"] > 1:      # one iteration at a time, each on what the last one left
        one, first = call.replace(repeat_times=1), units.get(FIRST_REPEAT, 0)
        for k in range(args["repeat_times"]):
            apply(one, image, {**units, IN_ORDER: 0, FIRST_REPEAT: first + k})
        return
    moved, writes, part = _moved(call, image[args["src_list"][0].scope], units)
    _write(image[args["dst_list"][0].scope], writes, moved, part, call, units)


def patched(call: Call, memory: Mapping[str, np.ndarray], units: Mapping[str, int],
            runs: Mapping[str, Any] | None = None) -> dict[str, tuple[int, np.ndarray]] | None:
    """{dst's scope: (lo, data)} of a legal call: the bytes from the lowest dst byte written to the highest,
    as `apply` leaves them (every part read before any is written), read from `memory` (not modified);
    None where apply answers instead (iterations in order, the lists in more than one scope, a part outside
    its image)."""
    args = call.args
    src, dst = args["src_list"], args["dst_list"]
    if not src or not dst or (units.get(IN_ORDER) and args["repeat_times"] > 1):
        return None
    scope = dst[0].scope
    source, target = memory.get(src[0].scope), memory.get(scope)
    if source is None or target is None or any(t.scope != scope for t in dst) \
            or any(t.scope != src[0].scope for t in src):
        return None
    if args["repeat_times"] <= 0:
        return {scope: (0, target[:0])}
    moved, writes, part = _moved(call, source, units)
    lo, hi = int(writes.min()), int(writes.max()) + part
    if lo < 0 or hi > target.shape[0]:
        return None
    data = target[lo:hi].copy()
    _write(data, writes - lo, moved, part, call, units)
    data.flags.writeable = False
    return {scope: (lo, data)}


def _moved(call: Call, source: np.ndarray, units: Mapping[str, int]) -> tuple[np.ndarray, np.ndarray, int]:
    """(the parts a call of repeat_times > 0 writes, transposed, as (repeat, n, part) bytes; where each
    goes, (repeat, n) byte offsets in dst's scope; the bytes of a part), read from `source`, src's scope."""
    args = call.args
    src, dst = args["src_list"], args["dst_list"]
    repeat, width = args["repeat_times"], units["element"]
    part, src_off, dst_off = part_offsets(call, units)
    n, m = len(src), part // width
    first = units.get(FIRST_REPEAT, 0)
    r = np.arange(first, first + repeat, dtype=np.int64)[:, None]
    reads = (r * (args["src_rep_stride"] * units["src_rep_stride"])
             + np.array([t.addr + src_off for t in src], dtype=np.int64))             # (repeat, n)
    writes = (r * (args["dst_rep_stride"] * units["dst_rep_stride"])
              + np.array([t.addr + dst_off for t in dst], dtype=np.int64))
    parts = _parts(source, reads, part)                                               # (repeat, n, part)
    elements = parts.view(_ELEMENT[width] if width in _ELEMENT else np.dtype((np.void, width)))   # elements move whole
    moved = np.ascontiguousarray(elements.transpose(0, 2, 1)).reshape(repeat, n, m).view(np.uint8)
    return moved, writes, part


_ELEMENT = {w: np.dtype(f"<u{w}") for w in (1, 2, 4, 8)}     # an element's bytes as one unsigned integer


def _write(buffer: np.ndarray, writes: np.ndarray, moved: np.ndarray, part: int, call: Call,
           units: Mapping[str, int]) -> None:
    """The moved parts into `buffer` at `writes` (offsets in it), a later iteration's write kept where two
    name one byte."""
    repeat, n = writes.shape
    table = _table(buffer, writes, part) if moved.shape[1] == n and writes.size else None
    if table is not None:                                      # else as bytes
        _write_parts(*table, moved.reshape(-1, part))
        return
    byte = np.arange(part, dtype=np.int64)
    where = (writes[..., None] + byte).reshape(-1)
    values = moved.reshape(-1)
    step = call.args["dst_rep_stride"] * units["dst_rep_stride"]
    if repeat > 1 and step < int(writes[0].max() - writes[0].min()) + part:
        # iterations may write the same bytes: keep each byte's last write (numpy does not promise an
        # order for repeated indices)
        last = where.size - 1 - np.unique(where[::-1], return_index=True)[1]
        where, values = where[last], values[last]
    buffer[where] = values


def _windows(buffer: np.ndarray, part: int, writeable: bool = False) -> np.ndarray:
    """Row k: the `part` bytes of `buffer` from byte k (a view), so that parts move as rows, not bytes
    (sliding_window_view's result, made without its argument checks: a third of apply's cost)."""
    step = buffer.strides[0]
    return as_strided(buffer, shape=(buffer.shape[0] - part + 1, part), strides=(step, step), writeable=writeable)


def _table(buffer: np.ndarray, starts: np.ndarray, part: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(the bytes of `buffer` from the lowest start as a row of `part`-byte items, each start's item in it),
    where the starts lie inside the buffer a multiple of `part` apart (any two parts the same bytes or
    none); None otherwise. The parts then move as whole items, one numpy step for all of them."""
    low, high = int(starts.min()), int(starts.max())
    if low < 0 or high + part > buffer.shape[0] or buffer.strides[0] != 1:
        return None
    offsets = starts.reshape(-1) - low
    slots, rest = np.divmod(offsets, part)
    if rest.any():
        return None
    items = buffer[low:high + part].view(np.dtype((np.void, part)))
    return items, slots


def _parts(buffer: np.ndarray, starts: np.ndarray, part: int) -> np.ndarray:
    """The `part` bytes from each start: starts.shape + (part,), a new array."""
    if not starts.size:
        return np.empty(starts.shape + (part,), dtype=np.uint8)
    table = _table(buffer, starts, part)
    if table is not None:
        items, slots = table
        gathered: np.ndarray = items[slots].view(np.uint8).reshape(starts.shape + (part,))
        return gathered
    if int(starts.min()) >= 0 and int(starts.max()) + part <= buffer.shape[0]:
        parts: np.ndarray = _windows(buffer, part)[starts]
        return parts
    return buffer[starts[..., None] + np.arange(part, dtype=np.int64)]     # numpy's own indexing errors


def _write_parts(items: np.ndarray, slots: np.ndarray, values: np.ndarray) -> None:
    """values[k] to item slots[k], in order: where several parts name one item the last one stays (numpy
    does not promise an order for repeated indices: each item's last writer is picked, where there are
    several)."""
    moved = np.ascontiguousarray(values).view(items.dtype).reshape(-1)
    if int(np.bincount(slots).max()) > 1:
        last = np.full(items.shape[0], -1, dtype=np.int64)
        np.maximum.at(last, slots, np.arange(slots.size, dtype=np.int64))
        kept = last[last >= 0]
        slots, moved = slots[kept], moved[kept]
    items[slots] = moved
