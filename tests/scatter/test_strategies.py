"""What the generators reach for Scatter (002_94c60850db7e14df.txt) and asc_gather
(003_5f0a5de14d724856.txt) under the `ci` profile: offset tensors in memory.

Cases are drawn as the runner draws them (tests/generate/test_strategies.collect). Checked: every cell generates
cases whose violations, evaluated on the memory they carry (the offsets are data), are exactly what the
label claims; the offsets reach permutations, collisions, the top of the allowed range and one past
it, and past UB; every mask shape; repeat 0 and 255; counts that are not a multiple of a repeat.
"""
from __future__ import annotations

import collections
from functools import lru_cache

import numpy as np
import pytest

from conformance.generate.cells import Cell, cells
from conformance.generate.case import Case
from oracle import check, verdict_class
from oracle.rules import context
from oracle.spec import default_rulebook
from tests.generate.test_strategies import collect

PRODUCTS = {"scatter": ["ascend310p-aicore", "ascend310b"], "asc_gather": ["ascend910b", "ascend910_93"]}
OFFSETS = {"scatter": "dstOffsetLocal", "asc_gather": "src_offset"}


@lru_cache(maxsize=None)
def _cells(api: str, product: str) -> tuple[Cell, ...]:
    return tuple(cells([product], [api], rulebook=default_rulebook()))


@lru_cache(maxsize=None)
def _cases(cell: Cell) -> tuple[Case, ...]:
    """The ci profile's cases on the first product of each API; a quarter as many on the second."""
    first = PRODUCTS[cell.api][0]
    return tuple(collect(cell) if cell.product == first else collect(cell, examples=30))


def _cell(api: str, product: str, tail: str) -> Cell:
    return next(c for c in _cells(api, product) if c.id == f"{api}/{product}/{tail}")


def _offsets(case: Case) -> np.ndarray:
    """The offsets the call reads, from the memory it carries."""
    api = case.call.api
    ctx = context(case.call, case.memory.build())
    tensor, runs = case.call.tensor(OFFSETS[api]), ctx.accesses[OFFSETS[api]]
    image = ctx.memory[tensor.scope]
    at = tensor.addr + np.asarray(runs.starts() if hasattr(runs, "at")
                                  else runs.first + runs.step * np.arange(runs.count))
    return np.stack([image[at + k] for k in range(4)], axis=1).copy().view("<u4").reshape(-1).astype(np.int64)


@pytest.mark.parametrize("api,product", [(a, p) for a, ps in PRODUCTS.items() for p in ps])
def test_every_cell_generates_what_it_claims(api: str, product: str) -> None:
    for cell in _cells(api, product):
        if cell.expect == "not_supported":
            continue
        cases = _cases(cell)
        assert cases, cell.id
        for case in cases:
            found = {v.rule for v in check(case.call, case.memory.build())}
            assert found == (set() if cell.expect == "legal" else {cell.rule}), (cell.id, found)
            assert verdict_class(check(case.call, case.memory.build())) == cell.expect


def test_cells_follow_forms_and_ambiguities() -> None:
    ids = {c.id for c in _cells("scatter", "ascend310b")}
    assert "scatter/ascend310b/legal/count/int8" in ids
    assert "scatter/ascend310b/legal/mask_bits/int8" not in ids       # the 8-bit repeat ambiguity
    assert "scatter/ascend310b/reject/scatter.mask.bits_64bit" not in ids   # no 64-bit dtype is legal
    aicore = {c.id for c in _cells("scatter", "ascend310p-aicore")}
    assert not any("offset.range" in i for i in aicore)              # the 310b line's sentence only
    # asc_gather's repeat form is the ambiguity asc_gather.repeat.layout: no legal cell
    assert {c.form for c in _cells("asc_gather", "ascend910b") if c.expect == "legal"} == {"count", "count_sync"}


