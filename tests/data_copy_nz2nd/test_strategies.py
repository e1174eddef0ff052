"""What the generators reach for DataCopy NZ->ND (004_dc35eb371305363d.txt) under the `ci` profile.

Cases are drawn as the runner draws them (tests/generate/test_strategies.collect). Checked: every cell of the
three products generates what it claims (each reject rule alone); legal calls reach the range ends that
fit in UB / GM: nValue 8192 with a narrow dValue (a whole 256 KB UB of one column block), dValue 8192
with a short nValue, srcNStride 0, ndNum 0 (an empty move) and large; dValue is always a multiple of 16.
"""
from __future__ import annotations

from functools import lru_cache

import pytest

from conformance.generate.cells import Cell, cells
from conformance.generate.case import Case
from oracle import check, verdict_class
from oracle.spec import default_rulebook
from tests.generate.test_strategies import collect

API = "data_copy_nz2nd"
PRODUCTS = ["ascend310p-aicore", "ascend910b", "ascend910_93"]


@lru_cache(maxsize=None)
def _cells(product: str) -> tuple[Cell, ...]:
    return tuple(cells([product], [API], rulebook=default_rulebook()))


@lru_cache(maxsize=None)
def _cases(cell: Cell) -> tuple[Case, ...]:
    """The ci profile's cases on ascend310p-aicore (256 KB of UB: nValue 8192 fits there); a quarter as
    many on the A2 / A3 products."""
    return tuple(collect(cell) if cell.product == "ascend310p-aicore" else collect(cell, examples=30))


def _legal(product: str) -> list[Case]:
    return [case for c in _cells(product) if c.expect == "legal" for case in _cases(c)]


def _fields(case: Case) -> dict[str, int]:
    return case.call.args["intriParams"]


@pytest.mark.parametrize("product", PRODUCTS)
def test_every_cell_generates_what_it_claims(product: str) -> None:
    kinds = {c.expect for c in _cells(product)}
    assert {"legal", "reject", "undefined"} <= kinds
    for cell in _cells(product):
        cases = _cases(cell)
        assert cases, cell.id
        for case in cases:
            found = {v.rule for v in check(case.call)}
            assert found == (set() if cell.expect == "legal" else {cell.rule}), (cell.id, found)
            assert verdict_class(check(case.call)) == cell.expect


def test_dtypes_per_product() -> None:
    """bfloat16 only on the A2 / A3 products (表4)."""
    legal = {p: {c.dtype for c in _cells(p) if c.expect == "legal"} for p in PRODUCTS}
    assert legal["ascend310p-aicore"] == {"int16", "uint16", "int32", "uint32", "float16", "float32"}
    assert legal["ascend910b"] == legal["ascend910_93"] == legal["ascend310p-aicore"] | {"bfloat16"}
    kinds = [c.expect for c in cells(["ascend310b"], [API], rulebook=default_rulebook())]
    assert kinds == ["reject"]      # product.supported only


def test_range_ends_that_fit() -> None:
    cases = [c for c in _legal("ascend310p-aicore") if _fields(c)["ndNum"] > 0]
    # nValue 8192 moves data only as one 16-element column block of 16-bit data filling the whole 256 KB
    # UB: a handful of calls per 120; drawn from more calls here, so that the check does not hang on one
    # or two draws (Hypothesis also mixes constants from the loaded modules into its draws).
    wide = [c for cell in _cells("ascend310p-aicore") if cell.expect == "legal" and cell.dtype in ("int16", "float16")
            for c in collect(cell, examples=400)]
    assert any(_fields(c)["nValue"] == 8192 and _fields(c)["ndNum"] > 0 for c in wide)   # all of UB
    assert any(_fields(c)["dValue"] == 8192 for c in cases)
    assert any(_fields(c)["srcNStride"] == 0 for c in cases)
    assert any(_fields(c)["ndNum"] >= 100 for c in cases)                  # many small matrices
    assert any(_fields(c)["dstDStride"] == 65535 or _fields(c)["dstNdMatrixStride"] == 65535 for c in cases)
    everything = _legal("ascend310p-aicore")
    assert not any(_fields(c)["ndNum"] == 0 for c in everything)       # the empty move: its ambiguity's cell
    assert all(_fields(c)["dValue"] % 16 == 0 for c in everything)
    (zero,) = [c for c in cells(["ascend310p-aicore"], [API], ambiguities=[f"{API}.ndNum.zero"],
                                rulebook=default_rulebook()) if c.expect == "ambiguity"]
    assert {_fields(c)["ndNum"] for c in collect(zero, examples=10)} == {0}


def test_off_multiple_and_overlapping_rows() -> None:
    off = _cases(next(c for c in _cells("ascend910b") if c.rule == f"{API}.dValue.multiple"))
    assert all(_fields(c)["dValue"] % 16 for c in off)
    rows = _cases(next(c for c in _cells("ascend910b") if c.rule == f"{API}.dst.rows_overlap"))
    assert any(_fields(c)["dstDStride"] < _fields(c)["dValue"] and _fields(c)["nValue"] > 1 for c in rows)
