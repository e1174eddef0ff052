"""The CLI as a user runs it: exit codes, files it writes, one-line errors, replay, seeds."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET
import re
import subprocess
import textwrap
from pathlib import Path

import pytest

import command

from conformance import BackendLoadError, load_backend
from conformance.generate.cells import cells
from conformance.generate.profiles import profile
from conformance.judge.runner import run_cell
from conformance.judge.verdicts import Verdict
from oracle.spec import default_rulebook

ROOT = Path(__file__).resolve().parents[2]

BUGGY = textwrap.dedent('''
    from conformance import OracleBackend

    class OneBurstTooFew(OracleBackend):
        name = "one-burst-too-few"
        def run(self, call, memory):
            if call.args.get("nburst", 0) > 1:
                call = call.replace(nburst=call.args["nburst"] - 1)
            super().run(call, memory)

    class Nothing:
        name = "nothing"
        def supports(self, api, product):
            return False
        def run(self, call, memory):
            raise AssertionError("never called")

    def broken_factory():
        raise RuntimeError("no licence server")
''')


@pytest.fixture(scope="module")
def modules(tmp_path_factory) -> Path:
    return command.module_folder(tmp_path_factory, "userbackends", BUGGY)


def cli(*args: str, cwd: Path, extra_path: Path | None = None) -> subprocess.CompletedProcess:
    return command.cli(*args, cwd=cwd, paths=(extra_path,))


def test_run_reference_conforms_and_writes_results(tmp_path):
    done = cli("run", "--backend", "oracle", "--product", "ascend310b", "--profile", "quick", "--seed", "5",
               "--select", "data_move/*/legal/float16", "--select", "*/reject/data_move.nburst.range",
               "--report", "out", "-v", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "CONFORMANT" in done.stdout and "seed 5" in done.stdout
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["conforms"] is True and results["seed"] == 5
    assert {c["id"] for c in results["cells"]} == {"data_move/ascend310b/legal/float16",
                                                   "data_move/ascend310b/reject/data_move.nburst.range"}
    assert results["totals"] == {"PASS": 50}
    assert results["ambiguities"][0]["id"] == "data_move.sid.reserved"
    # the summary names api, product, dtype and rule
    assert re.search(r"data_move\s+ascend310b\s+legal\s+float16\s+PASS 25\n", done.stdout)
    assert re.search(r"data_move\s+ascend310b\s+reject\s+data_move.nburst.range\s+PASS 25\n", done.stdout)
    suites = ET.parse(tmp_path / "out" / "junit.xml").getroot()
    assert (suites.get("tests"), suites.get("failures"), suites.get("errors")) == ("2", "0", "0")
    names = {c.get("name") for c in suites.iter("testcase")}
    assert names == {"legal/float16", "reject/data_move.nburst.range"}
    assert {p.get("name"): p.get("value") for p in suites.iter("property")}["seed"] == "5"


def test_buggy_backend_fails_with_reproducers_that_replay(tmp_path, modules):
    done = cli("run", "--backend", "userbackends:OneBurstTooFew", "--product", "ascend910b", "--profile", "quick",
               "--seed", "3", "--select", "data_move/*/legal/int32", "--report", "out", "-n", "2",
               cwd=tmp_path, extra_path=modules)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "NOT CONFORMANT" in done.stdout
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    (failure,) = results["failures"]
    assert failure["verdict"] == "FAIL" and failure["call"]["args"]["nburst"] == 2   # shrunk to the minimum
    assert failure["reproducer"].startswith("repro/")          # relative to the report folder
    repro = tmp_path / "out" / failure["reproducer"]
    assert repro.is_file()
    again = cli("replay", str(repro), "--backend", "userbackends:OneBurstTooFew", cwd=tmp_path, extra_path=modules)
    assert again.returncode == 1 and "STILL FAILING" in again.stdout
    fixed = cli("replay", str(repro), "--backend", "oracle", cwd=tmp_path)
    assert fixed.returncode == 0 and "FIXED" in fixed.stdout
    explained = cli("check", str(repro), cwd=tmp_path)
    assert explained.returncode == 0 and "legal" in explained.stdout and "after:" in explained.stdout
    # junit.xml beside results.json: the failing cell is a <failure> carrying its replay command
    suites = ET.parse(tmp_path / "out" / "junit.xml").getroot()
    assert suites.get("tests") == "1" and suites.get("failures") == "1"
    (case,) = suites.iter("testcase")
    assert case.get("classname") == "data_move.ascend910b" and case.get("name") == "legal/int32"
    (bad,) = case.iter("failure")
    assert bad.get("type") == "FAIL" and f"ascend-conformance replay out/{failure['reproducer']}" in bad.text


def test_same_seed_same_run(tmp_path):
    outs = []
    for name in ("a", "b"):
        done = cli("run", "--backend", "oracle", "--product", "ascend910", "--profile", "quick", "--seed", "11",
                   "--select", "*/legal/uint8", "--select", "*/undefined/*", "--report", name, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        cells_ = json.loads((tmp_path / name / "results.json").read_text())["cells"]
        outs.append([{k: v for k, v in c.items() if k != "seconds"} for c in cells_])
    assert outs[0] == outs[1]


@pytest.mark.parametrize("args, message", [
    (["run", "--backend", "oracle", "--product", "ascend999"], "unknown product 'ascend999'"),
    (["run", "--backend", "nosuchmodule:X", "--product", "ascend910"], "cannot import module 'nosuchmodule'"),
    (["run", "--backend", "userbackends:Missing", "--product", "ascend910"], "has no attribute 'Missing'"),
    (["run", "--backend", "userbackends:broken_factory", "--product", "ascend910"], "no licence server"),
    (["run", "--backend", "no-such-entry-point", "--product", "ascend910"], "unknown backend 'no-such-entry-point'"),
    (["run", "--backend", "oracle", "--product", "ascend910", "--api", "memcpy"], "unknown api 'memcpy'"),
    (["check", "does-not-exist.yaml"], "does-not-exist.yaml: cannot read"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, modules, args, message):
    done = cli(*args, cwd=tmp_path, extra_path=modules)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_malformed_reproducer_names_the_field(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(textwrap.dedent('''
        call:
          api: data_move
          product: ascend910b
          args:
            dst: {scope: UB, addr: 0, dtype: float16, numel: 16}
            src: {scope: GM, adr: 0, dtype: float16, numel: 16}
            sid: 0
            nburst: 1
            burst: 1
            src_stride: 0
            dst_stride: 0
        memory: {seed: 1, sizes: {UB: 196608, GM: 288}}
    '''))
    good = tmp_path / "good.yaml"
    good.write_text(bad.read_text().replace("adr:", "addr:"))
    done = cli("replay", str(bad), str(good), "--backend", "oracle", cwd=tmp_path)
    assert "MALFORMED" in done.stdout and "call.args.src: unknown field 'adr'" in done.stdout
    assert "FIXED" in done.stdout and str(good) in done.stdout     # the other file still ran
    assert done.returncode == 2


def test_check_prints_violations_of_a_reject_call(tmp_path):
    f = tmp_path / "call.json"
    f.write_text(json.dumps({"api": "data_move", "product": "ascend910", "form": None, "args": {
        "dst": {"scope": "L1", "addr": 0, "dtype": "int8", "numel": 64},
        "src": {"scope": "GM", "addr": 0, "dtype": "int8", "numel": 64},
        "sid": 0, "nburst": 4096, "burst": 1, "src_stride": 0, "dst_stride": 0}}))
    done = cli("check", str(f), cwd=tmp_path)
    assert done.returncode == 0
    assert "must be refused" in done.stdout and "data_move.nburst.range" in done.stdout


def test_not_supported_is_not_a_failure(modules, monkeypatch):
    monkeypatch.syspath_prepend(str(modules))
    backend = load_backend("userbackends:Nothing")
    cell = cells(["ascend910b"], ["data_move"], rulebook=default_rulebook())[0]
    result = run_cell(cell, backend, profile("quick"), 1, rulebook=default_rulebook())
    assert result.status == "not_supported" and result.conforms
    assert result.counts == {Verdict.NOT_SUPPORTED.value: 1}


def test_entry_point_backend(tmp_path, monkeypatch):
    (tmp_path / "epbackend.py").write_text("from conformance import OracleBackend\n"
                                           "class Sim(OracleBackend):\n    name = 'ep-sim'\n")
    info = tmp_path / "ep_backend-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: ep-backend\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[ascend_conformance.backends]\nep-sim = epbackend:Sim\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert load_backend("ep-sim").name == "ep-sim"
    with pytest.raises(BackendLoadError, match="unknown backend"):
        load_backend("ep-simm")


def test_a_bug_of_the_kit_is_exit_3_never_1(monkeypatch, capsys):
    """Exit 1 means 'does not conform': an exception nobody expected is exit 3 with its traceback."""
    import conformance.commands.cli as cli_module

    def broken(args):
        raise KeyError("a bug")
    monkeypatch.setattr(cli_module, "cmd_specs", broken)
    assert cli_module.main(["specs"]) == 3
    err = capsys.readouterr().err
    assert "Traceback" in err and "internal error" in err.splitlines()[-1]


def test_an_unwritable_report_folder_is_one_line(tmp_path, capsys):
    from conformance.commands.cli import main
    results = tmp_path / "in"
    (tmp_path / "blocked").write_text("a file where the folder's repro/ would go")
    done = cli("run", "--backend", "oracle", "--product", "ascend910b", "--profile", "quick", "--seed", "1",
               "--select", "data_move/*/legal/int8", "--report", str(results), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    code = main(["report", str(results / "results.json"), "--out", str(tmp_path / "blocked" / "x")])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "blocked" in err


LEAVING = textwrap.dedent('''
    import atexit, sys, threading
    from pathlib import Path
    import conformance.commands.cli as cli

    marker = Path(sys.argv[1])
    atexit.register(lambda: marker.write_text("atexit ran"))
    if sys.argv[2] == "thread":         # a thread still running: the normal exit joins it
        threading.Thread(target=lambda: (__import__("time").sleep(0.3), marker.with_suffix(".thread")
                                         .write_text("joined"))).start()
    cli.main = lambda: (print("last line", end=""), 7)[1]      # unflushed output, an exit status
    sys.exit(cli.command())
''')


@pytest.mark.parametrize("threads", ["one", "thread"])
def test_the_command_leaves_with_its_status_its_output_and_its_atexit_handlers(tmp_path, threads):
    """command() skips the interpreter's teardown (cli.leave), never what the teardown owes others: the
    exit status, output still buffered, atexit handlers, and a thread still running (joined)."""
    script = tmp_path / "entry.py"
    script.write_text(LEAVING)
    marker = tmp_path / "marker"
    done = subprocess.run([command.sys.executable, str(script), str(marker), threads], capture_output=True,
                          text=True, env=command.kit_env(), timeout=60)
    assert done.returncode == 7, done.stderr
    assert done.stdout == "last line"
    assert marker.read_text() == "atexit ran"
    assert marker.with_suffix(".thread").exists() == (threads == "thread")
