"""`certify`, `report` and `--waivers` as a user runs them: the bundle's files, determinism, merging
shards on the command line, and one-line errors for bad input."""
from __future__ import annotations

import hashlib
import json
import textwrap

import pytest

from conformance.generate.frozen import frozen_hash, load_frozen
from oracle.spec import default_rulebook

from tests.commands.test_cli import cli, modules  # noqa: F401  (the fixture: a module of user backends)

CERTIFY = ("certify", "--api", "data_move", "--product", "ascend310b", "--profile", "quick")


def _cells(folder):
    """The cells of a results.json without their timings."""
    data = json.loads((folder / "results.json").read_text())
    return [{k: v for k, v in c.items() if k != "seconds"} for c in data["cells"]]


def test_certify_writes_a_deterministic_bundle(tmp_path):
    done = cli(*CERTIFY, "--backend", "oracle", "--bundle", "one", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    bundle = tmp_path / "one"
    names = {p.relative_to(bundle).as_posix() for p in bundle.rglob("*") if p.is_file()}
    assert {"report-ascend310b.html", "results.json", "junit.xml", "environment.json", "README.md",
            "SHA256SUMS"} <= names
    rulebook = default_rulebook()
    assert {f"specs/{n}" for n in rulebook.files} <= names
    assert all((bundle / "specs" / n).read_text(encoding="utf-8") == t for n, t in rulebook.files.items())
    # checksums of every other file
    sums = dict(reversed(line.split("  ", 1)) for line in (bundle / "SHA256SUMS").read_text().splitlines())
    assert set(sums) == names - {"SHA256SUMS"}
    assert all(hashlib.sha256((bundle / n).read_bytes()).hexdigest() == h for n, h in sums.items())
    results = json.loads((bundle / "results.json").read_text())
    frozen = sum(len(load_frozen().get(c, ())) for c in results["planned"])
    certified = results["certify"]
    assert (certified["frozen_hash"], certified["frozen_cases"], certified["challenge"]) == (frozen_hash(), frozen, None)
    assert frozen > 50 and certified["artefact"]["kind"] == "kit" and len(certified["artefact"]["sha256"]) == 64
    assert sum(c["frozen_calls"] for c in results["cells"]) == frozen
    assert results["seed"] == 0 and results["verdict"] == "CONFORMANT"
    env = json.loads((bundle / "environment.json").read_text())
    assert env["command"][1:4] == ["certify", "--api", "data_move"] and env["packages"]["hypothesis"]
    page = (bundle / "report-ascend310b.html").read_text(encoding="utf-8")
    assert frozen_hash() in page and ">CONFORMANT<" in page
    # the same certification again makes the same calls with the same verdicts
    again = cli(*CERTIFY, "--backend", "oracle", "--bundle", "two", cwd=tmp_path)
    assert again.returncode == 0
    assert _cells(bundle) == _cells(tmp_path / "two")


def test_certify_under_readings_says_so(tmp_path):
    """A certification under declared readings records them, and its verdict is worded under them."""
    done = cli(*CERTIFY, "--backend", "oracle", "--bundle", "b", "--reading", "data_move.sid.reserved=same_data",
               cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "CONFORMANT under readings data_move.sid.reserved=same_data" in done.stdout
    bundle = tmp_path / "b"
    readme = (bundle / "README.md").read_text()
    assert "Verdict: **CONFORMANT under readings data_move.sid.reserved=same_data for data_move on ascend310b**" \
        in readme
    declared = {"data_move.sid.reserved": {"reading": "same_data", "by": "command line"}}
    assert json.loads((bundle / "environment.json").read_text())["readings"] == declared
    assert json.loads((bundle / "results.json").read_text())["readings"] == declared
    assert "CONFORMANT under readings data_move.sid.reserved=same_data" in (bundle / "report-ascend310b.html").read_text()


def test_certify_catches_a_bug_and_waives_it(tmp_path, modules):  # noqa: F811
    done = cli(*CERTIFY, "--backend", "userbackends:OneBurstTooFew", "--bundle", "b", cwd=tmp_path,
               extra_path=modules)
    assert done.returncode == 1 and "NOT CONFORMANT" in done.stdout
    results = json.loads((tmp_path / "b" / "results.json").read_text())
    failing = sorted(f["cell"] for f in results["failures"])
    # it runs nburst - 1 bursts: one burst short on legal calls, and calls whose last burst oversteps a
    # bound or nburst 4096 go through instead of being refused
    assert {c for c in failing if "/reject/" in c} == {f"data_move/ascend310b/reject/data_move.{r}" for r in
                                                       ("nburst.range", "src.bounds", "dst.bounds")}
    legal = [f for f in results["failures"] if "/legal/" in f["cell"]]
    assert len(legal) == 10 and all(f["verdict"] == "FAIL" for f in legal)
    # shrunk although no Hypothesis search found them: two bursts, operands at the bottom of their scopes
    assert all(f["call"]["args"]["nburst"] == 2 and f["call"]["args"]["dst"]["addr"] == 0 for f in legal)
    assert (tmp_path / "b" / results["failures"][0]["reproducer"]).is_file()
    # the frozen cases alone catch it: they run first and the cell stops at its first failure
    assert all(c["frozen_calls"] and sum(c["counts"].values()) == c["frozen_calls"]
               for c in results["cells"] if c.get("failure"))
    waivers = tmp_path / "waivers.yaml"
    waivers.write_text(textwrap.dedent("""
        waivers:
          - test: "data_move/*/legal/*"
            reason: "one burst too few, fixed in 2.0"
            tracker: SIM-42
            expires: 2999-12-31
          - rule: "data_move.nburst.range"
            reason: "the same bug"
            tracker: SIM-42
            expires: 2999-12-31
          - rule: "data_move.*.bounds"
            product: "ascend310*"
            reason: "the same bug"
            tracker: SIM-42
            expires: 2999-12-31
          - rule: "data_move.no.such.rule"
            reason: "left over"
            tracker: SIM-1
            expires: 2999-12-31
    """))
    waived = cli(*CERTIFY, "--backend", "userbackends:OneBurstTooFew", "--bundle", "w", "--waivers", str(waivers),
                 cwd=tmp_path, extra_path=modules)
    assert waived.returncode == 0, waived.stdout
    assert "waiver 4 UNMATCHED" in waived.stdout and "(WAIVED)" in waived.stdout
    assert (tmp_path / "w" / "waivers.yaml").read_text() == waivers.read_text()
    statuses = [w["status"] for w in json.loads((tmp_path / "w" / "results.json").read_text())["waivers"]]
    assert statuses == ["applied", "applied", "applied", "unmatched"]


def test_report_merges_shards(tmp_path, modules):  # noqa: F811
    for shard, select in (("a", "data_move/*/legal/int8"), ("b", "data_move/*/reject/data_move.nburst.range")):
        done = cli("run", "--backend", "userbackends:OneBurstTooFew", "--product", "ascend910b", "--profile",
                   "quick", "--seed", "2", "--select", select, "--report", shard, cwd=tmp_path, extra_path=modules)
        assert done.returncode in (0, 1), done.stderr
    merged = cli("report", "a/results.json", "b/results.json", "--out", "m", cwd=tmp_path)
    assert merged.returncode == 1, merged.stdout + merged.stderr          # both shards fail
    assert "NOT CONFORMANT  ascend910b" in merged.stdout
    data = json.loads((tmp_path / "m" / "results.json").read_text())
    assert len(data["cells"]) == 2 and data["sources"] == ["a/results.json", "b/results.json"]
    assert (tmp_path / "m" / "report-ascend910b.html").is_file()
    assert [f["verdict"] for f in data["failures"]] == ["FAIL", "MISSED_REJECT"]
    failure = data["failures"][0]
    replay = cli("replay", f"m/{failure['reproducer']}", "--backend", "userbackends:OneBurstTooFew",
                 cwd=tmp_path, extra_path=modules)
    assert replay.returncode == 1 and "STILL FAILING" in replay.stdout and "FAIL (as recorded)" in replay.stdout
    # one results.json re-rendered where it lies
    (tmp_path / "b" / "report-ascend910b.html").unlink()
    again = cli("report", "b", cwd=tmp_path)                 # a folder stands for its results.json
    assert again.returncode == 1 and "NOT CONFORMANT" in again.stdout and (tmp_path / "b" / "report-ascend910b.html").is_file()


@pytest.mark.parametrize("args, message", [
    (["report", "a.json", "b.json"], "name its folder with --out DIR"),
    (["report", "absent.json"], "absent.json: cannot read"),
    (["report", "bad.json"], "bad.json: cells[0].status: missing"),
    (["run", "--backend", "oracle", "--product", "ascend910b", "--waivers", "w.yaml"],
     "w.yaml: waiver 1: unknown field 'expire'"),
    (["certify", "--backend", "oracle", "--product", "ascend999"], "unknown product 'ascend999'"),
])
def test_bad_input_is_one_line(tmp_path, args, message):
    (tmp_path / "bad.json").write_text(json.dumps({"cells": [{"id": "x", "cell": {}, "counts": {}}]}))
    (tmp_path / "w.yaml").write_text("- rule: r\n  reason: x\n  tracker: y\n  expire: 2027-01-01\n")
    done = cli(*args, cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1
