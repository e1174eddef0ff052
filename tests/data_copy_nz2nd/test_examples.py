"""The worked examples of the DataCopy NZ->ND page (004_dc35eb371305363d.txt, "随路转换NZ2ND搬运"): the 调用示例
with its 结果示例, and the two figures (图1 half, 图2 float) with the page's explanation of each field, run
through the oracle and compared byte for byte.

The expected images are written from the page's own words (the printed output, "A1到B1的距离 ... 64个元素"
and so on), not from the oracle's formula. GM and UB are filled with random bytes, so a stray write, a
write into a gap between rows, or a read from the wrong place shows. The tests do not read the page at
run time.
"""
from __future__ import annotations

import numpy as np
import pytest

from oracle import Call, IllegalCall, Tensor, check, expected

API = "data_copy_nz2nd"
ALL_PRODUCTS = ["ascend310", "ascend910", "ascend310p-aicore", "ascend310p-vectorcore", "ascend310b",
                "ascend910b", "ascend910_93"]
# 产品支持情况: Atlas A3 √, Atlas A2 √, Atlas 200I/500 A2 x, Atlas 推理系列产品AI Core √, Vector Core x,
# Atlas 训练系列产品 x, Atlas 200/300/500 推理产品 x
NZ2ND_PRODUCTS = ["ascend910b", "ascend910_93", "ascend310p-aicore"]
REFUSED_PRODUCTS = ["ascend310", "ascend910", "ascend310p-vectorcore", "ascend310b"]
UB_BYTES = {"ascend310": 262144, "ascend910": 262144, "ascend310p-aicore": 262144, "ascend310p-vectorcore": 262144,
            "ascend310b": 253952, "ascend910b": 196608, "ascend910_93": 196608}
GM_BYTES = 8192
FIELDS = ("ndNum", "nValue", "dValue", "srcNdMatrixStride", "srcNStride", "dstDStride", "dstNdMatrixStride")


def params(*values: int) -> dict[str, int]:
    """Nz2NdParamsFull{...} in the struct's field order (表3)."""
    assert len(values) == len(FIELDS)
    return dict(zip(FIELDS, values))


def as_bytes(vals, dtype: str) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(vals, dtype=dtype)).reshape(-1).view(np.uint8)


def random_image(size: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, size, dtype=np.uint8)


def put(image: np.ndarray, addr: int, vals, dtype: str) -> None:
    raw = as_bytes(vals, dtype)
    image[addr:addr + raw.size] = raw


def nz2nd(product: str, dtype: str, ip: dict[str, int], src_addr: int, src_numel: int, dst_addr: int,
          dst_numel: int) -> Call:
    return Call(API, product, {"dst": Tensor("GM", dst_addr, dtype, dst_numel),
                               "src": Tensor("UB", src_addr, dtype, src_numel), "intriParams": ip})


def run_legal(call: Call, ub: np.ndarray, gm: np.ndarray, readings: dict[str, str] | None = None) -> np.ndarray:
    """The GM image a conforming backend must leave: the call is legal with and without memory (under the
    readings given), every byte is defined, UB (read only) and the inputs are untouched."""
    ub0, gm0 = ub.copy(), gm.copy()
    assert check(call, readings=readings) == []
    assert check(call, {"UB": ub, "GM": gm}, readings=readings) == []
    out = expected(call, {"UB": ub, "GM": gm}, readings=readings)
    assert np.array_equal(ub, ub0) and np.array_equal(gm, gm0), "expected() modified its input"
    assert out.violations == [] and out.choices == []
    assert out.fully_defined("GM") and out.fully_defined("UB")
    assert np.array_equal(out.memory["UB"], ub0), "the call wrote into UB"
    return out.memory["GM"]


# ---------------------------------------------------------------------------------------------
# 调用示例: Nz2NdParamsFull intriParamsIn{1, 32, 32, 1, 32, 32, 1}; half; 1024 elements.
#   pipe.InitBuffer(inQueueSrcVecIn, 1, nValue * dValue * sizeof(half));    -> UB [0, 2048)
#   pipe.InitBuffer(inQueueSrcVecOut, 1, nValue * dValue * sizeof(half));   -> UB [2048, 4096): the src
# srcGlobal [1 2 3 ... 1024] is copied to UB unchanged (two plain DataCopy of nValue * dValue elements), so
# the NZ->ND DataCopy reads [1 .. 1024] from srcOutLocalDe. The page fixes no addresses; dst sits inside a
# larger GM so that bytes on both sides of it are watched.

