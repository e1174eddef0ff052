"""The worked examples of the DataCopy pages (2026 edition, asc-devkit@0da921b9) run through the oracle and
compared byte for byte with what the page prints or draws, written from the page's words (not from the
oracle's formula). Memory around the operands is random, so a stray write shows.

  GM与UB连续数据搬运: DataCopy(srcLocal, srcGlobal, 512) and DataCopy(dstGlobal, dstLocal, 512), half:
      "输入数据srcGlobal：[1 2 3 ... 512] 输出数据srcLocal：[1 2 3 ... 512]" (and the same out to GM).
  GM与UB高维切分数据搬运: the same with DataCopyParams{1, 512 * sizeof(half) / 32, 0, 0}; 示例1 (图1): half 1 * 128,
      blockCount 1, blockLen 8; 示例2 (图2): half 1 * 112, blockCount 2, blockLen 3, srcGap 1, dstGap 2.
  UBToUB连续 / 高维切分: DataCopy(dstLocal, srcLocal, 512); 场景1: count 128 and DataCopyParams{1, 8, 0, 0} alike;
      场景2: "源数据shape为[1, 112] ... 目的数据接收非连续排列的2个数据块，共6个DataBlock（96个half元素）".
  约束说明: "count * sizeof(T)需要32字节对齐，若未对齐，则搬运量会向下取整到32字节对齐"; the NOP sentence (A2 / A3).
"""
from __future__ import annotations

import numpy as np
import pytest

from oracle import Call, IllegalCall, Tensor, check, expected

API = "data_copy"
A2, T = "ascend910b", "ascend910"
UB, GM = 192 << 10, 8192


def images(seed: int = 5) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {"UB": rng.integers(0, 256, UB, dtype=np.uint8), "GM": rng.integers(0, 256, GM, dtype=np.uint8)}


def half(values) -> np.ndarray:
    return np.asarray(values, dtype=np.float16).view(np.uint8)


def put(memory, scope: str, addr: int, raw: np.ndarray) -> None:
    memory[scope][addr:addr + raw.size] = raw


def legal(call: Call, memory) -> dict[str, np.ndarray]:
    before = {s: m.copy() for s, m in memory.items()}
    assert check(call) == [] and check(call, memory) == []
    out = expected(call, memory)
    assert all(np.array_equal(memory[s], before[s]) for s in memory), "expected() modified its input"
    assert out.violations == [] and all(out.fully_defined(s) for s in memory)
    return out.memory


def count_call(product, dst: Tensor, src: Tensor, count: int) -> Call:
    return Call(API, product, {"dst": dst, "src": src, "count": count}, "count")


def params_call(product, dst: Tensor, src: Tensor, blockCount, blockLen, srcGap, dstGap) -> Call:
    p = {"blockCount": blockCount, "blockLen": blockLen, "srcGap": srcGap, "dstGap": dstGap}
    return Call(API, product, {"dst": dst, "src": src, "repeatParams": p}, "params")


ONE_TO_512 = half(np.arange(1, 513))


