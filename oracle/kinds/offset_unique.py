"""offset_unique: no two offsets (two entries of the offsets tensor) send their elements to one place."""
from __future__ import annotations

from typing import Optional

import numpy as np

from oracle.footprint import Runs, Spots
from oracle.records import Rule
from oracle.repeats import any_repeat

from .base import RuleKind
from .protocols import Checked


class OffsetUnique(RuleKind):
    name = "offset_unique"
    moves_bytes = True
    legal_edges = ("*=collide",)

    def check(self, rule: Rule, ctx: Checked) -> Optional[str]:
        """One entry read for two elements is one offset, not two alike."""
        for label, tensor, runs in ctx.entries(rule.fields["operand"]):
            if runs is None or runs.empty or runs.count < 2:
                continue
            # the starts less a common shift: which repeat, and where, is all this looks at
            starts, element = runs.unshifted() if isinstance(runs, Spots) else np.asarray(runs.starts()), None
            by = ctx.spec.operands[rule.fields["operand"]].get("addressed_by")
            entries = ctx.accesses.get(by) if by else None
            if entries is not None and entries.count == starts.size and not _distinct_runs(entries):
                read = np.asarray(entries.starts())
                if not _increasing(read):       # an entry read more than once: its first element stands for it
                    _, first = np.unique(read, return_index=True)
                    if first.size < starts.size:
                        element = np.sort(first)
                        starts = starts[element]
            if not any_repeat(starts):
                continue
            order = np.argsort(starts, kind="stable")
            same = np.flatnonzero(starts[order][1:] == starts[order][:-1])
            i, j = sorted((int(order[same[0]]), int(order[same[0] + 1])))
            if element is not None:
                i, j = int(element[i]), int(element[j])
            return f"elements {i} and {j} of {label} are both sent to byte {tensor.addr + int(runs.starts()[i])}"
        return None

    def collides(self, rule: Rule, operand: str) -> bool:
        named: str | None = rule.get("operand")
        return named == operand


def _distinct_runs(runs: object) -> bool:
    """Runs one after another, none over another (a count form's entries): no start repeats."""
    return isinstance(runs, Runs) and runs.step >= runs.length > 0


def _increasing(values: np.ndarray) -> bool:
    """Each value above the one before (a repeat form's entries, read in order): none repeats, no sort."""
    return values.size < 2 or bool((values[1:] > values[:-1]).all())
