"""Deliberately broken DataCopy NZ -> ND simulators: the suite must find every one of them non-conforming.

`Nz2NdSim` is a small, *correct* simulator of Ascend C `DataCopy(GlobalTensor dst, LocalTensor src,
Nz2NdParamsFull intriParams)` (004_dc35eb371305363d.txt), written the way a simulator author would write
one from the vendor page, without the oracle: its own product, dtype and UB tables, its own range /
multiple / alignment / bounds / capacity checks, and a move between two strided views:

    Matrix i < ndNum, row r < nValue, column c < dValue: destination element
    i * dstNdMatrixStride + r * dstDStride + c comes from source element
    i * srcNdMatrixStride * 256 + (c div 16) * srcNStride * 16 + r * 16 + (c mod 16).

    The source of one matrix is dValue / 16 column blocks ("Z排布"), each nValue rows of 16 elements back
    to back; column blocks start srcNStride * 16 elements apart ("单位16个元素"), matrices
    srcNdMatrixStride * 256 elements apart ("单位256 (16 * 16) 个元素"). The fractal is 16 elements wide
    for every dtype: the page's float example counts srcNStride = 4 as 64 elements ("8个DataBlock * 8个
    元素"), a column block of float being two 32-byte blocks wide. dstDStride and dstNdMatrixStride are in
    elements ("单位为元素"). ndNum = 0 moves nothing; dValue must be a multiple of 16.

The path is UB -> GM only (表4: "VECOUT -> GM(UB -> GM)"); src is a LocalTensor, 32-byte aligned in UB
and inside it; every byte the call reads lies inside src, every byte it writes inside dst. The
inference series' AI Core takes int16/uint16/int32/uint32/half/float, the A2 / A3 products bfloat16 too.
Where destination rows overlap the page gives no order: the simulator writes them in its own order.

Each subclass below overrides ONE piece of it with one realistic mistake. The docstring of each says
what the bug is and which verdict (FAIL / MISSED_REJECT / FALSE_REJECT / CRASH) the suite must give, in
which cells. `BUGGY_NZ2ND_BACKENDS` lists them all; tests/data_copy_nz2nd/test_catches_bugs.py runs them through
the real strategies and runner.

One geometry (`layout`) serves the mover and the bounds checks, as it would in a real simulator: a bug
in it moves the wrong bytes *and* checks the wrong footprint, so a legal call may also be refused
(FALSE_REJECT) or a too-short tensor accepted (MISSED_REJECT). It also keeps every strided view inside
the tensors the checks let through.

Nothing here imports the oracle's index math or calls `oracle.expected` / `oracle.check`: a bug that
corrupted the oracle's output would test nothing but the comparison.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import numpy as np
from numpy.lib.stride_tricks import as_strided

from conformance import Rejected
from oracle import Call

API = "data_copy_nz2nd"
FRACTAL = 16               # NZ fractal width in elements, for every dtype
FRACTAL_ROWS = 16          # ... and its height: srcNdMatrixStride counts 16 x 16 = 256 elements
BLOCK = 32                 # one data block: a LocalTensor in UB is 32-byte aligned

ITEMSIZE: dict[str, int] = {"int16": 2, "uint16": 2, "float16": 2, "bfloat16": 2,
                            "int32": 4, "uint32": 4, "float32": 4}

# 产品支持情况 of the page: A3, A2 and the inference series' AI Core; not 200I/500 A2, the Vector Core,
# the training series or 200/300/500. The simulator knows all seven and refuses the four.
KNOWN_PRODUCTS = ("ascend310", "ascend910", "ascend310p-aicore", "ascend310p-vectorcore", "ascend310b",
                  "ascend910b", "ascend910_93")
# 表4: "源操作数和目的操作数的数据类型 (两者保持一致)".
_TRAINING = frozenset({"int16", "uint16", "int32", "uint32", "float16", "bfloat16", "float32"})
DTYPES: dict[str, frozenset[str]] = {
    "ascend910b": _TRAINING,
    "ascend910_93": _TRAINING,
    "ascend310p-aicore": _TRAINING - {"bfloat16"},          # "int16_t、uint16_t、int32_t、uint32_t、half、float"
}
DTYPE_RULE = {"ascend310p-aicore": f"{API}.dtype.supported_310p"}

# Unified Buffer bytes (public CANN figures): 256 KB on the inference series, 192 KB on A2 / A3.
UB_BYTES: dict[str, int] = {"ascend310p-aicore": 256 << 10, "ascend910b": 192 << 10, "ascend910_93": 192 << 10}

# 表3 of the page, in its order.
RANGES: dict[str, tuple[int, int]] = {
    "ndNum": (0, 4095), "nValue": (1, 8192), "dValue": (1, 8192), "srcNdMatrixStride": (1, 512),
    "srcNStride": (0, 4096), "dstDStride": (1, 65535), "dstNdMatrixStride": (1, 65535),
}


class Part(NamedTuple):
    """One strided piece of a move: the source as (matrix, column block, row, column, byte) and the
    destination as (matrix, row, column block, column, byte); offsets and steps in bytes from the
    tensors' addresses. A move is the full column blocks, and a narrower last one if dValue leaves one."""

    src_first: int
    src_shape: tuple[int, ...]
    src_steps: tuple[int, ...]
    dst_first: int
    dst_shape: tuple[int, ...]
    dst_steps: tuple[int, ...]


