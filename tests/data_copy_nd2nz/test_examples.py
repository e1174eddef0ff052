"""The worked examples of the DataCopy ND->NZ page (2026 edition, asc-devkit@0da921b9, GMToUB随路转换ND2NZ搬运)
run through the oracle and compared byte for byte with what the page prints or explains, written from the
page's words (where A1, A2, B1 ... land), not from the oracle's formula. UB around dst is random, so a stray
write, a write into a gap or padding that is not zero shows.

  调用示例: Nd2NzParams intriParams{1, 32, 32, 0, 32, 32, 1, 0}, half, srcGlobal [1 2 3 ... 1024]:
      "输出数据(dstLocal):[1 2 ... 15 16 33 34 ... 47 48 65 66 ... 79 80 97 98 ... 111 112 ... 1009 1010... 1023 1024]".
      Its dstNzMatrixStride 0 lies outside the stated [1, 65535]: the ambiguity
      data_copy_nd2nz.dstNzMatrixStride.zero, so the example is judged under each of its readings.
  图1 (half): ndNum 2, nValue 2, dValue 24, srcNdMatrixStride 144, srcDValue 48, dstNzC0Stride 11,
      dstNzNStride 2, dstNzMatrixStride 96: "A1和A2 ... 偏移为11个DataBlock", "A1和B1在dst之间的偏移为2个DataBlock",
      "A1和C1之间的距离，即为6个DataBlock", "A2所在DataBlock的空白部分会被补齐为0".
"""
from __future__ import annotations

import numpy as np
import pytest

from oracle import Call, IllegalCall, Tensor, check, expected

API = "data_copy_nd2nz"
A2, P = "ascend910b", "ascend310p-aicore"
UB, GM = 192 << 10, 1 << 16
ZERO = "data_copy_nd2nz.dstNzMatrixStride.zero"
FIELDS = ("ndNum", "nValue", "dValue", "srcNdMatrixStride", "srcDValue", "dstNzC0Stride", "dstNzNStride",
          "dstNzMatrixStride")


def params(*values: int) -> dict[str, int]:
    """Nd2NzParams{...} in the struct's field order (表3)."""
    return dict(zip(FIELDS, values, strict=True))


def nd2nz(product: str, dtype: str, ip: dict[str, int], dst_addr: int, dst_numel: int, src_numel: int) -> Call:
    return Call(API, product, {"dst": Tensor("UB", dst_addr, dtype, dst_numel),
                               "src": Tensor("GM", 0, dtype, src_numel), "intriParams": ip})


def images(src: np.ndarray, seed: int = 3) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    memory = {"UB": rng.integers(0, 256, UB, dtype=np.uint8), "GM": rng.integers(0, 256, GM, dtype=np.uint8)}
    memory["GM"][:src.size] = src
    return memory


def legal(call: Call, memory, readings=None) -> np.ndarray:
    before = {s: m.copy() for s, m in memory.items()}
    assert check(call, readings=readings) == [] and check(call, memory, readings=readings) == []
    out = expected(call, memory, readings=readings)
    assert all(np.array_equal(memory[s], before[s]) for s in memory), "expected() modified its input"
    assert out.violations == [] and out.fully_defined("UB") and out.fully_defined("GM")
    assert np.array_equal(out.memory["GM"], memory["GM"]), "the call wrote into GM"
    return out.memory["UB"]


# ------------------------------------------------------------------------------------------------
# 调用示例

EXAMPLE = params(1, 32, 32, 0, 32, 32, 1, 0)
ONE_TO_1024 = np.arange(1, 1025, dtype=np.float16).view(np.uint8)


def printed_output() -> list[int]:
    """The 32 x 32 matrix [1 .. 1024] by rows, as NZ: the first 16 columns of each row one block after the
    other (dstNzNStride 1), then, 32 blocks on (dstNzC0Stride 32), the last 16 columns of each row."""
    rows = np.arange(1, 1025).reshape(32, 32)
    return [int(v) for v in np.concatenate([rows[:, :16].reshape(-1), rows[:, 16:].reshape(-1)])]


def test_example_output_matches_the_printed_pieces() -> None:
    out = printed_output()
    assert out[:32] == [*range(1, 17), *range(33, 49)]                        # "1 2 ... 15 16 33 34 ... 47 48"
    assert out[32:64] == [*range(65, 81), *range(97, 113)]                    # "65 66 ... 79 80 97 98 ... 111 112"
    assert out[-16:] == list(range(1009, 1025))                               # "1009 1010... 1023 1024"
    assert sorted(out) == list(range(1, 1025))


def test_example_under_the_legal_reading() -> None:
    call = nd2nz(A2, "float16", EXAMPLE, 1024, 1024, 1024)
    memory = images(ONE_TO_1024)
    ub = legal(call, memory, {ZERO: "legal"})
    assert ub[1024:1024 + 2048].view(np.float16).astype(int).tolist() == printed_output()
    assert np.array_equal(ub[:1024], memory["UB"][:1024]) and np.array_equal(ub[3072:], memory["UB"][3072:])