CODE_IP = params(1, 32, 32, 1, 32, 32, 1)
CODE_SRC, CODE_DST = 2048, 1024
PRINTED_INPUT = "[1 2 3 ... 1024]"
PRINTED_OUTPUT = ("[1 2 ... 15 16 513 514 ... 527 528 17 18 ... 31 32 529 530 ... 543 544 ...497 498 ...  511 512  "
                  "1009 1010... 1023 1024]")


def printed_pattern() -> list[int]:
    """The output the printed line stands for, continued as it runs: ND row r (32 elements) is the 16
    values 16r+1 .. 16r+16 ("1 2 ... 15 16", "17 18 ... 31 32", ..., "497 498 ... 511 512") followed by
    the 16 values 512+16r+1 .. 512+16r+16 ("513 514 ... 527 528", ..., "1009 1010 ... 1023 1024")."""
    out: list[int] = []
    for r in range(32):
        out += list(range(16 * r + 1, 16 * r + 17))
        out += list(range(512 + 16 * r + 1, 512 + 16 * r + 17))
    return out


def read_printed(text: str) -> tuple[list[int], list[int]]:
    """The values a printed line states, as (head, tail). "a ... b" with b > a elides a + 1 .. b - 1 of one
    run; "a ... b" with b < a elides a stretch of unknown length between the head and the tail."""
    tokens = text.strip("[]").replace("...", " ... ").split()
    head: list[int] = []
    tail: list[int] | None = None
    seq = head
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok == "...":
            nxt = int(tokens[i + 1])
            if nxt > seq[-1]:
                seq += list(range(seq[-1] + 1, nxt))
            else:
                assert tail is None, "two elided stretches"
                tail = []
                seq = tail
            i += 1
            continue
        seq.append(int(tok))
        i += 1
    return head, tail or []


EXPECTED_CODE_OUTPUT = printed_pattern()


def test_code_example_transcription():
    """The full 1024-element output reads as the page prints it: the stated fragments sit at the head
    (positions 0..63) and the tail (positions 992..1023), and it is a permutation of the input 1 .. 1024."""
    full = EXPECTED_CODE_OUTPUT
    assert len(full) == 1024 and sorted(full) == list(range(1, 1025))
    head, tail = read_printed(PRINTED_OUTPUT)
    assert head == [*range(1, 17), *range(513, 529), *range(17, 33), *range(529, 545)]
    assert tail == [*range(497, 513), *range(1009, 1025)]
    assert full[:len(head)] == head
    assert full[-len(tail):] == tail
    assert read_printed(PRINTED_INPUT) == (list(range(1, 1025)), [])      # one run: the whole input


