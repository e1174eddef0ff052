"""Does a call fit its scopes, and how large can a parameter grow before it does not: the bytes to
spare under each limit (MOVED_BYTES, each scope's capacity), remembered per frame and parameters."""
from __future__ import annotations

from typing import Any, Callable, Mapping

from conformance.generate.apart import kept_apart_ops, spread_end
from conformance.generate.draft import (CallDraft, accesses, entry_unit, extents, frame_of, operand_end, parted_call,
                                        scope_capacity)
from conformance.generate.environment import MOVED_BYTES, Env, round_up


def _key(params: Mapping[str, Any], unread: frozenset[str] = frozenset()) -> tuple:
    """The parameters as a key, less those in `unread`; mask words (lists) as tuples."""
    key = tuple(params.items()) if not unread else tuple(kv for kv in params.items() if kv[0] not in unread)
    if _UNHASHABLE.isdisjoint(map(type, params.values())):
        return key
    return tuple([(k, _frozen(v)) if type(v) in _UNHASHABLE else (k, v) for k, v in key])


_UNHASHABLE = frozenset({list, dict})       # what _frozen makes hashable (told by type, not by hashing)


def _frozen(value: Any) -> Any:
    """A list (of words, or of structs) as nested tuples."""
    if isinstance(value, list):         # mask words: ints alone, the usual case, as they are
        return tuple(value) if _UNHASHABLE.isdisjoint(map(type, value)) else tuple(map(_frozen, value))
    if isinstance(value, dict):
        return tuple(value.items())
    return value


# Results worked out already, by (frame, what, parameters): the calls of a frame share the parameters drawn
# first (the largest fit of the first one drawn is the same for all of them), and Hypothesis replays what
# and shrinks (most of the rooms asked for in a ci run). At most REMEMBERED_MAX (some tens of MB), then forgotten.
_REMEMBERED: dict[tuple, Any] = {}
REMEMBERED_MAX = 1 << 15
_MISSING = object()


def _remember(key: tuple, value: Any) -> None:
    if len(_REMEMBERED) >= REMEMBERED_MAX:
        _REMEMBERED.clear()
    _REMEMBERED[key] = value


def remembered(frame: Any, what: str, params: Mapping[str, Any], make: Callable[[], Any], *more: Any) -> Any:
    """`make()`, remembered by (frame, what, the parameters' key, *more): a result the parameters of one
    frame decide alone."""
    key = (frame, what, _key(params), *more)
    value = _REMEMBERED.get(key, _MISSING)
    if value is _MISSING:
        value = make()
        _remember(key, value)
    return value


def _spare_bytes(env: Env, draft: CallDraft, params: Mapping[str, int], aligns: Mapping[str, int],
                 keyed: tuple | None = None) -> tuple[int, ...]:
    """Bytes to spare under each limit of the call (see _spare_bytes_of), remembered where `aligns` are the
    frame's own. `keyed`: the parameters' _key, where the caller has it."""
    frame = frame_of(env, draft)
    if aligns is not frame.aligns:
        return _spare_bytes_of(env, draft, params, aligns)
    key = (*_sized_as(frame, draft), _key(params, unread(frame)) if keyed is None else keyed)
    rooms = _REMEMBERED.get(key)
    if rooms is None:
        rooms = _spare_bytes_of(env, draft, params, aligns)
        _remember(key, rooms)
    return rooms


def _sized_as(frame: Any, draft: CallDraft) -> tuple:
    """What besides the parameters decides a call's rooms: its frame and the draft's spare unit, landing
    rooms and parted operands (the head of every key the rooms are remembered by)."""
    return frame, "rooms", draft.spare, tuple(draft.landing.items()), draft.parted


def unread(frame: Any) -> frozenset[str]:
    """The parameters no footprint of the frame's index math reads (its UNSIZED: the value padding holds):
    the rooms are the same whatever they are, so what is remembered is not keyed by them."""
    return getattr(frame.math, "UNSIZED", _NONE)


_NONE: frozenset[str] = frozenset()


