"""`ascend-conformance verify BUNDLE [--backend B] [--sample F] [--challenge HEX]`: a certification
bundle checked by whoever received it, with their own kit.

1. The bundle was made by this kit and these specs (kit version, spec hash, frozen list, Hypothesis's
   version: the calls are drawn again, so they must be drawn the same way), else exit 2 naming which.
2. Under the challenge the receiver gives, if the bundle says it was made under one (exit 4 if not).
3. Every call of every cell is drawn again and judged again against the answer the evidence recorded
   for it (conformance/judge/recorded.py): the calls must be the ones recorded, and every verdict, count,
   edge, shrunk failure and the overall verdict must come out as results.json says.
4. results.json, the HTML, JUnit, the README, the attestation and SHA256SUMS say the same.
5. With `--backend B`, a random sample of the calls (chosen here, now) is run on B: its answers must be
   the recorded ones, so the bundle is known to describe that artefact.

Exit 0: it checks out and is CONFORMANT; 1: it checks out and is not; 4: it is not what it claims (the
first difference: file, cell, call, field); 2: unreadable, or made by another kit or spec.
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import secrets
from pathlib import Path
from typing import Any

from conformance.commands.options import Options, EXIT_NONCONFORMING, EXIT_OK, UsageError

EXIT_NOT_AS_CLAIMED = 4
EVIDENCE_LIMIT = 512 << 20      # bytes of an evidence file read (unpacked), at most
NEVER = 1 << 62                 # a shrinking budget that never runs out: the run's did not
# what a cell's result must say alike, recorded and drawn again
SAME_FIELDS = ("status", "counts", "frozen_calls", "sweep_calls", "shrink_calls", "tags", "edges", "planned_calls",
               "exhausted", "incomplete")


class NotAsClaimed(Exception):
    """The bundle is not what it claims: the message names the first difference."""


def cmd_verify(args: Options) -> int:
    from conformance.backends.processes import out_of_reach
    from conformance.judge import evidence
    from conformance.report.text import printable
    out_of_reach()
    folder = Path(args.bundle)
    if not folder.is_dir():
        raise UsageError(f"{printable(str(folder))}: not a folder (verify takes a certification bundle's folder)")
    results = _results(folder)
    _same_kit(folder, results)
    try:
        challenge = _challenge(args, results)
        parts = _evidence(folder, results)
        try:
            derived, kept = _derive(results, parts, challenge, args.sample if args.backend else 0)
        finally:
            evidence.sampling(None)
        _same_results(results, derived)
        _same_outputs(folder, results)
        if args.backend:
            _same_artefact(args.backend, results)
            _same_answers(args.backend, kept, results, args.timeout)
    except NotAsClaimed as exc:
        print(printable(f"NOT AS CLAIMED: {exc}"))
        return EXIT_NOT_AS_CLAIMED
    from conformance.report.ambiguities import verdict_text
    checked = sum(len(p["entries"]) for p in parts.values())
    sampled = f"; {len(kept)} calls run again on {args.backend}" if args.backend else \
        "; the artefact itself not run (--backend B runs a sample of the calls on it)"
    print(printable(f"VERIFIED: {verdict_text(results)}: {checked} calls drawn and judged again"
                    f"{', under the challenge given' if challenge else ', made without a challenge'}{sampled}"))
    return EXIT_OK if results["verdict"] == "CONFORMANT" else EXIT_NONCONFORMING


# ---------------------------------------------------------------------------------------------- reading

def _results(folder: Path) -> dict[str, Any]:
    from oracle.spec import default_rulebook

    from conformance.report.results import ResultsError, load_results
    try:
        return load_results(folder / "results.json", default_rulebook())
    except ResultsError as exc:
        raise UsageError(str(exc)) from None


def _same_kit(folder: Path, results: dict[str, Any]) -> None:
    """Exit 2 where the receiver's kit could not draw the same calls."""
    import hypothesis

    from oracle.spec import default_rulebook

    from conformance.backends.contract import kit_version
    from conformance.generate.frozen import frozen_hash
    from conformance.report.results import spec_hash
    certified = results.get("certify") or {}
    ours = {"kit version": ((results.get("kit") or {}).get("version"), kit_version()),
            "spec hash": (results.get("spec_hash"), spec_hash(default_rulebook())),
            "frozen list": (certified.get("frozen_hash"), frozen_hash())}
    try:
        environment = json.loads((folder / "environment.json").read_text(encoding="utf-8"))
        theirs = (environment.get("packages") or {}).get("hypothesis")
        ours["hypothesis version"] = (theirs, hypothesis.__version__)
    except (OSError, ValueError, AttributeError):
        raise UsageError(f"{folder / 'environment.json'}: missing or not JSON: "
                         "not a certification bundle") from None
    if not certified:
        raise UsageError(f"{folder / 'results.json'}: certify: missing: not a certification bundle")
    for what, (theirs, mine) in ours.items():
        if theirs != mine:
            raise UsageError(f"{folder}: made with {what} {theirs}, this kit has {mine}: verify it with the kit "
                             "that made it")


