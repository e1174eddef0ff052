"""Ascend C DataCopyPad (specs/data_copy_pad.yaml): GM -> UB with padding, UB -> GM.

GM -> UB (form gm_to_ub): block k of blockLen bytes is read k x (blockLen + srcStride) bytes after src; in UB
it becomes leftPadding elements, the blockLen bytes, rightPadding elements and dummy bytes up to the next
multiple of the `block` unit (32 B): P bytes, block k starting k x (P + dstStride x 32) bytes after dst.
Padding and dummy hold paddingValue (isPad true); with isPad false they are open ("随机值", or a
SetPadValue the call does not carry): apply returns them as open bytes. With no padding on either side
the dummy is "待搬运数据块的第一个元素值", which the pages leave to be read (the ambiguities
data_copy_pad.dummy.*): by default each block's first element, repeated; VARIANTS holds the other readings.
UB -> GM (form ub_to_gm): block k is read from k x (blockLen rounded up to 32 + srcStride x 32) bytes after
src and its blockLen bytes written k x (blockLen + dstStride) bytes after dst (the dummy is dropped).
A blockCount or blockLen of 0 moves nothing (the NOP sentence). Units come from the spec.

Examples
--------
GM -> UB (asc-devkit@0da921b9:docs/zh/api/SIMD-API/基础API/Memory矢量计算/数据搬运/GM与UB数据搬运/
GMToUB非对齐数据搬运(DataCopyPad).md), one block of 6 bytes (three int16 elements) with one element of padding on
the left and two on the right, padded with 0x7777; the dummy bytes up to the 32-byte unit hold it too:

>>> import numpy as np
>>> from oracle import Call, Tensor
>>> from oracle.apis import data_copy_pad
>>> from oracle.rules import context
>>> call = Call("data_copy_pad", "ascend910b", {"dst": Tensor("UB", 0, "int16", 16),
...             "src": Tensor("GM", 0, "int16", 3),
...             "dataCopyParams": {"blockCount": 1, "blockLen": 6, "srcStride": 0, "dstStride": 0},
...             "padParams": {"isPad": True, "leftPadding": 1, "rightPadding": 2, "paddingValue": 0x7777}},
...             "gm_to_ub")
>>> units = context(call).units
>>> data_copy_pad.accesses(call, units)
{'src': Runs(first=0, step=6, count=1, length=6), 'dst': Runs(first=0, step=32, count=1, length=32)}
>>> gm = np.array([1, 2, 3], dtype="<u2").view(np.uint8)
>>> ub = np.zeros(32, dtype=np.uint8)
>>> data_copy_pad.apply(call, {"GM": gm, "UB": ub}, units)
>>> ub.tobytes().hex(" ", 2)
'7777 0100 0200 0300 7777 7777 7777 7777 7777 7777 7777 7777 7777 7777 7777 7777'
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

import numpy as np

from ..call import Call
from ..footprint import Runs
from ..moves import copy_runs

_new = tuple.__new__


def _ceil(value: int, unit: int) -> int:
    return -(-value // unit) * unit


# The parameters no footprint reads (accesses never looks at them): what the padding holds.
UNSIZED = frozenset({"padParams.isPad", "padParams.paddingValue"})


def accesses(call: Call, units: Mapping[str, int],
             memory: Mapping[str, np.ndarray] | None = None) -> dict[str, Runs]:
    p, block = call.args["dataCopyParams"], units["block"]
    n = p["blockLen"] * units["dataCopyParams.blockLen"]
    count = p["blockCount"] if n > 0 else 0
    # a path the table does not list (a call the path rule refuses) has no stride units: counted in bytes
    src_gap = p["srcStride"] * units.get("dataCopyParams.srcStride", 1)
    dst_gap = p["dstStride"] * units.get("dataCopyParams.dstStride", 1)
    if call.form == "ub_to_gm":
        return {"src": _new(Runs, (0, _ceil(n, block) + src_gap, count, n)),
                "dst": _new(Runs, (0, n + dst_gap, count, n))}
    pad = call.args["padParams"]
    whole = _ceil(pad["leftPadding"] * units["padParams.leftPadding"] + n
                  + pad["rightPadding"] * units["padParams.rightPadding"], block)
    return {"src": _new(Runs, (0, n + src_gap, count, n)),
            "dst": _new(Runs, (0, whole + dst_gap, count, whole))}


# Index-math variants (the readings of the dummy ambiguities that move bytes otherwise), by name: each marks
# the call's units with what the dummy of a block without padding holds. Unmarked: each block's first
# element, sizeof(T) bytes (the default math).
DUMMY = "variant.dummy"                 # what the dummy repeats: one of the three below
TRANSFER_FIRST, PADDING_VALUE, OPEN = 1, 2, 3   # the first element of the whole transfer; paddingValue;
                                                # nothing said: the dummy's bytes are undefined
DUMMY_WORD = "variant.dummy_word"       # set: the element the dummy repeats is at most 4 bytes


def _dummy(code: int) -> Callable[[Mapping[str, int]], dict[str, int]]:
    return lambda units: {**units, DUMMY: code}


def _word(units: Mapping[str, int]) -> dict[str, Any]:
    return {**units, DUMMY_WORD: 1}


def _dummy_values(units: Mapping[str, int], data: np.ndarray, pad: Mapping[str, Any], width: int, size: int) -> np.ndarray:
    """(blocks, size) bytes of the dummy of blocks without padding, as the variant in `units` reads
    "dummy会默认填充待搬运数据块的第一个元素值"."""
    how = units.get(DUMMY, 0)
    if how == PADDING_VALUE:
        value = np.array([pad["paddingValue"]], dtype=f"<u{width}").view(np.uint8)
        return np.broadcast_to(np.tile(value, size // width), (data.shape[0], size))
    element = min(width, 4) if units.get(DUMMY_WORD) else width
    first = data[:1, :element] if how == TRANSFER_FIRST else data[:, :element]
    return np.broadcast_to(np.tile(first, (1, size // element)), (data.shape[0], size))


def apply(call: Call, image: Mapping[str, np.ndarray], units: Mapping[str, int],
          runs: Mapping[str, Runs] | None = None) -> list[Any] | None:
    src, dst = call.tensor("src"), call.tensor("dst")
    runs = runs or accesses(call, units)
    s, d = runs["src"], runs["dst"]
    if call.form == "ub_to_gm":
        copy_runs(image[src.scope], src.addr, s, image[dst.scope], dst.addr, d)
        return None
    if s.empty:
        return None
    pad, width = call.args["padParams"], units["element"]
    left = pad["leftPadding"] * units["padParams.leftPadding"]
    right_at = left + s.length
    data = s.view(image[src.scope], src.addr).copy()             # (count, blockLen) bytes read
    blocks = d.view(image[dst.scope], dst.addr)                   # (count, P) bytes written
    blocks[:, left:right_at] = data
    rest = np.r_[0:left, right_at:d.length]                       # padding and dummy columns
    if not rest.size:
        return None
    dummy_only = left == 0 and pad["rightPadding"] == 0
    if dummy_only and units.get(DUMMY) != OPEN:                   # the readings decide
        blocks[:, right_at:] = _dummy_values(units, data, pad, width, d.length - right_at)
    elif dummy_only or not pad["isPad"]:                          # random, or SetPadValue's: open
        where = dst.addr + d.starts()[:, None] + rest[None, :]
        return [(dst.scope, where.reshape(-1), None)]
    else:
        value = np.array([pad["paddingValue"]], dtype=f"<u{width}").view(np.uint8)
        blocks[:, rest] = np.tile(value, rest.size // width)
    return None


VARIANTS = {"default": dict, "transfer_first": _dummy(TRANSFER_FIRST), "padding_value": _dummy(PADDING_VALUE),
            "dummy_open": _dummy(OPEN),
            "block_first_32bit": _word, "transfer_first_32bit": lambda units: _word(_dummy(TRANSFER_FIRST)(units))}

# Each variant above marks the units with what the dummy holds, which apply alone reads: a call reads and
# writes the bytes it does under the default math, and its rules read it alike (oracle/apis/__init__.py).
FILLING = frozenset(VARIANTS) - {"default"}
