"""run, certify, fuzz and promote: the commands that run a backend over cells and write a report folder."""
from __future__ import annotations

import datetime as dt
import random
import sys
import time
from pathlib import Path
from typing import Any

from oracle.spec import default_rulebook

from conformance.backends.contract import kit_version
from conformance.commands.options import (Options, EXIT_OK, UsageError, ambiguity_ids, challenge_of,
                                          chosen_cells, edition_of, isolation_of, products_and_apis, readings_of,
                                          waive, waivers_of, worker_count)
from conformance.generate.cells import ambiguity_ids as every_ambiguity
from conformance.generate.cells import cells


def open_session(args: Options, folder: Path, db_spec: str | None = None, shown: Path | None = None):
    """The run's session (`with` it: its folder locked, its workers started; the backend loads in them,
    never here)."""
    from conformance.commands.session import Session
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"{folder}: a file is there, where the report folder should be: name a folder")
    if args.no_oracle and not args.against:
        raise UsageError("--no-oracle judges two backends' agreement alone: name the other with --against B")
    if args.coverage:
        _coverage_ready(args)
    return Session(folder, args.backend, worker_count(args.workers), args.timeout, db_spec,
                   against=args.against, oracle=not args.no_oracle, coverage=args.coverage,
                   cluster=args.cluster, readings=readings_of(args), isolation=isolation_of(args),
                   edition=edition_of(args), verbosity=args.verbosity, specs=default_rulebook, shown=shown)


def _coverage_ready(args: Options) -> None:
    """--coverage of a Python backend needs coverage.py (said in one line, exit 2), and its own process."""
    from conformance.backends.measure import MissingCoverage, require
    if args.in_process:
        raise UsageError("--coverage measures the backend in its own process: it cannot be combined with "
                         "--in-process")
    if not (args.backend or "").startswith("exec:"):
        try:
            require()
        except MissingCoverage as exc:
            raise UsageError(str(exc)) from None


def entered_ambiguities(session: Any, args: Options, apis: list[str]) -> list[str]:
    """The ambiguities whose regions the run enters, known once the workers have said their readings."""
    return ambiguity_ids(apis, session.declared, bool(args.against))


def _select_early(args: Options, products: list[str], apis: list[str]) -> None:
    """A --select that matches no cell, whatever readings the backend declares, is refused before any
    worker starts (the cells of the run are known only once they have). Without one there is nothing to
    refuse, and the cells are not listed twice."""
    if args.select:
        chosen_cells(args, products, apis, every_ambiguity(apis, rulebook=default_rulebook()))


def readings_line(session: Any) -> str:
    from conformance.report.ambiguities import readings_text
    said = readings_text(session.readings)
    edition = f"; the {session.edition} edition of the pages" if session.edition else ""
    return edition + (f"; readings {said}" if said else "")


def cmd_run(args: Options) -> int:
    from conformance.generate.profiles import profile
    from conformance.supervise.plan import plan

    products, apis = products_and_apis(args)
    waivers = waivers_of(args)
    challenge = challenge_of(args)
    seed = run_seed(args, challenge)
    report = Path(args.report)
    if args.last_failed:
        args = _last_failed(args, report)
    if args.list:
        return _list_cells(args, products, apis)
    _select_early(args, products, apis)
    prof = profile(args.profile)
    session = open_session(args, report)
    with session:
        chosen = chosen_cells(args, products, apis, entered_ambiguities(session, args, apis))
        print(f"ascend-conformance {kit_version()}: backend {session.backend['name']!r} on {', '.join(products)}, "
              f"apis {', '.join(apis)}, profile {args.profile}, seed {seed}, {len(chosen)} cells"
              + (f" (shard {args.shard[0]}/{args.shard[1]})" if args.shard else "") + readings_line(session),
              flush=True)
        tasks = plan(chosen, prof, seed, session.rulebook, pool=challenge.pool if challenge else 0)
        results = session.run(chosen, tasks, lambda r: settle(r, waivers), profile=args.profile, seed=seed,
                              workers=args.workers, select=list(args.select or []), timeout=args.timeout,
                              maxfail=args.maxfail, challenge=challenge.digest if challenge else None,
                              **_shard_settings(args, session, products, apis))
    return session.terminal.end(results, report, args.backend)


