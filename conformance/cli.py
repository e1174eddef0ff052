"""`ascend-conformance`: run the suite on a backend, explain one call, replay reproducers, list specs.

Bad input (unknown product, a backend that cannot be imported, an unreadable file) gets one line on
stderr and exit status 2, never a traceback. `run` exits 0 only when the backend conforms on every
call it ran, 1 when it does not.
"""
from __future__ import annotations

import argparse
import datetime as dt
import math
import os
import random
import sys
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from oracle import Call, CallFormatError, SpecError, check, expected, verdict_class
from oracle.spec import default_rulebook

from .backends import BackendLoadError, load_backend
from .cluster import ClusterError
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

MAX_WORKERS = 256          # worker processes at most, and at most WORKERS_PER_CORE per core
WORKERS_PER_CORE = 4
MAX_TIMEOUT_S = 24 * 3600  # a call's time limit is below a day


def _workers(value: str) -> str:
    """-n: 'auto' or a number of worker processes the machine can hold."""
    if value != "auto" and not (value.isascii() and value.isdigit()):
        raise argparse.ArgumentTypeError(f"-n expects a number of workers or 'auto', got {value!r}")
    limit = min(MAX_WORKERS, WORKERS_PER_CORE * (os.cpu_count() or 1))
    if value != "auto" and int(value) > limit:
        raise argparse.ArgumentTypeError(f"-n {value}: at most {limit} workers ({WORKERS_PER_CORE} per core on "
                                         f"{os.cpu_count() or 1} cores, {MAX_WORKERS} in all)")
    return value


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
    if getattr(args, "no_oracle", False) and not getattr(args, "against", None):
        raise UsageError("--no-oracle judges two backends' agreement alone: name the other with --against B")
    return Session(folder, args.backend, _worker_count(args.workers), args.timeout, db_spec,
                   against=getattr(args, "against", None), oracle=not getattr(args, "no_oracle", False),
                   cluster=getattr(args, "cluster", None))


def _print_end(results: dict[str, Any], folder: Path, backend_spec: str) -> int:
    """The summary, ambiguities, failures with their replay commands and the verdict line; the exit code.
    Everything a backend may have chosen goes through text.printable (no raw control sequence reaches
    the terminal); the replay command is shell-quoted, to be pasted as it is."""
    from .htmlreport import report_name
    from .results import CONFORMANT, NOT_CONFORMANT, summary
    from .text import printable, replay_command
    print()
    for line in summary(results).splitlines():
        print(printable(line, 1000))
    print()
    for amb in results["ambiguities"]:
        print(printable(f"ambiguity {amb['id']} (no call generated there): {' '.join(amb['question'].split())}"))
    for failure in results["failures"]:
        waived = " (WAIVED)" if failure.get("waived") else ""
        print(printable(f"{failure['verdict']:<13} {failure['cell']}{waived}: {failure['message']}"))
        if failure.get("reproducer"):
            print("              reproduce: "
                  + printable(replay_command(str(folder / failure["reproducer"]), backend_spec)))
    against = results.get("against")
    for divergence in (results.get("agreement") or {}).get("divergences", []):
        print(printable(f"DIVERGE       {divergence['cell']}: {divergence['message']}"))
        if divergence.get("reproducer"):
            print("              reproduce: " + printable(replay_command(
                str(folder / divergence["reproducer"]), backend_spec, against["spec"], against.get("oracle", True))))
    for err in results["errors"]:
        print(printable(f"ERROR         {err}"))
    if results.get("stopped"):
        print(printable(f"stopped: {results['stopped']}"))
    for w in results.get("waivers") or []:
        if w["status"] != "applied":
            print(printable(f"waiver {w['index']} {w['status'].upper()}: {w['reason']} ({w['tracker']}, "
                            f"expires {w['expires']})" + (f"; its failures count: {', '.join(w['cells'])}"
                                                          if w["status"] == "expired" and w["cells"] else "")))
    verdict = results["verdict"]
    words = {CONFORMANT: "CONFORMS", NOT_CONFORMANT: "DOES NOT CONFORM"}.get(verdict, verdict)
    if against:
        agreed = results["agreement"]
        words = (("" if against.get("oracle", True) else "NOT HELD AGAINST THE ORACLE; ")
                 + ((words + "; ") if against.get("oracle", True) else "")
                 + ("AGREES WITH" if agreed["verdict"] == "AGREE" else "DIVERGES FROM") + f" {against['name']!r} ("
                 + ", ".join(f"{k} {v}" for k, v in sorted(agreed["totals"].items())) + ")")
    print(printable(f"{words}: {results['calls']} calls in {len(results['cells'])}/{len(results['planned'])} cells, "
                    + ", ".join(f"{k} {v}" for k, v in results["totals"].items())
                    + f"; {results['duration_s']}s; seed {results['seed']}; report in {folder}", 100_000))
    for path in [folder / "results.json", folder / "junit.xml", *(folder / report_name(p) for p in results["products"])]:
        print("  " + printable(str(path)))
    if results.get("interrupted") or results.get("stopped"):
        print("interrupted: the results above are those gathered before the interruption")
        return {"SIGTERM": 143, "SIGHUP": 129}.get(results.get("stopped"), 130)
    if against and not results.get("agrees"):
        return EXIT_NONCONFORMING
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
    """--timeout: a finite number of seconds above 0 and below a day (`inf` would make every call of
    the reference a CRASH, `nan` compares false with everything)."""
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    if 0 < seconds < MAX_TIMEOUT_S:
        return seconds
    raise argparse.ArgumentTypeError(f"--timeout expects a number of seconds above 0 and below {MAX_TIMEOUT_S} "
                                     f"(a day), got {value!r}")


