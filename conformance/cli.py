"""`ascend-conformance`: run the suite on a backend, explain one call, replay reproducers, list specs.

Bad input (unknown product, a backend that cannot be imported, an unreadable file) gets one line on
stderr and exit status 2, never a traceback. `run` exits 0 only when the backend conforms on every
call it ran, 1 when it does not.
"""
from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import sys
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import yaml

from oracle import Call, CallFormatError, SpecError, check, expected, verdict_class
from oracle.spec import default_rulebook

from .backends import BackendLoadError, load_backend
from .lock import FolderBusy
from .bytemap import decoded_text
from .memory import MemoryRecipe, image_sizes
from .profiles import PROFILES
from .results import kit_version

EXIT_OK, EXIT_NONCONFORMING, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Input the user can fix; printed as one line."""


# ---------------------------------------------------------------------------------------------
# run

def _workers(value: str) -> str:
    if value == "auto" or (value.isdigit() and int(value) >= 0):
        return value
    raise argparse.ArgumentTypeError(f"-n expects a number of workers or 'auto', got {value!r}")


def _products_and_apis(args: argparse.Namespace) -> tuple[list[str], list[str]]:
    rulebook = default_rulebook()
    for p in args.product:
        if p not in rulebook.products:
            raise UsageError(f"unknown product {p!r} (known: {', '.join(rulebook.products)})")
    apis = args.api or sorted(rulebook.apis)
    for a in apis:
        if a not in rulebook.apis:
            raise UsageError(f"unknown api {a!r} (known: {', '.join(sorted(rulebook.apis))})")
    return list(args.product), apis


def _waivers(args: argparse.Namespace):
    """The waiver file's entries (None when no --waivers); a bad file is a one-line usage error."""
    from .waivers import WaiverError, load_waivers
    if not getattr(args, "waivers", None):
        return None
    try:
        return load_waivers(args.waivers)
    except WaiverError as exc:
        raise UsageError(str(exc)) from None


def _waive(results: dict[str, Any], waivers) -> None:
    """Apply the waivers (if any) as of today and refresh the verdicts."""
    from .results import finish
    from .waivers import apply_waivers
    if waivers is not None:
        apply_waivers(results, waivers, dt.date.today())
        finish(results)


def _worker_count(value: str) -> int:
    return os.cpu_count() or 1 if value == "auto" else max(1, int(value))


def _session(args: argparse.Namespace, folder: Path, db_spec: str | None = None):
    """The run's session (`with` it: its folder locked, its workers started; the backend loads in them,
    never here)."""
    from .session import Session
    return Session(folder, args.backend, _worker_count(args.workers), args.timeout, db_spec)


def _print_end(results: dict[str, Any], folder: Path, backend_spec: str) -> int:
    """The summary, ambiguities, failures with their replay commands and the verdict line; the exit code."""
    from .results import CONFORMANT, NOT_CONFORMANT, summary
    print()
    print(summary(results))
    print()
    for amb in results["ambiguities"]:
        print(f"ambiguity {amb['id']} (no call generated there): {amb['question']}")
    for failure in results["failures"]:
        waived = " (WAIVED)" if failure.get("waived") else ""
        print(f"{failure['verdict']:<13} {failure['cell']}{waived}: {failure['message']}")
        print(f"              reproduce: ascend-conformance replay {folder / failure['reproducer']} "
              f"--backend {backend_spec}")
    for err in results["errors"]:
        print(f"ERROR         {err}")
    for w in results.get("waivers") or []:
        if w["status"] != "applied":
            print(f"waiver {w['index']} {w['status'].upper()}: {w['reason']} ({w['tracker']}, expires {w['expires']})"
                  + (f"; its failures count: {', '.join(w['cells'])}" if w["status"] == "expired" and w["cells"] else ""))
    verdict = results["verdict"]
    words = {CONFORMANT: "CONFORMS", NOT_CONFORMANT: "DOES NOT CONFORM"}.get(verdict, verdict)
    print(f"\n{words}: {results['calls']} calls in {len(results['cells'])}/{len(results['planned'])} cells, "
          + ", ".join(f"{k} {v}" for k, v in results["totals"].items())
          + f"; {results['duration_s']}s; seed {results['seed']}; report in {folder}"
          + "".join(f"\n  {folder / f}" for f in ("results.json", "junit.xml"))
          + "".join(f"\n  {folder / ('report-' + p + '.html')}" for p in results["products"]))
    if results.get("interrupted"):
        print("interrupted: the results above are those gathered before the interruption")
        return {"SIGTERM": 143, "SIGHUP": 129}.get(results.get("stopped"), 130)
    return EXIT_OK if verdict == CONFORMANT else EXIT_NONCONFORMING


