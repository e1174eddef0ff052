"""The vendor's 2026 pages as a second edition: every sentence the specs quote from it is its text; the
ambiguities it settles are read as it settles them under --edition 2026 (a contrary declaration refused);
the report names the edition; `specs --editions` lists what differs, rule by rule."""
from __future__ import annotations

import json

import pytest

from command import cli
from conformance.backends.contract import BackendLoadError, OracleBackend
from conformance.backends.declared_readings import declare, edition_described
from oracle import SpecError, load_rulebook
from oracle.spec import SEED, default_rulebook
from tests.rules.test_spec_loading import edit_yaml, refused, specs_copy  # noqa: F401  (a fixture)

BOOK = default_rulebook()

# The sentences of the 2026 pages (asc-devkit@0da921b9, docs/zh/api/...) the specs quote, transcribed as
# they render (link targets and emphasis marks dropped; a table row as "cell | cell"). The kit does not
# read /work/shared.
EDITION_TEXT = {
    "scatter": [
        "Atlas 200I/500 A2 推理产品：支持",
        "Atlas 推理系列产品AI Core：支持",
        "Atlas 推理系列产品AI Core，支持的数据类型为：uint16_t、half、uint32_t、float。",
        "Atlas 200I/500 A2 推理产品，支持的数据类型为：int8_t、uint8_t、int16_t、uint16_t、half、int32_t、uint32_t、float。",
        "参数取值范围和操作数的数据类型有关，数据类型不同，能够处理的元素个数最大值不同，最大处理的数据量不能超过UB大小限制。",
        "用于指定dst的起始偏移地址，单位为字节。取值应保证dst元素类型位宽对齐，否则会导致非预期行为。",
        "repeatTime取值范围：repeatTime∈[0,255]。",
        "针对以下型号，地址偏移的取值范围：当操作数为8位时，取值范围为[0, 2^16-1]；当操作数为16位时，取值范围为[0, 2^17-1]，当操作数为32位或者64位时，不能超出uint32_t的范围。",
        "Atlas 200I/500 A2 推理产品",
        "目的操作数，类型为LocalTensor，存储位置为UB（TPosition为VECIN/VECCALC/VECOUT）。 LocalTensor的起始地址需要按照32字节对齐。",
        "源操作数，类型为LocalTensor，存储位置为UB（TPosition为VECIN/VECCALC/VECOUT）。 LocalTensor的起始地址需要按照32字节对齐。",
        "每个元素在dst中对应的地址偏移，类型为LocalTensor，存储位置为UB（TPosition为VECIN/VECCALC/VECOUT）。 LocalTensor的起始地址需要32字节对齐。",
        "偏移地址后不能超出UB大小数据的范围。",
        "操作数地址重叠约束请参考通用地址重叠约束。",
        "偏移地址不能有相同值，如果存在2个或者多个偏移重复的情况，行为是不可预期的。",
        "dstBaseAddr的取值应保证dst元素类型位宽对齐，否则会导致非预期行为，程序没有崩溃报错，但数据发生错位，导致结果张量不符合预期。",
        "针对以下型号，当操作数为8位时，每次迭代完成4个DataBlock的数据收集；其他情况下，每次迭代完成8个DataBlock的数据收集。",
    ],
    "asc_gather": ["将src按照src_offset给定的偏移按元素收集到dst中。"],
    "data_copy_nz2nd": [
        "该接口为软仿接口，从易用性角度出发进行设计，支持在从Unified Buffer到Global Memory的数据搬运过程中进行NZ到ND格式的转换。",
        "Nz2NdParamsFull结构体参数的值需在取值范围内：",
        "ndNum | [0, 4095]", "nValue | [1, 8192]", "dValue | [1, 8192]", "srcNdMatrixStride | [1, 512]",
        "srcNStride | [0, 4096]", "dstDStride | [1, 65535]", "dstNdMatrixStride | [1, 65535]",
    ],
}
SETTLED_2026 = {"scatter.offset.duplicate": "undefined", "scatter.offset.unaligned": "undefined",
                "scatter.repeat.8bit": "per_repeat_128"}


def _fragments(quote: str) -> list[str]:
    """A quote joins pieces of the page with ' ... ' or ' / ', or puts a table row after a sentence."""
    import re
    return [f.strip() for f in re.split(r" \.\.\. | / |： (?=\w+ \|)", quote) if f.strip()]


def _quotes(spec) -> list[str]:
    out = [r.editions[e]["quote"] for r in spec.rules for e in r.editions]
    out += [a.settled[e]["quote"] for a in spec.ambiguities for e in a.settled]
    out += [s.quote for a in spec.ambiguities for r in a.readings for s in r.sources if s.edition]
    out += [st["quote"] for e in spec.editions.values() for st in e.get("statements", ())]
    return out


@pytest.mark.parametrize("api", sorted(EDITION_TEXT))
def test_every_quote_of_the_2026_edition_is_its_text(api):
    quotes = _quotes(BOOK.api(api))
    assert quotes
    for quote in quotes:
        for fragment in _fragments(quote):
            assert any(fragment in line for line in EDITION_TEXT[api]), (api, fragment)


def test_the_quote_check_is_not_vacuous():
    assert not any("每次迭代完成8个datablock" in line for line in EDITION_TEXT["scatter"])
    assert _fragments("a ... b / c") == ["a", "b", "c"]


