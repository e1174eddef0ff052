"""The worked examples of the DataCopyPad pages (2026 edition, asc-devkit@0da921b9) through the oracle, byte
for byte, written from the pages' words. GM and UB hold random bytes so a stray write shows; the bytes the
page leaves open ("随机值") must come back undefined, never guessed.

GM -> UB: 示例1 (blockLen 64, srcStride 1 B, dstStride 1 DataBlock, no padding); 示例2 (blockLen 47: the dummy
"会默认填充待搬运数据块的第一个元素值"); the padding rules with isPad true / false; 场景2 (blockCount 32, blockLen
59 * sizeof(float), rightPadding 5, isPad true); the Normal-mode example's layout ("每个连续传输数据块都会在右侧填充
16字节。目的操作数的总长度为192字节": Normal is "与原有数据搬运格式保持一致"). UB -> GM: 图1 (blockLen 64, srcStride 1
DataBlock, dstStride 1 B) and 图2 (blockLen 47: "自动补充17字节的假数据 ... 搬到Global Memory时再自动将填充的假数据丢弃").
"""
from __future__ import annotations

import numpy as np
import pytest

from oracle import Call, Tensor, check, expected

API = "data_copy_pad"
A2 = "ascend910b"


def images(seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {"UB": rng.integers(0, 256, 192 << 10, dtype=np.uint8), "GM": rng.integers(0, 256, 16384, dtype=np.uint8)}


def gm_to_ub(dtype, count, length, src_stride, dst_stride, is_pad=True, left=0, right=0, value=0, product=A2,
             src_at=0, dst_at=0, numel=(8192, 8192)) -> Call:
    return Call(API, product, {"dst": Tensor("UB", dst_at, dtype, numel[1]), "src": Tensor("GM", src_at, dtype, numel[0]),
                               "dataCopyParams": {"blockCount": count, "blockLen": length, "srcStride": src_stride,
                                                  "dstStride": dst_stride},
                               "padParams": {"isPad": is_pad, "leftPadding": left, "rightPadding": right,
                                             "paddingValue": value}}, "gm_to_ub")


def ub_to_gm(dtype, count, length, src_stride, dst_stride, src_at=0, dst_at=0) -> Call:
    return Call(API, A2, {"dst": Tensor("GM", dst_at, dtype, 8192), "src": Tensor("UB", src_at, dtype, 8192),
                          "dataCopyParams": {"blockCount": count, "blockLen": length, "srcStride": src_stride,
                                             "dstStride": dst_stride}}, "ub_to_gm")


def run(call: Call, memory):
    assert check(call) == [] and check(call, memory) == []
    out = expected(call, memory)
    assert out.violations == [] and out.choices == []
    return out


def test_example_1_aligned_blocks() -> None:
    """示例1: blockLen 64 (bytes), srcStride 1 ("srcStride的单位为字节"), dstStride 1 ("单位为DataBlock数量"): block k
    is read at k * 65 in GM and lands at k * 96 in UB; nothing is padded (leftPadding = rightPadding = 0)."""
    memory = images(1)
    out = run(gm_to_ub("int8", 3, 64, 1, 1), memory)
    want = memory["UB"].copy()
    for k in range(3):
        want[k * 96:k * 96 + 64] = memory["GM"][k * 65:k * 65 + 64]
    assert np.array_equal(out.memory["UB"], want) and out.fully_defined("UB")


def run_reading(call: Call, memory, amb: str, reading: str):
    assert [(v.rule, v.severity) for v in check(call, memory)] == [(amb, "undefined")]
    out = expected(call, memory, readings={amb: reading})
    assert out.violations == [] and out.choices == []
    return out


@pytest.mark.parametrize("reading", ["block_first", "transfer_first", "padding_value"])
def test_example_2_dummy(reading: str) -> None:
    """示例2: blockLen 47, no padding: 17 dummy bytes to 32-byte alignment, "dummy会默认填充待搬运数据块的第一个元素值";
    block k lands at k * (64 + 32). What the dummy holds is the ambiguity data_copy_pad.dummy.no_padding:
    block k's first byte (block_first, the page's example as drawn), block 0's first byte in both blocks
    (transfer_first), or paddingValue (padding_value); undeclared, the call is open."""
    memory = images(2)
    call = gm_to_ub("int8", 2, 47, 1, 1, value=0x5A)
    out = run_reading(call, memory, "data_copy_pad.dummy.no_padding", reading)
    want = memory["UB"].copy()
    for k in range(2):
        block = memory["GM"][k * 48:k * 48 + 47]
        want[k * 96:k * 96 + 47] = block
        want[k * 96 + 47:k * 96 + 64] = {"block_first": block[0], "transfer_first": memory["GM"][0],
                                          "padding_value": 0x5A}[reading]
    assert np.array_equal(out.memory["UB"], want) and out.fully_defined("UB")


def test_padding_value_and_dummy_with_is_pad() -> None:
    """'若leftPadding/rightPadding不为0：... 否则为paddingValue': half, blockLen 20 halves, leftPadding 2, rightPadding 3:
    4 + 40 + 6 = 50 bytes, padded to 64; every padding and dummy element holds paddingValue."""
    memory = images(3)
    out = run(gm_to_ub("float16", 1, 40, 0, 0, left=2, right=3, value=0x3C00), memory)   # 1.0 as bits
    got = out.memory["UB"][:64].view(np.uint16)
    assert list(got[:2]) == [0x3C00] * 2
    assert np.array_equal(got[2:22], memory["GM"][:40].view(np.uint16))
    assert list(got[22:]) == [0x3C00] * 10
    assert np.array_equal(out.memory["UB"][64:], memory["UB"][64:]) and out.fully_defined("UB")


@pytest.mark.parametrize("left, right", [(2, 3), (0, 6)])
def test_without_is_pad_the_padding_is_open(left: int, right: int) -> None:
    """'若isPad为false，左右两侧填充的数据值会默认为随机值' and the dummy 'isPad为false，... dummy值均为随机值' (or a SetPadValue
    the call does not carry): those bytes are undefined; the data bytes and everything else are defined."""
    memory = images(4)
    out = run(gm_to_ub("float16", 2, 40, 0, 0, is_pad=False, left=left, right=right), memory)
    defined = out.defined["UB"]
    for k in range(2):
        base = k * 64
        assert defined[base + 2 * left:base + 2 * left + 40].all()
        assert not defined[base:base + 2 * left].any() and not defined[base + 2 * left + 40:base + 64].any()
        assert np.array_equal(out.memory["UB"][base + 2 * left:base + 2 * left + 40], memory["GM"][k * 40:k * 40 + 40])
    assert defined[128:].all()


def test_without_is_pad_and_padding_the_dummy_is_a_reading() -> None:
    """isPad false, no padding, blockLen 40: the no-padding sentence names no isPad condition. Undeclared,
    the call is open (data_copy_pad.dummy.without_isPad); under block_first each block's 24-byte dummy
    repeats its first half-word; under undefined the call stays open."""
    memory = images(4)
    call = gm_to_ub("float16", 2, 40, 0, 0, is_pad=False)
    amb = "data_copy_pad.dummy.without_isPad"
    out = run_reading(call, memory, amb, "block_first")
    for k in range(2):
        got = out.memory["UB"][k * 64:k * 64 + 64].view(np.uint16)
        block = memory["GM"][k * 40:k * 40 + 40].view(np.uint16)
        assert np.array_equal(got[:20], block) and (got[20:] == block[0]).all()
    assert out.fully_defined("UB")
    assert [(v.rule, v.severity) for v in check(call, memory, readings={amb: "undefined"})] == [(amb, "undefined")]


def test_scenario_2_float_rows_padded_to_64() -> None:
    """场景2: blockCount 32, blockLen 59 * sizeof(float), isPad true, rightPadding 5 ('isPad=true时填充值为0'):
    each 59-float row becomes 64 floats, the last 5 zero."""
    memory = images(5)
    out = run(gm_to_ub("float32", 32, 59 * 4, 0, 0, right=5), memory)
    rows = out.memory["UB"][:32 * 256].view(np.uint32).reshape(32, 64)
    assert np.array_equal(rows[:, :59], memory["GM"][:32 * 236].view(np.uint32).reshape(32, 59))
    assert not rows[:, 59:].any()
    assert np.array_equal(out.memory["UB"][32 * 256:], memory["UB"][32 * 256:])


def test_normal_mode_layout() -> None:
    """Normal mode ("与原有数据搬运格式保持一致"): blockLen 48, srcStride 0, dstStride 0, rightPadding 16 bytes: "每个连续
    传输数据块都会在右侧填充16字节。目的操作数的总长度为192字节" (three blocks of 64)."""
    memory = images(6)
    out = run(gm_to_ub("int8", 3, 48, 0, 0, right=16, value=0x7F), memory)
    got = out.memory["UB"][:192].reshape(3, 64)
    assert np.array_equal(got[:, :48], memory["GM"][:144].reshape(3, 48)) and (got[:, 48:] == 0x7F).all()
    assert np.array_equal(out.memory["UB"][192:], memory["UB"][192:])


@pytest.mark.parametrize("length", [64, 47])
def test_ub_to_gm_figures(length: int) -> None:
    """图1 / 图2: blockLen 64 or 47, srcStride 1 DataBlock, dstStride 1 byte: block k is read at k * (64 + 32) in UB
    (47 bytes take 64: "自动补充17字节的假数据") and written at k * (blockLen + 1) in GM; the dummy is dropped."""
    memory = images(7)
    out = run(ub_to_gm("int8", 3, length, 1, 1), memory)
    want = memory["GM"].copy()
    for k in range(3):
        want[k * (length + 1):k * (length + 1) + length] = memory["UB"][k * 96:k * 96 + length]
    assert np.array_equal(out.memory["GM"], want) and out.fully_defined("GM")


def test_nop_and_refusals() -> None:
    """NOP on A2 ('blockCount、blockLen任意一个值为0时，该接口将被视为NOP'), padding included; open on 200I/500 A2; the
    32-byte limit of the paddings; b64 paddingValue 0 only; blockLen a multiple of sizeof(T)."""
    memory = images(8)
    out = run(gm_to_ub("int8", 2, 0, 0, 0, left=4), memory)
    assert np.array_equal(out.memory["UB"], memory["UB"])
    assert [v.rule for v in check(gm_to_ub("int8", 0, 32, 0, 0, product="ascend310b"))] == ["data_copy_pad.blockCount.zero_elsewhere"]

    def rules(call):
        return [v.rule for v in check(call)]
    assert rules(gm_to_ub("float16", 1, 32, 0, 0, left=17)) == ["data_copy_pad.leftPadding.b16"]
    assert rules(gm_to_ub("float16", 1, 32, 0, 0, right=16)) == []
    assert rules(gm_to_ub("int64", 1, 32, 0, 0, value=1)) == ["data_copy_pad.paddingValue.b64"]
    assert rules(gm_to_ub("float32", 1, 30, 0, 0, right=1)) == ["data_copy_pad.blockLen.multiple"]
    assert rules(gm_to_ub("float64", 1, 32, 0, 0, product="ascend310b")) == ["data_copy_pad.dtype.supported_310b"]
    assert "data_copy_pad.product.supported" in rules(gm_to_ub("int8", 1, 32, 0, 0, product="ascend910"))
