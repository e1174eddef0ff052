"""same_dtype: the operands (every entry of a list operand) have one data type."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Optional

from oracle.records import Rule

from .base import PASS, RuleKind, require
from .phases import Entries, Pass
from .protocols import Checked, Env, Listed, Picks, Plan, Plans, Source, Sweep
from .tables import plain, tensors_of


class SameDtype(RuleKind):
    name = "same_dtype"
    fast_rank = 4
    entry_field = "operands"
    dtype_free = True
    draws_dtype_rule = True
    on_dtypes = True

    def check(self, rule: Rule, ctx: Checked) -> Optional[str]:
        if len({t.dtype for name in rule.fields["operands"] for t in tensors_of(ctx, name)}) <= 1:
            return None
        labelled = ctx.labelled                 # the labels, for the message alone
        dtypes = {label: t.dtype for name in rule.fields["operands"] for label, t in labelled[name]}
        if len(set(dtypes.values())) > 1:
            first = next(iter(dtypes.values()))
            odd = next(k for k, v in dtypes.items() if v != first)
            return f"dtypes differ: {next(iter(dtypes))}={first}, {odd}={dtypes[odd]}"
        return None

    def fast_entries(self, rule: Rule, ctx: Checked) -> Entries | Pass:
        names = plain(rule, ctx, "operands")
        return names and [(names[0], other) for other in names[1:]] or (PASS if names else None)

    def fast_source(self, entries: Sequence[Any], src: Source) -> None:
        for a, b in entries:
            src.fail_if(f"{src.tensor(a)}.dtype != {src.tensor(b)}.dtype")

    def fast_listed(self, rule: Rule, ctx: Checked, names: tuple[str, ...], listed: Callable[[str], Listed],
                    groups: list[list[str]]) -> bool:
        groups.append(list(names))
        return True

    def edges(self, rule: Rule, sweep: Sweep) -> Plans:
        env, other, out = sweep.env, rule["operands"][-1], dict[str, list[Plan]]()
        for form in sweep.forms(rule):
            legal = env.legal_dtypes(form)
            for d in legal:
                out.setdefault(f"{other}={d}", []).extend(
                    {"form": form, "dtype": base, "other-dtype": d} for base in legal if base != d)
        return out

    def retype(self, rule: Rule, pick: Picks, env: Env, form: str | None, dtypes: dict[str, str], tags: list[str]
               ) -> None:
        """The last operand given another legal dtype than the rest."""
        other = rule["operands"][-1]
        alternatives = [d for d in env.legal_dtypes(form) if d != dtypes[other]]
        require(alternatives)
        dtypes[other] = pick.choice(alternatives, "other-dtype")
        tags.append(f"{other}={dtypes[other]}")
