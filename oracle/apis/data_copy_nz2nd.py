"""Ascend C DataCopy(GlobalTensor dst, LocalTensor src, Nz2NdParamsFull) (004_dc35eb371305363d.txt):
UB -> GM, converting NZ (fractal) layout to ND.

Matrix i < ndNum, row r < nValue, column c < dValue: destination element
i * dstNdMatrixStride + r * dstDStride + c comes from source element
i * srcNdMatrixStride * 256 + (c div 16) * srcNStride * 16 + r * 16 + (c mod 16). The source of one
matrix is dValue / 16 column blocks ("Z排布"), each nValue rows of 16 elements back to back; the
fractal is 16 elements wide for every dtype (the page's float example: srcNStride 4 is 64 elements).
Units (elements of 256 / 16 / 1) come from the spec, in bytes.

Examples
--------
One int16 matrix of 2 rows x 32 columns: in UB its two column blocks of 16 (srcNStride 2: each block holds
the 2 rows), in GM its rows of 32 elements (dstDStride 32). Element values are their NZ positions:

>>> import numpy as np
>>> from oracle import Call, Tensor
>>> from oracle.apis import data_copy_nz2nd
>>> from oracle.rules import context
>>> call = Call("data_copy_nz2nd", "ascend910b", {"dst": Tensor("GM", 0, "int16", 64),
...             "src": Tensor("UB", 0, "int16", 64), "intriParams": {"ndNum": 1, "nValue": 2,
...             "dValue": 32, "srcNdMatrixStride": 1, "srcNStride": 2, "dstDStride": 32, "dstNdMatrixStride": 1}})
>>> units = context(call).units
>>> runs = data_copy_nz2nd.accesses(call, units)
>>> runs["src"]
Grid(first=0, outer_step=512, outer=1, inner_step=64, inner=2, length=64)
>>> runs["dst"]
Grid(first=0, outer_step=2, outer=1, inner_step=64, inner=2, length=64)
>>> ub = np.arange(64, dtype="<u2").view(np.uint8)
>>> gm = np.zeros(128, dtype=np.uint8)
>>> data_copy_nz2nd.apply(call, {"UB": ub, "GM": gm}, units)
>>> gm.view("<u2").reshape(2, 32).tolist()
[[0, 1, ..., 15, 32, 33, ..., 47], [16, 17, ..., 31, 48, 49, ..., 63]]
"""
from __future__ import annotations

from typing import Mapping

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..call import Call
from ..footprint import Grid
from .fractal import nd_rows


# Operands a generator keeps from writing a byte twice by searching the values of the parameters their
# footprint reads (no closed form gives the least strides that part dst's rows: matrices side by side in
# one ND array, dstDStride >= ndNum * dValue, part them as well as matrices one after another do).
SEARCHED_APART = ("dst",)


def _fields(call: Call) -> dict[str, int]:
    fields: dict[str, int] = call.args["intriParams"]
    return fields


def accesses(call: Call, units: Mapping[str, int],
             memory: Mapping[str, np.ndarray] | None = None) -> dict[str, Grid]:
    """src: per matrix, dValue / 16 column blocks of nValue fractal rows; dst: per matrix, nValue rows."""
    p, width, fractal = _fields(call), units["element"], units["fractal"]
    blocks = -(-p["dValue"] // (fractal // width))                 # a partial block is still read whole
    # Grid(first, outer_step, outer, inner_step, inner, length), made without the named tuple's
    # Python-level __new__ (the generator sizes every drawn call by these)
    return {"src": _new(Grid, (0, p["srcNdMatrixStride"] * units["intriParams.srcNdMatrixStride"], p["ndNum"],
                               p["srcNStride"] * units["intriParams.srcNStride"], blocks, p["nValue"] * fractal)),
            "dst": _new(Grid, (0, p["dstNdMatrixStride"] * units["intriParams.dstNdMatrixStride"], p["ndNum"],
                               p["dstDStride"] * units["intriParams.dstDStride"], p["nValue"], p["dValue"] * width))}


_new = tuple.__new__


def apply(call: Call, image: Mapping[str, np.ndarray], units: Mapping[str, int],
          runs: Mapping[str, Grid] | None = None) -> None:
    acc = runs or accesses(call, units)
    src, dst = call.tensor("src"), call.tensor("dst")
    s, d = acc["src"], acc["dst"]
    if s.empty or d.empty:
        return                                                     # ndNum = 0: an empty move
    _move(image[src.scope], src.addr, s, image[dst.scope], dst.addr, d, _fields(call)["nValue"], units["fractal"])


def patched(call: Call, memory: Mapping[str, np.ndarray], units: Mapping[str, int],
            runs: Mapping[str, Grid] | None = None) -> dict[str, tuple[int, np.ndarray]] | None:
    """{dst's scope: (lo, data)} of a legal call: dst's span as `apply` leaves it, read from `memory` (not
    modified); None where apply answers instead (src and dst in one scope, a step below zero, a byte
    outside its image)."""
    src, dst = call.args["src"], call.args["dst"]          # tensors, as `context` has validated them
    source, target = memory.get(src.scope), memory.get(dst.scope)
    if source is None or target is None or src.scope == dst.scope:
        return None
    acc = runs or accesses(call, units)
    s, d = acc["src"], acc["dst"]
    if s.empty or d.empty:
        return {dst.scope: (0, target[:0])}
    lo, hi = dst.addr + d.begin, dst.addr + d.end
    if min(s.outer_step, s.inner_step, d.outer_step, d.inner_step) < 0 or lo < 0 or hi > target.shape[0] \
            or src.addr + s.begin < 0 or src.addr + s.end > source.shape[0]:
        return None
    # rows that fill the span leave no byte of it as it was: nothing to copy first
    whole = d.nbytes == hi - lo and not d.self_overlaps()
    data = np.empty(hi - lo, dtype=np.uint8) if whole else target[lo:hi].copy()
    _move(source, src.addr, s, data, dst.addr - lo, d, _fields(call)["nValue"], units["fractal"])
    data.flags.writeable = False
    return {dst.scope: (lo, data)}


def _move(source: np.ndarray, src_addr: int, s: Grid, target: np.ndarray, dst_addr: int, d: Grid, rows: int,
          fractal: int) -> None:
    """src's column blocks (`rows` fractal rows each) at `src_addr` of `source` into dst's rows at `dst_addr`
    of `target` (neither footprint empty)."""
    blocks = as_strided(source[src_addr:], shape=(s.outer, s.inner, rows, fractal),
                        strides=(s.outer_step, s.inner_step, fractal, 1))
    view = d.view(target, dst_addr)                                # (matrix, row, row bytes)
    if d.length == s.inner * fractal and not d.self_overlaps():
        # whole blocks, rows apart: each block goes straight to its place in its row (one copy, not two);
        # rows that meet are moved as whole rows, in the order numpy's assignment writes them
        item = np.dtype((np.void, fractal))                        # a block's bytes move as one item
        places = as_strided(view, shape=(d.outer, d.inner, s.inner, fractal), strides=view.strides[:2] + (fractal, 1))
        places.view(item)[..., 0] = blocks.view(item)[..., 0].transpose(0, 2, 1)
        return
    view[...] = nd_rows(blocks)[:, :, :d.length]


VARIANTS = {"default": dict}     # index-math variants by name (see offsets.py); no reading here moves bytes otherwise
