"""A last, kit-level shrinking pass over the failing call Hypothesis hands back.

Hypothesis shrinks the *choices* that built a call. Some simplifications need two choices to move at
once (a parameter drawn "at its largest fit" must become "any value" *and* that value must become
small), which its shrinker cannot do, so a failure found at nburst=3071 may stay there. This pass works
on the call itself: it lowers each integer parameter towards the bottom of its range, moves each tensor
to the bottom of its scope and lowers its numel towards what the call touches, keeping a change only
when the backend still gives the same non-conforming verdict and the oracle the same violations. Every
step is a real backend run.
"""
from __future__ import annotations

import time
from typing import Any, Callable

from oracle import Call, Tensor, check
from oracle.rules import context
from oracle.kinds import kind_of
from oracle.spec import Rulebook

from conformance.backends.contract import Backend
from conformance.generate.case import Case
from conformance.generate.memory import image_sizes
from conformance.judge import judging
from conformance.judge.verdicts import Outcome

MAX_RUNS = 200
ADDR_STEP = 32          # where an operand is moved down to, next to the others: a 32-byte boundary (UB/L1 blocks)


class ShrinkBudget:
    """What shrinking one failure may spend (Hypothesis's shrinker and minimize() together): seconds,
    and runs that time out. A backend that hangs costs its time limit on every shrinking run that
    hangs, so after `timeouts` of them the failure is reported as it stands (a hanging cell then costs
    about 1 + `timeouts` time limits).

    `stopped_at` says after how many runs the budget ran out (None: it did not), which is all a run's
    evidence needs to say of it: `stop_after` gives a budget that runs out there and nowhere else, so
    that `verify` follows the shrinking the run did, however long its calls took."""

    def __init__(self, seconds: float, hang_after: float | None, timeouts: int = 2, stop_after: int | None = None):
        self.seconds, self.hang_after, self.timeouts = seconds, hang_after, timeouts
        self.deadline: float | None = None
        self.spent = self.timed_out = 0
        self.stop_after = stop_after
        self.stopped_at: int | None = None

    def start(self) -> None:
        if self.deadline is None:
            self.deadline = time.monotonic() + self.seconds

    def record(self, outcome: Outcome, seconds: float) -> None:
        self.spent += 1
        if self.hang_after is not None and not outcome.conforms and seconds >= 0.9 * self.hang_after:
            self.timed_out += 1

    def exhausted(self) -> bool:
        if self.stop_after is not None:
            done = self.spent >= self.stop_after
        else:
            done = self.timed_out >= self.timeouts or (self.deadline is not None and time.monotonic() > self.deadline)
        if done and self.stopped_at is None:
            self.stopped_at = self.spent
        return done


def minimize(case: Case, outcome: Outcome, backend: Backend, budget: ShrinkBudget | None, plain: Rulebook,
             judged_by: Rulebook) -> tuple[Case, Outcome, int]:
    """A call no larger than `case.call` that fails the same way; returns it, its outcome, runs spent.
    Stops after MAX_RUNS backend runs or when `budget` is exhausted, whichever comes first. `judged_by`:
    the run's rulebook (its declared readings); a smaller call must also stay in the same ambiguity
    regions (those the `plain` rulebook, the run's without any reading declared, flags), so that a failure
    in a region is reported in it."""
    shrink = Minimizer(case, outcome, backend, budget, plain, judged_by)
    shrink.lower_params()
    shrink.lower_addresses()
    shrink.lower_numels()
    return shrink.best, shrink.best_outcome, shrink.runs


