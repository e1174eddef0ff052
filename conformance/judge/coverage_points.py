"""The backend's coverage as a cell's calls report it (`--coverage`): which points of the backend's code
each call reached first, and the calls that reached some (the ones a fuzzing run may keep and breed).

The backend reports points as its replies carry them (ExecBackend.take_coverage: a hosted Python
backend's coverage.py arcs, an exec program's ids); a backend that reports none leaves no trace here.
Coverage never enters a verdict: it is read after the call is judged.
"""
from __future__ import annotations

from typing import Any

from conformance.judge.reproducers import case_fields

KEEPERS = 32            # calls kept per cell's task for the fuzzer to breed (the earliest ones)
MAX_POINTS = 1 << 17    # points recorded per cell's task: a backend naming ever new ones is not followed


class _Reached:
    def __init__(self) -> None:
        self.points: dict[Any, None] = {}       # in the order first reached
        self.keepers: list[dict[str, Any]] = []
        self.map: str | None = None
        self.reported = False


_cell: _Reached | None = None


def start() -> None:
    global _cell
    _cell = _Reached()


def note(cases: Any, backend: Any) -> None:
    """After judging `cases` (one call, or a batch): the points their replies named, attributed to the
    first of them."""
    take = getattr(backend, "take_coverage", None)
    if _cell is None or not callable(take):
        return
    points = take()
    _cell.map = getattr(backend, "coverage_map", None)
    if not points:
        return
    _cell.reported = True
    new = [p for p in dict.fromkeys(points) if p not in _cell.points][:MAX_POINTS - len(_cell.points)]
    if not new:
        return
    _cell.points.update(dict.fromkeys(new))
    if len(_cell.keepers) < KEEPERS:
        _cell.keepers.append({**case_fields(cases[0]), "points": new})


def count() -> int:
    """Points the cell's calls reached so far (0 where the backend reports none)."""
    return len(_cell.points) if _cell is not None else 0


def take() -> dict[str, Any] | None:
    """What the cell's calls reached (None where the backend reported nothing), and forget it."""
    global _cell
    done, _cell = _cell, None
    if done is None or not done.reported:
        return None
    out: dict[str, Any] = {"points": list(done.points), "keepers": done.keepers}
    if done.map:
        out["map"] = done.map
    return out