def _challenge(args: Options, results: dict[str, Any]):
    from conformance.generate.challenge import Challenge, ChallengeError
    recorded = (results.get("certify") or {}).get("challenge")
    if args.challenge is None:
        if recorded:
            raise UsageError("the bundle was made under a challenge: give it with --challenge HEX")
        return None
    try:
        challenge = Challenge.parse(args.challenge)
    except ChallengeError as exc:
        raise UsageError(f"--challenge: {exc}") from None
    if recorded != challenge.digest:
        raise NotAsClaimed(f"results.json: certify.challenge: the bundle was made "
                     f"{'under another challenge' if recorded else 'without a challenge'}")
    return challenge


def _evidence(folder: Path, results: dict[str, Any]) -> dict[tuple[str, int], dict[str, Any]]:
    """(cell id, part) -> that part's evidence, the file's digest checked against results.json's."""
    from conformance.judge.evidence import parse
    said = results.get("evidence") or {}
    name = said.get("file")
    if not isinstance(name, str) or "/" in name or not name:
        raise UsageError(f"{folder / 'results.json'}: evidence.file: missing: a bundle made without evidence")
    path = folder / name
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"{path}: {exc.strerror or exc}") from None
    if hashlib.sha256(raw).hexdigest() != said.get("sha256"):
        raise NotAsClaimed(f"{name}: its SHA-256 is not the one results.json's evidence.sha256 records")
    try:
        with gzip.GzipFile(fileobj=__import__("io").BytesIO(raw)) as f:
            text = f.read(EVIDENCE_LIMIT + 1)
    except (OSError, EOFError) as exc:
        raise UsageError(f"{path}: not gzip data ({exc})") from None
    if len(text) > EVIDENCE_LIMIT:
        raise UsageError(f"{path}: more than {EVIDENCE_LIMIT >> 20} MiB unpacked")
    parts: dict[tuple[str, int], dict[str, Any]] = {}
    for number, line in enumerate(text.decode("utf-8", "replace").splitlines(), start=1):
        try:
            data = json.loads(line)
            key = (data["cell"], data["part"])
            if not isinstance(key[0], str) or not isinstance(key[1], int) or key in parts:
                raise ValueError("cell and part must be a string and an integer, once each")
            stopped = data.get("shrink_stopped")
            if stopped is not None and not isinstance(stopped, int):
                raise ValueError("shrink_stopped must be an integer")
            for entry in data["entries"]:
                parse(entry)
        except (ValueError, KeyError, TypeError) as exc:
            raise UsageError(f"{path}, line {number}: {exc}") from None
        parts[key] = data
    return parts


# ---------------------------------------------------------------------------------------------- deriving

def _derive(results: dict[str, Any], parts: dict[tuple[str, int], dict[str, Any]], challenge: Any,
            sample: float) -> tuple[dict[str, dict[str, Any]], list[tuple[str, int, Any, str]]]:
    """Every cell drawn and judged again against its evidence: cell id -> its result; and the calls kept
    for --backend: (cell id, index, case, recorded answer)."""
    from oracle.spec import default_rulebook

    from conformance.commands.options import ambiguity_ids
    from conformance.generate.cells import cells
    from conformance.generate.challenge import from_pool
    from conformance.generate.frozen import load_frozen
    from conformance.generate.profiles import profile
    from conformance.judge import evidence
    from conformance.judge.recorded import Recorded
    from conformance.judge.runner import run_cell
    from conformance.report.results import combine_runs
    from conformance.supervise.plan import plan
    readings = _readings(results)
    rulebook = default_rulebook()
    rulebook.with_readings(readings)            # an unknown reading: a ValueError before any cell is drawn
    entered = ambiguity_ids(results["apis"], readings, False)
    chosen = cells(results["products"], results["apis"], rulebook=rulebook, ambiguities=entered)
    if sorted(c.id for c in chosen) != sorted(results["planned"]):
        raise NotAsClaimed("results.json: planned: not the cells a certification of its products and apis plans")
    seed = challenge.seed if challenge is not None else results["seed"]
    pool = challenge.pool if challenge is not None else 0
    recorded = {c["id"]: c for c in results["cells"]}
    frozen = load_frozen()
    evidence.sampling((lambda i: secrets.randbelow(1_000_000) < sample * 1_000_000) if sample > 0 else None)
    arrived: dict[str, list[dict[str, Any]]] = {}
    kept: list[tuple[str, int, Any, str]] = []
    tasks = plan(chosen, profile(results["profile"]), seed, rulebook, frozen=True)
    for task in sorted(tasks, key=lambda t: (t.cell.id, t.part)):
        cell = recorded.get(task.cell.id)
        if cell is None:
            raise NotAsClaimed(f"results.json: cells: {task.cell.id}: planned, but no result recorded")
        part = parts.get((task.cell.id, task.part))
        lost = part is None and (cell.get("failure") or {}).get("verdict") == "CRASH"
        if cell["status"] == "error" or lost:
            continue            # a worker lost: nothing to draw again (the verdict is not CONFORMANT)
        if part is None and cell["status"] != "not_supported":
            raise NotAsClaimed(f"evidence: {task.cell.id} (part {task.part}): no evidence recorded")
        entries = part["entries"] if part else []
        backend = Recorded(entries, cell["status"] != "not_supported", readings)
        cases = from_pool(frozen.get(task.cell.id, ()) if task.frozen else (), pool)
        result = run_cell(task.cell, backend, task.profile, task.seed, cases, None,
                          None if task.part == 0 else False, rulebook=rulebook, readings=readings, pool=pool,
                          shrink_stop=_stop((part or {}).get("shrink_stopped")))
        drawn = (result.evidence or {}).get("entries") or []
        _same_entries(task.cell.id, task.part, entries, drawn)
        kept += [(task.cell.id, i, case, entries[i].partition(" ")[2]) for i, case in evidence.kept()]
        arrived.setdefault(task.cell.id, []).append(result.to_dict())
    return {cell_id: combine_runs(same) for cell_id, same in arrived.items()}, kept


