"""A backend writing where the call does not write is FAIL, also in a scope the call only reads.

expected() copies only the scopes a call writes (the others are views of its input); the verdict must
still see a byte changed in the source scope of a GM->UB move or in UB of a UB->GM move."""
from __future__ import annotations

import numpy as np
import pytest

from oracle import Call, Tensor
from oracle.spec import default_rulebook

from conformance.backends.contract import OracleBackend
from conformance.generate.memory import MemoryRecipe
from conformance.judge.verdicts import Verdict, judge, prepare, same_bytes


def move(src: str, dst: str) -> Call:
    return Call("data_move", "ascend910b", {"dst": Tensor(dst, 0, "uint8", 64), "src": Tensor(src, 0, "uint8", 64),
                                            "sid": 0, "nburst": 1, "burst": 2, "src_stride": 0, "dst_stride": 0})


class MovesThenScribbles:
    """Moves the bytes right, then flips one byte of `scope` at `addr` (scope None: nothing more)."""

    name = "scribbler"

    def __init__(self, scope: str, addr: int):
        self.scope, self.addr = scope, addr

    def supports(self, api: str, product: str) -> bool:
        return True

    def run(self, call, memory) -> None:
        src, dst = call.args["src"], call.args["dst"]
        memory[dst.scope][dst.addr:dst.addr + 64] = memory[src.scope][src.addr:src.addr + 64]
        if self.scope is not None:
            memory[self.scope][self.addr] ^= 0xFF


@pytest.mark.parametrize("src,dst,scope,addr", [("GM", "UB", "GM", 100), ("UB", "GM", "UB", 1000),
                                                ("GM", "UB", "UB", 1000)])
def test_a_stray_write_is_seen_in_every_scope(src, dst, scope, addr):
    recipe = MemoryRecipe(5, {"GM": 512, "UB": 196608})
    assert judge(move(src, dst), recipe, MovesThenScribbles(None, 0), default_rulebook()).verdict == Verdict.PASS
    outcome = judge(move(src, dst), recipe, MovesThenScribbles(scope, addr), default_rulebook())
    assert outcome.verdict == Verdict.FAIL, outcome
    assert outcome.diff[scope]["wrong_bytes"] == 1


class Lying(np.ndarray):
    """An ndarray that says every comparison holds."""

    def __eq__(self, other):
        return np.ones(self.shape, dtype=bool)


def test_same_bytes_sees_one_byte_anywhere():
    """Images are compared as 8-byte words where they can be: a byte changed at either end or inside a
    word, in an image of whole words or not, contiguous or not, in an ndarray that lies about ==."""
    rng = np.random.default_rng(3)
    for size in (8, 64, 4096, 4099):
        base = rng.integers(0, 256, size + 8, dtype=np.uint8)
        for start in (0, 3):                    # a pool window need not start on a word
            a = base[start:start + size]
            assert same_bytes(a, a.copy())
            for at in {0, 1, 7, size // 2, size - 1}:
                b = a.copy()
                b[at] ^= 1
                assert not same_bytes(a, b) and not same_bytes(b, a), (size, start, at)
                assert not same_bytes(b.view(Lying), a), "a subclass's == must not decide"
    strided = np.zeros(64, dtype=np.uint8)[::2]
    other = strided.copy()
    other[5] = 1
    assert same_bytes(strided, strided.copy()) and not same_bytes(strided, other)


@pytest.mark.parametrize("nburst,burst,src_stride,dst_stride", [(1, 2, 0, 0), (3, 1, 2, 1)])
def test_a_written_scope_given_by_the_bytes_it_changes_is_compared_byte_for_byte(nburst, burst, src_stride,
                                                                                  dst_stride):
    """The oracle gives a legal move's written scope as the pool's window and the bytes the move changes
    (Expected.patches, back to back or strided); one byte off anywhere in that scope is still FAIL: before
    the bytes, at their ends, in a gap between bursts, after them, at either end of the image."""
    call = Call("data_move", "ascend910b", {"dst": Tensor("GM", 1000, "uint8", 512),
                                            "src": Tensor("UB", 64, "uint8", 512), "sid": 0, "nburst": nburst,
                                            "burst": burst, "src_stride": src_stride, "dst_stride": dst_stride})
    recipe = MemoryRecipe(9, {"GM": 4096, "UB": 196608})
    rulebook = default_rulebook()
    prepared = prepare(call, recipe, None, rulebook)
    assert set(prepared.want.patches) == {"GM"}, "the written scope is not copied whole"
    lo, data = prepared.want.patches["GM"]
    ends = {0, lo - 1, lo, lo + 32, lo + 33, lo + data.size - 1, lo + data.size, 4095}

    class MovesThenFlips(OracleBackend):
        def __init__(self, at):
            super().__init__(rulebook=rulebook)
            self.at = at

        def run(self, call, memory):
            super().run(call, memory)
            if self.at is not None:
                memory["GM"][self.at] ^= 0x01

    assert judge(call, recipe, MovesThenFlips(None), rulebook).verdict == Verdict.PASS
    for at in sorted(ends):
        outcome = judge(call, recipe, MovesThenFlips(at), rulebook)
        assert outcome.verdict == Verdict.FAIL and outcome.diff["GM"]["wrong_bytes"] == 1, (at, outcome)
        assert outcome.diff["GM"]["first"][0]["addr"] == at
