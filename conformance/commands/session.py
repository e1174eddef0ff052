"""A run from its first write to its last: what `run`, `certify` and `fuzz` share.

- the report folder is locked for the run (conformance/commands/lock.py): a second run on it is refused;
- the backend runs only in supervised workers (conformance/supervise/pool.py), in a process of its own
  unless the run is --in-process; the final write comes after every process of the backend has ended;
- results are written at the start, once every worker has its first task (so the previous run's files
  never pass for this one), every WRITE_EVERY seconds while the run goes on (marked `running`: INCOMPLETE
  if the run is killed), and at the end; every file atomically (conformance/report/outputs.py);
- SIGINT, SIGTERM and SIGHUP stop the run within a few seconds, whatever it is doing: the workers are
  stopped, the results gathered so far are written (INCOMPLETE, `stopped` naming the signal) and the exit
  status is 130, 143 or 129.
"""
from __future__ import annotations

import contextlib
import datetime as dt
import gc
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence, TextIO

from oracle.spec import Rulebook

from conformance.backends.declared_readings import edition_described
from conformance.commands.lock import FolderLock
from conformance.report.results import results_document
from conformance.supervise.pool import Supervisor, run_tasks
from conformance.supervise.tasks import Isolation, Stop, Task

WRITE_EVERY = 30.0          # seconds between two writes of the report folder during a run


