"""`ascend-conformance`: run the suite on a backend, explain one call, replay reproducers, list specs.

Bad input (unknown product, a backend that cannot be imported, an unreadable file) gets one line on
stderr and exit status 2, never a traceback. `run` exits 0 only when the backend conforms on every
call it ran, 1 when it does not.
"""
from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import io
import math
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
from .bytemap import decoded_text
from .memory import MemoryRecipe, image_sizes
from .profiles import PROFILES
from .results import kit_version

EXIT_OK, EXIT_NONCONFORMING, EXIT_USAGE = 0, 1, 2
SUITE = Path(__file__).resolve().parent / "suite"


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


class _Described:
    """What the controlling process keeps of a backend: its name and version (the calls run in the
    workers, each with its own instance; an exec: program started here only to say hello is closed)."""

    def __init__(self, backend: Any):
        self.name, self.version = backend.name, str(getattr(backend, "version", "") or "")


def _described(args: argparse.Namespace) -> _Described:
    backend = load_backend(args.backend, args.timeout)
    described = _Described(backend)
    if callable(getattr(backend, "close", None)):
        backend.close()
    return described


def run_suite(backend_spec: str, backend: Any, products: list[str], apis: list[str], chosen: list, *,
              profile: str, seed: int, workers: str, select: list[str], frozen: bool = False,
              timeout: float | None = None, shard: tuple[int, int] | None = None) -> dict[str, Any]:
    """Run the chosen cells through pytest (and pytest-xdist) and return the results document; an
    interrupted run returns what it gathered, marked `interrupted`."""
    import pytest

    from .plugin import Collector
    from .results import results_document

    pytest_args = [str(SUITE / "test_cells.py"), "-c", str(SUITE / "pytest.ini"), "--rootdir", str(SUITE),
                   "-p", "conformance.plugin", "-p", "no:cacheprovider",
                   "--ac-backend", backend_spec, "--ac-profile", profile, "--ac-seed", str(seed),
                   "-q", "--no-header", "--tb=no", "-p", "no:warnings"]
    for p in products:
        pytest_args += ["--ac-product", p]
    for a in apis:
        pytest_args += ["--ac-api", a]
    for s in select:
        pytest_args += ["--ac-select", s]
    if frozen:
        pytest_args.append("--ac-frozen")
    if timeout:
        pytest_args += ["--ac-timeout", str(timeout)]
    if shard:
        pytest_args += ["--ac-shard", f"{shard[0]}/{shard[1]}"]
    if workers not in ("0", "1"):
        pytest_args += ["-p", "xdist.plugin", "-n", workers]
    collector = Collector(sys.stdout, total=len(chosen))
    started = time.monotonic()
    when = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    # Only the plugins the run needs: a user's pytest plugins (randomly, benchmark...) stay out of it.
    # pytest's own output is kept aside; the collector prints one line per cell instead.
    with _environ(PYTEST_DISABLE_PLUGIN_AUTOLOAD="1"), contextlib.redirect_stdout(io.StringIO()) as pytest_out:
        code = pytest.main(pytest_args, plugins=[collector])
    if code in (pytest.ExitCode.INTERNAL_ERROR, pytest.ExitCode.USAGE_ERROR):
        said = pytest_out.getvalue().strip().splitlines()
        collector.errors.append("pytest: " + said[-1] if said else f"pytest exited with {int(code)}")
    described = {"name": backend.name, "spec": backend_spec, "version": str(getattr(backend, "version", "") or "")}
    return results_document(default_rulebook(), described,
                            chosen, collector.results, collector.errors, profile=profile, seed=seed,
                            workers=workers, select=select, started=when,
                            duration_s=round(time.monotonic() - started, 2),
                            interrupted=code == pytest.ExitCode.INTERRUPTED, timeout=timeout,
                            shard=f"{shard[0]}/{shard[1]}" if shard else None)


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
    print(printable(f"{words}: {results['calls']} calls in {len(results['cells'])}/{len(results['planned'])} cells, "
                    + ", ".join(f"{k} {v}" for k, v in results["totals"].items())
                    + f"; {results['duration_s']}s; seed {results['seed']}; report in {folder}", 100_000))
    for path in [folder / "results.json", folder / "junit.xml", *(folder / report_name(p) for p in results["products"])]:
        print("  " + printable(str(path)))
    if results.get("interrupted") or results.get("stopped"):
        print("interrupted: the results above are those gathered before the interruption")
        return 130
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
    from .outputs import write_outputs

    products, apis = _products_and_apis(args)
    waivers = _waivers(args)
    backend = _described(args)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    chosen = _chosen(args, products, apis)
    report = Path(args.report)
    print(f"ascend-conformance {kit_version()}: backend {backend.name!r} on {', '.join(products)}, "
          f"apis {', '.join(apis)}, profile {args.profile}, seed {seed}, {len(chosen)} cells"
          + (f" (shard {args.shard[0]}/{args.shard[1]})" if args.shard else ""), flush=True)
    results = run_suite(args.backend, backend, products, apis,
                        chosen, profile=args.profile, seed=seed, workers=args.workers, select=args.select or [],
                        timeout=args.timeout, shard=args.shard)
    _waive(results, waivers)
    write_outputs(results, report)
    return _print_end(results, report, args.backend)


