"""Deliberately broken Gatherb simulators: the suite must find every one of them non-conforming.

`GatherbSim` is a small, *correct* simulator of Ascend C `Gatherb` (asc-devkit@0da921b9:docs/zh/api/SIMD-API/
基础API/Memory矢量计算/离散与聚合/Gatherb(ISASI).md), written from the page without the oracle: DataBlock j of
iteration i (8 an iteration) is the 32 bytes offset[i * 8 + j] bytes from src (offsets little-endian uint32
bytes), written (i * dstRepStride + j * dstBlkStride) * 32 bytes from dst, a dstBlkStride of 0 read as 1.
Every block is read before any is written; a block read from past UB reads zeros (undefined territory).
Each subclass overrides ONE piece with one realistic mistake; its docstring says what the suite must report.
"""
from __future__ import annotations

import numpy as np

from conformance import Rejected
from oracle import Call

API = "gatherb"
BLOCK = 32
ITEMSIZE = {"int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "float16": 2, "bfloat16": 2,
            "int32": 4, "uint32": 4, "float32": 4, "int64": 8, "uint64": 8, "float64": 8}
UB_BYTES = {"ascend310b": 248 << 10, "ascend910b": 192 << 10, "ascend910_93": 192 << 10,
            "ascend310p-aicore": 256 << 10, "ascend310": 256 << 10, "ascend910": 256 << 10,
            "ascend310p-vectorcore": 256 << 10}
_A2 = (frozenset({"uint16", "uint32"}), "a2_a3")
DTYPES = {"ascend910b": _A2, "ascend910_93": _A2,
          "ascend310b": (frozenset({"int8", "uint8", "int16", "uint16", "float16", "bfloat16", "int32", "uint32",
                                    "float32", "int64"}), "310b")}
RANGES = {"repeatTime": (0, 255), "dstBlkStride": (0, 255), "dstRepStride": (0, 65535)}
OPERANDS = ("dst", "src", "offset")


class GatherbSim:
    """A correct Gatherb simulator (the control: it must conform everywhere)."""

    name = "gatherb-sim-correct"
    bug = ""

    def supports(self, api: str, product: str) -> bool:
        return api == API and product in UB_BYTES

    def run(self, call: Call, memory: dict[str, np.ndarray]) -> None:
        self.validate(call)
        ub, args = memory["UB"], call.args
        n = args["repeatTime"] * 8
        if not n:
            return
        where = args["offset"].addr + np.arange(n)[:, None] * 4 + np.arange(4)
        offsets = np.ascontiguousarray(ub[where]).view("<u4").reshape(-1).astype(np.int64)
        starts = args["src"].addr + self.src_bytes(offsets, ITEMSIZE[args["dst"].dtype])
        inside = (starts >= 0) & (starts + BLOCK <= ub.shape[0])
        values = np.zeros((n, BLOCK), dtype=np.uint8)
        values[inside] = ub[starts[inside, None] + np.arange(BLOCK)]                 # every read first
        at = args["dst"].addr + self.dst_places(call)
        ub[(at[:, None] + np.arange(BLOCK)).reshape(-1)] = values.reshape(-1)

    # -- the pieces a bug may override ------------------------------------------------------------
    def src_bytes(self, offsets: np.ndarray, width: int) -> np.ndarray:
        """Bytes from src to a block: the offset ("单位为字节")."""
        return offsets

    def blk_stride(self, call: Call) -> int:
        """"当dstBlkStride值为0时，默认按照1来处理"."""
        return max(call.args["repeatParams"]["dstBlkStride"], 1)

    def dst_places(self, call: Call) -> np.ndarray:
        """Byte of each block in dst, iteration by iteration."""
        p = call.args["repeatParams"]
        i = np.repeat(np.arange(call.args["repeatTime"], dtype=np.int64), 8)
        j = np.tile(np.arange(8, dtype=np.int64), call.args["repeatTime"])
        return (i * p["dstRepStride"] + j * self.blk_stride(call)) * BLOCK

    def validate(self, call: Call) -> None:
        args, product = call.args, call.product
        if product not in DTYPES:
            raise Rejected(f"Gatherb is not available on {product}", "gatherb.product.supported")
        for op in OPERANDS:
            if args[op].scope != "UB":
                raise Rejected(f"{op} is in {args[op].scope}", f"gatherb.{op}.scope")
        allowed, tag = DTYPES[product]
        for op in ("dst", "src"):
            if args[op].dtype not in allowed:
                raise Rejected(args[op].dtype, f"gatherb.dtype.supported_{tag}")
        if args["offset"].dtype != "uint32":
            raise Rejected("offset is a LocalTensor<uint32_t>", "gatherb.offset.dtype")
        if args["dst"].dtype != args["src"].dtype:
            raise Rejected("dst and src differ in dtype", "gatherb.dtype.same")
        for op in OPERANDS:
            if args[op].addr % BLOCK:
                raise Rejected(f"{op} at {args[op].addr}", f"gatherb.{op}.align")
        values = {"repeatTime": args["repeatTime"], **args["repeatParams"]}
        for name, (lo, hi) in RANGES.items():
            if not lo <= values[name] <= hi:
                raise Rejected(f"{name}={values[name]}", f"gatherb.{name}.range")
        at = self.dst_places(call)
        reach = {"dst": int(at.max()) + BLOCK if at.size else 0, "offset": args["repeatTime"] * 8 * 4}
        for op, end in reach.items():
            if end > args[op].numel * ITEMSIZE[args[op].dtype]:
                raise Rejected(f"{op} touched to byte {end}", f"gatherb.{op}.bounds")
        for op in OPERANDS:
            t = args[op]
            if t.addr + t.numel * ITEMSIZE[t.dtype] > UB_BYTES[product]:
                raise Rejected(f"{op} past UB", f"gatherb.{op}.capacity")


