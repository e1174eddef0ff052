"""Iterations of the repeat-style instructions: run r of an entry is what its iteration r touches.

For vec_trans_scatter's lists and the repeat forms of Scatter and gather, run r of an operand's Runs is
what iteration r touches. The overlap rules of those pages speak of iterations ("第N次迭代的目的操作数是
第N+1次的源操作数"), so they compare run r of one operand with run r' of another, by arithmetic over the
runs' four integers. Arrays are (iteration, entry of a, entry of b): at most 255 x 16 x 16 values.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from .footprint import Runs
from .run_arithmetic import first_in_blocks, first_same_step, lag_bounds, meets, meets_at_lag, open_from


class Family(NamedTuple):
    """An operand's entries in one scope as columns: run r of entry i starts at base[i] + r * step[i] (base:
    addr + first), length[i] long, count[i] runs. `span`: lowest to highest byte over the live runs (None:
    nothing is touched); `uniform`: one step, count and length for all (list operands: one Runs for all)."""

    base: np.ndarray
    step: np.ndarray
    count: np.ndarray  # type: ignore[assignment]     # a field, not tuple.count
    length: np.ndarray
    span: tuple[int, int] | None
    uniform: bool


def family(entries: Sequence[tuple[int, Runs]]) -> Family:
    """The Family of a non-empty sequence of (addr, Runs), made once per operand and scope where several
    iteration rules compare it (Context.families)."""
    runs = entries[0][1]
    if all(r is runs or r == runs for _, r in entries):
        return _shared(entries, runs)
    base = np.array([addr + r.first for addr, r in entries], dtype=np.int64)
    step, count, length = (np.array([getattr(r, k) for _, r in entries], dtype=np.int64)
                           for k in ("step", "count", "length"))
    return Family(base, step, count, length, _span(base, step, count, length), _uniform(step, count, length))


def _shared(entries: Sequence[tuple[int, Runs]], runs: Runs) -> Family:
    """The Family of entries that all have `runs` (a footprint.Runs: first, step, count, length): step,
    count and length as arrays of one (they broadcast), the span in Python integers (where they are
    exactly what int64 gives)."""
    starts = [addr + runs.first for addr, _ in entries]
    base = np.array(starts, dtype=np.int64)
    step, count, length = (np.array([v], dtype=np.int64) for v in runs[1:])
    span = None
    if runs.count > 0 and runs.length > 0:
        far = runs.step * (runs.count - 1)
        span = min(starts) + min(0, far), max(starts) + max(0, far) + runs.length
        if not -2**62 < span[0] <= span[1] < 2**62:         # past int64's exact range: as _span wraps
            span = _span(base, *(np.full(len(starts), v, dtype=np.int64) for v in runs[1:]))
    return Family(base, step, count, length, span, True)


def lanes_apart(addrs: Sequence[int], step: int, count: int, length: int) -> bool:
    """Do entries at `addrs`, each with `count` runs `step` bytes apart and `length` long, meet no later run
    of any entry? Told where the addresses and the step lie on a grid of the run's length (runs on it meet
    whole or not at all): entries in one residue class of the step need `count` steps between them. False
    where that does not show it."""
    if count <= 1:
        return True
    if step <= 0 or length <= 0 or step % length or any((a - addrs[0]) % length for a in addrs):
        return False
    lanes: dict[int, list[int]] = {}
    for a in addrs:
        lanes.setdefault(a % step, []).append(a // step)
    for q in lanes.values():
        q.sort()
        if any(0 < y - x < count for x, y in zip(q, q[1:])):
            return False
    return True


def iteration_hits(a: Sequence[tuple[int, Runs]], b: Sequence[tuple[int, Runs]], lag: tuple[int, int | None], distinct: bool = False) -> np.ndarray:
    """hits[r, i, j]: run r of entry i of `a` shares a byte with run r' of entry j of `b` for some r'
    with lag[0] <= r' - r <= lag[1] (None: no upper bound). `a`, `b`: sequences of (addr, Runs) in one
    scope. `distinct` leaves out i == j (an operand compared with itself)."""
    if not a or not b:
        return np.zeros((0, len(a), len(b)), dtype=bool)
    return family_hits(family(a), family(b), lag, distinct)


def family_hits(a: Family, b: Family, lag: tuple[int, int | None], distinct: bool = False) -> np.ndarray:
    """iteration_hits of two non-empty Families."""
    hits = some_hits(a, b, lag, distinct)
    return np.zeros((int(a.count.max(initial=0)), len(a.base), len(b.base)), dtype=bool) if hits is None else hits


def some_hits(a: Family, b: Family, lag: tuple[int, int | None], distinct: bool = False) -> np.ndarray | None:
    """family_hits, or None where no run of `a` meets one of `b` (the usual case: no array is made); an
    array it gives holds a hit."""
    if _apart(a, b, lag, distinct):
        return None
    a_base, a_step, a_count, a_len = a.base, a.step, a.count, a.length
    b_base, b_step, b_count, b_len = b.base, b.step, b.count, b.length
    rounds = int(a_count.max(initial=0))
    if _one_step(a, b, lag):
        # one step for all: entry i meets entry j in the same iteration in every iteration or in none
        d = a_base[:, None] - b_base[None, :]
        pair = (d < b_len[None, :]) & (-d < a_len[:, None]) & (a_len > 0)[:, None] & (b_len > 0)[None, :]
        if distinct:
            n = min(len(a_base), len(b_base))
            pair[np.arange(n), np.arange(n)] = False
        if not pair.any():
            return None
        r = np.arange(rounds)[:, None, None]
        hits = pair[None] & (r < a_count[None, :, None]) & (r < b_count[None, None, :])
        return hits if hits.any() else None
    if a.uniform and b.uniform:
        rows, which = _distance_rows(a, b, lag)
        if not rows.any():
            return None
        hits = rows[which.reshape(-1)].T.reshape(rounds, *which.shape)      # a row copy per pair
    else:
        r = np.arange(rounds, dtype=np.int64)[:, None, None]
        x = (a_base[None, :, None] + r * a_step[None, :, None]) - b_base[None, None, :]   # a's run r, from b's base
        hits = meets(x, r, a_len[None, :, None], b_len[None, None, :], b_step[None, None, :],
                     b_count[None, None, :], lag)
        hits &= (r < a_count[None, :, None]) & (a_len > 0)[None, :, None] & (b_len > 0)[None, None, :]
    if distinct:
        n = min(len(a_base), len(b_base))
        hits[:, np.arange(n), np.arange(n)] = False
    return hits if hits.any() else None


def first_meeting(a: Family, b: Family, lag: tuple[int, int | None], distinct: bool = False,
                  identical: bool = False) -> tuple[int, int, int] | None:
    """What an iteration_overlap rule finds (oracle/kinds/iteration_overlap.py): the first (iteration r, entry i of a, entry
    j of b), in that order, at which some_hits holds a hit, less the iterations in which a and b are entry
    for entry the same where `identical` (its `allow: identical`, over all their entries); None where
    nothing is left. Generators steering a call by the rule ask it too.

    Two uniform families are answered without the (iterations, entries, entries) array: at one lag, each
    pair's iterations that meet are an interval (lag_bounds); over a range of lags, the iterations are
    searched from the first, in blocks of 8, 64, 512 (a meeting is most often in the first).

    The answers to the last questions are kept (`_ANSWERED`): a generator steering a call asks what the
    call's check asks next, of the same entries moved together (the answer does not change), and a
    reference in the same process asks it again."""
    if _apart(a, b, lag, distinct):
        return None
    key = _question(a, b, lag, distinct, identical)
    if key is None:
        return _first_meeting(a, b, lag, distinct, identical)
    answer = _ANSWERED.get(key, _ANSWERED)
    if answer is _ANSWERED:
        answer = _first_meeting(a, b, lag, distinct, identical)
        if len(_ANSWERED) >= _KEEP:
            _ANSWERED.clear()
        _ANSWERED[key] = answer
    return answer  # type: ignore[return-value]


_ANSWERED: dict[tuple[object, ...], object] = {}     # question (_question) -> first_meeting's answer
_KEEP = 64


def _question(a: Family, b: Family, lag: tuple[int, int | None], distinct: bool, identical: bool) -> tuple[object, ...] | None:
    """What first_meeting is asked, with a and b moved by the same amount to a's first entry at 0 (every
    answer depends on the entries' distances alone); None where the spans are past the range where that
    holds exactly (int64's wrapping)."""
    if not _small(a, b, 0):
        return None
    low = a.base[0]
    return ((a.base - low).tobytes(), (b.base - low).tobytes(), a.step.tobytes(), a.count.tobytes(),
            a.length.tobytes(), b.step.tobytes(), b.count.tobytes(), b.length.tobytes(), lag, distinct,
            identical, a is b, a.uniform, b.uniform)


def _first_meeting(a: Family, b: Family, lag: tuple[int, int | None], distinct: bool, identical: bool
                   ) -> tuple[int, int, int] | None:
    """first_meeting's answer, worked out."""
    if not (a.uniform and b.uniform) or _one_step(a, b, lag):
        hits = some_hits(a, b, lag, distinct)
        if hits is None:
            return None
        if identical:                   # the iterations left out, asked only where some run meets
            hits = hits & ~families_identical(a, b)[:hits.shape[0], None, None]
            if not hits.any():
                return None
        r, i, j = np.unravel_index(int(hits.argmax()), hits.shape)
        return int(r), int(i), int(j)
    rounds = int(a.count[0])
    runs = _uniform_runs(a, b)
    if runs[1] <= 0 or runs[2] <= 0:
        return None
    d = a.base[:, None] - b.base[None, :]
    diagonal = np.arange(min(d.shape)) if distinct else None
    if lag[0] == lag[1]:
        first, last = lag_bounds(d, rounds, *runs, lag[0])
        at = np.minimum(first, rounds)
        if identical:                   # the first iteration from `first` on that is not left out
            at = _past_identical(a, b, at, rounds)
        at[at > last] = rounds                                          # rounds: the pair never meets
        if diagonal is not None:
            at[diagonal, diagonal] = rounds
    elif runs[0] == runs[3] and not identical:      # one step on both sides: each pair's first in closed form
        at = first_same_step(d, rounds, runs, lag)
        if diagonal is not None:
            at[diagonal, diagonal] = rounds
    else:
        same = families_identical(a, b) if identical else np.zeros(0, dtype=bool)
        at = first_in_blocks(d, rounds, runs, lag, same, diagonal)
        if at is None:
            return None
    first_r = int(at.min(initial=rounds))
    if first_r >= rounds:
        return None
    first_i, first_j = divmod(int((at == first_r).argmax()), int(at.shape[1]))
    return first_r, first_i, first_j


def _past_identical(a: Family, b: Family, at: np.ndarray, rounds: int) -> np.ndarray:
    """`at` (iterations of a, at most `rounds`) moved past the iterations in which two uniform families are
    entry for entry the same (families_identical), told without its array: run r of entry i is the same
    on both sides <=> base_a[i] - base_b[i] == r * (step_b - step_a), with one length, so the runs are the
    same in every iteration (a step difference of 0), in none, or in one, r0 (`at` there moves to r0 + 1)."""
    c = int(b.step[0]) - int(a.step[0])
    if a.base.shape != b.base.shape or not _small(a, b, abs(c) * rounds):     # as the array has it
        moved: np.ndarray = open_from(families_identical(a, b), rounds)[at]
        return moved
    if int(a.length[0]) != int(b.length[0]):
        return at
    apart = a.base - b.base
    v = int(apart[0])
    if not (apart == v).all():
        return at
    if c == 0:
        return at if v else np.full(at.shape, rounds, dtype=at.dtype)
    r0, rest = divmod(v, c)
    if not rest and 0 <= r0 < rounds:
        at[at == r0] = r0 + 1
    return at


def _small(a: Family, b: Family, reach: int) -> bool:
    """Both spans and `reach` well inside int64's exact range (no sum or product the arrays make wraps)."""
    return (a.span is not None and b.span is not None and reach < 2**61
            and -2**61 < min(a.span[0], b.span[0]) and max(a.span[1], b.span[1]) < 2**61)


def _uniform_runs(a: Family, b: Family) -> tuple[int, int, int, int, int]:
    """(a's step, a's length, b's length, b's step, b's count) of two uniform families, as Python ints."""
    return int(a.step[0]), int(a.length[0]), int(b.length[0]), int(b.step[0]), int(b.count[0])


def _apart(a: Family, b: Family, lag: tuple[int, int | None], distinct: bool) -> bool:
    """No run of a can meet one of b, told at no cost: their spans apart (the usual case), or an operand's
    entries apart, compared with themselves in one iteration."""
    if a.span is None or b.span is None or a.span[0] >= b.span[1] or b.span[0] >= a.span[1]:
        return True
    return distinct and a is b and a.uniform and lag == (0, 0) and _entries_apart(a)


def _one_step(a: Family, b: Family, lag: tuple[int, int | None]) -> bool:
    """One step for every entry of both, compared in one iteration: a pair meets in all iterations or none."""
    return lag == (0, 0) and len(set(a.step.tolist()) | set(b.step.tolist())) == 1


def _distance_rows(a: Family, b: Family, lag: tuple[int, int | None]) -> tuple[np.ndarray, np.ndarray]:
    """Two uniform families (one step, count and length per side): pairs of entries differ only by their
    distance, and the distinct distances are often few (entries one block apart). rows[k, r]: run r of an
    entry of a meets a run of b within the lag at the k-th distance; which[i, j]: the distance of the pair."""
    d = a.base[:, None] - b.base[None, :]
    distances, which = np.unique(d, return_inverse=True)
    rounds = int(a.count.max(initial=0))
    sa, la, lb, sb, nb = _uniform_runs(a, b)
    if lag[0] == lag[1]:
        rows = meets_at_lag(distances, rounds, sa, la, lb, sb, nb, lag[0])
    else:
        r = np.arange(rounds, dtype=np.int64)[None, :]
        rows = meets(distances[:, None] + r * sa, r, la, lb, sb, nb, lag)       # (distance, run of a)
    rows &= la > 0 and lb > 0
    return rows, which.reshape(d.shape)


def _entries_apart(a: Family) -> bool:
    """No two entries of a uniform family start closer than its run length (so no two share a byte in
    one iteration): the neighbours of the sorted starts tell."""
    if a.base.size < 2:
        return True
    starts = np.sort(a.base)
    return int((starts[1:] - starts[:-1]).min()) >= int(a.length[0])


def _uniform(step: np.ndarray, count: np.ndarray, length: np.ndarray) -> bool:
    return bool((step == step[0]).all() and (count == count[0]).all() and (length == length[0]).all())


def _span(base: np.ndarray, step: np.ndarray, count: np.ndarray, length: np.ndarray) -> tuple[int, int] | None:
    """Lowest to highest byte over the live runs of a family's columns (None: nothing is touched)."""
    live = (count > 0) & (length > 0)
    if not live.any():
        return None
    far = base + step * np.maximum(count - 1, 0)
    return int(np.minimum(base, far)[live].min()), int((np.maximum(base, far) + length)[live].max())


def iterations_identical(a: Sequence[tuple[int, Runs]], b: Sequence[tuple[int, Runs]]) -> np.ndarray:
    """same[r]: in iteration r every entry i of `a` touches exactly the bytes entry i of `b` does."""
    if len(a) != len(b) or not a:
        return np.zeros(0, dtype=bool)
    return families_identical(family(a), family(b))


def families_identical(a: Family, b: Family) -> np.ndarray:
    """iterations_identical of two non-empty Families of as many entries."""
    rounds = int(max(a.count.max(initial=0), b.count.max(initial=0)))
    r = np.arange(rounds, dtype=np.int64)[:, None]
    same = (a.base + r * a.step == b.base + r * b.step) & (a.length == b.length)
    live = (r < a.count) | (r < b.count)
    identical: np.ndarray = np.all(same | ~live, axis=1)
    return identical
