"""offset_range: the offsets a call reads from a tensor of offsets (memory contents) are at most `max`."""
from __future__ import annotations

from typing import Optional

import numpy as np

from oracle.records import Rule

from .base import RuleKind
from .grid import grid_up
from .protocols import Checked, Element, Env, Offsets
from .offsets_read import offsets_read


class OffsetRange(RuleKind):
    name = "offset_range"
    moves_bytes = True
    legal_edges = ("{operand}=top",)

    def check(self, rule: Rule, ctx: Checked) -> Optional[str]:
        values = offsets_read(ctx, rule.fields["operand"])
        if values is not None and values.size and int(values.max()) > rule.fields["max"]:
            i = int(np.argmax(values > rule.fields["max"]))
            return f"{rule.fields['operand']} entry {i} is {int(values[i])}, past {rule.fields['max']}"
        return None

    def offset_limit(self, rule: Rule, operand: str) -> Optional[int]:
        return rule.fields["max"] if rule.fields["operand"] == operand else None

    def landing_room(self, rule: Rule, env: Env, element: Element) -> dict[str, int]:
        """The bytes from its base that the operand its offsets address keeps to itself, up to the end of
        the element the offset one past the range sends there (at most one element width more to reach
        the element grid). Sized and placed so, that element lands inside the scope and on no other
        operand, and the call breaks the range rule alone."""
        return {env.spec.addressing[rule["operand"]]: rule["max"] + 2 * element()}

    def break_offset(self, rule: Rule, values: Offsets) -> Optional[str]:
        v = values
        if rule["operand"] != v.v_name:
            return None
        v.offsets[v.j] = grid_up(rule["max"] + 1, v.shift, v.width)
        return "past-range"
