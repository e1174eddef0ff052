"""list_length: a list operand has the number of entries the page gives it."""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Optional

from oracle.records import Rule

from .base import RuleKind
from .protocols import Checked, Draft, Env, Picks, Plans, Sweep


class ListLength(RuleKind):
    name = "list_length"

    def check(self, rule: Rule, ctx: Checked) -> Optional[str]:
        name = rule.fields["operand"]
        want, got = ctx.spec.operands[name]["entries"], len(ctx.call.tensors(name))
        if got != want:
            return f"{name} has {got} entries; it must have {want}"
        return None

    def validate(self, raw: Mapping[str, Any], operands: Mapping[str, Any], dtypes: Mapping[str, int],
                 params: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
        if raw.get("operand") in operands and "entries" not in operands[raw["operand"]]:
            yield ".operand", f"{raw['operand']!r} is not a list operand (it has no `entries`)"

    def edges(self, rule: Rule, sweep: Sweep) -> Plans:
        op, n = rule["operand"], sweep.env.spec.operands[rule["operand"]]["entries"]
        return {f"{op}=entries-{k}": [{"entries": k}] for k in _wrong_counts(n)}

    def recount(self, rule: Rule, pick: Picks, env: Env, draft: Draft) -> None:
        """One entry short, one too many, or far off."""
        op = rule["operand"]
        draft.counts[op] = pick.choice(_wrong_counts(draft.counts[op]), "entries")
        draft.tags.append(f"{op}=entries-{draft.counts[op]}")


def _wrong_counts(n: int) -> list[int]:
    return sorted({1, n - 1, n + 1, 2 * n} - {0, n})
