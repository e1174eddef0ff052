"""The worked examples of the Gather page (asc-devkit@0da921b9:docs/zh/api/SIMD-API/基础API/Memory矢量计算/离散与聚合/
Gather.md, "调用示例" and "结果示例"), run through the oracle and compared with the printed output in full, and
mask-form calls worked by hand from the page's and the mask pages' sentences.

The page's three calls name 512 elements (four iterations of 128 half) and print one result of 128 half
([254 252 ... 0] gathers [0 1 ... 127] reversed): the printed result is run as the count form with 128
elements, and the mask forms with 512, the offsets reversing all of them. Every other UB byte is random,
so a stray write or a read from the wrong place shows; values are compared as bytes.
"""
from __future__ import annotations

import numpy as np
import pytest

from oracle import Call, IllegalCall, Tensor, check, expected
from tests.scatter.test_examples import ALL_ONES, abbreviates, as_bytes, assert_only, put, random_ub, run_legal, values

PRODUCTS = ["ascend910_93", "ascend910b", "ascend310b", "ascend310p-aicore"]   # "产品支持情况 ... 支持"
SRC, OFFS, DST = 0, 4096, 8192
PRINTED_OFFSETS = "[254 252 250 ... 4 2 0]"           # 输入数据srcOffsetLocal
PRINTED_SRC = "[0 1 2 ... 125 126 127]"               # 输入数据srcLocal（128个half类型数据）
PRINTED_DST = "[127 126 125 ... 2 1 0]"               # 输出数据(dstLocal)
OFFSETS = values("""
254 252 250 248 246 244 242 240 238 236 234 232 230 228 226 224 222 220 218 216 214 212 210 208 206
204 202 200 198 196 194 192 190 188 186 184 182 180 178 176 174 172 170 168 166 164 162 160 158 156
154 152 150 148 146 144 142 140 138 136 134 132 130 128 126 124 122 120 118 116 114 112 110 108 106
104 102 100 98 96 94 92 90 88 86 84 82 80 78 76 74 72 70 68 66 64 62 60 58 56 54 52 50 48 46 44 42
40 38 36 34 32 30 28 26 24 22 20 18 16 14 12 10 8 6 4 2 0
""")
SRC_VALUES = list(range(128))
DST_VALUES = values("""
127 126 125 124 123 122 121 120 119 118 117 116 115 114 113 112 111 110 109 108 107 106 105 104 103
102 101 100 99 98 97 96 95 94 93 92 91 90 89 88 87 86 85 84 83 82 81 80 79 78 77 76 75 74 73 72 71
70 69 68 67 66 65 64 63 62 61 60 59 58 57 56 55 54 53 52 51 50 49 48 47 46 45 44 43 42 41 40 39 38
37 36 35 34 33 32 31 30 29 28 27 26 25 24 23 22 21 20 19 18 17 16 15 14 13 12 11 10 9 8 7 6 5 4 3 2
1 0
""")


def gather(product: str, form: str, n: int, dtype: str = "float16", **params) -> Call:
    return Call("gather", product, {"dst": Tensor("UB", DST, dtype, n), "src": Tensor("UB", SRC, dtype, n),
                                    "srcOffset": Tensor("UB", OFFS, "uint32", n), "srcBaseAddr": 0, **params}, form)


def example_ub(product: str, seed: int, n: int = 128, dtype: str = "float16", width: int = 2) -> np.ndarray:
    """src = 0, 1, ..., n-1 and the offsets reversing it (the page's [254 252 ... 0] for n = 128 half)."""
    ub = random_ub(product, seed)
    put(ub, SRC, list(range(n)), dtype)
    put(ub, OFFS, [width * (n - 1 - i) for i in range(n)], "uint32")
    return ub


def test_example_transcription():
    assert len(OFFSETS) == len(SRC_VALUES) == len(DST_VALUES) == 128
    assert abbreviates(PRINTED_OFFSETS, OFFSETS) and abbreviates(PRINTED_SRC, SRC_VALUES)
    assert abbreviates(PRINTED_DST, DST_VALUES)
    assert OFFSETS == [2 * (127 - i) for i in range(128)]


@pytest.mark.parametrize("product", PRODUCTS)
def test_count_form_printed_output(product):
    """tensor前n个数据计算样例: Gather(dstLocal, srcLocal, srcOffsetLocal, (uint32_t)0, count), the printed 128 half."""
    ub = example_ub(product, seed=21)
    out = run_legal(gather(product, "count", 128, count=128), ub)
    assert out[DST:DST + 256].tobytes() == as_bytes(DST_VALUES, "float16").tobytes()
    assert_only(out, ub, DST, DST + 256)


@pytest.mark.parametrize("form, mask", [("mask_continuous", 128), ("mask_bits", [ALL_ONES, ALL_ONES])])
@pytest.mark.parametrize("product", ["ascend910b", "ascend310p-aicore"])
def test_mask_forms_of_the_page(product, form, mask):
    """Gather(dstLocal, srcLocal, srcOffsetLocal, (uint32_t)0, 128 | mask, 4, 8): "repeatTime = 4, mask = 128,
    128 elements one repeat, 512 elements total ... dstRepStride = 8, no gap between repeats": the 512
    half reversed, the offsets advancing one iteration at a time."""
    ub = example_ub(product, seed=22, n=512)
    out = run_legal(gather(product, form, 512, mask=mask, repeatTime=4, dstRepStride=8), ub)
    assert out[DST:DST + 1024].tobytes() == as_bytes(list(range(511, -1, -1)), "float16").tobytes()
    assert_only(out, ub, DST, DST + 1024)


