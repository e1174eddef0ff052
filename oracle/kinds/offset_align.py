"""offset_align: every piece an offset-addressed operand touches starts at a multiple of its element's width,
or of the rule's `bytes` (Gatherb's whole DataBlocks: 32)."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from oracle.records import Rule

from .base import RuleKind, require
from .protocols import Checked, Offsets


class OffsetAlign(RuleKind):
    name = "offset_align"
    moves_bytes = True
    needs_wide_elements = True

    def check(self, rule: Rule, ctx: Checked) -> Optional[str]:
        width = rule.fields.get("bytes") or ctx.units.get("element", 1)
        for label, tensor, runs in ctx.entries(rule.fields["operand"]):
            if runs is None or runs.empty:
                continue
            if _all_aligned(tensor.addr, runs, width) or _all_aligned(tensor.addr, runs.starts(), width):
                continue            # (the offsets' OR tells the starts' low bits only where their base's are 0)
            starts = tensor.addr + runs.starts()
            odd = np.flatnonzero(starts % width)
            if odd.size:
                return (f"element {int(odd[0])} of {label} starts at byte {int(starts[odd[0]])}, "
                        f"not a multiple of {width}")
        return None

    def offset_grid(self, rule: Rule, operand: str) -> Optional[int]:
        return rule.fields["bytes"] if rule.fields["operand"] == operand and "bytes" in rule.fields else None

    def break_offset(self, rule: Rule, values: Offsets) -> Optional[str]:
        """An offset a few bytes off the grid (the element's, or the rule's `bytes`: the drawing's grid)."""
        v = values
        if rule["operand"] != v.x_name:
            return None
        require(v.width > 1)
        v.offsets[v.j] += int(v.rng.integers(1, v.width))
        return "misaligned"


def _all_aligned(addr: int, runs: Any, width: int) -> bool:
    """addr + every start a multiple of a power-of-two width: one OR over the starts (`runs`, or an array
    of them), or over what they are made of (or_bits; False: look closer)."""
    if width & (width - 1):
        return False
    if isinstance(runs, np.ndarray):
        bits = int(np.bitwise_or.reduce(runs)) if runs.size else 0
    else:
        bits = runs.or_bits() if hasattr(runs, "or_bits") else int(np.bitwise_or.reduce(runs.starts()))
    return not (addr | bits) & (width - 1)
