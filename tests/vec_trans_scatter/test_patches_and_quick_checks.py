"""Two shortcuts of TIK vec_trans_scatter (000_4bcb8e5856d111e9.txt) held to the ways they stand for:

- `patched`: a legal call's written bytes as one span (what the judge compares piece by piece) must be
  the image `apply` leaves on a whole copy, byte for byte, the input untouched;
- the iteration_overlap kind tells many calls apart from the entries' addresses alone (`_told_apart`):
  its verdict and message must be those the families' arrays give, on calls that meet and calls that
  do not.
"""
from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest

from oracle import Call, Tensor, check, expected
from oracle.apis import vec_trans_scatter
from oracle.expected import patched_image
from oracle.kinds import RULE_KINDS
from oracle.kinds import iteration_overlap
from oracle.rules import context
from oracle.spec import default_rulebook

BOOK = default_rulebook()
UB = 196608


def vts(dst: list[int], src: list[int], dtype: str = "float16", repeat: int = 1, dst_stride: int = 0,
        src_stride: int = 0, dst_high: bool = False, src_high: bool = False) -> Call:
    width = BOOK.itemsize(dtype)
    return Call("vec_trans_scatter", "ascend910b", {
        "dst_high_half": dst_high, "src_high_half": src_high,
        "dst_list": [Tensor("UB", a, dtype, (min(a + 32768, UB) - a) // width) for a in dst],
        "src_list": [Tensor("UB", a, dtype, (min(a + 32768, UB) - a) // width) for a in src],
        "repeat_times": repeat, "dst_rep_stride": dst_stride, "src_rep_stride": src_stride})


PACKED = [32 * i for i in range(16)]
SCATTERED = [32 * k for k in (7, 3, 12, 0, 9, 15, 1, 4, 14, 2, 11, 6, 13, 5, 10, 8)]
LEGAL = [
    vts([65536 + a for a in PACKED], PACKED),                                       # the page's example
    vts([65536 + a for a in SCATTERED], PACKED, repeat=5, dst_stride=16, src_stride=16),
    vts(PACKED, PACKED, repeat=3, dst_stride=16, src_stride=16),                    # in place
    vts([8192 + a for a in SCATTERED], SCATTERED, "int8", repeat=4, dst_stride=20, src_stride=17, dst_high=True,
        src_high=True),
    vts([100000 + a for a in PACKED], PACKED, "float32", repeat=2, dst_stride=16, src_stride=32),
    vts([UB - 512 + a for a in PACKED], PACKED, "int16"),                           # up to the top of UB
    vts([65536 + a for a in PACKED], PACKED, repeat=0),                             # nothing moves
]


@pytest.mark.parametrize("call", LEGAL, ids=range(len(LEGAL)))
def test_a_legal_call_s_patch_is_the_image_apply_leaves(call):
    ctx = context(call)
    assert not check(call, readings={"vec_trans_scatter.repeat_times.zero": "nop"})
    ub = np.random.default_rng(7).integers(0, 256, UB, dtype=np.uint8)
    whole = ub.copy()
    vec_trans_scatter.apply(call, {"UB": whole}, ctx.units)
    frozen = ub.copy()
    frozen.flags.writeable = False
    (scope, (lo, data)), = vec_trans_scatter.patched(call, {"UB": frozen}, ctx.units).items()
    assert scope == "UB" and not data.flags.writeable
    assert patched_image(frozen, lo, data).tobytes() == whole.tobytes()
    assert frozen.tobytes() == ub.tobytes()
    if call.args["repeat_times"]:
        assert not (whole[:lo] != ub[:lo]).any() and data.size <= UB - lo
    lazy = expected(call, {"UB": frozen}, violations=(), patches=True)     # the judge's way: input kept
    assert lazy.memory["UB"] is frozen and set(lazy.patches) == {"UB"}
    lazy.materialize()
    assert lazy.memory["UB"].tobytes() == whole.tobytes()


def test_repeats_writing_one_block_keep_the_later_write_in_the_patch():
    call = vts([65536 + a for a in PACKED], PACKED, repeat=3, dst_stride=1, src_stride=16)
    units = context(call).units
    ub = np.random.default_rng(9).integers(0, 256, UB, dtype=np.uint8)
    whole = ub.copy()
    vec_trans_scatter.apply(call, {"UB": whole}, units)
    (_, (lo, data)), = vec_trans_scatter.patched(call, {"UB": ub}, units).items()
    assert patched_image(ub, lo, data).tobytes() == whole.tobytes()


def test_the_readings_that_move_otherwise_are_patched_as_apply_moves_them():
    call = vts([65536 + a for a in PACKED], [a + 512 for a in PACKED], repeat=1, dst_stride=3, src_stride=2)
    first = vec_trans_scatter._stride_on_single_repeat(context(call).units)
    ub = np.random.default_rng(11).integers(0, 256, UB, dtype=np.uint8)
    whole = ub.copy()
    vec_trans_scatter.apply(call, {"UB": whole}, first)
    (_, (lo, data)), = vec_trans_scatter.patched(call, {"UB": ub}, first).items()
    assert patched_image(ub, lo, data).tobytes() == whole.tobytes()
    in_order = vec_trans_scatter._in_order(context(call).units)
    assert vec_trans_scatter.patched(call.replace(repeat_times=2), {"UB": ub}, in_order) is None


def _random_call(rnd: random.Random) -> Call:
    grid = rnd.choice([16, 32, 64])

    def addrs() -> list[int]:
        base, how = rnd.randrange(0, 256) * 32, rnd.random()
        if how < 0.3:
            return [base + 32 * i for i in range(16)]
        if how < 0.6:
            return [base + 32 * rnd.randrange(0, 48) for _ in range(16)]
        return [grid * rnd.randrange(0, 160) for _ in range(16)]
    dst = addrs()
    src = list(dst) if rnd.random() < 0.25 else addrs()
    stride = rnd.choice([0, 1, 2, 16, 17])
    return vts(dst, src, rnd.choice(["int8", "float16", "float32"]), rnd.choice([0, 1, 2, 3, 7]),
               stride, stride if rnd.random() < 0.5 else rnd.choice([0, 1, 16, 40]),
               rnd.random() < 0.3, rnd.random() < 0.3)


LAGS = ([0, 0], [1, 1], [2, None], [1, None], [0, None], [1, 3])
PAIRS = (["dst_list", "src_list"], ["src_list", "dst_list"], ["dst_list", "dst_list"], ["src_list", "src_list"])


def test_calls_told_apart_from_their_addresses_are_judged_as_the_families_judge_them(monkeypatch):
    template = next(r for r in BOOK.api("vec_trans_scatter").rules if r.kind == "iteration_overlap")
    kind, rnd = RULE_KINDS["iteration_overlap"], random.Random(12)
    told = met = 0
    for _ in range(250):
        ctx = context(_random_call(rnd))
        for lag in LAGS:
            for ops in PAIRS:
                for allow in ({}, {"allow": "identical"}):
                    fields = {k: v for k, v in template.fields.items() if k != "allow"}
                    rule = replace(template, fields={**fields, "lag": lag, "operands": ops, **allow})
                    quick = kind.check(rule, ctx)
                    with monkeypatch.context() as patch:
                        patch.setattr(iteration_overlap, "_told_apart", lambda *args: False)
                        vars(ctx).pop("_meetings", None)        # asked afresh, not remembered
                        assert kind.check(rule, ctx) == quick
                    told += iteration_overlap._told_apart(ctx, *ops, *lag, bool(allow))
                    met += quick is not None
    assert told > 3000 and met > 1000          # both ways taken, often
