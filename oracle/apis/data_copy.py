"""Ascend C DataCopy (specs/data_copy.yaml): GM <-> UB and UB -> UB, plain or strided.

count form: "count * sizeof(T)需要32字节对齐，若未对齐，搬运量会向下取整到32字节对齐" -- one run of
count x element bytes rounded down to the spec's `block` unit (32 B), on both sides.
params form (DataCopyParams): blockCount blocks of blockLen units; "间隔（即前一个数据块结束地址与后一个数据块
起始地址的差值）" -- the gap runs from the end of one block to the start of the next, so block k starts at
k x (blockLen + gap) units. A blockCount or blockLen of 0 moves nothing (the NOP sentence). Units come
from the spec's path table.

Examples
--------
The params form, GM -> UB (asc-devkit@0da921b9:docs/zh/api/SIMD-API/基础API/Memory矢量计算/数据搬运/GM与UB数据搬运/
GM与UB高维切分数据搬运(DataCopy).md): two blocks of one 32-byte unit, a gap of one unit between them in GM:

>>> import numpy as np
>>> from oracle import Call, Tensor
>>> from oracle.apis import data_copy
>>> from oracle.rules import context
>>> call = Call("data_copy", "ascend910b", {"dst": Tensor("UB", 0, "int8", 64),
...             "src": Tensor("GM", 0, "int8", 96),
...             "repeatParams": {"blockCount": 2, "blockLen": 1, "srcGap": 1, "dstGap": 0}}, "params")
>>> units = context(call).units
>>> data_copy.accesses(call, units)
{'src': Runs(first=0, step=64, count=2, length=32), 'dst': Runs(first=0, step=32, count=2, length=32)}
>>> gm, ub = np.arange(96, dtype=np.uint8), np.zeros(64, dtype=np.uint8)
>>> data_copy.apply(call, {"GM": gm, "UB": ub}, units)
>>> ub.tolist()
[0, 1, ..., 31, 64, 65, ..., 95]
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from ..call import Call
from ..footprint import Runs
from ..moves import run_moves

_new = tuple.__new__     # Runs(...) without the named tuple's Python-level __new__ (every call)


def accesses(call: Call, units: Mapping[str, int],
             memory: Mapping[str, np.ndarray] | None = None) -> dict[str, Runs]:
    args = call.args
    if call.form == "count":
        block = units["block"]
        length = args["count"] * units["element"] // block * block
        run = _new(Runs, (0, length, 1, length))
        return {"src": run, "dst": run}
    p = args["repeatParams"]
    length = p["blockLen"] * units["repeatParams.blockLen"]
    count = p["blockCount"]
    return {"src": _new(Runs, (0, length + p["srcGap"] * units["repeatParams.srcGap"], count, length)),
            "dst": _new(Runs, (0, length + p["dstGap"] * units["repeatParams.dstGap"], count, length))}


apply, patched = run_moves(accesses)      # src's runs onto dst's, byte for byte


VARIANTS = {"default": dict}     # index-math variants by name (see offsets.py); no reading here moves bytes otherwise
