"""junit.xml for CI dashboards: one test suite per api/product, one test case per planned cell (a legal
dtype and form, or a rule), written beside results.json by every run.

A non-conforming cell is a <failure> whose text holds the verdict, the message and the command that
replays its reproducer; a cell that could not run, one that judged fewer calls than it planned or missed
an edge (INCOMPLETE), and a planned cell that left no result (the run was interrupted or stopped, its
worker was lost), is an <error> saying why; NOT_SUPPORTED and unreachable cells, and failures a waiver
covers, are <skipped> with the reason, so a dashboard shows them as such rather than as passes; a run
that tested nothing at all is an <error> of its own. The name of the <testsuites> and a property of
every suite give the verdict with its scope (and the shard, where the results are one). Cells are the
dicts of results.json (`results.cells`).

Every text and attribute goes through `text.markup`: XML 1.0 cannot hold some characters a backend may
send (NUL, ESC, lone surrogates), which are written as visible escapes instead.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path
from typing import Any, NamedTuple

from conformance.report.files import write_atomic
from conformance.report.results import calls, cell_error, failed, why_missing
from conformance.report.text import cut, markup, replay_command

MESSAGE_CHARS = 500      # of a message attribute; the element's text holds the whole message
_TAGS = {"failed": ("failure", "failures"), "error": ("error", "errors"), "skipped": ("skipped", "skipped")}


def _el(parent: ET.Element, tag: str, text: str | None = None, **attrs: Any) -> ET.Element:
    """A child element whose text and attributes XML 1.0 can hold, whatever they came from (the text
    is built of fields already cut to the length a report shows)."""
    node = ET.SubElement(parent, tag, {k: markup(v) for k, v in attrs.items()})
    if text is not None:
        node.text = markup(text)
    return node


def _message(text: Any) -> str:
    return markup(str(text)[:MESSAGE_CHARS])[:MESSAGE_CHARS]


def _case_name(cell: dict[str, Any]) -> str:
    if cell["kind"] == "legal":
        return "legal/" + "/".join(p for p in (cell.get("form"), cell.get("dtype")) if p)
    return f"{cell['kind']}/{cell.get('rule') or ''}"


class Outcome(NamedTuple):
    """What a cell comes to for a test runner: `kind` passed / failed / error / skipped, the `type` of a
    failure (its verdict) or an error, a one-line `message` and the whole `text`."""
    kind: str
    type: str | None = None
    message: str = ""
    text: str = ""


def cell_outcome(c: dict[str, Any], backend_spec: str, repro_folder: str = "") -> Outcome:
    """A cell of results.json as junit.xml and the pytest front end show it: a non-conforming cell fails
    with its verdict, message, rule and replay command; a cell that could not run or judged fewer calls
    than planned (INCOMPLETE) is an error; NOT_SUPPORTED, unreachable and waived cells are skipped, with why."""
    f = c.get("failure")
    if f and c.get("waived"):
        w = c["waived"]
        return Outcome("skipped", message=f"WAIVED {f['verdict']}: {w.get('reason')} ({w.get('tracker')}, "
                                          f"until {w.get('expires')})")
    if f:
        replay = replay_command(repro_folder + f["reproducer"], backend_spec) if f.get("reproducer") else ""
        text = "\n".join(x for x in (f"{f['verdict']}: {cut(f['message'])}", f"rule: {f['rule']}" if f.get("rule")
                                     else "", replay) if x)
        return Outcome("failed", f["verdict"], f["message"], text)
    if c["status"] == "error":
        why = cell_error(c)
        return Outcome("error", None, why, cut(why))
    if c["status"] == "ran" and c.get("incomplete") and not failed(c):
        said = f"INCOMPLETE: {c['incomplete']}"
        return Outcome("error", "INCOMPLETE", said, said)
    if c["status"] in ("not_supported", "unreachable"):
        return Outcome("skipped", message="NOT_SUPPORTED by the backend" if c["status"] == "not_supported"
                       else (c.get("error") or "unreachable"))
    return Outcome("passed")


def _planned_only(meta: dict[str, Any], cells: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Planned cells without a result, as cells in error (their api, product and name from the id)."""
    ran = {c["id"] for c in cells}
    why = why_missing(meta)
    out = []
    for cid in meta.get("planned") or []:
        parts = cid.split("/")
        if cid in ran or len(parts) < 3:
            continue
        out.append({"id": cid, "cell": {"api": parts[0], "product": parts[1], "kind": parts[2]},
                    "name": "/".join(parts[2:]), "status": "error", "counts": {}, "error": why})
    return out


