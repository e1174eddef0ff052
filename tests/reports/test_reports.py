"""The report folder a person hands on: the HTML per product (valid, self-contained, saying what failed,
why, and how to replay it), reproducers that replay to the same failure, waivers, merging several
results.json, and reading a damaged one.

Runs use the real strategies and runner on a few cells (profile quick) with the reference and with
known-buggy simulators from tests/buggy_backends.py.
"""
from __future__ import annotations

import copy
import datetime
import html.parser
import json
import re
import xml.etree.ElementTree as ET
from functools import lru_cache
from pathlib import Path

import html5lib
import numpy as np
import pytest

from conformance import OracleBackend
from conformance.commands.calls import load_call_file
from conformance.report.html import render
from conformance.report.outputs import write_outputs
from conformance.report.merging import merge
from conformance.report.results import (CONFORMANT, INCOMPLETE, NOT_CONFORMANT, ResultsError, finish,
                                        load_results, overall)
from conformance.judge.runner import run_cells
from conformance.judge.verdicts import judge
from conformance.report.waivers import Waiver, apply_waivers
from oracle.spec import default_rulebook

from buggy_backends import NburstUpTo4096, OneBytePastBurst
from catching import QUICK, select_cells

LEGAL = "data_move/ascend910b/legal/float16"
NBURST = "data_move/ascend910b/reject/data_move.nburst.range"
CELLS = [LEGAL, "data_move/ascend910b/legal/int32", NBURST, "data_move/ascend910b/undefined/data_move.overlap"]


def document(backend, patterns, seed=1) -> dict:
    """The results document of running `backend` on the cells the globs name, as `run` builds it."""
    chosen = select_cells(patterns)
    described = {"name": backend.name, "spec": f"tests:{type(backend).__name__}", "version": "9.9"}
    from conformance.report.results import results_document
    book = default_rulebook()
    return results_document(book, described, chosen, run_cells(chosen, backend, QUICK, seed, book),
                            profile="quick", seed=seed, workers="1", select=patterns,
                            started="2026-11-22T10:00:00+00:00", duration_s=1.5, interrupted=False)


@lru_cache(maxsize=None)
def _runs() -> dict[str, dict]:
    """One run each of the reference and two buggy simulators (shared by the tests: runs cost seconds)."""
    return {"oracle": document(OracleBackend(), CELLS),
            "stray": document(OneBytePastBurst(), CELLS),
            "nburst": document(NburstUpTo4096(), CELLS)}


def run_of(name: str) -> dict:
    return copy.deepcopy(_runs()[name])


class _Refs(html.parser.HTMLParser):
    """Every tag and every attribute that could load something."""

    def __init__(self):
        super().__init__()
        self.tags: set[str] = set()
        self.refs: list[str] = []
        self.ids: list[str] = []
        self.anchors: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        for name, value in attrs:
            if name in ("src", "href", "xlink:href", "action", "srcset", "poster", "data", "formaction"):
                self.refs.append(value or "")
            if name == "id":
                self.ids.append(value)
            if name == "href" and value and value.startswith("#"):
                self.anchors.append(value[1:])


def assert_valid_and_self_contained(text: str) -> None:
    """Parses as HTML5 without a single parse error, loads nothing from outside itself (no script, no
    stylesheet, image, font or frame; no url() or @import in CSS), ids are unique and every in-page
    link lands on one."""
    html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(text)
    refs = _Refs()
    refs.feed(text)
    assert not refs.tags & {"script", "link", "img", "iframe", "object", "embed", "audio", "video", "source",
                            "base", "form"}, refs.tags
    assert all(r.startswith("#") for r in refs.refs), [r for r in refs.refs if not r.startswith("#")]
    assert "url(" not in text and "@import" not in text and "http://" not in text.replace(
        'xmlns="http://www.w3.org/2000/svg"', "") and "https://" not in text
    assert len(refs.ids) == len(set(refs.ids)), "duplicate ids"
    assert set(refs.anchors) <= set(refs.ids), set(refs.anchors) - set(refs.ids)