def _reach(first: int, shape: tuple[int, ...], steps: tuple[int, ...]) -> int:
    """One past the highest byte a view touches (0 when it is empty; every step is >= 0)."""
    if not all(shape):
        return 0
    return first + sum((n - 1) * s for n, s in zip(shape, steps)) + 1


class Nz2NdSim:
    """A correct DataCopy NZ -> ND simulator (the control: it must conform everywhere)."""

    name = "nz2nd-sim-correct"
    bug = ""                     # one line, for reports

    # -- the contract ---------------------------------------------------------------------------
    def supports(self, api: str, product: str) -> bool:
        return api == API and product in KNOWN_PRODUCTS

    def run(self, call: Call, memory: dict[str, np.ndarray]) -> None:
        if call.api != API:
            raise Rejected(f"{call.api} is not simulated")
        self.validate(call)
        self.move(call, memory)

    # -- the pieces a bug may override ------------------------------------------------------------
    def dtype_table(self, product: str) -> frozenset[str]:
        return DTYPES[product]

    def ub_bytes(self, product: str) -> int:
        return UB_BYTES[product]

    def check_multiple(self, p: Mapping[str, int]) -> None:
        if p["dValue"] % FRACTAL:
            raise Rejected(f"dValue={p['dValue']} is not a multiple of {FRACTAL}", f"{API}.dValue.multiple")

    def matrices(self, p: Mapping[str, int]) -> int:
        """How many NZ matrices move ("传输NZ矩阵的数目")."""
        return p["ndNum"]

    def rows(self, p: Mapping[str, int]) -> int:
        """How many rows of each matrix move."""
        return p["nValue"]

    def columns(self, p: Mapping[str, int]) -> int:
        """How many columns of each row move."""
        return p["dValue"]

    def c0(self, width: int) -> int:
        """Columns of one column block (the fractal's width in elements)."""
        return FRACTAL

    def src_steps(self, p: Mapping[str, int], width: int, c0: int) -> tuple[int, int, int, int]:
        """Bytes between neighbouring (matrices, column blocks, rows, columns) of the source."""
        return (p["srcNdMatrixStride"] * FRACTAL_ROWS * FRACTAL * width, p["srcNStride"] * FRACTAL * width,
                c0 * width, width)

    def dst_steps(self, p: Mapping[str, int], width: int) -> tuple[int, int]:
        """Bytes between neighbouring (matrices, rows) of the destination."""
        return p["dstNdMatrixStride"] * width, p["dstDStride"] * width

    def src_reach(self, call: Call, parts: list[Part]) -> int:
        """One past the last byte of src the call reads."""
        return max((_reach(q.src_first, q.src_shape, q.src_steps) for q in parts), default=0)

    # -- the geometry ---------------------------------------------------------------------------------
    def layout(self, call: Call) -> list[Part]:
        p, width = call.args["intriParams"], ITEMSIZE[call.args["dst"].dtype]
        n, rows, cols, c0 = self.matrices(p), self.rows(p), self.columns(p), self.c0(width)
        s_mat, s_blk, s_row, s_col = self.src_steps(p, width, c0)
        d_mat, d_row = self.dst_steps(p, width)
        full, rest = divmod(cols, c0)
        parts = []
        for first_block, blocks, wide in ((0, full, c0), (full, 1 if rest else 0, rest)):
            if n <= 0 or blocks <= 0 or rows <= 0:
                continue
            parts.append(Part(first_block * s_blk, (n, blocks, rows, wide, width), (s_mat, s_blk, s_row, s_col, 1),
                              first_block * c0 * width, (n, rows, blocks, wide, width),
                              (d_mat, d_row, c0 * width, width, 1)))
        return parts

    # -- validation, as a toolchain would do it -----------------------------------------------------
    def validate(self, call: Call) -> None:
        product, args = call.product, call.args
        if product not in DTYPES:
            raise Rejected(f"DataCopy NZ2ND is not available on {product}", f"{API}.product.supported")
        dst, src, p = args["dst"], args["src"], args["intriParams"]
        if (src.scope, dst.scope) != ("UB", "GM"):
            raise Rejected(f"{src.scope} -> {dst.scope}: only UB -> GM converts NZ to ND", f"{API}.path.supported")
        allowed = self.dtype_table(product)
        for t in (dst, src):
            if t.dtype not in allowed:
                raise Rejected(f"dtype {t.dtype} is not supported on {product}",
                               DTYPE_RULE.get(product, f"{API}.dtype.supported"))
        if dst.dtype != src.dtype:
            raise Rejected("src and dst differ in dtype", f"{API}.dtype.same")
        for name, (lo, hi) in RANGES.items():
            if not lo <= p[name] <= hi:
                raise Rejected(f"{name}={p[name]} out of [{lo}, {hi}]", f"{API}.{name}.range")
        self.check_multiple(p)
        if src.addr % BLOCK:
            raise Rejected(f"src at byte {src.addr} of UB is not 32-byte aligned", f"{API}.src.align")
        parts = self.layout(call)
        for op, reach in (("src", self.src_reach(call, parts)),
                          ("dst", max((_reach(q.dst_first, q.dst_shape, q.dst_steps) for q in parts), default=0))):
            t = args[op]
            size = t.numel * ITEMSIZE[t.dtype]
            if reach > size:
                raise Rejected(f"{op} is touched up to byte {reach} of a {size}-byte tensor", f"{API}.{op}.bounds")
        ub = self.ub_bytes(product)
        if src.addr + src.numel * ITEMSIZE[src.dtype] > ub:
            raise Rejected(f"src ends past the {ub}-byte UB", f"{API}.src.capacity")

    # -- the move -------------------------------------------------------------------------------------
    def move(self, call: Call, memory: Mapping[str, np.ndarray]) -> None:
        src, dst = call.args["src"], call.args["dst"]
        ub, gm = memory[src.scope], memory[dst.scope]
        parts = self.layout(call)
        data = []
        for q in parts:                                  # every read first
            if src.addr + _reach(q.src_first, q.src_shape, q.src_steps) > ub.shape[0]:
                raise IndexError("the source view would leave the UB image")
            data.append(np.array(as_strided(ub[src.addr + q.src_first:], q.src_shape, q.src_steps)))
        for q, block in zip(parts, data):
            if dst.addr + _reach(q.dst_first, q.dst_shape, q.dst_steps) > gm.shape[0]:
                raise IndexError("the destination view would leave the GM image")
            view = as_strided(gm[dst.addr + q.dst_first:], q.dst_shape, q.dst_steps)
            view[...] = block.transpose(0, 2, 1, 3, 4)      # (matrix, block, row) -> (matrix, row, block)


