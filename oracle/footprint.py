"""Where an operand's bytes are: byte runs relative to the operand's address (oracle/moves.py moves them).

The index math of every API reduces to `Runs` per operand. Strided runs (a DMA burst train) are kept as
four integers so that sizes and bounds cost no arrays; numpy's stride tricks turn them into views only
when bytes actually move. An operand addressed by offsets read from memory (Scatter's dst) has `Spots`:
one start per element.
"""
from __future__ import annotations

from typing import NamedTuple, cast

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .repeats import any_repeat


class Runs(NamedTuple):
    """`count` runs of `length` bytes, run k starting at `first + k * step` bytes from the operand's addr."""

    first: int
    step: int
    count: int  # type: ignore[assignment]     # a field, not tuple.count
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
    def floor(self) -> int:
        """At most begin (Spots.floor): begin itself, told without arrays."""
        return self.begin

    @property
    def nbytes(self) -> int:
        return 0 if self.empty else self.count * self.length

    @property
    def span(self) -> tuple[int, int]:
        """(begin, end) in one go, for the checks that read both; (0, 0) when nothing is touched."""
        first, step, count, length = self
        if count <= 0 or length <= 0:
            return 0, 0
        last = first + step * (count - 1)
        return (first, last + length) if step >= 0 else (last, first + length)

    def starts(self) -> np.ndarray:
        return self.first + self.step * np.arange(max(self.count, 0), dtype=np.int64)

    def or_bits(self) -> int:
        """Every bit set in some start, and maybe more (see Spots.or_bits): first | step."""
        return 0 if self.count <= 0 else self.first if self.count == 1 else self.first | self.step

    def view(self, buffer: np.ndarray, base: int) -> np.ndarray:
        """A (count, length) view of `buffer` holding the runs of an operand at byte `base`."""
        lo, hi = base + self.begin, base + self.end
        if self.empty:
            return buffer[:0].reshape(0, 0)
        if lo < 0 or hi > buffer.shape[0]:
            raise ValueError(f"runs [{lo}, {hi}) fall outside a memory image of {buffer.shape[0]} bytes")
        return _strided(buffer, base + self.first, (self.count, self.length), (self.step, 1))


def _strided(buffer: np.ndarray, offset: int, shape: tuple[int, ...], strides: tuple[int, ...]) -> np.ndarray:
    """as_strided(buffer[offset:], shape, strides), made by numpy's constructor where `buffer` is one block
    of bytes (a fraction of as_strided's cost: the move of every call views its runs)."""
    if buffer.itemsize == 1 and buffer.flags.c_contiguous:
        return np.ndarray(shape, buffer.dtype, buffer, offset, strides)
    return as_strided(buffer[offset:], shape=shape, strides=strides)


class Still(dict):  # type: ignore[type-arg]
    """Images (scope -> array) that no one writes while the footprints made from them are read (a check's
    own images, or a backend's before it moves): the offsets an operand is addressed by are viewed there,
    not copied (Spots.offsets)."""