def test_the_editions_and_what_2026_settles():
    assert BOOK.editions == (SEED, "2026")
    assert BOOK.settled("2026") == SETTLED_2026
    assert BOOK.settled(SEED) == {}
    with pytest.raises(ValueError, match="unknown edition '2027'"):
        BOOK.settled("2027")
    pages = BOOK.edition_pages("2026")
    assert pages["scatter"].startswith("asc-devkit@0da921b9:docs/zh/api/") and pages["data_move"] == BOOK.api("data_move").page


def test_a_settled_reading_is_the_edition_s_and_a_contrary_one_is_refused():
    declared = declare(OracleBackend(), "oracle", rulebook=BOOK, edition="2026")
    assert declared.readings == SETTLED_2026 and set(declared.by.values()) == {"edition 2026"}
    assert declared.rulebook.ambiguity("scatter.repeat.8bit").declared.id == "per_repeat_128"
    same = declare(OracleBackend({"scatter.offset.duplicate": "undefined"}), "oracle", rulebook=BOOK, edition="2026")
    assert same.readings == SETTLED_2026
    with pytest.raises(BackendLoadError, match="backend declares scatter.offset.duplicate=one_survives, which the "
                                               "2026 edition of the pages settles on undefined"):
        declare(OracleBackend({"scatter.offset.duplicate": "one_survives"}), "oracle", rulebook=BOOK, edition="2026")
    with pytest.raises(BackendLoadError, match="command line declares scatter.repeat.8bit=per_repeat_256"):
        declare(OracleBackend(), "oracle", {"scatter.repeat.8bit": "per_repeat_256"}, rulebook=BOOK, edition="2026")
    free = declare(OracleBackend(), "oracle", {"scatter.count.zero": "nop"}, rulebook=BOOK, edition="2026")
    assert free.readings == {**SETTLED_2026, "scatter.count.zero": "nop"} and free.by["scatter.count.zero"] == "command line"


def test_the_results_say_the_edition():
    assert edition_described(None, BOOK) == {"name": SEED, "pages": BOOK.edition_pages(SEED)}
    assert edition_described("2026", BOOK)["pages"]["data_copy_nz2nd"].endswith("UBToGM随路转换NZ2ND搬运(DataCopy).md")


def test_an_edition_a_spec_does_not_record_is_refused(specs_copy):
    def settle_elsewhere(data):
        data["ambiguities"][0]["settled"] = {"2031": {"reading": "nop", "quote": "x"}}
    edit_yaml(specs_copy, "scatter.yaml", settle_elsewhere)
    refused(specs_copy, "scatter.yaml", "ambiguities[0].settled.2031", "edition '2031' is not in the spec's editions")


def test_a_settlement_on_no_reading_is_refused(specs_copy):
    def settle_on_nothing(data):
        data["ambiguities"][0]["settled"] = {"2026": {"reading": "maybe", "quote": "x"}}
    edit_yaml(specs_copy, "scatter.yaml", settle_on_nothing)
    refused(specs_copy, "scatter.yaml", "ambiguities[0].settled.2026.reading", "'maybe' is not a reading")


def test_specs_editions_lists_what_differs(tmp_path):
    done = cli("specs", "--editions", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    for amb, reading in SETTLED_2026.items():
        assert f"ambiguity {amb}: settled on {reading}" in out
    assert "rule scatter.dstLocal.reach" in out and "偏移地址后不能超出UB大小数据的范围。" in out
    assert "data_move: no newer edition recorded" in out and "vec_trans_scatter: no newer edition recorded" in out
    assert "软仿接口" in out and "sentence for sentence" in out
    shown = cli("specs", "--edition", "2026", "--api", "scatter", cwd=tmp_path)
    assert shown.returncode == 0 and shown.stdout.count("<- settled by the 2026 edition") == 3
    wrong = cli("specs", "--edition", "2027", cwd=tmp_path)
    assert wrong.returncode == 2 and wrong.stderr.count("\n") == 1 and "unknown edition (known: seed, 2026)" in wrong.stderr


def test_run_under_the_2026_edition(tmp_path):
    """The reference under --edition 2026 conforms in the cells of the readings it settles; the report
    says the edition; a contrary --reading is one line, exit 2."""
    cells = ["scatter/ascend310b/ambiguity/scatter.repeat.8bit", "scatter/ascend310b/ambiguity/scatter.offset.duplicate"]
    args = ["run", "--backend", "oracle", "--product", "ascend310b", "--api", "scatter", "--profile", "quick",
            "--edition", "2026", "--report", str(tmp_path / "r")] + [a for c in cells for a in ("--select", c)]
    done = cli(*args, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "(the 2026 edition of the pages)" in done.stdout
    results = json.loads((tmp_path / "r" / "results.json").read_text())
    assert results["edition"]["name"] == "2026"
    assert results["readings"]["scatter.repeat.8bit"] == {"reading": "per_repeat_128", "by": "edition 2026"}
    assert {c["id"] for c in results["cells"]} == set(cells) and results["calls"] > 0
    assert "2026 edition of the vendor" in (tmp_path / "r" / "report-ascend310b.html").read_text()
    contrary = cli(*args, "--reading", "scatter.offset.duplicate=one_survives", cwd=tmp_path)
    assert contrary.returncode == 2 and "settles on undefined" in contrary.stderr
    assert contrary.stderr.count("\n") == 1