def _stop(recorded: int | None) -> int:
    """The shrinking budget of a part drawn again: where the run's ran out, or never."""
    return NEVER if recorded is None else recorded


def _readings(results: dict[str, Any]) -> dict[str, str]:
    return {amb: r["reading"] for amb, r in (results.get("readings") or {}).items()}


def _same_entries(cell: str, part: int, recorded: list[str], drawn: list[str]) -> None:
    from conformance.judge.evidence import EQUAL
    where = f"evidence: {cell}" + (f" (part {part})" if part else "")
    for i, (mine, theirs) in enumerate(zip(drawn, recorded)):
        my_call, _, my_answer = mine.partition(" ")
        their_call, _, their_answer = theirs.partition(" ")
        if my_call != their_call:
            raise NotAsClaimed(f"{where}: call {i}: the call drawn again is not the one recorded ({my_call} here, "
                               f"{their_call} recorded)")
        both_digests = my_answer.startswith("sha256:") and their_answer.startswith("sha256:")
        if my_answer != their_answer and (EQUAL in (my_answer, their_answer) or not both_digests):
            raise NotAsClaimed(f"{where}: call {i}: answer: judged again as {my_answer!r}, "
                               f"recorded {their_answer!r}")
    if len(drawn) != len(recorded):
        raise NotAsClaimed(f"{where}: {len(recorded)} answers recorded, {len(drawn)} calls judged "
                           "drawing it again")


def _same_results(results: dict[str, Any], derived: dict[str, dict[str, Any]]) -> None:
    """Every cell as results.json records it, and the overall verdict the cells give."""
    from conformance.report.results import finish
    for cell in results["cells"]:
        mine = derived.get(cell["id"])
        if mine is None:
            continue
        for name in SAME_FIELDS:
            if name in cell and (cell.get(name) or None) != (mine.get(name) or None):
                raise NotAsClaimed(f"results.json: cells: {cell['id']}: {name}: {_short(cell.get(name))} "
                                   f"recorded, {_short(mine.get(name))} judging it again")
        theirs, ours = cell.get("failure") or {}, mine.get("failure") or {}
        for name in ("verdict", "call", "memory"):
            if theirs.get(name) != ours.get(name):
                raise NotAsClaimed(f"results.json: cells: {cell['id']}: failure.{name}: "
                                   f"{_short(theirs.get(name))} recorded, {_short(ours.get(name))} "
                                   "judging it again")
    again = finish({**results, "cells": [dict(c, **{k: derived[c["id"]].get(k) for k in SAME_FIELDS})
                                         if c["id"] in derived else c for c in results["cells"]]})
    if again["verdict"] != results["verdict"]:
        raise NotAsClaimed(f"results.json: verdict: {results['verdict']} recorded, "
                           f"{again['verdict']} from its cells")


def _short(value: Any) -> str:
    from oracle.quoting import quoted
    return quoted(value, 120)


# ---------------------------------------------------------------------------------------------- outputs

