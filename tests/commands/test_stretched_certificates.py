"""A certificate that cannot be stretched: the ways a hostile certifier with the kit's source would make a
bundle say more than its run showed, or make `verify` crash or hang, each ending in the exit status and
the one line that names it.

Bundles are made as a certifier makes them (`certify`, the quick profile, data_move on one product) with
the backends of tests/stretching_backends.py; every command runs in a subprocess with a time limit."""
from __future__ import annotations

import json
import os
import shutil
import textwrap
from pathlib import Path

import pytest

from oracle.spec import default_rulebook

from tests.commands.test_verify import CERTIFY, cli, resum

CHALLENGE = "c3" * 32
B = "tests.stretching_backends:"


def certify(folder: Path, backend: str, *extra: str, challenge: str | None = None):
    return cli(*CERTIFY, "--backend", B + backend, "--bundle", str(folder), *extra, challenge=challenge)


def waiver_file(path: Path, *tests: str) -> Path:
    path.write_text("waivers:\n" + "".join(textwrap.dedent(f"""\
          - test: "{t}"
            reason: "the simulator does not move data yet"
            tracker: SIM-7
            expires: 2999-12-31
        """) for t in tests))
    return path


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("stretched")
    waivers = waiver_file(base / "w.yaml", "data_move/ascend910b/legal/*", "data_move/ascend910b/reject/*")
    runs = {"honest": certify(base / "honest", "Honest"),
            "waived": certify(base / "waived", "DoesNothing", "--waivers", str(waivers)),
            "partial": cli(*CERTIFY, "--api", "scatter", "--backend", B + "OnlyDataMove", "--bundle",
                           str(base / "partial"))}
    for name, done in runs.items():
        assert done.returncode == 0, name + done.stdout + done.stderr
    return {name: base / name for name in runs} | {"waivers": waivers}


@pytest.fixture
def copy(made, tmp_path):
    def make(name: str) -> Path:
        shutil.copytree(made[name], tmp_path / name, symlinks=True)
        return tmp_path / name
    return make


def one_line(done, code: int, said: str, stream: str = "stdout") -> None:
    text = getattr(done, stream)
    assert done.returncode == code, done.stdout + done.stderr
    assert said in text and len(text.strip().splitlines()) == 1, text


# ---------------------------------------------------------------------------------------------- waivers

def test_a_waiver_of_everything_is_refused(tmp_path):
    done = certify(tmp_path / "b", "DoesNothing", "--waivers", str(waiver_file(tmp_path / "w.yaml", "*")))
    one_line(done, 2, "--waivers: waiver 1 covers every cell of api data_move", "stderr")
    assert not (tmp_path / "b").exists()


def test_waived_failures_are_never_a_plain_conformant(made):
    folder = made["waived"]
    results = json.loads((folder / "results.json").read_text())
    waived = sum(1 for c in results["cells"] if c.get("waived"))
    word = f"CONFORMANT WITH {waived} WAIVED FAILURES"
    assert waived > 10 and results["verdict"] == word and not results["conforms"]
    assert results["verdict_text"].startswith(word + " for data_move on ascend910b")
    assert f"Verdict: **{word}" in (folder / "README.md").read_text()
    page = (folder / "report-ascend910b.html").read_text()
    assert f"<title>{word} for data_move" in page and f"<b>{word}</b>" in page
    assert word in (folder / "junit.xml").read_text()
    predicate = json.loads((folder / "attestation.intoto.json").read_text())["predicate"]
    assert predicate["verdict"] == word
    assert [(w["reason"], w["tracker"], w["status"]) for w in predicate["waivers"]] == \
        [("the simulator does not move data yet", "SIM-7", "applied")] * 2
    assert sorted(sum((w["cells"] for w in predicate["waivers"]), [])) == \
        sorted(c["id"] for c in results["cells"] if c.get("waived"))


def test_verify_exits_1_for_waived_failures_unless_the_receiver_accepts_them(made, tmp_path):
    done = cli("verify", str(made["waived"]))
    assert done.returncode == 1, done.stdout + done.stderr
    first, *rest = done.stdout.splitlines()
    assert first.startswith("VERIFIED: CONFORMANT WITH ") and "WAIVED FAILURES for data_move" in first
    named = [line for line in rest if line.startswith("WAIVED: ")]
    assert len(named) == int(first.split()[3]) and all("not accepted" in line for line in named)
    accepted = cli("verify", str(made["waived"]), "--accept-waivers", str(made["waivers"]))
    assert accepted.returncode == 0 and "accepted by --accept-waivers" in accepted.stdout, accepted.stdout
    some = waiver_file(tmp_path / "some.yaml", "data_move/ascend910b/legal/*")
    assert cli("verify", str(made["waived"]), "--accept-waivers", str(some)).returncode == 1


