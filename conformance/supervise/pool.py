"""Supervised workers: the backend never runs in the process that holds the results, nor (unless the run
is --in-process) in the process that judges it.

The controlling process (the CLI) starts worker processes; each is a judge: it loads the backend once, in
a process of its own (conformance/backends/host.py, or the exec: program), and runs tasks (one cell: its
frozen or kept cases, then a seeded search with a budget) with `run_cell`, whatever `-n` is, 1 included
(conformance/supervise/worker.py). Before every backend call a worker writes the call in its slot
(conformance/judge/inflight.py); what it reports comes as plain data (conformance/supervise/messages.py).
The supervisor and its workers are not dumpable (conformance/backends/processes.py).
The supervisor watches the workers:

- a worker that dies (a signal, `os._exit`, the kernel's OOM killer) gives the call in flight CRASH with
  the signal or exit status, and that call becomes the cell's reproducer; the calls the worker judged
  before it still count; a worker that died outside any backend call gets its cell once more;
- a worker whose call runs past the time limit (plus a grace for the kit's own work) is killed, with
  every process its backend started: a Python backend stuck inside C code cannot escape the limit;
- a dead worker is replaced, and the run goes on with every other cell.

A worker notices when the supervisor dies (the kernel sends it SIGTERM): it closes its backend (an
exec: program and its process group go with it) and leaves. Workers ignore SIGINT: Ctrl-C is the
supervisor's to handle.
"""
from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import time
from collections import deque
from dataclasses import dataclass
from multiprocessing.connection import wait
from typing import Any, Callable, Iterable

from conformance.backends.contract import BackendLoadError
from conformance.backends import prestart
from conformance.backends.processes import end_descendants, kill_group, out_of_reach, spin_for
from conformance.judge import inflight
from conformance.judge.cell_result import CellResult
from conformance.supervise import messages
from conformance.supervise.crashes import attach_failure, exit_text, in_flight_crash
from conformance.supervise.tasks import DEFAULT_TIMEOUT, Isolation, Replay, Stop, Task
from conformance.supervise.worker import forking, thaw_after_forking, worker_main

GRACE = 2.0                 # seconds past the time limit before a worker stuck in a call is killed
LOAD_TIMEOUT = 60.0         # seconds a worker may take to load the backend
STOP_GRACE = 2.0            # seconds workers get to close their backends at the end or at a stop
TICK = 0.2                  # seconds between two looks at the workers
FIRST_WRITE_WAIT = 1.0      # seconds the first write of a run waits for every worker to have a task
RETRIES = 1                 # a cell whose worker died outside any backend call is run once more


# ------------------------------------------------------------------------------------------ supervisor

@dataclass
class _Worker:
    proc: Any
    conn: Any
    slot: inflight.Slot
    started: float
    ready: bool = False
    task: Task | None = None
    found: dict[str, Any] | None = None
    lost: str | None = None             # why the supervisor killed it, when it did
    handed: float = 0.0                 # when it was given its task
    released: bool = False              # told to leave (release): it is closing its backend
    host: Any = None                    # the backend's program started for it ahead (prestart.Started)


