"""Files the kit reads may be truncated, forged or huge, and strings a backend sends may be anything: a
bad file is exit 2 with one line naming the file and the field, and leaves the output folder exactly as
it was; any string is stored losslessly in results.json and escaped in junit.xml, the HTML and on the
terminal.

Results documents come from a quick in-process run of the reference and of a buggy simulator
(tests/reports/test_reports.py), then are damaged by hand.
"""
from __future__ import annotations

import copy
import hashlib
import json
import re
import shlex
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from oracle import CallFormatError
from oracle.spec import default_rulebook

from conformance.commands.calls import load_call_file
from conformance.commands.cli import main
from conformance.commands.terminal import Terminal
from conformance.report.files import write_atomic
from conformance.report.outputs import write_outputs
from conformance.report.merging import merge
from conformance.report.results import ResultsError, load_results
from conformance.report.text import markup, printable
from conformance.report.untrusted import MAX_FILE_BYTES, MAX_RESULTS_BYTES
from conformance.report.waivers import WaiverError, load_waivers

from tests.reports.test_reports import assert_valid_and_self_contained, run_of

HOSTILE = "a\udc80b\x00c\x1b[31mred\x1b[0m\u2028<script>alert(1)</script>&\ufffe"
ESCAPED = ("\\udc80", "\\x00", "\\x1b", "\\u2028", "\\ufffe")


def tree_hash(folder: Path) -> dict[str, str]:
    """Every file under `folder` (hidden and temporary ones too) and its SHA-256."""
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture()
def out(tmp_path) -> Path:
    """A report folder holding an earlier report with a reproducer."""
    folder = tmp_path / "out"
    write_outputs(run_of("stray"), folder, default_rulebook())
    assert (folder / "repro").is_dir() and list((folder / "repro").iterdir())
    return folder


def stray_index(doc: dict) -> int:
    return next(i for i, c in enumerate(doc["cells"]) if c.get("failure"))


def report(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["report", *map(str, args)])
    said = capsys.readouterr()
    return code, said.out, said.err


def damaged(edit):
    def make(path: Path) -> None:
        doc = copy.deepcopy(run_of("stray"))
        edit(doc)
        path.write_text(json.dumps(doc), encoding="utf-8")
    return make


def _raw(data: bytes):
    def make(path: Path) -> None:
        path.write_bytes(data)
    return make


