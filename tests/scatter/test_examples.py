"""The worked examples of the Scatter page (002_94c60850db7e14df.txt, "结果示例") and the asc_gather page
(003_5f0a5de14d724856.txt, "调用示例"), run through the oracle and compared with the printed outputs, and
repeat-form calls worked by hand from the pages' semantics.

The pages print abbreviated arrays ("[127 126 125 ... 2 1 0]"); the full arrays they stand for are written
out below, and a test checks that they read as the printed abbreviations. Offsets are little-endian uint32
byte offsets in UB. Every other UB byte is random, so a stray write or a read from the wrong place shows;
values are compared as bytes, never as floats. The tests do not read the pages at run time.
"""
from __future__ import annotations

import numpy as np
import pytest

from oracle import Call, IllegalCall, Tensor
from readings import check, expected     # under the readings the default index math models

ALL_PRODUCTS = ["ascend310", "ascend910", "ascend310p-aicore", "ascend310p-vectorcore", "ascend310b",
                "ascend910b", "ascend910_93"]
SCATTER_PRODUCTS = ["ascend310p-aicore", "ascend310b"]   # "支持的型号 Atlas 推理系列产品AI Core / Atlas 200I/500 A2 推理产品"
GATHER_PRODUCTS = ["ascend910b", "ascend910_93"]         # "产品支持情况: Atlas A3 ... √ / Atlas A2 ... √"
UB_BYTES = {"ascend310": 262144, "ascend910": 262144, "ascend310p-aicore": 262144, "ascend310p-vectorcore": 262144,
            "ascend310b": 253952, "ascend910b": 196608, "ascend910_93": 196608}
ALL_ONES = 2**64 - 1


def values(text: str) -> list[int]:
    return [int(t) for t in text.split()]


def as_bytes(vals, dtype: str) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(vals, dtype=dtype)).reshape(-1).view(np.uint8)


def random_ub(product: str, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, UB_BYTES[product], dtype=np.uint8)


def put(ub: np.ndarray, addr: int, vals, dtype: str) -> None:
    raw = as_bytes(vals, dtype)
    ub[addr:addr + raw.size] = raw


def run_legal(call: Call, ub: np.ndarray) -> np.ndarray:
    """The image a conforming backend must leave: legal with and without memory, every byte defined, input
    untouched."""
    before = ub.copy()
    assert check(call) == []
    assert check(call, {"UB": ub}) == []
    out = expected(call, {"UB": ub})
    assert np.array_equal(ub, before), "expected() modified its input"
    assert out.violations == [] and out.choices == []
    assert out.fully_defined("UB")
    return out.memory["UB"]


def assert_only(out: np.ndarray, before: np.ndarray, lo: int, hi: int) -> None:
    """Every byte outside [lo, hi) is what it was."""
    changed = np.flatnonzero(out != before)
    assert changed.size == 0 or (changed.min() >= lo and changed.max() < hi), changed[(changed < lo) | (changed >= hi)]


# ---------------------------------------------------------------------------------------------
# Scatter, 结果示例: Scatter(dstLocal, srcLocal, dstOffsetLocal, (uint32_t)0, m_elementCount), 128 half
#
#   m_pipe.InitBuffer(m_queIn, 2, m_elementCount * sizeof(uint32_t));   -> srcLocal, dstOffsetLocal (512 B each)
#   m_pipe.InitBuffer(m_queOut, 1, m_elementCount * sizeof(uint32_t));  -> dstLocal
# The UB layout below follows the queues in that order; the page fixes no addresses, any aligned one will do.

