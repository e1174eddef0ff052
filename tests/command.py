"""Running the `ascend-conformance` command the way a user does, as a subprocess (`python -m conformance`) of
the installed kit, with the test's own backend modules on its path: one helper for every test file."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from kit_path import HELPERS, ROOT


def kit_env(*paths: Path | str | None) -> dict[str, str]:
    """This process's environment with the tests' helper modules (kit_path.HELPERS), then `paths` (those
    given), on PYTHONPATH."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join(str(p) for p in (HELPERS, *paths) if p)}


def kit_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "conformance", *args]


def cli(*args: str, cwd: Path | str, paths: tuple = (), timeout: float = 600) -> subprocess.CompletedProcess:
    """The command's run to its end: exit status, stdout and stderr as text."""
    return subprocess.run(kit_command(*args), cwd=cwd, env=kit_env(*paths), capture_output=True, text=True,
                          timeout=timeout)


def module_folder(factory, name: str, source: str) -> Path:
    """A fresh folder holding one module of user backends, `name`.py (put it on the command's path)."""
    folder = factory.mktemp(name)
    (folder / f"{name}.py").write_text(source)
    return folder
