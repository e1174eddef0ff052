"""Deliberately broken data_move simulators: the suite must find every one of them non-conforming.

`DataMoveSim` is a small, *correct* simulator of TIK data_move written the way a simulator author would
write one from the vendor page (001_e45651b2d591d11d.txt), without the oracle: its own product and path
tables, its own range / alignment / bounds / capacity checks, and a loop over the bursts:

    nburst bursts of burst * 32 bytes; src_stride / dst_stride are the gap from the tail of one burst to
    the head of the next ("前 burst 尾与后 burst 头"), in 32-byte units, so burst k starts at
    k * (burst + stride) * 32 bytes from the operand's address.

Each subclass below overrides ONE piece of it with one realistic mistake. The docstring of each says
what the bug is and which verdict (FAIL / MISSED_REJECT / FALSE_REJECT / CRASH) the suite must give, in
which cells. `BUGGY_BACKENDS` lists them all; tests/data_move/test_catches_bugs.py runs them through the real
strategies and runner.

Nothing here imports the oracle's index math or calls `oracle.expected`: a bug that corrupted the
oracle's output would test nothing but the comparison.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from conformance import Rejected
from oracle import Call, Tensor

BLOCK = 32                       # "单位:32B" -- burst and both strides, on every path of the page's table

# "支持的型号" and the per-product path sentences of the page (OUT is GM here).
PATHS: dict[str, frozenset[str]] = {
    "ascend310": frozenset({"UB->UB", "UB->GM", "GM->UB", "GM->L1"}),
    "ascend910": frozenset({"UB->UB", "UB->GM", "GM->UB", "GM->L1"}),
    "ascend310p-aicore": frozenset({"UB->UB", "UB->GM", "GM->UB", "GM->L1"}),
    "ascend310p-vectorcore": frozenset({"UB->GM", "UB->UB", "GM->UB"}),
    "ascend910b": frozenset({"UB->UB", "UB->GM", "GM->UB", "GM->L1", "L1->GM"}),
    "ascend310b": frozenset({"UB->UB", "UB->GM", "GM->UB", "GM->L1", "L1->GM"}),
}
# Products the simulator knows but on which data_move does not exist (the page does not list A3).
UNSUPPORTED_PRODUCTS = frozenset({"ascend910_93"})

# Scope sizes in bytes (public CANN figures; None: the core has no such buffer).
SCOPE_BYTES: dict[str, dict[str, int | None]] = {
    "ascend310": {"UB": 256 << 10, "L1": 1 << 20},
    "ascend910": {"UB": 256 << 10, "L1": 1 << 20},
    "ascend310p-aicore": {"UB": 256 << 10, "L1": 1 << 20},
    "ascend310p-vectorcore": {"UB": 256 << 10, "L1": None},
    "ascend310b": {"UB": 248 << 10, "L1": 1 << 20},
    "ascend910b": {"UB": 192 << 10, "L1": 512 << 10},
    "ascend910_93": {"UB": 192 << 10, "L1": 512 << 10},
}

# Table 2 of the page: the same list on every path.
DTYPES: dict[str, int] = {"uint8": 1, "int8": 1, "float16": 2, "uint16": 2, "int16": 2, "float32": 4,
                          "int32": 4, "uint32": 4, "uint64": 8, "int64": 8}
# Every dtype the kit may hand us (to size a tensor of a dtype we then refuse).
ITEMSIZE: dict[str, int] = {**DTYPES, "bfloat16": 2}

RANGES: dict[str, tuple[int, int]] = {"sid": (0, 15), "nburst": (1, 4095), "burst": (1, 65535),
                                      "src_stride": (0, 65535), "dst_stride": (0, 65535)}
ALIGN: dict[str, int] = {"UB": 32, "L1": 32}       # block_size / 32 B; GM has no alignment rule


class DataMoveSim:
    """A correct data_move simulator (the control: it must conform everywhere)."""

    name = "sim-correct"
    bug = ""                     # one line, for reports

    # -- the contract ---------------------------------------------------------------------------
    def supports(self, api: str, product: str) -> bool:
        return api == "data_move" and (product in PATHS or product in UNSUPPORTED_PRODUCTS)

    def run(self, call: Call, memory: dict[str, np.ndarray]) -> None:
        if call.api != "data_move":
            raise Rejected(f"{call.api} is not simulated")
        self.validate(call)
        self.move(call, memory)

    # -- the pieces a bug may override ------------------------------------------------------------
    def path_table(self, product: str) -> frozenset[str]:
        return PATHS[product]

    def scope_bytes(self, product: str, scope: str) -> int | None:
        return SCOPE_BYTES[product][scope]

    def param_range(self, name: str) -> tuple[int, int]:
        return RANGES[name]

    def align_of(self, scope: str) -> int:
        return ALIGN.get(scope, 1)

    def units(self) -> tuple[int, int, int]:
        """Bytes per step of (burst, src_stride, dst_stride): the page's table says 32B for all three."""
        return BLOCK, BLOCK, BLOCK

    def burst_bytes(self, call: Call) -> int:
        return call.args["burst"] * self.units()[0]

    def strides(self, call: Call) -> tuple[int, int]:
        """(src, dst) stride in bytes: the gap between bursts."""
        _, su, du = self.units()
        return call.args["src_stride"] * su, call.args["dst_stride"] * du

    def burst_step(self, call: Call, gap: int) -> int:
        """Bytes from the head of one burst to the head of the next: tail-to-head gap plus the burst."""
        return self.burst_bytes(call) + gap

    def burst_count(self, call: Call) -> int:
        return call.args["nburst"]

    def base(self, tensor: Tensor) -> int:
        """Byte address of an operand inside its scope's image."""
        return tensor.addr

    def copy_burst(self, dst_mem: np.ndarray, d: int, src_mem: np.ndarray, s: int, n: int) -> None:
        dst_mem[d:d + n] = src_mem[s:s + n]

    # -- validation, as a toolchain would do it -----------------------------------------------------
    def footprint(self, call: Call, gap: int) -> int:
        """One past the last byte the operand's bursts touch, from the operand's address."""
        n = call.args["nburst"]
        return (n - 1) * self.burst_step(call, gap) + self.burst_bytes(call) if n > 0 else 0

    def validate(self, call: Call) -> None:
        product = call.product
        if product in UNSUPPORTED_PRODUCTS or product not in PATHS:
            raise Rejected(f"data_move is not available on {product}", "data_move.product.supported")
        dst, src = call.args["dst"], call.args["src"]
        path = f"{src.scope}->{dst.scope}"
        if path not in self.path_table(product):
            raise Rejected(f"{path} is not a data path of {product}", "data_move.path.supported")
        for t in (src, dst):
            if t.dtype not in DTYPES:
                raise Rejected(f"dtype {t.dtype} is not supported", "data_move.dtype.supported")
        if src.dtype != dst.dtype:
            raise Rejected("src and dst dtypes differ", "data_move.dtype.same")
        for name in RANGES:
            lo, hi = self.param_range(name)
            value = call.args[name]
            if not (lo <= value and value <= hi):
                raise Rejected(f"{name}={value} out of range", f"data_move.{name}.range")
        self.check_alignment(call)
        src_gap, dst_gap = self.strides(call)
        for op, t, gap in (("src", src, src_gap), ("dst", dst, dst_gap)):
            if self.footprint(call, gap) > t.numel * ITEMSIZE[t.dtype]:
                raise Rejected(f"{op} overflows its tensor", f"data_move.{op}.bounds")
            if t.scope != "GM":
                size = self.scope_bytes(product, t.scope)
                if not size or t.addr + t.numel * ITEMSIZE[t.dtype] > size:
                    raise Rejected(f"{op} does not fit in {t.scope}", f"data_move.{op}.capacity")

    def check_alignment(self, call: Call) -> None:
        for op in ("src", "dst"):
            t = call.args[op]
            if t.addr % self.align_of(t.scope):
                raise Rejected(f"{op} address {t.addr} is not aligned in {t.scope}", f"data_move.{op}.align.{t.scope}")

    # -- the move -------------------------------------------------------------------------------------
    def move(self, call: Call, memory: Mapping[str, np.ndarray]) -> None:
        src, dst = call.args["src"], call.args["dst"]
        src_gap, dst_gap = self.strides(call)
        n = self.burst_bytes(call)
        s0, d0 = self.base(src), self.base(dst)
        src_mem, dst_mem = memory[src.scope], memory[dst.scope]
        src_step, dst_step = self.burst_step(call, src_gap), self.burst_step(call, dst_gap)
        for k in range(self.burst_count(call)):
            self.copy_burst(dst_mem, d0 + k * dst_step, src_mem, s0 + k * src_step, n)


