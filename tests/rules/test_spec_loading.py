"""Loading the rulebook: the shipped specs load and say what the data_move page says; a broken spec folder
is refused with a SpecError naming the file, the place inside it and the problem."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

import oracle
from oracle import SpecError, load_rulebook
import json

from oracle.spec import DEFAULT_SPEC_DIR, PARSED_FILE, VALIDATED_FILE, specs_digest

PRODUCTS = ["ascend310", "ascend910", "ascend310p-aicore", "ascend310p-vectorcore", "ascend310b", "ascend910b",
            "ascend910_93"]

# The sentences of 001_e45651b2d591d11d.txt (TIK data_move) that the spec encodes, transcribed verbatim
# (table cells keep the page's "cell |" layout; whitespace is collapsed before matching).
PAGE = """
data_move
功能说明
在src与dst间进行数据传输。支持src与dst的类型同时为Tensor。
Atlas 200/300/500 推理产品,支持UB->UB/UB->OUT/OUT->UB/OUT->L1
Atlas 训练系列产品,支持UB->UB/UB->OUT/OUT->UB/OUT->L1
Atlas推理系列产品AI Core,支持UB->UB/UB->OUT/OUT->UB/OUT->L1
Atlas推理系列产品Vector Core,支持UB->OUT/UB->UB/OUT->UB
Atlas A2训练系列产品/Atlas 800I A2推理产品,支持UB->UB/UB->OUT/OUT->UB/OUT->L1/L1->OUT
Atlas 200/500 A2推理产品,支持UB->UB/UB->OUT/OUT->UB/OUT->L1/L1->OUT
函数原型
data_move (dst, src, sid, nburst, burst, src_stride, dst_stride, *args, **argv)
参数说明
dst |
输出 |
目的操作数,支持数据类型参考表2。 若dst的scope为L1, 则要求地址偏移32Byte对齐 若dst的scope为UB,则要求地址偏移block_size对齐 。 |
src |
输入 |
源操作数,支持数据类型参考表2。 若src的scope为L1, 则要求地址偏移32Byte对齐 若src的scope为UB, 则要求地址偏移block_size对齐 。 |
sid |
输入 |
SMMU ID,为硬件保留接口,输入0即可,取值范围:sid∈[0, 15],支持数据类型:Scalar(int32)、立即数(int32)、Expr(int32)。 |
nburst |
输入 |
传输数据片段数据,即需要执行的搬运次数,取值范围:nburst∈[1, 4095],支持的数据类型为:Scalar(int32)、立即数(int32)、Expr(int32)。 |
burst |
输入 |
每次搬运的连续传输数据片段长度,取值范围:burst∈[1, 65535],单位:32B。 支持的数据类型为:Scalar(int16/int32/int64/uint16/uint32/uint64)、立即数(int)、Expr(int16/int32/int64/uint16/uint32/uint64)。 |
src_stride |
输入 |
源tensor相邻连续数据片段间隔(前 burst 尾与后 burst 头),取值范围:src_stride∈[0, 65535]。支持的数据类型为:Scalar(int16/int32/int64/uint16/uint32/uint64)、立即数(int)、Expr(int16/int32/int64/uint16/uint32/uint64)。 |
dst_stride |
输入 |
目的tensor相邻连续数据片段间隔(前 burst 尾与后 burst 头),取值范围:dst_stride∈[0, 65535]。支持的数据类型为:Scalar(int16/int32/int64/uint16/uint32/uint64)、立即数(int)、Expr(int16/int32/int64/uint16/uint32/uint64)。 |
src.scope |
dst.scope |
dtype (src需与dst保持一致) |
burst 单位 |
src_stride 单位 |
dst_stride 单位 |
---|---|---|---|---|---|
OUT |
L1 |
uint8, int8, float16, uint16, int16, float32, int32, uint32, uint64, int64 |
32B |
32B |
32B |
L1 |
OUT |
uint8, int8, float16, uint16, int16, float32, int32, uint32, uint64, int64 |
32B |
32B |
32B |
OUT |
UB |
uint8, int8, float16, uint16, int16, float32, int32, uint32, uint64, int64, |
32B |
32B |
32B |
UB |
OUT |
uint8, int8, float16, uint16, int16, float32, int32, uint32, uint64, int64, |
32B |
32B |
32B |
UB |
UB |
uint8, int8, float16, uint16, int16, float32, int32, uint32, uint64, int64 |
32B |
32B |
32B |
支持的型号
Atlas 200/300/500 推理产品
Atlas 训练系列产品
Atlas推理系列产品AI Core
Atlas推理系列产品Vector Core
Atlas A2训练系列产品/Atlas 800I A2推理产品
Atlas 200/500 A2推理产品
注意事项
无
返回值
无
"""
PAGE_FLAT = " ".join(PAGE.split())
# The page's product wording -> the kit's product ids (seeds/README.md).
PAGE_NAMES = {
    "Atlas 200/300/500 推理产品": ["ascend310"],
    "Atlas 训练系列产品": ["ascend910"],
    "Atlas推理系列产品AI Core": ["ascend310p-aicore"],
    "Atlas推理系列产品Vector Core": ["ascend310p-vectorcore"],
    "Atlas A2训练系列产品/Atlas 800I A2推理产品": ["ascend910b"],
    "Atlas 200/500 A2推理产品": ["ascend310b"],
}
# Rule kinds whose sentence no page states for data_move (the page's 注意事项 is "无").
UNSTATED_KINDS = {"bounds", "capacity", "overlap"}


def quote_fragments(quote: str) -> list[str]:
    """The pieces of a rule's quote that must each appear on the page: a quote may join several cells
    with ';' or ' / ', label a cell with 'name: ', and end with an ASCII-only note in parentheses."""
    text = " ".join(quote.split())
    text = re.sub(r"\s*\([ -~]*\)$", "", text)
    return [f for part in re.split(r"; | / ", text) for f in part.split(": ") if f]


def on_page(quote: str) -> bool:
    return all(fragment in PAGE_FLAT for fragment in quote_fragments(quote))


@pytest.fixture(scope="module")
def book():
    return load_rulebook()


@pytest.fixture(scope="module")
def spec(book):
    return book.api("data_move")


# -- the shipped specs ---------------------------------------------------------------------------

def test_default_rulebook_loads(book):
    assert sorted(book.products) == sorted(PRODUCTS)
    assert "data_move" in book.apis
    assert oracle.default_rulebook().apis.keys() == book.apis.keys()
    assert book.directory == DEFAULT_SPEC_DIR


def test_rule_ids_unique_and_prefixed(spec):
    ids = [r.id for r in spec.rules] + [a.id for a in spec.ambiguities]
    assert len(ids) == len(set(ids))
    assert all(i.startswith("data_move.") for i in ids)


def test_data_move_rule_ids(spec):
    """The rule set the checker tests rely on (data_move/test_check.py has one test per id)."""
    assert {r.id for r in spec.rules} == {
        "data_move.product.supported", "data_move.path.supported", "data_move.dtype.supported",
        "data_move.dtype.same", "data_move.sid.range", "data_move.nburst.range", "data_move.burst.range",
        "data_move.src_stride.range", "data_move.dst_stride.range", "data_move.dst.align.L1",
        "data_move.dst.align.UB", "data_move.src.align.L1", "data_move.src.align.UB", "data_move.src.bounds",
        "data_move.dst.bounds", "data_move.src.capacity", "data_move.dst.capacity", "data_move.overlap"}
    assert [a.id for a in spec.ambiguities] == ["data_move.sid.reserved"]


def test_every_rule_quotes_the_page(spec):
    for rule in list(spec.rules) + list(spec.ambiguities):
        assert rule.quote.strip(), rule.id
        assert rule.page == "001_e45651b2d591d11d.txt", rule.id


def test_quotes_not_on_the_page_are_marked_inferred(spec):
    """A rule whose quote is not the page's own text must say so in `inferred`; the kinds the page never
    states (bounds, capacity, overlap: 注意事项 无) must say the rule itself is inferred, whatever they quote."""
    for rule in spec.rules:
        if rule.kind in UNSTATED_KINDS:
            assert rule.inferred.aspects == ("rule",) and rule.inferred["rule"].strip(), rule.id
        if not rule.inferred:
            assert on_page(rule.quote), f"{rule.id}: {quote_fragments(rule.quote)}"
    for amb in spec.ambiguities:
        assert on_page(amb.quote), amb.id


def test_quote_matcher_is_not_vacuous():
    assert on_page("sid: SMMU ID,为硬件保留接口,输入0即可,取值范围:sid∈[0, 15]")
    assert not on_page("sid: SMMU ID,为硬件保留接口,输入0即可,取值范围:sid∈[0, 16]")
    assert not on_page("burst: 每次搬运的连续传输数据片段长度,单位:64B。")


def test_ranges_match_the_page(spec):
    """'取值范围:sid∈[0, 15]' ... every 'name∈[lo, hi]' of the page is a range rule with those ends."""
    page_ranges = {m[0]: (int(m[1]), int(m[2])) for m in re.findall(r"(\w+)∈\[(\d+), (\d+)\]", PAGE_FLAT)}
    assert page_ranges == {"sid": (0, 15), "nburst": (1, 4095), "burst": (1, 65535),
                           "src_stride": (0, 65535), "dst_stride": (0, 65535)}
    spec_ranges = {r["param"]: (r["min"], r["max"]) for r in spec.rules if r.kind == "range"}
    assert spec_ranges == page_ranges
    assert all(r.severity == "reject" for r in spec.rules if r.kind == "range")


def test_paths_match_the_page(spec):
    """'<product>,支持UB->UB/UB->OUT/...' with OUT read as GM."""
    page_paths = {}
    for name, paths in re.findall(r"^(Atlas[^,\n]*),支持([A-Z0-9/>-]+)$", PAGE, flags=re.M):
        for pid in PAGE_NAMES[name]:
            page_paths[pid] = sorted(p.replace("OUT", "GM") for p in paths.split("/"))
    assert len(page_paths) == 6
    (rule,) = [r for r in spec.rules if r.kind == "path"]
    assert {p: sorted(v) for p, v in rule["allowed"].items()} == page_paths
    assert (rule["from"], rule["to"]) == ("src", "dst")


def test_supported_products_match_the_page(spec):
    section = PAGE.split("支持的型号")[1].split("注意事项")[0]
    page_products = sorted(pid for line in section.strip().splitlines() for pid in PAGE_NAMES[line.strip()])
    (rule,) = [r for r in spec.rules if r.kind == "product"]
    assert sorted(rule["products"]) == page_products
    assert "ascend910_93" not in rule["products"]


def test_path_table_matches_the_page(spec, book):
    """Every row of the table: the same ten dtypes, and 32B units for burst and both strides."""
    rows = re.findall(r"(OUT|L1|UB) \| (OUT|L1|UB) \| ([a-z0-9, ]+?),? \| (\d+)B \| (\d+)B \| (\d+)B", PAGE_FLAT)
    assert len(rows) == 5
    (dtype_rule,) = [r for r in spec.rules if r.kind == "dtype"]
    for src, dst, dtypes, *units in rows:
        path = f"{src}->{dst}".replace("OUT", "GM")
        assert spec.paths[path]["units"] == dict(zip(("burst", "src_stride", "dst_stride"), map(int, units)))
        assert sorted(dtypes.split(", ")) == sorted(dtype_rule["allowed"])
    assert set(spec.paths) == {f"{s}->{d}".replace("OUT", "GM") for s, d, *_ in rows}
    assert all(d in book.dtypes for d in dtype_rule["allowed"])


def test_alignment_rules_match_the_page(spec, book):
    """L1: '地址偏移32Byte对齐'; UB: '地址偏移block_size对齐' (block = 32 B on every product); GM: no rule."""
    got = {(r["operand"], r["scope"]): r["bytes"] for r in spec.rules if r.kind == "align"}
    assert got == {("dst", "L1"): 32, ("src", "L1"): 32, ("dst", "UB"): "block_bytes", ("src", "UB"): "block_bytes"}
    assert {p.block_bytes for p in book.products.values()} == {32}


def test_products_figures(book):
    """The products' figures: UB 256 KB (910, 310P, 310), 192 KB (910B, 910_93), 248 KB (310B); L1 1 MB /
    512 KB; the Vector Core has no L1. Every figure names its source."""
    ub = {p: book.product(p).capacity("UB") for p in PRODUCTS}
    assert ub == {"ascend310": 262144, "ascend910": 262144, "ascend310p-aicore": 262144,
                  "ascend310p-vectorcore": 262144, "ascend310b": 253952, "ascend910b": 196608,
                  "ascend910_93": 196608}
    l1 = {p: book.product(p).capacity("L1") for p in PRODUCTS}
    assert l1 == {"ascend310": 1 << 20, "ascend910": 1 << 20, "ascend310p-aicore": 1 << 20,
                  "ascend310p-vectorcore": None, "ascend310b": 1 << 20, "ascend910b": 1 << 19,
                  "ascend910_93": 1 << 19}
    assert not book.product("ascend310p-vectorcore").has_scope("L1")
    for p in PRODUCTS:
        for figure in book.product(p).figures.values():
            assert figure["source"].strip()


def test_sid_ambiguity(spec):
    """The reading ids: same_data (the stated range: legal) | undefined ('输入0即可'); each quote is
    on the page."""
    (amb,) = spec.ambiguities
    assert amb.region == {"params": {"sid": [1, 15]}}
    assert [(r.id, r.legality, r.variant) for r in amb.readings] == [("same_data", "legal", None),
                                                                      ("undefined", "undefined", None)]
    assert "输入0即可" in amb.quote
    for reading in amb.readings:
        assert reading.sources and all(s.page == spec.page and on_page(s.quote) for s in reading.sources)


# -- broken spec folders ---------------------------------------------------------------------------

@pytest.fixture
def specs_copy(tmp_path) -> Path:
    target = tmp_path / "specs"
    shutil.copytree(DEFAULT_SPEC_DIR, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def edit_yaml(folder: Path, name: str, change) -> None:
    path = folder / name
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")


def rule_index(data: dict, rule_id: str) -> int:
    return [r["id"] for r in data["rules"]].index(rule_id)


def shipped_rule_index(rule_id: str) -> int:
    return rule_index(yaml.safe_load((DEFAULT_SPEC_DIR / "data_move.yaml").read_text(encoding="utf-8")), rule_id)


def rule_of(data: dict, rule_id: str) -> dict:
    return data["rules"][rule_index(data, rule_id)]


def refused(folder: Path, *fragments: str) -> str:
    with pytest.raises(SpecError) as info:
        load_rulebook(folder)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"
    assert len(message) < 800, "a spec error should be readable, not a dump of the file"
    return message


def test_the_shipped_specs_are_recorded_as_validated():
    """A run loads the kit's specs without jsonschema because this test validated them: specs/VALIDATED
    holds the digest of the files as they are."""
    book = load_rulebook(validate=True)
    assert (DEFAULT_SPEC_DIR / VALIDATED_FILE).read_text().strip() == specs_digest(book.files), (
        "the specs changed since they were recorded validated: "
        'python -c "from oracle.spec import record_validated; record_validated()"')


def _in_order(value):
    """A document with its mappings as lists of pairs: equal only where the keys come in the same order."""
    if isinstance(value, dict):
        return [(k, _in_order(v)) for k, v in value.items()]
    if isinstance(value, list):
        return [_in_order(v) for v in value]
    return value


def test_the_shipped_specs_are_recorded_parsed():
    """specs/parsed.json is what the shipped YAML parses to, mappings in the YAML's order (the order of
    dtypes, products and parameters is what the strategies draw from), under the YAML's digest."""
    book = load_rulebook(validate=True)
    record = json.loads((DEFAULT_SPEC_DIR / PARSED_FILE).read_text(encoding="utf-8"))
    assert record["digest"] == specs_digest(book.files), (
        'the specs changed since they were recorded: python -c "from oracle.spec import record_validated; '
        'record_validated()"')
    assert _in_order(record["files"]) == _in_order({name: yaml.load(text, Loader=oracle.spec._loader())
                                                    for name, text in book.files.items()})


