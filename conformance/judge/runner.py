"""Running cells: Hypothesis drives the calls of one cell through the backend and shrinks a failure.

`run_cell` is plain Python (the kit's own tests call it directly); the pytest plugin wraps it so that
pytest-xdist can spread cells over cores. Verdicts are counted for the calls Hypothesis generates, up to
and including the first non-conforming one; the calls spent shrinking it are counted apart. A cell that
judged fewer calls than it planned, or missed an edge of its sweep, is incomplete: it cannot conform.
"""
from __future__ import annotations

import time
import zlib
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

from hypothesis import HealthCheck, Phase, Verbosity, given
from hypothesis import seed as hseed
from hypothesis import settings, target
from hypothesis.control import current_build_context
from hypothesis.errors import FailedHealthCheck, Unsatisfiable

from oracle.spec import Rulebook, default_rulebook

from conformance.backends.calling import ask_supports
from conformance.backends.contract import Backend, BackendCrash
from conformance.generate.cells import Cell
from conformance.generate.challenge import from_pool
from conformance.generate.environment import Case
from conformance.generate.profiles import Profile
from conformance.generate.strategies import search_rounds
from conformance.judge import evidence, inflight
from conformance.judge.minimize import ShrinkBudget, minimize
from conformance.judge.reproducers import declared_of, failure_record
from conformance.judge.verdicts import Outcome, Verdict

# Backend runs Hypothesis may spend shrinking one failure. Past it every candidate counts as passing, so
# its shrinker stops; conformance.judge.minimize then finishes on the call itself. (Without a cap, a failure
# found at repeatTimes=201 took 4,800 runs and 100 s, walking dstBaseAddr down a step at a time.)
SHRINK_CALLS = 300
# Seconds of shrinking per failure (Hypothesis and minimize() together): a backend that hangs costs its
# time limit on every shrinking run, so the number of runs alone does not bound the time.
SHRINK_SECONDS = 60.0


class _NonConforming(Exception):
    """Raised inside the property so that Hypothesis shrinks the call."""


# One exception type per verdict: Hypothesis tells bugs apart by exception type, so a CRASH is never
# "shrunk" into a FAIL of a different call (or the other way round).
# (A divergence of two backends, under --against, is its own kind: DIVERGE.)
_RAISE = {k: type(f"NonConforming_{k}", (_NonConforming,), {}) for k in [v.value for v in Verdict] + ["DIVERGE"]}


@dataclass
class CellResult:
    cell: dict[str, Any]
    status: str = "ran"                 # ran | not_supported | unreachable | error
    counts: dict[str, int] = field(default_factory=dict)          # verdict -> calls
    by_dtype: dict[str, dict[str, int]] = field(default_factory=dict)
    tags: dict[str, int] = field(default_factory=dict)            # boundary reached -> calls
    planned_calls: int | None = None    # calls the cell set out to judge: frozen, sweep, the search's budget
    exhausted: bool = False             # the search found every distinct call it could: fewer is complete
    incomplete: str | None = None       # why the cell judged less than it planned (None: it did not)
    frozen_calls: int = 0               # of the counted calls, those from the frozen case list (certify)
    sweep_calls: int = 0                # of the counted calls, those of the edge sweep (conformance/generate/edges.py)
    edges: dict[str, list[str]] = field(default_factory=dict)   # {"reachable": [tag...], "missed": [tag...]}
    shrink_calls: int = 0
    failure: dict[str, Any] | None = None
    error: str | None = None
    seconds: float = 0.0
    agreement: dict[str, int] = field(default_factory=dict)       # under --against: AGREE/DIVERGE -> calls
    divergence: dict[str, Any] | None = None                      # the (shrunk) call the two parted on
    evidence: dict[str, Any] | None = None      # {"shrink_stopped", "entries"}: what the backend answered

    @property
    def id(self) -> str:
        return self.cell["id"]

    @property
    def conforms(self) -> bool:
        return self.failure is None and self.incomplete is None and self.status in ("ran", "not_supported",
                                                                                      "unreachable")

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, **self.__dict__}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "CellResult":
        return cls(**{k: v for k, v in data.items() if k != "id"})


