"""Drawing step three: the parameters of a call (the range rules, minus ambiguity regions), sized so that
every operand fits the scope it was given, reaching each end of each range and the largest fit."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from oracle.call import nest
from oracle.kinds import Retry, kind_of, require
from oracle.rulebook import in_ranges
from oracle.spec import Rule

from conformance.generate.apart import keep_apart
from conformance.generate.draft import (CallDraft, accesses, frame_of, part, parted_call, writes_twice,
                                        written_once)
from conformance.generate.environment import Env, Frame, subtract
from conformance.generate.masks import draw_words
from conformance.generate.once import bearing, nearest_once, written_once_at
from conformance.generate.picks import Picks, pick_as, rotated
from conformance.generate.sizing import fits, largest_fit, moves_nothing, remembered
from conformance.generate.steering import leave_checked, one_repeat, outside, overriding, ranges_of, reaches_below
from conformance.generate.structs import draw_structs


@dataclass
class StartingPoint:
    """Where the drawing of a call's parameters starts: each at the bottom of its domain."""

    names: list[str]                                 # the parameters drawn (not the mask words)
    domains: dict[str, list[tuple[int, int]]]        # their legal intervals (narrowed by a target's `when`)
    ends: dict[str, tuple[int, int] | None]          # their lowest and highest legal values
    aligns: Mapping[str, int]
    params: dict[str, Any]
    empties: set[str]                                # counts sized against 1 rather than 0


def _domains_and_ends(env: Env, frame: Frame, target: Rule | None) -> tuple[dict, dict]:
    """The parameters' domains (narrowed by a target's `when`) and legal ends, once per frame and target
    (shared: read only)."""
    known = frame.starts.get(id(target))
    if known is not None:
        return known[1], known[2]
    domains = frame.domains
    ends = {n: _legal_ends(d, frame.steps[n]) for n, d in domains.items()}
    within = target.when.get("params", {}) if target is not None and target.when else {}
    domains = {n: subtract(subtract(d, (-2**63, within[n][0] - 1)), (within[n][1] + 1, 2**63))
               if n in within else d for n, d in domains.items()}     # the target rule's own `when`
    if within and target.id in env.targets:     # an ambiguity's region: its ends are the edges to reach
        ends = {n: _legal_ends(d, frame.steps[n]) for n, d in domains.items()}
    frame.starts[id(target)] = (target, domains, ends)       # the target kept: its id stays its own
    return domains, ends


def starting_point(pick: Picks, env: Env, draft: CallDraft, target: Rule | None) -> StartingPoint:
    frame = frame_of(env, draft)
    names, aligns = frame.names, frame.aligns
    domains, ends = _domains_and_ends(env, frame, target)
    if not frame.word_rules and not frame.alone:    # nothing drawn: one start per frame and target (read only)
        known = frame.begun.get(id(target))         # (the target is kept alive in frame.starts)
        if known is None:
            known = frame.begun[id(target)] = _lowest(env, draft, frame, domains, {})
        return StartingPoint(names, domains, ends, aligns, dict(known[0]), set(known[1]))
    params: dict[str, Any] = draw_words(pick, frame.word_rules, draft.tags, target)
    if frame.alone:
        params.update(draw_structs(pick, env, draft, target, domains))
        require(fits(env, draft, params, aligns))
    params, empties = _lowest(env, draft, frame, domains, params)
    return StartingPoint(names, domains, ends, aligns, params, set(empties))


def _lowest(env: Env, draft: CallDraft, frame: Frame, domains: dict[str, list[tuple[int, int]]],
            params: dict[str, Any]) -> tuple[dict[str, Any], frozenset[str]]:
    """`params` with every parameter at the bottom of its domain, counts that would empty every footprint
    raised (_empties), and those counts."""
    names = frame.names
    for n in names:
        require(domains[n])
        params[n] = domains[n][0][0]
    zeros = tuple(n for n in names if params[n] == 0 and any(a <= 1 <= b for a, b in domains[n]))
    raised, empties = remembered(frame, "empties", params, lambda: _empties(env, draft, dict(params), zeros), zeros)
    params.update(raised)
    return params, empties


