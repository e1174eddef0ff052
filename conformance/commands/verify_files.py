"""`verify`'s reading of a bundle's files, each `lstat`ed before it is opened, bounded before it is read and
digested in blocks (conformance/report/bundle_files.py): the folder, results.json, the kit and specs it
was made with, environment.json, the evidence, and the outputs and checksums made again from results.

A file that is not what the kit writes is NotAsClaimed (exit 4); one that cannot be read, or a bundle
made by another kit or spec, a UsageError (exit 2). Each names the file in one line.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import os
import stat
import zlib
from pathlib import Path
from typing import Any

from oracle.spec import Rulebook

from conformance.commands.options import UsageError
from conformance.report import bundle_files as files
from conformance.report.text import printable

EVIDENCE_LIMIT = 512 << 20      # bytes of an evidence file read (unpacked), at most
ENVIRONMENT_LIMIT = 1 << 20     # bytes of an environment.json
# what environment.json says that results.json says too: checked against it
MIRRORED = ("backend", "kit", "spec_hash", "certify", "readings")


class NotAsClaimed(Exception):
    """The bundle is not what it claims: the message names the first difference."""


def read_bundle(folder: Path, rulebook: Rulebook) -> tuple[dict[str, os.stat_result], dict[str, Any]]:
    """Every file of the folder (lstat'ed; nothing but regular files and the kit's two folders) and its
    results.json, read and checked."""
    from conformance.report.results import ResultsError, parse_results
    try:
        info = os.lstat(folder)
    except OSError as exc:
        raise UsageError(f"{printable(str(folder))}: {exc.strerror or exc} (verify takes a bundle's folder)") \
            from None
    if not stat.S_ISDIR(info.st_mode):
        raise UsageError(f"{printable(str(folder))}: not a folder (verify takes a certification bundle's folder)")
    found = guarded(lambda: files.scan(folder))
    if "results.json" not in found:
        raise UsageError(f"{printable(str(folder / 'results.json'))}: missing: not a certification bundle")
    try:
        text = guarded(lambda: files.read_bytes(folder, "results.json")).decode("utf-8")
        return found, parse_results(text, printable(str(folder / "results.json")), rulebook)
    except UnicodeDecodeError:
        raise UsageError(f"{printable(str(folder / 'results.json'))}: not UTF-8 text") from None
    except ResultsError as exc:
        raise UsageError(str(exc)) from None


def guarded(read: Any) -> Any:
    """`read()`, its ForeignFile a NotAsClaimed and its FileFormatError a UsageError."""
    from conformance.report.untrusted import FileFormatError
    try:
        return read()
    except files.ForeignFile as exc:
        raise NotAsClaimed(str(exc)) from None
    except FileFormatError as exc:
        raise UsageError(str(exc)) from None


def environment_of(folder: Path) -> dict[str, Any]:
    try:
        data = json.loads(guarded(lambda: files.read_bytes(folder, "environment.json", ENVIRONMENT_LIMIT)))
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise UsageError(f"{printable(str(folder / 'environment.json'))}: not a JSON object: not a certification "
                         "bundle")
    return data


def same_kit(folder: Path, results: dict[str, Any], environment: dict[str, Any], rulebook: Rulebook) -> str | None:
    """Exit 2 where the receiver's kit, specs or frozen list are not the certification's; the Hypothesis
    release the property pass was drawn with, where it is not this kit's (None where it is)."""
    import hypothesis

    from conformance.backends.contract import kit_version
    from conformance.generate.frozen import frozen_hash
    from conformance.report.results import spec_hash
    certified = results.get("certify") or {}
    if not certified:
        raise UsageError(f"{printable(str(folder / 'results.json'))}: certify: missing: not a certification bundle")
    ours = {"kit version": ((results.get("kit") or {}).get("version"), kit_version()),
            "spec hash": (results.get("spec_hash"), spec_hash(rulebook)),
            "frozen list": (certified.get("frozen_hash"), frozen_hash())}
    for what, (theirs, mine) in ours.items():
        if theirs != mine:
            raise UsageError(f"{printable(str(folder))}: made with {what} {printable(str(theirs), 80)}, this kit has "
                             f"{mine}: verify it with the kit that made it")
    release = (environment.get("packages") or {}).get("hypothesis")
    if not isinstance(release, str) or not release:
        raise UsageError(f"{printable(str(folder / 'environment.json'))}: packages.hypothesis: missing")
    return None if release == hypothesis.__version__ else printable(release, 40)


def same_specs(folder: Path, rulebook: Rulebook) -> None:
    """The bundle's specs/ are this kit's rulebook, file by file (exit 2 naming the first difference)."""
    for name, text in sorted(rulebook.files.items()):
        theirs = guarded(lambda: files.read_bytes(folder, f"specs/{name}"))
        mine = text.encode("utf-8")
        if theirs != mine:
            line = _first_difference(theirs, mine)
            raise UsageError(f"{printable(str(folder))}: specs/{printable(name)}: line {line} differs from this kit's "
                             "rulebook: the calls were judged by other rules than this kit's")


