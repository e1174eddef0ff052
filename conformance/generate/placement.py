"""Drawing step four: where the operands lie in their scopes (the alignment rules, the scope sizes, the
overlap rules), apart, adjacent or overlapping as the case asks."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from oracle import Tensor
from oracle.call import nest
from oracle.iterations import family, first_meeting
from oracle.spec import Rule

from conformance.generate.apart import apart_ops, lanes, meets_itself
from conformance.generate.environment import GM_SPREAD, Env, misalignments, require, round_up
from conformance.generate.parameters import (Draft, accesses, entry_unit, frame_of, operand_end, operand_ends,
                                             scope_capacity)
from conformance.generate.picks import Picks, pick_between, rotated
from conformance.generate.values import offset_limit


@dataclass
class _Slot:
    """Tensors placed together: (operand, entry, offset inside the slot) for each."""

    members: list[tuple[str, int, int]]
    size: int
    kept: int = 0               # bytes of its size past its tensors' own: an operand's landing room


def _layout(pick: Picks, n: int, align: int, extra_units: int, label: str) -> tuple[list[int], str]:
    """Offsets of the n entries of a list operand (multiples of `align`, one entry's run), `extra_units` at most
    wider than packed: packed (one tensor sliced at every block, as the pages' examples do), evenly
    strided, or scattered in a drawn order (a backend must follow the list, not the addresses)."""
    packed = [i * align for i in range(n)]
    if n < 2 or extra_units <= 0:
        return packed, "packed"
    style = pick.choice(("packed", "strided", "scattered"), f"{label}.layout")
    if style == "packed":
        return packed, style
    if style == "strided":
        gap, _ = pick_between(pick, 1, 1 + extra_units // (n - 1), f"{label}.stride")
        return [i * gap * align for i in range(n)], style
    width, _ = pick_between(pick, n, n + extra_units, f"{label}.width")
    rng = np.random.default_rng(pick.integer(0, 2**32 - 1, f"{label}.seed"))
    return [int(k) * align for k in rng.choice(width, n, replace=False)], style


Follow = Callable[[list[int]], list[int]]


def _pairing(pick: Picks, env: Env, draft: Draft, target: Rule | None, ops: list[str], acc: Mapping[str, Any],
             align: int) -> tuple[str, str, Follow, list[Follow | None]] | None:
    """Two operands that share one slot, and how the second's offsets follow from the first's: the
    overlap a rule's target asks for, or (legal calls) the in-place use a rule allows. Last: other ways
    to follow, tried in order where the drawn one breaks an iteration rule it should not (_settle; None:
    not paired after all)."""
    kind = target.kind if target is not None else None
    if kind == "overlap" and all(op in ops for op in target["operands"]):
        a, b = target["operands"]
        if pick.boolean("overlap.swap"):
            a, b = b, a
        (begin_a, end_a), (begin_b, end_b) = _span(env, a, acc[a], align), _span(env, b, acc[b], align)
        low, high = -((end_b - begin_a - 1) // align), (end_a - begin_b - 1) // align
        require(low <= high)        # b's bytes meet a's: b sits in (begin_a - end_b, end_a - begin_b) from a
        low = max(low, 0) if high >= 0 else low     # from b at a's address up, where that meets (it shrinks so)
        if target.get("allow") == "identical" and low == 0 < high:
            low = 1                 # b at a's address is a's very tensor (one slot, one size): allowed
        delta = pick.integer(low, high, "overlap.delta") * align
        return a, b, lambda offs: [o + delta for o in offs], []
    if kind == "iteration_overlap" and all(op in ops for op in target["operands"]):
        a, b = target["operands"]
        if a == b:
            return None                                    # one operand with itself: see _collide
        n = min(draft.count(a), draft.count(b))
        lo, _ = target.get("lag", [0, 0])
        first_a, first_b = acc[a][0], acc[b][0]
        rounds = min(first_a.count, first_b.count)
        if target.get("allow") == "identical" and lo == 0:
            require(n >= 2)
            k = pick.integer(1, n - 1, "overlap.shift")
            reorder = pick.boolean("overlap.reorder")
            last = max(rounds - 1, 0) * (first_a.step - first_b.step)     # meeting in the last iteration
            ways = [(reorder, k, 0), (reorder, k, last)] + [(m, j, d) for m in (reorder, not reorder)
                                                           for j in sorted({1, n - 1, n // 2}) for d in (0, last)]
            ways = list(dict.fromkeys(ways))
            return a, b, _same_blocks(n, *ways[0]), [_same_blocks(n, *w) for w in ways[1:]]
        require(rounds - 1 - lo >= 0)
        r = pick.integer(0, rounds - 1 - lo, "overlap.round")
        rs = list(dict.fromkeys((r, 0, rounds - 1 - lo, (rounds - 1 - lo) // 2)))
        follows = [_lagged(n, q * first_a.step - (q + lo) * first_b.step) for q in rs]
        return a, b, follows[0], follows[1:]
    if target is None:
        probe = None            # the call as drawn, made once a rule needs it
        for rule in env.spec.rules_of("iteration_overlap"):
            a, b = rule["operands"]
            if not (rule.get("allow") == "identical" and a != b and a in ops and b in ops
                    and draft.count(a) == draft.count(b)):
                continue
            if probe is None:
                probe = draft.template.replace(**nest(draft.params))
            if (env.rulebook.matches(rule.when, probe, env.spec)
                    and pick.choice((False, False, True), f"{b}.in-place")):
                draft.tags.append(f"{b}=in-place")
                return a, b, list, [None]
    return None


def _same_blocks(n: int, reorder: bool, k: int, shift: int) -> Follow:
    """b on a's blocks: the same blocks in another order (entry i on a's entry i + k), or partly the same
    (b's lowest entry on a's k-th lowest, the rest as a's lie); `shift` bytes on (a and b meet in the
    iteration where a's stride has gone that much further than b's)."""
    if reorder:
        return lambda offs: [offs[(i + k) % n] + shift for i in range(n)]

    def partly(offs: list[int]) -> list[int]:
        ordered = sorted(offs[:n])
        return [o + ordered[k] - ordered[0] + shift for o in offs[:n]]
    return partly


def _lagged(n: int, shift: int) -> Follow:
    """b `shift` bytes from a, entry for entry: b's iteration r + lag meets a's iteration r."""
    return lambda offs: [o + shift for o in offs[:n]]


def _settle(env: Env, draft: Draft, target: Rule | None, acc: Mapping[str, Any], offsets: Mapping[str, list[int]],
            pair: tuple[str, str, Follow, list[Follow | None]], fits: Callable[[Follow | None], bool]
            ) -> Follow | None:
    """The first way for b to follow a (the drawn one, then the others) after which the iteration rules
    on a and b that hold for the call fire as asked: the target's, and no other (a stride that walks one
    list onto the other's later iteration), and the scope still holds the slots (`fits`). None: b kept
    apart (a legal call's in-place use given up). Where none does, the drawn one (the oracle's check has
    the last word)."""
    a, b, first, others = pair
    rules = _iteration_rules(env, draft, a, b)
    if not rules:
        return first
    for follow in [first, *others]:
        if not fits(follow):
            continue
        if follow is None:
            return None
        laid = {a: offsets[a], b: follow(offsets[a])}
        fams = {op: family(list(zip(laid[op], acc[op]))) for op in (a, b)}
        if all(_fires(fams[x], fams[y], lag, identical) == (target is not None and rule_id == target.id)
               for rule_id, x, y, lag, identical in rules):
            return follow
    return first


def _iteration_rules(env: Env, draft: Draft, a: str, b: str) -> list[tuple[str, str, str, tuple, bool]]:
    """(id, operands, lag, identical allowed) of the iteration_overlap rules between a and b that hold for
    the call, and of the checks of the ambiguities whose region it is in (less the rules they override)."""
    probe = draft.template.replace(**nest(draft.params))
    out, overridden = [], set()
    for amb in env.spec.ambiguities:
        if any(env.rulebook.matches(region, probe, env.spec) for region in amb.regions):
            overridden.update(amb.overrides)
            out += [(amb.id, *_shape(t)) for t in amb.checks if t.kind == "iteration_overlap"]
    out += [(r.id, *_shape(r)) for r in env.spec.rules_of("iteration_overlap")
            if r.id not in overridden and env.rulebook.matches(r.when, probe, env.spec)]
    return [rule for rule in out if {rule[1], rule[2]} == {a, b} and rule[1] != rule[2]]


def _shape(rule: Rule) -> tuple[str, str, tuple, bool]:
    lo, hi = rule.get("lag", [0, 0])
    return rule["operands"][0], rule["operands"][1], (lo, hi), rule.get("allow") == "identical"


def _fires(fa: Any, fb: Any, lag: tuple, identical: bool) -> bool:
    """Does an iteration of fa meet one of fb with the lag, as the iteration_overlap kind reads it?"""
    return first_meeting(fa, fb, lag, identical=identical and len(fa.base) == len(fb.base)) is not None


def _floors(env: Env, draft: Draft, target: Rule | None, acc: Mapping[str, Any], ops: list[str]) -> dict[str, int]:
    """For a reach target whose offsets an offset_range rule also bounds: the lowest address its operand
    may have in its scope. The offset that sends an element past the scope's top must stay in the range:
    the operand's base at most `max` (less an element) under the top. Placed there or higher (last in
    its scope), the call breaks the reach rule alone."""
    if target is None or target.kind != "reach" or target["operand"] not in ops:
        return {}
    op = target["operand"]
    limit = offset_limit(env, draft.template.replace(**nest(draft.params)), env.spec.operands[op]["addressed_by"])
    if limit is None:
        return {}
    width = frame_of(env, draft).units["element"]
    return {op: env.capacity(draft.scopes[op]) - limit + width - acc[op].begin}


def _span(env: Env, op: str, runs: Any, align: int) -> tuple[int, int]:
    """The bytes an operand's footprint spans from its address (a list operand: from its entries' own
    addresses, the widest). An offset-addressed operand touches what its offsets say (values.py aims one
    at the other operand's bytes, anywhere above its base): at least two alignment units from its base,
    so that the other operand can sit on the alignment grid above that base, at its address or not."""
    if isinstance(runs, list):
        return min((r.begin for r in runs), default=0), max((r.end for r in runs), default=0)
    if env.spec.operands[op].get("addressed_by"):
        return runs.begin, max(runs.end, runs.begin + 2 * align)
    return runs.begin, runs.end


def _collide(pick: Picks, offsets: list[int], runs: Any, lag: list) -> list[int]:
    """Two entries of one list operand at the same place; at a lag of k >= 1 iterations, one k runs of
    the other on (a step of 0: every entry meets its own later runs wherever it lies)."""
    require(len(offsets) >= 2)
    i, j = pick.integer(0, len(offsets) - 1, "collide.first"), pick.integer(0, len(offsets) - 2, "collide.second")
    j += j >= i
    out = list(offsets)
    lo, hi = lag[0], runs.count - 1 if lag[1] is None else min(lag[1], runs.count - 1)
    if lo <= 0:
        out[j] = out[i]
    elif runs.step:
        require(lo <= hi)
        out[j] = out[i] + pick.integer(lo, hi, "collide.lag") * runs.step
        require(out[j] >= 0 and out[j] not in offsets)      # on no entry's own place (that is lag 0)
    return out


def place(pick: Picks, env: Env, draft: Draft, target: Rule | None) -> dict[str, Any]:
    acc = accesses(env, draft, draft.params)
    ends = operand_ends(acc)
    rooms = {op: operand_end(draft, op, acc[op]) for op in acc}     # ends, and landing rooms kept free
    frame = frame_of(env, draft)
    aligns = frame.op_aligns
    kind = target.kind if target is not None else None
    itemsize = {op: env.rulebook.itemsize(d) for op, d in draft.dtypes.items()}
    addrs: dict[str, list[int]] = {}
    limit: dict[str, int] = {}                      # byte where an operand's tensors end (slices run to it)
    for scope in sorted(set(draft.scopes.values())):
        ops = [op for op in env.spec.operands if draft.scopes[op] == scope]
        align = frame.aligns[scope]                 # the lcm of its operands' alignments
        cap = scope_capacity(env, draft, scope)
        unit = {op: entry_unit(acc[op], align) for op in ops}
        offsets = {op: [i * unit[op] for i in range(draft.count(op))] for op in ops}
        pair = _pairing(pick, env, draft, target, ops, acc, align)
        lead = {op: op for op in ops}
        if pair is not None:
            lead[pair[1]] = pair[0]

        def slots() -> dict[str, _Slot]:
            out: dict[str, _Slot] = {}
            for op in ops:
                if lead[op] == op:
                    out[op] = _Slot([(op, i, o) for i, o in enumerate(offsets[op])], 0)
            if pair is not None:
                a, b, follow, _ = pair
                offsets[b] = follow(offsets[a])
                out[a].members += [(b, i, o) for i, o in enumerate(offsets[b])]
            for slot in out.values():
                low = min(o for _, _, o in slot.members)
                slot.members = [(op, i, o - low) for op, i, o in slot.members]
                slot.size = round_up(max(o + rooms[op] for op, _, o in slot.members), align)
                slot.kept = slot.size - round_up(max(o + ends[op] for op, _, o in slot.members), align)
            return out

        def room(placed: Mapping[str, _Slot]) -> int:
            free = cap - sum(s.size for s in placed.values())
            return free if scope != "GM" else min(free, GM_SPREAD)

        placed = slots()
        require(room(placed) >= 0)
        apart = apart_ops(env, target, draft.template.replace(**nest(draft.params)))
        for op in ops:                              # list operands: how their entries spread
            if lead[op] == op and draft.count(op) > 1 and env.spec.is_list(op):
                offsets[op], style = _layout(pick, draft.count(op), unit[op], room(placed) // unit[op], op)
                if op in apart and meets_itself(apart[op], offsets[op], acc[op]):
                    offsets[op], style = lanes(draft.count(op), unit[op], acc[op][0].step, acc[op][0].count), "lanes"
                    require(offsets[op] is not None)
                draft.tags.append(f"{op}={style}")
                placed = slots()
                if kind == "iteration_overlap" and target["operands"] == [op, op]:
                    offsets[op] = _collide(pick, offsets[op], acc[op][0], target.get("lag", [0, 0]))
                    placed = slots()
        if pair is not None and pair[3]:
            def fits(follow: Follow | None, a: str = pair[0], b: str = pair[1]) -> bool:
                """Does the scope still hold its slots with b following a so (None: b in a slot of its own)?"""
                def size(members: list[tuple[str, int]]) -> int:
                    low = min(o for _, o in members)
                    return round_up(max(o - low + rooms[op] for op, o in members), align)
                mine = [(a, o) for o in offsets[a]]
                if follow is None:
                    sizes = size(mine) + size([(b, i * unit[b]) for i in range(draft.count(b))])
                else:
                    sizes = size(mine + [(b, o) for o in follow(offsets[a])])
                return sizes <= room(placed) + placed[a].size
            settled = _settle(env, draft, target, acc, offsets, pair, fits)
            if settled is None:                     # apart: b's own slot, its entries packed
                lead[pair[1]], offsets[pair[1]] = pair[1], [i * unit[pair[1]] for i in range(draft.count(pair[1]))]
                draft.tags.remove(f"{pair[1]}=in-place")
                pair = None
            else:
                pair = (pair[0], pair[1], settled, [])
            placed = slots()
        if kind == "align" and target["operand"] in ops:
            placed[lead[target["operand"]]].size += align
        require(room(placed) >= 0)
        slack = {}
        for key, slot in placed.items():            # slack: tensors larger than what the call touches
            slack[key] = 0
            if kind not in ("bounds",) and pick.boolean(f"{scope}.slack"):
                slack[key] = pick.integer(0, max(room(placed), 0) // align, f"{scope}.slack") * align
                slot.size += slack[key]
        require(cap - sum(s.size for s in placed.values()) >= 0)
        order = rotated(pick, sorted(placed), f"{scope}.order")
        floors = {lead[op]: (op, low) for op, low in _floors(env, draft, target, acc, ops).items()}
        order = [k for k in order if k not in floors] + [k for k in order if k in floors]
        cursor = 0
        for i, key in enumerate(order):
            least = 0
            if key in floors:           # the least gap that puts the operand at its floor or above
                op, low = floors[key]
                at = min(o for m, _, o in placed[key].members if m == op)
                least = max(0, -(-(low - cursor - at) // align))
                require(least <= max(room(placed), 0) // align)
            gap, _ = pick_between(pick, least, max(room(placed), 0) // align, f"{scope}.gap")
            placed[key].size += gap * align
            cursor += gap * align
            slot = placed[key]
            for op, entry, offset in slot.members:
                if op not in addrs:
                    addrs[op] = [0] * draft.count(op)
                addrs[op][entry] = cursor + offset
            for op in {op for op, _, _ in slot.members}:
                reach = max(o + ends[op] for m, _, o in slot.members if m == op)
                limit[op] = cursor + reach + slack[key]
            cursor += slot.size - gap * align
            if cursor - slot.kept == cap and i == len(order) - 1 and scope != "GM":
                draft.tags.append(f"{scope}=top")
    numel = {op: [-(-(limit[op] - a) // itemsize[op]) for a in addrs[op]] for op in env.spec.operands}
    if kind in ("align", "bounds", "capacity"):
        op = target["operand"]
        k = pick.integer(0, draft.count(op) - 1, f"{op}.entry")
        if kind == "align":         # the entry furthest up: misaligned into the slot's spare unit, not onto a neighbour
            k = max(range(draft.count(op)), key=lambda i: addrs[op][i])
        runs = acc[op][k] if isinstance(acc[op], list) else acc[op]
        if kind == "align":
            need = env.rulebook.align_bytes(target, env.product, itemsize[op])
            require(draft.scopes[op] == target["scope"])
            deltas = misalignments(itemsize[op], aligns[op], need, target["bytes"] == "element")
            require(deltas)
            delta = pick.choice(deltas, f"{op}.misalign")
            addrs[op][k] += delta
            numel[op][k] = max(numel[op][k] - 1, -(-runs.end // itemsize[op]))
            draft.tags.append(f"{op}=off-by-{delta}")
        elif kind == "bounds":
            require(runs.end > 0)
            numel[op][k] = _short(pick, env, draft, target, runs, itemsize[op])
        elif target.get("reserve"):     # an ambiguity's reserved top of the scope: the tensor ends in it
            require(draft.scopes[op] != "GM")
            top = env.capacity(draft.scopes[op])
            edge = (top - target["reserve"] - addrs[op][k]) // itemsize[op] + 1     # one element into it
            high = (top - addrs[op][k]) // itemsize[op]
            require(max(edge, -(-runs.end // itemsize[op])) <= high)
            numel[op][k], _ = pick_between(pick, max(edge, -(-runs.end // itemsize[op])), high, f"{op}.reserved")
            if numel[op][k] in (edge, high):
                draft.tags.append(f"{op}={'reserve-edge' if numel[op][k] == edge else 'top'}")
        else:
            require(draft.scopes[op] != "GM")
            extra = pick.integer(0, 3, f"{op}.past")
            numel[op][k] = (env.capacity(draft.scopes[op]) - addrs[op][k]) // itemsize[op] + 1 + extra
            if extra == 0:
                draft.tags.append(f"{op}=one-past-top")
    out: dict[str, Any] = {}
    for op in env.spec.operands:
        tensors = [Tensor(draft.scopes[op], a, draft.dtypes[op], n) for a, n in zip(addrs[op], numel[op])]
        out[op] = tensors if env.spec.is_list(op) else tensors[0]
    return out


def _short(pick: Picks, env: Env, draft: Draft, target: Rule, runs: Any, itemsize: int) -> int:
    """The elements of a tensor that ends short of what its entry touches: one element short of its
    runs' end; with `half_by` (the half of each block an 8-bit entry touches), past the end of the low
    half touched but short of the block's (1 .. half bytes short: an ambiguity's region); for a plain
    bounds target that such an ambiguity overrides on this call, one element short of the half."""
    op, half = target["operand"], runs.length // 2
    low_end = runs.end - half                   # the low half of the last block ends here
    if target.get("half_by"):
        require(itemsize == 1 and not draft.params[target["half_by"]])
        n, _ = pick_between(pick, low_end, runs.end - 1, f"{op}.short")
        if n in (low_end, runs.end - 1):        # ends with the half / one byte short of the block
            draft.tags.append(f"{op}={'half-end' if n == low_end else 'one-short'}")
        return n
    probe = draft.template.replace(**nest(draft.params))
    halved = [c for amb in env.spec.ambiguities if target.id in amb.overrides for c in amb.checks
              if c.kind == "bounds" and c["operand"] == op and c.get("half_by")
              and any(env.rulebook.matches(r, probe, env.spec) for r in amb.regions)]
    draft.tags.append(f"{op}=one-short")
    if any(itemsize == 1 and not draft.params[c["half_by"]] for c in halved):
        return -(-low_end // itemsize) - 1
    return -(-runs.end // itemsize) - 1
