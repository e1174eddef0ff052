"""Readings as data: every ambiguity of the specs lists its readings (id, sentence, sources,
legality, variant); the review's findings are recorded; `inferred` says what is inferred; a declared
reading decides the verdict of its region; a broken reading is refused at load time."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from oracle import SpecError, load_rulebook
from oracle.spec import DEFAULT_SPEC_DIR, INFERRED_ASPECTS, LEGALITIES, default_rulebook

ROOT = Path(__file__).resolve().parents[2]
BOOK = default_rulebook()
AMBIGUITIES = [a for spec in BOOK.apis.values() for a in spec.ambiguities]

# Readings these ambiguities have at least (each region's two plain outcomes).
PLAIN_READINGS = {
    "vec_trans_scatter.repeat_times.zero": {"nop", "reject"},
    "scatter.count.zero": {"nop", "reject"},
    "asc_gather.count.zero": {"nop", "reject"},
    "vec_trans_scatter.stride.single_repeat": {"ignored", "applied"},
    "data_move.sid.reserved": {"same_data", "undefined"},
}
# Where the TIK and C-API pages read two ways on repeat layouts, overlaps and zero repeats.
LAYOUTS_AND_OVERLAPS = {"scatter.offset.repeat_advance", "asc_gather.offset.repeat_advance", "asc_gather.repeat.layout",
                        "asc_gather.dst.repeat_overlap", "asc_gather.repeat.zero", "vec_trans_scatter.overlap.half_block",
                        "vec_trans_scatter.b32.older_products", "data_copy_nz2nd.srcNStride.max"}


# Where they read two ways on which write stays, what an 8-bit entry's half block reaches, strides past a
# field's width, and the zero counts of the repeat forms.
STAYS_REACHES_AND_ZEROS = {"scatter.repeatTimes.zero", "scatter.offset.duplicate", "data_copy_nz2nd.ndNum.zero",
                           "data_copy_nz2nd.srcNdMatrixStride.divisible", "asc_gather.dst_repeat_stride.max",
                           "vec_trans_scatter.dst.repeat_overlap", "vec_trans_scatter.src_list.half_block_bounds",
                           "vec_trans_scatter.dst_list.half_block_bounds"}
# The Ascend C data-movement family from the vendor's 2026 pages (their quotes: tests/rules/test_vendor_spec_quotes.py).
VENDOR_FAMILY = {a.id for api in ("data_copy", "data_copy_pad", "data_copy_nd2nz", "gather", "copy", "gatherb",
                                  "data_copy_slice")
                 if api in BOOK.apis for a in BOOK.api(api).ambiguities}


def test_the_list_of_ambiguities():
    ids = {a.id for a in AMBIGUITIES}
    assert LAYOUTS_AND_OVERLAPS <= ids and STAYS_REACHES_AND_ZEROS <= ids and VENDOR_FAMILY <= ids
    assert len(ids) == 18 + len(STAYS_REACHES_AND_ZEROS) + len(VENDOR_FAMILY)


@pytest.mark.parametrize("amb", AMBIGUITIES, ids=lambda a: a.id)
def test_every_reading_is_data(amb):
    """An id, a sentence, at least one source (a seed page with its text, or other material and what it
    says), a legality; a variant only for a legal region; the readings do not all say the same thing."""
    assert len(amb.readings) >= 2 and len({r.id for r in amb.readings}) == len(amb.readings)
    for r in amb.readings:
        assert re.fullmatch(r"[a-z0-9_]+", r.id) and r.sentence.strip()
        assert r.legality in LEGALITIES
        assert r.variant is None or r.legality == "legal"
        assert r.sources
        for s in r.sources:
            assert (s.page and s.quote) or (s.edition and s.quote) or (s.material and s.says), s
    assert len({(r.legality, r.variant) for r in amb.readings}) == len(amb.readings), "two readings alike"


@pytest.mark.parametrize("amb_id, ids", sorted(PLAIN_READINGS.items()))
def test_the_reading_ids_the_issue_names(amb_id, ids):
    assert ids <= {r.id for r in BOOK.ambiguity(amb_id).readings}


# Exact text of the seed pages the readings quote (transcribed: the kit does not read /work/shared).
PAGE_TEXT = {
    "000_4bcb8e5856d111e9.txt": [
        "重复迭代次数,repeat_times∈[0,255],单位:block。",
        "当 repeat_times 大于 1 时,第一次 repeat 中目的操作数/源操作数的有效起始位置为 dst_list/src_list 序列输入的起始位置,第二次需要加上 dst_rep_stride/src_rep_stride, 以此类推。",
        "指定 dst_list[*] 的数据存储到 block 的高半部还是低半部,该配置只支持 int8/uint8 的数据类型。",
        "指定 src_list[*] 的数据从 block 的高半部还是低半部读取,该配置只支持int8/uint8的数据类型。",
        "对于单次repeat(repeat_times=1),且源操作数序列与目的操作数序列之间要求100%完全重叠,不支持部分重叠,且每一个block都必须相等。",
        "对于多次repeat(repeat_times>1),若源操作数序列与目的操作数序列之间存在依赖,即第N次迭代的目的操作数是第N+1次的源操作数,这种情况是不支持地址重叠的。",
        "Atlas 200/300/500 推理产品,支持的数据类型为Tensor(int8/uint8/int16/uint16/float16/int32/uint32/float32)。",
        "Atlas 训练系列产品,支持的数据类型为Tensor(int8/uint8/int16/uint16/float16/int32/uint32/float32)。",
        "当src_list和dst_list 数据类型为int32/uint32/float32时, 需预留出11KB的编译空间。",
        "相邻迭代间,目的操作数相同 block 地址 stride,dst_rep_stride∈[0,65535],单位:block。支持的数据类型:Scalar(int16/int32/int64/uint16/uint32/uint64)、立即数(int)、Expr(int16/int32/int64/uint16/uint32/uint64)",
        "相邻迭代间,源操作数相同 block 地址 stride,src_rep_stride∈[0,65535],单位:block。支持的数据类型:Scalar(int16/int32/int64/uint16/uint32/uint64)、立即数(int)、Expr(int16/int32/int64/uint16/uint32/uint64)",
        "为了节省地址空间,开发者可以定义一个Tensor,供源操作数与目的操作数同时使用(即地址重叠),相关约束如下:",
    ],
    "001_e45651b2d591d11d.txt": ["SMMU ID,为硬件保留接口,输入0即可,取值范围:sid∈[0, 15],支持数据类型:Scalar(int32)"],
    "002_94c60850db7e14df.txt": [
        "__aicore__ inline void Scatter(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<uint32_t>& dstOffsetLocal, const uint32_t dstBaseAddr, const uint32_t count)",
        "执行处理的数据个数,不得超过srcLocal和dstOffsetLocal的元素个数。",
        "每个元素在dst中对应的地址偏移,地址偏移要大于等于0。该偏移量是相对于dst的基地址而言,支持数据类型(uint32_t)。每个数值的单位为Bytes。",
        "每个数值的单位为Bytes。",
        "当操作数为8位或16位时,mask∈[1, 128]",
        "指令迭代次数,每次迭代完成8个datablock的数据收集,数据范围:repeatTimes∈[0,255]。",
        "相邻迭代间的地址步长,单位是datablock。",
    ],
    "003_5f0a5de14d724856.txt": [
        "将src按照src_offset给定的偏移按元素收集到dst中。",
        "__ubuf__ uint32_t* src_offset, uint32_t count) __aicore__",
        "__ubuf__ uint32_t* src_offset, uint16_t dst_repeat_stride, uint8_t repeat)",
        "| src_offset | 输入 | 源操作数的每个元素对应的地址偏移,该偏移量相对于源操作数的起始基地址而言,单位为Bytes。 |",
        "| count | 输入 | 参与计算的元素个数。 |",
        "| dst_repeat_stride | 输入 | 目的操作数相邻迭代间相同DataBlock的地址步长。 |",
        "| repeat | 输入 | 迭代次数。 |",
        "- src_offset里的偏移量取值应保证src元素类型位宽对齐。",
        "- 操作数地址重叠约束请参考通用地址重叠约束。",
    ],
    "004_dc35eb371305363d.txt": ["源同一NZ矩阵的相邻Z排布的偏移(头与头),取值范围:srcNStride∈[0, 4096],单位16个元素。",
                                 "传输NZ矩阵的数目,取值范围:ndNum∈[0, 4095]。",
                                 "源相邻NZ矩阵的偏移(头与头),取值范围:srcNdMatrixStride∈[1, 512],单位256 (16 * 16) 个元素。"],
}


def test_every_seed_quote_of_a_reading_is_page_text():
    quotes = [(s.page, s.quote) for a in AMBIGUITIES for r in a.readings for s in r.sources
              if s.page and not s.page.startswith("asc-devkit@")]
    assert quotes
    for page, quote in quotes:
        assert any(quote in line for line in PAGE_TEXT[page]), (page, quote)


def test_quote_check_is_not_vacuous():
    assert not any("repeat_times∈[1,255]" in line for line in PAGE_TEXT["000_4bcb8e5856d111e9.txt"])


def test_other_material_is_named():
    """The review's non-page sources: the vendor's Ascend C implementation (offsets across repeats, the
    12-bit srcNStride), the English TIK page and Ascend C's TransDataTo5HD (b32 on 310 / 910)."""
    said = {a.id: " ".join(s.material for r in a.readings for s in r.sources if s.material) for a in AMBIGUITIES}
    assert "Ascend C implementation" in said["scatter.offset.repeat_advance"]
    assert "Ascend C implementation" in said["data_copy_nz2nd.srcNStride.max"]
    assert "TIK API reference (English)" in said["vec_trans_scatter.b32.older_products"]
    assert "TransDataTo5HD" in said["vec_trans_scatter.b32.older_products"]