def _keys_along(params: Mapping[str, Any], name: str, skip: frozenset[str] = frozenset()) -> Any:
    """v -> the _key of `params` (less `skip`) with `name` at v, made from their _key once (a search asks
    for many v)."""
    base = _key(params, skip)
    at = [k for k in params if k not in skip].index(name) if name in params else len(base)
    before, after = base[:at], base[at + 1:]
    return lambda v: (*before, (name, v), *after)


def _spare_bytes_of(env: Env, draft: CallDraft, params: Mapping[str, int], aligns: Mapping[str, int],
                    packed: bool = False) -> tuple[int, ...]:
    """Bytes to spare (negative: over) under each limit: first the bytes one run may move (MOVED_BYTES),
    then each scope's capacity in the order of the operands. Each operand is rounded to its scope's
    alignment (plus one spare unit when an align rule is to be broken: room to misalign it); the entries
    of a list operand sit one entry's run apart at least (`packed`: so, even where they are kept apart in
    lanes, which never put them closer)."""
    moved = 0                           # bytes moved (never negative): the most any run of an operand moves
    used: dict[str, int] = {}
    ends: list[Any] = []               # (scope, end before rounding, alignment) per operand, flat
    scopes, spare, landing, counts = draft.scopes, draft.spare, draft.landing, draft.counts
    for op, runs in extents(env, draft, params).items():
        scope = scopes[op]
        align = aligns[scope]
        if type(runs) is list and op not in landing:         # _list_end's reach, each entry's runs read once
            end, nbytes, length = _reach(runs)
            count = counts.get(op, 1)
            if count != 1:
                unit = round_up(max(length, 1), align)
                end = spread_end(env, op, runs, count, unit, end, packed)
            moved = nbytes if nbytes > moved else moved
        elif type(runs) is list or op in landing or op in counts:
            end = _list_end(env, draft, op, runs, align, packed)
            moved = max(moved, max((r.nbytes for r in set(runs)), default=0) if type(runs) is list else runs.nbytes)
        else:                           # one tensor, no landing room: its end and bytes moved as they are
            end, nbytes = runs.end, runs.nbytes
            end = end if end > 0 else 0
            moved = nbytes if nbytes > moved else moved
        used[scope] = used.get(scope, 0) - (-end // align) * align + align * spare
        ends += scope, end, align
    caps = frame_of(env, draft).capacities      # each scope's, once worked out (scope_capacity)
    rooms = Rooms((MOVED_BYTES - moved, *[(caps[s] if s in caps else scope_capacity(env, draft, s)) - n
                                          for s, n in used.items()]))
    rooms.ends = ends
    return rooms


class Rooms(tuple[int, ...]):
    """The bytes to spare under each limit (_spare_bytes_of), with what the scopes' rooms were rounded from:
    `ends`, per operand in turn, its scope, its end before rounding and the alignment it is rounded up to
    (one flat list: a search keeps thousands). The scopes' rooms follow MOVED_BYTES' in the order the
    scopes first appear there."""

    ends: list[Any]


def _reach(runs: list) -> tuple[int, int, int]:
    """The furthest end, most bytes moved and longest run of a list operand's entries (0 where it has
    none), as operand_end, entry_unit and the bytes moved read them; most lists hold one footprint for
    every entry, told without hashing each."""
    if runs and runs.count(runs[0]) == len(runs):
        one = runs[0]
        return one.end, one.nbytes, one.length
    distinct = set(runs)
    return (max((r.end for r in distinct), default=0), max((r.nbytes for r in distinct), default=0),
            max((r.length for r in distinct), default=0))


def _list_end(env: Env, draft: CallDraft, op: str, runs: Any, align: int, packed: bool = False) -> int:
    """How far an operand of several entries, or with a landing room, reaches from its address (`packed`:
    its entries one entry's run apart even where they are kept apart in lanes)."""
    end = operand_end(draft, op, runs)
    count = draft.counts.get(op, 1)
    if count != 1:                      # entries an entry's run apart (or in lanes: apart.py)
        end = spread_end(env, op, runs, count, entry_unit(runs, align), end, packed)
    return end


def fits(env: Env, draft: CallDraft, params: Mapping[str, int], aligns: Mapping[str, int]) -> bool:
    """Does every operand fit its scope, and no run move more than MOVED_BYTES (overlapping rows can
    move far more than their footprint holds)?"""
    return min(_spare_bytes(env, draft, params, aligns)) >= 0


def largest_fit(env: Env, draft: CallDraft, params: dict[str, int], name: str, lo: int, hi: int,
                 aligns: Mapping[str, int], step: int = 1) -> int | None:
    """The largest value of `name` in [lo, hi] whose call still fits its scopes (others held fixed); with
    `step`, the largest multiple of it (a parameter drawn as a count of steps): the search walks the
    multiples alone, where a room that changes once a step (dValue's column blocks) would be flat between
    them and lead the secant astray.

    The room under each limit shrinks about linearly in each parameter, so a secant step per limit (UB's
    room may stay flat while GM's runs out) usually lands on the answer (checked with its neighbour);
    rounding to an alignment, or an empty footprint at `lo`, can leave it off: the step is taken again
    from the values checked (SECANT_STEPS times), then a gallop up and a bisection finish (a bisection
    alone below a last guess that overshot: the answer lies close under it). The answer is remembered as
    the rooms are, by everything that decides them but `name`'s own value (the calls of a frame search
    the same first parameter from the same start).

    Where a list operand's entries are kept apart in lanes (apart.py) the room falls and rises again:
    how many lanes a stride leaves changes with it (vec_trans_scatter's dst_rep_stride, in the stretch
    where fewer lanes than entries make a second group), and the search can stop at the first edge.
    There the same search with the entries packed, which they never pass (every larger value is too
    large for them), bounds the answer, and the values from that bound down are tried in turn (at most
    LANE_TRIES; past that the first search's answer stands)."""
    frame = frame_of(env, draft)
    lo, hi = -(-lo // step), hi // step         # the counts of steps searched
    if lo > hi:
        return None
    skip = unread(frame)
    if name in skip:            # the rooms are flat in it: hi fits where any value does
        return hi * step if min(_spare_bytes(env, draft, params, aligns)) >= 0 else None
    keyed = _keys_along(params, name, skip)
    if aligns is not frame.aligns:
        found = _fit(env, draft, params, name, lo, hi, aligns, keyed, step)
        return None if found is None else found * step
    sized_as = _sized_as(frame, draft)
    key = (*sized_as, "fit", name, lo, hi, step, keyed(_MISSING))
    top = _REMEMBERED.get(key, _MISSING)
    if top is _MISSING:
        found = _fit(env, draft, params, name, lo, hi, aligns, keyed, step, sized_as)
        top = None if found is None else found * step
        _remember(key, top)
    return top


def _fit(env: Env, draft: CallDraft, params: dict[str, int], name: str, lo: int, hi: int,
         aligns: Mapping[str, int], keyed: Callable[[int], tuple], step: int, sized_as: tuple | None = None
         ) -> int | None:
    """largest_fit's answer as a count of steps, worked out (`sized_as`: the head of the rooms' keys,
    where `aligns` are the frame's own): the search, then past a gap of lanes."""
    rooms = _rooms_along(env, draft, params, name, aligns, keyed, sized_as, step=step)
    lanes = any(draft.counts.get(op, 1) != 1 for op in kept_apart_ops(env))
    # the gallop's first step, an alignment's worth, only where the rooms fall all along (not in lanes)
    found = _search(env, draft, params, name, lo, hi, rooms, step, 0 if lanes else max(aligns.values(), default=1))
    if found is None or found == hi or not lanes:
        return found
    if _lanes_alike(env, draft, params, name, found + 1, hi, step):
        return found
    packed = _rooms_along(env, draft, params, name, aligns, keyed, sized_as, packed=True, step=step)
    bound = _search(env, draft, params, name, found, hi, packed, step)
    if bound is None or bound - found > LANE_TRIES:
        return found
    return next((v for v in range(bound, found, -1) if min(rooms(v)) >= 0), found)


LANE_TRIES = 256


def _lanes_alike(env: Env, draft: CallDraft, params: dict[str, int], name: str, lo: int, hi: int, step: int) -> bool:
    """Are the footprints of the operands kept apart in lanes the same with `name` at lo and at hi steps
    (vec_trans_scatter's dst, whatever src_rep_stride is)? Their lanes then stay as they are from lo to hi
    (the footprints are affine in each parameter), the other operands only grow, and the room only falls:
    nothing past the first search's answer fits."""
    kept = [op for op in kept_apart_ops(env) if draft.counts.get(op, 1) != 1]
    low = accesses(env, draft, {**params, name: lo * step})
    high = accesses(env, draft, {**params, name: hi * step})
    return all(low.get(op) == high.get(op) for op in kept)


def _rooms_along(env: Env, draft: CallDraft, params: dict[str, int], name: str, aligns: Mapping[str, int],
                 keyed: Callable[[int], tuple], sized_as: tuple | None, packed: bool = False, step: int = 1
                 ) -> Callable[[int], tuple[int, ...]]:
    """k -> the rooms of `params` with `name` at k steps (_spare_bytes_of), remembered under `sized_as`."""
    get = _REMEMBERED.get
    head = sized_as if not packed or sized_as is None else (*sized_as, "packed")

    def rooms(k: int) -> tuple[int, ...]:
        v = k * step
        if head is None:
            return _spare_bytes_of(env, draft, {**params, name: v}, aligns, packed)
        key = (*head, keyed(v))
        found = get(key)
        if found is None:
            found = _spare_bytes_of(env, draft, {**params, name: v}, aligns, packed)
            _remember(key, found)
        return found
    return rooms


def _search(env: Env, draft: CallDraft, params: dict[str, int], name: str, lo: int, hi: int,
            rooms: Callable[[int], tuple[int, ...]], step: int = 1, flat: int = 0) -> int | None:
    """The count of steps of `name` in [lo, hi] where `rooms` (bytes to spare under each limit, falling
    with it) runs out: largest_fit's search. `flat`: the most bytes an operand's end may grow by and leave
    the rooms as they are (its scope's alignment, which the rooms round it up to): past the secant steps,
    the gallop's first step is as many steps of `name` as that takes, and a guess that leaves less room
    than that goes to the gallop at once (0: a gallop from one step, the search of rooms that may rise)."""
    rooms_hi = rooms(hi)
    if min(rooms_hi) >= 0:
        return hi
    rooms_lo = rooms(lo) if lo != hi else rooms_hi
    if min(rooms_lo) < 0:
        return None
    least = -(-parted_call(env, draft, {**params, name: lo * step})[1].get(name, lo * step) // step) \
        if draft.parted else lo
    if lo < least < hi:                 # a stride its writes are kept apart by: raised to `least` below it,
        at = rooms(least)               # the room is flat up to there (the secant would read it as a slope)
        if min(at) >= 0:
            lo, rooms_lo = least, at
    top = _crossing(rooms_lo, rooms_hi, lo, hi)
    if top is not None and min(rooms(top)) >= 0 and (top + 1 == hi or min(rooms(top + 1)) < 0):
        return top
    over = False
    for _ in range(SECANT_STEPS):       # fits at lo, not at hi
        if hi - lo == 1:
            return lo
        # where each limit that hi breaks runs out (a >= 0 > b: in [lo, hi - 1]); the first of them binds
        guess = min(lo + a * (hi - lo) // (a - b) for a, b in zip(rooms_lo, rooms_hi) if b < 0)
        over = False
        if guess > lo:
            at = rooms(guess)
            if min(at) < 0:
                hi, rooms_hi, over = guess, at, True
                continue
            lo, rooms_lo = guess, at
            if hi - lo == 1:
                return lo
            if min(at) < flat and _flat_steps(rooms_lo, rooms_hi, hi - lo, flat) > 1:
                break           # less room than one alignment: the answer is within a gallop's first step
        at = rooms(lo + 1)              # the neighbour: is the guess the last value that fits?
        if min(at) < 0:
            return lo
        lo, rooms_lo = lo + 1, at
    step = _flat_steps(rooms_lo, rooms_hi, hi - lo, flat)       # rounding made it fit further still:
    while not over and lo + step < hi and min(rooms(lo + step)) >= 0:
        lo, step = lo + step, step * 2
    hi = hi if over else min(hi, lo + step)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if min(rooms(mid)) >= 0 else (lo, mid)
    return lo


SECANT_STEPS = 2


def _crossing(rooms_lo: tuple[int, ...], rooms_hi: tuple[int, ...], lo: int, hi: int) -> int | None:
    """Where the rooms run out, read from the operands' ends (Rooms.ends), to be checked (it and the step
    after it): under each limit hi breaks, the operands of its scope whose ends grow from lo to hi, each by
    a whole number of bytes a step (affine in it: the same each step), may grow until their ends rounded
    up to their alignment take the room at lo; the least of those. The rounding leaves a room flat for up
    to an alignment's worth of steps, which the secant cannot see into. The bytes moved, not rounded, run
    out where the line from lo to hi does. None where an operand's end shrinks or grows unevenly."""
    ends_lo, ends_hi = getattr(rooms_lo, "ends", None), getattr(rooms_hi, "ends", None)
    if ends_lo is None or ends_hi is None or len(ends_lo) != len(ends_hi) or hi <= lo:
        return None
    scopes, top, span = list(dict.fromkeys(ends_lo[0::3])), hi - 1, hi - lo
    for limit, (room, after) in enumerate(zip(rooms_lo, rooms_hi)):
        if after >= 0:
            continue
        if limit == 0:                  # the bytes moved, not rounded: where the line from lo to hi runs out
            top = min(top, lo + room * span // (room - after))
            continue
        if len(scopes) != len(rooms_lo) - 1:
            return None
        scope = scopes[limit - 1]
        growing = []
        for i in range(0, len(ends_lo), 3):
            s0, e0, align, s1, e1 = *ends_lo[i:i + 3], ends_hi[i], ends_hi[i + 1]
            if s0 == scope and e1 != e0:
                if s1 != scope or e1 < e0 or (e1 - e0) % span:
                    return None
                growing.append((e0, (e1 - e0) // span, align))
        if not growing:
            return None
        top = min(top, lo + _steps_within(growing, room + sum(-(-e0 // a) * a for e0, _, a in growing)))
    return top if top >= lo else None


def _steps_within(growing: list[tuple[int, int, int]], reach: int) -> int:
    """The most steps d with the ends e0 + d * slope of `growing` (e0, slope, alignment), each rounded up
    to its alignment, taking no more than `reach` bytes in all (at least 0 do): found between the steps
    their ends take unrounded and those they take rounded up by a whole alignment each."""
    if len(growing) == 1:               # one end: the furthest multiple of its alignment it may reach
        e0, slope, align = growing[0]
        return max(0, (reach // align * align - e0) // slope)
    slope, base = sum(g[1] for g in growing), sum(g[0] for g in growing)
    lo = max(0, (reach - base - sum(a - 1 for _, _, a in growing)) // slope)
    hi = (reach - base) // slope + 1           # past the largest: the unrounded ends alone take more

    def rounded(d: int) -> int:
        return sum(-(-(e0 + d * s) // a) * a for e0, s, a in growing)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if rounded(mid) <= reach else (lo, mid)
    return lo


def _flat_steps(rooms_lo: tuple[int, ...], rooms_hi: tuple[int, ...], span: int, flat: int) -> int:
    """How many steps the rounding may leave the binding room flat for (at least 1): `flat` bytes over the
    bytes a step takes from it, the slope between lo and hi of the limit that runs out first."""
    a, b = min(((a, b) for a, b in zip(rooms_lo, rooms_hi) if b < 0),
               key=lambda ab: ab[0] * span // (ab[0] - ab[1]))
    return max(1, flat * span // (a - b))


def moves_nothing(env: Env, draft: CallDraft, params: Mapping[str, Any]) -> bool:
    """Does every operand's footprint come out empty (no bytes moved: the closed-form extents tell, where
    the index math has them)? Remembered, as rooms are."""
    def empty() -> bool:
        if getattr(frame_of(env, draft).math, "extents", None) is not None:
            return all(r.nbytes == 0 for rs in extents(env, draft, params, parted=False).values()
                       for r in (rs if isinstance(rs, list) else [rs]))
        return all(r.empty for rs in accesses(env, draft, params).values()
                   for r in (rs if isinstance(rs, list) else [rs]) if r is not None)
    return remembered(frame_of(env, draft), "empty", params, empty)
