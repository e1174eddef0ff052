"""Run profiles: how hard each cell is searched. Chosen so that, on one core:

    quick    25 calls per cell   a smoke test in seconds
    ci      120 calls per cell   the certification default, after the cell's edge sweep: every edge
                                 its rules define that a call can reach, the same calls on every run
                                 (conformance/generate/edges.py; tests/generate/test_edges.py checks it)
   nightly 2500 calls per cell   long fuzzing runs, after the same sweep

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
    sweep: bool = False      # judge the cell's edge sweep (conformance/generate/edges.py) before the search


PROFILES = {
    "quick": Profile("quick", 25),
    "ci": Profile("ci", 120, sweep=True),
    "nightly": Profile("nightly", 2500, sweep=True),
}


def profile(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown profile {name!r} (known: {', '.join(PROFILES)})") from None
