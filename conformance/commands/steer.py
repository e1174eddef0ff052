"""What `fuzz --coverage` does with the backend's coverage: a call that reached code no earlier call of
the run reached is kept in the corpus (conformance/judge/corpus.py, in the failure database's store),
and a share of each cell's task is spent on children bred from the cell's corpus
(conformance/generate/breed.py) instead of fresh draws. The children are judged first in the task, as
kept failures are, and judged like every other call: coverage picks calls, never verdicts."""
from __future__ import annotations

import random
from typing import Any, Callable

from oracle.spec import Rulebook

from conformance.generate.breed import breed
from conformance.report.coverage_run import CoverageRun

BREED_SHARE = 0.5       # of a task's calls, the share bred from the corpus where the cell has one


class CoverageSteer:
    def __init__(self, run: CoverageRun, corpus: dict[str, list[dict[str, Any]]], rulebook: Rulebook,
                 keep: Callable[[str, dict[str, Any]], None] | None = None):
        self.run, self.corpus, self.rulebook, self.keep = run, corpus, rulebook, keep
        # the points the corpus reached already (a call reaching only these is not kept again)
        self.known = {p for entries in corpus.values() for e in entries for p in e.get("points") or ()}
        self.kept = 0           # calls this run added to the corpus
        self.bred = 0           # children handed to tasks

    def children(self, cell_id: str, calls: int, seed: int) -> list[dict[str, Any]]:
        """Calls bred from the cell's corpus for a task of `calls` calls (none where it has no corpus)."""
        parents = self.corpus.get(cell_id)
        if not parents:
            return []
        out = breed(parents, int(calls * BREED_SHARE), self.rulebook, random.Random(seed))
        self.bred += len(out)
        return out

    def learned(self, cell_id: str, reached: Any) -> int:
        """A task's coverage counted; the calls that reached new code kept. How many were."""
        new = [e for e in self.run.add(cell_id, reached) if not set(e["points"]) <= self.known]
        for entry in new:
            self.known.update(entry["points"])
            entry = {k: entry.get(k) for k in ("call", "memory", "expect", "rule", "points")}
            self.corpus.setdefault(cell_id, []).append(entry)
            if self.keep is not None:
                self.keep(cell_id, entry)
        self.kept += len(new)
        return len(new)
