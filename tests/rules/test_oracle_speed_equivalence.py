"""The oracle's fast paths against plain references: each shortcut taken for speed (a part moved as a row,
a radix sort, an early answer) must give what the slow, obvious computation gives, byte for byte.

Every reference here is worked element by element or pair by pair, from the sentence it encodes, not by
the oracle's own vectorised math; the random calls include the awkward ones (overlapping and duplicate
entries, negative strides, parts that straddle one another).
"""
from __future__ import annotations

import numpy as np
import pytest

from oracle import Call, Tensor
from oracle.apis import offsets, vec_trans_scatter
from oracle.apis.offsets import slots_of, stable_order
from oracle.footprint import Grid, Runs, Spots
from oracle.iterations import family, family_hits, some_hits
from oracle.repeats import MONOTONE_PROBE, any_repeat

# -- vec_trans_scatter.apply: parts moved as rows, the last write kept per part ----------------------

def _vts_reference(call: Call, image: np.ndarray, units: dict) -> np.ndarray:
    """Repeat r reads a part at every src entry (+ r strides), transposes the 16 x m elements and writes
    part k to dst entry k (+ r strides); every read before any write, a later write replacing an earlier."""
    args, width = call.args, units["element"]
    part, src_off, dst_off = vec_trans_scatter.part_offsets(call, units)
    m, first = part // width, units.get(vec_trans_scatter.FIRST_REPEAT, 0)
    src, dst = args["src_list"], args["dst_list"]
    before, out, writes = image.copy(), image.copy(), []
    for r in range(first, first + args["repeat_times"]):
        rows = [before[t.addr + src_off + r * args["src_rep_stride"] * units["src_rep_stride"]:][:part]
                for t in src]
        elements = [[row[e * width:(e + 1) * width] for e in range(m)] for row in rows]    # 16 x m
        flat = [elements[k][e] for e in range(m) for k in range(len(src))]               # the transpose, row by row
        for k, t in enumerate(dst):
            at = t.addr + dst_off + r * args["dst_rep_stride"] * units["dst_rep_stride"]
            writes.append((at, np.concatenate(flat[k * m:(k + 1) * m])))
    for at, values in writes:
        out[at:at + part] = values
    return out


