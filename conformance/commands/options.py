"""What the command line accepts: exit statuses, the limits of -n and --timeout, and the values of the
options every running command shares."""
from __future__ import annotations

import argparse
from dataclasses import dataclass, fields, replace
import datetime as dt
import math
import os
from typing import Any, Callable

from oracle.spec import SEED, default_rulebook

EXIT_OK, EXIT_NONCONFORMING, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Input the user can fix; printed as one line."""


MAX_WORKERS = 256          # worker processes at most, and at most WORKERS_PER_CORE per core
WORKERS_PER_CORE = 4
MAX_TIMEOUT_S = 24 * 3600  # a call's time limit is below a day


@dataclass(frozen=True)
class Options:
    """Every option of every command, parsed once at the command line (cli.main) into this value: the
    commands read typed fields, never argparse's Namespace; an option a command does not take keeps its
    default here. Lists are tuples (a value, not a buffer)."""

    command: str = ""
    func: Callable[["Options"], int] | None = None
    backend: str | None = None
    product: tuple[str, ...] | None = None
    api: tuple[str, ...] | None = None
    workers: str = "1"
    timeout: float | None = None
    against: str | None = None
    no_oracle: bool = False
    cluster: str | None = None
    in_process: bool = False
    backend_user: str | None = None
    reading: tuple[tuple[str, str], ...] | None = None
    readings: str | None = None
    edition: str | None = None
    verbosity: int = 0
    select: tuple[str, ...] | None = None
    shard: tuple[int, int] | None = None
    report: str = "reports"
    seed: int | None = None
    challenge: str | None = None
    challenge_file: str | None = None
    accept_waivers: str | None = None
    allow_partial: bool = False
    confidence: float | None = None
    rate: float | None = None
    waivers: str | None = None
    profile: str = "ci"
    list: bool = False
    maxfail: int | None = None
    last_failed: bool = False
    bundle: str | None = None
    duration: str | None = None
    db: str | None = None
    out: str | None = None
    batch: bool = False
    files: tuple[str, ...] | None = None
    file: str | None = None
    format: str = "text"
    editions: bool = False
    sample: float | None = None
    coverage: bool = False

    @classmethod
    def of(cls, namespace: argparse.Namespace) -> "Options":
        """The parsed command line as Options (an option the parser has and this value has not is a bug
        of the kit: said at once)."""
        values = vars(namespace)
        missing = set(values) - {f.name for f in fields(cls)}
        if missing:
            raise TypeError(f"options the parser has and Options has not: {', '.join(sorted(missing))}")
        return cls(**_frozen(values))

    def with_(self, **changes: Any) -> "Options":
        """These options with some changed (--lf's cells, promote's products)."""
        return replace(self, **_frozen(changes))


def _frozen(values: dict[str, Any]) -> dict[str, Any]:
    """Option values with their lists made tuples."""
    return {k: tuple(v) if isinstance(v, list) else v for k, v in values.items()}


class Parser(argparse.ArgumentParser):
    """argparse as the kit's commands use it: no abbreviated options (`--profil` is not `--profile`), and
    an error in one line on stderr, exit 2, with the nearest valid choice where one is near."""

    def __init__(self, *args: Any, **kwargs: Any):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        import re
        import sys
        wrong = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if wrong:
            message += did_you_mean(wrong[1], re.findall(r"'([^']*)'", wrong[2]))
        print(f"{self.prog}: error: {' '.join(message.split())}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def did_you_mean(given: str, known: Any) -> str:
    """' (did you mean X?)' for a near miss of one of `known`, else ''."""
    import difflib
    near = difflib.get_close_matches(str(given), [str(k) for k in known], n=1, cutoff=0.6)
    return f" (did you mean {near[0]}?)" if near else ""


def unknown(what: str, given: str, known: Any) -> UsageError:
    """'unknown product 'ascend91b' (did you mean ascend910b?) (known: ...)'."""
    known = list(known)
    return UsageError(f"unknown {what} {given!r}{did_you_mean(given, known)} (known: {', '.join(map(str, known))})")


def whole_number(option: str, least: int, what: str) -> Any:
    """An option's type: a whole number from `least` (in ASCII digits; a sign is no digit)."""
    def parse(value: str) -> int:
        if not (value.isascii() and value.isdigit() and int(value) >= least):
            raise argparse.ArgumentTypeError(f"{option} expects {what} from {least}, got {value!r}")
        return int(value)
    return parse


maxfail_arg = whole_number("--maxfail", 1, "a number of failing cells")
seed_arg = whole_number("--seed", 0, "a whole number")     # a negative seed would name the same run as another


def workers_arg(value: str) -> str:
    """-n: 'auto' or a number of worker processes (at least 1) the machine can hold."""
    if value != "auto" and not (value.isascii() and value.isdigit() and int(value) >= 1):
        raise argparse.ArgumentTypeError(f"-n expects a number of workers from 1, or 'auto', got {value!r}")
    limit = min(MAX_WORKERS, WORKERS_PER_CORE * (os.cpu_count() or 1))
    if value != "auto" and int(value) > limit:
        raise argparse.ArgumentTypeError(f"-n {value}: at most {limit} workers ({WORKERS_PER_CORE} per core on "
                                         f"{os.cpu_count() or 1} cores, {MAX_WORKERS} in all)")
    return value


def products_and_apis(args: Options) -> tuple[list[str], list[str]]:
    rulebook = default_rulebook()
    for p in args.product:
        if p not in rulebook.products:
            raise unknown("product", p, rulebook.products)
    apis = args.api or sorted(rulebook.apis)
    for a in apis:
        if a not in rulebook.apis:
            raise unknown("api", a, sorted(rulebook.apis))
    return list(args.product), apis


