"""The generator's sizing shortcuts give what the plain definitions give.

largest_fit (conformance/generate/sizing.py) guesses where each limit runs out (a secant step per limit, taken
again from the values it checked) and finishes by galloping and bisecting: whatever the guesses, its answer
is the largest value whose call fits, which a walk over every value finds as well. A Write made from an array (Write.of) makes its values Python ints only when asked:
it equals, prints, pickles and round-trips as the write made from those ints.
"""
from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.generate import draft as draft_module
from conformance.generate import sizing
from conformance.generate.environment import environment
from oracle.kinds import Retry
from conformance.generate.memory import MemoryRecipe, Write
from conformance.generate.draft import CallDraft, part
from conformance.generate.parameters import starting_point
from conformance.generate.sizing import fits
from conformance.generate.picks import Picks
from oracle.apis import index_math, offsets
from oracle.spec import default_rulebook


class _Lowest(Picks):
    """Every choice its first option, every integer its lowest: the simplest call of a frame."""

    def integer(self, lo: int, hi: int, label: str = "") -> int:
        return lo

    def choice(self, values, label: str = ""):
        return list(values)[0]

    def boolean(self, label: str = "") -> bool:
        return False

    def how(self, label: str = "") -> str:
        return "min"


FRAMES = [("data_move", "ascend910b", "float16", "GM->UB"), ("data_copy_nz2nd", "ascend910b", "float32", "UB->GM"),
          ("scatter", "ascend310b", "int8", None), ("asc_gather", "ascend910b", "float16", None),
          ("vec_trans_scatter", "ascend910b", "float16", None), ("data_copy_nd2nz", "ascend910b", "float16", None),
          ("copy", "ascend910b", "float32", None),      # these two with their dst writes kept apart (part)
          ("data_copy_pad", "ascend910b", "int16", "GM->UB")]      # parameters no footprint reads (UNSIZED)


def _start(api: str, product: str, dtype: str, path: str | None):
    env = environment(api, product, default_rulebook())
    form = env.spec.forms_or_default()[0]
    draft = CallDraft(form, env.operand_dtypes(dtype), env.operand_scopes(path or (env.paths() or [None])[0]))
    draft.counts = {op: d["entries"] for op, d in env.spec.operands.items() if "entries" in d}
    part(env, draft, None)
    try:
        return env, draft, starting_point(_Lowest(), env, draft, None)
    except Retry:
        pytest.skip(f"no call starts for {api} {dtype}")


@pytest.mark.parametrize("api, product, dtype, path", FRAMES)
def test_largest_fit_is_the_largest_value_that_fits(api, product, dtype, path):
    env, draft, start = _start(api, product, dtype, path)
    for name in start.names:
        ends = start.ends[name]
        if ends is None:
            continue
        lo, hi = ends
        top = sizing.largest_fit(env, draft, start.params, name, lo, hi, start.aligns)
        if top is None:
            assert not fits(env, draft, {**start.params, name: lo}, start.aligns)
            continue
        assert fits(env, draft, {**start.params, name: top}, start.aligns), name
        assert top == hi or not fits(env, draft, {**start.params, name: top + 1}, start.aligns), name
        # every value up to the top fits (the room only shrinks), checked on a walk near the top
        for v in range(max(lo, top - 64), top + 1):
            assert fits(env, draft, {**start.params, name: v}, start.aligns), (name, v)


