"""Deliberately broken simulators of Ascend C DataCopy by SliceInfo: the suite must find every one of them
non-conforming.

`SliceSim` is a small, *correct* simulator of `DataCopy(dst, src, dstSliceInfo[], srcSliceInfo[], dimValue)`
(specs/data_copy_slice.yaml), written from the vendor page without the oracle: its own product, dtype and UB
tables, its own checks, and a slice-by-slice move:

    Per side, element (i_0, ..., i_{d-1}) is element i_0 + i_1 * shape_0 + i_2 * shape_0 * shape_1 + ... of the
    tensor. Dimension 0 holds N slices of burstLen * 32 / sizeof(T) elements ("单位：datablock（32B）"), the
    j-th from startIndex + j * (slice + stride) ("stride 切片的间隔元素个数"), N from the formula
    "endIndex - startIndex + 1 = (N - 1) x stride + N x burstLen x 32 / sizeof(T)"; a dimension above 0 holds
    the indices startIndex + k * (1 + stride) up to endIndex (the page's {0, 2, 1, 1, 3}: rows 0 and 2). The
    source's slices, in order, land on the destination's.

Each subclass overrides ONE piece with one realistic mistake; its docstring says the verdict the suite must
give ("Expected:"). Nothing here imports the oracle's index math or calls `oracle.expected` / `oracle.check`.
"""
from __future__ import annotations

import itertools

import numpy as np

from conformance import Rejected
from oracle import Call

API = "data_copy_slice"
BLOCK = 32
ITEMSIZE = {"int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "float16": 2, "bfloat16": 2, "int32": 4, "uint32": 4,
            "float32": 4}
PRODUCTS = {"ascend910_93": 192 << 10, "ascend910b": 192 << 10, "ascend310p-aicore": 256 << 10}   # UB bytes
WITH_BF16 = {"ascend910_93", "ascend910b"}


