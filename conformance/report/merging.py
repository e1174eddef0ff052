"""Several results documents made one (`report` with several files, the shards of a CI fan-out): cells
of shards side by side, cells run several times added up, what the runs do not share listed."""
from __future__ import annotations

import re
from typing import Any, Iterable, Sequence

from conformance.report.ambiguities import merged_readings
from conformance.report.results import combine_runs, finish


def _distinct(values: Iterable[Any]) -> list[Any]:
    out: list[Any] = []
    for v in values:
        for item in (v if isinstance(v, list) else [v]):
            if item is not None and item not in out:
                out.append(item)
    return out


def _one_or_all(values: Iterable[Any]) -> Any:
    """A field several runs share: the value if they agree, else the list of their values."""
    found = _distinct(values)
    return found[0] if len(found) == 1 else found


def _one_backend(backends: list[dict[str, Any]]) -> dict[str, Any]:
    """The backend of merged runs: the one, or the names, specs and versions of all of them."""
    if len(backends) == 1:
        return backends[0]
    return {"name": " + ".join(_distinct(b.get("name") for b in backends)),
            "spec": " | ".join(_distinct(b.get("spec") for b in backends)),
            "version": ", ".join(_distinct(b.get("version") or None for b in backends))}


def _merge_shards(docs: list[dict[str, Any]], merged: dict[str, Any]) -> None:
    """'k of N' shards merged, and an error naming the shards missing from 1..N."""
    shards = {d["shard"] for d in docs if isinstance(d.get("shard"), str) and re.fullmatch(r"\d+/\d+", d["shard"])}
    if not shards:
        return
    count = int(next(iter(shards)).split("/")[1])
    missing = [f"{i}/{count}" for i in range(1, count + 1) if f"{i}/{count}" not in shards]
    if missing or any(int(s.split("/")[1]) != count for s in shards):
        merged["errors"].append(f"the merged shards are {', '.join(sorted(shards))}: "
                                f"shard{'s' if len(missing) != 1 else ''} {', '.join(missing) or '?'} missing")
    merged["shard"] = f"{len(shards)} of {count}"


def merge(sources: Sequence[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """One results document from several (name, results): cells of shards side by side, cells run
    several times added up; seeds, profiles and spec hashes listed where they differ."""
    if len(sources) == 1:
        return finish(dict(sources[0][1]))
    docs = [d for _, d in sources]
    by_id: dict[str, list[dict[str, Any]]] = {}
    for d in docs:
        for c in d["cells"]:
            by_id.setdefault(c["id"], []).append(c)
    backends = _distinct(d.get("backend") for d in docs)
    ambiguities = {a["id"]: a for d in docs for a in d.get("ambiguities", [])}
    merged = {
        "kit": _one_or_all(d.get("kit") for d in docs),
        "spec_hash": _one_or_all(d.get("spec_hash") for d in docs),
        "backend": _one_backend(backends),
        "products": _distinct(d.get("products") for d in docs),
        "apis": _distinct(d.get("apis") for d in docs),
        "profile": _one_or_all(d.get("profile") for d in docs),
        "seed": _one_or_all(d.get("seed") for d in docs),
        "started": min((d["started"] for d in docs if d.get("started")), default=None),
        "duration_s": round(sum(d.get("duration_s") or 0 for d in docs), 2),
        "interrupted": any(d.get("interrupted") for d in docs),
        "planned": sorted(set(_distinct(d.get("planned") for d in docs))),
        "sources": [name for name, _ in sources],
        "cells": [combine_runs(same) for same in by_id.values()],
        "errors": [f"{name}: {e}" for name, d in sources for e in d.get("errors", [])],
        "ambiguities": list(ambiguities.values()),
        "readings": merged_readings(docs),
        "waivers": [w | {"source": name} for name, d in sources for w in d.get("waivers") or []],
    }
    for key in ("isolation", "edition"):
        value = _one_or_all(d.get(key) for d in docs)
        if value:
            merged[key] = value
    selects = [d.get("select") or [] for d in docs]
    if all(selects):                    # every run narrowed by --select: the merge covers what they matched
        merged["select"] = _distinct(selects)
    _merge_shards(docs, merged)
    against = _distinct(d.get("against") for d in docs)
    if against:
        merged["against"] = _one_backend(against)
        if len(against) > 1:
            merged["against"]["oracle"] = all(a.get("oracle", True) for a in against)
    certified = [d["certify"] for d in docs if d.get("certify")]
    if certified:
        merged["certify"] = {"frozen_hash": _one_or_all(c["frozen_hash"] for c in certified),
                             "frozen_cases": sum(c["frozen_cases"] for c in certified)}
    return finish(merged)


# ---------------------------------------------------------------------------------------------- printing
