"""Nightly fuzzing: shards, the fuzz loop (effort, periodic writes, progress), the failure database
(directory and Redis) with failures replayed first and promoted to reproducer files."""
from __future__ import annotations

import json
import shutil
import socket
import subprocess
import time

import pytest

from conformance.commands import fuzz as fuzzing
from conformance.generate.cells import cells, shard
from conformance.judge.failuredb import open_database, record, stored
from conformance.commands.fuzz import Fuzzer, parse_duration
from conformance.supervise.pool import Supervisor
from conformance.supervise.tasks import Stop
from oracle.spec import default_rulebook

from tests.commands.test_cli import cli, modules  # noqa: F401  (the fixture: a module of user backends)

BUGGY = "userbackends:OneBurstTooFew"


def test_shards_are_disjoint_and_cover():
    every = cells(["ascend910b", "ascend310b"], rulebook=default_rulebook())
    parts = [shard(every, i, 4) for i in range(1, 5)]
    assert sorted(c.id for p in parts for c in p) == sorted(c.id for c in every)
    assert max(map(len, parts)) - min(map(len, parts)) <= 1
    again = cells(["ascend910b", "ascend310b"], rulebook=default_rulebook())
    assert shard(every, 2, 4) == shard(again, 2, 4)       # deterministic
    with pytest.raises(ValueError):
        shard(every, 5, 4)


def test_shards_merge_into_one_report(tmp_path):
    for i in (1, 2, 3):
        done = cli("run", "--backend", "oracle", "--product", "ascend910b", "--api", "data_move", "--profile",
                   "quick", "--seed", "1", "--shard", f"{i}/3", "--report", f"s{i}", cwd=tmp_path)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    sizes = [len(json.loads((tmp_path / f"s{i}" / "results.json").read_text())["cells"]) for i in (1, 2, 3)]
    assert sum(sizes) == len(cells(["ascend910b"], ["data_move"], rulebook=default_rulebook()))
    merged = cli("report", "s1", "s2", "s3", "--out", "all", cwd=tmp_path)
    assert merged.returncode == 0 and "CONFORMANT      ascend910b" in merged.stdout
    partial = cli("report", "s1", "s3", "--out", "part", cwd=tmp_path)
    assert partial.returncode == 1 and "INCOMPLETE" in partial.stdout
    assert "shard 2/3 missing" in json.loads((tmp_path / "part" / "results.json").read_text())["errors"][0]


@pytest.mark.parametrize("text, seconds", [("90s", 90), ("15m", 900), ("8h", 28800), ("1h30m", 5400), ("2.5s", 2.5)])
def test_durations(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "0s", "ten minutes", "5x", "30", "2.5"])
def test_bad_durations(text):
    with pytest.raises(ValueError, match="--duration"):
        parse_duration(text)


def test_fuzzer_spreads_effort_and_writes_as_it_goes(monkeypatch, modules):  # noqa: F811
    monkeypatch.syspath_prepend(str(modules))
    monkeypatch.setattr(fuzzing, "WRITE_EVERY", 0.0)
    monkeypatch.setattr(fuzzing, "BASE_CALLS", 10)
    book = default_rulebook()
    chosen = [c for c in cells(["ascend910b"], ["data_move"], rulebook=book) if c.expect == "legal"][:3] + \
        [c for c in cells(["ascend310b"], ["data_move"], rulebook=book) if c.expect == "legal"][:2]
    writes = []
    fuzzer = Fuzzer(chosen, duration=60.0, seed=1, kept={}, write=lambda results: writes.append(len(results)))
    supervisor = Supervisor(BUGGY, 1, db_spec="none", specs=default_rulebook)
    supervisor.start()
    try:
        assert fuzzer.run(supervisor, Stop()) is False
    finally:
        supervisor.close()
    assert writes and writes[-1] >= 1 and writes == sorted(writes)        # written while it ran
    assert set(fuzzer.results) == {c.id for c in chosen}
    # every cell fails (one burst too few): each is retired after its failure, and the failure of the
    # first cell of a product doubled the budget of the others of that product before their turn
    assert fuzzer.retired == set(fuzzer.results) and fuzzer.progress.failures == 5
    assert all(r["failure"]["verdict"] == "FAIL" for r in fuzzer.results.values())
    assert fuzzer.progress.rounds == 1 and fuzzer.progress.tasks == 5
    assert all(w > 1 for w in fuzzer.weight.values())


def test_fuzz_keeps_failures_replays_them_and_promotes(tmp_path, modules):  # noqa: F811
    args = ("fuzz", "--backend", BUGGY, "--product", "ascend910b", "--select", "data_move/*/legal/int8",
            "--select", "data_move/*/legal/int16", "--duration", "2s", "--db", "db", "-n", "2")
    first = cli(*args, "--report", "one", "--seed", "1", cwd=tmp_path, extra_path=modules)
    assert first.returncode == 1 and "0 kept failure(s) replayed first" in first.stdout, first.stdout + first.stderr
    assert "fuzz 0:00:" in first.stdout and "NOT CONFORMANT" in first.stdout
    results = json.loads((tmp_path / "one" / "results.json").read_text())
    assert {f["cell"] for f in results["failures"]} == {"data_move/ascend910b/legal/int8",
                                                       "data_move/ascend910b/legal/int16"}
    second = cli(*args, "--report", "two", "--seed", "2", cwd=tmp_path, extra_path=modules)
    assert "2 kept failure(s) replayed first" in second.stdout, second.stdout
    again = json.loads((tmp_path / "two" / "results.json").read_text())
    # the kept failure was judged first: the very first call of each cell failed
    assert all(sum(c["counts"].values()) == 1 and c["frozen_calls"] == 1 for c in again["cells"]), again["cells"]
    promoted = cli("promote", "--db", "db", "--out", "regressions", "--product", "ascend910b", cwd=tmp_path)
    # the second run may have shrunk a kept failure further: that one is kept too
    kept = int(promoted.stdout.rsplit(" kept failure(s) written to regressions", 1)[0].split()[-1])
    assert promoted.returncode == 0 and kept >= 2, promoted.stdout
    files = sorted((tmp_path / "regressions").glob("*.yaml"))
    assert len(files) == kept and {f.name.split("-")[0] for f in files} == {
        "data_move__ascend910b__legal__int8", "data_move__ascend910b__legal__int16"}
    replay = cli("replay", *map(str, files), "--backend", BUGGY, cwd=tmp_path, extra_path=modules)
    assert replay.returncode == 1 and replay.stdout.count("STILL FAILING") == kept
    fixed = cli("replay", *map(str, files), "--backend", "oracle", cwd=tmp_path)
    assert fixed.returncode == 0 and fixed.stdout.count("FIXED") == kept


