"""CONFORMANT only for what was tested (conformance/report/overall_verdict.py, judge/runner.py): a cell conforms only
when it judged every call it planned and reached every edge; a run that supported nothing tested nothing;
a verdict names its scope in every output; one shard never speaks for a product."""
from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace

import pytest

import command
from oracle.spec import default_rulebook

from conformance import OracleBackend
from conformance.commands.cli import main
from conformance.commands.terminal import Terminal
from conformance.generate.cells import cells
from conformance.generate.profiles import Profile, profile
from conformance.judge import runner
from conformance.judge.cell_result import incomplete_reason
from conformance.judge.runner import run_cell
from conformance.report.outputs import write_outputs
from conformance.report.merging import merge
from conformance.report.results import (CONFORMANT, INCOMPLETE, NOT_CONFORMANT, ResultsError, combine_runs, finish,
                                        load_results, overall, results_document)
from conformance.supervise.plan import plan

INT8 = "data_move/ascend910b/legal/int8"
SCATTER = "scatter/ascend910b/legal/count/float16"
QUICK = ["--profile", "quick", "--seed", "1"]
HERE = "tests.reports.test_verdict_scope"
MERGE = "merge every shard with `ascend-conformance report` for the product's verdict"


class OnlyDataMove(OracleBackend):
    name = "only-data-move"

    def supports(self, api, product):
        return api == "data_move"


class Nothing(OracleBackend):
    name = "nothing"

    def supports(self, api, product):
        return False


from tests.buggy_backends import OneBurstTooFew  # noqa: E402  (loaded by name from this module too)


class Batched(OracleBackend):
    name = "batched"

    def run_batch(self, calls, memories):
        out = []
        for call, memory in zip(calls, memories):
            try:
                self.run(call, memory)
                out.append(None)
            except Exception as exc:        # noqa: BLE001 - a refusal is an answer
                out.append(exc)
        return out


# ------------------------------------------------------------------------------------------- documents

def cell(cid: str, **fields) -> dict:
    """A cell's result as results.json holds it (25 calls that passed, unless `fields` say otherwise)."""
    api, product, kind, *rest = cid.split("/")
    legal = kind == "legal"
    info = {"id": cid, "api": api, "product": product, "kind": kind, "rule": None if legal else rest[-1],
            "dtype": rest[-1] if legal else None, "form": rest[0] if legal and len(rest) > 1 else None}
    return {"id": cid, "cell": info, "status": "ran", "counts": {"PASS": 25}, "planned_calls": 25, **fields}


def doc(specs: list[tuple[str, dict]], backend: str = "sim", planned: list[str] | None = None, **settings) -> dict:
    """The finished results document of hand-made cells ((id, fields) each), planned as given."""
    ids = planned if planned is not None else [cid for cid, _ in specs]
    chosen = [SimpleNamespace(id=i, api=i.split("/")[0], product=i.split("/")[1]) for i in ids]
    return results_document(default_rulebook(), {"name": backend, "spec": f"x:{backend}", "version": ""}, chosen,
                            [cell(cid, **fields) for cid, fields in specs], **settings)


def valid_page(text: str) -> None:
    from tests.reports.test_reports import assert_valid_and_self_contained     # html5lib: not for the backend's import
    assert_valid_and_self_contained(text)


NOT_SUPPORTED = {"status": "not_supported", "counts": {"NOT_SUPPORTED": 1}, "planned_calls": None}
FAILED = {"counts": {"PASS": 3, "FAIL": 1},
          "failure": {"cell": "data_move/ascend910b/legal/int16", "verdict": "FAIL", "message": "1 wrong byte",
                      "call": {}, "memory": {}}}


def test_a_cell_that_judged_fewer_calls_than_planned_makes_the_run_incomplete():
    results = doc([(INT8, {"counts": {"PASS": 20}, "incomplete": "judged 20 of 25 planned calls"}),
                   ("data_move/ascend910b/legal/int16", {})])
    assert results["verdict"] == INCOMPLETE and not results["conforms"]
    assert results["verdict_reasons"] == [f"{INT8}: judged 20 of 25 planned calls"]
    assert results["verdict_text"] == \
        f"INCOMPLETE for data_move on ascend910b: {INT8}: judged 20 of 25 planned calls"
    # nothing failed, so it was INCOMPLETE; a failure elsewhere makes it NOT CONFORMANT whatever else
    failing = doc([(INT8, {"counts": {"PASS": 20}, "incomplete": "judged 20 of 25 planned calls"}),
                   ("data_move/ascend910b/legal/int16", FAILED)])
    assert failing["verdict"] == NOT_CONFORMANT == overall(failing, "ascend910b")
    complete = doc([(INT8, {}), ("data_move/ascend910b/legal/int16", {})])
    assert complete["verdict"] == CONFORMANT and complete["verdict_reasons"] == []


