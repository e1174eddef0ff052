"""Running cells: Hypothesis drives the calls of one cell through the backend and shrinks a failure.

`run_cell` is plain Python: the kit's own tests call it directly, and the command line and the pytest
front end run it in supervised workers. Verdicts are counted for the calls Hypothesis generates, up to
and including the first non-conforming one; that call is then shrunk on its own (Hypothesis's shrinker on
the bytes that made it, then minimize() on the call itself), and the calls spent shrinking it are
counted apart. A cell that judged fewer calls than it planned, or missed an edge of its sweep, is
incomplete: it cannot conform.
"""
from __future__ import annotations

import contextlib
import time
from collections import Counter
from typing import Any, Callable, Iterable, Mapping, Sequence

from hypothesis import Phase, given, settings, target, seed as hseed
from hypothesis.errors import FailedHealthCheck, Unsatisfiable

from oracle.spec import Rulebook

from conformance.backends.calling import ask_supports
from conformance.backends.contract import Backend, BackendCrash
from conformance.generate.blocks import fixed_blocks
from conformance.generate.cells import Cell
from conformance.generate.challenge import from_pool
from conformance.generate.case import Case
from conformance.generate.profiles import Profile
from conformance.generate.strategies import BatchEnd, ending_batches, search_rounds
from conformance.judge import coverage_points, evidence, inflight, judging
from conformance.judge.batches import cell_seed, judged, run_batches
from conformance.judge.cell_result import CellResult, incomplete_reason
from conformance.judge.minimize import ShrinkBudget, minimize
from conformance.judge.reproducers import declared_of, failure_record
from conformance.judge.shrinking import QUIET, final_replay, shrink_choices
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


def run_cell(cell: Cell, backend: Backend, profile: Profile, run_seed: int,
             frozen: Sequence[Case] = (), database: Any = None, sweep: bool | None = None, *,
             hang_after: float | None = None, on_found: Callable[[dict[str, Any]], None] | None = None,
             rulebook: Rulebook, readings: Mapping[str, str] | None = None, pool: int = 0,
             shrink_stop: int | None = None) -> CellResult:
    """Judge the `frozen` cases (certify's fixed list, or failures kept from earlier runs) in order, then
    the cell's edge sweep (`sweep`, default: the profile's), then let Hypothesis search the cell with the
    profile's budget; stop at the first non-conforming call and shrink it. `database` (a Hypothesis
    ExampleDatabase): the search replays what it kept for the cell first, and the failure found is kept
    there (conformance/judge/failuredb.py). `hang_after`: the backend's time limit, so that shrinking stops
    after a few calls that time out. `on_found` hears the first failure as soon as it is found, before
    shrinking (a supervisor keeps it should the worker die). `rulebook`: the run's specs, and `readings`
    the readings it declares (ambiguity id -> reading id): every call is judged by
    `rulebook.with_readings(readings)`, and a failure shrinks within the ambiguity regions `rulebook`
    itself flags. The calls (sweep and search) are drawn from `rulebook` itself, the plain specs.
    `pool`: the random pool every call's images are cut from (a challenge's; 0: the published one; the
    `frozen` cases come with theirs). `shrink_stop`: shrinking stops after that many runs and only there
    (`verify` following a run's evidence), instead of after SHRINK_SECONDS.

    The result carries the evidence of every call judged (conformance/judge/evidence.py), in order.

    The result says what the cell planned (`planned_calls`: its frozen cases, its sweep, the search's
    budget), whether the search ran out of distinct calls before the budget (`exhausted`: it judged every
    call there is), and why it is incomplete where it is (`incomplete`, see incomplete_reason): the draws
    are the same either way."""
    return CellRun(cell, backend, profile, run_seed, frozen, database, sweep, hang_after=hang_after,
                   on_found=on_found, rulebook=rulebook, readings=readings, pool=pool,
                   shrink_stop=shrink_stop).result()


