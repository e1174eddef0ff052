"""The worker side of the supervised pool (conformance/supervise/pool.py): the judge. A process that loads
the backend once (in a process of its own, conformance/backends/host.py, unless the run is --in-process),
runs the tasks it is handed with `run_cell`, writes each backend call in its in-flight slot first, tells
the supervisor what it found as plain data (conformance/supervise/messages.py), and leaves with its
backend, and every process the backend started, when the supervisor stops it or dies.

A worker is not dumpable and reaps its orphans (conformance/backends/processes.py): the backend's
processes cannot read it, and none of them outlives it."""
from __future__ import annotations

import contextlib
import ctypes
import gc
import os
import signal
import sys
import time
from typing import Any, Callable, Iterator

from oracle.spec import Rulebook, SpecError

from conformance.backends import prestart
from conformance.backends.contract import BackendLoadError
from conformance.backends.loading import load_backend
from conformance.backends.processes import end_descendants, out_of_reach, reap_orphans
from conformance.backends.declared_readings import Declared, declare
from conformance.judge import inflight, judging
from conformance.judge.cell_result import CellResult
from conformance.judge.runner import run_cell
from conformance.judge.verdicts import Verdict
from conformance.supervise import messages
from conformance.supervise.tasks import Isolation, Replay, Task

_state: dict[str, Any] = {}


def _load(spec: str, timeout: float, isolation: Isolation, rulebook: Rulebook) -> Any:
    try:
        return load_backend(spec, timeout, isolate=isolation.isolated, user=isolation.user, rulebook=rulebook)
    except BackendLoadError:
        raise
    except BaseException as exc:        # noqa: BLE001 - the user's code, whatever it raised
        raise BackendLoadError(f"backend {spec!r}: loading it raised {type(exc).__name__}: {exc}") from None


def _reference(spec: str, edition: str | None, readings: dict[str, str] | None) -> str:
    """The built-in reference follows the run: the readings an edition of the pages settles
    (`oracle@2026`) and those the command line declares (`oracle+AMBIGUITY=READING`)."""
    if spec != "oracle":
        return spec
    return (f"oracle@{edition}" if edition else spec) + "".join(f"+{a}={r}" for a, r in sorted((readings or {}).items()))


def _described(backend: Any, spec: str) -> dict[str, str]:
    return {"name": str(getattr(backend, "name", "") or spec), "spec": spec,
            "version": str(getattr(backend, "version", "") or "")}


def worker_main(conn, slot: inflight.Slot, backend_spec: str, timeout: float, db_spec: str | None,
                 parent: int, against: str | None = None, oracle: bool = True,
                 readings: dict[str, str] | None = None, isolation: Isolation = Isolation(),
                 edition: str | None = None, *, specs: Callable[[], Rulebook]) -> None:
    """Load the backend (and the one it is held against), resolve the run's readings (the backend's,
    overridden by the command line's `readings`, and those the `edition` settles), say "ready" with both,
    then run tasks until told to stop. `specs` gives the run's rulebook, as it gave the supervisor's: a
    module's function of no argument (a worker started by spawn or forkserver gets it by name), called
    once here."""
    prestart.forked()
    _become_worker(parent, isolation)
    inflight.install(slot)
    from conformance.generate.memory import keep_freed_images
    keep_freed_images()
    try:
        rulebook = specs()
        backend = _state["backend"] = _load(_reference(backend_spec, edition, readings), timeout, isolation, rulebook)
        described = _described(backend, backend_spec)
        declared = declare(backend, backend_spec, readings, rulebook=rulebook, edition=edition)
        described.update(declared.described())
        tested = backend
        if against is not None:
            from conformance.judge.agreement import Pair
            other = _load(_reference(against, edition, readings), timeout, isolation, rulebook)
            backend = _state["backend"] = Pair(backend, other, oracle)
            described["against"] = _described(other, against)
    except (BackendLoadError, SpecError) as exc:      # SpecError: the specs `specs` loads
        _tell(conn, "load_error", str(exc))
        _close_backend()
        return
    finally:
        prestart.drop_handed()          # the program started for this worker, where its backend did not take it
    settle_collector()
    _tell(conn, "ready", described)
    from conformance.judge.failuredb import open_database
    db = open_database(db_spec) if db_spec is not None else None
    try:
        while True:
            try:
                task = conn.recv()
            except (EOFError, OSError):
                break
            if task is None:
                break
            slot.reset()
            _tell(conn, "done", _run_task(task, backend, db, timeout, conn, rulebook, declared,
                                          lambda recorded: declare(tested, backend_spec, readings, rulebook=rulebook,
                                                                   recorded=recorded, edition=edition)))
    finally:
        _close_backend()


def shared() -> None:
    """What every worker would make alike, made once in the supervisor's process before it forks them: the
    random pool the memory images are cut from (16 MiB, numpy.random imported to draw it). The
    workers share its pages (copy on write, and nothing writes them) instead of each faulting in its own:
    240 MiB less at 16 workers, and no worker's first cell waits for it."""
    from conformance.generate.memory import pool_made, random_pool
    pool_made()                 # where the command started it ahead (conformance/commands/launch.py)
    random_pool()