SC_SRC, SC_OFFS, SC_DST = 0, 512, 1024
SC_PRINTED_OFFSETS = "[254 252 250 ... 4 2 0]"          # 输入数据dstOffsetLocal
SC_PRINTED_SRC = "[0 1 2 ... 125 126 127]"              # 输入数据srcLocal(128个half类型数据)
SC_PRINTED_DST = "[127 126 125 ... 2 1 0]"              # 输出数据dstGlobal
SC_OFFSETS = values("""
254 252 250 248 246 244 242 240 238 236 234 232 230 228 226 224 222 220 218 216 214 212 210 208 206
204 202 200 198 196 194 192 190 188 186 184 182 180 178 176 174 172 170 168 166 164 162 160 158 156
154 152 150 148 146 144 142 140 138 136 134 132 130 128 126 124 122 120 118 116 114 112 110 108 106
104 102 100 98 96 94 92 90 88 86 84 82 80 78 76 74 72 70 68 66 64 62 60 58 56 54 52 50 48 46 44 42
40 38 36 34 32 30 28 26 24 22 20 18 16 14 12 10 8 6 4 2 0
""")
SC_SRC_VALUES = list(range(128))
SC_DST_VALUES = values("""
127 126 125 124 123 122 121 120 119 118 117 116 115 114 113 112 111 110 109 108 107 106 105 104 103
102 101 100 99 98 97 96 95 94 93 92 91 90 89 88 87 86 85 84 83 82 81 80 79 78 77 76 75 74 73 72 71
70 69 68 67 66 65 64 63 62 61 60 59 58 57 56 55 54 53 52 51 50 49 48 47 46 45 44 43 42 41 40 39 38
37 36 35 34 33 32 31 30 29 28 27 26 25 24 23 22 21 20 19 18 17 16 15 14 13 12 11 10 9 8 7 6 5 4 3 2
1 0
""")


def abbreviates(printed: str, full: list[int]) -> bool:
    """numpy's "[a b c ... x y z]": the first three and last three of the full array."""
    head, tail = printed.strip("[]").split("...")
    return values(head) == full[:3] and values(tail) == full[-3:]


def sc_example(product: str, base: int = 0, dst_numel: int = 128) -> Call:
    return Call("scatter", product, {"dstLocal": Tensor("UB", SC_DST, "float16", dst_numel),
                                     "srcLocal": Tensor("UB", SC_SRC, "float16", 128),
                                     "dstOffsetLocal": Tensor("UB", SC_OFFS, "uint32", 128),
                                     "dstBaseAddr": base, "count": 128}, "count")


def sc_example_ub(product: str, seed: int) -> np.ndarray:
    ub = random_ub(product, seed)
    put(ub, SC_SRC, SC_SRC_VALUES, "float16")
    put(ub, SC_OFFS, SC_OFFSETS, "uint32")
    return ub


def test_scatter_example_transcription():
    """The full arrays read as the page prints them, 128 values each."""
    assert len(SC_OFFSETS) == len(SC_SRC_VALUES) == len(SC_DST_VALUES) == 128
    assert abbreviates(SC_PRINTED_OFFSETS, SC_OFFSETS)
    assert abbreviates(SC_PRINTED_SRC, SC_SRC_VALUES)
    assert abbreviates(SC_PRINTED_DST, SC_DST_VALUES)


@pytest.mark.parametrize("product", SCATTER_PRODUCTS)
def test_scatter_example_printed_output(product):
    """结果示例 (002_94c60850db7e14df.txt): dstOffsetLocal [254 252 250 ... 4 2 0], srcLocal [0 1 2 ... 125 126 127]
    -> dstGlobal [127 126 125 ... 2 1 0]: all 128 float16 values as bytes; nothing else in UB changes."""
    ub = sc_example_ub(product, seed=11)
    out = run_legal(sc_example(product), ub)
    assert out[SC_DST:SC_DST + 256].tobytes() == as_bytes(SC_DST_VALUES, "float16").tobytes()
    assert_only(out, ub, SC_DST, SC_DST + 256)


@pytest.mark.parametrize("product", SCATTER_PRODUCTS)
def test_scatter_example_with_a_base_address(product):
    """"dstBaseAddr: dstLocal的起始偏移地址,单位是字节。": the same call with dstBaseAddr 256 writes the same
    128 values 256 bytes further on, and leaves dstLocal's first 256 bytes alone."""
    ub = sc_example_ub(product, seed=12)
    out = run_legal(sc_example(product, base=256, dst_numel=256), ub)
    assert out[SC_DST + 256:SC_DST + 512].tobytes() == as_bytes(SC_DST_VALUES, "float16").tobytes()
    assert_only(out, ub, SC_DST + 256, SC_DST + 512)


