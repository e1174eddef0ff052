"""`ascend-conformance fuzz`: keep searching every cell until the time is up.

The run goes in tasks: one task is one cell searched with a budget of calls and a seed of its own
(run_cell, as in `run`). Effort follows what the tasks find:
- a cell whose last task reached boundary tags it had not reached before gets twice the budget next
  time (up to 4x), one that found nothing new goes back towards 1x;
- a cell that fails is retired (its failure is reported and kept in the database: finding it again
  proves nothing) and the other cells of its api and product get twice the budget, since bugs cluster;
- Hypothesis's `target` steers each search towards calls that sit on more boundaries at once;
- under --coverage (conformance/commands/steer.py), calls that reach new code of the backend are kept in
  a corpus and part of each task is bred from it; a cell whose task reached new code gets twice the
  budget next time, as for new boundaries.
Failures kept in the database from earlier runs are judged first, in their cell's first task.

Tasks run on the supervised workers of conformance/supervise/pool.py (each loads the backend once); results.json
and the report are written every WRITE_EVERY seconds, so a killed run loses at most that much.
"""
from __future__ import annotations

import sys
import time
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence, TextIO

from conformance.commands.terminal import clock
from conformance.generate.cells import Cell
from conformance.generate.profiles import Profile
from conformance.supervise.pool import Supervisor
from conformance.supervise.tasks import Stop, Task

BASE_CALLS = 100        # calls of a task at weight 1
MAX_WEIGHT = 4
WRITE_EVERY = 30.0      # seconds between two writes of results.json
SHOW_EVERY = 2.0        # seconds between two progress lines on a terminal (30 s otherwise)


@dataclass
class Progress:
    """What the display and the periodic writes know of the run."""

    started: float = field(default_factory=time.monotonic)
    tasks: int = 0
    calls: int = 0
    rounds: int = 0
    failures: int = 0


