"""Deliberately broken vec_trans_scatter simulators: the suite must find every one of them non-conforming.

`VtsSim` is a small, *correct* simulator of TIK vec_trans_scatter (vnchwconv) written the way a simulator
author would write one from the vendor page (000_4bcb8e5856d111e9.txt), without the oracle: its own
product and dtype tables, its own list / range / alignment / bounds / capacity / overlap checks, and a
transpose of 16 addressed blocks per repeat:

    repeat r reads one 32-byte block at src_list[i] + r * src_rep_stride * 32 and writes one at
    dst_list[k] + r * dst_rep_stride * 32 ("第二次需要加上 dst_rep_stride/src_rep_stride ... 单位:block").
    The 16 source parts (the whole block; for int8/uint8 the half src_high_half picks) are the rows of a
    16 x m matrix of elements (m = part bytes / element bytes). Its transpose, read row after row, is cut
    into 16 parts of m elements; part k goes to dst_list[k] (int8/uint8: into the half dst_high_half
    picks, the other half untouched). So 16-bit: dst block k element e = src block e element k (C0 = 16);
    32-bit: dst block k element e = src block (k % 2) * 8 + e, element k // 2.

All reads of a call happen before its writes; a block two iterations write keeps the later write.

Each subclass below overrides ONE piece of it with one realistic mistake. The docstring of each says
what the bug is and which verdict (FAIL / MISSED_REJECT / FALSE_REJECT / CRASH) the suite must give, in
which cells. `BUGGY_VTS_BACKENDS` lists them all; tests/vec_trans_scatter/test_catches_bugs.py runs them through the
real strategies and runner.

Nothing here imports the oracle's index math or calls `oracle.expected` / `oracle.check`: a bug that
corrupted the oracle's output would test nothing but the comparison.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from conformance import Rejected
from oracle import Call, Tensor

API = "vec_trans_scatter"
BLOCK = 32                 # one list entry addresses one 32-byte block per repeat
ENTRIES = 16               # every example of the page passes 16 entries per list ("C0=16")

# "支持的型号" and the dst_list dtype sentences of the page: every product takes the eight dtypes but
# "Atlas 200/500 A2推理产品" (ascend310b), whose list has no float16 / float32.
_ALL8 = frozenset({"int8", "uint8", "int16", "uint16", "float16", "int32", "uint32", "float32"})
DTYPES: dict[str, frozenset[str]] = {
    "ascend310": _ALL8,
    "ascend910": _ALL8,
    "ascend310p-aicore": _ALL8,
    "ascend310p-vectorcore": _ALL8,
    "ascend310b": frozenset({"int16", "uint16", "int8", "uint8", "int32", "uint32"}),
    "ascend910b": _ALL8,
}
# Products the simulator knows but on which vec_trans_scatter does not exist (the page does not list A3).
UNSUPPORTED_PRODUCTS = frozenset({"ascend910_93"})
ITEMSIZE: dict[str, int] = {"int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "float16": 2,
                            "int32": 4, "uint32": 4, "float32": 4}

# Unified Buffer bytes (public CANN figures): 256 KB on 310/910/310P, 248 KB usable on 310B, 192 KB on 910B.
UB_BYTES: dict[str, int] = {
    "ascend310": 256 << 10, "ascend910": 256 << 10, "ascend310p-aicore": 256 << 10,
    "ascend310p-vectorcore": 256 << 10, "ascend310b": 248 << 10, "ascend910b": 192 << 10,
}

# Table 1 of the page: "repeat_times∈[0,255]", "dst_rep_stride∈[0,65535]", "src_rep_stride∈[0,65535]".
RANGES: dict[str, tuple[int, int]] = {"repeat_times": (0, 255), "dst_rep_stride": (0, 65535),
                                      "src_rep_stride": (0, 65535)}


def _c0_order(m: int) -> np.ndarray:
    """For the 16 x m source matrix: which (block * m + element) of the sources lands at (part k,
    element e) of the output, flattened k-major. Transposing the matrix and cutting it row after row into
    parts of m means output element f = k * m + e is column f // 16, row f % 16 of the sources."""
    f = np.arange(ENTRIES * m)
    return (f % ENTRIES) * m + f // ENTRIES