def test_conforming_run_report(tmp_path):
    results = run_of("oracle")
    assert results["verdict"] == CONFORMANT and results["conforms"]
    written = write_outputs(results, tmp_path, default_rulebook())
    assert written["html"] == [tmp_path / "report-ascend910b.html"] and written["repro"] == []
    text = written["html"][0].read_text(encoding="utf-8")
    assert_valid_and_self_contained(text)
    head = text[:text.index("<main>")]
    assert ">CONFORMANT<" in head and "NOT CONFORMANT" not in head and "ascend910b" in head
    for fact in ("oracle", "9.9", results["spec_hash"], "quick", "2026-11-22 10:00:00 UTC",
                 "1.5 s", str(results["calls"])):
        assert fact in text, fact
    assert "None: every call the backend ran conforms." in text
    # traceability: every data_move rule that applies is listed with its quote; rules of the run's cells
    # are exercised, the others (not selected) stand out
    for rule in default_rulebook().api("data_move").rules:
        if rule.kind != "product":
            assert f'id="r-{re.sub("[^0-9A-Za-z]", "-", rule.id)}"' in text, rule.id
    row = re.search(r'<tr id="r-data-move-nburst-range"[^>]*>(.*?)</tr>', text, re.S).group(1)
    assert "「nburst" in row and ">exercised<" in row and "PASS 25" in row and "nburst=max" in row
    same = re.search(r'<tr id="r-data-move-dtype-same" class="unexercised">(.*?)</tr>', text, re.S).group(1)
    assert "NEVER EXERCISED" in same
    sid = re.search(r'<tr id="r-data-move-sid-range" class="">(.*?)</tr>', text, re.S).group(1)
    assert ">exercised<" in sid and "sid=min" in sid          # no sid cell ran, but legal calls sat on its edge
    # the ambiguity, one row: no reading declared, so not tested
    amb = re.search(r'<tr>\s*<td><code>data_move.sid.reserved</code>(.*?)</tr>', text, re.S).group(1)
    assert "not tested: no reading declared" in amb and ">none<" in amb


def test_results_json_reads_back_and_holds_a_cell_per_line(tmp_path):
    """results.json is the document as it was (json reads it back equal), a field per line and each cell
    of `cells` on a line of its own: `grep <cell id>` finds the whole cell."""
    results = run_of("oracle")
    written = write_outputs(results, tmp_path, default_rulebook())
    text = written["results"].read_text(encoding="utf-8")
    assert json.loads(text) == json.loads(json.dumps(results))
    lines = text.splitlines()
    assert lines[0] == "{" and lines[-1] == "}"
    assert {line.split('"')[1] for line in lines if line.startswith(' "')} == set(results)
    for cell in results["cells"]:
        (line,) = [line for line in lines if f'"id": "{cell["id"]}"' in line]
        assert json.loads(line.strip().rstrip(",")) == json.loads(json.dumps(cell))


def test_buggy_run_report_shows_the_failure_and_replays(tmp_path):
    results = run_of("stray")
    assert results["verdict"] == NOT_CONFORMANT
    written = write_outputs(results, tmp_path, default_rulebook())
    text = written["html"][0].read_text(encoding="utf-8")
    assert_valid_and_self_contained(text)
    assert ">NOT CONFORMANT<" in text[:text.index("<main>")]
    (failure,) = [f for f in results["failures"] if f["cell"] == LEGAL]
    assert failure["verdict"] == "FAIL"
    card = text[text.index(f'id="f-{re.sub("[^0-9A-Za-z]", "-", LEGAL)}"'):]
    card = card[:card.index('<div class="card', 10)] if '<div class="card' in card[10:] else card
    # the minimal call as YAML, the replay command, the first wrong element decoded, the byte map
    assert "api: data_move" in card and "nburst: " in card
    # the replay command names the reproducer from where the run was started (the folder as it was given)
    assert f"ascend-conformance replay {tmp_path}/{failure['reproducer']} --backend tests:OneBytePastBurst</pre>" in card
    stray = failure["diff"]["UB"] if "UB" in failure["diff"] else next(iter(failure["diff"].values()))
    assert stray["stray_bytes"] >= 1
    element = stray["elements"][0]
    # the byte it wrote past the destination is the first of the source, just above it
    assert element["where"] == "src[0] (a source: must not change)" and element["where"] in card
    assert '<svg class="map"' in card and 'class="stray"' in card and "stray write" in card
    # the reproducer file replays to the same failure, and the reference passes it
    repro = tmp_path / failure["reproducer"]
    call, memory, meta = load_call_file(str(repro))
    assert meta["verdict"] == "FAIL" and call.to_dict() == failure["call"]
    assert judge(call, memory, OneBytePastBurst(), default_rulebook()).verdict.value == "FAIL"
    assert judge(call, memory, OracleBackend(), default_rulebook()).verdict.value == "PASS"


