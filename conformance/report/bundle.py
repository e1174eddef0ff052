"""The certification bundle: the report folder of a `certify` run plus what someone receiving it needs to
trust and re-check it without the person who ran it.

    report-<product>.html, results.json, junit.xml, repro/    (conformance/report/outputs.py)
    specs/            the spec files the verdicts were judged against (their hash is in the report)
    environment.json  kit, Python, packages, machine, the command line, the frozen case list's hash
    waivers.yaml      the waiver file, when one was given
    README.md         the verdict with what it covers, what each file is and how to replay a failure
    SHA256SUMS        a checksum of every other file (`sha256sum -c SHA256SUMS`)

No lock file is part of it: the run's lock lives outside the folder (conformance/commands/lock.py), and
one an earlier kit left in the folder is removed before the checksums are made.
"""
from __future__ import annotations

import datetime as dt
import os
import platform
import shutil
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Sequence

from oracle.spec import Rulebook

from conformance.report.attestation import NAME as STATEMENT
from conformance.report.attestation import PREDICATE_TYPE, statement_text
from conformance.report.bundle_files import ForeignFile, closed_list, digest, scan
from conformance.report.files import json_text, write_atomic
from conformance.report.ambiguities import verdict_text
from conformance.report.text import printable, replay_command

# The property-based pass of a certification always uses this seed, so two certifications of the same
# backend with the same kit and Hypothesis make the same calls.
CERTIFY_SEED = 0
# The lock file kits before this one kept in the report folder (conformance/commands/lock.py): a run's
# pid and host, no part of a certification.
LEGACY_LOCK_NAME = ".ascend-conformance.lock"
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


