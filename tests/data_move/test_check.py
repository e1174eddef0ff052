"""The legality checker on data_move (001_e45651b2d591d11d.txt): one group of tests per rule of
specs/data_move.yaml. Each starts from a legal call (no violation) and changes exactly the thing the rule
is about; the result must be exactly that rule, with its severity."""
from __future__ import annotations

import pytest

from oracle import Call, CallFormatError, Tensor, check, verdict_class
from oracle.spec import default_rulebook

SUPPORTED = ["ascend310", "ascend910", "ascend310p-aicore", "ascend310p-vectorcore", "ascend910b", "ascend310b"]
ALL_PRODUCTS = SUPPORTED + ["ascend910_93"]
DTYPES = ["uint8", "int8", "float16", "uint16", "int16", "float32", "int32", "uint32", "uint64", "int64"]
ITEMSIZE = {"uint8": 1, "int8": 1, "float16": 2, "uint16": 2, "int16": 2, "bfloat16": 2, "float32": 4, "int32": 4,
            "uint32": 4, "uint64": 8, "int64": 8}
# The page's "<product>,支持..." sentences, OUT written GM.
PAGE_PATHS = {
    "ascend310": {"UB->UB", "UB->GM", "GM->UB", "GM->L1"},                 # Atlas 200/300/500 推理产品
    "ascend910": {"UB->UB", "UB->GM", "GM->UB", "GM->L1"},                 # Atlas 训练系列产品
    "ascend310p-aicore": {"UB->UB", "UB->GM", "GM->UB", "GM->L1"},         # Atlas推理系列产品AI Core
    "ascend310p-vectorcore": {"UB->GM", "UB->UB", "GM->UB"},               # Atlas推理系列产品Vector Core
    "ascend910b": {"UB->UB", "UB->GM", "GM->UB", "GM->L1", "L1->GM"},      # Atlas A2训练系列产品/Atlas 800I A2推理产品
    "ascend310b": {"UB->UB", "UB->GM", "GM->UB", "GM->L1", "L1->GM"},      # Atlas 200/500 A2推理产品
}
UB_BYTES = {"ascend310": 262144, "ascend910": 262144, "ascend310p-aicore": 262144, "ascend310p-vectorcore": 262144,
            "ascend310b": 253952, "ascend910b": 196608, "ascend910_93": 196608}
L1_BYTES = {"ascend310": 1 << 20, "ascend910": 1 << 20, "ascend310p-aicore": 1 << 20, "ascend310b": 1 << 20,
            "ascend910b": 1 << 19, "ascend910_93": 1 << 19}