def test_the_parsed_record_is_read_in_place_of_the_yaml(monkeypatch):
    """The kit's own folder, recorded: no YAML parsed, the same rulebook."""
    validated = load_rulebook(validate=True)
    monkeypatch.setattr(oracle.spec, "_parse_yaml", lambda text, path: pytest.fail(f"{path.name} parsed"))
    assert load_rulebook() == validated


@pytest.mark.parametrize("damage", ["missing", "truncated", "other digest", "a file short"])
def test_a_damaged_parsed_record_is_passed_over(specs_copy, monkeypatch, damage):
    """The kit's folder with its parsed record missing, cut short, made from other bytes or missing a file:
    the YAML is parsed, and the rulebook is the same."""
    monkeypatch.setattr(oracle.spec, "DEFAULT_SPEC_DIR", specs_copy)
    path = specs_copy / PARSED_FILE
    record = json.loads(path.read_text(encoding="utf-8"))
    if damage == "missing":
        path.unlink()
    elif damage == "truncated":
        path.write_text(path.read_text(encoding="utf-8")[:5000], encoding="utf-8")
    elif damage == "other digest":
        record["files"]["data_move.yaml"]["api"] = "forged"
        path.write_text(json.dumps({**record, "digest": "0" * 64}), encoding="utf-8")
    else:
        del record["files"]["scatter.yaml"]
        path.write_text(json.dumps(record), encoding="utf-8")
    parsed = []
    real = oracle.spec._parse_yaml
    monkeypatch.setattr(oracle.spec, "_parse_yaml",
                        lambda text, where: parsed.append(where.name) or real(text, where))
    book = load_rulebook()
    assert parsed, "the YAML was not parsed"
    reference = load_rulebook(DEFAULT_SPEC_DIR, validate=True)
    assert (book.apis, book.products, book.dtypes) == (reference.apis, reference.products, reference.dtypes)