class OffsetsInElements(GatherbSim):
    """(a) Offsets read in elements (the reference code's `offset // itemsize` taken as the unit).

    Expected: FAIL in the legal cells of 16- and 32-bit types (any call with a non-zero offset)."""

    name = "gatherb-bug-a-offsets-in-elements"
    bug = "offset unit = element"

    def src_bytes(self, offsets: np.ndarray, width: int) -> np.ndarray:
        return offsets * width


class ZeroBlockStrideKept(GatherbSim):
    """(b) A dstBlkStride of 0 taken as it is: every block of an iteration written to one place.

    Expected: FAIL (or FALSE_REJECT) in the legal cells (the sweep reaches dstBlkStride=min, 0)."""

    name = "gatherb-bug-b-zero-block-stride-kept"
    bug = "dstBlkStride 0 not read as 1"

    def blk_stride(self, call: Call) -> int:
        return call.args["repeatParams"]["dstBlkStride"]


class StridesInElements(GatherbSim):
    """(c) dstBlkStride and dstRepStride counted in 16 elements of 16-bit data (the reference code's uint16
    example taken for every dtype): a DataBlock of 16 elements whatever the dtype.

    Expected: FAIL (or FALSE_REJECT / MISSED_REJECT) in the legal 32-bit cells."""

    name = "gatherb-bug-c-block-of-16-elements"
    bug = "a DataBlock's size per dtype"

    def dst_places(self, call: Call) -> np.ndarray:
        return super().dst_places(call) // BLOCK * 16 * ITEMSIZE[call.args["dst"].dtype]


class RepeatStrideInBytes(GatherbSim):
    """(d) dstRepStride counted in bytes, not DataBlocks.

    Expected: FAIL (or MISSED_REJECT) in the legal cells with two iterations or more."""

    name = "gatherb-bug-d-repeat-stride-in-bytes"
    bug = "dstRepStride unit = byte"

    def dst_places(self, call: Call) -> np.ndarray:
        p = call.args["repeatParams"]
        i = np.repeat(np.arange(call.args["repeatTime"], dtype=np.int64), 8)
        j = np.tile(np.arange(8, dtype=np.int64), call.args["repeatTime"])
        return i * p["dstRepStride"] + j * self.blk_stride(call) * BLOCK


BUGGY_GATHERB_BACKENDS = [OffsetsInElements, ZeroBlockStrideKept, StridesInElements, RepeatStrideInBytes]
