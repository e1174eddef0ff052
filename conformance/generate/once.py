"""Drawing an operand that must write each byte once (a self_overlap rule that holds for every call, where
its index math names the operand in SEARCHED_APART) without drawing calls that break it: the last
parameter drawn that its footprint reads is moved off a value at which it writes a byte twice, to a near
one where it does not (found by evaluating the footprint at candidate values, as largest_fit finds a
room), and where the ones drawn before had decided it already, the latest of them that can part it is
moved so (parameters.ParameterDraw). Where none is found the call is given up once drawn (strategies.py).
The same search draws the operand of a self_overlap target writing a byte twice: toward rows that meet."""
from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from conformance.generate.draft import CallDraft, accesses, frame_of, plain_accesses_along, writes_twice
from conformance.generate.environment import Env
from conformance.generate.sizing import remembered


def bearing(env: Env, draft: CallDraft, params: Mapping[str, Any], order: Sequence[str],
            ops: Sequence[str]) -> list[str]:
    """The parameters of `order`, in that order, whose value changes the footprint of one of `ops` (from
    `params`, where the drawing starts), found once per frame and start."""
    bears = remembered(frame_of(env, draft), "bears", params, lambda: _bearing(env, draft, params, order, ops),
                       tuple(sorted(order)), tuple(ops))
    return [n for n in order if n in bears]


def _bearing(env: Env, draft: CallDraft, params: Mapping[str, Any], names: Sequence[str],
             ops: Sequence[str]) -> frozenset[str]:
    """The parameters of `names` that change a footprint of `ops` when moved one step up from `params`."""
    base, steps = accesses(env, draft, params, plain=True), frame_of(env, draft).steps
    out = set()
    for n in names:
        moved = accesses(env, draft, {**params, n: params[n] + steps[n]}, plain=True)
        if any(moved.get(op) != base.get(op) for op in ops):
            out.add(n)
    return frozenset(out)


def written_once_at(env: Env, draft: CallDraft, params: Mapping[str, Any], name: str, ops: Sequence[str],
                    step: int = 1, twice: Sequence[str] = ()) -> Callable[[int], bool]:
    """k -> does no operand of `ops` write a byte twice with `name` at k steps (others as in `params`),
    and every operand of `twice` (a self_overlap target's) write one twice?"""
    along = plain_accesses_along(env, draft, params, name)

    def once(k: int) -> bool:
        acc = along(k * step)
        return not any(writes_twice(acc.get(op)) for op in ops) and all(writes_twice(acc.get(op)) for op in twice)
    return once


def nearest_once(once: Callable[[int], bool], value: int, lo: int, hi: int, upward_first: bool,
                 top: Callable[[], int | None]) -> int:
    """A value near `value` (where `once` fails) in [lo, hi] where it holds, looked for on one side first
    (upward_first: above), then on the other; `value` itself where neither side has one. A side is looked
    at only where `once` holds at its far end (a count that only adds bytes that meet has none above),
    and above `value` only up to top() (the largest value that fits its scopes). Where `once` holds there
    a bisection between `value` and that end finds a value where it holds next to one where it fails;
    otherwise a gallop from `value` (_gallop)."""
    for end in ((hi, lo) if upward_first else (lo, hi)):
        if end == value or not once(end):
            continue
        if end > value:
            fit = top()
            if fit is None or fit <= value:
                continue
            if fit != end and not once(fit):
                found = _gallop(once, value, fit)
                if found is not None:
                    return found
                continue
            end = fit
        return _bisect(once, value, end)
    return value


def _bisect(once: Callable[[int], bool], failed: int, held: int) -> int:
    """A value between `failed` (where `once` fails) and `held` (where it holds) where it holds, next to
    one where it fails."""
    while abs(held - failed) > 1:
        mid = (held + failed) // 2
        if once(mid):
            held = mid
        else:
            failed = mid
    return held


def _gallop(once: Callable[[int], bool], start: int, end: int) -> int | None:
    """A value between `start` (where `once` fails) and `end` where it holds, the first after a failing
    one: steps of 1, 2, 4... toward `end`, then a bisection between the last two tried."""
    if start == end:
        return None
    way = 1 if end > start else -1
    failed, stride = start, 1
    while True:
        at = start + way * stride
        if (at - end) * way >= 0:
            at = end
        if once(at):
            break
        if at == end:
            return None
        failed, stride = at, stride * 2
    return _bisect(once, failed, at)
