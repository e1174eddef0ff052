"""The legality checker on Scatter (002_94c60850db7e14df.txt) and asc_gather (003_5f0a5de14d724856.txt):
one group per rule and ambiguity of specs/scatter.yaml and specs/asc_gather.yaml. Each starts from a
legal call (no violation, with or without memory) and changes exactly what the rule is about; the result
must be exactly that rule, with its severity.

The offset rules read the uint32 byte offsets in memory: `check(call)` cannot see them and leaves them out,
`check(call, {"UB": ub})` evaluates them. Every memory-rule test checks both."""
from __future__ import annotations

import numpy as np
import pytest

from oracle import (
    Call,
    CallFormatError,
    IllegalCall,
    Tensor,
    verdict_class,
)
from oracle.spec import default_rulebook
from oracle import check as oracle_check
from readings import check, expected     # under the readings the default index math models

ALL_PRODUCTS = ["ascend310", "ascend910", "ascend310p-aicore", "ascend310p-vectorcore", "ascend310b",
                "ascend910b", "ascend910_93"]
SCATTER_PRODUCTS = ["ascend310p-aicore", "ascend310b"]       # 支持的型号: 推理系列AI Core, 200I/500 A2
GATHER_PRODUCTS = ["ascend910b", "ascend910_93"]             # 产品支持情况: A2, A3
UB_BYTES = {"ascend310": 262144, "ascend910": 262144, "ascend310p-aicore": 262144, "ascend310p-vectorcore": 262144,
            "ascend310b": 253952, "ascend910b": 196608, "ascend910_93": 196608}
ITEMSIZE = {"uint8": 1, "int8": 1, "uint16": 2, "int16": 2, "float16": 2, "bfloat16": 2, "uint32": 4, "int32": 4,
            "float32": 4, "uint64": 8, "int64": 8}
ALL_DTYPES = sorted(ITEMSIZE)
# "Atlas 推理系列产品AI Core ,支持的数据类型为:uint16_t/uint32_t/float/half"
SCATTER_310P = {"uint16", "uint32", "float32", "float16"}
# "Atlas 200I/500 A2 推理产品 ,支持的数据类型为:uint8_t/int8_t/uint16_t/int16_t/half/uint32_t/int32_t/float"
SCATTER_310B = {"uint8", "int8", "uint16", "int16", "float16", "uint32", "int32", "float32"}
# the seven prototypes of asc_gather: int16_t / uint16_t / half / bfloat16_t / int32_t / uint32_t / float
GATHER_DTYPES = {"int16", "uint16", "float16", "bfloat16", "int32", "uint32", "float32"}
ALL_ONES = 2**64 - 1
BLOCK, REPEAT = 32, 256

# Scatter layout: dst low so that an offset can reach src and the offsets tensor above it.
S_DST, S_SRC, S_OFFS = 0, 32768, 49152
# asc_gather layout: src low so that an offset can reach dst above it.
G_SRC, G_DST, G_OFFS = 0, 16384, 32768


def per_repeat(dtype: str) -> int:
    """Elements of one repeat: 8 datablocks ("每次迭代完成8个datablock的数据收集")."""
    return REPEAT // ITEMSIZE[dtype]


def full_mask(dtype: str) -> list[int]:
    """Every element of a repeat: both words for 8/16-bit, word 0 only for 32-bit (mask[1]为0)."""
    return [ALL_ONES, ALL_ONES] if ITEMSIZE[dtype] <= 2 else [ALL_ONES, 0]


def scatter(product: str = "ascend310b", dtype: str = "float16", form: str = "count", *, src_dtype: str | None = None,
            dst: Tensor | None = None, src: Tensor | None = None, offs: Tensor | None = None, base: int = 0,
            count: int = 128, mask=None, repeat: int = 2, stride: int = 8) -> Call:
    """A legal Scatter: 128 elements (count form) or 2 repeats of every element, src repeats side by side
    (srcRepStride 8 blocks = one repeat); the tensors hold exactly what that base call reads (128 elements,
    or 2 repeats), whatever count / repeatTimes a test then sets."""
    n = 128 if form == "count" else 2 * per_repeat(dtype)
    if mask is None and form != "count":
        mask = full_mask(dtype) if form == "mask_bits" else per_repeat(dtype) if ITEMSIZE[dtype] > 1 else 128
    args = {"dstLocal": dst or Tensor("UB", S_DST, dtype, n),
            "srcLocal": src or Tensor("UB", S_SRC, src_dtype or dtype, n),
            "dstOffsetLocal": offs or Tensor("UB", S_OFFS, "uint32", n),
            "dstBaseAddr": base}
    if form == "count":
        args["count"] = count
    else:
        args.update(mask=mask, repeatTimes=repeat, srcRepStride=stride)
    return Call("scatter", product, args, form)


def gather(product: str = "ascend910b", dtype: str = "float16", form: str = "count", *, src_dtype: str | None = None,
           dst: Tensor | None = None, src: Tensor | None = None, offs: Tensor | None = None, count: int = 128,
           repeat: int = 2, stride: int = 8) -> Call:
    """A legal asc_gather: 128 elements (count / count_sync) or 2 repeats, dst repeats side by side; the
    tensors hold what that base call uses, whatever count / repeat a test then sets."""
    n = 128 if form != "repeat" else 2 * per_repeat(dtype)
    args = {"dst": dst or Tensor("UB", G_DST, dtype, n),
            "src": src or Tensor("UB", G_SRC, src_dtype or dtype, n),
            "src_offset": offs or Tensor("UB", G_OFFS, "uint32", n)}
    if form == "repeat":
        args.update(dst_repeat_stride=stride, repeat=repeat)
    else:
        args["count"] = count
    return Call("asc_gather", product, args, form)


def memory(call: Call, changes: dict[int, int] | None = None) -> dict[str, np.ndarray]:
    """The product's UB with the offsets tensor holding entry i = i * element width (each element to its own
    slot, in order), then `changes` (entry -> byte offset) applied; every other byte 0."""
    ub = np.zeros(UB_BYTES[call.product], dtype=np.uint8)
    name, of = ("dstOffsetLocal", "dstLocal") if call.api == "scatter" else ("src_offset", "dst")
    t = call.tensor(name)
    values = np.arange(t.numel, dtype=np.int64) * ITEMSIZE[call.tensor(of).dtype]
    for i, v in (changes or {}).items():
        values[i] = v
    raw = values.astype("<u4").view(np.uint8)
    ub[t.addr:t.addr + raw.size] = raw[:max(0, min(raw.size, ub.size - t.addr))]
    return {"UB": ub}


