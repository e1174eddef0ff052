"""Deliberately broken Scatter / asc_gather simulators: the suite must find every one of them non-conforming.

`OffsetSim` is a small, *correct* simulator of Ascend C `Scatter` (002_94c60850db7e14df.txt) and of the
C-API `asc_gather` (003_5f0a5de14d724856.txt), written the way a simulator author would write one from
the two vendor pages, without the oracle: its own product, dtype and UB tables, its own range / mask /
alignment / bounds / capacity checks, and a loop over the elements a call moves:

    Offsets are little-endian uint32 *byte* offsets read from the offsets tensor in UB ("每个数值的单位为
    Bytes"). Scatter: element i of src goes to dst + dstBaseAddr + offset[i] ("由dst_offset和base_addr共同
    作用"). asc_gather: element i of dst comes from src + offset[i] ("该偏移量相对于源操作数的起始基地址").
    The count forms (Scatter `count`, asc_gather `count` / `count_sync`) move elements 0 .. count-1.
    The repeat forms move 256 bytes per repeat ("每次迭代完成8个datablock"): 256 / itemsize elements;
    element e of repeat r uses offset r * (256 / itemsize) + e whatever the stride, and only the strided
    operand moves, by r * stride * 32 bytes (Scatter's src by srcRepStride, gather's dst by
    dst_repeat_stride; "单位是datablock"). Scatter's mask picks the elements of a repeat: bit e % 64 of
    word e // 64 (mask[] "逐bit模式"), or the first `mask` elements ("连续模式").

Every read of a call happens before its writes. Several Scatter elements sent to one place leave one of
them there (this simulator: the last); gather repeats writing one dst byte twice leave the later repeat's.
What the pages leave open (an offset past UB, past the 310B ranges, overlapping operands) is undefined:
the simulator drops an element sent past UB and reads zeros past UB, and never crashes there.

Each subclass below overrides ONE piece of it with one realistic mistake. The docstring of each says
what the bug is and which verdict (FAIL / MISSED_REJECT / FALSE_REJECT / CRASH) the suite must give, in
which cells. `BUGGY_OFFSET_BACKENDS` lists them all; tests/scatter/test_catches_bugs.py runs them through
the real strategies and runner.

Nothing here imports the oracle's index math or calls `oracle.expected` / `oracle.check`: a bug that
corrupted the oracle's output would test nothing but the comparison.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from sim_masks import bit_mode, count_mode

from conformance import Rejected
from oracle import Call, Tensor

SCATTER, GATHER = "scatter", "asc_gather"
APIS = (SCATTER, GATHER)
BLOCK = 32                 # "单位是datablock": one data block is 32 bytes
REPEAT = 256               # "每次迭代完成8个datablock": 8 blocks per repeat
OFFSET_BYTES = 4           # dstOffsetLocal / src_offset are uint32 (little-endian)

ITEMSIZE: dict[str, int] = {"int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "float16": 2, "bfloat16": 2,
                            "int32": 4, "uint32": 4, "float32": 4, "int64": 8, "uint64": 8}

# Unified Buffer bytes (public CANN figures): 256 KB on 310/910/310P, 248 KB usable on 310B, 192 KB on A2/A3.
UB_BYTES: dict[str, int] = {
    "ascend310": 256 << 10, "ascend910": 256 << 10, "ascend310p-aicore": 256 << 10,
    "ascend310p-vectorcore": 256 << 10, "ascend310b": 248 << 10, "ascend910b": 192 << 10,
    "ascend910_93": 192 << 10,
}

# Scatter, Table 1 of its page: "Atlas 推理系列产品AI Core ,支持的数据类型为:uint16_t/uint32_t/float/half",
# "Atlas 200I/500 A2 推理产品 ,支持的数据类型为:uint8_t/int8_t/uint16_t/int16_t/half/uint32_t/int32_t/float".
SCATTER_DTYPES: dict[str, frozenset[str]] = {
    "ascend310p-aicore": frozenset({"uint16", "uint32", "float32", "float16"}),
    "ascend310b": frozenset({"uint8", "int8", "uint16", "int16", "float16", "uint32", "int32", "float32"}),
}
SCATTER_DTYPE_RULE = {"ascend310p-aicore": "scatter.dtype.supported_310p", "ascend310b": "scatter.dtype.supported_310b"}
# asc_gather: "产品支持情况" lists A3 and A2; the prototypes take these seven element types.
GATHER_PRODUCTS = frozenset({"ascend910b", "ascend910_93"})
GATHER_DTYPES = frozenset({"int16", "uint16", "float16", "bfloat16", "int32", "uint32", "float32"})

U32 = (0, 2**32 - 1)
SCATTER_RANGES: dict[str, tuple[int, int]] = {"count": U32, "dstBaseAddr": U32, "repeatTimes": (0, 255),
                                              "srcRepStride": (0, 255)}
GATHER_RANGES: dict[str, tuple[int, int]] = {"count": U32, "repeat": (0, 255), "dst_repeat_stride": (0, 65535)}
# "连续模式 ... 当操作数为8位或16位时,mask∈[1, 128];当操作数为32位时,mask∈[1, 64];当操作数为64位时,mask∈[1, 32]"
CONTINUOUS_MAX = {1: 128, 2: 128, 4: 64, 8: 32}
MASK_RULE = {1: "8_16bit", 2: "8_16bit", 4: "32bit", 8: "64bit"}

# The tensors of each API (every one must lie inside UB: the capacity rules).
OPERANDS: dict[str, tuple[str, ...]] = {SCATTER: ("dstLocal", "srcLocal", "dstOffsetLocal"),
                                        GATHER: ("dst", "src", "src_offset")}
# Operands each API wants 32-byte aligned: the pages name dstLocal (Scatter) and dst, src (asc_gather);
# the general constraint for UB operands of vector instructions adds the offsets tensor (and Scatter's src).
ALIGNED: dict[str, tuple[str, ...]] = {SCATTER: ("dstLocal", "srcLocal", "dstOffsetLocal"),
                                       GATHER: ("dst", "src", "src_offset")}


class OffsetSim:
    """A correct Scatter / asc_gather simulator (the control: it must conform everywhere)."""

    name = "offset-sim-correct"
    bug = ""                     # one line, for reports

    # -- the contract ---------------------------------------------------------------------------
    def supports(self, api: str, product: str) -> bool:
        return api in APIS and product in UB_BYTES

    def run(self, call: Call, memory: dict[str, np.ndarray]) -> None:
        if call.api == SCATTER:
            self.validate_scatter(call)
            self.scatter(call, memory)
        elif call.api == GATHER:
            self.validate_gather(call)
            self.gather(call, memory)
        else:
            raise Rejected(f"{call.api} is not simulated")

    # -- the pieces a bug may override ------------------------------------------------------------
    def ub_bytes(self, product: str) -> int:
        return UB_BYTES[product]

    def aligned_operands(self, api: str) -> tuple[str, ...]:
        return ALIGNED[api]

    def offset_bytes(self, offsets: np.ndarray, width: int) -> np.ndarray:
        """Byte distance an offset entry stands for ("每个数值的单位为Bytes")."""
        return offsets

    def dst_base(self, call: Call) -> int:
        """Scatter: bytes from dstLocal to where offset 0 lands ("dstLocal的起始偏移地址,单位是字节")."""
        return call.args["dstBaseAddr"]

    def selected(self, call: Call, per: int) -> np.ndarray:
        """Which of the `per` elements of a repeat Scatter's mask picks."""
        mask = call.args["mask"]
        return count_mode(mask, per) if call.form == "mask_continuous" else bit_mode(mask, per)

    def offset_index(self, r: np.ndarray, e: np.ndarray, per: int, src_step: int, width: int) -> np.ndarray:
        """Scatter repeat forms: the entry of dstOffsetLocal element e of repeat r uses."""
        return r * per + e

    def store(self, call: Call, ub: np.ndarray, starts: np.ndarray, values: np.ndarray) -> None:
        """Scatter: write the elements (values: (n, width) bytes) at `starts`, in element order (numpy
        keeps the last of repeated indices: of several elements sent to one place, the last stays)."""
        width = values.shape[1]
        ub[(starts[:, None] + np.arange(width)).reshape(-1)] = values.reshape(-1)

    def dst_step(self, call: Call) -> int:
        """asc_gather repeat form: bytes dst moves per repeat ("相邻迭代间相同DataBlock的地址步长")."""
        return call.args["dst_repeat_stride"] * BLOCK

    def src_shift(self, call: Call, r: np.ndarray) -> np.ndarray:
        """asc_gather: bytes added to src in repeat r (none: only dst is strided)."""
        return np.zeros_like(r)

    # -- what a call moves ------------------------------------------------------------------------------
    @staticmethod
    def width(call: Call, op: str) -> int:
        return ITEMSIZE[call.args[op].dtype]

    def scatter_elements(self, call: Call) -> tuple[np.ndarray, np.ndarray]:
        """(offset index, src byte position) of every element the call moves, in order."""
        width = self.width(call, "dstLocal")
        if call.form == "count":
            i = np.arange(call.args["count"], dtype=np.int64)
            return i, i * width
        per, step = REPEAT // width, call.args["srcRepStride"] * BLOCK
        r = np.arange(call.args["repeatTimes"], dtype=np.int64)[:, None]
        e = np.arange(per, dtype=np.int64)[None, :]
        index = np.broadcast_to(self.offset_index(r, e, per, step, width), (r.size, per))
        at = np.broadcast_to(r * step + e * width, (r.size, per))
        pick = self.selected(call, per)
        return index[:, pick].reshape(-1), at[:, pick].reshape(-1)

    def gather_elements(self, call: Call) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(offset index, dst byte position, repeat) of every element the call moves, in order."""
        width = self.width(call, "dst")
        if call.form in ("count", "count_sync"):
            i = np.arange(call.args["count"], dtype=np.int64)
            return i, i * width, np.zeros_like(i)
        per = REPEAT // width
        r = np.repeat(np.arange(call.args["repeat"], dtype=np.int64), per)
        e = np.tile(np.arange(per, dtype=np.int64), call.args["repeat"])
        return r * per + e, r * self.dst_step(call) + e * width, r

    @staticmethod
    def read_offsets(ub: np.ndarray, tensor: Tensor, index: np.ndarray) -> np.ndarray:
        where = tensor.addr + index[:, None] * OFFSET_BYTES + np.arange(OFFSET_BYTES)
        return np.ascontiguousarray(ub[where]).view("<u4").reshape(-1).astype(np.int64)

    # -- validation, as a toolchain would do it -----------------------------------------------------
    def check_common(self, call: Call, api: str, ranges: Mapping[str, tuple[int, int]]) -> None:
        for name, (lo, hi) in ranges.items():
            if name in call.args and not lo <= call.args[name] <= hi:
                raise Rejected(f"{name}={call.args[name]} out of [{lo}, {hi}]", f"{api}.{name}.range")

    def check_placement(self, call: Call, api: str, footprint: Mapping[str, int]) -> None:
        """Alignment, bounds (bytes the call touches from the operand, per `footprint`) and capacity."""
        for op in self.aligned_operands(api):
            t = call.args[op]
            if t.addr % BLOCK:
                raise Rejected(f"{op} at byte {t.addr} is not 32-byte aligned", f"{api}.{op}.align")
        for op, reach in footprint.items():
            t = call.args[op]
            size = t.numel * ITEMSIZE[t.dtype]
            if reach > size:
                raise Rejected(f"{op} is touched up to byte {reach} of a {size}-byte tensor", f"{api}.{op}.bounds")
        ub = self.ub_bytes(call.product)
        for op in OPERANDS[api]:
            t = call.args[op]
            if t.addr + t.numel * ITEMSIZE[t.dtype] > ub:
                raise Rejected(f"{op} ends past the {ub}-byte UB", f"{api}.{op}.capacity")

    def validate_scatter(self, call: Call) -> None:
        product, args = call.product, call.args
        if product not in SCATTER_DTYPES:
            raise Rejected(f"Scatter is not available on {product}", "scatter.product.supported")
        for op in OPERANDS[SCATTER]:
            if args[op].scope != "UB":
                raise Rejected(f"{op} is in {args[op].scope}: a LocalTensor lives in UB", f"scatter.{op}.scope")
        dst, src = args["dstLocal"], args["srcLocal"]
        for t in (dst, src):
            if t.dtype not in SCATTER_DTYPES[product]:
                raise Rejected(f"dtype {t.dtype} is not supported on {product}", SCATTER_DTYPE_RULE[product])
        if args["dstOffsetLocal"].dtype != "uint32":
            raise Rejected("dstOffsetLocal is a LocalTensor<uint32_t>", "scatter.dstOffsetLocal.dtype")
        if dst.dtype != src.dtype:
            raise Rejected("srcLocal and dstLocal differ in dtype", "scatter.dtype.same")
        self.check_common(call, SCATTER, SCATTER_RANGES)
        width = ITEMSIZE[dst.dtype]
        if call.form == "mask_continuous":
            if not 1 <= args["mask"] <= CONTINUOUS_MAX[width]:
                raise Rejected(f"mask={args['mask']} out of [1, {CONTINUOUS_MAX[width]}]",
                               f"scatter.mask.continuous_{MASK_RULE[width]}")
        elif call.form == "mask_bits":
            words, rule = [int(w) for w in args["mask"]], f"scatter.mask.bits_{MASK_RULE[width]}"
            if len(words) != 2 or not all(0 <= w < 2**64 for w in words) or not any(words):
                raise Rejected(f"mask={words} selects nothing or is not two 64-bit words", rule)
            if width >= 4 and (words[1] or (width == 8 and words[0] >= 2**32)):
                raise Rejected(f"mask={words}: {8 * width}-bit operands take mask[0] only", rule)
        if call.form == "count":                       # no arrays: count may be as large as a uint32
            n = args["count"]
            reach = {"srcLocal": n * width, "dstOffsetLocal": n * OFFSET_BYTES}
        else:
            index, at = self.scatter_elements(call)
            reach = {"srcLocal": int(at.max()) + width if at.size else 0,
                     "dstOffsetLocal": (int(index.max()) + 1) * OFFSET_BYTES if index.size else 0}
        self.check_placement(call, SCATTER, reach)

    def validate_gather(self, call: Call) -> None:
        product, args = call.product, call.args
        if product not in GATHER_PRODUCTS:
            raise Rejected(f"asc_gather is not available on {product}", "asc_gather.product.supported")
        for op in ("dst", "src", "src_offset"):
            if args[op].scope != "UB":
                raise Rejected(f"{op} is in {args[op].scope}: every pointer is __ubuf__", f"asc_gather.{op}.scope")
        dst, src = args["dst"], args["src"]
        for t in (dst, src):
            if t.dtype not in GATHER_DTYPES:
                raise Rejected(f"no asc_gather prototype takes {t.dtype}", "asc_gather.dtype.supported")
        if args["src_offset"].dtype != "uint32":
            raise Rejected("src_offset is a __ubuf__ uint32_t*", "asc_gather.src_offset.dtype")
        if dst.dtype != src.dtype:
            raise Rejected("dst and src differ in element type", "asc_gather.dtype.same")
        self.check_common(call, GATHER, GATHER_RANGES)
        width = ITEMSIZE[dst.dtype]
        if call.form in ("count", "count_sync"):
            n = args["count"]
            reach = {"dst": n * width, "src_offset": n * OFFSET_BYTES}
        else:
            repeat = args["repeat"]
            reach = {"dst": (repeat - 1) * self.dst_step(call) + REPEAT if repeat else 0,
                     "src_offset": repeat * REPEAT // width * OFFSET_BYTES}
        self.check_placement(call, GATHER, reach)

    # -- the moves ------------------------------------------------------------------------------------
    def scatter(self, call: Call, memory: Mapping[str, np.ndarray]) -> None:
        args, ub = call.args, memory["UB"]
        dst, src = args["dstLocal"], args["srcLocal"]
        width = ITEMSIZE[dst.dtype]
        index, at = self.scatter_elements(call)
        if not index.size:
            return
        offsets = self.offset_bytes(self.read_offsets(ub, args["dstOffsetLocal"], index), width)   # reads first
        values = ub[src.addr + at[:, None] + np.arange(width)]
        starts = dst.addr + self.dst_base(call) + offsets
        inside = starts + width <= ub.shape[0]          # past UB: undefined ("scatter.dstLocal.reach"); dropped
        self.store(call, ub, starts[inside], values[inside])

    def gather(self, call: Call, memory: Mapping[str, np.ndarray]) -> None:
        args, ub = call.args, memory["UB"]
        dst, src = args["dst"], args["src"]
        width = ITEMSIZE[dst.dtype]
        index, at, r = self.gather_elements(call)
        if not index.size:
            return
        offsets = self.offset_bytes(self.read_offsets(ub, args["src_offset"], index), width)
        starts = src.addr + self.src_shift(call, r) + offsets
        inside = starts + width <= ub.shape[0]          # "不能超出Unified Buffer (UB)": undefined; read as zeros
        values = np.zeros((index.size, width), dtype=np.uint8)
        values[inside] = ub[starts[inside, None] + np.arange(width)]          # every read before any write
        where = dst.addr + at[:, None] + np.arange(width)
        if call.form != "repeat" or args["repeat"] < 2:
            ub[where.reshape(-1)] = values.reshape(-1)
            return
        for k in range(args["repeat"]):                 # repeat by repeat: where they meet, the later one stays
            ub[where[r == k].reshape(-1)] = values[r == k].reshape(-1)


# ---------------------------------------------------------------------------------------------------
# the bugs


class OffsetsAsElementIndices(OffsetSim):
    """(a) Offsets read as element indices: the byte distance is offset * itemsize, in both APIs.

    The author read dstOffsetLocal / src_offset the way an index tensor of an ML framework's scatter /
    gather is read (torch.scatter, np.take), overlooking "每个数值的单位为Bytes" / "单位为Bytes". The
    pages' examples hide it: their offsets [254, 252, ..., 0] are 2 x the index for half, which reads as
    "reversed" either way only for 1-byte elements. For 8-bit elements the two readings agree.

    Expected: FAIL in the legal cells of 16- and 32-bit types of both APIs (any call with a non-zero
    offset; an element sent past UB is dropped, one read past UB reads zeros, so still a FAIL); the
    shrunk call has a non-zero offset and an itemsize > 1. The 8-bit Scatter cells of ascend310b pass."""

    name = "offset-bug-a-offsets-as-element-indices"
    bug = "offset unit = element"

    def offset_bytes(self, offsets: np.ndarray, width: int) -> np.ndarray:
        return offsets * width


class BaseAddrIgnored(OffsetSim):
    """(b) Scatter's dstBaseAddr ignored: element i goes to dstLocal + offset[i].

    The page's only example passes (uint32_t)0, and the author took dstBaseAddr for the address the
    LocalTensor already carries ("dstLocal的起始偏移地址"), so it is not added a second time.

    Expected: FAIL in every legal Scatter cell (any call with dstBaseAddr != 0); the shrunk call has
    dstBaseAddr > 0, and the wrong bytes all lie in the dstBaseAddr bytes below where the elements belong
    or where they belong (never outside UB: dst + offset < dst + dstBaseAddr + offset). asc_gather has no
    base address: its cells pass."""

    name = "offset-bug-b-base-addr-ignored"
    bug = "dstBaseAddr not added"

    def dst_base(self, call: Call) -> int:
        return 0


class MaskBitsReversed(OffsetSim):
    """(c) Scatter's bitwise mask read from the top: element e of a repeat is selected by bit 63 - e % 64
    of word e // 64, as if the mask were a bit string written left to right.

    The page's example ("mask=[8, 0],8=0b1000,表示仅第4个元素参与计算") counts from the least significant
    bit; the author wrote 0b1000 out as the string "1000..." and took its first character for element 0.
    One helper serves the mover and the bounds check.

    Expected: FAIL in the legal mask_bits cells (any mask that is not the same read backwards, e.g. the
    generators' "first", "last", "single" shapes; "all" reads the same). Where the reversed selection
    reaches further than the real one the bounds check refuses a legal call: FALSE_REJECT, also
    non-conforming. The count and mask_continuous cells pass."""

    name = "offset-bug-c-mask-bits-reversed"
    bug = "mask bit 63 - e%64 selects element e"

    def selected(self, call: Call, per: int) -> np.ndarray:
        if call.form != "mask_bits":
            return super().selected(call, per)
        return bit_mode(call.args["mask"], per, reversed_bits=True)


class MaskIgnored(OffsetSim):
    """(d) Scatter's mask ignored: every element of each repeat moves, as if the mask were all ones.

    The author took "mask用于控制每次迭代内参与计算的元素" for a hint to the hardware (which lanes are
    worth computing) rather than a selection, and moves whole repeats of 8 data blocks. One helper serves
    the mover and the bounds check.

    Expected: in the legal mask_bits and mask_continuous cells (any call whose mask leaves an element
    out), FAIL (elements not selected are written too: where their offset entries lie, the generators
    wrote 0 or left random bytes) or FALSE_REJECT (the larger footprint does not fit srcLocal or
    dstOffsetLocal). The count cells pass."""

    name = "offset-bug-d-mask-ignored"
    bug = "mask ignored: whole repeats move"

    def selected(self, call: Call, per: int) -> np.ndarray:
        return np.ones(per, dtype=bool)


class OffsetIndexFollowsStride(OffsetSim):
    """(e) Scatter's offsets advanced by the stride: element e of repeat r takes offset entry
    (r * srcRepStride * 32) / itemsize + e, the position of its source element, instead of r * (256 /
    itemsize) + e.

    The author indexed dstOffsetLocal with the same element position as srcLocal ("offset i belongs to
    src element i"), which is right in the count form and whenever srcRepStride = 8 (repeats packed).
    One helper serves the mover and the dstOffsetLocal bounds check.

    Expected: FAIL in the legal mask_bits / mask_continuous cells (any call with repeatTimes >= 2,
    srcRepStride != 8 and an element selected after the first repeat; the shrunk call has
    repeatTimes 2), or FALSE_REJECT where the wrong entries lie past dstOffsetLocal. In the
    dstOffsetLocal.bounds cell a call too short for the real entries may look fine: MISSED_REJECT.
    The count cells pass."""

    name = "offset-bug-e-offset-index-follows-stride"
    bug = "offset index = src element position"

    def offset_index(self, r: np.ndarray, e: np.ndarray, per: int, src_step: int, width: int) -> np.ndarray:
        return r * src_step // width + e


class ContinuousMaskOffByOne(OffsetSim):
    """(f) Scatter's continuous mask off by one: mask = n selects elements 0 .. n (n + 1 of them).

    The author read mask as the index of the last element that takes part (`e <= mask`), the way a
    vector length register is sometimes documented. With mask at its largest (128 / 64) the extra
    element falls outside the repeat and nothing changes. One helper serves the mover and the bounds check.

    Expected: FAIL in the legal mask_continuous cells (any call with mask below its maximum and
    repeatTimes >= 1: one element too many is written), or FALSE_REJECT where that element's source or
    offset lies past its tensor. The count and mask_bits cells pass."""

    name = "offset-bug-f-continuous-mask-off-by-one"
    bug = "mask=n selects n+1 elements"

    def selected(self, call: Call, per: int) -> np.ndarray:
        if call.form != "mask_continuous":
            return super().selected(call, per)
        return np.arange(per) <= call.args["mask"]


class CollisionsSummed(OffsetSim):
    """(g) Scatter collisions accumulated: where several elements are sent to one place, their sum is
    left there (wrapping for integers, in the element type for floats), as the scatter-add / index_add
    of ML frameworks do.

    The seed page says nothing of two offsets that meet (the ambiguity scatter.offset.duplicate): under
    its reading one_survives a conforming backend leaves one of the elements sent there
    (conformance/judge/verdicts.py), never a value none of them had.

    Expected: FAIL in the ambiguity cell of scatter.offset.duplicate once one_survives is declared (tag
    dstOffsetLocal=collide), the failure naming the place ("none of them"); no legal cell draws two equal
    offsets, and calls without collisions come out right."""

    name = "offset-bug-g-collisions-summed"
    bug = "colliding elements summed"

    def store(self, call: Call, ub: np.ndarray, starts: np.ndarray, values: np.ndarray) -> None:
        super().store(call, ub, starts, values)
        places, inverse, counts = np.unique(starts, return_inverse=True, return_counts=True)
        if (counts == 1).all():
            return
        dtype = np.dtype(call.args["dstLocal"].dtype).newbyteorder("<")
        typed = np.ascontiguousarray(values).view(dtype).reshape(-1)
        sums = np.zeros(places.size, dtype=dtype)
        with np.errstate(all="ignore"):
            np.add.at(sums, inverse, typed)
        shared = counts > 1
        width = values.shape[1]
        where = (places[shared][:, None] + np.arange(width)).reshape(-1)
        ub[where] = sums[shared].view(np.uint8)


class AlignmentOfNamedOperandsOnly(OffsetSim):
    """(h) 32-byte alignment checked only for the operands the pages name: Scatter's dstLocal ("地址需要
    32bytes对齐" is in dstLocal's row only) and asc_gather's dst and src ("dst、src的起始地址需要32字节对齐").

    The general constraint of vector instructions (every UB operand 32-byte aligned) was missed for
    Scatter's srcLocal and the offsets tensors (dstOffsetLocal, src_offset). The simulator reads bytes,
    so a misaligned operand even gives a plausible image.

    Expected: MISSED_REJECT in reject/scatter.srcLocal.align, reject/scatter.dstOffsetLocal.align and
    reject/asc_gather.src_offset.align (the shrunk call has that operand misaligned); the
    scatter.dstLocal.align and asc_gather.dst.align / src.align cells pass."""

    name = "offset-bug-h-alignment-of-named-operands-only"
    bug = "align: Scatter dstLocal, gather dst/src only"

    def aligned_operands(self, api: str) -> tuple[str, ...]:
        return ("dstLocal",) if api == SCATTER else ("dst", "src")


class OffsetsWrappedAt16Bits(OffsetSim):
    """(i) Scatter offsets kept to 16 bits on every product and dtype (offset & 0xFFFF).

    The author took the 8-bit sentence of "Atlas 200I/500 A2 推理产品" ("当操作数为8位时,取值范围为
    [0, 2^16-1]") for the width of the hardware's offset field and wrapped every offset to it, missing
    that 16-bit types go to 2^17-1 there and that the AI Core of the inference series only asks offsets
    to fit a uint32.

    Expected: FAIL in the legal Scatter cells of ascend310p-aicore and in the 16- and 32-bit legal cells
    of ascend310b, on calls with an offset of 65536 or more (the generators' "top" offsets: the largest
    the range rules allow or that stays inside UB); the shrunk call has such an offset. In the 8-bit
    cells of ascend310b every legal offset is below 65536: they pass, and so does the undefined
    scatter.offset.range_8bit_310b cell (where wrapping is one of the outcomes the page allows)."""

    name = "offset-bug-i-offsets-wrapped-at-16-bits"
    bug = "offset & 0xFFFF"

    def offset_bytes(self, offsets: np.ndarray, width: int) -> np.ndarray:
        return offsets & 0xFFFF


class GatherStrideInElements(OffsetSim):
    """(j) asc_gather's dst_repeat_stride counted in elements instead of 32-byte data blocks.

    The gather page gives no unit for dst_repeat_stride ("目的操作数相邻迭代间相同DataBlock的地址步长");
    the author guessed elements, as for a pointer increment in C. One helper serves the mover and the
    dst bounds check, so the footprint the simulator believes in is smaller than the real one.

    Expected: FAIL in the repeat form's cells, the ambiguity cell of asc_gather.repeat.layout under its
    reading `datablocks` (any call with repeat >= 2 and dst_repeat_stride != 0; the shrunk call has repeat
    2). The count and count_sync cells pass, and so does reject/asc_gather.dst.bounds: its calls are of
    the count forms (a repeat-form call is in the ambiguity's region)."""

    name = "offset-bug-j-gather-stride-in-elements"
    bug = "dst_repeat_stride unit = element"

    def dst_step(self, call: Call) -> int:
        return call.args["dst_repeat_stride"] * ITEMSIZE[call.args["dst"].dtype]


class GatherSrcAdvancedByStride(OffsetSim):
    """(k) asc_gather's offsets advanced by the stride: in repeat r the offsets count from
    src + r * dst_repeat_stride * 32, as if src moved along with dst.

    The author modelled the repeat form on the other repeat-style vector instructions, where every
    operand moves by its repeat stride, and applied dst's to src too; src_offset is relative to the
    start of src for every element ("该偏移量相对于源操作数的起始基地址而言").

    Expected: FAIL in the repeat form's cells, the ambiguity cells of asc_gather.repeat.layout and
    asc_gather.offset.repeat_advance under the readings `datablocks` and `whole_repeat` (any call with
    repeat >= 2 and dst_repeat_stride != 0; bytes read past UB read as zeros, still a FAIL); the shrunk call
    has repeat 2. It is neither reading of the offsets' advance: under `with_stride` it fails as well. The
    count and count_sync cells pass."""

    name = "offset-bug-k-gather-src-advanced-by-stride"
    bug = "src += r * dst_repeat_stride * 32"

    def src_shift(self, call: Call, r: np.ndarray) -> np.ndarray:
        if call.form != "repeat":
            return super().src_shift(call, r)
        return r * call.args["dst_repeat_stride"] * BLOCK


BUGGY_OFFSET_BACKENDS: list[type[OffsetSim]] = [
    OffsetsAsElementIndices, BaseAddrIgnored, MaskBitsReversed, MaskIgnored, OffsetIndexFollowsStride,
    ContinuousMaskOffByOne, CollisionsSummed, AlignmentOfNamedOperandsOnly, OffsetsWrappedAt16Bits,
    GatherStrideInElements, GatherSrcAdvancedByStride,
]

__all__ = ["OffsetSim", "BUGGY_OFFSET_BACKENDS"] + [cls.__name__ for cls in BUGGY_OFFSET_BACKENDS]
