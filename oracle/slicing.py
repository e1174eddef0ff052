"""The arithmetic of a list of SliceInfo (Ascend C DataCopy by slices, asc-devkit@0da921b9:docs/zh/api/SIMD-API/
基础API/Memory矢量计算/数据搬运/GM与UB数据搬运/GM与UB切片数据搬运(DataCopy).md), shared by its index math and
the `slices` rule kind.

Entry 0 is dimension 0 (a row's elements); dimension i > 0 counts whole rows of the dimensions below it. A
dimension selects pieces of `piece` indices, `stride` indices apart, from startIndex: N of them where
endIndex - startIndex + 1 = (N - 1) x stride + N x piece (the page's formula; piece is burstLen x 32 / sizeof(T)
elements in dimension 0 and one index above it, as the page's second dimensions read).
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from .lattice import Lattice

Entry = Mapping[str, int]


def span(entry: Entry) -> int:
    """endIndex - startIndex + 1: the indices from the first to the last, both counted."""
    return entry["endIndex"] - entry["startIndex"] + 1


def pieces(entry: Entry, piece: int) -> int:
    """N, the pieces the formula gives (rounded down where it gives no whole number; 0 for no piece)."""
    whole = piece + entry["stride"]
    return (span(entry) + entry["stride"]) // whole if whole > 0 and piece > 0 else 0


def whole_pieces(entry: Entry, piece: int) -> bool:
    """Does the formula hold with a positive whole N?"""
    whole = piece + entry["stride"]
    return piece > 0 and span(entry) > 0 and (span(entry) + entry["stride"]) % whole == 0


def burst(entries: Sequence[Entry], units: Mapping[str, int]) -> int:
    """Dimension 0's piece in elements: burstLen DataBlocks (the spec's `datablock` unit)."""
    return entries[0]["burstLen"] * units["datablock"] // units["element"] if entries else 0


def counts(entries: Sequence[Entry], units: Mapping[str, int]) -> list[int]:
    """The pieces each dimension of `entries` selects, dimension 0 first."""
    return [pieces(e, burst(entries, units) if i == 0 else 1) for i, e in enumerate(entries)]


def places(entries: Sequence[Entry], units: Mapping[str, int], numbers: Sequence[int], piece: int,
           gap_bytes: int | None = None) -> Lattice:
    """The bytes of `numbers[i]` pieces per dimension placed by `entries` (their starts, strides and shapes),
    each piece of dimension 0 `piece` elements long; `gap_bytes`: dimension 0's gap in bytes where it is not
    stride elements (a reading of the UB side's gap)."""
    width = units["element"]
    below, first, higher = 1, 0, []
    for i, e in enumerate(entries):
        first += e["startIndex"] * below
        if i:
            higher.append((1 + e["stride"]) * below * width)
        below *= e["shapeValue"]
    if not entries:
        return Lattice(0, (), (), 0)
    gap = entries[0]["stride"] * width if gap_bytes is None else gap_bytes
    return Lattice(first * width, (*reversed(higher), piece * width + gap), (*reversed(numbers[1:]), numbers[0]),
                   piece * width)


def fields(value: Any) -> list[Entry]:
    """A list argument's entries as given (the call's validation has checked their fields)."""
    return list(value) if isinstance(value, list) else []
