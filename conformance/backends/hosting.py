"""The program a Python backend runs in when isolated (conformance/backends/host.py): its command line and
its environment, as a worker starts it and as the command starts it ahead (conformance/backends/prestart.py)."""
from __future__ import annotations

import os
import sys


def command(name: str, specs: str) -> list[str]:
    """The host program serving the backend `name`, by the specs of the folder `specs`."""
    return [sys.executable, "-P", "-m", "conformance.backends.host", name, specs]


def environment() -> dict[str, str]:
    """The kit's environment, with a module path (PYTHONPATH) on which the host finds this very kit first:
    the folder this process imported `conformance` from (an installed kit's site-packages, or a checkout),
    then the current folder, then this process's path. The host is started with `-P`, so a folder named
    `oracle` or `conformance` where the command was started is never the kit it runs; once the kit is
    imported, the host puts the current folder first for the backend (loading._current_folder_first)."""
    from conformance.generate.challenge import ENV
    env = {k: v for k, v in os.environ.items() if k != ENV}     # a challenge is never the backend's to see
    kit = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    path = [kit, os.getcwd()] + [p for p in sys.path if p and os.path.isabs(p)]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(path))
    return env
