"""TIK data_move (001_e45651b2d591d11d.txt): `nburst` bursts of `burst` units each.

"src_stride / dst_stride: 相邻连续数据片段间隔(前 burst 尾与后 burst 头)" -- the gap from the tail of one
burst to the head of the next, so burst k starts at k * (burst + stride) units. Units come from the
spec's path table.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from ..call import Call
from ..footprint import Runs, copy_runs, landed


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


def apply(call: Call, image: Mapping[str, np.ndarray], units: Mapping[str, int],
          runs: Mapping[str, Runs] | None = None) -> None:
    src, dst = call.tensor("src"), call.tensor("dst")
    runs = runs or accesses(call, units)         # the context's, when the caller has them
    copy_runs(image[src.scope], src.addr, runs["src"], image[dst.scope], dst.addr, runs["dst"])


def applied(call: Call, memory: Mapping[str, np.ndarray], units: Mapping[str, int],
            runs: Mapping[str, Runs] | None = None) -> dict[str, np.ndarray] | None:
    """{dst's scope: its image after the call}, made from `memory` (not modified) in one pass where the
    bursts lie back to back on both sides (the usual large move) inside both images; None otherwise
    (copy, then apply)."""
    src, dst = call.args["src"], call.args["dst"]          # tensors, as `context` has validated them
    src_image, dst_image = memory.get(src.scope), memory.get(dst.scope)
    if src_image is None or dst_image is None:
        return None
    runs = runs or accesses(call, units)
    image = landed(dst_image, dst.addr, runs["dst"], src_image, src.addr, runs["src"])
    return None if image is None else {dst.scope: image}


VARIANTS = {"default": dict}     # index-math variants by name (see offsets.py); no reading here moves bytes otherwise