def test_missed_reject_names_the_rule(tmp_path):
    results = run_of("nburst")
    (failure,) = results["failures"]
    assert (failure["cell"], failure["verdict"], failure["rule"]) == (NBURST, "MISSED_REJECT", "data_move.nburst.range")
    text = write_outputs(results, tmp_path, default_rulebook())["html"][0].read_text(encoding="utf-8")
    assert_valid_and_self_contained(text)
    assert 'href="#r-data-move-nburst-range"' in text and "nburst: 4096" in text
    row = re.search(r'<tr id="r-data-move-nburst-range" class="failed">(.*?)</tr>', text, re.S).group(1)
    assert ">FAILED<" in row and "MISSED_REJECT 1" in row
    junit = ET.parse(tmp_path / "junit.xml").getroot()
    (bad,) = junit.iter("failure")
    assert bad.get("type") == "MISSED_REJECT" and f"replay {tmp_path}/repro/" in bad.text


def test_a_waived_failure_is_shown_and_named_in_the_verdict_word(tmp_path):
    results = run_of("nburst")
    waiver = Waiver(1, None, "data_move.nburst.*", "ascend910b", "sim v1 clamps nburst", "SIM-7",
                    datetime.date(2027, 1, 31))
    apply_waivers(results, [waiver], datetime.date(2026, 11, 22))
    finish(results)
    assert results["verdict"] == "CONFORMANT WITH 1 WAIVED FAILURE" and not results["conforms"]
    text = write_outputs(results, tmp_path, default_rulebook())["html"][0].read_text(encoding="utf-8")
    assert_valid_and_self_contained(text)
    assert ">CONFORMANT WITH 1 WAIVED FAILURE<" in text[:text.index("<main>")] and "SIM-7" in text
    (case,) = [c for c in ET.parse(tmp_path / "junit.xml").getroot().iter("testcase")
               if c.get("name") == "reject/data_move.nburst.range"]
    assert "WAIVED" in case.find("skipped").get("message") and case.find("failure") is None
    # the same waiver past its expiry: the failure counts again and the report says why
    apply_waivers(results, [waiver], datetime.date(2027, 2, 1))
    finish(results)
    assert results["verdict"] == NOT_CONFORMANT
    text = render(results, "ascend910b", default_rulebook())
    assert ">EXPIRED<" in text and ">NOT CONFORMANT<" in text


def test_merged_shards_make_one_report(tmp_path):
    one = document(OracleBackend(), [LEGAL], seed=4)
    two = document(NburstUpTo4096(), [NBURST, "data_move/ascend310b/legal/uint8"], seed=5)
    merged = merge([("a/results.json", one), ("b/results.json", two)])
    assert {c["id"] for c in merged["cells"]} == {LEGAL, NBURST, "data_move/ascend310b/legal/uint8"}
    assert merged["seed"] == [4, 5] and merged["sources"] == ["a/results.json", "b/results.json"]
    assert merged["products"] == ["ascend910b", "ascend310b"] and merged["verdict"] == NOT_CONFORMANT
    assert overall(merged, "ascend310b") == CONFORMANT and overall(merged, "ascend910b") == NOT_CONFORMANT
    written = write_outputs(merged, tmp_path, default_rulebook())
    assert sorted(p.name for p in written["html"]) == ["report-ascend310b.html", "report-ascend910b.html"]
    for page in written["html"]:
        assert_valid_and_self_contained(page.read_text(encoding="utf-8"))
    assert (tmp_path / merged["failures"][0]["reproducer"]).is_file()
    # the same cell run twice (two nightly runs): its calls add up, the first failure stays
    twice = merge([("x", one), ("y", document(OracleBackend(), [LEGAL], seed=6))])
    (cell,) = twice["cells"]
    assert cell["counts"] == {"PASS": 50} and twice["calls"] == 50


