"""`verify -n N`: the tasks of a bundle's derivation (conformance/commands/verify_derive.py) judged on N
processes, the results handed back in task order, so that what verify derives, keeps and says is the same
whatever N is.

Each task is independent of the others (its evidence, its cases, its seed), and no backend code runs
while deriving (the recorded answers are data, answered by the kit's own Recorded backend), so the
workers are plain processes forked where the tasks are known: they inherit the tasks, nothing is
pickled on the way in, and only a task's outcome comes back. They write nothing, ignore Ctrl-C (the
parent's to handle: it then kills them) and die with the parent. The largest tasks are handed out first,
one at a time, so that no core waits on a long one at the end. Where a task raises, the first exception in
task order is the one raised here, as one process would have raised it; a worker that dies is one
UsageError naming the task it held.
"""
from __future__ import annotations

import os
import pickle
import signal
from collections import deque
from typing import Any, Callable, Sequence, TypeVar

from conformance.commands.options import UsageError

Job = TypeVar("Job")


def judged(jobs: Sequence[Job], judge: Callable[[Job], Any], workers: int, cost: Callable[[Job], int],
           name: Callable[[Job], str]) -> list[Any]:
    """[judge(job) for job in jobs], on up to `workers` processes (none below 2): the first exception
    in the order of `jobs` is raised. `cost` orders the jobs handed out, largest first; `name` says which
    job a worker that died held."""
    if workers < 2 or len(jobs) < 2:
        return [judge(job) for job in jobs]
    order = sorted(range(len(jobs)), key=lambda i: -cost(jobs[i]))
    crew = _Crew()
    try:
        crew.start(jobs, judge, min(workers, len(jobs)))
        return crew.collect(deque(order), lambda i: name(jobs[i]))
    finally:
        crew.end()


class _Crew:
    """The forked workers, each with a pipe: an index in, (index, raised, value) out."""

    def __init__(self) -> None:
        self.ends: list[Any] = []
        self.procs: list[Any] = []

    def start(self, jobs: Sequence[Any], judge: Callable[[Any], Any], workers: int) -> None:
        import multiprocessing

        from conformance.supervise.worker import forking, thaw_after_forking
        ctx = multiprocessing.get_context("fork")
        # Ctrl-C held while forking: a worker ignores it before it can see it, this process sees it after
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            with forking(thaw_after_forking()):
                for _ in range(workers):
                    ours, theirs = ctx.Pipe()
                    self.ends.append(ours)
                    proc = ctx.Process(target=_serve, args=(theirs, self.ends, jobs, judge), daemon=True,
                                       name="ascend-conformance-verify")
                    proc.start()
                    theirs.close()
                    self.procs.append(proc)
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})

    def collect(self, order: deque[int], name: Callable[[int], str]) -> list[Any]:
        from multiprocessing.connection import wait
        outcomes: dict[int, tuple[bool, Any]] = {}
        held: dict[int, int] = {}                   # worker -> the job it holds
        results: list[Any] = []
        for worker in range(len(self.procs)):
            self._hand(worker, order, held, name)
        while True:
            while len(results) in outcomes:
                raised, value = outcomes.pop(len(results))
                if raised:
                    raise value
                results.append(value)
            if not held:
                return results
            busy = {self.ends[w]: w for w in held} | {self.procs[w].sentinel: w for w in held}
            for ready in wait(list(busy)):
                worker = busy[ready]
                if worker not in held:
                    continue
                try:
                    index, raised, value = self.ends[worker].recv()
                except (EOFError, OSError):
                    self.procs[worker].join(1.0)
                    raise UsageError(self._lost(worker, name(held[worker]))) from None
                outcomes[index] = raised, value
                del held[worker]
                self._hand(worker, order, held, name)

    def _hand(self, worker: int, order: deque[int], held: dict[int, int], name: Callable[[int], str]) -> None:
        if order:
            held[worker] = order.popleft()
            try:
                self.ends[worker].send(held[worker])
            except OSError:                         # it died between two jobs
                self.procs[worker].join(1.0)
                raise UsageError(self._lost(worker, name(held[worker]))) from None

    def _lost(self, worker: int, job: str) -> str:
        from conformance.supervise.crashes import exit_text
        return (f"verify -n: the worker process judging {job} again {exit_text(self.procs[worker].exitcode)}: "
                "nothing is derived from a lost worker (verify again, or with -n 1)")

    def end(self) -> None:
        """Every worker killed and reaped, whatever it was doing."""
        for proc in self.procs:
            if proc.is_alive():
                proc.kill()
        for proc in self.procs:
            proc.join()
        for end in self.ends:
            end.close()


def _serve(conn: Any, ends: list[Any], jobs: Sequence[Any], judge: Callable[[Any], Any]) -> None:
    """A worker: jobs judged by index until the pipe closes; leaves without the interpreter's exit (no
    buffered output of the parent's written twice, no handler of the parent's run)."""
    from conformance.supervise.worker import die_with_parent, settle_collector
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        die_with_parent()
        for end in ends:                            # the parent's ends inherited: its death closes the pipe
            end.close()
        settle_collector()
        while True:
            _answer(conn, conn.recv(), jobs, judge)
    except (EOFError, OSError):
        pass
    finally:
        os._exit(0)


def _answer(conn: Any, index: int, jobs: Sequence[Any], judge: Callable[[Any], Any]) -> None:
    """(index, raised, value) sent back: the job's outcome, or what it raised (an outcome that cannot
    cross the pipe is what is raised then: pickling comes before any byte is sent)."""
    try:
        out = (index, False, judge(jobs[index]))
    except BaseException as exc:                    # noqa: BLE001 - raised where one process would raise it
        out = (index, True, _portable(exc))
    try:
        conn.send(out)
    except OSError:
        raise
    except Exception as exc:                        # noqa: BLE001 - the outcome did not pickle
        conn.send((index, True, _portable(exc)))


def _portable(exc: BaseException) -> BaseException:
    """`exc` as it can cross the pipe: itself where it pickles and unpickles, else a RuntimeError saying it;
    with where the worker raised it as a note (a traceback printed in the parent shows it)."""
    import traceback
    exc.add_note("raised in a verify worker:\n" + "".join(traceback.format_tb(exc.__traceback__)).rstrip())
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:                               # noqa: BLE001 - any exception class a task can raise
        return RuntimeError(f"{type(exc).__name__}: {exc}")
