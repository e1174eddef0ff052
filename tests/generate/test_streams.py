"""The offsets' random stream (conformance/generate/streams.py) is numpy's Generator(PCG64(seed)) number for
number: the same starting state on the seeds at the ends of the 32-bit range and on many others, the same
draws of every kind the offsets' drawing makes, and a stream seeded again in the middle of another starts
over. Write.of keeps a handed-over array (its dtype, its own, read-only) as it is, and copies any other.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from conformance.generate.memory import Write
from conformance.generate.streams import pcg64_start, seeded

EDGE_SEEDS = [0, 1, 2, 0xFFFF, 0x10000, 2**31 - 1, 2**31, 2**32 - 2, 2**32 - 1]


def _numpy_start(seed: int) -> tuple[int, int]:
    state = np.random.PCG64(seed).state["state"]
    return state["state"], state["inc"]


def test_the_starting_state_is_numpys():
    seeds = EDGE_SEEDS + random.Random(7).sample(range(2**32), 3000)
    assert [pcg64_start(s) for s in seeds] == [_numpy_start(s) for s in seeds]


def _draws(g: np.random.Generator) -> list:
    """What offset_tensors and the offset kinds draw, in one stream."""
    return [g.integers(0, 1000), g.permutation(300), g.choice(5000, 200, replace=False),
            g.choice(20000, 300, replace=False), g.integers(0, 7, 50), g.integers(1, 2**32 - 1)]


@pytest.mark.parametrize("seed", EDGE_SEEDS + random.Random(11).sample(range(2**32), 40))
def test_the_draws_are_numpys(seed):
    for a, b in zip(_draws(seeded(seed)), _draws(np.random.Generator(np.random.PCG64(seed)))):
        assert np.array_equal(a, b)


def test_seeding_again_starts_over():
    first = seeded(12345).integers(0, 2**32, 8)
    seeded(12345).integers(0, 2**32, 3)
    again = seeded(12345).integers(0, 2**32, 8)
    assert np.array_equal(first, again)


def test_a_handed_over_array_is_kept_and_any_other_copied():
    handed = np.arange(5, dtype="<u4")
    handed.flags.writeable = False
    assert Write.of("UB", 0, "uint32", handed)._array is handed
    writable = np.arange(5, dtype="<u4")
    kept = Write.of("UB", 0, "uint32", writable)
    writable[0] = 99
    assert kept._array is not writable and kept.values == (0, 1, 2, 3, 4)
    wide = np.arange(5, dtype=np.int64)
    wide.flags.writeable = False
    write = Write.of("UB", 0, "uint32", wide)
    assert write._array.dtype == np.dtype("<u4") and bytes(write.data) == bytes(np.arange(5, dtype="<u4"))
