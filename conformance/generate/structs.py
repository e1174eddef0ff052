"""Drawing the list-of-struct arguments of a call (parameters of type `structs`, a SliceInfo[] and the int
parameter that holds its length): a step of drawing its parameters (parameters.py), before the scalar ones.
The kind of the rules that name the lists (`lists`) draws them, legal or breaking its target; this step hands it
the call's units and scopes, the room each scope leaves, and the length's legal values (or the value one past
them that a range rule on the length asks for)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from oracle.kinds import kind_of, require
from oracle.spec import Rule

from conformance.generate.draft import CallDraft, frame_of, scope_capacity
from conformance.generate.environment import Env
from conformance.generate.picks import Picks


@dataclass
class ListsRequest:
    """What a kind's draw_lists reads: the lists (and their operands' scopes), the units, the bytes each may
    span, the length's legal intervals (or a `forced` length), the target and the tags to add to."""

    lists: list[str]
    scopes: dict[str, str]
    units: Mapping[str, int]
    room: dict[str, int]
    domain: list[tuple[int, int]]
    forced: int | None
    target: Rule | None
    tags: list[str] = field(default_factory=list)


def draw_structs(pick: Picks, env: Env, draft: CallDraft, target: Rule | None,
                 domains: Mapping[str, list[tuple[int, int]]]) -> dict[str, Any]:
    """The lists and their lengths; a range target on a length gets its value one past the range here."""
    out: dict[str, Any] = {}
    frame = frame_of(env, draft)
    target_kind = kind_of(target)
    for group in env.struct_groups:
        length, forced = group.length, None
        if target is not None and target_kind.forced_param(target) == length:
            forced, tag = target_kind.outside(target, pick, 1, lambda v: v >= 0)
            draft.tags.append(tag)
        scopes = {name: draft.scopes[op] for name, op in zip(group.lists, group.operands)}
        request = ListsRequest(list(group.lists), scopes, frame.units,
                               {name: scope_capacity(env, draft, s) for name, s in scopes.items()},
                               list(domains.get(length, ())), forced, target, draft.tags)
        lists, value = kind_of(group.rule).draw_lists(pick, request)
        require(value >= 0)
        out.update(lists)
        out[length] = value
        if forced is None and request.domain:
            lo, hi = request.domain[0][0], request.domain[-1][1]
            if value in (lo, hi):
                draft.tags.append(f"{length}={'min' if value == lo else 'max'}")
    return out