def readme_text(results: dict[str, Any], has_waivers: bool) -> str:
    """The bundle's README.md (the same text from the same results: `verify` makes it again)."""
    products = results["products"]
    backend = results["backend"]
    scope = results.get("scope") or {}
    covers = f"on {', '.join(products)}" if scope.get("complete", True) or not scope.get("tested") \
        else f"for {scope.get('text')} only"
    lines = [
        f"# Conformance certification: {printable(backend['name'], 200)} {printable(covers, 2000)}",
        "",
        f"Verdict: **{printable(verdict_text(results), 2000)}** ({results['calls']} calls in {len(results['cells'])} cells; "
        f"frozen case list {results['certify']['frozen_hash']}, then a property-based pass with seed "
        f"{results['seed']}, profile {results['profile']}).",
        "",
        *_scope_lines(results),
        *_challenge_lines(results),
        "No black-box run can catch an artefact that detects the kit's process and behaves only under it, or a "
        "certifier who swaps artefacts between runs. To rely on this bundle, run the artefact yourself, in your "
        "own environment, under a fresh challenge of your own and with a full sample "
        "(`verify --backend B --sample 1`).", "",
        *_artefact_lines(results),
        "| file | what it is |",
        "|---|---|",
        *[f"| `report-{p}.html` | the report for {p}: open it in any browser (it fetches nothing) |" for p in products],
        "| `results.json` | every cell's verdict counts, failures and the run's settings |",
        "| `junit.xml` | one test case per cell, for CI dashboards |",
        *(["| `repro/` | one reproducer per failure (call + memory) |"] if results["failures"] else []),
        "| `specs/` | the spec files the calls were judged against |",
        "| `environment.json` | kit, Python and package versions, machine, command line |",
        "| `evidence.jsonl.gz` | what the backend answered to every call judged (its digest is in results.json) |",
        "| `attestation.intoto.json` | an in-toto Statement: the artefact's digests, the verdict and its scope, "
        "ready to be signed |",
        *(["| `waivers.yaml` | the waivers applied (each with reason, tracker and expiry) |"] if has_waivers else []),
        "| `SHA256SUMS` | checksums of the other files: `sha256sum -c SHA256SUMS` |",
        "",
    ]
    lines += [
        "Check this bundle with your own kit (docs/certification.md of the kit says what each check proves):", "",
        "    ASCEND_CONFORMANCE_CHALLENGE=HEX ascend-conformance verify . [--backend B]", "",
        "`--backend B` runs a random sample of the calls on the artefact you hold: its answers must be the",
        "recorded ones. Sign the Statement with existing tools, for example:", "",
        "    cosign attest-blob --predicate attestation.intoto.json --type " + PREDICATE_TYPE + " --key KEY ARTEFACT",
        "    cosign verify-blob-attestation --key KEY.pub --type " + PREDICATE_TYPE + " --bundle SIG ARTEFACT", "",
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


def _challenge_lines(results: dict[str, Any]) -> list[str]:
    """Whether the calls and memory could have been known beforehand."""
    digest = (results.get("certify") or {}).get("challenge")
    if digest:
        return [f"Made under a challenge (its SHA-256: `{printable(digest, 80)}`): every seed and the memory "
                "images derive from it; `verify` with it in ASCEND_CONFORMANCE_CHALLENGE checks it is yours.", ""]
    return ["**Made without a challenge**: the calls and memory are the published ones (frozen list, seed 0, the "
            "published memory pool), which a backend could recognise. Ask for a certification under a challenge "
            "you pick (`certify --challenge-file FILE`).", ""]


def _artefact_lines(results: dict[str, Any]) -> list[str]:
    artefact = (results.get("certify") or {}).get("artefact") or {}
    lines = []
    if artefact.get("reference_derived"):
        lines = ["**Derived from the kit's reference**: the backend's `run` is the kit's own `OracleBackend.run` (not "
                 "overridden, or called by an override that only adds to it): this verdict is the reference's.", ""]
    if artefact.get("sha256"):
        where = printable(artefact.get("path") or artefact.get("name") or "", 500)
        version = f", version {printable(artefact['version'], 100)}" if artefact.get("version") else ""
        imports = f" and the {len(artefact['imports'])} modules its process imported" if artefact.get("imports") \
            else ""
        return lines + [f"Certified artefact: `{where}`{version}{imports}, SHA-256 `{artefact['sha256']}` (see "
                        "attestation.intoto.json for every digest).", ""]
    return lines + [f"Certified artefact: not named by digest ({printable(artefact.get('error') or 'unknown', 500)}).",
                    ""]


def _scope_lines(results: dict[str, Any]) -> list[str]:
    """What the verdict does not cover, said where no one can miss it: the apis and products the backend
    does not support were not tested at all."""
    scope = results.get("scope") or {}
    unsupported = scope.get("not_supported") or {}
    if not unsupported:
        return []
    tested = scope.get("tested") or {}
    covered = f"This verdict covers {printable(scope.get('text', ''), 2000)} only." if tested \
        else "Nothing was tested."
    lines = [covered, "",
             "Not tested (the backend declared it does not support them: NOT_SUPPORTED):", ""]
    return lines + [printable(f"- {api} on {', '.join(prods)}", 1000) for api, prods in unsupported.items()] + [""]


def bundle_files(results: dict[str, Any], rulebook: Rulebook) -> list[str]:
    """The closed list of the files a bundle of `results` holds (results.json records it)."""
    return closed_list(results, rulebook.files)


def write_bundle(folder: Path, results: dict[str, Any], *, waivers_file: str | None, argv: Sequence[str],
                 rulebook: Rulebook) -> Path:
    """Add the bundle's own files to a report folder already written by `write_outputs` (the specs: the
    files of `rulebook`, which judged the run); returns the checksum file. A file in the folder that is
    not on the bundle's closed list is a ValueError naming it: nothing but the kit writes there."""
    specs = folder / "specs"
    environment_text = json_text(environment(results, argv))
    readme = readme_text(results, bool(waivers_file))
    waivers = Path(waivers_file).read_bytes() if waivers_file else None
    if specs.exists():
        shutil.rmtree(specs)
    specs.mkdir()
    for name, text in sorted(rulebook.files.items()):
        write_atomic(specs / name, text)
    write_atomic(folder / "environment.json", environment_text)
    if waivers is not None:
        write_atomic(folder / "waivers.yaml", waivers)
    write_atomic(folder / "README.md", readme)
    write_atomic(folder / STATEMENT, statement_text(folder, results))
    legacy = folder / LEGACY_LOCK_NAME
    if legacy.is_symlink() or legacy.is_file():
        legacy.unlink()
    due = [name for name in bundle_files(results, rulebook) if name != "SHA256SUMS"]
    try:
        present = scan(folder)
    except ForeignFile as exc:
        raise ValueError(f"{printable(str(folder))}: {exc}") from None
    foreign = sorted(set(present) - set(due) - {"SHA256SUMS"})
    if foreign:
        raise ValueError(f"{printable(str(folder))}: {printable(foreign[0])}: not a file the kit writes in a bundle")
    listed = [name for name in due if name in present]
    return write_atomic(folder / "SHA256SUMS", "".join(f"{digest(folder, name)}  {name}\n" for name in listed))
