"""What is left of a cell whose worker died or was killed in a call: the call it was on (read from its
in-flight slot) as a CRASH record, in the cell's result, and how the process ended."""
from __future__ import annotations

import signal
from typing import Any

from oracle.spec import Rulebook

from conformance.generate.cells import Cell
from conformance.judge.cell_result import CellResult


def exit_text(code: int | None) -> str:
    """How a worker process ended: 'was killed by SIGKILL', 'exited with status 1'."""
    if code is not None and code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with status {code}"


def crash_record(cell: Cell, flight: dict[str, Any] | None, message: str, verdict: str = "CRASH",
                  readings: dict[str, str] | None = None, *, rulebook: Rulebook) -> dict[str, Any]:
    """The failure of a call a worker died on (or was killed in): reproducer data and CRASH (with the
    run's readings of the cell's api, which replay judges it by), its violations by the run's `rulebook`."""
    from oracle import Call, check
    violations: list[dict[str, Any]] = []
    if flight is None:
        flight = {"call": None, "memory": None, "expect": None, "rule": None}
        message += " (the call was too large to record)"
    else:
        try:
            violations = [v.__dict__ for v in check(Call.from_dict(flight["call"]), rulebook=rulebook)]
        except Exception:               # noqa: BLE001 - the record is the kit's own; a failure here is not the backend's
            violations = []
    record = {"cell": cell.id, "verdict": verdict, "message": message,
              "expect": flight["expect"], "rule": flight["rule"],
              "violations": violations, "call": flight["call"], "memory": flight["memory"], "diff": None}
    own = {a.id for a in rulebook.api(cell.api).ambiguities}
    kept = {amb: reading for amb, reading in (readings or {}).items() if amb in own}
    if kept:
        record["readings"] = kept
    return record


def in_flight_crash(cell: Cell, flight: Any, how: str, against: str | None = None,
                    readings: dict[str, str] | None = None, *, rulebook: Rulebook) -> dict[str, Any]:
    """The failure record of the call a lost worker was in (`flight`: its slot's in_flight(), a call or one
    too large to record; `how`: how the worker ended): a CRASH, or a DIVERGE where the call was to the
    backend held against the one under test (`against`: that backend's name)."""
    where = "" if len(flight.calls) <= 1 else f" (the first of a batch of {len(flight.calls)} calls)"
    message = f"{how} (during this call{where})"
    if against is not None:             # the backend it is held against died: the two part there
        message = f"{against}, held against: {message}"
    return crash_record(cell, flight.calls[0] if flight.calls else None, message,
                        "DIVERGE" if against is not None else "CRASH", readings, rulebook=rulebook)


def attach_failure(result: CellResult, record: dict[str, Any]) -> None:
    """A failure record in its cell's result: as its divergence (a DIVERGE) or its failure."""
    if record["verdict"] == "DIVERGE":
        result.divergence = record
    else:
        result.failure = record