@pytest.mark.parametrize("product", sorted(set(ALL_PRODUCTS) - set(SCATTER_PRODUCTS)))
def test_scatter_example_refused_elsewhere(product):
    """"支持的型号" lists only Atlas 推理系列产品AI Core and Atlas 200I/500 A2 推理产品."""
    call = sc_example(product)
    assert [(v.rule, v.severity) for v in check(call)] == [("scatter.product.supported", "reject")]
    with pytest.raises(IllegalCall):
        expected(call, {"UB": sc_example_ub(product, seed=13)})


# ---------------------------------------------------------------------------------------------
# asc_gather, 调用示例:
#   __ubuf__ half src[total_length]; __ubuf__ uint32_t src_offset[total_length]; __ubuf__ half dst[total_length];
#   asc_gather(dst, src, src_offset, total_length);        total_length = 128
# The arrays are laid out in the order they are declared.

GA_SRC, GA_OFFS, GA_DST = 0, 256, 768
GA_PRINTED_SRC = "[1, 2, 3, ..., 126, 127, 128]"
GA_PRINTED_OFFSETS = "[254, 252, 250, ..., 4, 2, 0]"
GA_PRINTED_DST = "[128, 127, 126, ..., 3, 2, 1]"
GA_SRC_VALUES = values("""
1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36
37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68 69
70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95 96 97 98 99 100 101
102 103 104 105 106 107 108 109 110 111 112 113 114 115 116 117 118 119 120 121 122 123 124 125 126
127 128
""")
GA_OFFSETS = SC_OFFSETS                                  # the same [254, 252, ..., 2, 0]
GA_DST_VALUES = values("""
128 127 126 125 124 123 122 121 120 119 118 117 116 115 114 113 112 111 110 109 108 107 106 105 104
103 102 101 100 99 98 97 96 95 94 93 92 91 90 89 88 87 86 85 84 83 82 81 80 79 78 77 76 75 74 73 72
71 70 69 68 67 66 65 64 63 62 61 60 59 58 57 56 55 54 53 52 51 50 49 48 47 46 45 44 43 42 41 40 39
38 37 36 35 34 33 32 31 30 29 28 27 26 25 24 23 22 21 20 19 18 17 16 15 14 13 12 11 10 9 8 7 6 5 4 3
2 1
""")


def ga_example(product: str, form: str) -> Call:
    return Call("asc_gather", product, {"dst": Tensor("UB", GA_DST, "float16", 128),
                                        "src": Tensor("UB", GA_SRC, "float16", 128),
                                        "src_offset": Tensor("UB", GA_OFFS, "uint32", 128), "count": 128}, form)


def ga_example_ub(product: str, seed: int) -> np.ndarray:
    ub = random_ub(product, seed)
    put(ub, GA_SRC, GA_SRC_VALUES, "float16")
    put(ub, GA_OFFS, GA_OFFSETS, "uint32")
    return ub


def test_gather_example_transcription():
    assert len(GA_SRC_VALUES) == len(GA_OFFSETS) == len(GA_DST_VALUES) == 128
    assert abbreviates(GA_PRINTED_SRC.replace(",", ""), GA_SRC_VALUES)
    assert abbreviates(GA_PRINTED_OFFSETS.replace(",", ""), GA_OFFSETS)
    assert abbreviates(GA_PRINTED_DST.replace(",", ""), GA_DST_VALUES)


@pytest.mark.parametrize("product", GATHER_PRODUCTS)
@pytest.mark.parametrize("form", ["count", "count_sync"])
def test_gather_example_printed_output(product, form):
    """调用示例 (003_5f0a5de14d724856.txt): "src [1, 2, 3, ..., 126, 127, 128] ... src_offset [254, 252, 250, ...,
    4, 2, 0] ... dst [128, 127, 126, ..., 3, 2, 1]" -- asc_gather and asc_gather_sync alike."""
    ub = ga_example_ub(product, seed=21)
    out = run_legal(ga_example(product, form), ub)
    assert out[GA_DST:GA_DST + 256].tobytes() == as_bytes(GA_DST_VALUES, "float16").tobytes()
    assert_only(out, ub, GA_DST, GA_DST + 256)


