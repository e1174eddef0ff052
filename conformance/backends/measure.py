"""Coverage of a Python backend, measured in the process it runs in (conformance/backends/host.py) with
coverage.py: line and branch coverage of the backend's own package, never of the kit.

The kit asks for it by setting COVERAGE_DIR in the host's environment (`run --coverage`, `fuzz
--coverage`). The host then measures from before the backend is imported, answers each call with the
points it reached for the first time in this process (the reply's `coverage` field,
docs/exec-protocol.md), and at its end leaves coverage.py's data file in that folder, which the report
combines into `.coverage` and `coverage.xml`.

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
    """coverage.py running over one package in this process, and the points each call reached first."""

    def __init__(self, package: str, folder: str):
        import coverage
        self.folder = folder
        self.cov = coverage.Coverage(data_file=os.path.join(folder, ".coverage"), data_suffix=True,
                                     branch=True, source_pkgs=[package], config_file=False)
        self.cov.start()
        self._collector: Any = self.cov._collector      # its live sets: the points reached so far
        self._known: dict[str, int] = {}
        self._roots: dict[str, str] = {}
        self._seen: dict[str, set[Any]] = {}
        self._total = 0

    def new_points(self) -> list[str]:
        """The points reached since the last time asked (checked in time linear in the files measured)."""
        data = getattr(self._collector, "data", None) or {}
        total = sum(len(v) for v in data.values())
        if total == self._total:
            return []
        self._total = total
        points: list[str] = []
        for path, raw in list(data.items()):
            if len(raw) == self._known.get(path):
                continue
            self._known[path] = len(raw)
            seen = self._seen.setdefault(path, set())
            fresh = set(raw) - seen
            seen |= fresh
            name = self._relative(path)
            points.extend(f"{name}:{a}>{b}" for a, b in sorted(map(_arc, fresh)))
        return points

    def _relative(self, path: str) -> str:
        if path not in self._roots:
            self._roots[path] = _relative_to_path(path)
        return self._roots[path]

    def save(self) -> None:
        """Stop measuring and write the data file (its name has this process's suffix)."""
        try:
            self.cov.stop()
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