def test_example_without_a_reading_is_the_ambiguity_and_under_reject_refused() -> None:
    call = nd2nz(A2, "float16", EXAMPLE, 0, 1024, 1024)
    assert [(v.rule, v.severity) for v in check(call)] == [(ZERO, "undefined")]
    assert [(v.rule, v.severity) for v in check(call, readings={ZERO: "reject"})] == [(ZERO, "reject")]
    with pytest.raises(IllegalCall):
        expected(call, images(ONE_TO_1024), readings={ZERO: "reject"})
    two = nd2nz(A2, "float16", {**EXAMPLE, "ndNum": 2}, 0, 1024, 2048)        # two matrices on one another
    assert [v.rule for v in check(two, readings={ZERO: "legal"})] == ["data_copy_nd2nz.dst.rows_overlap"]


# ------------------------------------------------------------------------------------------------
# 图1: two matrices of 2 rows x 24 half

FIGURE = params(2, 2, 24, 144, 48, 11, 2, 96)
BLOCK = 16                                   # half elements in one DataBlock (32 B)


def figure_pieces(src: np.ndarray) -> dict[str, tuple[np.ndarray, int]]:
    """Each piece of the figure: its source elements, and the DataBlock of dst it lands in, as the page
    explains them (A1..A2 + B1..B2 matrix 1 from element 0, C1..D2 matrix 2 from element 144; a row every 48
    elements; A2 11 blocks after A1, B1 2 after A1, C1 6 blocks (96 elements) after A1)."""
    pieces = {}
    for m, (first, second) in enumerate((("A", "B"), ("C", "D"))):
        base, block = 144 * m, 6 * m
        for r, name in enumerate((first, second)):
            row = src[base + 48 * r:base + 48 * r + 24]
            pieces[f"{name}1"] = (row[:16], block + 2 * r)
            pieces[f"{name}2"] = (row[16:], block + 2 * r + 11)
    return pieces


def test_figure_half() -> None:
    src = np.arange(1, 2 * 144 + 1, dtype=np.float16)
    call = nd2nz(A2, "float16", FIGURE, 2048, 20 * BLOCK, src.size)
    memory = images(src.view(np.uint8))
    ub = legal(call, memory)
    want = memory["UB"].copy()
    for values, block in figure_pieces(src).values():
        piece = np.zeros(BLOCK, dtype=np.float16)
        piece[:values.size] = values                  # "A2所在DataBlock的空白部分会被补齐为0"
        want[2048 + 32 * block:2048 + 32 * (block + 1)] = piece.view(np.uint8)
    assert np.array_equal(ub, want)
    assert ub[2048 + 32 * 11 + 16:2048 + 32 * 12].tolist() == [0] * 16        # A2's padding, as bytes


def test_figure_blocks_the_page_leaves_alone_keep_their_bytes() -> None:
    """Blocks 1, 3, 4, 5, 7, 9, 10, 12, 14 ... between the figure's pieces are not written."""
    src = np.arange(1, 2 * 144 + 1, dtype=np.float16)
    memory = images(src.view(np.uint8), seed=11)
    ub = legal(nd2nz(A2, "float16", FIGURE, 0, 20 * BLOCK, src.size), memory)
    written = {block for _, block in figure_pieces(src).values()}
    assert written == {0, 2, 11, 13, 6, 8, 17, 19}
    for block in set(range(20)) - written:
        assert np.array_equal(ub[32 * block:32 * (block + 1)], memory["UB"][32 * block:32 * (block + 1)]), block


# ------------------------------------------------------------------------------------------------
# products and dtypes (产品支持情况, 数据类型)

@pytest.mark.parametrize("product", ["ascend310", "ascend910", "ascend310b", "ascend310p-vectorcore"])
def test_products_without_the_api_refuse_it(product: str) -> None:
    call = nd2nz(product, "float16", FIGURE, 0, 20 * BLOCK, 288)
    assert "data_copy_nd2nz.product.supported" in [v.rule for v in check(call)]


def test_bfloat16_on_the_ai_core_of_the_inference_series_is_refused() -> None:
    call = nd2nz(P, "bfloat16", FIGURE, 0, 20 * BLOCK, 288)
    assert [v.rule for v in check(call)] == ["data_copy_nd2nz.dtype.supported_310p"]
    assert check(nd2nz(A2, "bfloat16", FIGURE, 0, 20 * BLOCK, 288)) == []


def test_int8_rows_pad_to_32_elements_and_float_to_8() -> None:
    """C0 is 32 bytes for every dtype: 32 int8 or 8 float elements per row of a column block."""
    for dtype, per in (("int8", 32), ("float32", 8)):
        width = np.dtype(dtype).itemsize
        src = (np.arange(per + 1) % 100 + 1).astype(dtype)
        ip = params(1, 1, per + 1, 0, per + 1, 1, 1, 1)
        ub = legal(nd2nz(A2, dtype, ip, 0, 2 * per, src.size), images(src.view(np.uint8)))
        assert np.array_equal(ub[:32 * 2].view(dtype)[:per + 1], src)
        assert not ub[32 + width:64].any()