def found(call: Call, mem: dict[str, np.ndarray] | None = None) -> list[tuple[str, str]]:
    """(rule, severity) of every violation, sorted; every violation carries a message."""
    violations = check(call, mem)
    for v in violations:
        assert v.message, v
    return sorted((v.rule, v.severity) for v in violations)


def both(call: Call, changes: dict[int, int] | None = None) -> list[tuple[str, str]]:
    """The violations without memory, which must be those with the (identity, unchanged) memory too."""
    static = found(call)
    assert found(call, memory(call, changes)) == static
    return static


def sc(*rules: str, severity: str = "reject") -> list[tuple[str, str]]:
    return sorted((f"scatter.{r}", severity) for r in rules)


def ga(*rules: str, severity: str = "reject") -> list[tuple[str, str]]:
    return sorted((f"asc_gather.{r}", severity) for r in rules)


def test_every_rule_and_ambiguity_has_a_test_here():
    """Keeps this file in step with the two specs: these are the ids the tests below cover."""
    book = default_rulebook()
    scatter_ids = {"scatter.product.supported", "scatter.dtype.supported_310p", "scatter.dtype.supported_310b",
                   "scatter.dtype.same", "scatter.count.range", "scatter.dstBaseAddr.range",
                   "scatter.repeatTimes.range", "scatter.srcRepStride.range", "scatter.mask.continuous_8_16bit",
                   "scatter.mask.continuous_32bit", "scatter.mask.continuous_64bit", "scatter.mask.bits_8_16bit",
                   "scatter.mask.bits_32bit", "scatter.mask.bits_64bit", "scatter.dstLocal.align",
                   "scatter.srcLocal.align", "scatter.dstOffsetLocal.align", "scatter.srcLocal.bounds",
                   "scatter.dstOffsetLocal.bounds", "scatter.dstLocal.capacity", "scatter.srcLocal.capacity",
                   "scatter.dstOffsetLocal.capacity", "scatter.offset.range_8bit_310b",
                   "scatter.offset.range_16bit_310b", "scatter.dstLocal.reach", "scatter.overlap.src",
                   "scatter.overlap.offsets", "scatter.count.zero", "scatter.repeat.8bit",
                   "scatter.offset.unaligned", "scatter.offset.repeat_advance", "scatter.dstOffsetLocal.dtype", "scatter.dstLocal.scope",
                   "scatter.offset.duplicate", "scatter.repeatTimes.zero",
                   "scatter.srcLocal.scope", "scatter.dstOffsetLocal.scope"}
    gather_ids = {"asc_gather.product.supported", "asc_gather.dtype.supported", "asc_gather.dtype.same",
                  "asc_gather.dst.scope", "asc_gather.src.scope", "asc_gather.src_offset.scope",
                  "asc_gather.count.range", "asc_gather.repeat.range", "asc_gather.dst_repeat_stride.range",
                  "asc_gather.dst.align", "asc_gather.src.align", "asc_gather.src_offset.align",
                  "asc_gather.dst.bounds", "asc_gather.src_offset.bounds", "asc_gather.dst.capacity",
                  "asc_gather.src.capacity", "asc_gather.src_offset.capacity", "asc_gather.offset.align",
                  "asc_gather.src.reach", "asc_gather.overlap.src", "asc_gather.overlap.offsets",
                  "asc_gather.count.zero", "asc_gather.src_offset.dtype", "asc_gather.repeat.zero",
                  "asc_gather.repeat.layout", "asc_gather.offset.repeat_advance", "asc_gather.dst.repeat_overlap",
                  "asc_gather.dst_repeat_stride.max"}
    for api, ids in (("scatter", scatter_ids), ("asc_gather", gather_ids)):
        spec = book.api(api)
        assert {r.id for r in spec.rules} | {a.id for a in spec.ambiguities} == ids


# ---------------------------------------------------------------------------------------------
# the base calls

@pytest.mark.parametrize("product", SCATTER_PRODUCTS)
@pytest.mark.parametrize("form", ["count", "mask_bits", "mask_continuous"])
@pytest.mark.parametrize("dtype", ["float16", "uint16", "uint32", "float32"])
def test_scatter_base_calls_are_legal(product, form, dtype):
    call = scatter(product, dtype, form)
    assert both(call) == []
    assert verdict_class(check(call, memory(call))) == "legal"


@pytest.mark.parametrize("product", GATHER_PRODUCTS)
@pytest.mark.parametrize("form", ["count", "count_sync", "repeat"])
@pytest.mark.parametrize("dtype", sorted(GATHER_DTYPES))
def test_gather_base_calls_are_legal(product, form, dtype):
    call = gather(product, dtype, form)
    assert both(call) == []


# ---------------------------------------------------------------------------------------------
# products

@pytest.mark.parametrize("product", ALL_PRODUCTS)
@pytest.mark.parametrize("form", ["count", "mask_bits", "mask_continuous"])
def test_scatter_products(product, form):
    """"支持的型号 Atlas 推理系列产品AI Core / Atlas 200I/500 A2 推理产品": refused everywhere else (float16 is
    in both products' lists, so nothing but the product rule speaks)."""
    call = scatter(product, "float16", form)
    assert both(call) == ([] if product in SCATTER_PRODUCTS else sc("product.supported"))
    if product not in SCATTER_PRODUCTS:
        with pytest.raises(IllegalCall):
            expected(call, memory(call))


@pytest.mark.parametrize("product", ALL_PRODUCTS)
@pytest.mark.parametrize("form", ["count", "count_sync", "repeat"])
def test_gather_products(product, form):
    """"产品支持情况: Atlas A3 ... √; Atlas A2 ... √": no other product is listed."""
    call = gather(product, "float16", form)
    assert both(call) == ([] if product in GATHER_PRODUCTS else ga("product.supported"))


# ---------------------------------------------------------------------------------------------
# dtypes

@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_scatter_dtypes_310p(dtype):
    """"Atlas 推理系列产品AI Core ,支持的数据类型为:uint16_t/uint32_t/float/half" -- no 8-bit, no int16/int32."""
    call = scatter("ascend310p-aicore", dtype)
    assert both(call) == ([] if dtype in SCATTER_310P else sc("dtype.supported_310p"))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_scatter_dtypes_310b(dtype):
    """"Atlas 200I/500 A2 推理产品 ,支持的数据类型为:uint8_t/int8_t/uint16_t/int16_t/half/uint32_t/int32_t/float"
    -- no bfloat16, no 64-bit."""
    call = scatter("ascend310b", dtype)
    assert both(call) == ([] if dtype in SCATTER_310B else sc("dtype.supported_310b"))


