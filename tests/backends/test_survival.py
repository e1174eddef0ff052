"""The referee survives the backends it judges and every way a run is stopped, run through the
CLI as a user runs it: backends that segfault, exit, hang in Python and in C; SIGINT, SIGTERM and
SIGKILL sent mid-run; two runs on one folder. Cells are small and time limits short."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from oracle.spec import default_rulebook

from kit_path import HELPERS
ROOT = Path(__file__).resolve().parents[2]

ZOO = textwrap.dedent('''
    import os, signal, sys, time
    from conformance import OracleBackend

    def picked(call):                   # the calls these backends misbehave on
        return call.api == "data_move" and call.args.get("nburst", 0) > 2

    class Segfault(OracleBackend):
        name = "segfault"
        def run(self, call, memory):
            if picked(call):
                os.kill(os.getpid(), signal.SIGSEGV)
            super().run(call, memory)

    class Exits(OracleBackend):
        name = "exits"
        def run(self, call, memory):
            if picked(call):
                os._exit(3)
            super().run(call, memory)

    class HangsInC(OracleBackend):
        name = "hangs-in-c"
        def run(self, call, memory):
            if picked(call):
                sum(range(10**14))      # a loop inside C: no signal handler runs until it ends
            super().run(call, memory)

    class HangsInPython(OracleBackend):
        name = "hangs-in-python"
        def run(self, call, memory):
            while picked(call):
                pass
            super().run(call, memory)

    class Slow(OracleBackend):
        name = "slow"
        def run(self, call, memory):
            time.sleep(0.01)
            super().run(call, memory)

    class SegfaultsWhenLoaded(OracleBackend):
        def __init__(self):
            os.kill(os.getpid(), signal.SIGSEGV)
''')

CELLS = ["--select", "data_move/ascend910b/legal/float16", "--select", "data_move/ascend910b/legal/int8",
         "--select", "asc_gather/ascend910b/legal/count/int32"]


@pytest.fixture(scope="module")
def zoo(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("zoo")
    (folder / "zoo.py").write_text(ZOO)
    return folder


def _env(zoo: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(HELPERS), str(zoo)]), "PYTHONUNBUFFERED": "1"}


def cli(zoo: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "conformance", *args], cwd=zoo, env=_env(zoo),
                          capture_output=True, text=True, timeout=timeout)


def start(zoo: Path, *args: str) -> subprocess.Popen:
    """The command running, with a line per cell (-v) where it runs cells: wait_for_cells reads them."""
    verbose = ["-v"] if args and args[0] in ("run", "certify") else []
    return subprocess.Popen([sys.executable, "-m", "conformance", *args, *verbose], cwd=zoo, env=_env(zoo),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for_cells(proc: subprocess.Popen, n: int, timeout: float = 120) -> list[str]:
    """Read the run's output until `n` cell lines came (the workers are busy by then)."""
    lines, deadline = [], time.monotonic() + timeout
    while sum(line.startswith("  ") for line in lines) < n:
        assert time.monotonic() < deadline, "the run printed no cell line in time"
        line = proc.stdout.readline()
        assert line, f"the run ended early: {lines} {proc.stderr.read()}"
        lines.append(line)
    return lines


