"""The worked example of the DataCopy-by-slices page (2026 edition, asc-devkit@0da921b9, GM与UB切片数据搬运) run
through the oracle and compared byte for byte with what the page explains, written from the page's words (which
elements of the 3 x 87 float source are the four slices, where they land), not from the oracle's formula. UB
and GM around the operands are random, so a stray write shows.

  图1 / 调用示例: float, dimValue 2, srcSliceInfo {{16, 70, 7, 3, 87}, {0, 2, 1, 1, 3}} (rows 0 and 2 of a 3 x 87
      source; in each, elements 16 .. 39 and 47 .. 70: "选取四个不连续的横向切片"), dstSliceInfo {{0, 47, 0, 3, 48},
      {0, 1, 0, 1, 2}} (a 2 x 48 destination, filled). GM -> UB: DataCopy(srcLocal, srcGlobal, dstSliceInfo,
      srcSliceInfo, dimValue); then UB -> GM: DataCopy(dstGlobal, srcLocal, dstSliceInfo, dstSliceInfo, dimValue).
      Its second dimensions break the formula as written, and its first dimension's burstLen is 3 with
      dimValue 2: the ambiguities data_copy_slice.formula.higher_dims and data_copy_slice.burstLen.first_dim,
      so the example runs under their readings per_index and first_dim.
"""
from __future__ import annotations

import numpy as np
import pytest

from oracle import Call, IllegalCall, Tensor, check, expected

API = "data_copy_slice"
A2 = "ascend910b"
UB_BYTES, GM_BYTES = 192 << 10, 1 << 16
HIGHER, FIRST = "data_copy_slice.formula.higher_dims", "data_copy_slice.burstLen.first_dim"
READINGS = {HIGHER: "per_index", FIRST: "first_dim"}
FIELDS = ("startIndex", "endIndex", "stride", "burstLen", "shapeValue")
SRC_INFO = [(16, 70, 7, 3, 87), (0, 2, 1, 1, 3)]
DST_INFO = [(0, 47, 0, 3, 48), (0, 1, 0, 1, 2)]
SOURCE = np.arange(1, 3 * 87 + 1, dtype=np.float32)          # the 3 x 87 source, row by row
GM_SRC, UB_DST, GM_DST = 1024, 4096, 8192


def infos(entries) -> list[dict[str, int]]:
    """SliceInfo{...} in the struct's field order (表3)."""
    return [dict(zip(FIELDS, e, strict=True)) for e in entries]


def call(dst: Tensor, src: Tensor, dst_info, src_info, dims: int = 2, product: str = A2) -> Call:
    return Call(API, product, {"dst": dst, "src": src, "dstSliceInfo": infos(dst_info),
                               "srcSliceInfo": infos(src_info), "dimValue": dims})


def images(seed: int = 5) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    memory = {"UB": rng.integers(0, 256, UB_BYTES, dtype=np.uint8), "GM": rng.integers(0, 256, GM_BYTES, dtype=np.uint8)}
    memory["GM"][GM_SRC:GM_SRC + SOURCE.nbytes] = SOURCE.view(np.uint8)
    return memory


def legal(c: Call, memory, readings=READINGS):
    assert check(c, readings=readings) == [] and check(c, memory, readings=readings) == []
    before = {s: m.copy() for s, m in memory.items()}
    out = expected(c, memory, readings=readings)
    assert all(np.array_equal(memory[s], before[s]) for s in memory), "expected() modified its input"
    assert out.violations == [] and out.fully_defined("UB") and out.fully_defined("GM")
    return out.memory


def the_four_slices() -> np.ndarray:
    """The page's words: rows 0 and 2 ("有效数据段从第0行开始 ... 到第2行结束", a row between), in each the slice
    from element 16 ("从第16个数开始") of 3 DataBlocks (24 floats), 7 elements skipped ("为7个0的间距"), and the
    next 24, ending at element 70 ("到第70个数结束"); the destination rows are 48 floats, filled in order."""
    rows = SOURCE.reshape(3, 87)
    return np.concatenate([np.concatenate([rows[r, 16:40], rows[r, 47:71]]) for r in (0, 2)])


def test_the_four_slices_are_what_the_page_says() -> None:
    out = the_four_slices()
    assert out.size == 96 and out[0] == 17 and out[23] == 40 and out[24] == 48 and out[47] == 71
    assert out[48] == 2 * 87 + 17 and out[-1] == 2 * 87 + 71


def test_gm_to_ub() -> None:
    c = call(Tensor("UB", UB_DST, "float32", 96), Tensor("GM", GM_SRC, "float32", SOURCE.size), DST_INFO, SRC_INFO)
    memory = images()
    out = legal(c, memory)
    want = memory["UB"].copy()
    want[UB_DST:UB_DST + 384] = the_four_slices().view(np.uint8)
    assert np.array_equal(out["UB"], want)
    assert np.array_equal(out["GM"], memory["GM"]), "the call wrote into GM"


