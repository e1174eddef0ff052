"""Deliberately broken Gather simulators: the suite must find every one of them non-conforming.

`GatherSim` is a small, *correct* simulator of Ascend C `Gather` (asc-devkit@0da921b9:docs/zh/api/SIMD-API/
基础API/Memory矢量计算/离散与聚合/Gather.md, with the mask pages under SIMD计算说明/掩码/), written from the pages
without the oracle: its own product, dtype and UB tables, its own checks, and a loop over the iterations:

    Element i of dst is the src element srcBaseAddr + srcOffset[i] bytes from src (offsets little-endian
    uint32 bytes, "单位为字节"). The count form moves elements 0 .. count-1. The mask forms move, in
    iteration r, the elements of 8 DataBlocks (4 of 8-bit data on ascend310b, "每次迭代完成4个DataBlock")
    the mask picks: bit e % 64 of word e // 64 (mask[], "从低位到高位按位控制"), or the first `mask`
    ("连续模式", all of them past the iteration's count); element e of iteration r reads entry
    r * (elements of an iteration) + e and lands r * dstRepStride * 32 + e * width bytes into dst.

Every read happens before any write; iterations that meet in dst leave the later one's bytes. An offset
past UB reads zeros (undefined territory), never a crash. Each subclass overrides ONE piece with one
realistic mistake; its docstring says what the suite must report. Nothing here imports the oracle's
index math.
"""
from __future__ import annotations

import numpy as np

from sim_masks import bit_mode, count_mode, count_read_as_bits

from conformance import Rejected
from oracle import Call

API = "gather"
BLOCK = 32
ITEMSIZE = {"int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "float16": 2, "bfloat16": 2,
            "int32": 4, "uint32": 4, "float32": 4, "int64": 8, "uint64": 8}
UB_BYTES = {"ascend310b": 248 << 10, "ascend910b": 192 << 10, "ascend910_93": 192 << 10,
            "ascend310p-aicore": 256 << 10, "ascend310": 256 << 10, "ascend910": 256 << 10,
            "ascend310p-vectorcore": 256 << 10}
_A2_A3 = frozenset({"int16", "uint16", "float16", "bfloat16", "int32", "uint32", "float32"})
DTYPES = {"ascend910b": (_A2_A3, "a2_a3"), "ascend910_93": (_A2_A3, "a2_a3"),
          "ascend310b": (frozenset({"int8", "uint8", "int16", "uint16", "float16", "int32", "uint32", "float32"}), "310b"),
          "ascend310p-aicore": (frozenset({"int16", "uint16", "float16", "int32", "uint32", "float32"}), "310p")}
RANGES = {"srcBaseAddr": (0, 2**32 - 1), "count": (0, 2**32 - 1), "repeatTime": (0, 255), "dstRepStride": (0, 65535)}
OPERANDS = ("dst", "src", "srcOffset")
MASK_RULE = {1: "bits_16bit", 2: "bits_16bit", 4: "bits_32bit", 8: "bits_64bit"}


