"""dtype: an operand's data type is one of those the page lists."""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Optional

from oracle.records import Rule

from .protocols import Checked, Env, Picks, Plans, Sweep
from .tables import OneOfAllowed, label_of, tensors_of


class Dtype(OneOfAllowed):
    name = "dtype"
    attribute = "dtype"
    fast_rank = 3
    entry_field = "operands"
    dtype_free = True
    draws_dtype_rule = True
    on_dtypes = True

    def check(self, rule: Rule, ctx: Checked) -> Optional[str]:
        allowed = rule.fields["allowed"]
        for name in rule.fields["operands"]:
            for i, t in enumerate(tensors_of(ctx, name)):
                if t.dtype not in allowed:
                    return f"{label_of(ctx, name, i)} has dtype {t.dtype}, not one of {', '.join(allowed)}"
        return None

    def validate(self, raw: Mapping[str, Any], operands: Mapping[str, Any], dtypes: Mapping[str, int],
                 params: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
        for j, name in enumerate(raw.get("allowed", [])):
            if name not in dtypes:
                yield f".allowed[{j}]", f"unknown dtype {name!r}"

    def edges(self, rule: Rule, sweep: Sweep) -> Plans:
        return {f"dtype={d}": [{"wrong-dtype": d, "form": f} for f in sweep.forms(rule)]
                for d in _wrong(rule, sweep.env)}

    def reachable(self, rule: Rule, env: Env) -> Optional[bool]:
        return None if _wrong(rule, env) else False     # it allows every dtype the kit knows: nothing breaks it

    def form_choices(self, rule: Rule, env: Env, choices: list[str | None], dtype: Optional[str]
                     ) -> list[str | None]:
        """A form that has a legal dtype of the rule's where the wrong one goes to an operand of a fixed
        dtype; else any form that is not an ambiguity's as a whole."""
        if dtype is None and _fixed(rule, env):
            return super().form_choices(rule, env, choices, dtype)
        return [f for f in choices if not env.form_ambiguous(f)]

    def call_dtype(self, rule: Rule, pick: Picks, env: Env, form: str | None, dtype: Optional[str],
                   tags: list[str]) -> str:
        if _fixed(rule, env):
            return super().call_dtype(rule, pick, env, form, dtype, tags)
        dtype = pick.choice(_wrong(rule, env), "wrong-dtype")
        tags.append(f"dtype={dtype}")
        return dtype

    def retype(self, rule: Rule, pick: Picks, env: Env, form: str | None, dtypes: dict[str, str], tags: list[str]
               ) -> None:
        """An operand of one fixed dtype (Scatter's offsets) given another."""
        if _fixed(rule, env):
            wrong = pick.choice(_wrong(rule, env), "wrong-dtype")
            dtypes.update({op: wrong for op in rule["operands"]})
            tags.append(f"dtype={wrong}")


def _wrong(rule: Rule, env: Env) -> list[str]:
    return sorted(set(env.rulebook.dtypes) - set(rule["allowed"]))


def _fixed(rule: Rule, env: Env) -> bool:
    """Is every operand the rule names of one dtype the spec fixes (not the call's)?"""
    return all("dtype" in env.spec.operands[op] for op in rule["operands"])
