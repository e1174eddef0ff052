"""Deliberately broken Ascend C DataCopy ND->NZ simulators: the suite must find every one of them non-conforming.

`Nd2NzSim` is a small, *correct* simulator of `DataCopy(LocalTensor dst, GlobalTensor src, Nd2NzParams)`
(specs/data_copy_nd2nz.yaml), written from the vendor page without the oracle: its own product, dtype and UB
tables, its own checks, and a move of row pieces (every piece read first, then written in order: where two
pieces' blocks meet, the one written later wins):

    Matrix i < ndNum, row r < nValue: the row's dValue elements, from source element
    i * srcNdMatrixStride + r * srcDValue ("单位为元素"), are cut into pieces of C0 = 32 / sizeof(T) elements;
    piece j lands in the DataBlock at byte i * dstNzMatrixStride * sizeof(T) + j * dstNzC0Stride * 32
    + r * dstNzNStride * 32 of dst ("单位：C0_SIZE（32B）"), the rest of the last piece's block zero.

Each subclass overrides ONE piece with one realistic mistake; its docstring says the verdict the suite must
give ("Expected:"). One geometry serves the mover and the bounds checks, so a legal call may also be refused.
Nothing here imports the oracle's index math or calls `oracle.expected` / `oracle.check`.
"""
from __future__ import annotations

from typing import Any

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

    def piece_at(self, p: dict, width: int, i: Any, j: Any, r: Any) -> Any:
        return i * p["dstNzMatrixStride"] * width + j * p["dstNzC0Stride"] * BLOCK + r * p["dstNzNStride"] * BLOCK

    def row_at(self, p: dict, width: int, i: Any, r: Any) -> Any:
        return (i * p["srcNdMatrixStride"] + r * p["srcDValue"]) * width

    def written(self, data: np.ndarray, held: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """What each piece's block is written with, and which of its bytes are written: the piece's data (the
        bytes `held`), zero after it to the block's end (every byte)."""
        return np.where(held, data, 0).astype(np.uint8), np.ones_like(held)

    def pieces(self, p: dict, width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """(source byte, destination byte, bytes of data) of every row piece, in the order they are written
        (matrix, then row, then piece), and the bytes each piece's block takes."""
        per = self.c0(width)
        i = np.arange(p["ndNum"], dtype=np.int64)[:, None, None]
        r = np.arange(p["nValue"], dtype=np.int64)[None, :, None]
        j = np.arange(-(-p["dValue"] // per), dtype=np.int64)[None, None, :]
        shape = (i.size, r.size, j.size)
        src = np.broadcast_to(self.row_at(p, width, i, r) + j * per * width, shape).ravel()
        dst = np.broadcast_to(self.piece_at(p, width, i, j, r), shape).ravel()
        n = np.broadcast_to(np.minimum(per, p["dValue"] - j * per) * width, shape).ravel()
        return src, dst, n, per * width

    # -- checks ----------------------------------------------------------------------------------------
    def validate(self, call: Call) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
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
        reads, writes, n, w = pieces
        if reads.size and int((reads + n).max()) > src.numel * width:
            raise Rejected("a row is read past src", f"{API}.src.bounds")
        if writes.size and int(writes.max()) + w > dst.numel * width:
            raise Rejected("a block is written past dst", f"{API}.dst.bounds")
        if dst.addr + dst.numel * width > PRODUCTS[product]:
            raise Rejected("dst runs past UB", f"{API}.dst.capacity")
        return pieces

    def run(self, call: Call, memory: dict[str, np.ndarray]) -> None:
        if call.api != API:
            raise Rejected(f"{call.api} is not simulated")
        reads, writes, n, w = self.validate(call)
        if not reads.size:
            return
        src, dst = call.args["src"], call.args["dst"]
        gm, ub = memory["GM"], memory["UB"]
        byte = np.arange(w, dtype=np.int64)[None, :]
        held = byte < n[:, None]                            # a piece's own bytes within its block
        data = gm[np.minimum(src.addr + reads[:, None] + byte, gm.size - 1)]     # every piece read first
        values, wrote = self.written(data, held)
        at = dst.addr + writes
        where, values = (at[:, None] + byte)[wrote], values[wrote]     # in the order the pieces are written
        ordered = np.sort(at)
        if not np.all(ordered[1:] >= ordered[:-1] + w):     # blocks that meet: the last piece written wins
            order = np.argsort(where, kind="stable")
            where, values = where[order], values[order]
            last = np.append(where[1:] != where[:-1], True)
            where, values = where[last], values[last]
        ub[where] = values


class FractalOrderSwapped(Nd2NzSim):
    """The fractal order: a row's pieces stepped by dstNzNStride and the rows by dstNzC0Stride (Z and N
    swapped). Expected: FAIL (or FALSE_REJECT) in legal cells."""

    name = "nd2nz-bug-fractal-order"
    bug = "fractal order"

    def piece_at(self, p: dict, width: int, i: Any, j: Any, r: Any) -> Any:
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

    def piece_at(self, p: dict, width: int, i: Any, j: Any, r: Any) -> Any:
        return (i * p["dstNzMatrixStride"] + j * p["dstNzC0Stride"] + r * p["dstNzNStride"]) * BLOCK


class PaddingNotZeroed(Nd2NzSim):
    """The last piece of a row copied without zeroing the rest of its block ("不足的部分会被补齐为0" missed).
    Expected: FAIL in legal cells (a dValue that is not a whole number of C0)."""

    name = "nd2nz-bug-padding-kept"
    bug = "zero padding"

    def written(self, data: np.ndarray, held: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return data, held


BUGGY_DATA_COPY_ND2NZ_BACKENDS = [FractalOrderSwapped, C0Of16Elements, MatrixStrideInBlocks, PaddingNotZeroed]