def _empties(env: Env, draft: CallDraft, params: dict[str, Any], zeros: tuple[str, ...]
             ) -> tuple[dict[str, int], frozenset[str]]:
    """The counts at 0 that could be 1 (`zeros`) set to 1 where a 0 would empty every footprint, and those
    counts (`StartingPoint.empties`): the parameters the frame's calls start from, once per frame and
    parameters."""
    empties: set[str] = set()
    start = dict(params)
    for n in zeros:     # a count at 0 (ndNum, repeatTimes) empties every footprint and would let the
        # parameters drawn before it grow without bound: size them against 1 instead
        if moves_nothing(env, draft, params) and not moves_nothing(env, draft, {**params, n: 1}):
            params[n] = 1
            empties.add(n)
    if not empties and moves_nothing(env, draft, params):
        empties = _joint_empties(env, draft, params, zeros)
    return {n: v for n, v in params.items() if start[n] != v}, frozenset(empties)


def _joint_empties(env: Env, draft: CallDraft, params: dict[str, Any], zeros: tuple[str, ...]) -> set[str]:
    """Counts that empty the footprints only together (ndNum, nValue and dValue, each from 0): all set to 1
    where that moves bytes, then each that does not empty them by itself put back to 0."""
    ones = {**params, **dict.fromkeys(zeros, 1)}
    if not zeros or moves_nothing(env, draft, ones):
        return set()
    params.update(ones)
    empties = {n for n in zeros if moves_nothing(env, draft, {**params, n: 0})}
    params.update((n, 0) for n in zeros if n not in empties)
    return empties


