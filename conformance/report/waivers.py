"""Waivers: known failures a certification run accepts for now, each with a reason, a tracker and an
expiry date.

`ascend-conformance run --waivers FILE` reads a YAML file of this shape:

```yaml
waivers:
  - test: "data_move/ascend910b/reject/data_move.nburst.*"   # glob on the cell id (optional)
    rule: "data_move.nburst.range"     # glob on rule ids (optional; at least one of test / rule is required)
    product: "ascend910b"              # glob on the product id (optional, default "*")
    reason: "simulator v1.2 clamps nburst; fix planned"     # required, non-empty string
    tracker: "https://tracker.example.com/SIM-123"         # required, non-empty string (link or ticket id)
    expires: 2027-01-31                # required, a date (YAML date or 'YYYY-MM-DD' string)
```

The top level may also be a bare list of waivers; an empty file (or `waivers:` with nothing under it)
holds none. Unknown keys are errors, so a typo such as `expire:` cannot silently disable a field.

A waiver matches a failing cell when its `product` glob matches the cell's product, its `test` glob (if
given) matches the cell id, and its `rule` glob (if given) matches the cell's target rule, the failure's
rule or the rule of one of the failure's violations. Globs are `fnmatch.fnmatchcase` (case-sensitive).

A waiver is active through its `expires` day. `apply_waivers` marks each failing cell matched by an
active waiver as waived (the first such waiver in file order) and records every waiver's status in
`results["waivers"]`: `applied`, `expired` (its cells are listed but not waived) or `unmatched`, so
that no waiver is ignored without a trace.
"""
from __future__ import annotations

import datetime
import fnmatch
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.report.text import printable
from conformance.report.untrusted import FileFormatError, load_yaml

FIELDS = ("expires", "product", "reason", "rule", "test", "tracker")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


class WaiverError(ValueError):
    """A waiver file that cannot be used; the message names the file, the waiver and the field."""