@pytest.mark.parametrize("product", sorted(set(ALL_PRODUCTS) - set(GATHER_PRODUCTS)))
@pytest.mark.parametrize("form", ["count", "count_sync"])
def test_gather_example_refused_elsewhere(product, form):
    call = ga_example(product, form)
    assert [(v.rule, v.severity) for v in check(call)] == [("asc_gather.product.supported", "reject")]
    with pytest.raises(IllegalCall):
        expected(call, {"UB": ga_example_ub(product, seed=22)})


# ---------------------------------------------------------------------------------------------
# repeat forms, worked by hand: 256 bytes (8 datablocks) per repeat; element e of repeat r reads offset
# r * (256 / width) + e; Scatter's src moves srcRepStride * 32 bytes per repeat, asc_gather's dst
# dst_repeat_stride * 32; Scatter's mask picks elements of each repeat.

R_SRC, R_OFFS, R_DST = 0, 4096, 8192


def scatter_rep(product: str, dtype: str, form: str, mask, repeat: int, stride: int, n_src: int = 1024,
                n_offs: int = 512, n_dst: int = 512) -> Call:
    return Call("scatter", product, {"dstLocal": Tensor("UB", R_DST, dtype, n_dst),
                                     "srcLocal": Tensor("UB", R_SRC, dtype, n_src),
                                     "dstOffsetLocal": Tensor("UB", R_OFFS, "uint32", n_offs), "dstBaseAddr": 0,
                                     "mask": mask, "repeatTimes": repeat, "srcRepStride": stride}, form)


def rep_ub(product: str, seed: int, dtype: str, src, offsets: dict[int, int], n_offs: int = 512) -> np.ndarray:
    """Random UB; src holds `src`; every offset entry sends its element far into dst (byte 2000 + 4 * i, a
    place no test expects a write to), then `offsets` (entry -> byte offset) are set."""
    ub = random_ub(product, seed)
    put(ub, R_SRC, src, dtype)
    offs = [2000 + 4 * i for i in range(n_offs)]
    for i, v in offsets.items():
        offs[i] = v
    put(ub, R_OFFS, offs, "uint32")
    return ub


@pytest.mark.parametrize("product", SCATTER_PRODUCTS)
def test_scatter_mask_bits_page_example(product):
    """"例如,mask=[8, 0],8=0b1000,表示仅第4个元素参与计算。" -- only element 3 moves: with offset 3 = 248,
    src[3] lands in dst slot 124 and not one other byte of UB changes."""
    src = np.arange(1024) + 1
    ub = rep_ub(product, 31, "float16", src, {e: (127 - e) * 2 for e in range(128)})
    out = run_legal(scatter_rep(product, "float16", "mask_bits", [8, 0], 1, 8), ub)
    want = ub.copy()
    want[R_DST + 248:R_DST + 250] = as_bytes([4], "float16")           # src[3] == 4
    assert np.array_equal(out, want)


@pytest.mark.parametrize("product", SCATTER_PRODUCTS)
def test_scatter_mask_bits_two_repeats(product):
    """mask=[8, 0], repeatTimes 2, srcRepStride 10 (320 bytes): element 3 of each repeat, i.e. src[3] and
    src[160 + 3], through offsets entries 3 and 128 + 3."""
    src = np.arange(1024) + 1
    ub = rep_ub(product, 32, "float16", src, {3: 6, 131: 0})
    out = run_legal(scatter_rep(product, "float16", "mask_bits", [8, 0], 2, 10), ub)
    want = ub.copy()
    want[R_DST + 0:R_DST + 2] = as_bytes([164], "float16")             # src[163] == 164 -> dst slot 0
    want[R_DST + 6:R_DST + 8] = as_bytes([4], "float16")               # src[3] == 4 -> dst slot 3
    assert np.array_equal(out, want)