def test_several_incomplete_cells_are_counted_and_the_first_named():
    ids = [f"data_move/ascend910b/legal/{d}" for d in ("int8", "int16", "int32", "int64", "uint8")]
    results = doc([(i, {"incomplete": "edges missed: data_move.nburst.max"}) for i in ids])
    (reason,) = results["verdict_reasons"]
    assert reason.startswith("5 cells incomplete: data_move/ascend910b/legal/int16: edges missed: ")
    assert reason.endswith("; and 2 more")


def test_a_backend_supporting_nothing_asked_tested_nothing():
    results = doc([(INT8, NOT_SUPPORTED), (SCATTER, NOT_SUPPORTED)])
    assert results["verdict"] == INCOMPLETE and not results["conforms"] and results["calls"] == 0
    assert results["verdict_text"] == "NOTHING TESTED: backend 'sim' supports none of data_move, scatter on " \
                                      "ascend910b (0 calls)"
    assert results["scope"]["tested"] == {} and results["scope"]["nothing_tested"]
    # a run stopped before its other cells: not "nothing tested", it is unfinished
    stopped = doc([(INT8, NOT_SUPPORTED)], planned=[INT8, SCATTER], interrupted=True)
    assert stopped["verdict"] == INCOMPLETE and not stopped["verdict_text"].startswith("NOTHING TESTED")
    assert "the run was interrupted" in stopped["verdict_reasons"]
    assert doc([])["verdict_text"] == "NOTHING TESTED: no cell was run (0 calls)"


def test_the_verdict_names_its_scope():
    partial = doc([(INT8, {}), (SCATTER, NOT_SUPPORTED)])
    assert partial["verdict"] == CONFORMANT
    assert partial["verdict_text"] == \
        "CONFORMANT for data_move on ascend910b (1 of 2 APIs; not supported: scatter)"
    assert partial["scope"]["tested"] == {"data_move": ["ascend910b"]} and not partial["scope"]["complete"]
    assert partial["scope"]["not_supported"] == {"scatter": ["ascend910b"]}
    whole = doc([(INT8, {}), (SCATTER, {})])
    assert whole["verdict_text"] == "CONFORMANT for data_move, scatter on ascend910b"
    assert whole["scope"]["complete"]
    two = doc([(INT8, {}), ("data_move/ascend310b/legal/int8", {}), (SCATTER, {}),
               ("scatter/ascend310b/legal/count/float16", NOT_SUPPORTED)])
    assert two["verdict_text"] == ("CONFORMANT for data_move on ascend910b, ascend310b; scatter on ascend910b "
                                   "(not supported: scatter on ascend310b)")
    selected = doc([(INT8, {})], select=["data_move/*/legal/int8"])
    assert selected["verdict_text"] == "CONFORMANT for data_move on ascend910b (cells matching --select " \
                                       "data_move/*/legal/int8)"


def test_one_shard_never_speaks_for_the_product():
    ids = [INT8, "data_move/ascend910b/legal/int16"]
    one = doc([(ids[0], {})], planned=ids[:1], shard="1/2", shard_cells=2)
    assert one["verdict"] == INCOMPLETE == overall(one, "ascend910b") and one["scope"]["shard"]["conforms"]
    assert one["verdict_reasons"] == [f"shard 1/2: 1 of 2 cells, none failed or incomplete; {MERGE}"]
    assert one["verdict_text"].startswith("INCOMPLETE for data_move on ascend910b: shard 1/2: 1 of 2 cells")
    two = doc([(ids[1], {})], planned=ids[1:], shard="2/2", shard_cells=2)
    assert merge([("a", one), ("b", two)])["verdict"] == CONFORMANT
    assert merge([("a", one)])["verdict"] == INCOMPLETE
    bad = doc([(ids[1], FAILED)], planned=ids[1:], shard="2/2", shard_cells=2)
    assert bad["verdict"] == NOT_CONFORMANT and not bad["scope"]["shard"]["conforms"]
    assert "shard 2/2: 1 of 2 cells; merge" in bad["verdict_text"]
    short = doc([(ids[0], {"incomplete": "judged 3 of 25 planned calls"})], planned=ids[:1], shard="1/2")
    assert short["verdict"] == INCOMPLETE and not short["scope"]["shard"]["conforms"]
    assert doc([(ids[0], {})], shard="1/1")["verdict"] == CONFORMANT     # one shard of one is the whole


