"""The call being drawn (`CallDraft`: its form, dtypes, scopes, parameters and tags as the steps fill
them in) and the footprints its parameters give: what parameters.py sizes and placement.py places."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from oracle import Call
from oracle.call import nest
from oracle.kinds import kind_of
from oracle.spec import Rule

from conformance.generate.environment import Env, Frame, round_up


@dataclass
class CallDraft:
    """The call being drawn."""

    form: str | None
    dtypes: dict[str, str]
    scopes: dict[str, str]
    params: dict[str, int] = field(default_factory=dict)
    tags: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)    # entries of each list operand
    spare: bool = False                      # leave one alignment unit per operand (to misalign one)
    frame: Frame | None = None               # what its form, dtypes, scopes and counts fix (frame_of)
    landing: dict[str, int] = field(default_factory=dict)   # bytes from its base an operand keeps (landing_room)
    parted: tuple[str, ...] = ()             # operands whose writes are kept apart (parted_params)

    def count(self, op: str) -> int:
        return self.counts.get(op, 1)

    @property
    def template(self) -> Call | None:
        """The probe call the index math is asked about (once the draft has its frame)."""
        return self.frame.template if self.frame is not None else None


def frame_of(env: Env, draft: CallDraft) -> Frame:
    """The draft's frame, shared by every draft of the same form, dtypes, scopes and counts."""
    if draft.frame is None:
        draft.frame = env.frame(draft.form, draft.dtypes, draft.scopes, draft.counts)
    return draft.frame


def landing_room(env: Env, draft: CallDraft, target: Rule | None) -> dict[str, int]:
    """The bytes from its base each operand keeps to itself for the target's sake (RuleKind.landing_room)."""
    return kind_of(target).landing_room(target, env, lambda: frame_of(env, draft).units["element"])


def written_once(env: Env, target: Rule | None) -> list[str]:
    """The operands the self_overlap rules that hold for every call keep from writing a byte twice, but the
    one the target's rule would have write twice (once per environment and target: read only)."""
    known = env.__dict__.setdefault("_written_once", {})
    key = target.id if target is not None else None
    if key not in known:
        known[key] = [op for r in env.spec.rules if not r.when and (target is None or r.id != target.id)
                      for op in [kind_of(r).self_overlapping(r)] if op is not None]
    return known[key]


def writes_twice(runs: Any) -> bool:
    """Does a footprint write a byte twice (one without `self_overlaps`: never)?"""
    return bool(getattr(runs, "self_overlaps", lambda: False)())


def part(env: Env, draft: CallDraft, target: Rule | None) -> None:
    """The draft's operands kept from writing a byte twice (written_once), where its index math says how
    (`apart`): the parameters are sized, then drawn, with those operands' writes apart."""
    if getattr(frame_of(env, draft).math, "apart", None) is not None:
        draft.parted = tuple(written_once(env, target))


def _call(env: Env, frame: Frame, params: Mapping[str, Any]) -> Call:
    template = frame.template                   # template.replace(...), less its keyword arguments
    return Call(template.api, template.product, {**template.args, **(nest(params) if env.nested else params)},
                template.form)


