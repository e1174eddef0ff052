"""The suite catches realistic DataCopy bugs under `ci`, whatever the seed, and lets a correct simulator
and the reference conform (tests/buggy_data_copy_backends.py; the real strategies and runner)."""
from __future__ import annotations

import pytest

import buggy_data_copy_backends as bd
import buggy_data_copy_pad_backends as bp
from catching import CI, CheckedSim, Expect, assert_caught, assert_controls_conform, assert_listed, select_cells
from conformance.judge.runner import run_cells
from oracle.spec import default_rulebook

API = "data_copy"
A2 = "ascend910b"
T = "ascend910"


def _cells(product: str, *tails: str) -> list[str]:
    return [f"{API}/{product}/{t}" for t in tails]


PARAMS = _cells(A2, "legal/params/float16", "legal/params/int8") + _cells(T, "legal/params/float32")
# an unaligned count is the ambiguity data_copy.count.unaligned: the rounding bugs are looked for in its cell,
# judged by the reading round_down (the page's sentence); the legal count cells draw aligned counts only
UNALIGNED = "data_copy.count.unaligned"
COUNT = _cells(A2, "legal/count/float16", f"ambiguity/{UNALIGNED}") + _cells(T, f"ambiguity/{UNALIGNED}")
ROUND_DOWN = {UNALIGNED: "round_down"}

BUGS = [
    Expect(bd.GapInBytes, PARAMS, must={f"{API}/*/legal/params/*": {"FAIL", "FALSE_REJECT"}}),
    Expect(bd.GapHeadToHead, PARAMS, must={f"{API}/*/legal/params/*": {"FAIL", "FALSE_REJECT"}}),
    Expect(bd.CountNotRounded, COUNT, must={f"{API}/*/ambiguity/{UNALIGNED}": {"FAIL", "FALSE_REJECT"}},
           readings=ROUND_DOWN),
    Expect(bd.CountRoundedUp, COUNT, must={f"{API}/*/ambiguity/{UNALIGNED}": {"FAIL", "FALSE_REJECT"}},
           readings=ROUND_DOWN),
    Expect(bd.ZeroBlockCountMovesOne, _cells(A2, "legal/params/float16", "legal/count/float16"),
           must={f"{API}/{A2}/legal/params/*": {"FAIL", "FALSE_REJECT"}}),
]


PAD = "data_copy_pad"
NO_PADDING = "data_copy_pad.dummy.no_padding"
G2U = [f"{PAD}/{A2}/legal/gm_to_ub/{d}" for d in ("int8", "float16", "float32")]
U2G = [f"{PAD}/{A2}/legal/ub_to_gm/{d}" for d in ("int8", "float16")]
PAD_BUGS = [
    Expect(bp.PaddingOnTheWrongSide, G2U, must={f"{PAD}/*/legal/gm_to_ub/*": {"FAIL", "FALSE_REJECT"}}),
    Expect(bp.DstStrideInBytes, G2U, must={f"{PAD}/*/legal/gm_to_ub/*": {"FAIL", "FALSE_REJECT"}}),
    Expect(bp.UbStrideFromBlockLen, U2G, must={f"{PAD}/*/legal/ub_to_gm/*": {"FAIL", "MISSED_REJECT"}}),
    # the dummy of a block without padding (isPad, no padding, a blockLen off 32) is the ambiguity
    # data_copy_pad.dummy.no_padding: looked for in its cell under the reading block_first; the legal
    # cells hold no such call
    Expect(bp.DummyZeros, G2U[:1] + [f"{PAD}/{A2}/ambiguity/{NO_PADDING}"],
           must={f"{PAD}/*/ambiguity/{NO_PADDING}": {"FAIL"}}, readings={NO_PADDING: "block_first"}),
    Expect(bp.ZeroBlockLenStillPads, G2U[:1], must={f"{PAD}/*/legal/gm_to_ub/*": {"FAIL", "FALSE_REJECT"}}),
]


def test_every_bug_is_listed() -> None:
    assert_listed(bd.BUGGY_DATA_COPY_BACKENDS, BUGS, 5)
    assert_listed(bp.BUGGY_DATA_COPY_PAD_BACKENDS, PAD_BUGS, 5)


@pytest.mark.parametrize("seed", [1, 20240601, 987654321])
@pytest.mark.parametrize("expect", BUGS + PAD_BUGS, ids=lambda e: e.id)
def test_suite_catches_bug(expect: Expect, seed: int) -> None:
    assert_caught(expect, seed, correct=bd.DataCopySim if expect in BUGS else bp.DataCopyPadSim)


def test_correct_simulator_and_reference_conform() -> None:
    """The control: the correct simulator, checked call by call against the reference, passes every cell
    a bug is run on, and the reject cells of ascend910b and ascend910."""
    backend = CheckedSim(bd.DataCopySim(), "data-copy-sim-checked-against-oracle", readings=ROUND_DOWN)
    chosen = select_cells(sorted({p for e in BUGS for p in e.run}) + [f"{API}/{A2}/reject/*", f"{API}/{T}/reject/*"])
    results = run_cells(chosen, backend, CI, 20240601, default_rulebook(), readings=ROUND_DOWN)
    assert len(results) == len(chosen) >= 20
    assert_controls_conform(backend, results, CI, {"legal", "reject", "ambiguity"})


def test_correct_pad_simulator_and_reference_conform() -> None:
    """The control for DataCopyPad: every cell a bug is run on and the reject cells of ascend910b."""
    readings = {NO_PADDING: "block_first", "data_copy_pad.dummy.without_isPad": "block_first"}
    backend = CheckedSim(bp.DataCopyPadSim(), "data-copy-pad-sim-checked-against-oracle", readings=readings)
    chosen = select_cells(sorted({p for e in PAD_BUGS for p in e.run}) + [f"{PAD}/{A2}/reject/*",
                                                                       f"{PAD}/{A2}/ambiguity/data_copy_pad.dummy.without_isPad"])
    results = run_cells(chosen, backend, CI, 20240601, default_rulebook(), readings=readings)
    assert len(results) == len(chosen) >= 20
    assert_controls_conform(backend, results, CI, {"legal", "reject", "ambiguity"})
