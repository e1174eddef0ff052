"""What is left of a cell whose worker died or was killed in a call: the call it was on (read from its
in-flight slot) as a CRASH record, and how the process ended."""
from __future__ import annotations

import signal
from typing import Any

from oracle.spec import Rulebook

from conformance.generate.cells import Cell


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