# ---------------------------------------------------------------------------------------------------
# the bugs


class SrcNStrideInElements(Nz2NdSim):
    """(a) srcNStride counted in elements: column block b starts b * srcNStride elements into the
    matrix instead of b * srcNStride * 16.

    The author read "源同一NZ矩阵的相邻Z排布的偏移(头与头)" and missed "单位16个元素" (the only stride of the
    struct counted in 16s), treating it like dstDStride ("单位为元素"). One geometry serves the mover and
    the src bounds check.

    Expected: FAIL in the legal cells of every dtype (any call with ndNum >= 1, dValue >= 32 and
    srcNStride >= 1; the shrunk call has them); where the smaller source footprint hides a src one element
    too short, MISSED_REJECT in reject/data_copy_nz2nd.src.bounds. The dst-side cells pass."""

    name = "nz2nd-bug-a-src-n-stride-in-elements"
    bug = "srcNStride unit = element"

    def src_steps(self, p: Mapping[str, int], width: int, c0: int) -> tuple[int, int, int, int]:
        mat, _, row, col = super().src_steps(p, width, c0)
        return mat, p["srcNStride"] * width, row, col


class MatrixStrideIn16(Nz2NdSim):
    """(b) srcNdMatrixStride counted in 16 elements instead of 256 (16 x 16): matrix i starts
    i * srcNdMatrixStride * 16 elements into src.

    The author took the unit of srcNStride ("单位16个元素") for both source strides, overlooking
    "单位256 (16 * 16) 个元素". The page's examples use srcNdMatrixStride = 1 with one matrix of 4 rows, which
    in 16s would overlap the first; nobody ran one. One geometry serves the mover and the bounds check.

    Expected: FAIL in the legal cells (any call with ndNum >= 2; the shrunk call has it); MISSED_REJECT in
    reject/data_copy_nz2nd.src.bounds where the smaller footprint hides a short src (ndNum >= 2)."""

    name = "nz2nd-bug-b-matrix-stride-in-16"
    bug = "srcNdMatrixStride unit = 16 elements"

    def src_steps(self, p: Mapping[str, int], width: int, c0: int) -> tuple[int, int, int, int]:
        _, blk, row, col = super().src_steps(p, width, c0)
        return p["srcNdMatrixStride"] * FRACTAL * width, blk, row, col