class CellRun:
    """One cell judged, phase by phase (see run_cell): `kept` (the frozen cases), `edges` (the sweep),
    `search` (Hypothesis, or the batches of a batch backend), `shrink_alone` and `reported` (the failure
    shrunk), then `result`. Every call judged goes through `judge_one` (searched calls) or `count`."""

    def __init__(self, cell: Cell, backend: Backend, profile: Profile, run_seed: int, frozen: Sequence[Case],
                 database: Any, sweep: bool | None, *, hang_after: float | None,
                 on_found: Callable[[dict[str, Any]], None] | None, rulebook: Rulebook,
                 readings: Mapping[str, str] | None, pool: int, shrink_stop: int | None):
        self.cell, self.backend, self.profile, self.run_seed = cell, backend, profile, run_seed
        self.frozen, self.database, self.sweep, self.pool = frozen, database, sweep, pool
        self.on_found = on_found
        self.plain = rulebook           # the run's specs, no reading declared: what the calls are drawn from
        # what every call is judged by: the run's specs with the readings it declares
        self.rulebook = rulebook.with_readings(readings) if readings else rulebook
        self.out = CellResult(cell.to_dict())
        self.counts: Counter[str] = Counter()           # verdict -> calls counted
        self.tags: Counter[str] = Counter()             # boundary reached -> calls
        self.agreement: Counter[str] = Counter()        # under --against: AGREE / DIVERGE -> calls
        self.by_dtype: dict[str, Counter[str]] = {}
        self.budget = ShrinkBudget(SHRINK_SECONDS, hang_after, stop_after=shrink_stop)
        self.seen: set[Any] = set()                     # the keys of the searched calls judged (Case.key)
        self.answers: dict[Any, Outcome] = {}           # Case.key -> outcome, of the failure and its shrinking
        self.spec = rulebook.api(cell.api)
        self.readings = declared_of(self.rulebook, cell.api)
        self.first: str | None = None                   # the verdict of the first non-conforming call
        self.latest: dict[str, tuple[Case, Outcome]] = {}   # per verdict, the last call found giving it
        self.final: dict[str, tuple[Case, Outcome]] = {}    # ... as Hypothesis's final replay found it
        self.shrinking = False                          # a failure is found: the calls now shrink it
        self.searched = 0                               # searched calls judged and counted
        self.failing_at = 0                             # where in its batch the failing call was
        self.judging_at = 0                             # where in its batch the call being judged is
        self.failing_blocks: tuple[bytes, ...] = ()     # the bytes that made the failing call
        self.reachable: list[str] = []                  # the edges the sweep can reach
        self.planned = len(frozen) + profile.calls

    # ------------------------------------------------------------------ the phases

    def result(self) -> CellResult:
        started = time.perf_counter()
        evidence.start()
        coverage_points.start()
        if self.unsupported():
            evidence.take()
            coverage_points.take()
            return self.out
        self.kept()
        self.edges()
        try:
            self.search()
        except _NonConforming:
            pass
        except (Unsatisfiable, FailedHealthCheck) as exc:
            self.out.status, self.out.error = "unreachable", f"no call could be generated for this cell: {exc}"
        except Exception as exc:            # noqa: BLE001 - flaky backend or a kit bug: report, keep going
            self.out.status, self.out.error = "error", f"{type(exc).__name__}: {exc}"
        finally:
            judging.settle()
            inflight.shrinking(False)
        self.reported()
        return self.settled(started)

    def unsupported(self) -> bool:
        """Does the backend not take the cell (or crash saying whether it does)? The result says which."""
        try:
            supported = ask_supports(self.backend, self.cell.api, self.cell.product)
        except BackendCrash as exc:
            self.out.status, self.out.error = "error", str(exc)
            return True
        if not supported:
            self.out.status = "not_supported"
            self.out.counts = {Verdict.NOT_SUPPORTED.value: 1}
        return not supported

    def kept(self) -> None:
        """The frozen cases (certify's list, or failures kept from earlier runs), in order."""
        for case in self.frozen:
            outcome = judging.judge_case(case, self.backend, self.rulebook)
            self.count(case, outcome)
            self.out.frozen_calls += 1
            if not outcome.conforms:
                self.found(case, outcome)
                return

    def edges(self) -> None:
        """The edge sweep: the same calls on every run, judged and counted like the frozen ones."""
        if not (self.profile.sweep if self.sweep is None else self.sweep):
            return
        from conformance.generate.edges import targets
        from conformance.generate.sweep_record import swept
        self.reachable = targets(self.cell, self.plain, self.profile.gm_window)
        cases = from_pool(swept(self.cell, self.plain, self.profile.gm_window), self.pool)
        self.planned += len(cases)
        for case, outcome in judged(cases if self.first is None else [], self.backend, self.rulebook):
            self.count(case, outcome)
            self.out.sweep_calls += 1
            if not outcome.conforms:
                self.found(case, outcome)
                return

    def search(self) -> None:
        """The profile's calls, where no kept or swept call failed: drawn and run in batches for a backend
        that runs batches, searched by Hypothesis (in rounds, see search_rounds) otherwise."""
        if self.first is not None:
            return
        if callable(getattr(self.backend, "run_batch", None)):
            drawn = run_batches(self.cell, self.backend, self.profile, self.run_seed, self.count, self.found,
                                self.rulebook, self.pool, plain=self.plain)
            if not drawn:
                self.out.status, self.out.error = "unreachable", "no call could be generated for this cell"
            # Cell.draw ends short of the budget when a round of its search finds no call it has not drawn;
            # it also stops after SEARCH_ROUNDS rounds that each found some, which it does not tell apart
            self.out.exhausted = 0 < drawn < self.profile.calls
            return
        began = -1                      # calls judged when the last round began
        for examples, seed in search_rounds(self.profile.calls, cell_seed(self.run_seed, self.cell),
                                            lambda: self.searched):
            began = self.searched
            try:
                self.search_round(examples, seed)
            except _NonConforming:
                if self.failing_blocks:
                    with contextlib.suppress(_NonConforming):
                        self.shrink_alone(seed)
                raise
            except (Unsatisfiable, FailedHealthCheck):
                if not self.searched:
                    raise               # no call at all: the cell is unreachable
                began = self.searched
                break                   # a later round found none: the calls found are what there is
        # a round that found no new call: Hypothesis has no other call of the cell to give
        self.out.exhausted = self.searched == began < self.profile.calls

    def search_round(self, examples: int, seed: int) -> None:
        """One Hypothesis run of `examples` batches of calls (see search_rounds)."""

        @settings(max_examples=examples, database=self.database,
                  phases=(Phase.explicit, Phase.reuse, Phase.generate) + ((Phase.target,) if self.profile.target else ()),
                  **QUIET)
        @hseed(seed)
        @given(self.cell.strategy(self.plain, self.profile.gm_window, batch=True))
        def prop(cases: list[Case]) -> None:
            self.judge_example(cases)

        end = BatchEnd(self.seen, lambda: self.profile.calls - self.searched, lambda: self.shrinking)
        with fixed_blocks():
            ending_batches(lambda: self.keyed(prop, b"ascend-conformance:search:")(), end,
                           lambda: _RAISE[self.first](self.first) if self.first else None)

    def keyed(self, prop: Any, prefix: bytes) -> Any:
        """`prop` with one database key per cell: Hypothesis keys examples by the test function, which is
        the same for every cell (the digest is the documented hook its own pytest and stateful integrations
        use), and the key itself set as hypothesis.find sets it (the digest of a function reads its source,
        a cost at every run)."""
        prop.hypothesis.inner_test._hypothesis_internal_add_digest = self.cell.id.encode()
        prop._hypothesis_internal_database_key = prefix + self.cell.id.encode()
        return prop

    def judge_example(self, cases: list[Case]) -> None:
        """One example of the search: its calls judged in order (until the profile's calls are spent), the
        next one sent to the backend ahead; Hypothesis targets the most boundaries one call reached (and,
        where the backend reports coverage, the most points of its code reached first). In
        Hypothesis's last replay of a failing example, the failing call is judged first."""
        order = list(range(len(cases)))
        if self.shrinking and self.failing_at < len(cases):    # replaying the failure: it goes first
            order.insert(0, order.pop(self.failing_at))
        reached, points = -1, coverage_points.count()
        for k, at in enumerate(order):
            if not self.shrinking and self.searched >= self.profile.calls:
                break           # the profile's calls are spent (the last batch may be cut short)
            self.judging_at = at
            self.judge_one(cases[at], self.ahead(cases, order[k + 1:], cases[at]))
            reached = max(reached, len(cases[at].tags))
        if self.profile.target and reached >= 0 and not self.shrinking:    # once per example (Hypothesis's rule)
            target(float(reached), label="boundaries reached at once")
            if coverage_points.count() or points:     # under --coverage: towards calls reaching new backend code
                target(float(coverage_points.count() - points), label="backend points reached first")

    def shrink_alone(self, seed: int) -> None:
        """Hypothesis's shrinker on the failing call alone (conformance/judge/shrinking.py): a search's
        example holds SEARCH_BATCH calls, and shrinking it drew them all for every candidate; here a
        candidate draws one. The smallest failing call it finds is the one reported."""
        found = shrink_choices(self.cell.strategy(self.plain, self.profile.gm_window), self.failing_blocks, seed,
                               b"ascend-conformance:shrink:" + self.cell.id.encode(), self.fails_again,
                               _RAISE[self.first or Verdict.FAIL.value])
        if found is not None:
            self.final[found[1].key] = found

    def fails_again(self, case: Case) -> tuple[Case, Outcome] | None:
        """A shrinking candidate judged: the failure it gives (the verdict being shrunk), or None."""
        try:
            self.judge_one(case)
        except _NonConforming:
            return self.latest[self.first]
        return None

    def reported(self) -> None:
        """The failure reported: the first verdict found (the one counted), as Hypothesis shrank it, then
        minimize() on the call itself; kept in the failure database where there is one."""
        found = self.final.get(self.first) or self.latest.get(self.first) if self.first else None
        if found is None:
            return
        case, outcome, runs = minimize(*found, self.backend, self.budget, self.plain, self.rulebook)
        self.out.shrink_calls += runs
        record = failure_record(self.cell, case, outcome, self.readings)
        if record["verdict"] == "DIVERGE":
            self.out.divergence = record
        else:
            self.out.failure = record
        if self.database is not None:
            from conformance.judge.failuredb import record as keep
            keep(self.database, record)

    def settled(self, started: float) -> CellResult:
        """The result, its counts and what it planned filled in, and whether it is complete."""
        out = self.out
        out.counts, out.agreement, out.tags = dict(self.counts), dict(self.agreement), dict(self.tags)
        if self.reachable:
            out.edges = {"reachable": self.reachable, "missed": [t for t in self.reachable if t not in self.tags]}
        out.planned_calls = self.planned
        out.incomplete = incomplete_reason(out.status, bool(out.failure or out.divergence), self.planned,
                                           sum(self.counts.values()), out.exhausted, out.edges.get("missed", ()))
        out.by_dtype = {d: dict(c) for d, c in self.by_dtype.items()}
        out.evidence = {"shrink_stopped": self.budget.stopped_at, "entries": evidence.take()}
        out.coverage = coverage_points.take()
        out.seconds = round(time.perf_counter() - started, 3)
        return out

    # ------------------------------------------------------------------ one call

    def count(self, case: Case, outcome: Outcome) -> None:
        """A judged call counted: its verdict, its agreement under --against, its boundaries, its dtype."""
        self.counts[outcome.verdict.value] += 1
        inflight.counted(outcome.verdict.value)
        agreed = getattr(outcome, "agreement", None)
        if agreed is not None:
            self.agreement[agreed.verdict] += 1
            inflight.counted(agreed.verdict)
        self.tags.update(case.tags)
        self.by_dtype.setdefault(self.spec.dtype_of_call(case.call), Counter())[outcome.verdict.value] += 1

    def found(self, case: Case, outcome: Outcome) -> None:
        """A non-conforming call (frozen, swept, batched or searched): the one to report; the first one
        found starts the shrinking clock."""
        if self.first is None:
            self.budget.start()
            inflight.shrinking(True)
            if self.on_found is not None:
                self.on_found(failure_record(self.cell, case, outcome, self.readings))
        self.first = outcome.key
        self.latest[outcome.key] = (case, outcome)
        self.answers.setdefault(case.key, outcome)

    def ahead(self, cases: list[Case], rest: Sequence[int], now: Case) -> Case | None:
        """The case judge_one will judge after `now`, if the search goes on: sent to the backend ahead."""
        if self.shrinking or self.searched + 1 >= self.profile.calls:
            return None
        for at in rest:
            case = cases[at]
            if case.key not in self.seen and case.key != now.key:
                return from_pool((case,), self.pool)[0] if self.pool else case
        return None

    def judge_one(self, case: Case, then: Case | None = None) -> None:
        """A searched call judged (once: a call judged already is skipped) and counted; while shrinking,
        answered by shrink_answer and not counted. The first non-conforming verdict raises, so that
        Hypothesis stops (or, shrinking, keeps the smaller call)."""
        if self.pool:
            (case,) = from_pool((case,), self.pool)
        if self.shrinking:
            outcome = self.shrink_answer(case)
            if outcome is None:
                return          # shrinking has had its budget: no more backend runs (minimize() goes on)
        else:
            if case.key in self.seen:
                return          # the same call on the same values as one judged already (Case.key)
            self.seen.add(case.key)
            outcome = judging.judge_case(case, self.backend, self.rulebook, then)
            self.searched += 1
            self.count(case, outcome)
        # Only the first non-conforming verdict found is shrunk (and reported): a different verdict met
        # while shrinking it is not what is being minimised, so it does not count as failing here.
        if not outcome.conforms and self.first in (None, outcome.key):
            self.found(case, outcome)
            self.shrinking, self.failing_at, self.failing_blocks = True, self.judging_at, case.blocks
            if final_replay():
                self.final[outcome.key] = (case, outcome)
            raise _RAISE[outcome.key](outcome.message)

    def shrink_answer(self, case: Case) -> Outcome | None:
        """While shrinking, the backend's answer for `case`: asked once per call (Case.key), since the
        shrinker's candidates make the same call from different choices again and again; None once
        shrinking has had its budget (except in Hypothesis's final replay)."""
        if ((self.out.shrink_calls >= SHRINK_CALLS or self.budget.exhausted())
                and not final_replay()):
            return None
        known = self.answers.get(case.key)
        if known is not None:
            return known
        began = time.monotonic()
        outcome = judging.judge_case(case, self.backend, self.rulebook)
        self.out.shrink_calls += 1
        self.budget.record(outcome, time.monotonic() - began)
        self.answers[case.key] = outcome
        return outcome


def run_cells(cells: Iterable[Cell], backend: Backend, profile: Profile, run_seed: int,
              rulebook: Rulebook, readings: Mapping[str, str] | None = None) -> list[CellResult]:
    """In this process, one after the other, judged by `rulebook` under the declared `readings` (the kit's
    own tests; the CLI runs cells in supervised workers: conformance/supervise/pool.py)."""
    return [run_cell(cell, backend, profile, run_seed, rulebook=rulebook, readings=readings) for cell in cells]
