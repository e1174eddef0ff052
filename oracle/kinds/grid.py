"""The element grid offsets land on (from an offset-addressed operand's base): what the offset kinds
move an offset along."""
from __future__ import annotations


def grid_up(offset: int, shift: int, width: int) -> int:
    """The lowest offset at or above `offset` on the element grid (shift + a multiple of width)."""
    return offset + (shift - offset) % width


def grid_down(offset: int, shift: int, width: int) -> int:
    """The highest offset at or below `offset` on the element grid."""
    return offset - (offset - shift) % width
