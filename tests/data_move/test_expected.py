"""`oracle.expected` on data_move (001_e45651b2d591d11d.txt): the image a conforming backend must leave.

The expectation is rebuilt here independently, with a plain loop over bursts: burst k of src starts at
src.addr + k*(burst+src_stride)*32 and lands at dst.addr + k*(burst+dst_stride)*32 ("burst ... 单位:32B";
the strides are "前 burst 尾与后 burst 头", tail of one burst to head of the next, also in 32 B units).
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from conformance.generate.strategies import legal_calls, rule_calls
from oracle import Call, CallFormatError, Expected, IllegalCall, Tensor, expected, written_mask
from oracle.spec import default_rulebook

SUPPORTED = ["ascend310", "ascend910", "ascend310p-aicore", "ascend310p-vectorcore", "ascend910b", "ascend310b"]
UNIT = 32


def dm(dst: Tensor, src: Tensor, *, product: str = "ascend910b", sid: int = 0, nburst: int = 1, burst: int = 1,
       src_stride: int = 0, dst_stride: int = 0) -> Call:
    return Call("data_move", product, {"dst": dst, "src": src, "sid": sid, "nburst": nburst, "burst": burst,
                                       "src_stride": src_stride, "dst_stride": dst_stride})


def bursts(call: Call) -> list[tuple[int, int, int]]:
    """(src byte, dst byte, length) of every burst, from the page's definitions alone."""
    a = call.args
    length = a["burst"] * UNIT
    return [(a["src"].addr + k * (a["burst"] + a["src_stride"]) * UNIT,
             a["dst"].addr + k * (a["burst"] + a["dst_stride"]) * UNIT, length) for k in range(a["nburst"])]


def reference(call: Call, memory: dict[str, np.ndarray]) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The image after a legal call (src read from the input), and the mask of bytes dst's bursts cover."""
    src, dst = call.args["src"].scope, call.args["dst"].scope
    image = {s: a.copy() for s, a in memory.items()}
    footprint = {s: np.zeros(a.shape, dtype=bool) for s, a in memory.items()}
    for s0, d0, n in bursts(call):
        image[dst][d0:d0 + n] = memory[src][s0:s0 + n]
        footprint[dst][d0:d0 + n] = True
    return image, footprint