def cmd_run(args: argparse.Namespace) -> int:
    from .plan import plan
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
        results = session.run(chosen, plan(chosen, prof, seed), lambda r: _waive(r, waivers),
                              profile=args.profile, seed=seed, workers=args.workers, select=args.select or [],
                              timeout=args.timeout, shard=f"{args.shard[0]}/{args.shard[1]}" if args.shard else None)
    return _print_end(results, report, args.backend)


def cmd_certify(args: argparse.Namespace) -> int:
    from .bundle import CERTIFY_SEED, write_bundle
    from .cells import cells
    from .frozen import FrozenDataError, frozen_hash, load_frozen
    from .plan import plan
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
        results = session.run(chosen, plan(chosen, prof, CERTIFY_SEED, frozen=True), certified,
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
    from .text import printable

    if len(args.files) > 1 and not args.out:
        raise UsageError("several results files are merged into one report: name its folder with --out DIR")
    # Everything is read and checked, merged and rendered before the first file of the folder changes.
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
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"{printable(str(folder))}: not a folder")
    written = write_outputs(results, folder)
    for product in results["products"] or sorted({c["cell"]["product"] for c in results["cells"]}):
        print(f"{overall(results, product):<15} {product}")
    print(printable(f"{results['verdict']}: {results['calls']} calls in {len(results['cells'])} cells from "
                    f"{len(sources)} results file(s); report in {folder}"))
    for path in [written["results"], written["junit"], *written["html"]]:
        print("  " + printable(str(path)))
    return EXIT_OK if results["verdict"] == CONFORMANT else EXIT_NONCONFORMING


# ---------------------------------------------------------------------------------------------
# check / replay: one call from a file

def load_call_file(path: str) -> tuple[Call, MemoryRecipe | None, dict[str, Any]]:
    """A bare call (api/product/form/args) or a reproducer (call + memory + what was seen), read as an
    untrusted file (conformance/untrusted.py: size, encoding, no YAML aliases, real dates); the call's
    product must be one the specs know and the memory's sizes within its scopes. UsageError is one line
    naming the file and the field."""
    from .text import printable
    from .untrusted import FileFormatError, load_yaml
    name = printable(str(path))
    try:
        data = load_yaml(path, what="call")
    except FileFormatError as exc:
        raise UsageError(str(exc)) from None
    reproducer = isinstance(data, dict) and "call" in data
    try:
        if reproducer:
            known = {"cell", "verdict", "message", "expect", "rule", "call", "memory", "reproducer"}
            unknown = sorted(map(str, set(data) - known))
            if unknown:
                raise CallFormatError(f"unknown field {unknown[0]!r} in a reproducer (known: {', '.join(sorted(known))})")
            if not isinstance(data.get("verdict", ""), str):
                raise CallFormatError(f"verdict: expected a string, got {type(data['verdict']).__name__}")
        call = Call.from_dict(data["call"] if reproducer else data)
        products = default_rulebook().products
        if call.product not in products:
            raise CallFormatError(f"call.product: unknown product {call.product!r} (known: {', '.join(products)})")
        memory = MemoryRecipe.from_dict(data["memory"], "memory", products[call.product]) \
            if reproducer and "memory" in data else None
    except CallFormatError as exc:
        raise UsageError(f"{name}: {printable(str(exc), 400)}") from None
    return call, memory, data if reproducer else {}


def _recipe(call: Call, memory: MemoryRecipe | None, source: str = "") -> MemoryRecipe:
    """The file's memory, or images the call fits in; refused (UsageError) where those would not fit
    the product (a legal call may address GM byte 10**13: its image is not allocated)."""
    from .memory import check_sizes
    if memory is not None:
        return memory
    rulebook = default_rulebook()
    try:
        sizes = image_sizes(call, rulebook)
        check_sizes(sizes, rulebook.product(call.product), "memory.sizes")
    except CallFormatError as exc:
        raise UsageError(f"{source or call.api}: the images the call needs: {exc}") from None
    return MemoryRecipe(0, sizes)


