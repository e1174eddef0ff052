"""`verify`'s own derivation of a bundle: every call drawn and judged again against the answer its evidence
recorded (conformance/judge/recorded.py), and from those cells every field of results.json that a run
computes, compared with the bundle's. What `verify` prints is what it derived here, never the bundle's text.

On a Hypothesis release other than the certification's the property pass cannot be drawn again: the
frozen cases (their parameters are the kit's, their memory the challenge's) and every failure recorded
(call and memory) are judged again, and the rest is said not to be re-drawn (`frozen_only`).
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import json
from typing import Any, Callable, NamedTuple

from oracle.spec import Rulebook

from conformance.commands.verify_files import NotAsClaimed
from conformance.report.text import printable

NEVER = 1 << 62                 # a shrinking budget that never runs out: the run's did not
# what a cell's result must say alike, recorded and drawn again
SAME_FIELDS = ("cell", "status", "counts", "frozen_calls", "sweep_calls", "shrink_calls", "tags", "edges",
               "planned_calls", "exhausted", "incomplete", "waived")
# what a run computes of the whole document from its cells: verify computes each again
DERIVED_FIELDS = ("totals", "calls", "unreachable", "verdict", "verdict_reasons", "scope", "verdict_text",
                  "conforms", "waivers")
FAILURE_FIELDS = ("cell", "verdict", "call", "memory")

Parts = dict[tuple[str, int], dict[str, Any]]
Kept = list[tuple[str, int, Any, str]]


def parse_evidence(text: bytes, name: str) -> Parts:
    """(cell id, part) -> that part's evidence (exit 2 naming the line of one that cannot be read)."""
    from conformance.commands.options import UsageError
    from conformance.judge.evidence import parse
    parts: Parts = {}
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
            raise UsageError(f"{name}, line {number}: {printable(str(exc), 300)}") from None
        parts[key] = data
    return parts


def readings_of(results: dict[str, Any]) -> dict[str, str]:
    return {amb: r["reading"] for amb, r in (results.get("readings") or {}).items()}


class Picker:
    """Which calls, numbered across the whole bundle in the order they are judged again, are kept for the
    artefact (`picks`: their ordinals; None: none)."""

    def __init__(self, picks: set[int] | None):
        self.picks, self.seen = picks, 0

    def keep(self, entries: int) -> Callable[[int], bool] | None:
        """The `evidence.sampling` test for a part of `entries` calls, from where the count stands."""
        if not self.picks:
            return None
        base, self.seen = self.seen, self.seen + entries
        return lambda i: base + i in self.picks


def _tasks(results: dict[str, Any], rulebook: Rulebook, seed: int) -> tuple[list[Any], dict[str, str]]:
    from conformance.commands.options import ambiguity_ids
    from conformance.generate.cells import cells
    from conformance.generate.profiles import profile
    from conformance.supervise.plan import plan
    readings = readings_of(results)
    rulebook.with_readings(readings)            # an unknown reading: a ValueError before any cell is drawn
    entered = ambiguity_ids(results["apis"], readings, False)
    chosen = cells(results["products"], results["apis"], rulebook=rulebook, ambiguities=entered)
    if sorted(c.id for c in chosen) != sorted(results["planned"]):
        raise NotAsClaimed("results.json: planned: not the cells a certification of its products and apis plans")
    tasks = plan(chosen, profile(results["profile"]), seed, rulebook, frozen=True)
    return sorted(tasks, key=lambda t: (t.cell.id, t.part)), readings


def _part(task: Any, recorded: dict[str, dict[str, Any]], parts: Parts) -> dict[str, Any] | None:
    """The evidence of a task's part; None where nothing is to be drawn again (a worker lost, not
    supported); NotAsClaimed where a part that ran recorded none."""
    cell = recorded.get(task.cell.id)
    if cell is None:
        raise NotAsClaimed(f"results.json: cells: {task.cell.id}: planned, but no result recorded")
    part = parts.get((task.cell.id, task.part))
    lost = part is None and (cell.get("failure") or {}).get("verdict") == "CRASH"
    if cell["status"] == "error" or lost:
        return None
    if part is None and cell["status"] != "not_supported":
        raise NotAsClaimed(f"evidence: {task.cell.id} (part {task.part}): no evidence recorded")
    return part or {"entries": []}


