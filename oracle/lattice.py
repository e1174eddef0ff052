"""Runs on a box of indices: the footprint of a move with more than two levels of stride.

DataCopy ND->NZ writes matrices x column blocks x rows of one 32-byte block each; a slice DataCopy reads and
writes up to eight dimensions of bursts. `Lattice` has the interface of `footprint.Runs` and `footprint.Grid`
(empty, count, begin, end, span, nbytes, starts, view, self_overlaps) so that the rule kinds take it as
they take those.
"""
from __future__ import annotations

import itertools
import math
import operator
from typing import NamedTuple

import numpy as np
from numpy.lib.stride_tricks import as_strided

SORTED_STARTS_MAX = 1 << 22        # runs whose starts self_overlaps sorts; past it, it works by differences


class Lattice(NamedTuple):
    """Runs of `length` bytes: run (k_0, ..., k_n) starts at first + sum k_i * steps[i], k_i < counts[i],
    the outermost index first. Steps are >= 0 (the APIs that use it have no negative stride)."""

    first: int
    steps: tuple[int, ...]
    counts: tuple[int, ...]
    length: int

    @property
    def empty(self) -> bool:
        return self.length <= 0 or min(self.counts, default=1) <= 0

    # the generator sizes operands by end and nbytes hundreds of times a case: each reads the fields once
    @property
    def count(self) -> int:  # type: ignore[override]     # a field of the lattice, not tuple.count
        _, _, counts, length = self
        return 0 if length <= 0 or min(counts, default=1) <= 0 else math.prod(counts)

    @property
    def begin(self) -> int:
        return 0 if self.empty else self.first

    @property
    def end(self) -> int:
        first, steps, counts, length = self
        if length <= 0 or min(counts, default=1) <= 0:
            return 0
        moved: int = sum(map(operator.mul, steps, counts))
        return first + moved - sum(steps) + length    # sum of s * (n - 1)

    @property
    def nbytes(self) -> int:
        _, _, counts, length = self
        return 0 if length <= 0 or min(counts, default=1) <= 0 else math.prod(counts) * length

    @property
    def span(self) -> tuple[int, int]:
        """(begin, end); (0, 0) when nothing is touched."""
        return self.begin, self.end

    def starts(self) -> np.ndarray:
        at = np.full((1,) * len(self.counts), self.first, dtype=np.int64)
        for axis, (s, n) in enumerate(zip(self.steps, self.counts)):
            shape = [1] * len(self.counts)
            shape[axis] = max(n, 0)
            at = at + s * np.arange(max(n, 0), dtype=np.int64).reshape(shape)
        return at.reshape(-1)

    def view(self, buffer: np.ndarray, base: int) -> np.ndarray:
        """A (*counts, length) view of `buffer` holding the runs of an operand at byte `base`."""
        if self.empty:
            return buffer[:0].reshape((0,) * (len(self.counts) + 1))
        lo, hi = base + self.begin, base + self.end
        if lo < 0 or hi > buffer.shape[0]:
            raise ValueError(f"runs [{lo}, {hi}) fall outside a memory image of {buffer.shape[0]} bytes")
        return as_strided(buffer[base + self.first:], shape=(*self.counts, self.length),
                          strides=(*self.steps, 1))

    def nested_steps(self) -> tuple[int, ...]:
        """The least steps, each at or above its own, that keep every run apart in the order of the levels:
        a level of two runs or more steps at least as far as the finer levels inside it reach (the
        finest: a run's length)."""
        steps, extent = list(self.steps), self.length
        for i in reversed(range(len(steps))):
            if self.counts[i] > 1:
                steps[i] = max(steps[i], extent)
                extent += steps[i] * (self.counts[i] - 1)
        return tuple(steps)

    def self_overlaps(self) -> bool:
        """Do two different runs share a byte? More bytes than the span holds must; levels that nest (each
        step past the whole extent of the finer ones) cannot; otherwise the sorted starts tell (or, for
        very many runs, the differences of index vectors: one level solved, the others enumerated)."""
        if self.empty or self.count == 1:
            return False
        if self.nbytes > self.end - self.begin:
            return True                          # pigeonhole: some byte is written twice
        levels = sorted((s, n) for s, n in zip(self.steps, self.counts) if n > 1)
        extent = self.length
        for s, n in levels:
            if s < extent:
                break
            extent += s * (n - 1)
        else:
            return False
        if self.count <= SORTED_STARTS_MAX:
            return bool((np.diff(np.sort(self.starts())) < self.length).any())
        return _differences_meet(levels, self.length)


def _differences_meet(levels: list[tuple[int, int]], length: int) -> bool:
    """Is there an index difference d != 0, |d_i| < n_i, with |sum d_i s_i| < length? The level of most
    entries is solved for the nearest d; the others' differences are enumerated one outer value at a time."""
    (s_last, n_last), rest = max(levels, key=lambda lv: lv[1]), list(levels)
    rest.remove((s_last, n_last))
    if n_last > 1 and s_last < length:
        return True                              # two neighbours of the solved level alone
    for head in itertools.product(*(range(-(n - 1), n) for _, n in rest[:1])):
        shift = np.full(1, sum(h * s for h, (s, _) in zip(head, rest[:1])), dtype=np.int64)
        for s, n in rest[1:]:
            shift = (shift[:, None] + s * np.arange(-(n - 1), n, dtype=np.int64)[None, :]).reshape(-1)
        if not any(head):
            shift = shift[np.arange(shift.size) != shift.size // 2]      # the zero difference of the others
        near = np.clip(np.stack([(-shift) // s_last, -(shift // s_last)]), -(n_last - 1), n_last - 1) \
            if s_last else np.zeros((2, shift.size), dtype=np.int64)
        if (np.abs(shift[None, :] + near * s_last) < length).any():
            return True
    return False
