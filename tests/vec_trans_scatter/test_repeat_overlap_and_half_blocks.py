"""Repeat overlap and half-block bounds of TIK vec_trans_scatter (000_4bcb8e5856d111e9.txt): two places
the page reads two ways, ambiguities whose readings are data:

- vec_trans_scatter.dst.repeat_overlap: with repeat_times > 1 two iterations write one dst block (a
  dst_rep_stride of 0, or one that walks an entry onto another's block). last_wins (legal: the later
  iteration's transpose stays, the default math) | undefined.
- vec_trans_scatter.src_list.half_block_bounds / dst_list.half_block_bounds: an int8/uint8 entry touches
  only the 16-byte half of its block that src_high_half / dst_high_half picks; a tensor that holds the low
  half touched but not its whole block. whole_block (refused, as the bounds rules judged it) | half_block
  (legal: only the half is read / written; no byte past the tensor changes).

Each reading's verdict and bytes are worked here by hand; the generator reaches each region.
"""
from __future__ import annotations

import numpy as np
import pytest

from conformance.generate.cells import Cell
from oracle import Call, IllegalCall, Tensor, check, expected
from oracle.spec import default_rulebook

BOOK = default_rulebook()
API = "vec_trans_scatter"
OVERLAP = "vec_trans_scatter.dst.repeat_overlap"
SRC_HALF = "vec_trans_scatter.src_list.half_block_bounds"
DST_HALF = "vec_trans_scatter.dst_list.half_block_bounds"
UB = 196608
DST = 64 << 10