class BlocksOf32Bytes(Nz2NdSim):
    """(c) The fractal taken to be one 32-byte data block wide: C0 = 32 / sizeof(T), so a column block
    of float / int32 / uint32 holds 8 columns (rows of 8 elements), of 16-bit types 16.

    C0 = 32 bytes is the NZ format of int8 and of some cube buffers; the page's float figure counts its
    distances in 32-byte DataBlocks of 8 floats ("8个DataBlock * 8个元素"), and the author read a block of
    the figure as a fractal row. srcNStride keeps its unit (16 elements). One geometry serves the mover
    and the bounds check.

    Expected: FAIL in the legal int32 / uint32 / float32 cells (any call that moves a matrix: column 8
    comes from the wrong place), or FALSE_REJECT where the doubled number of column blocks reaches past
    src; where the footprint it believes in is the smaller one (rows of 32 bytes, not 64), a src too
    short may be accepted: MISSED_REJECT in reject/data_copy_nz2nd.src.bounds. The 16-bit cells (C0 = 16
    either way) pass."""

    name = "nz2nd-bug-c-blocks-of-32-bytes"
    bug = "C0 = 32 bytes / sizeof(T)"

    def c0(self, width: int) -> int:
        return BLOCK // width


class DValueMultipleUnchecked(Nz2NdSim):
    """(d) dValue not checked for a multiple of 16: the last column block moves as many columns as are
    left ("dValue必须为16的倍数" was read as advice on performance, the mover handling a narrow block anyway).

    Expected: MISSED_REJECT in reject/data_copy_nz2nd.dValue.multiple (the shrunk call's dValue is not a
    multiple of 16); nothing else: the legal cells and the other reject cells pass."""

    name = "nz2nd-bug-d-dvalue-multiple-unchecked"
    bug = "dValue % 16 not checked"

    def check_multiple(self, p: Mapping[str, int]) -> None:
        return None


class Bfloat16On310p(Nz2NdSim):
    """(e) bfloat16 accepted on ascend310p-aicore: one dtype list for every product, copied from the A2 /
    A3 rows of 表4 ("int16_t、uint16_t、int32_t、uint32_t、half、bfloat16_t、float"), missing that the
    inference series' row stops at half and float. The byte mover handles bfloat16 like half.

    Expected: MISSED_REJECT in ascend310p-aicore's reject/data_copy_nz2nd.dtype.supported_310p (the
    shrunk call is bfloat16); ascend910b's dtype cells and the 310P legal cells pass."""

    name = "nz2nd-bug-e-bfloat16-on-310p"
    bug = "310P dtype list = A2's"

    def dtype_table(self, product: str) -> frozenset[str]:
        return _TRAINING


class DstDStrideInBytes(Nz2NdSim):
    """(f) dstDStride counted in bytes: row r of a matrix starts r * dstDStride bytes into it.

    The author carried the habit of DataCopyPad's GM-side strides (DataCopyExtParams, "单位为Byte") over
    to this struct, missing "单位为元素". One geometry serves the mover and the dst bounds check.

    Expected: FAIL in the legal cells (any call with ndNum >= 1 and nValue >= 2; the shrunk call has
    them), and MISSED_REJECT in reject/data_copy_nz2nd.dst.bounds where the smaller footprint hides a dst
    one element too short (nValue >= 2). The src-side cells pass."""

    name = "nz2nd-bug-f-dst-d-stride-in-bytes"
    bug = "dstDStride unit = byte"

    def dst_steps(self, p: Mapping[str, int], width: int) -> tuple[int, int]:
        mat, _ = super().dst_steps(p, width)
        return mat, p["dstDStride"]