def _shard(value: str) -> tuple[int, int]:
    import re
    match = re.fullmatch(r"(\d+)/(\d+)", value.strip())
    if match and 1 <= int(match[1]) <= int(match[2]):
        return int(match[1]), int(match[2])
    raise argparse.ArgumentTypeError(f"--shard expects I/N with 1 <= I <= N, e.g. 2/4; got {value!r}")


def _chosen(args: argparse.Namespace, products: list[str], apis: list[str]) -> list:
    """The cells of the products and apis, narrowed by --select globs and --shard."""
    from .cells import cells, select, shard
    chosen = select(cells(products, apis), getattr(args, "select", None))
    if getattr(args, "select", None) and not chosen:
        raise UsageError(f"no cell matches --select {' '.join(args.select)}")
    if getattr(args, "shard", None):
        chosen = shard(chosen, *args.shard)
    return chosen


def _seconds(value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        seconds = 0.0
    if seconds > 0:
        return seconds
    raise argparse.ArgumentTypeError(f"--timeout expects a number of seconds > 0, got {value!r}")


def cmd_run(args: argparse.Namespace) -> int:
    from .pool import Task
    from .profiles import profile

    products, apis = _products_and_apis(args)
    waivers = _waivers(args)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    chosen = _chosen(args, products, apis)
    report = Path(args.report)
    prof = profile(args.profile)
    session = _session(args, report)
    with session:
        print(f"ascend-conformance {kit_version()}: backend {session.backend['name']!r} on {', '.join(products)}, "
              f"apis {', '.join(apis)}, profile {args.profile}, seed {seed}, {len(chosen)} cells"
              + (f" (shard {args.shard[0]}/{args.shard[1]})" if args.shard else ""), flush=True)
        results = session.run(chosen, [Task(c, prof, seed) for c in chosen], lambda r: _waive(r, waivers),
                              profile=args.profile, seed=seed, workers=args.workers, select=args.select or [],
                              timeout=args.timeout, shard=f"{args.shard[0]}/{args.shard[1]}" if args.shard else None)
    return _print_end(results, report, args.backend)


def cmd_certify(args: argparse.Namespace) -> int:
    from .bundle import CERTIFY_SEED, write_bundle
    from .cells import cells
    from .frozen import FrozenDataError, frozen_hash, load_frozen
    from .pool import Task
    from .profiles import profile

    products, apis = _products_and_apis(args)
    waivers = _waivers(args)
    chosen = cells(products, apis)
    try:
        frozen = load_frozen()
        digest = frozen_hash()
    except FrozenDataError as exc:
        raise UsageError(str(exc)) from None
    cases = sum(len(frozen.get(c.id, ())) for c in chosen)
    bundle = Path(args.bundle)
    prof = profile(args.profile)

    def certified(results: dict[str, Any]) -> None:
        results["certify"] = {"frozen_hash": digest, "frozen_cases": cases}
        _waive(results, waivers)

    session = _session(args, bundle)
    with session:
        print(f"ascend-conformance {kit_version()} certify: backend {session.backend['name']!r} on "
              f"{', '.join(products)}, {len(chosen)} cells: {cases} frozen cases (list {digest}), then profile "
              f"{args.profile} with seed {CERTIFY_SEED}", flush=True)
        results = session.run(chosen, [Task(c, prof, CERTIFY_SEED, frozen=True) for c in chosen], certified,
                              profile=args.profile, seed=CERTIFY_SEED, workers=args.workers, select=[],
                              timeout=args.timeout, shard=None)
        write_bundle(bundle, results, waivers_file=args.waivers, argv=sys.argv)
    return _print_end(results, bundle, args.backend)


def _database(spec: str | None):
    from .failuredb import DatabaseError, open_database
    try:
        return open_database(spec)
    except DatabaseError as exc:
        raise UsageError(str(exc)) from None


def cmd_fuzz(args: argparse.Namespace) -> int:
    from .failuredb import DEFAULT_DB, stored
    from .fuzz import Fuzzer, parse_duration
    from .results import finish

    try:
        duration = parse_duration(args.duration)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    products, apis = _products_and_apis(args)
    chosen = _chosen(args, products, apis)
    db = _database(args.db)
    kept = stored(db, [c.id for c in chosen]) if db is not None else {}
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    workers = _worker_count(args.workers)
    report = Path(args.report)
    when = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    began = time.monotonic()
    session = _session(args, report, args.db or DEFAULT_DB)
    settings = dict(profile="fuzz", seed=seed, workers=str(workers), select=args.select or [], timeout=args.timeout,
                    shard=f"{args.shard[0]}/{args.shard[1]}" if args.shard else None,
                    fuzz={"duration": args.duration, "db": args.db or "default"})

    def document(cells: list[dict[str, Any]], final: bool) -> dict[str, Any]:
        results = session.document(chosen, cells, when, began, final, **settings)
        if final:   # a fuzz run is over when its time is: cells it never reached were not drawn, not missed
            results["planned"] = [c["id"] for c in results["cells"]]
            finish(results)
        return results

    with session:
        print(f"ascend-conformance {kit_version()} fuzz: backend {session.backend['name']!r}, {len(chosen)} cells"
              + (f" (shard {args.shard[0]}/{args.shard[1]})" if args.shard else "")
              + f", {args.duration}, {workers} worker(s), seed {seed}, database {args.db or 'default'}: "
              f"{sum(map(len, kept.values()))} kept failure(s) replayed first", flush=True)
        fuzzer = Fuzzer(chosen, duration=duration, seed=seed, kept=kept,
                        write=lambda cells: session.write(document(cells, False)))
        session.write(document([], False))
        fuzzer.run(session.supervisor, session.stop)
        results = document(list(fuzzer.results.values()), True)
        session.write(results)
    return _print_end(results, report, args.backend)


def cmd_promote(args: argparse.Namespace) -> int:
    from .cells import cells
    from .failuredb import reproducer_file_name, stored
    from .outputs import reproducer_text

    products = args.product or list(default_rulebook().products)
    args.product = products
    products, apis = _products_and_apis(args)
    db = _database(args.db)
    if db is None:
        raise UsageError("--db none: there is no database to promote failures from")
    kept = stored(db, [c.id for c in cells(products, apis)])
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
          f"`ascend-conformance replay {folder}/*.yaml --backend B`")
    return EXIT_OK


