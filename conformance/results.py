"""A run's results: what `results.json` holds, the reproducer files, and the printed summary."""
from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import yaml

from oracle.spec import Rulebook

from .junit import write_junit
from .runner import CellResult
from .verdicts import NONCONFORMING, Verdict

VERDICT_ORDER = [v.value for v in Verdict]
CONFORMANT, NOT_CONFORMANT, INCOMPLETE = "CONFORMANT", "NOT CONFORMANT", "INCOMPLETE"
_NONCONFORMING = {v.value for v in NONCONFORMING}


def overall(results: dict[str, Any], product: str | None = None) -> str:
    """The verdict of a results.json (of one product, or of all): NOT CONFORMANT when some cell failed
    and no waiver covers it; INCOMPLETE when nothing failed but cells errored, are missing or the run
    was interrupted; CONFORMANT otherwise."""
    cells = [c for c in results["cells"] if product is None or c["cell"]["product"] == product]
    if any((c.get("failure") or _NONCONFORMING & set(c["counts"])) and not c.get("waived") for c in cells):
        return NOT_CONFORMANT
    planned = results.get("planned") or {}
    wanted = planned.get(product, 0) if product else sum(planned.values())
    if (results.get("errors") or results.get("interrupted") or len(cells) < wanted
            or any(c["status"] == "error" for c in cells)):
        return INCOMPLETE
    return CONFORMANT


def spec_hash(rulebook: Rulebook) -> str:
    digest = hashlib.sha256()
    for name in sorted(rulebook.files):
        digest.update(name.encode() + b"\0" + rulebook.files[name].encode() + b"\0")
    return digest.hexdigest()[:16]


@dataclass
class RunResult:
    meta: dict[str, Any]
    cells: list[CellResult] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    ambiguities: list[dict[str, Any]] = field(default_factory=list)

    @property
    def failures(self) -> list[dict[str, Any]]:
        return [c.failure for c in self.cells if c.failure]

    @property
    def totals(self) -> dict[str, int]:
        total: Counter[str] = Counter()
        for c in self.cells:
            total.update(c.counts)
        return {v: total[v] for v in VERDICT_ORDER if total[v]}

    @property
    def calls(self) -> int:
        return sum(n for v, n in self.totals.items() if v != Verdict.NOT_SUPPORTED.value)

    @property
    def conforms(self) -> bool:
        return not self.errors and all(c.conforms for c in self.cells) and not any(
            self.totals.get(v.value) for v in NONCONFORMING)

    def to_dict(self) -> dict[str, Any]:
        return {**self.meta, "conforms": self.conforms, "calls": self.calls, "totals": self.totals,
                "cells": [c.to_dict() for c in sorted(self.cells, key=lambda c: c.id)],
                "failures": self.failures, "errors": self.errors,
                "unreachable": [c.id for c in self.cells if c.status == "unreachable"],
                "ambiguities": self.ambiguities}

    def write(self, folder: Path) -> Path:
        """results.json, junit.xml, and one reproducer YAML per failure (repro/<cell>.yaml)."""
        folder.mkdir(parents=True, exist_ok=True)
        repro = folder / "repro"
        for failure in self.failures:
            path = repro / (re.sub(r"[^A-Za-z0-9_.-]+", "__", failure["cell"]) + ".yaml")
            repro.mkdir(exist_ok=True)
            path.write_text(reproducer_text(failure), encoding="utf-8")
            failure["reproducer"] = str(path)
        out = folder / "results.json"
        out.write_text(json.dumps(self.to_dict(), indent=1, ensure_ascii=False), encoding="utf-8")
        write_junit(folder, self.meta, self.cells, self.errors)
        return out


def reproducer_text(failure: dict[str, Any]) -> str:
    body = {k: failure[k] for k in ("cell", "verdict", "message", "expect", "rule", "call", "memory")}
    head = ("# ascend-conformance reproducer: one call and the memory it ran on.\n"
            "#   ascend-conformance check THIS_FILE                 legality and expected image\n"
            "#   ascend-conformance replay THIS_FILE --backend B    run it again on a backend\n")
    return head + yaml.safe_dump(body, sort_keys=False, allow_unicode=True, width=110)


def ambiguity_list(rulebook: Rulebook, apis: Iterable[str]) -> list[dict[str, Any]]:
    return [{"id": a.id, "api": api, "question": a.question.strip(), "quote": a.quote, "readings": list(a.readings),
             "used": a.used, "generated": False}
            for api in apis for a in rulebook.api(api).ambiguities]


def summary(result: RunResult) -> str:
    """Per api/product/dtype (legal cells) and per api/product/rule (the others): calls and verdicts."""
    rows: dict[tuple[str, ...], Counter[str]] = {}
    status: dict[tuple[str, ...], str] = {}          # cells that did not run to the end say why
    for c in result.cells:
        cell = c.cell
        if cell["kind"] == "legal":
            for dtype, counts in (c.by_dtype or {cell["dtype"] or "-": c.counts}).items():
                key = (cell["api"], cell["product"], "legal", "/".join(p for p in (cell["form"], dtype) if p))
                rows.setdefault(key, Counter()).update(counts)
        else:
            key = (cell["api"], cell["product"], cell["kind"], cell["rule"])
            rows.setdefault(key, Counter()).update(c.counts)
        if c.status in ("unreachable", "error"):
            status[key] = c.status.upper()
    widths = [max([len(h)] + [len(k[i]) for k in rows]) for i, h in enumerate(("api", "product", "kind", "dtype / rule"))]
    lines = ["  ".join(h.ljust(w) for h, w in zip(("api", "product", "kind", "dtype / rule"), widths)) + "  verdicts"]
    for key in sorted(rows):
        counts = rows[key]
        verdicts = ", ".join([f"{v} {counts[v]}" for v in VERDICT_ORDER if counts.get(v)]
                             + ([status[key]] if key in status else [])) or "no calls"
        lines.append("  ".join(k.ljust(w) for k, w in zip(key, widths)) + "  " + verdicts)
    return "\n".join(lines)