def _part(task, sweep: int, judged: int | None = None, exhausted: bool = False, missed=()) -> dict:
    """The result of one task of a split cell, as the runner records it."""
    planned = task.profile.calls + (sweep if task.part == 0 else 0)
    judged = planned if judged is None else judged
    edges = {"reachable": ["a", "b"], "missed": list(missed)} if task.part == 0 else {}
    return cell(task.cell.id, counts={"PASS": judged}, planned_calls=planned, exhausted=exhausted, edges=edges,
                incomplete=incomplete_reason("ran", False, planned, judged, exhausted, missed))


def test_the_parts_of_a_split_cell_add_up_to_the_cells_plan():
    """A nightly cell is searched in parts (supervise/plan.py), each planning its share of the budget
    and the first the sweep too: together they plan the whole, and one short part makes the cell short."""
    (target,) = [c for c in cells(["ascend910b"], ["data_move"], rulebook=default_rulebook()) if c.id == INT8]
    nightly = profile("nightly")
    tasks = sorted(plan([target], nightly, 7, default_rulebook()), key=lambda t: t.part)
    assert len(tasks) > 1 and sum(t.profile.calls for t in tasks) == nightly.calls
    whole = combine_runs([_part(t, 40) for t in tasks])
    assert whole["planned_calls"] == nightly.calls + 40 == sum(whole["counts"].values())
    assert whole["incomplete"] is None
    short = combine_runs([_part(t, 40, judged=t.profile.calls - 20 if t.part == 1 else None) for t in tasks])
    assert short["incomplete"] == f"judged {nightly.calls + 20} of {nightly.calls + 40} planned calls"
    # the short part had run out of distinct calls: it judged all there is
    spent = combine_runs([_part(t, 40, judged=t.profile.calls - 20 if t.part == 1 else None, exhausted=t.part == 1)
                          for t in tasks])
    assert spent["incomplete"] is None and spent["exhausted"]
    missed = combine_runs([_part(t, 40, missed=["b"]) for t in tasks])
    assert missed["incomplete"] == "edges missed: b"
    # two nightly runs merged: an edge one missed and the other reached is reached
    runs = [dict(run, planned_calls=10, counts={"PASS": 10}) for run in (missed, whole)]
    assert combine_runs(runs)["incomplete"] is None


def test_incomplete_reason_spares_what_stopped_or_did_not_run():
    assert incomplete_reason("ran", False, 120, 87, False, []) == "judged 87 of 120 planned calls"
    assert incomplete_reason("ran", False, 120, 87, False, ["a", "b"]) == \
        "judged 87 of 120 planned calls; edges missed: a, b"
    assert incomplete_reason("ran", False, 120, 87, True, []) is None          # exhausted: complete
    assert incomplete_reason("ran", True, 120, 3, False, ["a"]) is None         # stopped at a failure
    for status in ("not_supported", "unreachable", "error"):
        assert incomplete_reason(status, False, 120, 0, False, []) is None


# ------------------------------------------------------------------------------------------- the runner

def _int8():
    return next(c for c in cells(["ascend910b"], ["data_move"], rulebook=default_rulebook()) if c.id == INT8)


def test_the_runner_records_what_it_planned():
    result = run_cell(_int8(), OracleBackend(), profile("quick"), 1, rulebook=default_rulebook())
    assert result.planned_calls == 25 == sum(result.counts.values())
    assert result.incomplete is None and not result.exhausted and result.conforms
    batched = run_cell(_int8(), Batched(), profile("quick"), 1, rulebook=default_rulebook())
    assert batched.planned_calls == 25 == sum(batched.counts.values()) and batched.incomplete is None