# The 2026 Scatter page's sentence on the Ascend 950 ("该接口通过VF调用Reg矢量计算API实现兼容，当参数count或repeatTime取值为0
#时，不保证该接口被视为NOP"): a product the kit leaves out, contrasted with the others; it says nothing of them.
NOT_OF_THE_KIT = "不保证该接口被视为NOP"


@pytest.mark.parametrize("amb_id", ["scatter.count.zero", "scatter.repeatTimes.zero", "asc_gather.count.zero",
                                    "asc_gather.repeat.zero"])
def test_the_nop_readings_stand_on_the_kits_products(amb_id):
    """The zero-count readings cite the pages of the kit's products only: no source of any of their
    readings is the 950 sentence, nor any text naming a product outside the seven."""
    for r in BOOK.ambiguity(amb_id).readings:
        for source in r.sources:
            text = " ".join(t for t in (source.quote, source.says, source.material) if t)
            assert NOT_OF_THE_KIT not in text and "950" not in text and "Kirin" not in text, (amb_id, r.id)
    assert {r.id for r in BOOK.ambiguity(amb_id).readings} >= {"nop", "reject"}


def test_no_reading_anywhere_cites_the_950_nop_sentence():
    assert not [(a.id, r.id) for a in AMBIGUITIES for r in a.readings for s in r.sources
                if NOT_OF_THE_KIT in " ".join(t for t in (s.quote, s.says, s.material) if t)]