class ColumnMajorBlocks(Nz2NdSim):
    """(g) Rows and columns swapped inside a column block: element (r, c) of a block is read at
    (c mod 16) * nValue + r, as if the block were stored column after column (ZN, not NZ).

    The author confused which of the two letters is the order inside the fractal ("Z排布": rows of 16,
    left to right and then down). The footprint is the same (nValue x 16 elements per block), so the
    bounds checks are right.

    Expected: FAIL in the legal cells of every dtype (any call with ndNum >= 1 and nValue >= 2: with one
    row both orders read the same; the shrunk call has nValue >= 2); the reject cells pass."""

    name = "nz2nd-bug-g-column-major-blocks"
    bug = "block element (r, c) at c*nValue + r"

    def src_steps(self, p: Mapping[str, int], width: int, c0: int) -> tuple[int, int, int, int]:
        mat, blk, _, _ = super().src_steps(p, width, c0)
        return mat, blk, width, p["nValue"] * width


class NdNumZeroAsOne(Nz2NdSim):
    """(h) ndNum = 0 treated as 1: the author wrote the matrix loop as do { ... } while (++i < ndNum),
    the way a hardware repeat counter that cannot be zero is often modelled, although 表3 allows
    "ndNum∈[0, 4095]". One count serves the mover and the bounds checks.

    ndNum = 0 is the ambiguity data_copy_nz2nd.ndNum.zero: no legal cell draws it.

    Expected: in the ambiguity cell of data_copy_nz2nd.ndNum.zero once its reading nop is declared, FAIL
    (one matrix written where nothing must change) or FALSE_REJECT (src or dst too small for a matrix the
    call does not move); calls with ndNum >= 1 come out right."""

    name = "nz2nd-bug-h-ndnum-zero-as-one"
    bug = "ndNum = 0 moves one matrix"

    def matrices(self, p: Mapping[str, int]) -> int:
        return max(p["ndNum"], 1)


class LastBlockDropped(Nz2NdSim):
    """(i) The last column block of each matrix dropped: the block count computed as (dValue - 1) / 16,
    the index of the last block, and used as the number of blocks. One count serves the mover and the
    bounds checks (which then believe in a smaller footprint).

    Expected: FAIL in the legal cells of every dtype (any call with ndNum >= 1: the last 16 columns of
    every row are not written); MISSED_REJECT in reject/data_copy_nz2nd.src.bounds and dst.bounds where
    the missing block is what the short tensor cannot hold."""

    name = "nz2nd-bug-i-last-block-dropped"
    bug = "column blocks = (dValue - 1) / 16"

    def columns(self, p: Mapping[str, int]) -> int:
        return (p["dValue"] - 1) // FRACTAL * FRACTAL


class SrcNStrideZeroPacked(Nz2NdSim):
    """(j) srcNStride = 0 taken as "packed": column blocks nValue * 16 elements apart, as if 0 selected a
    default (several DataCopy structs use 0 for "no gap"; here it is a head-to-head offset, "(头与头)", and
    0 reads every column block from the same place).

    Expected: FAIL in the legal cells of every dtype, on calls with srcNStride = 0, ndNum >= 1 and
    dValue >= 32 (tag intriParams.srcNStride=min), or FALSE_REJECT where the packed footprint is larger
    than src; calls with srcNStride >= 1 come out right."""

    name = "nz2nd-bug-j-src-n-stride-zero-packed"
    bug = "srcNStride 0 = nValue"

    def src_steps(self, p: Mapping[str, int], width: int, c0: int) -> tuple[int, int, int, int]:
        mat, blk, row, col = super().src_steps(p, width, c0)
        if p["srcNStride"] == 0:
            blk = p["nValue"] * FRACTAL * width
        return mat, blk, row, col


