"""The HTML conformance report: one self-contained file per product (no script, no font, no image from
outside it), rendered from a results.json alone, so that `ascend-conformance report` never needs the
backend again. The markup lives in templates/report.html.j2; this module only shapes the data."""
from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Iterable

import jinja2
import yaml

from oracle.spec import Rulebook, default_rulebook

from .bytemap import LEGEND, MATCH, OPEN, STRAY, UNTOUCHED, WRONG
from .results import calls, edge_totals, missing_cells, overall, spec_hash, totals
from .traceability import rule_rows

TEMPLATES = Path(__file__).resolve().parent / "templates"
MAP_COLUMNS = 64                # cells per row of a byte map
MAP_CELL_PX = 12

# What a cell of the matrix shows, worst first: the state of a group of cells is its worst member's.
STATES = ("fail", "error", "waived", "unreachable", "pass", "not_supported")
MAP_KIND = {UNTOUCHED: "untouched", MATCH: "match", OPEN: "open", WRONG: "wrong", STRAY: "stray"}
STATE_LABEL = {"fail": "NOT CONFORMANT", "error": "ERROR", "waived": "WAIVED", "unreachable": "NO CALL",
               "pass": "CONFORMANT", "not_supported": "NOT SUPPORTED"}


def cell_state(cell: dict[str, Any]) -> str:
    if cell.get("failure"):
        return "waived" if cell.get("waived") else "fail"
    return {"ran": "pass"}.get(cell["status"], cell["status"])


def _group(members: list[dict[str, Any]]) -> dict[str, Any]:
    counts = totals(members)
    state = min((cell_state(c) for c in members), key=STATES.index)
    return {"state": state, "label": STATE_LABEL[state], "calls": calls(counts), "edges": edge_totals(members),
            "counts": {v: n for v, n in counts.items() if v != "NOT_SUPPORTED"},
            "cells": [c["id"] for c in members]}


def matrices(cells: list[dict[str, Any]], rulebook: Rulebook) -> dict[str, Any]:
    """api x dtype and api x form (legal cells), and api x kind (the rule cells)."""
    by: dict[str, dict[tuple[str, str], list]] = {"dtype": defaultdict(list), "form": defaultdict(list),
                                                 "kind": defaultdict(list)}
    for c in cells:
        info = c["cell"]
        if info["kind"] == "legal":
            by["dtype"][(info["api"], info["dtype"] or "-")].append(c)
            if info["form"]:
                by["form"][(info["api"], info["form"])].append(c)
        else:
            by["kind"][(info["api"], info["kind"])].append(c)
    order = {d: i for i, d in enumerate(rulebook.dtypes)}
    out = {}
    for axis, groups in by.items():
        apis = sorted({a for a, _ in groups})
        columns = sorted({k for _, k in groups}, key=lambda k: (order.get(k, len(order)), k))
        if axis == "kind":
            columns = [k for k in ("reject", "undefined") if k in columns]
        out[axis] = {"columns": columns, "rows": [
            {"api": api, "cells": [_group(groups[(api, k)]) if (api, k) in groups else None for k in columns]}
            for api in apis if any((api, k) in groups for k in columns)]}
    return out


