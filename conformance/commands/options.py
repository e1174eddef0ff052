"""What the command line accepts: exit statuses, the limits of -n and --timeout, and the values of the
options every running command shares."""
from __future__ import annotations

import argparse
import datetime as dt
import math
import os
from typing import Any


from oracle.spec import default_rulebook




EXIT_OK, EXIT_NONCONFORMING, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Input the user can fix; printed as one line."""


MAX_WORKERS = 256          # worker processes at most, and at most WORKERS_PER_CORE per core
WORKERS_PER_CORE = 4
MAX_TIMEOUT_S = 24 * 3600  # a call's time limit is below a day


def workers_arg(value: str) -> str:
    """-n: 'auto' or a number of worker processes the machine can hold."""
    if value != "auto" and not (value.isascii() and value.isdigit()):
        raise argparse.ArgumentTypeError(f"-n expects a number of workers or 'auto', got {value!r}")
    limit = min(MAX_WORKERS, WORKERS_PER_CORE * (os.cpu_count() or 1))
    if value != "auto" and int(value) > limit:
        raise argparse.ArgumentTypeError(f"-n {value}: at most {limit} workers ({WORKERS_PER_CORE} per core on "
                                         f"{os.cpu_count() or 1} cores, {MAX_WORKERS} in all)")
    return value


def products_and_apis(args: argparse.Namespace) -> tuple[list[str], list[str]]:
    rulebook = default_rulebook()
    for p in args.product:
        if p not in rulebook.products:
            raise UsageError(f"unknown product {p!r} (known: {', '.join(rulebook.products)})")
    apis = args.api or sorted(rulebook.apis)
    for a in apis:
        if a not in rulebook.apis:
            raise UsageError(f"unknown api {a!r} (known: {', '.join(sorted(rulebook.apis))})")
    return list(args.product), apis


def waivers_of(args: argparse.Namespace):
    """The waiver file's entries (None when no --waivers); a bad file is a one-line usage error."""
    from conformance.report.waivers import WaiverError, load_waivers
    if not getattr(args, "waivers", None):
        return None
    try:
        return load_waivers(args.waivers)
    except WaiverError as exc:
        raise UsageError(str(exc)) from None


def waive(results: dict[str, Any], waivers) -> None:
    """Apply the waivers (if any) as of today and refresh the verdicts."""
    from conformance.report.results import finish
    from conformance.report.waivers import apply_waivers
    if waivers is not None:
        apply_waivers(results, waivers, dt.date.today())
        finish(results)


def worker_count(value: str) -> int:
    return os.cpu_count() or 1 if value == "auto" else max(1, int(value))


def shard_arg(value: str) -> tuple[int, int]:
    import re
    match = re.fullmatch(r"(\d+)/(\d+)", value.strip())
    if match and 1 <= int(match[1]) <= int(match[2]):
        return int(match[1]), int(match[2])
    raise argparse.ArgumentTypeError(f"--shard expects I/N with 1 <= I <= N, e.g. 2/4; got {value!r}")


def chosen_cells(args: argparse.Namespace, products: list[str], apis: list[str]) -> list:
    """The cells of the products and apis, narrowed by --select globs and --shard."""
    from conformance.generate.cells import cells, select, shard
    chosen = select(cells(products, apis), getattr(args, "select", None))
    if getattr(args, "select", None) and not chosen:
        raise UsageError(f"no cell matches --select {' '.join(args.select)}")
    if getattr(args, "shard", None):
        chosen = shard(chosen, *args.shard)
    return chosen


def seconds_arg(value: str) -> float:
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


EXIT_INTERNAL = 3       # a bug of the kit: exit 1 means "does not conform" and nothing else