def test_recorded_specs_load_as_validated_ones(monkeypatch):
    """The same rulebook, and (the record's reason) no schema walked to get it."""
    validated = load_rulebook(validate=True)
    real = oracle.spec._validate
    monkeypatch.setattr(oracle.spec, "_validate", lambda data, schema, path: (
        pytest.fail(f"{path.name} validated again") if schema is not None else real(data, schema, path)))
    assert load_rulebook() == validated


def test_the_record_is_no_pass_for_a_changed_byte(specs_copy, monkeypatch):
    """The kit's folder with its record, one byte changed: validated, and refused."""
    monkeypatch.setattr(oracle.spec, "DEFAULT_SPEC_DIR", specs_copy)
    path = specs_copy / "data_move.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("severity: reject", "severity: rejekt", 1),
                    encoding="utf-8")
    refused(specs_copy, "data_move.yaml", "severity", "'rejekt'")


def test_the_record_passes_only_the_kits_folder(specs_copy):
    """Another folder is validated whatever record it holds: one forged for a broken spec included."""
    path = specs_copy / "data_move.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("severity: reject", "severity: rejekt", 1),
                    encoding="utf-8")
    files = {p.name: p.read_text(encoding="utf-8") for p in specs_copy.glob("*.yaml")}
    (specs_copy / VALIDATED_FILE).write_text(specs_digest(files) + "\n")
    refused(specs_copy, "data_move.yaml", "severity", "'rejekt'")


