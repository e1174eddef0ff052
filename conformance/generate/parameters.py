"""Drawing step three: the parameters of a call (the range rules, minus ambiguity regions), sized so that
every operand fits the scope it was given, reaching each end of each range and the largest fit."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from oracle import Call
from oracle.call import nest
from oracle.kinds import Retry, kind_of, require
from oracle.spec import Rule

from conformance.generate.environment import MOVED_BYTES, Env, Frame, round_up, subtract
from conformance.generate.masks import draw_words
from conformance.generate.picks import Picks, pick_as, pick_between, rotated
from conformance.generate.apart import keep_apart, spread_end
from conformance.generate.steering import one_repeat, overriding, reaches_below


@dataclass
class Draft:
    """The call being drawn."""

    form: str | None
    dtypes: dict[str, str]
    scopes: dict[str, str]
    params: dict[str, int] = field(default_factory=dict)
    tags: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)    # entries of each list operand
    spare: bool = False                      # leave one alignment unit per operand (to misalign one)
    frame: Frame | None = None               # what its form, dtypes, scopes and counts fix (frame_of)
    landing: dict[str, int] = field(default_factory=dict)   # bytes from its base an operand keeps (landing_room)

    def count(self, op: str) -> int:
        return self.counts.get(op, 1)

    @property
    def template(self) -> Call | None:
        """The probe call the index math is asked about (once the draft has its frame)."""
        return self.frame.template if self.frame is not None else None


def frame_of(env: Env, draft: Draft) -> Frame:
    """The draft's frame, shared by every draft of the same form, dtypes, scopes and counts."""
    if draft.frame is None:
        draft.frame = env.frame(draft.form, draft.dtypes, draft.scopes, draft.counts)
    return draft.frame


def landing_room(env: Env, draft: Draft, target: Rule | None) -> dict[str, int]:
    """The bytes from its base each operand keeps to itself for the target's sake (RuleKind.landing_room)."""
    return kind_of(target).landing_room(target, env, lambda: frame_of(env, draft).units["element"])


def operand_end(draft: Draft, op: str, runs: Any) -> int:
    """How far from its address an operand reaches: its footprint's end, or the end of its landing room."""
    end = _end(runs)
    if op in draft.landing:
        end = max(end, runs.begin + draft.landing[op])
    return end


def accesses(env: Env, draft: Draft, params: Mapping[str, int], plain: bool = False) -> dict[str, Any]:
    """The operands' footprints with `params`, each as far as any reading of an ambiguity reaches (`plain`:
    as the oracle's check sees them, offset-addressed ones None)."""
    frame = frame_of(env, draft)
    math_ = frame.math
    call = frame.template.replace(**(nest(params) if env.nested else params))
    if plain:
        return math_.accesses(call, frame.units)

    def sized(units: Mapping[str, int]) -> dict[str, Any]:
        acc = math_.accesses(call, units)
        if None in acc.values():        # offset-addressed: size it as if offsets were 0, w, 2w...
            acc.update(math_.nominal(call, units))
        return acc
    return _furthest(sized, frame)


def extents(env: Env, draft: Draft, params: Mapping[str, int]) -> dict[str, Any]:
    """accesses' ends and bytes moved, all that sizing reads: in closed form where the index math gives
    them (`extents`: Scatter's and asc_gather's repeat forms would build their element arrays)."""
    frame = frame_of(env, draft)
    closed = getattr(frame.math, "extents", None)
    if closed is None:
        return accesses(env, draft, params)
    call = frame.template.replace(**(nest(params) if env.nested else params))
    return _furthest(lambda units: closed(call, units), frame)


def _furthest(footprints: Any, frame: Frame) -> dict[str, Any]:
    """`footprints(units)` by the frame's units, each operand's replaced by a reading's where that
    reaches further (an ambiguity's call: the operands are sized for every reading)."""
    acc = footprints(frame.units)
    for units in frame.variant_units:
        other = footprints(units)
        acc = {op: other[op] if _end(other[op]) > _end(runs) else runs for op, runs in acc.items()}
    return acc


def _end(runs: Any) -> int:
    return max((r.end for r in set(runs)), default=0) if isinstance(runs, list) else runs.end


def operand_ends(acc: Mapping[str, Any]) -> dict[str, int]:
    """Per operand: one past the last byte one of its tensors touches, from its address (a list
    operand: the furthest of its entries)."""
    return {op: _end(runs) for op, runs in acc.items()}


def entry_unit(runs: Any, align: int) -> int:
    """How far apart the entries of a list operand sit at least: one entry's run (a block), aligned."""
    length = max((r.length for r in set(runs)), default=0) if isinstance(runs, list) else 0
    return round_up(max(length, 1), align)


