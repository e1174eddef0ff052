"""How many of a bundle's calls `verify --backend` runs on the artefact, and what that sample can catch.

The sample is drawn at random when `verify` runs, without replacement, from the N calls the evidence
records. A backend whose answers differ from the recorded ones on a share `rate` of them (at least one
call) goes unseen only if every sampled call is one it answers as recorded: with K such calls and n
sampled, the chance of that is C(N-K, n) / C(N, n), never more than (1 - rate)^n. The default sample is
the n that makes (1 - rate)^n at most 1 - `confidence` for a backend wrong on 1% of the calls, caught with
probability 0.99: n = ceil(ln(0.01) / ln(0.99)) = 459 calls, whatever N (every call of a bundle with
fewer). The power printed is the exact one for the bundle's N, which is at least that.
"""
from __future__ import annotations

import math
import secrets
from dataclasses import dataclass

CONFIDENCE = 0.99       # the chance of catching ...
RATE = 0.01             # ... a backend whose answers differ on this share of the calls


@dataclass(frozen=True)
class Sample:
    """`size` of `total` calls; `rate`: the share of wrong answers the power is stated for; `power`: the
    chance that a backend wrong on that share is caught."""

    size: int
    total: int
    rate: float
    power: float

    def line(self, backend: str) -> str:
        share = f"{self.rate * 100:g}%"
        every = " (every call)" if self.size == self.total else ""
        return (f"sample: {self.size} of {self.total} calls run on {backend}{every}: a backend wrong on {share} "
                f"of calls would be caught with probability {_floor(self.power)}")

    def picks(self) -> set[int]:
        """The ordinals of the calls sampled, chosen now, from the system's randomness."""
        if self.size >= self.total:
            return set(range(self.total))
        chosen: set[int] = set()
        while len(chosen) < self.size:
            chosen.add(secrets.randbelow(self.total))
        return chosen


def _floor(power: float) -> str:
    """The power to 3 decimals, rounded down (never more than was achieved)."""
    return f"{math.floor(power * 1000) / 1000:.3f}"


def missed(total: int, wrong: int, size: int) -> float:
    """C(total - wrong, size) / C(total, size): the chance a sample of `size` holds none of `wrong` calls."""
    if size > total - wrong:
        return 0.0
    chance = 1.0
    for i in range(wrong):
        chance *= (total - size - i) / (total - i)
    return chance


def wrong_calls(total: int, rate: float) -> int:
    return max(1, math.ceil(rate * total - 1e-9))


def needed(confidence: float = CONFIDENCE, rate: float = RATE) -> int:
    """ceil(ln(1 - confidence) / ln(1 - rate)): the calls that catch a backend wrong on `rate` of them
    with probability `confidence`, drawn from however many."""
    if rate >= 1:
        return 1
    return max(1, math.ceil(math.log(1 - confidence) / math.log(1 - rate) - 1e-9))


def sized(total: int, confidence: float = CONFIDENCE, rate: float = RATE) -> Sample:
    """The sample that catches a backend wrong on `rate` of `total` calls with probability at least
    `confidence` (every call where the bundle has fewer than that needs)."""
    size = min(total, needed(confidence, rate))
    return Sample(size, total, rate, 1 - missed(total, wrong_calls(total, rate), size) if total else 1.0)


def shared(total: int, share: float, rate: float = RATE) -> Sample:
    """`--sample F`: that share of the calls (at least one), its power stated for `rate`."""
    size = min(total, max(1, math.ceil(share * total - 1e-9))) if total else 0
    return Sample(size, total, rate, 1 - missed(total, wrong_calls(total, rate), size) if total else 1.0)
