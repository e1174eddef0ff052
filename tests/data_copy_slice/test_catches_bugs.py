"""The suite catches realistic bugs of DataCopy by SliceInfo under `ci`, whatever the seed, and lets a correct
simulator and the reference conform (tests/buggy_data_copy_slice_backends.py; the real strategies and runner)."""
from __future__ import annotations

import pytest

import buggy_data_copy_slice_backends as bs
from catching import CI, CheckedSim, Expect, assert_caught, assert_controls_conform, assert_listed, select_cells
from conformance.judge.runner import run_cells
from oracle.spec import default_rulebook

API = "data_copy_slice"
A2, P = "ascend910b", "ascend310p-aicore"
HIGHER = "data_copy_slice.formula.higher_dims"


def _cells(product: str, *tails: str) -> list[str]:
    return [f"{API}/{product}/{t}" for t in tails]


LEGAL = _cells(A2, "legal/float32") + _cells(P, "legal/int8")
ANY = {f"{API}/*/legal/*": {"FAIL", "FALSE_REJECT"}}
ROWS = _cells(A2, f"ambiguity/{HIGHER}")

BUGS = [
    Expect(bs.EndOffByOne, LEGAL, must={f"{API}/*/legal/*": {"FAIL"}}),
    Expect(bs.StrideInBlocks, LEGAL, must=ANY),
    Expect(bs.BurstInElements, LEGAL, must=ANY),
    Expect(bs.DimsSwapped, ROWS, must={f"{API}/*/ambiguity/*": {"FAIL", "FALSE_REJECT"}},
           readings={HIGHER: "per_index"}),
]


def test_every_bug_is_listed() -> None:
    assert_listed(bs.BUGGY_DATA_COPY_SLICE_BACKENDS, BUGS, 4)
    for e in BUGS:
        for pattern in e.run:
            assert select_cells([pattern]), (e.id, pattern)


@pytest.mark.parametrize("seed", [1, 20240601, 987654321])
@pytest.mark.parametrize("expect", BUGS, ids=lambda e: e.id)
def test_suite_catches_bug(expect: Expect, seed: int) -> None:
    assert_caught(expect, seed, correct=bs.SliceSim)


def test_correct_simulator_and_reference_conform() -> None:
    """The control: the correct simulator, checked call by call against the reference, passes every cell a
    bug is run on, and the reject cells of ascend910b."""
    backend = CheckedSim(bs.SliceSim(), "slice-sim-checked-against-oracle")
    chosen = select_cells(sorted({p for e in BUGS for p in e.run if "ambiguity" not in p}) + _cells(A2, "reject/*"))
    results = run_cells(chosen, backend, CI, 20240601, default_rulebook())
    assert len(results) == len(chosen) >= 15
    assert_controls_conform(backend, results, CI, {"legal", "reject"})
