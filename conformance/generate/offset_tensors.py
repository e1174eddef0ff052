"""Drawing step five: the contents of the offset tensors a call runs on, the few writes of its `MemoryRecipe`
that matter beside its seed (offsets that stay in range, or one that breaks the target rule)."""
from __future__ import annotations

from typing import Any

import numpy as np

from oracle import Call
from oracle.apis import index_math
from oracle.footprint import Runs
from oracle.kinds import kind_of, require
from oracle.kinds.grid import grid_down
from oracle.repeats import any_repeat
from oracle.rules import Context
from oracle.spec import Rule

from conformance.generate.environment import Env
from conformance.generate.memory import Write, integer_type
from conformance.generate.draft import CallDraft
from conformance.generate.free_slots import FreeSlots, free_count, free_slots
from conformance.generate.picks import Picks
from conformance.generate.streams import seeded


def draw_offset_tensors(pick: Picks, env: Env, draft: CallDraft, ctx: Context, target: Rule | None
                        ) -> tuple[Write, ...]:
    """The contents of the offset tensors (operands with `values: offsets`): byte offsets from the base
    of the operand they address, on its element grid. Shapes: identity, reversed (the pages' example), a
    permutation, scattered, or one at the top of the allowed range; no two alike where two alike matter
    to the spec (kept_apart: Scatter), else colliding ones too. For a target rule about the values, one
    offset breaks it (its kind's break_offset: one past the range, past UB, misaligned, onto the bytes of
    another operand, or onto another offset). `ctx`: the call's context without memory."""
    call, writes = ctx.call, []
    for v_name, x_name in env.spec.addressing.items():
        offsets = Offsets(pick, env, draft, call, ctx, target, v_name, x_name)
        if offsets.n:
            writes.append(offsets.write())
    return tuple(writes)