def derive(results: dict[str, Any], parts: Parts, challenge: Any, picker: Picker,
           rulebook: Rulebook, workers: int = 1) -> tuple[dict[str, dict[str, Any]], Kept]:
    """Every cell drawn and judged again against its evidence: cell id -> its result; and the calls kept
    for the artefact: (cell id, index, case, recorded answer). The tasks are judged on `workers`
    processes (conformance/commands/verify_parallel.py), with the same outcome as on one."""
    from functools import partial

    from conformance.commands.verify_parallel import judged
    from conformance.generate.frozen import load_frozen
    from conformance.judge import evidence
    from conformance.report.results import combine_runs
    tasks, readings = _tasks(results, rulebook, challenge.seed if challenge is not None else results["seed"])
    jobs, stop = _jobs(tasks, {c["id"]: c for c in results["cells"]}, parts, picker)
    judge = partial(_judge, frozen=load_frozen(), readings=readings, rulebook=rulebook,
                    pool=challenge.pool if challenge is not None else 0)
    arrived: dict[str, list[dict[str, Any]]] = {}
    kept: Kept = []
    try:
        for job, (result, picked) in zip(jobs, judged(jobs, judge, workers, lambda j: len(j.entries), _named)):
            kept += picked
            arrived.setdefault(job.task.cell.id, []).append(result)
    finally:
        evidence.sampling(None)
    if stop is not None:
        raise stop
    return {cell_id: combine_runs(same) for cell_id, same in arrived.items()}, kept


class Job(NamedTuple):
    """A task to draw and judge again: its evidence, whether its cell was supported, and which of its
    calls are kept for the artefact (numbered where the task stands in the bundle's order)."""

    task: Any
    entries: list[str]
    supported: bool
    shrink_stop: int
    keep: Callable[[int], bool] | None


def _jobs(tasks: list[Any], recorded: dict[str, dict[str, Any]], parts: Parts,
          picker: Picker) -> tuple[list[Job], NotAsClaimed | None]:
    """The tasks with evidence to judge, in order, up to the first whose evidence is not as claimed (that
    one's NotAsClaimed, raised once the tasks before it are judged)."""
    jobs = []
    for task in tasks:
        try:
            part = _part(task, recorded, parts)
        except NotAsClaimed as exc:
            return jobs, exc
        if part is not None:
            entries = part["entries"]
            jobs.append(Job(task, entries, recorded[task.cell.id]["status"] != "not_supported",
                            _stop(part.get("shrink_stopped")), picker.keep(len(entries))))
    return jobs, None


def _judge(job: Job, frozen: dict[str, Any], readings: dict[str, str], rulebook: Rulebook,
           pool: int) -> tuple[dict[str, Any], Kept]:
    """A task drawn and judged again against its evidence: its result, and the calls it keeps."""
    from conformance.generate.challenge import from_pool
    from conformance.judge import evidence
    from conformance.judge.recorded import Recorded
    from conformance.judge.runner import run_cell
    task, entries = job.task, job.entries
    backend = Recorded(entries, job.supported, readings)
    cases = from_pool(frozen.get(task.cell.id, ()) if task.frozen else (), pool)
    evidence.sampling(job.keep)
    result = run_cell(task.cell, backend, task.profile, task.seed, cases, None,
                      None if task.part == 0 else False, rulebook=rulebook, readings=readings, pool=pool,
                      shrink_stop=job.shrink_stop)
    same_entries(task.cell.id, task.part, entries, (result.evidence or {}).get("entries") or [])
    # each case kept as data (its call, memory and expectation), without the generator's own check of it
    return result.to_dict(), [(task.cell.id, i, dataclasses.replace(case), entries[i].partition(" ")[2])
                              for i, case in evidence.kept()]


def _named(job: Job) -> str:
    return job.task.cell.id + (f" (part {job.task.part})" if job.task.part else "")


def derive_frozen(results: dict[str, Any], parts: Parts, challenge: Any, rulebook: Rulebook) -> Kept:
    """On another Hypothesis release: every frozen case judged again against the answer recorded for it
    (each cell's first calls), up to the first that does not conform, whose cell must record a failure;
    and every failure recorded judged again against the answer the evidence holds for its call. Returns
    every frozen case judged (a sample for the artefact is drawn from them)."""
    from conformance.generate.challenge import from_pool
    from conformance.generate.frozen import load_frozen
    from conformance.judge.evidence import call_digest
    tasks, readings = _tasks(results, rulebook, results["seed"])
    judged_by = rulebook.with_readings(readings) if readings else rulebook
    recorded = {c["id"]: c for c in results["cells"]}
    frozen = load_frozen()
    kept: Kept = []
    for task in tasks:
        part = _part(task, recorded, parts)
        if part is None or not task.frozen:
            continue
        entries = part["entries"]
        cases = from_pool(frozen.get(task.cell.id, ()), challenge.pool if challenge is not None else 0)
        for i, case in enumerate(cases[:len(entries)]):
            call, _, answer = entries[i].partition(" ")
            if call_digest(case) != call:
                raise NotAsClaimed(f"evidence: {task.cell.id}: call {i}: the frozen case is not the call recorded")
            verdict = _judged(case, answer, recorded[task.cell.id], readings, judged_by)
            kept.append((task.cell.id, i, case, answer))
            if verdict is not None:
                break
    _failures_judged(results, parts, readings, judged_by)
    return kept