def scope_capacity(env: Env, draft: Draft, scope: str) -> int:
    """The bytes of `scope` the generators use: less what an ambiguity reserves at its top for calls
    like this one (vec_trans_scatter's 11 KB for 32-bit types)."""
    frame = frame_of(env, draft)
    if scope in frame.capacities:           # the frame's dtypes and scopes are fixed: once per scope
        return frame.capacities[scope]
    cap = env.capacity(scope)
    for amb in env.spec.ambiguities:
        reserves = [kind_of(t).reserved(t) for t in amb.checks if draft.scopes.get(t.get("operand")) == scope]
        reserves = [r for r in reserves if r is not None]
        if reserves and any(env.rulebook.matches(r, frame.template, env.spec) for r in amb.regions):
            cap = min(cap, env.capacity(scope) - max(reserves))
    frame.capacities[scope] = cap
    return cap


def _key(params: Mapping[str, Any]) -> tuple:
    """The parameters as a key; mask words (lists) as tuples."""
    key = tuple(params.items())
    try:
        hash(key)
    except TypeError:
        key = tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in params.items())
    return key


# Results worked out already, by (frame, what, parameters): the calls of a frame share the parameters drawn
# first (the largest fit of the first one drawn is the same for all of them), and Hypothesis replays what
# and shrinks (most of the rooms asked for in a ci run). At most REMEMBERED_MAX (~20 MB), then forgotten.
_REMEMBERED: dict[tuple, Any] = {}
REMEMBERED_MAX = 1 << 15


def _remember(key: tuple, value: Any) -> None:
    if len(_REMEMBERED) >= REMEMBERED_MAX:
        _REMEMBERED.clear()
    _REMEMBERED[key] = value


def _rooms(env: Env, draft: Draft, params: Mapping[str, int], aligns: Mapping[str, int]) -> tuple[int, ...]:
    """Bytes to spare under each limit of the call (see _rooms_of), remembered where `aligns` are the
    frame's own."""
    frame = frame_of(env, draft)
    if aligns is not frame.aligns:
        return _rooms_of(env, draft, params, aligns)
    key = (frame, "rooms", draft.spare, tuple(draft.landing.items()), _key(params))
    rooms = _REMEMBERED.get(key)
    if rooms is None:
        rooms = _rooms_of(env, draft, params, aligns)
        _remember(key, rooms)
    return rooms


def _rooms_of(env: Env, draft: Draft, params: Mapping[str, int], aligns: Mapping[str, int]) -> tuple[int, ...]:
    """Bytes to spare (negative: over) under each limit: first the bytes one run may move (MOVED_BYTES),
    then each scope's capacity in the order of the operands. Each operand is rounded to its scope's
    alignment (plus one spare unit when an align rule is to be broken: room to misalign it); the entries
    of a list operand sit one entry's run apart at least."""
    moved = 0                           # bytes moved (never negative): the most any run of an operand moves
    used: dict[str, int] = {}
    for op, runs in extents(env, draft, params).items():
        if isinstance(runs, list):
            moved = max(moved, max((r.nbytes for r in set(runs)), default=0))
        else:
            moved = max(moved, runs.nbytes)
        scope = draft.scopes[op]
        align = aligns[scope]
        end = operand_end(draft, op, runs)
        count = draft.counts.get(op, 1)
        if count != 1:                  # entries an entry's run apart (or in lanes: apart.py)
            end = spread_end(env, op, runs, count, entry_unit(runs, align), end)
        used[scope] = used.get(scope, 0) + round_up(end, align) + align * draft.spare
    return (MOVED_BYTES - moved, *(scope_capacity(env, draft, s) - n for s, n in used.items()))


def fits(env: Env, draft: Draft, params: Mapping[str, int], aligns: Mapping[str, int]) -> bool:
    """Does every operand fit its scope, and no run move more than MOVED_BYTES (overlapping rows can
    move far more than their footprint holds)?"""
    return min(_rooms(env, draft, params, aligns)) >= 0


