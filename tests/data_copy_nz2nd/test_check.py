"""The legality checker on DataCopy NZ->ND (004_dc35eb371305363d.txt): one group per rule of
specs/data_copy_nz2nd.yaml. Each starts from a legal call and changes exactly what the rule is about; the
result must be exactly that rule, with its severity (or, where the page's ranges cannot be reached inside
a UB, exactly the rules that must then speak together).

The base call is the page's half figure (图1): ndNum 2, nValue 4, dValue 32, srcNdMatrixStride 1,
srcNStride 4, dstDStride 160, dstNdMatrixStride 48, src in UB, dst in GM, each tensor exactly as large as
the call's footprint (computed here from the page's units, not by the oracle)."""
from __future__ import annotations

import numpy as np
import pytest

from oracle import Call, CallFormatError, IllegalCall, Tensor, check, expected, verdict_class
from oracle.spec import default_rulebook

API = "data_copy_nz2nd"
ALL_PRODUCTS = ["ascend310", "ascend910", "ascend310p-aicore", "ascend310p-vectorcore", "ascend310b",
                "ascend910b", "ascend910_93"]
NZ2ND_PRODUCTS = ["ascend910b", "ascend910_93", "ascend310p-aicore"]     # 产品支持情况: A3 √, A2 √, AI Core √
UB_BYTES = {"ascend310": 262144, "ascend910": 262144, "ascend310p-aicore": 262144, "ascend310p-vectorcore": 262144,
            "ascend310b": 253952, "ascend910b": 196608, "ascend910_93": 196608}
ITEMSIZE = {"uint8": 1, "int8": 1, "uint16": 2, "int16": 2, "float16": 2, "bfloat16": 2, "uint32": 4, "int32": 4,
            "float32": 4, "uint64": 8, "int64": 8}
ALL_DTYPES = sorted(ITEMSIZE)
# 表4: "Atlas 推理系列产品AI Core | VECOUT、CO2 -> GM(UB -> GM) | int16_t、uint16_t、int32_t、uint32_t、half、float"
DTYPES_310P = {"int16", "uint16", "int32", "uint32", "float16", "float32"}
# 表4: Atlas A2 / Atlas A3 "int16_t、uint16_t、int32_t、uint32_t、half、bfloat16_t、float"
DTYPES_A2_A3 = DTYPES_310P | {"bfloat16"}
FIELDS = ("ndNum", "nValue", "dValue", "srcNdMatrixStride", "srcNStride", "dstDStride", "dstNdMatrixStride")
FIGURE = dict(ndNum=2, nValue=4, dValue=32, srcNdMatrixStride=1, srcNStride=4, dstDStride=160, dstNdMatrixStride=48)
SRC_ADDR, DST_ADDR = 0, 0


