"""A project's settings, so that `ascend-conformance run` needs no options in a repository that has them:
`ascend-conformance.toml` in the folder the command is started in, else the `[tool.ascend-conformance]`
table of its `pyproject.toml`. The command line wins: a setting is used only where its option is not
given (readings merge, ambiguity by ambiguity, the command line's over the file's).

    backend = "mysim.backend:MySimulator"
    products = ["ascend910b"]
    apis = ["data_move", "scatter"]
    profile = "ci"
    edition = "2026"
    readings = {"scatter.count.zero" = "nop"}
    waivers = "waivers.yaml"
    timeout = 30
    report = "reports"
    workers = "auto"

A file is untrusted input: an unknown key, a value of the wrong type or a file that is not TOML is one
line naming the file and the key (exit 2).
"""
from __future__ import annotations

import argparse
import tomllib
from pathlib import Path
from typing import Any, Sequence

from conformance.commands.settings_files import OWN_FILE, PYPROJECT, TABLE
from conformance.commands.options import UsageError, did_you_mean

# key -> (the option it stands for, the type it must have); a list gives the option once per item
SETTINGS: dict[str, tuple[str, str]] = {
    "backend": ("--backend", "str"), "products": ("--product", "list"), "apis": ("--api", "list"),
    "profile": ("--profile", "str"), "edition": ("--edition", "str"), "readings": ("--reading", "table"),
    "waivers": ("--waivers", "str"), "timeout": ("--timeout", "number"), "report": ("--report", "str"),
    "workers": ("-n", "workers"),
}
MAX_BYTES = 1 << 20


def settings_file(folder: Path) -> tuple[Path, dict[str, Any]] | None:
    """(the file, its settings) for the folder, or None where it has none."""
    own, project = folder / OWN_FILE, folder / PYPROJECT
    if own.is_file():
        return own, _read(own)
    if project.is_file():
        table = _read(project).get("tool", {})
        table = table.get(TABLE) if isinstance(table, dict) else None
        if table is not None:
            if not isinstance(table, dict):
                raise UsageError(f"{project}: tool.{TABLE}: expected a table of settings")
            return project, table
    return None


def _read(path: Path) -> dict[str, Any]:
    try:
        if path.stat().st_size > MAX_BYTES:
            raise UsageError(f"{path}: more than {MAX_BYTES} bytes: not a settings file")
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: not valid TOML: {exc}") from None


def _arguments(path: Path, where: str, settings: dict[str, Any]) -> dict[str, list[str]]:
    """option -> the arguments the settings stand for; a wrong key or value is a UsageError naming it."""
    out: dict[str, list[str]] = {}
    for key, value in settings.items():
        if key not in SETTINGS:
            raise UsageError(f"{path}: {where}{key}: unknown setting{did_you_mean(key, SETTINGS)} "
                             f"(known: {', '.join(SETTINGS)})")
        option, kind = SETTINGS[key]
        wrong = {"str": not isinstance(value, str),
                 "list": not (isinstance(value, list) and all(isinstance(v, str) for v in value)),
                 "table": not (isinstance(value, dict) and all(isinstance(v, str) for v in value.values())),
                 "number": isinstance(value, bool) or not isinstance(value, (int, float)),
                 "workers": not (value == "auto" or (isinstance(value, int) and not isinstance(value, bool)))}[kind]
        if wrong:
            said = {"str": "a string", "list": "a list of strings", "table": "a table of strings",
                    "number": "a number", "workers": "a number or \"auto\""}[kind]
            raise UsageError(f"{path}: {where}{key}: expected {said}, got {type(value).__name__} {str(value)[:80]!r}")
        if kind == "list":
            out[option] = [a for v in value for a in (option, v)]
        elif kind == "table":
            out[option] = [a for amb, reading in value.items() for a in (option, f"{amb}={reading}")]
        else:
            out[option] = [option, str(value)]
    return out


def with_settings(argv: Sequence[str], top: argparse.ArgumentParser, folder: Path | None = None) -> list[str]:
    """The command line with the folder's settings put in, where the command takes them and the line does
    not give them (readings always: the line's come after, and win ambiguity by ambiguity)."""
    argv = list(argv)
    commands = next((a.choices for a in top._actions if isinstance(a, argparse._SubParsersAction)), {})
    if not argv or argv[0] not in commands or any(a in ("-h", "--help") for a in argv):
        return argv
    found = settings_file(folder or Path.cwd())
    if found is None:
        return argv
    path, settings = found
    where = f"tool.{TABLE}." if path.name == PYPROJECT else ""
    takes = commands[argv[0]]._option_string_actions
    given = {a.split("=", 1)[0] for a in argv[1:] if a.startswith("-")}
    extra = []
    for option, arguments in _arguments(path, where, settings).items():
        if option in takes and (option == "--reading" or option not in given):
            extra += arguments
    return [argv[0], *extra, *argv[1:]]