def incomplete_reason(status: str, stopped: bool, planned: int | None, judged: int, exhausted: bool,
                      missed: Sequence[str]) -> str | None:
    """Why a cell that ran to its end cannot count as conforming: it judged fewer calls than it planned
    (frozen cases, edge sweep, the search's budget) though the search had not run out of distinct calls,
    or its edge sweep left edges unreached. None when neither, and for a cell stopped by what it found
    (a failure, a divergence: that is its verdict) or one that did not run (not supported, unreachable,
    in error: its status says so)."""
    if status != "ran" or stopped:
        return None
    why = []
    if planned is not None and judged < planned and not exhausted:
        why.append(f"judged {judged} of {planned} planned calls")
    if missed:
        why.append(f"edges missed: {', '.join(missed)}")
    return "; ".join(why) or None


def cell_seed(run_seed: int, cell: Cell) -> int:
    """Each cell gets its own stream, fixed by the run seed and the cell id (not by scheduling)."""
    return zlib.crc32(f"{run_seed}:{cell.id}".encode())


def run_cell(cell: Cell, backend: Backend, profile: Profile, run_seed: int,
             frozen: Sequence[Case] = (), database: Any = None, sweep: bool | None = None, *,
             hang_after: float | None = None, on_found: Callable[[dict[str, Any]], None] | None = None,
             rulebook: Rulebook | None = None, pool: int = 0, shrink_stop: int | None = None) -> CellResult:
    """Judge the `frozen` cases (certify's fixed list, or failures kept from earlier runs) in order, then
    the cell's edge sweep (`sweep`, default: the profile's), then let Hypothesis search the cell with the
    profile's budget; stop at the first non-conforming call and shrink it. `database` (a Hypothesis
    ExampleDatabase): the search replays what it kept for the cell first, and the failure found is kept
    there (conformance/judge/failuredb.py). `hang_after`: the backend's time limit, so that shrinking stops
    after a few calls that time out. `on_found` hears the first failure as soon as it is found, before
    shrinking (a supervisor keeps it should the worker die). `rulebook`: what every call is judged by
    (the default one with the run's declared readings; None: the default one, no reading declared).
    `pool`: the random pool every call's images are cut from (a challenge's; 0: the published one; the
    `frozen` cases come with theirs). `shrink_stop`: shrinking stops after that many runs and only there
    (`verify` following a run's evidence), instead of after SHRINK_SECONDS.

    The result carries the evidence of every call judged (conformance/judge/evidence.py), in order.

    The result says what the cell planned (`planned_calls`: its frozen cases, its sweep, the search's
    budget), whether the search ran out of distinct calls before the budget (`exhausted`: it judged every
    call there is), and why it is incomplete where it is (`incomplete`, see incomplete_reason): the draws
    are the same either way."""
    result = CellResult(cell.to_dict())
    started = time.perf_counter()
    evidence.start()
    try:
        supported = ask_supports(backend, cell.api, cell.product)
    except BackendCrash as exc:
        evidence.take()
        result.status, result.error = "error", str(exc)
        return result
    if not supported:
        evidence.take()
        result.status = "not_supported"
        result.counts = {Verdict.NOT_SUPPORTED.value: 1}
        return result
    counts: Counter[str] = Counter()
    tags: Counter[str] = Counter()
    agreement: Counter[str] = Counter()
    by_dtype: dict[str, Counter[str]] = {}
    state: dict[str, Any] = {"failed": False, "first": None, "last": {}, "final": {}, "searched": 0, "at": 0, "now": 0}
    budget = ShrinkBudget(SHRINK_SECONDS, hang_after, stop_after=shrink_stop)
    keys: set[Any] = set()              # the keys of the searched calls judged (Case.key)
    spec = default_rulebook().api(cell.api)
    readings = declared_of(rulebook, cell.api)

    def tally(case: Case, outcome: Outcome) -> None:
        counts[outcome.verdict.value] += 1
        inflight.counted(outcome.verdict.value)
        agreed = getattr(outcome, "agreement", None)
        if agreed is not None:
            agreement[agreed.verdict] += 1
            inflight.counted(agreed.verdict)
        tags.update(case.tags)
        by_dtype.setdefault(spec.dtype_of_call(case.call), Counter())[outcome.verdict.value] += 1

    def found(case: Case, outcome: Outcome) -> None:
        """A non-conforming call (frozen, batched or searched): the one to report; the first one found
        starts the shrinking clock."""
        if state["first"] is None:
            budget.start()
            inflight.shrinking(True)
            if on_found is not None:
                on_found(failure_record(cell, case, outcome, readings))
        state["first"] = outcome.key
        state["last"][outcome.key] = (case, outcome)

    for case in frozen:
        outcome = inflight.judge(case, backend, rulebook)
        tally(case, outcome)
        result.frozen_calls += 1
        if not outcome.conforms:
            found(case, outcome)
            break

    # --- edge sweep (issue 16): the same calls on every run, judged and counted like the frozen ones
    reachable: list[str] = []
    planned = len(frozen) + profile.calls
    if profile.sweep if sweep is None else sweep:
        from conformance.generate.edges import sweep as edge_sweep
        from conformance.generate.edges import targets
        reachable = targets(cell, profile.gm_window)
        cases = from_pool(edge_sweep(cell, profile.gm_window), pool)
        planned += len(cases)
        for case, outcome in judged(cases if state["first"] is None else [], backend, rulebook):
            tally(case, outcome)
            result.sweep_calls += 1
            if not outcome.conforms:
                found(case, outcome)
                break
    # --- end of the edge sweep

    def search(examples: int, seed: int) -> None:
        """One Hypothesis run of `examples` batches of calls (see search_rounds)."""

        @settings(max_examples=examples, database=database, deadline=None, derandomize=False, print_blob=False,
                  verbosity=Verbosity.quiet, report_multiple_bugs=False,
                  phases=(Phase.explicit, Phase.reuse, Phase.generate) + ((Phase.target,) if profile.target else ())
                  + (Phase.shrink,),
                  suppress_health_check=list(HealthCheck))
        @hseed(seed)
        @given(cell.strategy(gm_window=profile.gm_window, batch=True))
        def prop(cases: list[Case]) -> None:
            order = list(range(len(cases)))
            if state["failed"] and state["at"] < len(cases):    # shrinking: the call that failed goes first
                order.insert(0, order.pop(state["at"]))
            reached = -1
            for k, at in enumerate(order):
                if not state["failed"] and state["searched"] >= profile.calls:
                    break           # the profile's calls are spent (the last batch may be cut short)
                state["now"] = at
                one(cases[at], None if state["failed"] else ahead(cases, order[k + 1:], cases[at]))
                reached = max(reached, len(cases[at].tags))
            if profile.target and reached >= 0 and not state["failed"]:    # once per example (Hypothesis's rule)
                target(float(reached), label="boundaries reached at once")

        # One database key per cell: Hypothesis keys examples by the test function, which is the same `prop`
        # for every cell (the documented hook its own pytest and stateful integrations use).
        prop.hypothesis.inner_test._hypothesis_internal_add_digest = cell.id.encode()
        # ... and the key itself, as hypothesis.find sets it: the digest of a function reads its source
        # (tokenize), 3% of a run's time when every search round makes its own `prop`.
        prop._hypothesis_internal_database_key = b"ascend-conformance:search:" + cell.id.encode()
        prop()

    def ahead(cases: list[Case], rest: Sequence[int], now: Case) -> Case | None:
        """The case `one` will judge after `now`, if the search goes on: sent to the backend ahead."""
        if state["searched"] + 1 >= profile.calls:
            return None
        for at in rest:
            case = cases[at]
            if case.key not in keys and case.key != now.key:
                return from_pool((case,), pool)[0] if pool else case
        return None

    def one(case: Case, then: Case | None = None) -> None:
        if pool:
            (case,) = from_pool((case,), pool)
        if not state["failed"]:
            if case.key in keys:
                return          # the same call on the same values as one judged already (Case.key)
            keys.add(case.key)
        if (state["failed"] and (result.shrink_calls >= SHRINK_CALLS or budget.exhausted())
                and not current_build_context().is_final):
            return              # shrinking has had its budget: no more backend runs (minimize() goes on)
        began = time.monotonic()
        outcome = inflight.judge(case, backend, rulebook, then)
        if state["failed"]:
            result.shrink_calls += 1
            budget.record(outcome, time.monotonic() - began)
        else:
            state["searched"] += 1
            tally(case, outcome)
        # Only the first non-conforming verdict found is shrunk (and reported): a different verdict met
        # while shrinking it is not what is being minimised, so it does not count as failing here.
        if not outcome.conforms and state["first"] in (None, outcome.key):
            found(case, outcome)
            state["failed"], state["at"] = True, state["now"]
            if current_build_context().is_final:
                state["final"][outcome.key] = (case, outcome)
            raise _RAISE[outcome.key](outcome.message)

    try:
        if state["first"] is None and callable(getattr(backend, "run_batch", None)):
            drawn = run_batches(cell, backend, profile, run_seed, tally, found, rulebook, pool)
            if not drawn:
                result.status, result.error = "unreachable", "no call could be generated for this cell"
            # Cell.draw ends short of the budget when a round of its search finds no call it has not drawn;
            # it also stops after SEARCH_ROUNDS rounds that each found some, which it does not tell apart
            result.exhausted = 0 < drawn < profile.calls
        elif state["first"] is None:        # no frozen case failed: search
            began = -1                      # calls judged when the last round began
            for examples, seed in search_rounds(profile.calls, cell_seed(run_seed, cell), lambda: state["searched"]):
                began = state["searched"]
                try:
                    search(examples, seed)
                except (Unsatisfiable, FailedHealthCheck):
                    if not state["searched"]:
                        raise               # no call at all: the cell is unreachable
                    began = state["searched"]
                    break                   # a later round found none: the calls found are what there is
            # a round that found no new call: Hypothesis has no other call of the cell to give
            result.exhausted = state["searched"] == began < profile.calls
    except _NonConforming:
        pass
    except (Unsatisfiable, FailedHealthCheck) as exc:
        result.status, result.error = "unreachable", f"no call could be generated for this cell: {exc}"
    except Exception as exc:            # noqa: BLE001 - flaky backend or a kit bug: report, keep going
        result.status, result.error = "error", f"{type(exc).__name__}: {exc}"
    finally:
        inflight.settle()
        inflight.shrinking(False)
    # The failure reported is the first verdict found (the one counted), shrunk by Hypothesis.
    first = state["first"]
    reported = state["final"].get(first) or state["last"].get(first)
    if reported is not None:
        case, outcome = reported
        case, outcome, runs = minimize(case, outcome, backend, budget, rulebook)
        result.shrink_calls += runs
        record = failure_record(cell, case, outcome, readings)
        if record["verdict"] == "DIVERGE":
            result.divergence = record
        else:
            result.failure = record
        if database is not None:
            from conformance.judge.failuredb import record as keep
            keep(database, record)
    result.counts = dict(counts)
    result.agreement = dict(agreement)
    result.tags = dict(tags)
    if reachable:
        result.edges = {"reachable": reachable, "missed": [t for t in reachable if t not in tags]}
    result.planned_calls = planned
    result.incomplete = incomplete_reason(result.status, bool(result.failure or result.divergence), planned,
                                          sum(counts.values()), result.exhausted, result.edges.get("missed", ()))
    result.by_dtype = {d: dict(c) for d, c in by_dtype.items()}
    result.evidence = {"shrink_stopped": budget.stopped_at, "entries": evidence.take()}
    result.seconds = round(time.perf_counter() - started, 3)
    return result


