"""Readings in the oracle: `check(call, memory, readings=...)` judges a call inside an
ambiguity's region by the declared reading's legality, and `expected(..., readings=...)` moves its bytes
by the reading's index-math variant (VARIANTS of the API's module, chosen by name). The images of the
variants are worked here by hand, element by element, from the readings' sentences, not by the oracle's
vectorised math. An undeclared ambiguity stays `undefined`.
"""
from __future__ import annotations

import numpy as np
import pytest

from conformance.backends.contract import OracleBackend, Rejected
from oracle import Call, IllegalCall, Tensor, check, expected
from oracle.apis import INDEX_MATH
from oracle.spec import default_rulebook
from readings import DEFAULT_MATH, OPENING

BOOK = default_rulebook()
UB = {"ascend910b": 196608, "ascend910": 262144, "ascend310b": 253952, "ascend310p-aicore": 262144}
GM = 1 << 18
RNG = np.random.default_rng(18)


# -- one call inside each ambiguity's region (every other rule kept) --------------------------------

def entries(base: int, dtype: str = "float16", n: int = 16, size: int = 16 << 10, product: str = "ascend910b"):
    item = {"int8": 1, "uint8": 1, "int32": 4}.get(dtype, 2)
    return [Tensor("UB", base + i * 32, dtype, (size - i * 32) // item) for i in range(n)]


def vts(product="ascend910b", dtype="float16", *, dst=None, src=None, repeat=1, dst_stride=0, src_stride=0,
        dst_high=False, src_high=False) -> Call:
    return Call("vec_trans_scatter", product, {
        "dst_high_half": dst_high, "src_high_half": src_high,
        "dst_list": dst if dst is not None else entries(64 << 10, dtype),
        "src_list": src if src is not None else entries(0, dtype),
        "repeat_times": repeat, "dst_rep_stride": dst_stride, "src_rep_stride": src_stride})


S_SRC, S_DST, S_OFFS = 0, 32 << 10, 96 << 10


def scatter(form="mask_continuous", dtype="float16", *, repeat=2, stride=8, mask=None, count=128) -> Call:
    args = {"dstLocal": Tensor("UB", S_DST, dtype, (32 << 10) // np.dtype(_np(dtype)).itemsize),
            "srcLocal": Tensor("UB", S_SRC, dtype, (32 << 10) // np.dtype(_np(dtype)).itemsize),
            "dstOffsetLocal": Tensor("UB", S_OFFS, "uint32", 1024), "dstBaseAddr": 0}
    if form == "count":
        args["count"] = count
    else:
        args.update(mask=mask if mask is not None else 128, repeatTimes=repeat, srcRepStride=stride)
    return Call("scatter", "ascend310b", args, form)


def gather(form="repeat", dtype="float16", *, repeat=2, stride=8, count=128) -> Call:
    args = {"dst": Tensor("UB", S_DST, dtype, (32 << 10) // 2), "src": Tensor("UB", S_SRC, dtype, (32 << 10) // 2),
            "src_offset": Tensor("UB", S_OFFS, "uint32", 1024)}
    if form == "repeat":
        args.update(dst_repeat_stride=stride, repeat=repeat)
    else:
        args["count"] = count
    return Call("asc_gather", "ascend910b", args, form)


def ga(form="mask_continuous", *, product="ascend910b", repeat=2, stride=8, count=128) -> Call:
    args = {"dst": Tensor("UB", S_DST, "float16", (32 << 10) // 2), "src": Tensor("UB", S_SRC, "float16", (32 << 10) // 2),
            "srcOffset": Tensor("UB", S_OFFS, "uint32", 1024), "srcBaseAddr": 0}
    if form == "count":
        args["count"] = count
    else:
        args.update(mask=128, repeatTime=repeat, dstRepStride=stride)
    return Call("gather", product, args, form)


def gb(*, repeat=1, rep=8) -> Call:
    return Call("gatherb", "ascend310b", {"dst": Tensor("UB", S_DST, "uint16", 16 << 10),
                                          "src": Tensor("UB", S_SRC, "uint16", 16 << 10),
                                          "offset": Tensor("UB", S_OFFS, "uint32", 1024), "repeatTime": repeat,
                                          "repeatParams": {"dstBlkStride": 1, "dstRepStride": rep}})


def dm(sid: int) -> Call:
    return Call("data_move", "ascend910b", {"dst": Tensor("UB", 0, "float16", 512), "src": Tensor("GM", 0, "float16", 512),
                                            "sid": sid, "nburst": 1, "burst": 1, "src_stride": 0, "dst_stride": 0})


def nz(src_n_stride: int, **fields: int) -> Call:
    ip = {**dict(ndNum=1, nValue=4, dValue=16, srcNdMatrixStride=1, srcNStride=src_n_stride, dstDStride=16,
                 dstNdMatrixStride=64), **fields}
    return Call("data_copy_nz2nd", "ascend910b", {"dst": Tensor("GM", 0, "float16", 1024),
                                                  "src": Tensor("UB", 0, "float16", 1024), "intriParams": ip})


def nd(product: str = "ascend910b", dst_addr: int = 0, **fields: int) -> Call:
    ip = {**dict(ndNum=1, nValue=4, dValue=24, srcNdMatrixStride=0, srcDValue=24, dstNzC0Stride=4, dstNzNStride=1,
                 dstNzMatrixStride=128), **fields}
    return Call("data_copy_nd2nz", product, {"dst": Tensor("UB", dst_addr, "float16", 256),
                                             "src": Tensor("GM", 0, "float16", 512), "intriParams": ip})


def sl(dst: list, src: list, *, dims: int = 1, dst_scope: str = "UB", src_scope: str = "GM") -> Call:
    """DataCopy by slices of float32 on ascend910b; each list's entries as SliceInfo{...} tuples."""
    names = ("startIndex", "endIndex", "stride", "burstLen", "shapeValue")
    return Call("data_copy_slice", "ascend910b", {
        "dst": Tensor(dst_scope, 0, "float32", 256), "src": Tensor(src_scope, 0, "float32", 256),
        "dstSliceInfo": [dict(zip(names, e)) for e in dst], "srcSliceInfo": [dict(zip(names, e)) for e in src],
        "dimValue": dims})


def dc(product: str = "ascend910", **fields: int) -> Call:
    p = {"blockCount": 2, "blockLen": 1, "srcGap": 0, "dstGap": 0, **fields}
    return Call("data_copy", product, {"dst": Tensor("UB", 0, "float16", 512), "src": Tensor("GM", 0, "float16", 512),
                                       "repeatParams": p}, "params")


def pad_g2u(dtype: str, block_len: int, *, is_pad: bool = True, count: int = 2, value: int = 0) -> Call:
    """DataCopyPad GM -> UB of `count` blocks of `block_len` bytes, no padding, on ascend910b."""
    return Call("data_copy_pad", "ascend910b", {
        "dst": Tensor("UB", 0, dtype, 4096 // np.dtype(_np(dtype)).itemsize),
        "src": Tensor("GM", 0, dtype, 4096 // np.dtype(_np(dtype)).itemsize),
        "dataCopyParams": {"blockCount": count, "blockLen": block_len, "srcStride": 0, "dstStride": 0},
        "padParams": {"isPad": is_pad, "leftPadding": 0, "rightPadding": 0, "paddingValue": value}}, "gm_to_ub")


def _np(dtype: str) -> str:
    return {"float16": "<f2", "uint8": "u1", "int8": "i1", "int32": "<i4", "int16": "<i2", "uint32": "<u4",
            "int64": "<i8"}[dtype]


def offsets_image(call: Call, entry) -> dict[str, np.ndarray]:
    """Random UB and GM, the offsets tensor holding entry(i) (bytes) at entry i."""
    memory = {"UB": RNG.integers(0, 256, UB[call.product], dtype=np.uint8),
              "GM": RNG.integers(0, 256, GM, dtype=np.uint8)}
    name = {"scatter": "dstOffsetLocal", "asc_gather": "src_offset", "gather": "srcOffset",
            "gatherb": "offset"}.get(call.api)
    if name:
        t = call.tensor(name)
        memory["UB"][t.addr:t.addr + t.numel * 4] = np.array([entry(i) for i in range(t.numel)], "<u4").view(np.uint8)
    return memory


def in_order(width: int):
    return lambda i: i * width


TOP = UB["ascend910b"]
HALF = entries(0, "int8")
HALF_ON = entries(32, "int8")       # one block on: the lists meet in 15 blocks, in different halves


def low_half_only(base: int) -> list[Tensor]:
    """int8 entries a block apart, the last one's tensor 20 bytes: its low half inside, its block not."""
    return entries(base, "int8")[:15] + [Tensor("UB", base + 15 * 32, "int8", 20)]


# ambiguity id -> (call in its region, offsets entry i -> byte offset)
REGION = {
    "asc_gather.count.zero": (gather("count", count=0), in_order(2)),
    "asc_gather.repeat.zero": (gather(repeat=0), in_order(2)),
    "asc_gather.repeat.layout": (gather(repeat=1), in_order(2)),
    "asc_gather.offset.repeat_advance": (gather(repeat=2, stride=16), in_order(2)),
    "asc_gather.dst.repeat_overlap": (gather(repeat=2, stride=4), in_order(2)),
    "data_copy_nz2nd.srcNStride.max": (nz(4096), None),
    "data_copy_nz2nd.ndNum.zero": (nz(16, ndNum=0), None),
    "data_copy_nz2nd.srcNdMatrixStride.divisible": (nz(16, ndNum=2, nValue=3), None),   # 256 x 2 bytes: not of 6
    "asc_gather.dst_repeat_stride.max": (gather(repeat=1, stride=4096), in_order(2)),
    "scatter.repeatTimes.zero": (scatter(repeat=0), in_order(2)),
    "gather.zero.unstated": (ga("count", product="ascend310b", count=0), in_order(2)),
    "gather.offset.unaligned": (ga("count", count=16), lambda i: 2 * i + (i == 5)),
    "gather.offset.repeat_advance": (ga(repeat=2, stride=16), in_order(2)),
    "gather.dst.repeat_overlap": (ga(repeat=2, stride=4), in_order(2)),
    "gather.dstRepStride.max": (ga(repeat=1, stride=4096), in_order(2)),
    "gatherb.repeatTime.zero": (gb(repeat=0), lambda i: 32 * i),
    "gatherb.dstRepStride.max": (gb(repeat=1, rep=4096), lambda i: 32 * i),
    "copy.repeatTime.zero": (Call("copy", "ascend310b", {
        "dst": Tensor("UB", S_DST, "float16", 128), "src": Tensor("UB", S_SRC, "float16", 128), "mask": 128,
        "repeatTime": 0, "repeatParams": {"dstStride": 1, "srcStride": 1, "dstRepeatSize": 8, "srcRepeatSize": 8}},
        "mask_continuous"), None),
    "scatter.offset.duplicate": (scatter("count", count=16), lambda i: 2 * i - 2 * (i == 5)),
    "data_move.sid.reserved": (dm(3), None),
    "data_copy.blockCount.zero_elsewhere": (dc(blockCount=0), None),
    "data_copy_nd2nz.dstNzMatrixStride.zero": (nd(dstNzMatrixStride=0), None),
    "data_copy_nd2nz.reserved_ub": (nd("ascend310p-aicore", (256 << 10) - 4096), None),   # dst in the top 8 KB
    "data_copy.blockLen.zero_elsewhere": (dc(blockLen=0), None),
    "data_copy_slice.endIndex.at_shape": (sl([(0, 15, 0, 2, 16)], [(0, 15, 0, 2, 15)]), None),
    "data_copy_slice.formula.higher_dims": (sl([(0, 7, 0, 1, 8), (0, 1, 0, 1, 2)], [(0, 7, 0, 1, 8), (0, 2, 1, 1, 3)],
                                              dims=2), None),
    "data_copy_slice.burstLen.first_dim": (sl([(0, 15, 0, 2, 16), (0, 1, 0, 1, 2)], [(0, 15, 0, 2, 16), (0, 1, 0, 1, 2)],
                                              dims=2), None),
    "data_copy_slice.ub_stride.truncated": (sl([(0, 16, 1, 1, 24)], [(0, 15, 0, 1, 16)]), None),
    "data_copy_slice.counts.from_src": (sl([(0, 7, 0, 1, 8)], [(0, 15, 0, 1, 16)]), None),
    "data_copy_slice.shapeValue.zero": (sl([(0, 7, 0, 1, 8)], [(0, 7, 0, 1, 0)]), None),
    "data_copy_slice.single_index": (sl([(0, 7, 0, 1, 8), (0, 0, 0, 1, 1)], [(0, 7, 0, 1, 8), (1, 1, 0, 1, 2)],
                                        dims=2), None),
    "data_copy_slice.ub_slices.align": (sl([(1, 8, 0, 1, 16)], [(0, 7, 0, 1, 8)]), None),
    "data_copy_pad.blockCount.zero_elsewhere": (Call("data_copy_pad", "ascend310b", {
        "dst": Tensor("GM", 0, "int8", 512), "src": Tensor("UB", 0, "int8", 512),
        "dataCopyParams": {"blockCount": 0, "blockLen": 32, "srcStride": 0, "dstStride": 0}}, "ub_to_gm"), None),
    "data_copy_pad.blockLen.zero_elsewhere": (Call("data_copy_pad", "ascend310b", {
        "dst": Tensor("GM", 0, "int8", 512), "src": Tensor("UB", 0, "int8", 512),
        "dataCopyParams": {"blockCount": 2, "blockLen": 0, "srcStride": 0, "dstStride": 0}}, "ub_to_gm"), None),
    "data_copy_pad.dummy.no_padding": (pad_g2u("int8", 20), None),
    "data_copy_pad.dummy.without_isPad": (pad_g2u("int8", 20, is_pad=False), None),
    "data_copy_pad.dummy.no_padding_b64": (pad_g2u("int64", 8), None),
    "data_copy_pad.dummy.without_isPad_b64": (pad_g2u("int64", 8, is_pad=False), None),
    "data_copy.count.unaligned": (Call("data_copy", "ascend910b", {
        "dst": Tensor("UB", 0, "float16", 512), "src": Tensor("GM", 0, "float16", 512), "count": 20}, "count"), None),
    "scatter.count.zero": (scatter("count", count=0), in_order(2)),
    "scatter.repeat.8bit": (scatter(dtype="uint8", repeat=1), in_order(1)),
    "scatter.offset.unaligned": (scatter("count", count=16), lambda i: 2 * i + (i == 5)),
    "scatter.offset.repeat_advance": (scatter(repeat=2, stride=16), in_order(2)),
    "vec_trans_scatter.repeat_times.zero": (vts(repeat=0), None),
    "vec_trans_scatter.stride.single_repeat": (vts(dst_stride=7), None),
    "vec_trans_scatter.high_half.non_8bit": (vts(dst_high=True), None),
    "vec_trans_scatter.overlap.later_dependency": (
        vts(dst=entries(64 << 10), src=entries((64 << 10) - 64 * 32), repeat=3, dst_stride=32, src_stride=32), None),
    "vec_trans_scatter.overlap.half_block": (vts(dtype="int8", dst=HALF_ON, src=HALF, dst_high=True), None),
    "vec_trans_scatter.b32.older_products": (vts("ascend910", "int32", dst=entries(64 << 10, "int32"),
                                                 src=entries(0, "int32")), None),
    "vec_trans_scatter.b32.reserved_ub": (vts(dtype="int32", dst=entries(64 << 10, "int32"),
                                              src=entries(TOP - 8 * 1024, "int32", size=8 * 1024)), None),
    "vec_trans_scatter.dst.repeat_overlap": (vts(repeat=2, dst_stride=0, src_stride=16), None),
    "vec_trans_scatter.src_list.half_block_bounds": (vts(dtype="int8", dst=entries(64 << 10, "int8"),
                                                         src=low_half_only(0)), None),
    "vec_trans_scatter.dst_list.half_block_bounds": (vts(dtype="int8", dst=low_half_only(64 << 10),
                                                         src=entries(0, "int8")), None),
}
ALL = [(amb.id, r.id) for spec in BOOK.apis.values() for amb in spec.ambiguities for r in amb.readings]


def test_every_ambiguity_has_a_region_call():
    assert sorted(REGION) == sorted({a for a, _ in ALL})


def declared(amb: str, reading: str) -> dict[str, str]:
    """The reading under test, the other ambiguities the call may also fall in read as the default math."""
    return {**DEFAULT_MATH, amb: reading}


@pytest.mark.parametrize("amb, reading", ALL)
def test_check_gives_the_readings_legality(amb, reading):
    call, entry = REGION[amb]
    memory = offsets_image(call, entry)
    legality = BOOK.ambiguity(amb).reading(reading).legality
    found = sorted((v.rule, v.severity) for v in check(call, memory, readings=declared(amb, reading)))
    assert found == ([] if legality == "legal" else [(amb, legality)])
    undeclared = {k: v for k, v in DEFAULT_MATH.items() if k != amb}
    assert (amb, "undefined") in [(v.rule, v.severity) for v in check(call, memory, readings=undeclared)]


@pytest.mark.parametrize("amb, reading", ALL)
def test_expected_follows_the_readings_legality(amb, reading):
    call, entry = REGION[amb]
    memory = offsets_image(call, entry)
    legality = BOOK.ambiguity(amb).reading(reading).legality
    readings = declared(amb, reading)
    if legality == "reject":
        with pytest.raises(IllegalCall, match=amb):
            expected(call, memory, readings=readings)
        return
    out = expected(call, memory, readings=readings)
    if reading in OPENING:          # legal, its own bytes open (test_dummy_open_reading says which)
        assert out.violations == [] and not all(out.fully_defined(s) for s in out.memory)
    elif legality == "legal":       # defined, but for bytes several elements were sent to (one of them stays)
        chosen = {scope for scope, _, _ in out.choices}
        assert out.violations == [] and all(out.fully_defined(s) for s in out.memory if s not in chosen)
        for scope, starts, values in out.choices:
            assert not out.defined[scope][starts].any()
            assert out.defined[scope].sum() == out.defined[scope].size - len(set((starts[:, None] + range(values.shape[1])).ravel().tolist()))
    else:
        assert [v.rule for v in out.violations] == [amb]
        assert any(not out.fully_defined(s) for s in out.memory) or not any(out.written[s].any() for s in out.written)


# -- the images the legal readings describe, by hand ----------------------------------------------

NOP = ["asc_gather.count.zero", "asc_gather.repeat.zero", "scatter.count.zero", "vec_trans_scatter.repeat_times.zero"]


@pytest.mark.parametrize("amb", NOP)
def test_nop_moves_nothing(amb):
    call, entry = REGION[amb]
    memory = offsets_image(call, entry)
    out = expected(call, memory, readings=declared(amb, "nop"))
    for scope, image in memory.items():
        assert np.array_equal(out.memory[scope], image)


def transpose16(blocks: list[bytes]) -> list[bytes]:
    """16 blocks of 16 float16: dst block k element e = src block e element k."""
    return [b"".join(blocks[e][2 * k:2 * k + 2] for e in range(16)) for k in range(16)]


@pytest.mark.parametrize("reading, shift", [("ignored", 0), ("applied", 7 * 32)])
def test_single_repeat_stride(reading, shift):
    """repeat_times = 1, dst_rep_stride 7: `ignored` writes at the entries, `applied` one stride past."""
    call = vts(dst_stride=7)
    memory = offsets_image(call, None)
    ub = memory["UB"]
    blocks = [bytes(ub[t.addr:t.addr + 32]) for t in call.args["src_list"]]
    want = ub.copy()
    for t, block in zip(call.args["dst_list"], transpose16(blocks)):
        want[t.addr + shift:t.addr + shift + 32] = np.frombuffer(block, np.uint8)
    out = expected(call, memory, readings={"vec_trans_scatter.stride.single_repeat": reading})
    assert np.array_equal(out.memory["UB"], want)
    src = vts(src_stride=5)            # the src side: under `applied` the blocks are read one stride on
    memory = offsets_image(src, None)
    ub = memory["UB"]
    step = 5 * 32 if reading == "applied" else 0
    blocks = [bytes(ub[t.addr + step:t.addr + step + 32]) for t in src.args["src_list"]]
    want = ub.copy()
    for t, block in zip(src.args["dst_list"], transpose16(blocks)):
        want[t.addr:t.addr + 32] = np.frombuffer(block, np.uint8)
    out = expected(src, memory, readings={"vec_trans_scatter.stride.single_repeat": reading})
    assert np.array_equal(out.memory["UB"], want)


def scatter_by_hand(call: Call, memory, per: int, advance: int) -> np.ndarray:
    """Element e < mask of repeat r: src at r * srcRepStride * 32 + e * width, placed at the offset in
    entry r * advance + e."""
    args, width = call.args, np.dtype(_np(call.tensor("srcLocal").dtype)).itemsize
    ub = memory["UB"]
    offs = ub[S_OFFS:S_OFFS + 4096].view("<u4")
    want = ub.copy()
    for r in range(args["repeatTimes"]):
        for e in range(min(args["mask"], per)):
            at = S_SRC + r * args["srcRepStride"] * 32 + e * width
            to = S_DST + int(offs[r * advance + e])
            want[to:to + width] = ub[at:at + width]
    return want


@pytest.mark.parametrize("reading, advance", [("whole_repeat", 128), ("with_stride", 16 * 16)])
def test_scatter_repeat_advance(reading, advance):
    """float16, srcRepStride 16 datablocks: entry r * 128 + e (whole_repeat) or r * 16 * 32 / 2 + e."""
    call = scatter(repeat=2, stride=16)
    memory = offsets_image(call, lambda i: 2 * ((i * 37) % 1024))     # distinct places, out of order
    out = expected(call, memory, readings=declared("scatter.offset.repeat_advance", reading))
    assert out.choices == []
    assert np.array_equal(out.memory["UB"], scatter_by_hand(call, memory, 128, advance))


@pytest.mark.parametrize("reading, per", [("per_repeat_256", 256), ("per_repeat_128", 128)])
def test_scatter_8bit_repeat(reading, per):
    """uint8, 2 repeats of mask 128, srcRepStride 8: the offsets of repeat 1 start at entry 256 or 128."""
    call = scatter(dtype="uint8", repeat=2, stride=8)
    memory = offsets_image(call, lambda i: (i * 37) % 1024)
    out = expected(call, memory, readings=declared("scatter.repeat.8bit", reading))
    assert np.array_equal(out.memory["UB"], scatter_by_hand(call, memory, per, per))


@pytest.mark.parametrize("reading, advance", [("whole_repeat", 128), ("with_stride", 16 * 16)])
def test_gather_repeat_advance(reading, advance):
    """dst_repeat_stride 16: element e of iteration r fills dst + r * 512 + 2e from the offset in entry
    r * 128 + e (whole_repeat) or r * 256 + e (with_stride)."""
    call = gather(repeat=2, stride=16)
    memory = offsets_image(call, lambda i: 2 * ((i * 37) % 1024))
    ub = memory["UB"]
    offs = ub[S_OFFS:S_OFFS + 4096].view("<u4")
    want = ub.copy()
    for r in range(2):
        for e in range(128):
            at = S_SRC + int(offs[r * advance + e])
            want[S_DST + r * 512 + 2 * e:S_DST + r * 512 + 2 * e + 2] = ub[at:at + 2]
    out = expected(call, memory, readings=declared("asc_gather.offset.repeat_advance", reading))
    assert np.array_equal(out.memory["UB"], want)


@pytest.mark.parametrize("reading, second", [("elements", 9 * 4), ("truncated", 8 * 4)])
def test_slice_ub_gap(reading, second):
    """Two slices of 8 floats, a gap of one float on the UB side: the next slice 9 floats on ("stride ... 单位为
    元素个数"), or, the gap rounded down to whole DataBlocks (0), 8 floats on."""
    call, _ = REGION["data_copy_slice.ub_stride.truncated"]
    memory = offsets_image(call, None)
    out = expected(call, memory, readings=declared("data_copy_slice.ub_stride.truncated", reading))
    want = memory["UB"].copy()
    want[0:32] = memory["GM"][0:32]
    want[second:second + 32] = memory["GM"][32:64]
    assert np.array_equal(out.memory["UB"], want)


def test_sid_same_data_moves_as_sid_0():
    call = dm(3)
    memory = offsets_image(call, None)
    out = expected(call, memory, readings={"data_move.sid.reserved": "same_data"})
    want = memory["UB"].copy()
    want[:32] = memory["GM"][:32]
    assert np.array_equal(out.memory["UB"], want)


def pad_by_hand(call: Call, memory, element: int, first_of, value: bytes | None = None) -> np.ndarray:
    """DataCopyPad GM -> UB without padding, worked block by block: block k's blockLen bytes from GM at
    k * blockLen, in UB at k * 32; its dummy up to 32 bytes holds `value` repeated, or the first `element`
    bytes of block first_of(k)."""
    n, count = call.args["dataCopyParams"]["blockLen"], call.args["dataCopyParams"]["blockCount"]
    gm, want = memory["GM"], memory["UB"].copy()
    for k in range(count):
        want[k * 32:k * 32 + n] = gm[k * n:(k + 1) * n]
        fill = value if value is not None else bytes(gm[first_of(k) * n:first_of(k) * n + element])
        for at in range(k * 32 + n, (k + 1) * 32, len(fill)):
            want[at:at + len(fill)] = np.frombuffer(fill, np.uint8)
    return want


EACH, FIRST = (lambda k: k), (lambda k: 0)
# reading -> (the element the dummy repeats for a 64-bit T, whose block's first element, paddingValue?)
DUMMY_READINGS = {"block_first": (8, EACH, False), "block_first_32bit": (4, EACH, False),
                  "transfer_first": (8, FIRST, False), "transfer_first_32bit": (4, FIRST, False),
                  "padding_value": (None, None, True)}


DUMMY_CASES = [(amb, dtype, value) for suffix, dtype, value in (("", "int16", 0x1234), ("_b64", "int64", 0))
               for amb in (f"data_copy_pad.dummy.no_padding{suffix}", f"data_copy_pad.dummy.without_isPad{suffix}")]


@pytest.mark.parametrize("amb, dtype, value", DUMMY_CASES)
@pytest.mark.parametrize("reading", sorted(DUMMY_READINGS))
def test_dummy_readings(amb, dtype, value, reading):
    """Two blocks of 8 bytes (int64: one element; int16: four), no padding: each UB block is the 8 bytes
    and a 24-byte dummy. block_first: block k's first element three times (int64) or twelve (int16);
    block_first_32bit (64-bit types only): block k's first 4 bytes six times; transfer_first(_32bit): the
    same from block 0 in both blocks; padding_value (isPad true only): paddingValue's bytes (int64: 0,
    the only value b64 allows)."""
    ids = {r.id for r in BOOK.ambiguity(amb).readings}
    if reading not in ids:
        assert (reading == "padding_value" and "without_isPad" in amb) or (reading.endswith("_32bit") and dtype != "int64")
        pytest.skip(f"{amb} has no reading {reading} for {dtype}")
    call = pad_g2u(dtype, 8, is_pad="without_isPad" not in amb, value=value)
    memory = offsets_image(call, None)
    width = np.dtype(_np(dtype)).itemsize
    element, first_of, is_value = DUMMY_READINGS[reading]
    fill = np.array([value], f"<u{width}").tobytes() if is_value else None
    want = pad_by_hand(call, memory, min(element or width, width), first_of, fill)
    assert check(call, memory, readings={amb: reading}) == []
    out = expected(call, memory, readings={amb: reading})
    assert np.array_equal(out.memory["UB"], want) and out.fully_defined("UB")


@pytest.mark.parametrize("amb, dtype, value", DUMMY_CASES)
def test_dummy_open_reading(amb, dtype, value):
    """dummy_open: the same two blocks, each block's 8 data bytes moved and its 24 dummy bytes open; every
    other byte of UB as it was (defined)."""
    call = pad_g2u(dtype, 8, is_pad="without_isPad" not in amb, value=value)
    memory = offsets_image(call, None)
    assert check(call, memory, readings={amb: "dummy_open"}) == []
    out = expected(call, memory, readings={amb: "dummy_open"})
    want = pad_by_hand(call, memory, np.dtype(_np(dtype)).itemsize, EACH, None)
    ub = memory["UB"]
    open_ = np.zeros(ub.size, bool)
    for k in range(2):
        open_[k * 32 + 8:(k + 1) * 32] = True
    assert not out.fully_defined("UB")
    defined = out.defined["UB"]
    assert np.array_equal(~defined, open_)
    assert np.array_equal(out.memory["UB"][defined], want[defined])


def test_dummy_readings_differ_on_the_call():
    """The int64 call tells every legal reading of the no-padding dummy from every other."""
    call = pad_g2u("int64", 8)
    memory = offsets_image(call, None)
    images = {r: expected(call, memory, readings={"data_copy_pad.dummy.no_padding_b64": r}).memory["UB"][:64].tobytes()
              for r in DUMMY_READINGS}
    assert len(set(images.values())) == len(DUMMY_READINGS)


def test_unaligned_count_readings():
    """DataCopy(count = 20) of float16, 40 bytes: round_down moves the first 32 and leaves bytes 32..39 of
    dst as they were; reject refuses the call."""
    call, _ = REGION["data_copy.count.unaligned"]
    memory = offsets_image(call, None)
    out = expected(call, memory, readings={"data_copy.count.unaligned": "round_down"})
    want = memory["UB"].copy()
    want[:32] = memory["GM"][:32]
    assert np.array_equal(out.memory["UB"], want)
    with pytest.raises(IllegalCall, match="data_copy.count.unaligned"):
        expected(call, memory, readings={"data_copy.count.unaligned": "reject"})
    aligned = Call("data_copy", "ascend910b", {**call.args, "count": 32}, "count")
    assert check(aligned) == []                 # 64 bytes: outside the region, whatever is declared


# -- the argument and the reference backend --------------------------------------------------------

def test_unknown_readings_are_named():
    call = dm(3)
    with pytest.raises(ValueError, match="unknown ambiguity 'data_move.sid.nope'"):
        check(call, readings={"data_move.sid.nope": "same_data"})
    with pytest.raises(ValueError, match="no reading 'maybe'"):
        expected(call, offsets_image(call, None), readings={"data_move.sid.reserved": "maybe"})


def test_every_variant_is_provided_by_its_module():
    for spec in BOOK.apis.values():
        assert "default" in INDEX_MATH[spec.api].VARIANTS
        for amb in spec.ambiguities:
            for r in amb.readings:
                if r.variant:
                    assert r.variant in INDEX_MATH[spec.api].VARIANTS, (amb.id, r.id)
                    BOOK.with_readings({amb.id: r.id})        # accepted, not refused


def test_variant_applies_only_inside_its_region():
    """`applied` moves nothing otherwise for a call outside the region (two repeats: the stride counts
    from the second on under every reading)."""
    call = vts(repeat=2, dst_stride=16, src_stride=16)
    memory = offsets_image(call, None)
    a = expected(call, memory, readings={"vec_trans_scatter.stride.single_repeat": "applied"})
    b = expected(call, memory)
    assert np.array_equal(a.memory["UB"], b.memory["UB"])


def test_oracle_backend_follows_its_readings():
    call = vts(dst_stride=7)
    memory = offsets_image(call, None)
    want = expected(call, memory, readings={"vec_trans_scatter.stride.single_repeat": "applied"}).memory["UB"]
    backend = OracleBackend(readings={"vec_trans_scatter.stride.single_repeat": "applied"})
    image = {s: a.copy() for s, a in memory.items()}
    backend.run(call, image)
    assert np.array_equal(image["UB"], want)
    assert not np.array_equal(want, expected(call, memory, readings={
        "vec_trans_scatter.stride.single_repeat": "ignored"}).memory["UB"])
    backend.readings = {"vec_trans_scatter.repeat_times.zero": "reject"}
    with pytest.raises(Rejected):
        backend.run(vts(repeat=0), {s: a.copy() for s, a in memory.items()})
    OracleBackend().run(vts(repeat=0), {s: a.copy() for s, a in memory.items()})      # undeclared: not refused


def test_in_order_iterations_read_what_earlier_ones_wrote():
    """vec_trans_scatter.overlap.later_dependency read `in_order`: repeat 3, strides of 16 blocks, the
    dst of iteration 0 is the src of iteration 2. Iteration 2 transposes what iteration 0 wrote (for
    16-bit elements the transpose of a transpose: iteration 0's own source blocks); read as the default
    math (every read before any write) it would transpose the blocks that were there before the call."""
    from oracle.rules import with_readings
    stride = 16
    src = entries(0)                              # blocks 0..15 (then 16..31, 32..47 for iterations 1, 2)
    dst = entries(2 * stride * 32)                # iteration 0 writes blocks 32..47: iteration 2's source
    call = vts(dst=dst, src=src, repeat=3, dst_stride=stride, src_stride=stride)
    memory = {"UB": np.random.default_rng(7).integers(0, 256, TOP, dtype=np.uint8)}
    before = memory["UB"].copy()
    book = with_readings(None, declared("vec_trans_scatter.overlap.later_dependency", "in_order"))
    assert check(call, memory, book) == []
    out = expected(call, memory, book).memory["UB"]

    def blocks(image, first):
        return image[first * 32:(first + 16) * 32].reshape(16, 16, 2)

    def transposed(image, first):
        return blocks(image, first).transpose(1, 0, 2)

    assert np.array_equal(blocks(out, 2 * stride), transposed(before, 0))        # iteration 0
    assert np.array_equal(blocks(out, 4 * stride), blocks(before, 0))            # iteration 2: T(T(src 0))
    assert not np.array_equal(blocks(out, 4 * stride), transposed(before, 2 * stride))   # not the old blocks'
