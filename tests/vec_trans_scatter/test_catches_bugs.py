"""The suite catches realistic vec_trans_scatter bugs, and lets the reference conform.

Every buggy backend of tests/buggy_vts_backends.py is run through the real strategies and runner
(conformance.generate.cells -> conformance.judge.runner.run_cells under the `ci` profile), on the cells where its bug
can show plus a few that must stay green; nothing here hand-feeds a failing call. For each bug the test
checks the verdict, the cells it is found in (and that it is found nowhere else among those run), that
the shrunk reproducer is the small call the bug needs, and that the recorded failure replays to the
same verdict from its plain-data form (Call.from_dict + MemoryRecipe.from_dict + judge). A reproducer
of a missed rejection is refused by the correct simulator for the very rule the suite names.

The controls: the correct simulator `VtsSim`, checked call by call against the reference
(`OracleBackend`), conforms on every vec_trans_scatter cell of ascend910b and on the cells where
ascend310b differs from it (its dtype list, its UB size).

Page: 000_4bcb8e5856d111e9.txt. Budget: about 40 s of CPU on one core, two thirds of it the two controls.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import buggy_vts_backends as bv
from catching import CI, CheckedSim, Expect, assert_caught, assert_controls_conform, assert_listed, run
from conformance.generate.cells import cells, select
from oracle import Call
from oracle.spec import default_rulebook

RUN_SEED = 20240601
API = "vec_trans_scatter"
P = "ascend910b"
B = "ascend310b"        # no float16 / float32 ("Atlas 200/500 A2推理产品"), 248 KB of UB


def _on(product: str, *tails: str) -> list[str]:
    return [f"{API}/{product}/{t}" for t in tails]


def _legal(product: str, *dtypes: str) -> list[str]:
    return _on(product, *(f"legal/{d}" for d in dtypes))


# ---------------------------------------------------------------------------------------------------
# what each bug must look like


def _addrs(call: Call, op: str) -> list[int]:
    return [t.addr for t in call.args[op]]


def _dtype(call: Call) -> str:
    return call.args["dst_list"][0].dtype


def _first(failure: dict[str, Any]) -> list[dict[str, Any]]:
    d = failure["diff"]["UB"]
    assert d["stray_bytes"] == 0, "the bug writes only the blocks dst_list names"
    return d["first"]


def _shrunk_a(failure: dict[str, Any], call: Call) -> None:
    a = call.args
    assert _dtype(call) in ("int32", "uint32", "float32")
    assert a["repeat_times"] == 1                      # one transpose shows it
    # dst entries 0 and 15 come out right: the first wrong byte is in another entry's block
    ok = {a["dst_list"][0].addr, a["dst_list"][15].addr}
    assert all(e["addr"] - e["addr"] % 32 not in ok for e in _first(failure))


def _shrunk_b(failure: dict[str, Any], call: Call) -> None:
    a = call.args
    assert _dtype(call) in ("int8", "uint8") and a["repeat_times"] == 1
    assert a["dst_high_half"] != a["src_high_half"]    # equal flags read the same either way
    _first(failure)


def _shrunk_c(failure: dict[str, Any], call: Call) -> None:
    a = call.args
    assert _dtype(call) in ("int8", "uint8") and a["repeat_times"] == 1
    for e in _first(failure):                          # only the half dst_high_half leaves alone is wrong
        assert (e["addr"] % 32 >= 16) != a["dst_high_half"] and e["actual"] == 0, e


def _shrunk_d(failure: dict[str, Any], call: Call) -> None:
    a = call.args
    assert a["repeat_times"] >= 2 and (a["dst_rep_stride"] or a["src_rep_stride"])
    if failure["verdict"] == "FAIL":
        assert a["repeat_times"] == 2
    if failure["verdict"] == "MISSED_REJECT" and failure["rule"].endswith(".bounds"):
        op = failure["rule"].split(".")[1]
        assert a[f"{op.split('_')[0]}_rep_stride"] > 0      # the stride of the short operand


def _shrunk_e(failure: dict[str, Any], call: Call) -> None:
    d, s = _addrs(call, "dst_list"), _addrs(call, "src_list")
    assert call.args["repeat_times"] == 1
    assert set(d) & set(s) and d != s                  # overlapping, not entry for entry identical


def _shrunk_f(failure: dict[str, Any], call: Call) -> None:
    a = call.args
    assert a["repeat_times"] == 2
    d = set(_addrs(call, "dst_list"))                  # iteration 0 writes what iteration 1 reads
    assert d & {x + a["src_rep_stride"] * 32 for x in _addrs(call, "src_list")}


def _shrunk_g(failure: dict[str, Any], call: Call) -> None:
    d, s = _addrs(call, "dst_list"), _addrs(call, "src_list")
    assert d != sorted(d) or s != sorted(s)           # some list is not in address order
    assert call.args["repeat_times"] == 1
    _first(failure)


def _shrunk_h(failure: dict[str, Any], call: Call) -> None:
    assert call.product == B and _dtype(call) in ("float16", "float32")


def _shrunk_i(failure: dict[str, Any], call: Call) -> None:
    assert _addrs(call, "dst_list") == _addrs(call, "src_list")      # in place, as the page allows
    assert call.args["repeat_times"] == 1
    # dst block 0 is right (nothing was overwritten yet when it was computed)
    assert all(e["addr"] - e["addr"] % 32 != call.args["dst_list"][0].addr for e in _first(failure))


def _shrunk_k(failure: dict[str, Any], call: Call) -> None:
    a = call.args
    assert a["repeat_times"] == 2 and a["dst_rep_stride"] == 0      # both iterations write every block
    _first(failure)


def _shrunk_j(failure: dict[str, Any], call: Call) -> None:
    op = failure["rule"].split(".")[1]
    cap = {P: 192 << 10, B: 248 << 10}[call.product]
    ends = [t.addr + t.numel * np.dtype(t.dtype).itemsize for t in call.args[op]]
    assert cap < max(ends) <= 256 << 10


BUGS = [
    Expect(bv.B32HalvesMispaired, _legal(P, "int32", "float32", "int16"),
           must={f"{API}/{P}/legal/*32": {"FAIL"}}, shrunk=_shrunk_a),
    Expect(bv.HighHalfFlagsSwapped, _legal(P, "int8", "uint8", "float16"),
           must={f"{API}/{P}/legal/*int8": {"FAIL"}}, shrunk=_shrunk_b),
    Expect(bv.OtherHalfCleared, _legal(P, "int8", "uint8", "int16"),
           must={f"{API}/{P}/legal/*int8": {"FAIL"}}, shrunk=_shrunk_c),
    Expect(bv.StridesInElements,
           _legal(P, "int8", "int16", "float32")
           + _on(P, "reject/vec_trans_scatter.*.bounds", "reject/vec_trans_scatter.overlap.single_repeat"),
           # the shrunk geometry also makes phantom overlaps: a legal call refused is a FALSE_REJECT
           must={f"{API}/{P}/legal/*": {"FAIL", "FALSE_REJECT"},
                 f"{API}/{P}/reject/*.bounds": {"MISSED_REJECT"}},
           shrunk=_shrunk_d),
    Expect(bv.SingleRepeatOverlapUnchecked, _on(P, "reject/vec_trans_scatter.overlap.*"),
           must={f"{API}/{P}/reject/*.single_repeat": {"MISSED_REJECT"}}, shrunk=_shrunk_e),
    Expect(bv.DependencyUnchecked, _on(P, "reject/vec_trans_scatter.overlap.*"),
           must={f"{API}/{P}/reject/*.repeat_dependency": {"MISSED_REJECT"}}, shrunk=_shrunk_f),
    Expect(bv.ListsSortedByAddress, _legal(P, "uint8", "int16", "float32"),
           must={f"{API}/{P}/legal/*": {"FAIL"}}, shrunk=_shrunk_g),
    Expect(bv.Float16On310b,
           _on(B, "reject/vec_trans_scatter.dtype.supported_310b") + _on(P, "reject/vec_trans_scatter.dtype.*"),
           must={f"{API}/{B}/reject/*.supported_310b": {"MISSED_REJECT"}}, shrunk=_shrunk_h),
    Expect(bv.InPlaceClobbered, _legal(P, "int8", "float16", "uint32"),
           must={f"{API}/{P}/legal/*": {"FAIL"}}, shrunk=_shrunk_i),
    Expect(bv.EarlierIterationWins, _legal(P, "uint8", "int16", "int32"),
           must={f"{API}/{P}/legal/*": {"FAIL"}}, shrunk=_shrunk_k),
    Expect(bv.UbSize256k,
           _on(P, "reject/vec_trans_scatter.*.capacity") + _on(B, "reject/vec_trans_scatter.dst_list.capacity")
           + _on("ascend910", "reject/vec_trans_scatter.src_list.capacity"),
           must={f"{API}/{P}/reject/*.capacity": {"MISSED_REJECT"},
                 f"{API}/{B}/reject/*.capacity": {"MISSED_REJECT"}},
           shrunk=_shrunk_j),
]


# ---------------------------------------------------------------------------------------------------
# the tests


def test_every_bug_is_listed() -> None:
    assert_listed(bv.BUGGY_VTS_BACKENDS, BUGS, 6)


def _sixteen_entries(failure: dict[str, Any], call: Call) -> None:
    assert [len(call.args[op]) for op in ("dst_list", "src_list")] == [16, 16]


# A region that is an ambiguity: the planted behaviour is its other reading, and the region is not
# generated while no reading is declared; caught once the run declares last_wins (ambiguities/test_catches_ambiguity_bugs.py).
IN_AN_AMBIGUITY = {"vts-bug-k-earlier-iteration-wins": "vec_trans_scatter.dst.repeat_overlap"}


@pytest.mark.parametrize("expect", [pytest.param(e, marks=pytest.mark.xfail(
    reason=f"in the ambiguity {IN_AN_AMBIGUITY[e.id]}", strict=True)) if e.id in IN_AN_AMBIGUITY else e
    for e in BUGS], ids=lambda e: e.id)
def test_suite_catches_bug(expect: Expect) -> None:
    assert_caught(expect, RUN_SEED, correct=bv.VtsSim, min_cells=2, check_failure=_sixteen_entries)


CONTROLS = {
    P: [f"{API}/{P}/*"],                                           # every cell of the A2 training product
    # where ascend310b differs from it (its dtype list, its UB size), and a 256 KB UB
    "others": _on(B, "legal/*", "reject/vec_trans_scatter.dtype.*", "reject/vec_trans_scatter.*.capacity")
              + _on("ascend910", "reject/vec_trans_scatter.*.capacity")
              + _on("ascend910_93", "reject/vec_trans_scatter.product.supported"),     # not on the page
}


def test_controls_cover_every_cell_a_bug_is_run_on() -> None:
    def ids(patterns: list[str]) -> set[str]:
        products = sorted({p.split("/")[1] for p in patterns})
        return {c.id for c in select(cells(products, [API], rulebook=default_rulebook()), patterns)}
    controlled = set().union(*(ids(p) for p in CONTROLS.values()))
    for e in BUGS:
        assert ids(e.run) <= controlled, (e.id, sorted(ids(e.run) - controlled))


@pytest.mark.parametrize("which", sorted(CONTROLS))
def test_correct_simulator_and_reference_conform(which: str) -> None:
    """The control: without its one bug each backend is `VtsSim`, which passes every cell the bugs are
    looked for in (so each failure above is that bug's alone), and the reference agrees with it call by
    call: every vec_trans_scatter cell of ascend910b; ascend310b where it differs from ascend910b (its
    dtype list, its UB size); the capacity cells of a 256 KB UB; the A3 product the page does not list."""
    backend = CheckedSim(bv.VtsSim(), "vts-sim-checked-against-oracle")
    results = run(backend, CONTROLS[which], RUN_SEED)
    assert len(results) == (27 if which == P else 13)
    assert_controls_conform(backend, results, CI, {"legal", "reject", "undefined"} if which == P else {"legal", "reject"})