def _entry_index(runs: Any, width: int) -> np.ndarray:
    """The entries (of `width` bytes) of the offset tensor that a footprint of it starts elements at."""
    starts = np.asarray(runs.starts())
    if width & (width - 1):
        return (starts // width).astype(np.int64, copy=False)
    return np.right_shift(starts, width.bit_length() - 1, dtype=np.int64)     # floor division by a power of two


def _increasing_runs(runs: Any, width: int) -> bool:
    """Runs whose starts are whole entries, in increasing order: the entries they read are their starts
    over the width, distinct and sorted already (what _entries would make of them, without the arrays)."""
    return (isinstance(runs, Runs) and runs.count >= 1 and runs.step > 0 and runs.first % width == 0
            and runs.step % width == 0)


def _entries(read: list[np.ndarray]) -> tuple[np.ndarray, list[np.ndarray | None]]:
    """The entries any reading reads, sorted and distinct, and each reading's positions among them (None:
    every one): with no sort where every reading reads the same increasing entries (the usual case)."""
    first = read[0]
    if all(np.array_equal(r, first) for r in read[1:]) and (first.size < 2 or bool((first[1:] > first[:-1]).all())):
        return first, [None] * len(read)
    index = sorted_unique(np.concatenate(read))
    return index, [sorted_unique(np.searchsorted(index, r)) for r in read]


def offset_grid(spec: Any, operand: str, element: int) -> int:
    """The bytes the offsets of `operand` step by: its element's width, or the widest grid its offset_align
    rules ask for (whole DataBlocks). Found once per spec, operand and element width."""
    known: dict[tuple[str, int], int] = spec.__dict__.setdefault("_offset_grids", {})
    grid = known.get((operand, element))
    if grid is None:
        grids = [g for r in spec.rules_that("offset_grid") for g in [kind_of(r).offset_grid(r, operand)]
                 if g is not None]
        grid = known[operand, element] = max(grids + [element])
    return grid


class Offsets:
    """The offsets of one offset tensor being drawn: the entries the call reads (`index`), the grid they
    land on from the addressed operand's base (`base`, `shift`, `width`), the slots inside the scope and
    the range (`slots`, `limit`), and the drawn values (`offsets`; `j`: the one a target moves)."""

    def __init__(self, pick: Picks, env: Env, draft: CallDraft, call: Call, ctx: Context, target: Rule | None,
                 v_name: str, x_name: str):
        self.pick, self.env, self.draft, self.call, self.ctx, self.target = pick, env, draft, call, ctx, target
        self.kind = kind_of(target)
        spec = env.spec
        self.v_name, self.x_name = v_name, x_name
        self.v_tensor, self.x_tensor = call.tensor(v_name), call.tensor(self.x_name)
        runs = ctx.accesses[v_name]
        self.v_dtype = spec.operands[v_name].get("dtype", self.v_tensor.dtype)   # what the instruction reads
        v_width = env.rulebook.itemsize(self.v_dtype)
        math_ = index_math(spec.api)
        self.index: np.ndarray | None           # None: entries 0..n-1, in order
        self.together: list[np.ndarray | None]  # None: every position
        if not draft.frame.variant_units and _increasing_runs(runs, v_width):    # one reading, entries in order
            first, step = runs.first // v_width, runs.step // v_width
            self.n = runs.count
            self.index = None if first == 0 and step == 1 else np.arange(first, first + step * self.n, step)
            self.together = [None]
        else:
            read = [_entry_index(runs, v_width)]
            for units in draft.frame.variant_units:     # an ambiguity's call: the entries every reading reads
                read.append(_entry_index(math_.accesses(call, units)[v_name], v_width))
            # the entries one reading reads, by position (an entry two elements read places both in one place:
            # no offset can keep those apart, and the call is then the duplicate region's under that reading)
            index, self.together = _entries(read)
            self.n = index.size
            self.index = None if self.n and int(index[0]) == 0 and int(index[-1]) == self.n - 1 else index
        self.width = width = offset_grid(spec, self.x_name, ctx.units["element"])
        self.base = base = self.x_tensor.addr + math_.nominal(call, ctx.units)[self.x_name].first   # offset 0
        self.shift = -base if base < 0 else (-base) % width        # the element grid, from the base (and byte 0 on)
        self.cap = env.capacity(self.x_tensor.scope)
        self.limit = offset_limit(env, call, v_name)
        slots = (min(self.x_tensor.addr + self.x_tensor.numel * width, self.cap) - base - self.shift) // width
        if self.limit is not None:                                 # a large tensor: its slots the range reaches
            slots = min(slots, (self.limit - self.shift) // width + 1)
        self.slots = slots

    def write(self) -> Write:
        """Draw the offsets (a style, then the values), let the target's kind move one, and lay them out."""
        require(self.slots >= 1)
        n = self.n
        self.seed = self.pick.integer(0, 2**32 - 1, f"{self.v_name}.seed")
        colliding = self.target is not None and self.kind.collides(self.target, self.x_name)
        apart = colliding or kept_apart(self.env.spec, self.x_name)   # two offsets alike break a rule or enter a region
        free, style = self.style(apart, colliding, n)
        if apart and self.slots < n and not colliding:  # the readings read more entries together than there are slots
            style = "per-reading"
        # decided before any value is drawn (a call refused here draws none): the slots' offsets, from shift
        # up to the last slot's, are uint32, and so is a top offset that no target's kind moves again
        require(_uint32(self.shift + (self.spanned - 1) * self.width))
        top = self.top() if style == "top" else None
        offsets = self.offsets = self.placed(style, free, n)
        moved = top is not None         # offset j moved off the slots (the top of the range, or a target's)
        if moved or self.target is not None:        # offset j is read only where it may be moved
            self.j = int(self.rng.integers(0, n))
        if moved:
            offsets[self.j] = top
        if self.target is not None:
            broken = self.kind.break_offset(self.target, self)
            moved, style, offsets = moved or broken is not None, broken or style, self.offsets
            require(not moved or _uint32(offsets[self.j]))
        # no two alike among the entries one reading reads, but where asked to (under the default reading);
        # where none collides by design, the slots are distinct (per reading): only a moved offset j can repeat
        if apart and (colliding or moved):
            j = None if colliding else self.j
            require(colliding == _alike(offsets, self.together[0], j)
                    and (colliding or not any(_alike(offsets, t, j) for t in self.together[1:])))
        self.draft.tags.append(f"{self.v_name}={style}")
        values = _handed_over(offsets, self.index, self.v_dtype)
        return Write.of(self.v_tensor.scope, self.v_tensor.addr, self.v_dtype, values)

    @property
    def rng(self) -> np.random.Generator:
        """The stream the values are drawn from, seeded at its first use: identity and reversed offsets
        that no target moves draw nothing from it, and seeding costs more than drawing a small tensor."""
        if "_rng" not in self.__dict__:
            self._rng = seeded(self.seed)
        return self._rng

    def others(self, aimed: tuple[str, ...] = ()) -> list[tuple[int, int]]:
        """The spans of the operands x is kept apart from (_others, found once), but those `aimed` at (an
        overlap target's)."""
        if "_spans" not in self.__dict__:
            self._spans = _others(self.call, self.ctx, self.x_name)
        return [(begin, end) for op, begin, end in self._spans if op not in aimed]

    def style(self, apart: bool, colliding: bool, n: int) -> tuple[FreeSlots | None, str]:
        """The free slots (None: every one) and the drawn style of the offsets."""
        others = self.others()
        low, width = self.base + self.shift, self.width
        if not apart:
            self.slots = max(1, min(self.slots, _free_slots(others, low, width)))
            style = self.pick.choice(("identity", "reversed", "permutation", "scattered", "collide", "top"),
                                     self.v_name)
            if style in ("identity", "reversed", "permutation") and self.slots < n:
                style = "scattered"
            self.spanned = self.slots
            return None, style
        slots = self.slots
        if free_count(others, low, width, slots) < n:      # distinct offsets may land past the tensor, inside UB
            wider = (self.cap - self.base - self.shift) // width
            if self.limit is not None:
                wider = min(wider, (self.limit - self.shift) // width + 1)
            slots = max(slots, wider)
        free = free_slots(others, low, width, slots)
        self.slots = self.slots if free is None else free.size
        self.spanned = self.slots if free is None else slots       # the slots the drawn numbers map onto
        require(self.slots >= 1)
        style = "collide" if colliding else self.pick.choice(
            ("identity", "reversed", "permutation", "scattered", "top"), self.v_name)
        return free, style

    def top(self) -> int:
        """The offset a top style moves offset j to: the largest the range rules allow, or that stays inside
        UB. Where no target's kind moves it again it must be a uint32; and it lies on none of the operands
        it is kept clear of (the edge, alone), or the draw is given up here, before any value is drawn."""
        top = grid_down(min([self.cap - self.width - self.base] + [self.limit] * (self.limit is not None)),
                        self.shift, self.width)
        require(self.target is not None or _uint32(top))
        aimed = self.kind.aimed(self.target) if self.target is not None else ()
        require(_clear(self.base + top, self.width, self.others(aimed)))
        return top

    def placed(self, style: str, free: FreeSlots | None, n: int) -> np.ndarray:
        """Each entry's offset, a fresh int64 array: its slot's (chosen), times the width, plus the shift.
        Identity and reversed offsets over every slot are that in one step (an arange)."""
        width, shift = self.width, self.shift
        if free is None and style in ("identity", "reversed"):
            first, step = (shift, width) if style == "identity" else (shift + (n - 1) * width, -width)
            return np.arange(first, first + n * step, step, dtype=np.int64)
        k = self.chosen(style, free, n)
        offsets = k if free is None else free[k]          # a fresh array: made offsets in place
        if width & (width - 1):
            offsets *= width
        else:                           # a power of two: a shift, quicker than numpy's int64 multiply
            offsets <<= width.bit_length() - 1
        if shift:
            offsets += shift
        return offsets

    def chosen(self, style: str, free: FreeSlots | None, n: int) -> np.ndarray:
        """Which slot each entry's offset takes, as the style asks."""
        slots = self.slots
        if style == "per-reading":
            return np.asarray(_apart_per_reading(self.rng, self.together, n, slots), dtype=np.int64)
        k = {"identity": lambda: np.arange(n), "reversed": lambda: np.arange(n)[::-1],
             "permutation": lambda: _permutation(self.rng, n),
             "collide": lambda: self.rng.integers(0, max(1, min(slots, n // 2)), n)}.get(
            style, lambda: self.rng.choice(slots, n, replace=False) if slots >= n else self.rng.integers(0, slots, n))()
        return np.asarray(k, dtype=np.int64)


def kept_apart(spec: Any, operand: str) -> bool:
    """Do two offsets alike of an offset-addressed operand matter to the spec (a rule, or an ambiguity's
    check, of kind offset_unique names it)? Where they do not (a gather reads one place twice), offsets
    may repeat. Found once per spec and operand."""
    known: dict[str, bool] = spec.__dict__.setdefault("_offsets_kept_apart", {})
    if operand not in known:
        checks = [*spec.rules_that("collides"), *(c for amb in spec.ambiguities for c in amb.checks)]
        known[operand] = any(kind_of(c).collides(c, operand) for c in checks)
    return known[operand]


def _free_slots(spans: list[tuple[int, int]], low: int, width: int) -> int:
    """How many elements fit from byte `low` up to the first of `spans` above it (a tensor past the top of
    UB, a capacity rule's call, runs over the operands placed above it)."""
    above = [begin for begin, _ in spans if begin > low]
    return (min(above) - low) // width if above else 2**62


def _alike(offsets: np.ndarray, positions: np.ndarray | None, moved: int | None = None) -> bool:
    """Do two of the offsets at `positions` (distinct positions; None: every one) hold the same value? With
    `moved`, those offsets are distinct but for maybe the one at that position (the one a top or a target's
    kind moved): only it can repeat, one comparison. As many positions as offsets are every offset, in some
    order: no copy of them is taken."""
    values = offsets
    if positions is not None and positions.size != offsets.size:
        if moved is not None and not (positions == moved).any():
            return False
        values = offsets[positions]
    if moved is None:
        return any_repeat(values)
    return int(np.count_nonzero(values == offsets[moved])) > 1


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """np.unique of integers (the same array), without its hashing: the entries a call reads come in
    ascending order, which a look at neighbours confirms before they are sorted again."""
    if values.size > 1 and not (values[1:] >= values[:-1]).all():
        values = np.sort(values)
    if values.size < 2:
        return values.copy()
    keep = np.empty(values.size, dtype=bool)
    keep[0] = True
    np.not_equal(values[1:], values[:-1], out=keep[1:])
    return values[keep]


def _apart_per_reading(rng: np.random.Generator, together: list[np.ndarray | None], n: int, slots: int
                       ) -> np.ndarray:
    """Slots for n entries, distinct among the entries each reading reads (the readings read more entries
    together than there are slots): each reading's entries take free slots in turn."""
    together = [np.arange(n) if t is None else t for t in together]
    require(all(t.size <= slots for t in together))
    k = np.full(n, -1, dtype=np.int64)
    for positions in together:
        taken = set(k[positions][k[positions] >= 0].tolist())
        free = [s for s in rng.permutation(slots).tolist() if s not in taken]
        todo = positions[k[positions] < 0]
        require(len(free) >= todo.size)
        k[todo] = free[:todo.size]
    return k


# numpy's choice without replacement shuffles a range above this many in place with one bounded draw per
# element; its permutation draws by masked rejection, more draws per element (numpy/random/_generator.pyx)
_SHUFFLED_IN_PLACE = 10000


def _permutation(rng: np.random.Generator, n: int) -> np.ndarray:
    """A uniform permutation of 0..n-1: numpy's choice of n out of n where that is the cheaper of the two
    (a permutation of many), else its permutation (choice costs more for a few)."""
    return rng.choice(n, n, replace=False) if n > _SHUFFLED_IN_PLACE else rng.permutation(n)


def _uint32(offset: int | np.integer) -> bool:
    """Is the offset a uint32 (0 up to 2**32 - 1)? No bit above the low 32 (a negative one has them all)."""
    return not int(offset) >> 32


def _handed_over(offsets: np.ndarray, index: np.ndarray | None, dtype: str) -> np.ndarray:
    """The tensor's values: offset k (uint32 values, as int64) at entry index[k] (None: entry k), the
    entries between them 0; made in the write's dtype, read-only and its own, where that dtype holds every
    uint32 (Write.of keeps such an array as it is), else as int64."""
    little, _, typed = integer_type(dtype)
    if index is None:                                                       # entries 0..n-1
        values = offsets.astype(little, order="C") if typed else offsets
    else:
        values = np.zeros(int(index.max()) + 1, dtype=little if typed else np.int64)
        values[index] = offsets
    if typed:
        values.flags.writeable = False
    return values


def offset_limit(env: Env, call: Call, v_name: str) -> int | None:
    """The largest offset of `v_name` the offset_range rules that hold for `call` allow (None: no limit)."""
    limits = [m for m, when in _offset_limits(env.spec, v_name) if env.rulebook.matches(when, call, env.spec)]
    return min(limits) if limits else None


def _offset_limits(spec: Any, v_name: str) -> list[tuple[int, Any]]:
    """(largest offset, when) of each offset_range rule on `v_name`: found once per spec and operand."""
    known: dict[str, list[tuple[int, Any]]] = spec.__dict__.setdefault("_offset_limits", {})
    found = known.get(v_name)
    if found is None:
        found = known[v_name] = [(m, r.when) for r in spec.rules_that("offset_limit")
                                 for m in [kind_of(r).offset_limit(r, v_name)] if m is not None]
    return found


def _others(call: Call, ctx: Context, x_name: str) -> list[tuple[str, int, int]]:
    """(operand, begin, end): the bytes [begin, end) that the operands an overlap rule keeps x apart from
    touch in x's scope (their spans)."""
    x_tensor = call.tensor(x_name)
    scope = x_tensor.scope
    always, unless_identical = _apart_from(ctx.spec, x_name)
    out = []
    for op, runs in ctx.accesses.items():
        if op == x_name or runs is None or isinstance(runs, list) or runs.empty:
            continue
        if op not in always and (op not in unless_identical or _identical(ctx, call.tensor(op), x_tensor)):
            continue
        tensor = call.tensor(op)
        if tensor.scope == scope:
            out.append((op, tensor.addr + runs.begin, tensor.addr + runs.end))
    return out


def _apart_from(spec: Any, x_name: str) -> tuple[frozenset[str], frozenset[str]]:
    """The operands the kept_apart rules keep x apart from: always, and unless it is x's very tensor
    given twice (a rule with `allow: identical`). Found once per spec and operand, by asking each rule
    with every operand identical and with none."""
    known: dict[str, tuple[frozenset[str], frozenset[str]]] = spec.__dict__.setdefault("_offsets_apart_from", {})
    found = known.get(x_name)
    if found is None:
        rules = spec.rules_that("kept_apart")
        always = frozenset(op for r in rules for op in kind_of(r).kept_apart(r, x_name, lambda op: True))
        every = frozenset(op for r in rules for op in kind_of(r).kept_apart(r, x_name, lambda op: False))
        found = known[x_name] = always, every - always
    return found


def _identical(ctx: Context, a: Any, b: Any) -> bool:
    """One tensor given twice (scope, address, bytes): an overlap rule with `allow: identical` allows it."""
    return a.scope == b.scope and a.addr == b.addr and ctx.nbytes(a) == ctx.nbytes(b)


def _clear(at: int, width: int, spans: list[tuple[int, int]]) -> bool:
    """Does the element at byte `at` lie on none of `spans`? The top of the range is an edge to reach
    alone: where it would land on another operand the draw is given up here, before memory is built
    (moved down, it would not be the top)."""
    return all(at + width <= begin or end <= at for begin, end in spans)