def _first_difference(theirs: bytes, mine: bytes) -> int:
    for number, (a, b) in enumerate(zip(theirs.splitlines(), mine.splitlines()), start=1):
        if a != b:
            return number
    return min(theirs.count(b"\n"), mine.count(b"\n")) + 1


def same_environment(environment: dict[str, Any], results: dict[str, Any], verdict: str) -> str:
    """What environment.json says that results.json says too must be the same; the rest (Python, package
    versions, machine, date, command line) is the certifier's claim: the line that says so."""
    for name in MIRRORED:
        if environment.get(name, {} if name == "readings" else None) != results.get(name, {} if name == "readings"
                                                                                 else None):
            raise NotAsClaimed(f"environment.json: {name}: not what results.json says")
    if environment.get("verdict") != verdict:
        raise NotAsClaimed("environment.json: verdict: not the verdict judged again here")
    return ("environment.json: the Python, package versions, machine, date and command line it names are the "
            "certifier's claim, not checked")


def read_evidence(folder: Path, results: dict[str, Any]) -> bytes:
    """The evidence file's unpacked text, its digest checked against results.json's (read in blocks,
    unpacked to EVIDENCE_LIMIT at most)."""
    said = results.get("evidence") or {}
    name = said.get("file")
    if not isinstance(name, str) or "/" in name or not name:
        raise UsageError(f"{printable(str(folder / 'results.json'))}: evidence.file: missing: a bundle made without "
                         "evidence")
    if guarded(lambda: files.digest(folder, name)) != said.get("sha256"):
        raise NotAsClaimed(f"{printable(name)}: its SHA-256 is not the one results.json's evidence.sha256 records")
    with guarded(lambda: files.opened(folder, name)) as raw:
        try:
            with gzip.GzipFile(fileobj=raw) as f:
                text = f.read(EVIDENCE_LIMIT + 1)
        except (OSError, EOFError, zlib.error) as exc:
            raise UsageError(f"{printable(str(folder / name))}: not gzip data ({exc})") from None
    if len(text) > EVIDENCE_LIMIT:
        raise UsageError(f"{printable(str(folder / name))}: more than {EVIDENCE_LIMIT >> 20} MiB unpacked")
    return text


def same_outputs(folder: Path, results: dict[str, Any], rulebook: Rulebook) -> None:
    """The HTML, JUnit, README and attestation made again from results.json are the bundle's, and
    SHA256SUMS lists every other file of the closed list with its checksum."""
    from conformance.report.attestation import NAME as STATEMENT
    from conformance.report.attestation import statement_text
    from conformance.report.bundle import readme_text
    from conformance.report.outputs import render_outputs
    text = guarded(lambda: files.read_bytes(folder, "results.json")).decode("utf-8")
    # made as the run made them: with the folder named as the command line named it (replay commands)
    made = render_outputs(json.loads(text), Path((results.get("certify") or {}).get("folder") or folder), rulebook)
    for name, content in made.items():
        if name == "junit.xml" or name.endswith(".html") or name.startswith("repro/"):
            _same_file(folder, name, content if isinstance(content, bytes) else content.encode())
    _same_file(folder, "README.md", readme_text(results, results.get("waivers") is not None).encode())
    _same_file(folder, STATEMENT, statement_text(folder, results).encode())
    listed = {}
    sums = guarded(lambda: files.read_bytes(folder, "SHA256SUMS", 16 << 20)).decode("utf-8", "replace")
    for line in sums.splitlines():
        digest, _, name = line.partition("  ")
        listed[name] = digest
    due = [name for name in (results.get("certify") or {}).get("files") or [] if name != "SHA256SUMS"]
    if sorted(listed) != sorted(due):
        odd = sorted(set(listed) ^ set(due))
        raise NotAsClaimed(f"SHA256SUMS: does not list the bundle's files ({printable(', '.join(odd[:3]), 300)})")
    for name, digest in listed.items():
        if guarded(lambda: files.digest(folder, name)) != digest:
            raise NotAsClaimed(f"SHA256SUMS: {printable(name)}: its checksum is not the file's")


def _same_file(folder: Path, name: str, made: bytes) -> None:
    try:
        kept = guarded(lambda: files.read_bytes(folder, name))
    except NotAsClaimed:
        raise NotAsClaimed(f"{printable(name)}: missing from the bundle, or not a regular file") from None
    if kept != made:
        raise NotAsClaimed(f"{printable(name)}: not what results.json makes of it")


def results_sha256(folder: Path) -> str:
    return hashlib.sha256(guarded(lambda: files.read_bytes(folder, "results.json"))).hexdigest()
