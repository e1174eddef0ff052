"""Run profiles: how hard each cell is searched. Chosen so that, on one core:

    quick    25 calls per cell   a smoke test in seconds
    ci      120 calls per cell   the certification default: over a product's cells every range end
                                 that fits a scope is reached (tests/test_strategies.py checks it)
   nightly 2500 calls per cell   long fuzzing runs

A cell that finds a non-conforming call stops there and shrinks it to a minimal reproducer.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Profile:
    name: str
    calls: int               # calls generated per cell (before shrinking)
    gm_window: int = 4 << 20 # bytes of GM the generators may place operands in
    target: bool = False     # steer the search towards calls on more boundaries at once (fuzz)


PROFILES = {
    "quick": Profile("quick", 25),
    "ci": Profile("ci", 120),
    "nightly": Profile("nightly", 2500),
}


def profile(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown profile {name!r} (known: {', '.join(PROFILES)})") from None
