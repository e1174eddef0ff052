"""Whether integers repeat: what the offsets' generator, offset_unique's check, Scatter's and Gatherb's
moves and a masked Copy's overlapping pieces ask of offsets, slots and starts."""
from __future__ import annotations

from operator import gt, lt

import numpy as np


def any_repeat(values: np.ndarray, bounds: tuple[int, int] | None = None) -> bool:
    """Do two of the integers `values` hold the same value? None where they rise or fall all along (offsets
    in order or reversed: two comparisons of neighbours, tried on the first few before all of them); else a
    mark per value where they span not much more than they are many (a UB-sized call: a hundredth of a
    sort's time), else a sort. `bounds`: their lowest and highest, where the caller knows them."""
    if values.size < 2:
        return False
    if _head_monotone(values) and _monotone(values):
        return False
    lo, hi = (int(values.min()), int(values.max())) if bounds is None else bounds
    if hi - lo <= 16 * values.size + 4096:
        seen = np.zeros(hi - lo + 1, dtype=np.bool_)
        # indices of numpy's own type (no cast to index), from 0
        seen[values if lo == 0 and values.dtype == np.intp else np.subtract(values, lo, dtype=np.intp)] = True
        return int(np.count_nonzero(seen)) < values.size
    ordered = np.sort(values)
    return bool((ordered[1:] == ordered[:-1]).any())


MONOTONE_PROBE = 16


def _head_monotone(values: np.ndarray) -> bool:
    """_monotone of the first MONOTONE_PROBE values, compared as Python integers: offsets in no order, the
    usual case, fail at the first pairs, where numpy's comparisons would each cost a call over the probe."""
    head = values[:MONOTONE_PROBE].tolist()
    later = head[1:]
    return all(map(lt, head, later)) or all(map(gt, head, later))


def _monotone(values: np.ndarray) -> bool:
    """Each value above the one before, or each below (no two alike)."""
    later, earlier = values[1:], values[:-1]
    return bool((later > earlier).all()) or bool((later < earlier).all())