def test_the_mask_pages_bit_example():
    """「mask=[8, 2] ... 仅第4个元素参与计算 ... 第66（64+2）个元素参与计算」: one iteration writes dst[3] and dst[65] alone."""
    ub = example_ub("ascend910b", seed=23)
    out = run_legal(gather("ascend910b", "mask_bits", 128, mask=[8, 2], repeatTime=1, dstRepStride=8), ub)
    got = out[DST:DST + 256].view("<u2")
    assert int(got[3]) == np.float16(124).view("<u2") and int(got[65]) == np.float16(62).view("<u2")
    changed = np.flatnonzero(out != ub)
    assert set(changed.tolist()) <= {DST + 6, DST + 7, DST + 130, DST + 131}


def test_count_mode_above_the_iteration_is_the_whole_iteration():
    """「连续模式下，mask超出范围按照对应数据类型下mask最大值计算」: mask 1000 on half moves 128 elements an iteration."""
    ub = example_ub("ascend910b", seed=24)
    wide = run_legal(gather("ascend910b", "mask_continuous", 128, mask=1000, repeatTime=1, dstRepStride=8), ub)
    full = run_legal(gather("ascend910b", "mask_continuous", 128, mask=128, repeatTime=1, dstRepStride=8), ub)
    assert np.array_equal(wide, full)
    assert wide[DST:DST + 256].tobytes() == as_bytes(DST_VALUES, "float16").tobytes()


def test_a_zero_mask_moves_nothing():
    """「mask = 0表示指令不会执行计算操作」 and 「mask为0时，目的操作数保持原值」."""
    ub = example_ub("ascend910b", seed=25)
    for form, mask in (("mask_continuous", 0), ("mask_bits", [0, 0])):
        out = run_legal(gather("ascend910b", form, 128, mask=mask, repeatTime=1, dstRepStride=8), ub)
        assert np.array_equal(out, ub)


@pytest.mark.parametrize("product", ["ascend910b", "ascend910_93"])
def test_zero_count_and_zero_repeats_are_a_nop_on_a2_a3(product):
    """「当参数count或repeatTime取值为0时，不会执行计算操作，不会对目的操作数进行写入」 (A2 / A3)."""
    ub = example_ub(product, seed=26)
    assert np.array_equal(run_legal(gather(product, "count", 128, count=0), ub), ub)
    assert np.array_equal(run_legal(gather(product, "mask_continuous", 128, mask=128, repeatTime=0,
                                           dstRepStride=8), ub), ub)


def test_8bit_iterations_are_4_datablocks_on_310b():
    """「当操作数为8位时，每次迭代完成4个DataBlock的数据收集」: two iterations of 128 int8, dst 4 DataBlocks apart."""
    ub = example_ub("ascend310b", seed=27, n=256, dtype="uint8", width=1)
    out = run_legal(gather("ascend310b", "mask_continuous", 256, "uint8", mask=128, repeatTime=2, dstRepStride=4), ub)
    assert out[DST:DST + 256].tolist() == list(range(255, -1, -1))
    assert_only(out, ub, DST, DST + 256)


def test_base_address_in_bytes():
    """「srcBaseAddr ... 用于指定Gather操作中源操作数的起始位置，单位为字节」: base 64 reads 32 half further on."""
    ub = example_ub("ascend910b", seed=28, n=160)
    call = gather("ascend910b", "count", 128, count=128)
    call = Call("gather", "ascend910b", {**call.args, "src": Tensor("UB", SRC, "float16", 160), "srcBaseAddr": 64},
                "count")
    put(ub, OFFS, OFFSETS, "uint32")
    out = run_legal(call, ub)
    assert out[DST:DST + 256].tobytes() == as_bytes([v + 32 for v in DST_VALUES], "float16").tobytes()


@pytest.mark.parametrize("product", ["ascend910", "ascend310p-vectorcore", "ascend310"])
def test_refused_elsewhere(product):
    """"Atlas 推理系列产品Vector Core：不支持", "Atlas 训练系列产品：不支持"; Atlas 200/300/500 is not listed."""
    call = gather(product, "count", 128, count=128)
    assert [(v.rule, v.severity) for v in check(call)] == [("gather.product.supported", "reject")]
    with pytest.raises(IllegalCall):
        expected(call, {"UB": example_ub("ascend910b", seed=29)})


def test_an_unaligned_base_is_undefined():
    """「srcBaseAddr的取值应保证src元素类型位宽对齐，否则会导致非预期行为」."""
    call = gather("ascend910b", "count", 128, count=128)
    call = Call("gather", "ascend910b", {**call.args, "src": Tensor("UB", SRC, "float16", 160), "srcBaseAddr": 3},
                "count")
    assert ("gather.srcBaseAddr.element", "undefined") in [(v.rule, v.severity) for v in check(call)]