def _list_cells(args: Options, products: list[str], apis: list[str]) -> int:
    """--list: the cells the run would judge, one id a line, and nothing run. The ambiguity cells are
    those of the readings the command line (or --edition) declares: the backend's own are known only
    once it is loaded."""
    declared = dict(readings_of(args))
    edition = edition_of(args)
    if edition:
        declared.update(default_rulebook().settled(edition))
    chosen = chosen_cells(args, products, apis, ambiguity_ids(apis, declared, bool(args.against)))
    for cell in chosen:
        print(cell.id)
    print(f"{len(chosen)} cells (the ambiguity cells of readings the backend declares itself are added when it runs)",
          file=sys.stderr)
    return EXIT_OK


def _last_failed(args: Options, report: Path) -> Options:
    """--lf: narrow --select to the cells that failed (or could not run) in the report folder's last run;
    where none did, or there is no last run, every cell is run, as pytest does."""
    from conformance.report.results import ResultsError, load_results
    path = report / "results.json"
    if not path.is_file():
        print(f"--lf: no earlier run in {report}: running every cell", file=sys.stderr)
        return args
    try:
        last = load_results(path, default_rulebook())
    except ResultsError as exc:
        raise UsageError(f"--lf: {exc}") from None
    failed = [c["id"] for c in last["cells"] if c.get("failure") or c.get("divergence")
              or c.get("status") in ("error", "unreachable")]
    if not failed:
        print(f"--lf: no cell failed in the last run ({path}): running every cell", file=sys.stderr)
        return args
    print(f"--lf: re-running the {len(failed)} cell(s) that failed in the last run ({path})", file=sys.stderr)
    return args.with_(select=failed)


def run_seed(args: Options, challenge: Any) -> int:
    """The run's seed: the challenge's, the one given, or a fresh one."""
    if challenge is not None:
        return challenge.seed
    return args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)


def settle(results: dict[str, Any], waivers: Any) -> None:
    """The waivers applied and the verdict made again: the session marks a snapshot `running` or
    `stopped` after building it, and the verdict's reasons must say so."""
    from conformance.report.results import finish
    waive(results, waivers)
    if waivers is None:
        finish(results)


def _shard_settings(args: Options, session: Any, products: list[str],
                    apis: list[str]) -> dict[str, Any]:
    """`shard` 'i/N' and `shard_cells`, the cells of every shard together (a shard's verdict says how
    many of them it holds)."""
    if not args.shard:
        return {"shard": None}
    every = chosen_cells(args.with_(shard=None), products, apis,
                         entered_ambiguities(session, args, apis))
    return {"shard": f"{args.shard[0]}/{args.shard[1]}", "shard_cells": len(every)}


def _database(spec: str | None):
    from conformance.judge.failuredb import DatabaseError, open_database
    try:
        return open_database(spec)
    except DatabaseError as exc:
        raise UsageError(str(exc)) from None


