"""Certificates a receiver can verify: evidence per call, `verify`, challenges, the artefact named.

Bundles are made as a certifier makes them (`certify`, the quick profile, data_move on one product) and
checked as a receiver checks them (`verify`); the forgeries are made the way a hostile certifier
would make them: an edit and SHA256SUMS summed again by hand."""
from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from oracle.spec import default_rulebook

from conformance import OracleBackend

ROOT = Path(__file__).resolve().parents[2]
CHALLENGE = "5e" * 32
OTHER = "a7" * 32
CERTIFY = ["certify", "--product", "ascend910b", "--api", "data_move", "--profile", "quick"]


def cli(*args: str, challenge: str | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    """The kit's command line; `challenge` given as a receiver gives it, in the environment."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("ASCEND_CONFORMANCE_CHALLENGE", None)
    if challenge is not None:
        env["ASCEND_CONFORMANCE_CHALLENGE"] = challenge
    return subprocess.run([sys.executable, "-m", "conformance", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env=env)


def certify(folder: Path, backend: str, *extra: str) -> subprocess.CompletedProcess:
    return cli(*CERTIFY, "--backend", backend, "--bundle", str(folder), *extra)


@pytest.fixture(scope="module")
def bundles(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("bundles")
    made = {"honest": certify(base / "honest", "oracle"),
            "challenged": certify(base / "challenged", "oracle", "--challenge", CHALLENGE),
            "failing": certify(base / "failing", "tests.cheating_backends:FrameWalker", "--challenge", CHALLENGE)}
    assert made["honest"].returncode == 0 and made["challenged"].returncode == 0, made["honest"].stdout
    assert made["failing"].returncode == 1, made["failing"].stdout
    return {name: base / name for name in made}


@pytest.fixture
def copy(bundles, tmp_path):
    def make(name: str) -> Path:
        target = tmp_path / name
        shutil.copytree(bundles[name], target)
        return target
    return make


def resum(folder: Path) -> None:
    """What a forger does after an edit: SHA256SUMS summed again."""
    lines = [f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.relative_to(folder).as_posix()}"
             for p in sorted(folder.rglob("*")) if p.is_file() and p.name != "SHA256SUMS"]
    (folder / "SHA256SUMS").write_text("\n".join(lines) + "\n")


def edit_results(folder: Path, change) -> None:
    data = json.loads((folder / "results.json").read_text())
    change(data)
    (folder / "results.json").write_text(json.dumps(data))
    resum(folder)


def test_an_honest_bundle_verifies(bundles):
    done = cli("verify", str(bundles["honest"]))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("VERIFIED: CONFORMANT") and "made without a challenge" in done.stdout
    ran = cli("verify", str(bundles["honest"]), "--backend", "oracle", "--sample", "1")
    assert ran.returncode == 0, ran.stdout + ran.stderr


def test_a_failing_bundle_verifies_as_not_conformant(bundles):
    done = cli("verify", str(bundles["failing"]), "--backend", "tests.cheating_backends:FrameWalker", "--sample", "1",
               challenge=CHALLENGE)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.startswith("VERIFIED: NOT CONFORMANT")


def test_the_bundle_holds_evidence_a_statement_and_says_whether_it_was_challenged(bundles):
    honest, challenged = bundles["honest"], bundles["challenged"]
    results = json.loads((honest / "results.json").read_text())
    raw = (honest / results["evidence"]["file"]).read_bytes()
    assert hashlib.sha256(raw).hexdigest() == results["evidence"]["sha256"]
    lines = [json.loads(line) for line in gzip.decompress(raw).decode().splitlines()]
    assert sum(len(line["entries"]) for line in lines) == results["evidence"]["calls"] == results["calls"]
    statement = json.loads((honest / "attestation.intoto.json").read_text())
    assert statement["_type"] == "https://in-toto.io/Statement/v1"
    assert statement["predicate"]["results_sha256"] == hashlib.sha256((honest / "results.json").read_bytes()).hexdigest()
    assert statement["predicate"]["evidence_sha256"] == results["evidence"]["sha256"]
    assert statement["subject"][0]["digest"]["sha256"] == results["certify"]["artefact"]["sha256"]
    assert "Made without a challenge" in (honest / "README.md").read_text()
    assert "cosign attest-blob" in (honest / "README.md").read_text()
    kept = json.loads((challenged / "results.json").read_text())["certify"]["challenge"]
    assert kept == hashlib.sha256(bytes.fromhex(CHALLENGE)).hexdigest()
    assert CHALLENGE not in "".join(p.read_text(errors="replace") for p in challenged.rglob("*") if p.is_file())


@pytest.mark.parametrize("forgery, said", [
    ("relabelled", "not what results.json makes of it"),
    ("flipped", "FAIL"),
    ("removed", "planned, but no result recorded"),
    ("digest", "call"),
    ("dropped", "answers recorded"),
])
def test_a_forged_bundle_is_not_what_it_claims(copy, forgery, said):
    folder = copy("failing")
    if forgery == "relabelled":
        edit_results(folder, lambda d: d["backend"].update(name="trusted-sim", spec="trusted.sim:Sim"))
    elif forgery == "flipped":
        def flip(d):
            d["verdict"] = "CONFORMANT"
            for c in d["cells"]:
                c["counts"].pop("FAIL", None)
                c["failure"] = None
        edit_results(folder, flip)
    elif forgery == "removed":
        edit_results(folder, lambda d: d["cells"].pop(0))
    else:
        results = json.loads((folder / "results.json").read_text())
        lines = [json.loads(x) for x in gzip.decompress((folder / "evidence.jsonl.gz").read_bytes()).decode().splitlines()]
        entries = lines[0]["entries"]
        if forgery == "digest":
            call, _, answer = entries[0].partition(" ")
            entries[0] = f"{call} " + ("sha256:" + "0" * 64 if answer == "=" else "=")
        else:
            entries.pop()
        raw = gzip.compress(("\n".join(json.dumps(x) for x in lines) + "\n").encode(), mtime=0)
        (folder / "evidence.jsonl.gz").write_bytes(raw)
        results["evidence"]["sha256"] = hashlib.sha256(raw).hexdigest()
        (folder / "results.json").write_text(json.dumps(results))
        resum(folder)
    done = cli("verify", str(folder), challenge=CHALLENGE)
    assert done.returncode == 4, done.stdout + done.stderr
    assert done.stdout.startswith("NOT AS CLAIMED:") and said in done.stdout, done.stdout
    assert len(done.stdout.strip().splitlines()) == 1


def test_a_bundle_from_another_challenge_or_none(bundles):
    other = cli("verify", str(bundles["challenged"]), challenge=OTHER)
    assert other.returncode == 4 and "another challenge" in other.stdout
    unchallenged = cli("verify", str(bundles["honest"]), challenge=CHALLENGE)
    assert unchallenged.returncode == 4 and "without a challenge" in unchallenged.stdout
    missing = cli("verify", str(bundles["challenged"]))
    assert missing.returncode == 2 and "--challenge-file" in missing.stderr


class Reference(OracleBackend):
    """The reference, shipped in the same package as the cheating backends (the same artefact digest)."""

    name = "reference-in-tests"


def test_the_artefact_answers_are_checked(bundles):
    """The failing bundle checked against a backend of the same module (by digest the same artefact: the
    same package, the same imports) that answers otherwise: its answers on the sample are not the
    recorded ones."""
    done = cli("verify", str(bundles["failing"]), "--backend", "tests.cheating_backends:Reference", "--sample", "1",
               challenge=CHALLENGE)
    assert done.returncode == 4 and "answers" in done.stdout and "recorded" in done.stdout, done.stdout


def test_unreadable_or_foreign_bundles_are_exit_2(copy, tmp_path):
    assert cli("verify", str(tmp_path / "nothing")).returncode == 2
    folder = copy("honest")
    edit_results(folder, lambda d: d["kit"].update(version="9.9.9"))
    done = cli("verify", str(folder))
    assert done.returncode == 2 and "kit version 9.9.9" in done.stderr and len(done.stderr.splitlines()) == 1
    (folder / "results.json").write_text("{")
    assert cli("verify", str(folder)).returncode == 2


PUBLISHED = np.random.SFC64(0x41534344).random_raw((16 << 20) // 8).astype("<u8").view(np.uint8).tobytes()


class Memoriser(OracleBackend):
    """Conforms on memory cut from the published random pool, which it re-derived; elsewhere it skips
    the move (a dropped burst): it recognises the test."""

    name = "memoriser"

    def run(self, call, memory):
        source = memory[call.args["src"].scope] if "src" in call.args else next(iter(memory.values()))
        if PUBLISHED.find(bytes(source[:64])) >= 0:
            super().run(call, memory)
        elif self.refuses(call, memory):
            super().run(call, memory)

    def refuses(self, call, memory) -> bool:
        from oracle import check
        return any(v.severity == "reject" for v in check(call))


def test_a_backend_that_memorised_the_unchallenged_test_fails_a_challenged_one(tmp_path):
    plain = certify(tmp_path / "plain", "tests.commands.test_verify:Memoriser")
    assert plain.returncode == 0, plain.stdout
    challenged = certify(tmp_path / "challenged", "tests.commands.test_verify:Memoriser", "--challenge", CHALLENGE)
    assert challenged.returncode == 1, challenged.stdout
    assert json.loads((tmp_path / "challenged" / "results.json").read_text())["totals"].get("FAIL", 0) > 0


@pytest.mark.parametrize("flags, said", [(["--challenge", "xyz"], "hex"), (["--challenge", "ab" * 4], "bytes"),
                                         (["--challenge", CHALLENGE, "--seed", "3"], "--seed")])
def test_challenge_errors_are_one_line(tmp_path, flags, said):
    done = cli("run", "--backend", "oracle", "--product", "ascend910b", "--api", "data_move", "--profile", "quick",
               "--report", str(tmp_path / "r"), *flags)
    assert done.returncode == 2 and said in done.stderr and len(done.stderr.splitlines()) == 1, done.stderr


def test_a_challenge_changes_the_memory_and_the_search_but_not_the_frozen_parameters():
    from conformance.generate.challenge import Challenge, from_pool
    from conformance.generate.frozen import load_frozen
    challenge = Challenge.parse(CHALLENGE)
    (case, *_) = load_frozen()["data_move/ascend910b/legal/float16"]
    (twin,) = from_pool([case], challenge.pool)
    assert twin.call == case.call and twin.memory.seed == case.memory.seed
    assert not np.array_equal(twin.memory.build()["UB"], case.memory.build()["UB"])
    assert twin.memory.to_dict()["pool"] == challenge.pool and "pool" not in case.memory.to_dict()
    assert challenge.seed != 0 and Challenge.parse(OTHER).pool != challenge.pool
    assert CHALLENGE not in repr(challenge)


def test_the_artefact_is_named_by_digest(tmp_path, monkeypatch):
    from conformance.backends.artefact import artefact
    script = tmp_path / "sim.sh"
    script.write_text("#!/bin/sh\necho\n")
    script.chmod(0o755)
    named = artefact(f"exec:{script} --fast", default_rulebook())
    assert named["sha256"] == hashlib.sha256(script.read_bytes()).hexdigest()
    assert named["interpreter"]["sha256"] == hashlib.sha256(Path(os.path.realpath("/bin/sh")).read_bytes()).hexdigest()
    package = tmp_path / "probe_sim"
    package.mkdir()
    (package / "__init__.py").write_text("raise SystemExit('never imported')\n")
    (package / "core.py").write_text("class Sim: pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    named = artefact("probe_sim.core:Sim", default_rulebook())
    assert named["kind"] == "python" and named["files"] == 2 and len(named["sha256"]) == 64
    (package / "core.py").write_text("class Sim: fast = True\n")
    assert artefact("probe_sim.core:Sim", default_rulebook())["sha256"] != named["sha256"]


def test_verify_names_an_artefact_that_is_not_the_one_certified(bundles):
    done = cli("verify", str(bundles["honest"]), "--backend", "tests.commands.test_verify:Reference")
    assert done.returncode == 4 and "certify.artefact.sha256" in done.stdout, done.stdout