class Session:
    """with Session(folder, backend_spec, workers, timeout, specs=...) as s: s.run(...) -> the final results.
    `shown`: the folder the reports name (and the lock is held on) where `folder` is a private one.
    `specs` gives the run's rulebook (a module's function of no argument, oracle.spec.default_rulebook):
    called here once, and once in every worker (conformance/supervise/worker.py)."""

    def __init__(self, folder: Path | str, backend_spec: str, workers: int, timeout: float | None,
                 db_spec: str | None = None, out: TextIO | None = None, against: str | None = None,
                 oracle: bool = True, cluster: str | None = None, readings: dict[str, str] | None = None,
                 isolation: Isolation = Isolation(), edition: str | None = None, verbosity: int = 0, *,
                 specs: Callable[[], Rulebook], coverage: bool = False, shown: Path | None = None):
        from conformance.commands.terminal import Terminal
        self.folder, self.backend_spec, self.out = Path(folder), backend_spec, out or sys.stdout
        self.rulebook = specs()
        self.terminal = Terminal(verbosity, self.out)
        self.edition = edition
        self.stop = Stop()
        self.shown = shown      # the folder the reports name, where `folder` is a private one moved there
        self.lock = FolderLock(shown or self.folder)
        self.isolation = isolation
        if cluster:
            from conformance.supervise.cluster import ClusterSupervisor
            self.supervisor: Any = ClusterSupervisor(cluster, backend_spec, timeout, db_spec, against, oracle,
                                                     readings=readings, isolation=isolation, edition=edition,
                                                     specs=specs)
        else:
            self.supervisor = Supervisor(backend_spec, workers, timeout, db_spec, against, oracle,
                                         readings=readings, isolation=isolation, edition=edition, specs=specs)
        self.oracle = oracle
        self._restore: Callable[[], Any] | None = None
        self.backend: dict[str, str] = {}
        self.against: dict[str, str] | None = None
        # the run's readings, as the workers resolved them (the backend's, the command line's over them)
        self.readings: dict[str, dict[str, str]] = {}
        # (cell id, part) -> what the backend answered to every call judged there (conformance/judge/evidence.py)
        self.evidence: dict[tuple[str, int], dict[str, Any]] = {}
        # under --coverage, the backend's coverage over the run (conformance/report/coverage_run.py)
        self.coverage: Any = None
        if coverage:
            from conformance.report.coverage_run import CoverageRun
            self.coverage = CoverageRun()

    def __enter__(self) -> "Session":
        self.lock.acquire()
        if self.coverage is not None:
            _coverage_data(self.folder)
        self._restore = self.stop.install()
        try:
            described = self.supervisor.start(self.stop)
        except BaseException:
            self.__exit__()
            raise
        self.backend = {"name": described.get("name", ""), "spec": self.backend_spec,
                        "version": described.get("version", "")}
        self.against = described.get("against")
        by = described.get("readings_by") or {}
        self.readings = {amb: {"reading": reading, "by": by.get(amb, "backend")}
                         for amb, reading in sorted((described.get("readings") or {}).items())}
        return self

    @property
    def declared(self) -> dict[str, str]:
        """ambiguity id -> reading id of the run (known once the session has started)."""
        return {amb: r["reading"] for amb, r in self.readings.items()}

    def __exit__(self, *exc: Any) -> None:
        try:
            self.supervisor.close(self.stop)
        finally:
            if self._restore is not None:
                self._restore()
                self._restore = None
            self.lock.release()
            if self.coverage is not None:
                from conformance.backends.measure import COVERAGE_DIR
                os.environ.pop(COVERAGE_DIR, None)

    # -------------------------------------------------------------------- writing

    def write(self, results: dict[str, Any]) -> None:
        """Write the report folder. The final results are written once the backend is gone: its workers,
        their backends and every process those started are ended first, so that nothing of the backend's
        is left to change the folder (or a bundle made of it) after it is written. The files are made in
        memory while the workers leave (released, not yet waited for), unless the run was stopped or they
        await the backend's coverage data, which its processes leave as they end."""
        from conformance.report.outputs import render_outputs, write_outputs, write_rendered
        if results.get("running"):
            write_outputs(results, self.folder, self.rulebook, self.shown)
            return
        from conformance.report.evidence_file import evidence_file, put_evidence
        evidence, results["evidence"] = evidence_file(self.evidence)
        files = None
        if self.coverage is None and not self.stop:     # made while the workers close their backends
            self.supervisor.release()
            files = render_outputs(results, self.shown or self.folder, self.rulebook)
        self.supervisor.close(self.stop)
        put_evidence(self.folder, evidence)
        if files is None:
            if self.coverage is not None:   # whole once the backend's processes are gone
                from conformance.report.coverage_files import write_coverage
                results["coverage"] = write_coverage(self.folder, self.coverage)
            files = render_outputs(results, self.shown or self.folder, self.rulebook)
        write_rendered(files, self.folder)

    def keep_evidence(self, result: dict[str, Any]) -> dict[str, Any]:
        """A result as it came from a worker, its evidence taken out and kept apart (it goes to its own
        file, named by digest in results.json)."""
        reached = result.pop("coverage", None)
        if self.coverage is not None:
            self.coverage.add(result["id"], reached)
        part = result.pop("evidence", None)
        if isinstance(part, dict) and isinstance(part.get("part"), int):
            self.evidence[result["id"], part["part"]] = part
        return result

    def document(self, chosen: Sequence[Any], cells: list[dict[str, Any]], started: str, began: float,
                 final: bool, finish: Callable[[dict[str, Any]], None] | None = None,
                 **settings: Any) -> dict[str, Any]:
        """The results document of the cells gathered so far; `finish` adds what the command adds
        (waivers, certification data)."""
        if self.against is not None:
            settings["against"] = dict(self.against, oracle=self.oracle)
        settings["isolation"] = self.isolation.described()
        settings["edition"] = edition_described(self.edition, self.rulebook)
        results = results_document(self.rulebook, self.backend, chosen, cells, started=started,
                                   duration_s=round(time.monotonic() - began, 2),
                                   interrupted=bool(self.stop), readings=self.readings, **settings)
        if self.stop:
            results["stopped"] = self.stop.name
        if not final:
            results["running"] = True
        if finish is not None:
            finish(results)
        return results

    # -------------------------------------------------------------------- running

    def run(self, chosen: Sequence[Any], tasks: Sequence[Task], finish: Callable[[dict[str, Any]], None] | None = None,
            maxfail: int | None = None, **settings: Any) -> dict[str, Any]:
        """Every task to its result, with a line per cell, writes as it goes; the final results. The parts
        of a split cell are combined into one result when the last one is in. `maxfail`: the run stops
        once that many cells have failed (the cells not run leave it INCOMPLETE as well as NOT CONFORMANT)."""
        from conformance.report.results import combine_runs
        parts = {t.cell.id: t.parts for t in tasks}
        arrived: dict[str, list[dict[str, Any]]] = {}
        gathered: list[dict[str, Any]] = []
        started = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
        began = time.monotonic()
        total = len(parts)
        enough = _Enough(self.stop)
        if maxfail:
            settings["maxfail"] = maxfail

        def snapshot(final: bool) -> dict[str, Any]:
            return self.document(chosen, gathered, started, began, final, finish, **settings)

        written = time.monotonic()

        def begun() -> None:        # written once every worker has its first task, while they work on them
            nonlocal written
            self.write(snapshot(False))
            written = time.monotonic()

        def got(result: dict[str, Any]) -> None:
            result = self.keep_evidence(result)
            same = arrived.setdefault(result["id"], [])
            same.append(result)
            if len(same) < parts.get(result["id"], 1):
                return
            result = combine_runs(same)
            gathered.append(result)
            self.terminal.cell(result, len(gathered))
            enough.failed += bool(result.get("failure") or result.get("divergence"))
            enough.reached = bool(maxfail) and enough.failed >= maxfail

        def tick() -> None:
            nonlocal written
            if time.monotonic() - written >= WRITE_EVERY:
                self.write(snapshot(False))
                written = time.monotonic()
            self.terminal.tick(len(gathered))

        self.terminal.start(total)
        try:
            run_tasks(self.supervisor, tasks, got, enough, tick, begun)
        finally:
            self.terminal.stop()
        if self.coverage is None and not self.stop:     # the idle workers close their backends meanwhile (write)
            self.supervisor.release()
        if enough.reached and not self.stop:
            self.terminal.line(f"stopped after {enough.failed} failing cell(s) (--maxfail {maxfail}): "
                               f"{total - len(gathered)} cell(s) not run")
        with _uncollected():
            results = snapshot(True)
            self.write(results)
        return results


def _coverage_data(folder: Path) -> None:
    """The backend's processes told where to leave their coverage data files (an environment variable
    the workers, and the processes they start, inherit); the last run's files removed."""
    import shutil
    from conformance.backends.measure import COVERAGE_DIR
    from conformance.report.coverage_files import DATA_FOLDER
    data = (folder / DATA_FOLDER).resolve()
    shutil.rmtree(data, ignore_errors=True)
    data.mkdir(parents=True, exist_ok=True)
    os.environ[COVERAGE_DIR] = str(data)


class _Enough:
    """What the run's loop stops on: a signal (the session's Stop), or --maxfail failing cells."""

    def __init__(self, stop: Stop):
        self.stop, self.failed, self.reached = stop, 0, False

    def __bool__(self) -> bool:
        return bool(self.stop) or self.reached


@contextlib.contextmanager
def _uncollected() -> Iterator[None]:
    """The collector off while the final report is made: it makes and drops many objects but no garbage
    in cycles, and a collection falling there walks every result of the run (this is a run's last step,
    so the whole run waits for it)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
