"""What judging one cell came to (CellResult), as a worker sends it and results.json keeps it, and when a
cell that ran to its end still cannot conform (incomplete_reason)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence


@dataclass
class CellResult:
    cell: dict[str, Any]
    status: str = "ran"                 # ran | not_supported | unreachable | error
    counts: dict[str, int] = field(default_factory=dict)          # verdict -> calls
    by_dtype: dict[str, dict[str, int]] = field(default_factory=dict)
    tags: dict[str, int] = field(default_factory=dict)            # boundary reached -> calls
    planned_calls: int | None = None    # calls the cell set out to judge: frozen, sweep, the search's budget
    exhausted: bool = False             # the search found every distinct call it could: fewer is complete
    incomplete: str | None = None       # why the cell judged less than it planned (None: it did not)
    frozen_calls: int = 0               # of the counted calls, those from the frozen case list (certify)
    sweep_calls: int = 0                # of the counted calls, those of the edge sweep (conformance/generate/edges.py)
    edges: dict[str, list[str]] = field(default_factory=dict)   # {"reachable": [tag...], "missed": [tag...]}
    shrink_calls: int = 0
    failure: dict[str, Any] | None = None
    error: str | None = None
    seconds: float = 0.0
    agreement: dict[str, int] = field(default_factory=dict)       # under --against: AGREE/DIVERGE -> calls
    divergence: dict[str, Any] | None = None                      # the (shrunk) call the two parted on
    evidence: dict[str, Any] | None = None      # {"shrink_stopped", "entries"}: what the backend answered
    coverage: dict[str, Any] | None = None      # {"points", "keepers"[, "map"]}: see judge/coverage_points.py

    @property
    def id(self) -> str:
        return self.cell["id"]

    @property
    def conforms(self) -> bool:
        return self.failure is None and self.incomplete is None and self.status in ("ran", "not_supported",
                                                                                      "unreachable")

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, **self.__dict__}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "CellResult":
        return cls(**{k: v for k, v in data.items() if k != "id"})


def incomplete_reason(status: str, stopped: bool, planned: int | None, judged: int, exhausted: bool,
                      missed: Sequence[str]) -> str | None:
    """Why a cell that ran to its end cannot count as conforming: it judged fewer calls than it planned
    (frozen cases, edge sweep, the search's budget) though the search had not run out of distinct calls,
    or its edge sweep left edges unreached. None when neither, and for a cell stopped by what it found
    (a failure, a divergence: that is its verdict) or one that did not run (not supported, unreachable,
    in error: its status says so)."""
    if status != "ran" or stopped:
        return None
    why = []
    if planned is not None and judged < planned and not exhausted:
        why.append(f"judged {judged} of {planned} planned calls")
    if missed:
        why.append(f"edges missed: {', '.join(missed)}")
    return "; ".join(why) or None
