"""The suite catches realistic Copy (UB -> UB, masked) bugs under `ci`, whatever the seed, and lets a correct
simulator and the reference conform (tests/buggy_copy_backends.py; the real strategies and runner)."""
from __future__ import annotations

import pytest

import buggy_copy_backends as bc
from catching import CI, CheckedSim, Expect, assert_caught, assert_controls_conform, assert_listed, select_cells
from conformance.judge.runner import run_cells
from oracle.spec import default_rulebook

API = "copy"
A2 = "ascend910b"
B = "ascend310b"
ANY = {"FAIL", "FALSE_REJECT"}


def _cells(product: str, *tails: str) -> list[str]:
    return [f"{API}/{product}/{t}" for t in tails]


BUGS = [
    Expect(bc.StrideInElements, _cells(A2, "legal/mask_continuous/float16", "legal/mask_bits/int32"),
           must={f"{API}/*/legal/*": ANY}),
    Expect(bc.MaskBitsReversed, _cells(A2, "legal/mask_bits/uint16") + _cells(B, "legal/mask_bits/float32"),
           must={f"{API}/*/legal/mask_bits/*": ANY}),
    Expect(bc.CountModeAsBits, _cells(A2, "legal/mask_continuous/bfloat16") + _cells(B, "legal/mask_continuous/int32"),
           must={f"{API}/*/legal/mask_continuous/*": ANY}),
    Expect(bc.BlockOf16Elements, _cells(A2, "legal/mask_continuous/int32", "legal/mask_bits/float32", "legal/mask_bits/int16"),
           must={f"{API}/*/legal/*/int32": ANY, f"{API}/*/legal/*/float32": ANY}),
    Expect(bc.RepeatSizeOfTheOtherSide, _cells(A2, "legal/mask_continuous/uint32") + _cells(B, "legal/mask_bits/float16"),
           must={f"{API}/*/legal/*": ANY}, may={f"{API}/*": {"MISSED_REJECT"}}),
]


def test_every_bug_is_listed() -> None:
    assert_listed(bc.BUGGY_COPY_BACKENDS, BUGS, 5)


@pytest.mark.parametrize("seed", [1, 20240601, 987654321])
@pytest.mark.parametrize("expect", BUGS, ids=lambda e: e.id)
def test_suite_catches_bug(expect: Expect, seed: int) -> None:
    assert_caught(expect, seed, correct=bc.CopySim)


def test_correct_simulator_and_reference_conform() -> None:
    """The control: the correct simulator, checked call by call against the reference, passes every cell
    a bug is run on, and the reject cells of ascend910b."""
    backend = CheckedSim(bc.CopySim(), "copy-sim-checked-against-oracle", same_rule=True)
    chosen = select_cells(sorted({p for e in BUGS for p in e.run}) + [f"{API}/{A2}/reject/*"])
    results = run_cells(chosen, backend, CI, 20240601, default_rulebook())
    assert len(results) == len(chosen) >= 20
    assert_controls_conform(backend, results, CI, {"legal", "reject"})
