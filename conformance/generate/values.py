"""Drawing step five: the bytes the call runs on, as a `MemoryRecipe` (a seed and the few writes that
matter: offsets that stay in range, values at the ends of their dtype)."""
from __future__ import annotations

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
    of the operand they address, on its element grid. Shapes: identity, reversed (the pages'
    example), a permutation, scattered, colliding, or one at the top of the allowed range; for a target
    rule about the values, one offset breaks it (one past the range, past UB, misaligned, or onto the
    bytes of another operand)."""
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
        index = (np.asarray(runs.starts()) // v_width).astype(np.int64)
        for units in draft.frame.variant_units:     # an ambiguity's call: the entries every reading reads
            more = index_math(env.spec.api).accesses(call, units)[v_name]
            index = np.union1d(index, np.asarray(more.starts()) // v_width).astype(np.int64)
        if not index.size:
            continue
        base = x_tensor.addr + nominal[x_name].first          # offset 0 lands here
        shift = (-base) % width                               # the element grid, from the base
        cap = env.capacity(x_tensor.scope)
        slots = (x_tensor.addr + x_tensor.numel * width - base - shift) // width
        require(slots >= 1)
        n = index.size
        rng = np.random.default_rng(pick.integer(0, 2**32 - 1, f"{v_name}.seed"))
        style = pick.choice(("identity", "reversed", "permutation", "scattered", "collide", "top"), v_name)
        if style in ("identity", "reversed", "permutation") and slots < n:
            style = "scattered"
        k = {"identity": lambda: np.arange(n), "reversed": lambda: np.arange(n)[::-1],
             "permutation": lambda: rng.permutation(n),
             "collide": lambda: rng.integers(0, max(1, min(slots, n // 2)), n)}.get(
            style, lambda: rng.choice(slots, n, replace=False) if slots >= n else rng.integers(0, slots, n))()
        offsets = shift + np.asarray(k, dtype=np.int64) * width
        j = int(rng.integers(0, n))
        if style == "top":          # the largest offset the range rules allow, or that stays inside UB
            limits = [r["max"] for r in env.spec.rules_of("offset_range")
                      if r["operand"] == v_name and env.rulebook.matches(r.when, call, env.spec)]
            top = min(limits + [cap - width - base])
            offsets[j] = top - (top - shift) % width
        kind = target.kind if target is not None else None
        if kind == "offset_range" and target["operand"] == v_name:
            past = target["max"] + 1
            offsets[j] = past + (shift - past) % width
            style = "past-range"
        elif kind == "reach" and target["operand"] == x_name:
            offsets[j] = cap - base + shift + int(rng.integers(0, 4)) * width
            style = "past-UB"
        elif kind == "offset_align" and target["operand"] == x_name:
            require(width > 1)
            offsets[j] += int(rng.integers(1, width))
            style = "misaligned"
        elif kind == "overlap" and x_name in target["operands"]:
            other = next(op for op in target["operands"] if op != x_name)
            o_tensor, o_runs = call.tensor(other), ctx.accesses[other]
            require(o_runs is not None and not o_runs.empty and o_tensor.scope == x_tensor.scope)
            hit = o_tensor.addr + int(rng.integers(o_runs.begin, o_runs.end)) - base
            offsets[j] = hit - (hit - shift) % width
            style = f"onto-{other}"
        require(offsets.min() >= 0 and offsets.max() < 2**32)
        values = np.zeros(int(index.max()) + 1, dtype=np.int64)
        values[index] = offsets
        writes.append(Write.of(v_tensor.scope, v_tensor.addr, v_dtype, values))
        draft.tags.append(f"{v_name}={style}")
    return tuple(writes)
