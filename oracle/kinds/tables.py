"""What several kinds share: the plain operands a rule names, "one of the allowed", and an operand's tensors
with the label a message names one by."""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from oracle.call import Tensor
from oracle.records import Rule

from .base import RuleKind
from .phases import Entries, Pass
from .protocols import Checked, Listed, Plan, Plans, Source


def tensors_of(ctx: Checked, name: str) -> list[Tensor]:
    """An operand's tensors as Context.labelled lists them (a list operand's entries, a plain operand's
    one), without the labels, which only a message reads (`label_of`): once per context."""
    known: dict[str, list[Tensor]] = vars(ctx).setdefault("_tensors", {})
    found = known.get(name)
    if found is None:
        found = known[name] = ctx.call.tensors(name) if ctx.spec.is_list(name) else [ctx.call.tensor(name)]
    return found


def label_of(ctx: Checked, name: str, i: int) -> str:
    """The label Context.labelled gives tensor i of an operand (`dst_list[3]`, or the operand's name)."""
    return ctx.spec.label(name, i)


def plain(rule: Rule, ctx: Checked, key: str | None) -> tuple[str, ...] | None:
    """The operands a rule names, when none is a list operand (those are checked entry by entry)."""
    field = rule.fields[key or ""]
    names = (field,) if isinstance(field, str) else tuple(field)
    return None if any(ctx.spec.is_list(name) for name in names) else names


def each_allowed(rule: Rule, ctx: Checked, key: str | None) -> list[tuple[str, frozenset[str]]] | None:
    """(operand, the values its rule allows) for each plain operand the rule names under `key`."""
    names, allowed = plain(rule, ctx, key), frozenset(rule.fields["allowed"])
    return None if names is None else [(name, allowed) for name in names]


class OneOfAllowed(RuleKind):
    """A kind whose rule lists the values a tensor's `attribute` (its scope, its dtype) may take: its fast
    path tests the attribute against the list, decided once where the cell fixes it, and intersects the
    lists of a list operand's rules."""

    attribute = ""

    def fast_entries(self, rule: Rule, ctx: Checked) -> Entries | Pass:
        return each_allowed(rule, ctx, self.entry_field)

    def fast_source(self, entries: Sequence[Any], src: Source) -> None:
        for name, allowed in entries:
            one_of(src, name, self.attribute, getattr(src, f"{self.attribute}s"), allowed)

    def fast_listed(self, rule: Rule, ctx: Checked, names: tuple[str, ...], listed: Callable[[str], Listed],
                    groups: list[list[str]]) -> bool:
        allowed, field = frozenset(rule.fields["allowed"]), f"{self.attribute}s"
        for name in names:
            before = getattr(listed(name), field)
            setattr(listed(name), field, allowed if before is None else before & allowed)
        return True


def one_of(src: Source, name: str, field: str, known: Mapping[str, str], allowed: frozenset[str]) -> None:
    """Fail unless the operand's `field` (dtype, scope) is one of `allowed` (decided where the cell fixes it)."""
    if name not in known:
        src.fail_if(f"{src.tensor(name)}.{field} not in {src.literal(allowed)}")
    elif known[name] not in allowed:
        src.fail_if("True")


def end_plans(base: list[Plan], op: str, label: str, low: str, high: str) -> Plans:
    """Plans for an ambiguity check's two edges where an operand's tensor ends: `low` with the planned
    `<op>.<label>` at its minimum, `high` at its maximum, on each layout of `base`."""
    return {f"{op}={low}": [{**c, f"{op}.{label}": "min"} for c in base],
            f"{op}={high}": [{**c, f"{op}.{label}": "max"} for c in base]}