@pytest.mark.parametrize("product", SCATTER_PRODUCTS)
def test_scatter_mask_bits_both_words(product):
    """mask=[1, 2^63], 16-bit: bit 0 of word 0 is element 0, bit 63 of word 1 is element 127 (the last of a
    128-element repeat)."""
    src = np.arange(1024) + 1
    ub = rep_ub(product, 33, "uint16", src, {0: 2, 127: 0})
    out = run_legal(scatter_rep(product, "uint16", "mask_bits", [1, 2**63], 1, 8), ub)
    want = ub.copy()
    put(want, R_DST, [128, 1], "uint16")                                 # src[127], src[0]
    assert np.array_equal(out, want)


@pytest.mark.parametrize("product", SCATTER_PRODUCTS)
def test_scatter_mask_bits_32bit(product):
    """float32: 64 elements a repeat, word 0 only. mask=[2^63 + 1, 0], repeatTimes 2, srcRepStride 16 (512
    bytes = 128 floats): src[0], src[63], src[128], src[191] through offsets entries 0, 63, 64, 127."""
    src = np.arange(1024) + 1
    ub = rep_ub(product, 34, "float32", src, {0: 12, 63: 8, 64: 4, 127: 0})
    out = run_legal(scatter_rep(product, "float32", "mask_bits", [2**63 + 1, 0], 2, 16), ub)
    want = ub.copy()
    put(want, R_DST, [192, 129, 64, 1], "float32")
    assert np.array_equal(out, want)


@pytest.mark.parametrize("product", SCATTER_PRODUCTS)
def test_scatter_mask_continuous(product):
    """"连续模式:表示前面连续的多少个元素参与计算": mask=5, repeatTimes 2, srcRepStride 10 (320 bytes = 160
    halves): src[0..4] through offsets entries 0..4 and src[160..164] through entries 128..132."""
    src = np.arange(1024)
    offsets = {0: 8, 1: 6, 2: 4, 3: 2, 4: 0, 128: 10, 129: 12, 130: 14, 131: 16, 132: 18}
    ub = rep_ub(product, 35, "float16", src, offsets)
    out = run_legal(scatter_rep(product, "float16", "mask_continuous", 5, 2, 10), ub)
    want = ub.copy()
    put(want, R_DST, [4, 3, 2, 1, 0, 160, 161, 162, 163, 164], "float16")
    assert np.array_equal(out, want)


@pytest.mark.parametrize("product", SCATTER_PRODUCTS)
def test_scatter_mask_continuous_stride_zero(product):
    """srcRepStride 0: both repeats read the same 256 bytes of src; offsets still advance by a repeat."""
    src = np.arange(1024) + 7
    ub = rep_ub(product, 36, "int32" if product == "ascend310b" else "uint32", src, {0: 0, 1: 4, 64: 8, 65: 12})
    dtype = "int32" if product == "ascend310b" else "uint32"
    out = run_legal(scatter_rep(product, dtype, "mask_continuous", 2, 2, 0), ub)
    want = ub.copy()
    put(want, R_DST, [7, 8, 7, 8], dtype)
    assert np.array_equal(out, want)


@pytest.mark.parametrize("product", SCATTER_PRODUCTS)
@pytest.mark.parametrize("form, mask", [("mask_bits", [ALL_ONES, ALL_ONES]), ("mask_continuous", 128)])
def test_scatter_repeat_times_zero_moves_nothing(product, form, mask):
    """"repeatTimes∈[0,255]": zero iterations leave UB as it was (the reading nop of scatter.repeatTimes.zero)."""
    ub = rep_ub(product, 37, "float16", np.arange(1024), {})
    out = run_legal(scatter_rep(product, "float16", form, mask, 0, 8), ub)
    assert np.array_equal(out, ub)