@pytest.mark.parametrize("product", GATHER_PRODUCTS)
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_gather_dtypes(product, dtype):
    """The prototypes: int16_t / uint16_t / half / bfloat16_t / int32_t / uint32_t / float, on A2 and A3 alike."""
    for form in ("count", "repeat"):
        call = gather(product, dtype, form)
        assert both(call) == ([] if dtype in GATHER_DTYPES else ga("dtype.supported")), form


@pytest.mark.parametrize("product, dst, src", [("ascend310b", "float16", "int16"), ("ascend310b", "uint8", "int8"),
                                               ("ascend310b", "int32", "float32"),
                                               ("ascend310p-aicore", "float16", "uint16"),
                                               ("ascend310p-aicore", "uint32", "float32")])
def test_scatter_same_dtype(product, dst, src):
    """"srcLocal: 源操作数 ... 数据类型和dstLocal保持一致": both allowed, same width, different types."""
    assert both(scatter(product, dst)) == []
    assert both(scatter(product, dst, src_dtype=src)) == sc("dtype.same")


@pytest.mark.parametrize("dst, src", [("float16", "bfloat16"), ("int16", "uint16"), ("float32", "int32")])
def test_gather_same_dtype(dst, src):
    """Every prototype has one element type for dst and src."""
    assert both(gather(dtype=dst)) == []
    assert both(gather(dtype=dst, src_dtype=src)) == ga("dtype.same")


# ---------------------------------------------------------------------------------------------
# scopes (asc_gather: every pointer is __ubuf__)

@pytest.mark.parametrize("scope", ["GM", "L1"])
@pytest.mark.parametrize("operand, addr, dtype", [("dst", G_DST, "float16"), ("src", G_SRC, "float16"),
                                                  ("src_offset", G_OFFS, "uint32")])
def test_gather_operands_live_in_ub(scope, operand, addr, dtype):
    """"__ubuf__ half* dst", "__ubuf__ half* src", "__ubuf__ uint32_t* src_offset"."""
    call = gather(**{"offs" if operand == "src_offset" else operand: Tensor(scope, addr, dtype, 128)})
    assert found(call) == ga(f"{operand}.scope")


# ---------------------------------------------------------------------------------------------
# ranges

def test_scatter_count_range():
    """"const uint32_t count": [0, 2^32-1]; -1 moves nothing, so only the range rule speaks."""
    assert found(scatter(count=-1)) == sc("count.range")
    # 2^32 elements cannot be inside a 128-element src / offsets tensor either
    assert found(scatter(count=2**32)) == sc("count.range", "srcLocal.bounds", "dstOffsetLocal.bounds")
    big = scatter(count=129)
    assert found(big) == sc("srcLocal.bounds", "dstOffsetLocal.bounds")      # inside the range: bounds only


@pytest.mark.parametrize("base, ok", [(0, True), (2**32 - 1, True), (-1, False), (2**32, False)])
def test_scatter_dst_base_addr_range(base, ok):
    """"const uint32_t dstBaseAddr": [0, 2^32-1]. Without memory dstLocal's elements are not known, so the
    range is all a static check can say."""
    assert found(scatter(base=base)) == ([] if ok else sc("dstBaseAddr.range"))


@pytest.mark.parametrize("form", ["mask_bits", "mask_continuous"])
def test_scatter_repeat_times_range(form):
    """"repeatTimes∈[0,255]"; tensors large enough for 255 repeats of the whole mask, srcRepStride 0."""
    roomy = {"src": Tensor("UB", 0, "float16", 128), "offs": Tensor("UB", 256, "uint32", 256 * 128),
             "dst": Tensor("UB", 256 + 4 * 256 * 128, "float16", 128), "stride": 0}
    assert found(scatter("ascend310p-aicore", form=form, repeat=255, **roomy)) == []
    assert found(scatter("ascend310p-aicore", form=form, repeat=0, **roomy)) == []
    assert found(scatter("ascend310p-aicore", form=form, repeat=256, **roomy)) == sc("repeatTimes.range")
    assert found(scatter("ascend310p-aicore", form=form, repeat=-1, **roomy)) == sc("repeatTimes.range")


@pytest.mark.parametrize("form", ["mask_bits", "mask_continuous"])
def test_scatter_src_rep_stride_range(form):
    """"const uint8_t srcRepStride": [0, 255]; with one repeat the stride moves nothing."""
    assert both(scatter(form=form, repeat=1, stride=255)) == []
    assert both(scatter(form=form, repeat=1, stride=0)) == []
    assert found(scatter(form=form, repeat=1, stride=256)) == sc("srcRepStride.range")
    assert found(scatter(form=form, repeat=1, stride=-1)) == sc("srcRepStride.range")


@pytest.mark.parametrize("form", ["count", "count_sync"])
def test_gather_count_range(form):
    """"uint32_t count": [0, 2^32-1]; -1 moves nothing, so only the range rule speaks."""
    assert found(gather(form=form, count=-1)) == ga("count.range")
    assert found(gather(form=form, count=129)) == ga("dst.bounds", "src_offset.bounds")


@pytest.mark.parametrize("count", [2**32 - 1, 2**32])
def test_gather_count_range_top(count):
    """"uint32_t count": a count at (or past) the top of its range is refused by bounds (and range), not a
    crash; dst's 2^32 elements also run over the offsets (an overlap, undefined)."""
    want = (ga("dst.bounds", "src_offset.bounds") + ga("overlap.offsets", severity="undefined")
            + ([] if count < 2**32 else ga("count.range")))
    assert found(gather(count=count)) == sorted(want)


def test_gather_repeat_range():
    """"uint8_t repeat": [0, 255]; dst_repeat_stride 0 so that dst holds one repeat whatever the count."""
    roomy = {"dst": Tensor("UB", 0, "float16", 128), "src": Tensor("UB", 256, "float16", 128),
             "offs": Tensor("UB", 512, "uint32", 256 * 128), "stride": 0}
    assert found(gather(form="repeat", repeat=255, **roomy)) == []
    assert found(gather(form="repeat", repeat=0, **roomy)) == []
    assert found(gather(form="repeat", repeat=256, **roomy)) == ga("repeat.range")
    assert found(gather(form="repeat", repeat=-1, **roomy)) == ga("repeat.range")


