"""TIK data_move (001_e45651b2d591d11d.txt): `nburst` bursts of `burst` units each.

"src_stride / dst_stride: 相邻连续数据片段间隔(前 burst 尾与后 burst 头)" -- the gap from the tail of one
burst to the head of the next, so burst k starts at k * (burst + stride) units. Units come from the
spec's path table.

Examples
--------
Two bursts of one 32-byte block (`burst` and the strides count blocks on this path), a gap of one block
between the bursts of src:

>>> import numpy as np
>>> from oracle import Call, Tensor
>>> from oracle.apis import data_move
>>> from oracle.rules import context
>>> call = Call("data_move", "ascend910b", {"dst": Tensor("UB", 0, "int8", 64),
...             "src": Tensor("UB", 64, "int8", 96), "sid": 0, "nburst": 2, "burst": 1,
...             "src_stride": 1, "dst_stride": 0})
>>> units = context(call).units
>>> data_move.accesses(call, units)
{'src': Runs(first=0, step=64, count=2, length=32), 'dst': Runs(first=0, step=32, count=2, length=32)}
>>> ub = np.arange(160, dtype=np.uint8)
>>> data_move.apply(call, {"UB": ub}, units)
>>> ub[:64].tolist()
[64, 65, ..., 95, 128, 129, ..., 159]
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from ..call import Call
from ..footprint import Runs
from ..moves import run_moves


def accesses(call: Call, units: Mapping[str, int],
             memory: Mapping[str, np.ndarray] | None = None) -> dict[str, Runs]:
    """Burst k of an operand starts (burst + stride) * k units after its address."""
    args = call.args
    length = args["burst"] * units["burst"]
    nburst = args["nburst"]
    # Runs(first, step, count, length), made without the named tuple's Python-level __new__ (every call)
    return {"src": _new(Runs, (0, length + args["src_stride"] * units["src_stride"], nburst, length)),
            "dst": _new(Runs, (0, length + args["dst_stride"] * units["dst_stride"], nburst, length))}


_new = tuple.__new__


apply, patched = run_moves(accesses)      # src's runs onto dst's, byte for byte


VARIANTS = {"default": dict}     # index-math variants by name (see offsets.py); no reading here moves bytes otherwise
