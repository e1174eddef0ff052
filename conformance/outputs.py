"""The report folder: everything a run (or `report`, or `certify`) leaves for people and dashboards,
all made from one results document:

    results.json            every cell's verdict counts and failures (conformance/results.py)
    junit.xml               one test case per cell, for CI dashboards (conformance/junit.py)
    report-<product>.html   one self-contained page per product (conformance/htmlreport.py)
    repro/<cell>.yaml       one reproducer per failure: `ascend-conformance replay FILE --backend B`

Reproducer paths in results.json are relative to the folder, so a folder handed on keeps working.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

from .htmlreport import write_reports
from .junit import write_junit

REPRO_FIELDS = ("cell", "verdict", "message", "expect", "rule", "call", "memory")


def reproducer_name(cell_id: str, kind: str = "") -> str:
    """repro/<cell id with every run of odd characters as '__'>[.<kind>].yaml (kind: 'diverge' for the call
    two backends parted on, under --against)"""
    return "repro/" + re.sub(r"[^A-Za-z0-9_.-]+", "__", cell_id) + (f".{kind}" if kind else "") + ".yaml"


def reproducer_text(failure: dict[str, Any]) -> str:
    body = {k: failure[k] for k in REPRO_FIELDS}
    head = ("# ascend-conformance reproducer: one call and the memory it ran on.\n"
            "#   ascend-conformance check THIS_FILE                 legality and expected image\n"
            "#   ascend-conformance replay THIS_FILE --backend B    run it again on a backend\n")
    return head + yaml.safe_dump(body, sort_keys=False, allow_unicode=True, width=110)


def write_reproducers(results: dict[str, Any], folder: Path) -> None:
    """repro/<cell>.yaml for every failure (waived ones too), recorded as `failure.reproducer`; the
    reproducers of an earlier run in the folder go first, so each file there is one of this report."""
    for old in (folder / "repro").glob("*.yaml"):
        old.unlink()
    divergences = (results.get("agreement") or {}).get("divergences", [])
    for failure in results["failures"] + divergences:
        name = reproducer_name(failure["cell"], "diverge" if failure["verdict"] == "DIVERGE" else "")
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(reproducer_text(failure), encoding="utf-8")
        failure["reproducer"] = name


def write_outputs(results: dict[str, Any], folder: Path | str) -> dict[str, Any]:
    """Write the whole report folder for `results` (a finished results document) and return the paths
    written: {"results": ..., "junit": ..., "html": [...], "repro": [...]}."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    write_reproducers(results, folder)
    out = folder / "results.json"
    out.write_text(json.dumps(results, indent=1, ensure_ascii=False), encoding="utf-8")
    return {"results": out, "junit": write_junit(folder, results), "html": write_reports(results, folder),
            "repro": [folder / f["reproducer"] for f in results["failures"]]}
