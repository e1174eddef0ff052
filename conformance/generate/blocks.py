"""Hypothesis's bytes choice of a fixed size (a Picks block), drawn in one step instead of a byte at a time.

Hypothesis's own provider draws a bytes choice one byte per loop turn: a 32-bit word of its random for each
byte, the word's top 8 bits kept. Those same words come out of one `getrandbits` of 32 bits per byte
(Python's Mersenne Twister fills the low word first), so the bytes, and the random's state after them, are
the ones the loop gives: every example, every shrink and every draws fingerprint stays as it was. The
provider is registered under Hypothesis's own backend name ("hypothesis", the documented hook
AVAILABLE_PROVIDERS), so the engine treats it as its own, and only while the kit searches (`fixed_blocks`).
Where the installed Hypothesis does not draw as described (a release that draws bytes another way), a
check on first use finds a difference and its own provider is left in place. The example's data asks the
engine for the choice itself (`direct_bytes`: its `_draw`, as draw_bytes does, less the look-up of the
constraints' shared dict), checked the same way."""
from __future__ import annotations

import contextlib
import random
from typing import Any, Iterator

from hypothesis.internal.conjecture import providers
from hypothesis.internal.conjecture.data import ConjectureData


class FixedBlocks(providers.HypothesisProvider):
    """HypothesisProvider, with a bytes choice of one size drawn from one call of its random."""

    def draw_bytes(self, min_size: int = 0, max_size: int = providers.COLLECTION_DEFAULT_MAX_SIZE) -> bytes:
        if min_size != max_size or min_size == 0:
            return super().draw_bytes(min_size, max_size)
        assert self._random is not None
        constant = self._maybe_draw_constant("bytes", {"min_size": min_size, "max_size": max_size})
        if constant is not None:
            assert isinstance(constant, bytes)
            return constant
        return self._random.getrandbits(32 * min_size).to_bytes(4 * min_size, "little")[3::4]


_SAME: list[bool] = []          # the first-use check's answer, once per process
REGISTERED = f"{__name__}.FixedBlocks"     # as the registry names a provider (older releases read names only)


def draws_alike(size: int = 64, seeds: int = 8) -> bool:
    """Do FixedBlocks and Hypothesis's own provider give the same bytes, and leave their randoms alike,
    for `seeds` examples of three draws of `size` bytes each (the constants' draw included)?"""
    if not hasattr(providers.HypothesisProvider, "_maybe_draw_constant"):
        return False
    try:
        for seed in range(seeds):
            own, fast = random.Random(seed), random.Random(seed)
            mine = ConjectureData(random=own, provider=providers.HypothesisProvider)
            theirs = ConjectureData(random=fast, provider=FixedBlocks)
            for _ in range(3):
                if mine.draw_bytes(size, size) != theirs.draw_bytes(size, size):
                    return False
            if own.getstate() != fast.getstate():
                return False
    except Exception:               # an engine that draws otherwise (other arguments, other checks)
        return False
    return True


@contextlib.contextmanager
def fixed_blocks() -> Iterator[None]:
    """Hypothesis's engines made inside draw fixed-size bytes with FixedBlocks (where draws_alike holds);
    the provider registered before is back after."""
    if not _SAME:
        _SAME.append(draws_alike())
    registry: dict[str, Any] = providers.AVAILABLE_PROVIDERS
    before = registry.get("hypothesis")
    if _SAME[0]:
        registry["hypothesis"] = REGISTERED
    try:
        yield
    finally:
        if before is not None:
            registry["hypothesis"] = before


_DIRECT: list[bool] = []        # direct_bytes's answer, once per process


def direct_bytes() -> bool:
    """Does ConjectureData's bytes draw of a fixed size come to its `_draw` of a bytes choice with those
    constraints (the same bytes, the same choices recorded, the random left alike), so that a Picks block
    may be drawn by `_draw` at once? Checked on first use; a release where it does not keeps draw_bytes."""
    if not _DIRECT:
        _DIRECT.append(all(_draws_directly(size) for size in (1, 64)))
    return _DIRECT[0]


def _draws_directly(size: int, seeds: int = 4) -> bool:
    constraints = {"min_size": size, "max_size": size}
    try:
        for seed in range(seeds):
            own, fast = random.Random(seed), random.Random(seed)
            mine, theirs = ConjectureData(random=own), ConjectureData(random=fast)
            for _ in range(3):
                if mine.draw_bytes(size, size) != theirs._draw("bytes", constraints, observe=True, forced=None):
                    return False
            if own.getstate() != fast.getstate() or mine.nodes != theirs.nodes or mine.length != theirs.length:
                return False
    except Exception:               # an engine whose _draw is not as described (other arguments, none)
        return False
    return True
