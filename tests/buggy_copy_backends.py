"""Deliberately broken Copy (UB -> UB, masked) simulators: the suite must find every one of them non-conforming.

`CopySim` is a small, *correct* simulator of Ascend C `Copy` with a mask (asc-devkit@0da921b9:docs/zh/api/
SIMD-API/基础API/Memory矢量计算/数据搬运/UB与UB数据搬运/UBToUB掩码式高维数据搬运(Copy).md, and the mask pages), written
from the pages without the oracle: an iteration is 8 DataBlocks of 32 bytes ("每次读取连续的256字节数据");
element e of iteration r (as the mask selects it: bit e % 64 of word e // 64, or the first `mask`) lies in
block e * width // 32 at byte (e * width) % 32, the block r * RepeatSize + j * Stride DataBlocks from the
operand, with each side's own CopyRepeatParams fields. Every element is read before any is written. Each
subclass overrides ONE piece with one realistic mistake; its docstring says what the suite must report.
"""
from __future__ import annotations

import numpy as np

from sim_masks import bit_mode, count_mode, count_read_as_bits

from conformance import Rejected
from oracle import Call

API = "copy"
BLOCK = 32
ITEMSIZE = {"int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "float16": 2, "bfloat16": 2,
            "int32": 4, "uint32": 4, "float32": 4, "int64": 8, "uint64": 8, "float64": 8}
UB_BYTES = {"ascend310b": 248 << 10, "ascend910b": 192 << 10, "ascend910_93": 192 << 10,
            "ascend310p-aicore": 256 << 10, "ascend310": 256 << 10, "ascend910": 256 << 10,
            "ascend310p-vectorcore": 256 << 10}
PRODUCTS = frozenset({"ascend910b", "ascend910_93", "ascend310b"})
DTYPES = frozenset({"int16", "uint16", "float16", "bfloat16", "int32", "uint32", "float32"})
RANGES = {"repeatTime": (0, 255), "dstStride": (0, 65535), "srcStride": (0, 65535),
          "dstRepeatSize": (0, 4095), "srcRepeatSize": (0, 4095)}
MASK_RULE = {1: "bits_16bit", 2: "bits_16bit", 4: "bits_32bit", 8: "bits_64bit"}


