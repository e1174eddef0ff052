"""list_length: a list operand has the number of entries the page gives it."""
from __future__ import annotations

from .base import RuleKind


class ListLength(RuleKind):
    name = "list_length"

    def check(self, rule, ctx):
        name = rule.fields["operand"]
        want, got = ctx.spec.operands[name]["entries"], len(ctx.call.tensors(name))
        if got != want:
            return f"{name} has {got} entries; it must have {want}"
        return None

    def validate(self, raw, operands, dtypes):
        if raw.get("operand") in operands and "entries" not in operands[raw["operand"]]:
            yield ".operand", f"{raw['operand']!r} is not a list operand (it has no `entries`)"

    def edges(self, rule, sweep):
        op, n = rule["operand"], sweep.env.spec.operands[rule["operand"]]["entries"]
        return {f"{op}=entries-{k}": [{"entries": k}] for k in _wrong_counts(n)}

    def recount(self, rule, pick, env, draft):
        """One entry short, one too many, or far off."""
        op = rule["operand"]
        draft.counts[op] = pick.choice(_wrong_counts(draft.counts[op]), "entries")
        draft.tags.append(f"{op}=entries-{draft.counts[op]}")


def _wrong_counts(n: int) -> list[int]:
    return sorted({1, n - 1, n + 1, 2 * n} - {0, n})