def _same_outputs(folder: Path, results: dict[str, Any]) -> None:
    """The HTML, JUnit, README and attestation made again from results.json are the bundle's, and every
    file's checksum is SHA256SUMS's."""
    from oracle.spec import default_rulebook

    from conformance.report.attestation import NAME as STATEMENT
    from conformance.report.attestation import statement_text
    from conformance.report.bundle import readme_text
    from conformance.report.outputs import render_outputs
    # made as the run made them: with the folder named as the command line named it (replay commands)
    made = render_outputs(json.loads((folder / "results.json").read_text(encoding="utf-8")),
                          Path((results.get("certify") or {}).get("folder") or folder), default_rulebook())
    for name, content in made.items():
        if name == "junit.xml" or name.endswith(".html") or name.startswith("repro/"):
            _same_file(folder, name, content if isinstance(content, bytes) else content.encode())
    _same_file(folder, "README.md", readme_text(results, (folder / "waivers.yaml").exists()).encode())
    _same_file(folder, STATEMENT, statement_text(folder, results).encode())
    sums = folder / "SHA256SUMS"
    listed = {}
    for number, line in enumerate(sums.read_text(encoding="utf-8").splitlines(), start=1):
        digest, _, name = line.partition("  ")
        listed[name] = digest
    present = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file() and p != sums)
    if sorted(listed) != present:
        extra = sorted(set(present) - set(listed)) or sorted(set(listed) - set(present))
        raise NotAsClaimed(f"SHA256SUMS: does not list the bundle's files ({', '.join(extra[:3])})")
    for name, digest in listed.items():
        if hashlib.sha256((folder / name).read_bytes()).hexdigest() != digest:
            raise NotAsClaimed(f"SHA256SUMS: {name}: its checksum is not the file's")


def _same_file(folder: Path, name: str, made: bytes) -> None:
    try:
        kept = (folder / name).read_bytes()
    except OSError:
        raise NotAsClaimed(f"{name}: missing from the bundle") from None
    if kept != made:
        raise NotAsClaimed(f"{name}: not what results.json makes of it")


# ---------------------------------------------------------------------------------------------- the artefact

def _same_artefact(spec: str, results: dict[str, Any]) -> None:
    """The backend named is, by digest, the artefact the bundle certified."""
    from conformance.backends.artefact import artefact
    recorded = ((results.get("certify") or {}).get("artefact") or {}).get("sha256")
    mine = artefact(spec).get("sha256")
    if recorded != mine:
        raise NotAsClaimed(f"results.json: certify.artefact.sha256: the bundle certified {recorded}, "
                           f"{spec} is {mine}")


def _same_answers(spec: str, kept: list[tuple[str, int, Any, str]], results: dict[str, Any],
                  timeout: float | None) -> None:
    """The sampled calls run on the artefact: each answer must be the one recorded."""
    from oracle.spec import default_rulebook

    from conformance.backends.contract import BackendLoadError
    from conformance.backends.loading import load_backend
    from conformance.judge.verdicts import judge
    readings = _readings(results)
    plain = default_rulebook()
    rulebook = plain.with_readings(readings)
    try:
        backend = load_backend(spec, timeout, isolate=True, rulebook=plain)
    except BackendLoadError as exc:
        raise UsageError(str(exc)) from None
    try:
        for cell, index, case, recorded in kept:
            answer = judge(case.call, case.memory, backend, rulebook).answer
            if answer != recorded:
                raise NotAsClaimed(f"evidence: {cell}: call {index}: answer: {spec} answers {answer!r} now, "
                                   f"{recorded!r} recorded")
    finally:
        close = getattr(backend, "close", None)
        if callable(close):
            close()


def add_parser(sub: Any) -> None:
    from conformance.commands.options import seconds_arg
    ver = sub.add_parser("verify", help="check a certification bundle with this kit: exit 0 CONFORMANT, 1 not, "
                                        "4 not what it claims, 2 unreadable")
    ver.add_argument("bundle", metavar="BUNDLE", help="the bundle's folder")
    ver.add_argument("--backend", help="also run a random sample of the calls on this backend: its answers must "
                                      "be the recorded ones")
    ver.add_argument("--sample", type=_fraction, default=0.05, metavar="F",
                     help="the share of calls run on --backend (default 0.05; 1 for all)")
    ver.add_argument("--challenge", metavar="HEX", help="the challenge the bundle must have been made under")
    ver.add_argument("--timeout", type=seconds_arg, metavar="SECONDS", help="a call taking longer is a CRASH")
    ver.set_defaults(func=cmd_verify)


def _fraction(value: str) -> float:
    try:
        share = float(value)
    except ValueError:
        share = -1.0
    if not 0 < share <= 1:
        raise argparse.ArgumentTypeError(f"--sample expects a share of the calls in (0, 1], got {value!r}")
    return share
