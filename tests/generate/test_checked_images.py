"""The generator checks a call that reads values from memory (Scatter's, the gathers' offsets) on images
holding only the bytes the check reads (memory.checked_images): the same violations, word for word, as on
the whole images, whatever the other bytes hold.

Checked: build() lays the writes over the pool's window; build_spans gives build()'s bytes over its spans
(writes over a span's ends, writes over each other, a span past the image, an image too large for the
random pool); every cell of the four APIs with offsets, under the `ci` draws, finds the same violations on
the whole images as on images whose bytes outside value_spans are all 0x00, or all 0xFF.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest

from conformance.generate.cells import Cell, cells
from conformance.generate.memory import POOL_BYTES, MemoryRecipe, Write, checked_images
from oracle.call import SCOPES
from oracle.kinds.offsets_read import value_spans
from oracle.rules import context, violations
from oracle.spec import default_rulebook
from tests.generate.test_strategies import collect

PRODUCT = {"scatter": "ascend310p-aicore", "asc_gather": "ascend910b", "gather": "ascend910b",
           "gatherb": "ascend910b"}
EXAMPLES = 12


@lru_cache(maxsize=None)
def _cells(api: str) -> tuple[Cell, ...]:
    listed = cells([PRODUCT[api]], [api], rulebook=default_rulebook())
    return tuple(c for c in listed if c.expect != "not_supported")


def test_build_spans_is_build_over_its_spans() -> None:
    writes = (Write("UB", 100, "uint32", (1, 2, 3, 4)), Write("UB", 104, "uint16", (0xAAAA,)),
              Write("UB", 4090, "uint32", (7, 8, 9)))
    recipe = MemoryRecipe(5, {"UB": 4096, "GM": POOL_BYTES // 2 + 64}, writes)
    spans = {"UB": [(96, 106), (110, 120), (4088, 5000), (3000, 3000)], "GM": [(10, 20)]}
    whole, part = recipe.build(), recipe.build_spans(spans)
    assert {s: a.shape for s, a in part.items()} == {s: a.shape for s, a in whole.items()}
    for scope, pieces in spans.items():
        for lo, hi in pieces:
            assert np.array_equal(part[scope][lo:hi], whole[scope][lo:hi]), (scope, lo, hi)
    assert np.array_equal(part["GM"], whole["GM"])             # past the pool: made whole, as build() does
    assert part["UB"][100:104].view("<u4")[0] == 1 and part["UB"][104:106].view("<u2")[0] == 0xAAAA


def test_build_lays_the_writes_over_the_pools_window() -> None:
    """build() copies no pool byte under a write: what it gives is still the window with every write laid
    over it in turn (clipped at the image's end)."""
    writes = (Write("UB", 8, "uint32", (1, 2, 3)), Write("UB", 0, "uint8", (9,) * 12),
              Write("UB", 60, "uint32", (5, 6)), Write("GM", 10, "uint16", (7,)))
    recipe = MemoryRecipe(11, {"UB": 64, "GM": 96}, writes)
    built = recipe.build()
    for i, scope in enumerate(SCOPES):
        if scope not in recipe.sizes:
            continue
        want = np.array(recipe._window(i, recipe.sizes[scope]))
        for w in writes:
            if w.scope == scope:
                end = min(w.addr + w.data.size, want.size)
                want[w.addr:end] = w.data[:end - w.addr]
        assert np.array_equal(built[scope], want), scope
    assert built["UB"][:12].tolist() == [9] * 12 and built["UB"][12:20].view("<u4").tolist() == [2, 3]


def _poisoned(whole: dict[str, np.ndarray], spans: dict[str, list[tuple[int, int]]], byte: int
              ) -> dict[str, np.ndarray]:
    """The images with every byte outside `spans` set to `byte`."""
    out = {}
    for scope, image in whole.items():
        out[scope] = np.full_like(image, byte)
        for lo, hi in spans.get(scope, ()):
            out[scope][lo:hi] = image[lo:hi]
    return out


@pytest.mark.parametrize("api", sorted(PRODUCT))
def test_the_check_reads_no_byte_outside_the_values(api: str) -> None:
    rulebook, seen = default_rulebook(), 0
    for cell in _cells(api):
        for case in collect(cell, examples=EXAMPLES):
            call, recipe = case.call, case.memory
            spans = value_spans(context(call, None, rulebook))
            assert spans is not None and spans, cell.id
            whole = recipe.build()
            want = violations(context(call, whole, rulebook))
            for images in (checked_images(recipe, [context(call, None, rulebook)]),
                           _poisoned(whole, spans, 0x00), _poisoned(whole, spans, 0xFF)):
                assert violations(context(call, images, rulebook)) == want, cell.id
            seen += 1
    assert seen > 10 * len(_cells(api))
