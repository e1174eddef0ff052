"""iteration_overlap: run r of an operand is what its iteration r touches (repeat-style instructions); an
iteration of one operand meets no iteration of another `lag` iterations later."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from operator import attrgetter
from typing import Optional

from oracle.call import Call, Tensor
from oracle.footprint import Runs
from oracle.iterations import Family, first_meeting, lanes_apart
from oracle.records import Rule

from .base import RuleKind, require
from .protocols import Checked, Follow, Meeting, Pair, Placing


class IterationOverlap(RuleKind):
    name = "iteration_overlap"
    moves_bytes = True
    region_top_searched = True
    region_counts_up = True
    legal_edges = ("{operands}=in-place",)

    def check(self, rule: Rule, ctx: Checked) -> Optional[str]:
        """Broken when an iteration r of `a` and an iteration r' of `b` with r' - r inside `lag` share a
        byte; with `allow: identical`, same-iteration overlap is allowed where every entry of a and b
        coincide."""
        a, b = rule.fields["operands"]
        lo, hi = rule.fields.get("lag", [0, 0])
        identical = rule.fields.get("allow") == "identical"
        if _told_apart(ctx, a, b, lo, hi, identical):
            return None
        known: dict[tuple[str, str, int, int | None, bool], Optional[str]] = vars(ctx).setdefault("_meetings", {})
        key = (a, b, lo, hi, identical)        # a rule and an ambiguity's check can ask the same of one call
        if key not in known:
            known[key] = _meeting(ctx, a, b, lo, hi, identical)
        return known[key]

    def breakable_in(self, rule: Rule, scopes: Mapping[str, str]) -> bool:
        return len({scopes[op] for op in rule["operands"]}) == 1

    def later_self(self, rule: Rule) -> Optional[str]:
        a, b = rule["operands"]
        return a if a == b and rule.get("lag", [0, 0])[0] >= 1 else None

    def meeting(self, rule: Rule) -> Optional[Meeting]:
        """(a, b, lag, identical allowed): how the rule's iterations meet."""
        lo, hi = rule.get("lag", [0, 0])
        return rule["operands"][0], rule["operands"][1], (lo, hi), rule.get("allow") == "identical"

    def pairing(self, rule: Rule, placing: Placing, ops: list[str], align: int) -> Optional[Pair]:
        """b on a's blocks (the same blocks in another order, or partly the same: `allow: identical`), or
        b a lag of iterations on from a. Last: other ways to follow, tried where the drawn one breaks
        another iteration rule (placement's settle)."""
        a, b = rule["operands"]
        if not (a in ops and b in ops) or a == b:
            return None                                    # one operand with itself: see `spread`
        p = placing
        n = min(p.draft.count(a), p.draft.count(b))
        lo, _ = rule.get("lag", [0, 0])
        first_a, first_b = p.acc[a][0], p.acc[b][0]
        rounds = min(first_a.count, first_b.count)
        if rule.get("allow") == "identical" and lo == 0:
            require(n >= 2)
            k = p.pick.integer(1, n - 1, "overlap.shift")
            reorder = p.pick.boolean("overlap.reorder")
            last = max(rounds - 1, 0) * (first_a.step - first_b.step)     # meeting in the last iteration
            ways = [(reorder, k, 0), (reorder, k, last)] + [(m, j, d) for m in (reorder, not reorder)
                                                           for j in sorted({1, n - 1, n // 2}) for d in (0, last)]
            ways = list(dict.fromkeys(ways))
            return a, b, _same_blocks(n, *ways[0]), [_same_blocks(n, *w) for w in ways[1:]]
        require(rounds - 1 - lo >= 0)
        r = p.pick.integer(0, rounds - 1 - lo, "overlap.round")
        rs = list(dict.fromkeys((r, 0, rounds - 1 - lo, (rounds - 1 - lo) // 2)))
        follows = [_lagged(n, q * first_a.step - (q + lo) * first_b.step) for q in rs]
        return a, b, follows[0], follows[1:]

    def in_place(self, rule: Rule, placing: Placing, ops: list[str], probe: Callable[[], Call]
                 ) -> Optional[tuple[str, str]]:
        """A legal call passing b in place of a, where the rule allows it (`allow: identical`): (a, b) or None."""
        a, b = rule["operands"]
        p = placing
        if not (rule.get("allow") == "identical" and a != b and a in ops and b in ops
                and p.draft.count(a) == p.draft.count(b)):
            return None
        if p.env.rulebook.matches(rule.when, probe(), p.env.spec) and p.pick.choice((False, False, True), f"{b}.in-place"):
            return a, b
        return None

    def spread(self, rule: Rule, placing: Placing, op: str, offsets: list[int]) -> Optional[list[int]]:
        """Two entries of one list operand at the same place; at a lag of k >= 1 iterations, one k runs
        of the other on (a step of 0: every entry meets its own later runs wherever it lies)."""
        if rule["operands"] != [op, op]:
            return None
        p, runs, lag = placing, placing.acc[op][0], rule.get("lag", [0, 0])
        require(len(offsets) >= 2)
        i, j = p.pick.integer(0, len(offsets) - 1, "collide.first"), p.pick.integer(0, len(offsets) - 2, "collide.second")
        j += j >= i
        out = list(offsets)
        lo, hi = lag[0], runs.count - 1 if lag[1] is None else min(lag[1], runs.count - 1)
        if lo <= 0:
            out[j] = out[i]
        elif runs.step:
            require(lo <= hi)
            out[j] = out[i] + p.pick.integer(lo, hi, "collide.lag") * runs.step
            require(out[j] >= 0 and out[j] not in offsets)      # on no entry's own place (that is lag 0)
        return out


_LAGS: dict[tuple[int, int | None], str] = {(0, 0): "in the same iteration", (1, 1): "in the next iteration"}


def _meeting(ctx: Checked, a: str, b: str, lo: int, hi: int | None, identical: bool) -> Optional[str]:
    """IterationOverlap.check's message, from the operands' families (None: no iteration meets)."""
    fa, fb = ctx.families(a), ctx.families(b)
    for scope in set(fa) & set(fb):
        (pa, family_a), (pb, family_b) = fa[scope], fb[scope]
        whole = identical and len(fa) == len(fb) == 1 and len(pa) == len(pb)      # all entries in this scope
        first = _first(family_a, family_b, lo, hi, a == b, whole)
        if first is None:
            continue
        r, i, j = first
        what = _LAGS.get((lo, hi), f"{lo}{'+' if hi is None else f'..{hi}'} iterations later")
        extra = " (not entry for entry identical)" if identical else ""
        return (f"iteration {r} of {ctx.entries(a)[pa[i]][0]} meets {ctx.entries(b)[pb[j]][0]} {what} "
                f"in {scope}{extra}")
    return None


def _same_blocks(n: int, reorder: bool, k: int, shift: int) -> Follow:
    """b on a's blocks: the same blocks in another order (entry i on a's entry i + k), or partly the same
    (b's lowest entry on a's k-th lowest, the rest as a's lie); `shift` bytes on (a and b meet in the
    iteration where a's stride has gone that much further than b's)."""
    if reorder:
        return lambda offs: [offs[(i + k) % n] + shift for i in range(n)]

    def partly(offs: list[int]) -> list[int]:
        ordered = sorted(offs[:n])
        return [o + ordered[k] - ordered[0] + shift for o in offs[:n]]
    return partly


def _lagged(n: int, shift: int) -> Follow:
    """b `shift` bytes from a, entry for entry: b's iteration r + lag meets a's iteration r."""
    return lambda offs: [o + shift for o in offs[:n]]


def _first(fa: Family, fb: Family, lo: int, hi: int | None, same: bool, identical: bool) -> tuple[int, int, int] | None:
    """first_meeting for the rule: an operand against itself leaves out an entry's own run in the same
    iteration only (at a lag >= 1 entry i meets its own later iterations: a stride 0)."""
    if not same or lo > 0 or hi == 0:
        return first_meeting(fa, fb, (lo, hi), distinct=same and lo == 0, identical=identical)
    found = [f for f in (first_meeting(fa, fb, (0, 0), distinct=True, identical=identical),
                         first_meeting(fa, fb, (1, hi), identical=identical)) if f is not None]
    return min(found, default=None)


Lined = tuple[str, list[int], Runs, Optional[tuple[int, int]]]
_SCOPE, _ADDR = attrgetter("scope"), attrgetter("addr")


def _told_apart(ctx: Checked, a: str, b: str, lo: int, hi: int | None, identical: bool) -> bool:
    """No iteration of a meets one of b as `_first` reads the lag, told from the entries' addresses and
    their one Runs (`_lined`), without the families' arrays, where that is plain: a and b in different
    scopes or their spans apart; in one iteration, where identical entries are allowed, a and b entry for
    entry the same in every iteration; an operand's entries against each other in one iteration, no two
    starts closer than a run; an operand against its own later iterations, entries and step on a grid of
    the run's length, no two entries of one residue of the step fewer than `count` steps apart (runs on
    that grid meet whole or not at all). False: ask first_meeting."""
    la, lb = _lined(ctx, a), _lined(ctx, b)
    if la is None or lb is None:
        return False
    if la[0] != lb[0]:
        return True
    if a != b:
        sa, sb = la[3], lb[3]
        if sa is None or sb is None or sa[0] >= sb[1] or sb[0] >= sa[1]:
            return True
        return identical and lo == 0 and hi == 0 and la[2] == lb[2] and la[1] == lb[1]
    _, addrs, runs, span = la
    if span is None:
        return True
    if lo == 0 and hi == 0:
        ordered = sorted(addrs)
        return all(y - x >= runs.length for x, y in zip(ordered, ordered[1:]))
    return lo >= 1 and lanes_apart(addrs, runs.step, runs.count, runs.length)


def _lined(ctx: Checked, name: str) -> Lined | None:
    """(scope, entry addresses, their one Runs, the span of their runs as the Family has it) of an operand
    whose entries lie in one scope with equal Runs (a list operand as its index math gives it), once per
    context; None for any other (or a span past int64's exact range: the families answer)."""
    known: dict[str, Lined | None] = vars(ctx).setdefault("_lined", {})
    if name in known:
        return known[name]
    value, runs, found = ctx.call.args.get(name), ctx.accesses.get(name), None
    if type(value) is Tensor and type(runs) is Runs:
        value, runs = [value], [runs]
    if (type(value) is list and value and type(runs) is list and len(runs) == len(value)
            and type(runs[0]) is Runs and runs.count(runs[0]) == len(runs) and set(map(type, value)) == {Tensor}):
        scopes = set(map(_SCOPE, value))
        if len(scopes) == 1:
            addrs: list[int] = list(map(_ADDR, value))
            span = _span(addrs, runs[0])
            if span is None or -2**62 < span[0] <= span[1] < 2**62:
                found = scopes.pop(), addrs, runs[0], span
    known[name] = found
    return found


def _span(addrs: list[int], runs: Runs) -> tuple[int, int] | None:
    """Lowest to highest byte the runs of entries at `addrs` touch (None: nothing is touched)."""
    first, step, count, length = runs
    if count <= 0 or length <= 0:
        return None
    far = step * (count - 1)
    return min(addrs) + first + min(0, far), max(addrs) + first + max(0, far) + length