def entries(base: int, dtype: str = "float16", n: int = 16, size: int = 16 << 10) -> list[Tensor]:
    item = 1 if dtype.endswith("int8") else 2
    return [Tensor("UB", base + i * 32, dtype, (size - i * 32) // item) for i in range(n)]


def vts(dtype: str = "float16", *, dst=None, src=None, repeat: int = 1, dst_stride: int = 0, src_stride: int = 0,
        dst_high: bool = False, src_high: bool = False) -> Call:
    return Call(API, "ascend910b", {
        "dst_high_half": dst_high, "src_high_half": src_high,
        "dst_list": dst if dst is not None else entries(DST, dtype),
        "src_list": src if src is not None else entries(0, dtype),
        "repeat_times": repeat, "dst_rep_stride": dst_stride, "src_rep_stride": src_stride})


def found(call: Call, **readings: str) -> list[tuple[str, str]]:
    return sorted((v.rule, v.severity) for v in check(call, readings=readings or None))


def image(seed: int = 3) -> dict[str, np.ndarray]:
    return {"UB": np.random.default_rng(seed).integers(0, 256, UB, dtype=np.uint8)}


def transpose16(ub: np.ndarray, addrs: list[int]) -> list[np.ndarray]:
    """16 blocks of 16 float16 at `addrs`: dst block k element e = src block e element k."""
    blocks = [ub[a:a + 32].reshape(16, 2) for a in addrs]
    return [np.concatenate([blocks[e][k] for e in range(16)]) for k in range(16)]


# -- vec_trans_scatter.dst.repeat_overlap -----------------------------------------------------------

def test_the_rule_no_longer_decides_repeat_overlap():
    rule = BOOK.api(API).rule("vec_trans_scatter.overlap.dst_entries")
    assert "later write" not in str(rule.inferred)
    amb = BOOK.ambiguity(OVERLAP)
    assert {r.id: r.legality for r in amb.readings} == {"last_wins": "legal", "undefined": "undefined"}


def test_stride_0_is_in_the_region_and_each_reading_judges_it():
    """repeat 2, dst_rep_stride 0: every dst block is written by both iterations."""
    call = vts(repeat=2, dst_stride=0, src_stride=16)
    assert found(call) == [(OVERLAP, "undefined")]
    assert found(call, **{OVERLAP: "last_wins"}) == []
    assert found(call, **{OVERLAP: "undefined"}) == [(OVERLAP, "undefined")]
    memory = image()
    ub = memory["UB"]
    out = expected(call, memory, readings={OVERLAP: "last_wins"})
    want = ub.copy()
    second = transpose16(ub, [16 * 32 + i * 32 for i in range(16)])       # iteration 1 reads blocks 16..31
    for k in range(16):
        want[DST + k * 32:DST + k * 32 + 32] = second[k]
    assert np.array_equal(out.memory["UB"], want)
    assert out.violations == [] and out.fully_defined("UB")
    open_ = expected(call, memory, readings={OVERLAP: "undefined"})
    assert [v.rule for v in open_.violations] == [OVERLAP]
    assert not open_.defined["UB"][DST:DST + 16 * 32].any()


def test_a_stride_that_walks_onto_the_next_entry_keeps_the_later_write():
    """dst entries one block apart, dst_rep_stride 1: iteration 1 of entry k writes entry k + 1's block;
    under last_wins block 0 keeps iteration 0's part 0, block b >= 1 iteration 1's part b - 1."""
    call = vts(repeat=2, dst_stride=1, src_stride=16)
    assert found(call) == [(OVERLAP, "undefined")]
    memory = image(5)
    ub = memory["UB"]
    first = transpose16(ub, [i * 32 for i in range(16)])
    second = transpose16(ub, [16 * 32 + i * 32 for i in range(16)])
    want = ub.copy()
    want[DST:DST + 32] = first[0]
    for b in range(1, 17):
        want[DST + b * 32:DST + b * 32 + 32] = second[b - 1]
    out = expected(call, memory, readings={OVERLAP: "last_wins"})
    assert np.array_equal(out.memory["UB"], want)


@pytest.mark.parametrize("repeat, stride", [(1, 0), (2, 16), (3, 16)])
def test_iterations_apart_are_outside_the_region(repeat, stride):
    assert found(vts(repeat=repeat, dst_stride=stride, src_stride=16 * (repeat > 1))) == []


def test_an_entry_against_itself_counts_at_a_lag():
    """The iteration_overlap kind with one operand twice: at lag [1, null] an entry meets its own later
    iterations (stride 0) and another entry's (stride 1), never its own run of the same iteration; two
    entries at one place in one iteration are the lag-0 rule's (dst_entries), not this region's."""
    same_place = entries(DST)
    same_place[3] = same_place[2]
    call = vts(dst=same_place, repeat=2, dst_stride=16, src_stride=16)
    assert found(call) == [("vec_trans_scatter.overlap.dst_entries", "undefined")]
    one = vts(dst=entries(DST, n=16)[:1] * 16, repeat=2, dst_stride=0)      # 16 entries, one block
    assert (OVERLAP, "undefined") in found(one)


# -- vec_trans_scatter.src_list / dst_list.half_block_bounds ----------------------------------------

def low_half_only(base: int, keep: int = 20, dtype: str = "int8") -> list[Tensor]:
    """int8 entries a block apart, the last one's tensor `keep` bytes of its block."""
    return entries(base, dtype)[:15] + [Tensor("UB", base + 15 * 32, dtype, keep)]


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
@pytest.mark.parametrize("keep", [16, 20, 31])
def test_src_low_half_inside_each_reading(dtype, keep):
    call = vts(dtype, dst=entries(DST, dtype), src=low_half_only(0, keep, dtype))
    assert found(call) == [(SRC_HALF, "undefined")]
    assert found(call, **{SRC_HALF: "whole_block"}) == [(SRC_HALF, "reject")]
    assert found(call, **{SRC_HALF: "half_block"}) == []
    memory = image(7)
    with pytest.raises(IllegalCall, match=SRC_HALF):
        expected(call, memory, readings={SRC_HALF: "whole_block"})
    ub = memory["UB"]
    want = ub.copy()
    lows = np.stack([ub[i * 32:i * 32 + 16] for i in range(16)])          # the 16 low halves read
    for k in range(16):                                                   # dst low half k = column k
        want[DST + k * 32:DST + k * 32 + 16] = lows[:, k]
    out = expected(call, memory, readings={SRC_HALF: "half_block"})
    assert np.array_equal(out.memory["UB"], want)


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
def test_dst_low_half_inside_each_reading_and_nothing_past_the_tensor(dtype):
    top = DST + 15 * 32
    call = vts(dtype, dst=low_half_only(DST, 20, dtype), src=entries(0, dtype), src_high=True)
    assert found(call) == [(DST_HALF, "undefined")]
    assert found(call, **{DST_HALF: "whole_block"}) == [(DST_HALF, "reject")]
    memory = image(9)
    with pytest.raises(IllegalCall, match=DST_HALF):
        expected(call, memory, readings={DST_HALF: "whole_block"})
    ub = memory["UB"]
    highs = np.stack([ub[i * 32 + 16:i * 32 + 32] for i in range(16)])
    out = expected(call, memory, readings={DST_HALF: "half_block"})
    assert out.violations == []
    got = out.memory["UB"]
    for k in range(16):
        assert np.array_equal(got[DST + k * 32:DST + k * 32 + 16], highs[:, k])
        assert np.array_equal(got[DST + k * 32 + 16:DST + k * 32 + 32], ub[DST + k * 32 + 16:DST + k * 32 + 32])
    assert np.array_equal(got[top + 20:], ub[top + 20:])                  # past the tensor: untouched
    assert np.array_equal(got[:DST], ub[:DST])


@pytest.mark.parametrize("side", ["src", "dst"])
def test_outside_the_region_the_bounds_rule_judges(side):
    """The touched half also outside (15 bytes; or the high half picked), or a 16-bit dtype: the bounds
    rule, not the ambiguity; a tensor holding its whole block: legal."""
    rule = f"vec_trans_scatter.{side}_list.bounds"

    def call(keep: int, high: bool = False, dtype: str = "int8") -> Call:
        short = low_half_only(DST if side == "dst" else 0, keep, dtype)
        lists = {"dst": short, "src": entries(0, dtype)} if side == "dst" else {"dst": entries(DST, dtype), "src": short}
        return vts(dtype, **lists, **{f"{side}_high": high})
    assert found(call(15)) == [(rule, "reject")]
    assert found(call(20, high=True)) == [(rule, "reject")]
    assert found(call(10, dtype="int16")) == [(rule, "reject")]
    assert found(call(32)) == []


def test_a_repeat_judges_the_last_block():
    """repeat 3, src_rep_stride 1: entry 15 reads blocks 0, 1, 2 of its tensor; 80 bytes hold the low
    half of block 2 (bytes 64..79), not the block."""
    src = low_half_only(0, 80)
    call = vts("int8", src=src, dst=entries(DST, "int8"), repeat=3, dst_stride=16, src_stride=1)
    assert found(call, **{OVERLAP: "last_wins"}) == [(SRC_HALF, "undefined")]
    assert found(call, **{OVERLAP: "last_wins", SRC_HALF: "half_block"}) == []


# -- the generator reaches each region --------------------------------------------------------------

@pytest.mark.parametrize("amb", [OVERLAP, SRC_HALF, DST_HALF])
def test_the_ambiguity_cell_draws_calls_in_the_region(amb):
    ambiguity = BOOK.ambiguity(amb)
    cases = Cell(API, "ascend910b", "ambiguity", rule=amb).draw(16, 11, BOOK)
    assert len(cases) >= 8
    for case in cases:
        memory = case.memory.build()
        assert {v.rule for v in check(case.call, memory)} == {amb}
        for reading in ambiguity.readings:
            under = {(v.rule, v.severity) for v in check(case.call, memory, readings={amb: reading.id})}
            assert under == (set() if reading.legality == "legal" else {(amb, reading.legality)})
    if amb == OVERLAP:
        assert all(c.call.args["repeat_times"] >= 2 for c in cases)
        assert any(c.call.args["dst_rep_stride"] > 0 for c in cases)       # not only stride 0
    else:
        side = amb.split(".")[1]
        flag = side.replace("_list", "_high_half")
        assert all(not c.call.args[flag] and c.call.args[side][0].dtype in ("int8", "uint8") for c in cases)
        tags = {t for c in cases for t in c.tags}
        assert {f"{side}=half-end", f"{side}=one-short"} & tags


def test_legal_calls_keep_dst_iterations_apart():
    """Legal calls with several repeats and a dst stride below the 16 blocks of a packed list lay the dst
    entries out in lanes; none is in the repeat_overlap region."""
    cases = Cell(API, "ascend910b", "legal", dtype="float16").draw(60, 4, BOOK)
    assert cases
    for case in cases:
        assert check(case.call) == []
    close = [c for c in cases if c.call.args["repeat_times"] > 1 and c.call.args["dst_rep_stride"] < 16]
    assert close and any("dst_list=lanes" in c.tags for c in close)
