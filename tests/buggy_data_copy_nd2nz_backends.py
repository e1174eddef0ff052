"""Deliberately broken Ascend C DataCopy ND->NZ simulators: the suite must find every one of them non-conforming.

`Nd2NzSim` is a small, *correct* simulator of `DataCopy(LocalTensor dst, GlobalTensor src, Nd2NzParams)`
(specs/data_copy_nd2nz.yaml), written from the vendor page without the oracle: its own product, dtype and UB
tables, its own checks, and a row-piece-by-row-piece move:

    Matrix i < ndNum, row r < nValue: the row's dValue elements, from source element
    i * srcNdMatrixStride + r * srcDValue ("单位为元素"), are cut into pieces of C0 = 32 / sizeof(T) elements;
    piece j lands in the DataBlock at byte i * dstNzMatrixStride * sizeof(T) + j * dstNzC0Stride * 32
    + r * dstNzNStride * 32 of dst ("单位：C0_SIZE（32B）"), the rest of the last piece's block zero.

Each subclass overrides ONE piece with one realistic mistake; its docstring says the verdict the suite must
give ("Expected:"). One geometry serves the mover and the bounds checks, so a legal call may also be refused.
Nothing here imports the oracle's index math or calls `oracle.expected` / `oracle.check`.
"""
from __future__ import annotations

import numpy as np

from conformance import Rejected
from oracle import Call

API = "data_copy_nd2nz"
BLOCK = 32
ITEMSIZE = {"int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "float16": 2, "bfloat16": 2, "int32": 4, "uint32": 4,
            "float32": 4}
PRODUCTS = {"ascend910_93": 192 << 10, "ascend910b": 192 << 10, "ascend310p-aicore": 256 << 10}   # UB bytes
WITH_BF16 = {"ascend910_93", "ascend910b"}
RANGES = {"ndNum": (0, 4095), "nValue": (0, 16384), "dValue": (0, 65535), "srcNdMatrixStride": (0, 65535),
          "srcDValue": (1, 65535), "dstNzC0Stride": (1, 16384), "dstNzNStride": (1, 16384),
          "dstNzMatrixStride": (1, 65535)}