def cmd_certify(args: argparse.Namespace) -> int:
    from .bundle import CERTIFY_SEED, write_bundle
    from .cells import cells
    from .frozen import FrozenDataError, frozen_hash, load_frozen
    from .outputs import write_outputs

    products, apis = _products_and_apis(args)
    waivers = _waivers(args)
    backend = _described(args)
    chosen = cells(products, apis)
    try:
        frozen = load_frozen()
        digest = frozen_hash()
    except FrozenDataError as exc:
        raise UsageError(str(exc)) from None
    cases = sum(len(frozen.get(c.id, ())) for c in chosen)
    bundle = Path(args.bundle)
    print(f"ascend-conformance {kit_version()} certify: backend {backend.name!r} on {', '.join(products)}, "
          f"{len(chosen)} cells: {cases} frozen cases (list {digest}), then profile {args.profile} "
          f"with seed {CERTIFY_SEED}", flush=True)
    results = run_suite(args.backend, backend, products, apis,
                        chosen, profile=args.profile, seed=CERTIFY_SEED, workers=args.workers, select=[],
                        frozen=True, timeout=args.timeout)
    results["certify"] = {"frozen_hash": digest, "frozen_cases": cases}
    _waive(results, waivers)
    write_outputs(results, bundle)
    write_bundle(bundle, results, waivers_file=args.waivers, argv=sys.argv)
    return _print_end(results, bundle, args.backend)


def _database(spec: str | None):
    from .failuredb import DatabaseError, open_database
    try:
        return open_database(spec)
    except DatabaseError as exc:
        raise UsageError(str(exc)) from None


def cmd_fuzz(args: argparse.Namespace) -> int:
    from .failuredb import stored
    from .fuzz import Fuzzer, parse_duration
    from .outputs import write_outputs
    from .results import finish, results_document

    try:
        duration = parse_duration(args.duration)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    products, apis = _products_and_apis(args)
    backend = _described(args)
    chosen = _chosen(args, products, apis)
    db = _database(args.db)
    kept = stored(db, [c.id for c in chosen]) if db is not None else {}
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    workers = int(args.workers) if args.workers != "auto" else (os.cpu_count() or 1)
    report = Path(args.report)
    print(f"ascend-conformance {kit_version()} fuzz: backend {backend.name!r}, {len(chosen)} cells"
          + (f" (shard {args.shard[0]}/{args.shard[1]})" if args.shard else "")
          + f", {args.duration}, {workers} worker(s), seed {seed}, database {args.db or 'default'}: "
          f"{sum(map(len, kept.values()))} kept failure(s) replayed first", flush=True)
    described = {"name": backend.name, "spec": args.backend, "version": backend.version}
    when = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    started = time.monotonic()

    def document(cells: list[dict[str, Any]], interrupted: bool) -> dict[str, Any]:
        return results_document(default_rulebook(), described, chosen, cells, profile="fuzz", seed=seed,
                                workers=str(workers), select=args.select or [], started=when,
                                duration_s=round(time.monotonic() - started, 2), interrupted=interrupted,
                                timeout=args.timeout, shard=f"{args.shard[0]}/{args.shard[1]}" if args.shard else None,
                                fuzz={"duration": args.duration, "db": args.db or "default"})

    fuzzer = Fuzzer(chosen, args.backend, duration=duration, workers=workers, seed=seed, db_spec=args.db,
                    timeout=args.timeout, kept=kept,
                    write=lambda cells, interrupted: write_outputs(document(cells, interrupted), report))
    interrupted = fuzzer.run()
    results = document(list(fuzzer.results.values()), interrupted)
    # a fuzz run is over when its time is: cells it never reached are not missing, they were not drawn
    results["planned"] = [c["id"] for c in results["cells"]]
    finish(results)
    write_outputs(results, report)
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


@contextlib.contextmanager
def _environ(**values: str):
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


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
    backend = load_backend(args.backend, args.timeout)
    try:
        return _replay(args.files, backend)
    finally:
        if callable(getattr(backend, "close", None)):
            backend.close()


def _replay(files: list[str], backend: Any) -> int:
    """FIXED / STILL FAILING / MALFORMED per file; the worst status of them all."""
    from .text import printable
    from .verdicts import judge
    status = EXIT_OK
    for path in files:
        try:
            call, memory, meta = load_call_file(path)
            outcome = judge(call, _recipe(call, memory, printable(path)), backend)
        except (UsageError, CallFormatError, SpecError) as exc:
            print("MALFORMED      " + printable(exc))
            status = EXIT_USAGE
            continue
        recorded = meta.get("verdict")
        if outcome.conforms:
            print(printable(f"FIXED          {path}: {outcome.verdict} ({outcome.message})"))
        else:
            same = "" if not recorded else " (as recorded)" if recorded == outcome.verdict.value \
                else f" (recorded: {recorded})"
            print(printable(f"STILL FAILING  {path}: {outcome.verdict}{same}: {outcome.message}"))
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
            tag = " (inferred)" if r.inferred else ""
            print(f"  {r.severity:<9} {r.id:<{width}} {r.kind:<17}{tag}  「{' '.join(r.quote.split())[:70]}」")
        for a in spec.ambiguities:
            print(f"  ambiguity {a.id}: {' '.join(a.question.split())}")
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
            CallFormatError) as exc:
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
