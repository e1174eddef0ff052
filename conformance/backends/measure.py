"""Coverage of a Python backend, measured in the process it runs in (conformance/backends/host.py) with
coverage.py: line and branch coverage of the backend's own package, never of the kit.

The kit asks for it by setting COVERAGE_DIR in the host's environment (`run --coverage`, `fuzz
--coverage`). The host then measures from before the backend is imported, answers each call with the
points it reached that no earlier call of its api reached in this process (the reply's `coverage`
field, docs/exec-protocol.md), and at its end leaves coverage.py's data file in that folder, which the
report combines into `.coverage` and `coverage.xml`. coverage.py's sys.monitoring core is asked for
where the Python can measure branches with it (3.14 and later); its C tracer otherwise.

A point is `path:line>line` (an arc coverage.py recorded; negative numbers are its entries and exits),
the path relative to the folder the backend's package lies in.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

COVERAGE_DIR = "ASCEND_CONFORMANCE_COVERAGE"        # the environment variable: where the data file goes
KIT_PACKAGES = ("conformance", "oracle")


class MissingCoverage(RuntimeError):
    """coverage.py is not installed: the message says what to install."""


def require() -> None:
    """MissingCoverage unless coverage.py can be imported (checked by the command before any worker)."""
    try:
        import coverage     # noqa: F401
    except ImportError:
        raise MissingCoverage("--coverage measures a Python backend with coverage.py, which is not installed: "
                              "pip install 'ascend-conformance[coverage]'") from None


def backend_package(name: str) -> str | None:
    """The top-level package of a `module:attr` backend name; None for the kit's own (the oracle
    backend, whose code is the kit's) and for names that are not a module."""
    module = name.split(":", 1)[0].strip()
    top = module.split(".", 1)[0]
    if not top.isidentifier() or top in KIT_PACKAGES:
        return None
    return top


class Measured:
    """coverage.py running over one package in this process, and the points each call reached first for
    its api."""

    def __init__(self, package: str, folder: str):
        import coverage
        self.folder = folder
        self.cov = coverage.Coverage(data_file=os.path.join(folder, ".coverage"), data_suffix=True,
                                     branch=True, source_pkgs=[package], config_file=False)
        if sys.version_info >= (3, 14):     # sys.monitoring measures branches from 3.14 on (3.12: lines only)
            self.cov.set_option("run:core", "sysmon")
        self.cov.start()
        self._collector: Any = self.cov._collector      # its live sets: what the calls reached
        # The C tracer adds every arc a call runs to the live sets, so they are emptied after each call (and
        # what they held kept here, and given back before the data file is written): a call's points are
        # then exactly what it ran. sys.monitoring reports an arc once per process: there the sets grow.
        tracer = getattr(getattr(self._collector, "core", None), "tracer_class", None)
        self._per_call = getattr(tracer, "__name__", "") != "SysMonitor"
        self._union: dict[str, set[Any]] = {}
        self._seen: dict[tuple[Any, str], set[Any]] = {}
        self._roots: dict[str, str] = {}

    def new_points(self, api: Any = None) -> list[str]:
        """The points reached since the last time asked that no earlier call of `api` reached."""
        data = getattr(self._collector, "data", None) or {}
        points: list[str] = []
        for path, raw in list(data.items()):
            if not raw:
                continue
            got = set(raw)
            union = self._union.setdefault(path, set())
            if self._per_call:
                raw.clear()
            elif len(got) == len(union):
                continue
            union |= got
            seen = self._seen.setdefault((api, path), set())
            fresh = got - seen
            if fresh:
                seen |= fresh
                name = self._relative(path)
                points.extend(f"{name}:{a}>{b}" for a, b in sorted(map(_arc, fresh)))
        return points

    def _relative(self, path: str) -> str:
        if path not in self._roots:
            self._roots[path] = _relative_to_path(path)
        return self._roots[path]

    def save(self) -> None:
        """Stop measuring and write the data file (its name has this process's suffix), with every arc
        the calls ran."""
        try:
            self.cov.stop()
            data = getattr(self._collector, "data", None) or {}
            for path, union in self._union.items():
                if path in data:
                    data[path].update(union)
            self.cov.save()
        except Exception as exc:            # noqa: BLE001 - a write that fails loses the file, not the run
            print(f"coverage: the data file could not be written: {exc}", file=sys.stderr)


def _arc(raw: Any) -> tuple[int, int]:
    """An arc as coverage.py's C tracer keeps it: a pair, or two numbers packed in one integer."""
    if isinstance(raw, tuple):
        return raw
    first, second = raw & 0xFFFFFFF, (raw >> 28) & 0xFFFFFFF
    return (-first if raw & (1 << 56) else first), (-second if raw & (1 << 57) else second)


def _relative_to_path(path: str) -> str:
    """`path` relative to the longest entry of the module path holding it (as the backend imports it)."""
    resolved = Path(path).resolve()
    best = None
    for entry in sys.path:
        try:
            rel = resolved.relative_to(Path(entry or ".").resolve())
        except ValueError:
            continue
        if best is None or len(rel.parts) < len(best.parts):
            best = rel
    return best.as_posix() if best is not None else resolved.name


def start(name: str) -> Measured | None:
    """Measuring the backend `name` where the kit asked for it (and can), else None."""
    folder = os.environ.get(COVERAGE_DIR)
    package = backend_package(name) if folder else None
    if package is None or folder is None:
        return None
    try:
        return Measured(package, folder)
    except ImportError:
        return None
