"""TIK data_move (001_e45651b2d591d11d.txt): `nburst` bursts of `burst` units each.

"src_stride / dst_stride: 相邻连续数据片段间隔(前 burst 尾与后 burst 头)" -- the gap from the tail of one
burst to the head of the next, so burst k starts at k * (burst + stride) units. Units come from the
spec's path table.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from ..call import Call
from ..footprint import Runs, copy_runs


def burst_runs(call: Call, units: Mapping[str, int], stride: str) -> Runs:
    length = call.int_arg("burst") * units["burst"]
    return Runs(first=0, step=length + call.int_arg(stride) * units[stride],
                count=call.int_arg("nburst"), length=length)


def accesses(call: Call, units: Mapping[str, int]) -> dict[str, Runs]:
    return {"src": burst_runs(call, units, "src_stride"), "dst": burst_runs(call, units, "dst_stride")}


def apply(call: Call, image: Mapping[str, np.ndarray], units: Mapping[str, int]) -> None:
    src, dst = call.tensor("src"), call.tensor("dst")
    runs = accesses(call, units)
    copy_runs(image[src.scope], src.addr, runs["src"], image[dst.scope], dst.addr, runs["dst"])