def cmd_serve(args: argparse.Namespace) -> int:
    from .serve import main as serve_main
    return serve_main(load_backend(args.backend), batch=args.batch)


def cmd_report(args: argparse.Namespace) -> int:
    from .outputs import write_outputs
    from .results import CONFORMANT, ResultsError, load_results, merge, overall

    if len(args.files) > 1 and not args.out:
        raise UsageError("several results files are merged into one report: name its folder with --out DIR")
    waivers = _waivers(args)
    try:   # a report folder stands for the results.json in it
        sources = [(path, load_results(Path(path) / "results.json" if Path(path).is_dir() else path))
                   for path in args.files]
    except ResultsError as exc:
        raise UsageError(str(exc)) from None
    results = merge(sources)
    _waive(results, waivers)
    given = Path(args.files[0])
    folder = Path(args.out) if args.out else given if given.is_dir() else given.parent
    written = write_outputs(results, folder)
    for product in results["products"] or sorted({c["cell"]["product"] for c in results["cells"]}):
        print(f"{overall(results, product):<15} {product}")
    print(f"{results['verdict']}: {results['calls']} calls in {len(results['cells'])} cells from "
          f"{len(sources)} results file(s); report in {folder}")
    for path in [written["results"], written["junit"], *written["html"]]:
        print(f"  {path}")
    return EXIT_OK if results["verdict"] == CONFORMANT else EXIT_NONCONFORMING


