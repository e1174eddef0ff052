"""The worked example of the Gatherb page (asc-devkit@0da921b9:docs/zh/api/SIMD-API/基础API/Memory矢量计算/离散与聚合/
Gatherb(ISASI).md, "调用示例" and "结果示例"), run through the oracle with its full output, and calls worked by
hand from the page's reference code (its GatherRepeatParams and the dstBlkStride-0 note).

The page prints the output abbreviated ("112 113 ... 127 / 96 97 ... 111 / ... / 0 1 ... 15"): the eight
DataBlocks of 16 uint16 in reverse order, written out below. Every other UB byte is random.
"""
from __future__ import annotations

import numpy as np
import pytest

from oracle import Call, IllegalCall, Tensor, check, expected
from tests.scatter.test_examples import as_bytes, assert_only, put, random_ub, run_legal, values

SRC, OFFS, DST = 0, 4096, 8192
OFFSETS = values("224 192 160 128 96 64 32 0")                 # 输入数据(offsetLocal)
PRINTED_FIRST_ROWS = [values("112 113 114 115 116 117 118 119 120 121 122 123 124 125 126 127"),
                      values("96 97 98 99 100 101 102 103 104 105 106 107 108 109 110 111")]
PRINTED_LAST_ROW = values("0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15")
DST_VALUES = [v for block in range(7, -1, -1) for v in range(16 * block, 16 * block + 16)]


def gatherb(product: str, repeat: int, blk: int, rep: int, n_dst: int = 128, n_src: int = 128,
            n_offs: int = 8, dtype: str = "uint16") -> Call:
    return Call("gatherb", product, {"dst": Tensor("UB", DST, dtype, n_dst), "src": Tensor("UB", SRC, dtype, n_src),
                                     "offset": Tensor("UB", OFFS, "uint32", n_offs), "repeatTime": repeat,
                                     "repeatParams": {"dstBlkStride": blk, "dstRepStride": rep}})


def example_ub(product: str, seed: int, offsets=OFFSETS, n: int = 128) -> np.ndarray:
    ub = random_ub(product, seed)
    put(ub, SRC, list(range(n)), "uint16")
    put(ub, OFFS, offsets, "uint32")
    return ub


def test_transcription():
    rows = np.array(DST_VALUES).reshape(8, 16).tolist()
    assert rows[:2] == PRINTED_FIRST_ROWS and rows[-1] == PRINTED_LAST_ROW


@pytest.mark.parametrize("product", ["ascend910b", "ascend910_93", "ascend310b"])
def test_the_pages_example(product):
    """GatherRepeatParams params{1, 8}; repeatTime = 128 * sizeof(uint16_t) / 256 = 1: the blocks reversed."""
    ub = example_ub(product, 41)
    out = run_legal(gatherb(product, 1, 1, 8), ub)
    assert out[DST:DST + 256].tobytes() == as_bytes(DST_VALUES, "uint16").tobytes()
    assert_only(out, ub, DST, DST + 256)


def test_strides_and_two_iterations_by_hand():
    """dstBlkStride 2, dstRepStride 16, two iterations: block j of iteration i lands (16 i + 2 j) blocks on."""
    offsets = [32 * k for k in range(16)]
    ub = example_ub("ascend910b", 42, offsets, n=256)
    out = run_legal(gatherb("ascend910b", 2, 2, 16, n_dst=32 * 16, n_src=256, n_offs=16), ub)
    for i in range(2):
        for j in range(8):
            at = DST + (16 * i + 2 * j) * 32
            assert out[at:at + 32].view("<u2").tolist() == list(range(16 * (8 * i + j), 16 * (8 * i + j) + 16))
            assert np.array_equal(out[at + 32:at + 64], ub[at + 32:at + 64])      # the gap stays


def test_a_zero_block_stride_is_one():
    """「当dstBlkStride值为0时，默认按照1来处理」."""
    ub = example_ub("ascend910b", 43)
    assert np.array_equal(run_legal(gatherb("ascend910b", 1, 0, 8), ub), run_legal(gatherb("ascend910b", 1, 1, 8), ub))


def test_zero_repeats_move_nothing_on_a2():
    ub = example_ub("ascend910b", 44)
    assert np.array_equal(run_legal(gatherb("ascend910b", 0, 1, 8), ub), ub)


def test_an_offset_off_the_block_grid_is_open():
    """「偏移地址后需要32字节对齐」: an offset of 16 bytes is undefined (known only from memory)."""
    ub = example_ub("ascend910b", 45, [224, 192, 160, 128, 96, 64, 32, 16])
    assert ("gatherb.offset.block_align", "undefined") in [(v.rule, v.severity)
                                                           for v in check(gatherb("ascend910b", 1, 1, 8), {"UB": ub})]


@pytest.mark.parametrize("product", ["ascend310p-aicore", "ascend310p-vectorcore", "ascend910", "ascend310"])
def test_refused_elsewhere(product):
    call = gatherb(product, 1, 1, 8)
    assert [(v.rule, v.severity) for v in check(call)] == [("gatherb.product.supported", "reject")]
    with pytest.raises(IllegalCall):
        expected(call, {"UB": example_ub("ascend910b", 46)})


def test_float16_is_refused_on_a2():
    """「Atlas A2 ... 支持的数据类型为：uint16_t、uint32_t。」"""
    call = gatherb("ascend910b", 1, 1, 8, dtype="float16")
    assert ("gatherb.dtype.supported_a2_a3", "reject") in [(v.rule, v.severity) for v in check(call)]