def test_copy_loads_unchanged(specs_copy):
    assert load_rulebook(specs_copy).api("data_move").rules == load_rulebook().api("data_move").rules


def test_round_tripped_yaml_loads(specs_copy):
    """The edit helper itself (load + dump) keeps a spec loadable: the failures below are the edits'."""
    edit_yaml(specs_copy, "data_move.yaml", lambda d: None)
    assert len(load_rulebook(specs_copy).api("data_move").rules) == 18


def test_bad_severity(specs_copy):
    i = shipped_rule_index("data_move.sid.range")
    edit_yaml(specs_copy, "data_move.yaml", lambda d: rule_of(d, "data_move.sid.range").update(severity="rejekt"))
    refused(specs_copy, "data_move.yaml", f"rules[{i}].severity", "'rejekt'", "reject", "undefined")


def test_misspelled_rule_field(specs_copy):
    i = shipped_rule_index("data_move.nburst.range")

    def change(d):
        rule = rule_of(d, "data_move.nburst.range")
        rule["parm"] = rule.pop("param")
    edit_yaml(specs_copy, "data_move.yaml", change)
    refused(specs_copy, "data_move.yaml", f"rules[{i}]", "'param' is a required property", "'parm'")


def test_misspelled_top_level_field(specs_copy):
    edit_yaml(specs_copy, "data_move.yaml", lambda d: d.update(dtype_off=d.pop("dtype_of")))
    refused(specs_copy, "data_move.yaml", "(top level)", "'dtype_off'")