class Supervisor:
    """`workers` processes running `Task`s on the backend `backend_spec`; results come out of `poll()`."""

    def __init__(self, backend_spec: str, workers: int, timeout: float | None = None, db_spec: str | None = None,
                 against: str | None = None, oracle: bool = True, start_method: str | None = None,
                 readings: dict[str, str] | None = None, isolation: Isolation = Isolation(),
                 edition: str | None = None, *, specs: Callable[[], Any]):
        self.backend_spec, self.size = backend_spec, max(1, workers)
        self.specs = specs                          # what gives the run's rulebook, here and in every worker
        self.isolation = isolation
        if isolation.isolated:
            out_of_reach()
        self.readings = dict(readings or {})        # the command line's (--reading, --readings FILE)
        self.edition = edition                      # the pages' edition judged by (--edition; None: the seed pages)
        self.against, self.oracle = against, oracle
        self.timeout = float(timeout) if timeout else DEFAULT_TIMEOUT
        self.db_spec = db_spec
        # fork where the controlling process has one thread (the CLI); forkserver inside a threaded one
        linux = sys.platform.startswith("linux")
        self._ctx = multiprocessing.get_context(start_method or ("fork" if linux else "spawn"))
        self._workers: list[_Worker] = []
        self._queue: deque[Task] = deque()
        self.described: dict[str, str] = {}
        self.restarts, self._load_failures = 0, 0
        self.load_error: str | None = None
        self._thaw: bool | None = None        # unfreeze after forking (_spawn): when nothing was frozen before

    # -------------------------------------------------------------------- lifecycle

    def start(self, stop: Stop | None = None) -> dict[str, str]:
        """Start the workers and wait for one to load the backend: its name and version. A backend that
        cannot be loaded (an import error, a constructor that raises, segfaults or hangs) is a
        BackendLoadError with the first reason."""
        spin_for(self.size)                                                 # (processes.spin)
        for _ in range(self.size):
            self._spawn()
        while not self.described:
            if stop:
                raise KeyboardInterrupt
            self._look(TICK)
            if self.load_error and not any(w.proc.is_alive() for w in self._workers):
                raise BackendLoadError(self.load_error)
        return self.described

    def _spawn(self) -> None:
        slot = inflight.Slot(self._ctx)
        ours, theirs = self._ctx.Pipe()
        proc = self._ctx.Process(target=worker_main, name="ascend-conformance-worker", daemon=True,
                                 args=(theirs, slot, self.backend_spec, self.timeout, self.db_spec, os.getpid(),
                                       self.against, self.oracle, self.readings, self.isolation, self.edition),
                                 kwargs={"specs": self.specs})
        if self._thaw is None:          # asked once: the count walks every frozen object
            self._thaw = thaw_after_forking()
        fork = self._ctx.get_start_method() == "fork"
        host = prestart.hand_over() if fork else None       # a forked worker sees it: it takes it
        try:
            with forking(self._thaw, share=fork):
                proc.start()
        finally:
            prestart.handed_off(host)
        theirs.close()
        self._workers.append(_Worker(proc, ours, slot, time.monotonic(), host=host))

    def release(self) -> None:
        """Tell the idle workers to close their backends and leave, not waiting for them: where nothing is
        left to run, they leave while the caller writes its report, and `close` finds them gone."""
        for w in self._workers:
            if w.task is None and not w.released:
                w.released = True
                try:
                    w.conn.send(None)
                except (OSError, ValueError):
                    pass

    def close(self, stop: Stop | None = None) -> None:
        """Let every worker close its backend and leave (at once when stopping), then kill what is left,
        programs its backend started included."""
        if not stop:
            self.release()
        for w in self._workers:
            if stop or w.task is not None:
                try:
                    w.proc.terminate()
                except (OSError, ValueError):
                    pass
        deadline = time.monotonic() + STOP_GRACE
        for w in self._workers:
            w.proc.join(max(0.0, deadline - time.monotonic()))
        for w in self._workers:
            self._kill(w)
            w.conn.close()
        self._workers.clear()
        prestart.end_all()

    # -------------------------------------------------------------------- tasks

    def submit(self, task: Task, first: bool = False) -> None:
        if first:
            self._queue.appendleft(task)
        else:
            self._queue.append(task)

    @property
    def busy(self) -> int:
        return sum(w.task is not None for w in self._workers)

    @property
    def pending(self) -> int:
        return len(self._queue) + self.busy

    @property
    def waiting(self) -> int:
        """Workers with no task though one is queued: still loading, or told of it at the next look."""
        return sum(w.task is None and w.proc.is_alive() for w in self._workers) if self._queue else 0

    def free(self) -> int:
        """Workers that could take a task now or soon (loaded or loading, none in hand)."""
        return sum(w.task is None for w in self._workers) - len(self._queue)

    def poll(self, wait_for: float = TICK) -> list[dict[str, Any]]:
        """Hand out queued tasks, wait up to `wait_for` seconds for something to happen, and return the
        results of the cells that finished (CellResult dicts), dead workers' cells included."""
        self._hand_out()
        done = self._look(wait_for)
        self._hand_out()
        return done

    def replay(self, replay: Replay, stop: Stop) -> dict[str, Any] | None:
        """One call judged in a worker, as it is: its verdict and message (None if stopped first)."""
        self.submit(replay)
        while not stop:
            for result in self.poll():
                return result
        return None

    def _hand_out(self) -> None:
        for w in self._workers:
            if not self._queue:
                return
            if w.ready and w.task is None and w.proc.is_alive():
                task = self._queue.popleft()
                try:
                    w.conn.send(task)
                except (OSError, ValueError):
                    self._queue.appendleft(task)
                    continue
                w.task, w.found, w.handed = task, None, time.monotonic()

    def _look(self, wait_for: float) -> list[dict[str, Any]]:
        waitables = [w.conn for w in self._workers] + [w.proc.sentinel for w in self._workers]
        if waitables:
            wait(waitables, timeout=wait_for)
        else:
            time.sleep(wait_for)
        done: list[dict[str, Any]] = []
        for w in list(self._workers):
            done += self._messages(w)
            if not w.proc.is_alive():
                done += self._messages(w)           # what it said just before it went
                done += self._lost(w)
            else:
                self._watch(w)
        return done

    def _messages(self, w: _Worker) -> list[dict[str, Any]]:
        """What the worker said since the last look, each message acted on by its type's handler
        (_ON_MESSAGE): the results of the tasks it finished. A worker that sends anything unreadable is killed."""
        done = []
        try:
            while w.conn.poll():
                message_type, body = messages.decode(w.conn.recv_bytes(messages.MAX_BYTES))
                result = self._ON_MESSAGE[message_type](self, w, body)
                if result is not None:
                    done.append(result)
        except EOFError:                # gone
            pass
        except (OSError, messages.Unreadable):  # garbage, or a message past MAX_BYTES: not to be trusted
            if w.proc.is_alive():
                w.lost = w.lost or "sent something unreadable to the kit"
                self._kill(w)
        return done

    # ------------------------------------------ messages: one handler per type (messages.MESSAGE_TYPES)

    def _on_ready(self, w: _Worker, described: dict[str, Any]) -> None:
        """The worker loaded the backend: it takes tasks; the first to load describes the backend."""
        w.ready = True
        self._load_failures = 0
        self.described = self.described or described

    def _on_load_error(self, w: _Worker, reason: str) -> None:
        """The worker could not load the backend: the first reason is the run's."""
        self.load_error = self.load_error or reason

    def _on_found(self, w: _Worker, record: dict[str, Any]) -> None:
        """The worker's cell failed (or diverged): its record, kept should the worker be lost before done."""
        w.found = record

    def _on_done(self, w: _Worker, result: dict[str, Any]) -> dict[str, Any] | None:
        """The worker finished its task: its result, and the worker free (a result for no task is ignored)."""
        if w.task is None:
            return None
        w.task, w.found = None, None
        return result

    _ON_MESSAGE: dict[str, Callable[[Supervisor, _Worker, Any], dict[str, Any] | None]] = {
        "ready": _on_ready, "load_error": _on_load_error, "found": _on_found, "done": _on_done}

    def _watch(self, w: _Worker) -> None:
        """Kill a worker stuck past the time limit: in a backend call, or loading the backend."""
        if not w.ready:
            if time.monotonic() - w.started > LOAD_TIMEOUT:
                self.load_error = self.load_error or (f"backend {self.backend_spec!r}: loading it took more "
                                                      f"than {LOAD_TIMEOUT:g} s")
                w.lost = "loading the backend took too long"
                self._kill(w)
            return
        started = w.slot.started_ns()
        if not started or w.task is None:
            return
        limit = self.timeout * max(1, w.slot.calls_in_flight()) + GRACE
        if (time.monotonic_ns() - started) / 1e9 > limit:
            w.lost = f"no answer within {self.timeout:g} s: the worker running the backend was killed"
            self._kill(w)

    def _kill(self, w: _Worker) -> None:
        """Kill a worker and every process below it (its backend's, double-forked ones included: a worker
        reaps its orphans), those first: killed first, the worker would leave them to init."""
        groups = w.slot.child_groups()
        if w.proc.is_alive():
            end_descendants(w.proc.pid)
            try:
                os.kill(w.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            w.proc.join(5)
        for group in groups:
            kill_group(group)
        prestart.end(w.host)            # the program started for it: reaped only now, its worker gone

    def _lost(self, w: _Worker) -> list[dict[str, Any]]:
        """A worker is gone: its task's result (the call in flight is a CRASH), and a worker in its place."""
        self._kill(w)                   # reap it, and the programs its backend started
        self._workers.remove(w)
        w.conn.close()
        how = w.lost or f"the worker running the backend {exit_text(w.proc.exitcode)}"
        if not w.ready:
            self._load_failures += 1
            if not self.load_error:
                self.load_error = f"backend {self.backend_spec!r}: loading it failed: {how}"
        done = []
        if isinstance(w.task, Replay):
            done.append(self._lost_replay(w, w.task, how))
        elif w.task is not None:
            result = self._lost_cell(w, w.task, how)
            if result is not None:
                done.append(result)
        self.restarts += 1
        if self._load_failures < 3:
            self._spawn()
        elif not any(x.proc.is_alive() for x in self._workers):
            done += self._abandon(f"worker lost: the backend could not be loaded again ({self.load_error})")
        return done

    def _lost_replay(self, w: _Worker, task: Replay, how: str) -> dict[str, Any]:
        """The result of the replayed call a lost worker was on."""
        flight = w.slot.in_flight()
        return task.lost(how if flight is not None else f"{how}, outside the backend call",
                         self.against is not None and flight is not None and flight.which == 1)

    def _lost_cell(self, w: _Worker, task: Task, how: str) -> dict[str, Any] | None:
        """The result of the cell a lost worker was on: the verdicts it counted, and as its failure the call
        in flight (counted too, unless it was a shrinking call) or what it found before; lost outside any
        call, the cell is queued once more (RETRIES), then an error; None while it is queued."""
        flight = w.slot.in_flight()
        counts = w.slot.verdict_counts()
        agreement = {k: counts.pop(k) for k in ("AGREE", "DIVERGE") if k in counts}
        result = CellResult(task.cell.to_dict(), counts=counts, agreement=agreement,
                            seconds=round(time.monotonic() - w.handed, 3))
        if flight is not None and (flight.calls or flight.too_large) and w.found is None:
            against = (self.described.get("against", {}).get("name", "B")
                       if self.against is not None and flight.which == 1 else None)
            record = in_flight_crash(task.cell, flight, how, against, self.described.get("readings"),
                                     rulebook=self.specs())
            if not flight.shrinking:
                tally = result.agreement if against is not None else result.counts
                tally[record["verdict"]] = tally.get(record["verdict"], 0) + 1
            attach_failure(result, record)
        elif w.found is not None:
            attach_failure(result, w.found)
        elif task.tries < RETRIES:
            task.tries += 1
            self.submit(task, first=True)
            return None
        else:
            result.status, result.error = "error", f"worker lost: {how}, outside any backend call"
        return result.to_dict()

    def _abandon(self, why: str) -> list[dict[str, Any]]:
        """No worker can be had any more: every queued cell is an error saying why."""
        out = [CellResult(t.cell.to_dict(), status="error", error=why).to_dict() for t in self._queue]
        self._queue.clear()
        return out


def run_tasks(supervisor: Supervisor, tasks: Iterable[Task], on_result: Callable[[dict[str, Any]], None],
              stop: Stop, tick: Callable[[], None] = lambda: None, begun: Callable[[], None] = lambda: None) -> None:
    """Run every task to its result (on_result per finished cell) unless `stop` is set; `tick` between
    looks (the periodic writes); `begun` once every worker has its first task, or FIRST_WRITE_WAIT seconds
    in where some still load (a report written before would keep the workers that said "ready" late idle)."""
    for task in tasks:
        supervisor.submit(task)
    start, first = time.monotonic(), True
    results = supervisor.poll(0.0)      # the workers loaded already have their tasks: no wait for a result
    while True:
        for result in results:
            on_result(result)
        if first and (not supervisor.waiting or time.monotonic() - start >= FIRST_WRITE_WAIT):
            begun()
            first = False
        if not supervisor.pending or stop:
            return
        tick()
        results = supervisor.poll()     # wakes at a worker's message: "ready" included
