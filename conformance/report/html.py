"""The HTML conformance report: one self-contained file per product (no script, no font, no image from
outside it), rendered from a results.json alone, so that `ascend-conformance report` never needs the
backend again. The markup lives in templates/report.html.j2; this module only shapes the data."""
from __future__ import annotations

import functools
import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Iterable

import jinja2
import markupsafe

from oracle.spec import Rulebook

from conformance.judge.bytemap import LEGEND, MATCH, OPEN, STRAY, UNTOUCHED, WRONG
from conformance.report.ambiguities import readings_text, tally
from conformance.report.coverage_run import coverage_view
from conformance.report.results import (calls, cell_error, edge_totals, missing_cells, spec_hash, totals,
                                        why_missing)
from conformance.report.overall_verdict import INCOMPLETE, NOTHING_TESTED, failed, verdict_line, verdict_of
from conformance.report.page_code import page_template, record_page_code
from conformance.report.text import SHOWN_CHARS, cut, markup, replay_command
from conformance.report.traceability import rule_rows

TEMPLATES = Path(__file__).resolve().parent / "templates"
MAP_COLUMNS = 64                # cells per row of a byte map
MAP_CELL_PX = 12                # a square and the white line that parts it from the next
MAP_ROW_PX = 16                 # a row of squares and the gap under it: rows read as rows, not one bar
MAP_LABEL_PX = 88               # the addresses left of the rows, at 14 px: legible once the map is scaled down
# The narrowest window in which a matrix still reads as a table: its api column, its other columns (a
# label such as CONFORMANT each), the page's margins and a scroll bar; below it the rows are stacked. No
# matrix wider than the page's widest main (its max-width less its padding) is shown as a table.
MATRIX_API_PX, MATRIX_COLUMN_PX, PAGE_MARGIN_PX, PAGE_MAX_PX = 100, 104, 100, 1256

# What a cell of the matrix shows, worst first: the state of a group of cells is its worst member's.
STATES = ("fail", "error", "incomplete", "waived", "unreachable", "pass", "not_supported")
MAP_KIND = {UNTOUCHED: "untouched", MATCH: "match", OPEN: "open", WRONG: "wrong", STRAY: "stray"}
STATE_LABEL = {"fail": "NOT CONFORMANT", "error": "ERROR", "incomplete": "INCOMPLETE", "waived": "WAIVED",
               "unreachable": "NO CALL", "pass": "CONFORMANT", "not_supported": "NOT SUPPORTED"}


# What the page reads of a results document, for one written by a kit that had not all of it.
_META = {"kit": None, "spec_hash": None, "seed": None, "profile": None, "started": None, "duration_s": None,
         "interrupted": False, "stopped": None, "certify": None, "sources": None}


def cell_state(cell: dict[str, Any]) -> str:
    if cell.get("failure"):
        return "waived" if cell.get("waived") else "fail"
    if cell["status"] == "ran" and cell.get("incomplete") and not failed(cell):
        return "incomplete"
    return {"ran": "pass"}.get(cell["status"], cell["status"])


def banner(results: dict[str, Any], product: str) -> dict[str, Any]:
    """The page's verdict, with what it covers in the badge itself: a green CONFORMANT never stands alone
    where the backend supported part of what was asked, or the results are one shard of a run."""
    verdict, reasons, scope = verdict_of(results, product)
    counted = calls(totals(c for c in results["cells"] if c["cell"]["product"] == product))
    line = verdict_line(verdict, scope, reasons, readings_text(results.get("readings")), counted)
    if scope["nothing_tested"] and verdict == INCOMPLETE:
        return {"verdict": verdict, "label": NOTHING_TESTED, "scope": scope["nothing_tested"], "detail": "",
                "partial": True, "text": line}
    shard = scope["shard"]
    where = (f"shard {shard['index']}/{shard['count']} · " if shard else "") + f"for {scope['text']}"
    return {"verdict": verdict, "label": verdict, "scope": where, "detail": scope["detail"],
            "partial": not scope["complete"], "text": line}