def parted_call(env: Env, draft: CallDraft, params: Mapping[str, Any]) -> tuple[Call, dict[str, Any]]:
    """The call with `params`, the strides of the draft's parted operands raised as far as their index
    math's `apart` says keeps their writes apart (on each parameter's multiples), and those raised."""
    frame = frame_of(env, draft)
    call, raised = _call(env, frame, params), {}
    for op in draft.parted:
        more = {n: -(-v // frame.steps[n]) * frame.steps[n] for n, v in frame.math.apart(call, frame.units, op).items()}
        if more:
            raised.update(more)
            call = call.replace(**{head: {**call.args[head], **value} if isinstance(value, dict) else value
                                   for head, value in (nest(more) if env.nested else more).items()})
    return call, raised


def operand_end(draft: CallDraft, op: str, runs: Any) -> int:
    """How far from its address an operand reaches: its footprint's end, or the end of its landing room."""
    end = _end(runs)
    if op in draft.landing:
        end = max(end, runs.begin + draft.landing[op])
    return end


def accesses(env: Env, draft: CallDraft, params: Mapping[str, int], plain: bool = False) -> dict[str, Any]:
    """The operands' footprints with `params`, each as far as any reading of an ambiguity reaches (`plain`:
    as the oracle's check sees them, offset-addressed ones None)."""
    frame = frame_of(env, draft)
    call = _call(env, frame, params)
    return frame.math.accesses(call, frame.units) if plain else _footprints(frame, call)


def plain_accesses_along(env: Env, draft: CallDraft, params: Mapping[str, Any], name: str
                         ) -> Callable[[int], dict[str, Any]]:
    """value -> accesses(env, draft, {**params, name: value}, plain=True), for a search that tries many
    values of one parameter: the call's other arguments are made once, each value changing its one field."""
    frame = frame_of(env, draft)
    template, math, units = frame.template, frame.math, frame.units
    nested = nest(params) if env.nested else dict(params)
    args = {**template.args, **nested}
    head, _, field = name.partition(".") if env.nested else (name, "", "")
    fields = nested.get(head, {}) if field else None

    def at(value: int) -> dict[str, Any]:
        moved = {**args, head: {**fields, field: value}} if fields is not None else {**args, name: value}
        return math.accesses(Call(template.api, template.product, moved, template.form), units)
    return at


def _footprints(frame: Frame, call: Call) -> dict[str, Any]:
    if frame.variant_units:
        return _widest_reading(lambda units: _sized(frame.math, call, units), frame)
    return _sized(frame.math, call, frame.units)


def _sized(math: Any, call: Call, units: Mapping[str, int]) -> dict[str, Any]:
    acc = math.accesses(call, units)
    if None in acc.values():        # offset-addressed: size it as if offsets were 0, w, 2w...
        acc.update(math.nominal(call, units))
    return acc


def extents(env: Env, draft: CallDraft, params: Mapping[str, int], parted: bool = True) -> dict[str, Any]:
    """accesses' ends and bytes moved, all that sizing reads, with the parted operands' writes apart
    (parted_call; not with `parted` False): in closed form where the index math gives them (`extents`:
    Scatter's and asc_gather's repeat forms, and a masked Copy's elements, would build their arrays)."""
    frame = frame_of(env, draft)
    call = parted_call(env, draft, params)[0] if draft.parted and parted else _call(env, frame, params)
    closed = getattr(frame.math, "extents", None)
    if closed is None:
        return _footprints(frame, call)
    if not frame.variant_units:
        return closed(call, frame.units)
    return _widest_reading(lambda units: closed(call, units), frame)


def _widest_reading(footprints: Any, frame: Frame) -> dict[str, Any]:
    """`footprints(units)` by the frame's units, each operand's replaced by a reading's where that
    reaches further (an ambiguity's call: the operands are sized for every reading)."""
    acc = footprints(frame.units)
    for units in frame.variant_units:
        other = footprints(units)
        acc = {op: other[op] if _end(other[op]) > _end(runs) else runs for op, runs in acc.items()}
    return acc


def _end(runs: Any) -> int:
    """One past the furthest byte from the address; 0 for bytes that all lie below it (a negative step,
    which its range rule refuses)."""
    return max((r.end for r in set(runs)), default=0) if isinstance(runs, list) else max(runs.end, 0)


def operand_ends(acc: Mapping[str, Any]) -> dict[str, int]:
    """Per operand: one past the last byte one of its tensors touches, from its address (a list
    operand: the furthest of its entries)."""
    return {op: _end(runs) for op, runs in acc.items()}


def entry_unit(runs: Any, align: int) -> int:
    """How far apart the entries of a list operand sit at least: one entry's run (a block), aligned."""
    length = max((r.length for r in set(runs)), default=0) if isinstance(runs, list) else 0
    return round_up(max(length, 1), align)


def scope_capacity(env: Env, draft: CallDraft, scope: str) -> int:
    """The bytes of `scope` the generators use: less what an ambiguity reserves at its top for calls
    like this one (vec_trans_scatter's 11 KB for 32-bit types)."""
    frame = frame_of(env, draft)
    if scope in frame.capacities:           # the frame's dtypes and scopes are fixed: once per scope
        return frame.capacities[scope]
    cap = env.capacity(scope)
    for amb in env.spec.ambiguities:
        reserves = [kind_of(t).reserved(t) for t in amb.checks if draft.scopes.get(t.get("operand")) == scope]
        reserves = [r for r in reserves if r is not None]
        if reserves and any(env.rulebook.matches(r, frame.template, env.spec) for r in amb.regions):
            cap = min(cap, env.capacity(scope) - max(reserves))
    frame.capacities[scope] = cap
    return cap
