"""Drawing step four: where the operands lie in their scopes (the alignment rules, the scope sizes, the
overlap rules), apart, adjacent or overlapping as the case asks.

A `Placement` holds the step's state as it goes; per scope a `ScopeLayout` lays out its operands in
groups (the tensors placed together), spreads the entries of list operands, and puts the groups in a drawn
order with drawn gaps. The target's kind steps in where breaking its rule changes the layout (a pair of
operands that share a group, entries moved onto each other, a floor under an operand, a tensor misaligned
or cut short: oracle/kinds)."""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from oracle import Tensor
from oracle.call import nest
from oracle.iterations import family, first_meeting
from oracle.kinds import kind_of, require
from oracle.spec import Rule

from conformance.generate.apart import apart_ops, lanes, meets_itself, self_rules
from conformance.generate.environment import GM_SPREAD, Env, Frame, round_up
from conformance.generate.draft import (CallDraft, accesses, entry_unit, extents, frame_of, operand_ends,
                                             scope_capacity)
from conformance.generate.picks import Picks, pick_between, rotated
from conformance.generate.offset_tensors import offset_limit


@dataclass
class Group:
    """Tensors placed together, one after another in their scope: those of `ops` (the first its lead), at
    their offsets (ScopeLayout.offsets) less `low`, the lowest of them."""

    ops: list[str]
    low: int
    size: int
    kept: int = 0               # bytes of its size past its tensors' own: an operand's landing room


