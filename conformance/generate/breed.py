"""Calls bred from a fuzzing corpus (`fuzz --coverage`): a kept call with one thing changed, the way a
coverage-guided fuzzer mutates its inputs, but only into calls of the same kind: a legal parent gives
legal children, a parent that breaks a rule gives children that break it too (each checked by the
rulebook, as the oracle will judge them).

A change: one parameter moved to a neighbouring value, an operand's address or size moved, another
dtype, an operand in another scope (another data path), or other bytes in memory (a new seed of the
same recipe). A child mostly has one; some have two or three, as fuzzers stack them, so that a change
that needs another to stay legal (a stride that needs a larger operand) is reached. The memory images
are sized for the child's call again.
"""
from __future__ import annotations

import copy
import random
from typing import Any, Callable, Sequence

from oracle import Call, CallFormatError, check
from oracle.spec import Rulebook

from conformance.generate.memory import MemoryRecipe, image_sizes

DTYPES = ("int8", "uint8", "int16", "uint16", "float16", "bfloat16", "int32", "uint32", "float32", "int64",
          "uint64")
SCOPES = ("GM", "UB", "L1")
STEPS = (1, 2, 8, 16, 32, 64)
STACKED = (1, 1, 1, 2, 2, 3)    # changes made at once: mostly one; two or three step over a rule (a
                                # stride that needs a larger operand)
MAX_IMAGE_BYTES = 16 << 20
GROW = 3                        # doublings of the operands tried to keep a child legal      # a child whose images would outgrow this is dropped (moves keep growing)


def breed(parents: Sequence[dict[str, Any]], count: int, rulebook: Rulebook, rng: random.Random
          ) -> list[dict[str, Any]]:
    """Up to `count` children of `parents` (corpus entries: call, memory, expect, rule), each a changed
    copy of one of them, the later ones more often (a few tries per child: a change that leaves the
    parent's kind is dropped)."""
    out: list[dict[str, Any]] = []
    for _ in range(count * 4):
        if len(out) >= count or not parents:
            break
        # the later a parent was kept, the deeper the code it reached: bred more often
        child = mutate(parents[int(len(parents) * rng.random() ** 0.5)], rulebook, rng)
        if child is not None:
            out.append(child)
    return out


def mutate(parent: dict[str, Any], rulebook: Rulebook, rng: random.Random) -> dict[str, Any] | None:
    """One changed copy of `parent`, or None where the change left its kind (or made no call)."""
    args = copy.deepcopy(parent["call"].get("args") or {})
    changes = [rng.choice(CHANGES) for _ in range(rng.choice(STACKED))]
    if not all([change(args, rng) for change in changes]):
        return None
    try:
        call = _grown(Call.from_dict({**parent["call"], "args": args}), args, rulebook) \
            if parent.get("expect") == "legal" else Call.from_dict({**parent["call"], "args": args})
        recipe = MemoryRecipe.from_dict(parent["memory"])
        seed = rng.getrandbits(32) if _memory in changes else recipe.seed
        memory = MemoryRecipe(seed, image_sizes(call, rulebook), recipe.writes, recipe.pool)
        if sum(memory.sizes.values()) > MAX_IMAGE_BYTES:
            return None
        broken = {v.rule for v in check(call, memory.build(), rulebook)}
    except (CallFormatError, KeyError, TypeError, ValueError):
        return None
    if (parent.get("expect") == "legal") != (not broken) or (broken and parent.get("rule") not in broken):
        return None
    return {"call": call.to_dict(), "memory": memory.to_dict(), "expect": parent.get("expect"),
            "rule": parent.get("rule")}


def _grown(call: Call, args: dict[str, Any], rulebook: Rulebook) -> Call:
    """A legal parent's child that its change made illegal, with the operands the broken rules name
    twice as large, up to GROW times, where that makes it legal (a longer stride needs a larger
    operand); else as it is."""
    broken = check(call, None, rulebook)
    named = {name for v in broken for name in v.rule.split(".")}      # rules name their operand
    grow = [t for name, value in args.items() if name in named
            for t in (value if isinstance(value, list) else [value]) if isinstance(t, dict) and "numel" in t]
    if not broken or not grow:
        return call
    for _ in range(GROW):
        for tensor in grow:
            tensor["numel"] *= 2
        grown = Call.from_dict({"api": call.api, "product": call.product, "form": call.form, "args": args})
        if not check(grown, None, rulebook):
            return grown
    return call


def _tensors(args: dict[str, Any]) -> list[dict[str, Any]]:
    found = []
    for value in args.values():
        items = value if isinstance(value, list) else [value]
        found += [t for t in items if isinstance(t, dict) and "scope" in t and "dtype" in t]
    return found


def _numbers(args: dict[str, Any]) -> list[tuple[dict[str, Any], str]]:
    """(holder, key) of every integer parameter, nested parameter objects' included (no operand's)."""
    found = []
    for key, value in args.items():
        if type(value) is int:
            found.append((args, key))
        elif isinstance(value, dict) and "scope" not in value:
            found += [(value, k) for k, v in value.items() if type(v) is int]
    return found


def _neighbour(value: int, rng: random.Random) -> int:
    """A value near `value` (never itself): a small step up or down, twice or half of it, or the low
    end (0, 1) a parameter's range starts at."""
    step = rng.choice(STEPS)
    near = {value + step, value - step, value * 2, value // 2, rng.choice((0, 1))} - {value}
    return rng.choice(sorted(v for v in near if v >= 0))


def _parameter(args: dict[str, Any], rng: random.Random) -> bool:
    numbers = _numbers(args)
    if not numbers:
        return False
    holder, key = rng.choice(numbers)
    holder[key] = _neighbour(holder[key], rng)
    return True


def _operand(args: dict[str, Any], rng: random.Random) -> bool:
    tensors = _tensors(args)
    if not tensors:
        return False
    tensor = rng.choice(tensors)
    field = rng.choice(("addr", "numel"))
    tensor[field] = max(0 if field == "addr" else 1, _neighbour(tensor[field], rng))
    return True


def _dtype(args: dict[str, Any], rng: random.Random) -> bool:
    tensors = _tensors(args)
    dtype = rng.choice(DTYPES)
    for tensor in tensors:
        tensor["dtype"] = dtype
    return bool(tensors)


def _path(args: dict[str, Any], rng: random.Random) -> bool:
    tensors = _tensors(args)
    if not tensors:
        return False
    tensor = rng.choice(tensors)
    tensor["scope"] = rng.choice([s for s in SCOPES if s != tensor["scope"]])
    return True


def _memory(args: dict[str, Any], rng: random.Random) -> bool:
    return True


CHANGES: tuple[Callable[[dict[str, Any], random.Random], bool], ...] = (
    _parameter, _parameter, _parameter, _parameter, _operand, _dtype, _path, _memory)