BATCH = 32         # calls handed to a backend's run_batch at once


def judged(cases: Sequence[Case], backend: Backend, rulebook: Rulebook | None = None
           ) -> Iterable[tuple[Case, Outcome]]:
    """(case, outcome) of planned cases in order, judged lazily (a caller that stops at a failure runs no
    more): BATCH at a time for a backend that runs batches, one at a time otherwise."""
    if not callable(getattr(backend, "run_batch", None)):
        for k, case in enumerate(cases):
            yield case, inflight.judge(case, backend, rulebook, cases[k + 1] if k + 1 < len(cases) else None)
        inflight.settle()
        return
    for start in range(0, len(cases), BATCH):
        chunk = cases[start:start + BATCH]
        yield from zip(chunk, inflight.judge_batch(chunk, backend, rulebook))


def run_batches(cell: Cell, backend: Backend, profile: Profile, run_seed: int, tally: Callable[[Case, Outcome], None],
                found: Callable[[Case, Outcome], None], rulebook: Rulebook | None = None, pool: int = 0) -> int:
    """The cell's generated calls for a backend that runs batches: drawn first (the same seeded search,
    without shrinking), run BATCH at a time, stopping at the first non-conforming call, which goes to
    `found` (minimize() then shrinks it with single runs). The number of calls drawn: 0 when none could be."""
    cases = from_pool(cell.draw(profile.calls, cell_seed(run_seed, cell), profile.gm_window), pool)
    for case, outcome in judged(cases, backend, rulebook):
        tally(case, outcome)
        if not outcome.conforms:
            found(case, outcome)
            break
    return len(cases)

def run_cells(cells: Iterable[Cell], backend: Backend, profile: Profile, run_seed: int) -> list[CellResult]:
    """In this process, one after the other (the kit's own tests; the CLI runs cells in supervised
    workers: conformance/supervise/pool.py)."""
    return [run_cell(cell, backend, profile, run_seed) for cell in cells]
