"""A Picks block drawn in one step (conformance/generate/blocks.py) is the block Hypothesis's own provider
draws a byte at a time: the same bytes, the random left in the same state, the same calls drawn; and where
a Hypothesis draws bytes another way, the kit leaves Hypothesis's provider in place."""
from __future__ import annotations

import random

import pytest
from hypothesis.internal.conjecture import providers
from hypothesis.internal.conjecture.data import ConjectureData

from conformance.generate import blocks
from conformance.generate.cells import cells
from conformance.generate.profiles import profile
from conformance.judge.runner import cell_seed
from oracle.spec import default_rulebook


@pytest.mark.parametrize("size", [1, 7, 64, 300])
def test_a_block_drawn_at_once_is_the_bytes_hypothesis_draws_one_at_a_time(size):
    for seed in range(40):
        own, fast = random.Random(seed), random.Random(seed)
        mine = ConjectureData(random=own, provider=providers.HypothesisProvider)
        theirs = ConjectureData(random=fast, provider=blocks.FixedBlocks)
        drawn = [(mine.draw_bytes(size, size), theirs.draw_bytes(size, size)) for _ in range(4)]
        assert all(a == b and len(a) == size for a, b in drawn)
        assert own.getstate() == fast.getstate()
    assert blocks.draws_alike(size)


def test_a_bytes_choice_of_a_free_size_is_hypothesis_own():
    own, fast = random.Random(5), random.Random(5)
    mine = ConjectureData(random=own, provider=providers.HypothesisProvider)
    theirs = ConjectureData(random=fast, provider=blocks.FixedBlocks)
    assert [mine.draw_bytes(0, 40) for _ in range(20)] == [theirs.draw_bytes(0, 40) for _ in range(20)]


def _drawn(monkeypatch, alike: bool) -> list:
    monkeypatch.setattr(blocks, "_SAME", [alike])
    rulebook = default_rulebook()
    chosen = [c for c in cells(["ascend910b"], ["data_move"], rulebook=rulebook)][:3]
    return [[case.key for case in cell.draw(12, cell_seed(1, cell), rulebook)] for cell in chosen]


def test_a_search_draws_the_same_calls_with_either_provider(monkeypatch):
    fast, own = _drawn(monkeypatch, True), _drawn(monkeypatch, False)
    assert fast == own and all(fast)


def test_a_hypothesis_that_draws_bytes_otherwise_keeps_its_own_provider(monkeypatch):
    def whole(self, min_size=0, max_size=64):
        return self._random.randbytes(max_size)
    monkeypatch.setattr(providers.HypothesisProvider, "draw_bytes", whole)
    assert not blocks.draws_alike()
    monkeypatch.setattr(blocks, "_SAME", [])
    before = providers.AVAILABLE_PROVIDERS["hypothesis"]
    with blocks.fixed_blocks():
        assert providers.AVAILABLE_PROVIDERS["hypothesis"] is before
    assert blocks._SAME == [False]


def test_the_name_registered_is_the_provider_class():
    from importlib import import_module
    module, name = blocks.REGISTERED.rsplit(".", 1)
    assert getattr(import_module(module), name) is blocks.FixedBlocks


def test_the_provider_found_is_put_back_after_a_search_that_raised(monkeypatch):
    monkeypatch.setattr(blocks, "_SAME", [True])
    before = providers.AVAILABLE_PROVIDERS["hypothesis"]
    with pytest.raises(KeyError):
        with blocks.fixed_blocks():
            assert providers.AVAILABLE_PROVIDERS["hypothesis"] == blocks.REGISTERED
            raise KeyError("a search that failed")
    assert providers.AVAILABLE_PROVIDERS["hypothesis"] is before


def _drawn_directly(monkeypatch, direct: bool) -> list:
    monkeypatch.setattr(blocks, "_DIRECT", [direct])
    rulebook = default_rulebook()
    chosen = [c for c in cells(["ascend910b"], ["asc_gather", "data_move"], rulebook=rulebook)][:4]
    return [[(case.key, case.blocks) for case in cell.draw(12, cell_seed(1, cell), rulebook)] for cell in chosen]


def test_a_block_drawn_by_the_engine_choice_is_the_bytes_draw_bytes_gives(monkeypatch):
    """A Picks block is drawn as ConjectureData's `_draw` of a bytes choice, where that is what its
    draw_bytes does (the installed Hypothesis): the same calls, from the same blocks, either way."""
    assert blocks._draws_directly(64) and blocks._draws_directly(1)
    direct, plain = _drawn_directly(monkeypatch, True), _drawn_directly(monkeypatch, False)
    assert direct == plain and all(direct)


def test_an_engine_that_draws_bytes_otherwise_keeps_draw_bytes(monkeypatch):
    own = ConjectureData._draw

    def other(self, choice_type, constraints, *, observe, forced):
        value = own(self, choice_type, constraints, observe=observe, forced=forced)
        return value[::-1] if choice_type == "bytes" and constraints.get("min_size") == 64 else value
    monkeypatch.setattr(ConjectureData, "draw_bytes", lambda self, a=0, b=64, **k: own(
        self, "bytes", {"min_size": a, "max_size": b}, observe=True, forced=None))
    monkeypatch.setattr(ConjectureData, "_draw", other)
    assert not blocks._draws_directly(64)
    monkeypatch.setattr(blocks, "_DIRECT", [])
    assert not blocks.direct_bytes() and blocks._DIRECT == [False]