def test_a_bundle_relabelled_plain_conformant_is_not_as_claimed(copy):
    folder = copy("waived")
    data = json.loads((folder / "results.json").read_text())
    data["verdict"], data["conforms"] = "CONFORMANT", True
    (folder / "results.json").write_text(json.dumps(data))
    resum(folder)
    one_line(cli("verify", str(folder)), 4, "NOT AS CLAIMED: results.json: verdict: 'CONFORMANT' recorded")


# ---------------------------------------------------------------------------------------------- scope

def test_a_partial_bundle_claiming_every_api_is_not_as_claimed(copy):
    from conformance.report.attestation import NAME, statement_text
    from conformance.report.bundle import readme_text
    from conformance.report.files import write_atomic
    from conformance.report.outputs import write_outputs
    folder = copy("partial")
    data = json.loads((folder / "results.json").read_text())
    assert data["verdict_text"].startswith("CONFORMANT for data_move on ascend910b (1 of 2 APIs")
    data["scope"].update(tested={"data_move": ["ascend910b"], "scatter": ["ascend910b"]}, not_supported={},
                         complete=True, text="data_move, scatter on ascend910b", detail="")
    data["verdict_text"] = "CONFORMANT for data_move, scatter on ascend910b"
    write_outputs(data, folder, default_rulebook(), shown=Path(data["certify"]["folder"]))
    write_atomic(folder / "README.md", readme_text(data, False))
    write_atomic(folder / NAME, statement_text(folder, data))
    resum(folder)
    one_line(cli("verify", str(folder)), 4, "NOT AS CLAIMED: results.json: scope:")


# ---------------------------------------------------------------------------------------------- --no-oracle

def test_certify_refuses_no_oracle(tmp_path):
    done = certify(tmp_path / "b", "DoesNothing", "--against", B + "DoesNothing", "--no-oracle")
    one_line(done, 2, "certify judges the backend against the oracle: --no-oracle is for `run`", "stderr")


# ---------------------------------------------------------------------------------------------- files

def test_a_backend_cannot_write_into_the_bundle(tmp_path):
    done = certify(tmp_path / "b", "WritesIntoBundle")
    one_line(done, 2, "holds vendor-page.html, which no bundle holds", "stderr")
    assert "appeared while the run went on" in done.stderr


def test_a_file_the_kit_did_not_write_is_not_as_claimed(copy):
    folder = copy("honest")
    (folder / "vendor-page.html").write_text("<h1>CONFORMANT</h1>")
    resum(folder)
    one_line(cli("verify", str(folder)), 4, "NOT AS CLAIMED: vendor-page.html: not a file the kit writes")


def test_edited_specs_are_named(copy):
    folder = copy("honest")
    spec = folder / "specs" / "data_move.yaml"
    text = spec.read_text()
    assert "4095" in text
    spec.write_text(text.replace("4095", "1", 1))
    resum(folder)
    one_line(cli("verify", str(folder)), 2, "specs/data_move.yaml: line", "stderr")


def test_environment_json_is_checked_or_called_a_claim(copy):
    folder = copy("honest")
    environment = json.loads((folder / "environment.json").read_text())
    environment["machine"]["node"] = "the-certifiers-lab"
    (folder / "environment.json").write_text(json.dumps(environment))
    resum(folder)
    done = cli("verify", str(folder))
    assert done.returncode == 0 and "environment.json: the Python, package versions, machine" in done.stdout
    environment["backend"]["name"] = "trusted-sim"
    (folder / "environment.json").write_text(json.dumps(environment))
    resum(folder)
    one_line(cli("verify", str(folder)), 4, "NOT AS CLAIMED: environment.json: backend:")


# ---------------------------------------------------------------------------------------------- the challenge

