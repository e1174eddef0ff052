"""Where the kit judges a generated case: the entry point of judging (judge_case, judge_cases), which a
cell's search, its shrinking, a worker's replay and minimizing all call.

Each case is recorded as in flight (inflight.py) while the backend has it, judged by verdicts.py with the
generator's own check where it holds (known_violations), and noted as evidence and coverage points. A backend in a
process of its own is sent the next case before this one's verdict is worked out (`then`)."""
from __future__ import annotations

from typing import Any, Sequence

from oracle.spec import Rulebook

from conformance.backends.exec_program import ExecBackend
from conformance.judge import coverage_points, evidence, inflight, verdicts
from conformance.judge.agreement import Pair
from conformance.judge.verdicts import Outcome


def judge_case(case: Any, backend: Any, rulebook: Rulebook, then: Any = None) -> Outcome:
    """verdicts.judge of one case by `rulebook` (the run's, with its declared readings), recorded as in
    flight while the backend has it. Two backends held against each other (the kit's Pair,
    conformance/judge/agreement.py) are judged together; no hook of a backend's own is asked.

    `then`: the case the caller means to judge next. For a backend in a process of its own its request
    goes out before this case's verdict is worked out, so that the backend runs it while the kit judges
    this one; a caller that then judges another case first has the one sent ahead drained unjudged."""
    with inflight.running((case,), backend):        # a call sent ahead is recorded when it is judged
        if isinstance(backend, ExecBackend):
            started = _taken(case, backend) or verdicts.start(case.call, case.memory, backend, case.key[0])
            if then is not None:
                _ahead.append((_same(then), backend, verdicts.start(then.call, then.memory, backend,
                                                                    then.key[0], busy=started)))
            outcome = verdicts.complete(started, backend, rulebook, known_violations(case, rulebook))
        elif isinstance(backend, Pair):
            settle()
            outcome = backend.judge_case(case.call, case.memory, inflight.which(), rulebook=rulebook)
        else:
            settle()
            outcome = verdicts.judge(case.call, case.memory, backend, rulebook, known_violations(case, rulebook))
    evidence.note(case, outcome)
    coverage_points.note((case,), backend)
    return outcome


# the call sent ahead (judge's `then`): what it is, to which backend, and its request
_ahead: list[tuple[tuple[Any, ...], Any, Any]] = []


def _same(case: Any) -> tuple[Any, ...]:
    """What makes two cases the same call on the same images (a case mapped to a pool again is another
    object)."""
    recipe = case.memory
    return case.key, recipe.seed, recipe.pool, tuple(sorted(recipe.sizes.items()))


def _taken(case: Any, backend: Any) -> Any:
    """The request sent ahead for this case, if that is what went ahead (anything else is drained)."""
    if not _ahead:
        return None
    key, owner, started = _ahead.pop()
    if owner is backend and key == _same(case):
        return started
    verdicts.drain(started, owner)
    return None


def settle() -> None:
    """No call left out ahead: one sent and not judged is drained (a cell's end, another way of judging)."""
    while _ahead:
        _, owner, started = _ahead.pop()
        verdicts.drain(started, owner)


def known_violations(case: Any, rulebook: Rulebook) -> Any:
    """The generator's check of the case (Case.checked) where it was made by the rulebook it is judged
    by (None otherwise: a frozen or kept case, an ambiguity cell's, or a run with declared readings)."""
    checked = getattr(case, "checked", None)
    if checked is None or checked[0] is not rulebook:
        return None
    return checked[1]


def judge_cases(cases: Sequence[Any], backend: Any, rulebook: Rulebook) -> list[Outcome]:
    """verdicts.judge_batch of `cases` on a backend that runs batches, all recorded as in flight together."""
    settle()
    with inflight.running(cases, backend):
        outcomes = verdicts.judge_batch([(c.call, c.memory) for c in cases], backend, rulebook,
                                        [known_violations(c, rulebook) for c in cases])
    for case, outcome in zip(cases, outcomes):
        evidence.note(case, outcome)
    if cases:
        coverage_points.note(cases, backend)
    return outcomes