def src_extent(p: dict[str, int]) -> int:
    """Elements of src the call reads (strides >= 0): matrix i at i * srcNdMatrixStride * 256, column block
    b at b * srcNStride * 16, each block nValue fractal rows of 16 elements ("单位256 (16 * 16) 个元素",
    "单位16个元素"); a block is read whole."""
    if p["ndNum"] <= 0 or p["nValue"] <= 0 or p["dValue"] <= 0:
        return 0
    blocks = -(-p["dValue"] // 16)
    return (p["ndNum"] - 1) * p["srcNdMatrixStride"] * 256 + (blocks - 1) * p["srcNStride"] * 16 + p["nValue"] * 16


def dst_extent(p: dict[str, int]) -> int:
    """Elements of dst the call writes (strides >= 0): matrix i at i * dstNdMatrixStride, row r at
    r * dstDStride, dValue elements each ("单位为元素")."""
    if p["ndNum"] <= 0 or p["nValue"] <= 0 or p["dValue"] <= 0:
        return 0
    return (p["ndNum"] - 1) * p["dstNdMatrixStride"] + (p["nValue"] - 1) * p["dstDStride"] + p["dValue"]


def nz(product: str = "ascend910b", dtype: str = "float16", *, src_dtype: str | None = None,
       src: Tensor | None = None, dst: Tensor | None = None, base: dict[str, int] | None = None,
       **fields: int) -> Call:
    """The figure's call (or `base`) with `fields` changed; src (UB) and dst (GM) hold exactly what the
    call touches unless given."""
    ip = {**(base or FIGURE), **fields}
    assert set(ip) == set(FIELDS)
    return Call(API, product, {"dst": dst or Tensor("GM", DST_ADDR, dtype, dst_extent(ip)),
                               "src": src or Tensor("UB", SRC_ADDR, src_dtype or dtype, src_extent(ip)),
                               "intriParams": ip})


def found(call: Call, readings: dict[str, str] | None = None) -> list[tuple[str, str]]:
    """(rule, severity) of every violation (under the readings given), sorted; every violation carries a
    message; memory (which no rule of this API reads) changes nothing."""
    violations = check(call, readings=readings)
    for v in violations:
        assert v.message, v
    static = sorted((v.rule, v.severity) for v in violations)
    memory = {"UB": np.zeros(UB_BYTES[call.product], dtype=np.uint8), "GM": np.zeros(16, dtype=np.uint8)}
    assert sorted((v.rule, v.severity) for v in check(call, memory, readings=readings)) == static
    return static


def nd(*rules: str, severity: str = "reject") -> list[tuple[str, str]]:
    return sorted((f"{API}.{r}", severity) for r in rules)


OVERLAP = nd("dst.rows_overlap", severity="undefined")


def test_every_rule_has_a_test_here():
    """Keeps this file in step with the spec: these are the ids the tests below cover."""
    spec = default_rulebook().api(API)
    ids = {"data_copy_nz2nd.product.supported", "data_copy_nz2nd.path.supported",
           "data_copy_nz2nd.dtype.supported_310p", "data_copy_nz2nd.dtype.supported", "data_copy_nz2nd.dtype.same",
           "data_copy_nz2nd.ndNum.range", "data_copy_nz2nd.nValue.range", "data_copy_nz2nd.dValue.range",
           "data_copy_nz2nd.dValue.multiple", "data_copy_nz2nd.srcNdMatrixStride.range",
           "data_copy_nz2nd.srcNStride.range", "data_copy_nz2nd.dstDStride.range",
           "data_copy_nz2nd.dstNdMatrixStride.range", "data_copy_nz2nd.src.align", "data_copy_nz2nd.src.bounds",
           "data_copy_nz2nd.dst.bounds", "data_copy_nz2nd.src.capacity", "data_copy_nz2nd.dst.rows_overlap",
           "data_copy_nz2nd.srcNStride.max", "data_copy_nz2nd.ndNum.zero",
           "data_copy_nz2nd.srcNdMatrixStride.divisible"}
    assert {r.id for r in spec.rules} | {a.id for a in spec.ambiguities} == ids
    severities = {r.id: r.severity for r in spec.rules}
    assert severities.pop("data_copy_nz2nd.dst.rows_overlap") == "undefined"
    assert set(severities.values()) == {"reject"}


def test_extents_of_the_page_examples():
    """The helpers agree with the page: 图1's src ends at C/D's 256 + 64 + 64 = 384 elements and dst at
    48 + 3 * 160 + 32 = 560; the code example {1, 32, 32, 1, 32, 32, 1} reads and writes 1024 elements."""
    assert (src_extent(FIGURE), dst_extent(FIGURE)) == (384, 560)
    code = dict(zip(FIELDS, (1, 32, 32, 1, 32, 32, 1)))
    assert (src_extent(code), dst_extent(code)) == (1024, 1024)


# ---------------------------------------------------------------------------------------------
# the base calls

@pytest.mark.parametrize("product", NZ2ND_PRODUCTS)
@pytest.mark.parametrize("dtype", sorted(DTYPES_310P))
def test_base_calls_are_legal(product, dtype):
    call = nz(product, dtype)
    assert found(call) == []
    assert verdict_class(check(call)) == "legal"


# ---------------------------------------------------------------------------------------------
# products

@pytest.mark.parametrize("product", ALL_PRODUCTS)
def test_products(product):
    """产品支持情况: Atlas A3 √; Atlas A2 √; Atlas 200I/500 A2 推理产品 x; Atlas 推理系列产品AI Core √;
    Atlas 推理系列产品Vector Core x; Atlas 训练系列产品 x; Atlas 200/300/500 推理产品 x. float16 is in every
    listed product's dtypes, so nothing but the product rule speaks."""
    call = nz(product)
    assert found(call) == ([] if product in NZ2ND_PRODUCTS else nd("product.supported"))
    if product not in NZ2ND_PRODUCTS:
        with pytest.raises(IllegalCall):
            expected(call, {"UB": np.zeros(UB_BYTES[product], dtype=np.uint8), "GM": np.zeros(2048, dtype=np.uint8)})


# ---------------------------------------------------------------------------------------------
# paths

@pytest.mark.parametrize("product", NZ2ND_PRODUCTS)
@pytest.mark.parametrize("src_scope, dst_scope", [("GM", "UB"), ("GM", "GM"), ("UB", "UB"), ("L1", "GM"),
                                                  ("UB", "L1"), ("L1", "UB")])
def test_paths(product, src_scope, dst_scope):
    """表4 "Local Memory -> Global Memory具体通路": VECOUT -> GM(UB -> GM) (the AI Core: VECOUT、CO2 -> GM
    (UB -> GM)); dst is a GlobalTensor, src a LocalTensor: every other pair of scopes is refused."""
    ip = FIGURE
    call = nz(product, src=Tensor(src_scope, 0, "float16", src_extent(ip)),
              dst=Tensor(dst_scope, 2048, "float16", dst_extent(ip)))
    assert found(call) == nd("path.supported")
    assert found(nz(product, src=Tensor("UB", 0, "float16", 384), dst=Tensor("GM", 2048, "float16", 560))) == []


@pytest.mark.parametrize("product", ["ascend310b", "ascend910"])
def test_path_on_an_unsupported_product(product):
    """A product without the API: the product rule speaks, not the path rule (the page lists no path there)."""
    call = nz(product, src=Tensor("GM", 0, "float16", 384), dst=Tensor("UB", 2048, "float16", 560))
    assert found(call) == nd("product.supported")


# ---------------------------------------------------------------------------------------------
# dtypes

@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_dtypes_ai_core(dtype):
    """表4, Atlas 推理系列产品AI Core: int16_t、uint16_t、int32_t、uint32_t、half、float -- no bfloat16_t, no
    8-bit, no 64-bit."""
    assert found(nz("ascend310p-aicore", dtype)) == ([] if dtype in DTYPES_310P else nd("dtype.supported_310p"))


@pytest.mark.parametrize("product", ["ascend910b", "ascend910_93"])
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_dtypes_a2_a3(product, dtype):
    """表4, Atlas A2 / Atlas A3: int16_t、uint16_t、int32_t、uint32_t、half、bfloat16_t、float."""
    assert found(nz(product, dtype)) == ([] if dtype in DTYPES_A2_A3 else nd("dtype.supported"))


def test_bfloat16_per_product():
    """bfloat16_t is in the A2/A3 rows of 表4 and not in the AI Core row."""
    assert found(nz("ascend910b", "bfloat16")) == []
    assert found(nz("ascend910_93", "bfloat16")) == []
    assert found(nz("ascend310p-aicore", "bfloat16")) == nd("dtype.supported_310p")


@pytest.mark.parametrize("product, dst, src", [("ascend910b", "float16", "int16"), ("ascend910b", "int16", "uint16"),
                                               ("ascend910b", "float16", "bfloat16"),
                                               ("ascend910_93", "float32", "int32"),
                                               ("ascend910_93", "uint32", "float32"),
                                               ("ascend310p-aicore", "float16", "uint16"),
                                               ("ascend310p-aicore", "int32", "float32")])
def test_same_dtype(product, dst, src):
    """"源操作数和目的操作数的数据类型 (两者保持一致)": both allowed, same width, different types."""
    assert found(nz(product, dst)) == []
    assert found(nz(product, dst, src_dtype=src)) == nd("dtype.same")


def test_same_dtype_and_unsupported_src():
    """A src dtype the AI Core does not list breaks both the dtype rule and the same-dtype rule."""
    assert found(nz("ascend310p-aicore", "float16", src_dtype="bfloat16")) == nd("dtype.supported_310p", "dtype.same")


# ---------------------------------------------------------------------------------------------
# ranges (表3)

def test_nd_num_range_low_end():
    """"ndNum∈[0, 4095]": 1 is legal, 0 the ambiguity data_copy_nz2nd.ndNum.zero (legal under nop, moving
    nothing), -1 is refused and moves nothing either."""
    roomy = {"src": Tensor("UB", 0, "float16", 384), "dst": Tensor("GM", 0, "float16", 560)}
    assert found(nz(ndNum=0, **roomy)) == [("data_copy_nz2nd.ndNum.zero", "undefined")]
    assert found(nz(ndNum=0, **roomy), {"data_copy_nz2nd.ndNum.zero": "nop"}) == []
    assert found(nz(ndNum=0, **roomy), {"data_copy_nz2nd.ndNum.zero": "reject"}) == [("data_copy_nz2nd.ndNum.zero", "reject")]
    assert found(nz(ndNum=1, **roomy)) == []
    assert found(nz(ndNum=1)) == []
    assert found(nz(ndNum=-1, **roomy)) == nd("ndNum.range")


def test_nd_num_range_high_end():
    """"ndNum∈[0, 4095]": matrices are at least srcNdMatrixStride 1 = 256 elements apart in src, so 4095 of
    them span 4094 * 512 + 32 bytes of 16-bit data, past any UB -- the top of the range is reached only
    together with the capacity rule: 4095 breaks capacity alone, 4096 the range too. 384 one-row matrices
    fit a 192 KB UB (383 * 512 + 32 bytes), 385 do not."""
    flat = dict(nValue=1, dValue=16, srcNdMatrixStride=1, srcNStride=1, dstDStride=16, dstNdMatrixStride=16)
    assert found(nz(ndNum=384, **flat)) == []
    assert found(nz(ndNum=385, **flat)) == nd("src.capacity")
    assert found(nz(ndNum=4095, **flat)) == nd("src.capacity")
    assert found(nz(ndNum=4096, **flat)) == nd("ndNum.range", "src.capacity")
    # a src tensor that does not claim the whole footprint: bounds instead of capacity
    small = Tensor("UB", 0, "float16", 384)
    assert found(nz(ndNum=4095, src=small, **flat)) == nd("src.bounds")
    assert found(nz(ndNum=4096, src=small, **flat)) == nd("ndNum.range", "src.bounds")


def test_n_value_range_low_end():
    """"nValue∈[1, 8192]": 0 and -1 are refused (and touch nothing)."""
    roomy = {"src": Tensor("UB", 0, "float16", 384), "dst": Tensor("GM", 0, "float16", 560)}
    assert found(nz(nValue=1)) == []
    assert found(nz(nValue=0, **roomy)) == nd("nValue.range")
    assert found(nz(nValue=-1, **roomy)) == nd("nValue.range")


def test_n_value_range_high_end():
    """"nValue∈[1, 8192]": one column block of 8192 fractal rows of 16 halves is 256 KB, exactly the AI
    Core's UB: legal there; 8193 rows no longer fit any UB, so the range and capacity rules speak together."""
    one_block = dict(ndNum=1, dValue=16, dstDStride=16, srcNStride=0)
    assert found(nz("ascend310p-aicore", nValue=8192, **one_block)) == []
    assert found(nz("ascend310p-aicore", nValue=8193, **one_block)) == nd("nValue.range", "src.capacity")
    assert found(nz("ascend910b", nValue=8192, **one_block)) == nd("src.capacity")       # 192 KB UB


def test_d_value_range():
    """"dValue∈[1, 8192]。dValue必须为16的倍数。": 16 and 8192 legal; 0 and -16 (multiples of 16) break
    the range alone; 8208 (a multiple past 8192) the range alone; 8193 both rules."""
    wide = dict(ndNum=1, nValue=1, srcNStride=1, dstDStride=1)      # column blocks back to back, one ND row
    assert found(nz(dValue=16, **wide)) == []
    assert found(nz(dValue=8192, **wide)) == []
    assert found(nz(dValue=8192, **{**wide, "srcNStride": 0})) == []   # every block read from one place
    assert found(nz(dValue=8208, **wide)) == nd("dValue.range")
    assert found(nz(dValue=8193, **wide)) == nd("dValue.range", "dValue.multiple")
    roomy = {"src": Tensor("UB", 0, "float16", 384), "dst": Tensor("GM", 0, "float16", 560)}
    assert found(nz(dValue=0, **roomy)) == nd("dValue.range")
    assert found(nz(dValue=-16, **roomy)) == nd("dValue.range")


@pytest.mark.parametrize("d_value", [1, 8, 15, 17, 24, 31, 33, 8191])
def test_d_value_multiple(d_value):
    """"dValue必须为16的倍数。": inside the range, tensors large enough, only this rule speaks."""
    assert found(nz(dValue=d_value, ndNum=1, nValue=1, dstDStride=1)) == nd("dValue.multiple")


def test_src_nd_matrix_stride_range():
    """"srcNdMatrixStride∈[1, 512],单位256 (16 * 16) 个元素": with one matrix the stride moves nothing;
    with two, 0 reads both from one place (refused for the range alone), 256 (65536 halves apart) fits a
    192 KB UB."""
    one = dict(ndNum=1)
    assert found(nz(srcNdMatrixStride=1, **one)) == []
    assert found(nz(srcNdMatrixStride=512, **one)) == []
    assert found(nz(srcNdMatrixStride=513, **one)) == nd("srcNdMatrixStride.range")
    assert found(nz(srcNdMatrixStride=0, **one)) == nd("srcNdMatrixStride.range")
    assert found(nz(srcNdMatrixStride=-1, **one)) == nd("srcNdMatrixStride.range")
    assert found(nz(srcNdMatrixStride=0)) == nd("srcNdMatrixStride.range")
    assert found(nz(srcNdMatrixStride=256)) == []
    assert src_extent({**FIGURE, "srcNdMatrixStride": 256}) == 65536 + 128


def test_src_n_stride_range():
    """"srcNStride∈[0, 4096],单位16个元素": two column blocks 4096 * 16 halves apart (128 KB) are legal,
    4097 refused for the range alone (src large enough for both); 0 reads both blocks from one place."""
    p = dict(ndNum=1, nValue=2, dValue=32)
    src = Tensor("UB", 0, "float16", 4097 * 16 + 32)
    assert found(nz(srcNStride=4095, src=src, **p)) == []
    # 4096: in the page's range, past the vendor implementation's 12-bit field: the ambiguity
    assert found(nz(srcNStride=4096, src=src, **p)) == nd("srcNStride.max", severity="undefined")
    assert found(nz(srcNStride=4097, src=src, **p)) == nd("srcNStride.range")
    assert found(nz(srcNStride=0, **p)) == []
    assert found(nz(srcNStride=1, **p)) == []                      # blocks overlapping in src: only reads
    # with one column block the stride moves nothing: -1 breaks the range alone
    assert found(nz(srcNStride=-1, ndNum=1, nValue=2, dValue=16)) == nd("srcNStride.range")
    assert found(nz(srcNStride=4097, ndNum=1, nValue=2, dValue=16)) == nd("srcNStride.range")


def test_dst_d_stride_range():
    """"dstDStride∈[1, 65535],单位为元素": rows 65535 elements apart are legal, 65536 refused for the range
    alone; with one row 0 breaks the range alone, with two rows it also makes them overlap."""
    p = dict(ndNum=1, nValue=2, dValue=16)
    dst = Tensor("GM", 0, "float16", 65536 + 16)
    assert found(nz(dstDStride=65535, dst=dst, **p)) == []
    assert found(nz(dstDStride=65536, dst=dst, **p)) == nd("dstDStride.range")
    assert found(nz(dstDStride=1, ndNum=1, nValue=1, dValue=16)) == []
    assert found(nz(dstDStride=0, ndNum=1, nValue=1, dValue=16)) == nd("dstDStride.range")
    assert found(nz(dstDStride=-1, ndNum=1, nValue=1, dValue=16)) == nd("dstDStride.range")
    assert found(nz(dstDStride=0, **p)) == sorted(nd("dstDStride.range") + OVERLAP)


def test_dst_nd_matrix_stride_range():
    """"dstNdMatrixStride∈[1, 65535],单位为元素": two one-row matrices 65535 elements apart are legal, 65536
    refused for the range alone; with one matrix 0 breaks the range alone, with two it also overlaps them."""
    p = dict(ndNum=2, nValue=1, dValue=16)
    dst = Tensor("GM", 0, "float16", 65536 + 16)
    assert found(nz(dstNdMatrixStride=65535, dst=dst, **p)) == []
    assert found(nz(dstNdMatrixStride=65536, dst=dst, **p)) == nd("dstNdMatrixStride.range")
    assert found(nz(dstNdMatrixStride=1, ndNum=1)) == []
    assert found(nz(dstNdMatrixStride=0, ndNum=1)) == nd("dstNdMatrixStride.range")
    assert found(nz(dstNdMatrixStride=-1, ndNum=1)) == nd("dstNdMatrixStride.range")
    assert found(nz(dstNdMatrixStride=0, **p)) == sorted(nd("dstNdMatrixStride.range") + OVERLAP)


@pytest.mark.parametrize("field", FIELDS)
def test_every_range_is_checked_without_a_footprint(field):
    """Each field pushed alone from the figure's value to the top of its range and one past it: the range
    rule speaks past the top and not at it (what else speaks -- capacity, overlap -- is the other tests')."""
    top = {"ndNum": 4095, "nValue": 8192, "dValue": 8192, "srcNdMatrixStride": 512, "srcNStride": 4096,
           "dstDStride": 65535, "dstNdMatrixStride": 65535}[field]
    assert f"{API}.{field}.range" in [r for r, _ in found(nz(**{field: top + 1}))]
    assert f"{API}.{field}.range" not in [r for r, _ in found(nz(**{field: top}))]


# ---------------------------------------------------------------------------------------------
# alignment

@pytest.mark.parametrize("shift", [2, 4, 16, 30])
@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_src_alignment(shift, dtype):
    """UB operand addresses are 32-byte aligned (the general constraint the spec cites)."""
    n = src_extent(FIGURE)
    assert found(nz(dtype=dtype, src=Tensor("UB", 32 + shift, dtype, n))) == nd("src.align")
    assert found(nz(dtype=dtype, src=Tensor("UB", 32, dtype, n))) == []
    assert found(nz(dtype=dtype, src=Tensor("UB", 4096, dtype, n))) == []


@pytest.mark.parametrize("addr", [1, 2, 6, 30])
def test_dst_in_gm_has_no_alignment(addr):
    """GM addresses carry no alignment constraint (the kit's general constraint: UB and L1 operand addresses 32-byte aligned,
    GM none), and the page states none for dst."""
    assert found(nz(dst=Tensor("GM", addr, "float16", dst_extent(FIGURE)))) == []


# ---------------------------------------------------------------------------------------------
# bounds

CASES = {
    "figure_half": ("float16", FIGURE),
    "figure_float": ("float32", dict(FIGURE, dstDStride=144, dstNdMatrixStride=40)),
    "code_example": ("float16", dict(zip(FIELDS, (1, 32, 32, 1, 32, 32, 1)))),
    "one_row": ("int32", dict(ndNum=3, nValue=1, dValue=48, srcNdMatrixStride=2, srcNStride=1, dstDStride=1,
                              dstNdMatrixStride=64)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_src_bounds(case):
    """Every fractal row read lies inside src: the exact footprint is legal, one element less is not. For
    float the fractal is still 16 elements wide (the page's float figure: "A1到B1的距离,为64个元素" with
    srcNStride 4), so 图2's src ends at element 384 as 图1's does."""
    dtype, p = CASES[case]
    n = src_extent(p)
    assert found(nz(dtype=dtype, base=p, src=Tensor("UB", 0, dtype, n))) == []
    assert found(nz(dtype=dtype, base=p, src=Tensor("UB", 0, dtype, n - 1))) == nd("src.bounds")
    assert found(nz(dtype=dtype, base=p, src=Tensor("UB", 0, dtype, 0))) == nd("src.bounds")


@pytest.mark.parametrize("case", sorted(CASES))
def test_dst_bounds(case):
    """Every ND row written lies inside dst: the exact footprint is legal, one element less is not."""
    dtype, p = CASES[case]
    n = dst_extent(p)
    assert found(nz(dtype=dtype, base=p, dst=Tensor("GM", 0, dtype, n))) == []
    assert found(nz(dtype=dtype, base=p, dst=Tensor("GM", 0, dtype, n - 1))) == nd("dst.bounds")


def test_src_bounds_count_whole_fractal_rows_of_the_last_block():
    """The last column block's rows start srcNStride * 16 elements after the first's: a src holding block 0
    and all but the last element of block 1 is too small, whatever the dst."""
    p = dict(ndNum=1, nValue=4, dValue=32, srcNStride=10)
    assert src_extent({**FIGURE, **p}) == 160 + 64
    assert found(nz(src=Tensor("UB", 0, "float16", 223), **p)) == nd("src.bounds")
    assert found(nz(src=Tensor("UB", 0, "float16", 224), **p)) == []


def test_nothing_moved_needs_no_room():
    """ndNum = 0: no element is read or written, so even empty tensors are in bounds."""
    empty = nz(ndNum=0, src=Tensor("UB", 0, "float16", 0), dst=Tensor("GM", 0, "float16", 0))
    assert found(empty, {"data_copy_nz2nd.ndNum.zero": "nop"}) == []


# ---------------------------------------------------------------------------------------------
# capacity

@pytest.mark.parametrize("product", NZ2ND_PRODUCTS)
@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_src_capacity(product, dtype):
    """A LocalTensor lies inside the product's UB: src ending at the UB's last byte is fine, one block (32
    bytes) more is not; bounds stay satisfied (the tensor only grows)."""
    top, width = UB_BYTES[product], ITEMSIZE[dtype]
    n = src_extent(FIGURE)
    fits = Tensor("UB", top - n * width, dtype, n)
    assert found(nz(product, dtype, src=fits)) == []
    past = Tensor("UB", top - n * width, dtype, n + 32 // width)
    assert found(nz(product, dtype, src=past)) == nd("src.capacity")
    beyond = Tensor("UB", top, dtype, n)
    assert found(nz(product, dtype, src=beyond)) == nd("src.capacity")


def test_dst_in_gm_has_no_capacity():
    """GM has no size in the kit: a dst far out is not a capacity problem."""
    assert found(nz(dst=Tensor("GM", 2**40, "float16", dst_extent(FIGURE)))) == []


# ---------------------------------------------------------------------------------------------
# destination rows that overlap: undefined

@pytest.mark.parametrize("change", [dict(dstDStride=31), dict(dstDStride=16), dict(dstDStride=1),
                                    dict(ndNum=1, dstDStride=31), dict(ndNum=1, nValue=2, dstDStride=16)])
def test_rows_of_one_matrix_overlap(change):
    """dstDStride ("目的ND矩阵的相邻行的偏移(头与头)") below dValue with nValue > 1: rows share elements."""
    assert found(nz(**change)) == OVERLAP


@pytest.mark.parametrize("change", [dict(dstNdMatrixStride=16), dict(dstNdMatrixStride=31),
                                    dict(dstNdMatrixStride=160), dict(dstNdMatrixStride=176),
                                    dict(dstNdMatrixStride=128 + 1), dict(nValue=1, dstNdMatrixStride=16),
                                    dict(ndNum=3, dstNdMatrixStride=80), dict(dstDStride=32, dstNdMatrixStride=48)])
def test_matrices_whose_rows_meet(change):
    """dstNdMatrixStride ("来自源相邻NZ矩阵的偏移(头与头)"): matrix 2's rows land on matrix 1's -- at the same
    row (16, 31), on a later row (160: matrix 2's row 0 is matrix 1's row 1; 176, 129: partly), or only
    between matrices two apart (ndNum 3, 80: matrix 3 starts at 160, on matrix 1's row 1); with rows back
    to back (dstDStride 32) matrix 1 fills [0, 128) and matrix 2 at 48 lands inside it."""
    assert found(nz(**change)) == OVERLAP


@pytest.mark.parametrize("change", [dict(nValue=1, dstDStride=16), dict(nValue=1, dstDStride=1),
                                    dict(ndNum=1, nValue=1, dstDStride=1), dict(dstDStride=32, dstNdMatrixStride=128),
                                    dict(dstNdMatrixStride=32), dict(dstNdMatrixStride=128),
                                    dict(dstNdMatrixStride=192), dict(ndNum=3, dstNdMatrixStride=48),
                                    dict(ndNum=3, dstNdMatrixStride=96), dict(ndNum=1, dstNdMatrixStride=1)])
def test_rows_that_do_not_overlap(change):
    """No overlap: with nValue = 1 there is no adjacent row, so dstDStride < dValue is harmless; rows that
    just touch (dstDStride = dValue = 32, the code example's layout, two 4-row matrices 128 apart) or matrices interleaved in the gaps
    (ndNum 3, 48 / 96 with rows 160 apart), or a matrix whose rows end where the previous matrix's next row
    starts (128: [128, 160) then [160, 192)) or start where its rows end (32, 192)."""
    assert found(nz(**change)) == []


def test_overlap_is_undefined_not_refused():
    """An overlapping call is in undefined territory: expected() gives one outcome and marks every byte the
    call writes as not defined, and nothing else."""
    call = nz(dstDStride=16)
    assert verdict_class(check(call)) == "undefined"
    gm = np.random.default_rng(5).integers(0, 256, 4096, dtype=np.uint8)
    ub = np.random.default_rng(6).integers(0, 256, UB_BYTES["ascend910b"], dtype=np.uint8)
    out = expected(call, {"UB": ub, "GM": gm})
    assert [(v.rule, v.severity) for v in out.violations] == OVERLAP
    n = dst_extent({**FIGURE, "dstDStride": 16})          # 48 + 3 * 16 + 32 = 128 elements
    assert n == 128
    assert not out.defined["GM"][:2 * n].all()
    assert out.defined["GM"][2 * n:].all()
    assert np.array_equal(out.memory["GM"][2 * n:], gm[2 * n:])


@pytest.mark.parametrize("stride", [15, 8, 1])
def test_a_row_gap_under_16_leaves_every_byte_from_dst_open(stride):
    """dstDStride under 16 with several rows: the vendor's implementation moves a row's gap as
    (dstDStride - 16) elements and wraps the negative value, so rows land far past dst. Every byte of GM
    from dst on is open (the rule's `opens`), not only the rows the page's layout places; the bytes before
    dst stay defined and unchanged."""
    at = 96
    ip = {**FIGURE, "dstDStride": stride}
    call = nz(dst=Tensor("GM", at, "float16", dst_extent(ip)), dstDStride=stride)
    gm = np.random.default_rng(7).integers(0, 256, 8192, dtype=np.uint8)
    ub = np.random.default_rng(8).integers(0, 256, UB_BYTES["ascend910b"], dtype=np.uint8)
    out = expected(call, {"UB": ub, "GM": gm})
    assert [(v.rule, v.severity) for v in out.violations] == OVERLAP
    assert not out.defined["GM"][at:].any() and out.written["GM"][at:].all()
    assert out.defined["GM"][:at].all() and np.array_equal(out.memory["GM"][:at], gm[:at])
    wide = expected(nz(dstDStride=16), {"UB": ub, "GM": gm})        # 16: rows overlap, the gap is 0
    assert wide.defined["GM"][2 * dst_extent({**FIGURE, "dstDStride": 16}):].all()


# ---------------------------------------------------------------------------------------------
# malformed calls and reproducers

@pytest.mark.parametrize("field", FIELDS)
def test_missing_field(field):
    """intriParams is a Nz2NdParamsFull: all seven fields."""
    ip = {k: v for k, v in FIGURE.items() if k != field}
    with pytest.raises(CallFormatError, match=f"missing field '{field}'"):
        check(nz().replace(intriParams=ip))


@pytest.mark.parametrize("extra", ["srcDStride", "ndnum", "mask", "dstNStride"])
def test_unknown_field(extra):
    with pytest.raises(CallFormatError, match=f"unknown field '{extra}'"):
        check(nz().replace(intriParams={**FIGURE, extra: 1}))


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("value", [1.0, "4", True, None, [4]])
def test_non_int_field(field, value):
    """Every field of Nz2NdParamsFull is an integer; a float, string, bool, null or list is malformed."""
    with pytest.raises(CallFormatError, match=f"intriParams.{field}"):
        check(nz().replace(intriParams={**FIGURE, field: value}))


@pytest.mark.parametrize("value", [[2, 4, 32, 1, 4, 160, 48], 7, None, "Nz2NdParamsFull{2, 4, 32, 1, 4, 160, 48}"])
def test_intri_params_is_a_mapping(value):
    """The struct is given by field name, not as an initializer list."""
    with pytest.raises(CallFormatError, match="intriParams"):
        check(nz().replace(intriParams=value))


def test_call_shape():
    """One form; arguments dst, src, intriParams, no more, no fewer."""
    with pytest.raises(CallFormatError, match="missing argument 'intriParams'"):
        check(Call(API, "ascend910b", {k: v for k, v in nz().args.items() if k != "intriParams"}))
    with pytest.raises(CallFormatError, match="has no argument 'count'"):
        check(nz().replace(count=1024))
    with pytest.raises(CallFormatError, match="single form"):
        check(Call(API, "ascend910b", nz().args, "count"))
    with pytest.raises(CallFormatError, match="src"):
        check(nz().replace(src=dict(FIGURE)))


@pytest.mark.parametrize("call", [nz(), nz("ascend310p-aicore", "float32", dstDStride=16),
                                  nz(ndNum=4096, nValue=8193, dValue=8193, srcNdMatrixStride=513, srcNStride=4097,
                                     dstDStride=65536, dstNdMatrixStride=65536,
                                     src=Tensor("UB", 2, "float16", 1), dst=Tensor("GM", 1, "float16", 1)),
                                  nz("ascend310", "bfloat16", ndNum=0)],
                         ids=["figure", "overlap", "everything_wrong", "refused_product"])
def test_round_trip(call):
    """A reproducer keeps the seven fields exactly, through YAML and JSON, and checks the same."""
    back = Call.from_yaml(call.to_yaml())
    assert back == call
    assert back.args["intriParams"] == call.args["intriParams"]
    assert list(back.args["intriParams"]) == list(call.args["intriParams"])
    assert Call.from_json(call.to_json()) == call
    assert found(back) == found(call)


def test_hand_written_reproducer():
    """A reproducer as a person writes it, with the page's figure parameters."""
    text = """
api: data_copy_nz2nd
product: ascend910b
form: null
args:
  dst: {scope: GM, addr: 0, dtype: float16, numel: 560}
  src: {scope: UB, addr: 0, dtype: float16, numel: 384}
  intriParams: {ndNum: 2, nValue: 4, dValue: 32, srcNdMatrixStride: 1, srcNStride: 4, dstDStride: 160,
                dstNdMatrixStride: 48}
"""
    call = Call.from_yaml(text)
    assert call == nz()
    assert found(call) == []
    typo = text.replace("srcNStride: 4", "srcNstride: 4")
    with pytest.raises(CallFormatError, match="srcNstride"):
        check(Call.from_yaml(typo))


def test_everything_wrong_at_once():
    """Every reject rule of the spec that a single call can break, together (and the overlap)."""
    call = nz("ascend310p-aicore", "bfloat16", src_dtype="float16", ndNum=4096, nValue=8193, dValue=8193,
              srcNdMatrixStride=513, srcNStride=4097, dstDStride=65536, dstNdMatrixStride=0,
              src=Tensor("GM", 2, "float16", 1), dst=Tensor("UB", 1, "bfloat16", 1))
    # src in GM: no UB alignment, no UB capacity; the path is wrong
    assert found(call) == sorted(nd("path.supported", "dtype.supported_310p", "dtype.same", "ndNum.range",
                                    "nValue.range", "dValue.range", "dValue.multiple", "srcNdMatrixStride.range",
                                    "srcNStride.range", "dstDStride.range", "dstNdMatrixStride.range",
                                    "src.bounds", "dst.bounds") + OVERLAP)