def test_a_search_cut_short_is_incomplete(monkeypatch):
    """A search whose last round still found new calls, stopped before the budget (the rounds' cap):
    the cell judged less than it planned."""
    monkeypatch.setattr(runner, "search_rounds", lambda calls, seed, found: iter([(1, seed)]))
    result = run_cell(_int8(), OracleBackend(), Profile("t", 100), 1, rulebook=default_rulebook())
    judged = sum(result.counts.values())
    assert 0 < judged < 100 and not result.exhausted and not result.conforms
    assert result.incomplete == f"judged {judged} of 100 planned calls"


def test_a_search_that_ran_out_of_calls_is_complete(monkeypatch):
    """A round that finds nothing new: Hypothesis has no other call to give; the cell judged all there is."""
    monkeypatch.setattr(runner, "search_rounds", lambda calls, seed, found: iter([(2, seed), (2, seed)]))
    result = run_cell(_int8(), OracleBackend(), Profile("t", 100), 1, rulebook=default_rulebook())
    assert sum(result.counts.values()) < 100 and result.exhausted and result.incomplete is None and result.conforms


def test_a_small_cell_exhausted_under_ci_is_complete():
    """A cell of the specs whose calls Hypothesis exhausts before the ci budget (seed 0, certify's)."""
    target = next(c for c in cells(["ascend910b"], ["asc_gather"], rulebook=default_rulebook())
                  if c.id == "asc_gather/ascend910b/legal/count/float16")
    result = run_cell(target, OracleBackend(), profile("ci"), 0, rulebook=default_rulebook())
    assert sum(result.counts.values()) < result.planned_calls and result.exhausted
    assert result.incomplete is None and result.edges["missed"] == []


def test_missed_edges_make_a_cell_incomplete(monkeypatch):
    from conformance.generate import edges
    targets = edges.targets
    monkeypatch.setattr(edges, "targets",
                        lambda cell, rulebook, window: [*targets(cell, rulebook, window), "nowhere.edge"])
    result = run_cell(_int8(), OracleBackend(), Profile("t", 10, sweep=True), 1, rulebook=default_rulebook())
    assert result.edges["missed"] == ["nowhere.edge"] and result.incomplete == "edges missed: nowhere.edge"
    assert result.planned_calls == 10 + result.sweep_calls and not result.conforms


def test_a_failed_cell_is_not_incomplete_but_not_conformant():
    result = run_cell(_int8(), OneBurstTooFew(), profile("ci"), 1, rulebook=default_rulebook())
    assert result.failure and result.incomplete is None
    assert sum(result.counts.values()) < result.planned_calls


