"""Differential runs: one stream of calls, two backends, every byte compared."""
from __future__ import annotations

import json
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import command

from conformance import OracleBackend
from conformance.judge.agreement import AGREE, DIVERGE, Pair, judge_pair
from conformance.generate.cells import cells, select
from conformance.generate.profiles import profile
from conformance.judge.runner import run_cells
from oracle import Call, Tensor
from oracle.spec import default_rulebook
from conformance.generate.memory import MemoryRecipe

ROOT = Path(__file__).resolve().parents[2]
QUICK = profile("quick")

OTHERS = textwrap.dedent('''
    from conformance import OracleBackend
    from oracle import check
    from oracle.apis.data_move import accesses
    from oracle.rules import context

    class LiveOverlap(OracleBackend):
        """Conforming, but resolves data_move's undefined overlap in the other order: burst by burst, the
        last one first, each reading what the others wrote (the reference reads every source byte first)."""
        name = "live-overlap"
        def run(self, call, memory):
            if call.api == "data_move" and any(v.severity == "undefined" for v in check(call)):
                runs = accesses(call, context(call, memory).units)
                src, dst = call.tensor("src"), call.tensor("dst")
                for k in reversed(range(call.args["nburst"])):
                    s0 = src.addr + runs["src"].first + k * runs["src"].step
                    d0 = dst.addr + runs["dst"].first + k * runs["dst"].step
                    n = runs["src"].length
                    memory[dst.scope][d0:d0 + n] = memory[src.scope][s0:s0 + n]
                return
            super().run(call, memory)

    class OneBurstTooFew(OracleBackend):
        name = "one-burst-too-few"
        def run(self, call, memory):
            if call.api == "data_move" and call.args.get("nburst", 0) > 1:
                call = call.replace(nburst=call.args["nburst"] - 1)
            super().run(call, memory)

    class StrideOnOneRepeat(OracleBackend):
        """The reference under the other reading of vec_trans_scatter.stride.single_repeat (declares none)."""
        name = "stride-on-one-repeat"
        follows = OracleBackend({"vec_trans_scatter.stride.single_repeat": "applied"})
        def run(self, call, memory):
            self.follows.run(call, memory)

    class LastByteFlipped(OracleBackend):
        name = "last-byte-flipped"
        def run(self, call, memory):
            super().run(call, memory)
            if call.api == "data_move":
                dst = call.tensor("dst")
                memory[dst.scope][dst.addr] ^= 1
''')

DATA_MOVE = ["data_move/ascend910b/legal/int8", "data_move/ascend910b/legal/float32",
             "data_move/ascend910b/reject/data_move.nburst.range", "data_move/ascend910b/undefined/data_move.overlap"]