# ---------------------------------------------------------------------------------------------
# check / replay: one call from a file

def load_call_file(path: str) -> tuple[Call, MemoryRecipe | None, dict[str, Any]]:
    """A bare call (api/product/form/args) or a reproducer (call + memory + what was seen)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise UsageError(f"{path}: not valid YAML: {getattr(exc, 'problem', exc)}") from None
    if isinstance(data, dict) and "call" in data:
        known = {"cell", "verdict", "message", "expect", "rule", "call", "memory", "reproducer"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise UsageError(f"{path}: unknown field {unknown[0]!r} in a reproducer (known: {', '.join(sorted(known))})")
        try:
            call = Call.from_dict(data["call"])
            memory = MemoryRecipe.from_dict(data["memory"]) if "memory" in data else None
        except CallFormatError as exc:
            raise UsageError(f"{path}: {exc}") from None
        return call, memory, data
    try:
        return Call.from_dict(data), None, {}
    except CallFormatError as exc:
        raise UsageError(f"{path}: {exc}") from None


def _recipe(call: Call, memory: MemoryRecipe | None) -> MemoryRecipe:
    return memory or MemoryRecipe(0, image_sizes(call, default_rulebook()))


def cmd_check(args: argparse.Namespace) -> int:
    from oracle.rules import context
    call, memory, meta = load_call_file(args.file)
    try:
        # Rules on memory contents (Scatter's offsets) need the file's memory; random bytes are no offsets.
        violations = check(call, memory.build() if memory is not None else None)
    except CallFormatError as exc:
        raise UsageError(f"{args.file}: {exc}") from None
    print(f"{call.api} on {call.product}" + (f" (form {call.form})" if call.form else ""))
    if memory is None and any(d.get("values") for d in default_rulebook().api(call.api).operands.values()):
        print("  (no memory in the file: the rules on the offsets in memory are not evaluated)")
    klass = verdict_class(violations)
    print({"legal": "legal: a conforming backend runs it and leaves the image below",
           "reject": "must be refused (Rejected):",
           "undefined": "undefined territory: anything but a crash or hang is accepted:"}[klass])
    for v in violations:
        print(f"  {v.severity:<9} {v.rule}: {v.message}")
    if klass == "reject":
        return EXIT_OK
    recipe = _recipe(call, memory)
    images = recipe.build()
    want = expected(call, images)
    ctx = context(call, images)
    print(f"memory: seed {recipe.seed}, " + ", ".join(f"{s} {n} bytes" for s, n in recipe.sizes.items()))
    for name, op in ctx.spec.operands.items():
        for label, t, runs in ctx.entries(name):
            lo, hi = t.addr + runs.begin, t.addr + runs.end
            role = "writes" if op["role"] == "output" else "reads"
            print(f"  {label} ({role}) {t.scope}[{lo}:{hi}) in {runs.count} run(s) of {runs.length} bytes, "
                  f"first run at byte {t.addr + runs.first}")
            if op["role"] == "output":
                before = images[t.scope][t.addr + runs.first:t.addr + runs.first + runs.length]
                after = want.memory[t.scope][t.addr + runs.first:t.addr + runs.first + runs.length]
                print(f"    before: {decoded_text(before, t.dtype)}")
                print(f"    after:  {decoded_text(after, t.dtype)}")
                undefined = int(np.count_nonzero(~want.defined[t.scope]))
                if undefined:
                    print(f"    {undefined} byte(s) of {t.scope} are left open by the documentation")
    return EXIT_OK


def cmd_replay(args: argparse.Namespace) -> int:
    """Each file's call judged in a supervised worker: a backend that dies or hangs on it is a CRASH."""
    from .pool import Stop, Supervisor
    supervisor = Supervisor(args.backend, 1, args.timeout)
    stop = Stop()
    restore = stop.install()
    try:
        supervisor.start(stop)
        return _replay(args.files, supervisor, stop)
    finally:
        supervisor.close(stop)
        restore()


