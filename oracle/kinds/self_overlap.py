"""self_overlap: no two of the runs an operand writes share a byte (its footprint says how)."""
from __future__ import annotations

from typing import Optional

from oracle.records import Rule

from .base import RuleKind
from .protocols import Checked


class SelfOverlap(RuleKind):
    name = "self_overlap"
    moves_bytes = True
    legal_edges = ("*=collide",)

    def check(self, rule: Rule, ctx: Checked) -> Optional[str]:
        for label, tensor, runs in ctx.entries(rule.fields["operand"]):
            if runs is not None and hasattr(runs, "self_overlaps") and runs.self_overlaps():
                return f"rows of {label} overlap one another: some bytes are written more than once"
        return None

    def self_overlapping(self, rule: Rule) -> Optional[str]:
        operand: str = rule["operand"]
        return operand
