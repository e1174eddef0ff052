"""Does a call fit its scopes, and how large can a parameter grow before it does not: the bytes to
spare under each limit (MOVED_BYTES, each scope's capacity), remembered per frame and parameters."""
from __future__ import annotations

from typing import Any, Mapping

from conformance.generate.apart import spread_end
from conformance.generate.draft import CallDraft, entry_unit, extents, accesses, frame_of, operand_end, scope_capacity
from conformance.generate.environment import MOVED_BYTES, Env, round_up


def _key(params: Mapping[str, Any]) -> tuple:
    """The parameters as a key; mask words (lists) as tuples."""
    key = tuple(params.items())
    try:
        hash(key)
    except TypeError:
        key = tuple((k, _frozen(v)) for k, v in params.items())
    return key


def _frozen(value: Any) -> Any:
    """A list (of words, or of structs) as nested tuples."""
    if isinstance(value, list):
        return tuple(map(_frozen, value))
    if isinstance(value, dict):
        return tuple(value.items())
    return value


# Results worked out already, by (frame, what, parameters): the calls of a frame share the parameters drawn
# first (the largest fit of the first one drawn is the same for all of them), and Hypothesis replays what
# and shrinks (most of the rooms asked for in a ci run). At most REMEMBERED_MAX (~20 MB), then forgotten.
_REMEMBERED: dict[tuple, Any] = {}
REMEMBERED_MAX = 1 << 15


def _remember(key: tuple, value: Any) -> None:
    if len(_REMEMBERED) >= REMEMBERED_MAX:
        _REMEMBERED.clear()
    _REMEMBERED[key] = value


def _spare_bytes(env: Env, draft: CallDraft, params: Mapping[str, int], aligns: Mapping[str, int]) -> tuple[int, ...]:
    """Bytes to spare under each limit of the call (see _spare_bytes_of), remembered where `aligns` are the
    frame's own."""
    frame = frame_of(env, draft)
    if aligns is not frame.aligns:
        return _spare_bytes_of(env, draft, params, aligns)
    key = (frame, "rooms", draft.spare, tuple(draft.landing.items()), draft.parted, _key(params))
    rooms = _REMEMBERED.get(key)
    if rooms is None:
        rooms = _spare_bytes_of(env, draft, params, aligns)
        _remember(key, rooms)
    return rooms


def _spare_bytes_of(env: Env, draft: CallDraft, params: Mapping[str, int], aligns: Mapping[str, int]) -> tuple[int, ...]:
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


def fits(env: Env, draft: CallDraft, params: Mapping[str, int], aligns: Mapping[str, int]) -> bool:
    """Does every operand fit its scope, and no run move more than MOVED_BYTES (overlapping rows can
    move far more than their footprint holds)?"""
    return min(_spare_bytes(env, draft, params, aligns)) >= 0


def largest_fit(env: Env, draft: CallDraft, params: dict[str, int], name: str, lo: int, hi: int,
                 aligns: Mapping[str, int]) -> int | None:
    """The largest value of `name` in [lo, hi] whose call still fits its scopes (others held fixed).

    The room under each limit shrinks about linearly in each parameter, so a secant step per limit (UB's
    room may stay flat while GM's runs out) usually lands on the answer (checked with its neighbour);
    rounding to an alignment can leave it short: a gallop up and a bisection finish."""
    def fits_at(v: int) -> bool:
        return min(_spare_bytes(env, draft, {**params, name: v}, aligns)) >= 0
    rooms_hi = _spare_bytes(env, draft, {**params, name: hi}, aligns)
    if min(rooms_hi) >= 0:
        return hi
    rooms_lo = _spare_bytes(env, draft, {**params, name: lo}, aligns) if lo != hi else rooms_hi
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


def moves_nothing(env: Env, draft: CallDraft, params: Mapping[str, Any]) -> bool:
    """Does every operand's footprint come out empty (remembered, as rooms are)?"""
    key = (frame_of(env, draft), "empty", _key(params))
    if key not in _REMEMBERED:
        _remember(key, all(r.empty for rs in accesses(env, draft, params).values()
                           for r in (rs if isinstance(rs, list) else [rs]) if r is not None))
    return _REMEMBERED[key]