# -- what is inferred ------------------------------------------------------------------------------

@pytest.mark.parametrize("rule_id, aspects", [
    ("scatter.repeatTimes.range", ()), ("data_copy_nz2nd.ndNum.range", ()),
    ("scatter.mask.continuous_64bit", ()), ("scatter.mask.bits_64bit", ()), ("vec_trans_scatter.dtype.same", ()),
    ("data_copy_nz2nd.product.supported", ()),
    ("scatter.srcLocal.bounds", ("extent", "severity")), ("scatter.dstOffsetLocal.bounds", ("extent", "severity")),
    ("asc_gather.offset.align", ("severity",)), ("asc_gather.src.reach", ("severity",)),
    ("vec_trans_scatter.overlap.single_repeat", ("severity",)),
    ("vec_trans_scatter.overlap.repeat_dependency", ("severity",)),
    ("vec_trans_scatter.overlap.repeat_same_iteration", ("severity", "extent")),
    ("data_move.overlap", ("rule",)),
])
def test_what_is_inferred(rule_id, aspects):
    rule = BOOK.api(rule_id.split(".")[0]).rule(rule_id)
    assert set(rule.inferred.aspects) == set(aspects)
    assert all(rule.inferred[a].strip() for a in aspects)


def test_inferred_aspects_everywhere():
    for spec in BOOK.apis.values():
        for rule in spec.rules:
            assert set(rule.inferred) <= set(INFERRED_ASPECTS), rule.id
            assert str(rule.inferred).startswith(rule.inferred.aspects[0]) if rule.inferred else str(rule.inferred) == ""


def test_iteration_overlap_severities_agree():
    """vec_trans_scatter's three src/dst overlap rules: reject, each saying why (TIK's frontend)."""
    spec = BOOK.api("vec_trans_scatter")
    for rid in ("single_repeat", "repeat_dependency", "repeat_same_iteration"):
        rule = spec.rule(f"vec_trans_scatter.overlap.{rid}")
        assert rule.severity == "reject" and "TIK" in rule.inferred["severity"]