def _replay(files: list[str], supervisor: Any, stop: Any) -> int:
    """FIXED / STILL FAILING / MALFORMED per file; the worst status of them all."""
    from .pool import Replay
    from .verdicts import NONCONFORMING
    status = EXIT_OK
    for path in files:
        try:
            call, memory, meta = load_call_file(path)
            recipe = _recipe(call, memory)
        except (UsageError, CallFormatError) as exc:
            print(f"MALFORMED      {exc}")
            status = EXIT_USAGE
            continue
        outcome = supervisor.judge(Replay(call.to_dict(), recipe.to_dict()), stop)
        if outcome is None:
            print("ascend-conformance: interrupted", file=sys.stderr)
            return 130
        recorded = meta.get("verdict")
        verdict, message = outcome["verdict"], outcome["message"]
        if verdict not in {v.value for v in NONCONFORMING}:
            print(f"FIXED          {path}: {verdict} ({message})")
        else:
            same = "" if not recorded else " (as recorded)" if recorded == verdict else f" (recorded: {recorded})"
            print(f"STILL FAILING  {path}: {verdict}{same}: {message}")
            status = max(status, EXIT_NONCONFORMING) if status != EXIT_USAGE else status
    return status


# ---------------------------------------------------------------------------------------------
# specs

def cmd_specs(args: argparse.Namespace) -> int:
    rulebook = default_rulebook()
    print("products:")
    for p in rulebook.products.values():
        sizes = ", ".join(f"{s} {n // 1024} KB" if n else f"no {s}" for s, n in p.scope_bytes.items())
        print(f"  {p.id:<22} {sizes}; block {p.block_bytes} B   ({' / '.join(p.names)})")
    for spec in rulebook.apis.values():
        if args.api and spec.api not in args.api:
            continue
        print(f"\n{spec.api}: {spec.title}  [{spec.page}]")
        width = max(len(r.id) for r in spec.rules)
        for r in spec.rules:
            tag = f" (inferred: {', '.join(r.inferred.aspects)})" if r.inferred else ""
            print(f"  {r.severity:<9} {r.id:<{width}} {r.kind:<17}{tag}  「{' '.join(r.quote.split())[:70]}」")
        for a in spec.ambiguities:
            print(f"  ambiguity {a.id}: {' '.join(a.question.split())}")
            for reading in a.readings:
                variant = f", index math {reading.variant}" if reading.variant else ""
                print(f"    reading {reading.id} ({reading.legality}{variant}): {' '.join(reading.sentence.split())}")
    return EXIT_OK


# ---------------------------------------------------------------------------------------------

