"""Deliberately broken Ascend C DataCopyPad simulators: the suite must find every one of them non-conforming.

`DataCopyPadSim` is a small, correct simulator of DataCopyPad GM -> UB (DataCopyExtParams with
DataCopyPadExtParams) and UB -> GM (specs/data_copy_pad.yaml), written from the pages without the oracle:

    GM -> UB: block k of blockLen bytes read at k * (blockLen + srcStride) in GM; in UB leftPadding
    elements, the data, rightPadding elements and dummy bytes to a 32-byte end (P bytes), block k at
    k * (P + dstStride * 32); padding and dummy are paddingValue (isPad), anything (here: the bytes left as
    they were) without isPad; with no padding the dummy is the block's first element, with or without isPad
    (the reading block_first of data_copy_pad.dummy.no_padding and .without_isPad). UB -> GM: block k read at
    k * (ceil32(blockLen) + srcStride * 32) in UB, written at k * (blockLen + dstStride) in GM.
    A blockCount or blockLen of 0 writes nothing.

Each subclass overrides ONE piece with one realistic mistake ("Expected:" in its docstring).
"""
from __future__ import annotations

import numpy as np

from conformance import Rejected
from oracle import Call

API = "data_copy_pad"
BLOCK = 32
ITEMSIZE = {"int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "float16": 2, "bfloat16": 2, "int32": 4, "uint32": 4,
            "float32": 4, "int64": 8, "uint64": 8, "float64": 8}
UB_BYTES = {"ascend910_93": 192 << 10, "ascend910b": 192 << 10, "ascend310b": 248 << 10}
RANGES = {"blockCount": (0, 4095), "blockLen": (0, 2097151), "srcStride": (0, 2**32 - 1), "dstStride": (0, 2**32 - 1)}
WIDTH_NAME = {1: "b8", 2: "b16", 4: "b32", 8: "b64"}


