"""junit.xml (conformance/report/junit.py): every kind of cell outcome becomes what a CI dashboard expects."""
from __future__ import annotations

import xml.etree.ElementTree as ET

from conformance.report.junit import junit_tree, write_junit
from conformance.judge.cell_result import CellResult

META = {"backend": {"name": "sim", "spec": "pkg:Sim"}, "seed": 7, "profile": "ci", "spec_hash": "abc"}


def cell(api: str, product: str, kind: str, rule: str | None = None, dtype: str | None = None,
         form: str | None = None) -> dict:
    tail = f"{kind}/{'/'.join(p for p in (form, dtype) if p)}" if kind == "legal" else f"{kind}/{rule}"
    return {"id": f"{api}/{product}/{tail}", "api": api, "product": product, "kind": kind, "rule": rule,
            "dtype": dtype, "form": form}


def test_outcomes(tmp_path):
    passed = CellResult(cell("data_move", "ascend910b", "legal", dtype="float16"), counts={"PASS": 120},
                        seconds=1.5)
    failed = CellResult(cell("scatter", "ascend310b", "legal", dtype="float16", form="count"),
                        counts={"PASS": 3, "FAIL": 1}, seconds=0.5,
                        failure={"verdict": "FAIL", "message": "2 wrong byte(s) in UB from byte 64", "rule": None,
                                 "reproducer": "repro/x.yaml"})
    missed = CellResult(cell("scatter", "ascend310b", "reject", rule="scatter.dstLocal.align"),
                        counts={"MISSED_REJECT": 1},
                        failure={"verdict": "MISSED_REJECT", "message": "ran a call it must refuse",
                                 "rule": "scatter.dstLocal.align"})
    skipped = CellResult(cell("asc_gather", "ascend910b", "legal", dtype="int16", form="repeat"),
                         status="not_supported", counts={"NOT_SUPPORTED": 1})
    broken = CellResult(cell("data_move", "ascend910b", "reject", rule="data_move.nburst.range"),
                        status="error", error="ValueError: boom")
    root = junit_tree(META, [c.to_dict() for c in (passed, failed, missed, skipped, broken)],
                      ["worker 2: could not load backend"], "reports/").getroot()
    assert {k: root.get(k) for k in ("tests", "failures", "errors", "skipped")} == \
        {"tests": "6", "failures": "2", "errors": "2", "skipped": "1"}
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    assert set(suites) == {"data_move.ascend910b", "scatter.ascend310b", "asc_gather.ascend910b", "run"}
    scatter = suites["scatter.ascend310b"]
    assert (scatter.get("tests"), scatter.get("failures")) == ("2", "2")
    names = {c.get("name"): c for c in scatter.iter("testcase")}
    assert set(names) == {"legal/count/float16", "reject/scatter.dstLocal.align"}
    (fail,) = names["legal/count/float16"].iter("failure")
    assert fail.get("type") == "FAIL" and "ascend-conformance replay reports/repro/x.yaml --backend pkg:Sim" in fail.text
    (miss,) = names["reject/scatter.dstLocal.align"].iter("failure")
    assert miss.get("type") == "MISSED_REJECT" and "rule: scatter.dstLocal.align" in miss.text
    (skip,) = suites["asc_gather.ascend910b"].iter("skipped")
    assert "NOT_SUPPORTED" in skip.get("message")
    errors = list(suites["data_move.ascend910b"].iter("error"))
    assert len(errors) == 1 and "boom" in errors[0].get("message")
    assert "120 calls: PASS 120" in [c for c in suites["data_move.ascend910b"].iter("system-out")][0].text
    # written as a file that parses back
    path = write_junit(tmp_path, {**META, "cells": [passed.to_dict()], "errors": []})
    assert ET.parse(path).getroot().get("tests") == "1"


def test_incomplete_run_lists_every_planned_cell():
    """A run stopped early: the planned cells it never ran are errors saying why, a cell whose worker
    was lost says so, and the stop is a property of every suite."""
    ran = CellResult(cell("data_move", "ascend910b", "legal", dtype="float16"), counts={"PASS": 5})
    lost = CellResult(cell("data_move", "ascend910b", "legal", dtype="int8"), status="error")
    killed = CellResult(cell("data_move", "ascend910b", "legal", dtype="int16"), status="error",
                        error="worker lost: killed by signal 9 (out of memory?)")
    planned = [ran.id, lost.id, killed.id, "data_move/ascend910b/reject/data_move.nburst.range",
               "scatter/ascend310b/legal/count/float16"]
    meta = {**META, "planned": planned, "interrupted": True}
    root = junit_tree(meta, [c.to_dict() for c in (ran, lost, killed)], []).getroot()
    assert (root.get("tests"), root.get("errors")) == ("5", "4")
    cases = {f"{c.get('classname')}/{c.get('name')}": c for c in root.iter("testcase")}
    assert set(cases) == {"data_move.ascend910b/legal/float16", "data_move.ascend910b/legal/int8",
                          "data_move.ascend910b/legal/int16", "data_move.ascend910b/reject/data_move.nburst.range",
                          "scatter.ascend310b/legal/count/float16"}
    why = {name: c.find("error").get("message") for name, c in cases.items() if c.find("error") is not None}
    assert why["data_move.ascend910b/legal/int8"] == "worker lost"
    assert why["data_move.ascend910b/legal/int16"].startswith("worker lost: killed by signal 9")
    assert why["scatter.ascend310b/legal/count/float16"] == "not run: the run was interrupted"
    stopped = junit_tree({**meta, "stopped": "SIGTERM"}, [ran.to_dict()], []).getroot()
    assert {c.find("error").get("message") for c in stopped.iter("testcase") if c.find("error") is not None} \
        == {"not run: the run was stopped (SIGTERM)"}
    assert "SIGTERM" in {p.get("value") for p in stopped.iter("property") if p.get("name") == "stopped"}


def test_replay_command_is_shell_quoted():
    """An exec: backend's command line, spaces and quotes included, pastes back as one argument."""
    import shlex
    spec = """exec:./my sim --opt "a b" 'c'"""
    failed = CellResult(cell("data_move", "ascend910b", "legal", dtype="float16"), counts={"FAIL": 1},
                        failure={"verdict": "FAIL", "message": "m", "rule": None, "reproducer": "repro/x y.yaml"})
    root = junit_tree({**META, "backend": {"name": "sim", "spec": spec}}, [failed.to_dict()], [], "my reports/").getroot()
    (node,) = root.iter("failure")
    line = node.text.splitlines()[-1]
    assert shlex.split(line) == ["ascend-conformance", "replay", "my reports/repro/x y.yaml", "--backend", spec]
