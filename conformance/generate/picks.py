"""How a drawing step chooses: every choice goes through `Picks` (bytes Hypothesis draws while searching, a
planned value in the edge sweep), and a bounded value is taken at its minimum, its maximum or in between."""
from __future__ import annotations

import random
from typing import Any, Callable, Mapping, Sequence

from hypothesis import strategies as st
from hypothesis.internal.conjecture.data import ConjectureData

from conformance.generate.blocks import direct_bytes

Draw = Callable[[st.SearchStrategy[Any]], Any]


# How a bounded value is picked: one time in four its minimum, one in four its maximum (or largest fit).
# Hypothesis cannot shrink a failure found at "max" down to a small "any" value (the value's bytes are
# only read for "any"); conformance.judge.minimize finishes that job on the failing call itself.
_HOW = ("min", "any", "any", "max")
# Bytes Hypothesis draws for a call at a time: one draw serves a dozen choices or more (data_move's call
# reads 30-50 bytes). A Hypothesis draw costs engine time many times what decoding a choice does.
BLOCK = 64
_BLOCK = st.binary(min_size=BLOCK, max_size=BLOCK)
_BLOCK_CONSTRAINTS = {"min_size": BLOCK, "max_size": BLOCK}


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

    def between(self, lo: int, hi: int, label: str = "") -> tuple[int, str]:
        """A value in [lo, hi] whose ends come up often, and where it went (pick_between)."""
        return pick_between(self, lo, hi, label)


class Searched(Picks):
    """Choices read from blocks of bytes that Hypothesis draws, the way its engine read them before it
    recorded typed choices: each choice takes whole bytes of its own, and its value is those bytes (read
    as one number) modulo the number of values, with 8 bits to spare (a bias under 1/256). A byte
    Hypothesis shrinks to zero makes its choice the simplest one (the first value, the minimum, "min",
    False), and bytes past the end read as zeros. Why bytes: a call makes 20-30 choices, and one
    Hypothesis draw per choice was most of a call's cost."""

    def __init__(self, draw: Draw):
        self.draw = draw
        self.block, self.at = b"", 0
        self.blocks: list[bytes] = []       # every block drawn, in order: the choices of the call

    def _number(self, width: int) -> int:
        at = self.at
        if at + width > len(self.block):
            self.blocks.append(next_block(self.draw))
            self.block = self.block[at:] + self.blocks[-1]
            at = 0
        self.at = at + width
        return self.block[at] if width == 1 else int.from_bytes(self.block[at:at + width], "big")

    def integer(self, lo: int, hi: int, label: str = "") -> int:
        if lo == hi:
            return lo
        if lo > hi:
            raise ValueError(f"no integer in [{lo}, {hi}] ({label})")
        span = hi - lo + 1
        bits = (span - 1).bit_length()
        scale = self._number(1)
        if scale >= 128 and bits > 1:     # half the time a small value, as Hypothesis's integers() favour
            span = min(span, 1 << ((scale - 128) % bits))
        return lo + self._number(_spare_width(bits)) % span

    def index(self, n: int) -> int:
        """An index into n values, uniform (n <= 256 reads one byte when 256 % n == 0)."""
        return self._number(1 if 256 % n == 0 else _spare_width((n - 1).bit_length())) % n

    def choice(self, values: Sequence[Any], label: str = "") -> Any:
        return values[self.index(len(values))] if len(values) > 1 else values[0]

    def boolean(self, label: str = "") -> bool:
        return bool(self._number(1) & 1)

    def how(self, label: str = "") -> str:
        return _HOW[self._number(1) & 3]


class Planned(Picks):
    """Choices from a plan (the edge sweep's, conformance/generate/edges.py): a planned label gets its
    value ("min" / "max" / "first" / "last" or the value itself: an int for a bounded value means "any",
    that one); the rest come from a Random seeded by the plan, with bounded values at their minimum and
    booleans False (small calls that fit, so the planned choices decide), or, `loose`, anywhere (for cells
    whose calls cannot all be small: a bounds rule needs a call that moves something)."""

    def __init__(self, plan: Mapping[str, Any], salt: int, loose: bool = False):
        self.plan, self.rng, self.loose = plan, random.Random(salt), loose
        self.varied = False     # has the Random answered a choice that had more than one answer?

    def integer(self, lo: int, hi: int, label: str = "") -> int:
        want = self.plan.get(label)
        if want == "min":
            return lo
        if want == "max":
            return hi
        if isinstance(want, int) and not isinstance(want, bool) and lo <= want <= hi:
            return want
        self.varied |= lo < hi
        return self.rng.randint(lo, hi)

    def choice(self, values: Sequence[Any], label: str = "") -> Any:
        want = self.plan.get(label)
        if want is not None and want in values:
            return want
        if want == "first":
            return values[0]
        if want == "last":
            return values[-1]
        self.varied |= len(values) > 1
        return values[self.rng.randrange(len(values))]

    def boolean(self, label: str = "") -> bool:
        want = self.plan.get(label)
        if isinstance(want, bool):
            return want
        self.varied |= self.loose
        return self.loose and self.rng.random() < 0.5

    def how(self, label: str = "") -> str:
        want = self.plan.get(label)
        if isinstance(want, int) and not isinstance(want, bool):
            return "any"
        if want in ("min", "any", "max"):
            return want
        self.varied |= self.loose
        return self.rng.choice(("min", "any", "any", "max")) if self.loose else "min"


def next_block(draw: Draw) -> bytes:
    """One block of bytes from Hypothesis, as Searched reads them: the bytes choice `binary` makes, drawn
    from the example's data itself where `draw` is its bound method (st.composite hands it so), without
    the span a strategy opens around it. Hypothesis's mutator copies a span over another of the same kind:
    with a span per block, it ran every example again with one block copied, and of its 16 calls 14 or
    15 were ones drawn and judged already (half of a search's examples). Spans gone, it finds none to
    copy; the shrinker works on the choices all the same."""
    data = getattr(draw, "__self__", None)
    if isinstance(data, ConjectureData) and direct_bytes():     # draw_bytes less its asserts and its
        return data._draw("bytes", _BLOCK_CONSTRAINTS, observe=True, forced=None)   # constraints' look-up
    raw = getattr(data, "draw_bytes", None)
    return raw(BLOCK, BLOCK) if raw is not None else draw(_BLOCK)


def _spare_width(bits: int) -> int:
    """Bytes that hold a value of `bits` bits with 8 to spare (a modulo's bias under 1/256)."""
    return (bits + 15) // 8


def rotated(pick: Picks, values: Sequence[Any], label: str = "order") -> list[Any]:
    """`values` starting at a drawn position: each one can come first and each one last, for one choice
    (a full permutation costs one per value)."""
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
