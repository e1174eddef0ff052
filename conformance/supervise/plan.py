"""Which tasks a run hands to its workers, and in what order, so that many cores stay busy to the end.

Cells are uneven: a nightly cell is 2500 calls, and a call of one api may cost three of another. A cell's
search longer than SPLIT_CALLS is split into parts of that many calls, each with a seed of its own
derived from the run seed (the plan depends on the profile, never on -n, so `--seed S` still repeats a
run exactly); the parts of a cell are combined into one result (results.combine_runs). Tasks are then
handed out longest first (LPT), by the calls they make times what a call of their api costs.
"""
from __future__ import annotations

import dataclasses
import zlib
from typing import Sequence

from oracle.spec import Rulebook

from conformance.generate.cells import Cell
from conformance.generate.profiles import Profile
from conformance.supervise.tasks import Task

SPLIT_CALLS = 500
# Seconds per verified call of the cells of each expectation (Cell.expect) relative to legal ones, measured
# on the reference (the cells' seconds of `run` on ascend910b and ascend310b); an api's own figure is its
# spec's `cost`. They only order the tasks, so a rough figure is enough. A refusal skips the move and the
# compare but its call is as dear to draw; an undefined call is often a big one (overlapping rows).
EXPECTATION_COST = {"legal": 1.0, "undefined": 1.2, "reject": 0.85}


def part_seed(seed: int, part: int) -> int:
    return seed if part == 0 else zlib.crc32(f"{seed}/part {part}".encode())


def plan(chosen: Sequence[Cell], profile: Profile, seed: int, rulebook: Rulebook, frozen: bool = False,
         pool: int = 0) -> list[Task]:
    """The tasks of a run of `chosen`: a task per cell, or per part of a long one; longest first (by what a
    call of each api costs, as the specs of `rulebook` say). `pool`: the random pool every task's images
    come from (a challenge's)."""
    tasks = []
    for cell in chosen:
        parts = max(1, -(-profile.calls // SPLIT_CALLS))
        for part in range(parts):
            calls = min(SPLIT_CALLS, profile.calls - part * SPLIT_CALLS) if parts > 1 else profile.calls
            tasks.append(Task(cell, dataclasses.replace(profile, calls=calls) if parts > 1 else profile,
                              part_seed(seed, part), frozen=frozen and part == 0, part=part, parts=parts,
                              pool=pool))
    return sorted(tasks, key=lambda task: cost(task, rulebook), reverse=True)


def cost(task: Task, rulebook: Rulebook) -> float:
    return task.profile.calls * api_cost(task.cell.api, rulebook) * EXPECTATION_COST.get(task.cell.expect, 1.0)


def api_cost(api: str, rulebook: Rulebook) -> float:
    """Seconds per verified call of `api` relative to the cheapest kind of move: its spec's `cost` (1.0 for
    an api the specs do not hold)."""
    spec = rulebook.apis.get(api)
    return spec.cost if spec is not None else 1.0