def test_unknown_rule_kind(specs_copy):
    """The message names the bad kind, not only the fields it leaves unexplained."""
    i = shipped_rule_index("data_move.burst.range")
    edit_yaml(specs_copy, "data_move.yaml", lambda d: rule_of(d, "data_move.burst.range").update(kind="ranges"))
    message = refused(specs_copy, "data_move.yaml", f"rules[{i}].kind", "'ranges' is not one of")
    assert message.index("'ranges'") < message.index("Unevaluated")


def test_range_min_above_max(specs_copy):
    i = shipped_rule_index("data_move.nburst.range")
    edit_yaml(specs_copy, "data_move.yaml", lambda d: rule_of(d, "data_move.nburst.range").update(min=4096))
    refused(specs_copy, "data_move.yaml", f"rules[{i}]", "min 4096 is larger than max 4095")


def test_rule_id_without_api_prefix(specs_copy):
    i = shipped_rule_index("data_move.burst.range")
    edit_yaml(specs_copy, "data_move.yaml", lambda d: rule_of(d, "data_move.burst.range").update(id="datamove.burst.range"))
    refused(specs_copy, "data_move.yaml", f"rules[{i}].id", "'datamove.burst.range'", "must start with 'data_move.'")


def test_duplicate_rule_id(specs_copy):
    i = shipped_rule_index("data_move.burst.range")
    edit_yaml(specs_copy, "data_move.yaml", lambda d: rule_of(d, "data_move.burst.range").update(id="data_move.sid.range"))
    refused(specs_copy, "data_move.yaml", f"rules[{i}].id", "duplicate rule id 'data_move.sid.range'")