def test_missing_and_errored_cells_make_a_report_incomplete():
    results = run_of("oracle")
    results["planned"] = results["planned"] + ["data_move/ascend910b/legal/uint8"]
    assert finish(results)["verdict"] == INCOMPLETE
    text = render(results, "ascend910b", default_rulebook())
    assert ">INCOMPLETE<" in text and "planned, but no result came back" in text
    results = run_of("oracle")
    results["interrupted"] = True
    assert finish(results)["verdict"] == INCOMPLETE and "interrupted" in render(results, "ascend910b", default_rulebook())
    # stopped by a signal, one worker lost without a word: the page says so for each cell
    results["stopped"] = "SIGTERM"
    results["planned"] = results["planned"] + ["data_move/ascend910b/legal/uint8"]
    results["cells"][0].update(status="error", error=None)
    text = render(finish(results), "ascend910b", default_rulebook())
    assert "The run was stopped (SIGTERM)" in text and "not run: the run was stopped (SIGTERM)" in text
    # the id may break after a '/' or a '.': a <wbr> there
    assert f"{results['cells'][0]['id']}</td><td class=\"mono small\">worker lost<" in text.replace("<wbr>", "")


def test_results_file_read_back_names_what_is_wrong(tmp_path):
    good = tmp_path / "results.json"
    good.write_text(json.dumps(run_of("oracle")))
    assert load_results(good, default_rulebook())["cells"]
    cases = {
        "not json": r"bad\.json: not a results\.json \(invalid JSON",
        json.dumps({"cells": 3}): r"no 'cells' list",
        json.dumps({"cells": [{"id": LEGAL, "cell": {}, "status": "ran", "counts": {}}]}):
            r"bad\.json: cells\[0\]\.cell\.api: missing$",
        json.dumps({"cells": [{"id": LEGAL, "cell": {"api": "data_move", "product": "ascend910b", "kind": "legal"},
                               "status": "ran", "counts": {"PASS": "many"}}]}):
            r"bad\.json: cells\[0\]\.counts\.PASS: expected integer, got 'many'$",
    }
    for text, message in cases.items():
        bad = tmp_path / "bad.json"
        bad.write_text(text)
        with pytest.raises(ResultsError, match=message):
            load_results(bad, default_rulebook())
    with pytest.raises(ResultsError, match="absent.json: cannot read"):
        load_results(tmp_path / "absent.json", default_rulebook())


class _NoScatter(OracleBackend):
    """The reference, but declaring it does not implement scatter."""

    name = "no-scatter"

    def supports(self, api: str, product: str) -> bool:
        return api != "scatter" and super().supports(api, product)


def test_not_supported_cells_are_shown_as_such():
    results = document(_NoScatter(), ["scatter/ascend310b/legal/count/float16", "data_move/ascend310b/legal/int8"])
    assert results["verdict"] == CONFORMANT and results["calls"] == 25
    text = render(results, "ascend310b", default_rulebook())
    assert_valid_and_self_contained(text)
    cell = re.search(r'<td class="m s-not_supported" title="scatter/ascend310b/legal/count/float16">(.*?)</td>',
                     text, re.S).group(1)
    assert "NOT SUPPORTED" in cell and "0 calls" in cell
    assert "1 not supported by the backend" in text


def test_elements_are_shown_as_their_own_width_reads_them():
    """The shortest text that reads back to the same value of the element's own width, and its bits
    (the kit compares bits: NaN payloads and -0.0 must show)."""
    from conformance.judge.bytemap import elements
    raw = bytes.fromhex("2989" "0080" "ff7e")                      # little-endian float16 words
    assert elements(np.frombuffer(raw, np.uint8), "float16", default_rulebook()) == [
        "-0.0001575 (0x8929)", "-0.0 (0x8000)", "nan (0x7eff)"]
    assert elements(np.frombuffer(bytes.fromhex("803f"), np.uint8), "bfloat16", default_rulebook()) == ["1.0 (0x3f80)"]
    assert elements(np.frombuffer(bytes.fromhex("cdcccc3d"), np.uint8), "float32", default_rulebook()) == ["0.1 (0x3dcccccd)"]
    assert elements(np.frombuffer(bytes.fromhex("ffffffff"), np.uint8), "int32", default_rulebook()) == ["-1"]
