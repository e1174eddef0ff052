"""`ascend-conformance`: run the suite on a backend, explain one call, replay reproducers, list specs.

Bad input (unknown product, a backend that cannot be imported, an unreadable file) gets one line on
stderr and exit status 2, never a traceback. `run` exits 0 only when the backend conforms on every
call it ran, 1 when it does not.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Sequence

from oracle import CallFormatError, SpecError

from conformance.backends.contract import BackendLoadError, kit_version
from conformance.backends.loading import load_backend
from conformance.commands.lock import FolderBusy
from conformance.commands.options import (Options, EXIT_INTERNAL, EXIT_NONCONFORMING, EXIT_OK, EXIT_USAGE, Parser, UsageError,
                                          maxfail_arg, reading_arg, seed_arg, seconds_arg, shard_arg, waive, waivers_of, workers_arg)
from conformance.commands.certify import cmd_certify
from conformance.commands.running import cmd_fuzz, cmd_promote, cmd_run
from conformance.commands.verify import add_parser as add_verify_parser
from conformance.generate.profiles import PROFILES
from conformance.supervise import worker


def cmd_check(args: Options) -> int:
    from conformance.commands.calls import cmd_check as check
    return check(args)


def cmd_replay(args: Options) -> int:
    from conformance.commands.calls import cmd_replay as replay
    return replay(args)


def cmd_specs(args: Options) -> int:
    from conformance.commands.specs import cmd_specs as specs
    return specs(args)


def cmd_serve(args: Options) -> int:
    from oracle.spec import default_rulebook

    from conformance.backends import measure
    from conformance.backends.serve import main as serve_main
    rulebook = default_rulebook()
    measured = measure.start(args.backend)     # a run with --coverage started this program: its backend measured
    backend = load_backend(args.backend, rulebook=rulebook)
    if measured is not None:
        measured.new_points()
    return serve_main(backend, rulebook, batch=args.batch, measured=measured)


def cmd_report(args: Options) -> int:
    from oracle.spec import default_rulebook

    from conformance.report.outputs import write_outputs
    from conformance.report.merging import merge
    from conformance.report.results import ResultsError, load_results, overall
    from conformance.report.overall_verdict import accepted
    from conformance.report.text import printable

    if len(args.files) > 1 and not args.out:
        raise UsageError("several results files are merged into one report: name its folder with --out DIR")
    # Everything is read and checked, merged and rendered before the first file of the folder changes.
    waivers = waivers_of(args)
    rulebook = default_rulebook()
    try:   # a report folder stands for the results.json in it
        sources = [(path, load_results(Path(path) / "results.json" if Path(path).is_dir() else path, rulebook))
                   for path in args.files]
    except ResultsError as exc:
        raise UsageError(str(exc)) from None
    results = merge(sources)
    waive(results, waivers)
    given = Path(args.files[0])
    folder = Path(args.out) if args.out else given if given.is_dir() else given.parent
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"{printable(str(folder))}: not a folder")
    written = write_outputs(results, folder, rulebook)
    for product in results["products"] or sorted({c["cell"]["product"] for c in results["cells"]}):
        print(f"{overall(results, product):<15} {product}")
    from conformance.report.ambiguities import verdict_text
    print(printable(f"{verdict_text(results)}: {results['calls']} calls in {len(results['cells'])} cells from "
                    f"{len(sources)} results file(s); report in {folder}"))
    for path in [written["results"], written["junit"], *written["html"]]:
        print("  " + printable(str(path)))
    return EXIT_OK if accepted(results["verdict"]) else EXIT_NONCONFORMING


# ---------------------------------------------------------------------------------------------

def add_reading_options(parser: argparse.ArgumentParser) -> None:
    """--reading / --readings: the readings declared on the command line, over the backend's own."""
    parser.add_argument("--reading", action="append", type=reading_arg, metavar="AMBIGUITY=READING",
                        help="judge that ambiguity's region by that reading, whatever the backend declares "
                             "(repeatable; `specs` lists them)")
    parser.add_argument("--readings", metavar="FILE", help="YAML mapping ambiguity id -> reading id (--reading "
                        "options go over it)")
    parser.add_argument("--edition", metavar="EDITION", help="judge by that edition of the vendor's pages: seed "
                        "(the default) or a newer one (`specs --editions`); the ambiguities it settles are read "
                        "as it settles them")