def test_ambiguity_id_clashing_with_rule(specs_copy):
    edit_yaml(specs_copy, "data_move.yaml", lambda d: d["ambiguities"][0].update(id="data_move.sid.range"))
    refused(specs_copy, "data_move.yaml", "ambiguities[0].id", "'data_move.sid.range'")


def test_unknown_param(specs_copy):
    i = shipped_rule_index("data_move.burst.range")
    edit_yaml(specs_copy, "data_move.yaml", lambda d: rule_of(d, "data_move.burst.range").update(param="bursts"))
    refused(specs_copy, "data_move.yaml", f"rules[{i}].param", "'bursts' is not a parameter of data_move")


def test_unknown_operand(specs_copy):
    i = shipped_rule_index("data_move.dst.align.UB")
    edit_yaml(specs_copy, "data_move.yaml", lambda d: rule_of(d, "data_move.dst.align.UB").update(operand="dest"))
    refused(specs_copy, "data_move.yaml", f"rules[{i}].operand", "'dest' is not an operand of data_move")


def test_unknown_operand_in_list(specs_copy):
    i = shipped_rule_index("data_move.overlap")
    edit_yaml(specs_copy, "data_move.yaml", lambda d: rule_of(d, "data_move.overlap").update(operands=["src", "dest"]))
    refused(specs_copy, "data_move.yaml", f"rules[{i}].operands[1]", "'dest'")


def test_unknown_dtype_in_allowed(specs_copy):
    i = shipped_rule_index("data_move.dtype.supported")
    edit_yaml(specs_copy, "data_move.yaml",
              lambda d: rule_of(d, "data_move.dtype.supported")["allowed"].__setitem__(0, "float8"))
    refused(specs_copy, "data_move.yaml", f"rules[{i}].allowed[0]", "unknown dtype 'float8'")


def test_bad_path_name(specs_copy):
    i = shipped_rule_index("data_move.path.supported")
    edit_yaml(specs_copy, "data_move.yaml",
              lambda d: rule_of(d, "data_move.path.supported")["allowed"]["ascend910"].append("UB->OUT"))
    refused(specs_copy, "data_move.yaml", f"rules[{i}].allowed.ascend910", "'UB->OUT'")


def test_unknown_product_in_path_rule(specs_copy):
    i = shipped_rule_index("data_move.path.supported")

    def change(d):
        allowed = rule_of(d, "data_move.path.supported")["allowed"]
        allowed["ascend911"] = allowed.pop("ascend910")
    edit_yaml(specs_copy, "data_move.yaml", change)
    refused(specs_copy, "data_move.yaml", f"rules[{i}].allowed", "'ascend911'")


def test_range_bound_not_an_integer(specs_copy):
    i = shipped_rule_index("data_move.sid.range")
    edit_yaml(specs_copy, "data_move.yaml", lambda d: rule_of(d, "data_move.sid.range").update(max="15"))
    refused(specs_copy, "data_move.yaml", f"rules[{i}].max", "'15' is not of type 'integer'")