def test_offset_shapes() -> None:
    """Legal cells draw every shape of distinct offsets, and never two alike (two equal offsets are the
    ambiguity scatter.offset.duplicate): its own cell draws them."""
    cases = [c for cell in _cells("scatter", "ascend310p-aicore") if cell.expect == "legal" for c in _cases(cell)]
    tags = collections.Counter(t for c in cases for t in c.tags)
    for shape in ("identity", "reversed", "permutation", "scattered", "top"):
        assert tags[f"dstOffsetLocal={shape}"], shape
    assert all(len(set(_offsets(c).tolist())) == _offsets(c).size for c in cases)
    (duplicate,) = [c for c in cells(["ascend310p-aicore"], ["scatter"], ambiguities=["scatter.offset.duplicate"],
                                     rulebook=default_rulebook()) if c.expect == "ambiguity"]
    drawn = collect(duplicate, examples=20)
    assert drawn and all(len(set(_offsets(c).tolist())) < _offsets(c).size for c in drawn)
    assert all("dstOffsetLocal=collide" in c.tags for c in drawn)
    permuted = [c for c in cases if _offsets(c).size > 2
                and sorted(_offsets(c).tolist()) == _offsets(c)[np.argsort(_offsets(c))].tolist()
                and not np.all(np.diff(_offsets(c)) > 0)]
    assert permuted


def test_offsets_at_the_top_of_the_range_and_one_past() -> None:
    """Atlas 200I/500 A2: 16-bit offsets in [0, 2^17-1]; past it, unexpected output (undefined)."""
    legal = [c for cell in _cells("scatter", "ascend310b")
             if cell.expect == "legal" and cell.dtype in ("uint16", "int16", "float16") for c in _cases(cell)]
    assert any(int(_offsets(c).max()) >= 131070 for c in legal)
    past = _cases(_cell("scatter", "ascend310b", "undefined/scatter.offset.range_16bit_310b"))
    assert past and all(int(_offsets(c).max()) > 131071 for c in past)
    beyond_ub = _cases(_cell("scatter", "ascend310b", "undefined/scatter.dstLocal.reach"))
    assert beyond_ub


@pytest.mark.parametrize("form", ["mask_bits"])
def test_every_mask_shape(form: str) -> None:
    cases = [c for cell in _cells("scatter", "ascend310p-aicore")
             if cell.expect == "legal" and cell.form == form for c in _cases(cell)]
    tags = collections.Counter(t for c in cases for t in c.tags)
    for shape in ("single", "all", "first", "last", "any"):
        assert tags[f"mask={shape}"], shape
    masks = {(c.call.args["dstLocal"].dtype, tuple(c.call.args["mask"])) for c in cases}
    assert ("float16", (2**64 - 1, 2**64 - 1)) in masks or ("uint16", (2**64 - 1, 2**64 - 1)) in masks
    assert any(m == (1, 0) for _, m in masks)


def test_repeat_one_and_255_legal_zero_in_its_ambiguity() -> None:
    """repeatTimes = 0 is the ambiguity scatter.repeatTimes.zero: legal cells reach 1 and 255, its own cell 0."""
    cases = [c for cell in _cells("scatter", "ascend310p-aicore")
             if cell.expect == "legal" and cell.form != "count" for c in _cases(cell)]
    repeats = {c.call.args["repeatTimes"] for c in cases}
    assert 0 not in repeats and 1 in repeats and 255 in repeats
    (zero,) = [c for c in cells(["ascend310p-aicore"], ["scatter"], ambiguities=["scatter.repeatTimes.zero"],
                                rulebook=default_rulebook()) if c.expect == "ambiguity"]
    assert {c.call.args["repeatTimes"] for c in collect(zero, examples=10)} == {0}


def test_counts_that_are_not_a_multiple_of_a_repeat() -> None:
    cases = [c for cell in _cells("asc_gather", "ascend910b")
             if cell.expect == "legal" and cell.form == "count" for c in _cases(cell)]
    per = {c.call.args["count"] % (256 // {"int16": 2, "uint16": 2, "float16": 2, "bfloat16": 2}.get(
        c.call.args["dst"].dtype, 4)) for c in cases}
    assert per - {0}