FROZEN_FOR_LIFE = False     # set by an entry point that froze its imports for the process's life (cli.command)


def thaw_after_forking() -> bool:
    """Are the objects frozen while forking workers to be unfrozen after? Not in a process that froze its
    own for good: the CLI says so (FROZEN_FOR_LIFE), any other process by what it holds frozen."""
    return not (FROZEN_FOR_LIFE or gc.get_freeze_count())


@contextlib.contextmanager
def forking(thaw: bool, share: bool = True) -> Iterator[None]:
    """While workers are forked: what they share made once here (`share`: shared(), inherited by
    every one forked), and this process's objects frozen, so that a worker's first collection
    (settle_collector) walks only what it makes itself; unfrozen after where `thaw`, so that this process
    collects its own objects again."""
    if share:
        shared()
    if thaw:
        gc.freeze()
    try:
        yield
    finally:
        if thaw:
            gc.unfreeze()


def settle_collector() -> None:
    """What the worker holds once loaded (the kit, its specs, the backend) is kept for good, and young
    objects are collected every 10,000 allocations rather than Python's 700: a call allocates thousands,
    and each collection walked everything loaded (benchmarks/bench.py (i) measures it).
    Garbage in cycles is still collected, a little later."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 10, 10)


def _run_task(task: Task | Replay, backend: Any, db: Any, timeout: float, conn, rulebook: Rulebook,
              declared: Declared, replayed: Callable[[dict[str, str]], Declared]) -> dict[str, Any]:
    """A cell searched (judged by the run's `rulebook` with its readings), or a reproducer's call judged by
    the readings it recorded, the command line's over them (`replayed`)."""
    from conformance.judge.failuredb import as_cases
    if isinstance(task, Replay):
        (case,) = as_cases([{"call": task.call, "memory": task.memory, "expect": None, "rule": None}])
        try:
            rulebook = replayed(task.readings).rulebook if task.readings else declared.rulebook
        except BackendLoadError as exc:
            return {"verdict": Verdict.UNJUDGED.value, "message": str(exc)}
        outcome = judging.judge_case(case, backend, rulebook)
        agreed = getattr(outcome, "agreement", None)
        return {"verdict": outcome.verdict.value, "message": outcome.message,
                **({"agreement": agreed.verdict, "agreement_message": agreed.message} if agreed else {})}
    cases = list(as_cases(task.kept)) if task.kept else []
    try:
        if task.frozen:             # a cell's frozen cases are made as it is first run (FrozenDataError: an error)
            from conformance.generate.frozen import load_frozen
            from conformance.generate.challenge import from_pool
            cases = from_pool(load_frozen().get(task.cell.id, ()), task.pool) + cases
        # the edge sweep is the same on every run: judged once per cell, in its first part
        result = run_cell(task.cell, backend, task.profile, task.seed, cases, db, None if task.part == 0 else False,
                          hang_after=timeout, rulebook=rulebook, readings=declared.readings, pool=task.pool,
                          on_found=lambda failure: _tell(conn, "found", failure))
    except BaseException as exc:        # noqa: BLE001 - a backend's BaseException must not end the worker
        result = CellResult(task.cell.to_dict(), status="error", error=f"{type(exc).__name__}: {exc}")
    out = result.to_dict()
    if out.get("evidence") is not None:
        out["evidence"]["part"] = task.part
    return out


def _tell(conn, message_type: str, body: Any) -> None:
    conn.send_bytes(messages.encode(message_type, body))


def _close_backend() -> None:
    """Close the backend (an out-of-process one says bye to its program), then end every process left
    below this one: a backend's double-forked children were re-parented here (reap_orphans)."""
    backend = _state.pop("backend", None)
    close = getattr(backend, "close", None)
    if callable(close):
        try:
            close()
        except BaseException:           # noqa: BLE001 - leaving anyway
            pass
    if _state.get("reaps"):
        end_descendants()


def _become_worker(parent: int, isolation: Isolation) -> None:
    """Out of the backend's reach (isolated runs), the subreaper of what it starts; Ctrl-C is the
    supervisor's; SIGTERM/SIGHUP (the supervisor stopping us, or dying: PDEATHSIG) close the backend and
    leave at once."""
    if isolation.isolated:
        out_of_reach()
    _state["reaps"] = reap_orphans()
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def leave(signum, frame):
        _close_backend()
        os._exit(128 + signum)
    signal.signal(signal.SIGTERM, leave)
    signal.signal(signal.SIGHUP, leave)
    die_with_parent()
    if not _alive(parent):              # it died before we asked to be told
        leave(signal.SIGTERM, None)
    if os.getppid() != parent:          # started by a fork server: PDEATHSIG watches that one, so look too
        import threading

        def watch() -> None:
            while _alive(parent):
                time.sleep(1.0)
            os.kill(os.getpid(), signal.SIGTERM)
        threading.Thread(target=watch, name="supervisor-watch", daemon=True).start()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def die_with_parent() -> None:
    """The kernel sends this process SIGTERM when its parent dies (a worker outlives no supervisor)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)        # the C library the process has loaded (no search)
        libc.prctl(1, signal.SIGTERM, 0, 0, 0)          # PR_SET_PDEATHSIG
    except (OSError, AttributeError):   # pragma: no cover
        pass
