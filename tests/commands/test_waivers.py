"""Waiver files: strict loading (a typo must not quietly disable a waiver), matching by test / rule /
product globs, and how apply_waivers marks results and reports every waiver's fate."""
from __future__ import annotations

import copy
import datetime
import re
import textwrap

import pytest

from conformance.report.waivers import Waiver, WaiverError, apply_waivers, load_waivers, parse_waivers

TODAY = datetime.date(2026, 6, 1)
NBURST = "data_move/ascend910b/reject/data_move.nburst.range"
OVERLAP_310 = "data_move/ascend310/reject/data_move.overlap"
LEGAL = "data_move/ascend910b/legal/float16"
PASSING = "data_move/ascend910b/reject/data_move.len_burst.range"


def write(tmp_path, text, name="waivers.yaml"):
    """A waiver file with `text` (dedented) in tmp_path."""
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def waiver(index=1, test=None, rule=None, product="*", expires=datetime.date(2027, 1, 31)):
    """A waiver as load_waivers would build it."""
    return Waiver(index=index, test=test, rule=rule, product=product, reason=f"reason {index}",
                  tracker=f"SIM-{index}", expires=expires)


def reject_cell(cell_id, violation_rules=None, failing=True):
    """A reject cell of results.json; its failure (when failing) lists `violation_rules`."""
    api, product, kind, rule = cell_id.split("/")
    violations = [{"rule": r, "severity": "reject", "message": "m"} for r in violation_rules or [rule]]
    failure = {"cell": cell_id, "verdict": "MISSED_REJECT", "message": "ran", "expect": "reject",
               "rule": rule, "violations": violations}
    return {"id": cell_id, "status": "ran",
            "cell": {"id": cell_id, "api": api, "product": product, "kind": kind, "form": None,
                     "dtype": None, "rule": rule},
            "counts": {"PASS": 3, "MISSED_REJECT": 1} if failing else {"PASS": 4},
            "failure": failure if failing else None}


def legal_cell(cell_id=LEGAL):
    """A failing legal cell: no target rule, no violations."""
    api, product, kind, dtype = cell_id.split("/")
    return {"id": cell_id, "status": "ran",
            "cell": {"id": cell_id, "api": api, "product": product, "kind": kind, "form": None,
                     "dtype": dtype, "rule": None},
            "counts": {"PASS": 2, "FAIL": 1},
            "failure": {"cell": cell_id, "verdict": "FAIL", "message": "bytes differ", "expect": "legal",
                        "rule": None, "violations": []}}


def results(*cells):
    """A results dict whose failures list holds copies of the cells' failures, as results.json does."""
    return {"cells": list(cells), "failures": [copy.deepcopy(c["failure"]) for c in cells if c["failure"]]}


GOOD = """\
    waivers:
      - test: "data_move/ascend910b/reject/data_move.nburst.*"
        rule: "data_move.nburst.range"
        product: "ascend910b"
        reason: "simulator v1.2 clamps nburst; fix planned"
        tracker: "https://tracker.example.com/SIM-123"
        expires: 2027-01-31
      - rule: "data_move.overlap"
        reason: "known"
        tracker: "SIM-9"
        expires: "2026-12-01"
    """


# --- loading -------------------------------------------------------------------------------------

def test_good_file_loads_yaml_and_string_dates(tmp_path):
    first, second = load_waivers(write(tmp_path, GOOD))
    assert first == Waiver(index=1, test="data_move/ascend910b/reject/data_move.nburst.*",
                           rule="data_move.nburst.range", product="ascend910b",
                           reason="simulator v1.2 clamps nburst; fix planned",
                           tracker="https://tracker.example.com/SIM-123", expires=datetime.date(2027, 1, 31))
    assert (second.index, second.test, second.product) == (2, None, "*")
    assert second.expires == datetime.date(2026, 12, 1)


def test_bare_list_is_accepted(tmp_path):
    path = write(tmp_path, "- {test: 'a/*', reason: r, tracker: t, expires: 2027-01-01}\n")
    assert [w.test for w in load_waivers(path)] == ["a/*"]