def test_bad_database_is_one_line(tmp_path):
    (tmp_path / "file").write_text("")
    done = cli("fuzz", "--backend", "oracle", "--product", "ascend910b", "--duration", "1s", "--db", "file/db",
               cwd=tmp_path)
    assert done.returncode == 2 and "--db file/db: cannot create the directory" in done.stderr


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def redis_url(tmp_path):
    """A redis-server of our own on loopback, stopped after the test."""
    server = shutil.which("redis-server")
    if server is None:
        pytest.skip("no redis-server on this machine (Debian package redis-server; .ci/run installs it)")
    pytest.importorskip("redis", reason="the redis package is not installed (pip install redis)")
    port = _free_port()
    proc = subprocess.Popen([server, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no",
                             "--dir", str(tmp_path)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


# A failure as a fuzzing run keeps it: one burst short of a two-burst int8 move.
KEPT = {"cell": "data_move/ascend910b/legal/int8", "verdict": "FAIL", "message": "m", "expect": "legal",
        "rule": None, "memory": {"seed": 1, "sizes": {"UB": 196608}},
        "call": {"api": "data_move", "product": "ascend910b", "form": None, "args": {
            "dst": {"scope": "UB", "addr": 0, "dtype": "int8", "numel": 64},
            "src": {"scope": "UB", "addr": 64, "dtype": "int8", "numel": 64},
            "sid": 0, "nburst": 2, "burst": 1, "src_stride": 0, "dst_stride": 0}}}


def test_redis_database_is_shared(redis_url, tmp_path, modules):  # noqa: F811
    db = open_database(redis_url)
    failure = dict(KEPT)
    record(db, failure)
    # another "machine": a second connection sees it
    assert stored(open_database(redis_url), [failure["cell"]])[failure["cell"]][0]["call"] == failure["call"]
    done = cli("fuzz", "--backend", BUGGY, "--product", "ascend910b", "--select", "data_move/*/legal/int8",
               "--duration", "1s", "--db", redis_url, "--report", "r", cwd=tmp_path, extra_path=modules)
    assert "1 kept failure(s) replayed first" in done.stdout and done.returncode == 1, done.stdout + done.stderr
    promoted = cli("promote", "--db", redis_url, "--out", "kept", "--product", "ascend910b", cwd=tmp_path)
    assert promoted.returncode == 0 and len(list((tmp_path / "kept").glob("*.yaml"))) >= 1
    import redis
    keys = [k.decode() for k in redis.Redis.from_url(redis_url).keys("*")]
    assert keys and all(k.startswith("ascend-conformance") and "ascend-conformance:ascend-conformance" not in k
                        for k in keys), keys           # the kit's key names, prefixed once


def test_a_kept_failure_the_backend_now_passes_is_marked_fixed(tmp_path):
    """Kept in the database, a failure the (fixed) backend passes when fuzzing replays it is moved to the
    fixed ones: not replayed again, and `promote` says so rather than writing it as failing."""
    db_path = str(tmp_path / "db")
    failure = dict(KEPT)
    record(open_database(db_path), failure)
    done = cli("fuzz", "--backend", "oracle", "--product", "ascend910b", "--select", failure["cell"],
               "--duration", "1s", "--db", db_path, "--report", "r", cwd=tmp_path)
    assert done.returncode == 0 and "1 kept failure(s) replayed first" in done.stdout, done.stdout + done.stderr
    assert stored(open_database(db_path), [failure["cell"]]) == {}
    promoted = cli("promote", "--db", db_path, "--out", "kept", "--product", "ascend910b", "--api", "data_move",
                   cwd=tmp_path)
    assert promoted.returncode == 0 and not list((tmp_path / "kept").glob("*.yaml"))
    assert "1 failure(s) kept earlier were passed by a later run's backend: fixed, not written" in promoted.stdout


@pytest.mark.parametrize("data, passed", [
    ({"status": "ran", "frozen_calls": 3}, 3), ({"status": "ran", "frozen_calls": 2, "failure": {"verdict": "FAIL"}}, 1),
    ({"status": "ran", "frozen_calls": 3, "failure": {"verdict": "FAIL"}}, 2), ({"status": "error", "frozen_calls": 3}, 0),
    ({"status": "ran", "frozen_calls": 0}, 0)])
def test_which_kept_failures_passed(data, passed):
    kept = [{"n": i} for i in range(3)]
    assert fuzzing.passed_kept(kept, data) == kept[:passed]
