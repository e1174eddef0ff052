"""`--cluster`: the cells of `run` and `fuzz` sent to a Dask distributed scheduler, tested on a
LocalCluster of processes on loopback, started and stopped here."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import command

distributed = pytest.importorskip("distributed", reason="the 'dask' extra is not installed")

from tests.commands.test_cli import BUGGY       # a module of user backends (userbackends.OneBurstTooFew, ...)

from kit_path import HELPERS
ROOT = Path(__file__).resolve().parents[2]



@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """Two Dask worker processes of one thread each, allowed children (the kit's own workers)."""
    import dask
    folder = tmp_path_factory.mktemp("clustered")
    (folder / "userbackends.py").write_text(BUGGY)
    sys.path[:0] = [str(HELPERS), str(folder)]       # what the Dask processes import (spawned with this sys.path)
    try:
        with dask.config.set({"distributed.worker.daemon": False}):
            with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                          dashboard_address=None) as local:
                yield local.scheduler_address, folder
    finally:
        del sys.path[:2]


def cli(folder: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return command.cli(*args, cwd=folder, paths=(folder,), timeout=timeout)


def counts(folder: Path) -> dict[str, dict[str, int]]:
    data = json.loads((folder / "results.json").read_text())
    return {c["id"]: c["counts"] for c in data["cells"]}


def test_a_run_on_the_cluster_makes_the_calls_of_a_local_run(cluster, tmp_path):
    address, folder = cluster
    args = ("run", "--backend", "oracle", "--product", "ascend910b", "--select", "data_move/*/legal/*int*",
            "--profile", "quick", "--seed", "9")
    there = cli(folder, *args, "--cluster", address, "--report", str(tmp_path / "cluster"))
    here = cli(folder, *args, "--report", str(tmp_path / "local"))
    assert there.returncode == 0 and here.returncode == 0, there.stderr
    assert counts(tmp_path / "cluster") == counts(tmp_path / "local") and len(counts(tmp_path / "local")) >= 6


def test_fuzz_on_the_cluster_finds_and_keeps_failures(cluster, tmp_path):
    address, folder = cluster
    done = cli(folder, "fuzz", "--backend", "userbackends:OneBurstTooFew", "--product", "ascend910b", "--select",
               "data_move/*/legal/int8", "--select", "data_move/*/legal/float16", "--duration", "4s",
               "--cluster", address, "--db", str(tmp_path / "db"), "--report", str(tmp_path / "r"))
    assert done.returncode == 1, done.stderr
    data = json.loads((tmp_path / "r" / "results.json").read_text())
    assert {f["verdict"] for f in data["failures"]} == {"FAIL"} and len(data["failures"]) == 2
    promoted = cli(folder, "promote", "--db", str(tmp_path / "db"), "--out", str(tmp_path / "kept"))
    assert promoted.returncode == 0 and len(list((tmp_path / "kept").glob("*.yaml"))) == 2


def test_ctrl_c_on_a_cluster_run_keeps_the_results(cluster, tmp_path):
    address, folder = cluster
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HELPERS), str(folder)]), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "conformance", "run", "--backend", "oracle", "--product",
                             "ascend910b", "--profile", "ci", "--seed", "1", "--cluster", address, "--report",
                             str(tmp_path / "r"), "-v"], cwd=folder, env=env, stdout=subprocess.PIPE, text=True)
    try:
        for line in proc.stdout:
            if line.startswith("  ok"):
                break
        proc.send_signal(signal.SIGINT)
        began = time.monotonic()
        proc.communicate(timeout=60)
        assert time.monotonic() - began < 20
    finally:
        proc.kill()
    assert proc.returncode == 130
    data = json.loads((tmp_path / "r" / "results.json").read_text())
    assert data["verdict"] == "INCOMPLETE" and 1 <= len(data["cells"]) < len(data["planned"])


def test_an_unreachable_scheduler_is_one_line(tmp_path):
    done = cli(tmp_path, "run", "--backend", "oracle", "--product", "ascend910b", "--cluster", "tcp://127.0.0.1:9",
               "--report", str(tmp_path / "r"), timeout=120)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "127.0.0.1:9" in done.stderr, done.stderr
