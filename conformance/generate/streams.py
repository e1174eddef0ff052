"""The random stream an offset tensor's values are drawn from: numpy's `Generator(PCG64(seed))` for a seed
of 32 bits, the very same numbers, its starting state made here instead of by numpy's SeedSequence.

numpy seeds PCG64 through SeedSequence, whose hash is part of numpy's stream-compatibility promise: the
entropy words hashed into a pool of four 32-bit words, every word mixed into every other, and the state
words hashed out of the pool (numpy/random/bit_generator.pyx). Building a SeedSequence and a PCG64 for
each offset tensor costs more than drawing a small tensor's offsets; for one 32-bit word of entropy the
hash is a few dozen integer operations, done here, and one PCG64 per thread takes the state they give.
tests/generate/test_streams.py compares the streams with numpy's own on many seeds.
"""
from __future__ import annotations

import threading

import numpy as np

_M32, _M128 = (1 << 32) - 1, (1 << 128) - 1
_INIT_A, _MULT_A, _INIT_B, _MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R = 0xCA01F9DD, 0x4973F715
_PCG_MULT = (2549297995355413924 << 64) + 4865540595714422341     # PCG's 128-bit LCG multiplier


def _hash_constants(init: int, mult: int, n: int) -> list[tuple[int, int]]:
    """The (xor, multiplier) pairs SeedSequence's hash uses, in order: the multiplier steps the same way
    whatever is hashed, so its sequence is fixed."""
    out, h = [], init
    for _ in range(n):
        step = h * mult & _M32
        out.append((h, step))
        h = step
    return out


_HASH_A = _hash_constants(_INIT_A, _MULT_A, 4 + 12)     # four words into the pool, twelve mixes
_HASH_B = _hash_constants(_INIT_B, _MULT_B, 8)          # eight words out (four uint64)


def _hashed(value: int, constants: tuple[int, int]) -> int:
    x, m = constants
    value = (value ^ x) * m & _M32
    return value ^ value >> 16


_ZERO_WORDS = [_hashed(0, _HASH_A[i]) for i in range(4)]      # the pool past a single word of entropy
# every word of the pool mixed into every other, in SeedSequence's order: (source, destination, hash)
_MIXES = [(src, dst, *_HASH_A[4 + k]) for k, (src, dst) in
          enumerate((s, d) for s in range(4) for d in range(4) if s != d)]


def pcg64_start(seed: int) -> tuple[int, int]:
    """(state, increment) of `PCG64(seed)` for 0 <= seed < 2**32, as numpy's bit generator holds them."""
    x, m = _HASH_A[0]
    first = (seed ^ x) * m & _M32
    pool = [first ^ first >> 16, *_ZERO_WORDS[1:]]
    for src, dst, x, m in _MIXES:
        h = (pool[src] ^ x) * m & _M32
        h ^= h >> 16
        mixed = (_MIX_L * pool[dst] - _MIX_R * h) & _M32
        pool[dst] = mixed ^ mixed >> 16
    w = []
    for i, (x, m) in enumerate(_HASH_B):
        word = (pool[i & 3] ^ x) * m & _M32
        w.append(word ^ word >> 16)
    initstate = (w[0] | w[1] << 32) << 64 | w[2] | w[3] << 32
    inc = ((w[4] | w[5] << 32) << 64 | w[6] | w[7] << 32) << 1 & _M128 | 1
    return ((inc + initstate) * _PCG_MULT + inc) & _M128, inc      # two LCG steps from 0, initstate added


_LOCAL = threading.local()


def seeded(seed: int) -> np.random.Generator:
    """`Generator(PCG64(seed))` for 0 <= seed < 2**32 (the same numbers): this thread's one, set to the
    seed's start. It holds until the next call in the thread: an offset tensor is drawn from it whole
    before the next one is seeded."""
    state, inc = pcg64_start(seed)
    made = getattr(_LOCAL, "made", None)
    if made is None:
        bits = np.random.PCG64(0)
        made = _LOCAL.made = bits, np.random.Generator(bits)
    made[0].state = {"bit_generator": "PCG64", "state": {"state": state, "inc": inc},
                     "has_uint32": 0, "uinteger": 0}
    return made[1]