@pytest.mark.parametrize("seed", range(4))
def test_vec_trans_scatter_apply_matches_the_reference(seed):
    rng = np.random.default_rng(seed)
    size = 1 << 13
    for _ in range(150):
        width = int(rng.choice([1, 2, 4]))
        dtype = {1: "int8", 2: "float16", 4: "int32"}[width]
        gran = int(rng.choice([32, 16]))
        repeat = int(rng.integers(1, 5))
        strides = [int(rng.integers(0, 4)) for _ in range(2)]
        reach = repeat * 32 * max(strides) + 32
        entry = lambda: Tensor("UB", int(rng.integers(0, (size - reach) // gran)) * gran, dtype, 16)   # noqa: E731
        dst = [entry() for _ in range(16)]
        if rng.random() < 0.3:
            dst[int(rng.integers(16))] = dst[0]                 # two entries naming one block
        call = Call("vec_trans_scatter", "ascend910b", {
            "dst_list": dst, "src_list": [entry() for _ in range(16)], "repeat_times": repeat,
            "dst_rep_stride": strides[0], "src_rep_stride": strides[1],
            "dst_high_half": bool(rng.integers(2)), "src_high_half": bool(rng.integers(2))})
        units = {"block": 32, "element": width, "dst_rep_stride": 32, "src_rep_stride": 32}
        if rng.random() < 0.2:
            units[vec_trans_scatter.FIRST_REPEAT] = 1
        memory = rng.integers(0, 256, size + reach, dtype=np.uint8)
        image = {"UB": memory.copy()}
        vec_trans_scatter.apply(call, image, units)
        assert np.array_equal(image["UB"], _vts_reference(call, memory, units)), call.args


# -- offsets.stable_order: numpy's stable argsort, by two 16-bit passes for many keys ---------------

def test_stable_order_is_a_stable_argsort():
    rng = np.random.default_rng(11)
    for _ in range(200):
        n = int(rng.integers(0, 12000))
        spread = int(rng.choice([4, 1000, 70000, 1 << 20, 1 << 33]))
        keys = rng.integers(-spread, spread, n).astype(np.int64)
        assert np.array_equal(stable_order(keys), np.argsort(keys, kind="stable")), (n, spread)


# -- repeats.any_repeat: monotone runs told by neighbours, the rest by marks or a sort ------------------

def test_any_repeat_matches_a_set():
    rng = np.random.default_rng(5)
    for _ in range(600):
        n = int(rng.integers(0, 200 if rng.random() < 0.8 else 20000))
        spread = int(rng.choice([2, 3 * n + 1, 16 * n + 5000, 1 << 31]))
        values = rng.integers(0, spread, n)
        shape = rng.integers(0, 4)          # as drawn, sorted, reversed, or sorted with one value moved
        values = [values, np.sort(values), np.sort(values)[::-1], np.sort(values)][shape]
        if shape == 3 and n > 2:
            at = int(rng.integers(0, n))
            values[at] = values[int(rng.integers(0, n))]
        for typed in (values.astype(np.int64), values.astype(np.uint32)):
            assert any_repeat(typed) == (len(set(typed.tolist())) < n), (n, spread, shape)


def test_any_repeat_reads_past_a_monotone_head():
    head = np.arange(MONOTONE_PROBE, dtype=np.int64)
    for tail in ([100, 101], [100, 99], [MONOTONE_PROBE - 1], [3, 200]):
        values = np.concatenate([head, np.array(tail, dtype=np.int64)])
        assert any_repeat(values) == (len(set(values.tolist())) < values.size), tail
        assert any_repeat(values[::-1].copy()) == any_repeat(values), tail


# -- offsets.slots_of: the usual case told by reductions over the uint32 offsets ----------------------

def test_slots_of_answers_where_every_element_is_aligned_and_inside():
    """(offsets + shift) // width wherever every offset + shift is a multiple of width (offsets and shift
    each on the grid, or each off it by as much as the other makes up: a base between elements) and every
    element lies inside the image, None elsewhere; a shift below 0 included (computed in int64, not wrapped
    in uint32)."""
    rng = np.random.default_rng(17)
    answered, between = 0, 0
    for _ in range(20000):
        width = int(rng.choice([1, 2, 4, 8]))
        shift, size = int(rng.integers(-80, 80)), int(rng.integers(0, 400))
        entries = rng.integers(0, 64, int(rng.integers(1, 20))) * int(rng.choice([1, width]))
        if rng.integers(0, 2):          # onto the grid of a base between elements
            entries = entries - entries % width + (-shift) % width
        entries = entries.astype(np.uint32)
        at = entries.astype(np.int64) + shift
        usable = bool(at.min() >= 0 and at.max() + width <= size and not (at % width).any())
        got = slots_of(entries, shift, width, size)
        assert (got is not None) == usable, (entries, shift, width, size)
        if got is not None:
            assert got.dtype == np.intp and np.array_equal(got, at // width)
            answered += shift < 0
            between += shift % width != 0
    assert answered > 100 and between > 100


# -- offsets.repeat_sides: footprints told side by side without their arrays -------------------------

def _positions_reference(repeat: int, per: int, stride: int, width: int, mask, adv) -> tuple[list, list]:
    """Element e of repeat r, e chosen by the mask (bit e % 64 of word e // 64, or the first `mask`), reads
    offset entry r * advance + e and lies r * stride + e * width bytes into the strided operand."""
    if mask is None:
        chosen = list(range(per))
    elif isinstance(mask, int):
        chosen = list(range(min(max(mask, 0), per)))
    else:
        chosen = [e for e in range(per) if e < 64 * len(mask) and mask[e // 64] >> (e % 64) & 1]
    step = per if adv is None else adv
    index = [r * step + e for r in range(max(repeat, 0)) for e in chosen]
    at = [r * stride + e * width for r in range(max(repeat, 0)) for e in chosen]
    return index, at


def _starts(footprint) -> list:
    return footprint.starts().tolist()


def test_repeat_sides_match_the_positions_element_by_element():
    """Each footprint repeat_sides gives is Runs exactly where its positions lie side by side from byte 0,
    and its starts are the positions either way: masks of the first elements, gapped
    ones, strides a repeat's width apart or not, offsets that follow the stride."""
    rng = np.random.default_rng(23)
    runs_seen = spots_seen = 0
    for _ in range(3000):
        per, width = int(rng.choice([8, 16, 64, 128])), int(rng.choice([1, 2, 4]))
        repeat = int(rng.integers(-1, 6))
        kind = int(rng.integers(0, 4))
        mask = (None if kind == 0 else int(rng.integers(-2, per + 3)) if kind == 1
                else (2 ** int(rng.integers(0, 65)) - 1, 0) if kind == 2
                else (int(rng.integers(0, 2**64, dtype=np.uint64)), int(rng.integers(0, 2**64, dtype=np.uint64))))
        k = len(_positions_reference(1, per, 0, width, mask, None)[0])
        stride = int(rng.choice([k * width, per * width, 0, -width, int(rng.integers(0, 4096))]))
        adv = None if rng.integers(0, 2) else int(rng.choice([k, stride // width]))
        key = (repeat, per, stride, width, mask, adv)
        index, strided, entries = offsets.repeat_sides(key)
        ref_index, ref_at = _positions_reference(*key)
        assert index.tolist() == ref_index, key
        assert _starts(strided) == ref_at and strided.length == width, key
        assert _starts(entries) == [i * 4 for i in ref_index] and entries.length == 4, key
        for made, at, w in ((strided, ref_at, width), (entries, [i * 4 for i in ref_index], 4)):
            side_by_side = at == [i * w for i in range(len(at))]
            assert isinstance(made, Runs) == side_by_side, key
            runs_seen += side_by_side
            spots_seen += not side_by_side
    assert runs_seen > 500 and spots_seen > 500


# -- gatherb.apply: whole blocks moved as rows ---------------------------------------------------------

def _gatherb_reference(call: Call, image: np.ndarray) -> np.ndarray:
    """Block j of iteration i: the 32 bytes offset[i * 8 + j] bytes from src (zeros past the image), all
    read before any write, written (i * dstRepStride + j * max(dstBlkStride, 1)) blocks from dst, a later
    block replacing an earlier."""
    args, src, dst = call.args, call.args["src"], call.args["dst"]
    p, blocks, out = args["repeatParams"], [], image.copy()
    entries = image[call.args["offset"].addr:].view("<u4")
    for i in range(args["repeatTime"]):
        for j in range(8):
            at = src.addr + int(entries[i * 8 + j])
            blocks.append((i, j, image[at:at + 32].copy() if at + 32 <= image.size else np.zeros(32, np.uint8)))
    for i, j, block in blocks:
        at = dst.addr + (i * p["dstRepStride"] + j * max(p["dstBlkStride"], 1)) * 32
        out[at:at + 32] = block
    return out


def test_gatherb_apply_matches_the_reference():
    """Offsets on the block grid and off it, past the image, destinations apart and overlapping."""
    from oracle.apis import gatherb
    from oracle.rules import context
    rng = np.random.default_rng(31)
    rows_taken = 0
    for _ in range(300):
        repeat = int(rng.integers(1, 5))
        size = 8192
        grid = int(rng.choice([32, 32, 2]))
        offsets = (rng.integers(0, 96, repeat * 8) * grid).astype("<u4")
        if rng.integers(0, 4) == 0:
            offsets[int(rng.integers(0, offsets.size))] = size          # past the image: zeros
        params = {"dstBlkStride": int(rng.integers(0, 3)), "dstRepStride": int(rng.choice([8, 16, 1, 0]))}
        image = rng.integers(0, 256, size, dtype=np.uint8)
        call = Call("gatherb", "ascend910b", {"dst": Tensor("UB", 0, "uint16", 16),
                    "src": Tensor("UB", 2048, "uint16", 16), "offset": Tensor("UB", 7168, "uint32", repeat * 8),
                    "repeatTime": repeat, "repeatParams": params})
        image[7168:7168 + offsets.nbytes] = offsets.view(np.uint8)
        got = {"UB": image.copy()}
        gatherb.apply(call, got, context(call).units)
        assert np.array_equal(got["UB"], _gatherb_reference(call, image)), (offsets, params)
        rows_taken += grid == 32 and params["dstRepStride"] >= 8 and int(offsets.max()) < size
    assert rows_taken > 50


# -- or_bits: alignment told from what the starts are made of -----------------------------------------

def test_or_bits_clear_a_low_bit_only_where_every_start_has_it_clear():
    """For every power-of-two width: or_bits's low bits clear -> every start a multiple of the width; and
    for Runs, and for Spots of offsets whose base and entries are all multiples, the answer is exact."""
    rng = np.random.default_rng(29)
    for _ in range(4000):
        width = int(rng.choice([1, 2, 4, 8, 32]))
        scale = int(rng.choice([1, width]))
        entries = (rng.integers(0, 300, int(rng.integers(0, 12))) * scale).astype(np.uint32)
        base = int(rng.integers(-3, 4)) * int(rng.choice([1, width]))
        spots = Spots.offsets(entries, base, width)
        runs = Runs(int(rng.integers(-3, 4)) * scale, int(rng.integers(-3, 4)) * scale, int(rng.integers(0, 4)), width)
        for made in (spots, runs, Spots(spots.at, width)):
            aligned = not (made.starts() % width).any()
            clear = not made.or_bits() & (width - 1)
            assert aligned or not clear, (made, width)
        exact = [runs] + [spots] * bool(base % width == 0 and not (entries % width).any())
        for made in exact:
            assert (not made.or_bits() & (width - 1)) == (not (made.starts() % width).any()), (made, width)


# -- iterations.some_hits: an operand compared with itself (one Family object) ----------------------

def _brute_same_iteration(entries) -> np.ndarray:
    rounds = max(r.count for _, r in entries)
    out = np.zeros((rounds, len(entries), len(entries)), dtype=bool)
    for r in range(rounds):
        for i, (pa, ra) in enumerate(entries):
            for j, (pb, rb) in enumerate(entries):
                if i != j and r < ra.count and r < rb.count:
                    s1, s2 = pa + ra.first + r * ra.step, pb + rb.first + r * rb.step
                    out[r, i, j] = s1 < s2 + rb.length and s2 < s1 + ra.length
    return out


def test_an_operand_against_itself_matches_brute_force():
    rng = np.random.default_rng(5)
    for _ in range(1500):
        shared = Runs(0, int(rng.integers(-40, 60)), int(rng.integers(0, 5)), int(rng.integers(0, 40)))
        entries = [(int(rng.integers(0, 300)), shared) for _ in range(int(rng.integers(1, 8)))]
        if shared.count == 0:
            continue
        one = family(entries)
        hits = some_hits(one, one, (0, 0), distinct=True)         # the same object on both sides
        brute = _brute_same_iteration(entries)
        assert (hits is None) == (not brute.any()), entries
        assert np.array_equal(family_hits(one, one, (0, 0), distinct=True), brute), entries


# -- Grid.self_overlaps: groups that lie apart answer at once; a few groups one by one, many as arrays --

@pytest.mark.parametrize("most_groups", [5, 200])
def test_grid_self_overlaps_matches_brute_force(most_groups):
    rng = np.random.default_rng(9)
    for _ in range(4000):
        grid = Grid(int(rng.integers(0, 8)), int(rng.integers(0, 120)), int(rng.integers(0, most_groups)),
                    int(rng.integers(0, 40)), int(rng.integers(0, 5)), int(rng.integers(0, 40)))
        if grid.empty:
            assert not grid.self_overlaps()
            continue
        touched = (grid.starts()[:, None] + np.arange(grid.length)).reshape(-1)
        assert grid.self_overlaps() == (np.unique(touched).size != touched.size), grid
        assert (grid.begin, grid.end, grid.nbytes) == (int(touched.min()), int(touched.max()) + 1,
                                                       grid.count * grid.length), grid


# -- Spots.self_overlaps: starts a whole number of lengths apart answered by a bitmap -----------------

def test_spots_self_overlaps_matches_brute_force():
    """Starts on a grid of the pieces' length (a masked copy's elements) and off it, spans a bitmap holds
    and spans it does not, in order and not: the answer is whether some byte is touched twice."""
    rng = np.random.default_rng(11)
    for _ in range(3000):
        length, n = int(rng.choice([1, 2, 4, 3])), int(rng.integers(2, 60))
        spread = int(rng.choice([8, 60, 400, 10 ** 6]))
        on_grid = bool(rng.random() < 0.7)
        at = rng.integers(0, spread, n) * (length if on_grid else 1) + int(rng.integers(-50, 50))
        if rng.random() < 0.3:
            at = np.sort(at)
        spots = Spots(at.astype(np.int64), length)
        touched = (at[:, None] + np.arange(length)).reshape(-1)
        assert spots.self_overlaps() == (np.unique(touched).size != touched.size), (at, length)