@pytest.mark.parametrize("form", ["count", "params"])
@pytest.mark.parametrize("path", ["GM->UB", "UB->GM", "UB->UB"])
def test_512_halves_move_unchanged(form: str, path: str) -> None:
    """'输入数据srcGlobal：[1 2 3 ... 512]' -> '输出数据srcLocal：[1 2 3 ... 512]' (GM->UB; UB->GM and UB->UB alike),
    by DataCopy(.., 512) and by DataCopyParams{1, 512 * sizeof(half) / 32, 0, 0}."""
    src_scope, dst_scope = path.split("->")
    src_at, dst_at = (1024, 4096) if src_scope != dst_scope else (2048, 8192)
    memory = images()
    put(memory, src_scope, src_at, ONE_TO_512)
    src, dst = Tensor(src_scope, src_at, "float16", 512), Tensor(dst_scope, dst_at, "float16", 512)
    call = count_call(A2, dst, src, 512) if form == "count" else params_call(A2, dst, src, 1, 512 * 2 // 32, 0, 0)
    out = legal(call, memory)
    want = memory[dst_scope].copy()
    want[dst_at:dst_at + 1024] = ONE_TO_512
    assert np.array_equal(out[dst_scope], want)
    assert np.array_equal(out[src_scope], want if src_scope == dst_scope else memory[src_scope])


def test_figure_1_contiguous_128_halves() -> None:
    """示例1 (图1): half, shape 1 * 128, blockCount 1, blockLen 8 (8 DataBlocks): the 128 elements land in a
    row; UBToUB 场景1: DataCopy(dstLocal, srcLocal, 128) leaves the same image."""
    memory = images(6)
    src, dst = Tensor("UB", 0, "float16", 128), Tensor("UB", 4096, "float16", 128)
    by_params = legal(params_call(T, dst, src, 1, 8, 0, 0), memory)
    by_count = legal(count_call(T, dst, src, 128), memory)
    want = memory["UB"].copy()
    want[4096:4096 + 256] = memory["UB"][:256]
    assert np.array_equal(by_params["UB"], want) and np.array_equal(by_count["UB"], want)


@pytest.mark.parametrize("path", ["GM->UB", "UB->UB"])
def test_figure_2_two_blocks_with_gaps(path: str) -> None:
    """示例2 (图2) / UBToUB 场景2: half, source [1, 112] (7 DataBlocks), blockCount 2, blockLen 3, srcGap 1, dstGap 2:
    source blocks 0-2 and 4-6 (block 3 skipped) land at destination blocks 0-2 and 5-7 (3 and 4 skipped):
    "目的数据接收非连续排列的2个数据块，共6个DataBlock（96个half元素）"."""
    src_scope = path.split("->")[0]
    memory = images(7)
    values = half(np.arange(1, 113))
    put(memory, src_scope, 64, values)
    src, dst = Tensor(src_scope, 64, "float16", 112), Tensor("UB", 8192, "float16", 8 * 16)
    out = legal(params_call(A2, dst, src, 2, 3, 1, 2), memory)
    got = out["UB"][8192:8192 + 8 * 32]
    assert np.array_equal(got[:96], values[:96])                    # elements 1 .. 48 (blocks 0-2)
    assert np.array_equal(got[160:256], values[128:224])             # elements 65 .. 112 (blocks 4-6)
    assert np.array_equal(got[96:160], memory["UB"][8192 + 96:8192 + 160]), "the dst gap is untouched"
    rest = np.ones(UB, dtype=bool)
    rest[8192:8192 + 96] = rest[8192 + 160:8192 + 256] = False
    assert np.array_equal(out["UB"][rest], memory["UB"][rest] if src_scope == "GM" else memory["UB"][rest])


@pytest.mark.parametrize("dtype, count, moved", [("float16", 100, 96), ("float16", 15, 0), ("int8", 33, 32),
                                                  ("float32", 24, 24), ("float64", 5, 4)])
def test_count_rounds_down_to_32_bytes(dtype: str, count: int, moved: int) -> None:
    """'若未对齐，则搬运量会向下取整到32字节对齐', the reading round_down of data_copy.count.unaligned: 100 halves
    (200 B) move 192 B (96 halves); 15 halves move none. Undeclared, an unaligned count is open; under the
    reading reject (the vendor's debug build) it is refused; an aligned one (24 floats) is legal alike."""
    amb = "data_copy.count.unaligned"
    width = np.dtype(dtype).itemsize
    memory = images(8)
    src, dst = Tensor("GM", 256, dtype, count), Tensor("UB", 1024, dtype, count)
    call = count_call(A2, dst, src, count)
    out = expected(call, memory, readings={amb: "round_down"})
    assert out.violations == [] and all(out.fully_defined(s) for s in memory)
    want = memory["UB"].copy()
    want[1024:1024 + moved * width] = memory["GM"][256:256 + moved * width]
    assert np.array_equal(out.memory["UB"], want)
    if moved == count:
        assert np.array_equal(legal(call, memory)["UB"], want)
        assert check(call, readings={amb: "reject"}) == []
        return
    assert [(v.rule, v.severity) for v in check(call)] == [(amb, "undefined")]
    with pytest.raises(IllegalCall, match=amb):
        expected(call, memory, readings={amb: "reject"})


@pytest.mark.parametrize("field", ["blockCount", "blockLen"])
def test_zero_is_a_nop_on_a2_and_open_elsewhere(field: str) -> None:
    """'当DataCopyParams结构体参数blockCount、blockLen任意一个值为0时，该接口将被视为NOP' on A2 / A3 only: nothing moves;
    on Atlas 训练系列产品 the page does not say (the ambiguities data_copy.blockCount / blockLen.zero_elsewhere)."""
    memory = images(9)
    args = {"blockCount": 4, "blockLen": 2, "srcGap": 0, "dstGap": 0, field: 0}
    src, dst = Tensor("GM", 0, "int8", 512), Tensor("UB", 0, "int8", 512)
    out = legal(params_call(A2, dst, src, **args), memory)
    assert np.array_equal(out["UB"], memory["UB"])
    amb = f"data_copy.{field}.zero_elsewhere"
    found = check(params_call(T, dst, src, **args))
    assert [(v.rule, v.severity) for v in found] == [(amb, "undefined")]
    nop = expected(params_call(T, dst, src, **args), memory, readings={amb: "nop"})
    assert nop.violations == [] and np.array_equal(nop.memory["UB"], memory["UB"])


def test_refusals_the_pages_state() -> None:
    """UB addresses 32-byte aligned; GM addresses aligned to the element ("按照对应数据类型所占字节数对齐"); no UB->UB on
    Atlas 200I/500 A2; no bfloat16 on Atlas 训练系列产品; no DataCopy on Atlas 200/300/500 (not listed)."""
    def rules(call):
        return [v.rule for v in check(call)]
    gm, ub = Tensor("GM", 0, "float16", 64), Tensor("UB", 0, "float16", 64)
    assert rules(count_call(A2, Tensor("UB", 16, "float16", 64), gm, 64)) == ["data_copy.dst.align.UB"]
    assert rules(count_call(A2, ub, Tensor("GM", 1, "float16", 64), 64)) == ["data_copy.src.align.GM"]
    assert rules(count_call(A2, ub, Tensor("GM", 2, "float16", 64), 64)) == []
    assert rules(count_call(A2, Tensor("GM", 3, "int8", 64), Tensor("UB", 0, "int8", 64), 64)) == []
    assert rules(count_call("ascend310b", Tensor("UB", 1024, "float16", 64), ub, 64)) == ["data_copy.path.supported"]
    assert rules(count_call(T, Tensor("UB", 0, "bfloat16", 64), Tensor("GM", 0, "bfloat16", 64), 64)) == \
        ["data_copy.dtype.supported_no_bf16"]
    assert "data_copy.product.supported" in rules(count_call("ascend310", ub, gm, 64))
    with pytest.raises(IllegalCall):
        expected(params_call(A2, ub, gm, 4096, 1, 0, 0), images())
