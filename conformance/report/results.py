"""A run's results as plain data: what `results.json` holds, its overall verdict, merging several of
them (shards, nightly runs), reading one back with errors that name the file and field, and the summary
printed at the end of a run.

Everything after the run (reports, JUnit, waivers, `ascend-conformance report`) works on this data
alone, never on the backend.
"""
from __future__ import annotations

import functools
import json
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from oracle import Call, CallFormatError
from oracle.quoting import quoted
from oracle.spec import Rulebook

from conformance.backends.contract import kit_version
from conformance.generate.memory import MemoryRecipe
from conformance.judge.cell_result import CellResult, incomplete_reason
from conformance.judge.verdicts import Verdict
from conformance.report.ambiguities import ambiguity_entries, tally, verdict_text
from conformance.report.overall_verdict import (CONFORMANT, INCOMPLETE, NOT_CONFORMANT, failed, missing_cells,  # noqa: F401
                                      overall, verdict_of, why_missing)
from conformance.report.text import printable
from conformance.report.untrusted import MAX_RESULTS_BYTES, FileFormatError, read_text

if TYPE_CHECKING:          # imported where a results.json is read, a cost a run's start does without
    import jsonschema

VERDICT_ORDER = [v.value for v in Verdict]
# Where several runs of one cell are merged, the status shown is the most telling one.
_STATUS_ORDER = ("error", "ran", "unreachable", "not_supported")


class ResultsError(ValueError):
    """A results.json that cannot be read back; the message names the file and the field."""


def spec_hash(rulebook: Rulebook) -> str:
    return rulebook.digest[:16]


def cell_error(cell: dict[str, Any]) -> str:
    """Why a cell in error did not finish (a worker that died without a word: 'worker lost')."""
    return cell.get("error") or "worker lost"


def totals(cells: Iterable[dict[str, Any]]) -> dict[str, int]:
    """Calls per verdict, in verdict order."""
    total: Counter[str] = Counter()
    for c in cells:
        total.update(c["counts"])
    return {v: total[v] for v in VERDICT_ORDER if total[v]}


def calls(counts: dict[str, int]) -> int:
    """Calls the backend ran (a NOT_SUPPORTED cell counts one 'call' that never ran)."""
    return sum(n for v, n in counts.items() if v != Verdict.NOT_SUPPORTED.value)


def finish(results: dict[str, Any]) -> dict[str, Any]:
    """Fill in what follows from the cells (totals, calls, failures, unreachable, verdict, its reasons,
    scope and text, conforms), in place; returns `results`. Called whenever cells change (a run, a
    merge, waivers)."""
    results["cells"] = sorted(results["cells"], key=lambda c: c["id"])
    results["totals"] = totals(results["cells"])
    results["calls"] = calls(results["totals"])
    results["failures"] = [c["failure"] for c in results["cells"] if c.get("failure")]
    results["unreachable"] = [c["id"] for c in results["cells"] if c["status"] == "unreachable"]
    results["verdict"], results["verdict_reasons"], results["scope"] = verdict_of(results)
    results["conforms"] = results["verdict"] == CONFORMANT
    results["verdict_text"] = verdict_text(results)
    results["ambiguities"] = tally(results.get("ambiguities") or [], results.get("readings"), results["cells"])
    if results.get("against"):
        agreement: Counter[str] = Counter()
        for c in results["cells"]:
            agreement.update(c.get("agreement") or {})
        results["agreement"] = {"totals": dict(agreement),
                                "divergences": [c["divergence"] for c in results["cells"] if c.get("divergence")]}
        results["agreement"]["verdict"] = "DIVERGE" if results["agreement"]["divergences"] or agreement["DIVERGE"] \
            else "AGREE"
        results["agrees"] = results["agreement"]["verdict"] == "AGREE"
    return results


def results_document(rulebook: Rulebook, backend: dict[str, str], chosen: Sequence[Any],
                     cells: Sequence[CellResult | dict[str, Any]], errors: Sequence[str] = (),
                     readings: dict[str, dict[str, str]] | None = None, **settings: Any) -> dict[str, Any]:
    """The results.json of one run of the `chosen` cells: `backend` is {name, spec, version}; `readings`
    the run's declared readings ({ambiguity: {"reading": id, "by": "backend" | "command line"}});
    `settings` are the run's own (profile, seed, workers, select, started, duration_s, interrupted...)."""
    apis = sorted({c.api for c in chosen})
    meta = {"kit": {"name": "ascend-conformance", "version": kit_version()}, "spec_hash": spec_hash(rulebook),
            "backend": backend, "products": list(dict.fromkeys(c.product for c in chosen)), "apis": apis,
            **settings, "planned": [c.id for c in chosen], "readings": dict(readings or {})}
    return finish({**meta, "cells": [c if isinstance(c, dict) else c.to_dict() for c in cells], "errors": list(errors),
                   "ambiguities": ambiguity_entries(rulebook, apis)})


