"""Drawing step five: the bytes the call runs on, as a `MemoryRecipe` (a seed and the few writes that
matter: offsets that stay in range, values at the ends of their dtype)."""
from __future__ import annotations

from typing import Any

import numpy as np

from oracle import Call
from oracle.apis import index_math
from oracle.rules import Context
from oracle.spec import Rule

from conformance.generate.environment import Env, require
from conformance.generate.memory import Write
from conformance.generate.parameters import Draft
from conformance.generate.picks import Picks


def draw_values(pick: Picks, env: Env, draft: Draft, call: Call, target: Rule | None) -> tuple[Write, ...]:
    """The contents of the offset tensors (operands with `values: offsets`): byte offsets from the base
    of the operand they address, on its element grid. Shapes: identity, reversed (the pages' example), a
    permutation, scattered, or one at the top of the allowed range; no two alike where two alike matter
    to the spec (kept_apart: Scatter), else colliding ones too. For a target rule about the values, one
    offset breaks it (one past the range, past UB, misaligned, onto the bytes of another operand, or onto
    another offset)."""
    writes = []
    ctx = Context(call, env.spec, env.rulebook, env.product)
    nominal = index_math(env.spec.api).nominal(call, ctx.units)
    width = ctx.units["element"]
    for v_name, v_spec in env.spec.operands.items():
        if v_spec.get("values") != "offsets":
            continue
        x_name = next(op for op, d in env.spec.operands.items() if d.get("addressed_by") == v_name)
        v_tensor, x_tensor, runs = call.tensor(v_name), call.tensor(x_name), ctx.accesses[v_name]
        v_dtype = v_spec.get("dtype", v_tensor.dtype)      # what the instruction reads, whatever the tensor claims
        v_width = env.rulebook.itemsize(v_dtype)
        read = [(np.asarray(runs.starts()) // v_width).astype(np.int64)]
        for units in draft.frame.variant_units:     # an ambiguity's call: the entries every reading reads
            more = index_math(env.spec.api).accesses(call, units)[v_name]
            read.append((np.asarray(more.starts()) // v_width).astype(np.int64))
        index = np.unique(np.concatenate(read))
        if not index.size:
            continue
        # the entries one reading reads, by position (an entry two elements read places both in one place:
        # no offset can keep those apart, and the call is then the duplicate region's under that reading)
        together = [np.unique(np.searchsorted(index, r)) for r in read]
        base = x_tensor.addr + nominal[x_name].first          # offset 0 lands here
        shift = -base if base < 0 else (-base) % width        # the element grid, from the base (and byte 0 on)
        cap = env.capacity(x_tensor.scope)
        limit = offset_limit(env, call, v_name)
        slots = (min(x_tensor.addr + x_tensor.numel * width, cap) - base - shift) // width    # inside UB
        if limit is not None:                                 # a large tensor: its slots the range reaches
            slots = min(slots, (limit - shift) // width + 1)
        require(slots >= 1)
        n = index.size
        rng = np.random.default_rng(pick.integer(0, 2**32 - 1, f"{v_name}.seed"))
        kind = target.kind if target is not None else None
        colliding = kind == "offset_unique" and target["operand"] == x_name
        apart = colliding or kept_apart(env.spec, x_name)   # two offsets alike break a rule or enter a region
        if apart:
            others = _others(call, ctx, x_name)
            free = _free_grid(others, base + shift, width, slots)   # None: every slot
            if free is not None and free.size < n:      # distinct offsets may land past the tensor, inside UB
                wider = (cap - base - shift) // width
                if limit is not None:
                    wider = min(wider, (limit - shift) // width + 1)
                free = _free_grid(others, base + shift, width, max(slots, wider))
            slots = slots if free is None else free.size
            require(slots >= 1)
            style = "collide" if colliding else pick.choice(("identity", "reversed", "permutation", "scattered", "top"),
                                                            v_name)
        else:
            free = None
            slots = max(1, min(slots, _free_slots(_others(call, ctx, x_name), base + shift, width)))
            style = pick.choice(("identity", "reversed", "permutation", "scattered", "collide", "top"), v_name)
            if style in ("identity", "reversed", "permutation") and slots < n:
                style = "scattered"
        if apart and slots < n and not colliding:   # the readings read more entries together than there are slots
            k, style = _apart_per_reading(rng, together, n, slots), "per-reading"
        else:
            k = {"identity": lambda: np.arange(n), "reversed": lambda: np.arange(n)[::-1],
                 "permutation": lambda: rng.permutation(n),
                 "collide": lambda: rng.integers(0, max(1, min(slots, n // 2)), n)}.get(
                style, lambda: rng.choice(slots, n, replace=False) if slots >= n else rng.integers(0, slots, n))()
        k = np.asarray(k, dtype=np.int64)
        offsets = shift + (k if free is None else free[k]) * width
        j = int(rng.integers(0, n))
        if style == "top":          # the largest offset the range rules allow, or that stays inside UB
            top = min([cap - width - base] + [limit] * (limit is not None))
            offsets[j] = _grid_down(top, shift, width)
            aimed = target["operands"] if target is not None and target.kind == "overlap" else ()
            require(_clear(base + int(offsets[j]), width, _others(call, ctx, x_name, aimed)))     # the edge, alone
        if kind == "offset_range" and target["operand"] == v_name:
            past = target["max"] + 1
            offsets[j] = _grid_up(past, shift, width)
            style = "past-range"
        elif kind == "reach" and target["operand"] == x_name:
            past = _grid_up(cap - base, shift, width)         # the first element past UB
            offsets[j] = past + int(rng.integers(0, 4)) * width
            if limit is not None:                             # ... and inside the range (placement.py)
                offsets[j] = max(min(offsets[j], _grid_down(limit, shift, width)), past)
            style = "past-UB"
        elif kind == "offset_align" and target["operand"] == x_name:
            require(width > 1)
            offsets[j] += int(rng.integers(1, width))
            style = "misaligned"
        elif kind == "overlap" and x_name in target["operands"]:
            other = next(op for op in target["operands"] if op != x_name)
            o_tensor, o_runs = call.tensor(other), ctx.accesses[other]
            require(o_runs is not None and not o_runs.empty and o_tensor.scope == x_tensor.scope)
            top = base + (limit if limit is not None else 2**32 - 1)          # a landing byte the range allows
            offsets[j] = _onto(rng, o_tensor.addr + np.asarray(o_runs.starts()), o_runs.length, (base, shift, top),
                               width)
            style = f"onto-{other}"
        require(offsets.min() >= 0 and offsets.max() < 2**32)
        # no two alike among the entries one reading reads, but where asked to (under the default reading)
        if apart:
            require(colliding == _alike(offsets, together[0])
                    and (colliding or not any(_alike(offsets, t) for t in together)))
        values = np.zeros(int(index.max()) + 1, dtype=np.int64)
        values[index] = offsets
        writes.append(Write.of(v_tensor.scope, v_tensor.addr, v_dtype, values))
        draft.tags.append(f"{v_name}={style}")
    return tuple(writes)


def kept_apart(spec: Any, operand: str) -> bool:
    """Do two offsets alike of an offset-addressed operand matter to the spec (a rule, or an ambiguity's
    check, of kind offset_unique names it)? Where they do not (a gather reads one place twice), offsets
    may repeat."""
    checks = [*spec.rules, *(c for amb in spec.ambiguities for c in amb.checks)]
    return any(c.kind == "offset_unique" and c.get("operand") == operand for c in checks)


def _free_slots(spans: list[tuple[int, int]], low: int, width: int) -> int:
    """How many elements fit from byte `low` up to the first of `spans` above it (a tensor past the top of
    UB, a capacity rule's call, runs over the operands placed above it)."""
    above = [begin for begin, _ in spans if begin > low]
    return (min(above) - low) // width if above else 2**62


def _alike(offsets: np.ndarray, positions: np.ndarray) -> bool:
    return positions.size > 1 and np.unique(offsets[positions]).size < positions.size


def _apart_per_reading(rng: np.random.Generator, together: list[np.ndarray], n: int, slots: int) -> np.ndarray:
    """Slots for n entries, distinct among the entries each reading reads (the readings read more entries
    together than there are slots): each reading's entries take free slots in turn."""
    require(all(t.size <= slots for t in together))
    k = np.full(n, -1, dtype=np.int64)
    for positions in together:
        taken = set(k[positions][k[positions] >= 0].tolist())
        free = [s for s in rng.permutation(slots).tolist() if s not in taken]
        todo = positions[k[positions] < 0]
        require(len(free) >= todo.size)
        k[todo] = free[:todo.size]
    return k


def offset_limit(env: Env, call: Call, v_name: str) -> int | None:
    """The largest offset of `v_name` the offset_range rules that hold for `call` allow (None: no limit)."""
    limits = [r["max"] for r in env.spec.rules_of("offset_range")
              if r["operand"] == v_name and env.rulebook.matches(r.when, call, env.spec)]
    return min(limits) if limits else None


def _others(call: Call, ctx: Context, x_name: str, aimed: tuple = ()) -> list[tuple[int, int]]:
    """The bytes [begin, end) that the operands an overlap rule keeps x apart from touch in x's scope
    (their spans), but those `aimed` at (an overlap target's)."""
    x_tensor = call.tensor(x_name)
    scope = x_tensor.scope
    apart = {op for r in ctx.spec.rules_of("overlap") if x_name in r["operands"] for op in r["operands"]
             if not (r.get("allow") == "identical" and _identical(ctx, call.tensor(op), x_tensor))}
    out = []
    for op, runs in ctx.accesses.items():
        if op == x_name or op not in apart or op in aimed or runs is None or isinstance(runs, list) or runs.empty:
            continue
        tensor = call.tensor(op)
        if tensor.scope == scope:
            out.append((tensor.addr + runs.begin, tensor.addr + runs.end))
    return out


def _identical(ctx: Context, a: Any, b: Any) -> bool:
    """One tensor given twice (scope, address, bytes): an overlap rule with `allow: identical` allows it."""
    return a.scope == b.scope and a.addr == b.addr and ctx.nbytes(a) == ctx.nbytes(b)


def _free_grid(spans: list[tuple[int, int]], low: int, width: int, slots: int) -> np.ndarray | None:
    """The slots (elements from byte `low`, `slots` of them) whose bytes none of `spans` touch (the operands
    an overlap rule keeps apart); None where no span falls among them: every slot is free."""
    top = low + slots * width
    blocked = [(b, e) for b, e in spans if e > low and b < top]
    if not blocked:
        return None
    at = low + np.arange(slots, dtype=np.int64) * width
    ok = np.ones(slots, dtype=bool)
    for begin, end in blocked:
        ok &= (at + width <= begin) | (at >= end)
    return np.flatnonzero(ok)


def _clear(at: int, width: int, spans: list[tuple[int, int]]) -> bool:
    """Does the element at byte `at` lie on none of `spans`? The top of the range is an edge to reach
    alone: where it would land on another operand the draw is given up here, before memory is built
    (moved down, it would not be the top)."""
    return all(at + width <= begin or end <= at for begin, end in spans)


def _onto(rng: np.random.Generator, starts: np.ndarray, length: int, grid: tuple[int, int, int], width: int) -> int:
    """An offset (on the element grid, from `base`) whose element covers a byte that runs of `length` bytes
    at the absolute `starts` touch: a byte of a run the operand really touches (a sparse footprint has
    gaps between its runs), at or above the grid's first slot (an offset is never negative) and at most
    `top` (the byte the largest offset in range lands on). `grid`: (base, shift, top)."""
    base, shift, top = grid
    low = base + shift
    ok = np.flatnonzero((starts + length > low) & (starts <= top))
    require(ok.size)
    at = int(starts[ok[int(rng.integers(0, ok.size))]])
    hit = int(rng.integers(max(at, low), min(at + length, top + 1))) - base
    return _grid_down(hit, shift, width)


def _grid_up(offset: int, shift: int, width: int) -> int:
    """The lowest offset at or above `offset` on the element grid (shift + a multiple of width)."""
    return offset + (shift - offset) % width


def _grid_down(offset: int, shift: int, width: int) -> int:
    """The highest offset at or below `offset` on the element grid."""
    return offset - (offset - shift) % width
