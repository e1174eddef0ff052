"""The three worked examples of the TIK data_move page (001_e45651b2d591d11d.txt), run through the oracle.

Each example is a short TIK program. The data_move calls are run through `oracle.check` and
`oracle.expected`, the image of one call feeding the next. The other instructions of the programs
(vec_dup, vec_add) are not data movement and the oracle does not model them: the tests simulate them
with numpy on the float16 view of the UB image, and say so where they do.

Everything needed from the page is transcribed below; the tests do not read the page at run time.
"""
from __future__ import annotations

import numpy as np
import pytest

from oracle import Call, Tensor, check, expected
from oracle.spec import default_rulebook

F16 = np.dtype("<f2")
# Products the page says support both OUT->UB and UB->OUT (every product of the page).
PAGE_PRODUCTS = ["ascend310", "ascend910", "ascend310p-aicore", "ascend310p-vectorcore", "ascend910b", "ascend310b"]


def move(product: str, dst: Tensor, src: Tensor, sid: int, nburst: int, burst: int,
         src_stride: int, dst_stride: int) -> Call:
    """`tik_instance.data_move(dst, src, sid, nburst, burst, src_stride, dst_stride)` as an oracle Call."""
    return Call("data_move", product, {"dst": dst, "src": src, "sid": sid, "nburst": nburst, "burst": burst,
                                       "src_stride": src_stride, "dst_stride": dst_stride})


