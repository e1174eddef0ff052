"""The drawing steps steer a call to break its target rule alone, so that the final check (strategies._case:
exactly the target's violation, or none) throws few draws away: a draw it rejects costs nearly a whole
call. Counted on seeded draws, never timed: each bound here is one the generator before the
steering exceeded (in brackets, the share of its draws the final check threw away)."""
from __future__ import annotations

import random
from collections import Counter
from typing import Any, Sequence

import pytest

from oracle.rules import context, violations
from oracle.spec import default_rulebook

from conformance.generate.environment import environment
from oracle.kinds import Retry
from conformance.generate.picks import Picks
from conformance.generate import strategies
from conformance.generate.strategies import drawn

DRAWS = 120


class Seeded(Picks):
    """Choices from a seeded random generator, small values favoured as Hypothesis's are."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def integer(self, lo: int, hi: int, label: str = "") -> int:
        if self.rng.random() < 0.5:
            hi = min(hi, lo + (1 << self.rng.randrange(max(1, (hi - lo).bit_length()))))
        return self.rng.randint(lo, hi)

    def choice(self, values: Sequence[Any], label: str = "") -> Any:
        return values[self.rng.randrange(len(values))]

    def boolean(self, label: str = "") -> bool:
        return self.rng.random() < 0.5

    def how(self, label: str = "") -> str:
        return self.rng.choice(("min", "any", "any", "max"))


def outcomes(api: str, product: str, rule_id: str | None, draws: int = DRAWS) -> tuple[Counter, Counter]:
    """Of `draws` seeded draws for a cell: what the oracle found in those drawn to the end (a tuple of rule
    ids; `()` is a legal call), and the tags of those it keeps."""
    env = environment(api, product, default_rulebook())
    target = env.rule(rule_id) if rule_id is not None else None
    rng, found, tags = random.Random(20), Counter(), Counter()
    for _ in range(draws):
        try:
            call, memory, draft, ctx, _ = drawn(Seeded(rng), env, target, None, None, env.spec.forms_or_default())
        except Retry:
            found["retry"] += 1
            continue
        if env.has_values:
            ctx = context(call, memory.build(), env.rulebook)
        got = tuple(sorted(v.rule for v in violations(ctx)))
        found[got] += 1
        if got == ((rule_id,) if rule_id is not None else ()):
            tags.update(draft.tags)
    return found, tags


def thrown_away(found: Counter, rule_id: str | None) -> float:
    """The share of the draws that the final check would throw away (drawn to the end, wrong rules)."""
    wanted = (rule_id,) if rule_id is not None else ()
    return sum(n for k, n in found.items() if k not in ("retry", wanted)) / DRAWS


# The overlap targets keep fewer draws: their offsets must stay distinct (two alike are the ambiguity
# scatter.offset.duplicate) beside the operand one of them lands on, and a count near UB's capacity
# leaves too few free slots within the 8/16-bit offset range; such a draw is retried, never thrown away.
@pytest.mark.parametrize("rule_id, bound, kept", [
    ("scatter.offset.range_16bit_310b", 0.05, 3 / 4),     # (0.70: the past-range offset landed past UB or on the offsets)
    ("scatter.offset.range_8bit_310b", 0.05, 3 / 4),      # (0.65)
    ("scatter.dstLocal.reach", 0.05, 3 / 4),              # (0.52: past UB, but also past the 8/16-bit range)
    ("scatter.overlap.src", 0.05, 2 / 3),                 # (0.18: repeatTimes 0, or a hit between sparse runs)
    ("scatter.overlap.offsets", 0.05, 2 / 3),             # (0.27)
    ("scatter.srcRepStride.range", 0.05, 3 / 4),          # (0.26: srcRepStride -1 walked src below its address)
])
def test_scatter_draws_break_the_target_alone(rule_id: str, bound: float, kept: float) -> None:
    found, tags = outcomes("scatter", "ascend310b", rule_id)
    assert thrown_away(found, rule_id) <= bound, found
    assert sum(found.values()) - found["retry"] >= DRAWS * kept, found


def test_scatter_offset_range_keeps_its_edge() -> None:
    """The landing room changes where dst lies, not what the cell reaches: one past the range, every shape."""
    _, tags = outcomes("scatter", "ascend310b", "scatter.offset.range_16bit_310b")
    assert tags["dstOffsetLocal=past-range"] >= DRAWS * 3 // 4
    assert {"count=largest-fit", "repeatTimes=max"} & set(tags), tags


@pytest.mark.parametrize("rule_id, bound", [
    ("vec_trans_scatter.overlap.repeat_same_iteration", 0.2),   # (0.78: a stride met the other list later too)
    ("vec_trans_scatter.overlap.single_repeat", 0.05),         # (0.38: no block shared, or flags that differ)
    ("vec_trans_scatter.src_list.capacity", 0.0),              # (0.30: a 32-bit dtype, its top reserved)
    ("vec_trans_scatter.dst_list.capacity", 0.0),              # (0.30)
    ("vec_trans_scatter.src_rep_stride.range", 0.0),           # (0.41: -1 walked src below its address)
    (None, 0.05),                                              # (0.14: in place, with strides that part)
])
def test_vec_trans_scatter_draws_break_the_target_alone(rule_id: str | None, bound: float) -> None:
    found, _ = outcomes("vec_trans_scatter", "ascend910b", rule_id)
    assert thrown_away(found, rule_id) <= bound, found
    assert sum(found.values()) - found["retry"] >= DRAWS * 3 // 4, found


def test_legal_in_place_use_is_still_drawn() -> None:
    """In-place use is given up only where a stride would break an iteration rule: it is still drawn."""
    _, tags = outcomes("vec_trans_scatter", "ascend910b", None, draws=200)
    assert tags["src_list=in-place"] >= 10, tags


@pytest.mark.parametrize("rule_id, bound", [
    (None, 0.0),                                    # (0.01: no padding, blockLen off 32 bytes: a dummy region)
    ("data_copy_pad.blockLen.range", 0.0),          # (0.07: blockLen -1, no padding)
    ("data_copy_pad.blockLen.multiple", 0.0),       # (0.28: an element of one byte, every blockLen a multiple)
    ("data_copy_pad.paddingValue.b32", 0.0),        # (0.06)
    ("data_copy_pad.paddingValue.b64", 0.0),        # (0.06)
])
def test_data_copy_pad_draws_break_the_target_alone(rule_id: str | None, bound: float) -> None:
    """A call its parameters alone doom (in a dummy region, or a multiple of one) is given up before it
    is placed, so none drawn to the end is thrown away."""
    found, _ = outcomes("data_copy_pad", "ascend910b", rule_id)
    assert thrown_away(found, rule_id) <= bound, found
    assert sum(found.values()) - found["retry"] >= DRAWS * 2 // 3, found


@pytest.mark.parametrize("rule_id", [None, "data_copy_pad.blockLen.range", "data_copy_pad.blockLen.multiple",
                                     "data_copy_pad.src.bounds", "data_copy_pad.paddingValue.b64"])
def test_a_draw_given_up_after_its_parameters_is_one_the_final_check_throws_away(
        rule_id: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The calls given up once their parameters are drawn, drawn to the end instead: each one the final
    check throws away (never a call it keeps), and in the cells above most of those it throws away."""
    asked: list[bool] = []
    real_region, real_multiple = strategies._in_flagged_region, strategies._multiple_breakable
    monkeypatch.setattr(strategies, "_in_flagged_region", lambda env, draft: asked.append(real_region(env, draft)))
    monkeypatch.setattr(strategies, "_multiple_breakable",
                        lambda frame, target: asked.append(not real_multiple(frame, target)) or True)
    env = environment("data_copy_pad", "ascend910b", default_rulebook())
    target = env.rule(rule_id) if rule_id is not None else None
    rng, wanted, doomed = random.Random(20), (rule_id,) if rule_id is not None else (), Counter()
    for _ in range(DRAWS):
        asked.clear()
        try:
            call, *_ = drawn(Seeded(rng), env, target, None, None, env.spec.forms_or_default())
        except Retry:
            continue
        kept = tuple(sorted(v.rule for v in violations(context(call, None, env.rulebook)))) == wanted
        assert not (any(asked) and kept), call.to_json()
        doomed[any(asked), kept] += 1
    assert doomed[True, False] >= doomed[False, False] and doomed[False, True] >= DRAWS // 2, doomed
