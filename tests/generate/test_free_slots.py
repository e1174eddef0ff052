"""The free slots of an offset tensor's drawing (conformance/generate/free_slots.py), told by runs of
blocked slots, are the plain definition's: every slot whose bytes no span touches, in order, slot by slot,
and as many; None and an infinite count exactly where no span falls among the slots. Checked on random
spans of every kind: below the first slot, past the last, over each other, empty, straddling a slot."""
from __future__ import annotations

import random

import numpy as np
import pytest

from conformance.generate.free_slots import free_count, free_slots


def _plain(spans, low, width, slots):
    """Each slot's bytes against each span: what the runs must give."""
    top = low + slots * width
    if not [(b, e) for b, e in spans if e > low and b < top]:
        return None
    at = low + np.arange(slots, dtype=np.int64) * width
    ok = np.ones(slots, dtype=bool)
    for begin, end in spans:
        ok &= (at + width <= begin) | (at >= end)
    return np.flatnonzero(ok)


@pytest.mark.parametrize("seed", range(8))
def test_the_free_slots_are_the_plain_definitions(seed):
    r = random.Random(seed)
    for _ in range(400):
        width, low, slots = r.choice([1, 2, 4, 8, 32]), r.randrange(0, 5000), r.randrange(1, 3000)
        spans = [(b, b + r.randrange(0, 400)) for b in
                 (r.randrange(-200, low + slots * width + 300) for _ in range(r.randrange(0, 5)))]
        plain, free = _plain(spans, low, width, slots), free_slots(spans, low, width, slots)
        if plain is None:
            assert free is None and free_count(spans, low, width, slots) == float("inf")
            continue
        assert free.size == plain.size == free_count(spans, low, width, slots)
        assert np.array_equal(free[np.arange(plain.size, dtype=np.int64)], plain)
        if plain.size:
            picked = np.array(r.sample(range(plain.size), min(plain.size, 30)), dtype=np.int64)
            assert np.array_equal(free[picked], plain[picked])