class Nd2NzSim:
    """The correct simulator (the control)."""

    name = "nd2nz-sim-correct"
    bug = ""

    def supports(self, api: str, product: str) -> bool:
        return api == API and product in PRODUCTS

    # -- geometry, in bytes ----------------------------------------------------------------------------
    def c0(self, width: int) -> int:
        """Elements in one row piece of a column block."""
        return BLOCK // width

    def piece_at(self, p: dict, width: int, i: int, j: int, r: int) -> int:
        return i * p["dstNzMatrixStride"] * width + j * p["dstNzC0Stride"] * BLOCK + r * p["dstNzNStride"] * BLOCK

    def row_at(self, p: dict, width: int, i: int, r: int) -> int:
        return (i * p["srcNdMatrixStride"] + r * p["srcDValue"]) * width

    def fill(self, block: np.ndarray, data: np.ndarray) -> None:
        block[:data.size] = data
        block[data.size:] = 0

    def pieces(self, p: dict, width: int) -> list[tuple[int, int, int, int]]:
        """(source byte, destination byte, bytes of data, bytes written) of every row piece."""
        per = self.c0(width)
        out = []
        for i in range(p["ndNum"]):
            for r in range(p["nValue"]):
                for j in range(-(-p["dValue"] // per)):
                    n = min(per, p["dValue"] - j * per) * width
                    out.append((self.row_at(p, width, i, r) + j * per * width, self.piece_at(p, width, i, j, r),
                                n, per * width))
        return out

    # -- checks ----------------------------------------------------------------------------------------
    def validate(self, call: Call) -> list[tuple[int, int, int, int]]:
        product, src, dst, p = call.product, call.args["src"], call.args["dst"], call.args["intriParams"]
        if product not in PRODUCTS:
            raise Rejected(f"DataCopy ND2NZ is not on {product}", f"{API}.product.supported")
        if (src.scope, dst.scope) != ("GM", "UB"):
            raise Rejected(f"{src.scope}->{dst.scope} is not GM->UB", f"{API}.path.supported")
        for t in (dst, src):
            if t.dtype not in ITEMSIZE or (t.dtype == "bfloat16" and product not in WITH_BF16):
                rule = "dtype.supported" if product in WITH_BF16 else "dtype.supported_310p"
                raise Rejected(f"dtype {t.dtype} on {product}", f"{API}.{rule}")
        if src.dtype != dst.dtype:
            raise Rejected("src and dst differ in dtype", f"{API}.dtype.same")
        for name, (lo, hi) in RANGES.items():
            if not lo <= p[name] <= hi:
                raise Rejected(f"{name} = {p[name]} out of range", f"{API}.{name}.range")
        if dst.addr % BLOCK:
            raise Rejected(f"dst at {dst.addr} is not 32-byte aligned", f"{API}.dst.align")
        width = ITEMSIZE[dst.dtype]
        pieces = self.pieces(p, width)
        if pieces and max(s + n for s, _, n, _ in pieces) > src.numel * width:
            raise Rejected("a row is read past src", f"{API}.src.bounds")
        if pieces and max(d + w for _, d, _, w in pieces) > dst.numel * width:
            raise Rejected("a block is written past dst", f"{API}.dst.bounds")
        if dst.addr + dst.numel * width > PRODUCTS[product]:
            raise Rejected("dst runs past UB", f"{API}.dst.capacity")
        return pieces

    def run(self, call: Call, memory: dict[str, np.ndarray]) -> None:
        if call.api != API:
            raise Rejected(f"{call.api} is not simulated")
        pieces = self.validate(call)
        src, dst = call.args["src"], call.args["dst"]
        gm, ub = memory["GM"], memory["UB"]
        data = [gm[src.addr + s:src.addr + s + n].copy() for s, _, n, _ in pieces]
        for (_, d, _, w), piece in zip(pieces, data):
            self.fill(ub[dst.addr + d:dst.addr + d + w], piece)


class FractalOrderSwapped(Nd2NzSim):
    """The fractal order: a row's pieces stepped by dstNzNStride and the rows by dstNzC0Stride (Z and N
    swapped). Expected: FAIL (or FALSE_REJECT) in legal cells."""

    name = "nd2nz-bug-fractal-order"
    bug = "fractal order"

    def piece_at(self, p: dict, width: int, i: int, j: int, r: int) -> int:
        return i * p["dstNzMatrixStride"] * width + r * p["dstNzC0Stride"] * BLOCK + j * p["dstNzNStride"] * BLOCK


class C0Of16Elements(Nd2NzSim):
    """C0 taken as 16 elements for every dtype (the NZ->ND page's fractal) instead of 32 bytes: right for
    half, wrong for int8 and float. Expected: FAIL (or FALSE_REJECT) in the legal int8 and float32 cells."""

    name = "nd2nz-bug-c0-16-elements"
    bug = "C0 per dtype"

    def c0(self, width: int) -> int:
        return 16


class MatrixStrideInBlocks(Nd2NzSim):
    """dstNzMatrixStride counted in C0 blocks (32 B) like the two other dst strides, not in elements: the
    stride unit. Expected: FAIL (or FALSE_REJECT) in legal cells (two matrices or more)."""

    name = "nd2nz-bug-matrix-stride-unit"
    bug = "stride unit"

    def piece_at(self, p: dict, width: int, i: int, j: int, r: int) -> int:
        return (i * p["dstNzMatrixStride"] + j * p["dstNzC0Stride"] + r * p["dstNzNStride"]) * BLOCK


class PaddingNotZeroed(Nd2NzSim):
    """The last piece of a row copied without zeroing the rest of its block ("不足的部分会被补齐为0" missed).
    Expected: FAIL in legal cells (a dValue that is not a whole number of C0)."""

    name = "nd2nz-bug-padding-kept"
    bug = "zero padding"

    def fill(self, block: np.ndarray, data: np.ndarray) -> None:
        block[:data.size] = data


BUGGY_DATA_COPY_ND2NZ_BACKENDS = [FractalOrderSwapped, C0Of16Elements, MatrixStrideInBlocks, PaddingNotZeroed]
