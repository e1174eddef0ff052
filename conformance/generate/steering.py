"""Steering the parameters of a call drawn to break one rule away from what would break another rule
with it (or put it in an ambiguity that overrides its rule): the final check keeps only calls that break
the target alone, and a call it throws away costs nearly a whole call."""
from __future__ import annotations

from typing import Any, Callable, Mapping

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
    held = {r["operand"] for r in env.spec.rules_of("bounds")}
    for op, runs in footprints.items():
        if op in held and any(getattr(r, "begin", 0) < 0 for r in (runs if isinstance(runs, list) else [runs])):
            return True
    return False


def covers(env: Env, region: Mapping[str, Any], form: str | None, dtype: str | None = None) -> bool:
    """Does an ambiguity's region hold every call of `form` (and of `dtype`, where given) on env's product?
    It names no parameter, and each list it has (products, forms, dtypes) holds the call's."""
    wants: dict[str, Any] = {"products": env.product.id, "forms": form}
    if dtype is not None:
        wants["dtypes"] = dtype
    return set(region) <= set(wants) and all(wants[k] in region[k] for k in region)


def form_ambiguous(env: Env, form: str | None) -> bool:
    """Is every call of `form` in the region of an ambiguity without checks (asc_gather's repeat form)? A
    call drawn there to break a rule falls into the ambiguity too."""
    return any(not amb.checks and covers(env, region, form) for amb in env.spec.ambiguities
               for region in amb.regions)


def reserves_top(env: Env, target: Rule, form: str | None, dtype: str) -> bool:
    """Does an ambiguity reserve the top of the target operand's scope for every call of this form and
    dtype (vec_trans_scatter's 11 KB for 32-bit types)? A tensor past the top of the scope reaches into the
    reserve too: such a call falls into the ambiguity, never breaks the capacity rule alone."""
    return any(covers(env, region, form, dtype) for amb in env.spec.ambiguities
               if any(t.kind == "capacity" and t.get("reserve") and t["operand"] == target["operand"]
                      for t in amb.checks)
               for region in amb.regions)