def test_no_backend_process_sees_the_challenge(tmp_path):
    peek = tmp_path / "peek"
    env = {"PEEK_OUT": str(peek)}
    os.environ.update(env)
    try:
        done = certify(tmp_path / "b", "ReadsAncestors", challenge=CHALLENGE)
        assert done.returncode == 0, done.stdout + done.stderr
        (tmp_path / "challenge").write_text(CHALLENGE + "\n")
        verified = cli("verify", str(tmp_path / "b"), "--challenge-file", str(tmp_path / "challenge"),
                       "--backend", B + "ReadsAncestors", "--sample", "1")
        assert verified.returncode == 0, verified.stdout + verified.stderr
        from_env = cli("verify", str(tmp_path / "b"), "--backend", B + "ReadsAncestors", challenge=CHALLENGE)
        assert from_env.returncode == 0, from_env.stdout + from_env.stderr
    finally:
        for name in env:
            os.environ.pop(name)
    seen = peek.read_bytes()
    assert b"certify" in seen and b"verify" in seen and b"environ: " in seen     # it did read its ancestors
    assert CHALLENGE.encode() not in seen and CHALLENGE.upper().encode() not in seen
    assert str(tmp_path / "challenge").encode() not in seen         # nor where the file holding it lies


def test_certify_warns_of_a_challenge_on_its_command_line(tmp_path):
    done = certify(tmp_path / "b", "Honest", "--challenge", CHALLENGE)
    assert done.returncode == 0 and "--challenge on the command line can be read" in done.stderr
    refused = cli("verify", str(tmp_path / "b"), "--challenge", CHALLENGE, "--backend", B + "Honest")
    one_line(refused, 2, "--challenge on the command line can be read by the artefact", "stderr")


# ---------------------------------------------------------------------------------------------- the sample

def test_the_default_sample_has_a_stated_power(made):
    done = cli("verify", str(made["honest"]), "--backend", B + "Honest")
    assert done.returncode == 0, done.stdout + done.stderr
    calls = json.loads((made["honest"] / "results.json").read_text())["evidence"]["calls"]
    assert calls > 459
    assert f"sample: 459 of {calls} calls run on {B}Honest: a backend wrong on 1% of calls would be caught " \
           "with probability 0.99" in done.stdout
    small = cli("verify", str(made["honest"]), "--backend", B + "Honest", "--sample", "0.01")
    assert small.returncode == 0 and "caught with probability 0." in small.stdout


def test_a_backend_wrong_on_one_call_in_90_is_caught(made):
    done = cli("verify", str(made["honest"]), "--backend", B + "FlipsOneIn90", "--confidence", "0.999999",
               "--rate", "0.005")
    one_line(done, 4, "NOT AS CLAIMED: evidence: data_move/ascend910b/legal/")
    assert "answers" in done.stdout and "recorded" in done.stdout


# ---------------------------------------------------------------------------------------------- hostile files

def sparse(path: Path, size: int) -> None:
    """A file of `size` bytes that takes no room on the disk."""
    with open(path, "wb") as f:
        f.truncate(size)


@pytest.mark.parametrize("name, make, code, said", [
    ("evidence.jsonl.gz", lambda p: p.symlink_to("/dev/zero"), 4, "evidence.jsonl.gz: a symbolic link"),
    ("evidence.jsonl.gz", lambda p: os.mkfifo(p), 4, "evidence.jsonl.gz: a FIFO"),
    ("environment.json", lambda p: os.mkfifo(p), 4, "environment.json: a FIFO"),
    ("results.json", lambda p: os.mkfifo(p), 4, "results.json: a FIFO"),
    ("evidence.jsonl.gz", lambda p: p.mkdir(), 4, "evidence.jsonl.gz: folder"),
    ("huge.bin", lambda p: sparse(p, 20 * 10**9), 2, "huge.bin: 20000000000 bytes, more than"),
    ("evidence.jsonl.gz", lambda p: sparse(p, 20 * 10**9), 2, "evidence.jsonl.gz: 20000000000 bytes"),
])
def test_hostile_bundle_files_are_one_line(copy, name, make, code, said):
    folder = copy("honest")
    path = folder / name
    if path.exists():
        path.unlink()
    make(path)
    with (folder / "SHA256SUMS").open("a") as sums:
        sums.write(f"{'0' * 64}  {name}\n")
    done = cli("verify", str(folder), "--backend", B + "Honest", timeout=60)     # never a hang
    one_line(done, code, said, "stdout" if code == 4 else "stderr")


# ---------------------------------------------------------------------------------------------- the docs