def run_legal(call: Call, memory: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Check that the call is legal, and return the oracle's image as fresh writable arrays."""
    assert check(call) == []
    result = expected(call, memory)
    for scope, mask in result.defined.items():
        assert mask.all(), f"{scope}: a legal call must leave every byte defined"
    return {scope: np.array(image, copy=True) for scope, image in result.memory.items()}


def f16(memory: dict[str, np.ndarray], scope: str, addr: int, numel: int) -> np.ndarray:
    """A float16 view of `numel` elements at byte `addr` of a scope image (writes go through)."""
    return memory[scope][addr:addr + 2 * numel].view(F16)


def random_bytes(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint8)


# ---------------------------------------------------------------------------------------------
# Example 1: 一次搬运完成所有数据传输场景 (all data moved by one transfer)
#
#   src_gm = Tensor("float16", (512,), scope_gm); dst_gm = Tensor("float16", (512,), scope_gm)
#   tensor_ub = Tensor("float16", (512,), scope_ubuf)
#   # burst=512*2//32=32 ... src_stride/dst_stride都为0,表示连续传输
#   data_move(tensor_ub, src_gm, 0, 1, 32, 0, 0)
#   data_move(dst_gm, tensor_ub, 0, 1, 32, 0, 0)
#
# The page prints the first 40 and the last 40 values of input and output ("..." between them).

EX1_INPUT_HEAD = """-1.539 1.418 -6.418 -9.55 -9.336 -6.484 4.117 7.914 -2.012 3.201 -5.375 7.32 4. 9.99 3.502
8.27 -8.125 -9.33 -6.812 -8.695 9.87 -4.914 -5.992 1.233 -3.662 3.477 -4.9 -3.924 6.438 8.266 7.31 8.97 6.06
-3.646 9.695 0.623 9.84 -5.234 4.715 -8.07""".split()
EX1_INPUT_TAIL = """2.19 3.709 -3.611 -6.97 -0.772 -0.5938 2.953 7.043 6.63 8.55 1.873 0.1703 -0.715 -5.35 -4.52
7.31 4.336 -7.113 -5.875 9.44 -2.812 -6.5 -0.742 -6.703 3.297 -7.605 0.3582 -1.62 2.578 -6.35 -2.166 9.95 4.57
2.746 9.88 -3.354 5.645 -6.434 -2.32 2.59""".split()
EX1_OUTPUT_HEAD = """-1.539 1.418 -6.418 -9.55 -9.336 -6.484 4.117 7.914 -2.012 3.201 -5.375 7.32 4. 9.99 3.502
8.27 -8.125 -9.33 -6.812 -8.695 9.87 -4.914 -5.992 1.233 -3.662 3.477 -4.9 -3.924 6.438 8.266 7.31 8.97 6.06
-3.646 9.695 0.623 9.84 -5.234 4.715 -8.07""".split()
EX1_OUTPUT_TAIL = """2.19 3.709 -3.611 -6.97 -0.772 -0.5938 2.953 7.043 6.63 8.55 1.873 0.1703 -0.715 -5.35 -4.52
7.31 4.336 -7.113 -5.875 9.44 -2.812 -6.5 -0.742 -6.703 3.297 -7.605 0.3582 -1.62 2.578 -6.35 -2.166 9.95 4.57
2.746 9.88 -3.354 5.645 -6.434 -2.32 2.59""".split()


def test_example1_transcription_is_exact_float16():
    """The printed tokens are numpy's shortest float16 text: each parses to a float16 that prints back
    as the same token, so the transcription pins exact float16 bit patterns (40 + 40 values)."""
    for tokens in (EX1_INPUT_HEAD, EX1_INPUT_TAIL, EX1_OUTPUT_HEAD, EX1_OUTPUT_TAIL):
        assert len(tokens) == 40
        for token in tokens:
            assert np.format_float_positional(np.float16(token), trim=".") == token


def test_example1_burst_count_is_whole_tensor():
    """'burst=512*2//32=32,即每次传输片段长度为32': 32 bursts of 32 B are exactly 512 float16."""
    assert 512 * 2 // 32 == 32
    assert 32 * 32 == 512 * F16.itemsize


@pytest.mark.parametrize("product", PAGE_PRODUCTS)
def test_example1_one_transfer_moves_everything(product):
    """Example 1: GM->UB then UB->GM with data_move(dst, src, 0, 1, 32, 0, 0); dst_gm == src_gm."""
    values = np.linspace(-9.0, 9.0, 512).astype(F16)          # the middle the page does not print
    values[:40] = np.array(EX1_INPUT_HEAD, dtype=F16)
    values[-40:] = np.array(EX1_INPUT_TAIL, dtype=F16)
    src_addr, dst_addr, gm_size = 0, 1024, 1024 + 1024 + 256  # 256 B past dst_gm catch a stray write
    ub_size = default_rulebook().product(product).capacity("UB")
    memory = {"GM": random_bytes(gm_size, 1), "UB": random_bytes(ub_size, 2)}
    f16(memory, "GM", src_addr, 512)[:] = values
    original = {s: a.copy() for s, a in memory.items()}

    src_gm = Tensor("GM", src_addr, "float16", 512)
    dst_gm = Tensor("GM", dst_addr, "float16", 512)
    tensor_ub = Tensor("UB", 0, "float16", 512)
    memory = run_legal(move(product, tensor_ub, src_gm, 0, 1, 32, 0, 0), memory)
    assert memory["UB"][:1024].tobytes() == values.tobytes()
    assert memory["UB"][1024:].tobytes() == original["UB"][1024:].tobytes()
    memory = run_legal(move(product, dst_gm, tensor_ub, 0, 1, 32, 0, 0), memory)

    out = memory["GM"]
    assert out[dst_addr:dst_addr + 1024].tobytes() == out[src_addr:src_addr + 1024].tobytes()
    assert out[src_addr:src_addr + 1024].tobytes() == original["GM"][src_addr:src_addr + 1024].tobytes()
    assert out[dst_addr + 1024:].tobytes() == original["GM"][dst_addr + 1024:].tobytes()
    dst_values = f16(memory, "GM", dst_addr, 512)
    assert dst_values[:40].tobytes() == np.array(EX1_OUTPUT_HEAD, dtype=F16).tobytes()
    assert dst_values[-40:].tobytes() == np.array(EX1_OUTPUT_TAIL, dtype=F16).tobytes()


# ---------------------------------------------------------------------------------------------
# Example 2: 输入数据不满足32Byte对齐的场景 (GM data not a multiple of 32 B)
#
#   src_gm, dst_gm = Tensor("float16", (23,), scope_gm); src_ub, dst_ub = Tensor("float16", (32,), scope_ubuf)
#   vec_dup(32, src_ub, 0, 1, 1); vec_dup(32, dst_ub, 0, 1, 1)
#   for i in 0, 1:  # 第一次32Byte对齐搬运,第二次数据前移再按照32Byte对齐方式搬运到ub
#       data_move(src_ub[i*16], src_gm[i*(23-16)], 0, 1, 1, 0, 0)
#   vec_add(32, dst_ub, src_ub, src_ub, 1, 1, 1, 1)
#   for i in 0, 1:  # 第二次将gm进行地址回退,满足32Byte对齐后,存储剩余ub中的数据
#       data_move(dst_gm[i*(23-16)], dst_ub[i*16], 0, 1, 1, 0, 0)

EX2_INPUT = [0., 1., 2., 3., 4., 5., 6., 7., 8., 9., 10., 11., 12., 13., 14., 15., 16., 17.,
             18., 19., 20., 21., 22.]
EX2_OUTPUT = [0., 2., 4., 6., 8., 10., 12., 14., 16., 18., 20., 22., 24., 26., 28., 30., 32., 34.,
              36., 38., 40., 42., 44.]

# Where the example's tensors lie in the images (the page does not say; any placement the rules allow).
EX2_SRC_GM, EX2_DST_GM, EX2_GM_SIZE = 0, 64, 64 + 46 + 256
EX2_SRC_UB, EX2_DST_UB = 0, 64


def ex2_gm_to_ub(product: str, i: int, ub_addr: int | None = None) -> Call:
    """data_move(src_ub[i*16], src_gm[i*(23-16)], 0, 1, 1, 0, 0). A TIK slice t[k] is a Tensor at
    t.addr + k*2 holding the elements from k on (src_gm[7] of a 23-element tensor holds 16)."""
    ub_addr = EX2_SRC_UB + i * 16 * 2 if ub_addr is None else ub_addr
    src = Tensor("GM", EX2_SRC_GM + i * 7 * 2, "float16", 23 - i * 7)
    dst = Tensor("UB", ub_addr, "float16", 32 - (ub_addr - EX2_SRC_UB) // 2)
    return move(product, dst, src, 0, 1, 1, 0, 0)


def ex2_ub_to_gm(product: str, i: int, ub_addr: int | None = None) -> Call:
    """data_move(dst_gm[i*(23-16)], dst_ub[i*16], 0, 1, 1, 0, 0)."""
    ub_addr = EX2_DST_UB + i * 16 * 2 if ub_addr is None else ub_addr
    dst = Tensor("GM", EX2_DST_GM + i * 7 * 2, "float16", 23 - i * 7)
    src = Tensor("UB", ub_addr, "float16", 32 - (ub_addr - EX2_DST_UB) // 2)
    return move(product, dst, src, 0, 1, 1, 0, 0)


@pytest.mark.parametrize("product", PAGE_PRODUCTS)
def test_example2_unaligned_gm_is_legal(product):
    """'若dst/src的scope为UB,则要求地址偏移block_size对齐' speaks of UB and L1 only: the second move reads
    GM at byte 14 (src_gm[7]) and writes GM at byte 64 + 14; both are legal."""
    for i in (0, 1):
        assert check(ex2_gm_to_ub(product, i)) == []
        assert check(ex2_ub_to_gm(product, i)) == []
    assert ex2_gm_to_ub(product, 1).tensor("src").addr % 32 == 14
    assert ex2_ub_to_gm(product, 1).tensor("dst").addr % 32 == (64 + 14) % 32 != 0


@pytest.mark.parametrize("product", PAGE_PRODUCTS)
def test_example2_unaligned_ub_is_rejected(product):
    """The same moves with the UB side at src_ub[7] / dst_ub[7] (byte 14, not block_size aligned) are refused."""
    violations = check(ex2_gm_to_ub(product, 1, ub_addr=EX2_SRC_UB + 7 * 2))
    assert [(v.rule, v.severity) for v in violations] == [("data_move.dst.align.UB", "reject")]
    violations = check(ex2_ub_to_gm(product, 1, ub_addr=EX2_DST_UB + 7 * 2))
    assert [(v.rule, v.severity) for v in violations] == [("data_move.src.align.UB", "reject")]


@pytest.mark.parametrize("product", PAGE_PRODUCTS)
def test_example2_output(product):
    """Example 2 end to end: the printed output [0, 2, 4, ..., 44] as float16 bytes."""
    ub_size = default_rulebook().product(product).capacity("UB")
    memory = {"GM": random_bytes(EX2_GM_SIZE, 3), "UB": random_bytes(ub_size, 4)}
    f16(memory, "GM", EX2_SRC_GM, 23)[:] = np.array(EX2_INPUT, dtype=F16)
    original_gm = memory["GM"].copy()
    # vec_dup(32, src_ub, 0, 1, 1) and vec_dup(32, dst_ub, 0, 1, 1): not data_move, simulated here.
    f16(memory, "UB", EX2_SRC_UB, 32)[:] = 0
    f16(memory, "UB", EX2_DST_UB, 32)[:] = 0

    for i in (0, 1):
        memory = run_legal(ex2_gm_to_ub(product, i), memory)
    src_ub = f16(memory, "UB", EX2_SRC_UB, 32)
    assert src_ub.tobytes() == np.array(list(range(16)) + list(range(7, 23)), dtype=F16).tobytes()

    # vec_add(32, dst_ub, src_ub, src_ub, 1, 1, 1, 1): not data_move, simulated with numpy (float16 add).
    f16(memory, "UB", EX2_DST_UB, 32)[:] = src_ub + src_ub

    for i in (0, 1):
        memory = run_legal(ex2_ub_to_gm(product, i), memory)
    dst_gm = f16(memory, "GM", EX2_DST_GM, 23)
    assert dst_gm.tobytes() == np.array(EX2_OUTPUT, dtype=F16).tobytes()
    # Nothing else in GM changed: src_gm and the bytes around dst_gm are as they were.
    untouched = np.ones(EX2_GM_SIZE, dtype=bool)
    untouched[EX2_DST_GM:EX2_DST_GM + 46] = False
    assert memory["GM"][untouched].tobytes() == original_gm[untouched].tobytes()


# ---------------------------------------------------------------------------------------------
# Example 3: 输入数据超过UB大小时的场景 (input larger than UB). "假设UB的可用空间为248KB".
#
#   src_gm, dst_gm = Tensor("float16", (126976, 2), scope_gm); dst_ub = Tensor("float16", (126976,), scope_ubuf)
#   for i in 0, 1:
#       data_move(dst_ub, src_gm[i*126976], 0, 1, 7936, 0, 0)
#       for j in 0, 1, 2: vec_add(128, dst_ub[j*128*255], <same>, <same>, 255, 8, 8, 8)
#       vec_add(128, dst_ub[3*128*255], <same>, <same>, 227, 8, 8, 8)
#       data_move(dst_gm[i*126976], dst_ub, 0, 1, 7936, 0, 0)
#   输入数据(src_gm): [2. 2. 2. ... 2. 2. 2.]    输出数据(dst_gm): [4. 4. 4. ... 4. 4. 4.]
#
# src_gm[i*126976] is read as a *flat* element offset: the tensor has 126976 * 2 = 253952 elements and
# each move carries 7936 * 32 B = 126976 float16, so the two moves cover the two halves of it. (Read as
# a row index, i = 1 would be row 126976 of a tensor with rows 0..126975, and half the output would
# never be written, contradicting the printed all-4.0 output.)

EX3_N = 126976
EX3_BURST = 7936
EX3_DST_GM = 2 * EX3_N * 2                  # dst_gm right after src_gm in the GM image


def ex3_calls(product: str, i: int) -> tuple[Call, Call]:
    src_gm_i = Tensor("GM", i * EX3_N * 2, "float16", 2 * EX3_N - i * EX3_N)     # src_gm[i*126976]
    dst_gm_i = Tensor("GM", EX3_DST_GM + i * EX3_N * 2, "float16", 2 * EX3_N - i * EX3_N)
    dst_ub = Tensor("UB", 0, "float16", EX3_N)
    return (move(product, dst_ub, src_gm_i, 0, 1, EX3_BURST, 0, 0),
            move(product, dst_gm_i, dst_ub, 0, 1, EX3_BURST, 0, 0))


def test_example3_sizes():
    """248 KB usable UB is ascend310b's UB figure; one burst train of 7936 x 32 B fills it exactly, and
    the page's vec_add repeats (3 x 255 + 227 repeats of 128 elements) cover the same 126976 float16."""
    assert 248 * 1024 == 253952
    assert default_rulebook().product("ascend310b").capacity("UB") == 253952
    assert EX3_BURST * 32 == 253952 == EX3_N * 2
    assert (3 * 255 + 227) * 128 == EX3_N


def test_example3_output_on_ascend310b():
    """Example 3 on the product whose UB is 248 KB: input all 2.0, output all 4.0 (float16 bytes)."""
    product = "ascend310b"
    ub_size = default_rulebook().product(product).capacity("UB")
    memory = {"GM": random_bytes(EX3_DST_GM + 2 * EX3_N * 2 + 256, 5), "UB": random_bytes(ub_size, 6)}
    f16(memory, "GM", 0, 2 * EX3_N)[:] = 2.0
    original_gm = memory["GM"].copy()
    for i in (0, 1):
        load, store = ex3_calls(product, i)
        memory = run_legal(load, memory)
        assert f16(memory, "UB", 0, EX3_N).tobytes() == np.full(EX3_N, 2.0, F16).tobytes()
        # vec_add(128, dst_ub[...], dst_ub[...], dst_ub[...], ...): not data_move, simulated with numpy;
        # src and dst are the same tensor (地址完全重叠), so it doubles dst_ub in place.
        ub = f16(memory, "UB", 0, EX3_N)
        ub[:] = ub + ub
        memory = run_legal(store, memory)
    assert f16(memory, "GM", EX3_DST_GM, 2 * EX3_N).tobytes() == np.full(2 * EX3_N, 4.0, F16).tobytes()
    assert memory["GM"][:EX3_DST_GM].tobytes() == original_gm[:EX3_DST_GM].tobytes()
    assert memory["GM"][EX3_DST_GM + 4 * EX3_N:].tobytes() == original_gm[EX3_DST_GM + 4 * EX3_N:].tobytes()


@pytest.mark.parametrize("product", ["ascend910b", "ascend910_93"])
def test_example3_does_not_fit_a_192kb_ub(product):
    """On a 192 KB UB the 248 KB dst_ub cannot exist: the capacity rule of the UB operand refuses both
    moves (and on ascend910_93, which the page does not list, the product rule refuses them too)."""
    assert default_rulebook().product(product).capacity("UB") == 196608
    load, store = ex3_calls(product, 0)
    extra = {"data_move.product.supported"} if product == "ascend910_93" else set()
    assert {(v.rule, v.severity) for v in check(load)} == {(r, "reject") for r in {"data_move.dst.capacity"} | extra}
    assert {(v.rule, v.severity) for v in check(store)} == {(r, "reject") for r in {"data_move.src.capacity"} | extra}


@pytest.mark.parametrize("product", ["ascend310", "ascend910", "ascend310p-aicore", "ascend310p-vectorcore"])
def test_example3_fits_a_256kb_ub(product):
    """On the 256 KB UB products the 248 KB dst_ub fits, so both moves are legal there too."""
    for call in ex3_calls(product, 1):
        assert check(call) == []