def add_isolation_options(parser: argparse.ArgumentParser) -> None:
    """--in-process / --backend-user: where the backend runs (by default in a process of its own, out of
    the judge's reach)."""
    parser.add_argument("--in-process", action="store_true",
                        help="load a Python backend into the judging process itself, to debug it (pdb, "
                             "coverage, profilers); the report says so, and certify refuses it")
    parser.add_argument("--backend-user", metavar="NAME",
                        help="run the backend's processes as this unprivileged user (the kit started as root)")


def add_coverage_option(parser: argparse.ArgumentParser, more: str) -> None:
    parser.add_argument("--coverage", action="store_true",
                        help="measure the backend's own code each call runs (a Python backend with coverage.py, "
                             "an exec program by its replies) and report it" + more)


def parser() -> argparse.ArgumentParser:
    top = Parser(prog="ascend-conformance",
                                  description="Conformance suite for Ascend data-movement instructions.")
    top.add_argument("--version", action="version", version=f"%(prog)s {kit_version()}")
    sub = top.add_subparsers(dest="command", required=True)
    add_running_parsers(sub, *shared_parsers())
    add_other_parsers(sub)
    return top


def shared_parsers() -> tuple[argparse.ArgumentParser, ...]:
    """The option groups commands share: the target (backend, products, workers...), the narrowing of the
    cells (--select, --shard, --report, --seed), --challenge and --waivers."""
    target = Parser(add_help=False)
    target.add_argument("--backend", required=True, help="oracle | package.module:attr | entry-point name | exec:CMD")
    target.add_argument("--product", action="append", required=True, help="product id (repeatable)")
    target.add_argument("--api", action="append", help="api (repeatable; default: all)")
    target.add_argument("-n", dest="workers", default="1", type=workers_arg,
                        help="worker processes: a number, or auto (one per core); default 1")
    target.add_argument("--timeout", type=seconds_arg, metavar="SECONDS",
                        help="a call taking longer is a CRASH (default 10)")
    target.add_argument("--against", metavar="B", help="also run every call on backend B, on an identical "
                        "image of the memory: each call AGREEs or DIVERGEs (any byte, a refusal, a crash)")
    target.add_argument("--cluster", metavar="ADDRESS", help="send the cells to a Dask scheduler "
                        "(tcp://host:8786; the 'dask' extra) instead of local workers")
    target.add_argument("--no-oracle", action="store_true", help="with --against: judge agreement alone, "
                        "not the backend against the oracle")
    add_isolation_options(target)
    add_reading_options(target)
    loud = target.add_mutually_exclusive_group()
    loud.add_argument("-q", "--quiet", dest="verbosity", action="store_const", const=-1, default=0,
                      help="print the failures and the verdict line only")
    loud.add_argument("-v", "--verbose", dest="verbosity", action="store_const", const=1,
                      help="also a line per cell and the table of verdicts per api / product / dtype / rule")
    narrowing = Parser(add_help=False)
    narrowing.add_argument("--select", action="append", help="only cells whose id matches this glob (repeatable)")
    narrowing.add_argument("--shard", type=shard_arg, metavar="I/N",
                           help="only shard I of N: every N-th cell from the I-th (merge with `report`)")
    narrowing.add_argument("--report", default="reports", help="report folder (default reports/)")
    narrowing.add_argument("--seed", type=seed_arg, help="run seed (from 0); the same seed repeats the run exactly")
    challenged = Parser(add_help=False)
    challenged.add_argument("--challenge", metavar="HEX",
                            help="derive every seed and the memory images from this value (16-64 random bytes in "
                                 "hex, picked by whoever receives the results; or ASCEND_CONFORMANCE_CHALLENGE), "
                                 "so that no backend can recognise the test")
    challenged.add_argument("--challenge-file", metavar="FILE",
                            help="read the challenge from this file (it stays off every command line)")
    waiving = Parser(add_help=False)
    waiving.add_argument("--waivers", metavar="FILE", help="YAML file of known failures to accept (see README)")
    return target, narrowing, challenged, waiving


