"""multiple: a parameter is a multiple of a number (or of the element width: "sizeof(T)的整数倍"); with
`bytes`, the parameter's bytes (its value times its unit) are ("count * sizeof(T)需要32字节对齐")."""
from __future__ import annotations

from typing import Optional

import math

from oracle.records import Rule

from .base import RuleKind, require
from .protocols import Checked, Element, Picks, Plans, Sweep


class Multiple(RuleKind):
    name = "multiple"
    legal_edges = ("{param}=min", "{param}=max", "{param}=largest-fit")
    region_top_searched = True      # an ambiguity's check: the region's top may lie on the multiple

    def check(self, rule: Rule, ctx: Checked) -> Optional[str]:
        name, of = rule.fields["param"], rule.fields["of"]
        value = ctx.call.int_arg(name)
        if of == "element":                                    # "blockLen必须是sizeof(T)的整数倍"
            of = ctx.units["element"]
        if rule.fields.get("bytes"):
            value *= ctx.units.get(name, 1)
            if value % of:
                return f"{name} is {value} bytes, not a multiple of {of}"
        if value % of:
            return f"{name}={value} is not a multiple of {of}"
        return None

    def multiple_of(self, rule: Rule, param: str, element: Element, unit: Element) -> Optional[int]:
        if rule.fields["param"] != param:
            return None
        of = element() if rule.fields["of"] == "element" else rule.fields["of"]
        if rule.fields.get("bytes"):                           # the value's bytes: in steps of its unit
            of //= math.gcd(of, unit())
        return of

    def edges(self, rule: Rule, sweep: Sweep) -> Plans:
        return {f"{rule['param']}=off-multiple": [{f"{rule['param']}.off": o, "path": p}
                                                  for o in ("min", "max") for p in sweep.paths]}

    def off_step(self, rule: Rule, pick: Picks, name: str, value: int, step: int) -> Optional[int]:
        """Off the rule's multiple by less than it, in whole steps where the rule's multiple is several
        of them (an ambiguity's check of 32 bytes on a parameter drawn in elements of 2). Whole steps
        that take the value below 1 give no call: 1 is off the step, a multiple the parameter's rules
        ask, so the final check would give the call up; it is given up before it is placed."""
        if rule["param"] != name:
            return None
        of = rule["of"] if isinstance(rule["of"], int) and not rule.get("bytes") else step
        unit = step if of % step == 0 and of > step else 1
        value -= unit * pick.integer(1, of // unit - 1, f"{name}.off")
        require(value > 0 or unit == 1)
        value = max(value, 1)
        require(value % of)
        return value