def test_gather_dst_repeat_stride_range():
    """"uint16_t dst_repeat_stride": [0, 65535]; with one repeat the stride moves nothing. Past 4095 (the
    low-level vgather's range) is the ambiguity asc_gather.dst_repeat_stride.max: legal under uint16,
    refused under vgather."""
    from readings import DEFAULT_MATH
    assert both(gather(form="repeat", repeat=1, stride=4095)) == []
    top = gather(form="repeat", repeat=1, stride=65535)
    assert found(top) == ga("dst_repeat_stride.max", severity="undefined")
    for reading, want in (("uint16", []), ("vgather", ga("dst_repeat_stride.max"))):
        declared = {**DEFAULT_MATH, "asc_gather.dst_repeat_stride.max": reading}
        assert sorted((v.rule, v.severity) for v in oracle_check(top, readings=declared)) == want
    assert found(gather(form="repeat", repeat=1, stride=65536)) == ga("dst_repeat_stride.range")
    assert found(gather(form="repeat", repeat=1, stride=-1)) == ga("dst_repeat_stride.range")


# ---------------------------------------------------------------------------------------------
# masks

@pytest.mark.parametrize("product, dtype", [("ascend310b", "float16"), ("ascend310b", "int16"),
                                            ("ascend310p-aicore", "uint16")])
def test_continuous_mask_16bit(product, dtype):
    """"当操作数为8位或16位时,mask∈[1, 128]"."""
    for mask in (1, 64, 127, 128):
        assert both(scatter(product, dtype, "mask_continuous", mask=mask)) == [], mask
    for mask in (0, 129, 256, -1):
        assert found(scatter(product, dtype, "mask_continuous", mask=mask)) == sc("mask.continuous_8_16bit"), mask


@pytest.mark.parametrize("product, dtype", [("ascend310b", "float32"), ("ascend310b", "int32"),
                                            ("ascend310p-aicore", "uint32")])
def test_continuous_mask_32bit(product, dtype):
    """"当操作数为32位时,mask∈[1, 64]": 65 is legal for 16-bit, not for 32-bit."""
    for mask in (1, 63, 64):
        assert both(scatter(product, dtype, "mask_continuous", mask=mask)) == [], mask
    for mask in (0, 65, 128):
        assert found(scatter(product, dtype, "mask_continuous", mask=mask)) == sc("mask.continuous_32bit"), mask


@pytest.mark.parametrize("dtype", ["float16", "uint16", "int16"])
def test_bit_mask_16bit(dtype):
    """"当操作数为8位或16位时,mask[0]、mask[1]∈[0, 2^64-1]并且不同时为0"."""
    for mask in ([1, 0], [0, 1], [8, 0], [0, 2**63], [ALL_ONES, ALL_ONES]):
        assert both(scatter(dtype=dtype, form="mask_bits", mask=mask)) == [], mask
    assert found(scatter(dtype=dtype, form="mask_bits", mask=[0, 0])) == sc("mask.bits_8_16bit")


@pytest.mark.parametrize("mask", [[1], [1, 0, 0], []])
def test_bit_mask_has_two_words(mask):
    """"参数类型为长度为2的uint64_t类型数组"."""
    assert found(scatter(form="mask_bits", mask=mask)) == sc("mask.bits_8_16bit")
    assert found(scatter(dtype="float32", form="mask_bits", mask=mask)) == sc("mask.bits_32bit")


@pytest.mark.parametrize("dtype", ["float32", "int32", "uint32"])
def test_bit_mask_32bit(dtype):
    """"当操作数为32位时,mask[1]为0,mask[0]∈(0, 2^64-1]": word 1 must be 0 even though word 1 alone is fine
    for 16-bit; word 0 must not be 0."""
    for mask in ([1, 0], [2**63, 0], [ALL_ONES, 0]):
        assert both(scatter(dtype=dtype, form="mask_bits", mask=mask)) == [], mask
    for mask in ([0, 0], [0, 1], [1, 1], [ALL_ONES, ALL_ONES]):
        assert found(scatter(dtype=dtype, form="mask_bits", mask=mask)) == sc("mask.bits_32bit"), mask


@pytest.mark.parametrize("dtype", ["int64", "uint64"])
def test_64bit_mask_sentences_are_kept(dtype):
    """"当操作数为64位时,mask∈[1, 32]" / "mask[1]为0,mask[0]∈(0, 2^32-1]": no product lists a 64-bit type,
    so such a call breaks the dtype rule too; the mask rules still speak for it."""
    assert found(scatter(dtype=dtype, form="mask_continuous", mask=32)) == sc("dtype.supported_310b")
    assert found(scatter(dtype=dtype, form="mask_continuous", mask=33)) == sc("dtype.supported_310b",
                                                                              "mask.continuous_64bit")
    assert found(scatter(dtype=dtype, form="mask_bits", mask=[2**32 - 1, 0])) == sc("dtype.supported_310b")
    assert found(scatter(dtype=dtype, form="mask_bits", mask=[2**32, 0])) == sc("dtype.supported_310b",
                                                                                "mask.bits_64bit")


@pytest.mark.parametrize("form, mask", [("mask_bits", 5), ("mask_bits", [1, -1]), ("mask_bits", [2**64, 0]),
                                        ("mask_bits", [1.0, 0]), ("mask_bits", [True, 0]),
                                        ("mask_continuous", [1, 2]), ("mask_continuous", True),
                                        ("mask_continuous", 5.0)])
def test_mask_of_the_wrong_type(form, mask):
    """mask is "const uint64_t mask[]" (a list of 64-bit words) in the bitwise form and "const uint64_t mask"
    (an integer) in the continuous one: anything else is a malformed call, not a rule violation."""
    with pytest.raises(CallFormatError, match="call.args.mask"):
        check(scatter(form=form, mask=mask))


def test_form_arguments():
    """The count form has no mask; the mask forms no count; the forms are the page's three."""
    with pytest.raises(CallFormatError, match="no argument 'count'"):
        check(scatter(form="mask_bits").replace(count=128))
    with pytest.raises(CallFormatError, match="missing argument 'count'"):
        check(Call("scatter", "ascend310b", {k: v for k, v in scatter().args.items() if k != "count"}, "count"))
    with pytest.raises(CallFormatError, match="not a form of scatter"):
        check(Call("scatter", "ascend310b", scatter().args, "repeat"))
    with pytest.raises(CallFormatError, match="not a form of asc_gather"):
        check(Call("asc_gather", "ascend910b", gather().args, "mask_bits"))


def test_mask_bits_call_round_trips():
    """A reproducer of the bitwise form keeps both 64-bit words exactly (2^64-1 does not fit an int64)."""
    call = scatter("ascend310p-aicore", "float16", "mask_bits", mask=[ALL_ONES, 2**63 + 5], repeat=3, stride=255,
                   base=2**32 - 1)
    text = call.to_yaml()
    back = Call.from_yaml(text)
    assert back == call
    assert back.args["mask"] == [ALL_ONES, 2**63 + 5]
    assert Call.from_json(call.to_json()) == call
    assert found(back) == found(call)
    cont = scatter(form="mask_continuous", mask=7)
    assert Call.from_yaml(cont.to_yaml()) == cont


