"""Steering the parameters of a call drawn to break one rule away from what would break another rule
with it (or put it in an ambiguity that overrides its rule): the final check keeps only calls that break
the target alone, and a call it throws away costs nearly a whole call."""
from __future__ import annotations

from typing import Any, Callable, Mapping

from oracle.kinds import kind_of
from oracle.spec import Rule

from conformance.generate.environment import Env


def overriding(env: Env, target: Rule) -> list[tuple[Mapping[str, Any], list[str]]]:
    """The regions (of several parameters) of the ambiguities that override `target`: inside one the
    target's rule is not judged (vec_trans_scatter's half blocks: flags that differ), so a call drawn
    to break it alone stays out (parameters._stay_out)."""
    return [(region, list(region["params"])) for amb in env.spec.ambiguities if target.id in amb.overrides
            for region in amb.regions if len(region.get("params", {})) >= 2]


def one_repeat(names: list[str], params: dict[str, int], forced: str, domains: Mapping[str, list[tuple[int, int]]],
               below: Callable[[Mapping[str, Any]], bool]) -> None:
    """A stride forced below its range (-1) walks an operand back from its address, a bounds rule's
    break too, from the second repeat on (`below(params)`: reaches_below): the first count that stops
    it at 1 (one repeat) is set so."""
    if not below(params):
        return
    for n in names:
        if n != forced and params[n] > 1 and any(a <= 1 <= b for a, b in domains[n]):
            if not below({**params, n: 1}):
                params[n] = 1
                return


def reaches_below(env: Env, footprints: Mapping[str, Any]) -> bool:
    """Does an operand that a bounds rule holds touch bytes below its address (a stride forced below its
    range, -1, walking back a block a repeat)? Wherever it is placed, its bounds rule breaks too."""
    held = {op for r in env.spec.rules for op in [kind_of(r).held_operand(r)] if op is not None}
    for op, runs in footprints.items():
        if op in held and any(getattr(r, "begin", 0) < 0 for r in (runs if isinstance(runs, list) else [runs])):
            return True
    return False