def add_running_parsers(sub: argparse._SubParsersAction, target: argparse.ArgumentParser,
                        narrowing: argparse.ArgumentParser, challenged: argparse.ArgumentParser,
                        waiving: argparse.ArgumentParser) -> None:
    """run, certify, fuzz and promote: the commands that run a backend over cells."""
    run = sub.add_parser("run", parents=[target, narrowing, waiving, challenged],
                         help="run the suite on a backend and write a report")
    run.add_argument("--profile", default="ci", choices=sorted(PROFILES), help="quick | ci | nightly (default ci)")
    run.add_argument("--list", action="store_true", help="list the cells the run would judge, one id a line, and stop")
    run.add_argument("-x", "--exitfirst", dest="maxfail", action="store_const", const=1,
                     help="stop at the first failing cell (--maxfail 1)")
    run.add_argument("--maxfail", type=maxfail_arg, metavar="N", help="stop once N cells have failed")
    run.add_argument("--lf", "--last-failed", dest="last_failed", action="store_true",
                     help="re-run only the cells that failed in the report folder's last run (all of them "
                          "where none did)")
    add_coverage_option(run, "")
    run.set_defaults(func=cmd_run)

    cert = sub.add_parser("certify", parents=[target, waiving, challenged],
                          help="frozen case list + fixed-seed pass; writes a certification bundle")
    cert.add_argument("--profile", default="ci", choices=sorted(PROFILES),
                      help="budget of the property-based pass after the frozen cases (default ci)")
    cert.add_argument("--bundle", default="certification", help="bundle folder (default certification/)")
    cert.set_defaults(func=cmd_certify)

    fz = sub.add_parser("fuzz", parents=[target, narrowing, challenged],
                        help="search every cell until the time is up; failures kept in a database")
    fz.add_argument("--duration", required=True, help="how long: 90s, 15m, 8h, 1h30m")
    fz.add_argument("--db", help="failure database: a directory (default .hypothesis/ascend-conformance), "
                                 "redis://host:port/n, or none")
    add_coverage_option(fz, "; calls that reach new code are kept in the database's corpus and bred")
    fz.set_defaults(func=cmd_fuzz)

    pro = sub.add_parser("promote", help="write the failures kept in a database as reproducer files")
    pro.add_argument("--db", help="the database (default .hypothesis/ascend-conformance; or redis://...)")
    pro.add_argument("--product", action="append", help="product id (repeatable; default: all)")
    pro.add_argument("--api", action="append", help="api (repeatable; default: all)")
    pro.add_argument("--out", required=True, help="folder for the reproducer files (keep it under version control)")
    pro.set_defaults(func=cmd_promote)
    rpt = sub.add_parser("report", parents=[waiving], help="re-render the reports of one results.json, or merge several")
    rpt.add_argument("files", nargs="+", metavar="RESULTS_JSON", help="results.json files (or report folders)")
    rpt.add_argument("--out", help="report folder (default: the folder of the one results.json given)")
    rpt.set_defaults(func=cmd_report)


