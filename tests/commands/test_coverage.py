"""`--coverage`: the backend's own code measured (a Python backend by coverage.py in its own process, an exec
program by the `coverage` field of its replies), reported in results.json, the HTML and the standard files,
and, under `fuzz`, calls reaching new code kept in a corpus and bred. Coverage never changes a verdict."""
from __future__ import annotations

import base64
import json
import random
import shutil
import subprocess
import sys

import pytest

from command import cli
from tests.commands.test_fuzz import redis_url  # noqa: F401  (the fixture: a redis-server of our own)
from kit_path import ROOT
from oracle import Call, check
from oracle.spec import default_rulebook

from conformance.backends.exec_messages import coverage_points
from conformance.backends.measure import _arc, backend_package
from conformance.generate.breed import breed, mutate
from conformance.judge import corpus
from conformance.judge.failuredb import open_database
from conformance.report.coverage_files import lcov, read_map
from conformance.report.coverage_run import CoverageRun, coverage_view

PAGED = "tests.coverage_backends:PagedSim"
ONE_CELL = ("--product", "ascend910b", "--api", "data_move", "--select", "data_move/ascend910b/legal/int8")


def _parent() -> dict:
    """A legal call that takes PagedSim's 4 KB path with a contiguous source and dst_stride 0 (so it passes)."""
    call = {"api": "data_move", "product": "ascend910b", "form": None,
            "args": {"dst": {"scope": "GM", "addr": 0, "dtype": "int8", "numel": 16 * 4096},
                     "src": {"scope": "UB", "addr": 0, "dtype": "int8", "numel": 16 * 4096},
                     "sid": 0, "nburst": 16, "burst": 128, "src_stride": 0, "dst_stride": 0}}
    assert check(Call.from_dict(call), None, default_rulebook()) == []
    return {"call": call, "memory": {"seed": 7, "sizes": {"GM": 16 * 4096 + 256, "UB": 192 << 10}},
            "expect": "legal", "rule": None, "points": ["coverage_backends.py:60>61"]}


# ------------------------------------------------------------------------------------ pieces

def test_reply_points_are_read_as_lists_or_bitmaps_and_junk_is_ignored():
    assert coverage_points({"coverage": [3, "a.py:1>2", -1, 2.5, True, "", None]}) == [3, "a.py:1>2"]
    bitmap = base64.b64encode(bytes([0b101, 0, 0b10000000])).decode()
    assert coverage_points({"coverage": bitmap}) == [0, 2, 23]
    for junk in ({"coverage": "not base64!"}, {"coverage": {"a": 1}}, {"coverage": 7}, {}):
        assert coverage_points(junk) == []


def test_measured_package_is_the_backends_never_the_kits():
    assert backend_package("mysim.sub:Sim") == "mysim"
    assert backend_package("oracle") is None and backend_package("conformance.x:Y") is None
    packed = 5 | (7 << 28) | (1 << 56)          # how coverage.py's C tracer packs the arc (-5, 7)
    assert _arc(packed) == (-5, 7) and _arc((3, 4)) == (3, 4)


def test_map_and_lcov(tmp_path):
    (tmp_path / "m.map").write_text("10\ta.c\t3\tf\n11\ta.c\t4\tf\njunk line\n12\ta.c\t9\tg\nx\ty\tz\tw\n")
    named = read_map(str(tmp_path / "m.map"))
    assert named == {10: ("a.c", 3, "f"), 11: ("a.c", 4, "f"), 12: ("a.c", 9, "g")}
    text = lcov(named, {10})
    assert "SF:a.c" in text and "FNDA:1,f" in text and "FNDA:0,g" in text
    assert "DA:3,1" in text and "DA:9,0" in text and "LH:1" in text and text.endswith("end_of_record\n")


def test_run_keeps_the_first_cell_of_each_point_and_the_calls_reaching_new_ones():
    run = CoverageRun()
    kept = {"call": {}, "memory": {}, "expect": "legal", "rule": None}
    first = run.add("data_move/p/legal/int8", {"points": ["a.py:1>2", "a.py:2>3"],
                                                "keepers": [{**kept, "points": ["a.py:1>2", "a.py:2>3"]}]})
    again = run.add("data_move/p/legal/int16", {"points": ["a.py:2>3", "b.py:1>2"],
                                                 "keepers": [{**kept, "points": ["a.py:2>3"]},
                                                             {**kept, "points": ["b.py:1>2"]}]})
    assert [k["points"] for k in first] == [["a.py:1>2", "a.py:2>3"]]
    assert [k["points"] for k in again] == [["b.py:1>2"]]          # the call reaching only known code is not kept
    assert run.first_cells(lambda p: p.split(":")[0]) == {"a.py": "data_move/p/legal/int8",
                                                          "b.py": "data_move/p/legal/int16"}
    assert run.add("x/y", "forged") == [] and run.add("x/y", {"points": "no"}) == []


