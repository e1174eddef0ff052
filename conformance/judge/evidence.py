"""Evidence: for every call judged, what the backend answered, kept so that a receiver can re-check a
verdict without the backend (`ascend-conformance verify`) and check, by running a sample of the calls on
it, that a bundle describes the artefact it names.

Each judged call leaves one entry, `<call> <answer>`:

- `<call>`: the first 16 hex digits of the SHA-256 of the call's JSON text and its memory recipe (seed,
  pool, sizes, and where values are written before it runs, with their first and last bytes), binding
  the answer to the call re-derived;
- `<answer>`: `=` when every defined byte of every scope after the call is the oracle's (a passing call;
  the bytes are what the receiver's own oracle computes, so their digest would add nothing),
  `sha256:<hex>` of the defined bytes of every scope otherwise (scopes in name order, each its name then
  its defined bytes; every byte of a call that must be refused), `refused` or `refused:<rule>`, `crash`.

A cell's entries are in the order the calls were judged (kept cases, edge sweep, search, shrinking).
"""
from __future__ import annotations

import hashlib
from typing import Any, Callable

import numpy as np

EQUAL = "="
CRASHED = "crash"
REFUSED = "refused"
SAMPLED = 256                   # bytes of each end of a write that a call's digest covers

_recording: list[str] | None = None
_keep: Callable[[int], bool] | None = None
_kept: list[tuple[int, Any]] = []


def start() -> None:
    """Record the answers of the calls judged from now on in this process (a cell's run)."""
    global _recording, _kept
    _recording, _kept = [], []


def sampling(keep: Callable[[int], bool] | None) -> None:
    """From now on, keep the case of the i-th call of each recording where `keep(i)` (`kept`); None: none."""
    global _keep
    _keep = keep


def take() -> list[str]:
    """The entries recorded since `start`, and recording off."""
    global _recording
    taken, _recording = _recording or [], None
    return taken


def kept() -> list[tuple[int, Any]]:
    """(index, case) of the calls of the last recording that `sampling`'s `keep` picked."""
    return list(_kept)


def note(case: Any, outcome: Any) -> None:
    if _recording is not None:
        if _keep is not None and _keep(len(_recording)):
            _kept.append((len(_recording), case))
        _recording.append(f"{call_digest(case)} {getattr(outcome, 'answer', '') or CRASHED}")


def call_digest(case: Any) -> str:
    """The call as the evidence names it (see the module's docstring)."""
    recipe = case.memory
    h = hashlib.sha256(case.key[0].encode())        # the call's JSON text, as the case keeps it
    h.update(f"|{recipe.seed}|{recipe.pool}|{sorted(recipe.sizes.items())}".encode())
    for w in recipe.writes:         # where the values lie, how many, and their first and last bytes: the
        data = w.data               # values follow from the call drawn, which the receiver draws again
        h.update(f"|{w.scope}|{w.addr}|{w.dtype}|{data.size}|".encode())
        h.update(data[:SAMPLED].tobytes() + data[-SAMPLED:].tobytes())
    return h.hexdigest()[:16]


def refusal(rule: str | None) -> str:
    return f"{REFUSED}:{rule}" if rule else REFUSED


def defined_digest(memory: dict[str, np.ndarray], defined: dict[str, np.ndarray] | None) -> str:
    """`sha256:<hex>` of the defined bytes of every scope (every byte where `defined` is None)."""
    h = hashlib.sha256()
    for scope in sorted(memory):
        image = np.asarray(memory[scope])
        h.update(scope.encode() + b"\0")
        mask = None if defined is None else defined.get(scope)
        if mask is None or (mask.strides == (0,) and (not mask.size or bool(mask[0]))):
            h.update(np.ascontiguousarray(image).tobytes())
        else:
            h.update(image[mask].tobytes())
    return "sha256:" + h.hexdigest()


def ran_answer(memory: dict[str, np.ndarray], want: Any, equal: bool) -> str:
    """The answer of a call the backend ran: `=` where its images equal the oracle's on every defined byte
    (`equal`, as the caller compared them), the digest otherwise (of every byte where there is no
    expected image: a call that must be refused)."""
    if want is None:
        return defined_digest(memory, None)
    return EQUAL if equal else defined_digest(memory, want.defined)


def parse(entry: Any) -> tuple[str, str]:
    """(call digest, answer) of an entry; ValueError for anything else."""
    if not isinstance(entry, str):
        raise ValueError("an entry is a string")
    call, _, answer = entry.partition(" ")
    if len(call) != 16 or any(c not in "0123456789abcdef" for c in call):
        raise ValueError(f"{entry[:40]!r}: the call's digest is 16 hex digits")
    if not (answer in (EQUAL, CRASHED, REFUSED) or answer.startswith(REFUSED + ":")
            or (answer.startswith("sha256:") and len(answer) == 71)):
        raise ValueError(f"{entry[:80]!r}: not an answer the kit records")
    return call, answer