def _agreement_case(suite: ET.Element, c: dict[str, Any], api: str, product: str, against: dict[str, Any],
                    backend: dict[str, Any], repro_folder: str, counts: dict[str, int]) -> None:
    """Under --against, a second case per cell: did the two backends agree on every call of it."""
    case = _el(suite, "testcase", classname=f"{api}.{product}.agreement",
               name="agreement/" + (c.get("name") or _case_name(c["cell"])), time="0.000")
    counts["tests"] += 1
    d = c.get("divergence")
    if d:
        replay = replay_command(repro_folder + d["reproducer"], backend.get("spec") or "A", against.get("spec") or "B",
                                against.get("oracle", True)) if d.get("reproducer") else ""
        _el(case, "failure", "\n".join(x for x in (f"DIVERGE from {against.get('name')}: {cut(d['message'])}", replay) if x),
            type="DIVERGE", message=_message(d["message"]))
        counts["failures"] += 1
    agreement = c.get("agreement") or {}
    if agreement:
        _el(case, "system-out", ", ".join(f"{v} {n}" for v, n in sorted(agreement.items())))


def junit_tree(meta: dict[str, Any], cells: list[dict[str, Any]], errors: list[str],
               repro_folder: str = "") -> ET.ElementTree:
    """`repro_folder` is put before the reproducers' paths (they are relative to results.json)."""
    backend = meta.get("backend") or {}
    against = meta.get("against")
    said = meta.get("verdict_text")         # a finished document's: the verdict, its scope, why
    root = ET.Element("testsuites", name=markup(f"ascend-conformance {backend.get('name', '')}".strip()
                                                + (f": {cut(said, MESSAGE_CHARS)}" if said else "")))
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for c in sorted([*cells, *_planned_only(meta, cells)], key=lambda c: c["id"]):
        groups[(c["cell"]["api"], c["cell"]["product"])].append(c)
    totals = defaultdict(int)
    for (api, product), members in sorted(groups.items()):
        suite = _el(root, "testsuite", name=f"{api}.{product}")
        props = _el(suite, "properties")
        for key in ("seed", "profile", "spec_hash", "stopped", "shard", "verdict", "verdict_text"):
            if meta.get(key) is not None:
                _el(props, "property", name=key, value=str(meta[key]))
        if meta.get("scope"):
            _el(props, "property", name="scope", value=_scope(meta["scope"]))
        counts = defaultdict(int)
        for c in members:
            case = _el(suite, "testcase", classname=f"{api}.{product}", name=c.get("name") or _case_name(c["cell"]),
                       time=f"{c.get('seconds') or 0:.3f}")
            counts["tests"] += 1
            outcome = cell_outcome(c, backend.get("spec") or "B", repro_folder)
            if outcome.kind != "passed":
                tag, counted = _TAGS[outcome.kind]
                _el(case, tag, None if tag == "skipped" else outcome.text, message=_message(outcome.message),
                    **({"type": outcome.type} if outcome.type else {}))
                counts[counted] += 1
            if c["counts"]:
                _el(case, "system-out", f"{calls(c['counts'])} calls: " + ", ".join(
                    f"{v} {n}" for v, n in sorted(c["counts"].items())))
            if against and c["status"] == "ran":
                _agreement_case(suite, c, api, product, against, backend, repro_folder, counts)
        for key in ("tests", "failures", "errors", "skipped"):
            suite.set(key, str(counts[key]))
            totals[key] += counts[key]
        suite.set("time", f"{sum(c.get('seconds') or 0 for c in members):.3f}")
    nothing = (meta.get("scope") or {}).get("nothing_tested") if meta.get("verdict") == "INCOMPLETE" else None
    if nothing:                          # every case skipped is no pass: a dashboard must not show green
        errors = [*errors, f"NOTHING TESTED: {nothing}"]
    if errors:                           # a cell that never reported (a worker that could not start)
        suite = _el(root, "testsuite", name="run", tests=str(len(errors)), errors=str(len(errors)),
                    failures="0", skipped="0")
        for i, message in enumerate(errors):
            case = _el(suite, "testcase", classname="run",
                       name="nothing-tested" if nothing and i == len(errors) - 1 else f"error-{i}")
            _el(case, "error", cut(message), message=_message(message))
        totals["tests"] += len(errors)
        totals["errors"] += len(errors)
    for key in ("tests", "failures", "errors", "skipped"):
        root.set(key, str(totals[key]))
    ET.indent(root)
    return ET.ElementTree(root)


def _scope(scope: dict[str, Any]) -> str:
    """'data_move on ascend910b (1 of 5 APIs; not supported: ...)', with the shard where it is one."""
    shard = scope.get("shard")
    notes = [n for n in (scope.get("detail"), shard and f"shard {shard['index']}/{shard['count']}") if n]
    return str(scope.get("text", "")) + (f" ({'; '.join(notes)})" if notes else "")


def junit_bytes(results: dict[str, Any], repro_folder: str = "") -> bytes:
    """junit.xml of a results document, as the bytes of the file."""
    root = junit_tree(results, results["cells"], results.get("errors") or [], repro_folder).getroot()
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"


def write_junit(folder: Path, results: dict[str, Any]) -> Path:
    """junit.xml of a results document, in `folder` (where its reproducers are)."""
    prefix = f"{folder}/" if str(folder) not in ("", ".") else ""
    return write_atomic(folder / "junit.xml", junit_bytes(results, prefix))
