"""The suite catches realistic DataCopy ND->NZ bugs under `ci`, whatever the seed, and lets a correct simulator
and the reference conform (tests/buggy_data_copy_nd2nz_backends.py; the real strategies and runner)."""
from __future__ import annotations

import pytest

import buggy_data_copy_nd2nz_backends as bn
from catching import CI, CheckedSim, Expect, assert_caught, assert_controls_conform, assert_listed, select_cells
from conformance.judge.runner import run_cells
from oracle.spec import default_rulebook

API = "data_copy_nd2nz"
A2, P = "ascend910b", "ascend310p-aicore"


def _cells(product: str, *tails: str) -> list[str]:
    return [f"{API}/{product}/{t}" for t in tails]


LEGAL = _cells(A2, "legal/float16") + _cells(P, "legal/int8")
WIDE_AND_NARROW = _cells(A2, "legal/int8") + _cells(P, "legal/float32")
ANY = {f"{API}/*/legal/*": {"FAIL", "FALSE_REJECT"}}

BUGS = [
    Expect(bn.FractalOrderSwapped, LEGAL, must=ANY),
    Expect(bn.C0Of16Elements, WIDE_AND_NARROW, must=ANY),
    Expect(bn.MatrixStrideInBlocks, LEGAL, must=ANY),
    Expect(bn.PaddingNotZeroed, LEGAL, must={f"{API}/*/legal/*": {"FAIL"}}),
]


def test_every_bug_is_listed() -> None:
    assert_listed(bn.BUGGY_DATA_COPY_ND2NZ_BACKENDS, BUGS, 4)


@pytest.mark.parametrize("seed", [1, 20240601, 987654321])
@pytest.mark.parametrize("expect", BUGS, ids=lambda e: e.id)
def test_suite_catches_bug(expect: Expect, seed: int) -> None:
    assert_caught(expect, seed, correct=bn.Nd2NzSim)


def test_correct_simulator_and_reference_conform() -> None:
    """The control: the correct simulator, checked call by call against the reference, passes every cell a
    bug is run on, and the reject and undefined cells of ascend910b."""
    backend = CheckedSim(bn.Nd2NzSim(), "nd2nz-sim-checked-against-oracle")
    chosen = select_cells(sorted({p for e in BUGS for p in e.run}) + _cells(A2, "reject/*", "undefined/*"))
    results = run_cells(chosen, backend, CI, 20240601, default_rulebook())
    assert len(results) == len(chosen) >= 20
    assert_controls_conform(backend, results, CI, {"legal", "reject", "undefined"})
