"""reach: the bytes an operand touches (from the offsets in memory, for an offset-addressed one) lie
inside its buffer."""
from __future__ import annotations

from typing import Optional

from oracle.records import Rule

from .base import RuleKind
from .grid import grid_down, grid_up
from .protocols import Checked, Offsets, Placing


class Reach(RuleKind):
    name = "reach"
    moves_bytes = True
    legal_edges = ("{operand}=top",)

    def check(self, rule: Rule, ctx: Checked) -> Optional[str]:
        """Without memory an offset-addressed operand is not known and the rule is not evaluated."""
        for label, tensor, runs in ctx.entries(rule.fields["operand"]):
            if runs is None or runs.empty:
                continue
            cap = ctx.product.capacity(tensor.scope)
            hi = tensor.addr + runs.end     # the lowest byte read only where a bound of it leaves doubt
            if (cap is not None and hi > cap) or (tensor.addr + runs.floor < 0 and tensor.addr + runs.begin < 0):
                lo = tensor.addr + runs.begin
                return (f"{label} touches bytes [{lo}, {hi}) of {tensor.scope}, outside its {cap} bytes on "
                        f"{ctx.call.product}")
        return None

    def floors(self, rule: Rule, placing: Placing, ops: list[str]) -> dict[str, int]:
        """Where an offset_range rule also bounds the operand's offsets: the lowest address it may have
        in its scope. The offset that sends an element past the scope's top must stay in the range: the
        operand's base at most `max` (less an element) under the top. Placed there or higher (last in
        its scope), the call breaks the reach rule alone."""
        op, p = rule["operand"], placing
        if op not in ops:
            return {}
        limit = p.offset_limit(op)
        if limit is None:
            return {}
        return {op: p.env.capacity(p.draft.scopes[op]) - limit + p.element_width() - p.acc[op].begin}

    def break_offset(self, rule: Rule, values: Offsets) -> Optional[str]:
        """An offset that sends an element past the top of the scope (and stays inside the range)."""
        v = values
        if rule["operand"] != v.x_name:
            return None
        past = grid_up(v.cap - v.base, v.shift, v.width)         # the first element past UB
        v.offsets[v.j] = past + int(v.rng.integers(0, 4)) * v.width
        if v.limit is not None:
            v.offsets[v.j] = max(min(v.offsets[v.j], grid_down(v.limit, v.shift, v.width)), past)
        return "past-UB"