def children(pid: int) -> list[int]:
    """Processes whose parent is `pid` (the workers)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(entry.name))
    return out


def gone(pids: list[int], within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        alive = []
        for pid in pids:
            try:
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if state != "Z":
                alive.append(pid)
        if not alive:
            return True
        time.sleep(0.1)
    return False


def results(folder: Path) -> dict:
    return json.loads((folder / "results.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("backend, said", [("zoo:Segfault", "killed by SIGSEGV"), ("zoo:Exits", "exited with status 3")])
def test_a_dying_backend_is_a_crash_and_the_run_goes_on(zoo, tmp_path, backend, said):
    done = cli(zoo, "run", "--backend", backend, "--product", "ascend910b", *CELLS, "--profile", "quick",
               "--seed", "1", "--report", str(tmp_path / "r"))
    assert done.returncode == 1, done.stderr
    data = results(tmp_path / "r")
    by_id = {c["id"]: c for c in data["cells"]}
    assert sorted(by_id) == sorted(data["planned"])        # every cell has its result
    for dtype in ("float16", "int8"):
        cell = by_id[f"data_move/ascend910b/legal/{dtype}"]
        assert cell["failure"]["verdict"] == "CRASH" and said in cell["failure"]["message"]
        assert cell["failure"]["call"]["args"]["nburst"] > 2          # the call it died on
        assert cell["counts"]["CRASH"] == 1 and cell["counts"].get("PASS", 0) >= 0
    other = by_id["asc_gather/ascend910b/legal/count/int32"]      # a cell where it behaves: judged as usual
    assert other["failure"] is None and other["counts"]["PASS"] == 25
    repro = tmp_path / "r" / by_id["data_move/ascend910b/legal/int8"]["failure"]["reproducer"]
    again = cli(zoo, "replay", str(repro), "--backend", backend)
    assert again.returncode == 1 and "STILL FAILING" in again.stdout and "(as recorded)" in again.stdout
    assert said in again.stdout
    fixed = cli(zoo, "replay", str(repro), "--backend", "oracle")
    assert fixed.returncode == 0 and "FIXED" in fixed.stdout


@pytest.mark.parametrize("backend", ["zoo:HangsInC", "zoo:HangsInPython"])
def test_a_hang_costs_a_bounded_time(zoo, tmp_path, backend):
    began = time.monotonic()
    done = cli(zoo, "run", "--backend", backend, "--product", "ascend910b", "--select",
               "data_move/ascend910b/legal/float16", "--profile", "quick", "--seed", "1", "--timeout", "1",
               "--report", str(tmp_path / "r"))
    spent = time.monotonic() - began
    assert done.returncode == 1, done.stderr
    (cell,) = results(tmp_path / "r")["cells"]
    message = cell["failure"]["message"]
    assert cell["failure"]["verdict"] == "CRASH" and "no answer" in message and "within 1 s" in message
    # without a bound, shrinking re-ran the hanging call for a minute; now: the hang, at most two more
    # timed-out candidates, a restart and the start-up
    assert spent < 45, spent


def test_a_backend_that_dies_while_loading_is_one_line(zoo, tmp_path):
    done = cli(zoo, "run", "--backend", "zoo:SegfaultsWhenLoaded", "--product", "ascend910b", *CELLS,
               "--report", str(tmp_path / "r"))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "SIGSEGV" in done.stderr, done.stderr


@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_a_signal_stops_the_run_and_keeps_what_it_gathered(zoo, tmp_path, signum, code):
    folder = tmp_path / "r"
    proc = start(zoo, "run", "--backend", "zoo:Slow", "--product", "ascend910b", "--api", "data_move",
                 "--profile", "ci", "--seed", "1", "--report", str(folder), "-n", "2")
    try:
        wait_for_cells(proc, 1)
        workers = children(proc.pid)
        assert workers
        sent = time.monotonic()
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=30)
        assert time.monotonic() - sent < 15
    finally:
        proc.kill()
    assert proc.returncode == code, err
    data = results(folder)
    assert data["verdict"] == "INCOMPLETE" and data["interrupted"] and data["stopped"] == signal.Signals(signum).name
    assert 1 <= len(data["cells"]) < len(data["planned"])
    assert not data.get("running")
    assert gone(workers)


def test_kill_9_leaves_a_folder_report_renders_and_no_worker(zoo, tmp_path):
    folder = tmp_path / "r"
    shm_before = set(os.listdir("/dev/shm")) if os.path.isdir("/dev/shm") else set()
    proc = start(zoo, "run", "--backend", "zoo:Slow", "--product", "ascend910b", "--api", "data_move",
                 "--profile", "ci", "--seed", "1", "--report", str(folder), "-n", "2")
    try:
        wait_for_cells(proc, 1)
        workers = children(proc.pid)
        proc.kill()
        proc.wait(30)
    finally:
        proc.kill()
    assert gone(workers)                         # they noticed their parent died
    if shm_before or os.path.isdir("/dev/shm"):
        assert not {f for f in set(os.listdir("/dev/shm")) - shm_before if "ascend-conformance" in f}
    data = results(folder)                       # written at the start, so not a previous run's
    assert data["running"] and data["verdict"] == "INCOMPLETE"
    rendered = cli(zoo, "report", str(folder))
    assert "INCOMPLETE" in rendered.stdout, rendered.stderr
    assert (folder / "report-ascend910b.html").exists()


def test_one_folder_one_run(zoo, tmp_path):
    folder = tmp_path / "r"
    first = start(zoo, "run", "--backend", "zoo:Slow", "--product", "ascend910b", "--api", "data_move",
                  "--profile", "ci", "--seed", "1", "--report", str(folder))
    try:
        wait_for_cells(first, 1)
        second = cli(zoo, "run", "--backend", "oracle", "--product", "ascend310b", "--profile", "quick",
                     "--report", str(folder))
        assert second.returncode == 2
        assert str(folder) in second.stderr and f"pid {first.pid}" in second.stderr, second.stderr
        assert results(folder)["backend"]["name"] == "slow"          # the first run's files, untouched
        first.kill()
        first.wait(30)
    finally:
        first.kill()
    third = cli(zoo, "run", "--backend", "oracle", "--product", "ascend910b", "--select",
                "data_move/ascend910b/legal/float16", "--profile", "quick", "--report", str(folder))
    assert third.returncode == 0, third.stderr           # a killed run leaves no stuck lock


def test_starting_workers_leaves_this_process_collector_as_it_was():
    """The supervisor freezes its objects while it forks a worker (the worker's first collection then
    skips them) and unfreezes them after: a process that starts workers keeps collecting its own
    garbage, and what it had frozen itself stays frozen."""
    import gc

    from conformance.supervise.pool import Supervisor
    for already in (False, True):
        if already:
            gc.freeze()
        before = gc.get_freeze_count()
        supervisor = Supervisor("oracle", 2, specs=default_rulebook)
        try:
            assert supervisor.start()["name"]
            # none frozen before: none after; some: no more after (frozen objects may still be freed)
            assert 0 < gc.get_freeze_count() <= before if already else gc.get_freeze_count() == 0
        finally:
            supervisor.close()
            gc.unfreeze()


def test_released_workers_leave_before_the_supervisor_closes():
    """Once every task is done the session releases the workers: they close their backends and leave
    while the report is written, so that closing finds them gone (and a worker busy with a task is not
    told to leave)."""
    from conformance.supervise.pool import Supervisor
    supervisor = Supervisor("oracle", 2, specs=default_rulebook)
    try:
        supervisor.start()
        workers = list(supervisor._workers)
        busy = workers[0]
        busy.task = object()                  # as if handed a task: release leaves it alone
        supervisor.release()
        idle = workers[1]
        idle.proc.join(10)
        assert idle.proc.exitcode == 0 and idle.released
        assert busy.proc.is_alive() and not busy.released
        busy.task = None
    finally:
        supervisor.close()
    assert not any(w.proc.is_alive() for w in workers)


def test_a_forked_workers_slot_is_shared_memory_it_writes_and_the_supervisor_reads():
    """Under fork the slot is an anonymous shared mapping (no 8 MiB zeroed per worker at start): what the
    worker writes after the fork, the supervisor reads."""
    import multiprocessing

    from conformance.judge import inflight
    slot = inflight.Slot(multiprocessing.get_context("fork"))
    pid = os.fork()
    if pid == 0:                              # the worker: a payload and a count
        try:
            slot.enter([{"call": {"api": "data_move"}, "memory": {"seed": 1}}])
            slot.count("PASS")
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    assert slot.verdict_counts()["PASS"] == 1
    assert slot.in_flight().calls == [{"call": {"api": "data_move"}, "memory": {"seed": 1}}]



def test_the_slot_gives_back_a_scatter_calls_record_whole():
    """A call that writes offsets into memory: the slot holds their bytes beside its JSON, and what the
    supervisor reads back is the reproducer's fields, every value the same; a place past the slot's bytes
    reads as no record."""
    import multiprocessing

    from conformance.generate.cells import cells
    from conformance.judge import inflight
    from conformance.judge.reproducers import case_fields
    from oracle.spec import default_rulebook
    rulebook = default_rulebook()
    cell = next(c for c in cells(["ascend310p-aicore"], ["scatter"], rulebook=rulebook) if c.id.endswith("legal/count/float16"))
    cases = cell.draw(3, 1, rulebook)
    assert any(len(w.values) > 100 for case in cases for w in case.memory.writes)
    slot = inflight.Slot(multiprocessing.get_context("fork"))
    slot.enter([inflight.record(case) for case in cases])
    assert slot.in_flight().calls == [case_fields(case) for case in cases]
    slot.enter([{"memory": {"writes": [{"scope": "UB", "addr": 0, "dtype": "int32", "raw": [4, 1 << 30]}]}}])
    assert slot.in_flight().calls == []

STAGGERED = textwrap.dedent('''
    import os, time
    from pathlib import Path
    from conformance import OracleBackend

    class Staggered(OracleBackend):
        """The first worker to load it is ready at once; every other one takes DELAY seconds."""
        name = "staggered"
        def __init__(self):
            folder = Path(os.environ["STAGGERED_DIR"])
            first = not any(folder.iterdir())
            (folder / str(os.getpid())).touch()
            if not first:
                time.sleep(float(os.environ["STAGGERED_DELAY"]))
            super().__init__()
''')


@pytest.mark.parametrize("delay, bound", [(0.2, 30.0), (3.0, 0.2)])
def test_the_first_write_waits_for_every_worker_to_have_a_task(tmp_path, monkeypatch, delay, bound):
    """`begun` (the run's first write) comes once every worker has its first task, so that none that said
    "ready" after the first look idles while the report is written; a worker still loading past
    FIRST_WRITE_WAIT seconds does not hold it back."""
    from conformance.generate.cells import cells
    from conformance.generate.profiles import profile
    from conformance.supervise import pool
    from conformance.supervise.plan import plan
    from conformance.supervise.tasks import Stop
    (tmp_path / "staggered.py").write_text(STAGGERED)
    (tmp_path / "loaded").mkdir()
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("STAGGERED_DIR", str(tmp_path / "loaded"))
    monkeypatch.setenv("STAGGERED_DELAY", str(delay))
    monkeypatch.setattr(pool, "FIRST_WRITE_WAIT", bound)
    book = default_rulebook()           # the tasks below: under a second for one worker
    tasks = plan(cells(["ascend910b"], ["data_move"], rulebook=book)[:9], profile("ci"), 1, book)
    supervisor = pool.Supervisor("staggered:Staggered", 3, specs=default_rulebook)
    seen: list = []
    try:
        supervisor.start()
        pool.run_tasks(supervisor, tasks, lambda result: seen.append("result"), Stop(),
                       begun=lambda: seen.append((supervisor.busy, supervisor.waiting)))
    finally:
        supervisor.close()
    (first,) = [event for event in seen if event != "result"]
    assert seen.count("result") == 9
    if bound > delay:               # waited for the two late workers: all three busy, none waiting
        assert first == (3, 0)
    else:                           # written while the two late ones still load
        assert first == (1, 2)


def test_the_workers_inherit_the_random_pool_made_before_the_fork():
    """The supervisor makes the random pool the images are cut from before forking (worker.shared): each
    worker reads the parent's pages instead of drawing 16 MiB of its own."""
    from conformance.generate.memory import random_pool
    from conformance.supervise.pool import Supervisor
    random_pool.cache_clear()
    supervisor = Supervisor("oracle", 1, specs=default_rulebook)
    try:
        supervisor.start()
        assert random_pool.cache_info().currsize == 1
    finally:
        supervisor.close()