def _truncated(path: Path) -> None:
    text = json.dumps(run_of("stray"))
    path.write_text(text[:len(text) // 2], encoding="utf-8")


def _huge(path: Path) -> None:
    with open(path, "wb") as f:          # sparse: costs no disk and no time
        f.truncate(MAX_RESULTS_BYTES + 1)


def _set(path: tuple, value):
    def edit(doc: dict) -> None:
        node = doc
        for key in path[:-1]:
            node = node[stray_index(doc) if key == "FAILING" else key]
        node[path[-1]] = value
    return edit


def _drop(path: tuple):
    def edit(doc: dict) -> None:
        node = doc
        for key in path[:-1]:
            node = node[stray_index(doc) if key == "FAILING" else key]
        del node[path[-1]]
    return edit


CASES = {
    "truncated": (_truncated, r"invalid JSON"),
    "binary": (_raw(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), r"a binary file \(NUL byte at offset 8\)"),
    "latin-1": (_raw('{"cells": []  }  é'.encode("latin-1")), r"not UTF-8 text \(byte 0xe9 at offset 17\)"),
    "not an object": (_raw(b"[1, 2]"), r"no 'cells' list"),
    "nan": (damaged(_set(("duration_s",), float("nan"))), r"invalid JSON: NaN is not a number"),
    "deep": (_raw(b"[" * 100_000), r"invalid JSON"),
    "huge": (_huge, rf"{MAX_RESULTS_BYTES + 1} bytes, more than the {MAX_RESULTS_BYTES} bytes"),
    "count not integer": (damaged(_set(("cells", 0, "counts", "PASS"), "many")),
                          r"cells\[0\]\.counts\.PASS: expected integer, got 'many'$"),
    "unknown verdict": (damaged(_set(("cells", 0, "counts"), {"PASSED": 1})), r"cells\[0\]\.counts: key 'PASSED'"),
    "product ../": (damaged(_set(("products",), ["../../escaped"])),
                    r"products\[0\]: expected one of ascend310, .*, got '../../escaped'$"),
    "cell product ../": (damaged(_set(("cells", 0, "cell", "product"), "../x")), r"cells\[0\]\.cell\.product: expected one"),
    "cell id ../": (damaged(_set(("cells", 0, "id"), "../../x")), r"cells\[0\]\.id: expected a cell id"),
    "id of another cell": (damaged(_set(("cells", 0, "id"), "data_move/ascend310/legal/int8")),
                           r"cells\[0\]\.id: .* does not name the cell's api, product and kind"),
    "missing verdict": (damaged(_drop(("cells", "FAILING", "failure", "verdict"))),
                        r"cells\[\d\]\.failure\.verdict: missing$"),
    "status": (damaged(_set(("cells", 0, "status"), "fine")), r"cells\[0\]\.status: expected one of ran, "),
    "planned": (damaged(_set(("planned",), ["x"])), r"planned\[0\]: expected a cell id"),
    "memory too large": (damaged(_set(("cells", "FAILING", "failure", "memory", "sizes"), {"UB": 10**12})),
                         r"cells\[\d\]\.failure\.memory\.sizes\.UB: 1000000000000 bytes, but ascend910b has 196608"),
    "call": (damaged(_set(("cells", "FAILING", "failure", "call", "args"), [])), r"cells\[\d\]\.failure\.call\.args"),
    "map": (damaged(lambda d: d["cells"][stray_index(d)]["failure"]["diff"]["UB"]["map"].update(cells="<svg>")),
            r"cells\[\d\]\.failure\.diff\.UB\.map\.cells: got '<svg>'"),
    "waiver": (damaged(_set(("waivers",), [{"index": 1}])), r"waivers\[0\]\.product: missing$"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_report_refuses_a_bad_results_file_and_touches_nothing(tmp_path, out, capsys, name):
    make, message = CASES[name]
    bad = tmp_path / "in" / "results.json"
    bad.parent.mkdir()
    make(bad)
    before = tree_hash(out)
    code, said, err = report(capsys, bad, "--out", out)
    assert code == 2, (said, err)
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert err.startswith(f"ascend-conformance: error: {bad}: "), err
    assert re.search(message, err.strip()), err
    assert tree_hash(out) == before                 # the reproducers of the earlier report are still there


def test_a_bad_file_among_good_ones_touches_nothing(tmp_path, out, capsys):
    good = tmp_path / "good.json"
    good.write_text(json.dumps(run_of("oracle")))
    bad = tmp_path / "bad.json"
    damaged(_drop(("cells", 0, "counts")))(bad)
    before = tree_hash(out)
    code, _, err = report(capsys, good, bad, "--out", out)
    assert code == 2 and f"{bad}: cells[0].counts: missing" in err
    assert tree_hash(out) == before


def test_report_folder_is_not_a_folder(tmp_path, capsys):
    good = tmp_path / "results.json"
    good.write_text(json.dumps(run_of("oracle")))
    blocker = tmp_path / "file"
    blocker.write_text("mine")
    code, _, err = report(capsys, good, "--out", blocker)
    assert code == 2 and "not a folder" in err and blocker.read_text() == "mine"


def test_two_kit_versions_merge(tmp_path, capsys):
    """A results.json of an older kit lacks fields the newer one writes: merging them must render."""
    new = tmp_path / "new.json"
    new.write_text(json.dumps(run_of("stray")))
    old_doc = copy.deepcopy(run_of("oracle"))
    old_doc["kit"]["version"] = "0.0.9"
    for key in ("spec_hash", "profile", "started", "duration_s", "ambiguities", "planned", "apis", "products",
                "interrupted", "seed", "errors"):
        old_doc.pop(key, None)
    old_doc["backend"] = {"name": "old-sim"}
    for cell in old_doc["cells"]:
        for key in ("tags", "by_dtype", "seconds", "shrink_calls", "frozen_calls", "error", "failure"):
            cell.pop(key, None)
        for key in ("form", "rule", "dtype"):
            cell["cell"].pop(key, None)
    old = tmp_path / "old.json"
    old.write_text(json.dumps(old_doc))
    code, said, err = report(capsys, new, old, "--out", tmp_path / "merged")
    assert code == 1 and not err, err               # the stray simulator does not conform: exit 1, no crash
    page = (tmp_path / "merged" / "report-ascend910b.html").read_text(encoding="utf-8")
    assert_valid_and_self_contained(page)
    assert "ascend-conformance 0.0.9" in page and "old-sim" in page
    failures = len(run_of("stray")["failures"])
    assert ET.parse(tmp_path / "merged" / "junit.xml").getroot().get("failures") == str(failures)
    again = load_results(tmp_path / "merged" / "results.json", default_rulebook())   # a merged file reads back as well
    assert isinstance(again["kit"], list) and len(again["kit"]) == 2


def hostile_document() -> dict:
    """The buggy simulator's run, as if its name, version, messages, rule ids and errors were hostile."""
    doc = copy.deepcopy(run_of("stray"))
    doc["backend"] = {"name": "sim " + HOSTILE, "version": HOSTILE, "spec": 'exec:./sim --name "a b" \'c\''}
    i = stray_index(doc)
    doc["cells"][i]["failure"]["message"] = "wrong " + HOSTILE
    doc["cells"][i]["failure"]["rule"] = "rule." + HOSTILE
    doc["cells"][i]["failure"]["violations"] = [{"rule": HOSTILE, "severity": "reject", "message": HOSTILE}]
    broken = next(j for j, c in enumerate(doc["cells"]) if not c.get("failure"))
    doc["cells"][broken].update(status="error", error="worker said " + HOSTILE)
    doc["errors"] = ["pytest: " + HOSTILE, "long " + "\x1b" * 1000 + "x" * (2 << 20)]
    doc["failures"] = [c["failure"] for c in doc["cells"] if c.get("failure")]
    return doc


def test_hostile_strings_are_stored_losslessly_and_escaped_where_shown(tmp_path, capsys):
    doc = hostile_document()
    written = write_outputs(doc, tmp_path, default_rulebook())
    # results.json: valid UTF-8 JSON that reads back equal, surrogate included
    raw = written["results"].read_bytes()
    back = json.loads(raw.decode("utf-8"))
    assert back == json.loads(json.dumps(doc)) and back["backend"]["version"] == HOSTILE
    assert "\\udc80" in raw.decode("utf-8") and b"\x1b" not in raw and b"\x00" not in raw
    # read back by `report`, it renders again
    assert load_results(written["results"], default_rulebook())["errors"][0] == "pytest: " + HOSTILE
    # junit.xml: XML 1.0 that parses, the characters it cannot hold shown as escapes
    root = ET.parse(written["junit"]).getroot()
    (failure,) = [f for f in root.iter("failure") if f.get("message").startswith("wrong")]
    assert markup("wrong " + HOSTILE)[:500] == failure.get("message")
    for esc in ESCAPED[:3]:
        assert esc in failure.text
    assert "<script>" in failure.text                # ElementTree escaped it in the file, parsing undid it
    errors = [e.get("message") for e in root.iter("error")]
    assert any("worker said" in e for e in errors)
    # the replay command is shell-quoted: pasted into a shell it gives back the backend spec as one word
    replay = next(line for line in failure.text.splitlines() if line.startswith("ascend-conformance replay"))
    assert shlex.split(replay)[-2:] == ["--backend", doc["backend"]["spec"]]
    # HTML: valid, nothing raw, the script shown as text
    page = written["html"][0].read_text(encoding="utf-8")
    assert_valid_and_self_contained(page)
    assert "\x1b" not in page and "\x00" not in page and "<script>" not in page
    assert "&lt;script&gt;" in page and "\\x1b[31mred" in page and "\\udc80" in page
    assert shlex.quote(doc["backend"]["spec"]).replace("'", "&#39;").replace('"', "&#34;") in page
    # the reproducer reads back with the same message, but for the surrogate YAML cannot hold
    repro = tmp_path / doc["cells"][stray_index(doc)]["failure"]["reproducer"]
    assert load_call_file(str(repro))[2]["message"] == "wrong " + HOSTILE.replace("\udc80", "\\udc80")
    # the terminal: no raw control sequence, no line a backend started
    Terminal().end(back | {"failures": doc["failures"]}, tmp_path, doc["backend"]["spec"])
    said = capsys.readouterr().out
    assert "\x1b" not in said and "\x00" not in said and "\u2028" not in said and "\\x1b[31m" in said
    assert not any(line.startswith("red") for line in said.splitlines())
    reproduce = next(line for line in said.splitlines() if "reproduce:" in line)
    assert shlex.split(reproduce.split("reproduce: ", 1)[1])[-1] == doc["backend"]["spec"]
    assert len(max(said.splitlines(), key=len)) < 10_000          # 2 MB of error is not printed whole


def test_printable_escapes_and_cuts():
    assert printable("a\x1b[2Jb\nc\udc80\u202e") == "a\\x1b[2Jb\\nc\\udc80\\u202e"
    assert printable("x" * 50, 10) == "x" * 10 + "... (40 more characters)"
    assert markup("tab\tok\x00\x7f\ud800\U0010ffff") == "tab\tok\\x00\\x7f\\ud800\\U0010ffff"


# ------------------------------------------------------------------------------------ reproducers, calls

REPRO = """
call:
  api: data_move
  product: ascend910b
  args:
    dst: {scope: UB, addr: 0, dtype: float16, numel: 16}
    src: {scope: GM, addr: 0, dtype: float16, numel: 16}
    sid: 0
    nburst: 1
    burst: 1
    src_stride: 0
    dst_stride: 0
memory: {seed: 1, sizes: {UB: 196608, GM: 288}}
"""


def _bomb() -> str:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 12):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]")
    return "\n".join(lines) + "\ncall: *a11\n"


BAD_CALL_FILES = {
    "binary.yaml": (b"\x7fELF\x02\x01\x01\x00\x00\x00", "a binary file (NUL byte at offset 7)"),
    "latin1.yaml": ("message: caf\u00e9\n".encode("latin-1"), "not UTF-8 text (byte 0xe9 at offset 12)"),
    "bomb.yaml": (_bomb().encode(), "line 1: YAML anchors and aliases (&name, *name) are not accepted"),
    # the kit's words where its own depth check answers first; a newer PyYAML may refuse the nesting
    # itself, in its own words: what the kit promises is exit 2, one line, the file named
    "deep.yaml": (b"call: " + b"[" * 50_000, None),
    "ub.yaml": (REPRO.replace("UB: 196608", "UB: 1000000000000").encode(),
                "memory.sizes.UB: 1000000000000 bytes, but ascend910b has 196608 bytes of UB"),
    "gm.yaml": (REPRO.replace("GM: 288", "GM: 1099511627776").encode(),
                "memory.sizes.GM: 1099511627776 bytes, but the most an image of GM may have is"),
    "reach.yaml": (REPRO.replace("src: {scope: GM, addr: 0", "src: {scope: GM, addr: 10000000000000")
                   .split("memory:")[0].encode(), "the images the call needs: memory.sizes.GM: 10000000000288 bytes"),
    "date.yaml": ((REPRO + "message: 2027-02-30\n").encode(), "line 14: invalid date '2027-02-30'"),
    "digits.yaml": (REPRO.replace("seed: 1", "seed: " + "9" * 5000).encode(), "invalid integer"),
    "product.yaml": (REPRO.replace("product: ascend910b", "product: ../../x").encode(),
                     "call.product: unknown product '../../x'"),
    "seed.yaml": (REPRO.replace("seed: 1", "seed: -1").encode(), "memory.seed: expected an integer"),
    "verdict.yaml": ((REPRO + "verdict: [1]\n").encode(), "verdict: expected a string"),
}


@pytest.fixture()
def call_files(tmp_path) -> dict[str, Path]:
    out = {}
    for name, (data, _) in BAD_CALL_FILES.items():
        out[name] = tmp_path / name
        out[name].write_bytes(data)
    big = tmp_path / "big.yaml"
    with open(big, "wb") as f:
        f.truncate(MAX_FILE_BYTES + 1)
    out["big.yaml"] = big
    return out


@pytest.mark.parametrize("name", [*BAD_CALL_FILES, "big.yaml"])
def test_check_refuses_a_bad_call_file_in_one_line(call_files, capsys, name):
    code = main(["check", str(call_files[name])])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    expected = BAD_CALL_FILES[name][1] if name in BAD_CALL_FILES else f"more than the {MAX_FILE_BYTES} bytes"
    assert f"{call_files[name]}: " in err and (expected is None or expected in err), err


def test_replay_reports_each_bad_file_and_goes_on(tmp_path, call_files, capsys):
    good = tmp_path / "good.yaml"
    good.write_text(REPRO)
    files = [str(p) for p in call_files.values()]
    code = main(["replay", *files[:6], str(good), *files[6:], "--backend", "oracle"])
    said = capsys.readouterr()
    lines = said.out.strip().splitlines()
    assert code == 2 and not said.err
    assert len(lines) == len(files) + 1
    assert [line.split()[0] for line in lines].count("MALFORMED") == len(files)
    assert f"FIXED          {good}: PASS" in lines[6]


# ------------------------------------------------------------------------------------ waivers, options

def test_waiver_with_an_impossible_date(tmp_path, out, capsys):
    waivers = tmp_path / "w.yaml"
    waivers.write_text("waivers:\n  - rule: data_move.*\n    reason: r\n    tracker: T-1\n    expires: 2027-02-30\n")
    with pytest.raises(WaiverError, match=r"w\.yaml: waiver 1: field 'expires': expected a date YYYY-MM-DD, "
                                          r"got '2027-02-30'$"):
        load_waivers(waivers)
    before = tree_hash(out)
    code, _, err = report(capsys, out, "--waivers", waivers)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "field 'expires'" in err
    assert tree_hash(out) == before


def test_waiver_file_aliases_and_binary(tmp_path):
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(_bomb())
    with pytest.raises(WaiverError, match="anchors and aliases"):
        load_waivers(bomb)
    binary = tmp_path / "bin.yaml"
    binary.write_bytes(b"\x00\x01")
    with pytest.raises(WaiverError, match="binary file"):
        load_waivers(binary)


@pytest.mark.parametrize("option", [["-n", "100000"], ["-n", "257"], ["-n", "-1"], ["--timeout", "inf"],
                                    ["--timeout", "nan"], ["--timeout", "0"], ["--timeout", "-1"],
                                    ["--timeout", "1e9"], ["--timeout", "86400"]])
def test_options_that_would_exhaust_the_machine_are_refused(capsys, option):
    with pytest.raises(SystemExit) as stop:
        main(["run", "--backend", "oracle", "--product", "ascend910b", *option])
    err = capsys.readouterr().err
    assert stop.value.code == 2
    assert ("at most" in err or "expects a number of workers" in err) if option[0] == "-n" else "below 86400" in err


def test_a_sane_timeout_and_worker_count_are_accepted():
    from conformance.commands.options import seconds_arg, workers_arg
    assert seconds_arg("2.5") == 2.5 and workers_arg("1") == "1" and workers_arg("auto") == "auto"


# ------------------------------------------------------------------------------------ atomic writes

def test_a_report_that_fails_to_render_writes_nothing(tmp_path, out, monkeypatch):
    import conformance.report.outputs as outputs
    before = tree_hash(out)

    def broken(results, rulebook, **_):
        raise RuntimeError("template bug")
    monkeypatch.setattr(outputs, "render_reports", broken)
    with pytest.raises(RuntimeError):
        write_outputs(run_of("oracle"), out, default_rulebook())
    assert tree_hash(out) == before


def test_stale_reproducers_go_once_the_new_report_is_written(out):
    assert list((out / "repro").glob("*.yaml"))
    written = write_outputs(run_of("oracle"), out, default_rulebook())
    assert list((out / "repro").glob("*.yaml")) == [] and written["repro"] == []
    assert json.loads((out / "results.json").read_text())["verdict"] == "CONFORMANT"
    assert not [p for p in out.rglob("*") if p.name.startswith(".")]        # no temporary file left


def test_write_atomic_replaces_whole_and_cleans_up(tmp_path, monkeypatch):
    target = tmp_path / "f.txt"
    target.write_text("old")
    write_atomic(target, "new \udc80".encode("utf-8", "surrogatepass"))
    assert target.read_bytes() == "new \udc80".encode("utf-8", "surrogatepass")

    def fail(src, dst):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr("os.replace", fail)
    with pytest.raises(OSError):
        write_atomic(target, "lost")
    assert target.read_bytes() == "new \udc80".encode("utf-8", "surrogatepass")
    assert [p.name for p in tmp_path.iterdir()] == ["f.txt"]


def test_merge_keeps_product_ids_to_known_ones(tmp_path):
    """merge() lists products of documents load_results checked; a forged one never reaches a path."""
    bad = tmp_path / "r.json"
    doc = copy.deepcopy(run_of("oracle"))
    doc["products"] = ["ascend910b/../../../../tmp/x"]
    bad.write_text(json.dumps(doc))
    with pytest.raises(ResultsError, match=r"products\[0\]"):
        load_results(bad, default_rulebook())
    assert merge([("a", run_of("oracle"))])["products"] == ["ascend910b"]


def test_a_huge_message_is_kept_whole_in_results_json_only(tmp_path):
    """results.json holds all of it; junit.xml, the page and the reproducer show SHOWN_CHARS of it, so
    that the reproducer stays small enough to replay and the page to open."""
    from conformance.report.text import SHOWN_CHARS
    doc = copy.deepcopy(run_of("stray"))
    i = stray_index(doc)
    message = "\x1b" * 10 + "y" * (3 * SHOWN_CHARS)
    doc["cells"][i]["failure"]["message"] = message
    doc["failures"] = [c["failure"] for c in doc["cells"] if c.get("failure")]
    written = write_outputs(doc, tmp_path, default_rulebook())
    assert load_results(written["results"], default_rulebook())["cells"][i]["failure"]["message"] == message
    kept = load_call_file(str(tmp_path / doc["cells"][i]["failure"]["reproducer"]))[2]["message"]
    assert kept == message[:SHOWN_CHARS] + f"... ({2 * SHOWN_CHARS + 10} more characters in results.json)"
    for page in (written["junit"], written["html"][0]):
        assert f"({2 * SHOWN_CHARS + 10} more characters in results.json)" in page.read_text(encoding="utf-8")
        assert page.stat().st_size < 4 * SHOWN_CHARS


@pytest.mark.parametrize("dtype, values, error", [
    ("uint32", [1, True], "expected a list of integers"),           # a bool is no integer here
    ("uint32", [1, 2.0], "expected a list of integers"),
    ("uint32", [1, "2"], "expected a list of integers"),
    ("uint32", "12", "expected a list of integers"),
    ("uint8", [0, 256], "integers of 'uint8' expected"),
    ("uint8", [-1], "integers of 'uint8' expected"),
    ("int16", [-32769], "integers of 'int16' expected"),
    ("uint64", [2**64], "integers of 'uint64' expected"),           # past int64: checked one by one
    ("uint64", [-1, 2**63], "integers of 'uint64' expected"),
    ("float32", [1], "integers of 'float32' expected"),
    ("uint32", [1, 2, None], "expected a list of integers"),
])
def test_written_values_from_a_file_are_integers_of_their_dtype(dtype, values, error):
    from conformance.generate.memory import MemoryRecipe
    data = {"seed": 1, "sizes": {"UB": 64}, "writes": [{"scope": "UB", "addr": 0, "dtype": dtype, "values": values}]}
    with pytest.raises(CallFormatError, match=re.escape(f"memory.writes[0].values: {error}")):
        MemoryRecipe.from_dict(data)


@pytest.mark.parametrize("dtype, values", [("uint64", [0, 2**64 - 1, 2**63]), ("int64", [-2**63, 2**63 - 1]),
                                           ("uint32", [0, 2**32 - 1, 7]), ("int8", [-128, 127]), ("uint16", [])])
def test_written_values_from_a_file_lay_their_little_endian_bytes(dtype, values):
    from conformance.generate.memory import MemoryRecipe
    data = {"seed": 1, "sizes": {"UB": 64}, "writes": [{"scope": "UB", "addr": 8, "dtype": dtype, "values": values}]}
    recipe = MemoryRecipe.from_dict(data)
    (write,) = recipe.writes
    laid = b"".join(int(v).to_bytes(np.dtype(dtype).itemsize, "little", signed=dtype[0] == "i") for v in values)
    assert write.values == tuple(values) and write.data.tobytes() == laid
    assert recipe.build()["UB"][8:8 + len(laid)].tobytes() == laid
    assert recipe.to_dict() == data
