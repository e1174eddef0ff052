"""The arithmetic of runs meeting, on arrays of distances: run r of a (la bytes, sa apart) against the
runs of b (lb bytes, sb apart, b_count of them) at a lag of iterations, per distance between two entries'
bases. What oracle/iterations.py asks of two families' entries, pair by pair."""
from __future__ import annotations

import numpy as np

Ints = int | np.ndarray          # a number, or one per entry (a family's columns)


def first_in_blocks(d: np.ndarray, rounds: int, runs: tuple[int, int, int, int, int], lag: tuple[int, int | None],
                    same: np.ndarray, diagonal: np.ndarray | None) -> np.ndarray | None:
    """first_meeting over a range of lags: per pair of entries (distance d), the first run of a that meets
    (rounds: none), looked for in blocks of 8, 64, 512 runs from the first, up to the first block in which
    some pair but the diagonal's meets; None where none does. `runs`: (a's step, a's length, b's length,
    b's step, b's count)."""
    sa, la, lb, sb, nb = runs
    distances, which = np.unique(d, return_inverse=True)
    which = which.reshape(d.shape)
    start, size = 0, 8
    while start < rounds:
        stop = min(rounds, start + size)
        r = np.arange(start, stop, dtype=np.int64)[None, :]
        rows = meets(distances[:, None] + r * sa, r, la, lb, sb, nb, lag)     # (distance, run of a)
        if same.size:
            rows &= ~same[start:stop]
        if rows.any():
            at = np.where(rows.any(axis=1), rows.argmax(axis=1) + start, rounds)[which]
            if diagonal is not None:
                at[diagonal, diagonal] = rounds
            if (at < rounds).any():
                return at
        start, size = stop, size * 8
    return None


def first_same_step(d: np.ndarray, rounds: int, runs: tuple[int, int, int, int, int],
                    lag: tuple[int, int | None]) -> np.ndarray:
    """first_meeting over a range of lags of two uniform families with one step s (an operand against
    itself): per pair of entries (distance d), the first run of a that meets (rounds: none). Run r of a
    meets run r + k of b <=> d - lb < k * s < d + la, whatever r: an interval of k, cut to the lags and to
    the runs there are (k >= -(rounds - 1), k <= b's count - 1); the first r is that of the largest k left,
    max(0, -k)."""
    s, la, lb, _, nb = runs
    lowest, highest = max(lag[0], -(rounds - 1)), nb - 1 if lag[1] is None else min(lag[1], nb - 1)
    if s > 0:
        k_lo, k_hi = (d - lb) // s + 1, -(-(d + la) // s) - 1
    elif s < 0:
        k_lo, k_hi = (d + la) // s + 1, -(-(d - lb) // s) - 1
    else:                                   # every run of b in one place: all k or none
        always = (d - lb < 0) & (0 < d + la)
        k_lo, k_hi = np.where(always, lowest, highest + 1), np.full(d.shape, highest)
    k_lo, k_hi = np.maximum(k_lo, lowest), np.minimum(k_hi, highest)
    return np.where(k_lo <= k_hi, np.maximum(-k_hi, 0), rounds)


def open_from(same: np.ndarray, rounds: int) -> np.ndarray:
    """out[r] for r in 0..rounds: the first iteration from r on that `same` does not leave out (rounds where
    none is left)."""
    r = np.arange(rounds + 1, dtype=np.int64)
    if same.size:
        r[:rounds][same[:rounds]] = rounds
        r = np.minimum.accumulate(r[::-1])[::-1]
    return r


def meets(x: np.ndarray, r: np.ndarray, la: Ints, lb: Ints, sb: Ints, b_count: Ints, lag: tuple[int, int | None]) -> np.ndarray:
    """Run r of a (x bytes past b's base, la long) meets run r' of b (lb long, sb apart, b_count of
    them) for some r' in r + lag  <=>  x - lb < r' * sb < x + la: an interval of r' (every r' if sb == 0)."""
    if np.ndim(sb) == 0:                    # one step for all of b (a uniform family): one branch
        if sb > 0:
            first, last = (x - lb) // sb + 1, -(-(x + la) // sb) - 1
        elif sb < 0:
            first, last = (x + la) // sb + 1, -(-(x - lb) // sb) - 1
        else:                               # every run of b in one place: all of them meet or none
            always = (x - lb < 0) & (0 < x + la)
            first, last = np.where(always, 0, 1), np.where(always, b_count - 1, 0)
    else:
        up, down = sb > 0, sb < 0
        safe = np.where(sb != 0, sb, 1)
        always = (x - lb < 0) & (0 < x + la)
        first = np.where(up, (x - lb) // safe + 1, np.where(down, (x + la) // safe + 1, np.where(always, 0, 1)))
        last = np.where(up, -(-(x + la) // safe) - 1,
                        np.where(down, -(-(x - lb) // safe) - 1, np.where(always, b_count - 1, 0)))
    lo = np.maximum(first, np.maximum(r + lag[0], 0))
    hi = np.minimum(last, b_count - 1)
    if lag[1] is not None:
        hi = np.minimum(hi, r + lag[1])
    met: np.ndarray = lo <= hi
    return met


def meets_at_lag(distance: np.ndarray, rounds: int, sa: int, la: int, lb: int, sb: int, b_count: int,
                  lag: int) -> np.ndarray:
    """meets of two uniform families at one lag, per (distance, run of a), without a division per run."""
    first, last = lag_bounds(distance, rounds, sa, la, lb, sb, b_count, lag)
    r = np.arange(rounds, dtype=np.int64)
    return (first[..., None] <= r) & (r <= last[..., None])


def lag_bounds(distance: np.ndarray, rounds: int, sa: int, la: int, lb: int, sb: int, b_count: int,
                lag: int) -> tuple[np.ndarray, np.ndarray]:
    """Per distance (any shape), the first and last run r of a (none where first > last) that meets run
    r + lag of b: run r of a (distance + r * sa past b's base) meets it <=> p < r * (sb - sa) < q, with
    p = distance - lb - lag * sb and q = distance + la - lag * sb: an interval of r for each distance."""
    c, p, q = sb - sa, distance - lb - lag * sb, distance + la - lag * sb
    if c > 0:
        first, last = p // c + 1, -(-q // c) - 1
    elif c < 0:
        first, last = q // c + 1, -(-p // c) - 1
    else:                                   # the same step: every run meets or none does
        always = (p < 0) & (0 < q)
        first, last = np.where(always, 0, rounds), np.full(distance.shape, rounds - 1)
    first = np.maximum(first, max(-lag, 0))                     # b's run r + lag exists
    last = np.minimum(last, min(rounds, b_count - lag) - 1)
    return first, last