class GatherSim:
    """A correct Gather simulator (the control: it must conform everywhere)."""

    name = "gather-sim-correct"
    bug = ""

    def supports(self, api: str, product: str) -> bool:
        return api == API and product in UB_BYTES

    def run(self, call: Call, memory: dict[str, np.ndarray]) -> None:
        self.validate(call)
        self.move(call, memory["UB"])

    # -- the pieces a bug may override ------------------------------------------------------------
    def base_bytes(self, call: Call, width: int) -> int:
        """Bytes from src to where offset 0 reads ("srcBaseAddr ... 单位为字节")."""
        return call.args["srcBaseAddr"]

    def dst_step(self, call: Call) -> int:
        """Bytes dst moves an iteration ("dstRepStride ... 单位是DataBlock（32Bytes）")."""
        return call.args["dstRepStride"] * BLOCK

    def per_iteration(self, call: Call, width: int) -> int:
        """Elements of one iteration: 8 DataBlocks, 4 of 8-bit data (ascend310b, the one product with them)."""
        return (4 if width == 1 else 8) * BLOCK // width

    def selected(self, call: Call, per: int) -> np.ndarray:
        mask = call.args["mask"]
        return count_mode(mask, per) if call.form == "mask_continuous" else bit_mode(mask, per)

    # -- what a call moves --------------------------------------------------------------------------
    def elements(self, call: Call) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(offset entry, dst byte position, iteration) of every element the call moves, in order."""
        width = ITEMSIZE[call.args["dst"].dtype]
        if call.form == "count":
            i = np.arange(call.args["count"], dtype=np.int64)
            return i, i * width, np.zeros_like(i)
        per = self.per_iteration(call, width)
        e = np.flatnonzero(self.selected(call, per)).astype(np.int64)
        r = np.repeat(np.arange(call.args["repeatTime"], dtype=np.int64), e.size)
        e = np.tile(e, call.args["repeatTime"])
        return r * per + e, r * self.dst_step(call) + e * width, r

    # -- validation ----------------------------------------------------------------------------------
    def validate(self, call: Call) -> None:
        args, product = call.args, call.product
        if product not in DTYPES:
            raise Rejected(f"Gather is not available on {product}", "gather.product.supported")
        for op in OPERANDS:
            if args[op].scope != "UB":
                raise Rejected(f"{op} is in {args[op].scope}", f"gather.{op}.scope")
        allowed, tag = DTYPES[product]
        for op in ("dst", "src"):
            if args[op].dtype not in allowed:
                raise Rejected(f"{args[op].dtype} on {product}", f"gather.dtype.supported_{tag}")
        if args["srcOffset"].dtype != "uint32":
            raise Rejected("srcOffset is a LocalTensor<uint32_t>", "gather.srcOffset.dtype")
        if args["dst"].dtype != args["src"].dtype:
            raise Rejected("dst and src differ in dtype", "gather.dtype.same")
        for name, (lo, hi) in RANGES.items():
            if name in args and not lo <= args[name] <= hi:
                raise Rejected(f"{name}={args[name]}", f"gather.{name}.range")
        width = ITEMSIZE[args["dst"].dtype]
        self.validate_mask(call, width)
        for op in OPERANDS:
            if args[op].addr % BLOCK:
                raise Rejected(f"{op} at {args[op].addr}", f"gather.{op}.align")
        index, at, _ = self.elements(call)
        reach = {"dst": int(at.max()) + width if at.size else 0,
                 "srcOffset": (int(index.max()) + 1) * 4 if index.size else 0}
        for op, end in reach.items():
            if end > args[op].numel * ITEMSIZE[args[op].dtype]:
                raise Rejected(f"{op} touched to byte {end}", f"gather.{op}.bounds")
        for op in OPERANDS:
            t = args[op]
            if t.addr + t.numel * ITEMSIZE[t.dtype] > UB_BYTES[product]:
                raise Rejected(f"{op} past UB", f"gather.{op}.capacity")

    def validate_mask(self, call: Call, width: int) -> None:
        mask = call.args.get("mask")
        if call.form == "mask_continuous" and not 0 <= mask < 2**64:
            raise Rejected(f"mask={mask}", "gather.mask.count_range")
        if call.form == "mask_bits":
            words, rule = [int(w) for w in mask], f"gather.mask.{MASK_RULE[width]}"
            if len(words) != 2 or not all(0 <= w < 2**64 for w in words):
                raise Rejected(f"mask={words} is not two 64-bit words", rule)
            if width >= 4 and (words[1] or (width == 8 and words[0] >= 2**32)):
                raise Rejected(f"mask={words}: maskHigh must be 0", rule)

    # -- the move ------------------------------------------------------------------------------------
    def move(self, call: Call, ub: np.ndarray) -> None:
        args = call.args
        width = ITEMSIZE[args["dst"].dtype]
        index, at, r = self.elements(call)
        if not index.size:
            return
        where = args["srcOffset"].addr + index[:, None] * 4 + np.arange(4)
        offsets = np.ascontiguousarray(ub[where]).view("<u4").reshape(-1).astype(np.int64)
        starts = args["src"].addr + self.base_bytes(call, width) + offsets
        inside = starts + width <= ub.shape[0]
        values = np.zeros((index.size, width), dtype=np.uint8)
        values[inside] = ub[starts[inside, None] + np.arange(width)]
        dst = args["dst"].addr + at[:, None] + np.arange(width)
        for k in np.unique(r):                          # iteration by iteration: the later one stays
            ub[dst[r == k].reshape(-1)] = values[r == k].reshape(-1)


class BaseInElements(GatherSim):
    """(a) srcBaseAddr counted in elements: the base is srcBaseAddr * width bytes.

    Expected: FAIL in the legal cells of 16- and 32-bit types (any call with srcBaseAddr > 0 and an
    element moved)."""

    name = "gather-bug-a-base-in-elements"
    bug = "srcBaseAddr unit = element"

    def base_bytes(self, call: Call, width: int) -> int:
        return call.args["srcBaseAddr"] * width


class StrideInBytes(GatherSim):
    """(b) dstRepStride counted in bytes, not DataBlocks.

    Expected: FAIL in the legal mask cells (two iterations or more: dst 8 bytes on rather than 256);
    the dst bounds check uses the same step, so a call past dst may run (MISSED_REJECT)."""

    name = "gather-bug-b-stride-in-bytes"
    bug = "dstRepStride unit = byte"

    def dst_step(self, call: Call) -> int:
        return call.args["dstRepStride"]


class MaskBitsReversed(GatherSim):
    """(c) The bit mode read from the top bit down: element e is bit 63 - e % 64 of word e // 64.

    Expected: FAIL (or FALSE_REJECT, by the bounds check the reversed selection feeds) in the legal
    mask_bits cells."""

    name = "gather-bug-c-mask-bits-reversed"
    bug = "mask bit order"

    def selected(self, call: Call, per: int) -> np.ndarray:
        if call.form != "mask_bits":
            return super().selected(call, per)
        return bit_mode(call.args["mask"], per, reversed_bits=True)


class CountModeAsBits(GatherSim):
    """(d) The count mode read as a bit mode: mask = n selects the elements of n's set bits.

    Expected: FAIL (or FALSE_REJECT) in the legal mask_continuous cells (any mask but 0 and 1)."""

    name = "gather-bug-d-count-mode-as-bits"
    bug = "count mode vs bit mode"

    def selected(self, call: Call, per: int) -> np.ndarray:
        if call.form != "mask_continuous":
            return super().selected(call, per)
        return count_read_as_bits(call.args["mask"], per)


class EightBlocksFor8Bit(GatherSim):
    """(e) A DataBlock count per iteration that ignores the dtype: 8 DataBlocks (256 elements) for 8-bit
    data too, where ascend310b gathers 4.

    Expected: FAIL (or FALSE_REJECT, by the bounds check) in the legal 8-bit mask cells of ascend310b."""

    name = "gather-bug-e-eight-blocks-for-8bit"
    bug = "DataBlocks per iteration of 8-bit data"

    def per_iteration(self, call: Call, width: int) -> int:
        return 8 * BLOCK // width


BUGGY_GATHER_BACKENDS = [BaseInElements, StrideInBytes, MaskBitsReversed, CountModeAsBits, EightBlocksFor8Bit]
