"""Where an operand's bytes are: byte runs relative to the operand's address, and the moves over them.

The index math of every API reduces to `Runs` per operand. Strided runs (a DMA burst train) are kept as
four integers so that sizes and bounds cost no arrays; numpy's stride tricks turn them into views only
when bytes actually move.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.lib.stride_tricks import as_strided


class Runs(NamedTuple):
    """`count` runs of `length` bytes, run k starting at `first + k * step` bytes from the operand's addr."""

    first: int
    step: int
    count: int
    length: int

    @property
    def empty(self) -> bool:
        return self.count <= 0 or self.length <= 0

    @property
    def begin(self) -> int:
        """Lowest byte touched, relative to the operand's addr."""
        if self.empty:
            return 0
        return min(self.first, self.first + self.step * (self.count - 1))

    @property
    def end(self) -> int:
        """One past the highest byte touched, relative to the operand's addr (0 when nothing is touched)."""
        if self.empty:
            return 0
        return max(self.first, self.first + self.step * (self.count - 1)) + self.length

    @property
    def nbytes(self) -> int:
        return 0 if self.empty else self.count * self.length

    def starts(self) -> np.ndarray:
        return self.first + self.step * np.arange(max(self.count, 0), dtype=np.int64)

    def view(self, buffer: np.ndarray, base: int) -> np.ndarray:
        """A (count, length) view of `buffer` holding the runs of an operand at byte `base`."""
        lo, hi = base + self.begin, base + self.end
        if self.empty:
            return buffer[:0].reshape(0, 0)
        if lo < 0 or hi > buffer.shape[0]:
            raise ValueError(f"runs [{lo}, {hi}) fall outside a memory image of {buffer.shape[0]} bytes")
        return as_strided(buffer[base + self.first:], shape=(self.count, self.length),
                          strides=(self.step, 1))


def overlaps(a_base: int, a: Runs, b_base: int, b: Runs) -> bool:
    """Do two operands' runs (in the same scope) share any byte?"""
    if a.empty or b.empty:
        return False
    if a_base + a.end <= b_base + b.begin or b_base + b.end <= a_base + a.begin:
        return False
    a_starts = np.sort(a_base + a.starts())
    a_ends = np.maximum.accumulate(a_starts + a.length)
    b_starts = b_base + b.starts()
    idx = np.searchsorted(a_starts, b_starts + b.length, side="left") - 1
    hit = idx >= 0
    return bool(np.any(a_ends[idx[hit]] > b_starts[hit]))


def copy_runs(src_buf: np.ndarray, src_base: int, src: Runs,
              dst_buf: np.ndarray, dst_base: int, dst: Runs) -> None:
    """Run k of the source lands on run k of the destination (same count, same length)."""
    if src.count != dst.count or src.length != dst.length:
        raise ValueError("copy_runs needs the same number and length of runs on both sides")
    if src.empty:
        return
    if src.step == src.length and dst.step == dst.length:      # contiguous: one slice copy
        n = src.count * src.length
        dst_buf[dst_base + dst.first:dst_base + dst.first + n] = src_buf[src_base + src.first:src_base + src.first + n]
        return
    dst.view(dst_buf, dst_base)[...] = src.view(src_buf, src_base)


def mark(mask: np.ndarray, base: int, runs: Runs, value: bool = True) -> None:
    """Set the bytes of `runs` (at `base`) in a per-byte mask."""
    if not runs.empty:
        runs.view(mask, base)[...] = value