class VtsSim:
    """A correct vec_trans_scatter simulator (the control: it must conform everywhere)."""

    name = "vts-sim-correct"
    bug = ""                     # one line, for reports

    # -- the contract ---------------------------------------------------------------------------
    def supports(self, api: str, product: str) -> bool:
        return api == API and (product in DTYPES or product in UNSUPPORTED_PRODUCTS)

    def run(self, call: Call, memory: dict[str, np.ndarray]) -> None:
        if call.api != API:
            raise Rejected(f"{call.api} is not simulated")
        self.validate(call)
        self.transpose(call, memory)

    # -- the pieces a bug may override ------------------------------------------------------------
    def dtype_table(self, product: str) -> frozenset[str]:
        return DTYPES[product]

    def ub_bytes(self, product: str) -> int:
        return UB_BYTES[product]

    def stride_bytes(self, call: Call, stride: int) -> int:
        """Bytes between the blocks one entry touches in two adjacent repeats ("单位:block")."""
        return stride * BLOCK

    def block_addrs(self, call: Call, tensors: list[Tensor], stride: int) -> np.ndarray:
        """(repeat, entry) -> byte address of the block that entry touches in that repeat."""
        r = np.arange(call.args["repeat_times"], dtype=np.int64)[:, None]
        base = np.array([t.addr for t in tensors], dtype=np.int64)[None, :]
        return base + r * self.stride_bytes(call, stride)

    def halves(self, call: Call, width: int) -> tuple[int, int, int]:
        """(bytes moved per entry, offset of the source part, offset of the destination part) in a block:
        int8/uint8 move a 16-byte half ("指定 ... block 的高半部还是低半部"), the others the whole block."""
        if width != 1:
            return BLOCK, 0, 0
        half = BLOCK // 2
        return half, half if call.args["src_high_half"] else 0, half if call.args["dst_high_half"] else 0

    def order(self, m: int) -> np.ndarray:
        return _c0_order(m)

    def iterations(self, repeat: int) -> range:
        """The order in which the iterations' writes land ("第一次 ... 第二次 ... 以此类推")."""
        return range(repeat)

    def lists(self, call: Call) -> tuple[list[Tensor], list[Tensor]]:
        return list(call.args["dst_list"]), list(call.args["src_list"])

    def write_part(self, ub: np.ndarray, addr: int, off: int, data: np.ndarray) -> None:
        """Write one entry's part at `addr + off` of a block (rows of `data`: one per repeat, or one)."""
        ub[addr + off:addr + off + data.shape[-1]] = data

    # -- validation, as a toolchain would do it -----------------------------------------------------
    def validate(self, call: Call) -> None:
        product, args = call.product, call.args
        if product in UNSUPPORTED_PRODUCTS or product not in DTYPES:
            raise Rejected(f"vec_trans_scatter is not available on {product}", f"{API}.product.supported")
        dst, src = args["dst_list"], args["src_list"]
        for op, ts in (("dst_list", dst), ("src_list", src)):
            if len(ts) != ENTRIES:
                raise Rejected(f"{op} has {len(ts)} entries, not {ENTRIES}", f"{API}.{op}.length")
        for op, ts in (("dst_list", dst), ("src_list", src)):
            for i, t in enumerate(ts):
                if t.scope != "UB":
                    raise Rejected(f"{op}[{i}] is in {t.scope}, not UB", f"{API}.{op}.scope")
        allowed = self.dtype_table(product)
        for t in list(dst) + list(src):
            if t.dtype not in allowed:
                rule = "dtype.supported_310b" if product == "ascend310b" else "dtype.supported"
                raise Rejected(f"dtype {t.dtype} is not supported on {product}", f"{API}.{rule}")
        if len({t.dtype for t in list(dst) + list(src)}) != 1:
            raise Rejected("the entries of dst_list and src_list differ in dtype", f"{API}.dtype.same")
        for name, (lo, hi) in RANGES.items():
            if not lo <= args[name] <= hi:
                raise Rejected(f"{name}={args[name]} out of [{lo}, {hi}]", f"{API}.{name}.range")
        for op, ts in (("dst_list", dst), ("src_list", src)):
            for i, t in enumerate(ts):
                if t.addr % BLOCK:
                    raise Rejected(f"{op}[{i}] at byte {t.addr} is not 32-byte aligned", f"{API}.{op}.align")
        repeat, ub = args["repeat_times"], self.ub_bytes(product)
        for op, ts, stride in (("dst_list", dst, args["dst_rep_stride"]), ("src_list", src, args["src_rep_stride"])):
            reach = (repeat - 1) * self.stride_bytes(call, stride) + BLOCK if repeat > 0 else 0
            for i, t in enumerate(ts):
                size = t.numel * ITEMSIZE[t.dtype]
                if reach > size:
                    raise Rejected(f"{op}[{i}] reaches byte {reach} of a {size}-byte tensor", f"{API}.{op}.bounds")
                if t.addr + size > ub:
                    raise Rejected(f"{op}[{i}] ends past the {ub}-byte UB", f"{API}.{op}.capacity")
        if repeat >= 1:
            self.check_overlap(call)

    def check_overlap(self, call: Call) -> None:
        """"对于单次repeat(repeat_times=1),... 要求100%完全重叠,不支持部分重叠,且每一个block都必须相等";
        "对于多次repeat ... 第N次迭代的目的操作数是第N+1次的源操作数,这种情况是不支持地址重叠的"; inside one
        iteration of several repeats the same "identical or disjoint" rule (the general constraint)."""
        args = call.args
        d = self.block_addrs(call, args["dst_list"], args["dst_rep_stride"])      # (repeat, 16)
        s = self.block_addrs(call, args["src_list"], args["src_rep_stride"])
        same = self.meets(d, s)                                                    # (repeat,)
        identical = np.all(d == s, axis=1)
        if args["repeat_times"] == 1:
            if same[0] and not identical[0]:
                raise Rejected("dst_list and src_list overlap in part", f"{API}.overlap.single_repeat")
            return
        bad = np.flatnonzero(same & ~identical)
        if bad.size:
            raise Rejected(f"iteration {int(bad[0])}: dst and src overlap in part",
                           f"{API}.overlap.repeat_same_iteration")
        self.check_dependency(d, s)

    def check_dependency(self, d: np.ndarray, s: np.ndarray) -> None:
        hit = np.flatnonzero(self.meets(d[:-1], s[1:]))
        if hit.size:
            raise Rejected(f"iteration {int(hit[0]) + 1} reads a block iteration {int(hit[0])} writes",
                           f"{API}.overlap.repeat_dependency")

    @staticmethod
    def meets(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Per row: does any block of `a` share a byte with any block of `b` (blocks of 32 bytes)?"""
        return (np.abs(a[:, :, None] - b[:, None, :]) < BLOCK).any(axis=(1, 2))

    # -- the move -------------------------------------------------------------------------------------
    def transpose(self, call: Call, memory: Mapping[str, np.ndarray]) -> None:
        args = call.args
        repeat = args["repeat_times"]
        if repeat == 0:
            return
        dst, src = self.lists(call)
        ub = memory["UB"]
        width = ITEMSIZE[dst[0].dtype]
        part, src_off, dst_off = self.halves(call, width)
        m = part // width
        reads = self.block_addrs(call, src, args["src_rep_stride"]) + src_off          # (repeat, 16)
        writes = self.block_addrs(call, dst, args["dst_rep_stride"])
        # every read first: (repeat, 16 entries, m elements, width bytes)
        data = ub[reads[:, :, None] + np.arange(part)].reshape(repeat, ENTRIES * m, width)
        moved = data[:, self.order(m)].reshape(repeat, ENTRIES, part)
        if np.unique(writes).size == writes.size:      # no block written twice: any order will do
            for k in range(ENTRIES):
                self.scatter(ub, writes[:, k], dst_off, moved[:, k])
        else:                                          # in iteration order: the later write wins
            for r in self.iterations(repeat):
                for k in range(ENTRIES):
                    self.write_part(ub, int(writes[r, k]), dst_off, moved[r, k])

    def scatter(self, ub: np.ndarray, addrs: np.ndarray, off: int, data: np.ndarray) -> None:
        """One entry's parts over every repeat, at distinct blocks."""
        if data.shape[0] == 1:
            self.write_part(ub, int(addrs[0]), off, data[0])
            return
        ub[(addrs[:, None] + off + np.arange(data.shape[-1])).reshape(-1)] = data.reshape(-1)


# ---------------------------------------------------------------------------------------------------
# the bugs


class B32HalvesMispaired(VtsSim):
    """(a) 32-bit: the halves of the transposed rows dealt to the wrong entries.

    For int32/uint32/float32 a block holds 8 elements, so the 8 x 16 transpose must be cut into 16 parts
    of 8, row after row: dst block k holds row k // 2, half k % 2. The author dealt the left halves of the
    8 rows to entries 0-7 and the right halves to entries 8-15 (dst block k = row k % 8, half k // 8:
    element e from src block (k // 8) * 8 + e, element k % 8). Entries 0 and 15 still come out right;
    8- and 16-bit dtypes are untouched.

    Expected: FAIL in the legal int32 / uint32 / float32 cells, nothing in the 16-bit and 8-bit ones."""

    name = "vts-bug-a-b32-halves-mispaired"
    bug = "b32: dst k = row k%8, half k//8"

    def order(self, m: int) -> np.ndarray:
        if m != 8:
            return _c0_order(m)
        k, e = np.divmod(np.arange(ENTRIES * m), m)
        return ((k // 8) * 8 + e) * m + k % 8


class HighHalfFlagsSwapped(VtsSim):
    """(b) dst_high_half and src_high_half swapped: the source half is picked by dst_high_half and the
    destination half by src_high_half. The signature is (dst_high_half, src_high_half, dst_list, ...) and
    the author's block helper takes its halves source-first.

    Expected: FAIL in the legal int8 / uint8 cells (any call whose two flags differ); the 16- and 32-bit
    cells pass (the flags mean nothing there, and the generators keep them False)."""

    name = "vts-bug-b-high-half-flags-swapped"
    bug = "src half <- dst_high_half, dst half <- src_high_half"

    def halves(self, call: Call, width: int) -> tuple[int, int, int]:
        part, src_off, dst_off = super().halves(call, width)
        return part, dst_off, src_off


class OtherHalfCleared(VtsSim):
    """(c) 8-bit: the whole destination block written, the half dst_high_half does not pick cleared.

    "指定 dst_list[*] 的数据存储到 block 的高半部还是低半部": the author stored a 32-byte block whose other
    half is zero, the way a vector unit writes a full block, instead of leaving that half untouched.

    Expected: FAIL in the legal int8 / uint8 cells (the memory images are random, so the untouched half is
    not zero); the 16- and 32-bit cells pass."""

    name = "vts-bug-c-other-half-cleared"
    bug = "int8: other half of the dst block zeroed"

    def write_part(self, ub: np.ndarray, addr: int, off: int, data: np.ndarray) -> None:
        if data.shape[-1] == BLOCK:
            super().write_part(ub, addr, off, data)
            return
        block = np.zeros(BLOCK, dtype=np.uint8)
        block[off:off + data.shape[-1]] = data
        ub[addr:addr + BLOCK] = block

    def scatter(self, ub: np.ndarray, addrs: np.ndarray, off: int, data: np.ndarray) -> None:
        for a, d in zip(addrs, data):
            self.write_part(ub, int(a), off, d)


class StridesInElements(VtsSim):
    """(d) dst_rep_stride / src_rep_stride counted in elements of the dtype instead of 32-byte blocks.

    The author overlooked "单位:block" in Table 1 and stepped each entry by stride * itemsize bytes from one
    repeat to the next. One helper serves the mover and the validator, so the bounds and overlap checks
    use the same, smaller, geometry.

    Expected: FAIL in the legal cells (any call with repeat_times >= 2 and a non-zero stride); the shrunk
    call has repeat_times 2. In a legal call the shrunk geometry can also look like an overlap the page
    forbids (the blocks of two repeats fewer than 32 bytes apart), a FALSE_REJECT; and a tensor one
    element too short for the real footprint looks big enough: MISSED_REJECT in the bounds cells (the
    shrunk call has repeat_times >= 2 and a non-zero stride on the short operand)."""

    name = "vts-bug-d-strides-in-elements"
    bug = "rep stride unit = element"

    def stride_bytes(self, call: Call, stride: int) -> int:
        return stride * ITEMSIZE[call.args["dst_list"][0].dtype]


class SingleRepeatOverlapUnchecked(VtsSim):
    """(e) Partial overlap accepted with repeat_times == 1.

    The author implemented the multi-repeat sentences ("对于多次repeat ...") and, since the hardware reads
    a whole iteration before it writes, saw no reason to refuse anything for a single repeat, missing
    "对于单次repeat(repeat_times=1) ... 不支持部分重叠,且每一个block都必须相等".

    Expected: MISSED_REJECT in reject/vec_trans_scatter.overlap.single_repeat, nothing else (the
    multi-repeat overlap cells still pass, and so do legal in-place calls)."""

    name = "vts-bug-e-single-repeat-overlap-unchecked"
    bug = "repeat_times == 1: no overlap check"

    def check_overlap(self, call: Call) -> None:
        if call.args["repeat_times"] == 1:
            return
        super().check_overlap(call)


class DependencyUnchecked(VtsSim):
    """(f) The dependency between iterations not checked: a block iteration N writes may be read by
    iteration N+1 ("第N次迭代的目的操作数是第N+1次的源操作数,这种情况是不支持地址重叠的").

    The author checked each iteration on its own (identical or disjoint) and ran the rest; the simulator
    reads every repeat before writing, so the call even gives a plausible image.

    Expected: MISSED_REJECT in reject/vec_trans_scatter.overlap.repeat_dependency (the shrunk call has
    repeat_times 2), nothing else."""

    name = "vts-bug-f-dependency-unchecked"
    bug = "no iteration N -> N+1 dependency check"

    def check_dependency(self, d: np.ndarray, s: np.ndarray) -> None:
        return None


class ListsSortedByAddress(VtsSim):
    """(g) The lists sorted by address: the author sorted dst_list and src_list to walk UB in order
    (entries are usually one tensor sliced every block, as in the page's examples), losing which entry is
    which. "src_list/dst_list中的每个元素配置为每个HW平面的起点": the list order is the data layout.

    Expected: FAIL in the legal cells whose lists are not in address order (the generators' "scattered"
    layouts); packed and strided lists come out right."""

    name = "vts-bug-g-lists-sorted"
    bug = "dst_list/src_list sorted by addr"

    def lists(self, call: Call) -> tuple[list[Tensor], list[Tensor]]:
        dst, src = super().lists(call)
        return sorted(dst, key=lambda t: t.addr), sorted(src, key=lambda t: t.addr)


class Float16On310b(VtsSim):
    """(h) float16 / float32 accepted on ascend310b: one dtype list for every product, copied from the
    first sentence of the page ("支持的数据类型为Tensor(int8/uint8/int16/uint16/float16/int32/uint32/float32)"),
    missing that "Atlas 200/500 A2推理产品" lists int16/uint16/int8/uint8/int32/uint32 only.

    Expected: MISSED_REJECT in ascend310b's reject/vec_trans_scatter.dtype.supported_310b (the shrunk
    call is float16 or float32); every cell of ascend910b passes."""

    name = "vts-bug-h-float-on-310b"
    bug = "310b dtype list = the others'"

    def dtype_table(self, product: str) -> frozenset[str]:
        return _ALL8


class InPlaceClobbered(VtsSim):
    """(i) In place, each destination block written before the next one is computed.

    The author computed dst block k from the UB as it stands and wrote it at once, entry after entry.
    The page allows one tensor for both lists ("为了节省地址空间,开发者可以定义一个Tensor,供源操作数与
    目的操作数同时使用"), 100% overlapped: then dst block 0 overwrites src block 0 before dst block 1 reads
    its element 0 from it.

    Expected: FAIL in the legal cells, on the in-place calls the generators draw (tag src_list=in-place);
    calls whose lists do not meet come out right."""

    name = "vts-bug-i-in-place-clobbered"
    bug = "dst block k written before block k+1 is read"

    def transpose(self, call: Call, memory: Mapping[str, np.ndarray]) -> None:
        args = call.args
        dst, src = self.lists(call)
        ub = memory["UB"]
        width = ITEMSIZE[dst[0].dtype]
        part, src_off, dst_off = self.halves(call, width)
        m = part // width
        reads = self.block_addrs(call, src, args["src_rep_stride"]) + src_off
        writes = self.block_addrs(call, dst, args["dst_rep_stride"])
        order = self.order(m).reshape(ENTRIES, m)
        for r in range(args["repeat_times"]):
            for k in range(ENTRIES):
                data = ub[reads[r, :, None] + np.arange(part)].reshape(ENTRIES * m, width)   # read now
                self.write_part(ub, int(writes[r, k]), dst_off, data[order[k]].reshape(-1))


class EarlierIterationWins(VtsSim):
    """(k) The iterations' writes stored last to first, so a block two iterations write keeps the
    earlier one.

    The author copies backwards, memmove-style, so that an in-place call never overwrites a source it still
    needs; the reads all happen first anyway, so only the order of the writes changes. The page numbers the
    iterations ("第一次 ... 第二次 ... 以此类推"): the last one's data must be left.

    Expected: FAIL on calls where two iterations write one block (dst_rep_stride = 0 and repeat_times >= 2:
    the shrunk call), once a run declares vec_trans_scatter.dst.repeat_overlap = last_wins (the ambiguity's
    cell enters that region; undeclared, no cell generates it); calls that write every block once come
    out right."""

    name = "vts-bug-k-earlier-iteration-wins"
    bug = "iterations written last to first"

    def iterations(self, repeat: int) -> range:
        return range(repeat - 1, -1, -1)


class UbSize256k(VtsSim):
    """(j) The UB size of the training series (256 KB) used on every product: an entry's tensor may end
    anywhere below 256 KB, also on ascend910b (192 KB) and ascend310b (248 KB).

    Expected: MISSED_REJECT in reject/vec_trans_scatter.dst_list.capacity and .src_list.capacity of
    ascend910b and ascend310b (the shrunk call has a tensor ending past 196608 / 253952 bytes); nothing on
    ascend910, whose UB is 256 KB."""

    name = "vts-bug-j-ub-256k"
    bug = "UB = 256 KB everywhere"

    def ub_bytes(self, product: str) -> int:
        return 256 << 10


BUGGY_VTS_BACKENDS: list[type[VtsSim]] = [
    B32HalvesMispaired, HighHalfFlagsSwapped, OtherHalfCleared, StridesInElements,
    SingleRepeatOverlapUnchecked, DependencyUnchecked, ListsSortedByAddress, Float16On310b,
    InPlaceClobbered, EarlierIterationWins, UbSize256k,
]

__all__ = ["VtsSim", "BUGGY_VTS_BACKENDS"] + [cls.__name__ for cls in BUGGY_VTS_BACKENDS]
