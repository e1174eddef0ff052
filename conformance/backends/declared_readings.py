"""The readings a run declares (README, "Readings"): the backend's own `readings`
attribute (ambiguity id -> reading id; an exec program's in its hello), overridden ambiguity by ambiguity
by the command line (`--reading A=R`, `--readings FILE`). Resolved where the backend is loaded (a
supervised worker), never in the process that holds the results; checked against the specs there, so an
unknown ambiguity or reading is a load error naming it and who declared it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from oracle.spec import SEED, Rulebook

from conformance.backends.calling import backend_text, call_backend, forget_traceback
from conformance.backends.contract import BackendLoadError

BACKEND, COMMAND_LINE, REPRODUCER = "backend", "command line", "reproducer"   # who declared a reading
EDITION = "edition"     # "edition 2026": the reading that edition of the pages settles on


@dataclass(frozen=True)
class Declared:
    """The run's readings: ambiguity id -> reading id, who declared each, and the rulebook that judges by
    them (the run's own where none is declared)."""

    readings: dict[str, str]
    by: dict[str, str]
    rulebook: Rulebook

    def described(self) -> dict[str, dict[str, str]]:
        """What a worker's "ready" message carries (described["readings"], described["readings_by"])."""
        return {"readings": dict(self.readings), "readings_by": dict(self.by)}


def backend_readings(backend: Any, spec: str) -> dict[str, str]:
    """The backend's `readings` attribute as a plain dict of strings (none: {}); anything else is a
    BackendLoadError naming the backend. Read as untrusted code: whatever reading it raises is its own."""
    value, raised = call_backend(getattr, backend, "readings", None)
    if raised is not None:
        message = f"backend {spec!r}: reading its 'readings' raised {type(raised).__name__}: {backend_text(raised)}"
        forget_traceback(raised)
        raise BackendLoadError(message)
    if value is None:
        return {}
    items, raised = call_backend(lambda: [(k, v) for k, v in dict(value).items()])
    if raised is not None or not all(type(k) is str and type(v) is str for k, v in items):
        forget_traceback(raised)
        raise BackendLoadError(f"backend {spec!r}: 'readings' must map ambiguity ids to reading ids (strings), "
                               f"got {backend_text(repr(value))[:200]}")
    return dict(items)


def declare(backend: Any, spec: str, command_line: Mapping[str, str] | None = None, *, rulebook: Rulebook,
            recorded: Mapping[str, str] | None = None, edition: str | None = None) -> Declared:
    """The run's readings: the backend's, overridden by those a reproducer recorded (`replay`), overridden
    by the command line's; each checked against the specs of `rulebook` (BackendLoadError naming the
    ambiguity or reading, and who declared it), which judges by them. Under an `edition` of the pages, the
    ambiguities it settles are read as it settles them, and a declaration of another reading is a
    BackendLoadError: that edition leaves no choice there."""
    layers = [(BACKEND, backend_readings(backend, spec), f"backend {spec!r} declares"),
              (REPRODUCER, dict(recorded or {}), "the reproducer records"),
              (COMMAND_LINE, dict(command_line or {}), "--reading")]
    readings: dict[str, str] = {}
    by: dict[str, str] = {}
    for who, given, said in layers:
        for amb, reading in given.items():
            _known(rulebook, amb, reading, f"{said} {amb}={reading}")
            readings[amb], by[amb] = reading, who
    for amb, reading in _settled(rulebook, edition).items():
        if readings.get(amb, reading) != reading:
            raise BackendLoadError(backend_text(
                f"{by[amb]} declares {amb}={readings[amb]}, which the {edition} edition of the pages settles on "
                f"{reading}: drop that declaration, or judge by the seed pages (no --edition)")[:500])
        readings[amb], by[amb] = reading, f"{EDITION} {edition}"
    try:
        judged = rulebook.with_readings(readings)
    except ValueError as exc:           # a reading whose index math the oracle lacks
        raise BackendLoadError(f"readings: {exc}") from None
    return Declared(dict(sorted(readings.items())), dict(sorted(by.items())), judged)


def _settled(rulebook: Rulebook, edition: str | None) -> dict[str, str]:
    if edition is None:
        return {}
    try:
        return rulebook.settled(edition)
    except ValueError as exc:
        raise BackendLoadError(f"--edition: {exc}") from None


def edition_described(edition: str | None, rulebook: Rulebook) -> dict[str, Any]:
    """What a results document says of the pages it was judged by: the edition's name and, per API, the
    page of that edition the specs of `rulebook` quote."""
    name = edition or SEED
    return {"name": name, "pages": rulebook.edition_pages(name)}


def _known(rulebook: Rulebook, amb: str, reading: str, who: str) -> None:
    try:
        rulebook.readings({amb: reading})
    except ValueError as exc:
        raise BackendLoadError(f"{backend_text(who)[:300]}: {exc}") from None