@pytest.mark.parametrize("api, product, dtype, path", FRAMES)
def test_largest_fit_of_a_stepped_parameter_is_the_largest_multiple_that_fits(api, product, dtype, path):
    """A parameter drawn as a count of steps (dValue, a multiple of 16) is searched over its multiples
    alone: the answer is the largest multiple that fits, the one the search over every value rounds down to."""
    env, draft, start = _start(api, product, dtype, path)
    steps = {n: draft.frame.steps[n] for n in start.names if start.ends[n] is not None}
    for name, step in [*((n, s) for n, s in steps.items() if s > 1), *((n, 16) for n in steps)]:
        lo, hi = start.ends[name]
        lo, hi = -(-lo // step) * step, hi // step * step
        if lo > hi:
            continue
        every = sizing.largest_fit(env, draft, start.params, name, lo, hi, start.aligns)
        top = sizing.largest_fit(env, draft, start.params, name, lo, hi, start.aligns, step)
        assert top == (None if every is None or every < lo else every // step * step), (name, step)



def _off_alignment(start) -> list[dict]:
    """The frame's simplest parameters, and those with each integer raised by 7 (off any alignment) where
    its range holds that."""
    out = [start.params]
    for name, value in start.params.items():
        ends = start.ends.get(name)
        if type(value) is int and ends is not None and ends[0] <= value + 7 <= ends[1]:
            out.append({**start.params, name: value + 7})
    return out


@pytest.mark.parametrize("api, product, dtype, path", FRAMES)
def test_the_crossing_read_from_the_ends_is_the_searchs_answer(api, product, dtype, path, monkeypatch):
    """Where the operands of the binding scope grow evenly with the parameter, the search reads where their
    rounded ends take the room (sizing._crossing) and checks it and the step after it: the answers are
    those the secant, gallop and bisection find without it."""
    env, draft, start = _start(api, product, dtype, path)
    searched = [(params, name) for params in _off_alignment(start) for name in start.names if start.ends[name]]

    def answers() -> list:
        sizing._REMEMBERED.clear()
        return [sizing.largest_fit(env, draft, params, name, *start.ends[name], start.aligns)
                for params, name in searched]
    read = answers()
    monkeypatch.setattr(sizing, "_crossing", lambda *args: None)
    assert answers() == read


@pytest.mark.parametrize("name", ["dstBaseAddr", "count"])
def test_scatters_base_and_count_are_sized_in_four_rooms(name, monkeypatch):
    """dstBaseAddr moves dst alone, count grows dst, src and the offsets in one scope: the largest fit is
    read from their ends (the rounding leaves the room flat for up to an alignment's worth of values, which
    a bisection would walk) and checked, four rooms in all."""
    env, draft, start = _start("scatter", "ascend310b", "int8", None)
    assert draft.form == "count"
    worked = []
    real = sizing._spare_bytes_of
    monkeypatch.setattr(sizing, "_spare_bytes_of", lambda *args, **kw: worked.append(1) or real(*args, **kw))
    for params in _off_alignment(start):
        sizing._REMEMBERED.clear()
        worked.clear()
        top = sizing.largest_fit(env, draft, params, name, *start.ends[name], start.aligns)
        assert top is not None and fits(env, draft, {**params, name: top}, start.aligns)
        assert not fits(env, draft, {**params, name: top + 1}, start.aligns)
        assert len(worked) <= 4, len(worked)

@pytest.mark.parametrize("api, dtype, busy", [
    ("data_copy_nd2nz", "float16", {"intriParams.ndNum": 3, "intriParams.nValue": 5, "intriParams.dValue": 40}),
    ("copy", "float32", {"repeatTime": 7})])
def test_largest_fit_of_a_stride_kept_apart(api, dtype, busy):
    """A dst stride whose writes are kept apart is raised to the least value that parts them wherever it is
    drawn lower (the room is flat below it): the largest fit is still the largest value that fits, and every
    value from the bottom of its range fits."""
    env, draft, start = _start(api, "ascend910b", dtype, None)
    assert draft.parted == ("dst",)
    params = {**start.params, **{n: v for n, v in busy.items() if n in start.params}}
    for name in start.names:
        lo, hi = start.ends[name]
        top = sizing.largest_fit(env, draft, params, name, lo, hi, start.aligns)
        assert top is not None, name
        assert fits(env, draft, {**params, name: top}, start.aligns), name
        assert top == hi or not fits(env, draft, {**params, name: top + 1}, start.aligns), name
        for v in [*range(lo, min(top, lo + 64) + 1), *range(max(lo, top - 64), top + 1)]:
            assert fits(env, draft, {**params, name: v}, start.aligns), (name, v)



@pytest.mark.parametrize("dtype", ["int16", "uint8"])
def test_largest_fit_past_a_gap_of_lanes(dtype):
    """vec_trans_scatter's dst entries kept apart in lanes: a dst_rep_stride with fewer lanes than entries
    needs a second group of lanes, so the room falls and rises again as the stride grows. The largest fit
    is still the largest value that fits (none above it does, as far as the packed entries could reach),
    past values below it that do not fit."""
    env, draft, start = _start("vec_trans_scatter", "ascend910b", dtype, None)
    params = {**start.params, "repeat_times": 255}
    lo, hi = start.ends["dst_rep_stride"]
    top = sizing.largest_fit(env, draft, params, "dst_rep_stride", lo, hi, start.aligns)
    assert top is not None and fits(env, draft, {**params, "dst_rep_stride": top}, start.aligns)
    assert not any(fits(env, draft, {**params, "dst_rep_stride": v}, start.aligns)
                   for v in range(top + 1, min(hi, top + 4096) + 1))
    gaps = [v for v in range(lo, top) if not fits(env, draft, {**params, "dst_rep_stride": v}, start.aligns)]
    assert gaps, "the room of this call should fall and rise again below its largest fit"

def test_a_write_of_an_array_is_the_write_of_its_values():
    values = np.array([7, 0, 4096, 2**32 - 1], dtype=np.int64)
    made = Write.of("UB", 64, "uint32", values)
    plain = Write("UB", 64, "uint32", (7, 0, 4096, 2**32 - 1))
    assert made == plain and hash(made) == hash(plain) and repr(made) == repr(plain)
    assert made.data.tobytes() == plain.data.tobytes()
    assert type(made.values[0]) is int
    values[0] = 1                                   # the write keeps its own copy
    assert made.values[0] == 7
    again = pickle.loads(pickle.dumps(Write.of("UB", 64, "uint32", np.array([1, 2], dtype=np.int64))))
    assert again == Write("UB", 64, "uint32", (1, 2))
    recipe = MemoryRecipe(3, {"UB": 1024}, (Write.of("UB", 64, "uint32", np.array([5, 6], dtype=np.int64)),))
    assert MemoryRecipe.from_dict(recipe.to_dict()) == recipe
    with pytest.raises(AttributeError):
        made.no_such_field


@given(repeat=st.integers(-1, 300), per=st.sampled_from([8, 16, 64, 128, 256]), width=st.sampled_from([1, 2, 4]),
       stride=st.integers(-512, 4096), follow=st.booleans(),
       mask=st.none() | st.integers(-2, 300) | st.tuples(st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1)))
@settings(max_examples=300, deadline=None)
def test_repeat_extents_are_the_arrays_ends(repeat: int, per: int, width: int, stride: int, follow: bool,
                                            mask) -> None:
    """A repeat form's extents in closed form (what sizing reads) are the ends and bytes moved of the
    arrays repeat_sides builds: element count, strided operand, offsets tensor."""
    key = (repeat, per, stride, width, mask, stride // width if follow else None)
    index, strided, entries = offsets.repeat_sides(key)
    n, strided_extent, entries_extent = offsets.repeat_extents(key)
    assert n == index.size
    assert (strided_extent.end, strided_extent.nbytes) == (strided.end, strided.nbytes)
    assert (entries_extent.end, entries_extent.nbytes) == (entries.end, entries.nbytes)


@pytest.mark.parametrize("api, product", [("scatter", "ascend310b"), ("asc_gather", "ascend910b")])
def test_extents_size_as_accesses_do(api: str, product: str) -> None:
    """The generator's sizing (draft_module.extents, closed form) reads of every operand of the drawn calls of
    every cell, ambiguity cells and their readings included, the end and bytes moved that accesses gives."""
    from conformance.generate.ambiguity import region
    from conformance.generate.cells import ambiguity_ids, cells
    seen, variant = 0, 0
    book = default_rulebook()
    for cell in cells([product], [api], rulebook=book, ambiguities=ambiguity_ids([api], rulebook=book)):
        plain = environment(api, product, book)
        env = region(api, product, cell.rule, book).env if cell.expect == "ambiguity" else plain
        variant += bool(env.variants)
        for case in cell.draw(6, 3, default_rulebook()):
            call = case.call
            draft = CallDraft(call.form, {op: call.tensor(op).dtype for op in env.spec.operands},
                          {op: call.tensor(op).scope for op in env.spec.operands})
            params = {n: call.args[n] for n in env.spec.params if n in call.args}
            try:
                plain = draft_module.accesses(env, draft, params)
            except Retry:
                continue
            closed = draft_module.extents(env, draft, params)
            assert list(closed) == list(plain)
            assert {op: (r.end, r.nbytes) for op, r in closed.items()} == \
                {op: (r.end, r.nbytes) for op, r in plain.items()}, (cell.id, call)
            seen += 1
    assert seen > 50 and variant           # ambiguity cells whose readings move bytes otherwise among them


@given(nd=st.integers(0, 4), rows=st.integers(0, 6), columns=st.integers(0, 70), src_matrix=st.integers(0, 300),
       src_row=st.integers(0, 90), c0_stride=st.integers(0, 9), row_stride=st.integers(0, 9),
       matrix_stride=st.integers(0, 99), dtype=st.sampled_from(["int8", "float16", "float32"]))
@settings(max_examples=300, deadline=None)
def test_nd2nz_extents_are_its_accesses_ends(nd, rows, columns, src_matrix, src_row, c0_stride, row_stride,
                                             matrix_stride, dtype) -> None:
    """ND2NZ's extents in closed form (what sizing reads) are the ends and bytes moved of the Grid and
    Lattice its accesses give, empty moves (a count of 0) included."""
    from oracle import Call, Tensor
    from oracle.apis import data_copy_nd2nz
    from oracle.rules import context
    call = Call("data_copy_nd2nz", "ascend910b", {"dst": Tensor("UB", 0, dtype, 64), "src": Tensor("GM", 0, dtype, 64),
                "intriParams": {"ndNum": nd, "nValue": rows, "dValue": columns, "srcNdMatrixStride": src_matrix,
                                "srcDValue": src_row, "dstNzC0Stride": c0_stride, "dstNzNStride": row_stride,
                                "dstNzMatrixStride": matrix_stride}})
    units = context(call).units
    closed, plain = data_copy_nd2nz.extents(call, units), data_copy_nd2nz.accesses(call, units)
    assert {op: (r.end, r.nbytes) for op, r in closed.items()} == {op: (r.end, r.nbytes) for op, r in plain.items()}


def test_a_write_prints_its_first_values_only():
    """A failing Scatter example holds tens of thousands of offsets: printed in full (repr, or Hypothesis's
    pretty printer, which prints a dataclass field by field), one case was a page long."""
    from hypothesis.vendor.pretty import pretty
    made = Write.of("UB", 64, "uint32", np.arange(40000, dtype=np.int64) * 4)
    plain = Write("UB", 64, "uint32", tuple(range(0, 160000, 4)))
    for write in (made, plain):
        for text in (repr(write), pretty(write)):
            assert len(text) < 200 and "[0, 4, 8, 12" in text and "40000 in all" in text, text


@pytest.mark.parametrize("api", [name for name in sorted(default_rulebook().apis)
                                 if getattr(index_math(name), "UNSIZED", None)])
def test_unsized_parameters_move_no_footprint(api: str) -> None:
    """An index math's UNSIZED parameters, which sizing neither searches nor remembers rooms by, leave every
    footprint as it is: on the sweep's calls of every cell of the API, each set to values across its type's
    range gives the same accesses (and extents, where the index math has them) under every reading's units."""
    from conformance.generate.cells import cells
    from conformance.generate.edges import sweep
    from oracle.rules import context
    book = default_rulebook()
    math, seen = index_math(api), 0
    for cell in cells(sorted(book.products), [api], rulebook=book):
        for case in sweep(cell, book)[:12]:
            call = case.call
            unsized = [n.partition(".") for n in sorted(math.UNSIZED) if n.partition(".")[0] in call.args]
            units = context(call).units
            readings = [make(units) for make in math.VARIANTS.values()]
            sizes = [math.accesses, *(f for f in [getattr(math, "extents", None)] if f is not None)]
            before = [size(call, u) for u in readings for size in sizes]
            for head, _, field in unsized:
                for value in (0, 1, 7, 255, 2**15, 2**31 - 1, 2**63 - 1):
                    moved = call.replace(**{head: {**call.args[head], field: value}} if field else {head: value})
                    assert [size(moved, u) for u in readings for size in sizes] == before, (cell.id, head, field, value)
            seen += bool(unsized)
    assert seen > 20