# ---------------------------------------------------------------------------------------------- reading

SCHEMA = Path(__file__).resolve().parent / "schemas" / "results.schema.json"


def _validator(rulebook: Rulebook) -> jsonschema.protocols.Validator:
    """The schema of what reports read, with the products and apis of the specs of `rulebook`, the
    verdicts of the kit and the bytemap's size filled in (the schema file holds no copy of them)."""
    return _validator_of(tuple(rulebook.products), tuple(sorted(rulebook.apis)))


@functools.lru_cache(maxsize=4)
def _validator_of(products: tuple[str, ...], apis: tuple[str, ...]) -> jsonschema.protocols.Validator:
    import jsonschema

    from conformance.judge.bytemap import MAP_CELLS
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    defs = schema["$defs"]
    defs["product"]["enum"] = list(products)
    defs["api"]["enum"] = list(apis)
    defs["verdict"]["enum"] = VERDICT_ORDER
    defs["scopeDiff"]["properties"]["map"]["properties"]["cells"]["maxLength"] = MAP_CELLS
    return jsonschema.Draft202012Validator({**_inlined(schema, defs), "$defs": defs})


def _inlined(node: Any, defs: dict[str, Any]) -> Any:
    """The schema with its (non-recursive) local $refs replaced by what they name: the same checks,
    three times faster (jsonschema resolves a $ref at every use, some 20 per cell)."""
    if isinstance(node, dict):
        ref = node.get("$ref", "")
        if ref.startswith("#/$defs/") and len(node) == 1:
            return _inlined(defs[ref.removeprefix("#/$defs/")], defs)
        return {k: v if k == "$defs" else _inlined(v, defs) for k, v in node.items()}
    if isinstance(node, list):
        return [_inlined(v, defs) for v in node]
    return node


def _field(path: Iterable[Any]) -> str:
    """cells[3].counts.PASS"""
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else f".{p}" if out else str(p)
    return printable(out, 200)


def _short(value: Any) -> str:
    return printable(quoted(value, 60))


def _schema_error(error: jsonschema.ValidationError, validator: jsonschema.protocols.Validator) -> str:
    """One schema error (of `validator`'s schema) as 'field: what was expected, got what'."""
    path = list(error.absolute_path)
    expected, value = error.validator_value, error.instance
    if error.validator == "required":
        missing = next((k for k in expected if k not in value), expected[0])
        return f"{_field(path + [missing])}: missing"
    if "propertyNames" in error.relative_schema_path:
        return f"{_field(path)}: key {_short(value)}: expected one of {', '.join(error.schema.get('enum', []))}" \
            if error.validator == "enum" else f"{_field(path)}: key {_short(value)}: {error.message}"
    if error.validator == "type":
        kinds = " or ".join(expected) if isinstance(expected, list) else expected
        what = f"expected {kinds}, got {_short(value)}"
    elif error.validator == "enum":
        what = f"expected one of {', '.join(map(str, expected))}, got {_short(value)}"
    elif error.validator == "pattern" and expected == validator.schema["$defs"]["cellId"]["pattern"]:
        what = f"expected a cell id (api/product/legal|reject|undefined|ambiguity/...), got {_short(value)}"
    elif error.validator == "pattern":
        what = f"got {_short(value)}, expected text matching {expected}"
    elif error.validator == "minimum":
        what = f"expected a number >= {expected}, got {_short(value)}"
    else:
        what = printable(error.message, 200)
    return f"{_field(path) or '(top level)'}: {what}"


def _check_cell(cell: dict[str, Any], where: str, rulebook: Rulebook) -> None:
    """What a schema cannot say: the id names the cell's api, product and kind, the failure is of this
    cell, and its call and memory are ones `replay` would accept (sizes within the product's)."""
    info = cell["cell"]
    if cell["id"].split("/")[:3] != [info["api"], info["product"], info["kind"]]:
        raise ResultsError(f"{where}.id: {_short(cell['id'])} does not name the cell's api, product and kind")
    failure = cell.get("failure")
    if not failure:
        return
    if failure["cell"] != cell["id"]:
        raise ResultsError(f"{where}.failure.cell: {_short(failure['cell'])} is not the cell's id")
    try:
        call = Call.from_dict(failure["call"], "call")
        MemoryRecipe.from_dict(failure["memory"], "memory", rulebook.products.get(call.product))
    except CallFormatError as exc:
        raise ResultsError(f"{where}.failure.{printable(str(exc), 300)}") from None