def edition_view(edition: Any) -> list[dict[str, Any]]:
    """The editions of the pages the results were judged by (several where merged runs differ): name and
    the page of each API (text only: what the template prints is escaped)."""
    out = []
    for entry in edition if isinstance(edition, list) else [edition] if edition else []:
        if isinstance(entry, dict) and isinstance(entry.get("name"), str):
            pages = entry.get("pages") if isinstance(entry.get("pages"), dict) else {}
            out.append({"name": entry["name"], "pages": sorted((str(k), str(v)) for k, v in pages.items())})
    return out


def isolation_view(isolation: Any) -> list[dict[str, Any]]:
    """How the backend was kept apart from the judge (one entry, or one per merged run): in-process runs
    are flagged as what they are, and otherwise the user the backend ran as, and whether it was the
    judge's own."""
    out = []
    for entry in isolation if isinstance(isolation, list) else [isolation] if isolation else []:
        if not isinstance(entry, dict):
            continue
        same = entry.get("same_user")
        who = entry.get("backend_user") or "an unknown user"
        out.append({"in_process": entry.get("mode") == "in-process",
                    "user": f"{who} (the judge's own user)" if same is True else
                    f"{who} (not the judge's user{' ' + entry['judge_user'] if entry.get('judge_user') else ''})"
                    if same is False else who})
    return out


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
            columns = [k for k in ("reject", "undefined", "ambiguity") if k in columns]
        out[axis] = fitted({"columns": columns, "rows": [
            {"api": api, "cells": [_group(groups[(api, k)]) if (api, k) in groups else None for k in columns]}
            for api in apis if any((api, k) in groups for k in columns)]}, axis)
    return out


def fitted(matrix: dict[str, Any], name: str) -> dict[str, Any]:
    """A matrix with its id and the media query under which the page stacks its rows (the windows too
    narrow for it as a table): eleven dtypes do not fit 800 px as columns, and a table wider than the
    page would scroll."""
    need = MATRIX_API_PX + len(matrix["columns"]) * MATRIX_COLUMN_PX
    return {**matrix, "id": "m-" + name,
            "stacked": f"(max-width: {need + PAGE_MARGIN_PX}px)" if need <= PAGE_MAX_PX else "all"}


