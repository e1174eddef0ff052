"""The suite catches realistic Gather bugs under `ci`, whatever the seed, and lets a correct simulator and
the reference conform (tests/buggy_gather_backends.py; the real strategies and runner). The offsets are
data in memory: every reproducer carries them."""
from __future__ import annotations

import pytest

import buggy_gather_backends as bg
from catching import (CI, CheckedSim, Expect, assert_caught, assert_controls_conform, assert_listed, offsets_travel,
                      select_cells)
from conformance.judge.runner import run_cells
from oracle.spec import default_rulebook

API = "gather"
A2 = "ascend910b"
B = "ascend310b"
P = "ascend310p-aicore"


def _cells(product: str, *tails: str) -> list[str]:
    return [f"{API}/{product}/{t}" for t in tails]


BUGS = [
    Expect(bg.BaseInElements, _cells(A2, "legal/count/float16", "legal/mask_bits/int32") + _cells(B, "legal/count/int8"),
           must={f"{API}/{A2}/legal/*": {"FAIL"}}),
    Expect(bg.StrideInBytes, _cells(A2, "legal/mask_continuous/float16", "legal/mask_bits/uint32")
           + _cells(P, "legal/mask_continuous/int16"),
           must={f"{API}/*/legal/mask_*": {"FAIL"}}),
    Expect(bg.MaskBitsReversed, _cells(A2, "legal/mask_bits/float16") + _cells(P, "legal/mask_bits/float32"),
           must={f"{API}/*/legal/mask_bits/*": {"FAIL", "FALSE_REJECT"}}),
    Expect(bg.CountModeAsBits, _cells(A2, "legal/mask_continuous/bfloat16") + _cells(B, "legal/mask_continuous/int32"),
           must={f"{API}/*/legal/mask_continuous/*": {"FAIL", "FALSE_REJECT"}}),
    Expect(bg.EightBlocksFor8Bit, _cells(B, "legal/mask_continuous/int8", "legal/mask_bits/uint8", "legal/count/int8"),
           must={f"{API}/{B}/legal/mask_*/*": {"FAIL", "FALSE_REJECT"}}),
]



def test_every_bug_is_listed() -> None:
    assert_listed(bg.BUGGY_GATHER_BACKENDS, BUGS, 5)


@pytest.mark.parametrize("seed", [1, 20240601, 987654321])
@pytest.mark.parametrize("expect", BUGS, ids=lambda e: e.id)
def test_suite_catches_bug(expect: Expect, seed: int) -> None:
    assert_caught(expect, seed, correct=bg.GatherSim, check_failure=offsets_travel)


def test_correct_simulator_and_reference_conform() -> None:
    """The control: the correct simulator, checked call by call against the reference, passes every cell
    a bug is run on, and the reject cells of ascend910b and ascend310b."""
    backend = CheckedSim(bg.GatherSim(), "gather-sim-checked-against-oracle", same_rule=True)
    chosen = select_cells(sorted({p for e in BUGS for p in e.run}) + [f"{API}/{A2}/reject/*", f"{API}/{B}/reject/*"])
    results = run_cells(chosen, backend, CI, 20240601, default_rulebook())
    assert len(results) == len(chosen) >= 20
    assert_controls_conform(backend, results, CI, {"legal", "reject"})
