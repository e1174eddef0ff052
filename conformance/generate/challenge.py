"""A challenge: a value the receiver of a certification picks, from which every seed of the run and the
bytes of its memory images derive (`--challenge-file FILE`, `ASCEND_CONFORMANCE_CHALLENGE`), so that no
backend can recognise the memory and the calls or replay answers it memorised.

Without one, a certification's calls and memory are fixed (the frozen list, seed 0, the published random
pool), which is what makes two certifications comparable and also what a backend could learn. Under a
challenge the frozen cases keep their parameters (they reach the edges) but run on memory from a pool
derived from the challenge, and the property-based pass is drawn from a seed derived from it.

What a run records is the challenge's SHA-256, never the challenge: the report folder is written while
the backend runs, and a backend that read the challenge there could derive the pool.
"""
from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass
from typing import Any, Iterable

MIN_BYTES = 16                  # a challenge a backend cannot guess: 128 bits at least
MAX_BYTES = 64
ENV = "ASCEND_CONFORMANCE_CHALLENGE"    # where a challenge may be given instead of the command line


class ChallengeError(ValueError):
    """A challenge that is not what the kit takes; the message says why, in one line."""


@dataclass(frozen=True)
class Challenge:
    secret: bytes

    @classmethod
    def parse(cls, text: str) -> "Challenge":
        """From hex digits (MIN_BYTES to MAX_BYTES bytes); ChallengeError otherwise."""
        text = text.strip().lower().removeprefix("0x")
        if not re.fullmatch(r"[0-9a-f]*", text) or len(text) % 2:
            raise ChallengeError("a challenge is an even number of hex digits (e.g. `openssl rand -hex 32`)")
        if not MIN_BYTES <= len(text) // 2 <= MAX_BYTES:
            raise ChallengeError(f"a challenge is {MIN_BYTES} to {MAX_BYTES} bytes ({2 * MIN_BYTES} to "
                                 f"{2 * MAX_BYTES} hex digits), got {len(text) // 2}")
        return cls(bytes.fromhex(text))

    @property
    def digest(self) -> str:
        """What results.json records: SHA-256 of the challenge's bytes (hex)."""
        return hashlib.sha256(self.secret).hexdigest()

    def _derived(self, label: str) -> int:
        return int.from_bytes(hmac.new(self.secret, label.encode(), hashlib.sha256).digest()[:8], "little")

    @property
    def seed(self) -> int:
        """The run seed of the property-based pass."""
        return self._derived("ascend-conformance run seed") % 2**32

    @property
    def pool(self) -> int:
        """The random pool the memory images are cut from (never 0, the published pool's key)."""
        return self._derived("ascend-conformance memory pool") or 1

    def __repr__(self) -> str:          # never the secret itself
        return f"Challenge(sha256={self.digest[:16]}...)"


def from_pool(cases: Iterable[Any], pool: int) -> list[Any]:
    """The cases with their images cut from the random pool `pool` (the same calls, the same values
    written before they run, other random bytes)."""
    from conformance.generate.case import Case
    if not pool:
        return list(cases)
    out = []
    for c in cases:
        twin = Case(c.call, c.memory.from_pool(pool), c.expect, c.rule, c.tags).with_blocks(c.blocks)
        if c.checked is not None:           # the same call checked on the same values: the same answer
            object.__setattr__(twin, "checked", c.checked)
        out.append(twin)
    return out


def redacted(argv: Iterable[str]) -> list[str]:
    """A command line as it may be recorded: the value of --challenge left out."""
    out, hide = [], False
    for word in argv:
        if hide:
            out.append("<challenge>")
            hide = False
        elif word == "--challenge":
            out.append(word)
            hide = True
        elif word.startswith("--challenge="):
            out.append("--challenge=<challenge>")
        else:
            out.append(word)
    return out