def ceil32(n: int) -> int:
    return -(-n // BLOCK) * BLOCK


class DataCopyPadSim:
    """The correct simulator (the control)."""

    name = "data-copy-pad-sim-correct"
    bug = ""

    def supports(self, api: str, product: str) -> bool:
        return api == API and product in UB_BYTES

    def whole(self, left: int, n: int, right: int) -> int:
        return ceil32(left + n + right)

    def ub_step(self, n: int, stride: int) -> int:
        return ceil32(n) + stride * BLOCK

    def gm_to_ub_dst_step(self, whole: int, stride: int) -> int:
        return whole + stride * BLOCK

    def blocks(self, p: dict) -> int:
        return p["blockCount"] if p["blockLen"] else 0

    def fill(self, block: np.ndarray, data: np.ndarray, left: int, right: int, pad: dict, width: int) -> None:
        block[left:left + data.size] = data
        tail = block[left + data.size:]
        if left == 0 and right == 0:    # the dummy alone: block_first
            tail[:] = np.tile(data[:width], tail.size // width)
        elif not pad["isPad"]:          # random (or SetPadValue's): any bytes do; these are left as they were
            pass
        else:
            value = np.array([pad["paddingValue"]], dtype=f"<u{width}").view(np.uint8)
            block[:left] = np.tile(value, left // width)
            tail[:] = np.tile(value, tail.size // width)

    def validate(self, call: Call) -> tuple:
        product, src, dst = call.product, call.args["src"], call.args["dst"]
        if product not in UB_BYTES:
            raise Rejected("no DataCopyPad here", f"{API}.product.supported")
        want = ("GM", "UB") if call.form == "gm_to_ub" else ("UB", "GM")
        if (src.scope, dst.scope) != want:
            raise Rejected("wrong path", f"{API}.path.{call.form}")
        for t in (dst, src):
            if product == "ascend310b" and ITEMSIZE[t.dtype] == 8:
                raise Rejected("no 64-bit type here", f"{API}.dtype.supported_310b")
        if src.dtype != dst.dtype:
            raise Rejected("dtypes differ", f"{API}.dtype.same")
        width = ITEMSIZE[dst.dtype]
        for name, t in (("dst", dst), ("src", src)):
            if t.scope == "UB" and t.addr % BLOCK:
                raise Rejected("misaligned", f"{API}.{name}.align.UB")
        p = call.args["dataCopyParams"]
        for name, (lo, hi) in RANGES.items():
            if not lo <= p[name] <= hi:
                raise Rejected("out of range", f"{API}.{name}.range")
        if p["blockLen"] % width:
            raise Rejected("blockLen not a multiple of sizeof(T)", f"{API}.blockLen.multiple")
        left = right = 0
        if call.form == "gm_to_ub":
            pad = call.args["padParams"]
            for side in ("leftPadding", "rightPadding"):
                if not 0 <= pad[side] * width <= BLOCK:
                    raise Rejected("padding over 32 bytes", f"{API}.{side}.{WIDTH_NAME[width]}")
            top = 0 if width == 8 else 2 ** (8 * width) - 1
            if not 0 <= pad["paddingValue"] <= top:
                raise Rejected("paddingValue", f"{API}.paddingValue.{WIDTH_NAME[width]}")
            left, right = pad["leftPadding"] * width, pad["rightPadding"] * width
        n, count = p["blockLen"], self.blocks(p)
        if call.form == "gm_to_ub":
            whole = self.whole(left, n, right)
            s_step, s_len = n + p["srcStride"], n
            d_step, d_len = self.gm_to_ub_dst_step(whole, p["dstStride"]), whole
        else:
            s_step, s_len = self.ub_step(n, p["srcStride"]), n
            d_step, d_len = n + p["dstStride"], n
        for name, t, step, length in (("src", src, s_step, s_len), ("dst", dst, d_step, d_len)):
            if count and length and (count - 1) * step + length > t.numel * width:
                raise Rejected("out of the tensor", f"{API}.{name}.bounds")
        for name, t in (("src", src), ("dst", dst)):
            if t.scope == "UB" and t.addr + t.numel * width > UB_BYTES[product]:
                raise Rejected("past UB", f"{API}.{name}.capacity")
        return count, s_step, s_len, d_step, d_len, left, right, width

    def run(self, call: Call, memory: dict[str, np.ndarray]) -> None:
        if call.api != API:
            raise Rejected(f"{call.api} is not simulated")
        count, s_step, s_len, d_step, d_len, left, right, width = self.validate(call)
        src, dst = call.args["src"], call.args["dst"]
        for k in range(count):
            data = memory[src.scope][src.addr + k * s_step:src.addr + k * s_step + s_len].copy()
            out = memory[dst.scope][dst.addr + k * d_step:dst.addr + k * d_step + d_len]
            if call.form == "ub_to_gm":
                out[:] = data
            else:
                self.fill(out, data, left, right, call.args["padParams"], width)


class PaddingOnTheWrongSide(DataCopyPadSim):
    """leftPadding and rightPadding swapped: the padding side. Expected: FAIL in legal gm_to_ub cells."""

    name = "data-copy-pad-bug-padding-side"
    bug = "padding side"

    def fill(self, block, data, left, right, pad, width):
        super().fill(block, data, right if block.size >= right + data.size else left, left, pad, width)


class DstStrideInBytes(DataCopyPadSim):
    """dstStride of GM -> UB counted in bytes (as the GM side's srcStride is), not in DataBlocks: the stride
    unit. Expected: FAIL (or FALSE_REJECT) in legal gm_to_ub cells."""

    name = "data-copy-pad-bug-dst-stride-bytes"
    bug = "stride unit"

    def gm_to_ub_dst_step(self, whole, stride):
        return whole + stride


class UbStrideFromBlockLen(DataCopyPadSim):
    """UB -> GM: the next UB block counted from blockLen, not from its 32-byte end (the rounding).
    Expected: FAIL in legal ub_to_gm cells."""

    name = "data-copy-pad-bug-ub-stride-unrounded"
    bug = "rounding"

    def ub_step(self, n, stride):
        return n + stride * BLOCK


class DummyZeros(DataCopyPadSim):
    """The dummy of a block without padding zero-filled instead of repeating its first element. The region is
    the ambiguity data_copy_pad.dummy.no_padding, which the default run leaves out. Expected: FAIL in its
    ambiguity cell under the reading block_first (zeros are none of the legal readings but padding_value
    with a paddingValue of 0)."""

    name = "data-copy-pad-bug-dummy-zeros"
    bug = "dummy"

    def fill(self, block, data, left, right, pad, width):
        super().fill(block, data, left, right, pad, width)
        if left == 0 and right == 0:
            block[data.size:] = 0


class ZeroBlockLenStillPads(DataCopyPadSim):
    """blockLen 0 still writes each block's padding (no NOP). Expected: FAIL or FALSE_REJECT in legal
    gm_to_ub cells of ascend910b."""

    name = "data-copy-pad-bug-zero-still-pads"
    bug = "NOP"

    def blocks(self, p):
        return p["blockCount"]


BUGGY_DATA_COPY_PAD_BACKENDS = [PaddingOnTheWrongSide, DstStrideInBytes, UbStrideFromBlockLen, DummyZeros,
                                ZeroBlockLenStillPads]