# ---------------------------------------------------------------------------------------------------
# the bugs


class StrideHeadToHead(DataMoveSim):
    """(a) Strides read as head-to-head distances: burst k starts at k * stride * 32 bytes.

    The author read "相邻连续数据片段间隔" as the distance between the heads of two bursts, the way many
    DMA engines define a stride, and missed "(前 burst 尾与后 burst 头)". The same geometry feeds the
    bounds check, so the footprint the simulator believes in is smaller than the real one.

    Expected: FAIL in the legal cells (any call with nburst >= 2: the bursts land in the wrong place);
    MISSED_REJECT in reject/data_move.src.bounds and reject/data_move.dst.bounds (a tensor one element
    too short for the real footprint looks big enough)."""

    name = "bug-a-stride-head-to-head"
    bug = "stride = head-to-head distance"

    def burst_step(self, call: Call, gap: int) -> int:
        return gap


class BurstInElements(DataMoveSim):
    """(b) burst counted in elements of the dtype instead of 32-byte blocks.

    burst_bytes = burst * itemsize: the author took "数据片段长度" as a length in elements and overlooked
    "单位:32B". No dtype of the page is 32 bytes wide, so every legal call moves too few bytes. The same
    length feeds the bounds check.

    Expected: FAIL in every legal cell (dst bytes the call should have written keep their old value;
    the shrunk call is nburst = burst = 1); MISSED_REJECT in reject/data_move.src.bounds and
    reject/data_move.dst.bounds (the footprint looks itemsize/32 of its real size)."""

    name = "bug-b-burst-in-elements"
    bug = "burst unit = element"

    def burst_bytes(self, call: Call) -> int:
        return call.args["burst"] * ITEMSIZE[call.args["dst"].dtype]


