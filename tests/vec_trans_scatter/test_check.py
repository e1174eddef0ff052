"""The legality checker on vec_trans_scatter (000_4bcb8e5856d111e9.txt): one group per rule and ambiguity
of specs/vec_trans_scatter.yaml. Each starts from a legal call and changes exactly what the rule is
about; the result must be exactly that rule, with its severity. The iteration-overlap arithmetic is
also checked against a brute force over every pair of runs."""
from __future__ import annotations

import numpy as np
import pytest

from oracle import Call, CallFormatError, Tensor
from oracle import check as oracle_check
from oracle.spec import default_rulebook
from readings import check, expected     # under the readings the default index math models
from oracle.footprint import Runs
from oracle.iterations import family, first_meeting, iteration_hits, iterations_identical

SUPPORTED = ["ascend310", "ascend910", "ascend310p-aicore", "ascend310p-vectorcore", "ascend310b", "ascend910b"]
UB_BYTES = {"ascend310": 262144, "ascend910": 262144, "ascend310p-aicore": 262144, "ascend310p-vectorcore": 262144,
            "ascend310b": 253952, "ascend910b": 196608}
ITEMSIZE = {"int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "float16": 2, "int32": 4, "uint32": 4, "float32": 4}
BLOCK = 32


def entries(base: int, dtype: str = "float16", n: int = 16, gap: int = 1, size: int = 16 << 10) -> list[Tensor]:
    """n list entries `gap` blocks apart from byte `base`, each a slice running to base + size."""
    item = ITEMSIZE.get(dtype, 2)
    return [Tensor("UB", base + i * gap * BLOCK, dtype, (size - i * gap * BLOCK) // item) for i in range(n)]


def vts(product: str = "ascend910b", dtype: str = "float16", *, dst=None, src=None, repeat: int = 1,
        dst_stride: int = 0, src_stride: int = 0, dst_high: bool = False, src_high: bool = False) -> Call:
    """src at UB byte 0, dst at 64 KB (16 KB each): far apart, so no overlap unless a test asks."""
    return Call("vec_trans_scatter", product, {
        "dst_high_half": dst_high, "src_high_half": src_high,
        "dst_list": dst if dst is not None else entries(64 << 10, dtype),
        "src_list": src if src is not None else entries(0, dtype),
        "repeat_times": repeat, "dst_rep_stride": dst_stride, "src_rep_stride": src_stride})


def found(call: Call) -> list[tuple[str, str]]:
    violations = check(call)
    for v in violations:
        assert v.message, v
    return sorted((v.rule, v.severity) for v in violations)


def only(rule: str, severity: str = "reject") -> list[tuple[str, str]]:
    return [(f"vec_trans_scatter.{rule}", severity)]


@pytest.mark.parametrize("product", SUPPORTED)
@pytest.mark.parametrize("dtype", sorted(ITEMSIZE))
def test_dtypes_per_product(product, dtype):
    """"Atlas 200/500 A2推理产品 ,支持的数据类型为:Tensor(int16/uint16/int8/uint8/int32/uint32)" -- no float
    there; the other products list all eight."""
    got = found(vts(product, dtype))
    if product == "ascend310b" and dtype.startswith("float"):
        assert got == only("dtype.supported_310b")
    else:
        assert got == []


def test_not_on_a3():
    assert found(vts("ascend910_93")) == only("product.supported")


def test_lists_share_one_dtype():
    """"支持的数据类型应与 dst_list 一致" -- and one entry of another dtype is caught too."""
    assert found(vts(src=entries(0, "int16"))) == only("dtype.same")
    mixed = entries(0)
    mixed[5] = Tensor("UB", mixed[5].addr, "uint16", mixed[5].numel)
    assert found(vts(src=mixed)) == only("dtype.same")


@pytest.mark.parametrize("n", [1, 15, 17, 32])
def test_sixteen_entries(n):
    assert found(vts(dst=entries(64 << 10, n=n))) == only("dst_list.length")
    assert found(vts(src=entries(0, n=n))) == only("src_list.length")


@pytest.mark.parametrize("scope", ["GM", "L1"])
def test_lists_live_in_ub(scope):
    """"Tensor的scope为Unified Buffer"."""
    moved = [Tensor(scope, t.addr, t.dtype, t.numel) for t in entries(0)]
    assert found(vts(src=moved)) == only("src_list.scope")


def test_ranges():
    assert found(vts(repeat=256)) == only("repeat_times.range")
    # with one repeat the stride moves nothing, so a stride past the range breaks that rule alone
    assert found(vts(repeat=1, dst_stride=65536)) == only("dst_rep_stride.range")
    assert found(vts(repeat=1, src_stride=65536)) == only("src_rep_stride.range")


def test_every_entry_aligned():
    src = entries(0, gap=2)
    src[7] = Tensor("UB", src[7].addr + 16, src[7].dtype, src[7].numel - 8)
    assert found(vts(src=src)) == only("src_list.align")


def test_bounds_per_entry():
    """Entry 3 of dst holds 31 bytes: its one block does not fit; with 3 repeats of stride 16 the last
    block of entry 15 falls past a slice that ends at the list's end."""
    dst = entries(64 << 10)
    dst[3] = Tensor("UB", dst[3].addr, "float16", 15)
    assert found(vts(dst=dst)) == only("dst_list.bounds")
    tight = [Tensor("UB", t.addr, t.dtype, (16 * BLOCK - i * BLOCK) // 2) for i, t in enumerate(entries(64 << 10))]
    assert found(vts(dst=tight)) == []
    assert found(vts(dst=tight, repeat=3, dst_stride=16)) == only("dst_list.bounds")


def test_capacity_per_entry():
    top = UB_BYTES["ascend910b"]
    src = entries(0)
    src[15] = Tensor("UB", top - 32, "float16", 17)
    assert found(vts(src=src)) == only("src_list.capacity")


def test_in_place_single_repeat_is_legal():
    """"单次repeat ... 100%完全重叠 ... 每一个block都必须相等" -- dst_list[i] == src_list[i] for every i."""
    same = entries(0)
    call = vts(dst=same, src=same)
    assert found(call) == []
    memory = {"UB": np.random.default_rng(1).integers(0, 256, UB_BYTES["ascend910b"], dtype=np.uint8)}
    before = memory["UB"][:512].view(np.uint16).reshape(16, 16)
    after = expected(call, memory).memory["UB"][:512].view(np.uint16).reshape(16, 16)
    assert np.array_equal(after, before.T)          # every read happens before any write


@pytest.mark.parametrize("how", ["rotated", "shifted", "one_shared"])
def test_partial_overlap_single_repeat(how):
    src = entries(0)
    dst = {"rotated": src[1:] + src[:1],                      # the same blocks, not block for block
           "shifted": entries(5 * BLOCK),                     # 11 of 16 blocks shared
           "one_shared": [src[4]] + entries(64 << 10)[1:]}[how]
    assert found(vts(dst=dst, src=src)) == only("overlap.single_repeat")


def test_same_iteration_rule_for_several_repeats():
    """The general constraint, held to every iteration: iteration 1 of dst meets iteration 1 of src
    shifted by one block, with no iteration-to-next dependency."""
    src = entries(0, size=80 << 10)
    dst = entries(64 << 10)
    # iteration 1 of src starts one block past iteration 1 of dst (64 blocks on): 15 of 16 blocks shared
    call = vts(dst=dst, src=src, repeat=2, dst_stride=64, src_stride=(64 << 10) // BLOCK + 64 + 1)
    assert found(call) == only("overlap.repeat_same_iteration")
    in_step = vts(dst=dst, src=src, repeat=2, dst_stride=64, src_stride=(64 << 10) // BLOCK + 64)
    assert found(in_step) == []          # block for block the same in iteration 1: in place


def test_dependency_on_the_previous_iteration():
    """"第N次迭代的目的操作数是第N+1次的源操作数,这种情况是不支持地址重叠的"."""
    dst = entries(64 << 10, gap=1)
    src = entries((64 << 10) - 32 * BLOCK, gap=1)       # src of iteration 1 == dst of iteration 0
    call = vts(dst=dst, src=src, repeat=2, dst_stride=32, src_stride=32)
    assert found(call) == only("overlap.repeat_dependency")
    # reading the block a later iteration writes (a write after the read) is allowed
    assert found(vts(dst=src, src=dst, repeat=2, dst_stride=32, src_stride=32)) == []


def test_in_place_several_repeats():
    same = entries(0)
    assert found(vts(dst=same, src=same, repeat=4, dst_stride=16, src_stride=16)) == []     # tiles
    assert found(vts(dst=same, src=same, repeat=2, dst_stride=8, src_stride=8)) == only("overlap.repeat_dependency")


def test_later_dependency_is_an_ambiguity():
    dst = entries(64 << 10, gap=1)
    src = entries((64 << 10) - 64 * BLOCK, gap=1)       # read by iteration 2 only
    call = vts(dst=dst, src=src, repeat=3, dst_stride=32, src_stride=32)
    assert found(call) == only("overlap.later_dependency", "undefined")


def test_dst_entries_colliding_are_undefined():
    dst = entries(64 << 10)
    dst[9] = dst[2]
    assert found(vts(dst=dst)) == only("overlap.dst_entries", "undefined")
    # two iterations writing one block: ordered, the later one wins
    assert found(vts(repeat=3, dst_stride=0, src_stride=16)) == []


@pytest.mark.parametrize("stride", ["dst", "src"])
def test_stride_with_one_repeat_is_an_ambiguity(stride):
    call = vts(**{f"{stride}_stride": 7})
    assert found(call) == only("stride.single_repeat", "undefined")
    assert found(vts(repeat=2, **{f"{stride}_stride": 16})) == []


def test_repeat_zero_is_an_ambiguity():
    assert found(vts(repeat=0)) == only("repeat_times.zero", "undefined")


@pytest.mark.parametrize("flag", ["dst_high", "src_high"])
def test_high_half_flags(flag):
    """"该配置只支持 int8/uint8 的数据类型": meaningful for 8-bit, an ambiguity otherwise."""
    assert found(vts(dtype="int8", **{flag: True})) == []
    assert found(vts(dtype="float16", **{flag: True})) == only("high_half.non_8bit", "undefined")


def test_b32_reserve_is_an_ambiguity():
    top = UB_BYTES["ascend910b"]
    near_top = entries(top - 8 * 1024, "int32", size=8 * 1024)
    assert found(vts(dtype="int32", src=near_top)) == only("b32.reserved_ub", "undefined")
    assert found(vts(dtype="int16", src=entries(top - 8 * 1024, "int16", size=8 * 1024))) == []


def test_flags_must_be_bools_and_lists_lists():
    with pytest.raises(CallFormatError, match="dst_high_half: expected true or false"):
        check(vts().replace(dst_high_half=1))
    with pytest.raises(CallFormatError, match="src_list: expected a list of tensors"):
        check(vts().replace(src_list=entries(0)[0]))
    with pytest.raises(CallFormatError, match=r"src_list\[2\]\.dtype: unknown dtype"):
        bad = entries(0)
        bad[2] = Tensor("UB", bad[2].addr, "float128", 4)
        check(vts(src=bad))


def test_call_with_lists_round_trips():
    call = vts(repeat=3, dst_stride=16, src_stride=16, dtype="int8", src_high=True)
    assert Call.from_yaml(call.to_yaml()) == call
    assert Call.from_json(call.to_json()) == call


# -- the iteration arithmetic against a brute force -----------------------------------------------

def _brute(a, b, lo, hi, distinct):
    rounds = max(r.count for _, r in a)
    out = np.zeros((rounds, len(a), len(b)), dtype=bool)
    for r in range(rounds):
        for i, (pa, ra) in enumerate(a):
            if r >= ra.count:
                continue
            for j, (pb, rb) in enumerate(b):
                if distinct and i == j:
                    continue
                s1 = pa + ra.first + r * ra.step
                for r2 in range(rb.count):
                    if r2 - r < lo or (hi is not None and r2 - r > hi):
                        continue
                    s2 = pb + rb.first + r2 * rb.step
                    out[r, i, j] |= s1 < s2 + rb.length and s2 < s1 + ra.length
    return out


def test_iteration_hits_match_brute_force():
    rng = np.random.default_rng(7)

    def runs():
        return Runs(int(rng.integers(0, 3)), int(rng.integers(-40, 60)), int(rng.integers(0, 6)),
                    int(rng.integers(1, 40)))

    def some(n):
        shared = runs() if rng.random() < 0.5 else None        # one Runs for all: the list operands' case
        return [(int(rng.integers(0, 200)), shared or runs()) for _ in range(n)]
    for _ in range(2000):
        a = some(int(rng.integers(1, 6)))
        distinct = bool(rng.random() < 0.3)
        b = a if distinct else some(int(rng.integers(1, 6)))
        lo = int(rng.integers(-3, 3))
        hi = None if rng.random() < 0.3 else lo + int(rng.integers(0, 3))
        assert np.array_equal(iteration_hits(a, b, (lo, hi), distinct), _brute(a, b, lo, hi, distinct)), (a, b, lo, hi)


def test_iteration_hits_at_the_edges_of_a_meeting():
    """Runs that touch end to start share no byte; one byte further they share one: for every lag, step
    and distance around those edges (the per-distance interval of one lag, iterations.py, turns on them)."""
    for step_a in (0, 32, 64):
        for step_b in (0, 32, 64):
            for gap in (-33, -32, -31, -1, 0, 1, 31, 32, 33):
                a = [(k * 256, Runs(0, step_a, 4, 32)) for k in range(3)]
                b = [(k * 256 + 32 + gap, Runs(0, step_b, 4, 32)) for k in range(3)]
                for lo, hi in ((0, 0), (1, 1), (-1, -1), (2, 2), (0, 1), (1, None)):
                    assert np.array_equal(iteration_hits(a, b, (lo, hi)), _brute(a, b, lo, hi, False)), \
                        (step_a, step_b, gap, lo, hi)


def _brute_identical(a, b) -> list[bool]:
    """same[r]: in iteration r, every entry i of a and of b that has a run r has it where the other has."""
    rounds = max(r.count for _, r in a + b)
    out = []
    for r in range(rounds):
        same = True
        for (pa, ra), (pb, rb) in zip(a, b):
            if r < ra.count or r < rb.count:
                same &= pa + ra.first + r * ra.step == pb + rb.first + r * rb.step and ra.length == rb.length
        out.append(same)
    return out


def test_first_meeting_is_the_first_hit_brute_force_finds():
    """first_meeting (what the iteration_overlap rules and the generators ask) answers two uniform families
    without the hits array: it must name the same first (iteration, entry of a, entry of b) as the brute
    force, with and without the identical iterations left out, at one lag and over ranges of lags."""
    rng = np.random.default_rng(11)

    def some(n, shared):
        count = int(rng.integers(0, 9) if rng.random() < 0.7 else rng.integers(9, 40))   # past the first block
        runs = [Runs(int(rng.integers(0, 3)), int(rng.choice([0, 32, -32, int(rng.integers(-40, 60))])),
                     count, int(rng.integers(1, 40))) for _ in range(n)]
        return [(int(rng.integers(0, 200)), runs[0] if shared else runs[k]) for k in range(n)]
    uniform = same_step = 0
    for _ in range(3000):
        n = int(rng.integers(1, 6))
        shared = bool(rng.random() < 0.7)
        a = some(n, shared)
        distinct = bool(rng.random() < 0.2)
        b = a if distinct else some(n if rng.random() < 0.7 else int(rng.integers(1, 6)), shared)
        lo = int(rng.integers(-3, 4))
        hi = None if rng.random() < 0.3 else lo + int(rng.integers(0, 3))
        identical = len(a) == len(b) and bool(rng.random() < 0.5)
        fa = family(a)
        fb = fa if distinct else family(b)
        if fa.span is None or fb.span is None:
            continue
        hits = _brute(a, b, lo, hi, distinct)
        if identical:
            same = _brute_identical(a, b)
            hits &= ~np.array(same[:hits.shape[0]], dtype=bool)[:, None, None]
        want = tuple(int(v) for v in np.unravel_index(int(hits.argmax()), hits.shape)) if hits.any() else None
        assert first_meeting(fa, fb, (lo, hi), distinct, identical) == want, (a, b, lo, hi, distinct, identical)
        uniform += fa.uniform and fb.uniform
        same_step += (fa.uniform and fb.uniform and lo != hi and not identical and hits.any()
                      and int(fa.step[0]) == int(fb.step[0]))
    assert uniform > 1000                       # the path without the hits array was asked
    assert same_step > 100                      # and its closed form of one step, over ranges of lags
    # identical in iteration 0 only, then one byte apart: the first meeting left is iteration 1
    a, b = [(0, Runs(0, 32, 6, 32))], [(0, Runs(0, 33, 6, 32))]
    assert first_meeting(family(a), family(b), (0, 0), identical=True) == (1, 0, 0)
    assert first_meeting(family(a), family(b), (0, None), identical=True) == (1, 0, 0)
    # a far below b, climbing to it: the first meeting is well past the first block of iterations searched
    a, b = [(0, Runs(0, 32, 40, 32))], [(1000, Runs(0, 0, 40, 32))]
    assert first_meeting(family(a), family(b), (0, None)) == (31, 0, 0) == first_meeting(family(a), family(b), (0, 0))
    # only a's iteration 8 meets b (7 ends where b begins): the first iteration of the second block
    a, b = [(0, Runs(0, 32, 40, 32))], [(256, Runs(0, 0, 40, 32))]
    assert first_meeting(family(a), family(b), (0, None)) == (8, 0, 0) == first_meeting(family(a), family(b), (0, 0))
    # one operand against itself, one step: a stride under the run length meets the next run at once; a
    # stride of 0 meets every later run; at lags of -3 to -1, run 0 has no earlier run to meet
    a = [(0, Runs(0, 16, 10, 32)), (512, Runs(0, 16, 10, 32))]
    assert first_meeting(family(a), family(a), (1, None)) == (0, 0, 0)
    assert first_meeting(family(a), family(a), (2, None)) is None
    a = [(0, Runs(0, 0, 4, 32)), (32, Runs(0, 0, 4, 32))]
    assert first_meeting(family(a), family(a), (1, None)) == (0, 0, 0)
    assert first_meeting(family(a), family(a), (4, None)) is None
    a = [(0, Runs(0, 32, 5, 64))]
    assert first_meeting(family(a), family(a), (-3, -1)) == (1, 0, 0)


def test_iterations_identical():
    a = [(0, Runs(0, 64, 3, 32)), (32, Runs(0, 64, 3, 32))]
    assert iterations_identical(a, a).tolist() == [True, True, True]
    b = [(0, Runs(0, 64, 3, 32)), (32, Runs(0, 96, 3, 32))]
    assert iterations_identical(a, b).tolist() == [True, False, False]


def under(call: Call, **declared: str) -> list[tuple[str, str]]:
    """(rule, severity) with no reading declared, or under `declared` (ambiguity id with '.' as '__')."""
    book = default_rulebook().with_readings({k.replace("__", "."): v for k, v in declared.items()})
    return sorted((v.rule, v.severity) for v in oracle_check(call, None, book))


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
@pytest.mark.parametrize("repeat, stride", [(1, 0), (2, 1)])
def test_half_block_overlap_is_an_ambiguity(dtype, repeat, stride):
    """int8/uint8: an entry touches only the half of its block the flag picks. src low halves and dst high
    halves of overlapping blocks share no byte: vec_trans_scatter.overlap.half_block, blocks (the overlap
    rules refuse it) | bytes (legal). With equal flags the blocks' overlap is the bytes' overlap."""
    call = vts(dtype=dtype, dst=entries(BLOCK, dtype), src=entries(0, dtype), repeat=repeat,
               dst_stride=stride, src_stride=stride, src_high=False, dst_high=True)
    wins = {"vec_trans_scatter__dst__repeat_overlap": "last_wins"}   # stride 1: dst entry i's iteration 1 is
    assert under(call, **wins) == only("overlap.half_block", "undefined")     # entry i + 1's iteration 0
    assert under(call, **wins, vec_trans_scatter__overlap__half_block="bytes") == []
    assert under(call, **wins, vec_trans_scatter__overlap__half_block="blocks") == only("overlap.half_block")
    same_half = vts(dtype=dtype, dst=entries(BLOCK, dtype), src=entries(0, dtype), repeat=repeat,
                    dst_stride=stride, src_stride=stride, src_high=True, dst_high=True)
    rule = "overlap.single_repeat" if repeat == 1 else "overlap.repeat_same_iteration"
    assert rule in {r.split(".", 1)[1] for r, _ in under(same_half, **wins)}
    assert not any(r.endswith("half_block") for r, _ in under(same_half, **wins))


@pytest.mark.parametrize("product", ["ascend310", "ascend910"])
@pytest.mark.parametrize("dtype", ["int32", "uint32", "float32"])
def test_b32_on_older_products_is_an_ambiguity(product, dtype):
    """The seed page lists int32/uint32/float32 for Atlas 200/300/500 and Atlas training; the English TIK
    page and Ascend C's TransDataTo5HD do not: vec_trans_scatter.b32.older_products, supported | reject."""
    call = vts(product, dtype)
    assert under(call) == only("b32.older_products", "undefined")
    assert under(call, vec_trans_scatter__b32__older_products="supported") == []
    assert under(call, vec_trans_scatter__b32__older_products="reject") == only("b32.older_products")
    assert under(vts("ascend310p-aicore", dtype)) == []
    assert under(vts(product, "int16")) == []
