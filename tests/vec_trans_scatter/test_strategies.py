"""What the generators reach for vec_trans_scatter under the `ci` profile (000_4bcb8e5856d111e9.txt).

Cases are drawn as the runner draws them (tests/generate/test_strategies.collect). Checked: every cell of every
supported product generates cases carrying exactly the violations their label claims; legal calls reach
the in-place single repeat, list entries scattered over the whole UB (up to its last block), the largest
repeat count with strides that keep every access inside UB, and all four 8-bit half combinations; the
overlap cells reach partial overlap and the iteration-to-next dependency; no generated call lies in an
ambiguity region.
"""
from __future__ import annotations

import collections
from functools import lru_cache

import pytest

from conformance.generate.cells import Cell, cells
from conformance.generate.case import Case
from oracle import check, verdict_class
from oracle.rules import context
from oracle.spec import default_rulebook
from tests.generate.test_strategies import collect

API = "vec_trans_scatter"
SUPPORTED = ["ascend310", "ascend910", "ascend310p-aicore", "ascend310p-vectorcore", "ascend310b", "ascend910b"]


@lru_cache(maxsize=None)
def _cells(product: str) -> tuple[Cell, ...]:
    return tuple(cells([product], [API], rulebook=default_rulebook()))


@lru_cache(maxsize=None)
def _cases(cell: Cell) -> tuple[Case, ...]:
    """The ci profile's cases on ascend910b (the reach tests look there); a quarter as many elsewhere,
    enough to see every cell generate what it claims on each product's UB and dtype list."""
    return tuple(collect(cell) if cell.product == "ascend910b" else collect(cell, examples=30))


def _cell(product: str, tail: str) -> Cell:
    return next(c for c in _cells(product) if c.id == f"{API}/{product}/{tail}")


def _legal_cases(product: str) -> list[Case]:
    return [case for c in _cells(product) if c.expect == "legal" for case in _cases(c)]


@pytest.mark.parametrize("product", SUPPORTED)
def test_every_cell_generates_what_it_claims(product: str) -> None:
    ids = {c.id for c in _cells(product)}
    assert f"{API}/{product}/reject/{API}.overlap.single_repeat" in ids
    dtypes = {c.dtype for c in _cells(product) if c.expect == "legal"}
    # 32-bit types on ascend310 / ascend910: the ambiguity vec_trans_scatter.b32.older_products
    assert dtypes == ({"int8", "uint8", "int16", "uint16", "int32", "uint32"} if product == "ascend310b"
                      else {"int8", "uint8", "int16", "uint16", "float16"} if product in ("ascend310", "ascend910")
                      else {"int8", "uint8", "int16", "uint16", "float16", "int32", "uint32", "float32"})
    for cell in _cells(product):
        if cell.expect == "not_supported":
            continue
        cases = _cases(cell)
        assert cases, cell.id
        for case in cases:
            found = {v.rule for v in check(case.call)}
            assert found == (set() if cell.expect == "legal" else {cell.rule}), (cell.id, found)
            assert verdict_class(check(case.call)) == cell.expect


def test_not_supported_on_a3() -> None:
    kinds = [c.expect for c in cells(["ascend910_93"], [API], rulebook=default_rulebook()) if c.expect != "reject"]
    assert kinds in ([], ["not_supported"])


def test_in_place_single_repeat_is_reached() -> None:
    in_place = [c.call for c in _legal_cases("ascend910b")
                if [t.addr for t in c.call.args["dst_list"]] == [t.addr for t in c.call.args["src_list"]]]
    assert any(call.args["repeat_times"] == 1 for call in in_place)


def test_partial_overlap_and_dependency_are_reached() -> None:
    single = _cases(_cell("ascend910b", f"reject/{API}.overlap.single_repeat"))
    assert all(c.call.args["repeat_times"] == 1 for c in single)
    shared = [c for c in single if {t.addr for t in c.call.args["dst_list"]} & {t.addr for t in c.call.args["src_list"]}]
    assert shared                  # some share blocks without being block for block the same
    dependent = _cases(_cell("ascend910b", f"reject/{API}.overlap.repeat_dependency"))
    assert {c.call.args["repeat_times"] for c in dependent} - {2}      # not only the smallest case
    assert _cases(_cell("ascend910b", f"undefined/{API}.overlap.dst_entries"))


def test_entries_scattered_over_the_whole_ub() -> None:
    cases = _legal_cases("ascend910b")
    ub = 196608
    tags = collections.Counter(t for c in cases for t in c.tags)
    assert tags["dst_list=scattered"] and tags["src_list=scattered"] and tags["dst_list=strided"]
    assert tags["UB=top"]
    highest = max(t.addr for c in cases for op in ("dst_list", "src_list") for t in c.call.args[op])
    assert highest >= ub - 4096
    lowest = min(t.addr for c in cases for op in ("dst_list", "src_list") for t in c.call.args[op])
    assert lowest == 0
    # an entry order that is not the address order (a backend must follow the list)
    assert any([t.addr for t in c.call.args["dst_list"]] != sorted(t.addr for t in c.call.args["dst_list"])
               for c in cases)


def test_largest_repeat_with_strides_inside_ub() -> None:
    cases = _legal_cases("ascend910b")
    top = [c.call for c in cases if c.call.args["repeat_times"] == 255]
    assert top
    assert any(call.args["dst_rep_stride"] > 0 and call.args["src_rep_stride"] > 0 for call in top)
    for call in top:            # every block of every repeat inside UB
        ctx = context(call)
        for name in ("dst_list", "src_list"):
            for _, t, runs in ctx.entries(name):
                assert t.addr + runs.end <= 196608


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
def test_every_8bit_half_combination(dtype: str) -> None:
    seen = {(c.call.args["src_high_half"], c.call.args["dst_high_half"])
            for c in _cases(_cell("ascend910b", f"legal/{dtype}"))}
    assert seen == {(False, False), (False, True), (True, False), (True, True)}


def test_no_call_in_an_ambiguity_region() -> None:
    for case in _legal_cases("ascend310b"):
        args = case.call.args
        assert args["repeat_times"] >= 1
        if args["repeat_times"] == 1:
            assert args["dst_rep_stride"] == args["src_rep_stride"] == 0
        if case.call.args["dst_list"][0].dtype not in ("int8", "uint8"):
            assert not args["dst_high_half"] and not args["src_high_half"]