def cmd_check(args: argparse.Namespace) -> int:
    from oracle.rules import context

    from .text import printable
    call, memory, meta = load_call_file(args.file)
    try:
        # Rules on memory contents (Scatter's offsets) need the file's memory; random bytes are no offsets.
        violations = check(call, memory.build() if memory is not None else None)
    except CallFormatError as exc:
        raise UsageError(printable(f"{args.file}: {exc}", 400)) from None
    print(printable(f"{call.api} on {call.product}" + (f" (form {call.form})" if call.form else "")))
    if memory is None and any(d.get("values") for d in default_rulebook().api(call.api).operands.values()):
        print("  (no memory in the file: the rules on the offsets in memory are not evaluated)")
    klass = verdict_class(violations)
    print({"legal": "legal: a conforming backend runs it and leaves the image below",
           "reject": "must be refused (Rejected):",
           "undefined": "undefined territory: anything but a crash or hang is accepted:"}[klass])
    for v in violations:
        print("  " + printable(f"{v.severity:<9} {v.rule}: {v.message}"))
    if klass == "reject":
        return EXIT_OK
    recipe = _recipe(call, memory, printable(args.file))
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
    if args.no_oracle and not args.against:
        raise UsageError("--no-oracle judges two backends' agreement alone: name the other with --against B")
    supervisor = Supervisor(args.backend, 1, args.timeout, against=args.against, oracle=not args.no_oracle)
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
    from .text import printable
    from .verdicts import NONCONFORMING
    status = EXIT_OK
    for path in files:
        try:
            call, memory, meta = load_call_file(path)
            recipe = _recipe(call, memory, printable(path))
        except (UsageError, CallFormatError, SpecError) as exc:
            print("MALFORMED      " + printable(exc))
            status = EXIT_USAGE
            continue
        outcome = supervisor.judge(Replay(call.to_dict(), recipe.to_dict()), stop)
        if outcome is None:
            print("ascend-conformance: interrupted", file=sys.stderr)
            return 130
        recorded = meta.get("verdict")
        verdict, message = outcome["verdict"], outcome["message"]
        if "agreement" in outcome:      # --against: the two backends' agreement is what is replayed
            if outcome["agreement"] == "AGREE" and verdict not in {v.value for v in NONCONFORMING}:
                print(printable(f"FIXED          {path}: AGREE ({outcome['agreement_message']}); {verdict}"))
                continue
            if outcome["agreement"] == "DIVERGE":
                verdict, message = "DIVERGE", outcome["agreement_message"]
        if verdict not in {v.value for v in NONCONFORMING} and verdict != "DIVERGE":
            print(printable(f"FIXED          {path}: {verdict} ({message})"))
        else:
            same = "" if not recorded else " (as recorded)" if recorded == verdict else f" (recorded: {recorded})"
            print(printable(f"STILL FAILING  {path}: {verdict}{same}: {message}"))
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
                        help="a call taking longer is a CRASH (default 10)")
    target.add_argument("--against", metavar="B", help="also run every call on backend B, on a copy of the same "
                        "memory: each call AGREEs or DIVERGEs (any byte, a refusal, a crash)")
    target.add_argument("--cluster", metavar="ADDRESS", help="send the cells to a Dask scheduler "
                        "(tcp://host:8786; the 'dask' extra) instead of local workers")
    target.add_argument("--no-oracle", action="store_true", help="with --against: judge agreement alone, "
                        "not the backend against the oracle")
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
    rep.add_argument("--against", metavar="B", help="run each call on B too: FIXED only when they agree")
    rep.add_argument("--no-oracle", action="store_true", help="with --against: agreement alone")
    rep.set_defaults(func=cmd_replay)

    spc = sub.add_parser("specs", help="list products, apis, rules and ambiguities")
    spc.add_argument("--api", action="append")
    spc.set_defaults(func=cmd_specs)
    return top


EXIT_INTERNAL = 3       # a bug of the kit: exit 1 means "does not conform" and nothing else


def main(argv: Sequence[str] | None = None) -> int:
    """Exit 0 conforms, 1 does not conform, 2 bad input (one line on stderr), 3 a bug of the kit (its
    traceback), 130 interrupted."""
    from .results import ResultsError
    from .text import printable
    from .untrusted import FileFormatError
    from .waivers import WaiverError
    args = parser().parse_args(argv)
    try:
        return args.func(args)
    except (UsageError, BackendLoadError, SpecError, ResultsError, WaiverError, FileFormatError,
            CallFormatError, FolderBusy, ClusterError) as exc:
        print(f"ascend-conformance: error: {printable(exc, 1000)}", file=sys.stderr)
        return EXIT_USAGE
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


if __name__ == "__main__":
    sys.exit(main())
