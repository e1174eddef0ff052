"""How the tests' simulators read a mask (the mask pages, not the oracle), and the two ways a simulator
misreads it: each returns which of an iteration's `per` elements the mask selects."""
from __future__ import annotations

from typing import Sequence

import numpy as np


def bit_mode(words: Sequence[int], per: int, reversed_bits: bool = False) -> np.ndarray:
    """Bit mode: element k is bit k % 64 of word k // 64 (`reversed_bits`: bit 63 - k % 64, a bug)."""
    words = [int(w) for w in words]             # Python ints: a word may use all 64 bits
    bit = (lambda k: 63 - k % 64) if reversed_bits else (lambda k: k % 64)
    return np.array([k // 64 < len(words) and (words[k // 64] >> bit(k)) & 1 for k in range(per)], dtype=bool)


def count_mode(mask: int, per: int) -> np.ndarray:
    """Count mode: the first `mask` elements."""
    return np.arange(per) < mask


def count_read_as_bits(mask: int, per: int) -> np.ndarray:
    """A bug: the count mode's integer read as one word of bits."""
    mask = int(mask)
    return np.array([(mask >> k) & 1 if k < 64 else 0 for k in range(per)], dtype=bool)