class Fuzzer:
    def __init__(self, chosen: Sequence[Cell], *, duration: float, seed: int,
                 kept: dict[str, list[dict[str, Any]]], write: Callable[[list[dict[str, Any]]], None],
                 out: TextIO = sys.stdout, pool: int = 0,
                 fixed: Callable[[list[dict[str, Any]]], None] | None = None, steer: Any = None):
        self.cells = list(chosen)
        self.steer = steer              # a CoverageSteer under --coverage
        self.fixed = fixed              # told the kept failures a cell's task judged and the backend passed
        self._replaying: dict[str, list[dict[str, Any]]] = {}
        self.duration, self.seed, self.kept, self.write, self.out = duration, seed, kept, write, out
        self.pool = pool                # the random pool of the images (a challenge's)
        self.weight = {c.id: 1 for c in self.cells}
        self.seen: dict[str, set[str]] = {c.id: set() for c in self.cells}
        self.retired: set[str] = set()
        self.results: dict[str, dict[str, Any]] = {}
        self.progress = Progress()
        self._round: list[Cell] = []
        self._round_size = 0
        self._busy: set[str] = set()
        self._done_in_round: set[str] = set()
        self._shown = self._written = time.monotonic()

    # ------------------------------------------------------------------------------------ scheduling

    def _next(self) -> tuple[Cell, int, int, list] | None:
        """The next task, starting a new round when the last one is handed out; None when every cell
        left is retired or has a task in flight (a cell is searched by one task at a time, so that what
        one task learns decides the next)."""
        if not self._round:
            todo = [c for c in self.cells if c.id not in self.retired]
            if not todo:
                return None
            self.progress.rounds += 1
            self._done_in_round = set()
            # cells with kept failures first: they are replayed before anything new is searched
            self._round = sorted(todo, key=lambda c: (c.id not in self.kept, c.id), reverse=True)
            self._round_size = len(self._round)
        free = [i for i, c in enumerate(self._round) if c.id not in self._busy and c.id not in self.retired]
        if not free:
            self._round = [c for c in self._round if c.id not in self.retired]
            return None
        cell = self._round.pop(free[-1])
        self._busy.add(cell.id)
        seed = zlib.crc32(f"{self.seed}:{self.progress.rounds}:{cell.id}".encode())
        kept = self._replaying[cell.id] = self.kept.pop(cell.id, [])
        calls = BASE_CALLS * self.weight[cell.id]
        children = self.steer.children(cell.id, calls, seed) if self.steer is not None else []
        return cell, max(1, calls - len(children)), seed, kept + children

    def _learn(self, data: dict[str, Any]) -> None:
        from conformance.report.results import calls, combine_runs
        cell_id = data["id"]
        self._busy.discard(cell_id)
        reached = data.pop("coverage", None)
        grew = self.steer.learned(cell_id, reached) if self.steer is not None else 0
        passed = passed_kept(self._replaying.pop(cell_id, []), data)
        if passed and self.fixed is not None:
            self.fixed(passed)
        self.progress.tasks += 1
        self.progress.calls += calls(data["counts"])
        self._done_in_round.add(cell_id)
        old = self.results.get(cell_id)
        self.results[cell_id] = combine_runs([old, data]) if old else data
        new = set(data.get("tags") or {}) - self.seen[cell_id]
        self.seen[cell_id] |= new
        found = data.get("failure") or data.get("divergence")      # a divergence, under --against
        if found or data["status"] in ("not_supported", "unreachable", "error"):
            self.retired.add(cell_id)           # nothing more to learn here this run
        if found and not (old and (old.get("failure") or old.get("divergence"))):
            self.progress.failures += 1
            api, product = cell_id.split("/")[:2]
            for c in self.cells:
                if c.api == api and c.product == product:
                    self.weight[c.id] = min(MAX_WEIGHT, self.weight[c.id] * 2)
        elif new or grew:
            self.weight[cell_id] = min(MAX_WEIGHT, self.weight[cell_id] * 2)
        else:
            self.weight[cell_id] = max(1, self.weight[cell_id] // 2)

    # ------------------------------------------------------------------------------------ running

    def run(self, supervisor: Supervisor, stop: Stop) -> bool:
        """Until the time is up, every cell is retired, or `stop` is set (True then)."""
        deadline = self.progress.started + self.duration
        while not stop:
            while supervisor.free() > 0 and time.monotonic() < deadline:
                task = self._next()
                if task is None:
                    break
                cell, calls, seed, kept = task
                supervisor.submit(Task(cell, Profile("fuzz", calls, target=True), seed, kept=kept, pool=self.pool))
            if not supervisor.pending:
                break
            for data in supervisor.poll():
                self._learn(data)
            self._tick(deadline)
        self._show(deadline, final=True)
        return bool(stop)

    def _tick(self, deadline: float) -> None:
        now = time.monotonic()
        if now - self._written >= WRITE_EVERY:
            self.write(list(self.results.values()))
            self._written = now
        if now - self._shown >= (SHOW_EVERY if self.out.isatty() else WRITE_EVERY):
            self._show(deadline)
            self._shown = now

    def _show(self, deadline: float, final: bool = False) -> None:
        p = self.progress
        spent = time.monotonic() - p.started
        line = (f"fuzz {clock(spent)} of {clock(self.duration)}: round {p.rounds} ({len(self._done_in_round)} "
                f"of {self._round_size} cells done), {len(self.results)}/{len(self.cells)} cells reached, "
                f"{p.calls} calls ({p.calls / max(spent, 1e-9):.0f}/s), "
                f"{p.failures} failure{'s' if p.failures != 1 else ''}"
                + (f", {self.steer.kept} call(s) kept in the corpus" if self.steer is not None else ""))
        if self.out.isatty() and not final:
            print("\r" + line, end="", file=self.out, flush=True)
        else:
            print(("\r" if self.out.isatty() else "") + line, file=self.out, flush=True)


def passed_kept(kept: list[dict[str, Any]], data: dict[str, Any]) -> list[dict[str, Any]]:
    """The kept failures a cell's task judged first and the backend passed: every one judged where the
    task found nothing; where it found a failure, those before the last one judged (which may be it)."""
    judged = min(int(data.get("frozen_calls") or 0), len(kept))
    if data.get("status") != "ran":
        return []
    return kept[:judged - 1] if data.get("failure") or data.get("divergence") else kept[:judged]


def parse_duration(text: str) -> float:
    """'90s', '15m', '8h', '1h30m', '2.5s': every number with its unit (a bare '30' could mean anything)."""
    import re
    parts = re.fullmatch(r"\s*(?:(\d+(?:\.\d+)?)h)?\s*(?:(\d+(?:\.\d+)?)m)?\s*(?:(\d+(?:\.\d+)?)s)?\s*", text)
    if not text.strip() or parts is None or not any(parts.groups()):
        raise ValueError(f"--duration expects a time like 90s, 15m, 8h or 1h30m, got {text!r}")
    h, m, s = (float(g) if g else 0.0 for g in parts.groups())
    total = h * 3600 + m * 60 + s
    if total <= 0:
        raise ValueError(f"--duration must be more than 0, got {text!r}")
    return total