def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="ascend-conformance",
                                  description="Conformance suite for Ascend data-movement instructions.")
    top.add_argument("--version", action="version", version=f"%(prog)s {kit_version()}")
    sub = top.add_subparsers(dest="command", required=True)

    # What every command that runs a backend on cells takes.
    target = argparse.ArgumentParser(add_help=False)
    target.add_argument("--backend", required=True, help="oracle | package.module:attr | entry-point name | exec:CMD")
    target.add_argument("--product", action="append", required=True, help="product id (repeatable)")
    target.add_argument("--api", action="append", help="api (repeatable; default: all)")
    target.add_argument("-n", dest="workers", default="1", type=_workers, help="worker processes")
    target.add_argument("--timeout", type=_seconds, metavar="SECONDS",
                        help="a call taking longer is a CRASH (exec: backends: default 10)")
    narrowing = argparse.ArgumentParser(add_help=False)
    narrowing.add_argument("--select", action="append", help="only cells whose id matches this glob (repeatable)")
    narrowing.add_argument("--shard", type=_shard, metavar="I/N",
                           help="only shard I of N: every N-th cell from the I-th (merge with `report`)")
    narrowing.add_argument("--report", default="reports", help="report folder (default reports/)")
    narrowing.add_argument("--seed", type=int, help="run seed; the same seed repeats the run exactly")
    waiving = argparse.ArgumentParser(add_help=False)
    waiving.add_argument("--waivers", metavar="FILE", help="YAML file of known failures to accept (see README)")

    run = sub.add_parser("run", parents=[target, narrowing, waiving], help="run the suite on a backend and write a report")
    run.add_argument("--profile", default="ci", choices=sorted(PROFILES), help="quick | ci | nightly (default ci)")
    run.set_defaults(func=cmd_run)

    cert = sub.add_parser("certify", parents=[target, waiving],
                          help="frozen case list + fixed-seed pass; writes a certification bundle")
    cert.add_argument("--profile", default="ci", choices=sorted(PROFILES),
                      help="budget of the property-based pass after the frozen cases (default ci)")
    cert.add_argument("--bundle", default="certification", help="bundle folder (default certification/)")
    cert.set_defaults(func=cmd_certify)

    fz = sub.add_parser("fuzz", parents=[target, narrowing],
                        help="search every cell until the time is up; failures kept in a database")
    fz.add_argument("--duration", required=True, help="how long: 90s, 15m, 8h, 1h30m")
    fz.add_argument("--db", help="failure database: a directory (default .hypothesis/ascend-conformance), "
                                 "redis://host:port/n, or none")
    fz.set_defaults(func=cmd_fuzz)

    pro = sub.add_parser("promote", help="write the failures kept in a database as reproducer files")
    pro.add_argument("--db", help="the database (default .hypothesis/ascend-conformance; or redis://...)")
    pro.add_argument("--product", action="append", help="product id (repeatable; default: all)")
    pro.add_argument("--api", action="append", help="api (repeatable; default: all)")
    pro.add_argument("--out", required=True, help="folder for the reproducer files (keep it under version control)")
    pro.set_defaults(func=cmd_promote)

    srv = sub.add_parser("serve", help="speak the exec protocol on stdin/stdout for a Python backend "
                                       "(docs/exec-protocol.md)")
    srv.add_argument("backend", help="oracle | package.module:attr | entry-point name")
    srv.add_argument("--batch", action="store_true", help="offer batch requests (the kit then sends calls in batches)")
    srv.set_defaults(func=cmd_serve)

    rpt = sub.add_parser("report", parents=[waiving], help="re-render the reports of one results.json, or merge several")
    rpt.add_argument("files", nargs="+", metavar="RESULTS_JSON", help="results.json files (or report folders)")
    rpt.add_argument("--out", help="report folder (default: the folder of the one results.json given)")
    rpt.set_defaults(func=cmd_report)

    chk = sub.add_parser("check", help="legality and expected memory image of one call (YAML/JSON file)")
    chk.add_argument("file")
    chk.set_defaults(func=cmd_check)

    rep = sub.add_parser("replay", help="re-run reproducer files on a backend: FIXED / STILL FAILING")
    rep.add_argument("files", nargs="+")
    rep.add_argument("--backend", required=True)
    rep.add_argument("--timeout", type=_seconds, metavar="SECONDS", help="a call taking longer is a CRASH")
    rep.set_defaults(func=cmd_replay)

    spc = sub.add_parser("specs", help="list products, apis, rules and ambiguities")
    spc.add_argument("--api", action="append")
    spc.set_defaults(func=cmd_specs)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.func(args)
    except (UsageError, BackendLoadError, SpecError, FolderBusy) as exc:
        print(f"ascend-conformance: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("ascend-conformance: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
