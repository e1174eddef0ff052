"""Past one machine: the tasks of a run or a fuzz go to a Dask distributed scheduler (`--cluster ADDRESS`).

The cluster is Dask's own (`dask scheduler` / `dask worker`, or Dask's deployers for Kubernetes and
SLURM); this module only gives it tasks. On each Dask worker thread, a task runs the cell in a local
supervised worker process (conformance/supervise/pool.py) that loads the backend once and is kept for the next
task, so crashes, hangs and time limits are handled exactly as with `-n`, and a backend that takes a
Dask worker down with it cannot (the Dask worker only waits). Failures persist in the database given
with `--db` (Redis, to share it across machines).

Dask workers must be allowed children: start them with DASK_DISTRIBUTED__WORKER__DAEMON=False.
"""
from __future__ import annotations

import threading
import time
from typing import Any, Callable

from oracle.spec import Rulebook

from conformance.supervise import messages
from conformance.supervise.pool import TICK, Supervisor
from conformance.supervise.tasks import Isolation, Stop, Task

CONNECT_SECONDS = 15       # a scheduler that is up answers at once; past this one is not reachable
_local = threading.local()          # on a Dask worker thread: its own supervisor, kept between tasks


class ClusterError(Exception):
    """The cluster cannot be used; the message says why (one line)."""


def _supervisor(config: dict[str, Any]) -> Supervisor:
    key = tuple(sorted(config.items()))
    held = getattr(_local, "held", None)
    if held is not None and held[0] == key:
        return held[1]
    if held is not None:
        held[1].close()
    import multiprocessing
    if multiprocessing.current_process().daemon:
        raise ClusterError("this Dask worker is a daemon process and may not start the kit's worker: start "
                           "Dask workers with DASK_DISTRIBUTED__WORKER__DAEMON=False")
    supervisor = Supervisor(config["backend"], 1, config["timeout"], config["db"], config["against"],
                            config["oracle"], start_method="forkserver", readings=dict(config["readings"]),
                            isolation=Isolation(config["isolated"], config["user"]), edition=config["edition"],
                            specs=config["specs"])
    supervisor.start()
    _local.held = (key, supervisor)
    return supervisor


def _on_cluster(config: dict[str, Any], task: Task | None) -> bytes:
    """Runs on a Dask worker: the task's result (or, for None, what the backend says it is), as a worker's
    message (plain data: the client reads it with messages.decode, never as a pickle of its own)."""
    supervisor = _supervisor(config)
    if task is None:
        return messages.encode("ready", supervisor.described)
    supervisor.submit(task)
    while True:
        for result in supervisor.poll(TICK):
            return messages.encode("done", result)


def _answer(raw: Any, message_type: str) -> dict[str, Any]:
    """The body of a message of `message_type` from the cluster; Unreadable for anything else."""
    if not isinstance(raw, bytes):
        raise messages.Unreadable(f"a {type(raw).__name__} instead of a message")
    said, body = messages.decode(raw)
    if said != message_type:
        raise messages.Unreadable(f"a {said!r} message instead of {message_type!r}")
    return body


class ClusterSupervisor:
    """The Supervisor's interface (start, submit, poll, free, pending, close, described) over a Dask
    client: one future per task."""

    def __init__(self, address: str, backend_spec: str, timeout: float | None = None, db_spec: str | None = None,
                 against: str | None = None, oracle: bool = True, readings: dict[str, str] | None = None,
                 isolation: Isolation = Isolation(), edition: str | None = None, *,
                 specs: Callable[[], Rulebook]):
        self.address = address
        self.isolation = isolation
        # readings: the command line's, as sorted pairs (the config is a key of the supervisors kept);
        # specs: what gives the run's rulebook (a module's function, which Dask sends by name)
        self.config = {"backend": backend_spec, "timeout": timeout, "db": db_spec, "against": against,
                       "oracle": oracle, "readings": tuple(sorted((readings or {}).items())),
                       "isolated": isolation.isolated, "user": isolation.user, "edition": edition,
                       "specs": specs}
        self.client: Any = None
        self.described: dict[str, Any] = {}
        self._futures: dict[Any, Task] = {}
        self._queue: list[Task] = []

    def start(self, stop: Stop | None = None) -> dict[str, Any]:
        try:
            from distributed import Client
        except ImportError:
            raise ClusterError("--cluster needs Dask: pip install 'ascend-conformance[dask]'") from None
        try:
            self.client = Client(self.address, timeout=CONNECT_SECONDS, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as exc:
            raise ClusterError(f"--cluster {self.address}: cannot reach the scheduler: {exc}") from None
        if not self.client.scheduler_info().get("workers"):
            self.client.wait_for_workers(1, timeout=60)
        future = self.client.submit(_on_cluster, self.config, None, pure=False)
        try:
            self.described = _answer(future.result(), "ready")
        except Exception as exc:        # noqa: BLE001 - the backend's load error, or the cluster's
            from conformance.backends.contract import BackendLoadError
            raise BackendLoadError(f"on the cluster: {exc}") from None
        return self.described

    @property
    def slots(self) -> int:
        return max(1, sum(self.client.nthreads().values())) if self.client is not None else 1

    def submit(self, task: Task, first: bool = False) -> None:
        if first:
            self._queue.insert(0, task)
        else:
            self._queue.append(task)

    @property
    def pending(self) -> int:
        return len(self._queue) + len(self._futures)

    @property
    def waiting(self) -> int:
        """0: no worker waits on this side; the scheduler has every task once it is submitted (poll), and
        queueing is Dask's."""
        return 0

    def free(self) -> int:
        return 2 * self.slots - self.pending

    def poll(self, wait_for: float = TICK) -> list[dict[str, Any]]:
        while self._queue and len(self._futures) < 2 * self.slots:
            task = self._queue.pop(0)
            self._futures[self.client.submit(_on_cluster, self.config, task, pure=False)] = task
        deadline = time.monotonic() + wait_for
        done = [f for f in self._futures if f.done()]
        while not done and time.monotonic() < deadline:
            time.sleep(0.02)
            done = [f for f in self._futures if f.done()]
        out = []
        for future in done:
            task = self._futures.pop(future)
            try:
                out.append(_answer(future.result(), "done"))
            except Exception as exc:    # noqa: BLE001 - the cluster lost the task: an error for its cell
                from conformance.judge.cell_result import CellResult
                out.append(CellResult(task.cell.to_dict(), status="error",
                                      error=f"worker lost: the cluster task failed: {type(exc).__name__}: {exc}"
                                      ).to_dict())
        return out

    def release(self) -> None:
        """Nothing to let go before the report is written: the cluster's workers are the scheduler's, and
        `close` only leaves it."""

    def close(self, stop: Stop | None = None) -> None:
        if self.client is not None:
            if self._futures:
                self.client.cancel(list(self._futures))
            self._futures.clear()
            self.client.close()
            self.client = None