def test_code_example_matches_the_stated_index_formula():
    """The printed pattern agrees with the destination formula: dst[i*dstNdMatrixStride + r*dstDStride + c]
    = src[i*srcNdMatrixStride*256 + (c div 16)*srcNStride*16 + r*16 + (c mod 16)] with srcNStride 32
    ("单位16个元素": 512 elements) -- column block 1 of the NZ matrix starts at input value 513."""
    src = list(range(1, 1025))
    want = [0] * 1024
    for r in range(32):
        for c in range(32):
            want[r * 32 + c] = src[(c // 16) * 32 * 16 + r * 16 + (c % 16)]
    assert want == EXPECTED_CODE_OUTPUT


@pytest.mark.parametrize("product", NZ2ND_PRODUCTS)
def test_code_example_printed_output(product):
    """结果示例: 输入数据(srcGlobal): [1 2 3 ... 1024] -> 输出数据(dstGlobal): [1 2 ... 15 16 513 514 ... 527 528
    17 18 ... ... 1009 1010... 1023 1024]: all 1024 half values as bytes, and no GM byte outside dst changes."""
    ub, gm = random_image(UB_BYTES[product], 1), random_image(GM_BYTES, 2)
    put(ub, CODE_SRC, np.arange(1, 1025), "float16")
    out = run_legal(nz2nd(product, "float16", CODE_IP, CODE_SRC, 1024, CODE_DST, 1024), ub, gm)
    assert out[CODE_DST:CODE_DST + 2048].tobytes() == as_bytes(EXPECTED_CODE_OUTPUT, "float16").tobytes()
    assert np.array_equal(out[:CODE_DST], gm[:CODE_DST])
    assert np.array_equal(out[CODE_DST + 2048:], gm[CODE_DST + 2048:])


@pytest.mark.parametrize("product", ["ascend910b", "ascend910_93"])
def test_code_example_in_bfloat16(product):
    """表4: A2/A3 list bfloat16_t: the same call moves 16-bit patterns the same way (bytes, not values)."""
    ub, gm = random_image(UB_BYTES[product], 3), random_image(GM_BYTES, 4)
    bits = np.arange(1, 1025, dtype=np.uint16) * 37 + 5                   # any 1024 distinct patterns
    put(ub, CODE_SRC, bits, "uint16")
    out = run_legal(nz2nd(product, "bfloat16", CODE_IP, CODE_SRC, 1024, CODE_DST, 1024), ub, gm)
    want = bits[np.asarray(EXPECTED_CODE_OUTPUT) - 1]
    assert out[CODE_DST:CODE_DST + 2048].tobytes() == as_bytes(want, "uint16").tobytes()
    assert np.array_equal(out[:CODE_DST], gm[:CODE_DST])
    assert np.array_equal(out[CODE_DST + 2048:], gm[CODE_DST + 2048:])


def test_code_example_in_bfloat16_refused_on_ai_core():
    """表4: Atlas 推理系列产品AI Core lists int16_t、uint16_t、int32_t、uint32_t、half、float -- no bfloat16_t."""
    call = nz2nd("ascend310p-aicore", "bfloat16", CODE_IP, CODE_SRC, 1024, CODE_DST, 1024)
    assert [(v.rule, v.severity) for v in check(call)] == [("data_copy_nz2nd.dtype.supported_310p", "reject")]
    with pytest.raises(IllegalCall):
        expected(call, {"UB": random_image(UB_BYTES["ascend310p-aicore"], 5), "GM": random_image(GM_BYTES, 6)})


@pytest.mark.parametrize("product", REFUSED_PRODUCTS)
def test_code_example_refused_elsewhere(product):
    """产品支持情况: Atlas 200I/500 A2 推理产品 x, Atlas 推理系列产品Vector Core x, Atlas 训练系列产品 x,
    Atlas 200/300/500 推理产品 x -- only the product rule speaks, and no image is given."""
    call = nz2nd(product, "float16", CODE_IP, CODE_SRC, 1024, CODE_DST, 1024)
    assert [(v.rule, v.severity) for v in check(call)] == [("data_copy_nz2nd.product.supported", "reject")]
    with pytest.raises(IllegalCall):
        expected(call, {"UB": random_image(UB_BYTES[product], 7), "GM": random_image(GM_BYTES, 8)})


def test_products_are_the_pages():
    """The two product lists cover the seven products, with no product in both."""
    assert sorted(NZ2ND_PRODUCTS + REFUSED_PRODUCTS) == sorted(ALL_PRODUCTS)


# ---------------------------------------------------------------------------------------------
# The two figures. NZ matrix 1 is column block A (A1.., nValue = 4 rows of 16 elements, back to back) and
# column block B starting srcNStride * 16 elements after A1; matrix 2 (C, D) starts srcNdMatrixStride *
# 256 elements after A1. In the destination, ND row r of matrix x is block A's row r followed by block B's
# row r (dValue = 32), rows dstDStride elements apart, matrix 2 dstNdMatrixStride elements after matrix 1.

FIG_SRC, FIG_DST = 512, 1024
FIG_SRC_NUMEL = 384                 # C/D start at 256 (+ 64 for D) and end at 256 + 64 + 64 = 384 elements
SPARE = 64                          # dst holds 64 more elements than the call writes: they must keep their bytes


def figure_run(product: str, dtype: str, ip: dict[str, int], dst_extent: int, seed: int):
    """Run a figure's call on random memory with src element k = k + 1 (distinct, exact in half and
    float); return (input GM, output GM, src values)."""
    width = np.dtype(dtype).itemsize
    ub, gm = random_image(UB_BYTES[product], seed), random_image(GM_BYTES, seed + 1)
    src = np.arange(1, FIG_SRC_NUMEL + 1)
    put(ub, FIG_SRC, src, dtype)
    call = nz2nd(product, dtype, ip, FIG_SRC, FIG_SRC_NUMEL, FIG_DST, dst_extent + SPARE)
    out = run_legal(call, ub, gm)
    exp = expected(call, {"UB": ub, "GM": gm})
    written = np.flatnonzero(exp.written["GM"])
    assert written.min() >= FIG_DST and written.max() < FIG_DST + dst_extent * width
    return gm, out, src, exp.written["GM"]


def check_image(gm: np.ndarray, out: np.ndarray, dtype: str, dst_values: dict[int, int], dst_extent: int,
                written: np.ndarray) -> None:
    """Every destination element the figure names holds its value; every other dst element (the gaps
    between rows and matrices, and the spare tail) and every byte outside dst keep their old bytes; the
    oracle's write footprint is exactly the named elements."""
    width = np.dtype(dtype).itemsize
    want = gm.copy()
    mask = np.zeros(gm.size, dtype=bool)
    for e, v in dst_values.items():
        put(want, FIG_DST + e * width, [v], dtype)
        mask[FIG_DST + e * width:FIG_DST + (e + 1) * width] = True
    got = out[FIG_DST:FIG_DST + (dst_extent + SPARE) * width].view(dtype)
    for e, v in dst_values.items():
        assert got[e] == v, (e, got[e], v)
    untouched = [e for e in range(dst_extent + SPARE) if e not in dst_values]
    assert untouched, "a figure leaves gaps"
    old = gm[FIG_DST:FIG_DST + (dst_extent + SPARE) * width].reshape(-1, width)
    new = out[FIG_DST:FIG_DST + (dst_extent + SPARE) * width].reshape(-1, width)
    assert np.array_equal(new[untouched], old[untouched]), "a gap element changed"
    assert np.array_equal(out, want)
    assert np.array_equal(written, mask)


# 图1 (half): ndNum = 2, nValue = 4, dValue = 32, srcNdMatrixStride = 1, srcNStride = 4, dstDStride = 160,
# dstNdMatrixStride = 48.
HALF_FIG = params(2, 4, 32, 1, 4, 160, 48)
HALF_DST_EXTENT = 48 + 3 * 160 + 32          # matrix 2's last row ends at element 560


def half_figure_values(src: np.ndarray) -> dict[int, int]:
    """From the page's explanation, block by block (16 half = 1 DataBlock):
    A1~A4: matrix 1's first column block, 4 rows of 16 elements from element 0 on;
    B1~B4: "A1到B1的距离,即为64个元素(4个DataBlock* 16个元素)";
    C1~C4, D1~D4: "A1~C1的距离,即为256个元素(16个DataBlock * 16个元素)", D1 64 after C1;
    "A1和A2之间的距离 ... 10 * 16 = 160个元素"; "A1和C1之间的距离 ... 3 * 16 = 48个元素";
    ND row r of a matrix: A(r+1) then B(r+1) (dValue = 32 = two blocks of 16)."""
    def block(name: str, j: int) -> np.ndarray:            # j = 1..4
        start = {"A": 0, "B": 64, "C": 256, "D": 256 + 64}[name] + 16 * (j - 1)
        return src[start:start + 16]
    dst_at = {"A": 0, "B": 16, "C": 48, "D": 48 + 16}       # where row 0 of each block lands
    out: dict[int, int] = {}
    for name in "ABCD":
        for j in range(1, 5):
            for k, v in enumerate(block(name, j)):
                out[dst_at[name] + 160 * (j - 1) + k] = int(v)
    assert len(out) == 2 * 4 * 32
    return out


@pytest.mark.parametrize("product", NZ2ND_PRODUCTS)
def test_half_figure(product):
    """图1 NZ2ND转换示意图(half数据类型): every destination element, the gaps between rows (dstDStride 160 >
    dValue 32) and between the two matrices' rows, the spare tail, and GM outside dst."""
    gm, out, src, written = figure_run(product, "float16", HALF_FIG, HALF_DST_EXTENT, seed=10)
    values = half_figure_values(src)
    check_image(gm, out, "float16", values, HALF_DST_EXTENT, written)
    # spot checks straight from the figure: row 2 of matrix 1 starts with A3 = src[32..47] at element 320;
    # row 0 of matrix 2 starts with C1 = src[256..] at element 48, D1 = src[320..] at element 64
    got = out[FIG_DST:FIG_DST + HALF_DST_EXTENT * 2].view(np.float16)
    assert got[320] == src[32] and got[336] == src[64 + 32]
    assert got[48] == src[256] and got[64] == src[320]
    assert got[48 + 3 * 160 + 31] == src[383]


# 图2 (float): ndNum = 2, nValue = 4, dValue = 32, srcNdMatrixStride = 1, srcNStride = 4, dstDStride = 144,
# dstNdMatrixStride = 40.
FLOAT_FIG = params(2, 4, 32, 1, 4, 144, 40)
FLOAT_DST_EXTENT = 40 + 3 * 144 + 32         # 504


def float_figure_values(src: np.ndarray) -> dict[int, int]:
    """From the page's explanation, block by block (8 float = 1 DataBlock):
    "NZ矩阵1为A1~A8 + B1~B8": A1~A8 are 8 DataBlocks = 64 elements, 4 rows of 16 -- the fractal is still
    16 elements wide, two DataBlocks per row;
    "A1到B1的距离,为64个元素 (8个DataBlock * 8个元素)"; "A1到C1的距离,为256个元素(32个DataBlock * 8个元素)";
    "dstDStride = 144 ... 即A1和A3之间的距离": ND row 0 is A1 A2 B1 B2, row 1 starts with A3;
    "dstNdMatrixStride = 40 ... 即A1和C1之间的距离"."""
    def block(name: str, j: int) -> np.ndarray:            # j = 1..8
        start = {"A": 0, "B": 64, "C": 256, "D": 256 + 64}[name] + 8 * (j - 1)
        return src[start:start + 8]
    dst_at = {"A": 0, "B": 16, "C": 40, "D": 40 + 16}
    out: dict[int, int] = {}
    for name in "ABCD":
        for j in range(1, 9):
            row, half = divmod(j - 1, 2)                   # A1, A2 -> row 0; A3, A4 -> row 1; ...
            for k, v in enumerate(block(name, j)):
                out[dst_at[name] + 144 * row + 8 * half + k] = int(v)
    assert len(out) == 2 * 4 * 32
    return out


@pytest.mark.parametrize("product", NZ2ND_PRODUCTS)
def test_float_figure(product):
    """图2 NZ2ND转换示意图(float数据类型): the same checks; srcNStride 4 is 64 floats (4 x 16), not 32 -- a
    fractal of 8 floats would put B1 at element 32 and fail here."""
    gm, out, src, written = figure_run(product, "float32", FLOAT_FIG, FLOAT_DST_EXTENT, seed=20)
    values = float_figure_values(src)
    check_image(gm, out, "float32", values, FLOAT_DST_EXTENT, written)
    got = out[FIG_DST:FIG_DST + FLOAT_DST_EXTENT * 4].view(np.float32)
    assert list(got[:32]) == [*src[0:16], *src[64:80]]          # A1 A2 B1 B2
    assert list(got[144:160]) == list(src[16:32])               # "A1和A3之间的距离" = 144
    assert list(got[40:72]) == [*src[256:272], *src[320:336]]   # C1 C2 D1 D2


# ---------------------------------------------------------------------------------------------
# ndNum = 0

@pytest.mark.parametrize("product", NZ2ND_PRODUCTS)
@pytest.mark.parametrize("dtype, ip", [("float16", HALF_FIG), ("float32", FLOAT_FIG), ("float16", CODE_IP)])
def test_nd_num_zero_moves_nothing(product, dtype, ip):
    """"ndNum: 传输NZ矩阵的数目,取值范围:ndNum∈[0, 4095]。": zero matrices is the ambiguity
    data_copy_nz2nd.ndNum.zero; under its reading nop the call is legal and writes nothing, under reject it
    is refused, undeclared it is open."""
    ub, gm = random_image(UB_BYTES[product], 30), random_image(GM_BYTES, 31)
    call = nz2nd(product, dtype, {**ip, "ndNum": 0}, FIG_SRC, 1024, FIG_DST, 1024)
    nop = {"data_copy_nz2nd.ndNum.zero": "nop"}
    out = run_legal(call, ub, gm, nop)
    assert np.array_equal(out, gm)
    assert not expected(call, {"UB": ub, "GM": gm}, readings=nop).written["GM"].any()
    assert [(v.rule, v.severity) for v in check(call)] == [("data_copy_nz2nd.ndNum.zero", "undefined")]
    assert [(v.rule, v.severity) for v in check(call, readings={"data_copy_nz2nd.ndNum.zero": "reject"})] == [
        ("data_copy_nz2nd.ndNum.zero", "reject")]
