"""The suite catches realistic DataCopy NZ -> ND bugs, and lets the reference conform.

Every buggy backend of tests/buggy_nz2nd_backends.py is run through the real strategies and runner
(conformance.generate.cells -> conformance.judge.runner.run_cells under the `ci` profile), on the cells where its bug
can show plus a few that must stay green; nothing here hand-feeds a failing call. For each bug the test
checks the verdict, the cells it is found in (and that it is found nowhere else among those run), that
the shrunk reproducer is the call the bug needs, and that the recorded failure replays to the same
verdict from its plain-data form (Call.from_dict + MemoryRecipe.from_dict + judge). A reproducer of a
missed rejection is refused by the correct simulator for the very rule the suite names.

The controls: the correct simulator `Nz2NdSim`, checked call by call against the reference
(`OracleBackend`), conforms on every cell a bug is looked for in (under `ci`, as the bugs), and on every
other data_copy_nz2nd cell of ascend910b and ascend310p-aicore (under `quick`).

Most bugs share one geometry between the mover and the bounds checks (as a simulator author would): a
legal call they refuse (FALSE_REJECT, by a bounds check) is as much a catch as a wrong image (FAIL).

Page: 004_dc35eb371305363d.txt. Budget: about 40 s on one core, a quarter of it the controls; most
of the rest is shrinking (up to 300 Hypothesis runs and minimize()'s 200 per failing cell).
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import buggy_nz2nd_backends as bn
from catching import (CI, QUICK, CheckedSim, Expect, assert_caught, assert_controls_conform, assert_listed,
                      assert_controls_cover, control_cells, select_cells)
from conformance import OracleBackend
from conformance.generate.memory import MemoryRecipe
from conformance.judge.runner import run_cells
from conformance.judge.verdicts import judge
from oracle import Call, Tensor
from oracle.spec import default_rulebook

RUN_SEED = 20240601
API = "data_copy_nz2nd"
A2 = "ascend910b"            # 7 dtypes (bfloat16 too), 192 KB of UB
A3 = "ascend910_93"          # the same tables as A2
P = "ascend310p-aicore"      # no bfloat16, 256 KB of UB


def _on(product: str, *tails: str) -> list[str]:
    return [f"{API}/{product}/{t}" for t in tails]


def _legal(product: str, *dtypes: str) -> list[str]:
    return _on(product, *(f"legal/{d}" for d in dtypes))


def _reject(product: str, *rules: str) -> list[str]:
    return _on(product, *(f"reject/{API}.{r}" for r in rules))


# ---------------------------------------------------------------------------------------------------
# what each bug must look like


def _p(call: Call) -> dict[str, int]:
    return call.args["intriParams"]


def _width(call: Call) -> int:
    return bn.ITEMSIZE[call.args["dst"].dtype]


def _diff(failure: dict[str, Any]) -> dict[str, Any]:
    """The GM diff of a FAIL: the bug writes inside the destination footprint only."""
    d = failure["diff"]["GM"]
    assert set(failure["diff"]) == {"GM"}, "UB is only read"
    assert d["stray_bytes"] == 0, "the bug writes only bytes the call may write"
    return d


def _refused_for(failure: dict[str, Any], *rules: str) -> None:
    """A legal call a geometry bug refuses: refused by the bounds check the wrong geometry feeds."""
    if failure["verdict"] == "FALSE_REJECT":
        assert any(f"({API}.{r})" in failure["message"] for r in rules), failure["message"]


def _missed(failure: dict[str, Any], *rules: str) -> bool:
    if failure["verdict"] != "MISSED_REJECT":
        return False
    assert failure["rule"] in {f"{API}.{r}" for r in rules}, failure["rule"]
    return True


def _shrunk_a(failure: dict[str, Any], call: Call) -> None:
    p = _p(call)
    _missed(failure, "src.bounds")
    assert p["ndNum"] >= 1 and p["dValue"] >= 32 and p["srcNStride"] >= 1     # a second column block, moved
    if failure["verdict"] == "FAIL":
        # one row; a failure the edge sweep finds is shrunk by minimize() alone, which may leave more
        # column blocks than the two Hypothesis's shrinker got down to
        assert p["nValue"] == 1 and p["dValue"] >= 32
        d = _diff(failure)
        first = min(e["addr"] for e in d["first"]) - call.args["dst"].addr
        assert first >= 16 * _width(call)                        # the first column block is right


def _shrunk_b(failure: dict[str, Any], call: Call) -> None:
    _missed(failure, "src.bounds")
    p = _p(call)
    assert p["ndNum"] >= 2                                       # matrix 0 reads the same either way
    if failure["verdict"] == "FAIL":
        assert p["ndNum"] == 2
        first = min(e["addr"] for e in _diff(failure)["first"]) - call.args["dst"].addr
        assert first >= p["dstNdMatrixStride"] * _width(call)   # matrix 0 is right


def _shrunk_c(failure: dict[str, Any], call: Call) -> None:
    _refused_for(failure, "src.bounds")
    assert _width(call) == 4 and _p(call)["ndNum"] >= 1          # 16-bit types have C0 = 16 either way
    if failure["verdict"] == "FAIL":
        first = min(e["addr"] for e in _diff(failure)["first"]) - call.args["dst"].addr
        assert first >= 8 * 4                                    # columns 0-7 of row 0 are right


def _shrunk_d(failure: dict[str, Any], call: Call) -> None:
    assert _p(call)["dValue"] % 16


def _shrunk_e(failure: dict[str, Any], call: Call) -> None:
    assert call.product == P and call.args["dst"].dtype == "bfloat16"


def _shrunk_f(failure: dict[str, Any], call: Call) -> None:
    _missed(failure, "dst.bounds")
    p = _p(call)
    assert p["ndNum"] >= 1 and p["nValue"] >= 2                  # row 0 lands right either way
    if failure["verdict"] == "FAIL":
        assert p["nValue"] == 2 and p["ndNum"] == 1


def _shrunk_g(failure: dict[str, Any], call: Call) -> None:
    p = _p(call)
    assert p["ndNum"] >= 1 and p["nValue"] >= 2                  # one row reads the same either way
    assert p["nValue"] == 2
    d = _diff(failure)
    first = min(e["addr"] for e in d["first"]) - call.args["dst"].addr
    assert first >= _width(call)                                 # element (0, 0) is right


def _shrunk_h(failure: dict[str, Any], call: Call) -> None:
    _refused_for(failure, "src.bounds", "dst.bounds")
    assert _p(call)["ndNum"] == 0


def _shrunk_i(failure: dict[str, Any], call: Call) -> None:
    _missed(failure, "src.bounds", "dst.bounds")
    p = _p(call)
    assert p["ndNum"] >= 1
    if failure["verdict"] == "FAIL":
        d = _diff(failure)
        assert d["wrong_bytes"] <= p["ndNum"] * p["nValue"] * 16 * _width(call)   # the last block only
        if p["ndNum"] == 1 and p["nValue"] == 1:
            first = min(e["addr"] for e in d["first"]) - call.args["dst"].addr
            assert first >= (p["dValue"] - 16) * _width(call)


def _shrunk_j(failure: dict[str, Any], call: Call) -> None:
    _refused_for(failure, "src.bounds")
    p = _p(call)
    assert p["srcNStride"] == 0 and p["dValue"] >= 32 and p["ndNum"] >= 1


def _shrunk_k(failure: dict[str, Any], call: Call) -> None:
    _refused_for(failure, "src.bounds")
    p, src = _p(call), call.args["src"]
    dense = p["ndNum"] * p["nValue"] * p["dValue"]
    if failure["verdict"] == "FALSE_REJECT":
        assert dense > src.numel                                 # the dense count does not fit...
    else:
        assert _missed(failure, "src.bounds") and dense <= src.numel   # ...or fits a too-short src


def _shrunk_l(failure: dict[str, Any], call: Call) -> None:
    src = call.args["src"]
    assert call.product in (A2, A3)
    assert 192 << 10 < src.addr + src.numel * _width(call) <= 256 << 10


def _shrunk_m(failure: dict[str, Any], call: Call) -> None:
    p = _p(call)
    assert p["srcNStride"] == 4096 and p["dValue"] >= 32 and p["ndNum"] >= 1 and _width(call) == 2


def _shrunk_n(failure: dict[str, Any], call: Call) -> None:
    p = _p(call)
    assert call.product == P and _width(call) == 2
    assert p["nValue"] == 8192 and p["ndNum"] == 1 and call.args["src"].addr == 0
    assert _diff(failure)["wrong_bytes"] > 0


# The cells: four legal cells (a 16- and a 32-bit one per product; ascend310p-aicore's int16 is where a
# call can have nValue = 8192) and the reject cells the bugs need, shared between bugs (the controls run
# each once).
L16, L32, P16, P32 = _legal(A2, "int16"), _legal(A2, "float32"), _legal(P, "int16"), _legal(P, "int32")

BUGS = [
    Expect(bn.SrcNStrideInElements,
           L16 + P32 + _reject(A2, "src.bounds", "dst.bounds"),
           must={f"{API}/*/legal/*": {"FAIL"}, f"{API}/{A2}/reject/*.src.bounds": {"MISSED_REJECT"}},
           shrunk=_shrunk_a),
    Expect(bn.MatrixStrideIn16,
           L32 + P16 + _reject(A2, "src.bounds", "dst.bounds"),
           must={f"{API}/*/legal/*": {"FAIL"}, f"{API}/{A2}/reject/*.src.bounds": {"MISSED_REJECT"}},
           shrunk=_shrunk_b),
    Expect(bn.BlocksOf32Bytes,
           L16 + L32 + P16 + P32 + _reject(A2, "src.bounds"),
           # the doubled number of column blocks may reach past src: a legal call refused
           must={f"{API}/*/legal/*32": {"FAIL", "FALSE_REJECT"}},
           may={f"{API}/{A2}/reject/*.src.bounds": {"MISSED_REJECT"}}, shrunk=_shrunk_c),
    Expect(bn.DValueMultipleUnchecked,
           _reject(A2, "dValue.multiple") + _reject(P, "dValue.multiple") + L16,
           must={f"{API}/*/reject/*.dValue.multiple": {"MISSED_REJECT"}}, shrunk=_shrunk_d),
    Expect(bn.Bfloat16On310p,
           _reject(P, "dtype.supported_310p") + _reject(A2, "dtype.supported") + P16,
           must={f"{API}/{P}/reject/*.supported_310p": {"MISSED_REJECT"}}, shrunk=_shrunk_e),
    Expect(bn.DstDStrideInBytes,
           L16 + P32 + _reject(A2, "dst.bounds", "src.bounds"),
           must={f"{API}/*/legal/*": {"FAIL"}, f"{API}/{A2}/reject/*.dst.bounds": {"MISSED_REJECT"}},
           shrunk=_shrunk_f),
    Expect(bn.ColumnMajorBlocks,
           L32 + P16 + _reject(A2, "src.bounds"),
           must={f"{API}/*/legal/*": {"FAIL"}}, shrunk=_shrunk_g),
    Expect(bn.NdNumZeroAsOne,
           L16 + P32 + _reject(A2, "ndNum.range"),
           must={f"{API}/*/legal/*": {"FAIL", "FALSE_REJECT"}}, shrunk=_shrunk_h),
    Expect(bn.LastBlockDropped,
           L32 + P16 + _reject(A2, "src.bounds") + _reject(P, "dst.bounds"),
           must={f"{API}/*/legal/*": {"FAIL"}, f"{API}/*/reject/*.bounds": {"MISSED_REJECT"}},
           shrunk=_shrunk_i),
    Expect(bn.SrcNStrideZeroPacked,
           L16 + P32 + _reject(A2, "dst.bounds"),
           # the packed footprint may not fit src: a legal call refused
           must={f"{API}/*/legal/*": {"FAIL", "FALSE_REJECT"}}, shrunk=_shrunk_j),
    Expect(bn.SrcBoundsAsDense,
           L32 + P16 + _reject(A2, "src.bounds", "dst.bounds"),
           must={f"{API}/*/legal/*": {"FALSE_REJECT"}, f"{API}/{A2}/reject/*.src.bounds": {"MISSED_REJECT"}},
           shrunk=_shrunk_k),
    Expect(bn.UbSize256k,
           _reject(A2, "src.capacity") + _reject(A3, "src.capacity") + _reject(P, "src.capacity"),
           must={f"{API}/{A2}/reject/*.capacity": {"MISSED_REJECT"},
                 f"{API}/{A3}/reject/*.capacity": {"MISSED_REJECT"}},
           shrunk=_shrunk_l),
    Expect(bn.SrcNStrideIn12Bits,
           # 32-bit: a call with srcNStride = 4096 and two column blocks does not fit in UB
           L16 + P16 + L32,
           must={f"{API}/*/legal/int16": {"FAIL"}}, shrunk=_shrunk_m),
    Expect(bn.NValueIn13Bits,
           # ascend910b: 8192 rows of 16 half-words (256 KB) do not fit its 192 KB of UB; 32-bit: 512 KB
           P16 + P32 + L16,
           must={f"{API}/{P}/legal/int16": {"FAIL"}}, shrunk=_shrunk_n),
]


# ---------------------------------------------------------------------------------------------------
# the tests


def test_every_bug_is_listed() -> None:
    assert_listed(bn.BUGGY_NZ2ND_BACKENDS, BUGS, 6)


# These regions are ambiguities: the planted behaviour is one of their readings (or the region
# is not generated while no reading is declared); they are caught again once a backend declares readings.
IN_AN_AMBIGUITY = {'nz2nd-bug-m-src-n-stride-in-12-bits': 'data_copy_nz2nd.srcNStride.max',
                   'nz2nd-bug-h-ndnum-zero-as-one': 'data_copy_nz2nd.ndNum.zero'}


@pytest.mark.parametrize("expect", [pytest.param(e, marks=pytest.mark.xfail(
    reason=f"in the ambiguity {IN_AN_AMBIGUITY[e.id]}", strict=True)) if e.id in IN_AN_AMBIGUITY else e
    for e in BUGS], ids=lambda e: e.id)
def test_suite_catches_bug(expect: Expect) -> None:
    assert_caught(expect, RUN_SEED, correct=bn.Nz2NdSim, min_cells=3)


def test_page_examples() -> None:
    """The simulator and the reference on the page's own call (Nz2NdParamsFull{1, 32, 32, 1, 32, 32, 1}, half): input
    1 .. 1024, output "[1 2 ... 15 16 513 514 ... 527 528 17 18 ... 31 32 529 530 ...]"; and on the
    half figure's (ndNum 2, nValue 4, dValue 32, srcNStride 4, dstDStride 160, dstNdMatrixStride 48):
    the reference and `Nz2NdSim` leave the same image."""
    src = np.arange(1, 1025, dtype=np.uint16)
    p = {"ndNum": 1, "nValue": 32, "dValue": 32, "srcNdMatrixStride": 1, "srcNStride": 32,
         "dstDStride": 32, "dstNdMatrixStride": 1}
    call = Call(API, A2, {"dst": Tensor("GM", 0, "float16", 1024), "src": Tensor("UB", 0, "float16", 1024),
                          "intriParams": p})
    for backend in (bn.Nz2NdSim(), OracleBackend()):
        memory = {"UB": np.zeros(192 << 10, dtype=np.uint8), "GM": np.zeros(2048 + 256, dtype=np.uint8)}
        memory["UB"][:2048] = src.view(np.uint8)
        backend.run(call, memory)
        out = memory["GM"][:2048].view(np.uint16)
        assert out[:16].tolist() == list(range(1, 17)) and out[16:32].tolist() == list(range(513, 529))
        assert out[32:48].tolist() == list(range(17, 33)) and out[48:64].tolist() == list(range(529, 545))
        assert out[-32:-16].tolist() == list(range(497, 513)) and out[-16:].tolist() == list(range(1009, 1025))
        assert not memory["GM"][2048:].any()
    figure = {"ndNum": 2, "nValue": 4, "dValue": 32, "srcNdMatrixStride": 1, "srcNStride": 4,
              "dstDStride": 160, "dstNdMatrixStride": 48}
    dst, src_t = Tensor("GM", 64, "float16", 48 + 3 * 160 + 32), Tensor("UB", 32, "float16", 512)
    call = Call(API, P, {"dst": dst, "src": src_t, "intriParams": figure})
    recipe = MemoryRecipe(7, {"UB": 256 << 10, "GM": 4096})
    for backend in (bn.Nz2NdSim(), OracleBackend()):
        assert judge(call, recipe, backend, default_rulebook()).verdict.value == "PASS"
    ours, theirs = recipe.build(), recipe.build()
    bn.Nz2NdSim().run(call, ours)
    OracleBackend().run(call, theirs)
    assert np.array_equal(ours["GM"], theirs["GM"]) and not np.array_equal(ours["GM"], recipe.build()["GM"])


# Where the correct simulator and the reference are run: every cell a bug is run on, under `ci` as the bugs
# are (so each failure above is that bug's alone); and the rest of ascend910b and ascend310p-aicore under
# `quick`: the whole of both products under `ci` would take about half a minute on its own.
BUG_CELLS = sorted({p for e in BUGS for p in e.run})
PRODUCTS = [f"{API}/{A2}/*", f"{API}/{P}/*"]
CONTROLS = {"bug-cells": BUG_CELLS, "products": PRODUCTS}


def test_controls_cover_every_cell_a_bug_is_run_on() -> None:
    controlled = assert_controls_cover(CONTROLS, BUGS)
    assert {c.id for c in select_cells(PRODUCTS)} <= set(controlled)
    assert len(select_cells(PRODUCTS)) == 23 + 22                          # bfloat16 is not a 310P cell


@pytest.mark.parametrize("which", sorted(CONTROLS))
def test_correct_simulator_and_reference_conform(which: str) -> None:
    """The control: without its one bug each backend is `Nz2NdSim`, which passes every cell the bugs
    are looked for in (so each failure above is that bug's alone), and the reference agrees with it call
    by call there and on every other data_copy_nz2nd cell of ascend910b and ascend310p-aicore."""
    backend = CheckedSim(bn.Nz2NdSim(), "nz2nd-sim-checked-against-oracle", same_rule=True)
    prof = CI if which == "bug-cells" else QUICK
    chosen = control_cells(CONTROLS, which)
    results = run_cells(chosen, backend, prof, RUN_SEED, default_rulebook())
    assert len(results) == len(chosen) >= 15
    kinds = {"legal", "reject"} if which == "bug-cells" else {"legal", "reject", "undefined"}
    assert_controls_conform(backend, results, prof, kinds)