def test_an_incomplete_cell_in_every_output(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(runner, "search_rounds", lambda calls, seed, found: iter([(1, seed)]))
    short = run_cell(_int8(), OracleBackend(), Profile("t", 100), 1, rulebook=default_rulebook())
    results = results_document(default_rulebook(), {"name": "sim", "spec": "x:sim", "version": ""}, [_int8()],
                               [short], profile="t", seed=1, started="2026-01-01T00:00:00+00:00", duration_s=1.0)
    assert results["verdict"] == INCOMPLETE
    write_outputs(results, tmp_path, default_rulebook())
    page = (tmp_path / "report-ascend910b.html").read_text()
    head = page[:page.index("<main>")]
    assert ">INCOMPLETE<" in head and f"judged {sum(short.counts.values())} of 100 planned calls" in head
    assert f"incomplete: {short.incomplete}" in page
    junit = ET.parse(tmp_path / "junit.xml").getroot()
    assert junit.get("name").startswith("ascend-conformance sim: INCOMPLETE for data_move on ascend910b")
    (error,) = junit.iter("error")
    assert error.get("type") == "INCOMPLETE" and short.incomplete in error.get("message")
    assert Terminal().end(results, tmp_path, "x:sim") == 1
    assert f"INCOMPLETE for data_move on ascend910b: {INT8}: {short.incomplete}; " in capsys.readouterr().out


# ------------------------------------------------------------------------------------------- results.json

def test_an_older_results_json_still_loads(tmp_path):
    results = doc([(INT8, {}), (SCATTER, NOT_SUPPORTED)])
    for key in ("scope", "verdict_text", "verdict_reasons"):
        results.pop(key)
    for c in results["cells"]:
        for key in ("planned_calls", "exhausted", "incomplete"):
            c.pop(key, None)
    (tmp_path / "results.json").write_text(json.dumps(results))
    again = load_results(tmp_path / "results.json", default_rulebook())
    assert again["cells"][0]["planned_calls"] is None and again["cells"][0]["incomplete"] is None
    merged = merge([("old", again)])
    assert merged["verdict"] == CONFORMANT and merged["scope"]["not_supported"] == {"scatter": ["ascend910b"]}


def test_the_schema_takes_the_new_fields_and_isolation(tmp_path):
    results = doc([(INT8, {"incomplete": "judged 1 of 25 planned calls", "exhausted": False})], shard="1/2",
                  shard_cells=2, isolation={"mode": "process", "backend_user": "bob", "judge_user": "alice",
                                            "same_user": False})
    (tmp_path / "results.json").write_text(json.dumps(results))
    assert load_results(tmp_path / "results.json", default_rulebook())["scope"]["shard"]["index"] == 1
    results["isolation"]["mode"] = "thread"
    (tmp_path / "results.json").write_text(json.dumps(results))
    with pytest.raises(ResultsError, match="isolation"):
        load_results(tmp_path / "results.json", default_rulebook())
    results["isolation"] = {"mode": "process"}
    results["cells"][0]["planned_calls"] = -1
    (tmp_path / "results.json").write_text(json.dumps(results))
    with pytest.raises(ResultsError, match=r"cells\[0\]\.planned_calls"):
        load_results(tmp_path / "results.json", default_rulebook())


def test_merge_carries_isolation_and_the_page_says_what_it_was(tmp_path):
    alice = {"mode": "process", "backend_user": "alice", "judge_user": "alice", "same_user": True}
    bob = {"mode": "process", "backend_user": "bob", "judge_user": "alice", "same_user": False}
    one, two = doc([(INT8, {})], isolation=alice), doc([(INT8, {})], isolation=bob)
    assert merge([("a", one), ("b", dict(one))])["isolation"] == alice
    merged = merge([("a", one), ("b", two)])
    assert merged["isolation"] == [alice, bob]
    page = write_outputs(merged, tmp_path, default_rulebook())["html"][0].read_text()
    valid_page(page)
    head = page[:page.index("<main>")]
    assert "alice (the judge&#39;s own user)" in head and "bob (not the judge&#39;s user alice)" in head
    assert "debugging run" not in head
    debug = write_outputs(doc([(INT8, {})], isolation={"mode": "in-process"}), tmp_path / "d",
                          default_rulebook())["html"][0]
    debug = debug.read_text()
    valid_page(debug)
    assert ("the backend shared the judge's process (--in-process): a debugging run, not a certification"
            in debug[:debug.index("<main>")])


# ------------------------------------------------------------------------------------------- the command line

def _verdict_line(out: str) -> str:
    """The line print_end ends with before the files it lists."""
    lines = out.splitlines()
    return lines[[i for i, line in enumerate(lines) if line.endswith("results.json")][-1] - 1]


def run(*args: str, cwd) -> tuple[int, str]:
    """The command as a user runs it (a process of its own); its exit status and output."""
    done = command.cli(*args, cwd=cwd, paths=(Path(__file__).resolve().parents[1],))   # this module imports `command`
    return done.returncode, done.stdout + done.stderr


def test_run_of_a_backend_supporting_nothing_exits_1_saying_so(tmp_path):
    code, out = run("run", "--backend", f"{HERE}:Nothing", "--product", "ascend910b", "--api", "data_move",
                    "--api", "scatter", *QUICK, "--report", "r", cwd=tmp_path)
    assert code == 1, out
    assert _verdict_line(out).startswith("NOTHING TESTED: backend 'nothing' supports none of data_move, scatter "
                                         "on ascend910b (0 calls); ")
    results = json.loads((tmp_path / "r" / "results.json").read_text())
    assert results["verdict"] == INCOMPLETE and results["verdict_text"].startswith("NOTHING TESTED: ")
    page = (tmp_path / "r" / "report-ascend910b.html").read_text()
    valid_page(page)
    assert '<div class="verdict"><b>NOTHING TESTED</b>' in page
    junit = ET.parse(tmp_path / "r" / "junit.xml").getroot()
    assert junit.get("errors") == "1" and junit.find(".//testcase[@name='nothing-tested']/error") is not None


def test_run_of_a_partial_backend_names_its_scope_everywhere(tmp_path):
    code, out = run("run", "--backend", f"{HERE}:OnlyDataMove", "--product", "ascend910b", "--api", "data_move",
                    "--api", "scatter", *QUICK, "--report", "r", cwd=tmp_path)
    assert code == 0, out
    said = "data_move on ascend910b (1 of 2 APIs; not supported: scatter)"
    assert _verdict_line(out).startswith(f"CONFORMANT for {said}; ")
    results = load_results(tmp_path / "r" / "results.json", default_rulebook())    # the schema takes it
    assert results["verdict_text"] == f"CONFORMANT for {said}"
    assert results["scope"]["tested"] == {"data_move": ["ascend910b"]}
    page = (tmp_path / "r" / "report-ascend910b.html").read_text()
    badge = re.search(r'<div class="verdict[^"]*">(.*?)</div>', page, re.S).group(1)
    assert "CONFORMANT" in badge and "for data_move on ascend910b" in badge and "not supported: scatter" in badge
    junit = ET.parse(tmp_path / "r" / "junit.xml").getroot()
    assert junit.get("name") == f"ascend-conformance only-data-move: CONFORMANT for {said}"
    scopes = {p.get("value") for p in junit.iter("property") if p.get("name") == "scope"}
    assert scopes == {said}


def test_certify_of_a_partial_backend_says_what_it_covers(tmp_path):
    code, out = run("certify", "--backend", f"{HERE}:OnlyDataMove", "--product", "ascend310b", "--api",
                    "data_move", "--api", "scatter", "--profile", "quick", "--bundle", "b", cwd=tmp_path)
    assert code == 0, out
    readme = (tmp_path / "b" / "README.md").read_text()
    said = "CONFORMANT for data_move on ascend310b (1 of 2 APIs; not supported: scatter)"
    assert readme.startswith("# Conformance certification: only-data-move for data_move on ascend310b only\n")
    assert f"Verdict: **{said}**" in readme and "- scatter on ascend310b" in readme
    assert json.loads((tmp_path / "b" / "environment.json").read_text())["verdict"] == said


def test_a_shard_exits_on_its_cells_and_claims_no_product(tmp_path):
    args = ["run", "--backend", "oracle", "--product", "ascend910b", "--api", "data_move", *QUICK]
    for i in (1, 2):
        code, out = run(*args, "--shard", f"{i}/2", "--report", f"s{i}", cwd=tmp_path)
        assert code == 0, out
        line = _verdict_line(out)
        assert re.match(rf"INCOMPLETE for data_move on ascend910b: shard {i}/2: \d+ of 27 cells, none failed or "
                        r"incomplete; merge every shard", line), line
        results = json.loads((tmp_path / f"s{i}" / "results.json").read_text())
        assert results["verdict"] == INCOMPLETE and results["scope"]["shard"]["of"] == 27
        page = (tmp_path / f"s{i}" / "report-ascend910b.html").read_text()
        assert f"<b>INCOMPLETE</b><small>shard {i}/2 · for data_move on ascend910b</small>" in page
        junit = ET.parse(tmp_path / f"s{i}" / "junit.xml").getroot()
        assert f"shard {i}/2" in junit.get("name")
        assert {p.get("value") for p in junit.iter("property") if p.get("name") == "shard"} == {f"{i}/2"}
    assert main(["report", str(tmp_path / "s1"), "--out", str(tmp_path / "one")]) == 1
    assert main(["report", str(tmp_path / "s1"), str(tmp_path / "s2"), "--out", str(tmp_path / "all")]) == 0
    assert json.loads((tmp_path / "all" / "results.json").read_text())["verdict_text"] == \
        "CONFORMANT for data_move on ascend910b"


def test_a_shard_with_a_failure_exits_1(tmp_path):
    code, out = run("run", "--backend", f"{HERE}:OneBurstTooFew", "--product", "ascend910b", "--select",
                    "data_move/*/legal/*", *QUICK, "--shard", "1/2", "--report", "s", cwd=tmp_path)
    assert code == 1, out
    assert _verdict_line(out).startswith("NOT CONFORMANT for data_move on ascend910b (cells matching --select "
                                         "data_move/*/legal/*): shard 1/2: ")
    assert json.loads((tmp_path / "s" / "results.json").read_text())["verdict"] == NOT_CONFORMANT
