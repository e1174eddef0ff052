"""Planned calls judged in order, a batch at a time for a backend that runs batches: the edge sweep's
and frozen lists', and the whole search of a batch backend (run_batches)."""
from __future__ import annotations

import zlib
from typing import Callable, Iterable, Sequence

from oracle.spec import Rulebook

from conformance.backends.contract import Backend
from conformance.generate.cells import Cell
from conformance.generate.challenge import from_pool
from conformance.generate.case import Case
from conformance.generate.profiles import Profile
from conformance.judge import judging
from conformance.judge.verdicts import Outcome


def cell_seed(run_seed: int, cell: Cell) -> int:
    """Each cell gets its own stream, fixed by the run seed and the cell id (not by scheduling)."""
    return zlib.crc32(f"{run_seed}:{cell.id}".encode())


BATCH = 32                  # calls handed to a backend's run_batch at once, at most
BATCH_BYTES = 8 << 20       # and the bytes of their images, at most (a call larger than that goes alone)


def batched(cases: Sequence[Case]) -> Iterable[Sequence[Case]]:
    """The cases in order, in batches of at most BATCH calls whose images hold at most BATCH_BYTES in all
    (one call at least): a batch's images are built side by side and read back after the backend ran them,
    and a batch of large calls laid out past what the caches hold costs more in memory traffic than its
    one exchange saves."""
    start, held = 0, 0
    for k, case in enumerate(cases):
        size = sum(case.memory.sizes.values())
        if k > start and (k - start == BATCH or held + size > BATCH_BYTES):
            yield cases[start:k]
            start, held = k, 0
        held += size
    if start < len(cases):
        yield cases[start:]


def judged(cases: Sequence[Case], backend: Backend, rulebook: Rulebook) -> Iterable[tuple[Case, Outcome]]:
    """(case, outcome) of planned cases in order, judged by `rulebook` lazily (a caller that stops at a
    failure runs no more): a batch at a time (batched) for a backend that runs batches, one at a time
    otherwise."""
    if not callable(getattr(backend, "run_batch", None)):
        for k, case in enumerate(cases):
            yield case, judging.judge_case(case, backend, rulebook, cases[k + 1] if k + 1 < len(cases) else None)
        judging.settle()
        return
    for chunk in batched(cases):
        yield from zip(chunk, judging.judge_cases(chunk, backend, rulebook))


def run_batches(cell: Cell, backend: Backend, profile: Profile, run_seed: int, tally: Callable[[Case, Outcome], None],
                found: Callable[[Case, Outcome], None], rulebook: Rulebook, pool: int = 0, *,
                plain: Rulebook) -> int:
    """The cell's generated calls for a backend that runs batches: drawn first from `plain` (the run's
    specs, no reading declared: the same seeded search, without shrinking), judged by `rulebook`, a batch at
    a time (batched), stopping at the first non-conforming call, which goes to `found` (minimize() then shrinks it
    with single runs). The number of calls drawn: 0 when none could be."""
    cases = from_pool(cell.draw(profile.calls, cell_seed(run_seed, cell), plain, profile.gm_window), pool)
    for case, outcome in judged(cases, backend, rulebook):
        tally(case, outcome)
        if not outcome.conforms:
            found(case, outcome)
            break
    return len(cases)