# ---------------------------------------------------------------------------------------------
# alignment

@pytest.mark.parametrize("shift", [2, 4, 16, 30])
def test_scatter_alignment(shift):
    """"dstLocal: ... 地址需要32bytes对齐。"; src and the offsets tensor by the general constraint."""
    assert both(scatter(dst=Tensor("UB", S_DST + shift, "float16", 128))) == sc("dstLocal.align")
    assert both(scatter(src=Tensor("UB", S_SRC + shift, "float16", 128))) == sc("srcLocal.align")
    assert both(scatter(offs=Tensor("UB", S_OFFS + shift, "uint32", 128))) == sc("dstOffsetLocal.align")


def test_scatter_odd_dst_address():
    """dst at an odd byte: refused statically; with the offsets known its 16-bit elements also straddle slots
    (the ambiguity scatter.offset.unaligned, which asks about dst + dstBaseAddr + offset)."""
    call = scatter(dst=Tensor("UB", S_DST + 31, "float16", 128))
    assert found(call) == sc("dstLocal.align")
    assert found(call, memory(call)) == sorted(sc("dstLocal.align") + sc("offset.unaligned", severity="undefined"))


@pytest.mark.parametrize("form", ["count", "repeat"])
def test_gather_alignment(form):
    """"dst、src的起始地址需要32字节对齐。"; src_offset by the general constraint."""
    n = 128 if form == "count" else 256
    assert both(gather(form=form, dst=Tensor("UB", G_DST + 16, "float16", n))) == ga("dst.align")
    assert both(gather(form=form, src=Tensor("UB", G_SRC + 2, "float16", n))) == ga("src.align")
    assert both(gather(form=form, offs=Tensor("UB", G_OFFS + 4, "uint32", n))) == ga("src_offset.align")


# ---------------------------------------------------------------------------------------------
# bounds

def test_scatter_count_bounds():
    """"count: 执行处理的数据个数,不得超过srcLocal和dstOffsetLocal的元素个数。" -- each tensor on its own."""
    roomy_offs, roomy_src = Tensor("UB", S_OFFS, "uint32", 129), Tensor("UB", S_SRC, "float16", 129)
    assert both(scatter(count=129, offs=roomy_offs, src=roomy_src)) == []
    assert both(scatter(count=129, offs=roomy_offs)) == sc("srcLocal.bounds")
    assert both(scatter(count=129, src=roomy_src)) == sc("dstOffsetLocal.bounds")


@pytest.mark.parametrize("form", ["mask_bits", "mask_continuous"])
def test_scatter_repeat_bounds_src(form):
    """Repeat r reads src from r * srcRepStride blocks: stride 9 puts repeat 1 one block past 2 x 256 bytes."""
    assert both(scatter(form=form, stride=9)) == sc("srcLocal.bounds")
    assert both(scatter(form=form, stride=9, src=Tensor("UB", S_SRC, "float16", 256 + 16))) == []
    assert both(scatter(form=form, stride=0)) == []          # both repeats read the first 256 bytes


def test_scatter_repeat_bounds_offsets_follow_the_mask():
    """Element e of repeat r reads offset r * 128 + e: an offsets tensor one short of 2 x 128 holds what a mask
    without element 127 reads, not what one with it reads."""
    short = Tensor("UB", S_OFFS, "uint32", 255)
    assert both(scatter(form="mask_bits", offs=short, mask=[ALL_ONES, 2**63 - 1])) == []
    assert both(scatter(form="mask_bits", offs=short, mask=[ALL_ONES, 2**63])) == sc("dstOffsetLocal.bounds")
    assert both(scatter(form="mask_continuous", offs=short, mask=127)) == []
    assert both(scatter(form="mask_continuous", offs=short, mask=128)) == sc("dstOffsetLocal.bounds")


@pytest.mark.parametrize("form", ["count", "count_sync"])
def test_gather_count_bounds(form):
    """count elements are written to dst and read offsets from src_offset (src has no size: only reach)."""
    assert both(gather(form=form, count=129, src=Tensor("UB", G_SRC, "float16", 1))) == \
        ga("dst.bounds", "src_offset.bounds")
    assert both(gather(form=form, count=129, dst=Tensor("UB", G_DST, "float16", 129))) == ga("src_offset.bounds")
    assert both(gather(form=form, count=129, offs=Tensor("UB", G_OFFS, "uint32", 129))) == ga("dst.bounds")


def test_gather_repeat_bounds():
    """Repeat r fills 8 blocks of dst from r * dst_repeat_stride blocks on, offsets r * 128 + e."""
    assert both(gather(form="repeat", stride=9)) == ga("dst.bounds")
    assert both(gather(form="repeat", stride=9, dst=Tensor("UB", G_DST, "float16", 256 + 16))) == []
    assert both(gather(form="repeat", offs=Tensor("UB", G_OFFS, "uint32", 255))) == ga("src_offset.bounds")


# ---------------------------------------------------------------------------------------------
# capacity