@pytest.mark.parametrize("product", GATHER_PRODUCTS)
def test_gather_repeat_form(product):
    """asc_gather(dst, src, src_offset, dst_repeat_stride=10, repeat=2), half: repeat r fills 128 elements
    of dst from byte r * 320; element e of repeat r reads offset entry r * 128 + e. Offsets 2 * (255 - j):
    dst[160 r + e] = src[255 - 128 r - e]; dst[128..159], between the repeats, is left alone."""
    src = np.arange(256) + 1000
    ub = random_ub(product, 41)
    put(ub, R_SRC, src, "float16")
    put(ub, R_OFFS, [2 * (255 - j) for j in range(256)], "uint32")
    call = Call("asc_gather", product, {"dst": Tensor("UB", R_DST, "float16", 288),
                                        "src": Tensor("UB", R_SRC, "float16", 256),
                                        "src_offset": Tensor("UB", R_OFFS, "uint32", 256),
                                        "dst_repeat_stride": 10, "repeat": 2}, "repeat")
    out = run_legal(call, ub)
    want = ub.copy()
    for r in range(2):
        for e in range(128):
            put(want, R_DST + 2 * (160 * r + e), [1000 + 255 - 128 * r - e], "float16")
    assert np.array_equal(out, want)
    assert np.array_equal(out[R_DST + 256:R_DST + 320], ub[R_DST + 256:R_DST + 320])


@pytest.mark.parametrize("product", GATHER_PRODUCTS)
def test_gather_repeat_form_32bit(product):
    """int32: 64 elements a repeat; dst_repeat_stride 8 (one repeat): dst[j] = src[offset j / 4]."""
    src = np.arange(128) - 64
    ub = random_ub(product, 42)
    put(ub, R_SRC, src, "int32")
    perm = [(j * 37) % 128 for j in range(128)]
    put(ub, R_OFFS, [4 * p for p in perm], "uint32")
    call = Call("asc_gather", product, {"dst": Tensor("UB", R_DST, "int32", 128),
                                        "src": Tensor("UB", R_SRC, "int32", 128),
                                        "src_offset": Tensor("UB", R_OFFS, "uint32", 128),
                                        "dst_repeat_stride": 8, "repeat": 2}, "repeat")
    out = run_legal(call, ub)
    want = ub.copy()
    put(want, R_DST, [p - 64 for p in perm], "int32")
    assert np.array_equal(out, want)


@pytest.mark.parametrize("product", GATHER_PRODUCTS)
def test_gather_repeat_zero_moves_nothing(product):
    ub = random_ub(product, 43)
    put(ub, R_OFFS, [0] * 256, "uint32")
    call = Call("asc_gather", product, {"dst": Tensor("UB", R_DST, "float16", 256),
                                        "src": Tensor("UB", R_SRC, "float16", 256),
                                        "src_offset": Tensor("UB", R_OFFS, "uint32", 256),
                                        "dst_repeat_stride": 8, "repeat": 0}, "repeat")
    assert np.array_equal(run_legal(call, ub), ub)


@pytest.mark.parametrize("product", GATHER_PRODUCTS)
def test_gather_repeated_offsets_are_plain_reads(product):
    """Two dst elements from one src place: a read twice, no ambiguity (unlike Scatter's collisions)."""
    ub = random_ub(product, 44)
    put(ub, R_SRC, [11, 22, 33, 44], "float16")
    put(ub, R_OFFS, [0, 0, 2, 6], "uint32")
    call = Call("asc_gather", product, {"dst": Tensor("UB", R_DST, "float16", 4),
                                        "src": Tensor("UB", R_SRC, "float16", 4),
                                        "src_offset": Tensor("UB", R_OFFS, "uint32", 4), "count": 4}, "count")
    out = run_legal(call, ub)
    want = ub.copy()
    put(want, R_DST, [11, 11, 22, 44], "float16")
    assert np.array_equal(out, want)


# ---------------------------------------------------------------------------------------------
# Scatter collisions: several elements sent to one place leave one of them there

def scatter_count(product: str, n: int, dtype: str = "float16") -> Call:
    return Call("scatter", product, {"dstLocal": Tensor("UB", R_DST, dtype, 64),
                                     "srcLocal": Tensor("UB", R_SRC, dtype, n),
                                     "dstOffsetLocal": Tensor("UB", R_OFFS, "uint32", n),
                                     "dstBaseAddr": 0, "count": n}, "count")


