"""Ascend C DataCopy(LocalTensor dst, GlobalTensor src, Nd2NzParams) (asc-devkit@0da921b9:docs/zh/api/SIMD-API/
基础API/Memory矢量计算/数据搬运/GM与UB数据搬运/GMToUB随路转换ND2NZ搬运(DataCopy).md): GM -> UB, converting ND to
NZ, the inverse layout of data_copy_nz2nd (the fractal transpose is fractal.py's, shared with it).

Matrix i < ndNum, row r < nValue, column c < dValue: source element i * srcNdMatrixStride + r * srcDValue + c
lands on destination byte i * dstNzMatrixStride * sizeof(T) + (c div C0) * dstNzC0Stride * 32
+ r * dstNzNStride * 32 + (c mod C0) * sizeof(T), C0 = 32 / sizeof(T) elements (the spec's `c0` unit);
the last column block of a row is filled with zeros to its 32 bytes ("不足的部分会被补齐为0").
Units come from the spec, in bytes.

Examples
--------
The inverse of data_copy_nz2nd's example: one int16 matrix of 2 rows x 32 columns, its rows in GM
(srcDValue 32), its two column blocks of 16 in UB (dstNzC0Stride 2 blocks: each holds the 2 rows).
Element values are their ND positions:

>>> import numpy as np
>>> from oracle import Call, Tensor
>>> from oracle.apis import data_copy_nd2nz
>>> from oracle.rules import context
>>> call = Call("data_copy_nd2nz", "ascend910b", {"dst": Tensor("UB", 0, "int16", 64),
...             "src": Tensor("GM", 0, "int16", 64), "intriParams": {"ndNum": 1, "nValue": 2, "dValue": 32,
...             "srcNdMatrixStride": 0, "srcDValue": 32, "dstNzC0Stride": 2, "dstNzNStride": 1,
...             "dstNzMatrixStride": 1}})
>>> units = context(call).units
>>> runs = data_copy_nd2nz.accesses(call, units)
>>> runs["src"]
Grid(first=0, outer_step=0, outer=1, inner_step=64, inner=2, length=64)
>>> runs["dst"]
Lattice(first=0, steps=(2, 64, 32), counts=(1, 2, 2), length=32)
>>> gm = np.arange(64, dtype="<u2").view(np.uint8)
>>> ub = np.zeros(128, dtype=np.uint8)
>>> data_copy_nd2nz.apply(call, {"GM": gm, "UB": ub}, units)
>>> ub.view("<u2").tolist()
[0, 1, ..., 15, 32, 33, ..., 47, 16, 17, ..., 31, 48, 49, ..., 63]
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from ..call import Call
from ..footprint import Grid
from ..lattice import Lattice
from .fractal import nz_blocks
from .offsets import Extent


_DST_STEPS = tuple((f, "intriParams." + f) for f in ("dstNzMatrixStride", "dstNzC0Stride", "dstNzNStride"))   # outermost first


def accesses(call: Call, units: Mapping[str, int],
             memory: Mapping[str, np.ndarray] | None = None) -> dict[str, Grid | Lattice]:
    """src: per matrix, nValue ND rows of dValue elements; dst: per matrix, per column block, per row, one
    C0 block (padding included)."""
    p, width = call.args["intriParams"], units["element"]
    return {"src": Grid(0, p["srcNdMatrixStride"] * units["intriParams.srcNdMatrixStride"], p["ndNum"],
                        p["srcDValue"] * units["intriParams.srcDValue"], p["nValue"], p["dValue"] * width),
            "dst": _dst(call, units)}


def _dst(call: Call, units: Mapping[str, int]) -> Lattice:
    p, c0 = call.args["intriParams"], units["c0"]
    (matrix, matrix_unit), (c0_step, c0_unit), (row, row_unit) = _DST_STEPS
    return Lattice(0, (p[matrix] * units[matrix_unit], p[c0_step] * units[c0_unit], p[row] * units[row_unit]),
                   (p["ndNum"], -(-p["dValue"] * units["element"] // c0), p["nValue"]), c0)


def extents(call: Call, units: Mapping[str, int]) -> dict[str, Extent]:
    """Each operand's end and bytes moved as accesses' Grid and Lattice give them, in closed form (a
    generator sizes operands many times a drawn call): nothing where a matrix, row or column count is 0."""
    p, width, c0 = call.args["intriParams"], units["element"], units["c0"]
    matrices, rows, columns = p["ndNum"], p["nValue"], p["dValue"]
    if matrices <= 0 or rows <= 0 or columns <= 0:
        return {"src": Extent(0, 0), "dst": Extent(0, 0)}
    blocks = -(-columns * width // c0)
    src_end = (max(0, p["srcNdMatrixStride"] * units["intriParams.srcNdMatrixStride"] * (matrices - 1))
               + max(0, p["srcDValue"] * units["intriParams.srcDValue"] * (rows - 1)) + columns * width)
    (matrix, matrix_unit), (c0_step, c0_unit), (row, row_unit) = _DST_STEPS
    dst_end = (p[matrix] * units[matrix_unit] * (matrices - 1) + p[c0_step] * units[c0_unit] * (blocks - 1)
               + p[row] * units[row_unit] * (rows - 1) + c0)
    return {"src": Extent(src_end, matrices * rows * columns * width),
            "dst": Extent(dst_end, matrices * blocks * rows * c0)}


def apart(call: Call, units: Mapping[str, int], operand: str) -> dict[str, int]:
    """The strides of dst to raise, by parameter name, with the least values that keep its NZ rows apart
    (Lattice.nested_steps: matrices past their column blocks, column blocks past their rows); src is read only."""
    if operand != "dst":
        return {}
    lattice = _dst(call, units)
    return {name: -(-step // units[name]) for (_, name), step, was in zip(_DST_STEPS, lattice.nested_steps(), lattice.steps)
            if step != was}


def apply(call: Call, image: Mapping[str, np.ndarray], units: Mapping[str, int],
          runs: Mapping[str, Grid | Lattice] | None = None) -> None:
    acc = runs or accesses(call, units)
    s, d = acc["src"], acc["dst"]
    if s.empty or d.empty:
        return                                                     # no matrix, row or column: an empty move
    src, dst = call.tensor("src"), call.tensor("dst")
    d.view(image[dst.scope], dst.addr)[...] = nz_blocks(s.view(image[src.scope], src.addr), units["c0"])


VARIANTS = {"default": dict}     # index-math variants by name (see offsets.py); no reading here moves bytes otherwise