@pytest.mark.parametrize("product", SCATTER_PRODUCTS)
def test_scatter_capacity(product):
    """A LocalTensor lies inside the product's UB: ending at its last byte is fine, one block more is not."""
    top = UB_BYTES[product]
    for name, dtype, key in (("dstLocal", "float16", "dst"), ("srcLocal", "float16", "src"),
                             ("dstOffsetLocal", "uint32", "offs")):
        width = ITEMSIZE[dtype]
        fits = Tensor("UB", top - 128 * width, dtype, 128)
        assert found(scatter(product, **{key: fits})) == [], name
        past = Tensor("UB", top - 128 * width, dtype, 128 + 32 // width)
        assert found(scatter(product, **{key: past})) == sc(f"{name}.capacity"), name


@pytest.mark.parametrize("product", GATHER_PRODUCTS)
def test_gather_capacity(product):
    top = UB_BYTES[product]
    for name, dtype, key in (("dst", "float16", "dst"), ("src", "float16", "src"), ("src_offset", "uint32", "offs")):
        width = ITEMSIZE[dtype]
        fits = Tensor("UB", top - 128 * width, dtype, 128)
        assert found(gather(product, **{key: fits})) == [], name
        past = Tensor("UB", top - 128 * width, dtype, 128 + 32 // width)
        assert found(gather(product, **{key: past})) == ga(f"{name}.capacity"), name


# ---------------------------------------------------------------------------------------------
# memory rules: offset values

@pytest.mark.parametrize("dtype", ["uint8", "int8"])
@pytest.mark.parametrize("form", ["count", "mask_bits"])
def test_scatter_offset_range_8bit_310b(dtype, form):
    """"Atlas 200I/500 A2 推理产品: 当操作数为8位时,取值范围为[0, 2^16-1] ... 超出取值范围可能导致非预期输出。"
    (the 8-bit mask form is also the ambiguity scatter.repeat.8bit)"""
    call = scatter("ascend310b", dtype, form)
    extra = sc("repeat.8bit", severity="undefined") if form != "count" else []
    assert found(call, memory(call, {5: 65535})) == extra
    assert found(call, memory(call, {5: 65536})) == sorted(sc("offset.range_8bit_310b", severity="undefined") + extra)
    assert found(call) == extra                               # not visible without memory


@pytest.mark.parametrize("dtype", ["float16", "uint16", "int16"])
@pytest.mark.parametrize("form", ["count", "mask_bits", "mask_continuous"])
def test_scatter_offset_range_16bit_310b(dtype, form):
    """"当操作数为16位时,取值范围为[0, 2^17-1]": 131070 is the last aligned legal offset."""
    call = scatter("ascend310b", dtype, form)
    assert found(call, memory(call, {7: 131070})) == []
    assert found(call, memory(call, {7: 131072})) == sc("offset.range_16bit_310b", severity="undefined")
    assert found(call) == []


def test_scatter_offset_range_only_where_stated():
    """"当操作数为32位或者64位时,不超过uint32_t的范围即可" on 310b, and "针对以下型号,地址偏移的取值范围不超出
    uint32_t的范围即可。Atlas 推理系列产品AI Core": large offsets inside the UB are fine there."""
    call = scatter("ascend310b", "float32")
    assert found(call, memory(call, {7: 200000})) == []
    call = scatter("ascend310p-aicore", "float16")
    assert found(call, memory(call, {7: 200000})) == []


def test_scatter_offset_range_reads_only_selected_offsets():
    """mask=[8, 0] moves element 3 of each repeat: an out-of-range offset elsewhere is never read."""
    call = scatter("ascend310b", "float16", "mask_bits", mask=[8, 0])
    assert found(call, memory(call, {4: 131072, 128 + 2: 131072})) == []
    assert found(call, memory(call, {128 + 3: 131072})) == sc("offset.range_16bit_310b", severity="undefined")
    counted = scatter("ascend310b", "float16", count=4, offs=Tensor("UB", S_OFFS, "uint32", 8))
    assert found(counted, memory(counted, {4: 131072})) == []      # entry 4 is past count


@pytest.mark.parametrize("product", SCATTER_PRODUCTS)
@pytest.mark.parametrize("form", ["count", "mask_continuous"])
def test_scatter_reach(product, form):
    """"地址偏移要大于等于0。该偏移量是相对于dst的基地址而言": an element sent past the end of UB is undefined.
    float32 so that 310b's 16-bit offset range does not speak too."""
    top = UB_BYTES[product]
    call = scatter(product, "float32", form)
    assert found(call, memory(call, {9: top - S_DST - 4})) == []
    assert found(call, memory(call, {9: top - S_DST})) == sc("dstLocal.reach", severity="undefined")
    assert found(call) == []


def test_scatter_reach_by_one_byte():
    """uint8 on 310b, dst 1024 bytes below the top of UB: offset 1023 writes the last byte, 1024 the byte past it."""
    top = UB_BYTES["ascend310b"]
    call = scatter("ascend310b", "uint8", dst=Tensor("UB", top - 1024, "uint8", 1024))
    assert found(call, memory(call, {9: 1023})) == []
    assert found(call, memory(call, {9: 1024})) == sc("dstLocal.reach", severity="undefined")
    assert found(call) == []


@pytest.mark.parametrize("product", SCATTER_PRODUCTS)
def test_scatter_reach_counts_dst_base_addr(product):
    """dstBaseAddr adds to every offset ("dstLocal的起始偏移地址,单位是字节"): the identity offsets of 128
    float32 elements reach 512 bytes past dst + dstBaseAddr."""
    top = UB_BYTES[product]
    fits = scatter(product, "float32", base=top - 512)
    assert found(fits, memory(fits)) == []
    past = scatter(product, "float32", base=top - 512 + 32)
    assert found(past, memory(past)) == sc("dstLocal.reach", severity="undefined")
    assert found(past) == []


@pytest.mark.parametrize("product", GATHER_PRODUCTS)
@pytest.mark.parametrize("form", ["count", "count_sync", "repeat"])
def test_gather_reach(product, form):
    """"src加上src_offset偏移后的地址不能超出Unified Buffer (UB)大小数据的范围。"."""
    top = UB_BYTES[product]
    call = gather(product, "float16", form)
    assert found(call, memory(call, {11: top - G_SRC - 2})) == []
    assert found(call, memory(call, {11: top - G_SRC})) == ga("src.reach", severity="undefined")
    assert found(call) == []


@pytest.mark.parametrize("dtype, good, bad", [("float16", 6, 3), ("bfloat16", 2, 1), ("int32", 12, 2),
                                              ("float32", 8, 6), ("uint16", 1000, 1001)])
@pytest.mark.parametrize("form", ["count", "repeat"])
def test_gather_offset_align(dtype, good, bad, form):
    """"src_offset里的偏移量取值应保证src元素类型位宽对齐。" -- per width: 2 bytes for 16-bit, 4 for 32-bit."""
    call = gather(dtype=dtype, form=form)
    assert found(call, memory(call, {3: good})) == []
    assert found(call, memory(call, {3: bad})) == ga("offset.align", severity="undefined")
    assert found(call) == []


def test_gather_offsets_past_count_are_not_read():
    """Only the first count offsets are read: an unaligned, out-of-UB entry after them changes nothing."""
    call = gather(count=64)
    assert found(call, memory(call, {64: 2**32 - 1, 100: 3})) == []
    assert found(call, memory(call, {63: 3})) == ga("offset.align", severity="undefined")


# ---------------------------------------------------------------------------------------------
# memory rules: overlap

@pytest.mark.parametrize("form", ["count", "mask_bits", "mask_continuous"])
def test_scatter_writes_onto_src(form):
    """The page says nothing about overlap (约束说明 empty): the kit's general constraint -- unsupported."""
    call = scatter(form=form)
    n = 128 if form == "count" else 256
    assert found(call, memory(call, {17: S_SRC - S_DST})) == sc("overlap.src", severity="undefined")
    assert found(call, memory(call, {17: S_SRC - S_DST + 2 * n - 2})) == sc("overlap.src", severity="undefined")
    assert found(call, memory(call, {17: S_SRC - S_DST + 2 * n})) == []       # just past what is read
    assert found(call, memory(call, {17: S_SRC - S_DST - 2})) == []           # just before it
    assert found(call) == []


@pytest.mark.parametrize("form", ["count", "mask_bits"])
def test_scatter_writes_onto_offsets(form):
    """Writing over the offsets the call reads: unsupported (general constraint)."""
    call = scatter(form=form)
    n = 128 if form == "count" else 256
    assert found(call, memory(call, {17: S_OFFS - S_DST})) == sc("overlap.offsets", severity="undefined")
    assert found(call, memory(call, {17: S_OFFS - S_DST + 4 * n - 2})) == sc("overlap.offsets", severity="undefined")
    assert found(call, memory(call, {17: S_OFFS - S_DST + 4 * n})) == []
    assert found(call) == []


@pytest.mark.parametrize("form", ["count", "count_sync", "repeat"])
def test_gather_reads_from_dst(form):
    """"操作数地址重叠约束请参考通用地址重叠约束。": an element gathered from bytes the call writes."""
    call = gather(form=form)
    n = 128 if form != "repeat" else 256
    assert found(call, memory(call, {21: G_DST - G_SRC})) == ga("overlap.src", severity="undefined")
    assert found(call, memory(call, {21: G_DST - G_SRC + 2 * n - 2})) == ga("overlap.src", severity="undefined")
    assert found(call, memory(call, {21: G_DST - G_SRC + 2 * n})) == []
    assert found(call, memory(call, {21: G_DST - G_SRC - 2})) == []
    assert found(call) == []


@pytest.mark.parametrize("form", ["count", "repeat"])
def test_gather_dst_over_offsets(form):
    """dst written over src_offset: both are known from the addresses, so check() sees it without memory."""
    call = gather(form=form, dst=Tensor("UB", G_OFFS + 64, "float16", 256))
    assert found(call) == ga("overlap.offsets", severity="undefined")
    assert found(call, memory(call)) == ga("overlap.offsets", severity="undefined")
    apart = gather(form=form, dst=Tensor("UB", G_OFFS + 4 * 256, "float16", 256))
    assert both(apart) == []


def test_undefined_calls_leave_written_bytes_open():
    """expected() on undefined territory: no IllegalCall, the violations are carried, written bytes not defined."""
    call = scatter()
    mem = memory(call, {17: S_SRC - S_DST})
    out = expected(call, mem)
    assert [(v.rule, v.severity) for v in out.violations] == sc("overlap.src", severity="undefined")
    assert not out.defined["UB"][S_DST:S_DST + 2].any()
    assert not out.defined["UB"][S_SRC:S_SRC + 2].any()         # element 17 went to src[0]
    assert out.defined["UB"][S_DST + 34:S_DST + 36].all()       # element 17's own slot is not written
    assert not out.defined["UB"][S_DST + 36:S_DST + 256].any()
    assert out.defined["UB"][S_OFFS:S_OFFS + 512].all()
    assert out.choices == []


# ---------------------------------------------------------------------------------------------
# ambiguities

def test_scatter_count_zero():
    """"count: 执行处理的数据个数" -- no lower bound stated: count 0 is the ambiguity scatter.count.zero."""
    assert both(scatter(count=0)) == sc("count.zero", severity="undefined")
    assert both(scatter(count=1)) == []


@pytest.mark.parametrize("form", ["count", "count_sync"])
def test_gather_count_zero(form):
    assert both(gather(form=form, count=0)) == ga("count.zero", severity="undefined")
    assert both(gather(form=form, count=1)) == []


def test_repeat_zero_is_legal():
    """"repeatTimes∈[0,255]" states 0 (the oracle: nothing moves)."""
    assert both(scatter(form="mask_bits", repeat=0)) == []
    assert both(scatter(form="mask_continuous", repeat=0)) == []


def plain(call: Call, mem: dict[str, np.ndarray] | None = None, **declared: str) -> list[tuple[str, str]]:
    """(rule, severity) under no declared reading, or under `declared` (ambiguity id with '.' as '__')."""
    book = default_rulebook().with_readings({k.replace("__", "."): v for k, v in declared.items()})
    return sorted((v.rule, v.severity) for v in oracle_check(call, mem, book))


def test_gather_repeat_zero_as_count_zero():
    """asc_gather's "uint8_t repeat" and "uint32_t count" alike: the page gives neither a range, so 0 is an
    ambiguity for both (nop | reject), the repeat form also being in asc_gather.repeat.layout."""
    call = gather(form="repeat", repeat=0)
    assert plain(call) == ga("repeat.zero", "repeat.layout", severity="undefined")
    layout = {"asc_gather__repeat__layout": "datablocks"}
    assert plain(call, **layout) == ga("repeat.zero", severity="undefined")
    assert plain(call, **layout, asc_gather__repeat__zero="nop") == []
    assert plain(call, **layout, asc_gather__repeat__zero="reject") == ga("repeat.zero")
    assert plain(gather(form="count", count=0), asc_gather__count__zero="reject") == ga("count.zero")
    assert plain(gather(form="count", count=0), asc_gather__count__zero="nop") == []


def test_gather_repeat_layout():
    """No elements per iteration, no unit for dst_repeat_stride: every call of the repeat form is in
    asc_gather.repeat.layout; the count forms are not."""
    call = gather(form="repeat")
    assert plain(call) == ga("repeat.layout", severity="undefined")
    assert plain(call, asc_gather__repeat__layout="datablocks") == []
    assert plain(call, asc_gather__repeat__layout="undefined") == ga("repeat.layout", severity="undefined")
    assert plain(gather(form="count")) == []


@pytest.mark.parametrize("stride", [0, 7, 9, 16])
def test_offsets_across_repeats(stride):
    """Neither page says which offset entry an element of repeat r reads unless the stride is one whole
    repeat (8 datablocks) or there is one repeat: scatter / asc_gather .offset.repeat_advance."""
    layout = {"asc_gather__repeat__layout": "datablocks", "asc_gather__dst__repeat_overlap": "last_wins"}
    sc_call = scatter(form="mask_continuous", stride=stride, src=Tensor("UB", S_SRC, "float16", 4096))
    assert plain(sc_call) == sc("offset.repeat_advance", severity="undefined")
    assert plain(sc_call, scatter__offset__repeat_advance="whole_repeat") == []
    assert plain(sc_call.replace(repeatTimes=1)) == []
    assert plain(scatter(form="mask_continuous", stride=8)) == []
    ga_call = gather(form="repeat", stride=stride, dst=Tensor("UB", G_DST, "float16", 4096))
    assert plain(ga_call, **layout) == ga("offset.repeat_advance", severity="undefined")
    assert plain(ga_call, **layout, asc_gather__offset__repeat_advance="whole_repeat") == []
    assert plain(gather(form="repeat", stride=8), **layout) == []
    # with_stride: the offsets follow the stride, past tensors sized for whole repeats when it is wider
    past = stride > 8
    assert plain(sc_call, scatter__offset__repeat_advance="with_stride") == (
        [("scatter.dstOffsetLocal.bounds", "reject")] if past else [])
    assert plain(ga_call, **layout, asc_gather__offset__repeat_advance="with_stride") == (
        [("asc_gather.src_offset.bounds", "reject")] if past else [])


@pytest.mark.parametrize("stride", [0, 4, 7])
def test_gather_iterations_writing_one_place(stride):
    """dst_repeat_stride below 8 DataBlocks: two iterations write the same bytes; no page says the later
    wins: asc_gather.dst.repeat_overlap, last_wins | undefined."""
    layout = {"asc_gather__repeat__layout": "datablocks", "asc_gather__offset__repeat_advance": "whole_repeat"}
    call = gather(form="repeat", stride=stride)
    assert plain(call, **layout) == ga("dst.repeat_overlap", severity="undefined")
    assert plain(call, **layout, asc_gather__dst__repeat_overlap="last_wins") == []
    assert plain(call, **layout, asc_gather__dst__repeat_overlap="undefined") == ga("dst.repeat_overlap",
                                                                                   severity="undefined")
    assert plain(call.replace(repeat=1), **layout) == []


@pytest.mark.parametrize("form", ["count", "count_sync"])
def test_gather_in_place(form):
    """"操作数地址重叠约束请参考通用地址重叠约束" -- 100% overlap or none: dst given as src's own tensor is an
    in-place gather, legal; every element is read before any is written (the page's example, in place)."""
    n = 128
    same = Tensor("UB", G_SRC, "float16", n)
    call = gather(form=form, dst=same, src=same)
    mem = memory(call, {i: 2 * (n - 1 - i) for i in range(n)})
    before = np.arange(2 * n, dtype=np.uint8)
    mem["UB"][G_SRC:G_SRC + 2 * n] = before
    assert found(call, mem) == []
    out = expected(call, mem)
    assert out.defined["UB"][G_SRC:G_SRC + 2 * n].all()
    assert np.array_equal(out.memory["UB"][G_SRC:G_SRC + 2 * n].view("<u2"), before.view("<u2")[::-1])
    # the same bytes with dst one element longer: a partial overlap, undefined
    longer = gather(form=form, dst=Tensor("UB", G_SRC, "float16", n + 1), src=same)
    assert found(longer, memory(longer, {i: 2 * (n - 1 - i) for i in range(n)})) == ga("overlap.src",
                                                                                      severity="undefined")


@pytest.mark.parametrize("dtype", ["uint8", "int8"])
def test_scatter_8bit_repeat_forms(dtype):
    """"每次迭代完成8个datablock的数据收集 ... 当操作数为8位或16位时,mask∈[1, 128]": 256 elements a repeat,
    or 128? Both mask forms of an 8-bit call are in the ambiguity; the count form is not."""
    assert both(scatter("ascend310b", dtype, "count")) == []
    amb = sc("repeat.8bit", severity="undefined")
    assert both(scatter("ascend310b", dtype, "mask_continuous", mask=128)) == amb
    assert both(scatter("ascend310b", dtype, "mask_continuous", mask=1)) == amb
    assert both(scatter("ascend310b", dtype, "mask_bits")) == amb
    assert both(scatter("ascend310b", dtype, "mask_bits", repeat=0)) == amb
    # the 16-bit neighbours are not in it
    assert both(scatter("ascend310b", "int16", "mask_continuous", mask=128)) == []


@pytest.mark.parametrize("dtype, bad", [("float16", 3), ("int16", 1), ("float32", 2), ("int32", 6)])
@pytest.mark.parametrize("form", ["count", "mask_bits", "mask_continuous"])
def test_scatter_unaligned_destination(dtype, bad, form):
    """"dstOffsetLocal: ... 每个数值的单位为Bytes" with no alignment stated: an element written across two
    slots is the ambiguity scatter.offset.unaligned -- seen only with the offsets in memory."""
    call = scatter("ascend310b", dtype, form)
    amb = sc("offset.unaligned", severity="undefined")
    assert found(call, memory(call, {2: bad})) == amb
    assert found(call, memory(call, {2: ITEMSIZE[dtype] * 1000})) == []
    assert found(call) == []


def test_scatter_unaligned_by_dst_base_addr():
    """dstBaseAddr is in bytes too: an odd base puts every 16-bit element across two slots; a base of one
    element does not."""
    odd = scatter(base=1)
    assert found(odd) == []
    assert found(odd, memory(odd)) == sc("offset.unaligned", severity="undefined")
    even = scatter(base=2)
    assert found(even, memory(even)) == []
    any8 = scatter(dtype="uint8", base=1)                      # one byte is always aligned
    assert found(any8, memory(any8, {3: 77})) == []


# ---------------------------------------------------------------------------------------------
# operand scopes and the offsets' dtype

@pytest.mark.parametrize("operand, scope", [("dstLocal", "GM"), ("srcLocal", "L1"), ("dstOffsetLocal", "GM")])
def test_scatter_operands_live_in_ub(operand, scope):
    """"dstLocal: 目的操作数,类型为LocalTensor" (and srcLocal, dstOffsetLocal): LocalTensors of a vector
    instruction are in UB (an inferred rule), as asc_gather's __ubuf__ pointers are."""
    t = scatter().args[operand]
    call = scatter(**{{"dstLocal": "dst", "srcLocal": "src", "dstOffsetLocal": "offs"}[operand]:
                      Tensor(scope, t.addr, t.dtype, t.numel)})
    assert found(call) == sc(f"{operand}.scope")


@pytest.mark.parametrize("api, dtype", [("scatter", "int32"), ("scatter", "float32"), ("asc_gather", "int32"),
                                        ("asc_gather", "float32")])
def test_offsets_tensor_is_uint32(api, dtype):
    """"dstOffsetLocal ... 支持数据类型(uint32_t)" / "__ubuf__ uint32_t* src_offset"."""
    make, addr = (scatter, S_OFFS) if api == "scatter" else (gather, G_OFFS)
    call = make(offs=Tensor("UB", addr, dtype, 128))
    rule = "dstOffsetLocal.dtype" if api == "scatter" else "src_offset.dtype"
    assert found(call) == (sc(rule) if api == "scatter" else ga(rule))
