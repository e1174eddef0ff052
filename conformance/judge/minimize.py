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
from typing import Callable

from oracle import Call, Tensor, check
from oracle.rules import context
from oracle.spec import Rulebook, default_rulebook

from conformance.backends.contract import Backend
from conformance.generate.environment import Case
from conformance.generate.memory import image_sizes
from conformance.judge import inflight
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


def minimize(case: Case, outcome: Outcome, backend: Backend, budget: ShrinkBudget | None = None,
             judged_by: Rulebook | None = None) -> tuple[Case, Outcome, int]:
    """A call no larger than `case.call` that fails the same way; returns it, its outcome, runs spent.
    Stops after MAX_RUNS backend runs or when `budget` is exhausted, whichever comes first. `judged_by`:
    the run's rulebook (its declared readings); a smaller call must also stay in the same ambiguity
    regions (those the plain rulebook flags), so that a failure in a region is reported in it."""
    rulebook = default_rulebook()
    judged_by = judged_by or rulebook
    spec = rulebook.api(case.call.api)
    regions = {a.id for a in spec.ambiguities}

    def rules(call: Call, memory) -> tuple[set[str], set[str]]:
        """What the call breaks by the run's rulebook, and the ambiguity regions it lies in."""
        plain = {v.rule for v in check(call, memory)} & regions if regions else set()
        return {v.rule for v in check(call, memory, judged_by)}, plain

    first_memory = case.memory.build() if case.memory.writes else None
    target = (({v.rule for v in outcome.violations}, rules(case.call, first_memory)[1]), outcome.key)
    runs = 0
    best, best_outcome = case, outcome

    def refit(call: Call) -> Call:
        """`call` with each tensor's numel moved by as much as its footprint moved: a tensor that held
        its footprint with k bytes to spare still does, one that fell k bytes short still does."""
        old, new = context(best.call), context(call)
        tensors = {}
        for name in spec.operands:
            refitted = []
            for (_, was, before), (_, t, after) in zip(old.entries(name), new.entries(name)):
                size = rulebook.itemsize(t.dtype)
                if before is None or after is None:       # addressed by offsets: keeps its numel
                    refitted.append(t)
                    continue
                spare = was.numel * size - before.end
                refitted.append(Tensor(t.scope, t.addr, t.dtype, max(0, -(-(after.end + spare) // size))))
            tensors[name] = refitted if spec.is_list(name) else refitted[0]
        return call.replace(**tensors)

    def attempt(call: Call) -> bool:
        nonlocal runs, best, best_outcome
        if runs >= MAX_RUNS or (budget is not None and budget.exhausted()):
            return False
        try:
            memory = best.memory.resized(image_sizes(call, rulebook)).build() if best.memory.writes else None
            if rules(call, memory) != target[0]:
                call = refit(call)
                memory = best.memory.resized(image_sizes(call, rulebook)).build() if best.memory.writes else None
                if rules(call, memory) != target[0]:
                    return False
            recipe = best.memory.resized(image_sizes(call, rulebook))
        except ValueError:
            return False
        runs += 1
        candidate = Case(call, recipe, best.expect, best.rule, best.tags)
        began = time.monotonic()
        result = inflight.judge(candidate, backend, judged_by)
        if budget is not None:
            budget.record(result, time.monotonic() - began)
        if result.key != target[1]:
            return False
        best = candidate
        best_outcome = result
        return True

    def lower(get: Callable[[Call], int], put: Callable[[Call, int], Call], floor: int) -> None:
        """Smallest value in [floor, current] that still fails (bisection, assuming monotony)."""
        current = get(best.call)
        if current <= floor or attempt(put(best.call, floor)):
            return
        lo, hi = floor, current          # lo passes (or is illegal), hi fails
        while hi - lo > 1 and runs < MAX_RUNS and not (budget is not None and budget.exhausted()):
            mid = (lo + hi) // 2
            if attempt(put(best.call, mid)):
                hi = mid
            else:
                lo = mid

    floors = {r["param"]: r["min"] for r in spec.rules_of("range")}

    def set_param(c: Call, v: int, name: str) -> Call:
        head, _, field_name = name.partition(".")        # intriParams.nValue: a field of a mapping
        return c.replace(**{head: {**c.args[head], field_name: v} if field_name else v})

    for name in spec.params:
        if best.call.form not in spec.params[name].get("forms", [best.call.form]):
            continue
        value = best.call.param(name)
        if isinstance(value, int) and not isinstance(value, bool):
            lower(lambda c, n=name: c.param(n), lambda c, v, n=name: set_param(c, v, n), floors.get(name, 0))
    # Operands moved down to the bottom of their scope (or just above the others there): a failure found
    # at UB byte 23072 reads as well at byte 0. Tried, not bisected: most addresses between are misaligned.
    for name in spec.operands:
        t = best.call.args[name]
        if spec.is_list(name) or not isinstance(t, Tensor) or t.addr == 0:
            continue
        others = [o for n, o in best.call.args.items() if n != name and isinstance(o, Tensor) and o.scope == t.scope]
        above = max((o.addr + o.numel * rulebook.itemsize(o.dtype) for o in others), default=0)
        for addr in dict.fromkeys((0, -(-above // ADDR_STEP) * ADDR_STEP)):
            if addr < t.addr and attempt(best.call.replace(**{name: Tensor(t.scope, addr, t.dtype, t.numel)})):
                break
    for name in spec.operands:
        if spec.is_list(name):          # entries keep their numel: refit() already follows the params
            continue

        def put(c: Call, v: int, n: str = name) -> Call:
            t = c.args[n]
            return c.replace(**{n: Tensor(t.scope, t.addr, t.dtype, v)})
        ctx = context(best.call)
        if ctx.accesses[name] is None:
            continue
        itemsize = rulebook.itemsize(best.call.args[name].dtype)
        lower(lambda c, n=name: c.args[n].numel, put, -(-ctx.accesses[name].end // itemsize))
    return best, best_outcome, runs
