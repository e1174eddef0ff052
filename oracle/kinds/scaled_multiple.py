"""scaled_multiple: a parameter times a factor is a multiple of another parameter (times the element width)."""
from __future__ import annotations

import math
from typing import Mapping, Optional

from oracle.records import Rule

from .base import RuleKind
from .protocols import Checked


class ScaledMultiple(RuleKind):
    name = "scaled_multiple"
    region_top_searched = True

    def check(self, rule: Rule, ctx: Checked) -> Optional[str]:
        """An of_param of 0 divides nothing and is left to its own range rule."""
        f = rule.fields
        value, of = ctx.call.int_arg(f["param"]) * f["times"], ctx.call.int_arg(f["of_param"])
        if f.get("of_bytes"):
            of *= ctx.units.get("element", 1)
        if of > 0 and value % of:
            what = f" x {ctx.units.get('element', 1)} bytes" if f.get("of_bytes") else ""
            return f"{f['param']} x {f['times']} = {value} is not a multiple of {f['of_param']}{what} = {of}"
        return None

    def passing_multiple(self, rule: Rule, params: Mapping[str, int], element: int) -> Optional[tuple[str, int]]:
        """`param` times `times` is a multiple of of_param's value (its bytes): `param` a multiple of that
        over their gcd (an of_param of 0 or less: any value passes, as `check` reads it)."""
        f = rule.fields
        of = params.get(f["of_param"], 0) * (element if f.get("of_bytes") else 1)
        return f["param"], of // math.gcd(of, f["times"]) if of > 0 else 1