def T(scope: str, addr: int = 0, dtype: str = "float16", nbytes: int = 1024) -> Tensor:
    """A tensor of `nbytes` bytes (rounded down to whole elements)."""
    return Tensor(scope, addr, dtype, nbytes // ITEMSIZE[dtype])


def dm(product: str = "ascend910b", dst: Tensor | None = None, src: Tensor | None = None, *, sid: int = 0,
       nburst: int = 1, burst: int = 1, src_stride: int = 0, dst_stride: int = 0) -> Call:
    """data_move(dst, src, sid, nburst, burst, src_stride, dst_stride); default GM -> UB, one 32 B burst.
    An operand left out is 1 KB at byte 0 (UB for dst, GM for src) with the other operand's dtype."""
    dst = dst if dst is not None else T("UB", 0, src.dtype if src is not None else "float16")
    src = src if src is not None else T("GM", 0, dst.dtype)
    return Call("data_move", product, {"dst": dst, "src": src,
                                       "sid": sid, "nburst": nburst, "burst": burst,
                                       "src_stride": src_stride, "dst_stride": dst_stride})


def found(call: Call) -> list[tuple[str, str]]:
    """(rule, severity) of every violation, sorted."""
    violations = check(call)
    for v in violations:
        assert v.message, v
    return sorted((v.rule, v.severity) for v in violations)


def reject(*rules: str) -> list[tuple[str, str]]:
    return sorted((r, "reject") for r in rules)


def test_base_call_is_legal():
    assert check(dm()) == []
    assert verdict_class(check(dm())) == "legal"


def test_every_rule_has_a_test_here():
    """Keeps this file in step with specs/data_move.yaml: these are the ids the tests below cover."""
    spec = default_rulebook().api("data_move")
    covered = {"data_move.product.supported", "data_move.path.supported", "data_move.dtype.supported",
               "data_move.dtype.same", "data_move.sid.range", "data_move.nburst.range", "data_move.burst.range",
               "data_move.src_stride.range", "data_move.dst_stride.range", "data_move.dst.align.L1",
               "data_move.dst.align.UB", "data_move.src.align.L1", "data_move.src.align.UB",
               "data_move.src.bounds", "data_move.dst.bounds", "data_move.src.capacity", "data_move.dst.capacity",
               "data_move.overlap", "data_move.sid.reserved"}
    assert {r.id for r in spec.rules} | {a.id for a in spec.ambiguities} == covered


# -- data_move.product.supported: 支持的型号 (six products; not Atlas A3) ----------------------------

@pytest.mark.parametrize("product", SUPPORTED)
def test_supported_products(product):
    assert found(dm(product)) == []


def test_ascend910_93_not_supported():
    """Atlas A3 (ascend910_93) is not in 支持的型号: refused by the product rule alone (the path rule has
    nothing to say about a product the page does not list)."""
    assert found(dm("ascend910_93")) == reject("data_move.product.supported")
    assert verdict_class(check(dm("ascend910_93"))) == "reject"


# -- data_move.path.supported: '<product>,支持UB->UB/UB->OUT/OUT->UB/OUT->L1[/L1->OUT]' ----------------

def path_call(product: str, path: str) -> Call:
    src_scope, dst_scope = path.split("->")
    return dm(product, dst=T(dst_scope, 64), src=T(src_scope, 1024))


@pytest.mark.parametrize("product", SUPPORTED)
@pytest.mark.parametrize("path", [f"{a}->{b}" for a in ("GM", "UB", "L1") for b in ("GM", "UB", "L1")])
def test_paths(product, path):
    """Each product's listed paths are legal; every other scope pair is refused by the path rule. On the
    Vector Core, which has no L1 at all, an L1 operand also breaks that operand's capacity rule."""
    if path in PAGE_PATHS[product]:
        assert found(path_call(product, path)) == []
        return
    expected = {"data_move.path.supported"}
    if product == "ascend310p-vectorcore":
        src_scope, dst_scope = path.split("->")
        expected |= {"data_move.src.capacity"} if src_scope == "L1" else set()
        expected |= {"data_move.dst.capacity"} if dst_scope == "L1" else set()
    assert found(path_call(product, path)) == reject(*expected)


def test_l1_to_gm_only_on_a2_products():
    """L1->OUT appears only for Atlas A2 (910b) and Atlas 200/500 A2 (310b)."""
    call = path_call("ascend910b", "L1->GM")
    assert found(call) == []
    assert found(path_call("ascend310b", "L1->GM")) == []
    for product in ("ascend910", "ascend310", "ascend310p-aicore"):
        assert found(path_call(product, "L1->GM")) == reject("data_move.path.supported")


def test_gm_to_l1_not_on_vector_core():
    assert found(path_call("ascend310p-aicore", "GM->L1")) == []
    assert found(path_call("ascend310p-vectorcore", "GM->L1")) == reject("data_move.path.supported",
                                                                         "data_move.dst.capacity")


def test_path_message_names_the_path():
    (v,) = check(path_call("ascend910", "L1->GM"))
    assert "L1->GM" in v.message and "ascend910" in v.message


@pytest.mark.parametrize("path", ["GM->UB", "L1->GM", "UB->L1", "GM->GM"])
def test_unlisted_product_has_only_the_product_rule(path):
    assert found(path_call("ascend910_93", path)) == reject("data_move.product.supported")


# -- data_move.dtype.supported / data_move.dtype.same: 'dtype (src需与dst保持一致)' --------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("path", ["GM->UB", "UB->GM", "UB->UB", "GM->L1", "L1->GM"])
def test_listed_dtypes(dtype, path):
    src_scope, dst_scope = path.split("->")
    assert found(dm(dst=T(dst_scope, 0, dtype), src=T(src_scope, 1024, dtype))) == []


def test_unlisted_dtype():
    """bfloat16 is a dtype the kit knows, but not in the page's list."""
    call = dm(dst=T("UB", 0, "bfloat16"), src=T("GM", 0, "bfloat16"))
    assert found(call) == reject("data_move.dtype.supported")


def test_unlisted_dtype_on_one_side():
    call = dm(dst=T("UB", 0, "float16"), src=T("GM", 0, "bfloat16"))
    assert found(call) == reject("data_move.dtype.supported", "data_move.dtype.same")


@pytest.mark.parametrize("src_dtype,dst_dtype", [("float16", "int16"), ("int8", "uint8"), ("float32", "int16"),
                                                 ("uint64", "int64"), ("int32", "float32")])
def test_dtypes_differ(src_dtype, dst_dtype):
    call = dm(dst=T("UB", 0, dst_dtype), src=T("GM", 0, src_dtype))
    assert found(call) == reject("data_move.dtype.same")


def test_unknown_dtype_is_a_format_error():
    with pytest.raises(CallFormatError, match=r"call\.args\.dst\.dtype: unknown dtype 'float8'"):
        check(dm(dst=Tensor("UB", 0, "float8", 64), src=Tensor("GM", 0, "float8", 64)))


def test_dtype_alias_is_not_canonical():
    """dtypes.yaml's aliases are page spellings; a call names the canonical dtype ('half' is refused)."""
    with pytest.raises(CallFormatError, match="unknown dtype 'half'"):
        check(dm(dst=Tensor("UB", 0, "half", 512), src=Tensor("GM", 0, "half", 512)))


# -- range rules: both ends of every range ----------------------------------------------------------

def test_sid_range():
    """'sid∈[0, 15]': 0 legal; -1 and 16 refused. 1..15 are the ambiguity region (next test)."""
    assert found(dm(sid=0)) == []
    assert found(dm(sid=-1)) == reject("data_move.sid.range")
    assert found(dm(sid=16)) == reject("data_move.sid.range")
    assert found(dm(sid=1 << 31)) == reject("data_move.sid.range")


@pytest.mark.parametrize("sid", range(1, 16))
def test_sid_reserved_region(sid):
    """'为硬件保留接口,输入0即可' vs 'sid∈[0, 15]': a non-zero sid in range is recorded as ambiguous, with
    severity undefined, and is not refused."""
    violations = check(dm(sid=sid))
    assert [(v.rule, v.severity) for v in violations] == [("data_move.sid.reserved", "undefined")]
    assert verdict_class(violations) == "undefined"


# nburst: 'nburst∈[1, 4095]'. Both tensors hold 4096 bursts of 32 B, so only the range can object.
NB_SRC, NB_DST = T("GM", 0, "float16", 4096 * 32), T("UB", 0, "float16", 4096 * 32)


@pytest.mark.parametrize("nburst,rules", [(0, ["data_move.nburst.range"]), (1, []), (2, []), (4094, []),
                                          (4095, []), (4096, ["data_move.nburst.range"]),
                                          (-1, ["data_move.nburst.range"])])
def test_nburst_range(nburst, rules):
    assert found(dm(dst=NB_DST, src=NB_SRC, nburst=nburst)) == reject(*rules)


@pytest.mark.parametrize("burst,rules", [(0, ["data_move.burst.range"]), (1, []), (2, []),
                                         (-1, ["data_move.burst.range"])])
def test_burst_range_low_end(burst, rules):
    """'burst∈[1, 65535],单位:32B'."""
    assert found(dm(burst=burst)) == reject(*rules)


def test_burst_range_high_end():
    """65535 x 32 B is about 2 MB: no UB or L1 holds it and the page lists no GM->GM path, so burst=65535 is
    in range but can never be legal; only the capacity rule objects to it. 65536 adds the range rule."""
    big = 65536 * 32
    assert found(dm(dst=T("UB", 0, "uint8", big), src=T("GM", 0, "uint8", big), burst=65535)) == \
        reject("data_move.dst.capacity")
    assert found(dm(dst=T("UB", 0, "uint8", big), src=T("GM", 0, "uint8", big), burst=65536)) == \
        reject("data_move.dst.capacity", "data_move.burst.range")
    assert found(dm(dst=T("GM", 0, "uint8", big), src=T("UB", 0, "uint8", big), burst=65535)) == \
        reject("data_move.src.capacity")


@pytest.mark.parametrize("product", SUPPORTED)
def test_largest_burst_that_fits_ub(product):
    """The largest legal burst into UB is the whole UB (UB bytes / 32); one more unit runs off the tensor."""
    ub = UB_BYTES[product]
    dst, src = T("UB", 0, "float16", ub), T("GM", 0, "float16", ub + 32)
    assert found(dm(product, dst=dst, src=src, burst=ub // 32)) == []
    assert found(dm(product, dst=dst, src=src, burst=ub // 32 + 1)) == reject("data_move.dst.bounds")


# Strides: 'src_stride∈[0, 65535]' / 'dst_stride∈[0, 65535]'. With two bursts the stride moves the second
# one, so the GM side is given room for the largest stride (GM has no capacity).
STRIDE_ROOM = (65536 + 2) * 32


@pytest.mark.parametrize("stride,rules", [(-1, ["data_move.src_stride.range"]), (0, []), (1, []), (65534, []),
                                          (65535, []), (65536, ["data_move.src_stride.range"])])
def test_src_stride_range(stride, rules):
    call = dm(dst=T("UB", 0, "float16", 64), src=T("GM", 0, "float16", STRIDE_ROOM), nburst=2, src_stride=stride)
    assert found(call) == reject(*rules)


@pytest.mark.parametrize("stride,rules", [(-1, ["data_move.dst_stride.range"]), (0, []), (1, []), (65534, []),
                                          (65535, []), (65536, ["data_move.dst_stride.range"])])
def test_dst_stride_range(stride, rules):
    call = dm(dst=T("GM", 0, "float16", STRIDE_ROOM), src=T("UB", 0, "float16", 64), nburst=2, dst_stride=stride)
    assert found(call) == reject(*rules)


@pytest.mark.parametrize("name", ["src_stride", "dst_stride"])
@pytest.mark.parametrize("stride,rules", [(65535, []), (65536, ["range"])])
def test_stride_with_one_burst(name, stride, rules):
    """With nburst=1 no second burst exists: the stride moves nothing, only its range is checked."""
    assert found(dm(**{name: stride})) == reject(*(f"data_move.{name}.{r}" for r in rules))


@pytest.mark.parametrize("name", ["sid", "nburst", "burst", "src_stride", "dst_stride"])
@pytest.mark.parametrize("value", [True, "1", 1.0, None])
def test_parameter_not_an_integer(name, value):
    with pytest.raises(CallFormatError, match=rf"call\.args\.{name}: expected an integer"):
        check(dm().replace(**{name: value}))


# -- alignment: 'L1: 地址偏移32Byte对齐'; 'UB: 地址偏移block_size对齐' (32 B); GM: nothing -----------------

ADDRESSES = [0, 1, 2, 8, 14, 16, 30, 32, 48, 64, 96, 1000, 1024]


@pytest.mark.parametrize("addr", ADDRESSES)
def test_dst_align_ub(addr):
    call = dm(dst=T("UB", addr, "uint8"), src=T("GM", 0, "uint8"))
    assert found(call) == ([] if addr % 32 == 0 else reject("data_move.dst.align.UB"))


@pytest.mark.parametrize("addr", ADDRESSES)
def test_src_align_ub(addr):
    call = dm(dst=T("GM", 0, "uint8"), src=T("UB", addr, "uint8"))
    assert found(call) == ([] if addr % 32 == 0 else reject("data_move.src.align.UB"))


@pytest.mark.parametrize("addr", ADDRESSES)
def test_dst_align_l1(addr):
    call = dm(dst=T("L1", addr, "uint8"), src=T("GM", 0, "uint8"))
    assert found(call) == ([] if addr % 32 == 0 else reject("data_move.dst.align.L1"))


@pytest.mark.parametrize("addr", ADDRESSES)
def test_src_align_l1(addr):
    call = dm(dst=T("GM", 0, "uint8"), src=T("L1", addr, "uint8"))
    assert found(call) == ([] if addr % 32 == 0 else reject("data_move.src.align.L1"))


@pytest.mark.parametrize("addr", ADDRESSES)
def test_gm_needs_no_alignment(addr):
    """No sentence asks anything of a GM (OUT) address: every address is legal on either side."""
    assert found(dm(dst=T("UB", 0, "int8"), src=T("GM", addr, "int8"))) == []
    assert found(dm(dst=T("GM", addr, "int8"), src=T("UB", 0, "int8"))) == []
    assert found(dm(dst=T("L1", 0, "int8"), src=T("GM", addr, "int8"))) == []


def test_ub_to_ub_both_misaligned():
    call = dm(dst=T("UB", 2048 + 8), src=T("UB", 16))
    assert found(call) == reject("data_move.dst.align.UB", "data_move.src.align.UB")


def test_align_message_names_operand_and_bytes():
    (v,) = check(dm(dst=T("UB", 16)))
    assert "dst" in v.message and "16" in v.message and "32" in v.message


# -- bounds (inferred): a burst train must stay inside the tensor (slice) it is given ----------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_dst_bounds(dtype):
    """nburst=3, burst=2, dst_stride=1: the train reaches 2*(2+1)*32 + 2*32 = 256 bytes past dst.addr."""
    reach = 256
    src = T("GM", 0, dtype, 1024)
    ok = dm(dst=T("UB", 0, dtype, reach), src=src, nburst=3, burst=2, dst_stride=1)
    assert found(ok) == []
    short = dm(dst=Tensor("UB", 0, dtype, reach // ITEMSIZE[dtype] - 1), src=src, nburst=3, burst=2, dst_stride=1)
    assert found(short) == reject("data_move.dst.bounds")


@pytest.mark.parametrize("dtype", DTYPES)
def test_src_bounds(dtype):
    reach = 256
    dst = T("UB", 0, dtype, 1024)
    ok = dm(dst=dst, src=T("GM", 3, dtype, reach), nburst=3, burst=2, src_stride=1)
    assert found(ok) == []
    short = dm(dst=dst, src=Tensor("GM", 3, dtype, reach // ITEMSIZE[dtype] - 1), nburst=3, burst=2, src_stride=1)
    assert found(short) == reject("data_move.src.bounds")


def test_empty_tensor_is_out_of_bounds():
    assert found(dm(dst=Tensor("UB", 0, "float16", 0))) == reject("data_move.dst.bounds")
    assert found(dm(src=Tensor("GM", 0, "float16", 0))) == reject("data_move.src.bounds")


def test_bounds_message_names_bytes():
    (v,) = check(dm(dst=Tensor("UB", 0, "float32", 7)))
    assert "[0, 32)" in v.message and "28" in v.message


# -- capacity (inferred): a UB / L1 tensor lies inside the product's buffer ------------------------

@pytest.mark.parametrize("product", SUPPORTED)
def test_dst_capacity_ub(product):
    top = UB_BYTES[product]
    assert found(dm(product, dst=T("UB", top - 64, "float16", 64))) == []
    assert found(dm(product, dst=T("UB", top - 64, "float16", 66))) == reject("data_move.dst.capacity")
    assert found(dm(product, dst=T("UB", top - 32, "float16", 32))) == []
    assert found(dm(product, dst=T("UB", top, "float16", 32))) == reject("data_move.dst.capacity")


@pytest.mark.parametrize("product", SUPPORTED)
def test_src_capacity_ub(product):
    top = UB_BYTES[product]
    gm = T("GM", 0, "int32")
    assert found(dm(product, dst=gm, src=T("UB", top - 32, "int32", 32))) == []
    assert found(dm(product, dst=gm, src=T("UB", top - 32, "int32", 36))) == reject("data_move.src.capacity")


@pytest.mark.parametrize("product", ["ascend910b", "ascend310b"])
def test_capacity_l1(product):
    top = L1_BYTES[product]
    assert found(dm(product, dst=T("L1", top - 32, "uint8", 32))) == []
    assert found(dm(product, dst=T("L1", top - 32, "uint8", 33))) == reject("data_move.dst.capacity")
    gm = T("GM", 0, "uint8")
    assert found(dm(product, dst=gm, src=T("L1", top - 32, "uint8", 32))) == []
    assert found(dm(product, dst=gm, src=T("L1", top - 32, "uint8", 33))) == reject("data_move.src.capacity")


def test_capacity_differs_by_product():
    """A 200 KB UB tensor fits the 256 KB and 248 KB UBs but not the 192 KB one of ascend910b."""
    call = dm(dst=T("UB", 0, "float16", 200 * 1024))
    assert found(Call("data_move", "ascend910", call.args)) == []
    assert found(Call("data_move", "ascend310b", call.args)) == []
    assert found(call) == reject("data_move.dst.capacity")


def test_gm_has_no_capacity():
    assert found(dm(src=T("GM", 1 << 40, "uint8", 1 << 30))) == []


# -- overlap (inferred, undefined): UB->UB src and dst share bytes ----------------------------------

def test_overlap_same_address():
    violations = check(dm(dst=T("UB", 0), src=T("UB", 0)))
    assert [(v.rule, v.severity) for v in violations] == [("data_move.overlap", "undefined")]
    assert verdict_class(violations) == "undefined"


def test_overlap_partial():
    """src [0, 64), dst [32, 96): one block shared."""
    assert found(dm(dst=T("UB", 32), src=T("UB", 0), burst=2)) == [("data_move.overlap", "undefined")]
    assert found(dm(dst=T("UB", 0), src=T("UB", 32), burst=2)) == [("data_move.overlap", "undefined")]


def test_adjacent_is_not_overlap():
    """src [0, 64), dst [64, 128): touching ends share no byte."""
    assert found(dm(dst=T("UB", 64), src=T("UB", 0), burst=2)) == []
    assert found(dm(dst=T("UB", 0), src=T("UB", 64), burst=2)) == []


def test_interleaved_bursts_do_not_overlap():
    """Strides leave gaps ('前 burst 尾与后 burst 头'): src bursts at 0, 64, 128, 192 and dst bursts at 32,
    96, 160, 224 interleave without sharing a byte, although the two spans overlap."""
    call = dm(dst=T("UB", 32), src=T("UB", 0), nburst=4, burst=1, src_stride=1, dst_stride=1)
    assert found(call) == []


def test_interleaved_bursts_that_touch_overlap():
    """The same trains with dst bursts of 2 blocks (and a gap of 0) cover src's bursts too."""
    call = dm(dst=T("UB", 32), src=T("UB", 0), nburst=2, burst=1, src_stride=1, dst_stride=0)
    assert found(call) == [("data_move.overlap", "undefined")]      # dst [32, 96) holds src's [64, 96)


def test_dst_inside_a_src_gap():
    """src_stride=3: src bursts [0, 32) and [128, 160); dst's two contiguous bursts [32, 96) lie in the gap."""
    call = dm(dst=T("UB", 32), src=T("UB", 0), nburst=2, burst=1, src_stride=3)
    assert found(call) == []


def test_different_scopes_never_overlap():
    """GM and UB byte 0 are different memories."""
    assert found(dm(dst=T("UB", 0), src=T("GM", 0))) == []


def test_overlap_with_other_rules():
    """An overlapping call that also breaks a reject rule is a reject (reject wins over undefined)."""
    violations = check(dm(dst=T("UB", 0), src=T("UB", 0), sid=16))
    assert sorted((v.rule, v.severity) for v in violations) == [("data_move.overlap", "undefined"),
                                                                ("data_move.sid.range", "reject")]
    assert verdict_class(violations) == "reject"


# -- malformed calls are format errors, not rule violations --------------------------------------------

def test_unknown_api():
    with pytest.raises(CallFormatError, match=r"unknown api 'data_mov'.*data_move"):
        check(Call("data_mov", "ascend910b", dm().args))


def test_unknown_product():
    with pytest.raises(CallFormatError, match=r"unknown product 'ascend920'.*ascend910b"):
        check(dm("ascend920"))


@pytest.mark.parametrize("name", ["dst", "src", "sid", "nburst", "burst", "src_stride", "dst_stride"])
def test_missing_argument(name):
    args = dict(dm().args)
    del args[name]
    with pytest.raises(CallFormatError, match=rf"call\.args: missing argument '{name}' of data_move"):
        check(Call("data_move", "ascend910b", args))


def test_extra_argument():
    with pytest.raises(CallFormatError, match=r"call\.args\.repeat_times: data_move has no argument 'repeat_times'"):
        check(dm().replace(repeat_times=1))


def test_form_on_a_single_form_api():
    with pytest.raises(CallFormatError, match=r"call\.form: data_move has a single form"):
        check(Call("data_move", "ascend910b", dm().args, form="count"))


def test_operand_not_a_tensor():
    with pytest.raises(CallFormatError, match=r"call\.args\.dst: expected a tensor"):
        check(dm().replace(dst=64))


def test_not_a_call():
    with pytest.raises(CallFormatError, match="expected a Call"):
        check(dm().to_dict())


@pytest.mark.parametrize("value", ["2", 2.0, True, None, [2]])
def test_a_parameter_that_is_not_an_integer_is_a_format_error(value):
    """The index math trusts the parameter types, so check() refuses anything but an int up front."""
    call = Call("data_move", "ascend910b", {"dst": Tensor("UB", 0, "float16", 512), "src": Tensor("GM", 0, "float16", 512),
                                            "sid": 0, "nburst": value, "burst": 32, "src_stride": 0, "dst_stride": 0})
    with pytest.raises(CallFormatError, match=r"call.args.nburst: expected an integer"):
        check(call)
