"""The offset moves (Scatter, asc_gather) against a plain element loop written from the pages.

The index math takes typed fast paths (one OR over the offsets for alignment, one pass marking slots for
collisions, one typed gather or assignment) and falls back to byte-level moves; every path must leave
the bytes and the collision candidates an element loop leaves: all reads before any write, a place
written twice keeping the later element, elements sent outside the image dropped (scatter) or read as
zeros (gather). The offsets drawn hit each path: aligned and distinct, aligned with collisions,
unaligned, outside the image, and mixes of them."""
from __future__ import annotations

import numpy as np
import pytest

from oracle import Call, Tensor
from oracle.apis import index_math
from oracle.expected import expected, patched_image
from oracle.rules import context

WIDTHS = {"uint8": 1, "float16": 2, "float32": 4}
UB = 4096


def _offsets(rng: np.random.Generator, n: int, width: int, kind: str, span: int) -> np.ndarray:
    """n byte offsets of one kind: distinct aligned slots, aligned with repeats, any byte, some past UB."""
    if kind == "distinct":
        return rng.permutation(span // width)[:n] * width
    if kind == "collide":
        return rng.integers(0, max(n // 3, 1), n) * width
    if kind == "unaligned":
        return rng.integers(0, span - width, n)
    out = rng.permutation(span // width)[:n] * width
    out[rng.integers(0, n, max(n // 4, 1))] = rng.integers(UB - 2 * width, 2**32 - 1, max(n // 4, 1))
    return out


def _memory(rng: np.random.Generator, at: int, offsets: np.ndarray) -> dict[str, np.ndarray]:
    ub = rng.integers(0, 256, UB, dtype=np.uint8)
    ub[at:at + 4 * offsets.size] = offsets.astype("<u4").view(np.uint8)
    return {"UB": ub}


def _scatter_loop(ub: np.ndarray, src: int, dst: int, base: int, offs: int, width: int, positions):
    """Element i (source byte position p) goes to dst + base + offset[index]; reads first, last write stays."""
    before = ub.copy()
    moves = []
    for index, p in positions:
        offset = int(before[offs + 4 * index:offs + 4 * index + 4].view("<u4")[0])
        moves.append((dst + base + offset, before[src + p:src + p + width].copy()))
    starts = [s for s, _ in moves if 0 <= s and s + width <= ub.size]
    for start, value in moves:
        if 0 <= start and start + width <= ub.size:
            ub[start:start + width] = value
    if any(s % width for s in starts):          # straddling elements: the bytes several of them write
        sent = [(s + k, bytes(v[k:k + 1])) for s, v in moves if 0 <= s and s + width <= ub.size for k in range(width)]
        places = [a for a, _ in sent]
        return sorted(((a, b) for a, b in sent if places.count(a) > 1), key=lambda ab: ab[0])
    shared = sorted(((s, v.tobytes()) for s, v in moves if starts.count(s) > 1), key=lambda sv: sv[0])
    return shared


def _gather_loop(ub: np.ndarray, src: int, dst: int, offs: int, width: int, positions) -> None:
    """Element i of dst (byte position p) comes from src + offset[index]; zeros from outside the image."""
    before = ub.copy()
    for index, p in positions:
        start = src + int(before[offs + 4 * index:offs + 4 * index + 4].view("<u4")[0])
        inside = 0 <= start and start + width <= ub.size
        ub[dst + p:dst + p + width] = before[start:start + width] if inside else 0


def _check_scatter(call: Call, memory: dict[str, np.ndarray], positions, answers: bool = False) -> None:
    """apply leaves the loop's image and collision candidates; scatter.patched, where it answers (every
    element aligned, inside and alone: `answers`), the loop's image too."""
    ctx = context(call)
    width = ctx.units["element"]
    image, loop = {"UB": memory["UB"].copy()}, memory["UB"].copy()
    choices = index_math("scatter").apply(call, image, ctx.units)
    a = call.args
    shared = _scatter_loop(loop, a["srcLocal"].addr, a["dstLocal"].addr, a["dstBaseAddr"],
                           a["dstOffsetLocal"].addr, width, positions)
    assert image["UB"].tobytes() == loop.tobytes()
    got = [] if not choices else [(int(s), v.tobytes()) for s, v in zip(choices[0][1], choices[0][2])]
    assert got == shared
    assert all(scope == "UB" for scope, _, _ in choices)
    made = index_math("scatter").patched(call, memory, ctx.units)
    assert made is not None or not answers
    if made is not None:
        (scope, (lo, data)), = made.items()
        assert not choices and patched_image(memory[scope], lo, data).tobytes() == loop.tobytes()


@pytest.mark.parametrize("dtype", sorted(WIDTHS))
@pytest.mark.parametrize("kind", ["distinct", "collide", "unaligned", "outside"])
@pytest.mark.parametrize("seed", range(4))
def test_scatter_count_form_moves_as_an_element_loop(dtype, kind, seed):
    rng = np.random.default_rng([seed, WIDTHS[dtype], len(kind)])
    width, n = WIDTHS[dtype], int(rng.integers(1, 200))
    base = int(rng.integers(0, 3)) * (1 if kind == "unaligned" else width)
    offsets = _offsets(rng, n, width, kind, 1024)
    memory = _memory(rng, 3072, offsets)
    call = Call("scatter", "ascend310b", {"dstLocal": Tensor("UB", 0, dtype, 1024 // width),
                                          "srcLocal": Tensor("UB", 2048, dtype, n),
                                          "dstOffsetLocal": Tensor("UB", 3072, "uint32", n),
                                          "dstBaseAddr": base, "count": n}, "count")
    _check_scatter(call, memory, [(i, i * width) for i in range(n)], kind == "distinct" and base % width == 0)


@pytest.mark.parametrize("seed", range(6))
def test_scatter_over_its_own_source_and_offsets_reads_before_writing(seed):
    """dst spans src and the offsets (undefined territory, yet the image is one outcome): reads first."""
    rng = np.random.default_rng(seed)
    n, width = 64, 2
    offsets = 2048 + rng.integers(0, 1024 // width, n) * width      # into src and the offsets themselves
    memory = _memory(rng, 2304, offsets)
    call = Call("scatter", "ascend310b", {"dstLocal": Tensor("UB", 0, "float16", 2048),
                                          "srcLocal": Tensor("UB", 2048, "float16", n),
                                          "dstOffsetLocal": Tensor("UB", 2304, "uint32", n),
                                          "dstBaseAddr": 0, "count": n}, "count")
    _check_scatter(call, memory, [(i, i * width) for i in range(n)])


@pytest.mark.parametrize("kind", ["distinct", "collide", "unaligned"])
@pytest.mark.parametrize("seed", range(3))
def test_scatter_mask_form_moves_as_an_element_loop(kind, seed):
    """mask_continuous: the first `mask` elements of each repeat, src moving by srcRepStride blocks."""
    rng = np.random.default_rng([seed, len(kind)])
    width, per, repeat, mask, stride = 2, 128, 3, int(rng.integers(1, 129)), int(rng.integers(0, 10))
    offsets = _offsets(rng, per * repeat, width, kind, 1024)
    memory = _memory(rng, 2048, offsets)
    call = Call("scatter", "ascend310b", {"dstLocal": Tensor("UB", 0, "float16", 512),
                                          "srcLocal": Tensor("UB", 1024, "float16", 512),
                                          "dstOffsetLocal": Tensor("UB", 2048, "uint32", per * repeat),
                                          "dstBaseAddr": 0, "mask": mask, "repeatTimes": repeat,
                                          "srcRepStride": stride}, "mask_continuous")
    positions = [(r * per + e, r * stride * 32 + e * width) for r in range(repeat) for e in range(mask)]
    _check_scatter(call, memory, positions)


@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("kind", ["distinct", "collide", "unaligned", "outside"])
@pytest.mark.parametrize("seed", range(4))
def test_gather_count_form_moves_as_an_element_loop(dtype, kind, seed):
    rng = np.random.default_rng([seed, WIDTHS[dtype], len(kind), 1])
    width, n = WIDTHS[dtype], int(rng.integers(1, 200))
    offsets = _offsets(rng, n, width, kind, 2048)
    memory = _memory(rng, 3072, offsets)
    call = Call("asc_gather", "ascend910b", {"dst": Tensor("UB", 2048, dtype, n), "src": Tensor("UB", 0, dtype, 1024),
                                             "src_offset": Tensor("UB", 3072, "uint32", n), "count": n}, "count")
    ctx = context(call)
    image, loop = {"UB": memory["UB"].copy()}, memory["UB"].copy()
    assert index_math("asc_gather").apply(call, image, ctx.units) == []
    _gather_loop(loop, 0, 2048, 3072, width, [(i, i * width) for i in range(n)])
    assert image["UB"].tobytes() == loop.tobytes()
    _check_gather_patch(call, memory, loop, kind in ("distinct", "collide"))


def _check_gather_patch(call: Call, memory: dict[str, np.ndarray], loop: np.ndarray, answers: bool) -> None:
    """asc_gather.patched: the bytes that change, patched onto the input, are the loop's image; it answers
    wherever every element read is aligned inside the image (None elsewhere: the caller applies)."""
    made = index_math("asc_gather").patched(call, memory, context(call).units)
    assert (made is not None) or not answers
    if made is not None:
        (scope, (lo, data)), = made.items()
        assert not data.flags.writeable
        assert patched_image(memory[scope], lo, data).tobytes() == loop.tobytes()


@pytest.mark.parametrize("stride", [0, 1, 8])
def test_gather_repeat_form_keeps_the_later_repeat(stride):
    """dst_repeat_stride below a repeat's 8 blocks: repeats write the same dst bytes, the later one stays."""
    rng = np.random.default_rng(stride)
    width, per, repeat = 2, 128, 3
    offsets = _offsets(rng, per * repeat, width, "distinct", 1024)
    memory = _memory(rng, 2048, offsets)
    call = Call("asc_gather", "ascend910b", {"dst": Tensor("UB", 1024, "float16", 512),
                                             "src": Tensor("UB", 0, "float16", 512),
                                             "src_offset": Tensor("UB", 2048, "uint32", per * repeat),
                                             "repeat": repeat, "dst_repeat_stride": stride}, "repeat")
    ctx = context(call)
    image, loop = {"UB": memory["UB"].copy()}, memory["UB"].copy()
    index_math("asc_gather").apply(call, image, ctx.units)
    _gather_loop(loop, 0, 1024, 2048, width,
                 [(r * per + e, r * stride * 32 + e * width) for r in range(repeat) for e in range(per)])
    assert image["UB"].tobytes() == loop.tobytes()
    _check_gather_patch(call, memory, loop, True)


@pytest.mark.parametrize("dtype", ["uint8", "float16", "float32"])
@pytest.mark.parametrize("seed", range(3))
def test_scatter_bit_mask_picks_bit_e_mod_64_of_word_e_div_64(dtype, seed):
    """mask_bits: element e of a repeat moves when bit e % 64 of word e // 64 is set."""
    rng = np.random.default_rng([seed, WIDTHS[dtype], 7])
    width = WIDTHS[dtype]
    per, repeat, stride = 256 // width, 2, 8
    words = [int(w) for w in rng.integers(0, 2**63, 2, dtype=np.int64)]
    words[seed % 2] |= 1 << 63                                       # the top bit of a word
    if width == 4:
        words[1] = 0                                                 # "mask[1]为0" for 32-bit types
    offsets = _offsets(rng, per * repeat, width, "distinct", 1024)
    memory = _memory(rng, 2048, offsets)
    call = Call("scatter", "ascend310b", {"dstLocal": Tensor("UB", 0, dtype, 1024 // width),
                                          "srcLocal": Tensor("UB", 1024, dtype, 1024 // width),
                                          "dstOffsetLocal": Tensor("UB", 2048, "uint32", per * repeat),
                                          "dstBaseAddr": 0, "mask": words, "repeatTimes": repeat,
                                          "srcRepStride": stride}, "mask_bits")
    chosen = [e for e in range(per) if e < 128 and (words[e // 64] >> (e % 64)) & 1]
    positions = [(r * per + e, r * stride * 32 + e * width) for r in range(repeat) for e in chosen]
    _check_scatter(call, memory, positions)


@pytest.mark.parametrize("kind", ["collide", "unaligned", "outside"])
@pytest.mark.parametrize("seed", range(4))
def test_an_undefined_call_left_unmoved_has_the_moved_one_s_defined_bytes(kind, seed):
    """expected(moved_open=False), as the judge asks it: a call in undefined territory keeps its input image,
    with the same bytes defined, each of them the one the moved image holds (a verdict reads no other)."""
    rng = np.random.default_rng([seed, len(kind), 9])
    width, n = 2, int(rng.integers(2, 200))
    offsets = _offsets(rng, n, width, kind, 1024)
    memory = _memory(rng, 3072, offsets)
    calls = [Call("scatter", "ascend310b", {"dstLocal": Tensor("UB", 0, "float16", 512),
                                            "srcLocal": Tensor("UB", 2048, "float16", n),
                                            "dstOffsetLocal": Tensor("UB", 3072, "uint32", n),
                                            "dstBaseAddr": 0, "count": n}, "count"),
             Call("asc_gather", "ascend910b", {"dst": Tensor("UB", 2048, "float16", n),
                                               "src": Tensor("UB", 0, "float16", 512),
                                               "src_offset": Tensor("UB", 3072, "uint32", n), "count": n}, "count")]
    for call in calls:
        moved, unmoved = expected(call, memory), expected(call, memory, moved_open=False)
        assert moved.violations == unmoved.violations
        for scope, image in unmoved.memory.items():
            defined = moved.defined[scope]
            assert np.array_equal(unmoved.defined[scope], defined)
            assert image.tobytes() == (memory[scope] if moved.violations else moved.memory[scope]).tobytes()
            assert np.array_equal(image[defined], moved.memory[scope][defined])
        assert moved.violations or kind == "collide" and call.api == "asc_gather", (call.api, kind)


def test_a_patched_scatter_s_written_bytes_are_read_before_a_backend_writes():
    """A legal Scatter's expected image given as a patch still tells which bytes the call writes from the
    offsets as they were, whatever a backend then writes over the offsets tensor in the same image."""
    rng = np.random.default_rng(3)
    n, width = 64, 2
    offsets = _offsets(rng, n, width, "distinct", 1024)
    memory = _memory(rng, 3072, offsets)
    call = Call("scatter", "ascend310b", {"dstLocal": Tensor("UB", 0, "float16", 512),
                                          "srcLocal": Tensor("UB", 2048, "float16", n),
                                          "dstOffsetLocal": Tensor("UB", 3072, "uint32", n),
                                          "dstBaseAddr": 0, "count": n}, "count")
    want = expected(call, memory, violations=[], patches=True)     # as the judge asks, given the check
    memory["UB"][3072:3072 + 4 * n] = 0              # the offsets tensor overwritten after the oracle read it
    written = np.zeros(UB, dtype=bool)
    for offset in offsets.tolist():
        written[offset:offset + width] = True
    assert not want.violations and np.array_equal(want.written["UB"], written)
