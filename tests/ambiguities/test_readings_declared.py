"""Readings declared by the backend (its `readings` attribute, an exec program's hello) or on the
command line (--reading, --readings FILE, over the backend's), resolved in the worker, judged by, and
shown in results.json, the report, the terminal and the certification bundle."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import command
import yaml

from oracle import Call, Tensor
from oracle.spec import default_rulebook

from conformance import OracleBackend
from conformance.backends.contract import BackendLoadError
from conformance.backends.loading import load_backend
from conformance.backends.declared_readings import declare
from conformance.generate.cells import Cell
from conformance.generate.case import Case
from conformance.generate.memory import MemoryRecipe, image_sizes
from conformance.generate.profiles import profile
from conformance.judge.agreement import Pair
from conformance.judge.runner import run_cell
from conformance.judge.verdicts import Verdict, judge
from conformance.report.ambiguities import NOT_TESTED, verdict_text
from conformance.report.results import load_results, results_document
from conformance.report.text import replay_command

from kit_path import HELPERS
ROOT = Path(__file__).resolve().parents[2]
ZERO = "vec_trans_scatter.repeat_times.zero"          # readings nop (legal) and reject (reject)
CELL = "vec_trans_scatter/ascend910b/reject/vec_trans_scatter.repeat_times.range"

BACKENDS = textwrap.dedent(f'''
    from conformance import OracleBackend

    def declares_nop():
        return OracleBackend({{"{ZERO}": "nop"}})

    def declares_reject():
        return OracleBackend({{"{ZERO}": "reject"}})

    def declares_unknown_ambiguity():
        return OracleBackend({{"no.such.ambiguity": "nop"}})

    def declares_unknown_reading():
        return OracleBackend({{"{ZERO}": "sometimes"}})

    class ReadingsNotAMapping(OracleBackend):
        name = "odd"
        readings = 5
        def __init__(self):
            pass
''')


@pytest.fixture(scope="module")
def modules(tmp_path_factory) -> Path:
    return command.module_folder(tmp_path_factory, "readingbackends", BACKENDS)


def cli(*args: str, cwd: Path, extra: Path | None = None) -> subprocess.CompletedProcess:
    return command.cli(*args, cwd=cwd, paths=(extra,), timeout=300)


def run_one(tmp_path: Path, modules: Path, backend: str, *extra: str) -> subprocess.CompletedProcess:
    """One small cell of vec_trans_scatter, quick profile."""
    return cli("run", "--backend", backend, "--product", "ascend910b", "--api", "vec_trans_scatter",
               "--select", CELL, "--profile", "quick", "--seed", "1", "--report", "out", *extra,
               cwd=tmp_path, extra=modules)


def vts(repeat: int = 0) -> Call:
    """A float16 transpose with repeat_times = `repeat`: 0 lies in the region of ZERO and nowhere else."""
    dst = [Tensor("UB", 16384 + 32 * i, "float16", 16) for i in range(16)]
    src = [Tensor("UB", 32 * i, "float16", 16) for i in range(16)]
    return Call("vec_trans_scatter", "ascend910b", {"dst_high_half": False, "src_high_half": False,
                "repeat_times": repeat, "dst_rep_stride": 0, "src_rep_stride": 0, "dst_list": dst, "src_list": src})


def recipe(call: Call) -> MemoryRecipe:
    return MemoryRecipe(7, image_sizes(call, default_rulebook()))


def book(reading: str | None):
    return default_rulebook().with_readings({ZERO: reading}) if reading else default_rulebook()


# ------------------------------------------------------------------------------------------ judging

@pytest.mark.parametrize("declared, runs, verdict", [
    (None, OracleBackend(), Verdict.UNDEFINED),                       # no reading: anything but a crash
    ("nop", OracleBackend({ZERO: "nop"}), Verdict.PASS),
    ("nop", OracleBackend({ZERO: "reject"}), Verdict.FALSE_REJECT),   # refuses what its reading runs
    ("reject", OracleBackend({ZERO: "reject"}), Verdict.PASS),
    ("reject", OracleBackend({ZERO: "nop"}), Verdict.MISSED_REJECT),
])
def test_the_verdict_follows_the_rulebook_given(declared, runs, verdict):
    call = vts(0)
    assert judge(call, recipe(call), runs, book(declared)).verdict == verdict
    pair = Pair(runs, OracleBackend({ZERO: "nop"}))
    assert pair.judge_case(call, recipe(call), rulebook=book(declared)).verdict == verdict


def test_run_cell_judges_and_records_by_its_rulebook():
    """A frozen case in the region, judged by the reading the run declares; the reproducer records it."""
    call = vts(0)
    case = Case(call, recipe(call), "ambiguity", ZERO, ())
    cell = Cell("vec_trans_scatter", "ascend910b", "reject", rule="vec_trans_scatter.repeat_times.range")
    quick = profile("quick")
    passed = run_cell(cell, OracleBackend({ZERO: "reject"}), quick, 1, [case], sweep=False, rulebook=book(None),
                      readings={ZERO: "reject"})
    assert passed.failure is None and passed.counts.get("PASS", 0) >= 1
    failed = run_cell(cell, OracleBackend({ZERO: "nop"}), quick, 1, [case], sweep=False, rulebook=book(None),
                      readings={ZERO: "reject"})
    assert failed.failure["verdict"] == "MISSED_REJECT"
    assert failed.failure["readings"] == {ZERO: "reject"}
    assert failed.failure["call"]["args"]["repeat_times"] == 0       # shrunk, still inside the region


# ------------------------------------------------------------------------------------------ declaring

def test_declare_layers_and_names_who():
    backend = OracleBackend({ZERO: "nop", "scatter.count.zero": "nop"})
    d = declare(backend, "b", {ZERO: "reject"}, rulebook=book(None))
    assert d.readings == {ZERO: "reject", "scatter.count.zero": "nop"}
    assert d.by == {ZERO: "command line", "scatter.count.zero": "backend"}
    assert d.rulebook.ambiguity(ZERO).declared.id == "reject"
    replayed = declare(backend, "b", {}, rulebook=book(None), recorded={"scatter.count.zero": "reject"})
    assert replayed.by["scatter.count.zero"] == "reproducer"
    with pytest.raises(BackendLoadError, match="backend 'b' declares no.such=x: unknown ambiguity 'no.such'"):
        declare(OracleBackend({"no.such": "x"}), "b", rulebook=book(None))
    with pytest.raises(BackendLoadError, match=f"--reading {ZERO}=maybe: .*no reading 'maybe'"):
        declare(OracleBackend(), "b", {ZERO: "maybe"}, rulebook=book(None))


def test_declared_in_the_exec_hello(modules, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(HELPERS), str(modules)]))
    backend = load_backend(f"exec:{sys.executable} -m conformance serve readingbackends:declares_reject")
    try:
        assert backend.readings == {ZERO: "reject"}
        call = vts(0)
        assert judge(call, recipe(call), backend, book("reject")).verdict == Verdict.PASS
    finally:
        backend.close()


def test_a_run_reports_the_backends_readings(tmp_path, modules):
    done = run_one(tmp_path, modules, "readingbackends:declares_nop")
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["readings"] == {ZERO: {"reading": "nop", "by": "backend"}}
    rows = {a["id"]: a for a in results["ambiguities"]}
    assert rows[ZERO]["declared"] == "nop" and rows[ZERO]["by"] == "backend"
    assert rows["vec_trans_scatter.stride.single_repeat"]["status"] == NOT_TESTED
    assert f"CONFORMANT under readings {ZERO}=nop" in done.stdout
    assert f"ambiguity {ZERO} (declared by backend)" in done.stdout
    html = (tmp_path / "out" / "report-ascend910b.html").read_text()
    assert f"CONFORMANT under readings {ZERO}=nop" in html and NOT_TESTED in html


def test_the_command_line_overrides_the_backend(tmp_path, modules):
    (tmp_path / "readings.yaml").write_text(f"{ZERO}: reject\nscatter.count.zero: nop\n")
    done = run_one(tmp_path, modules, "readingbackends:declares_nop", "--readings", "readings.yaml")
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["readings"] == {ZERO: {"reading": "reject", "by": "command line"},
                                   "scatter.count.zero": {"reading": "nop", "by": "command line"}}
    done = run_one(tmp_path, modules, "oracle", "--readings", "readings.yaml", "--reading", f"{ZERO}=nop")
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["readings"][ZERO] == {"reading": "nop", "by": "command line"}


@pytest.mark.parametrize("backend, args, message", [
    ("readingbackends:declares_unknown_ambiguity", (), "unknown ambiguity 'no.such.ambiguity'"),
    ("readingbackends:declares_unknown_reading", (), f"{ZERO}=sometimes: ambiguity {ZERO} has no reading 'sometimes'"),
    ("readingbackends:ReadingsNotAMapping", (), "'readings' must map ambiguity ids to reading ids"),
    ("oracle", ("--reading", "scatter.nothing=nop"), "--reading scatter.nothing=nop: unknown ambiguity"),
    ("oracle", ("--reading", f"{ZERO}=maybe"), f"--reading {ZERO}=maybe: ambiguity {ZERO} has no reading 'maybe'"),
    ("oracle", ("--readings", "bad.yaml"), f"bad.yaml: {ZERO}: expected an ambiguity id mapped to a reading id"),
    ("oracle", ("--readings", "list.yaml"), "list.yaml: expected a mapping of ambiguity id -> reading id"),
    ("oracle", ("--readings", "unknown.yaml"), "unknown.yaml: scatter.nothing: unknown ambiguity"),
    ("oracle", ("--readings", "missing.yaml"), "missing.yaml: cannot read"),
])
def test_unknown_readings_and_bad_files_are_exit_2_naming_them(tmp_path, modules, backend, args, message):
    (tmp_path / "bad.yaml").write_text(f"{ZERO}: [nop]\n")
    (tmp_path / "list.yaml").write_text(f"- {ZERO}\n")
    (tmp_path / "unknown.yaml").write_text("scatter.nothing: nop\n")
    done = run_one(tmp_path, modules, backend, *args)
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], done.stderr
    assert not (tmp_path / "out" / "results.json").exists()


# ------------------------------------------------------------------------------------------ replay

@pytest.mark.parametrize("recorded, extra, status, word", [
    ("reject", (), 1, "STILL FAILING"),                               # the oracle runs repeat 0: MISSED_REJECT
    ("nop", (), 0, "FIXED"),
    ("reject", ("--reading", f"{ZERO}=nop"), 0, "FIXED"),              # the command line over the file
    (None, (), 0, "FIXED"),                                            # none: UNDEFINED
])
def test_replay_judges_by_the_recorded_readings(tmp_path, recorded, extra, status, word):
    call = vts(0)
    data = {"cell": "vec_trans_scatter/ascend910b/ambiguity/" + ZERO, "verdict": "MISSED_REJECT", "message": "",
            "expect": "ambiguity", "rule": ZERO, "call": call.to_dict(), "memory": recipe(call).to_dict()}
    if recorded:
        data["readings"] = {ZERO: recorded}
    (tmp_path / "r.yaml").write_text(yaml.safe_dump(data))
    done = cli("replay", "r.yaml", "--backend", "oracle", *extra, cwd=tmp_path)
    assert done.returncode == status, done.stdout + done.stderr
    assert done.stdout.startswith(word)


def test_a_reproducer_with_an_unknown_reading_is_malformed(tmp_path):
    call = vts(0)
    data = {"cell": "x/y/legal/z", "verdict": "FAIL", "message": "", "call": call.to_dict(),
            "memory": recipe(call).to_dict(), "readings": {ZERO: "maybe"}}
    (tmp_path / "r.yaml").write_text(yaml.safe_dump(data))
    done = cli("replay", "r.yaml", "--backend", "oracle", cwd=tmp_path)
    assert done.returncode == 2 and f"readings.{ZERO}" in done.stdout and "maybe" in done.stdout


def test_the_replay_command_repeats_the_command_lines_readings():
    command = replay_command("repro/x.yaml", "oracle", readings={ZERO: "nop"})
    assert command.endswith(f"--backend oracle --reading {ZERO}=nop")


# ------------------------------------------------------------------------------------------ reports

def _results(readings):
    """A results document with one ambiguity cell of ZERO (hand-made: its calls are the generators')."""
    chosen = [Cell("vec_trans_scatter", "ascend910b", "ambiguity", rule=ZERO)]
    amb = {"id": f"vec_trans_scatter/ascend910b/ambiguity/{ZERO}", "status": "ran", "counts": {"PASS": 3},
           "cell": {"id": f"vec_trans_scatter/ascend910b/ambiguity/{ZERO}", "api": "vec_trans_scatter",
                    "product": "ascend910b", "kind": "ambiguity", "form": None, "dtype": None, "rule": ZERO}}
    return results_document(default_rulebook(), {"name": "b", "spec": "b", "version": ""}, chosen, [amb],
                            readings=readings)


def test_results_rows_per_ambiguity_and_schema(tmp_path):
    results = _results({ZERO: {"reading": "nop", "by": "backend"}})
    rows = {a["id"]: a for a in results["ambiguities"]}
    assert rows[ZERO]["calls"] == 3 and rows[ZERO]["counts"] == {"PASS": 3}
    assert rows[ZERO]["cells"] == [f"vec_trans_scatter/ascend910b/ambiguity/{ZERO}"]
    assert rows[ZERO]["status"] == "tested under reading nop"
    assert all(a["status"] == NOT_TESTED for i, a in rows.items() if i != ZERO)
    (tmp_path / "results.json").write_text(json.dumps(results))
    again = load_results(tmp_path / "results.json", default_rulebook())  # the schema takes the new kind and fields
    assert again["readings"] == results["readings"]
    assert verdict_text(results) == f"CONFORMANT under readings {ZERO}=nop for vec_trans_scatter on ascend910b"
    assert verdict_text(_results({})) == "CONFORMANT for vec_trans_scatter on ascend910b"


def test_the_html_row_and_the_junit_case_of_an_ambiguity_cell(tmp_path):
    from conformance.report.outputs import write_outputs
    write_outputs(_results({ZERO: {"reading": "nop", "by": "command line"}}), tmp_path, default_rulebook())
    html = (tmp_path / "report-ascend910b.html").read_text()
    row = html[html.index(f"<code>{ZERO}</code>"):]
    row = row[:row.index("</tr>")]
    assert "<code>nop</code>" in row and "command line" in row and "tested under reading nop" in row
    assert NOT_TESTED in html
    assert f"ambiguity/{ZERO}" in (tmp_path / "junit.xml").read_text()


def test_the_bundle_records_the_readings(tmp_path):
    from conformance.report.bundle import write_bundle
    from conformance.report.outputs import write_outputs
    results = _results({ZERO: {"reading": "reject", "by": "backend"}})
    results["certify"] = {"frozen_hash": "f" * 16, "frozen_cases": 0}
    results["seed"], results["profile"] = 0, "quick"
    write_outputs(results, tmp_path, default_rulebook())
    write_bundle(tmp_path, results, waivers_file=None, argv=["certify"], rulebook=default_rulebook())
    readme = (tmp_path / "README.md").read_text()
    assert f"**CONFORMANT under readings {ZERO}=reject for vec_trans_scatter on ascend910b**" in readme
    assert f"`{ZERO}` = `reject` (declared by backend)" in readme
    env = json.loads((tmp_path / "environment.json").read_text())
    assert env["readings"] == {ZERO: {"reading": "reject", "by": "backend"}}


# ------------------------------------------------------------------------------------------ with ambiguity cells

@pytest.mark.parametrize("backend, declared, status", [
    ("readingbackends:declares_nop", (), 0),
    ("readingbackends:declares_nop", ("--reading", f"{ZERO}=reject"), 1),      # runs what the reading refuses
])
def test_a_declared_reading_enters_its_region(tmp_path, modules, backend, declared, status):
    done = cli("run", "--backend", backend, "--product", "ascend910b", "--api", "vec_trans_scatter",
               "--select", f"*/ambiguity/{ZERO}", "--profile", "quick", "--seed", "1", "--report", "out", *declared,
               cwd=tmp_path, extra=modules)
    assert done.returncode == status, done.stdout + done.stderr
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    row = {a["id"]: a for a in results["ambiguities"]}[ZERO]
    assert row["calls"] > 0 and row["cells"] == [f"vec_trans_scatter/ascend910b/ambiguity/{ZERO}"]
    if status:
        assert results["failures"][0]["readings"] == {ZERO: "reject"}
        assert f"--reading {ZERO}=reject" in done.stdout          # the replay command printed repeats it


def test_the_cluster_path_reports_the_readings_too():
    """What a Dask worker runs for the session's start (supervise/cluster.py): its local worker resolves
    the readings and says them, as a local run's does."""
    from conformance.supervise import cluster
    config = cluster.ClusterSupervisor("tcp://nowhere:1", "oracle", readings={ZERO: "reject"},
                                      specs=default_rulebook).config
    try:
        described = cluster._answer(cluster._on_cluster(config, None), "ready")
    finally:
        held = getattr(cluster._local, "held", None)
        if held is not None:
            held[1].close()
            del cluster._local.held
    assert described["readings"] == {ZERO: "reject"} and described["readings_by"] == {ZERO: "command line"}


def test_the_regions_a_run_enters():
    """Those a reading is declared for; under --against, every region of the apis chosen."""
    from conformance.commands.options import ambiguity_ids
    every = [a.id for a in default_rulebook().api("vec_trans_scatter").ambiguities]
    assert ambiguity_ids(["vec_trans_scatter"], {ZERO: "nop", "scatter.count.zero": "nop"}, False) == [ZERO]
    assert ambiguity_ids(["vec_trans_scatter"], {}, False) == []
    assert ambiguity_ids(["vec_trans_scatter"], {}, True) == every and ZERO in every
