"""Hypothesis's shrinker on one failing call, its engine driven as @given drives it.

A search's failure is shrunk on its own (runner.CellRun.shrink_alone): the cell's single-call strategy,
started from the choices that drew the failing call, only shrinking. @given would wrap every candidate
in what a test's run needs and this does not: for every candidate that fails, the traceback it reads to
tell failures apart (here one verdict is shrunk: one origin), and at the end a replay of the smallest
(here the call that candidate drew is kept). The engine, its settings, its random and its database key
are the ones @given gives it, and the strategy is drawn as @given draws it, so the candidates it tries
and the call it ends on are the same.
"""
from __future__ import annotations

from random import Random
from typing import Any, Callable, TypeVar

from hypothesis import HealthCheck, Phase, Verbosity, settings
from hypothesis.control import current_build_context
from hypothesis.database import InMemoryExampleDatabase, choices_to_bytes
from hypothesis.errors import InvalidArgument
from hypothesis.internal.conjecture.data import ConjectureData
from hypothesis.internal.conjecture.engine import ConjectureRunner
from hypothesis.internal.escalation import InterestingOrigin
from hypothesis.strategies import SearchStrategy

# The settings every Hypothesis run of a cell shares: no deadline (a backend's time is the supervisor's
# to limit), quiet, one bug reported, every health check off (a cell too hard to draw in is UNREACHABLE).
QUIET = dict(deadline=None, derandomize=False, print_blob=False, verbosity=Verbosity.quiet, report_multiple_bugs=False,
             suppress_health_check=list(HealthCheck))

Kept = TypeVar("Kept")


def shrink_choices(strategy: SearchStrategy[Any], choices: tuple[Any, ...], seed: int, key: bytes,
                   fails: Callable[[Any], Kept | None], origin: type[BaseException]) -> Kept | None:
    """What `fails` kept of the smallest value of `strategy` it says fails, Hypothesis's shrinker starting
    from the value `choices` drew; None where none failed. `fails(value)` returns what to keep of a
    failing value, None for one that passes. `seed` and `key` (the database key): those @given would have.
    `origin`: the exception type @given would have seen fail."""
    kept = InMemoryExampleDatabase()
    # Where Hypothesis keeps a failure it has not shrunk yet (an example under the key itself is one it has
    # shrunk, and it would replay it without shrinking it again).
    kept.save(key + b".secondary", choices_to_bytes(choices))
    failing: dict[tuple[Any, ...], Kept] = {}
    where = InterestingOrigin(origin, __file__, 0, (), ())

    def test(data: ConjectureData) -> None:
        found = fails(data.draw(strategy))
        if found is not None:
            failing[data.choices] = found
            data.mark_interesting(where)

    runner = ConjectureRunner(test, random=Random(seed), database_key=key,
                              settings=settings(max_examples=1, database=kept, phases=(Phase.reuse, Phase.shrink),
                                                **QUIET))
    runner.run()
    # the smallest failure the engine kept (its name for them differs between Hypothesis releases); where
    # neither name is there, the last failing candidate (the shrinker keeps only smaller ones)
    kept_by = getattr(runner, "interesting_examples", None) or getattr(runner, "interesting_test_cases", None)
    if kept_by is None:
        return failing[next(reversed(failing))] if failing else None
    smallest = list(kept_by.values())
    return failing[smallest[0].choices] if smallest else None


def final_replay() -> bool:
    """Is this @given's last replay of a failing example? (False outside @given: shrink_choices' engine.)"""
    try:
        return current_build_context().is_final
    except InvalidArgument:
        return False
