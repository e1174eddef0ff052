"""The suite catches realistic DataCopy bugs under `ci`, whatever the seed, and lets a correct simulator
and the reference conform (tests/buggy_data_copy_backends.py; the real strategies and runner)."""
from __future__ import annotations

import pytest

import buggy_data_copy_backends as bd
from catching import CI, CheckedSim, Expect, assert_caught, assert_controls_conform, assert_listed, select_cells
from conformance.judge.runner import run_cells

API = "data_copy"
A2 = "ascend910b"
T = "ascend910"


def _cells(product: str, *tails: str) -> list[str]:
    return [f"{API}/{product}/{t}" for t in tails]


PARAMS = _cells(A2, "legal/params/float16", "legal/params/int8") + _cells(T, "legal/params/float32")
COUNT = _cells(A2, "legal/count/float16", "legal/count/int8") + _cells(T, "legal/count/float32")

BUGS = [
    Expect(bd.GapInBytes, PARAMS, must={f"{API}/*/legal/params/*": {"FAIL", "FALSE_REJECT"}}),
    Expect(bd.GapHeadToHead, PARAMS, must={f"{API}/*/legal/params/*": {"FAIL", "FALSE_REJECT"}}),
    Expect(bd.CountNotRounded, COUNT, must={f"{API}/*/legal/count/*": {"FAIL", "FALSE_REJECT"}}),
    Expect(bd.CountRoundedUp, COUNT, must={f"{API}/*/legal/count/*": {"FAIL", "FALSE_REJECT"}}),
    Expect(bd.ZeroBlockCountMovesOne, _cells(A2, "legal/params/float16", "legal/count/float16"),
           must={f"{API}/{A2}/legal/params/*": {"FAIL", "FALSE_REJECT"}}),
]


def test_every_bug_is_listed() -> None:
    assert_listed(bd.BUGGY_DATA_COPY_BACKENDS, BUGS, 5)
    for e in BUGS:
        for pattern in e.run:
            assert select_cells([pattern]), (e.id, pattern)


@pytest.mark.parametrize("seed", [1, 20240601, 987654321])
@pytest.mark.parametrize("expect", BUGS, ids=lambda e: e.id)
def test_suite_catches_bug(expect: Expect, seed: int) -> None:
    assert_caught(expect, seed, correct=bd.DataCopySim)


def test_correct_simulator_and_reference_conform() -> None:
    """The control: the correct simulator, checked call by call against the reference, passes every cell
    a bug is run on, and the reject cells of ascend910b and ascend910."""
    backend = CheckedSim(bd.DataCopySim(), "data-copy-sim-checked-against-oracle")
    chosen = select_cells(sorted({p for e in BUGS for p in e.run}) + [f"{API}/{A2}/reject/*", f"{API}/{T}/reject/*"])
    results = run_cells(chosen, backend, CI, 20240601)
    assert len(results) == len(chosen) >= 20
    assert_controls_conform(backend, results, CI, {"legal", "reject"})