def waivers_of(args: Options):
    """The waiver file's entries (None when no --waivers); a bad file is a one-line usage error."""
    from conformance.report.waivers import WaiverError, load_waivers
    if not args.waivers:
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


def reading_arg(value: str) -> tuple[str, str]:
    """--reading AMBIGUITY=READING (checked against the specs with the others: readings_of)."""
    amb, sep, reading = value.partition("=")
    if not sep or not amb.strip() or not reading.strip():
        raise argparse.ArgumentTypeError(f"--reading expects AMBIGUITY=READING (an ambiguity id and one of its readings, as `specs` lists them), "
                                         f"got {value!r}")
    return amb.strip(), reading.strip()


def readings_of(args: Options) -> dict[str, str]:
    """The readings the command line declares: --readings FILE (a YAML mapping ambiguity id -> reading
    id, an untrusted file), then each --reading over it. An unknown ambiguity or reading, or a bad
    file, is a one-line usage error naming the file and field or the option."""
    from conformance.report.text import printable
    from conformance.report.untrusted import FileFormatError, load_yaml
    rulebook = default_rulebook()
    declared: dict[str, str] = {}
    path = args.readings
    if path:
        name = printable(str(path))
        try:
            data = load_yaml(path, what="readings")
        except FileFormatError as exc:
            raise UsageError(str(exc)) from None
        if not isinstance(data, dict):
            raise UsageError(f"{name}: expected a mapping of ambiguity id -> reading id, got "
                             f"{type(data).__name__}")
        for amb, reading in data.items():
            where = f"{name}: {printable(str(amb), 200)}"
            if not isinstance(amb, str) or not isinstance(reading, str):
                raise UsageError(f"{where}: expected an ambiguity id mapped to a reading id (strings), got "
                                 f"{printable(repr(reading), 100)}")
            _known(rulebook, amb, reading, where)
            declared[amb] = reading
    for amb, reading in args.reading or []:
        _known(rulebook, amb, reading, printable(f"--reading {amb}={reading}", 300))
        declared[amb] = reading
    return declared


def _known(rulebook: Any, amb: str, reading: str, where: str) -> None:
    try:
        rulebook.with_readings({amb: reading})
    except ValueError as exc:
        raise UsageError(f"{where}: {exc}") from None


def edition_of(args: Options) -> str | None:
    """--edition: None for the seed pages (the default), else an edition the specs record (a usage error
    naming the known ones otherwise)."""
    edition = args.edition
    if edition is None:
        return None
    rulebook = default_rulebook()
    if edition not in rulebook.editions:
        raise UsageError(f"--edition {edition}: unknown edition (known: {', '.join(rulebook.editions)})")
    return None if edition == SEED else edition


def ambiguity_ids(apis: list[str], declared: dict[str, str], against: bool) -> list[str]:
    """The ambiguities whose regions the run enters: those a reading is declared for, or under --against
    every ambiguity of the apis (judged UNDEFINED where none is declared, and for agreement)."""
    from conformance.generate.cells import ambiguity_ids as every_ambiguity
    every = every_ambiguity(apis, rulebook=default_rulebook())
    return every if against else [a for a in every if a in declared]


def chosen_cells(args: Options, products: list[str], apis: list[str],
                 ambiguities: list[str] | None = None) -> list:
    """The cells of the products and apis (and the ambiguity cells of `ambiguities`), narrowed by
    --select globs and --shard."""
    from conformance.generate.cells import cells, select, shard
    chosen = select(cells(products, apis, rulebook=default_rulebook(), ambiguities=ambiguities), args.select)
    if args.select and not chosen:
        raise UsageError(f"no cell matches --select {' '.join(args.select)}")
    if args.shard:
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


def isolation_of(args: Options):
    """Where the backend runs (`--in-process`, `--backend-user NAME`); a user that cannot be had is a
    one-line usage error: --backend-user needs the kit started as root, and a user other than root."""
    from conformance.supervise.tasks import Isolation
    in_process, user = bool(args.in_process), args.backend_user
    if user is None:
        return Isolation(not in_process)
    if in_process:
        raise UsageError("--backend-user runs the backend in a process of its own, as that user: "
                         "it cannot be combined with --in-process")
    if os.geteuid() != 0:
        raise UsageError(f"--backend-user {user}: only a kit started as root can run the backend as another "
                         f"user (this one runs as uid {os.geteuid()}, which is already the backend's)")
    import pwd
    try:
        entry = pwd.getpwnam(user)
    except KeyError:
        raise UsageError(f"--backend-user {user}: no such user on this machine") from None
    if entry.pw_uid == 0:
        raise UsageError(f"--backend-user {user}: uid 0 is root, the judge's own user: name an unprivileged one")
    return Isolation(True, user)


def challenge_of(args: Options, warn: bool = False):
    """The run's challenge (conformance/generate/challenge.py): --challenge-file, --challenge HEX, else the
    environment's ASCEND_CONFORMANCE_CHALLENGE, else None, kept from every backend process
    (conformance/commands/hidden.py); one that is not hex of the right length is a usage error, as is one
    beside --seed (the challenge gives the seed)."""
    from conformance.commands.hidden import take_challenge
    from conformance.generate.challenge import ChallengeError
    try:
        challenge = take_challenge(args.challenge, args.challenge_file, warn)
    except ChallengeError as exc:
        raise UsageError(str(exc)) from None
    if challenge is not None and args.seed is not None:
        raise UsageError("--seed and a challenge: the challenge gives the run's seed; give one or the other")
    return challenge