class OneBurstTooFew(DataMoveSim):
    """(c) One burst too few: the burst loop runs range(nburst - 1).

    A classic off-by-one from a loop written over the *gaps* between bursts. With nburst == 1 nothing
    at all is moved.

    Expected: FAIL in every legal cell; the shrunk call has nburst == 1 (the smallest call that shows it)
    and the wrong bytes all lie in the last burst of dst. The bounds check counts every burst, so the
    bounds cells pass."""

    name = "bug-c-one-burst-too-few"
    bug = "range(nburst - 1)"

    def burst_count(self, call: Call) -> int:
        return call.args["nburst"] - 1


class UbAlignmentUnchecked(DataMoveSim):
    """(d) UB alignment not checked: misaligned UB operands are run instead of refused.

    The author checked "若dst的scope为L1, 则要求地址偏移32Byte对齐" but, since the page words the UB rule
    with block_size instead of 32 bytes, forgot it for UB.

    Expected: MISSED_REJECT in reject/data_move.src.align.UB and reject/data_move.dst.align.UB, nothing
    else (the L1 alignment cells still pass)."""

    name = "bug-d-ub-alignment-unchecked"
    bug = "no UB alignment check"

    def align_of(self, scope: str) -> int:
        return 32 if scope == "L1" else 1


class NburstUpTo4096(DataMoveSim):
    """(e) nburst 4096 accepted: the range check uses the 12-bit field width, nburst <= 4096.

    nburst is a 12-bit field in the instruction; the author wrote `nburst <= 1 << 12` instead of the
    page's nburst∈[1, 4095].

    Expected: MISSED_REJECT in reject/data_move.nburst.range (the shrunk call has nburst == 4096)."""

    name = "bug-e-nburst-4096"
    bug = "nburst <= 4096"

    def param_range(self, name: str) -> tuple[int, int]:
        return (1, 4096) if name == "nburst" else RANGES[name]


class OneBytePastBurst(DataMoveSim):
    """(f) One byte written past each burst: an inclusive end index, dst[d:d+n+1] = src[s:s+n+1].

    The last burst's extra byte lands outside the destination (a stray write); the other extra bytes are
    overwritten by the next burst only when the stride is 0.

    Expected: FAIL (stray writes) in every legal cell. Where dst ends at the very top of its image numpy
    cannot broadcast the one-byte-longer source into the clipped destination slice, which is a CRASH:
    also non-conforming; the shrinker heads for low addresses, so the reported verdict is FAIL."""

    name = "bug-f-one-byte-past-burst"
    bug = "dst[d:d+n+1]"

    def copy_burst(self, dst_mem: np.ndarray, d: int, src_mem: np.ndarray, s: int, n: int) -> None:
        dst_mem[d:d + n + 1] = src_mem[s:s + n + 1]