class Minimizer:
    """The pass over one failing call: `best` is the smallest call found so far that fails as the first
    did (the same verdict, the same violations, the same ambiguity regions), `runs` the backend runs spent."""

    def __init__(self, case: Case, outcome: Outcome, backend: Backend, budget: ShrinkBudget | None,
                 plain: Rulebook, judged_by: Rulebook):
        self.rulebook, self.judged_by = plain, judged_by
        self.spec = self.rulebook.api(case.call.api)
        self.regions = {a.id for a in self.spec.ambiguities}
        self.backend, self.budget = backend, budget
        first_memory = case.memory.build() if case.memory.writes else None
        self.target = ({v.rule for v in outcome.violations}, self.rules(case.call, first_memory)[1])
        self.verdict = outcome.key
        self.best, self.best_outcome, self.runs = case, outcome, 0

    def spent(self) -> bool:
        return self.runs >= MAX_RUNS or (self.budget is not None and self.budget.exhausted())

    def rules(self, call: Call, memory: Any) -> tuple[set[str], set[str]]:
        """What the call breaks by the run's rulebook, and the ambiguity regions it lies in."""
        plain = {v.rule for v in check(call, memory, self.rulebook)} & self.regions if self.regions else set()
        return {v.rule for v in check(call, memory, self.judged_by)}, plain

    def refit(self, call: Call) -> Call:
        """`call` with each tensor's numel moved by as much as its footprint moved: a tensor that held
        its footprint with k bytes to spare still does, one that fell k bytes short still does."""
        old, new = context(self.best.call, rulebook=self.rulebook), context(call, rulebook=self.rulebook)
        tensors = {}
        for name in self.spec.operands:
            refitted = []
            for (_, was, before), (_, t, after) in zip(old.entries(name), new.entries(name)):
                size = self.rulebook.itemsize(t.dtype)
                if before is None or after is None:       # addressed by offsets: keeps its numel
                    refitted.append(t)
                    continue
                spare = was.numel * size - before.end
                refitted.append(Tensor(t.scope, t.addr, t.dtype, max(0, -(-(after.end + spare) // size))))
            tensors[name] = refitted if self.spec.is_list(name) else refitted[0]
        return call.replace(**tensors)

    def memory_for(self, call: Call) -> Any:
        """The best call's memory recipe, resized for `call`, built (None where it writes nothing)."""
        return self.best.memory.resized(image_sizes(call, self.rulebook)).build() if self.best.memory.writes else None

    def attempt(self, call: Call) -> bool:
        """Run `call` (refitted where its tensors no longer hold what they held) where it breaks what the
        first call broke; keep it as the best if it fails the same way."""
        if self.spent():
            return False
        try:
            if self.rules(call, self.memory_for(call)) != self.target:
                call = self.refit(call)
                if self.rules(call, self.memory_for(call)) != self.target:
                    return False
            recipe = self.best.memory.resized(image_sizes(call, self.rulebook))
        except ValueError:
            return False
        self.runs += 1
        candidate = Case(call, recipe, self.best.expect, self.best.rule, self.best.tags)
        began = time.monotonic()
        result = judging.judge_case(candidate, self.backend, self.judged_by)
        if self.budget is not None:
            self.budget.record(result, time.monotonic() - began)
        if result.key != self.verdict:
            return False
        self.best, self.best_outcome = candidate, result
        return True

    def lower(self, get: Callable[[Call], int], put: Callable[[Call, int], Call], floor: int) -> None:
        """Smallest value in [floor, current] that still fails (bisection, assuming monotony)."""
        current = get(self.best.call)
        if current <= floor or self.attempt(put(self.best.call, floor)):
            return
        lo, hi = floor, current          # lo passes (or is illegal), hi fails
        while hi - lo > 1 and not self.spent():
            mid = (lo + hi) // 2
            if self.attempt(put(self.best.call, mid)):
                hi = mid
            else:
                lo = mid

    def lower_params(self) -> None:
        """Each integer parameter towards the bottom of its range."""
        floors = {n: i[0] for r in self.spec.rules_that("interval") for n in self.spec.params
                  for i in [kind_of(r).interval(r, n)] if i is not None}
        for name in self.spec.params:
            if self.best.call.form not in self.spec.params[name].get("forms", [self.best.call.form]):
                continue
            value = self.best.call.param(name)
            if isinstance(value, int) and not isinstance(value, bool):
                self.lower(lambda c, n=name: c.param(n), lambda c, v, n=name: _with_param(c, v, n),
                           floors.get(name, 0))

    def lower_addresses(self) -> None:
        """Operands moved down to the bottom of their scope (or just above the others there): a failure
        found at UB byte 23072 reads as well at byte 0. Tried, not bisected: most addresses between are
        misaligned."""
        for name in self.spec.operands:
            t = self.best.call.args[name]
            if self.spec.is_list(name) or not isinstance(t, Tensor) or t.addr == 0:
                continue
            others = [o for n, o in self.best.call.args.items()
                      if n != name and isinstance(o, Tensor) and o.scope == t.scope]
            above = max((o.addr + o.numel * self.rulebook.itemsize(o.dtype) for o in others), default=0)
            for addr in dict.fromkeys((0, -(-above // ADDR_STEP) * ADDR_STEP)):
                if addr < t.addr and self.attempt(self.best.call.replace(**{name: Tensor(t.scope, addr, t.dtype,
                                                                                          t.numel)})):
                    break

    def lower_numels(self) -> None:
        """Each tensor's numel towards what the call touches (list entries keep theirs: refit() already
        follows the parameters)."""
        for name in self.spec.operands:
            if self.spec.is_list(name):
                continue

            def put(c: Call, v: int, n: str = name) -> Call:
                t = c.args[n]
                return c.replace(**{n: Tensor(t.scope, t.addr, t.dtype, v)})
            ctx = context(self.best.call, rulebook=self.rulebook)
            if ctx.accesses[name] is None:
                continue
            itemsize = self.rulebook.itemsize(self.best.call.args[name].dtype)
            self.lower(lambda c, n=name: c.args[n].numel, put, -(-ctx.accesses[name].end // itemsize))


def _with_param(c: Call, v: int, name: str) -> Call:
    head, _, field_name = name.partition(".")        # intriParams.nValue: a field of a mapping
    return c.replace(**{head: {**c.args[head], field_name: v} if field_name else v})
