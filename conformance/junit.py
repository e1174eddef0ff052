"""junit.xml for CI dashboards: one test suite per api/product, one test case per cell (a legal dtype and
form, or a rule), written beside results.json by every run.

A non-conforming cell is a <failure> whose text holds the verdict, the message and the command that
replays its reproducer; a cell that could not run is an <error>; NOT_SUPPORTED and unreachable cells,
and failures a waiver covers, are <skipped> with the reason, so a dashboard shows them as such rather
than as passes. Cells are the dicts of results.json (`results.cells`).
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path
from typing import Any

from .results import calls



def _case_name(cell: dict[str, Any]) -> str:
    if cell["kind"] == "legal":
        return "legal/" + "/".join(p for p in (cell.get("form"), cell.get("dtype")) if p)
    return f"{cell['kind']}/{cell.get('rule') or ''}"


def junit_tree(meta: dict[str, Any], cells: list[dict[str, Any]], errors: list[str],
               repro_folder: str = "") -> ET.ElementTree:
    """`repro_folder` is put before the reproducers' paths (they are relative to results.json)."""
    root = ET.Element("testsuites", name=f"ascend-conformance {meta.get('backend', {}).get('name', '')}".strip())
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for c in sorted(cells, key=lambda c: c["id"]):
        groups[(c["cell"]["api"], c["cell"]["product"])].append(c)
    totals = defaultdict(int)
    for (api, product), members in sorted(groups.items()):
        suite = ET.SubElement(root, "testsuite", name=f"{api}.{product}")
        props = ET.SubElement(suite, "properties")
        for key in ("seed", "profile", "spec_hash"):
            if key in meta:
                ET.SubElement(props, "property", name=key, value=str(meta[key]))
        counts = defaultdict(int)
        for c in members:
            case = ET.SubElement(suite, "testcase", classname=f"{api}.{product}", name=_case_name(c["cell"]),
                                 time=f"{c.get('seconds') or 0:.3f}")
            ran = calls(c["counts"])
            counts["tests"] += 1
            f = c.get("failure")
            if f and c.get("waived"):
                w = c["waived"]
                ET.SubElement(case, "skipped", message=f"WAIVED {f['verdict']}: {w['reason']} "
                                                       f"({w['tracker']}, until {w['expires']})"[:500])
                counts["skipped"] += 1
            elif f:
                node = ET.SubElement(case, "failure", type=f["verdict"], message=f["message"][:500])
                replay = f"ascend-conformance replay {repro_folder}{f['reproducer']} " \
                         f"--backend {meta.get('backend', {}).get('spec', 'B')}" if f.get("reproducer") else ""
                node.text = "\n".join(x for x in (f"{f['verdict']}: {f['message']}",
                                                   f"rule: {f['rule']}" if f.get("rule") else "", replay) if x)
                counts["failures"] += 1
            elif c["status"] == "error":
                ET.SubElement(case, "error", message=(c.get("error") or "error")[:500]).text = c.get("error")
                counts["errors"] += 1
            elif c["status"] in ("not_supported", "unreachable"):
                reason = "NOT_SUPPORTED by the backend" if c["status"] == "not_supported" \
                    else (c.get("error") or "unreachable")
                ET.SubElement(case, "skipped", message=reason[:500])
                counts["skipped"] += 1
            ET.SubElement(case, "system-out").text = f"{ran} calls: " + ", ".join(
                f"{v} {n}" for v, n in sorted(c["counts"].items()))
        for key in ("tests", "failures", "errors", "skipped"):
            suite.set(key, str(counts[key]))
            totals[key] += counts[key]
        suite.set("time", f"{sum(c.get('seconds') or 0 for c in members):.3f}")
    if errors:                           # a cell that never reported (a worker that could not start)
        suite = ET.SubElement(root, "testsuite", name="run", tests=str(len(errors)), errors=str(len(errors)),
                              failures="0", skipped="0")
        for i, message in enumerate(errors):
            case = ET.SubElement(suite, "testcase", classname="run", name=f"error-{i}")
            ET.SubElement(case, "error", message=message[:500]).text = message
        totals["tests"] += len(errors)
        totals["errors"] += len(errors)
    for key in ("tests", "failures", "errors", "skipped"):
        root.set(key, str(totals[key]))
    ET.indent(root)
    return ET.ElementTree(root)


def write_junit(folder: Path, results: dict[str, Any]) -> Path:
    """junit.xml of a results document, in `folder` (where its reproducers are)."""
    out = folder / "junit.xml"
    prefix = f"{folder}/" if str(folder) not in ("", ".") else ""
    junit_tree(results, results["cells"], results.get("errors") or [], prefix).write(
        out, encoding="utf-8", xml_declaration=True)
    return out