class OldPathTable(DataMoveSim):
    """(g) L1->GM refused on ascend910b / ascend310b: the path table was copied from an older product.

    Every product gets the training-series (910) path list UB->UB / UB->OUT / OUT->UB / OUT->L1, which
    lacks L1->OUT, new on the A2 products.

    Expected: FALSE_REJECT in the legal cells of ascend910b and ascend310b (the shrunk call moves L1->GM);
    every cell of the older products passes."""

    name = "bug-g-old-path-table"
    bug = "910 path table everywhere"

    def path_table(self, product: str) -> frozenset[str]:
        return PATHS["ascend910"] & PATHS[product]


class StridesSwapped(DataMoveSim):
    """(h) src and dst strides swapped in the mover: the signature is (dst, src, sid, nburst, burst,
    src_stride, dst_stride) and the author's DMA helper takes its arguments dst-first, like the operands;
    the call site passes (src_gap, dst_gap) into (dst_gap, src_gap). The validator reads the arguments
    by name and is right, so only the data lands wrong.

    Expected: FAIL in the legal cells (any call with nburst >= 2 and src_stride != dst_stride). When the
    larger stride is applied to the smaller operand the bursts can run off the end of its image, which
    numpy reports as a broadcast error: a CRASH, also non-conforming."""

    name = "bug-h-strides-swapped"
    bug = "src_stride <-> dst_stride"

    def move(self, call: Call, memory: Mapping[str, np.ndarray]) -> None:
        src, dst = call.args["src"], call.args["dst"]
        src_gap, dst_gap = self.strides(call)
        self._dma(memory[dst.scope], dst.addr, memory[src.scope], src.addr,
                  call.args["nburst"], self.burst_bytes(call), src_gap, dst_gap)     # <- the bug

    def _dma(self, dst_mem: np.ndarray, d0: int, src_mem: np.ndarray, s0: int, nburst: int, n: int,
             dst_gap: int, src_gap: int) -> None:
        for k in range(nburst):
            self.copy_burst(dst_mem, d0 + k * (n + dst_gap), src_mem, s0 + k * (n + src_gap), n)


class GmAddressRoundedDown(DataMoveSim):
    """(i) GM addresses rounded down to 32 bytes: the simulator models the DMA engine's 32-byte bus and
    rounds every operand address down to a block (addr & ~31), forgetting that GM, unlike UB and L1,
    has no alignment rule.

    Expected: FAIL in the legal cells whose path touches GM at an unaligned address (easy to reach with
    1-byte dtypes); the shrunk call has a GM operand at an address that is not a multiple of 32."""

    name = "bug-i-gm-address-rounded"
    bug = "GM addr & ~31"

    def base(self, tensor: Tensor) -> int:
        return tensor.addr & ~(BLOCK - 1)


class UbSizeOfOlderProduct(DataMoveSim):
    """(j) The UB size of the training series (256 KB) used on every product: the capacity check lets a
    UB tensor end anywhere below 256 KB, also on ascend910b / ascend910_93 (192 KB) and ascend310b (248 KB).

    Expected: MISSED_REJECT in reject/data_move.src.capacity and reject/data_move.dst.capacity of
    ascend910b (the shrunk call has a UB tensor ending past 196608 bytes), nothing on ascend910."""

    name = "bug-j-ub-size-256k"
    bug = "UB = 256 KB everywhere"

    def scope_bytes(self, product: str, scope: str) -> int | None:
        return 256 << 10 if scope == "UB" else SCOPE_BYTES[product][scope]


BUGGY_BACKENDS: list[type[DataMoveSim]] = [
    StrideHeadToHead, BurstInElements, OneBurstTooFew, UbAlignmentUnchecked, NburstUpTo4096,
    OneBytePastBurst, OldPathTable, StridesSwapped, GmAddressRoundedDown, UbSizeOfOlderProduct,
]

__all__ = ["DataMoveSim", "BUGGY_BACKENDS"] + [cls.__name__ for cls in BUGGY_BACKENDS]
