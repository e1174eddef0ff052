"""Deliberately broken Ascend C DataCopy simulators: the suite must find every one of them non-conforming.

`DataCopySim` is a small, *correct* simulator of `DataCopy(dst, src, count)` and `DataCopy(dst, src,
DataCopyParams)` between GM and UB and inside UB (specs/data_copy.yaml), written from the vendor pages
without the oracle: its own product, path, dtype and UB tables, its own checks, and a block-by-block move.

    count form:   count * sizeof(T) bytes, rounded down to 32 ("若未对齐，搬运量会向下取整到32字节对齐": the
                  reading round_down of data_copy.count.unaligned);
    params form:  blockCount blocks of blockLen DataBlocks (32 B); block k of an operand starts
                  k * (blockLen + gap) DataBlocks after its address ("前一个数据块结束地址与后一个数据块起始地址
                  的差值"); a blockCount or blockLen of 0 moves nothing (NOP on A2 / A3).

Each subclass overrides ONE piece with one realistic mistake; its docstring says the verdict the suite must
give ("Expected:"). One geometry serves the mover and the bounds checks, so a legal call may also be refused.
Nothing here imports the oracle's index math or calls `oracle.expected` / `oracle.check`.
"""
from __future__ import annotations

import numpy as np

from conformance import Rejected
from oracle import Call

API = "data_copy"
BLOCK = 32
ITEMSIZE = {"int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "float16": 2, "bfloat16": 2, "int32": 4, "uint32": 4,
            "float32": 4, "int64": 8, "uint64": 8, "float64": 8}
# 产品支持情况: UB->UB is not on Atlas 200I/500 A2 nor the Vector Core; Atlas 200/300/500 has neither page.
PATHS = {"ascend910_93": {"GM->UB", "UB->GM", "UB->UB"}, "ascend910b": {"GM->UB", "UB->GM", "UB->UB"},
         "ascend310p-aicore": {"GM->UB", "UB->GM", "UB->UB"}, "ascend910": {"GM->UB", "UB->GM", "UB->UB"},
         "ascend310b": {"GM->UB", "UB->GM"}, "ascend310p-vectorcore": {"GM->UB", "UB->GM"}}
WITH_BF16 = {"ascend910_93", "ascend910b", "ascend310b"}
UB_BYTES = {"ascend910_93": 192 << 10, "ascend910b": 192 << 10, "ascend310b": 248 << 10,
            "ascend310p-aicore": 256 << 10, "ascend310p-vectorcore": 256 << 10, "ascend910": 256 << 10}
RANGES = {"blockCount": (0, 4095), "blockLen": (0, 65535), "srcGap": (0, 65535), "dstGap": (0, 65535)}


