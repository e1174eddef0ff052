"""The backend's coverage over a whole run (`--coverage`): every point its calls reached, the api whose
calls reached it, and the cell that reached it first; the calls that reached a point no earlier call
of the run reached (what `fuzz --coverage` keeps in its corpus).

A point is what the backend's replies name (conformance/judge/coverage_points.py): a hosted Python backend's
`path:line>line` arc, or an exec program's id, which the program's map file names
(docs/exec-protocol.md, Coverage)."""
from __future__ import annotations

from typing import Any


class CoverageRun:
    """The points of a run, gathered from its cells' results as they arrive."""

    def __init__(self) -> None:
        self.first: dict[Any, str] = {}         # point -> the cell that reached it first
        self.by_api: dict[str, set[Any]] = {}   # api -> the points its calls reached
        self.map: str | None = None             # an exec program's map file, where it named one

    def __bool__(self) -> bool:
        return bool(self.first)

    def add(self, cell_id: str, reached: Any) -> list[dict[str, Any]]:
        """A cell's `coverage` (its result's field) counted; the calls it kept that reached a point no
        earlier call of the run reached, each with those points."""
        if not isinstance(reached, dict) or not isinstance(reached.get("points"), list):
            return []
        if isinstance(reached.get("map"), str):
            self.map = reached["map"]
        new_calls = []
        for kept in reached.get("keepers") or []:
            fresh = [p for p in kept.get("points") or () if p not in self.first]
            if fresh:
                new_calls.append({**kept, "points": fresh})
                self.first.update(dict.fromkeys(fresh, cell_id))
        points = [p for p in reached["points"] if isinstance(p, (int, str))]
        for p in points:
            self.first.setdefault(p, cell_id)
        self.by_api.setdefault(cell_id.split("/", 1)[0], set()).update(points)
        return new_calls

    def first_cells(self, file_of: Any) -> dict[str, str]:
        """file -> the cell that first reached a point of it (`file_of`: a point's file, or None)."""
        out: dict[str, str] = {}
        for point, cell in self.first.items():
            name = file_of(point)
            if name is not None:
                out.setdefault(name, cell)
        return out


def point_file(point: Any) -> str | None:
    """The file of a hosted Python backend's point (`path:line>line`)."""
    return point.rsplit(":", 1)[0] if isinstance(point, str) and ":" in point else None


def arc_of(point: Any) -> tuple[str, int, int] | None:
    """(path, from line, to line) of a hosted Python backend's point, None for anything else."""
    if not isinstance(point, str) or ":" not in point:
        return None
    path, arc = point.rsplit(":", 1)
    first, _, second = arc.partition(">")
    try:
        return path, int(first), int(second)
    except ValueError:
        return None


def coverage_view(summary: Any, apis: list[str]) -> dict[str, Any] | None:
    """What the HTML shows of results.json's `coverage` (a summary of write_coverage; None where the run
    had none). Read as untrusted: a field of another shape shows as nothing."""
    if not isinstance(summary, dict):
        return None

    def row(name: str, data: Any) -> dict[str, Any] | None:
        if not isinstance(data, dict):
            return None
        pair = [data.get(k) if _pair(data.get(k)) else [0, 0] for k in ("lines", "branches")]
        never = [n for n in data.get("never_entered") or [] if isinstance(n, str)]
        return {"api": name, "lines": pair[0], "branches": pair[1], "never": never}

    by_api = summary.get("apis") if isinstance(summary.get("apis"), dict) else {}
    rows = [r for api in apis if (r := row(api, by_api.get(api))) is not None]
    first = summary.get("first_cell") if isinstance(summary.get("first_cell"), dict) else {}
    return {"kind": "an exec program's points" if summary.get("kind") == "program" else "coverage.py",
            "apis": rows, "total": row("the whole run", summary.get("total")),
            "first": sorted((f, c) for f, c in first.items() if isinstance(c, str)),
            "written": [w for w in summary.get("written") or [] if isinstance(w, str)]}


def _pair(value: Any) -> bool:
    return isinstance(value, list) and len(value) == 2 and all(type(v) is int and v >= 0 for v in value)