def random_memory(seed: int, **sizes: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {scope: rng.integers(0, 256, size, dtype=np.uint8) for scope, size in sizes.items()}


def assert_images_equal(got: dict[str, np.ndarray], want: dict[str, np.ndarray]) -> None:
    assert set(got) == set(want)
    for scope in want:
        assert got[scope].dtype == np.uint8 and got[scope].shape == want[scope].shape, scope
        if got[scope].tobytes() != want[scope].tobytes():
            bad = np.flatnonzero(got[scope] != want[scope])
            raise AssertionError(f"{scope}: {bad.size} bytes differ, first at {bad[0]}")


# -- the property: random legal calls on every product -------------------------------------------

# One property run per product (drawing the product inside one run starved some paths: Hypothesis reuses
# choices across examples, and L1->GM, the fifth path of only two products, was never drawn).
@pytest.mark.parametrize("product", SUPPORTED)
@settings(max_examples=30)
@given(data=st.data())
def test_legal_calls_property(product, data):
    """For any legal call: the input is not modified; every byte outside dst's bursts keeps its value; the
    bytes of dst's bursts are the source bytes at the burst addresses; every byte is defined."""
    case = data.draw(legal_calls("data_move", product, rulebook=default_rulebook()), label="case")
    memory = case.memory.build()
    before = {s: a.copy() for s, a in memory.items()}

    result = expected(case.call, memory)

    assert_images_equal(memory, before)
    want, footprint = reference(case.call, before)
    assert_images_equal(result.memory, want)
    for scope in memory:
        assert result.defined[scope].shape == memory[scope].shape
        assert result.defined[scope].all()
        assert result.fully_defined(scope)
    dst_scope = case.call.args["dst"].scope
    mask = written_mask(case.call, {s: a.shape[0] for s, a in memory.items()})
    assert set(mask) == {dst_scope}
    assert mask[dst_scope].tobytes() == footprint[dst_scope].tobytes()


@pytest.mark.parametrize("product", SUPPORTED)
@settings(max_examples=8)
@given(data=st.data())
def test_overlap_calls_property(product, data):
    """For any call in the overlap territory: dst's bursts are marked not defined, every other byte is
    defined and keeps its input value, and the input is not modified."""
    overlapping = rule_calls("data_move", product, "data_move.overlap", rulebook=default_rulebook())
    case = data.draw(overlapping, label="case")
    memory = case.memory.build()
    before = {s: a.copy() for s, a in memory.items()}

    result = expected(case.call, memory)

    assert_images_equal(memory, before)
    _, footprint = reference(case.call, before)
    for scope in memory:
        assert result.defined[scope].tobytes() == (~footprint[scope]).tobytes()
        outside = ~footprint[scope]
        assert result.memory[scope][outside].tobytes() == before[scope][outside].tobytes()


# -- concrete cases ---------------------------------------------------------------------------------

def test_one_burst_is_32_bytes():
    """'burst ... 单位:32B': burst=1 moves exactly 32 bytes, burst=3 exactly 96."""
    memory = random_memory(1, GM=1024, UB=1024)
    for burst in (1, 3):
        result = expected(dm(Tensor("UB", 64, "uint8", 512), Tensor("GM", 5, "uint8", 512), burst=burst), memory)
        n = burst * UNIT
        assert result.memory["UB"][64:64 + n].tobytes() == memory["GM"][5:5 + n].tobytes()
        assert result.memory["UB"][:64].tobytes() == memory["UB"][:64].tobytes()
        assert result.memory["UB"][64 + n:].tobytes() == memory["UB"][64 + n:].tobytes()


def test_src_stride_is_a_gap_after_the_burst():
    """'src_stride: 源tensor相邻连续数据片段间隔(前 burst 尾与后 burst 头)': src_stride=1 skips 32 bytes
    between the tail of burst 0 and the head of burst 1 (not a head-to-head distance of 32)."""
    memory = random_memory(2, GM=256, UB=256)
    result = expected(dm(Tensor("UB", 0, "uint8", 64), Tensor("GM", 0, "uint8", 96), nburst=2, src_stride=1),
                      memory)
    ub, gm = result.memory["UB"], memory["GM"]
    assert ub[0:32].tobytes() == gm[0:32].tobytes()
    assert ub[32:64].tobytes() == gm[64:96].tobytes()
    assert ub[32:64].tobytes() != gm[32:64].tobytes()          # the gap is not read
    assert ub[64:].tobytes() == memory["UB"][64:].tobytes()


def test_dst_stride_is_a_gap_after_the_burst():
    """'dst_stride: 目的tensor相邻连续数据片段间隔(前 burst 尾与后 burst 头)': dst_stride=1 leaves 32 bytes
    untouched between two written bursts."""
    memory = random_memory(3, GM=256, UB=256)
    result = expected(dm(Tensor("UB", 32, "uint8", 96), Tensor("GM", 0, "uint8", 64), nburst=2, dst_stride=1),
                      memory)
    ub, gm = result.memory["UB"], memory["GM"]
    assert ub[32:64].tobytes() == gm[0:32].tobytes()
    assert ub[64:96].tobytes() == memory["UB"][64:96].tobytes()  # the gap keeps its bytes
    assert ub[96:128].tobytes() == gm[32:64].tobytes()
    assert ub[:32].tobytes() == memory["UB"][:32].tobytes()
    assert ub[128:].tobytes() == memory["UB"][128:].tobytes()


def test_both_strides_and_long_bursts():
    """nburst=3, burst=2, src_stride=3, dst_stride=1 against the burst loop, byte for byte."""
    call = dm(Tensor("L1", 64, "int16", 1024), Tensor("GM", 7, "int16", 1024), nburst=3, burst=2,
              src_stride=3, dst_stride=1)
    memory = random_memory(4, GM=2048, L1=4096, UB=256)
    assert [b[:2] for b in bursts(call)] == [(7, 64), (7 + 160, 64 + 96), (7 + 320, 64 + 192)]
    want, _ = reference(call, memory)
    assert_images_equal(expected(call, memory).memory, want)


def test_ub_to_ub_reads_before_it_writes():
    """UB->UB, src and dst adjacent ([0, 64) -> [64, 128)): dst gets the input bytes of src."""
    memory = random_memory(5, UB=512)
    result = expected(dm(Tensor("UB", 64, "uint8", 64), Tensor("UB", 0, "uint8", 64), burst=2), memory)
    assert result.memory["UB"][64:128].tobytes() == memory["UB"][0:64].tobytes()
    assert result.memory["UB"][0:64].tobytes() == memory["UB"][0:64].tobytes()


def test_interleaved_ub_to_ub():
    """Interleaved bursts in one scope (src at 0, 64, ...; dst at 32, 96, ...) copy without interference."""
    call = dm(Tensor("UB", 32, "uint8", 256), Tensor("UB", 0, "uint8", 256), nburst=4, src_stride=1, dst_stride=1)
    memory = random_memory(6, UB=512)
    want, _ = reference(call, memory)
    assert_images_equal(expected(call, memory).memory, want)


def test_input_is_not_modified_and_unwritten_scopes_are_read_only():
    memory = random_memory(7, GM=256, UB=256, L1=256)
    before = {s: a.copy() for s, a in memory.items()}
    result = expected(dm(Tensor("UB", 0, "uint8", 32), Tensor("GM", 0, "uint8", 32)), memory)
    assert_images_equal(memory, before)
    assert result.memory["UB"] is not memory["UB"]
    assert result.memory["L1"].tobytes() == before["L1"].tobytes()
    with pytest.raises(ValueError):
        result.memory["GM"][0] = 1                 # a view of the caller's input: must not be writable
    result.memory["UB"][0] ^= 0xFF                 # the written scope is the caller's own copy
    assert_images_equal(memory, before)


def test_unwritten_scopes_are_the_input_itself_not_copies():
    """Only the scopes a call writes are copied: the others are read-only views of the caller's arrays,
    byte-identical to them; the written one shares no byte with its input."""
    memory = random_memory(17, GM=4096, UB=4096, L1=8192)
    before = {s: a.copy() for s, a in memory.items()}
    result = expected(dm(Tensor("UB", 0, "uint8", 64), Tensor("GM", 32, "uint8", 64), burst=2), memory)
    for scope in ("GM", "L1"):
        assert np.shares_memory(result.memory[scope], memory[scope])
        assert not result.memory[scope].flags.writeable
        assert result.memory[scope].tobytes() == before[scope].tobytes()
    assert not np.shares_memory(result.memory["UB"], memory["UB"])
    assert result.memory["UB"][:64].tobytes() == before["GM"][32:96].tobytes()
    assert result.memory["UB"][64:].tobytes() == before["UB"][64:].tobytes()


WRITERS = [("data_move", "ascend910b"), ("scatter", "ascend310b"), ("asc_gather", "ascend910b"),
           ("vec_trans_scatter", "ascend910b"), ("data_copy_nz2nd", "ascend910b")]


@pytest.mark.parametrize("api,product", WRITERS)
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_written_masks_are_those_of_written_mask_even_after_memory_changes(api, product, data):
    """Expected.written of a legal call (made when first read) is written_mask's, and stays so when the
    input is written after expected() returned (a backend runs on it): offsets were read at the call."""
    case = data.draw(legal_calls(api, product, rulebook=default_rulebook()), label="case")
    memory = case.memory.build()
    sizes = {s: a.shape[0] for s, a in memory.items()}
    want = written_mask(case.call, sizes, memory=memory)
    result = expected(case.call, memory)
    for image in memory.values():
        np.bitwise_not(image, out=image)              # every byte changes, the offsets among them
    assert set(result.written) == set(want)
    for scope, mask in want.items():
        assert result.written[scope].tobytes() == mask.tobytes(), scope
        assert result.written.get(scope) is result.written[scope]        # made once


def test_legal_call_is_fully_defined():
    memory = random_memory(8, GM=256, UB=256)
    result = expected(dm(Tensor("UB", 0, "uint8", 32), Tensor("GM", 0, "uint8", 32)), memory)
    assert isinstance(result, Expected)
    assert all(result.defined[s].all() and result.fully_defined(s) for s in memory)
    assert result.violations == []


# -- reject calls: no image -----------------------------------------------------------------------------

def test_reject_call_raises_illegal_call():
    memory = random_memory(9, GM=256, UB=256)
    call = dm(Tensor("UB", 0, "uint8", 32), Tensor("GM", 0, "uint8", 32), sid=16)
    with pytest.raises(IllegalCall) as info:
        expected(call, memory)
    assert [v.rule for v in info.value.violations] == ["data_move.sid.range"]
    assert "data_move.sid.range" in str(info.value)
    assert isinstance(info.value, ValueError)


def test_reject_call_lists_every_reject_rule_and_no_undefined_one():
    memory = random_memory(10, UB=512)
    call = dm(Tensor("UB", 16, "uint8", 64), Tensor("UB", 0, "uint8", 64), sid=16, burst=2)   # also overlaps
    with pytest.raises(IllegalCall) as info:
        expected(call, memory)
    assert sorted(v.rule for v in info.value.violations) == ["data_move.dst.align.UB", "data_move.sid.range"]
    assert all(v.severity == "reject" for v in info.value.violations)


def test_unsupported_product_raises():
    memory = random_memory(11, GM=256, UB=256)
    with pytest.raises(IllegalCall, match="data_move.product.supported"):
        expected(dm(Tensor("UB", 0, "uint8", 32), Tensor("GM", 0, "uint8", 32), product="ascend910_93"), memory)


# -- undefined calls: an image, with the written bytes marked open --------------------------------------

def test_overlap_marks_dst_footprint_undefined():
    """UB->UB, src [0, 64) and dst [32, 96) overlap: dst's bytes are open, everything else is defined."""
    memory = random_memory(12, GM=128, UB=512)
    before = {s: a.copy() for s, a in memory.items()}
    result = expected(dm(Tensor("UB", 32, "uint8", 64), Tensor("UB", 0, "uint8", 64), burst=2), memory)
    want = np.ones(512, dtype=bool)
    want[32:96] = False
    assert result.defined["UB"].tobytes() == want.tobytes()
    assert result.defined["GM"].all() and result.fully_defined("GM")
    assert not result.fully_defined("UB")
    assert [(v.rule, v.severity) for v in result.violations] == [("data_move.overlap", "undefined")]
    assert result.memory["UB"][want].tobytes() == before["UB"][want].tobytes()
    assert result.memory["GM"].tobytes() == before["GM"].tobytes()
    assert_images_equal(memory, before)


def test_overlap_with_strides_marks_only_the_bursts():
    """Overlapping trains with gaps: only dst's bursts are open, the gaps between them stay defined."""
    memory = random_memory(13, UB=512)
    call = dm(Tensor("UB", 64, "uint8", 320), Tensor("UB", 0, "uint8", 192), nburst=3, burst=2,
              src_stride=0, dst_stride=2)
    result = expected(call, memory)
    _, footprint = reference(call, memory)
    assert result.defined["UB"].tobytes() == (~footprint["UB"]).tobytes()
    assert footprint["UB"][64:128].all() and not footprint["UB"][128:192].any()


def test_sid_ambiguity_marks_dst_footprint_undefined():
    """sid in 1..15 is the documented ambiguity ('输入0即可' vs 'sid∈[0, 15]'): the move's result is open."""
    memory = random_memory(14, GM=256, UB=256)
    result = expected(dm(Tensor("UB", 64, "uint8", 32), Tensor("GM", 0, "uint8", 32), sid=5), memory)
    want = np.ones(256, dtype=bool)
    want[64:96] = False
    assert result.defined["UB"].tobytes() == want.tobytes()
    assert result.defined["GM"].all()
    assert [v.rule for v in result.violations] == ["data_move.sid.reserved"]


# -- malformed memory -------------------------------------------------------------------------------------

GM_TO_UB = dm(Tensor("UB", 64, "float16", 64), Tensor("GM", 32, "float16", 64), nburst=2, burst=1, dst_stride=1)


def test_missing_scope():
    with pytest.raises(ValueError, match=r"uses UB but memory has no 'UB' image"):
        expected(GM_TO_UB, random_memory(15, GM=256))
    with pytest.raises(ValueError, match=r"uses GM but memory has no 'GM' image"):
        expected(GM_TO_UB, random_memory(15, UB=256))


def test_image_too_short():
    """dst's second burst ends at 64 + 2*32 + 32 = 160 bytes of UB; src's at 32 + 64 = 96 bytes of GM."""
    expected(GM_TO_UB, random_memory(16, GM=96, UB=160))
    with pytest.raises(ValueError, match=r"memory\['UB'\] has 159 bytes; dst reaches byte 160"):
        expected(GM_TO_UB, random_memory(16, GM=96, UB=159))
    with pytest.raises(ValueError, match=r"memory\['GM'\] has 95 bytes; src reaches byte 96"):
        expected(GM_TO_UB, random_memory(16, GM=95, UB=160))


@pytest.mark.parametrize("bad", [np.zeros(256, dtype=np.int8), np.zeros((16, 16), dtype=np.uint8),
                                 bytearray(256), list(range(256))], ids=["int8", "2d", "bytearray", "list"])
def test_image_not_a_uint8_vector(bad):
    memory = {"GM": np.zeros(256, dtype=np.uint8), "UB": bad}
    with pytest.raises(ValueError, match=r"memory\['UB'\] must be a 1-D numpy uint8 array"):
        expected(GM_TO_UB, memory)


def test_malformed_call_is_a_format_error():
    with pytest.raises(CallFormatError, match="missing argument 'sid'"):
        args = dict(GM_TO_UB.args)
        del args["sid"]
        expected(Call("data_move", "ascend910b", args), random_memory(17, GM=256, UB=256))


# -- a legal data_move's written scope given as the bytes that change (data_move.patched) ----------------
@pytest.mark.parametrize("dst,src,nburst,burst,src_stride,dst_stride,back_to_back", [
    (Tensor("UB", 98304, "uint8", 98304), Tensor("UB", 0, "uint8", 98304), 1, 3072, 0, 0, True),  # the largest
    (Tensor("UB", 4096, "float16", 512), Tensor("UB", 0, "float16", 512), 4, 8, 0, 0, True),      # back to back
    (Tensor("UB", 0, "float16", 512), Tensor("GM", 7, "float16", 512), 1, 32, 0, 0, True),        # GM -> UB
    (Tensor("UB", 196608 - 1024, "uint8", 1024), Tensor("UB", 0, "uint8", 1024), 1, 32, 0, 0, True),  # at the top
    (Tensor("GM", 0, "float16", 512), Tensor("UB", 1024, "float16", 512), 2, 4, 0, 4, False),     # dst gaps
    (Tensor("UB", 8192, "float16", 512), Tensor("UB", 0, "float16", 512), 2, 4, 4, 0, False),     # src gaps
])
def test_a_move_given_as_its_changed_bytes_leaves_the_image_copy_and_apply_leave(dst, src, nburst, burst,
                                                                                 src_stride, dst_stride,
                                                                                 back_to_back):
    from oracle.apis import data_move
    from oracle.rules import context
    call = dm(dst, src, nburst=nburst, burst=burst, src_stride=src_stride, dst_stride=dst_stride)
    memory = random_memory(5, GM=1 << 16, UB=196608, L1=1024)
    before = {s: a.copy() for s, a in memory.items()}
    want, _ = reference(call, memory)
    ctx = context(call, memory)
    (scope, (lo, data)), = data_move.patched(call, memory, ctx.units, ctx.accesses).items()
    assert scope == dst.scope
    assert np.shares_memory(data, memory[src.scope]) == back_to_back       # back to back: no byte copied
    assert data.size <= ctx.accesses["dst"].span[1] - ctx.accesses["dst"].span[0]
    made = memory[scope].copy()
    made[lo:lo + data.size] = data
    assert made.tobytes() == want[scope].tobytes()
    result = expected(call, memory)                                     # a whole image, the input's own
    assert_images_equal(result.memory, want)
    assert_images_equal(memory, before)                                  # the input is not modified
    assert not result.patches and not np.shares_memory(result.memory[dst.scope], memory[dst.scope])
    assert result.memory[dst.scope].flags.writeable and result.fully_defined(dst.scope)
    frozen = {s: a.copy() for s, a in memory.items()}
    for a in frozen.values():
        a.flags.writeable = False
    lazy = expected(call, frozen, patches=True)         # read-only inputs: the written scope left uncopied
    assert lazy.memory[scope] is frozen[scope] and set(lazy.patches) == {scope}
    lazy.materialize()
    assert not lazy.patches
    assert_images_equal(lazy.memory, want)
    assert_images_equal(frozen, before)
