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
import os
import random
import sys
import time
from collections import Counter
from importlib.metadata import PackageNotFoundError, version as dist_version
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

EXIT_OK, EXIT_NONCONFORMING, EXIT_USAGE = 0, 1, 2
SUITE = Path(__file__).resolve().parent / "suite"


class UsageError(Exception):
    """Input the user can fix; printed as one line."""


def kit_version() -> str:
    try:
        return dist_version("ascend-conformance")
    except PackageNotFoundError:
        return "0.1.0+source"


# ---------------------------------------------------------------------------------------------
# run

def _workers(value: str) -> str:
    if value == "auto" or (value.isdigit() and int(value) >= 0):
        return value
    raise argparse.ArgumentTypeError(f"-n expects a number of workers or 'auto', got {value!r}")


def cmd_run(args: argparse.Namespace) -> int:
    import pytest

    from .cells import cells, select
    from .plugin import Collector
    from .results import RunResult, ambiguity_list, spec_hash, summary

    rulebook = default_rulebook()
    products = args.product
    for p in products:
        if p not in rulebook.products:
            raise UsageError(f"unknown product {p!r} (known: {', '.join(rulebook.products)})")
    apis = args.api or sorted(rulebook.apis)
    for a in apis:
        if a not in rulebook.apis:
            raise UsageError(f"unknown api {a!r} (known: {', '.join(sorted(rulebook.apis))})")
    backend = load_backend(args.backend)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    chosen = select(cells(products, apis), args.select)
    if not chosen:
        raise UsageError(f"no cell matches --select {' '.join(args.select)}")
    report = Path(args.report)
    print(f"ascend-conformance {kit_version()}: backend {backend.name!r} on {', '.join(products)}, "
          f"apis {', '.join(apis)}, profile {args.profile}, seed {seed}, {len(chosen)} cells", flush=True)

    pytest_args = [str(SUITE / "test_cells.py"), "-c", str(SUITE / "pytest.ini"), "--rootdir", str(SUITE),
                   "-p", "conformance.plugin", "-p", "no:cacheprovider",
                   "--ac-backend", args.backend, "--ac-profile", args.profile, "--ac-seed", str(seed),
                   "-q", "--no-header", "--tb=no", "-p", "no:warnings"]
    for p in products:
        pytest_args += ["--ac-product", p]
    for a in args.api or []:
        pytest_args += ["--ac-api", a]
    for s in args.select or []:
        pytest_args += ["--ac-select", s]
    if args.workers not in ("0", "1"):
        pytest_args += ["-p", "xdist.plugin", "-n", args.workers]
    collector = Collector(sys.stdout, total=len(chosen))
    started = time.monotonic()
    when = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    # Only the plugins the run needs: a user's pytest plugins (randomly, benchmark...) stay out of it.
    # pytest's own output is kept aside; the collector prints one line per cell instead.
    with _environ(PYTEST_DISABLE_PLUGIN_AUTOLOAD="1"), contextlib.redirect_stdout(io.StringIO()) as pytest_out:
        code = pytest.main(pytest_args, plugins=[collector])
    interrupted = code == pytest.ExitCode.INTERRUPTED
    if code == pytest.ExitCode.INTERNAL_ERROR or (code == pytest.ExitCode.USAGE_ERROR):
        collector.errors.append("pytest: " + pytest_out.getvalue().strip().splitlines()[-1:][0]
                                if pytest_out.getvalue().strip() else f"pytest exited with {int(code)}")
    result = RunResult(
        meta={"kit": {"name": "ascend-conformance", "version": kit_version()}, "spec_hash": spec_hash(rulebook),
              "backend": {"name": backend.name, "spec": args.backend,
                          "version": str(getattr(backend, "version", "") or "")},
              "products": products, "apis": apis, "profile": args.profile, "seed": seed,
              "workers": args.workers, "select": args.select or [], "started": when,
              "duration_s": round(time.monotonic() - started, 2), "interrupted": interrupted,
              "cells_planned": len(chosen), "planned": dict(Counter(c.product for c in chosen))},
        cells=collector.results, errors=collector.errors,
        ambiguities=ambiguity_list(rulebook, [a for a in apis if any(c.api == a for c in chosen)]))
    out = result.write(report)
    print()
    print(summary(result))
    print()
    for amb in result.ambiguities:
        print(f"ambiguity {amb['id']} (no call generated there): {amb['question']}")
    for failure in result.failures:
        print(f"{failure['verdict']:<13} {failure['cell']}: {failure['message']}")
        print(f"              reproduce: ascend-conformance replay {failure['reproducer']} --backend {args.backend}")
    for err in result.errors:
        print(f"ERROR         {err}")
    missing = len(chosen) - len(result.cells)
    verdict = "CONFORMS" if result.conforms and not missing else "DOES NOT CONFORM" if not result.conforms else "INCOMPLETE"
    print(f"\n{verdict}: {result.calls} calls in {len(result.cells)}/{len(chosen)} cells, "
          + ", ".join(f"{k} {v}" for k, v in result.totals.items())
          + f"; {result.meta['duration_s']}s; seed {seed}; results in {out}")
    if interrupted:
        print("interrupted: the results above are those gathered before the interruption")
        return 130
    if result.conforms and missing == 0:
        return EXIT_OK
    return EXIT_NONCONFORMING


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
    from .verdicts import judge
    backend = load_backend(args.backend)
    status = EXIT_OK
    for path in args.files:
        try:
            call, memory, meta = load_call_file(path)
            outcome = judge(call, _recipe(call, memory), backend)
        except (UsageError, CallFormatError) as exc:
            print(f"MALFORMED      {exc}")
            status = EXIT_USAGE
            continue
        if outcome.conforms:
            print(f"FIXED          {path}: {outcome.verdict} ({outcome.message})")
        else:
            print(f"STILL FAILING  {path}: {outcome.verdict}: {outcome.message}")
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

    run = sub.add_parser("run", help="run the suite on a backend and write a report")
    run.add_argument("--backend", required=True, help="oracle | package.module:attr | entry-point name")
    run.add_argument("--product", action="append", required=True, help="product id (repeatable)")
    run.add_argument("--api", action="append", help="api to test (repeatable; default: all)")
    run.add_argument("--select", action="append", help="only cells whose id matches this glob (repeatable)")
    run.add_argument("--profile", default="ci", choices=sorted(PROFILES), help="quick | ci | nightly (default ci)")
    run.add_argument("--report", default="reports", help="report folder (default reports/)")
    run.add_argument("-n", dest="workers", default="1", type=_workers, help="worker processes (pytest-xdist)")
    run.add_argument("--seed", type=int, help="run seed; the same seed repeats the run exactly")
    run.set_defaults(func=cmd_run)

    chk = sub.add_parser("check", help="legality and expected memory image of one call (YAML/JSON file)")
    chk.add_argument("file")
    chk.set_defaults(func=cmd_check)

    rep = sub.add_parser("replay", help="re-run reproducer files on a backend: FIXED / STILL FAILING")
    rep.add_argument("files", nargs="+")
    rep.add_argument("--backend", required=True)
    rep.set_defaults(func=cmd_replay)

    spc = sub.add_parser("specs", help="list products, apis, rules and ambiguities")
    spc.add_argument("--api", action="append")
    spc.set_defaults(func=cmd_specs)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.func(args)
    except (UsageError, BackendLoadError, SpecError) as exc:
        print(f"ascend-conformance: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("ascend-conformance: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
