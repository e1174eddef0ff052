"""The suite catches realistic Gatherb bugs under `ci`, whatever the seed, and lets a correct simulator and the
reference conform (tests/buggy_gatherb_backends.py; the real strategies and runner). The offsets are data in
memory: every reproducer carries them."""
from __future__ import annotations

import pytest

import buggy_gatherb_backends as bb
from catching import (CI, CheckedSim, Expect, assert_caught, assert_controls_conform, assert_listed, offsets_travel,
                      select_cells)
from conformance.judge.runner import run_cells
from oracle.spec import default_rulebook

API = "gatherb"
A2 = "ascend910b"
B = "ascend310b"
ANY = {"FAIL", "FALSE_REJECT"}


def _cells(product: str, *tails: str) -> list[str]:
    return [f"{API}/{product}/{t}" for t in tails]


BUGS = [
    Expect(bb.OffsetsInElements, _cells(A2, "legal/uint16", "legal/uint32") + _cells(B, "legal/float16"),
           must={f"{API}/*/legal/*": {"FAIL"}}),
    Expect(bb.ZeroBlockStrideKept, _cells(A2, "legal/uint16") + _cells(B, "legal/int8"), must={f"{API}/*/legal/*": ANY}),
    Expect(bb.StridesInElements, _cells(A2, "legal/uint32") + _cells(B, "legal/float32", "legal/int64"),
           must={f"{API}/*/legal/*": ANY}, may={f"{API}/*": {"MISSED_REJECT"}}),
    Expect(bb.RepeatStrideInBytes, _cells(A2, "legal/uint16") + _cells(B, "legal/int32"),
           must={f"{API}/*/legal/*": {"FAIL"}}, may={f"{API}/*": {"MISSED_REJECT"}}),
]



def test_every_bug_is_listed() -> None:
    assert_listed(bb.BUGGY_GATHERB_BACKENDS, BUGS, 4)


@pytest.mark.parametrize("seed", [1, 20240601, 987654321])
@pytest.mark.parametrize("expect", BUGS, ids=lambda e: e.id)
def test_suite_catches_bug(expect: Expect, seed: int) -> None:
    assert_caught(expect, seed, correct=bb.GatherbSim, check_failure=offsets_travel)


def test_correct_simulator_and_reference_conform() -> None:
    """The control: the correct simulator, checked call by call against the reference, passes every cell
    a bug is run on, and the reject cells of ascend910b and ascend310b."""
    backend = CheckedSim(bb.GatherbSim(), "gatherb-sim-checked-against-oracle", same_rule=True)
    chosen = select_cells(sorted({p for e in BUGS for p in e.run}) + [f"{API}/{A2}/reject/*", f"{API}/{B}/reject/*"])
    results = run_cells(chosen, backend, CI, 20240601, default_rulebook())
    assert len(results) == len(chosen) >= 20
    assert_controls_conform(backend, results, CI, {"legal", "reject"})
