"""The failure database that fuzzing runs share: a Hypothesis example database (a local directory, or
Redis so that workers on several machines share what any of them found).

Two kinds of entries live in it, per cell:
- Hypothesis's own (the choices that built a failing call), which a later search of the cell replays
  first (its `reuse` phase); they are only valid for the Hypothesis version and kit that wrote them;
- the kit's: every failure found, as the plain data of a reproducer (call + memory recipe + verdict),
  under `ascend-conformance/failure/<cell id>`. A later run judges these first too, whatever Hypothesis
  version it has, and `ascend-conformance promote` writes them out as reproducer files for a folder kept
  under version control, so that a failure outlives any database.
"""
from __future__ import annotations

import hashlib
import json
from datetime import timedelta
from pathlib import Path
from typing import Any, Iterable

from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase

from oracle import Call, CallFormatError

from conformance.generate.case import Case
from conformance.generate.memory import MemoryRecipe
from conformance.judge.reproducers import REPRO_FIELDS, reproducer_name

DEFAULT_DB = ".hypothesis/ascend-conformance"
PREFIX = b"ascend-conformance/failure/"
FIXED = b"ascend-conformance/fixed/"    # kept failures a later run's backend passed: not promoted
REDIS_EXPIRY = timedelta(days=90)       # Redis forgets keys not touched for this long (promote before)


class DatabaseError(ValueError):
    """A --db value that cannot be opened; the message says what and why."""


def open_database(spec: str | None) -> ExampleDatabase | None:
    """'none' -> no database; 'redis://host:port/n' -> Redis; anything else -> a directory."""
    if spec is None:
        spec = DEFAULT_DB
    if spec == "none":
        return None
    if spec.startswith(("redis://", "rediss://", "unix://")):
        try:
            import redis
            from hypothesis.extra.redis import RedisExampleDatabase
        except ImportError:
            raise DatabaseError(f"--db {spec}: the 'redis' package is not installed "
                                "(pip install 'ascend-conformance[redis]')") from None
        client = redis.Redis.from_url(spec)
        try:
            client.ping()
        except redis.RedisError as exc:
            raise DatabaseError(f"--db {spec}: cannot reach Redis: {exc}") from None
        # no prefix of its own: every key the kit writes already starts with "ascend-conformance"
        return RedisExampleDatabase(client, expire_after=REDIS_EXPIRY, key_prefix=b"")
    try:
        Path(spec).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DatabaseError(f"--db {spec}: cannot create the directory: {exc.strerror or exc}") from None
    return DirectoryBasedExampleDatabase(spec)


def _key(cell_id: str) -> bytes:
    return PREFIX + cell_id.encode()


def _value(failure: dict[str, Any]) -> bytes:
    body = {k: failure[k] for k in REPRO_FIELDS if k != "readings" or failure.get(k)}   # no readings: no key (the value of a failure without any)
    return json.dumps(body, sort_keys=True, separators=(",", ":")).encode()


def record(db: ExampleDatabase, failure: dict[str, Any]) -> None:
    """Keep a failure (a runner failure record) under its cell."""
    db.save(_key(failure["cell"]), _value(failure))


def stored(db: ExampleDatabase, cell_ids: Iterable[str]) -> dict[str, list[dict[str, Any]]]:
    """cell id -> the failures kept for it (unreadable entries are skipped: they cannot be replayed)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for cell_id in cell_ids:
        for value in db.fetch(_key(cell_id)):
            try:
                data = json.loads(value)
                Call.from_dict(data["call"])
                MemoryRecipe.from_dict(data["memory"])
            except (ValueError, KeyError, TypeError, CallFormatError):
                continue
            out.setdefault(cell_id, []).append(data)
    for failures in out.values():
        failures.sort(key=lambda f: json.dumps(f, sort_keys=True))
    return out


def as_cases(failures: list[dict[str, Any]]) -> list[Case]:
    """Stored failures as cases a run judges first."""
    return [Case(Call.from_dict(f["call"]), MemoryRecipe.from_dict(f["memory"]), f["expect"], f["rule"], ())
            for f in failures]


def mark_fixed(db: ExampleDatabase, failure: dict[str, Any]) -> None:
    """A kept failure the backend now passes: moved from the failures kept to the fixed ones, so that a
    later run does not replay it first and `promote` does not write it as failing."""
    db.move(_key(failure["cell"]), FIXED + failure["cell"].encode(), _value(failure))


def fixed(db: ExampleDatabase, cell_ids: Iterable[str]) -> int:
    """How many kept failures of these cells are marked fixed."""
    return sum(1 for cell_id in cell_ids for _ in db.fetch(FIXED + cell_id.encode()))


def reproducer_file_name(failure: dict[str, Any]) -> str:
    """<cell id, odd characters as '__'>-<8 hex digits of the call>.yaml: several failures of one cell
    get several files, the same failure always the same file."""
    digest = hashlib.sha256(json.dumps([failure["call"], failure["memory"]], sort_keys=True).encode()).hexdigest()
    return Path(reproducer_name(failure["cell"])).stem + f"-{digest[:8]}.yaml"