def test_to_dict_is_json_ready():
    assert waiver(test="x/*").to_dict() == {"index": 1, "test": "x/*", "rule": None, "product": "*",
                                            "reason": "reason 1", "tracker": "SIM-1", "expires": "2027-01-31"}


ENTRY = "{test: 'a/*', reason: r, tracker: t, expires: 2027-01-01}"


@pytest.mark.parametrize("second, field", [
    ("{test: 'a/*', tracker: t, expires: 2027-01-01}", "field 'reason'"),
    ("{test: 'a/*', reason: r, tracker: '  ', expires: 2027-01-01}", "field 'tracker'"),
    ("{test: 'a/*', reason: r, tracker: t, expires: '2027-13-01'}", "field 'expires'"),
    ("{test: 'a/*', reason: r, tracker: t, expires: 20270101}", "field 'expires'"),
    ("{test: 'a/*', reason: r, tracker: t, expires: 2027-01-01T10:00:00}", "field 'expires'"),
    ("{test: 'a/*', reason: r, tracker: t}", "field 'expires'"),
    ("{test: 'a/*', reason: r, tracker: t, expire: 2027-01-01}", "unknown field 'expire'"),
    ("{reason: r, tracker: t, expires: 2027-01-01}", "field 'test' or 'rule'"),
    ("{rule: 5, reason: r, tracker: t, expires: 2027-01-01}", "field 'rule'"),
    ("just a string", "expected a mapping"),
])
def test_malformed_waiver_names_file_position_and_field(tmp_path, second, field):
    path = write(tmp_path, f"waivers:\n  - {ENTRY}\n  - {second}\n")
    with pytest.raises(WaiverError) as err:
        load_waivers(path)
    assert str(err.value).startswith(f"{path}: waiver 2: ")
    assert field in str(err.value)


def test_bad_date_message_shows_the_value():
    with pytest.raises(WaiverError, match=r"^w.yaml: waiver 1: field 'expires': expected a date YYYY-MM-DD, "
                                          r"got '2027-13-01'$"):
        parse_waivers([{"test": "a", "reason": "r", "tracker": "t", "expires": "2027-13-01"}], "w.yaml")


def test_unknown_field_lists_known_ones():
    with pytest.raises(WaiverError, match=r"unknown field 'expire' \(known: expires, product, reason, rule, "
                                          r"test, tracker\)"):
        parse_waivers([{"test": "a", "reason": "r", "tracker": "t", "expire": "2027-01-01"}], "w.yaml")


