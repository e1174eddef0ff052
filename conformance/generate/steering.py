"""Steering the parameters of a call drawn to break one rule away from what would break another rule
with it (or put it in an ambiguity that overrides its rule): the final check keeps only calls that break
the target alone, and a call it throws away costs nearly a whole call."""
from __future__ import annotations

from typing import Any, Callable, Mapping

from oracle.call import nest
from oracle.kinds import kind_of
from oracle.rulebook import Ranges, param_ranges
from oracle.spec import Rule

from conformance.generate.environment import Env


def overriding(env: Env, target: Rule) -> list[tuple[Mapping[str, Any], list[str]]]:
    """The regions (of several parameters) of the ambiguities that override `target`: inside one the
    target's rule is not judged (vec_trans_scatter's half blocks: flags that differ), so a call drawn
    to break it alone stays out (parameters._stay_out)."""
    return [(region, list(region["params"])) for amb in env.spec.ambiguities if target.id in amb.overrides
            for region in amb.regions if len(region.get("params", {})) >= 2]


def one_repeat(names: list[str], steps: Mapping[str, int], params: dict[str, int], forced: str,
               domains: Mapping[str, list[tuple[int, int]]], below: Callable[[Mapping[str, Any]], bool]) -> None:
    """A stride forced below its range (-1) walks an operand back from its address, a bounds rule's
    break too, from the second repeat on (`below(params)`: reaches_below): the first count that stops
    it at one repeat (1, or one step of a count drawn in steps: dValue's 16 columns, one block) is set
    so, the counts drawn one by one tried first."""
    if not below(params):
        return
    for n in sorted(names, key=lambda n: steps.get(n, 1) != 1):
        one = steps.get(n, 1)
        if n != forced and params[n] > one and any(a <= one <= b for a, b in domains[n]):
            if not below({**params, n: one}):
                params[n] = one
                return


def reaches_below(env: Env, footprints: Mapping[str, Any]) -> bool:
    """Does an operand that a bounds rule holds touch bytes below its address (a stride forced below its
    range, -1, walking back a block a repeat)? Wherever it is placed, its bounds rule breaks too."""
    held = {op for r in env.spec.rules for op in [kind_of(r).held_operand(r)] if op is not None}
    for op, runs in footprints.items():
        if op in held and any(getattr(r, "begin", 0) < 0 for r in (runs if isinstance(runs, list) else [runs])):
            return True
    return False




def leave_checked(env: Env, draft: Any, params: dict[str, int], forced: str | None,
                  domains: Mapping[str, list[tuple[int, int]]], element: int,
                  keeps: Callable[[Mapping[str, Any]], bool]) -> None:
    """Out of an ambiguity region whose check the parameters alone decide (RuleKind.passing_multiple:
    data_copy_nz2nd's srcNdMatrixStride x 256 a multiple of nValue's bytes, with several matrices), where
    the call lies in one: the check's parameter moved to the nearer of its neighbouring passing
    multiples (the lower first where they are as near), else a parameter of the region just outside its
    interval; the first move that `keeps` (the call fits, and writes what it wrote twice so) is taken.
    The final check would give up every such call once it is placed."""
    call = None                 # the call with `params`, made again only once they change
    for amb in env.spec.ambiguities:
        for check in amb.checks:
            passing = kind_of(check).passing_multiple(check, params, element)
            if passing is None or params.get(passing[0], 0) % passing[1] == 0:
                continue
            if call is None:
                call = draft.template.replace(**nest(params))
            region = next((r for r in amb.regions if env.rulebook.matches(r, call, env.spec)), None)
            if region is None:
                continue
            moves = [] if passing[0] == forced else _passing_moves(*passing, params[passing[0]])
            moves += [(n, v) for n in reversed(list(region.get("params", {}))) if n != forced
                      for v in outside(region["params"][n], domains.get(n, ()))]
            moves = [(n, v) for n, v in moves if any(a <= v <= b for a, b in domains.get(n, ()))]
            move = next((m for m in moves if keeps({**params, m[0]: m[1]})), None)
            if move is not None:
                params[move[0]], call = move[1], None


def _passing_moves(name: str, multiple: int, value: int) -> list[tuple[str, int]]:
    """`name` at the multiples of `multiple` next to `value`, the nearer first (the lower where equal)."""
    low = value // multiple * multiple
    return [(name, v) for v in sorted((low, low + multiple), key=lambda v: abs(v - value))]


def outside(interval: tuple[int, int], domain: Any) -> list[int]:
    """The values just below and just above `interval` that are in `domain`."""
    lo, hi = interval
    return [v for v in (lo - 1, hi + 1) if any(a <= v <= b for a, b in domain)]


def ranges_of(region: Mapping[str, Any]) -> Ranges:
    """param_ranges of a region's params, once per region (the region kept: its id stays its own)."""
    known = _RANGES.get(id(region))
    if known is None or known[0] is not region:
        known = _RANGES[id(region)] = region, param_ranges(region["params"])
    return known[1]


_RANGES: dict[int, tuple[Mapping[str, Any], Ranges]] = {}