# What reports read of a cell, a failure and a document that a kit of another version may not have written.
_CELL_DEFAULTS = {"failure": None, "error": None, "seconds": 0, "tags": {}, "by_dtype": {}, "planned_calls": None,
                  "exhausted": False, "incomplete": None}
_FAILURE_DEFAULTS = {"rule": None, "expect": None, "violations": [], "diff": None}
_DOC_DEFAULTS = {"errors": [], "ambiguities": [], "planned": [], "apis": [], "interrupted": False, "readings": {}}


def _fill(data: dict[str, Any]) -> dict[str, Any]:
    for key, value in _DOC_DEFAULTS.items():
        if data.get(key) is None:
            data[key] = type(value)(value) if isinstance(value, (list, dict)) else value
    data["backend"] = {"name": "", "spec": "", "version": "", **(data.get("backend") or {})}
    if not data.get("products"):
        data["products"] = list(dict.fromkeys(c["cell"]["product"] for c in data["cells"]))
    for cell in data["cells"]:
        for key in ("form", "dtype", "rule"):
            cell["cell"].setdefault(key, None)
        for key, value in _CELL_DEFAULTS.items():
            if cell.get(key) is None:
                cell[key] = type(value)() if isinstance(value, dict) else value
        if cell["failure"]:
            for key, value in _FAILURE_DEFAULTS.items():
                if cell["failure"].get(key) is None:
                    cell["failure"][key] = [] if isinstance(value, list) else value
        if not cell.get("waived"):
            cell.pop("waived", None)
    return data


def load_results(path: str | Path, rulebook: Rulebook) -> dict[str, Any]:
    """A results.json, checked against the schema of what reports read (schemas/results.schema.json,
    with the products and apis of `rulebook`) and for what a schema cannot say; ResultsError is one line
    naming the file and the field. The size is checked before the file is read; fields an older kit did
    not write are filled in."""
    try:
        text = read_text(path, MAX_RESULTS_BYTES, "results.json")
    except FileFormatError as exc:
        raise ResultsError(str(exc)) from None
    return parse_results(text, printable(str(path)), rulebook)


def parse_results(text: str, name: str, rulebook: Rulebook) -> dict[str, Any]:
    """The text of a results.json (`name`: the file, as messages name it), checked as load_results does."""
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except ValueError as exc:           # JSONDecodeError, NaN, an integer of 5000 digits
        raise ResultsError(f"{name}: not a results.json (invalid JSON: {printable(str(exc), 200)})") from None
    except RecursionError:
        raise ResultsError(f"{name}: not a results.json (invalid JSON: nested too deep)") from None
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise ResultsError(f"{name}: not a results.json (no 'cells' list at the top)")
    from jsonschema.exceptions import best_match
    validator = _validator(rulebook)
    error = best_match(validator.iter_errors(data))
    if error is not None:
        raise ResultsError(f"{name}: {_schema_error(error, validator)}")
    for i, cell in enumerate(data["cells"]):
        _check_cell(cell, f"{name}: cells[{i}]", rulebook)
    return _fill(data)


def _no_constant(word: str) -> Any:
    raise ValueError(f"{word} is not a number JSON allows")


# ---------------------------------------------------------------------------------------------- merging

