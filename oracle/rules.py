"""The legality checker: every rule (and ambiguity region) a call falls under, each asked of its kind.

The kinds are in kinds/ (one object per sort of sentence), the call's context and its cell's
plan in context.py; this module puts them together: `check(call)` -> the violations, and the verdict
class they give.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Mapping

import numpy as np

from .call import Call
from .context import Context, cell_plan, context
from .kinds import RULE_KINDS
from .records import Ambiguity, Rule
from .rulebook import Ranges, in_ranges
from .spec import Rulebook, default_rulebook


@dataclass(frozen=True)
class Violation:
    rule: str
    severity: str          # "reject" | "undefined"
    message: str


def check(call: Call, memory: Mapping[str, np.ndarray] | None = None,
          rulebook: Rulebook | None = None, readings: Mapping[str, str] | None = None) -> list[Violation]:
    """Every rule (and ambiguity region) of the call's spec that the call breaks or falls into.

    Parameters
    ----------
    call : Call
        The call, with the vendor signature's argument names.
    memory : mapping of scope to a 1-D uint8 array, optional
        The images the call reads; only the rules on values in memory (Scatter's offsets) need them.
    rulebook : Rulebook, optional
        The rules to judge by (default: the kit's specs).
    readings : mapping of ambiguity id to reading id, optional
        Judge those ambiguity regions by these readings (an unknown one: ValueError).

    Returns
    -------
    list of Violation
        Empty for a legal call; each violation names its rule, its severity (``reject``,
        ``undefined``, ``ambiguity``) and a message.

    Examples
    --------
    >>> from oracle import Call, Tensor, check
    >>> def move(nburst):
    ...     return Call("data_move", "ascend910b", {"dst": Tensor("UB", 0, "int8", 64),
    ...                 "src": Tensor("UB", 64, "int8", 64), "sid": 0, "nburst": nburst, "burst": 1,
    ...                 "src_stride": 0, "dst_stride": 0})
    >>> check(move(2))
    []
    >>> [(v.rule, v.severity, v.message) for v in check(move(0))]
    [('data_move.nburst.range', 'reject', 'nburst=0 is outside [1, 4095]')]
    """
    return violations(context(call, memory, with_readings(rulebook, readings)))


def with_readings(rulebook: Rulebook | None, readings: Mapping[str, str] | None) -> Rulebook:
    """The rulebook (the default one if None) with the declared readings, if any."""
    rulebook = rulebook or default_rulebook()
    return rulebook.with_readings(readings) if readings else rulebook


def violations(ctx: Context) -> list[Violation]:
    return list(_found(ctx, refusing=False))


def rejection(ctx: Context) -> Violation | None:
    """The first violation of severity reject that `violations` lists (None: there is none), told without
    asking the rules after it, the rules that cannot refuse a call, nor the ambiguity regions that neither
    refuse one nor set a rule aside: all that a backend refusing calls needs."""
    return next(_found(ctx, refusing=True), None)


def _found(ctx: Context, refusing: bool) -> Iterator[Violation]:
    """The call's violations in `violations`' order, made as they are asked for (`refusing`: those of
    severity reject alone, the others never checked). Listing every violation, the regions that hold the
    call are worked out first; refusing, a region is asked only whether it sets aside a rule found broken
    (most calls break none, and a rule few regions set aside), and after the rules if its reading refuses."""
    args = ctx.call.args
    rules, ambiguities = _asked(ctx, refusing)
    concerned, overridden = ([], None) if refusing else _concerned(ctx, ambiguities, refusing)
    for rule, ranges in rules:
        if refusing and rule.severity != "reject":
            continue
        if (ranges is None or in_ranges(ranges, args)) and (overridden is None or rule.id not in overridden):
            message = RULE_KINDS[rule.kind].check(rule, ctx)
            if message and (overridden is not None or not _set_aside(ctx, rule.id, ambiguities)):
                yield Violation(rule.id, rule.severity, message)
    if refusing and ambiguities:
        concerned = _concerned(ctx, [(amb, regions) for amb, regions in ambiguities if amb.legality == "reject"],
                               refusing)[0]
    for amb in concerned:          # undeclared: undefined; declared: its reading's legality
        if amb.legality == "reject" or (amb.legality != "legal" and not refusing):
            yield _read(amb)


def _set_aside(ctx: Context, rule_id: str, ambiguities: list[tuple[Ambiguity, list[Ranges | None]]]) -> bool:
    """Does the region of an ambiguity that overrides the rule hold the call (its reading judges instead)?"""
    overriding = [(amb, regions) for amb, regions in ambiguities if rule_id in amb.overrides]
    return bool(overriding) and rule_id in _concerned(ctx, overriding, True)[1]


def _asked(ctx: Context, refusing: bool = False
           ) -> tuple[list[tuple[Rule, Ranges | None]], list[tuple[Ambiguity, list[Ranges | None]]]]:
    """The rules whose kinds are asked about the call, and the ambiguities whose regions are: all of the
    cell's, or where the fast path's rules hold, the others (and no ambiguity where no region holds it;
    `refusing`: no region of an ambiguity that can refuse the call or set a rule aside, FastPath.refusing)."""
    rules, ambiguities, _, _, quick = cell_plan(ctx)
    if quick is not None and refusing:
        quick = quick.refusing
    if quick is not None and quick.holds(ctx):      # the fast path's rules hold: ask the kinds of the others
        rules = quick.rest
        if quick.outside_regions:                    # and no ambiguity region holds the call
            ambiguities = []
    return rules, ambiguities


def _concerned(ctx: Context, ambiguities: list[tuple[Ambiguity, list[Ranges | None]]], refusing: bool
               ) -> tuple[list[Ambiguity], set[str]]:
    """The ambiguities whose region holds the call, and the rules their readings judge instead (`refusing`:
    only those that refuse the call or set a rule aside are asked)."""
    args, concerned, overridden = ctx.call.args, [], set[str]()
    for amb, regions in ambiguities:
        if refusing and amb.legality != "reject" and not amb.overrides:
            continue
        for ranges in regions:
            if ranges is None or in_ranges(ranges, args):
                if not amb.checks or any(RULE_KINDS[c.kind].check(c, ctx) for c in amb.checks):
                    concerned.append(amb)
                    overridden.update(amb.overrides)                  # the reading judges these
                break
    return concerned, overridden


def _read(amb: Ambiguity) -> Violation:
    """The violation of a call in an ambiguity's region: undeclared, undefined; declared, its reading's legality."""
    reading = f" (reading {amb.declared.id})" if amb.declared else ""
    return Violation(amb.id, amb.legality, f"ambiguous{reading}: {amb.question.strip()}")


# -- which rules a call falls under ------------------------------------------------------------------
# A rule's `when` (an ambiguity's regions) names products, forms, dtypes and paths, which a call shares
# with every call of its cell, and parameter ranges, which are its own. Rulebook.matches decides the
# first part once per (product, form, dtype, path) and the ranges per call.

def verdict_class(violations: list[Violation]) -> str:
    """'reject' if any reject rule is broken, else 'undefined' if any undefined one, else 'legal'."""
    severities = {v.severity for v in violations}
    return "reject" if "reject" in severities else ("undefined" if severities else "legal")


__all__ = ["Violation", "Context", "RULE_KINDS", "check", "context", "with_readings", "violations", "rejection", "verdict_class"]