def map_rows(picture: dict[str, Any]) -> dict[str, Any]:
    """A byte map as SVG rows: runs of equal cells merged into one rectangle each."""
    codes = picture["cells"]
    rows = []
    for r in range(0, len(codes), MAP_COLUMNS):
        line = codes[r:r + MAP_COLUMNS]
        runs, start = [], 0
        for i in range(1, len(line) + 1):
            if i == len(line) or line[i] != line[start]:
                first = picture["start"] + (r + start) * picture["bytes_per_cell"]
                last = min(picture["start"] + (r + i) * picture["bytes_per_cell"], picture["end"]) - 1
                runs.append({"x": start * MAP_CELL_PX, "w": (i - start) * MAP_CELL_PX,
                             "kind": MAP_KIND[line[start]], "first": first, "last": last})
                start = i
        rows.append({"y": (r // MAP_COLUMNS) * MAP_CELL_PX,
                     "addr": picture["start"] + r * picture["bytes_per_cell"], "runs": runs})
    present = sorted(set(codes), key=list(LEGEND).index)
    return {**picture, "rows": rows, "cell_px": MAP_CELL_PX, "width": MAP_COLUMNS * MAP_CELL_PX,
            "height": len(rows) * MAP_CELL_PX, "legend": [(MAP_KIND[c], LEGEND[c]) for c in present]}


def failure_view(failure: dict[str, Any], backend_spec: str) -> dict[str, Any]:
    scopes = []
    for scope, info in (failure.get("diff") or {}).items():
        if not isinstance(info, dict):
            continue
        scopes.append({"scope": scope, **info, "map": map_rows(info["map"]) if info.get("map") else None})
    replay = (f"ascend-conformance replay {failure['reproducer']} --backend '{backend_spec}'"
              if failure.get("reproducer") else "")
    call = yaml.safe_dump({"call": failure["call"], "memory": failure["memory"]}, sort_keys=False,
                          allow_unicode=True, width=100)
    return {**failure, "scopes": scopes, "replay": replay, "call_yaml": call}


def product_view(results: dict[str, Any], product: str, rulebook: Rulebook) -> dict[str, Any]:
    cells = sorted((c for c in results["cells"] if c["cell"]["product"] == product), key=lambda c: c["id"])
    apis = sorted({c["cell"]["api"] for c in cells})
    counted = totals(cells)
    backend = results.get("backend", {})
    traced = [{"api": api, "title": rulebook.api(api).title, "page": rulebook.api(api).page,
               "supported": all(product in r["products"] for r in rulebook.api(api).rules_of("product")),
               "rules": rule_rows(rulebook.api(api), cells, product)} for api in apis]
    return {
        "product": rulebook.product(product) if product in rulebook.products else None,
        "product_id": product,
        "verdict": overall(results, product),
        "meta": results, "backend": backend,
        "current_spec_hash": spec_hash(rulebook),
        "calls": calls(counted),
        "edges": edge_totals(cells),
        "totals": list(counted.items()),
        "states": Counter(cell_state(c) for c in cells),
        "ncells": len(cells), "missing": missing_cells(results, product),
        "matrix": matrices(cells, rulebook),
        "failures": [failure_view(c["failure"], backend.get("spec", "B")) | {"waived": c.get("waived")}
                     for c in cells if c.get("failure")],
        "errors": [c for c in cells if c["status"] == "error"]
                  + [{"id": "run", "error": e} for e in results.get("errors", [])]
                  + [{"id": cid, "error": "planned, but no result came back"} for cid in missing_cells(results, product)],
        "traced": traced,
        "unexercised": sum(r["breakable"] and not r["exercised"] for t in traced for r in t["rules"]),
        "ambiguities": [a for a in results.get("ambiguities", []) if a["api"] in apis],
        "waivers": results.get("waivers") or [],
        "legend": STATE_LABEL,
    }


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters["cellid"] = lambda text: "".join(ch if ch.isalnum() else "-" for ch in text)
    env.filters["when"] = lambda iso: (iso or "").replace("T", " ").replace("+00:00", " UTC")
    return env


def render(results: dict[str, Any], product: str, rulebook: Rulebook | None = None) -> str:
    """The HTML report of one product of a results.json."""
    rulebook = rulebook or default_rulebook()
    return _environment().get_template("report.html.j2").render(
        **product_view(results, product, rulebook), map_columns=MAP_COLUMNS)


def report_name(product: str) -> str:
    return f"report-{product}.html"


def write_reports(results: dict[str, Any], folder: Path, products: Iterable[str] | None = None) -> list[Path]:
    """report-<product>.html in `folder` for every product of the results."""
    rulebook = default_rulebook()
    out = []
    for product in products or results.get("products") or sorted({c["cell"]["product"] for c in results["cells"]}):
        path = folder / report_name(product)
        path.write_text(render(results, product, rulebook), encoding="utf-8")
        out.append(path)
    return out
