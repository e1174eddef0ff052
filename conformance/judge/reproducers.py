"""What a reproducer holds: the fields of one non-conforming call (the call, the memory recipe, what the
generator meant it to be), built in one place for the runner, the worker's in-flight slot and the
failure database, and the file name it gets in a report folder."""
from __future__ import annotations

import re
from typing import Any

from oracle.spec import Rulebook

from conformance.generate.cells import Cell
from conformance.generate.case import Case
from conformance.judge.verdicts import Outcome

REPRO_FIELDS = ("cell", "verdict", "message", "expect", "rule", "readings", "call", "memory")


def declared_of(rulebook: Rulebook, api: str | None = None) -> dict[str, str]:
    """The readings a rulebook was given (ambiguity id -> reading id), of one api or all: what a
    reproducer records, so that `replay` judges its call by them."""
    specs = [rulebook.api(api)] if api else list(rulebook.apis.values())
    return {a.id: a.declared.id for spec in specs for a in spec.ambiguities if a.declared is not None}

def reproducer_name(cell_id: str, tag: str = "") -> str:
    """repro/<cell id with every run of odd characters as '__'>[.<tag>].yaml (tag: 'diverge' for the
    call two backends parted on, under --against). No separator, no '..': the name stays inside repro/
    whatever the id."""
    return "repro/" + re.sub(r"[^A-Za-z0-9_.-]+", "__", cell_id).lstrip(".") + (f".{tag}" if tag else "") + ".yaml"


def failure_record(cell: Cell, case: Case, outcome: Outcome, readings: dict[str, str] | None = None
                   ) -> dict[str, Any]:
    """What a reproducer holds of a non-conforming call (with the readings it was judged by, when any
    was declared); for a divergence (under --against), the verdict DIVERGE, the agreement's message and
    where the two images differ, and the tested backend's verdict."""
    record = {
        "cell": cell.id, "verdict": outcome.verdict.value, "message": outcome.message, **case_fields(case),
        "violations": [v.__dict__ for v in outcome.violations], "diff": outcome.diff,
    }
    if readings:
        record["readings"] = dict(readings)
    if outcome.key == "DIVERGE":
        agreement = outcome.agreement
        record.update(verdict="DIVERGE", message=agreement.message, diff=agreement.diff,
                      tested_verdict=outcome.verdict.value, versus_oracle=outcome.versus_oracle)
    return record


def case_fields(case: Case) -> dict[str, Any]:
    """The fields of a reproducer that come from the case itself, before any verdict."""
    return {"call": case.call.to_dict(), **fields_but_call(case)}


def fields_but_call(case: Case, write: Any = None) -> dict[str, Any]:
    """case_fields less the call (`write`: how a write of its memory is given, MemoryRecipe.to_dict's by
    default)."""
    memory = case.memory.to_dict() if write is None else case.memory.to_dict(write)
    return {"memory": memory, "expect": case.expect, "rule": case.rule}
