"""`verify -n N`: a bundle derived on N processes says what it says on one (the same stdout and exit
status, the same cells and kept calls, the first mismatch in task order), and the workers end with it:
a worker killed is one line and exit 2, Ctrl-C leaves no process behind.

Bundles are made as in test_verify.py (`certify`, the quick profile, data_move on one product)."""
from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from oracle.spec import default_rulebook

from tests.commands.test_verify import CHALLENGE, ROOT, certify, cli, resum

# verify -n 2 with verify_derive's task judge wrapped (argv: bundle, cell suffix, pid file, what to do)
WRAPPED = textwrap.dedent("""\
    import os, signal, sys, time
    from conformance.commands import verify_derive
    from conformance.commands.cli import main
    judge = verify_derive._judge
    def wrapped(job, **kw):
        if job.task.cell.id.endswith(sys.argv[2]):
            with open(sys.argv[3], "a") as pids:
                pids.write(f"{os.getpid()}\\n")
            if sys.argv[4] == "die":
                os.kill(os.getpid(), signal.SIGKILL)
            time.sleep(60)
        return judge(job, **kw)
    verify_derive._judge = wrapped
    sys.exit(main(["verify", sys.argv[1], "-n", "2"]))
    """)


@pytest.fixture(scope="module")
def bundles(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("bundles")
    made = {"honest": certify(base / "honest", "oracle"),
            "failing": certify(base / "failing", "tests.cheating_backends:FrameWalker", "--challenge", CHALLENGE)}
    assert made["honest"].returncode == 0 and made["failing"].returncode == 1, made["failing"].stdout
    return {name: base / name for name in made}


def evidence(folder: Path) -> list[dict]:
    return [json.loads(x) for x in gzip.decompress((folder / "evidence.jsonl.gz").read_bytes()).decode().splitlines()]


def tamper(folder: Path, *cells: str) -> None:
    """The first answer recorded for each of `cells` flipped (the reference's image <-> another), the
    evidence's digest and SHA256SUMS made again, as a forger would."""
    results = json.loads((folder / "results.json").read_text())
    lines = evidence(folder)
    for line in lines:
        if line["cell"] in cells:
            call, _, answer = line["entries"][0].partition(" ")
            line["entries"][0] = f"{call} " + ("sha256:" + "0" * 64 if answer == "=" else "=")
    raw = gzip.compress(("\n".join(json.dumps(x) for x in lines) + "\n").encode(), mtime=0)
    (folder / "evidence.jsonl.gz").write_bytes(raw)
    results["evidence"]["sha256"] = hashlib.sha256(raw).hexdigest()
    (folder / "results.json").write_text(json.dumps(results))
    resum(folder)


@pytest.mark.parametrize("name, status", [("honest", 0), ("failing", 1)])
def test_two_workers_say_what_one_says(bundles, name, status):
    challenge = CHALLENGE if name == "failing" else None
    one = cli("verify", str(bundles[name]), "-n", "1", challenge=challenge)
    two = cli("verify", str(bundles[name]), "-n", "2", challenge=challenge)
    assert one.returncode == status, one.stdout + one.stderr
    assert (two.returncode, two.stdout, two.stderr) == (one.returncode, one.stdout, one.stderr)


def test_the_first_cell_not_as_claimed_is_named_whatever_the_workers(bundles, tmp_path):
    """Two cells tampered: one of the smallest (handed out last) and, after it in the order tasks are
    judged, one of the largest (handed out first, so judged first on two workers): the first in task
    order is named."""
    folder = tmp_path / "tampered"
    shutil.copytree(bundles["honest"], folder)
    sizes = {line["cell"]: len(line["entries"]) for line in evidence(folder)}     # one part per cell
    order = sorted(sizes)
    first = min(order, key=lambda cell: sizes[cell])
    later = max(order[order.index(first) + 1:], key=lambda cell: sizes[cell])
    assert sizes[later] > sizes[first]
    tamper(folder, first, later)
    one = cli("verify", str(folder), "-n", "1")
    two = cli("verify", str(folder), "-n", "2")
    assert one.returncode == 4 and one.stdout.startswith(f"NOT AS CLAIMED: evidence: {first}: "), one.stdout
    assert (two.returncode, two.stdout) == (one.returncode, one.stdout)


def test_the_derivation_and_the_calls_kept_are_the_same_on_two_workers(bundles):
    from conformance.commands import verify_derive as derive
    from conformance.commands import verify_files as files
    rulebook = default_rulebook()
    _, results = files.read_bundle(bundles["honest"], rulebook)
    parts = derive.parse_evidence(files.read_evidence(bundles["honest"], results), "evidence")
    picks = set(range(0, results["calls"], 7))
    (one, kept_one), (two, kept_two) = (derive.derive(results, parts, None, derive.Picker(picks), rulebook, n)
                                        for n in (1, 2))
    untimed = [{cell: {k: v for k, v in result.items() if k != "seconds"} for cell, result in derived.items()}
               for derived in (one, two)]
    assert untimed[0] == untimed[1] and list(one) == list(two) and len(kept_one) == len(picks)
    assert [(c, i, k.call.to_json(), k.memory.to_dict(), a) for c, i, k, a in kept_one] == \
        [(c, i, k.call.to_json(), k.memory.to_dict(), a) for c, i, k, a in kept_two]


@pytest.mark.parametrize("workers", ["0", "x"])
def test_a_number_of_workers_that_is_none_is_one_line(bundles, workers):
    done = cli("verify", str(bundles["honest"]), "-n", workers)
    assert done.returncode == 2 and "-n expects a number of workers" in done.stderr, done.stderr
    assert len(done.stderr.splitlines()) == 1 and not done.stdout


def test_the_first_exception_in_task_order_is_raised_and_results_come_in_order():
    """The job handed out last (the cheapest) raises after a later job has raised: its exception is the
    one raised; without one, the results come back in the jobs' order, not the order they finished."""
    from conformance.commands.verify_parallel import judged

    def judge(job: int) -> int:
        if job == 0:
            raise ValueError("first")
        if job == 1:
            raise KeyError("second")
        return job * job
    with pytest.raises(ValueError, match="first"):
        judged([0, 1, 2, 3], judge, 2, lambda job: job, str)
    assert judged(list(range(2, 40)), judge, 3, lambda job: job % 5, str) == [j * j for j in range(2, 40)]


def test_a_worker_killed_is_one_line_and_exit_2(bundles, tmp_path):
    done = _wrapped(bundles["honest"], "legal/int8", tmp_path / "pids", "die")
    assert done.wait(60) == 2, done.stderr.read()
    said = done.stderr.read()
    assert said.startswith("ascend-conformance: error: verify -n: the worker process judging "
                           "data_move/ascend910b/legal/int8 again was killed by SIGKILL"), said
    assert len(said.splitlines()) == 1 and not done.stdout.read()


def test_ctrl_c_stops_the_workers(bundles, tmp_path):
    """SIGINT to the foreground group, as a terminal sends it: verify says it was interrupted (130) and
    no worker outlives it."""
    pids = tmp_path / "pids"
    done = _wrapped(bundles["honest"], "/float32", pids, "hang")
    deadline = time.monotonic() + 30
    while not (pids.exists() and pids.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.05)
    (worker,) = map(int, pids.read_text().split())
    os.killpg(done.pid, signal.SIGINT)
    _, said = done.communicate(timeout=30)      # its output read as it goes: a full pipe cannot hold it up
    assert done.returncode == 130 and said.strip().endswith("interrupted"), said
    with pytest.raises(ProcessLookupError):
        os.kill(worker, 0)


def _wrapped(folder: Path, cell: str, pids: Path, how: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", WRAPPED, str(folder), cell, str(pids), how], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