def test_310b_ub_cites_cann():
    source = BOOK.product("ascend310b").figures["UB"]["source"]
    assert source.startswith("Public CANN material") and "248 KB" in source


def test_specs_command_shows_what_is_inferred():
    """Every API in one line a rule; one API (--api) every rule whole, its inferred parts with why; and
    the same as JSON (--format json)."""
    def specs(*args):
        done = subprocess.run([sys.executable, "-m", "conformance", "specs", *args], cwd=ROOT,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return done.stdout
    short = specs()
    assert re.search(r"asc_gather\.src\.reach\s+reach\s+\(inferred: severity\)", short)
    assert re.search(r"asc_gather\.dst\.align\s+align\s+「", short)
    whole = specs("--api", "asc_gather")
    assert "asc_gather.src.reach  (undefined, reach)" in whole
    reach = BOOK.api("asc_gather").rule("asc_gather.src.reach")
    assert f"inferred severity: {' '.join(reach.inferred['severity'].split())}" in whole
    assert f"quote: {' '.join(reach.quote.split())}" in whole              # the quote whole, not cut
    assert "reading datablocks (legal)" in whole and "reading nop (legal)" in whole
    paths = specs("--api", "data_move")
    assert '"ascend310p-vectorcore": ["UB->GM", "UB->UB", "GM->UB"]' in paths            # the paths per product
    import json
    data = json.loads(specs("--api", "scatter", "--format", "json"))
    rules = {r["id"]: r for r in data["apis"]["scatter"]["rules"]}
    assert rules["scatter.mask.bits_32bit"]["quote_reads"].startswith("(0, 264-1] is (0, 2^64-1]")
    assert rules["scatter.dstLocal.reach"]["editions"]["2026"]["quote"] == "偏移地址后不能超出UB大小数据的范围。"
    assert {a["id"] for a in data["apis"]["scatter"]["ambiguities"]} >= {"scatter.offset.duplicate"}


# -- declaring readings ----------------------------------------------------------------------------

def test_unknown_ambiguity_or_reading_is_named():
    with pytest.raises(ValueError, match="unknown ambiguity 'scatter.count.zer0'"):
        BOOK.with_readings({"scatter.count.zer0": "nop"})
    with pytest.raises(ValueError, match=r"no reading 'noop' \(readings: nop, reject\)"):
        BOOK.with_readings({"scatter.count.zero": "noop"})


def test_declared_book_is_cached_and_leaves_the_default_alone():
    a = BOOK.with_readings({"scatter.count.zero": "nop"})
    assert a is BOOK.with_readings({"scatter.count.zero": "nop"})
    assert a.ambiguity("scatter.count.zero").declared.id == "nop"
    assert BOOK.ambiguity("scatter.count.zero").declared is None
    assert BOOK.ambiguity("scatter.count.zero").legality == "undefined"


# -- broken readings are refused -------------------------------------------------------------------

@pytest.fixture
def specs_copy(tmp_path) -> Path:
    target = tmp_path / "specs"
    shutil.copytree(DEFAULT_SPEC_DIR, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def edit(folder: Path, change) -> None:
    path = folder / "data_move.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")


@pytest.mark.parametrize("change, fragment", [
    (lambda d: d["ambiguities"][0]["readings"][1].update(id="same_data"), "duplicate reading id 'same_data'"),
    (lambda d: d["ambiguities"][0]["readings"][1].update(legality="maybe"), "'maybe' is not one of"),
    (lambda d: d["ambiguities"][0]["readings"][1].update(variant="v"), "only a legal one has a variant"),
    (lambda d: d["ambiguities"][0]["readings"][0].update(sources=[]), "readings[0].sources"),
    (lambda d: d["ambiguities"][0]["readings"][0].update(sources=[{"page": "001_e45651b2d591d11d.txt"}]),
     "readings[0].sources[0]"),
    (lambda d: d["ambiguities"][0].update(overrides=["data_move.sid.rnage"]), "'data_move.sid.rnage' is not a rule"),
    (lambda d: d["rules"][0].update(inferred="a bare string"), "is not of type 'object'"),
    (lambda d: d["rules"][0].update(inferred={"scope": "x"}), "'scope'"),
])
def test_broken_reading_or_inference_is_refused(specs_copy, change, fragment):
    edit(specs_copy, change)
    with pytest.raises(SpecError) as info:
        load_rulebook(specs_copy)
    assert fragment in str(info.value) and "data_move.yaml" in str(info.value)
