"""The call being drawn (`CallDraft`: its form, dtypes, scopes, parameters and tags as the steps fill
them in) and the footprints its parameters give: what parameters.py sizes and placement.py places."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

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
    math_ = frame.math
    call = frame.template.replace(**(nest(params) if env.nested else params))
    if plain:
        return math_.accesses(call, frame.units)

    def sized(units: Mapping[str, int]) -> dict[str, Any]:
        acc = math_.accesses(call, units)
        if None in acc.values():        # offset-addressed: size it as if offsets were 0, w, 2w...
            acc.update(math_.nominal(call, units))
        return acc
    return _widest_reading(sized, frame)


def extents(env: Env, draft: CallDraft, params: Mapping[str, int]) -> dict[str, Any]:
    """accesses' ends and bytes moved, all that sizing reads: in closed form where the index math gives
    them (`extents`: Scatter's and asc_gather's repeat forms would build their element arrays)."""
    frame = frame_of(env, draft)
    closed = getattr(frame.math, "extents", None)
    if closed is None:
        return accesses(env, draft, params)
    call = frame.template.replace(**(nest(params) if env.nested else params))
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