def add_other_parsers(sub: argparse._SubParsersAction) -> None:
    """serve, check, replay, verify and specs."""
    srv = sub.add_parser("serve", help="speak the exec protocol on stdin/stdout for a Python backend "
                                       "(docs/exec-protocol.md)")
    srv.add_argument("backend", help="oracle | package.module:attr | entry-point name")
    srv.add_argument("--batch", action="store_true", help="offer batch requests (the kit then sends calls in batches)")
    srv.set_defaults(func=cmd_serve)

    chk = sub.add_parser("check", help="legality and expected memory image of one call (YAML/JSON file)")
    chk.add_argument("file")
    chk.set_defaults(func=cmd_check)

    rep = sub.add_parser("replay", help="re-run reproducer files on a backend: FIXED / STILL FAILING")
    rep.add_argument("files", nargs="+")
    rep.add_argument("--backend", required=True)
    rep.add_argument("--timeout", type=seconds_arg, metavar="SECONDS", help="a call taking longer is a CRASH")
    rep.add_argument("--against", metavar="B", help="run each call on B too: FIXED only when they agree")
    rep.add_argument("--no-oracle", action="store_true", help="with --against: agreement alone")
    add_isolation_options(rep)
    add_reading_options(rep)
    rep.set_defaults(func=cmd_replay)

    add_verify_parser(sub)

    spc = sub.add_parser("specs", help="list products, apis, rules and ambiguities")
    spc.add_argument("--api", action="append")
    spc.add_argument("--edition", metavar="EDITION", help="show the specs as that edition of the pages reads "
                     "them: each rule's sentence in it, and the readings it settles")
    spc.add_argument("--editions", action="store_true", help="list what differs between the editions, rule by rule")
    spc.add_argument("--format", choices=["text", "json"], default="text",
                     help="text (default; with --api every rule whole) or json (the specs as data)")
    spc.set_defaults(func=cmd_specs)


def user_errors() -> tuple[type[Exception], ...]:
    """What input the user can fix raises (an unknown product, a backend that cannot be imported, a bad
    file, a report folder in use): said in one line, never as a traceback, by `main` and the pytest front
    end alike."""
    from conformance.report.results import ResultsError
    from conformance.report.untrusted import FileFormatError
    from conformance.report.waivers import WaiverError
    from conformance.supervise.cluster import ClusterError
    return (UsageError, BackendLoadError, SpecError, ResultsError, WaiverError, FileFormatError, CallFormatError,
            FolderBusy, ClusterError)


def main(argv: Sequence[str] | None = None) -> int:
    """Exit 0 conforms, 1 does not conform, 2 bad input (one line on stderr), 3 a bug of the kit (its
    traceback), 130 interrupted."""
    from conformance.report.text import printable
    top = parser()
    try:
        from conformance.commands.config import with_settings
        argv = with_settings(sys.argv[1:] if argv is None else argv, top)
    except UsageError as exc:
        print(f"ascend-conformance: error: {printable(exc, 1000)}", file=sys.stderr)
        return EXIT_USAGE
    args = Options.of(top.parse_args(argv))
    try:
        return args.func(args)
    except user_errors() as exc:
        print(f"ascend-conformance: error: {printable(exc, 1000)}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:         # `... | head`: the reader has what it wanted; say nothing more
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except OSError as exc:          # a folder that cannot be written, a full disk
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"ascend-conformance: error: {printable(where + (exc.strerror or str(exc)), 1000)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("ascend-conformance: interrupted", file=sys.stderr)
        return 130
    except Exception:               # noqa: BLE001 - never a traceback that reads as exit 1
        import traceback
        traceback.print_exc()
        print("ascend-conformance: internal error (a bug of the kit, please report it with the traceback above)",
              file=sys.stderr)
        return EXIT_INTERNAL


def command() -> int:
    """The process's entry (`ascend-conformance`, `python -m conformance`): main(), with what the imports
    made frozen out of the collector (it lives as long as the process: a full collection walking it while
    the specs load delays a `run`'s start, and the workers forked from this process inherit it
    frozen); then the process leaves as soon as main() has (`leave`). Not main's own steps: a test calling
    main() in its process keeps a working collector and its interpreter."""
    import gc
    gc.freeze()
    worker.FROZEN_FOR_LIFE = True         # the supervisor need not count them to leave them frozen
    code = main()
    gc.freeze()                 # where leave() cannot skip the teardown, it then walks none of these
    leave(code)
    return code


def leave(code: int) -> None:
    """End the process with `code` once its work is done (processes.leave: its teardown is a cost at every
    `run`'s end, measured in benchmarks/bench.py (j)), only where this is the one thread left (a Dask
    client's threads are joined by the normal exit)."""
    import threading

    from conformance.backends.processes import leave as leave_now
    if threading.active_count() == 1:
        leave_now(code)


if __name__ == "__main__":
    sys.exit(command())