def test_the_docs_say_what_no_black_box_run_can_catch(made):
    doc = " ".join((Path(__file__).resolve().parents[2] / "docs" / "certification.md").read_text().split())
    for said in ("detects the kit's process", "swaps", "used once", "one the certifier chose proves nothing",
                 "a full sample"):
        assert said in doc, said
    readme = " ".join((made["honest"] / "README.md").read_text().split())
    assert "No black-box run can catch an artefact that detects the kit" in readme


# ---------------------------------------------------------------------------------------------- the artefact

def test_a_backend_derived_from_the_reference_is_disclosed(made):
    honest = json.loads((made["honest"] / "results.json").read_text())["certify"]["artefact"]
    nothing = json.loads((made["waived"] / "results.json").read_text())["certify"]["artefact"]
    assert honest["reference_derived"] is True and nothing["reference_derived"] is False
    assert "Derived from the kit's reference" in (made["honest"] / "README.md").read_text()
    assert "Derived from the kit's reference" not in (made["waived"] / "README.md").read_text()
    statement = json.loads((made["honest"] / "attestation.intoto.json").read_text())
    assert statement["predicate"]["reference_derived"] is True
    assert any(m["module"] == "numpy" and m["version"] for m in honest["imports"])


def test_the_digest_covers_what_the_backend_imports(tmp_path, monkeypatch):
    from conformance.backends.artefact import artefact
    package = tmp_path / "probe_pair"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "sim.py").write_text(textwrap.dedent("""\
        from conformance import OracleBackend

        class A(OracleBackend):
            def __init__(self):
                import helper_a
                super().__init__()

        class B(OracleBackend):
            def __init__(self):
                import helper_b
                super().__init__()

            def run(self, call, memory):
                pass
        """))
    (tmp_path / "helper_a.py").write_text("FAST = True\n")
    (tmp_path / "helper_b.py").write_text("FAST = False\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    a, b = artefact("probe_pair.sim:A", default_rulebook()), artefact("probe_pair.sim:B", default_rulebook())
    assert a["package_sha256"] == b["package_sha256"] and a["sha256"] != b["sha256"]
    assert "helper_a" in {m["module"] for m in a["imports"]} and "helper_b" not in {m["module"] for m in a["imports"]}
    assert a["reference_derived"] is True and b["reference_derived"] is False
    (tmp_path / "helper_a.py").write_text("FAST = False\n")
    assert artefact("probe_pair.sim:A", default_rulebook())["sha256"] != a["sha256"]


# ---------------------------------------------------------------------------------------------- another release

def made_with(folder: Path, release: str) -> None:
    environment = json.loads((folder / "environment.json").read_text())
    environment["packages"]["hypothesis"] = release
    (folder / "environment.json").write_text(json.dumps(environment))
    resum(folder)


def test_a_receiver_on_another_hypothesis_release_checks_what_it_can(copy):
    folder = copy("honest")
    made_with(folder, "6.0.0")
    done = cli("verify", str(folder), "--backend", B + "Honest")
    assert done.returncode == 5, done.stdout + done.stderr
    assert done.stdout.startswith("VERIFIED: CONFORMANT for data_move on ascend910b: ")
    assert "frozen cases judged again" in done.stdout
    (line,) = [x for x in done.stdout.splitlines() if x.startswith("NOT RE-DRAWN: ")]
    assert "drawn with hypothesis 6.0.0" in line and "`pip install hypothesis==6.0.0`" in line
    assert cli("verify", str(folder), "--allow-partial").returncode == 0


def test_another_release_still_catches_a_forged_frozen_answer(copy):
    import gzip
    import hashlib
    folder = copy("honest")
    made_with(folder, "6.0.0")
    raw = (folder / "evidence.jsonl.gz").read_bytes()
    lines = [json.loads(x) for x in gzip.decompress(raw).decode().splitlines()]
    legal = next(x for x in lines if "/legal/" in x["cell"])
    call, _, _ = legal["entries"][0].partition(" ")
    legal["entries"][0] = f"{call} sha256:{'0' * 64}"
    raw = gzip.compress(("\n".join(json.dumps(x) for x in lines) + "\n").encode(), mtime=0)
    (folder / "evidence.jsonl.gz").write_bytes(raw)
    results = json.loads((folder / "results.json").read_text())
    results["evidence"]["sha256"] = hashlib.sha256(raw).hexdigest()
    (folder / "results.json").write_text(json.dumps(results))
    resum(folder)
    one_line(cli("verify", str(folder), "--allow-partial"), 4,
             f"NOT AS CLAIMED: results.json: cells: {legal['cell']}: a frozen case judged again is FAIL")