def _largest_fit(env: Env, draft: Draft, params: dict[str, int], name: str, lo: int, hi: int,
                 aligns: Mapping[str, int]) -> int | None:
    """The largest value of `name` in [lo, hi] whose call still fits its scopes (others held fixed).

    The room under each limit shrinks about linearly in each parameter, so a secant step per limit (UB's
    room may stay flat while GM's runs out) usually lands on the answer (checked with its neighbour);
    rounding to an alignment can leave it short: a gallop up and a bisection finish."""
    def fits_at(v: int) -> bool:
        return min(_rooms(env, draft, {**params, name: v}, aligns)) >= 0
    rooms_hi = _rooms(env, draft, {**params, name: hi}, aligns)
    if min(rooms_hi) >= 0:
        return hi
    rooms_lo = _rooms(env, draft, {**params, name: lo}, aligns) if lo != hi else rooms_hi
    if min(rooms_lo) < 0:
        return None
    # where each limit that hi breaks runs out (a >= 0 > b: in [lo, hi - 1]); the first of them binds
    guess = min(lo + a * (hi - lo) // (a - b) for a, b in zip(rooms_lo, rooms_hi) if b < 0)
    if fits_at(guess):
        if not fits_at(guess + 1):
            return guess
        lo, step = guess + 1, 1         # rounding made it fit further: gallop up, then bisect
        while lo + step < hi and fits_at(lo + step):
            lo, step = lo + step, step * 2
        hi = min(hi, lo + step)
    else:
        hi = guess
    while hi - lo > 1:          # fits_at(lo), not fits_at(hi)
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits_at(mid) else (lo, mid)
    return lo


@dataclass
class Start:
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


def starting_point(pick: Picks, env: Env, draft: Draft, target: Rule | None) -> Start:
    frame = frame_of(env, draft)
    names, aligns = frame.names, frame.aligns
    domains, ends = _domains_and_ends(env, frame, target)
    params: dict[str, Any] = draw_words(pick, frame.word_rules, draft.tags, target)
    for n in names:
        require(domains[n])
        params[n] = domains[n][0][0]
    empties: set[str] = set()
    for n in names:     # a count at 0 (ndNum, repeatTimes) empties every footprint and would let the
        lo = params[n]  # parameters drawn before it grow without bound: size them against 1 instead
        if lo == 0 and any(a <= 1 <= b for a, b in domains[n]) and _moves_nothing(env, draft, params):
            if not _moves_nothing(env, draft, {**params, n: 1}):
                params[n] = 1
                empties.add(n)
    return Start(names, domains, ends, aligns, params, empties)


def fit_tops(env: Env, form: str | None, dtype: str, path: str | None, pick: Picks
             ) -> dict[str, tuple[int, int, int | None, dict[str, int]]]:
    """For a legal call of this form, dtype and path, each parameter's (lowest, highest legal value,
    largest value that fits its scopes with every other parameter at its start, the other parameters'
    values that differ from their lowest there): what a sweep must reach and how. At its start a count
    that would empty every footprint is 1, and a parameter that would put the call in an ambiguity region
    with this one at its top is just outside it. `pick` answers the mask words (they size footprints).
    Empty when no call starts here."""
    draft = Draft(form, env.operand_dtypes(dtype), env.operand_scopes(path))
    draft.counts = {op: d["entries"] for op, d in env.spec.operands.items() if "entries" in d}
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
        top = _largest_fit(env, draft, params, n, ends[0], ends[1], start.aligns)
        if top is not None:
            moved = {**params, n: top}
            _stay_out(env, draft, moved, None, start.domains, keep=n)
            if moved != {**params, n: top}:
                params = {**moved, n: params[n]}
                top = _largest_fit(env, draft, params, n, ends[0], ends[1], start.aligns)
        lows = {m: d[0][0] for m, d in start.domains.items() if d}
        adjust = {m: v for m, v in params.items() if m != n and m in lows and v != lows[m]}
        out[n] = (ends[0], ends[1], None if top is None else top // step * step, adjust)
    return out


def draw_params(pick: Picks, env: Env, draft: Draft, target: Rule | None) -> None:
    start = starting_point(pick, env, draft, target)
    names, domains, ends, aligns = start.names, start.domains, start.ends, start.aligns
    params, empties = start.params, start.empties
    kind = kind_of(target)
    forced = kind.forced_param(target)
    pushed_down = False
    moving = kind.moves_bytes           # a call that moves nothing breaks none of its rules
    fit_top: dict[str, int] = {}        # the largest value that fitted, where one was searched for
    if forced is not None:
        params[forced], tag = kind.outside(target, pick, draft.frame.steps.get(forced, 1),
                                           lambda v: fits(env, draft, {**params, forced: v}, aligns))
        draft.tags.append(tag)
    for n in rotated(pick, names):
        if n == forced:
            continue
        step = draft.frame.steps[n]
        if step > 1:                # drawn as a count of `step`s, so that every value is a multiple
            scaled = [(-(-lo // step), hi // step) for lo, hi in domains[n] if -(-lo // step) <= hi // step]
            require(scaled)
            lo, hi = pick.choice(scaled, f"{n}.interval")
            top = _largest_fit(env, draft, params, n, lo * step, hi * step, aligns)
            require(top is not None and top >= lo * step)
            value, where = pick_between(pick, lo, top // step, n)
            params[n] = value * step
            fit_top[n] = top // step * step
            off = kind.off_step(target, pick, n, value * step, step)
            if off is not None:
                params[n] = off
                draft.tags.append(f"{n}=off-multiple")
                fit_top.pop(n)
            continue
        lo, hi = pick.choice(domains[n], f"{n}.interval")
        if moving and n in empties and hi >= 1:
            lo = max(lo, 1)
        how = "min" if lo == hi else pick.how(n)
        if how == "min":                # the search for the largest fit is needed only above the minimum
            require(fits(env, draft, {**params, n: lo}, aligns))
            top = lo
        else:
            top = _largest_fit(env, draft, params, n, lo, hi, aligns)
            require(top is not None)
        if n in empties and how != "min" and top >= 1:
            lo = 1              # 0 (an empty move) is drawn as the minimum, on purpose; "any" moves data
        params[n], where = pick_as(pick, how if top > lo else "min", lo, top, n)
        if how != "min":
            fit_top[n] = top
        pushed_down |= how != "min" and top == lo == 0
    if pushed_down:     # a call that moves nothing (ndNum = 0) is drawn on purpose, not for want of room
        require(not _moves_nothing(env, draft, params))
    if forced is not None:
        one_repeat([n for n in draft.frame.names if draft.frame.steps[n] == 1], params, forced, domains,
                   lambda p: reaches_below(env, accesses(env, draft, p)))
    _stay_out(env, draft, params, forced, domains, aligns=aligns)
    if target is not None:
        _stay_out(env, draft, params, forced, domains, aligns=aligns, regions=overriding(env, target))
    keep_apart(env, draft, params, domains, forced, target, lambda p: accesses(env, draft, p),
               lambda p: fits(env, draft, p, aligns))
    for n in names:     # tags from the final values: each says one thing (see _edge_of)
        if n != forced and ends[n] is not None:
            where = _edge_of(params[n], ends[n], fit_top.get(n))
            if where is not None:
                draft.tags.append(f"{n}={where}")
    for n in names:
        if env.spec.params[n].get("type") == "bool":
            params[n] = bool(params[n])
    draft.params = params


def _legal_ends(domain: list[tuple[int, int]], step: int) -> tuple[int, int] | None:
    """The lowest and highest legal value of a parameter: the ends of its domain (its range rules less
    the ambiguity regions cut out of it), on its multiples."""
    if not domain:
        return None
    lo, hi = -(-domain[0][0] // step) * step, domain[-1][1] // step * step
    return (lo, hi) if lo <= hi else None


def _edge_of(value: int, ends: tuple[int, int], fit_top: int | None) -> str | None:
    """The tag a parameter's value earns: `min` / `max` at the lowest / highest legal value, and
    `largest-fit` at the largest value that fitted the scopes when that is below the highest one."""
    if value == ends[0]:
        return "min"
    if value == ends[1]:
        return "max"
    if fit_top is not None and value == fit_top:
        return "largest-fit"
    return None


def _moves_nothing(env: Env, draft: Draft, params: Mapping[str, Any]) -> bool:
    """Does every operand's footprint come out empty (remembered, as rooms are)?"""
    key = (frame_of(env, draft), "empty", _key(params))
    if key not in _REMEMBERED:
        _remember(key, all(r.empty for rs in accesses(env, draft, params).values()
                           for r in (rs if isinstance(rs, list) else [rs]) if r is not None))
    return _REMEMBERED[key]


def _stay_out(env: Env, draft: Draft, params: dict[str, int], forced: str | None,
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
        if call is None:
            call = draft.template.replace(**nest(params))
        if not env.rulebook.matches(region, call, env.spec):
            continue
        moves = [(name, v) for name in reversed(names) if name != keep
                 for v in _outside(region["params"][name], domains.get(name, ()))]
        if aligns is not None:
            moves = [m for m in moves if fits(env, draft, {**params, m[0]: m[1]}, aligns)] + moves
        if moves:
            params[moves[0][0]], call = moves[0][1], None


def _outside(interval: tuple[int, int], domain: Any) -> list[int]:
    """The values just below and just above `interval` that are in `domain`."""
    lo, hi = interval
    return [v for v in (lo - 1, hi + 1) if any(a <= v <= b for a, b in domain)]
