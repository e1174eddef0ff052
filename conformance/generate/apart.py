"""Entries of a list operand that must not meet their own later iterations: an iteration_overlap rule (or an
ambiguity's check) of an operand against itself at a lag of one iteration or more (vec_trans_scatter's
dst blocks written by two iterations: vec_trans_scatter.dst.repeat_overlap). The generators keep such an
operand's iterations apart where the rule is not their target:

- sizing (sizing._spare_bytes_of): the entries take the room of `lanes`, not of a packed list;
- parameters (draw_params): a step of 0 with several iterations meets itself wherever the entries lie:
  the first neighbouring value of a parameter that gives the operand a step is taken (`keep_apart`);
- placement: a drawn layout whose iterations meet is laid out in `lanes` instead.

Everything is read from the rules: which operands, at which lags, in which region.
"""
from __future__ import annotations

import math
from typing import Any, Mapping

from oracle.call import nest
from oracle.footprint import Runs
from oracle.iterations import family, first_meeting
from oracle.kinds import kind_of
from oracle.spec import Rule

from conformance.generate.environment import Env


def self_rules(env: Env) -> list[tuple[Rule, Any]]:
    """(rule or check, the `when` / regions it holds in) of each iteration_overlap test of an operand
    against itself at lags >= 1 (once per environment)."""
    known = env.__dict__.get("_self_rules")
    if known is None:
        known = [(r, [r.when]) for r in env.spec.rules if kind_of(r).later_self(r) is not None]
        known += [(c, list(amb.regions)) for amb in env.spec.ambiguities for c in amb.checks
                  if kind_of(c).later_self(c) is not None]
        env.__dict__["_self_rules"] = known
    return known


def apart_ops(env: Env, target: Rule | None = None, call: Any = None) -> dict[str, tuple[int, int | None]]:
    """Operand -> lag of the self rules that hold (for `call`, when given; any otherwise), but `target`."""
    out = {}
    for rule, regions in self_rules(env):
        if target is not None and rule.id == target.id:
            continue
        if call is None or any(env.rulebook.matches(r, call, env.spec) for r in regions):
            meets = kind_of(rule).meeting(rule)
            if meets is not None:
                out[meets[0]] = meets[2]
    return out


def kept_apart_ops(env: Env) -> dict[str, tuple[int, int | None]]:
    """apart_ops(env): the operands some self rule keeps apart in some call (once per environment: read only)."""
    known = env.__dict__.get("_kept_apart")
    if known is None:
        known = env.__dict__["_kept_apart"] = apart_ops(env)
    return known


def lanes(n: int, unit: int, step: int, count: int) -> list[int] | None:
    """Offsets of n entries, `unit` bytes apart at least, whose runs (`step` bytes apart, `count` of them)
    never meet another entry's: entries in lanes of s = step / unit residues, each lane's group `count`
    steps long (entry i: group i // s, lane i % s). None where no layout does it (a step of 0, or one
    off the unit grid)."""
    if count <= 1:
        return [i * unit for i in range(n)]
    if step <= 0 or step % unit:
        return None
    s = step // unit
    return [(i // s * s * count + i % s) * unit for i in range(n)]


def spread_end(env: Env, op: str, runs: Any, count: int, unit: int, end: int, packed: bool = False) -> int:
    """How far from its first entry's address a list operand of `count` entries reaches: packed, one
    `unit` apart, or, for an operand kept apart, in lanes (a step of 0 sized as one unit: keep_apart
    moves it so), which never put the entries closer (`packed`: as if they were packed all the same)."""
    reach = end + (count - 1) * unit
    if packed or op not in kept_apart_ops(env) or not isinstance(runs, list) or not runs:
        return reach
    first = runs[0]
    step = first.step if first.step else unit
    laid = lanes(count, unit, step, first.count)
    if laid is None:
        return reach
    return laid[-1] + end + (0 if first.step else (first.count - 1) * unit)


def meets_itself(lag: tuple, offsets: list[int], runs: list) -> bool:
    """Do the entries at `offsets` meet their own iterations at `lag` (as the iteration_overlap kind reads it)?
    Entries that share one forward step are told without the iteration arrays (_meets_on_grid) where
    every later run starts past every run's end, or where the offsets and the step lie on a grid as wide as
    a run (a list laid out on its alignment)."""
    first = runs[0]
    if (isinstance(first, Runs) and first.step > 0 and first.length > 0 and first.count > 0
            and all(r is first or r == first for r in runs)):
        told = _meets_on_grid(lag, offsets, first)
        if told is not None:
            return told
    fam = family(list(zip(offsets, runs)))
    return first_meeting(fam, fam, lag) is not None


def _meets_on_grid(lag: tuple, offsets: list[int], runs: Runs) -> bool | None:
    """meets_itself of entries that all have `runs` (a step s > 0), or None where this cannot tell. Run r of
    entry i meets run r + k of entry j where |o_i - o_j - k s| < length. Where the offsets' distances and s
    are multiples of g >= length, that is o_i = o_j + k s: some entry lies k steps past another, for a k
    of the lag (k s no further than the offsets spread)."""
    step, low, high = runs.step, min(offsets), max(offsets)
    if lag[0] < 1:                      # an entry meets itself in its own iteration: first_meeting's reading
        return None
    if high - low + runs.length <= lag[0] * step:
        return False
    if math.gcd(step, *(o - low for o in offsets)) < runs.length:
        return None
    top = min(runs.count - 1, (high - low) // step, *([] if lag[1] is None else [lag[1]]))
    if top - lag[0] < len(offsets):
        taken = set(offsets)
        return any(not taken.isdisjoint([o + k * step for o in offsets]) for k in range(lag[0], top + 1))
    apart = {a - b for a in offsets for b in offsets if a > b}
    return any(d % step == 0 and lag[0] <= d // step <= top for d in apart)


def keep_apart(env: Env, draft: Any, params: dict[str, Any], domains: Mapping[str, list], forced: str | None,
               target: Rule | None, accesses: Any, fits: Any) -> None:
    """A kept-apart operand whose runs have a step of 0 and more runs than the lag: the first neighbouring
    value of a parameter (one up, then one down) that gives it a step and fits is taken."""
    if not self_rules(env):         # no operand is kept apart (and no probe call is made to say so)
        return

    def stuck(p: Mapping[str, Any]) -> bool:
        ops = apart_ops(env, target, draft.template.replace(**nest(p)))
        if not ops:
            return False
        acc = accesses(p)
        return any(isinstance(acc.get(op), list) and acc[op] and acc[op][0].step == 0 and acc[op][0].count > lag[0]
                   for op, lag in ops.items())
    if not stuck(params):
        return
    for delta in (1, -1):
        for name in draft.frame.names:
            value = params[name] + delta * draft.frame.steps.get(name, 1)
            if name == forced or not any(a <= value <= b for a, b in domains.get(name, ())):
                continue
            moved = {**params, name: value}
            if not stuck(moved) and fits(moved):
                params[name] = value
                return
