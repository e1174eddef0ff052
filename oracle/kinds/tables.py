"""What several kinds' fast paths share: the plain operands a rule names, and "one of the allowed"."""
from __future__ import annotations


def plain(rule, ctx, key: str) -> tuple | None:
    """The operands a rule names, when none is a list operand (those are checked entry by entry)."""
    names = rule.fields[key]
    names = (names,) if isinstance(names, str) else tuple(names)
    return None if any(ctx.spec.is_list(name) for name in names) else names


def each_allowed(rule, ctx, key: str) -> list | None:
    """(operand, the values its rule allows) for each plain operand the rule names under `key`."""
    names, allowed = plain(rule, ctx, key), frozenset(rule.fields["allowed"])
    return names and [(name, allowed) for name in names]


def one_of(src, name: str, field: str, known: dict, allowed) -> None:
    """Fail unless the operand's `field` (dtype, scope) is one of `allowed` (decided where the cell fixes it)."""
    if name not in known:
        src.fail_if(f"{src.tensor(name)}.{field} not in {src.literal(allowed)}")
    elif known[name] not in allowed:
        src.fail_if("True")
