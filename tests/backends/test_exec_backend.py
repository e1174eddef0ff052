"""Out-of-process backends (conformance/backends/exec_program.py, docs/exec-protocol.md): the reference served
over the protocol conforms; a program that reports errors, exits, segfaults, prints garbage, answers
the wrong request or hangs gets CRASH for that call, is restarted, and the run goes on; handshake
problems are one clear load error; in-process backends that exit or hang are caught too."""
from __future__ import annotations

import os
import signal
import shlex
import subprocess
import sys
import time
import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from conformance import BackendLoadError, OracleBackend, load_backend
from conformance.backends.exec_program import ExecBackend
from conformance.judge import batches, runner
from conformance.judge.runner import run_cells
from oracle.spec import default_rulebook

from catching import CI, QUICK, select_cells

from kit_path import HELPERS
ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = Path(__file__).resolve().parents[1] / "exec_programs"
PY = shlex.quote(sys.executable)
SERVE = f"{PY} -m conformance serve"
BOOK = default_rulebook()
INT32, FLOAT16 = "data_move/ascend910b/legal/int32", "data_move/ascend910b/legal/float16"


@pytest.fixture(autouse=True)
def _importable(monkeypatch):
    """The programs import the kit from this checkout."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(HELPERS), str(PROGRAMS)]))


def test_served_reference_conforms_on_every_api():
    backend = load_backend(f"exec:{SERVE} oracle")
    try:
        assert backend.name == "oracle" and backend.supports("scatter", "ascend310b")
        patterns = ["data_move/ascend910b/legal/float16", "data_move/ascend910b/reject/data_move.nburst.range",
                    "vec_trans_scatter/ascend910b/legal/int16", "asc_gather/ascend910b/legal/count/float32",
                    "data_copy_nz2nd/ascend910b/legal/float16", "scatter/ascend310b/legal/mask_bits/int16",
                    "data_move/ascend910b/undefined/data_move.overlap"]
        results = run_cells(select_cells(patterns), backend, QUICK, 5, BOOK)
        assert len(results) == len(patterns)
        for r in results:
            assert r.failure is None and r.status == "ran", (r.id, r.failure, r.error)
            assert set(r.counts) <= {"PASS", "UNDEFINED"} and sum(r.counts.values()) == QUICK.calls, r.counts
        assert backend.restarts == 0
    finally:
        backend.close()


@pytest.mark.parametrize("mode, message, restarts", [
    ("error", "the backend reported an error: RuntimeError: simulated device error", False),
    ("exit", "the backend program exited with status 3; its stderr ended with: giving up on this one", True),
    ("segfault", "the backend program killed by SIGSEGV", True),
    ("garbage", "protocol error: the program printed b'Segmentation fault (core dumped)'", True),
    ("wrong-id", "protocol error: a reply with id -1", True),
    ("hang", "no answer to run request", True),
])
def test_misbehaviour_is_a_crash_and_the_run_goes_on(monkeypatch, mode, message, restarts):
    monkeypatch.setattr(runner, "SHRINK_SECONDS", 4.0)
    backend = ExecBackend(f"{PY} {PROGRAMS / 'misbehave.py'} {mode} int32", timeout=0.5)
    try:
        crashed, clean = sorted(run_cells(select_cells([INT32, FLOAT16]), backend, QUICK, 2, BOOK),
                                key=lambda r: r.id != INT32)
    finally:
        backend.close()
    assert crashed.id == INT32 and crashed.failure is not None, crashed.counts
    assert crashed.failure["verdict"] == "CRASH" and message in crashed.failure["message"], crashed.failure["message"]
    assert crashed.counts["CRASH"] == 1 and crashed.status == "ran"
    assert crashed.failure["call"]["args"]["nburst"] > 1             # a call that misbehaves: it replays
    # the next cell runs to the end on the same backend: restarted where the process was lost
    assert clean.id == FLOAT16 and clean.failure is None and clean.counts == {"PASS": QUICK.calls}
    assert (backend.restarts > 0) == restarts


def test_prints_of_a_served_backend_stay_off_the_protocol():
    backend = ExecBackend(f"{PY} {PROGRAMS / 'misbehave.py'} noise int32")
    try:
        (result,) = run_cells(select_cells([INT32]), backend, QUICK, 2, BOOK)
    finally:
        backend.close()
    assert result.failure is None and result.counts == {"PASS": QUICK.calls}


@pytest.mark.parametrize("program, message", [
    ("/nonexistent/sim", "cannot start '/nonexistent/sim'"),
    (f"{PY} -c pass", "the backend program exited with status 0"),
    (f"{PY} -c \"print('ready')\"", "protocol error: the program printed b'ready' instead of a reply to hello"),
    (f"{PY} -c \"print('{{\\\"op\\\": \\\"hello\\\", \\\"protocol\\\": 2}}')\"", "expected a hello of protocol 1"),
    (f"{PY} -c \"print('{{\\\"op\\\": \\\"error\\\", \\\"message\\\": \\\"no licence\\\"}}')\"",
     "refused the handshake: no licence"),
    (f"{PY} -c \"print('{{\\\"op\\\": \\\"hello\\\", \\\"protocol\\\": 1, \\\"name\\\": \\\"x\\\", "
     f"\\\"supports\\\": {{}}, \\\"readings\\\": [1]}}')\"",
     "its hello's 'readings' must map ambiguity ids to reading ids"),
])
def test_handshake_problems_are_load_errors(program, message):
    with pytest.raises(BackendLoadError, match="backend 'exec:") as err:
        load_backend(f"exec:{program}")
    assert message in str(err.value)


def test_trace_records_both_directions(tmp_path, monkeypatch):
    trace = tmp_path / "trace.txt"
    monkeypatch.setenv("ASCEND_CONFORMANCE_TRACE", str(trace))
    backend = load_backend(f"exec:{SERVE} oracle")
    run_cells(select_cells([FLOAT16]), backend, QUICK, 1, BOOK)
    backend.close()
    lines = trace.read_text().splitlines()
    assert lines[0].startswith('> {"op":"hello","protocol":1') and lines[1].startswith('< {"op":"hello"')
    assert sum(line.startswith('> {"op":"run"') for line in lines) == QUICK.calls
    assert json.loads(lines[3][2:]) == {"op": "ok", "id": 1}


def test_a_run_request_is_written_as_request_line_writes_it():
    from conformance.backends.exec_messages import RawJson, request_line, run_line
    call = '{"api": "data_move", "args": {"n": [1, 2]}}'
    memory = '{"file":"/proc/self/fd/3","size":1048576,"scopes":{"UB":{"offset":0,"size":64}}}'
    for ident in (1, 17, 10**17):
        said = request_line({"op": "run", "id": ident, "call": RawJson(call), "memory": RawJson(memory)})
        assert run_line(ident, call, memory) == said
        assert json.loads(said) == {"op": "run", "id": ident, "call": json.loads(call), "memory": json.loads(memory)}


class _Exits(OracleBackend):
    name = "exits"

    def run(self, call, memory):
        sys.exit(1)


class _Spins(OracleBackend):
    name = "spins"

    def run(self, call, memory):
        while True:
            pass


def test_in_process_exit_and_hang_are_crashes(monkeypatch):
    monkeypatch.setattr(runner, "SHRINK_SECONDS", 2.0)
    (exited,) = run_cells(select_cells([FLOAT16]), _Exits(), QUICK, 1, BOOK)
    assert exited.failure["verdict"] == "CRASH" and "SystemExit" in exited.failure["message"]
    started = time.monotonic()
    spins = load_backend("tests.backends.test_exec_backend:_Spins", timeout=0.2)
    (hung,) = run_cells(select_cells([FLOAT16]), spins, QUICK, 1, BOOK)
    assert hung.failure["verdict"] == "CRASH" and "no answer within 0.2 s" in hung.failure["message"]
    assert time.monotonic() - started < 30                     # shrinking stopped by its time budget


def test_ctrl_c_keeps_the_results_gathered(tmp_path):
    """SIGINT in the middle of a run: exit 130, and results.json / the HTML say INCOMPLETE with the cells
    that finished."""
    env = {**os.environ, "PYTHONPATH": str(HELPERS)}
    proc = subprocess.Popen([sys.executable, "-m", "conformance", "run", "--backend", "oracle", "--product",
                             "ascend910b", "--api", "data_move", "--profile", "ci", "--seed", "1",
                             "--report", "out", "-v"], cwd=tmp_path, env=env, stdout=subprocess.PIPE, text=True)
    finished = 0
    for line in proc.stdout:
        finished += line.startswith("  ok ")
        if finished == 2:
            break
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 130, out
    assert "interrupted: the results above are those gathered before the interruption" in out
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["interrupted"] is True and results["verdict"] == "INCOMPLETE"
    assert len(results["cells"]) >= 2 and len(results["planned"]) > len(results["cells"])
    assert ">INCOMPLETE<" in (tmp_path / "out" / "report-ascend910b.html").read_text(encoding="utf-8")


class _Batched(OracleBackend):
    """The reference with a run_batch: records the batch sizes it was handed."""

    name = "batched"

    def __init__(self, bug: bool = False):
        self.sizes: list[int] = []
        self.held: list[list[int]] = []         # per batch, each call's image bytes
        self.bug = bug

    def run_batch(self, calls, memories):
        self.sizes.append(len(calls))
        self.held.append([sum(image.nbytes for image in memory.values()) for memory in memories])
        out = []
        for call, memory in zip(calls, memories):
            try:
                self.run(call, memory)
                out.append(None)
            except Exception as exc:                # noqa: BLE001
                out.append(exc)
        return out

    def run(self, call, memory):
        if self.bug and call.args["nburst"] > 1:        # one burst too few
            call = call.replace(nburst=call.args["nburst"] - 1)
        super().run(call, memory)


def test_run_batch_is_used_when_present():
    backend = _Batched()
    results = run_cells(select_cells([FLOAT16, "data_move/ascend910b/reject/data_move.nburst.range"]), backend,
                        CI, 3, BOOK)
    assert all(r.failure is None and sum(r.counts.values()) == 120 + r.sweep_calls for r in results)
    # each cell: its edge sweep in batches, then the 120 searched calls in batches, within both limits;
    # some batch of these large calls ends where the next call's bytes would not fit
    assert sum(backend.sizes) == sum(120 + r.sweep_calls for r in results)
    assert all(len(held) <= batches.BATCH and (len(held) == 1 or sum(held) <= batches.BATCH_BYTES)
               for held in backend.held)
    assert any(len(held) < batches.BATCH and sum(held) + after[0] > batches.BATCH_BYTES
               for held, after in zip(backend.held, backend.held[1:]))
    buggy = _Batched(bug=True)
    (caught,) = run_cells(select_cells([FLOAT16]), buggy, CI, 3, BOOK)
    assert caught.failure["verdict"] == "FAIL" and caught.failure["call"]["args"]["nburst"] == 2   # minimised
    assert buggy.sizes[0] > 1 and sum(caught.counts.values()) <= sum(buggy.sizes)


def _sized(*sizes: int) -> list[SimpleNamespace]:
    return [SimpleNamespace(memory=SimpleNamespace(sizes={"GM": n})) for n in sizes]


@pytest.mark.parametrize("sizes, expected", [
    ([1] * 70, [32, 32, 6]),                                # small calls: BATCH at a time
    ([3 << 20] * 7, [2, 2, 2, 1]),                          # large ones: as many as BATCH_BYTES holds
    ([1, 9 << 20, 1, 1], [1, 1, 2]),                        # one larger than BATCH_BYTES goes alone
    ([4 << 20, 4 << 20, 1], [2, 1]),                        # exactly BATCH_BYTES fits
    ([], []),
])
def test_batches_are_as_full_as_both_limits_let_them_be(sizes, expected):
    cases = _sized(*sizes)
    chunks = list(batches.batched(cases))
    assert [len(c) for c in chunks] == expected
    assert [case for chunk in chunks for case in chunk] == cases        # every case once, in order


def test_batches_over_the_protocol():
    backend = load_backend(f"exec:{SERVE} oracle --batch")
    try:
        assert backend.batch
        results = run_cells(select_cells([FLOAT16, "scatter/ascend310b/legal/count/int32"]), backend, QUICK, 4, BOOK)
    finally:
        backend.close()
    assert all(r.failure is None and r.counts == {"PASS": QUICK.calls} for r in results), [r.counts for r in results]


@pytest.mark.parametrize("populated_most", [64 << 20, 1 << 20])
def test_the_kit_and_the_program_see_each_others_bytes_as_the_shared_file_grows(monkeypatch, populated_most):
    """The shared file is mapped with its pages entered at once up to POPULATED_MOST, and faulted in past it:
    either way, what one side writes the other reads, before and after the file grows past that size."""
    from conformance.backends import shared_images
    from conformance.backends.serve import _Mapping
    monkeypatch.setattr(shared_images, "POPULATED_MOST", populated_most)
    shm, program = shared_images.SharedImages(), _Mapping()
    try:
        for size in (4096, 3 << 20):
            (places,) = shm.layout([{"UB": size, "GM": size}])
            kit_side = shm.views(places)
            program_side = program.images(shm.describe(places))
            kit_side["UB"][:] = np.arange(size, dtype=np.uint64).astype(np.uint8)
            program_side["GM"][-7:] = 7
            assert program_side["UB"].tobytes() == kit_side["UB"].tobytes()
            assert kit_side["GM"][-8:].tolist() == [0] + [7] * 7
            del kit_side, program_side          # (a file mapped again may have no view of the last map alive)
        assert shm.size >= 6 << 20
    finally:
        program.buffer = None
        shm.close()