def combine_runs(same: list[dict[str, Any]]) -> dict[str, Any]:
    """Several runs of one cell: counts, tags and times add up; the first failure found is kept."""
    if len(same) == 1:
        return same[0]
    out = dict(same[0])
    for key in ("counts", "tags", "agreement"):
        total: Counter[str] = Counter()
        for c in same:
            total.update(c.get(key) or {})
        out[key] = dict(total)
    by_dtype: dict[str, Counter[str]] = {}
    for c in same:
        for dtype, counts in (c.get("by_dtype") or {}).items():
            by_dtype.setdefault(dtype, Counter()).update(counts)
    out["by_dtype"] = {d: dict(c) for d, c in by_dtype.items()}
    out["status"] = min((c["status"] for c in same), key=lambda s: _STATUS_ORDER.index(s)
                        if s in _STATUS_ORDER else len(_STATUS_ORDER))
    if out["status"] == "not_supported" or out["counts"].get("NOT_SUPPORTED"):
        out["counts"]["NOT_SUPPORTED"] = 1 if out["status"] == "not_supported" else 0
        out["counts"] = {v: n for v, n in out["counts"].items() if n}
    out["error"] = next((c.get("error") for c in same if c.get("error")), None)
    out["failure"] = next((c["failure"] for c in same if c.get("failure")), None)
    out["divergence"] = next((c["divergence"] for c in same if c.get("divergence")), None)
    out["waived"] = next((c["waived"] for c in same if c.get("waived") and c.get("failure") is out["failure"]),
                         None)
    if out["waived"] is None:
        out.pop("waived")
    out["seconds"] = round(sum(c.get("seconds") or 0 for c in same), 3)
    for key in ("shrink_calls", "frozen_calls", "sweep_calls"):
        out[key] = sum(c.get(key) or 0 for c in same)
    swept = [c["edges"] for c in same if c.get("edges")]
    if swept:               # reached in any run: missed only where every run missed it
        out["edges"] = {"reachable": sorted(set().union(*(e["reachable"] for e in swept))),
                        "missed": sorted(set.intersection(*(set(e["missed"]) for e in swept)))}
    _add_plans(out, same)
    return out


def _add_plans(out: dict[str, Any], same: list[dict[str, Any]]) -> None:
    """The calls several runs of a cell planned add up (the parts of a split cell each plan their share
    of the budget, the first one the frozen cases and the sweep too); the cell is short of them when a
    run that did not run out of distinct calls is (one that did judged all there is)."""
    plans = [c.get("planned_calls") for c in same]
    out["planned_calls"] = sum(plans) if all(p is not None for p in plans) else None
    out["exhausted"] = any(c.get("exhausted") for c in same)
    short = any(c.get("planned_calls") is not None and calls(c["counts"]) < c["planned_calls"]
                and not c.get("exhausted") for c in same)
    stopped = bool(out.get("failure") or out.get("divergence") or failed(out))
    out["incomplete"] = incomplete_reason(out["status"], stopped, out["planned_calls"] if short else None,
                                          calls(out["counts"]), False, (out.get("edges") or {}).get("missed", ()))


def edge_totals(cells: Iterable[dict[str, Any]]) -> dict[str, int]:
    """Edges the cells' sweeps could reach and did (conformance/generate/edges.py), one per (cell, edge)."""
    reachable = reached = 0
    for c in cells:
        edges = c.get("edges") or {}
        reachable += len(edges.get("reachable") or ())
        reached += len(edges.get("reachable") or ()) - len(edges.get("missed") or ())
    return {"reachable": reachable, "reached": reached}


def summary(results: dict[str, Any]) -> str:
    """Per api/product/dtype (legal cells) and per api/product/rule (the others): calls and verdicts."""
    rows: dict[tuple[str, ...], Counter[str]] = {}
    status: dict[tuple[str, ...], str] = {}          # cells that did not run to the end say why
    for c in results["cells"]:
        cell = c["cell"]
        if cell["kind"] == "legal":
            for dtype, counts in (c.get("by_dtype") or {cell["dtype"] or "-": c["counts"]}).items():
                key = (cell["api"], cell["product"], "legal", "/".join(p for p in (cell["form"], dtype) if p))
                rows.setdefault(key, Counter()).update(counts)
        else:
            key = (cell["api"], cell["product"], cell["kind"], cell["rule"])
            rows.setdefault(key, Counter()).update(c["counts"])
        if c["status"] in ("unreachable", "error"):
            status[key] = c["status"].upper()
        elif c.get("incomplete") and not failed(c):
            status[key] = f"INCOMPLETE ({c['incomplete']})"
        elif c.get("waived"):
            status[key] = "WAIVED"
    heads = ("api", "product", "kind", "dtype / rule")
    widths = [max([len(h)] + [len(k[i]) for k in rows]) for i, h in enumerate(heads)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(heads, widths)) + "  verdicts"]
    for key in sorted(rows):
        counts = rows[key]
        verdicts = ", ".join([f"{v} {counts[v]}" for v in VERDICT_ORDER if counts.get(v)]
                             + ([status[key]] if key in status else [])) or "no calls"
        lines.append("  ".join(k.ljust(w) for k, w in zip(key, widths)) + "  " + verdicts)
    return "\n".join(lines)