def map_rows(picture: dict[str, Any]) -> dict[str, Any]:
    """A byte map as SVG rows: runs of equal cells merged into one rectangle each, the squares of a run
    parted by white lines (`grid`) drawn over them."""
    codes = picture["cells"]
    rows = []
    for r in range(0, len(codes), MAP_COLUMNS):
        line = codes[r:r + MAP_COLUMNS]
        runs, start = [], 0
        for i in range(1, len(line) + 1):
            if i == len(line) or line[i] != line[start]:
                first = picture["start"] + (r + start) * picture["bytes_per_cell"]
                last = min(picture["start"] + (r + i) * picture["bytes_per_cell"], picture["end"]) - 1
                runs.append({"x": MAP_LABEL_PX + start * MAP_CELL_PX, "w": (i - start) * MAP_CELL_PX,
                             "kind": MAP_KIND[line[start]], "first": first, "last": last})
                start = i
        rows.append({"y": (r // MAP_COLUMNS) * MAP_ROW_PX,
                     "addr": picture["start"] + r * picture["bytes_per_cell"], "runs": runs})
    present = sorted(set(codes), key=list(LEGEND).index)
    height = len(rows) * MAP_ROW_PX - (MAP_ROW_PX - MAP_CELL_PX)
    grid = "".join(f"M{MAP_LABEL_PX + k * MAP_CELL_PX} 0V{height}" for k in range(MAP_COLUMNS + 1))
    return {**picture, "rows": rows, "cell_px": MAP_CELL_PX, "label_px": MAP_LABEL_PX, "grid": grid,
            "width": MAP_LABEL_PX + MAP_COLUMNS * MAP_CELL_PX, "height": height,
            "legend": [(MAP_KIND[c], LEGEND[c]) for c in present]}


def _scopes(diff: Any) -> list[dict[str, Any]]:
    """A diff (verdicts.compare) as the page's per-scope blocks, byte maps as SVG rows."""
    return [{"scope": scope, **info, "map": map_rows(info["map"]) if info.get("map") else None}
            for scope, info in (diff or {}).items() if isinstance(info, dict)]


def failure_view(failure: dict[str, Any], backend_spec: str, against: dict[str, Any] | None = None,
                 repro_folder: str = "") -> dict[str, Any]:
    """A failure's card; a divergence's (under --against), with where each differs from the oracle. Its
    replay command names the reproducer from where the run was started (`repro_folder`: the report folder
    as the run was given it)."""
    scopes = _scopes(failure.get("diff"))
    replay = replay_command(repro_folder + failure["reproducer"], backend_spec, *(
        (against.get("spec") or "B", against.get("oracle", True)) if against and failure["verdict"] == "DIVERGE"
        else ())) if failure.get("reproducer") else ""
    versus = [(who, {"summary": v.get("summary", ""), "scopes": _scopes(v.get("diff"))})
              for who, v in (failure.get("versus_oracle") or {}).items() if isinstance(v, dict)]
    import yaml                 # here: a page without failures shows no YAML
    call = yaml.safe_dump({"call": failure["call"], "memory": failure["memory"]}, sort_keys=False,
                          allow_unicode=True, width=100)
    return {**failure, "scopes": scopes, "replay": replay, "call_yaml": call, "versus": versus}


def agreement_matrix(cells: list[dict[str, Any]]) -> dict[str, Any]:
    """api x kind (legal / reject / undefined): did the two backends agree on every call."""
    groups: dict[tuple[str, str], list] = defaultdict(list)
    for c in cells:
        if c.get("agreement") or c.get("divergence"):
            groups[(c["cell"]["api"], c["cell"]["kind"])].append(c)
    columns = [k for k in ("legal", "reject", "undefined", "ambiguity") if any(kind == k for _, kind in groups)]
    rows = []
    for api in sorted({a for a, _ in groups}):
        row = []
        for k in columns:
            members = groups.get((api, k))
            if not members:
                row.append(None)
                continue
            counted: Counter[str] = Counter()
            for c in members:
                counted.update(c.get("agreement") or {})
            parted = [c["id"] for c in members if c.get("divergence")]
            row.append({"state": "fail" if parted or counted["DIVERGE"] else "pass",
                        "label": "DIVERGE" if parted or counted["DIVERGE"] else "AGREE", "calls": sum(counted.values()),
                        "edges": {"reachable": 0, "reached": 0},
                        "counts": {v: n for v, n in counted.items() if v != "AGREE"}, "cells": [c["id"] for c in members]})
        rows.append({"api": api, "cells": row})
    return fitted({"columns": columns, "rows": rows}, "agreement")


def product_view(results: dict[str, Any], product: str, rulebook: Rulebook, repro_folder: str = "") -> dict[str, Any]:
    cells = sorted((c for c in results["cells"] if c["cell"]["product"] == product), key=lambda c: c["id"])
    apis = sorted({c["cell"]["api"] for c in cells})
    counted = totals(cells)
    backend = {"name": "", "spec": "", "version": "", **(results.get("backend") or {})}
    meta = {**_META, **results}
    traced = [{"api": api, "title": rulebook.api(api).title, "page": rulebook.api(api).page,
               "supported": rulebook.api(api).supported_on(product),
               "rules": rule_rows(rulebook.api(api), cells, product, rulebook)} for api in apis]
    shown = banner(results, product)
    return {
        "product": rulebook.product(product) if product in rulebook.products else None,
        "product_id": product,
        "verdict": shown["verdict"], "banner": shown, "isolation": isolation_view(results.get("isolation")),
        "editions": edition_view(results.get("edition")),
        "certified": results.get("certify") if isinstance(results.get("certify"), dict) else None,
        "meta": meta, "backend": backend, "kit": _kits(results.get("kit")),
        "current_spec_hash": spec_hash(rulebook),
        "calls": calls(counted),
        "edges": edge_totals(cells),
        "totals": list(counted.items()),
        "states": Counter(cell_state(c) for c in cells),
        "ncells": len(cells), "missing": missing_cells(results, product),
        "matrix": matrices(cells, rulebook),
        "failures": [failure_view(c["failure"], backend.get("spec") or "B", None, repro_folder) | {"waived": c.get("waived")}
                     for c in cells if c.get("failure")],
        "against": results.get("against"),
        "agreement_matrix": agreement_matrix(cells),
        "agreement_totals": sorted(sum((Counter(c.get("agreement") or {}) for c in cells), Counter()).items()),
        "divergences": [failure_view(c["divergence"], backend.get("spec") or "A", results.get("against"), repro_folder)
                        for c in cells if c.get("divergence")],
        "errors": [{"id": c["id"], "error": cell_error(c)} for c in cells if c["status"] == "error"]
                  + [{"id": c["id"], "error": f"incomplete: {c['incomplete']}"} for c in cells
                     if cell_state(c) == "incomplete"]
                  + [{"id": "run", "error": e} for e in results.get("errors", [])]
                  + [{"id": cid, "error": why_missing(results)} for cid in missing_cells(results, product)],
        "traced": traced, "traced_rules": {r["id"] for t in traced for r in t["rules"]},
        "unexercised": sum(r["breakable"] and not r["exercised"] for t in traced for r in t["rules"]),
        "ambiguities": tally([a for a in results.get("ambiguities", []) if a["api"] in apis],
                             results.get("readings"), cells, product),
        "readings_text": readings_text(results.get("readings")),
        "waivers": results.get("waivers") or [],
        "legend": STATE_LABEL,
        "coverage": coverage_view(results.get("coverage"), apis),
    }


def _kits(kit: Any) -> str:
    """The kit (or, merged from several versions, the kits) that made the results."""
    kits = kit if isinstance(kit, list) else [kit] if kit else []
    return ", ".join(f"{k.get('name', '?')} {k.get('version', '?')}" if isinstance(k, dict) else str(k) for k in kits) \
        or "an unknown kit"


def _clean(value: Any) -> Any:
    """Results with every string (keys too) as HTML can hold it, cut to the length a page shows: the
    one place where what a backend sent is made fit for the page (jinja's autoescape then escapes the
    markup)."""
    if isinstance(value, str):
        if value.isascii() and value.isprintable() and len(value) <= SHOWN_CHARS:
            return value                # what markup(cut(value)) gives: most strings, asked at C speed
        return markup(cut(value))
    if isinstance(value, dict):
        return {_clean(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def breakable(text: str, after: str = "/.") -> markupsafe.Markup:
    """An id (cell, rule) that may break across lines after a '/' or a '.' (`after`), never inside a
    name: a <wbr> after each, the rest escaped."""
    parts = re.split(f"(?<=[{re.escape(after)}])(?=.)", text)
    return markupsafe.Markup("<wbr>").join(markupsafe.escape(part) for part in parts)


@functools.lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    """One environment per process (the page's template made once in it: _template)."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters["cellid"] = lambda text: "".join(ch if ch.isalnum() else "-" for ch in text)
    env.filters["wbr"] = breakable
    env.filters["when"] = lambda iso: (iso or "").replace("T", " ").replace("+00:00", " UTC")
    return env


@functools.lru_cache(maxsize=1)
def _template() -> jinja2.Template:
    """The page's template, compiled once per process (from its recorded code where that is current)."""
    return page_template(_environment(), TEMPLATES)


def record_page() -> None:
    """Record the code of the page's template (after editing templates/report.html.j2)."""
    record_page_code(_environment(), TEMPLATES)


def render(results: dict[str, Any], product: str, rulebook: Rulebook) -> str:
    """The HTML report of one product of a results.json, by the specs of `rulebook`."""
    return _render(_clean(results), product, rulebook)


def _render(clean: dict[str, Any], product: str, rulebook: Rulebook, repro_folder: str = "") -> str:
    """The page of results already passed through _clean (everything else on it comes from the specs)."""
    return _template().render(**product_view(clean, product, rulebook, repro_folder), map_columns=MAP_COLUMNS)


def report_name(product: str) -> str:
    """report-<product>.html, odd characters as '_': a plain file name whatever the id."""
    return "report-" + re.sub(r"[^A-Za-z0-9_.-]", "_", product) + ".html"


def render_reports(results: dict[str, Any], rulebook: Rulebook, products: Iterable[str] | None = None,
                   repro_folder: str = "") -> dict[str, str]:
    """{report-<product>.html: page} for every product of the results, by the specs of `rulebook`
    (`repro_folder`: put before the reproducers' paths in the replay commands, as junit_bytes does)."""
    chosen = products or results.get("products") or sorted({c["cell"]["product"] for c in results["cells"]})
    clean = _clean(results)
    return {report_name(p): _render(clean, p, rulebook, repro_folder) for p in chosen}
