"""range: a parameter lies in [min, max] ("取值范围")."""
from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Optional

import math

from oracle.records import Rule

from .base import RuleKind, kind_of, require
from .phases import Entries, Pass
from .protocols import Checked, Picks, Plan, Plans, Source, Sweep


class Range(RuleKind):
    name = "range"
    fast_rank = 1
    closed_ends = False         # Copy's closed form of its ends does not hold for a negative repeat size
    legal_edges = ("{param}=min", "{param}=max", "{param}=largest-fit")

    def check(self, rule: Rule, ctx: Checked) -> Optional[str]:
        name = rule.fields["param"]
        value = ctx.call.param(name) if "." in name else ctx.call.args[name]
        if isinstance(value, bool):                            # a bool parameter: 0 / 1
            value = int(value)
        elif not isinstance(value, int):
            value = ctx.call.int_arg(name)                     # raises the format error
        if not rule.fields["min"] <= value <= rule.fields["max"]:
            return f"{rule.fields['param']}={value} is outside [{rule.fields['min']}, {rule.fields['max']}]"
        return None

    def validate(self, raw: Mapping[str, Any], operands: Mapping[str, Any], dtypes: Mapping[str, int],
                 params: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
        if raw["min"] > raw["max"]:
            yield "", f"min {raw['min']} is larger than max {raw['max']}"

    def interval(self, rule: Rule, param: str) -> Optional[tuple[int, int]]:
        return (rule.fields["min"], rule.fields["max"]) if rule.fields["param"] == param else None

    def fast_entries(self, rule: Rule, ctx: Checked) -> Entries | Pass:
        name = rule.fields["param"]
        return None if "." in name else [(name, rule.fields["min"], rule.fields["max"])]

    def fast_source(self, entries: Sequence[Any], src: Source) -> None:
        for name, lo, hi in entries:
            src.lines.append(f"    v = args[{name!r}]")
            src.fail_if(f"type(v) is not int or not {src.literal(lo)} <= v <= {src.literal(hi)}")

    def edges(self, rule: Rule, sweep: Sweep) -> Plans:
        """One past each end, where that is on the parameter's multiples (else it breaks a multiple
        rule too) and a call fits its scopes with it."""
        env, param, out = sweep.env, rule["param"], {}
        for side, value in _past(rule):
            plans = [{f"{param}.outside": value, "path": p, **sweep.shape_plan(f)}
                     for f in sweep.forms(rule) for p in sweep.paths]
            step = math.lcm(1, *(m for r in env.spec.rules_that("multiple_of")   # of the element: some dtype
                                 for m in [kind_of(r).multiple_of(r, param, _one, _one)] if m is not None))   # is 1 byte
            if value % step == 0 and sweep.range_fits(rule, value):
                out[f"{param}={side}"] = plans
        return out

    def extra_plans(self, rule: Rule, sweep: Sweep) -> list[Plan]:
        """One past an end with each other parameter at its top."""
        env, paths, out = sweep.env, sweep.paths, []
        for _, value in _past(rule):
            for form in sweep.forms(rule):
                names = [n for n in env.param_names(form)
                         if env.spec.param_type(n, form) != "words" and n != rule["param"]]
                for i, n in enumerate(names):
                    out.append({f"{rule['param']}.outside": value, "form": form, "path": paths[i % len(paths)],
                                n: "max", f"{n}.interval": "last", **sweep.shape_plan(form)})
        return out

    def forced_param(self, rule: Rule) -> Optional[str]:
        param: str = rule["param"]
        return param

    def outside(self, rule: Rule, pick: Picks, step: int, fits: Callable[[int], bool]) -> tuple[int, str]:
        """A value past each end, on the multiples the parameter's multiple rules ask for, that fits."""
        param = rule["param"]
        outside = [v for v in ((rule["min"] - 1) // step * step, -(-(rule["max"] + 1) // step) * step) if fits(v)]
        require(outside)
        value = pick.choice(outside, f"{param}.outside")
        return value, f"{param}={'below-min' if value < rule['min'] else 'above-max'}"


def _one() -> int:
    return 1


def _past(rule: Rule) -> tuple[tuple[str, int], tuple[str, int]]:
    return ("below-min", rule["min"] - 1), ("above-max", rule["max"] + 1)