def test_coverage_view_reads_a_forged_summary_as_nothing():
    assert coverage_view("junk", ["data_move"]) is None
    view = coverage_view({"apis": {"data_move": {"lines": [1, "2"], "branches": [1, 2], "never_entered": [3, "f"]}},
                          "first_cell": {"a.c": 5, "b.c": "cell"}, "written": [None]}, ["data_move"])
    assert view["apis"] == [{"api": "data_move", "lines": [0, 0], "branches": [1, 2], "never": ["f"]}]
    assert view["first"] == [("b.c", "cell")] and view["written"] == [] and view["total"] is None


def test_children_keep_their_parents_kind():
    rulebook, rng = default_rulebook(), random.Random(1)
    parent = _parent()
    children = breed([parent], 40, rulebook, rng)
    assert len(children) >= 20
    assert all(check(Call.from_dict(c["call"]), None, rulebook) == [] for c in children)
    assert any(c["call"]["args"] != parent["call"]["args"] for c in children)
    assert any(c["memory"]["seed"] != 7 for c in children)          # other bytes
    broken = dict(parent, expect="reject", rule="data_move.nburst.range")
    broken["call"] = json.loads(json.dumps(parent["call"]))
    broken["call"]["args"]["nburst"] = 0
    for _ in range(40):
        child = mutate(broken, rulebook, rng)
        if child is not None:
            assert "data_move.nburst.range" in {v.rule for v in check(Call.from_dict(child["call"]), None, rulebook)}


def test_corpus_lives_in_the_database_and_skips_what_it_cannot_read(tmp_path):
    db = open_database(str(tmp_path / "db"))
    corpus.keep(db, "data_move/ascend910b/legal/int8", _parent())
    corpus.keep(db, "data_move/ascend910b/legal/int8", _parent())              # the same call: one entry
    db.save(corpus.PREFIX + b"data_move/ascend910b/legal/int8", b"{not json")
    db.save(corpus.PREFIX + b"data_move/ascend910b/legal/int8", json.dumps({"call": {}, "memory": {}}).encode())
    kept = corpus.stored(db, ["data_move/ascend910b/legal/int8", "other"])
    assert list(kept) == ["data_move/ascend910b/legal/int8"] and len(kept["data_move/ascend910b/legal/int8"]) == 1
    assert kept["data_move/ascend910b/legal/int8"][0]["points"] == ["coverage_backends.py:60>61"]


# ------------------------------------------------------------------------------------ a Python backend

def test_run_coverage_of_a_python_backend_and_the_same_verdicts(tmp_path):
    args = ("run", "--backend", PAGED, *ONE_CELL, "--profile", "quick", "--seed", "3", "-n", "1")
    plain = cli(*args, "--report", "plain", cwd=tmp_path)
    measured = cli(*args, "--report", "cov", "--coverage", cwd=tmp_path)
    assert plain.returncode == measured.returncode, plain.stdout[-2000:] + measured.stdout[-2000:] + measured.stderr
    one, two = (json.loads((tmp_path / f / "results.json").read_text()) for f in ("plain", "cov"))
    assert [c["counts"] for c in one["cells"]] == [c["counts"] for c in two["cells"]]
    assert "coverage" not in one and all("coverage" not in c for c in two["cells"])
    summary = two["coverage"]
    assert summary["kind"] == "python" and summary["written"] == [".coverage", "coverage.xml"]
    reached, total = summary["total"]["lines"]
    assert 0 < reached < total and summary["apis"]["data_move"]["branches"][0] > 0
    never = summary["total"]["never_entered"]
    # named by the path the backend's module was found on (its folder, or the tests' helper folder above it)
    assert [n for n in never if n.endswith("coverage_backends.py:PagedSimFixed.contiguous_pages")]
    assert not any("conformance/" in n or "oracle/" in n for n in never)
    (module,) = [f for f in summary["first_cell"] if f.endswith("coverage_backends.py")]
    assert summary["first_cell"][module] == "data_move/ascend910b/legal/int8"
    xml = (tmp_path / "cov" / "coverage.xml").read_text()
    assert "coverage_backends.py" in xml and "/conformance/" not in xml
    page = (tmp_path / "cov" / "report-ascend910b.html").read_text()
    assert 'id="coverage"' in page and "contiguous_pages" in page
    assert 'id="coverage"' not in (tmp_path / "plain" / "report-ascend910b.html").read_text()


def test_coverage_without_coverage_py_is_one_line(tmp_path):
    (tmp_path / "coverage.py").write_text("raise ImportError('no coverage.py here')\n")
    done = cli("run", "--backend", PAGED, *ONE_CELL, "--coverage", "--report", "r", cwd=tmp_path, paths=(tmp_path,))
    assert done.returncode == 2 and "pip install 'ascend-conformance[coverage]'" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and not (tmp_path / "r").exists()