class SliceSim:
    """The correct simulator (the control)."""

    name = "slice-sim-correct"
    bug = ""

    def supports(self, api: str, product: str) -> bool:
        return api == API and product in PRODUCTS

    # -- geometry, in elements -------------------------------------------------------------------------
    def piece(self, entries: list, width: int) -> int:
        """Dimension 0's slice, in elements."""
        return entries[0]["burstLen"] * BLOCK // width

    def slices(self, e: dict, piece: int) -> int:
        """How many slices (or indices) a dimension holds: span + stride = N * (piece + stride)."""
        return (e["endIndex"] - e["startIndex"] + 1 + e["stride"]) // (piece + e["stride"])

    def gap(self, e: dict, width: int) -> int:
        """Dimension 0's gap between slices, in elements."""
        return e["stride"]

    def dims(self, entries: list) -> list:
        return entries

    def starts(self, entries: list, counts: list[int], piece: int, width: int) -> list[int]:
        """The first element of every slice, dimension 0 fastest."""
        entries = self.dims(entries)
        pitch, axes = 1, []
        for i, e in enumerate(entries):
            step = piece + self.gap(e, width) if i == 0 else 1 + e["stride"]
            axes.append([(e["startIndex"] + k * step) * pitch for k in range(counts[i])])
            pitch *= e["shapeValue"]
        return [sum(c) for c in itertools.product(*reversed(axes))]

    # -- checks ----------------------------------------------------------------------------------------
    def validate(self, call: Call) -> tuple[list[int], list[int], int]:
        a = call.args
        product, src, dst, d = call.product, a["src"], a["dst"], a["dimValue"]
        if product not in PRODUCTS:
            raise Rejected(f"DataCopy by slices is not on {product}", f"{API}.product.supported")
        if (src.scope, dst.scope) not in (("GM", "UB"), ("UB", "GM")):
            raise Rejected(f"{src.scope}->{dst.scope}", f"{API}.path.supported")
        for t in (dst, src):
            if t.dtype not in ITEMSIZE or (t.dtype == "bfloat16" and product not in WITH_BF16):
                raise Rejected(f"dtype {t.dtype} on {product}", f"{API}.dtype.supported")
        if src.dtype != dst.dtype:
            raise Rejected("src and dst differ in dtype", f"{API}.dtype.same")
        for t in (dst, src):
            if t.scope == "UB" and t.addr % BLOCK:
                raise Rejected("a UB operand is not 32-byte aligned", f"{API}.dst.align.UB")
        if not 1 <= d <= 8:
            raise Rejected(f"dimValue {d}", f"{API}.dimValue.range")
        lists = (a["dstSliceInfo"], a["srcSliceInfo"])
        if any(len(entries) != d for entries in lists):
            raise Rejected("a SliceInfo list does not have dimValue entries", f"{API}.entries.dimValue")
        width = ITEMSIZE[dst.dtype]
        for entries in lists:
            self.check_entries(entries, width)
        if any(x["burstLen"] != y["burstLen"] for x, y in zip(*lists)):
            raise Rejected("burstLen differs", f"{API}.burstLen.same")
        piece = self.piece(a["srcSliceInfo"], width)
        counts = [self.slices(e, piece if i == 0 else 1) for i, e in enumerate(a["srcSliceInfo"])]
        src_at = self.starts(a["srcSliceInfo"], counts, piece, width)
        dst_at = self.starts(a["dstSliceInfo"], counts, piece, width)
        for t, at, rule in ((src, src_at, "src.bounds"), (dst, dst_at, "dst.bounds")):
            if at and max(at) + piece > t.numel:
                raise Rejected("a slice leaves its tensor", f"{API}.{rule}")
        for t in (dst, src):
            if t.scope == "UB" and t.addr + t.numel * width > PRODUCTS[product]:
                raise Rejected("a tensor runs past UB", f"{API}.dst.capacity")
        return src_at, dst_at, piece

    def check_entries(self, entries: list, width: int) -> None:
        for i, e in enumerate(entries):
            if not e["startIndex"] < e["endIndex"] <= e["shapeValue"]:
                raise Rejected("startIndex < endIndex <= shapeValue", f"{API}.order")
            if i == 0 and e["burstLen"] < 1:
                raise Rejected("burstLen 0", f"{API}.burstLen.positive")
            if i > 0 and e["burstLen"] != 1:
                raise Rejected("burstLen above dimension 0", f"{API}.burstLen.one")
            piece = self.piece(entries, width) if i == 0 else 1
            if (e["endIndex"] - e["startIndex"] + 1 + e["stride"]) % (piece + e["stride"]):
                raise Rejected("no whole number of slices", f"{API}.formula")

    def run(self, call: Call, memory: dict[str, np.ndarray]) -> None:
        if call.api != API:
            raise Rejected(f"{call.api} is not simulated")
        src_at, dst_at, piece = self.validate(call)
        src, dst = call.args["src"], call.args["dst"]
        width = ITEMSIZE[dst.dtype]
        n = piece * width
        data = [memory[src.scope][src.addr + s * width:src.addr + s * width + n].copy() for s in src_at]
        for at, chunk in zip(dst_at, data):
            memory[dst.scope][dst.addr + at * width:dst.addr + at * width + n] = chunk


class EndOffByOne(SliceSim):
    """endIndex read as one past the slice (exclusive), so the count is one short where the formula gives a
    whole N: the last slice of every row is not moved. Expected: FAIL in legal cells."""

    name = "slice-bug-end-off-by-one"
    bug = "endIndex exclusive"

    def slices(self, e: dict, piece: int) -> int:
        return (e["endIndex"] - e["startIndex"] + e["stride"]) // (piece + e["stride"])


class StrideInBlocks(SliceSim):
    """Dimension 0's stride counted in DataBlocks (like burstLen) instead of elements. Expected: FAIL (or
    FALSE_REJECT) in legal cells (two slices or more, a stride above 0)."""

    name = "slice-bug-stride-in-blocks"
    bug = "stride unit"

    def gap(self, e: dict, width: int) -> int:
        return e["stride"] * BLOCK // width


class BurstInElements(SliceSim):
    """burstLen read as elements instead of 32-byte DataBlocks: slices of burstLen elements. Expected: FAIL
    (or FALSE_REJECT: the formula then fails) in legal cells."""

    name = "slice-bug-burst-in-elements"
    bug = "burstLen unit"

    def piece(self, entries: list, width: int) -> int:
        return entries[0]["burstLen"]


class DimsSwapped(SliceSim):
    """The SliceInfo list read outermost dimension first (as a shape is often written), so the last entry is
    taken for the row's elements. Expected: FAIL (or FALSE_REJECT) in the cell of
    data_copy_slice.formula.higher_dims under its reading per_index (calls of two dimensions or more)."""

    name = "slice-bug-dims-swapped"
    bug = "dimension order"

    def dims(self, entries: list) -> list:
        return entries[::-1]


BUGGY_DATA_COPY_SLICE_BACKENDS = [EndOffByOne, StrideInBlocks, BurstInElements, DimsSwapped]
