"""The fuzzing corpus (`fuzz --coverage`): calls that reached code of the backend no earlier call of
their run had reached, kept per cell in the failure database's store (a local directory, or Redis), so
that the next night's run, and every shard of it, starts from them and breeds them
(conformance/generate/breed.py). An entry is the plain data of a call: call, memory recipe, expect,
rule, as a reproducer holds them, and the points of the backend it reached first; nothing of a verdict."""
from __future__ import annotations

import json
from typing import Any, Iterable

from hypothesis.database import ExampleDatabase

from oracle import Call, CallFormatError

from conformance.generate.memory import MemoryRecipe

PREFIX = b"ascend-conformance/corpus/"
FIELDS = ("call", "memory", "expect", "rule", "points")
MAX_PER_CELL = 256          # entries read back per cell (the earliest in the store's order)


def keep(db: ExampleDatabase, cell_id: str, entry: dict[str, Any]) -> None:
    """Keep a call under its cell (the same call kept twice is one entry)."""
    body = {k: entry.get(k) for k in FIELDS}
    db.save(PREFIX + cell_id.encode(), json.dumps(body, sort_keys=True, separators=(",", ":")).encode())


def stored(db: ExampleDatabase, cell_ids: Iterable[str]) -> dict[str, list[dict[str, Any]]]:
    """cell id -> its corpus (entries that do not read as a call and a memory recipe are skipped)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for cell_id in cell_ids:
        entries = []
        for value in db.fetch(PREFIX + cell_id.encode()):
            try:
                data = json.loads(value)
                Call.from_dict(data["call"])
                MemoryRecipe.from_dict(data["memory"])
            except (ValueError, KeyError, TypeError, CallFormatError):
                continue
            points = data.get("points")
            data["points"] = [p for p in points if isinstance(p, (int, str))] if isinstance(points, list) else []
            entries.append({k: data.get(k) for k in FIELDS})
            if len(entries) >= MAX_PER_CELL:
                break
        if entries:
            entries.sort(key=lambda e: json.dumps(e, sort_keys=True))
            out[cell_id] = entries
    return out