def test_fuzz_coverage_breeds_the_corpus_into_the_narrow_bug(tmp_path):
    """The database's corpus holds a call that took the 4 KB path with dst_stride 0: the children bred from it
    reach the bug (dst_stride moved, its operand grown)."""
    db = open_database(str(tmp_path / "db"))
    corpus.keep(db, "data_move/ascend910b/legal/int8", _parent())
    done = cli("fuzz", "--backend", PAGED, *ONE_CELL, "--coverage", "--duration", "8s", "--db", "db", "--seed", "1",
               "-n", "1", "--report", "r", cwd=tmp_path)
    assert "1 call(s) of the corpus bred from" in done.stdout, done.stdout[-2000:] + done.stderr
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr
    (cell,) = json.loads((tmp_path / "r" / "results.json").read_text())["cells"]
    args = cell["failure"]["call"]["args"]
    assert args["burst"] * 32 % 4096 == 0 and args["src_stride"] == 0 and args["dst_stride"] > 0
    assert cell["frozen_calls"] > 0                 # bred children were judged, as kept calls are


# ------------------------------------------------------------------------------------ the C example

TOOLS = [t for t in ("make", "cc", "objdump", "addr2line") if shutil.which(t) is None]


@pytest.fixture(scope="module")
def covered(tmp_path_factory):
    if TOOLS:
        pytest.skip(f"no {' or '.join(TOOLS)} on this machine to build examples/c_sim with coverage")
    folder = tmp_path_factory.mktemp("c_sim_cov")
    for source in (ROOT / "examples" / "c_sim").iterdir():
        if source.suffix in (".c", ".h", ".sh") or source.name == "Makefile":
            shutil.copy(source, folder)
    done = subprocess.run(["make", "-C", str(folder), "coverage"], capture_output=True, text=True, timeout=300)
    if done.returncode != 0 and "sanitize-coverage" in done.stderr:
        pytest.skip("the C compiler has no -fsanitize-coverage=trace-pc")
    assert done.returncode == 0, done.stdout + done.stderr
    return folder


def test_c_example_reports_its_coverage(covered, tmp_path):
    named = read_map(str(covered / "c_sim_cov.map"))
    assert len(named) > 100 and {"api_data_move", "set_error"} <= {fn for _, _, fn in named.values()}
    done = cli("run", "--backend", f"exec:{covered / 'c_sim_cov'}", "--product", "ascend910b", "--api", "data_move",
               "--profile", "quick", "--coverage", "--report", "r", "-n", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    summary = json.loads((tmp_path / "r" / "results.json").read_text())["coverage"]
    assert summary["kind"] == "program" and summary["written"] == ["coverage.info"]
    lines, total = summary["apis"]["data_move"]["lines"]
    assert 0 < lines < total
    never = summary["apis"]["data_move"]["never_entered"]
    assert "common.c:set_error" in never and "data_move.c:api_data_move" not in never
    assert not any(n.startswith("data_copy_pad.c:") for n in never)       # a file the api never reached
    assert "data_copy_pad.c:api_data_copy_pad" in summary["total"]["never_entered"]
    info = (tmp_path / "r" / "coverage.info").read_text()
    assert "SF:data_move.c" in info and "FNDA:0,api_data_copy_pad" in info


def test_a_program_without_coverage_runs_as_before(tmp_path):
    done = cli("run", "--backend", f"exec:{sys.executable} -m conformance serve oracle", *ONE_CELL, "--profile",
               "quick", "--coverage", "--report", "r", "-n", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    results = json.loads((tmp_path / "r" / "results.json").read_text())
    assert results.get("coverage") is None and results["verdict"] == "CONFORMANT"


def test_shards_share_the_corpus_in_redis(redis_url, tmp_path):  # noqa: F811
    corpus.keep(open_database(redis_url), "data_move/ascend910b/legal/int8", _parent())
    # another machine: a second connection reads it back, and a fuzzing run breeds from it
    assert len(corpus.stored(open_database(redis_url), ["data_move/ascend910b/legal/int8"])) == 1
    done = cli("fuzz", "--backend", PAGED, *ONE_CELL, "--coverage", "--duration", "2s", "--db", redis_url,
               "-n", "1", "--report", "r", cwd=tmp_path)
    assert "1 call(s) of the corpus bred from" in done.stdout, done.stdout[-2000:] + done.stderr


def test_a_served_python_backend_is_measured_too(tmp_path):
    served = f"exec:{sys.executable} -m conformance serve {PAGED}"
    done = cli("run", "--backend", served, *ONE_CELL, "--profile", "quick", "--coverage", "--report", "r", "-n", "1",
               cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    summary = json.loads((tmp_path / "r" / "results.json").read_text())["coverage"]
    assert summary["kind"] == "python" and summary["apis"]["data_move"]["lines"][0] > 0