class SrcBoundsAsDense(Nz2NdSim):
    """(k) The src bounds check counts the elements the call moves, not where they are: src must hold
    ndNum * nValue * dValue elements, as if the NZ matrices were packed (the page's example allocates
    exactly nValue * dValue elements: "intriParams.nValue * intriParams.dValue * sizeof(half)").
    The mover is right.

    Expected: MISSED_REJECT in reject/data_copy_nz2nd.src.bounds (a src too short for its strided
    footprint but holding the dense count: strides wider than packed); in the legal cells, FALSE_REJECT
    where the strides pack the blocks tighter than dense (srcNStride < nValue, or matrices that share
    blocks) and src is smaller than the dense count."""

    name = "nz2nd-bug-k-src-bounds-as-dense"
    bug = "src bounds = ndNum*nValue*dValue elements"

    def src_reach(self, call: Call, parts: list[Part]) -> int:
        p = call.args["intriParams"]
        return p["ndNum"] * p["nValue"] * p["dValue"] * ITEMSIZE[call.args["src"].dtype]


class UbSize256k(Nz2NdSim):
    """(l) The UB size of the inference series (256 KB) used on every product: src may end anywhere
    below 256 KB, also on ascend910b / ascend910_93 (192 KB).

    Expected: MISSED_REJECT in ascend910b's reject/data_copy_nz2nd.src.capacity (the shrunk call's src
    ends past 196608 bytes, below 262144); nothing on ascend310p-aicore, whose UB is 256 KB."""

    name = "nz2nd-bug-l-ub-256k"
    bug = "UB = 256 KB everywhere"

    def ub_bytes(self, product: str) -> int:
        return 256 << 10


class SrcNStrideIn12Bits(Nz2NdSim):
    """(m) srcNStride kept in a 12-bit field: 4096 wraps to 0, every column block read from the first.

    The author modelled the instruction's parameter fields and gave srcNStride the width of ndNum's
    (12 bits, "ndNum∈[0, 4095]"), missing that "srcNStride∈[0, 4096]" has 4097 values. Only the top
    of the range is wrong; the bounds check (on the wrapped stride) believes in a smaller footprint.

    Expected: FAIL in the legal 16-bit cells, on calls with srcNStride = 4096, dValue >= 32 and
    ndNum >= 1 (the shrunk call has them: the generators reach the top of the range in calls that move
    data; the second column block of a 16-bit call starts 128 KB into src, which fits in UB). In the
    32-bit cells it would start 256 KB in: no such call fits in UB, and they pass. Every other call
    comes out right."""

    name = "nz2nd-bug-m-src-n-stride-in-12-bits"
    bug = "srcNStride & 0xFFF"

    def src_steps(self, p: Mapping[str, int], width: int, c0: int) -> tuple[int, int, int, int]:
        mat, _, row, col = super().src_steps(p, width, c0)
        return mat, (p["srcNStride"] & 0xFFF) * FRACTAL * width, row, col


class NValueIn13Bits(Nz2NdSim):
    """(n) nValue kept in a 13-bit field: 8192 wraps to 0, and the call moves nothing.

    As (m), for "nValue∈[1, 8192]" (8192 values from 1: 14 bits, or 13 bits holding nValue - 1).

    Expected: FAIL in ascend310p-aicore's legal 16-bit cells, on calls with nValue = 8192 (the shrunk
    call): one column block of 8192 rows of 16 half-words is 256 KB, the whole UB of the inference
    series, so such a call has src at UB byte 0, ndNum = 1 and one column block (or srcNStride = 0).
    On ascend910b (192 KB of UB), and in 32-bit cells, no legal call that moves data has nValue = 8192:
    those cells pass, as they must for any backend."""

    name = "nz2nd-bug-n-n-value-in-13-bits"
    bug = "nValue & 0x1FFF"

    def rows(self, p: Mapping[str, int]) -> int:
        return p["nValue"] & 0x1FFF


BUGGY_NZ2ND_BACKENDS: list[type[Nz2NdSim]] = [
    SrcNStrideInElements, MatrixStrideIn16, BlocksOf32Bytes, DValueMultipleUnchecked, Bfloat16On310p,
    DstDStrideInBytes, ColumnMajorBlocks, NdNumZeroAsOne, LastBlockDropped, SrcNStrideZeroPacked,
    SrcBoundsAsDense, UbSize256k, SrcNStrideIn12Bits, NValueIn13Bits,
]

__all__ = ["Nz2NdSim", "BUGGY_NZ2ND_BACKENDS"] + [cls.__name__ for cls in BUGGY_NZ2ND_BACKENDS]