def cmd_fuzz(args: Options) -> int:
    from conformance.commands.fuzz import Fuzzer, parse_duration
    from conformance.judge.failuredb import DEFAULT_DB, mark_fixed, stored
    from conformance.report.results import finish

    try:
        duration = parse_duration(args.duration)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    products, apis = products_and_apis(args)
    _select_early(args, products, apis)
    db = _database(args.db)
    challenge = challenge_of(args)
    seed = run_seed(args, challenge)
    workers = worker_count(args.workers)
    report = Path(args.report)
    when = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    began = time.monotonic()
    session = open_session(args, report, args.db or DEFAULT_DB)
    settings = dict(profile="fuzz", seed=seed, workers=str(workers), select=list(args.select or []), timeout=args.timeout,
                    fuzz={"duration": args.duration, "db": args.db or "default"},
                    challenge=challenge.digest if challenge else None)

    def document(cells: list[dict[str, Any]], final: bool) -> dict[str, Any]:
        results = session.document(chosen, cells, when, began, final, **settings)
        if final:   # a fuzz run is over when its time is: cells it never reached were not drawn, not missed
            results["planned"] = [c["id"] for c in results["cells"]]
        return finish(results)      # the session marked it running or stopped: the verdict says so

    with session:
        chosen = chosen_cells(args, products, apis, entered_ambiguities(session, args, apis))
        settings.update(_shard_settings(args, session, products, apis))
        kept = stored(db, [c.id for c in chosen]) if db is not None else {}
        print(f"ascend-conformance {kit_version()} fuzz: backend {session.backend['name']!r}, {len(chosen)} cells"
              + (f" (shard {args.shard[0]}/{args.shard[1]})" if args.shard else "")
              + f", {args.duration}, {workers} worker(s), seed {seed}, database {args.db or 'default'}: "
              f"{sum(map(len, kept.values()))} kept failure(s) replayed first" + readings_line(session), flush=True)
        fuzzer = Fuzzer(chosen, duration=duration, seed=seed, kept=kept, pool=challenge.pool if challenge else 0,
                        write=lambda cells: session.write(document(cells, False)),
                        fixed=None if db is None else lambda passed: [mark_fixed(db, f) for f in passed],
                        steer=_steer(session, db, chosen))
        session.write(document([], False))
        fuzzer.run(session.supervisor, session.stop)
        results = document(list(fuzzer.results.values()), True)
        session.write(results)
    return session.terminal.end(results, report, args.backend)


def _steer(session: Any, db: Any, chosen: list[Any]) -> Any:
    """Under --coverage, what keeps and breeds the calls reaching new code: the corpus the database
    kept for these cells (announced in a line), grown as the run goes."""
    if session.coverage is None:
        return None
    from conformance.commands.steer import CoverageSteer
    from conformance.judge import corpus
    kept = corpus.stored(db, [c.id for c in chosen]) if db is not None else {}
    print(f"coverage: {sum(map(len, kept.values()))} call(s) of the corpus bred from", flush=True)
    return CoverageSteer(session.coverage, kept, session.rulebook,
                         None if db is None else lambda cell, entry: corpus.keep(db, cell, entry))


def cmd_promote(args: Options) -> int:
    from conformance.judge.failuredb import fixed, reproducer_file_name, stored
    from conformance.report.outputs import reproducer_text

    rulebook = default_rulebook()
    products, apis = products_and_apis(args.with_(product=args.product or list(rulebook.products)))
    db = _database(args.db)
    if db is None:
        raise UsageError("--db none: there is no database to promote failures from")
    every = [c.id for c in cells(products, apis, rulebook=rulebook,
                                 ambiguities=every_ambiguity(apis, rulebook=rulebook))]       # every region
    kept = stored(db, every)
    folder = Path(args.out)
    folder.mkdir(parents=True, exist_ok=True)
    new = 0
    for failures in kept.values():
        for failure in failures:
            path = folder / reproducer_file_name(failure)
            new += not path.exists()
            path.write_text(reproducer_text(failure), encoding="utf-8")
            print(f"{failure['verdict']:<13} {failure['cell']} -> {path}")
    total = sum(map(len, kept.values()))
    print(f"{total} kept failure(s) written to {folder} ({new} new); replay them with "
          f"`ascend-conformance replay {folder} --backend B`")
    passed = fixed(db, every)
    if passed:
        print(f"{passed} failure(s) kept earlier were passed by a later run's backend: fixed, not written")
    return EXIT_OK
