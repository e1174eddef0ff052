"""check and replay: one call from a file (a reproducer, or a call written by hand), explained by the oracle
or run again on a backend."""
from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np

from oracle import Call, CallFormatError, SpecError, check, expected, verdict_class
from oracle.spec import default_rulebook

from conformance.commands.options import Options, EXIT_NONCONFORMING, EXIT_OK, EXIT_USAGE, UsageError
from conformance.generate.memory import MemoryRecipe, image_sizes
from conformance.judge.bytemap import decoded_text


def load_call_file(path: str) -> tuple[Call, MemoryRecipe | None, dict[str, Any]]:
    """A bare call (api/product/form/args) or a reproducer (call + memory + what was seen), read as an
    untrusted file (conformance/untrusted.py: size, encoding, no YAML aliases, real dates); the call's
    product must be one the specs know and the memory's sizes within its scopes. UsageError is one line
    naming the file and the field."""
    from conformance.report.text import printable
    from conformance.report.untrusted import FileFormatError, load_yaml
    name = printable(str(path))
    try:
        data = load_yaml(path, what="call")
    except FileFormatError as exc:
        raise UsageError(str(exc)) from None
    reproducer = isinstance(data, dict) and "call" in data
    try:
        if reproducer:
            known = {"cell", "verdict", "message", "expect", "rule", "readings", "call", "memory", "reproducer"}
            unknown = sorted(map(str, set(data) - known))
            if unknown:
                raise CallFormatError(f"unknown field {unknown[0]!r} in a reproducer (known: {', '.join(sorted(known))})")
            if not isinstance(data.get("verdict", ""), str):
                raise CallFormatError(f"verdict: expected a string, got {type(data['verdict']).__name__}")
            _recorded_readings(data.get("readings"))
        call = Call.from_dict(data["call"] if reproducer else data)
        products = default_rulebook().products
        if call.product not in products:
            raise CallFormatError(f"call.product: unknown product {call.product!r} (known: {', '.join(products)})")
        memory = MemoryRecipe.from_dict(data["memory"], "memory", products[call.product]) \
            if reproducer and "memory" in data else None
    except CallFormatError as exc:
        raise UsageError(f"{name}: {printable(str(exc), 400)}") from None
    return call, memory, data if reproducer else {}


def _recorded_readings(readings: Any) -> dict[str, str]:
    """A reproducer's `readings` (what its call was judged by): a mapping of known ambiguity ids to their
    reading ids, or nothing; CallFormatError naming the field otherwise."""
    if readings is None:
        return {}
    if not isinstance(readings, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                 for k, v in readings.items()):
        raise CallFormatError("readings: expected a mapping of ambiguity id -> reading id (strings)")
    for amb, reading in readings.items():
        try:
            default_rulebook().with_readings({amb: reading})
        except ValueError as exc:
            raise CallFormatError(f"readings.{amb}: {exc}") from None
    return dict(readings)


def _recipe(call: Call, memory: MemoryRecipe | None, source: str = "") -> MemoryRecipe:
    """The file's memory, or images the call fits in; refused (UsageError) where those would not fit
    the product (a legal call may address GM byte 10**13: its image is not allocated)."""
    from conformance.generate.memory import check_sizes
    if memory is not None:
        return memory
    rulebook = default_rulebook()
    try:
        sizes = image_sizes(call, rulebook)
        check_sizes(sizes, rulebook.product(call.product), "memory.sizes")
    except CallFormatError as exc:
        raise UsageError(f"{source or call.api}: the images the call needs: {exc}") from None
    return MemoryRecipe(0, sizes)


def cmd_check(args: Options) -> int:
    from oracle.rules import context

    from conformance.report.text import printable
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
                print(f"    before: {decoded_text(before, t.dtype, ctx.rulebook)}")
                print(f"    after:  {decoded_text(after, t.dtype, ctx.rulebook)}")
                undefined = int(np.count_nonzero(~want.defined[t.scope]))
                if undefined:
                    print(f"    {undefined} byte(s) of {t.scope} are left open by the documentation")
    return EXIT_OK


def cmd_replay(args: Options) -> int:
    """Each file's call judged in a supervised worker: a backend that dies or hangs on it is a CRASH."""
    from conformance.supervise.pool import Supervisor
    from conformance.supervise.tasks import Stop
    if args.no_oracle and not args.against:
        raise UsageError("--no-oracle judges two backends' agreement alone: name the other with --against B")
    from conformance.commands.options import edition_of, isolation_of, readings_of
    files = reproducer_files(args.files)
    supervisor = Supervisor(args.backend, 1, args.timeout, against=args.against, oracle=not args.no_oracle,
                            readings=readings_of(args), isolation=isolation_of(args), edition=edition_of(args),
                            specs=default_rulebook)
    stop = Stop()
    restore = stop.install()
    try:
        supervisor.start(stop)
        return _replay(files, supervisor, stop)
    finally:
        supervisor.close(stop)
        restore()


REPRODUCER_SUFFIXES = (".yaml", ".yml", ".json")


def reproducer_files(given: list[str]) -> list[str]:
    """The files to replay: each file given, and the reproducers (.yaml, .yml, .json) of each folder given,
    by name; a folder with none is a usage error."""
    out = []
    for path in given:
        if os.path.isdir(path):
            found = sorted(os.path.join(path, n) for n in os.listdir(path)
                           if n.endswith(REPRODUCER_SUFFIXES) and os.path.isfile(os.path.join(path, n)))
            if not found:
                raise UsageError(f"{path}: a folder with no reproducer in it (.yaml, .yml or .json files)")
            out += found
        else:
            out.append(path)
    return out


def _replay(files: list[str], supervisor: Any, stop: Any) -> int:
    """FIXED / STILL FAILING / MALFORMED per file; the worst status of them all."""
    from conformance.judge.verdicts import NONCONFORMING
    from conformance.report.text import printable
    from conformance.supervise.tasks import Replay
    status = EXIT_OK
    for path in files:
        try:
            call, memory, meta = load_call_file(path)
            recipe = _recipe(call, memory, printable(path))
        except (UsageError, CallFormatError, SpecError) as exc:
            print("MALFORMED      " + printable(exc))
            status = EXIT_USAGE
            continue
        outcome = supervisor.replay(Replay(call.to_dict(), recipe.to_dict(),
                                          readings=_recorded_readings(meta.get("readings"))), stop)
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