@dataclass(frozen=True)
class Waiver:
    """One entry of a waiver file."""

    index: int
    test: str | None
    rule: str | None
    product: str
    reason: str
    tracker: str
    expires: datetime.date

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, as results.json lists it."""
        return {"index": self.index, "test": self.test, "rule": self.rule, "product": self.product,
                "reason": self.reason, "tracker": self.tracker, "expires": self.expires.isoformat()}

    def matches(self, cell: dict[str, Any]) -> bool:
        """Whether this waiver covers the failure of `cell` (an entry of results["cells"]); a cell
        without a failure is never matched, whatever the globs say."""
        failure = cell.get("failure")
        if not failure or not fnmatch.fnmatchcase(cell["cell"]["product"], self.product):
            return False
        if self.test is not None and not fnmatch.fnmatchcase(cell["id"], self.test):
            return False
        return self.rule is None or any(fnmatch.fnmatchcase(r, self.rule) for r in _rules(cell, failure))


    def names(self, cell: Any) -> bool:
        """Whether this waiver could cover a failure of `cell` (a planned cell: api, product, rule, id),
        whatever failed there: a cell without a rule of its own is covered by a `rule` glob that matches
        any rule id of its api (`data_move.*`, `*`)."""
        if not fnmatch.fnmatchcase(cell.product, self.product):
            return False
        if self.test is not None and not fnmatch.fnmatchcase(cell.id, self.test):
            return False
        return self.rule is None or fnmatch.fnmatchcase(cell.rule or f"{cell.api}.\0", self.rule)


def too_broad(waivers: list[Waiver], cells: list[Any]) -> str | None:
    """Why a waiver file cannot be used for a certification: a waiver that covers every cell of an api or
    of a product waives it whole instead of naming what it waives (None when none does)."""
    groups: dict[str, list[Any]] = {}
    for cell in cells:
        groups.setdefault(f"api {cell.api}", []).append(cell)
        groups.setdefault(f"product {cell.product}", []).append(cell)
    for waiver in waivers:
        for group, members in groups.items():
            if all(waiver.names(c) for c in members):
                return (f"waiver {waiver.index} covers every cell of {group} ({len(members)} cells): a waiver "
                        "names the failures it waives (test: a cell glob, rule: a rule id)")
    return None


def _rules(cell: dict[str, Any], failure: dict[str, Any]) -> list[str]:
    """The rule ids a failing cell can be waived by: its target rule, the failure's, its violations'."""
    rules = [cell["cell"].get("rule"), failure.get("rule")]
    rules += [v.get("rule") for v in failure.get("violations") or []]
    return [r for r in rules if isinstance(r, str)]


def load_waivers(path: str | Path) -> list[Waiver]:
    """Read and validate a waiver file; any problem is a WaiverError naming the file."""
    source = printable(str(path))
    try:     # dates as text: an impossible one (2027-02-30) is then refused naming its waiver and field
        data = load_yaml(path, what="waiver", dates=False)
    except FileFormatError as e:
        raise WaiverError(str(e)) from None
    return parse_waivers(data, source)


def parse_waivers(data: Any, source: str = "waivers") -> list[Waiver]:
    """Validate already-loaded YAML data (a mapping with `waivers:` or a bare list)."""
    if isinstance(data, dict):
        unknown = sorted(str(k) for k in data if k != "waivers")
        if unknown:
            raise WaiverError(f"{source}: unknown top-level key {_shown(unknown[0])} (known: waivers)")
        data = data.get("waivers")
    if data is None:
        return []
    if not isinstance(data, list):
        raise WaiverError(f"{source}: expected a list of waivers (or a mapping with 'waivers:'), "
                          f"got {type(data).__name__}")
    return [_waiver(entry, i, f"{source}: waiver {i}") for i, entry in enumerate(data, start=1)]


def _waiver(entry: Any, index: int, where: str) -> Waiver:
    """One validated waiver; `where` prefixes every error message."""
    if not isinstance(entry, dict):
        raise WaiverError(f"{where}: expected a mapping with fields {', '.join(FIELDS)}, "
                          f"got {type(entry).__name__}")
    unknown = sorted(str(k) for k in entry if k not in FIELDS)
    if unknown:
        raise WaiverError(f"{where}: unknown field {_shown(unknown[0])} (known: {', '.join(FIELDS)})")
    if entry.get("test") is None and entry.get("rule") is None:
        raise WaiverError(f"{where}: field 'test' or 'rule': at least one is required")
    return Waiver(index=index,
                  test=_text(entry, "test", where, required=False),
                  rule=_text(entry, "rule", where, required=False),
                  product=_text(entry, "product", where, required=False) or "*",
                  reason=_text(entry, "reason", where, required=True),
                  tracker=_text(entry, "tracker", where, required=True),
                  expires=_date(entry, where))


def _text(entry: dict, name: str, where: str, required: bool) -> str | None:
    """A string field: absent is allowed only when not required; present means non-empty."""
    value = entry.get(name)
    if value is None and not required:
        return None
    if value is None:
        raise WaiverError(f"{where}: field {name!r}: required")
    if not isinstance(value, str) or not value.strip():
        raise WaiverError(f"{where}: field {name!r}: expected a non-empty string, got {_shown(value)}")
    return value


def _date(entry: dict, where: str) -> datetime.date:
    """The expiry: a YAML date or a strict 'YYYY-MM-DD' string (a timestamp is refused: too easy to
    misread as 'end of that day')."""
    value = entry.get("expires")
    if value is None:
        raise WaiverError(f"{where}: field 'expires': required")
    if isinstance(value, datetime.date) and not isinstance(value, datetime.datetime):
        return value
    if isinstance(value, str) and _DATE.fullmatch(value.strip()):
        try:
            return datetime.date.fromisoformat(value.strip())
        except ValueError:
            pass
    raise WaiverError(f"{where}: field 'expires': expected a date YYYY-MM-DD, got {_shown(value)}")


def _shown(value: Any) -> str:
    """A value of the file in a one-line message."""
    return printable(repr(value), 80)


def apply_waivers(results: dict[str, Any], waivers: list[Waiver], today: datetime.date) -> None:
    """Mark failing cells covered by an active waiver as waived and record each waiver's status in
    results["waivers"]; re-applying replaces the previous marks instead of adding to them."""
    cells = results.get("cells") or []
    failure_list = results.get("failures") or []
    for entry in [*cells, *failure_list]:
        entry.pop("waived", None)
    failures = {f.get("cell"): f for f in failure_list}
    matched = [[c["id"] for c in cells if w.matches(c)] for w in waivers]
    for cell in cells:
        waiver = next((w for w, ids in zip(waivers, matched) if w.expires >= today and cell["id"] in ids), None)
        if waiver is None:
            continue
        mark = {"waiver": waiver.index, "reason": waiver.reason, "tracker": waiver.tracker,
                "expires": waiver.expires.isoformat()}
        cell["waived"] = mark
        if cell["id"] in failures:
            failures[cell["id"]]["waived"] = mark
    results["waivers"] = [{**w.to_dict(), "status": _status(w, ids, today), "cells": ids}
                          for w, ids in zip(waivers, matched)]


def _status(waiver: Waiver, cells: list[str], today: datetime.date) -> str:
    """'expired' wins over a match: an out-of-date waiver must be seen, not quietly honoured."""
    if waiver.expires < today:
        return "expired"
    return "applied" if cells else "unmatched"