class CopySim:
    """A correct Copy simulator (the control: it must conform everywhere)."""

    name = "copy-sim-correct"
    bug = ""

    def supports(self, api: str, product: str) -> bool:
        return api == API and product in UB_BYTES

    def run(self, call: Call, memory: dict[str, np.ndarray]) -> None:
        self.validate(call)
        ub, width = memory["UB"], ITEMSIZE[call.args["dst"].dtype]
        src, dst = self.places(call, "src"), self.places(call, "dst")
        values = ub[call.args["src"].addr + src[:, None] + np.arange(width)]        # every read first
        ub[(call.args["dst"].addr + dst[:, None] + np.arange(width)).reshape(-1)] = values.reshape(-1)

    # -- the pieces a bug may override ------------------------------------------------------------
    def stride_bytes(self, call: Call, side: str) -> int:
        """Bytes between the DataBlocks of one iteration ("单位：DataBlock（32B）")."""
        return call.args["repeatParams"][f"{side}Stride"] * BLOCK

    def repeat_bytes(self, call: Call, side: str) -> int:
        return call.args["repeatParams"][f"{side}RepeatSize"] * BLOCK

    def block_elements(self, width: int) -> int:
        """Elements of one DataBlock: 32 bytes of them."""
        return BLOCK // width

    def selected(self, call: Call, per: int) -> np.ndarray:
        mask = call.args["mask"]
        return count_mode(mask, per) if call.form == "mask_continuous" else bit_mode(mask, per)

    # -- the layout -------------------------------------------------------------------------------------
    def places(self, call: Call, side: str) -> np.ndarray:
        """Byte of each element moved, relative to the operand, iteration by iteration."""
        width = ITEMSIZE[call.args["dst"].dtype]
        per, in_block = 8 * self.block_elements(width), self.block_elements(width)
        e = np.flatnonzero(self.selected(call, per)).astype(np.int64)
        r = np.arange(call.args["repeatTime"], dtype=np.int64)[:, None]
        at = r * self.repeat_bytes(call, side) + (e // in_block) * self.stride_bytes(call, side) + (e % in_block) * width
        return at.reshape(-1)

    def validate(self, call: Call) -> None:
        args, product = call.args, call.product
        if product not in PRODUCTS:
            raise Rejected(f"Copy is not available on {product}", "copy.product.supported")
        for op in ("dst", "src"):
            if args[op].scope != "UB":
                raise Rejected(f"{op} is in {args[op].scope}", f"copy.{op}.scope")
        for op in ("dst", "src"):
            if args[op].dtype not in DTYPES:
                raise Rejected(f"{args[op].dtype}", "copy.dtype.supported")
        if args["dst"].dtype != args["src"].dtype:
            raise Rejected("dst and src differ in dtype", "copy.dtype.same")
        for op in ("dst", "src"):
            if args[op].addr % BLOCK:
                raise Rejected(f"{op} at {args[op].addr}", f"copy.{op}.align")
        values = {"repeatTime": args["repeatTime"], **args["repeatParams"]}
        for name, (lo, hi) in RANGES.items():
            if not lo <= values[name] <= hi:
                raise Rejected(f"{name}={values[name]}", f"copy.{name}.range")
        width = ITEMSIZE[args["dst"].dtype]
        mask = args["mask"]
        if call.form == "mask_continuous" and not 0 <= mask < 2**64:
            raise Rejected(f"mask={mask}", "copy.mask.count_range")
        if call.form == "mask_bits":
            words = [int(w) for w in mask]
            if len(words) != 2 or not all(0 <= w < 2**64 for w in words) or (width >= 4 and words[1]):
                raise Rejected(f"mask={words}", f"copy.mask.{MASK_RULE[width]}")
        for op in ("dst", "src"):
            at = self.places(call, op)
            if at.size and int(at.max()) + width > args[op].numel * width:
                raise Rejected(f"{op} touched past its tensor", f"copy.{op}.bounds")
        for op in ("dst", "src"):
            t = args[op]
            if t.addr + t.numel * width > UB_BYTES[product]:
                raise Rejected(f"{op} past UB", f"copy.{op}.capacity")


class StrideInElements(CopySim):
    """(a) dstStride / srcStride counted in elements, not DataBlocks (32 bytes).

    Expected: FAIL (or FALSE_REJECT / MISSED_REJECT through the bounds check that shares the layout) in
    the legal cells, a call selecting an element past the first DataBlock with a stride other than 32 / width."""

    name = "copy-bug-a-stride-in-elements"
    bug = "Stride unit = element"

    def stride_bytes(self, call: Call, side: str) -> int:
        return call.args["repeatParams"][f"{side}Stride"] * ITEMSIZE[call.args["dst"].dtype]


class MaskBitsReversed(CopySim):
    """(b) The bit mode read from the top bit down.

    Expected: FAIL (or FALSE_REJECT) in the legal mask_bits cells."""

    name = "copy-bug-b-mask-bits-reversed"
    bug = "mask bit order"

    def selected(self, call: Call, per: int) -> np.ndarray:
        if call.form != "mask_bits":
            return super().selected(call, per)
        return bit_mode(call.args["mask"], per, reversed_bits=True)


class CountModeAsBits(CopySim):
    """(c) The count mode read as a bit mode.

    Expected: FAIL (or FALSE_REJECT) in the legal mask_continuous cells."""

    name = "copy-bug-c-count-mode-as-bits"
    bug = "count mode vs bit mode"

    def selected(self, call: Call, per: int) -> np.ndarray:
        if call.form != "mask_continuous":
            return super().selected(call, per)
        return count_read_as_bits(call.args["mask"], per)


class BlockOf16Elements(CopySim):
    """(d) A DataBlock taken as 16 elements whatever the dtype (right for 16-bit data only).

    Expected: FAIL (or FALSE_REJECT) in the legal 32-bit cells."""

    name = "copy-bug-d-block-of-16-elements"
    bug = "a DataBlock's size per dtype"

    def block_elements(self, width: int) -> int:
        return 16


class RepeatSizeOfTheOtherSide(CopySim):
    """(e) dst moved between iterations by srcRepeatSize (one RepeatSize for both operands).

    Expected: FAIL (or FALSE_REJECT / MISSED_REJECT) in the legal cells with two iterations or more."""

    name = "copy-bug-e-repeat-size-of-the-other-side"
    bug = "dstRepeatSize ignored"

    def repeat_bytes(self, call: Call, side: str) -> int:
        return call.args["repeatParams"]["srcRepeatSize"] * BLOCK


BUGGY_COPY_BACKENDS = [StrideInElements, MaskBitsReversed, CountModeAsBits, BlockOf16Elements, RepeatSizeOfTheOtherSide]