def test_empty_quote(specs_copy):
    i = shipped_rule_index("data_move.dtype.same")
    edit_yaml(specs_copy, "data_move.yaml", lambda d: rule_of(d, "data_move.dtype.same").update(quote=""))
    refused(specs_copy, "data_move.yaml", f"rules[{i}].quote", "''")


def test_missing_quote(specs_copy):
    i = shipped_rule_index("data_move.dtype.same")
    edit_yaml(specs_copy, "data_move.yaml", lambda d: rule_of(d, "data_move.dtype.same").pop("quote"))
    refused(specs_copy, "data_move.yaml", f"rules[{i}]", "'quote' is a required property")


def test_unit_for_unknown_param(specs_copy):
    edit_yaml(specs_copy, "data_move.yaml", lambda d: d["paths"]["GM->L1"]["units"].update(bursts=32))
    refused(specs_copy, "data_move.yaml", "paths.GM->L1.units.bursts", "'bursts' is not a parameter of data_move")


def test_ambiguity_region_unknown_param(specs_copy):
    edit_yaml(specs_copy, "data_move.yaml", lambda d: d["ambiguities"][0].update(region={"params": {"sidd": [1, 15]}}))
    refused(specs_copy, "data_move.yaml", "ambiguities[0].region.params.sidd", "'sidd' is not a parameter")


def test_ambiguity_used_reading_out_of_range(specs_copy):
    edit_yaml(specs_copy, "data_move.yaml", lambda d: d["ambiguities"][0].update(used=2))
    refused(specs_copy, "data_move.yaml", "ambiguities[0].used", "there is no reading 2")


def test_invalid_yaml_syntax(specs_copy):
    path = specs_copy / "data_move.yaml"
    lines = path.read_text(encoding="utf-8").splitlines()
    n = next(k for k, line in enumerate(lines) if line.startswith("  sid: {}"))
    lines[n] = "  sid: {]"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    refused(specs_copy, "data_move.yaml", f"line {n + 1}", "not valid YAML")


def test_products_missing_ub(specs_copy):
    edit_yaml(specs_copy, "products.yaml", lambda d: d["products"]["ascend910b"].pop("UB"))
    refused(specs_copy, "products.yaml", "products.ascend910b", "'UB' is a required property")


def test_products_missing_a_product(specs_copy):
    edit_yaml(specs_copy, "products.yaml", lambda d: d["products"].pop("ascend910_93"))
    message = refused(specs_copy, "products.yaml", "products: missing product 'ascend910_93'")
    assert len(message) < 300


def test_products_figure_without_source(specs_copy):
    edit_yaml(specs_copy, "products.yaml", lambda d: d["products"]["ascend310b"]["UB"].pop("source"))
    refused(specs_copy, "products.yaml", "products.ascend310b.UB", "'source' is a required property")


def test_products_zero_size(specs_copy):
    edit_yaml(specs_copy, "products.yaml", lambda d: d["products"]["ascend910"]["L1"].update(value=0))
    refused(specs_copy, "products.yaml", "products.ascend910.L1.value", "0")


def test_long_value_is_shortened(specs_copy):
    """jsonschema quotes the offending value; a long one is cut so the message stays readable."""
    edit_yaml(specs_copy, "products.yaml",
              lambda d: d["products"]["ascend910"].update(names="Atlas 训练系列产品 " * 100))
    refused(specs_copy, "products.yaml", "products.ascend910.names", " ... ", "is not of type 'array'")


def test_dtype_with_odd_width(specs_copy):
    edit_yaml(specs_copy, "dtypes.yaml", lambda d: d["dtypes"]["float16"].update(bytes=3))
    refused(specs_copy, "dtypes.yaml", "dtypes.float16.bytes", "3")


def test_api_defined_twice(specs_copy):
    shutil.copy(specs_copy / "data_move.yaml", specs_copy / "data_move_copy.yaml")
    refused(specs_copy, "data_move_copy.yaml", "api 'data_move' is already defined in data_move.yaml")


def test_not_a_spec_folder(tmp_path):
    refused(tmp_path, str(tmp_path), "no schema.yaml")


def test_spec_error_is_a_value_error():
    assert issubclass(SpecError, ValueError)
