"""The slots an offset tensor's offsets may take (offset_tensors.py): `slots` elements of `width` bytes from
byte `low`, less those whose bytes an operand kept apart touches (`spans`: [begin, end) each). Told by the
few runs of blocked slots, never as an array of every slot: a UB holds a hundred thousand two-byte slots,
and a call's offsets take a few thousand of them.

Slot k, at byte low + k * width, meets [b, e) for k from (b - width - low) // width + 1 up to, not
including, ceil((e - low) / width).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np


class FreeSlots(NamedTuple):
    """The free slots, in order, numbered from 0: free slot i is slot i plus the blocked slots below it."""

    size: int               # how many are free
    ranks: np.ndarray       # per run of blocked slots, how many free slots lie below it
    skipped: np.ndarray     # 0, then per run, the blocked slots up to its end

    def __getitem__(self, numbers: np.ndarray) -> np.ndarray:
        """The slot of each free slot number (int64, a fresh array)."""
        return numbers + self.skipped[np.searchsorted(self.ranks, numbers, side="right")]


def _pieces(spans: list[tuple[int, int]], low: int, width: int, slots: int) -> list[tuple[int, int]]:
    """[lo, hi) of the slots each span that falls among them meets, sorted (some may be empty)."""
    top = low + slots * width
    return sorted((max(0, (b - width - low) // width + 1), min(slots, -(-(e - low) // width)))
                  for b, e in spans if e > low and b < top)


def _blocked(pieces: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The pieces merged into runs of blocked slots, apart and in order (empty ones left out)."""
    runs: list[tuple[int, int]] = []
    for lo, hi in pieces:
        if hi <= lo:
            continue
        if runs and lo <= runs[-1][1]:
            runs[-1] = runs[-1][0], max(runs[-1][1], hi)
        else:
            runs.append((lo, hi))
    return runs


def free_slots(spans: list[tuple[int, int]], low: int, width: int, slots: int) -> FreeSlots | None:
    """The slots none of `spans` touch; None where no span falls among them: every slot is free."""
    pieces = _pieces(spans, low, width, slots)
    if not pieces:
        return None
    ranks, skipped = [], [0]        # a few runs: counted here, two arrays made once
    for lo, hi in _blocked(pieces):
        ranks.append(lo - skipped[-1])
        skipped.append(skipped[-1] + hi - lo)
    return FreeSlots(slots - skipped[-1], np.array(ranks, dtype=np.int64), np.array(skipped, dtype=np.int64))


def free_count(spans: list[tuple[int, int]], low: int, width: int, slots: int) -> int | float:
    """The size of what free_slots gives (infinite where it gives None: no span falls among the slots)."""
    pieces = _pieces(spans, low, width, slots)
    if not pieces:
        return float("inf")
    return slots - sum(hi - lo for lo, hi in _blocked(pieces))
