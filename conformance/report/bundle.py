"""The certification bundle: the report folder of a `certify` run plus what someone receiving it needs to
trust and re-check it without the person who ran it.

    report-<product>.html, results.json, junit.xml, repro/    (conformance/report/outputs.py)
    specs/            the spec files the verdicts were judged against (their hash is in the report)
    environment.json  kit, Python, packages, machine, the command line, the frozen case list's hash
    waivers.yaml      the waiver file, when one was given
    README.md         what each file is and how to replay a failure
    SHA256SUMS        a checksum of every other file (`sha256sum -c SHA256SUMS`)
"""
from __future__ import annotations

import datetime as dt
import hashlib
import os
import platform
import shutil
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Sequence

from oracle.spec import default_rulebook

from conformance.report.files import json_text, write_atomic
from conformance.report.readings import verdict_text
from conformance.report.text import printable, replay_command

# The property-based pass of a certification always uses this seed, so two certifications of the same
# backend with the same kit and Hypothesis make the same calls.
CERTIFY_SEED = 0
PACKAGES = ("ascend-conformance", "hypothesis", "numpy", "pytest", "pytest-xdist", "pyyaml", "jsonschema", "jinja2")


def environment(results: dict[str, Any], argv: Sequence[str]) -> dict[str, Any]:
    """Where and with what the certification ran."""
    packages = {}
    for name in PACKAGES:
        try:
            packages[name] = version(name)
        except PackageNotFoundError:
            packages[name] = None
    return {
        "command": list(argv),
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "backend": results.get("backend"),
        "kit": results.get("kit"),
        "spec_hash": results.get("spec_hash"),
        "certify": results.get("certify"),
        "readings": results.get("readings") or {},
        "verdict": verdict_text(results),
        "python": {"version": platform.python_version(), "implementation": platform.python_implementation(),
                   "executable": sys.executable},
        "packages": packages,
        "machine": {"platform": platform.platform(), "machine": platform.machine(), "node": platform.node(),
                    "cpus": os.cpu_count()},
    }


def _readme(results: dict[str, Any], has_waivers: bool) -> str:
    products = results["products"]
    backend = results["backend"]
    lines = [
        f"# Conformance certification: {printable(backend['name'], 200)} on {', '.join(products)}",
        "",
        f"Verdict: **{printable(verdict_text(results), 2000)}** ({results['calls']} calls in {len(results['cells'])} cells; "
        f"frozen case list {results['certify']['frozen_hash']}, then a property-based pass with seed "
        f"{results['seed']}, profile {results['profile']}).",
        "",
        "| file | what it is |",
        "|---|---|",
        *[f"| `report-{p}.html` | the report for {p}: open it in any browser (it fetches nothing) |" for p in products],
        "| `results.json` | every cell's verdict counts, failures and the run's settings |",
        "| `junit.xml` | one test case per cell, for CI dashboards |",
        *(["| `repro/` | one reproducer per failure (call + memory) |"] if results["failures"] else []),
        "| `specs/` | the spec files the calls were judged against |",
        "| `environment.json` | kit, Python and package versions, machine, command line |",
        *(["| `waivers.yaml` | the waivers applied (each with reason, tracker and expiry) |"] if has_waivers else []),
        "| `SHA256SUMS` | checksums of the other files: `sha256sum -c SHA256SUMS` |",
        "",
    ]
    if results.get("readings"):
        lines += ["Readings declared (where the pages can be read two ways; README, \"Readings\"):", "",
                  *[printable(f"- `{amb}` = `{r['reading']}` (declared by {r['by']})", 1000)
                    for amb, r in sorted(results["readings"].items())], ""]
    if results["failures"]:
        lines += [
            "Replay a failure from this folder with the kit installed:",
            "",
            "    " + printable(replay_command("repro/FILE.yaml", backend["spec"], readings={
                amb: r["reading"] for amb, r in (results.get("readings") or {}).items() if r.get("by") == "command line"}),
                1000),
            "",
            "and explain what the documentation asks of its call with `ascend-conformance check repro/<file>.yaml`.",
            "",
        ]
    return "\n".join(lines)


def write_bundle(folder: Path, results: dict[str, Any], *, waivers_file: str | None, argv: Sequence[str]) -> Path:
    """Add the bundle's own files to a report folder already written by `write_outputs`; returns the
    checksum file."""
    specs = folder / "specs"
    environment_text = json_text(environment(results, argv))
    readme = _readme(results, bool(waivers_file))
    waivers = Path(waivers_file).read_bytes() if waivers_file else None
    if specs.exists():
        shutil.rmtree(specs)
    specs.mkdir()
    for name, text in sorted(default_rulebook().files.items()):
        write_atomic(specs / name, text)
    write_atomic(folder / "environment.json", environment_text)
    if waivers is not None:
        write_atomic(folder / "waivers.yaml", waivers)
    write_atomic(folder / "README.md", readme)
    sums = folder / "SHA256SUMS"
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p != sums)
    return write_atomic(sums, "".join(f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.relative_to(folder).as_posix()}\n"
                                      for p in files))
