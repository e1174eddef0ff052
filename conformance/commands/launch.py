"""`ascend-conformance` as it begins: where the command line asks for a run (run, fuzz, certify) whose
backend runs in a process of its own, the programs its workers will run are started first, before the kit
is imported (conformance/backends/prestart.py), so that they load while this process imports the kit and
forks the workers; then the command runs (conformance/commands/cli.py).

The command line is only read here, not checked: what it guesses wrong (an option it does not know, a
setting from a settings file) costs the programs started for nothing, never a different run; a worker
takes only the very program it would have started itself.
"""
from __future__ import annotations

import gc
import os
import sys
from typing import Sequence

from conformance.commands.settings_files import OWN_FILE, PYPROJECT, TABLE

RUNNING = ("run", "fuzz", "certify")
# options under which no worker starts the backend's program itself as the kit's user (or nothing runs)
ELSEWHERE = ("--in-process", "--backend-user", "--cluster", "--coverage", "--list", "-h", "--help", "--")
READINGS = ("--edition", "--reading", "--readings")     # they change what the reference is started as
MOST = 64                       # programs started ahead at most


def command() -> int:
    """The console script's and `python -m conformance`'s entry. The collector is off while the kit is
    imported: what the imports make lives as long as the process (cli.command freezes it), and the
    collections that fell among them walked it for nothing."""
    gc.disable()
    try:
        try:
            planned = _planned(sys.argv[1:])
            if planned is not None:
                _start(*planned)
        except Exception:               # noqa: BLE001 - a guess that fails only leaves the workers to start them
            pass
        from conformance.commands.cli import command as run_command
    finally:
        gc.enable()
    return run_command()


def _planned(argv: Sequence[str]) -> tuple[str, int] | None:
    """(the backend named, the workers asked for) of a run the command line asks for, or None."""
    if not argv or argv[0] not in RUNNING or _settings_here():
        return None
    backend, workers, readings = None, "1", False
    args = iter(argv[1:])
    for arg in args:
        option, eq, value = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if option in ELSEWHERE:
            return None
        if option in ("--backend", "-n"):
            value = value if eq else next(args, "")
            backend, workers = (value, workers) if option == "--backend" else (backend, value)
        elif arg.startswith("-n"):
            workers = arg[2:]
        readings = readings or option in READINGS
    if not backend or not backend.strip() or (backend.strip() == "oracle" and readings):
        return None
    count = (os.cpu_count() or 1) if workers == "auto" else int(workers) if workers.isdigit() else 0
    return (backend.strip(), min(count, MOST)) if count > 0 else None


def _settings_here() -> bool:
    """Does the current folder hold settings for the command (conformance/commands/config.py)?"""
    if os.path.isfile(OWN_FILE):
        return True
    try:
        with open(PYPROJECT, "rb") as f:
            return TABLE.encode() in f.read()
    except OSError:
        return False


def _start(backend: str, workers: int) -> None:
    """The backend's programs started for `workers` workers, as each worker would start it."""
    from conformance.backends import hosting, prestart
    from conformance.backends.processes import spin_for
    spin_for(workers)               # the environment the supervisor gives its workers, and they their programs
    if backend.startswith("exec:"):
        import shlex
        argv, env = shlex.split(backend[len("exec:"):].strip()), None
    else:
        argv, env = hosting.command(backend, _specs_folder()), hosting.environment()
    if argv:
        prestart.start(argv, env, workers)
    if prestart.started():              # the random pool the workers share, made while the kit is imported
        from conformance.generate.memory import pool_ahead
        pool_ahead()


def _specs_folder() -> str:
    """The folder of the specs the run judges by (oracle.spec.DEFAULT_SPEC_DIR), found without importing
    the oracle."""
    import importlib.util
    found = importlib.util.find_spec("oracle")
    here = os.path.dirname(os.path.realpath(found.origin)) if found and found.origin else ""
    candidates = [os.path.join(here, "specs"), os.path.join(os.path.dirname(here), "specs")]
    return next((p for p in candidates if os.path.isfile(os.path.join(p, "schema.yaml"))), candidates[0])