class Spots:
    """Pieces of `length` bytes at arbitrary byte offsets `at` from the operand's address: where the
    elements of an offset-addressed operand are (Scatter's dst, asc_gather's src), known only from the
    offset values in memory.

    `Spots.offsets(entries, base, length)` keeps the offsets as read (uint32) and makes `at` = base +
    entries only when a rule needs every start: bounds and span checks need only the lowest and highest
    offset, which a reduction over the uint32 entries gives (computed once)."""

    __slots__ = ("_at", "length", "_entries", "_base", "_lowest", "_highest")

    def __init__(self, at: np.ndarray | None, length: int):
        self._at: np.ndarray | None = at
        self.length = length
        self._entries: np.ndarray | None = None             # with _base: the offsets of `offsets`, unshifted
        self._base = 0
        self._lowest: int | None = None                     # the lowest and highest start, each made once
        self._highest: int | None = None

    @classmethod
    def offsets(cls, entries: np.ndarray, base: int, length: int, memory: object = None) -> "Spots":
        """Starts base + entries[k]; the entries are copied (they may be a view of memory a call writes)
        unless `memory`, the images they were read from, is Still."""
        spots = cls(None, length)
        spots._entries, spots._base = entries if type(memory) is Still else np.array(entries), base
        return spots

    @property
    def at(self) -> np.ndarray:
        """int64, one start per element, in the order the call moves them."""
        if self._at is None:
            at = cast(np.ndarray, self._entries).astype(np.int64)
            at += self._base
            self._at = at
        return self._at

    def __repr__(self) -> str:
        return f"Spots(at={self.at!r}, length={self.length})"

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Spots) and self.length == other.length
                and np.array_equal(self.at, other.at))

    __hash__ = None         # type: ignore[assignment]  # holds an array

    @property
    def empty(self) -> bool:
        return self.count == 0 or self.length <= 0

    @property
    def begin(self) -> int:
        if self._lowest is None:
            if self.empty:
                return 0
            self._lowest = int(self.unshifted().min()) + (self._base if self._at is None else 0)
        return self._lowest

    @property
    def end(self) -> int:
        if self._highest is None:
            if self.empty:
                return 0
            self._highest = int(self.unshifted().max()) + (self._base if self._at is None else 0)
        return self._highest + self.length

    @property
    def floor(self) -> int:
        """At most `begin`, told without a pass over the offsets where it can be: the base, for starts not
        yet made from unsigned offsets (none lies below it); `begin` otherwise."""
        entries = self._entries
        if self._lowest is None and entries is not None and entries.dtype.kind == "u" and entries.size \
                and self.length > 0 and self._at is None:
            return self._base
        return self.begin

    @property
    def span(self) -> tuple[int, int]:
        """(begin, end); (0, 0) when nothing is touched."""
        return self.begin, self.end

    @property
    def first(self) -> int:
        return int(self.at[0]) if self.count else 0

    @property
    def count(self) -> int:
        return int(cast(np.ndarray, self._entries if self._at is None else self._at).size)

    @property
    def nbytes(self) -> int:
        return 0 if self.empty else self.count * self.length

    def starts(self) -> np.ndarray:
        return self.at

    def unshifted(self) -> np.ndarray:
        """The starts less one shift common to all (which changes no repeat among them, nor their order):
        the offsets as read where the starts are not yet made, else the starts."""
        return cast(np.ndarray, self._entries if self._at is None else self._at)

    def or_bits(self) -> int:
        """An integer with every bit set that some start has (and maybe more): the low bits a power-of-two
        alignment looks at are clear here only where they are in every start. Of offsets not yet made
        starts, base | the entries' OR, one reduction over the uint32 entries."""
        shift = self._base if self._at is None else 0          # what unshifted() leaves out
        return shift | int(np.bitwise_or.reduce(self.unshifted())) if self.count else 0

    def bytes(self, base: int) -> np.ndarray:
        """(count, length) absolute byte addresses."""
        return base + self.at[:, None] + np.arange(self.length, dtype=np.int64)

    def self_overlaps(self) -> bool:
        """Do two pieces share a byte (several elements sent to one place)?"""
        if self.count < 2 or self.length <= 0:
            return False
        gaps = np.diff(self.at)
        if int(gaps.min()) >= self.length:          # in order, none on the next: the usual case, no sort
            return False
        return _pieces_meet(self.at, self.length)