def places(choices) -> dict[int, set[bytes]]:
    """place -> the set of values (as bytes) offered for it, from Expected.choices."""
    out: dict[int, set[bytes]] = {}
    for scope, starts, vals in choices:
        assert scope == "UB"
        assert list(starts) == sorted(starts), "choices are sorted by place"
        for s, v in zip(starts.tolist(), vals):
            out.setdefault(int(s), set()).add(bytes(v))
    return out


@pytest.mark.parametrize("product", SCATTER_PRODUCTS)
def test_scatter_collision(product):
    """Offsets [0, 2, 0, 6]: elements 0 and 2 go to dst slot 0. expected() lists both values for that place,
    marks its 2 bytes not defined, and is exact everywhere else (dst slot 2 is never written)."""
    ub = random_ub(product, 51)
    put(ub, R_SRC, [10, 20, 30, 40], "float16")
    put(ub, R_OFFS, [0, 2, 0, 6], "uint32")
    call = scatter_count(product, 4)
    assert check(call, {"UB": ub}) == []                   # a collision is no rule: the call is legal
    out = expected(call, {"UB": ub})
    assert out.violations == []
    assert places(out.choices) == {R_DST: {as_bytes([10], "float16").tobytes(), as_bytes([30], "float16").tobytes()}}
    undefined = np.flatnonzero(~out.defined["UB"])
    assert undefined.tolist() == [R_DST, R_DST + 1]
    image = out.memory["UB"]
    assert image[R_DST:R_DST + 2].tobytes() in places(out.choices)[R_DST]
    want = ub.copy()
    put(want, R_DST + 2, [20], "float16")
    put(want, R_DST + 6, [40], "float16")
    mask = out.defined["UB"]
    assert np.array_equal(image[mask], want[mask])


@pytest.mark.parametrize("product", SCATTER_PRODUCTS)
def test_scatter_two_collisions(product):
    """Offsets [4, 4, 0, 4, 0, 12] (uint32 elements): slot 1 gets one of elements 0, 1, 3; slot 0 one of
    elements 2, 4; element 5 lands alone in slot 3; slot 2 is never written."""
    ub = random_ub(product, 52)
    put(ub, R_SRC, [100, 101, 102, 103, 104, 105], "uint32")
    put(ub, R_OFFS, [4, 4, 0, 4, 0, 12], "uint32")
    out = expected(scatter_count(product, 6, "uint32"), {"UB": ub})
    assert out.violations == []
    def b(v):
        return as_bytes([v], "uint32").tobytes()
    assert places(out.choices) == {R_DST: {b(102), b(104)}, R_DST + 4: {b(100), b(101), b(103)}}
    assert sum(len(starts) for _, starts, _ in out.choices) == 5        # one row per element sent to a shared place
    assert np.flatnonzero(~out.defined["UB"]).tolist() == list(range(R_DST, R_DST + 8))
    want = ub.copy()
    put(want, R_DST + 12, [105], "uint32")
    mask = out.defined["UB"]
    assert np.array_equal(out.memory["UB"][mask], want[mask])


@pytest.mark.parametrize("product", SCATTER_PRODUCTS)
def test_scatter_collision_across_repeats(product):
    """mask=1, repeatTimes 2, srcRepStride 8: element 0 of each repeat (src[0], src[128]) through offset entries
    0 and 128, both 0 -> one place, two candidates."""
    ub = rep_ub(product, 53, "float16", np.arange(1024) + 1, {0: 0, 128: 0})
    out = expected(scatter_rep(product, "float16", "mask_continuous", 1, 2, 8), {"UB": ub})
    assert out.violations == []
    assert places(out.choices) == {R_DST: {as_bytes([1], "float16").tobytes(), as_bytes([129], "float16").tobytes()}}
    assert np.flatnonzero(~out.defined["UB"]).tolist() == [R_DST, R_DST + 1]
    assert np.array_equal(out.memory["UB"][R_DST + 2:], ub[R_DST + 2:])
    assert np.array_equal(out.memory["UB"][:R_DST], ub[:R_DST])
