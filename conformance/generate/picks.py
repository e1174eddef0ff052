"""How a drawing step chooses: every choice goes through `Picks` (a Hypothesis draw while searching, a
planned value in the edge sweep), and a bounded value is taken at its minimum, its maximum or in between."""
from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

from hypothesis import strategies as st




Draw = Callable[[st.SearchStrategy[Any]], Any]


# How a bounded value is picked: one time in four its minimum, one in four its maximum (or largest fit).
# Hypothesis cannot shrink a failure found at "max" down to a small "any" value (two choices would have
# to change at once); conformance.judge.minimize finishes that job on the failing call itself. The value is
# drawn only for "any": an end costs one choice.
_HOW = st.sampled_from(("min", "any", "any", "max"))
# Strategies are immutable and Hypothesis validates each new one on first draw: reuse them.
_integers = functools.lru_cache(maxsize=1 << 14)(st.integers)
_BOOLEANS = st.booleans()


@functools.lru_cache(maxsize=1 << 12)
def _one_of(values: tuple) -> st.SearchStrategy[Any]:
    return st.sampled_from(values)


class Picks:
    """Where the choices of one call come from. `Searched` asks Hypothesis (the random search, which
    shrinks); a sweep (conformance/generate/edges.py) answers from a plan, the same on every run. Each choice
    carries a label naming what it decides (a parameter, a gap, a dtype...) so that a plan can steer it;
    Hypothesis ignores the labels."""

    def integer(self, lo: int, hi: int, label: str = "") -> int:
        raise NotImplementedError

    def choice(self, values: Sequence[Any], label: str = "") -> Any:
        raise NotImplementedError

    def boolean(self, label: str = "") -> bool:
        raise NotImplementedError

    def how(self, label: str = "") -> str:
        """"min", "any" or "max": where in its interval a bounded value goes."""
        raise NotImplementedError


class Searched(Picks):
    """Choices drawn by Hypothesis: one draw per choice, as cheap strategies reused (see _integers)."""

    def __init__(self, draw: Draw):
        self.draw = draw

    def integer(self, lo: int, hi: int, label: str = "") -> int:
        return self.draw(_integers(lo, hi))

    def choice(self, values: Sequence[Any], label: str = "") -> Any:
        return self.draw(_one_of(tuple(values)))

    def boolean(self, label: str = "") -> bool:
        return self.draw(_BOOLEANS)

    def how(self, label: str = "") -> str:
        return self.draw(_HOW)


def rotated(pick: Picks, values: Sequence[Any], label: str = "order") -> list[Any]:
    """`values` starting at a drawn position: each one can come first and each one last, for one choice
    (a full permutation costs one per value, and every choice costs Hypothesis ~70 us)."""
    if len(values) < 2:
        return list(values)
    k = pick.integer(0, len(values) - 1, label)
    return [*values[k:], *values[:k]]


def pick_between(pick: Picks, lo: int, hi: int, label: str = "") -> tuple[int, str]:
    """A value in [lo, hi], drawn so that both ends come up often (see _HOW for how it shrinks)."""
    if lo == hi:
        return lo, "min"
    return pick_as(pick, pick.how(label), lo, hi, label)


def pick_as(pick: Picks, how: str, lo: int, hi: int, label: str = "") -> tuple[int, str]:
    if how == "min":
        return lo, "min"
    if how == "max":
        return hi, "max"
    value = pick.integer(lo, hi, label)
    return value, ("min" if value == lo else "max" if value == hi else "any")
