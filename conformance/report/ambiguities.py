"""The ambiguities of a run as the reports show them: per ambiguity, the reading declared and by whom
(the backend, or the command line), the ambiguity cells that entered its region, their calls and
verdicts; or that it was not tested, no reading being declared. And the verdict's wording when readings
were declared: "CONFORMANT under readings a=r, ... for scatter on ascend910b".

Computed from results data alone (`readings`, the cells), so a merged or re-rendered report says the same.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Iterable, Mapping

from oracle.spec import SEED, Rulebook

from conformance.report.overall_verdict import verdict_line, verdict_of

NOT_TESTED = "not tested: no reading declared"
# Cell.expect (a cell's `kind` in results.json) and Case.expect of the calls in an ambiguity region
AMBIGUITY = "ambiguity"


def ambiguity_entries(rulebook: Rulebook, apis: Iterable[str]) -> list[dict[str, Any]]:
    """What the specs say of each ambiguity of the apis (the run's part is filled in by `tally`)."""
    return [{"id": a.id, "api": api, "question": a.question.strip(), "quote": a.quote,
             "readings": [r.sentence for r in a.readings], "reading_ids": [r.id for r in a.readings],
             "used": None, "generated": False}
            for api in apis for a in rulebook.api(api).ambiguities]


def tally(entries: list[dict[str, Any]], readings: Mapping[str, Mapping[str, str]] | None,
          cells: Iterable[dict[str, Any]], product: str | None = None) -> list[dict[str, Any]]:
    """The entries with the run's part: `declared` (reading id or None), `by`, `cells` (ids of the
    ambiguity cells of its region, of one product or all), `calls`, `counts` (verdict -> calls) and
    `status` (what a reader is told). New dicts: the entries are not changed."""
    readings = readings or {}
    own: dict[str, list[dict[str, Any]]] = {}
    for c in cells:
        info = c["cell"]
        if info["kind"] == AMBIGUITY and (product is None or info["product"] == product):
            own.setdefault(info.get("rule") or "", []).append(c)
    out = []
    for entry in entries:
        declared = readings.get(entry["id"]) or {}
        members = own.get(entry["id"], [])
        counts: Counter[str] = Counter()
        for c in members:
            counts.update({v: n for v, n in c["counts"].items() if v != "NOT_SUPPORTED"})
        calls = sum(counts.values())
        reading = declared.get("reading")
        if reading and calls:
            status = f"tested under reading {reading}"
        elif reading:
            status = f"reading {reading} declared; no call made in its region"
        elif calls:
            status = "no reading declared: its calls were judged UNDEFINED (and for agreement, under --against)"
        else:
            status = NOT_TESTED
        out.append({**entry, "declared": reading, "by": declared.get("by"), "used": reading,
                    "generated": bool(calls), "cells": sorted(c["id"] for c in members), "calls": calls,
                    "counts": dict(counts), "status": status})
    return out


def readings_text(readings: Mapping[str, Mapping[str, str]] | None) -> str:
    """'a=r, b=s' (sorted by ambiguity id)."""
    return ", ".join(f"{amb}={r['reading']}" for amb, r in sorted((readings or {}).items()))


def verdict_text(results: Mapping[str, Any]) -> str:
    """The verdict as a certificate words it, in one line: what it covers (what was tested, what the
    backend does not support, the shard), under the readings declared where any was, and why it is
    INCOMPLETE where it is (conformance/report/overall_verdict.py). The same words on the terminal, in the
    HTML, the JUnit file and a bundle's README."""
    if results.get("scope") is None or results.get("verdict_reasons") is None:
        verdict, reasons, scope = verdict_of(dict(results))
    else:
        verdict, reasons, scope = results["verdict"], results["verdict_reasons"], results["scope"]
    calls = results.get("calls")
    if calls is None:
        calls = sum(n for c in results["cells"] for v, n in c["counts"].items() if v != "NOT_SUPPORTED")
    readings = readings_text(results.get("readings"))
    edition = results.get("edition")
    if isinstance(edition, dict) and edition.get("name") not in (None, SEED):
        readings = f"{readings} (the {edition['name']} edition of the pages)"
    return verdict_line(verdict, scope, reasons, readings, calls)


def merged_readings(docs: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, str]]:
    """The readings of several results merged: where they declare different readings of one ambiguity,
    every one of them, joined with ' | ' (the merged report then shows the disagreement)."""
    seen: dict[str, list[tuple[str, str]]] = {}
    for d in docs:
        for amb, r in (d.get("readings") or {}).items():
            pair = (r.get("reading", ""), r.get("by", ""))
            if pair not in seen.setdefault(amb, []):
                seen[amb].append(pair)
    return {amb: {"reading": " | ".join(dict.fromkeys(p[0] for p in pairs)),
                  "by": " | ".join(dict.fromkeys(p[1] for p in pairs))}
            for amb, pairs in sorted(seen.items())}