def _pieces_meet(at: np.ndarray, length: int) -> bool:
    """Do two pieces of `length` bytes starting at `at` share a byte? Pieces whose starts lie a whole number
    of lengths apart share one only where two start alike (any_repeat of their cells: the elements of a
    masked copy); otherwise their sorted starts tell."""
    rel = at - int(at.min())
    if not (rel % length).any():
        return any_repeat(rel // length)
    return bool((np.diff(np.sort(at)) < length).any())


class Grid(NamedTuple):
    """`outer` groups of `inner` runs of `length` bytes: run (o, k) starts at
    first + o * outer_step + k * inner_step (DataCopy NZ->ND: matrices of rows). A negative step (a call
    refused for its range) still has a begin and an end; only steps >= 0 are viewed or moved."""

    first: int
    outer_step: int
    outer: int
    inner_step: int
    inner: int
    length: int

    # the generator sizes operands by end and nbytes hundreds of times a case: each reads the six
    # fields once (unpacked), with no other property in between
    @property
    def empty(self) -> bool:
        return self.outer <= 0 or self.inner <= 0 or self.length <= 0

    @property
    def count(self) -> int:  # type: ignore[override]     # a field of the grid, not tuple.count
        _, _, outer, _, inner, length = self
        return 0 if outer <= 0 or inner <= 0 or length <= 0 else outer * inner

    @property
    def begin(self) -> int:
        first, outer_step, outer, inner_step, inner, length = self
        if outer <= 0 or inner <= 0 or length <= 0:
            return 0
        return first + min(0, outer_step * (outer - 1)) + min(0, inner_step * (inner - 1))

    @property
    def end(self) -> int:
        first, outer_step, outer, inner_step, inner, length = self
        if outer <= 0 or inner <= 0 or length <= 0:
            return 0
        return first + max(0, outer_step * (outer - 1)) + max(0, inner_step * (inner - 1)) + length

    @property
    def floor(self) -> int:
        """At most begin (Spots.floor): begin itself."""
        return self.begin

    @property
    def nbytes(self) -> int:
        _, _, outer, _, inner, length = self
        return 0 if outer <= 0 or inner <= 0 or length <= 0 else outer * inner * length

    @property
    def span(self) -> tuple[int, int]:
        """(begin, end); (0, 0) when nothing is touched."""
        return self.begin, self.end

    def starts(self) -> np.ndarray:
        o = np.arange(max(self.outer, 0), dtype=np.int64)[:, None]
        k = np.arange(max(self.inner, 0), dtype=np.int64)[None, :]
        return (self.first + o * self.outer_step + k * self.inner_step).reshape(-1)

    def view(self, buffer: np.ndarray, base: int) -> np.ndarray:
        """An (outer, inner, length) view of `buffer` holding the runs of an operand at byte `base`."""
        if self.empty:
            return buffer[:0].reshape(0, 0, 0)
        if self.outer_step < 0 or self.inner_step < 0:
            raise ValueError("a Grid with a negative step is not viewed")
        lo, hi = base + self.begin, base + self.end
        if lo < 0 or hi > buffer.shape[0]:
            raise ValueError(f"runs [{lo}, {hi}) fall outside a memory image of {buffer.shape[0]} bytes")
        return _strided(buffer, base + self.first, (self.outer, self.inner, self.length),
                        (self.outer_step, self.inner_step, 1))

    def self_overlaps(self) -> bool:
        """Do two different runs share a byte? Rows k apart in one group are k * inner_step apart; rows
        of groups m apart are m * outer_step + k * inner_step apart, |k| < inner: check the nearest k."""
        if self.empty:
            return False
        if self.inner > 1 and self.inner_step < self.length:
            return True
        if self.outer_step >= 0 and self.inner_step >= 0 and \
                self.outer_step >= self.inner_step * (self.inner - 1) + self.length:
            return False                # each group ends before the next begins: the usual case
        near = _groups_meet(self, min(self.outer, _FEW_GROUPS))     # the nearest groups first, one by
        if near or self.outer <= _FEW_GROUPS:                        # one: most meetings lie there
            return near
        m = np.arange(_FEW_GROUPS, self.outer, dtype=np.int64)
        shift = m * self.outer_step
        if self.inner_step == 0:
            return bool((shift < self.length).any())
        rows = np.clip(np.stack([-(shift // self.inner_step), -(-shift // self.inner_step) * -1]),
                       -(self.inner - 1), self.inner - 1)
        gap = np.abs(shift[None, :] + rows * self.inner_step)
        return bool((gap < self.length).any())


_FEW_GROUPS = 8       # Grid.self_overlaps: groups under this many apart are checked one by one, without arrays


def _groups_meet(grid: Grid, groups: int) -> bool:
    """Grid.self_overlaps's test of groups m < `groups` apart, one m at a time (the first that meets ends it)."""
    _, outer_step, _, inner_step, inner, length = grid
    for shift in range(outer_step, groups * outer_step, outer_step) if outer_step else [0] * (groups - 1):
        if (shift < length if inner_step == 0 else
                any(abs(shift + min(max(k, 1 - inner), inner - 1) * inner_step) < length
                    for k in (-(shift // inner_step), -shift // inner_step))):
            return True
    return False


def overlaps(a_base: int, a: Runs, b_base: int, b: Runs) -> bool:
    """Do two operands' runs (in the same scope) share any byte?"""
    (a_lo, a_hi), (b_lo, b_hi) = a.span, b.span
    if a_lo == a_hi or b_lo == b_hi:        # one of them touches nothing
        return False
    if a_base + a_hi <= b_base + b_lo or b_base + b_hi <= a_base + a_lo:
        return False
    for one, other, one_base, other_base in ((a, b, a_base, b_base), (b, a, b_base, a_base)):
        if _solid(one):                 # one unbroken span: no need to list every run of either
            return _meets_span(other, other_base, one_base + one.begin, one_base + one.end)
    a_starts = np.sort(a_base + a.starts())
    a_ends = np.maximum.accumulate(a_starts + a.length)
    b_starts = b_base + b.starts()
    idx = np.searchsorted(a_starts, b_starts + b.length, side="left") - 1
    hit = idx >= 0
    return bool(np.any(a_ends[idx[hit]] > b_starts[hit]))


def _solid(runs: Runs | Spots | Grid) -> bool:
    """Runs that leave no gap between begin and end (bursts back to back, or a single one)."""
    return isinstance(runs, Runs) and (runs.count == 1 or 0 < abs(runs.step) <= runs.length)


def _meets_span(runs: Runs | Spots, base: int, lo: int, hi: int) -> bool:
    """Does some run (at `base`) share a byte with [lo, hi)? Runs by arithmetic, Spots and Grid by array."""
    if not isinstance(runs, Runs) or runs.step == 0:
        starts = base + (runs.starts()[:1] if isinstance(runs, Runs) else runs.starts())
        return bool(np.any((starts < hi) & (starts + runs.length > lo)))
    first, step = base + runs.first, runs.step
    if step < 0:                        # the same runs, listed from the other end
        first, step = first + step * (runs.count - 1), -step
    # run k meets [lo, hi) <=> lo - length < first + k * step < hi
    k_lo = max(0, (lo - runs.length - first) // step + 1)
    k_hi = min(runs.count - 1, -(-(hi - first) // step) - 1)
    return k_lo <= k_hi


def mark(mask: np.ndarray, base: int, runs: Runs | Spots | Grid, value: bool = True) -> None:
    """Set the bytes of `runs` (at `base`) in a per-byte mask (bytes past its end are left out)."""
    if runs.empty:
        return
    if isinstance(runs, Spots):
        where = runs.bytes(base).reshape(-1)
        mask[where[(where >= 0) & (where < mask.shape[0])]] = value
    elif _solid(runs) and 0 <= base + runs.begin and base + runs.end <= mask.shape[0]:
        mask[base + runs.begin:base + runs.end] = value          # one unbroken span: a slice
    else:
        runs.view(mask, base)[...] = value


__all__ = ["Runs", "Spots", "Grid", "overlaps", "mark"]