class DataCopySim:
    """The correct simulator (the control)."""

    name = "data-copy-sim-correct"
    bug = ""

    def supports(self, api: str, product: str) -> bool:
        return api == API and product in PATHS

    # -- geometry: per operand, (first, step, count, length) in bytes ---------------------------------
    def count_bytes(self, count: int, width: int) -> int:
        return count * width // BLOCK * BLOCK

    def block_bytes(self, p: dict) -> int:
        return p["blockLen"] * BLOCK

    def step(self, p: dict, gap: int) -> int:
        return (p["blockLen"] + gap) * BLOCK

    def blocks(self, p: dict) -> int:
        return p["blockCount"] if p["blockLen"] else 0

    def runs(self, call: Call) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
        """((step, count, length) of src, of dst)."""
        width = ITEMSIZE[call.args["dst"].dtype]
        if call.form == "count":
            n = self.count_bytes(call.args["count"], width)
            return (n, 1, n), (n, 1, n)
        p = call.args["repeatParams"]
        n, count = self.block_bytes(p), self.blocks(p)
        return (self.step(p, p["srcGap"]), count, n), (self.step(p, p["dstGap"]), count, n)

    # -- checks ------------------------------------------------------------------------------------
    def validate(self, call: Call) -> None:
        product, src, dst = call.product, call.args["src"], call.args["dst"]
        if product not in PATHS:
            raise Rejected(f"DataCopy is not on {product}", f"{API}.product.supported")
        if f"{src.scope}->{dst.scope}" not in PATHS[product]:
            raise Rejected(f"{src.scope}->{dst.scope} is not a DataCopy path on {product}", f"{API}.path.supported")
        for t in (dst, src):
            if t.dtype not in ITEMSIZE or (t.dtype == "bfloat16" and product not in WITH_BF16):
                rule = "dtype.supported" if product in WITH_BF16 else "dtype.supported_no_bf16"
                raise Rejected(f"dtype {t.dtype} on {product}", f"{API}.{rule}")
        if src.dtype != dst.dtype:
            raise Rejected("src and dst differ in dtype", f"{API}.dtype.same")
        width = ITEMSIZE[dst.dtype]
        for name, t in (("dst", dst), ("src", src)):
            need = BLOCK if t.scope == "UB" else width
            if t.addr % need:
                raise Rejected(f"{name} at {t.addr} is not {need}-byte aligned", f"{API}.{name}.align.{t.scope}")
        if call.form == "count":
            if not 0 <= call.args["count"] < 2**32:
                raise Rejected("count out of range", f"{API}.count.range")
        else:
            for name, (lo, hi) in RANGES.items():
                if not lo <= call.args["repeatParams"][name] <= hi:
                    raise Rejected(f"{name} out of range", f"{API}.{name}.range")
        (s_step, s_count, s_len), (d_step, d_count, d_len) = self.runs(call)
        for name, t, step, count, length in (("src", src, s_step, s_count, s_len), ("dst", dst, d_step, d_count, d_len)):
            reach = (count - 1) * step + length if count and length else 0
            if reach > t.numel * width:
                raise Rejected(f"{name} read/written up to byte {reach}", f"{API}.{name}.bounds")
        for name, t in (("src", src), ("dst", dst)):
            if t.scope == "UB" and t.addr + t.numel * width > UB_BYTES[product]:
                raise Rejected(f"{name} runs past UB", f"{API}.{name}.capacity")

    def run(self, call: Call, memory: dict[str, np.ndarray]) -> None:
        if call.api != API:
            raise Rejected(f"{call.api} is not simulated")
        self.validate(call)
        src, dst = call.args["src"], call.args["dst"]
        (s_step, count, length), (d_step, _, _) = self.runs(call)
        if not count or not length:
            return
        # every block read before any is written (a UB->UB overlap is undefined anyway)
        data = [memory[src.scope][src.addr + k * s_step:src.addr + k * s_step + length].copy() for k in range(count)]
        for k, block in enumerate(data):
            memory[dst.scope][dst.addr + k * d_step:dst.addr + k * d_step + length] = block


class GapInBytes(DataCopySim):
    """srcGap / dstGap counted in bytes, not in DataBlocks (32 B): the stride unit.
    Expected: FAIL in legal params cells (two blocks or more with a gap)."""

    name = "data-copy-bug-gap-in-bytes"
    bug = "gap unit"

    def step(self, p: dict, gap: int) -> int:
        return p["blockLen"] * BLOCK + gap


class GapHeadToHead(DataCopySim):
    """The gap taken from head to head (block k at k * max(gap, blockLen)) instead of from the end of one
    block to the start of the next. Expected: FAIL (or FALSE_REJECT) in legal params cells."""

    name = "data-copy-bug-gap-head-to-head"
    bug = "gap origin"

    def step(self, p: dict, gap: int) -> int:
        return max(gap, p["blockLen"]) * BLOCK


class CountNotRounded(DataCopySim):
    """count * sizeof(T) moved exactly, not rounded down to 32 bytes: the rounding. An unaligned count is the
    ambiguity data_copy.count.unaligned, which the default run leaves out. Expected: FAIL in its ambiguity
    cell under the reading round_down."""

    name = "data-copy-bug-count-not-rounded"
    bug = "rounding"

    def count_bytes(self, count: int, width: int) -> int:
        return count * width


class CountRoundedUp(DataCopySim):
    """count * sizeof(T) rounded up to 32 bytes. Expected: FAIL or FALSE_REJECT in the ambiguity cell of
    data_copy.count.unaligned under the reading round_down."""

    name = "data-copy-bug-count-rounded-up"
    bug = "rounding direction"

    def count_bytes(self, count: int, width: int) -> int:
        return -(-count * width // BLOCK) * BLOCK


class ZeroBlockCountMovesOne(DataCopySim):
    """blockCount = 0 moves one block (a do-while loop): the NOP case of A2 / A3.
    Expected: FAIL or FALSE_REJECT in the legal params cells of ascend910b."""

    name = "data-copy-bug-zero-block-count"
    bug = "NOP"

    def blocks(self, p: dict) -> int:
        return max(p["blockCount"], 1) if p["blockLen"] else 0


BUGGY_DATA_COPY_BACKENDS = [GapInBytes, GapHeadToHead, CountNotRounded, CountRoundedUp, ZeroBlockCountMovesOne]