@pytest.mark.parametrize("text, message", [
    ("waivers: {test: a}\n", "expected a list of waivers"),
    ("42\n", "expected a list of waivers"),
    ("waiver:\n  - {test: a}\n", "unknown top-level key 'waiver'"),
    ("waivers: [unclosed\n", "not valid YAML"),
])
def test_malformed_file_names_the_file(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(WaiverError, match=f"^{re.escape(str(path))}: {message}"):
        load_waivers(path)


def test_unreadable_file_names_the_file(tmp_path):
    path = tmp_path / "missing.yaml"
    with pytest.raises(WaiverError, match=f"^{re.escape(str(path))}: cannot read: No such file or directory$"):
        load_waivers(path)


def test_empty_file_holds_no_waivers(tmp_path):
    assert load_waivers(write(tmp_path, "")) == []
    assert parse_waivers({"waivers": None}) == []


# --- matching ------------------------------------------------------------------------------------

def test_test_glob_matches_cell_id():
    assert waiver(test="data_move/*/reject/data_move.nburst.*").matches(reject_cell(NBURST))
    assert not waiver(test="data_move/*/legal/*").matches(reject_cell(NBURST))


def test_rule_glob_matches_target_rule():
    cell = reject_cell(NBURST, violation_rules=["data_move.ub.bounds"])
    assert waiver(rule="data_move.nburst.*").matches(cell)
    assert not waiver(rule="data_move.burst.*").matches(cell)


def test_rule_glob_matches_a_violation_rule():
    cell = reject_cell(NBURST, violation_rules=["data_move.nburst.range", "data_move.ub.bounds"])
    assert waiver(rule="data_move.ub.*").matches(cell)


def test_rule_glob_never_matches_legal_cell_without_violations():
    assert not waiver(rule="*").matches(legal_cell())
    assert waiver(test="*/legal/*").matches(legal_cell())


def test_product_glob_excludes_other_products():
    w = waiver(rule="data_move.*", product="ascend910*")
    assert w.matches(reject_cell(NBURST))
    assert not w.matches(reject_cell(OVERLAP_310))


def test_test_and_rule_must_both_match():
    assert waiver(test="*/ascend910b/*", rule="data_move.nburst.*").matches(reject_cell(NBURST))
    assert not waiver(test="*/ascend310/*", rule="data_move.nburst.*").matches(reject_cell(NBURST))
    assert not waiver(test="*/ascend910b/*", rule="data_move.overlap").matches(reject_cell(NBURST))


def test_passing_cell_is_never_matched():
    assert not waiver(test="*").matches(reject_cell(PASSING, failing=False))


# --- applying ------------------------------------------------------------------------------------

def test_statuses_applied_expired_unmatched():
    res = results(reject_cell(NBURST), reject_cell(OVERLAP_310))
    waivers = [waiver(1, rule="data_move.nburst.*"),
               waiver(2, rule="data_move.overlap", expires=TODAY - datetime.timedelta(days=1)),
               waiver(3, test="scatter/*")]
    apply_waivers(res, waivers, TODAY)
    assert [(w["index"], w["status"], w["cells"]) for w in res["waivers"]] == [
        (1, "applied", [NBURST]), (2, "expired", [OVERLAP_310]), (3, "unmatched", [])]
    assert res["cells"][0]["waived"] == {"waiver": 1, "reason": "reason 1", "tracker": "SIM-1",
                                         "expires": "2027-01-31"}
    assert "waived" not in res["cells"][1]


def test_waiver_expiring_today_still_applies():
    res = results(reject_cell(NBURST))
    apply_waivers(res, [waiver(rule="*", expires=TODAY)], TODAY)
    assert res["waivers"][0]["status"] == "applied"
    assert res["cells"][0]["waived"]["expires"] == TODAY.isoformat()


def test_passing_cell_is_never_waived():
    res = results(reject_cell(PASSING, failing=False), legal_cell())
    apply_waivers(res, [waiver(test="*")], TODAY)
    assert "waived" not in res["cells"][0]
    assert res["waivers"][0]["cells"] == [LEGAL]


def test_first_active_matching_waiver_wins():
    res = results(reject_cell(NBURST))
    waivers = [waiver(1, rule="*", expires=TODAY - datetime.timedelta(days=1)),
               waiver(2, rule="data_move.nburst.*"), waiver(3, test="*")]
    apply_waivers(res, waivers, TODAY)
    assert res["cells"][0]["waived"]["waiver"] == 2
    assert [w["status"] for w in res["waivers"]] == ["expired", "applied", "applied"]


def test_failures_list_entries_are_marked():
    res = results(reject_cell(NBURST), reject_cell(OVERLAP_310))
    apply_waivers(res, [waiver(rule="data_move.nburst.*")], TODAY)
    marks = {f["cell"]: f.get("waived") for f in res["failures"]}
    assert marks[NBURST] == res["cells"][0]["waived"]
    assert marks[OVERLAP_310] is None


def test_second_call_replaces_first():
    res = results(reject_cell(NBURST))
    apply_waivers(res, [waiver(1, rule="*"), waiver(2, rule="*")], TODAY)
    once = copy.deepcopy(res)
    apply_waivers(res, [waiver(1, rule="*"), waiver(2, rule="*")], TODAY)
    assert res == once
    apply_waivers(res, [], TODAY)
    assert "waived" not in res["cells"][0] and "waived" not in res["failures"][0]
    assert res["waivers"] == []