@pytest.fixture(scope="module")
def others(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("others")
    (folder / "others.py").write_text(OTHERS)
    return folder


def cli(folder: Path, *args: str) -> subprocess.CompletedProcess:
    return command.cli(*args, cwd=folder, paths=(folder,))


def overlapping_move() -> Call:
    """Two bursts of one block, the source one block above the destination: burst 1 reads what burst 0
    of a burst-by-burst copy already wrote."""
    return Call("data_move", "ascend910b", {"dst": Tensor("UB", 0, "int8", 64), "src": Tensor("UB", 32, "int8", 64),
                                            "sid": 0, "nburst": 2, "burst": 1, "src_stride": 0, "dst_stride": 0})


def test_one_call_judged_twice(others, monkeypatch):
    monkeypatch.syspath_prepend(str(others))
    import others as o
    recipe = MemoryRecipe(7, {"UB": 196608})
    same = judge_pair(overlapping_move(), recipe, OracleBackend(), OracleBackend(), rulebook=default_rulebook())
    assert same.verdict.value == "UNDEFINED" and same.agreement.verdict == AGREE and same.conforms
    parted = judge_pair(overlapping_move(), recipe, o.LiveOverlap(), OracleBackend(), rulebook=default_rulebook())
    assert parted.verdict.value == "UNDEFINED" and parted.agreement.verdict == DIVERGE and not parted.conforms
    assert parted.key == DIVERGE
    # burst 0's bytes, which the live order reads after burst 1 wrote them: they differ where the image's
    # bytes 32..63 and 64..95 do (random bytes: a few of the 32 may happen to be equal)
    image = recipe.build()["UB"]
    differ = int(np.count_nonzero(image[32:64] != image[64:96]))
    assert differ >= 28 and parted.agreement.diff["UB"]["wrong_bytes"] == differ
    # nburst one past its range: the reference refuses, the buggy one moves 4095 bursts
    refused = Call("data_move", "ascend910b", {**overlapping_move().args, "nburst": 4096,
                                               "src": Tensor("GM", 0, "int8", 4096 * 32),
                                               "dst": Tensor("UB", 0, "int8", 4096 * 32)})
    both = judge_pair(refused, MemoryRecipe(7, {"UB": 196608, "GM": 4096 * 32 + 256}), OracleBackend(),
                      o.OneBurstTooFew(), rulebook=default_rulebook())
    assert both.agreement.verdict == DIVERGE and "refused" in both.agreement.message and "ran" in both.agreement.message


def test_the_reference_agrees_with_itself_everywhere():
    chosen = select(cells(["ascend910b", "ascend310b"], rulebook=default_rulebook()),
                    ["*/legal/*int8*", "*/undefined/*", "*/reject/*.range"])
    assert {c.expect for c in chosen} == {"legal", "reject", "undefined"}
    results = run_cells(chosen, Pair(OracleBackend(), OracleBackend()), QUICK, 3, default_rulebook())
    assert all(r.divergence is None and r.failure is None for r in results)
    assert sum(r.agreement.get("AGREE", 0) for r in results) == sum(sum(r.counts.values()) for r in results) > 0
    assert not any(r.agreement.get("DIVERGE") for r in results)


def test_another_order_in_undefined_territory_diverges_there_only_and_conforms(others, tmp_path):
    folder = tmp_path / "r"
    done = cli(others, "run", "--backend", "others:LiveOverlap", "--against", "oracle", "--product", "ascend910b",
               *[a for c in DATA_MOVE for a in ("--select", c)], "--profile", "quick", "--seed", "2",
               "--report", str(folder))
    assert done.returncode == 1, done.stdout + done.stderr             # it conforms, but the two part
    results = json.loads((folder / "results.json").read_text())
    assert results["verdict"] == "CONFORMANT" and results["agreement"]["verdict"] == "DIVERGE"
    assert results["against"]["name"] == "oracle"
    parted = {d["cell"] for d in results["agreement"]["divergences"]}
    assert parted == {"data_move/ascend910b/undefined/data_move.overlap"}
    (divergence,) = results["agreement"]["divergences"]
    args = divergence["call"]["args"]
    assert args["nburst"] == 2 and args["burst"] == 1                 # shrunk to the smallest overlap that parts
    page = (folder / "report-ascend910b.html").read_text(encoding="utf-8")
    assert 'id="agreement"' in page and "live-overlap left" in page and "--against oracle" in page
    import xml.etree.ElementTree as ET
    cases = {c.get("name"): c for c in ET.parse(folder / "junit.xml").getroot().iter("testcase")}
    assert cases["agreement/undefined/data_move.overlap"].find("failure").get("type") == "DIVERGE"
    assert cases["agreement/legal/int8"].find("failure") is None
    repro = folder / divergence["reproducer"]
    again = cli(others, "replay", str(repro), "--backend", "others:LiveOverlap", "--against", "oracle")
    assert again.returncode == 1 and "DIVERGE (as recorded)" in again.stdout
    fixed = cli(others, "replay", str(repro), "--backend", "oracle", "--against", "oracle")
    assert fixed.returncode == 0 and "AGREE" in fixed.stdout


def test_two_buggy_backends_diverge_without_the_oracle(others, tmp_path):
    done = cli(others, "run", "--backend", "others:OneBurstTooFew", "--against", "others:LastByteFlipped",
               "--no-oracle", "--product", "ascend910b", "--select", DATA_MOVE[0], "--profile", "quick",
               "--seed", "1", "--report", str(tmp_path / "r"))
    assert done.returncode == 1
    results = json.loads((tmp_path / "r" / "results.json").read_text())
    (cell,) = results["cells"]
    assert cell["counts"] == {"UNJUDGED": sum(cell["agreement"].values())} and cell["agreement"]["DIVERGE"] == 1
    assert cell["failure"] is None and cell["divergence"]["verdict"] == "DIVERGE"
    assert "different images" in cell["divergence"]["message"]


def test_a_backend_agrees_with_its_own_copy_served_over_exec(others, tmp_path):
    served = "exec:" + " ".join(shlex.quote(a) for a in (sys.executable, "-m", "conformance", "serve",
                                                          "others:LiveOverlap"))
    done = cli(others, "run", "--backend", "others:LiveOverlap", "--against", served, "--product", "ascend910b",
               *[a for c in DATA_MOVE for a in ("--select", c)], "--profile", "quick", "--seed", "4",
               "--report", str(tmp_path / "r"))
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads((tmp_path / "r" / "results.json").read_text())
    assert results["agreement"]["verdict"] == "AGREE" and results["agreement"]["totals"]["AGREE"] == results["calls"]


def test_no_oracle_needs_against(tmp_path):
    done = cli(tmp_path, "run", "--backend", "oracle", "--no-oracle", "--product", "ascend910b",
               "--report", str(tmp_path / "r"))
    assert done.returncode == 2 and "--against" in done.stderr


def test_against_enters_the_regions_no_reading_declares(others):
    """Under --against the ambiguity cells are run though neither backend declares a reading;
    the oracle has no answer there (UNDEFINED) and the two backends are held to each other: the reference
    against itself agrees, against the reference following the other reading of the single-repeat stride
    it diverges in that region alone, with a reproducer `replay --against` runs again."""
    region = "vec_trans_scatter/ascend910b/ambiguity/vec_trans_scatter.stride.single_repeat"
    args = ["run", "--backend", "oracle", "--product", "ascend910b", "--api", "vec_trans_scatter", "--select",
            "*/ambiguity/*", "--profile", "quick", "--seed", "3"]
    same = cli(others, *args, "--against", "oracle", "--report", "same")
    assert same.returncode == 0, same.stdout[-3000:] + same.stderr[-2000:]
    doc = json.loads((others / "same" / "results.json").read_text())
    entered = {c["id"] for c in doc["cells"]}
    assert region in entered and all("/ambiguity/" in c for c in entered) and len(entered) >= 6
    assert doc["totals"].get("UNDEFINED", 0) > 0 and doc["agreement"]["verdict"] == "AGREE"
    parted = cli(others, *args, "--against", "others:StrideOnOneRepeat", "--report", "parted")
    assert parted.returncode == 1, parted.stdout[-3000:] + parted.stderr[-2000:]
    doc = json.loads((others / "parted" / "results.json").read_text())
    assert doc["verdict"] == "CONFORMANT" and doc["agreement"]["verdict"] != "AGREE"
    assert {d["cell"] for d in doc["agreement"]["divergences"]} == {region}
    (divergence,) = doc["agreement"]["divergences"]
    again = cli(others, "replay", str(others / "parted" / divergence["reproducer"]), "--backend", "oracle",
                "--against", "others:StrideOnOneRepeat")
    assert again.returncode == 1 and "STILL" in again.stdout, again.stdout + again.stderr