def test_the_offsets_shortcuts_give_what_numpy_unique_gives() -> None:
    """Drawing offsets takes the distinct entries a call reads, and asks whether offsets repeat, without
    np.unique's hashing: a look at neighbours, a mark per value; both must agree with np.unique on sorted,
    unsorted, repeating, narrow and wide values."""
    from conformance.generate.offset_tensors import _alike, sorted_unique
    rng = np.random.default_rng(0)
    for n in (0, 1, 2, 3, 64, 5000):
        for top in (2, 300, 1 << 40):
            values = rng.integers(0, top, n, dtype=np.int64)
            for shaped in (values, np.sort(values), np.sort(values)[::-1].copy()):
                want = np.unique(shaped)
                got = sorted_unique(shaped)
                assert got.dtype == want.dtype and np.array_equal(got, want)
                for positions in (np.arange(n), rng.permutation(n)[:n // 2]):
                    repeats = np.unique(shaped[positions]).size < positions.size
                    assert _alike(shaped, positions) == (positions.size > 1 and repeats)
                    assert _alike(shaped, rng.permutation(n)) == (n > 1 and np.unique(shaped).size < n)


def test_the_free_slots_counted_are_the_free_slots_listed() -> None:
    """Whether distinct offsets need more slots is told by counting the slots no operand's bytes touch,
    without listing them: the count must be the size of the list (free_slots) whatever the spans (apart,
    overlapping, nested, off the grid, below and past the slots), and infinite where it lists none."""
    from conformance.generate.free_slots import free_count, free_slots
    rng = np.random.default_rng(1)
    for _ in range(3000):
        low, width = int(rng.integers(0, 64)), int(rng.choice([1, 2, 4, 8, 32]))
        slots = int(rng.integers(1, 40))
        spans = []
        for _ in range(int(rng.integers(0, 4))):
            b = int(rng.integers(0, low + slots * width + 64))
            spans.append((b, b + int(rng.integers(1, 3 * width + 8))))
        listed = free_slots(spans, low, width, slots)
        assert free_count(spans, low, width, slots) == (float("inf") if listed is None else listed.size), \
            (spans, low, width, slots)


def test_a_case_key_tells_offsets_apart_by_every_byte() -> None:
    """Two cases of one call share a key exactly where their offsets are the same bytes: offsets that
    begin and end alike and differ in one entry between (the key's hash reads only their ends) are
    two keys, and the same values written anew are one."""
    from conformance.generate.memory import MemoryRecipe, Write
    case = _cases(_cell("scatter", "ascend310p-aicore", "legal/count/uint16"))[0]
    values = np.arange(4096, dtype=np.int64) * 2

    def keyed(offsets: np.ndarray) -> Case:
        memory = MemoryRecipe(case.memory.seed, case.memory.sizes, (Write.of("UB", 0, "uint32", offsets),))
        return Case(case.call, memory, case.expect)

    moved = values.copy()
    moved[2000] += 1
    assert keyed(values).key == keyed(values.copy()).key
    assert hash(keyed(values).key) == hash(keyed(moved).key) and keyed(values).key != keyed(moved).key
    assert keyed(values).key != keyed(values[:-1]).key
    assert len({keyed(values).key, keyed(values.copy()).key, keyed(moved).key}) == 2


def test_identity_and_reversed_offsets_made_at_once_are_their_slots_offsets() -> None:
    """Identity and reversed offsets over every slot are made in one step (an arange): the same int64
    values as the slots chosen, times the width, plus the shift."""
    from conformance.generate.offset_tensors import Offsets
    for width in (1, 4, 6, 32):
        for shift in (0, 2, 96):
            for n in (1, 2, 7, 3000):
                values = Offsets.__new__(Offsets)
                values.width, values.shift, values.slots = width, shift, n
                for style in ("identity", "reversed"):
                    got = values.placed(style, None, n)
                    want = values.chosen(style, None, n) * width + shift
                    assert got.dtype == np.int64 and got.flags.writeable and np.array_equal(got, want)
