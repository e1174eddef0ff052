"""The generated `Case`: a call, the memory it runs on, and what the oracle says a backend must do with it
(one of EXPECTATIONS, a cell's: Cell.expect)."""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from oracle import Call
from oracle.spec import Rulebook

from conformance.generate.memory import MemoryRecipe

EXPECTATIONS = ("legal", "reject", "undefined", "ambiguity")    # what a cell's calls are (Case.expect)


@dataclass(frozen=True, repr=False)
class Case:
    """A generated call, the memory it runs on, and what the oracle says a backend must do with it."""

    call: Call
    memory: MemoryRecipe
    expect: str                      # "legal" | "reject" | "undefined" | "ambiguity"
    rule: str | None = None          # the one rule a reject/undefined case was made to break (the
                                     # ambiguity whose region an "ambiguity" case lies in)
    tags: tuple[str, ...] = ()       # boundaries the case reaches, e.g. "burst=largest-fit"
    # The generator's own check of the call: (the rulebook, the violations it found), which the judge
    # takes instead of checking the same call on the same memory by the same rulebook again. Not an init
    # field: a case made from another's call (minimize) does not inherit it, nor does a repr show it.
    checked: Any = field(default=None, init=False, compare=False, repr=False)
    # The blocks of bytes Hypothesis drew that made this case (picks.Searched), where a search drew it:
    # the case's own choices, from which the runner shrinks it alone (runner.shrink_alone).
    blocks: tuple[bytes, ...] = field(default=(), init=False, compare=False, repr=False)

    @functools.cached_property
    def key(self) -> tuple[str, tuple[Any, ...]]:
        """What makes the case the one it is: its call and the values written before it runs (its images'
        random bytes follow from the call). A search judges a key once (runner.run_cell, Cell.draw): each
        round's first call is the simplest one, and other bytes can make the same call."""
        return self.call.to_json(), self._writes()

    def with_text(self, text: str) -> "Case":
        """This case, its key made from its call's JSON text (the generator has it: the memory seed)."""
        self.__dict__["key"] = (text, self._writes())        # as cached_property stores it
        return self

    def _writes(self) -> tuple[Any, ...]:
        # a key is only ever compared inside one process (a search's set)
        return tuple((w.scope, w.addr, w.dtype, Written(w.data)) for w in self.memory.writes)

    def __repr__(self) -> str:
        """Short: Hypothesis shows the failing case's repr, and a call's offsets and images run to megabytes."""
        text = self.call.to_json()
        return f"Case({self.expect}{' ' + self.rule if self.rule else ''}: {text[:200]}{'...' if len(text) > 200 else ''})"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """The same short text where Hypothesis's pretty-printer shows the case (it walks a dataclass's fields)."""
        printer.text(repr(self))

    def with_blocks(self, blocks: Sequence[bytes]) -> "Case":
        """This case, carrying the blocks of bytes that made it (set once, as the case is made)."""
        object.__setattr__(self, "blocks", tuple(blocks))
        return self

    def with_check(self, rulebook: Rulebook, violations: Any) -> "Case":
        """This case, carrying the generator's check of it (set once, as the case is made)."""
        object.__setattr__(self, "checked", (rulebook, tuple(violations)))
        return self


class Written:
    """The bytes of a write as part of a case's key: equal to another's exactly where the bytes are, and
    hashed by their count and their first and last KEY_BYTES: Scatter's offsets fill most of UB in a large
    call, and a digest of them all cost more than drawing a small call. Two writes of one size that begin
    and end alike (one offset moved) are told apart by their bytes, compared only then."""

    __slots__ = ("data", "_hash")

    def __init__(self, data: np.ndarray):
        self.data = data
        self._hash = hash((data.size, data[:KEY_BYTES].tobytes(), data[-KEY_BYTES:].tobytes()))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Written) and self._hash == other._hash
                and (self.data is other.data or bool(np.array_equal(self.data, other.data))))


KEY_BYTES = 256
