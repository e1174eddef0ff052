"""The worked examples of the Copy page (asc-devkit@0da921b9:docs/zh/api/SIMD-API/基础API/Memory矢量计算/数据搬运/
UB与UB数据搬运/UBToUB掩码式高维数据搬运(Copy).md, "调用示例"), run through the oracle with their full outputs, and
calls worked by hand from its CopyRepeatParams table and the mask pages.

Scenario 3 sets its mask outside the call (SetVectorMask, Counter mode, isSetMask = false): not a call the
kit makes; its result is scenario 2's. Every other UB byte is random; values are compared as bytes.
"""
from __future__ import annotations

import numpy as np
import pytest

from oracle import Call, IllegalCall, Tensor, check, expected
from tests.scatter.test_examples import ALL_ONES, assert_only, put, random_ub, run_legal

SRC, DST = 0, 16384


def copy(product: str, form: str, mask, repeat: int, params: tuple[int, int, int, int], n_dst: int, n_src: int,
         dtype: str = "int32") -> Call:
    """params in CopyRepeatParams's order: {dstStride, srcStride, dstRepeatSize, srcRepeatSize}."""
    fields = dict(zip(("dstStride", "srcStride", "dstRepeatSize", "srcRepeatSize"), params))
    return Call("copy", product, {"dst": Tensor("UB", DST, dtype, n_dst), "src": Tensor("UB", SRC, dtype, n_src),
                                  "mask": mask, "repeatTime": repeat, "repeatParams": fields}, form)


def counting_ub(product: str, seed: int, n: int, dtype: str = "int32") -> np.ndarray:
    ub = random_ub(product, seed)
    put(ub, SRC, list(range(n)), dtype)
    return ub


@pytest.mark.parametrize("product", ["ascend910b", "ascend910_93", "ascend310b"])
def test_scenario_1_copies_512_int32(product):
    """场景1: mask = 64, repeatTime = 8, {1, 1, 8, 8}: 「共处理512个元素」, dst = src."""
    ub = counting_ub(product, 31, 512)
    out = run_legal(copy(product, "mask_continuous", 64, 8, (1, 1, 8, 8), 512, 512), ub)
    assert out[DST:DST + 2048].view("<i4").tolist() == list(range(512))
    assert_only(out, ub, DST, DST + 2048)


def test_scenario_2_copies_8_of_each_row_of_18():
    """场景2: [18, 64] -> [18, 8], mask = 8, repeatTime = 18, {1, 1, 1, 8}: row i of dst is src[i, 0:8]."""
    ub = counting_ub("ascend910b", 32, 18 * 64)
    out = run_legal(copy("ascend910b", "mask_continuous", 8, 18, (1, 1, 1, 8), 144, 1152), ub)
    want = np.arange(18 * 64, dtype="<i4").reshape(18, 64)[:, :8]
    assert np.array_equal(out[DST:DST + 576].view("<i4").reshape(18, 8), want)
    assert_only(out, ub, DST, DST + 576)


def test_bit_mode_with_strides_by_hand():
    """逐bit模式, half, mask = [8, 2] (the mask page's example: elements 3 and 65), one iteration, dstStride 2
    and srcStride 3: element 3 is in DataBlock 0 at byte 6, element 65 in DataBlock 4 at byte 2."""
    ub = counting_ub("ascend910b", 33, 2048, "uint16")
    out = run_legal(copy("ascend910b", "mask_bits", [8, 2], 1, (2, 3, 8, 8), 1024, 2048, "uint16"), ub)
    got = out[DST:DST + 2048].view("<u2")
    assert int(got[3]) == 3 and int(got[4 * 2 * 16 + 1]) == 4 * 3 * 16 + 1
    changed = set(np.flatnonzero(out != ub).tolist())
    assert changed <= {DST + 6, DST + 7, DST + 4 * 64 + 2, DST + 4 * 64 + 3}


def test_count_mode_above_the_iteration_is_the_whole_iteration():
    """「mask超出范围按照对应数据类型下mask最大值计算」: mask 10**9 on int32 copies 64 elements an iteration."""
    ub = counting_ub("ascend910b", 34, 512)
    wide = run_legal(copy("ascend910b", "mask_continuous", 10**9, 2, (1, 1, 8, 8), 128, 128), ub)
    full = run_legal(copy("ascend910b", "mask_bits", [ALL_ONES, 0], 2, (1, 1, 8, 8), 128, 128), ub)
    assert np.array_equal(wide, full) and wide[DST:DST + 512].view("<i4").tolist() == list(range(128))


def test_zero_repeats_and_a_zero_mask_move_nothing():
    """「当参数repeatTime取值为0时 ... 不会对目的操作数进行写入」 (A2 / A3); 「mask为0时，目的操作数保持原值」."""
    ub = counting_ub("ascend910b", 35, 512)
    assert np.array_equal(run_legal(copy("ascend910b", "mask_continuous", 64, 0, (1, 1, 8, 8), 512, 512), ub), ub)
    assert np.array_equal(run_legal(copy("ascend910b", "mask_bits", [0, 0], 4, (1, 1, 8, 8), 512, 512), ub), ub)


def test_a_dst_block_written_twice_is_open():
    """dstStride 0 sends every DataBlock of an iteration to one place: copy.dst.self_overlap, undefined."""
    call = copy("ascend910b", "mask_continuous", 64, 1, (0, 1, 8, 8), 64, 64)
    assert [(v.rule, v.severity) for v in check(call)] == [("copy.dst.self_overlap", "undefined")]


@pytest.mark.parametrize("product", ["ascend310p-aicore", "ascend310p-vectorcore", "ascend910", "ascend310"])
def test_refused_elsewhere(product):
    """「Atlas 推理系列产品AI Core：不支持」, Vector Core and 训练系列产品 alike; Atlas 200/300/500 is not listed."""
    call = copy(product, "mask_continuous", 64, 8, (1, 1, 8, 8), 512, 512)
    assert [(v.rule, v.severity) for v in check(call)] == [("copy.product.supported", "reject")]
    with pytest.raises(IllegalCall):
        expected(call, {"UB": counting_ub("ascend910b", 36, 512)})


def test_an_int8_copy_is_refused():
    """No product's list holds int8_t."""
    call = copy("ascend910b", "mask_continuous", 128, 1, (1, 1, 8, 8), 256, 256, "int8")
    assert ("copy.dtype.supported", "reject") in [(v.rule, v.severity) for v in check(call)]