def _layout(pick: Picks, n: int, align: int, extra_units: int, label: str) -> tuple[list[int], str]:
    """Offsets of the n entries of a list operand (multiples of `align`, one entry's run), `extra_units` at most
    wider than packed: packed (one tensor sliced at every block, as the pages' examples do), evenly
    strided, or scattered in a drawn order (a backend must follow the list, not the addresses)."""
    packed = [i * align for i in range(n)]
    if n < 2 or extra_units <= 0:
        return packed, "packed"
    style = pick.choice(("packed", "strided", "scattered"), f"{label}.layout")
    if style == "packed":
        return packed, style
    if style == "strided":
        gap, _ = pick_between(pick, 1, 1 + extra_units // (n - 1), f"{label}.stride")
        return [i * gap * align for i in range(n)], style
    width, _ = pick_between(pick, n, n + extra_units, f"{label}.width")
    rng = np.random.default_rng(pick.integer(0, 2**32 - 1, f"{label}.seed"))
    return (rng.choice(width, n, replace=False) * align).tolist(), style


Follow = Callable[[list[int]], list[int]]
Pair = tuple[str, str, Follow, list]         # a, b, how b's offsets follow a's, other ways to try


class Placement:
    """The placing of one call's operands: their footprints, the addresses and sizes drawn so far, and
    what the target's kind reads and changes (`entry_to_break`, `runs`, `offset_limit`, ...)."""

    def __init__(self, pick: Picks, env: Env, draft: CallDraft, target: Rule | None):
        self.pick, self.env, self.draft, self.target, self.kind = pick, env, draft, target, kind_of(target)
        # the ends in closed form, as sizing reads them, where the target's kind allows (closed_ends)
        closed = self.kind.closed_ends
        self.ends = ends = operand_ends(extents(env, draft, draft.params, parted=False) if closed else self.acc)
        landing = draft.landing                     # the ends, or the end of a landing room (operand_end)
        self.rooms = {op: max(end, self.acc[op].begin + landing[op]) if op in landing else end
                      for op, end in ends.items()}
        self.frame = frame_of(env, draft)
        self.op_aligns = self.frame.op_aligns
        self.itemsize = _itemsizes(env, self.frame, draft)
        self.addrs: dict[str, list[int]] = {}
        self.limit: dict[str, int] = {}             # byte where an operand's tensors end (slices run to it)
        self.numel: dict[str, list[int]] = {}

    @functools.cached_property
    def acc(self) -> dict[str, Any]:
        """The operands' footprints (what the ends are read from in closed form), made where a landing
        room, a list operand's entries, a pair or the target's kind reads them."""
        return accesses(self.env, self.draft, self.draft.params)

    def tensors(self) -> dict[str, Any]:
        """Every operand placed: its Tensor (a list operand: a list of them)."""
        for scope in sorted(set(self.draft.scopes.values())):
            ScopeLayout(self, scope).place()
        self.numel = {op: [-(-(self.limit[op] - a) // self.itemsize[op]) for a in self.addrs[op]]
                      for op in self.env.spec.operands}
        if self.target is not None:
            self.kind.finish(self.target, self)
        out: dict[str, Any] = {}
        for op in self.env.spec.operands:
            scope, dtype = self.draft.scopes[op], self.draft.dtypes[op]
            out[op] = (Tensor.entries(scope, dtype, self.addrs[op], self.numel[op]) if self.env.spec.is_list(op)
                       else Tensor(scope, self.addrs[op][0], dtype, self.numel[op][0]))     # one: no list to check
        return out

    # -- what the target's kind reads ----------------------------------------------------------------
    def entry_to_break(self, op: str) -> int:
        """The entry of `op` whose tensor is changed (drawn)."""
        return self.pick.integer(0, self.draft.count(op) - 1, f"{op}.entry")

    def runs(self, op: str, entry: int) -> Any:
        return self.acc[op][entry] if isinstance(self.acc[op], list) else self.acc[op]

    def offset_limit(self, op: str) -> int | None:
        """The largest offset the offset_range rules allow the offsets that address `op`."""
        return offset_limit(self.env, self.probe(), self.env.spec.operands[op]["addressed_by"])

    def element_width(self) -> int:
        return self.frame.units["element"]

    def probe(self) -> Any:
        """The call as drawn so far (operands at 0), made once."""
        if "_probe" not in self.__dict__:
            self._probe = self.draft.template.replace(**nest(self.draft.params))
        return self._probe


class ScopeLayout:
    """The operands of one scope laid out: groups of tensors placed together, in a drawn order, with
    drawn gaps between them."""

    def __init__(self, placing: Placement, scope: str):
        p = self.p = placing
        self.scope = scope
        self.ops, self.lists = _scope_operands(p.env, p.frame, p.draft, scope)      # (the lists among them)
        self.align = p.frame.aligns[scope]                  # the lcm of its operands' alignments
        self.cap = scope_capacity(p.env, p.draft, scope)
        one = entry_unit(None, self.align)                  # a tensor's unit (a list's: one entry's run)
        self.unit = {op: entry_unit(p.acc[op], self.align) if op in self.lists else one for op in self.ops}
        self.offsets = {op: self.packed(op) if op in self.lists else [0] for op in self.ops}
        self.pair = self.pairing()
        self.lead = {op: op for op in self.ops}             # the operand whose group holds op's tensors
        if self.pair is not None:
            self.lead[self.pair[1]] = self.pair[0]
        self.placed: dict[str, Group] = {}

    def packed(self, op: str) -> list[int]:
        unit = self.unit[op]                    # at least one byte
        return list(range(0, self.p.draft.count(op) * unit, unit))

    def pairing(self) -> Pair | None:
        """Two operands that share one group: the overlap the target asks for, or (a legal call) the
        in-place use a rule allows (tagged `<b>=in-place`)."""
        p = self.p
        if p.target is not None:
            return p.kind.pairing(p.target, p, self.ops, self.align)
        for rule in p.env.spec.rules_that("in_place"):
            found = kind_of(rule).in_place(rule, p, self.ops, p.probe)
            if found is not None:
                a, b = found
                p.draft.tags.append(f"{b}=in-place")
                return a, b, list, [None]
        return None

    def groups(self) -> dict[str, Group]:
        """The groups as the offsets stand (b following a into a's group, where paired)."""
        return {op: self.group(op) for op in self.ops if self.lead[op] == op}

    def group(self, lead: str) -> Group:
        """The group `lead` heads as the offsets stand (b following it, where it is a paired a)."""
        p, offsets, ops = self.p, self.offsets, [lead]
        if self.pair is None or self.pair[0] != lead:
            if len(offsets[lead]) == 1:              # one tensor alone: its group is its room
                size = round_up(p.rooms[lead], self.align)
                return Group(ops, offsets[lead][0], size, size - round_up(p.ends[lead], self.align))
        else:
            a, b, follow, _ = self.pair
            offsets[b] = follow(offsets[a])
            ops.append(b)
        low = min(min(offsets[m]) for m in ops)
        size = round_up(max(max(offsets[m]) + p.rooms[m] for m in ops) - low, self.align)
        touched = round_up(max(max(offsets[m]) + p.ends[m] for m in ops) - low, self.align)
        return Group(ops, low, size, size - touched)

    def span(self, laid: Mapping[str, list[int]]) -> int:
        """The size of a group holding the operands' tensors at these offsets."""
        low = min(min(offsets) for offsets in laid.values())
        return round_up(max(max(offsets) + self.p.rooms[op] for op, offsets in laid.items()) - low, self.align)

    def room(self) -> int:
        """Bytes of the scope the groups leave free (GM: at most GM_SPREAD)."""
        return self._room(self.cap - sum(s.size for s in self.placed.values()))

    def place(self) -> None:
        p = self.p
        self.placed = self.groups()
        require(self.room() >= 0)
        self.spread_lists()
        if self.pair is not None and self.pair[3]:
            self.settle_pair()
        spare = p.kind.spare_operand(p.target)
        if spare in self.ops:           # one alignment unit to misalign it into
            self.placed[self.lead[spare]].size += self.align
        require(self.room() >= 0)
        slack = self.add_slack()
        require(self.cap - sum(s.size for s in self.placed.values()) >= 0)
        self.lay_out(slack)

    def spread_lists(self) -> None:
        """How the entries of each list operand spread (and, for the target, meet)."""
        p = self.p
        if not self.lists:
            return
        apart = apart_ops(p.env, p.target, p.probe()) if self_rules(p.env) else {}     # no probe made for none
        for op in self.ops:
            if self.lead[op] == op and p.draft.count(op) > 1 and op in self.lists:
                count, unit = p.draft.count(op), self.unit[op]
                self.offsets[op], style = _layout(p.pick, count, unit, self.room() // unit, op)
                if op in apart and meets_itself(apart[op], self.offsets[op], p.acc[op]):
                    self.offsets[op], style = lanes(count, unit, p.acc[op][0].step, p.acc[op][0].count), "lanes"
                    require(self.offsets[op] is not None)
                p.draft.tags.append(f"{op}={style}")
                self.placed[op] = self.group(op)
                moved = p.kind.spread(p.target, p, op, self.offsets[op]) if p.target is not None else None
                if moved is not None:
                    self.offsets[op] = moved
                    self.placed[op] = self.group(op)

    def settle_pair(self) -> None:
        """b follows a the first way the iteration rules allow (settle), or keeps its own group."""
        p = self.p
        a, b = self.pair[0], self.pair[1]

        def fits(follow: Follow | None) -> bool:
            """Does the scope still hold its groups with b following a so (None: b in a group of its own)?"""
            if follow is None:
                sizes = self.span({a: self.offsets[a]}) + self.span({b: self.packed(b)})
            else:
                sizes = self.span({a: self.offsets[a], b: follow(self.offsets[a])})
            return sizes <= self.room() + self.placed[a].size
        settled = settle(p.env, p.probe(), p.target, p.acc, self.offsets, self.pair, fits)
        if settled is None:                     # apart: b's own group, its entries packed
            self.lead[b], self.offsets[b] = b, self.packed(b)
            p.draft.tags.remove(f"{b}=in-place")
            self.pair = None
        else:
            self.pair = (a, b, settled, [])
        self.placed = self.groups()

    def add_slack(self) -> dict[str, int]:
        """Tensors larger than what the call touches (where the target's kind allows)."""
        p, slack = self.p, dict.fromkeys(self.placed, 0)
        if not p.kind.allows_slack:
            return slack
        label, free = f"{self.scope}.slack", self.cap - sum(s.size for s in self.placed.values())
        for key, group in self.placed.items():
            if p.pick.boolean(label):
                slack[key] = p.pick.integer(0, max(self._room(free), 0) // self.align, label) * self.align
                group.size += slack[key]
                free -= slack[key]
        return slack

    def _room(self, free: int) -> int:
        """room() where the groups leave `free` bytes of the scope."""
        return free if self.scope != "GM" else min(free, GM_SPREAD)

    def lay_out(self, slack: Mapping[str, int]) -> None:
        """The groups in a drawn order, a drawn gap before each; an operand with a floor placed last."""
        p, align, placed = self.p, self.align, self.placed
        order = rotated(p.pick, sorted(placed), f"{self.scope}.order")
        floors = p.kind.floors(p.target, p, self.ops) if p.target is not None else {}
        if floors:
            floors = {self.lead[op]: (op, low) for op, low in floors.items()}
            order = [k for k in order if k not in floors] + [k for k in order if k in floors]
        cursor, label = 0, f"{self.scope}.gap"
        free = self.cap - sum(s.size for s in placed.values())
        for i, key in enumerate(order):
            group, least, units = placed[key], 0, max(self._room(free), 0) // align
            if key in floors:           # the least gap that puts the operand at its floor or above
                op, low = floors[key]
                at = min(self.offsets[op]) - group.low
                least = max(0, -(-(low - cursor - at) // align))
                require(least <= units)
            gap = pick_between(p.pick, least, units, label)[0] * align
            group.size += gap
            free -= gap
            cursor += gap
            base = cursor - group.low
            for op in group.ops:
                offsets = self.offsets[op]
                if op not in p.addrs:
                    p.addrs[op] = [0] * p.draft.count(op)
                p.addrs[op][:len(offsets)] = [base + o for o in offsets]
                p.limit[op] = base + max(offsets) + p.ends[op] + slack[key]
            cursor += group.size - gap
            if cursor - group.kept == self.cap and i == len(order) - 1 and self.scope != "GM":
                p.draft.tags.append(f"{self.scope}=top")


def _itemsizes(env: Env, frame: Frame, draft: CallDraft) -> dict[str, int]:
    """Each operand's element bytes (its dtype's, which the frame fixes): once per frame, read only."""
    known = frame.__dict__.get("_itemsizes")
    if known is None:
        known = frame.__dict__["_itemsizes"] = {op: env.rulebook.itemsize(d) for op, d in draft.dtypes.items()}
    return known


def _scope_operands(env: Env, frame: Frame, draft: CallDraft, scope: str) -> tuple[list[str], frozenset[str]]:
    """The operands in `scope` (in the spec's order), and those of them that are lists: once per frame and
    scope (the frame fixes the scopes), read only."""
    known = frame.__dict__.setdefault("_scope_operands", {})
    found = known.get(scope)
    if found is None:
        ops = [op for op in env.spec.operands if draft.scopes[op] == scope]
        found = known[scope] = ops, frozenset(op for op in ops if env.spec.is_list(op))
    return found


def place(pick: Picks, env: Env, draft: CallDraft, target: Rule | None) -> dict[str, Any]:
    """The operands' tensors: addresses and sizes in their scopes (Placement)."""
    return Placement(pick, env, draft, target).tensors()


def settle(env: Env, probe: Any, target: Rule | None, acc: Mapping[str, Any], offsets: Mapping[str, list[int]],
            pair: tuple[str, str, Follow, list[Follow | None]], fits: Callable[[Follow | None], bool]
            ) -> Follow | None:
    """The first way for b to follow a (the drawn one, then the others) after which the iteration rules
    on a and b that hold for the call fire as asked: the target's, and no other (a stride that walks one
    list onto the other's later iteration), and the scope still holds the groups (`fits`); `probe`: the
    call as drawn so far, whose parameters say which rules hold. None: b kept apart (a legal call's
    in-place use given up). Where none does, the drawn one (the oracle's check has the last word)."""
    a, b, first, others = pair
    rules = _iteration_rules(env, probe, a, b)
    if not rules:
        return first
    fams = {a: family(list(zip(offsets[a], acc[a])))}       # a stays where it is: b follows it
    for follow in [first, *others]:
        if not fits(follow):
            continue
        if follow is None:
            return None
        fams[b] = family(list(zip(follow(offsets[a]), acc[b])))
        if all(_fires(fams[x], fams[y], lag, identical) == (target is not None and rule_id == target.id)
               for rule_id, x, y, lag, identical in rules):
            return follow
    return first


def _iteration_rules(env: Env, probe: Any, a: str, b: str) -> list[tuple[str, str, str, tuple, bool]]:
    """(id, operands, lag, identical allowed) of the iteration_overlap rules between a and b that hold for
    the call, and of the checks of the ambiguities whose region it is in (less the rules they override);
    those at one lag first (settle asks them first: the cheaper to answer)."""
    ambiguities, rules = _between(env, a, b)
    out, overridden = [], set()
    for amb, checks in ambiguities:
        if any(env.rulebook.matches(region, probe, env.spec) for region in amb.regions):
            overridden.update(amb.overrides)
            out += checks
    out += [check for rule, check in rules if rule.id not in overridden and env.rulebook.matches(rule.when, probe, env.spec)]
    return sorted(out, key=lambda check: check[3][0] != check[3][1])


def _between(env: Env, a: str, b: str) -> tuple[list[tuple[Any, list]], list[tuple[Rule, tuple]]]:
    """The iteration rules between a and b (a != b), and the ambiguities with such a check or overriding
    such a rule, each with its checks between a and b (once per environment and pair: read only)."""
    known = env.__dict__.setdefault("_iteration_rules", {})
    if (a, b) not in known:
        def checks(owner: Any, tests: Any) -> list[tuple]:
            return [(owner.id, *shape) for t in tests for shape in [kind_of(t).meeting(t)]
                    if shape is not None and {shape[0], shape[1]} == {a, b} and shape[0] != shape[1]]
        rules = [(r, check) for r in env.spec.rules for check in checks(r, [r])]
        ids = {r.id for r, _ in rules}
        ambiguities = [(amb, checks(amb, amb.checks)) for amb in env.spec.ambiguities]
        known[(a, b)] = ([(amb, found) for amb, found in ambiguities if found or ids & set(amb.overrides)], rules)
    return known[(a, b)]


def _fires(fa: Any, fb: Any, lag: tuple, identical: bool) -> bool:
    """Does an iteration of fa meet one of fb with the lag, as the iteration_overlap kind reads it? (Not
    where identical entries are allowed in one iteration and fa and fb are entry for entry the same in
    every one: b in place of a.)"""
    identical = identical and len(fa.base) == len(fb.base)
    if identical and tuple(lag) == (0, 0) and _same_runs(fa, fb):
        return False
    return first_meeting(fa, fb, lag, identical=identical) is not None


def _same_runs(fa: Any, fb: Any) -> bool:
    """Two uniform families whose entries touch the same bytes in every iteration, entry for entry."""
    return (fa.uniform and fb.uniform and int(fa.step[0]) == int(fb.step[0]) and int(fa.count[0]) == int(fb.count[0])
            and int(fa.length[0]) == int(fb.length[0]) and bool(np.array_equal(fa.base, fb.base)))


