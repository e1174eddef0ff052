"""overlap: the bytes two operands touch do not overlap (with `allow: identical`: unless they are one
tensor given twice, "100% overlap or none")."""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Optional

import numpy as np

from oracle.footprint import overlaps
from oracle.records import Rule

from .base import RuleKind, require
from .grid import grid_down
from .phases import Entries, Pass
from .protocols import Checked, Env, Offsets, Pair, Placing, Source
from .tables import plain


class Overlap(RuleKind):
    name = "overlap"
    fast_rank = 10
    moves_bytes = True
    legal_edges = ("{operands}=in-place",)

    def check(self, rule: Rule, ctx: Checked) -> Optional[str]:
        a, b = rule.fields["operands"]
        identical = rule.get("allow") == "identical"
        entries_b = ctx.entries(b)
        for la, ta, ra in ctx.entries(a):
            for lb, tb, rb in entries_b:
                if ra is None or rb is None or ta.scope != tb.scope:
                    continue
                if identical and ta.addr == tb.addr and ctx.nbytes(ta) == ctx.nbytes(tb):
                    continue
                if overlaps(ta.addr, ra, tb.addr, rb):
                    return f"the bytes {la} and {lb} access in {ta.scope} overlap"
        return None

    def fast_entries(self, rule: Rule, ctx: Checked) -> Entries | Pass:
        """Two plain operands: they hold when in different scopes or their spans lie apart (the usual case)."""
        names = plain(rule, ctx, "operands")
        return names and [names]

    def fast_source(self, entries: Sequence[Any], src: Source) -> None:
        for a, b in entries:
            ta, tb = src.tensor(a), src.tensor(b)
            at = "    "
            if a not in src.scopes or b not in src.scopes:
                src.lines.append(f"    if {ta}.scope == {tb}.scope:")
                at = "        "
            elif src.scopes[a] != src.scopes[b]:
                continue
            if b in src.addressed and b not in src.spans:
                a, b, ta, tb = b, a, tb, ta
            b_span = src.spans.get(b, "rb.span")
            src.lines += [f"{at}ra, rb = {src.accesses()}[{a!r}], accesses[{b!r}]",
                          f"{at}if ra is not None and rb is not None:"]
            if a in src.addressed and a not in src.spans:    # a's offsets read as far as needed: a bound of
                src.lines += [f"{at}    b_lo, b_hi = {b_span}",   # its lowest start, its highest, its lowest
                              f"{at}    if not ({tb}.addr + b_hi <= {ta}.addr + ra.floor"
                              f" or {ta}.addr + ra.end <= {tb}.addr + b_lo or {tb}.addr + b_hi <= {ta}.addr + ra.begin):",
                              f"{at}        return False"]
                continue
            src.lines += [f"{at}    (a_lo, a_hi), (b_lo, b_hi) = {src.spans.get(a, 'ra.span')}, {b_span}",
                          f"{at}    if not ({ta}.addr + a_hi <= {tb}.addr + b_lo"
                          f" or {tb}.addr + b_hi <= {ta}.addr + a_lo):",
                          f"{at}        return False"]

    def kept_apart(self, rule: Rule, operand: str, identical: Callable[[str], bool]) -> frozenset[str]:
        ops = rule.fields["operands"]
        if operand not in ops:
            return frozenset()
        return frozenset(op for op in ops if not (rule.fields.get("allow") == "identical" and identical(op)))

    def breakable_in(self, rule: Rule, scopes: Mapping[str, str]) -> bool:
        return len({scopes[op] for op in rule["operands"]}) == 1

    def pairing(self, rule: Rule, placing: Placing, ops: list[str], align: int) -> Optional[Pair]:
        """b placed so that its bytes meet a's."""
        if not all(op in ops for op in rule["operands"]):
            return None
        p = placing
        a, b = rule["operands"]
        if p.pick.boolean("overlap.swap"):
            a, b = b, a
        (begin_a, end_a), (begin_b, end_b) = _span(p.env, a, p.acc[a], align), _span(p.env, b, p.acc[b], align)
        low, high = -((end_b - begin_a - 1) // align), (end_a - begin_b - 1) // align
        require(low <= high)        # b's bytes meet a's: b sits in (begin_a - end_b, end_a - begin_b) from a
        low = max(low, 0) if high >= 0 else low     # from b at a's address up, where that meets (it shrinks so)
        if rule.get("allow") == "identical" and low == 0 < high:
            low = 1                 # b at a's address is a's very tensor (one group, one size): allowed
        delta = p.pick.integer(low, high, "overlap.delta") * align
        return a, b, lambda offs: [o + delta for o in offs], []

    def aimed(self, rule: Rule) -> tuple[str, ...]:
        return tuple(rule["operands"])

    def break_offset(self, rule: Rule, values: Offsets) -> Optional[str]:
        """An offset onto a byte the other operand touches."""
        v = values
        if v.x_name not in rule["operands"]:
            return None
        other = next(op for op in rule["operands"] if op != v.x_name)
        o_tensor, o_runs = v.call.tensor(other), v.ctx.accesses[other]
        require(o_runs is not None and not o_runs.empty and o_tensor.scope == v.x_tensor.scope)
        top = v.base + (v.limit if v.limit is not None else 2**32 - 1)          # a landing byte the range allows
        v.offsets[v.j] = _onto(v.rng, o_tensor.addr + np.asarray(o_runs.starts()), o_runs.length,
                               (v.base, v.shift, top), v.width)
        return f"onto-{other}"


def _span(env: Env, op: str, runs: Any, align: int) -> tuple[int, int]:
    """The bytes an operand's footprint spans from its address (a list operand: from its entries' own
    addresses, the widest). An offset-addressed operand touches what its offsets say (break_offset aims
    one at the other operand's bytes, anywhere above its base): at least two alignment units from its
    base, so that the other operand can sit on the alignment grid above that base, at its address or not."""
    if isinstance(runs, list):
        return min((r.begin for r in runs), default=0), max((r.end for r in runs), default=0)
    if env.spec.operands[op].get("addressed_by"):
        return runs.begin, max(runs.end, runs.begin + 2 * align)
    return runs.begin, runs.end


def _onto(rng: np.random.Generator, starts: np.ndarray, length: int, grid: tuple[int, int, int], width: int) -> int:
    """An offset (on the element grid, from `base`) whose element covers a byte that runs of `length` bytes
    at the absolute `starts` touch: a byte of a run the operand really touches (a sparse footprint has
    gaps between its runs), at or above the grid's first slot (an offset is never negative) and at most
    `top` (the byte the largest offset in range lands on). `grid`: (base, shift, top)."""
    base, shift, top = grid
    low = base + shift
    ok = np.flatnonzero((starts + length > low) & (starts <= top))
    require(ok.size)
    at = int(starts[ok[int(rng.integers(0, ok.size))]])
    hit = int(rng.integers(max(at, low), min(at + length, top + 1))) - base
    return grid_down(hit, shift, width)