def fit_tops(env: Env, form: str | None, dtype: str, path: str | None, pick: Picks
             ) -> dict[str, tuple[int, int, int | None, dict[str, int]]]:
    """For a legal call of this form, dtype and path, each parameter's (lowest, highest legal value,
    largest value that fits its scopes with every other parameter at its start, the other parameters'
    values that differ from their lowest there): what a sweep must reach and how. At its start a count
    that would empty every footprint is 1, and a parameter that would put the call in an ambiguity region
    with this one at its top is just outside it. `pick` answers the mask words (they size footprints).
    Empty when no call starts here."""
    draft = CallDraft(form, env.operand_dtypes(dtype), env.operand_scopes(path))
    draft.counts = {op: d["entries"] for op, d in env.spec.operands.items() if "entries" in d}
    part(env, draft, None)
    try:
        start = starting_point(pick, env, draft, None)
    except Retry:
        return {}
    out = {}
    for n in start.names:
        ends, step = start.ends[n], draft.frame.steps[n]
        if ends is None:
            continue
        params = dict(start.params)
        top = largest_fit(env, draft, params, n, ends[0], ends[1], start.aligns, step)
        if top is not None:
            moved = {**params, n: top}
            _stay_out(env, draft, moved, None, start.domains, keep=n)
            if moved != {**params, n: top}:
                params = {**moved, n: params[n]}
                top = largest_fit(env, draft, params, n, ends[0], ends[1], start.aligns, step)
        lows = {m: d[0][0] for m, d in start.domains.items() if d}
        adjust = {m: v for m, v in params.items() if m != n and m in lows and v != lows[m]}
        out[n] = (ends[0], ends[1], None if top is None else top // step * step, adjust)
    return out


def draw_params(pick: Picks, env: Env, draft: CallDraft, target: Rule | None) -> None:
    """Step three: draft.params drawn (ParameterDraw)."""
    ParameterDraw(pick, env, draft, target).draw()


class ParameterDraw:
    """The parameters of one call being drawn: from their starting point, the target's forced one first
    (a range rule's: outside its range), then each other in a drawn order, up to the largest value that
    still fits (`fit_top`), then steered out of the ambiguity regions and apart from rules the target
    should not break with it, and tagged with the edges they reached."""

    def __init__(self, pick: Picks, env: Env, draft: CallDraft, target: Rule | None):
        self.pick, self.env, self.draft, self.target, self.kind = pick, env, draft, target, kind_of(target)
        self.start = starting_point(pick, env, draft, target)
        self.params = self.start.params
        self.forced = self.kind.forced_param(target)
        self.fit_top: dict[str, int] = {}       # the largest value that fitted, where one was searched for
        searched = getattr(frame_of(env, draft).math, "SEARCHED_APART", ())
        self.once = [op for op in written_once(env, target) if op in searched and op not in draft.parted]
        self.twice = [op for op in [self.kind.self_overlapping(target)] if op in searched]   # the target's
        self.bearing: list[str] = []            # the parameters self.once's (twice's) footprints read, in order
        self.last: str | None = None            # the last of them
        self.fit_span: dict[str, tuple[int, int, int]] = {}     # (lo, hi, step) each fit_top was searched in
        self.begun: dict[str, Any] = {}         # the parameters before the first one was drawn
        self.refit: dict[str, dict[str, Any]] = {}      # the parameters a fit_top is searched again with

    def fits(self, params: Mapping[str, Any]) -> bool:
        return fits(self.env, self.draft, params, self.start.aligns)

    def keeps(self, params: Mapping[str, Any]) -> bool:
        """Does a call with `params` fit, and write a byte twice where, and only where, the drawn one does
        (the operands of the self_overlap rules that hold for every call)?"""
        ops = written_once(self.env, None)
        before, after = (accesses(self.env, self.draft, p, plain=True) for p in (self.params, params))
        return self.fits(params) and all(writes_twice(before.get(op)) == writes_twice(after.get(op)) for op in ops)

    def draw(self) -> None:
        params, forced, draft = self.params, self.forced, self.draft
        if forced is not None and forced not in draft.frame.alone:
            params[forced], tag = self.kind.outside(self.target, self.pick, draft.frame.rule_steps.get(forced, 1),
                                                    lambda v: self.fits({**params, forced: v}))
            draft.tags.append(tag)
        pushed_down = False
        order = [n for n in rotated(self.pick, self.start.names) if n != forced]
        if self.once or self.twice:
            self.bearing = bearing(self.env, draft, params, order, self.once + self.twice)
            self.last = self.bearing[-1] if self.bearing else None
            self.begun = dict(params)
        for n in order:
            if draft.frame.steps[n] > 1:
                self.stepped(n, draft.frame.steps[n])
            else:
                pushed_down |= self.plain(n)
        if self.last is not None:
            self.rewrite_once(order)
        if pushed_down:     # a call that moves nothing (ndNum = 0) is drawn on purpose, not for want of room
            require(not moves_nothing(self.env, draft, params))
        self.part_writes()
        self.steer()
        self.tag_edges()
        for n in self.start.names:
            if self.env.spec.params[n].get("type") == "bool":
                params[n] = bool(params[n])
        draft.params = params

    def stepped(self, n: str, step: int) -> None:
        """A parameter drawn as a count of `step`s, so that every value is a multiple (or, to break a
        multiple rule, moved off it). Drawn as pick_between draws it from the bottom to the largest fit,
        but the largest fit is searched for only where the value is not the bottom: a bottom that fits with
        the next multiple too needs no more to go on (pick_between reads "min" there)."""
        pick, params = self.pick, self.params
        scaled = [(-(-lo // step), hi // step) for lo, hi in self.start.domains[n] if -(-lo // step) <= hi // step]
        require(scaled)
        lo, hi = pick.choice(scaled, f"{n}.interval")
        require(self.fits({**params, n: lo * step}))
        value, top, how = lo, lo * step, "min"      # the bottom, the only multiple that fits ...
        if lo < hi and self.fits({**params, n: (lo + 1) * step}):       # ... or not
            how, top = pick.how(n), None
            if how != "min":
                top = largest_fit(self.env, self.draft, params, n, lo * step, hi * step, self.start.aligns, step)
                require(top is not None)
                self.fit_span[n] = (lo * step, hi * step, step)
                value, _ = pick_as(pick, how, lo, top // step, n)
        if n == self.last:
            value = self.written_once(n, how, value, lo, hi, None if top is None else top // step, step)
        params[n] = value * step
        if top is not None:
            self.fit_top[n] = top
        off = self.kind.off_step(self.target, pick, n, value * step, step)
        if off is not None:
            params[n] = off
            self.draft.tags.append(f"{n}=off-multiple")
            self.fit_top.pop(n, None)

    def plain(self, n: str) -> bool:
        """A parameter drawn in one of its intervals: at its bottom, its largest fit or anywhere between.
        True where it was pushed down to 0 for want of room."""
        pick, params, empties = self.pick, self.params, self.start.empties
        lo, hi = pick.choice(self.start.domains[n], f"{n}.interval")
        if self.kind.moves_bytes and n in empties and hi >= 1:
            lo = max(lo, 1)             # a call that moves nothing breaks none of the target's rules
        how = "min" if lo == hi else pick.how(n)
        if how == "min":                # the search for the largest fit is needed only above the minimum
            require(self.fits({**params, n: lo}))
            top = lo
        else:
            top = largest_fit(self.env, self.draft, params, n, lo, hi, self.start.aligns)
            require(top is not None)
            self.fit_span[n] = (lo, hi, 1)
        if n in empties and how != "min" and top >= 1:
            lo = 1              # 0 (an empty move) is drawn as the minimum, on purpose; "any" moves data
        params[n], _ = pick_as(pick, how if top > lo else "min", lo, top, n)
        if n == self.last:
            params[n] = self.written_once(n, how, params[n], lo, hi, None if how == "min" else top)
        if how != "min":
            self.fit_top[n] = top
        return how != "min" and top == lo == 0

    def written_once(self, n: str, how: str, value: int, lo: int, hi: int, top: int | None, step: int = 1) -> int:
        """`value` (a count of `step`s in [lo, hi]) where self.once's operands write no byte twice with it
        (and self.twice's write one twice); otherwise the nearest in [lo, top] where they do not (once.nearest_once: above it first, but
        below a "max"), `top` the largest fit (None: searched for here, only where it is needed)."""
        once = written_once_at(self.env, self.draft, self.params, n, self.once, step, self.twice)
        if once(value):
            return value

        def fit() -> int | None:
            if top is not None:
                return top
            found = largest_fit(self.env, self.draft, self.params, n, lo * step, hi * step, self.start.aligns, step)
            return None if found is None else found // step
        return nearest_once(once, value, lo, hi, how != "max", fit)

    def rewrite_once(self, order: list[str]) -> None:
        """Where self.once's operands still write a byte twice (decided before the last parameter they
        read was drawn: rows that overlap, whatever the matrices' stride), the one drawn latest before it
        that has a value which parts them is moved there (written_once, up to its largest fit with the
        others as drawn); the largest fits of those drawn after it are searched again (fit_again)."""
        if written_once_at(self.env, self.draft, self.params, self.bearing[-1], self.once, 1, self.twice)(
                self.params[self.bearing[-1]]):
            return
        for m in reversed(self.bearing[:-1]):
            step, value = self.draft.frame.steps[m], self.params[m]
            if value % step:
                continue
            lo, hi = next(((a, b) for a, b in self.start.domains[m] if a <= value <= b), (value, value))
            if self.kind.moves_bytes and m in self.start.empties:
                lo = max(lo, 1)
            moved = self.written_once(m, "any", value // step, -(-lo // step), hi // step, None, step) * step
            if moved != value:
                self.params[m] = moved
                self.fit_again(order, order.index(m) + 1)
                return

    def fit_again(self, order: list[str], at: int) -> None:
        """The largest fits of order[at:] to search again where a tag asks (top_of), as when they were drawn
        (those drawn before each as they are now, the others at their start); a bottom that was the only fit, dropped."""
        for i, n in enumerate(order[at:], at):
            if n in self.fit_top and n not in self.fit_span:
                del self.fit_top[n]
            elif n in self.fit_top:
                self.refit[n] = {**self.begun, **{k: self.params[k] for k in order[:i]}}

    def top_of(self, n: str, value: int) -> int | None:
        """fit_top[n] where `value` may be it (else None); one to search again (fit_again) searched only where `value`
        fits and the next multiple does not, or it is the span's top: so is every answer of largest_fit (_search)."""
        before, (lo, hi, step) = self.refit.get(n), self.fit_span.get(n, (0, 0, 1))
        if before is None or value % step or not lo <= value <= hi // step * step:
            return self.fit_top.get(n) if before is None else None
        if (value + step <= hi and self.fits({**before, n: value + step})) or not self.fits({**before, n: value}):
            return None
        return largest_fit(self.env, self.draft, before, n, lo, hi, self.start.aligns, step)

    def part_writes(self) -> None:
        """An operand that must not write a byte twice (CallDraft.parted) and does: its strides raised as
        its index math's `apart` says (draft.parted_call), where they stay in their domains and the call
        still fits (sizing saw it so); otherwise it stays as drawn, and is given up once checked."""
        env, draft, params = self.env, self.draft, self.params
        raised = parted_call(env, draft, params)[1] if draft.parted else {}
        if not raised or self.forced in raised or not all(any(a <= v <= b for a, b in self.start.domains[n])
                                                          for n, v in raised.items()):
            return
        acc = accesses(env, draft, params, plain=True)
        if any(writes_twice(acc.get(op)) for op in draft.parted) and self.fits({**params, **raised}):
            params.update(raised)

    def steer(self) -> None:
        """Away from what would break another rule with the target, and out of the ambiguity regions."""
        env, draft, params, forced, domains = self.env, self.draft, self.params, self.forced, self.start.domains
        aligns = self.start.aligns
        if forced is not None:
            one_repeat(draft.frame.names, draft.frame.steps, params, forced, domains,
                       lambda p: reaches_below(env, accesses(env, draft, p)))
        _stay_out(env, draft, params, forced, domains, aligns=aligns)
        if self.target is not None:
            _stay_out(env, draft, params, forced, domains, aligns=aligns, regions=overriding(env, self.target))
        leave_checked(env, draft, params, forced, domains, draft.frame.units["element"], self.keeps)
        keep_apart(env, draft, params, domains, forced, self.target, lambda p: accesses(env, draft, p),
                   self.fits)

    def tag_edges(self) -> None:
        """Tags from the final values: each says one thing (see _edge_of)."""
        for n in self.start.names:
            ends = self.start.ends[n]
            if n != self.forced and ends is not None:
                where = _edge_of(n, self.params[n], ends, self.top_of)
                if where is not None:
                    self.draft.tags.append(f"{n}={where}")


def _legal_ends(domain: list[tuple[int, int]], step: int) -> tuple[int, int] | None:
    """The lowest and highest legal value of a parameter: the ends of its domain (its range rules less
    the ambiguity regions cut out of it), on its multiples."""
    if not domain:
        return None
    lo, hi = -(-domain[0][0] // step) * step, domain[-1][1] // step * step
    return (lo, hi) if lo <= hi else None


def _edge_of(n: str, value: int, ends: tuple[int, int], fit_top: Callable[[str, int], int | None]) -> str | None:
    """The tag parameter `n`'s value earns: `min` / `max` at the lowest / highest legal value, and `largest-fit`
    at the largest value that fitted the scopes when below the highest one (`fit_top(n, value)`, where it may be)."""
    if value in ends:
        return "min" if value == ends[0] else "max"
    return "largest-fit" if value == fit_top(n, value) else None


def _stay_out(env: Env, draft: CallDraft, params: dict[str, int], forced: str | None,
              domains: Mapping[str, list[tuple[int, int]]], keep: str | None = None,
              aligns: Mapping[str, int] | None = None, regions: list | None = None) -> None:
    """Move the call out of an ambiguity region of several parameters (one repeat *and* a non-zero
    stride) by moving the last of them (but `keep`) just outside its interval: the generators keep out
    of ambiguities (specs/README.md). Regions of one parameter are already cut out of its domain. With
    `aligns`, the first move after which the call still fits its scopes is taken where there is one (a
    stride moved up to a whole repeat can make 240 repeats overflow UB, where one repeat would not).
    `regions`: those instead of the joint regions (see steering.overriding)."""
    call = None                 # the call with `params`, made again only once they change
    for region, names in regions if regions is not None else env.joint_regions:
        if forced in names:
            continue
        if ("forms" in region and draft.template.form not in region["forms"]) or (not env.nested \
                and all(n in params for n in names) and not in_ranges(ranges_of(region), params)):
            continue                # outside the region's forms or ranges: no call need be made to tell
        if call is None:
            call = draft.template.replace(**nest(params))
        if not env.rulebook.matches(region, call, env.spec):
            continue
        moves = [(name, v) for name in reversed(names) if name != keep
                 for v in outside(region["params"][name], domains.get(name, ()))]
        if aligns is not None and moves:        # the first move that fits, else the first move
            moves = [next((m for m in moves if fits(env, draft, {**params, m[0]: m[1]}, aligns)), moves[0])]
        if moves:
            params[moves[0][0]], call = moves[0][1], None