def test_ub_to_gm_with_the_destination_lists_on_both_sides() -> None:
    """The example's second call passes dstSliceInfo twice: the 2 x 48 block goes to GM as it is."""
    memory = images(seed=9)
    memory["UB"][UB_DST:UB_DST + 384] = the_four_slices().view(np.uint8)
    c = call(Tensor("GM", GM_DST, "float32", 96), Tensor("UB", UB_DST, "float32", 96), DST_INFO, DST_INFO)
    out = legal(c, memory)
    want = memory["GM"].copy()
    want[GM_DST:GM_DST + 384] = the_four_slices().view(np.uint8)
    assert np.array_equal(out["GM"], want)
    assert np.array_equal(out["UB"], memory["UB"]), "the call wrote into UB"


def test_the_example_without_readings_is_two_ambiguities() -> None:
    c = call(Tensor("UB", UB_DST, "float32", 96), Tensor("GM", GM_SRC, "float32", SOURCE.size), DST_INFO, SRC_INFO)
    assert sorted(v.rule for v in check(c)) == sorted([HIGHER, FIRST])
    assert {v.severity for v in check(c)} == {"undefined"}
    every = {**READINGS, FIRST: "every_dim"}
    assert [(v.rule, v.severity) for v in check(c, readings=every)] == [(FIRST, "reject")]
    with pytest.raises(IllegalCall):
        expected(c, images(), readings=every)


def test_one_row_of_the_example() -> None:
    """dimValue 1: the first row's two slices alone, no reading needed."""
    c = call(Tensor("UB", UB_DST, "float32", 48), Tensor("GM", GM_SRC, "float32", 87), DST_INFO[:1], SRC_INFO[:1], 1)
    memory = images(seed=13)
    out = legal(c, memory, readings=None)
    want = memory["UB"].copy()
    want[UB_DST:UB_DST + 192] = the_four_slices()[:48].view(np.uint8)
    assert np.array_equal(out["UB"], want)


@pytest.mark.parametrize("change, rule", [
    (lambda s, d: ([(16, 71, 7, 3, 87), s[1]], d), "data_copy_slice.formula"),      # 56 elements: no whole N
    (lambda s, d: (s, [(0, 31, 0, 2, 48), d[1]]), "data_copy_slice.burstLen.same"),   # 2 slices of 2 blocks
    (lambda s, d: ([s[0], (0, 2, 1, 1, 1)], d), "data_copy_slice.order"),         # endIndex past shapeValue
    (lambda s, d: (s, [d[0], (0, 1, 0, 2, 2)]), "data_copy_slice.burstLen.one"),
    (lambda s, d: ([s[0], (0, 4, 2, 1, 5)], d), "data_copy_slice.rows.formula"),   # rows 0, 3, then past end 4
])
def test_the_example_broken_one_sentence_at_a_time(change, rule) -> None:
    s, d = change(SRC_INFO, DST_INFO)
    c = call(Tensor("UB", UB_DST, "float32", 96), Tensor("GM", GM_SRC, "float32", 5 * 87), d, s)
    found = [v for v in check(c, readings=READINGS)]
    assert rule in [v.rule for v in found] and all(v.severity == "reject" for v in found), found


@pytest.mark.parametrize("entry, named", [
    ({"startIndex": 0, "endIndex": 7, "stride": 0, "burstLen": 1}, r"dstSliceInfo\[0\]: expected a mapping with fields"),
    ({"startIndex": 0, "endIndex": 7, "stride": 0, "burstLen": 1, "shapeValue": 8, "extra": 1}, r"dstSliceInfo\[0\]"),
    ({"startIndex": 0, "endIndex": 7, "stride": -1, "burstLen": 1, "shapeValue": 8}, r"dstSliceInfo\[0\]\.stride"),
    ({"startIndex": 0, "endIndex": 2**32, "stride": 0, "burstLen": 1, "shapeValue": 8}, r"dstSliceInfo\[0\]\.endIndex"),
    ({"startIndex": 0, "endIndex": 7, "stride": 0, "burstLen": True, "shapeValue": 8}, r"dstSliceInfo\[0\]\.burstLen"),
    ({"startIndex": "0", "endIndex": 7, "stride": 0, "burstLen": 1, "shapeValue": 8}, r"dstSliceInfo\[0\]\.startIndex"),
])
def test_a_malformed_slice_info_is_named(entry, named) -> None:
    """A SliceInfo is five uint32_t fields: anything else is a format error naming the entry and field."""
    from oracle import CallFormatError
    c = call(Tensor("UB", 0, "float32", 8), Tensor("GM", 0, "float32", 8), [], [(0, 7, 0, 1, 8)], 1)
    c.args["dstSliceInfo"] = [entry]
    with pytest.raises(CallFormatError, match=named):
        check(c)
    c.args["dstSliceInfo"] = {"startIndex": 0}
    with pytest.raises(CallFormatError, match="dstSliceInfo: expected a list"):
        check(c)
