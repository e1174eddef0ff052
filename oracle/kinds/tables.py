"""What several kinds' fast paths share: the plain operands a rule names, and "one of the allowed"."""
from __future__ import annotations

from .base import RuleKind


def plain(rule, ctx, key: str) -> tuple | None:
    """The operands a rule names, when none is a list operand (those are checked entry by entry)."""
    names = rule.fields[key]
    names = (names,) if isinstance(names, str) else tuple(names)
    return None if any(ctx.spec.is_list(name) for name in names) else names


def each_allowed(rule, ctx, key: str) -> list | None:
    """(operand, the values its rule allows) for each plain operand the rule names under `key`."""
    names, allowed = plain(rule, ctx, key), frozenset(rule.fields["allowed"])
    return names and [(name, allowed) for name in names]


class OneOfAllowed(RuleKind):
    """A kind whose rule lists the values a tensor's `attribute` (its scope, its dtype) may take: its fast
    path tests the attribute against the list, decided once where the cell fixes it, and intersects the
    lists of a list operand's rules."""

    attribute = ""

    def fast_entries(self, rule, ctx):
        return each_allowed(rule, ctx, self.entry_field)

    def fast_source(self, entries, src):
        for name, allowed in entries:
            one_of(src, name, self.attribute, getattr(src, f"{self.attribute}s"), allowed)

    def fast_listed(self, rule, ctx, names, listed, groups):
        allowed, field = frozenset(rule.fields["allowed"]), f"{self.attribute}s"
        for name in names:
            before = getattr(listed(name), field)
            setattr(listed(name), field, allowed if before is None else before & allowed)
        return True


def one_of(src, name: str, field: str, known: dict, allowed) -> None:
    """Fail unless the operand's `field` (dtype, scope) is one of `allowed` (decided where the cell fixes it)."""
    if name not in known:
        src.fail_if(f"{src.tensor(name)}.{field} not in {src.literal(allowed)}")
    elif known[name] not in allowed:
        src.fail_if("True")


def end_plans(base: list, op: str, label: str, low: str, high: str) -> dict[str, list[dict]]:
    """Plans for an ambiguity check's two edges where an operand's tensor ends: `low` with the planned
    `<op>.<label>` at its minimum, `high` at its maximum, on each layout of `base`."""
    return {f"{op}={low}": [{**c, f"{op}.{label}": "min"} for c in base],
            f"{op}={high}": [{**c, f"{op}.{label}": "max"} for c in base]}