def _judged(case: Any, answer: str, cell: dict[str, Any], readings: dict[str, str], rulebook: Rulebook) -> str | None:
    """The verdict of a recorded answer to `case`, where it does not conform (None where it does): its
    cell must then record a failure."""
    from conformance.judge.recorded import Recorded
    from conformance.judge.verdicts import judge
    outcome = judge(case.call, case.memory, Recorded([f"{'0' * 16} {answer}"], True, readings), rulebook)
    if outcome.conforms:
        return None
    if not cell.get("failure"):
        raise NotAsClaimed(f"results.json: cells: {cell['id']}: a frozen case judged again is "
                           f"{outcome.verdict.value}, and the cell records no failure")
    return outcome.verdict.value


def _failures_judged(results: dict[str, Any], parts: Parts, readings: dict[str, str], rulebook: Rulebook) -> None:
    """Every failure recorded, judged again against the answer the evidence holds for its call."""
    from oracle import Call

    from conformance.generate.case import Case
    from conformance.generate.memory import MemoryRecipe
    from conformance.judge.evidence import call_digest
    for cell in results["cells"]:
        failure = cell.get("failure")
        if not failure or failure.get("verdict") == "CRASH":
            continue
        case = Case(Call.from_dict(failure["call"]), MemoryRecipe.from_dict(failure["memory"]),
                    failure.get("expect") or cell["cell"]["kind"], failure.get("rule"), ())
        digest = call_digest(case)
        answers = [e.partition(" ")[2] for (cid, _), p in parts.items() if cid == cell["id"]
                   for e in p["entries"] if e.startswith(digest + " ")]
        if not answers:
            raise NotAsClaimed(f"results.json: cells: {cell['id']}: failure.call: not a call the evidence records")
        verdict = _judged(case, answers[-1], cell, readings, rulebook)
        if verdict != failure["verdict"]:
            raise NotAsClaimed(f"results.json: cells: {cell['id']}: failure.verdict: {failure['verdict']} "
                               f"recorded, {verdict or 'PASS'} judging its call again")


def _stop(recorded: int | None) -> int:
    """The shrinking budget of a part drawn again: where the run's ran out, or never."""
    return NEVER if recorded is None else recorded


def same_entries(cell: str, part: int, recorded: list[str], drawn: list[str]) -> None:
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


def rederived(results: dict[str, Any], derived: dict[str, dict[str, Any]], waivers: list[Any] | None,
              every_cell: bool = True) -> dict[str, Any]:
    """results.json as this kit computes it from the cells derived (the bundle's own where a cell could not
    be drawn again) and the bundle's waivers, applied as of the day the run started; NotAsClaimed naming
    the first field that differs from the bundle's. `every_cell`: the cells were all drawn again (else
    only the fields that follow from the cells recorded are computed again)."""
    from conformance.report.results import finish
    from conformance.report.waivers import apply_waivers
    cells = [dict(derived.get(c["id"]) or c) for c in results["cells"]]
    for cell in cells:
        cell.pop("waived", None)
        if cell.get("failure"):
            cell["failure"] = dict(cell["failure"])
            cell["failure"].pop("waived", None)
    again = {**results, "cells": cells}
    again.pop("waivers", None)
    finish(again)
    if waivers is not None:
        apply_waivers(again, waivers, _started(results))
        finish(again)
    for recorded in results["cells"]:
        mine = next(c for c in again["cells"] if c["id"] == recorded["id"])
        names = SAME_FIELDS if every_cell and recorded["id"] in derived else ("waived",)
        _same_cell(recorded, mine, names)
    failures = [[f.get(k) for k in FAILURE_FIELDS] for f in results.get("failures") or []]
    if _plain(failures) != _plain([[f.get(k) for k in FAILURE_FIELDS] for f in again["failures"]]):
        raise NotAsClaimed("results.json: failures: not the failures of its cells")
    for name in DERIVED_FIELDS:
        if _plain(results.get(name)) != _plain(again.get(name)):
            raise NotAsClaimed(f"results.json: {name}: {_short(results.get(name))} recorded, "
                               f"{_short(again.get(name))} derived from its cells")
    return again


def _same_cell(recorded: dict[str, Any], mine: dict[str, Any], names: tuple[str, ...]) -> None:
    for name in names:
        if (recorded.get(name) or None) != (mine.get(name) or None):
            raise NotAsClaimed(f"results.json: cells: {recorded['id']}: {name}: {_short(recorded.get(name))} "
                               f"recorded, {_short(mine.get(name))} judging it again")
    theirs, ours = recorded.get("failure") or {}, mine.get("failure") or {}
    for name in FAILURE_FIELDS:
        if theirs.get(name) != ours.get(name):
            raise NotAsClaimed(f"results.json: cells: {recorded['id']}: failure.{name}: {_short(theirs.get(name))} "
                               f"recorded, {_short(ours.get(name))} judging it again")


def _started(results: dict[str, Any]) -> dt.date:
    try:
        return dt.date.fromisoformat(str(results.get("started"))[:10])
    except ValueError:
        raise NotAsClaimed("results.json: started: not a date: the day its waivers were applied is unknown") \
            from None


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value)) if value is not None else None


def _short(value: Any) -> str:
    from oracle.quoting import quoted
    return quoted(value, 120)
