"""The process a Python backend runs in: `--backend module:attr` (or `oracle`, or an entry point) is run
as `python -m conformance.backends.host NAME SPECS`, which loads the backend and serves it over the exec
protocol (conformance/backends/serve.py) on its stdin/stdout, by the rulebook of the folder SPECS (the one
the worker judges by).

This process holds the call it is asked and its input images, nothing of the judge: the expected image,
the comparison, the verdict and the results stay in the kit's worker, which this process cannot read
(conformance/backends/processes.py). Whatever the backend does here, patch the kit's modules, walk its
frames, fork, is done to this process alone.

The worker's side is conformance.backends.loading.load_backend(name, isolate=True): an ExecBackend talking to
this program, with the worker's module path (a backend the worker could import, this process can).
"""
from __future__ import annotations

import sys
from typing import Sequence

from conformance.backends.contract import BackendLoadError


def main(argv: Sequence[str] | None = None) -> int:
    """Load the backend, then serve it; a load error is the answer to the kit's hello (the worker then
    reports it as the backend's own load error)."""
    from oracle.spec import SpecError, load_rulebook

    from conformance.backends import measure, serve
    from conformance.backends.loading import load_backend
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)    # Ctrl-C is the kit's supervisor's to handle
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2:
        print("usage: python -m conformance.backends.host NAME SPECS", file=sys.stderr)
        return 2
    try:
        rulebook = load_rulebook(args[1])
    except SpecError as exc:
        return serve.refuse(f"backend {args[0]!r}: the specs it is served by: {exc}")
    measured = measure.start(args[0])      # before the backend is imported: its imports are measured too
    try:
        backend = load_backend(args[0], rulebook=rulebook)
    except BackendLoadError as exc:
        return serve.refuse(str(exc))
    except BaseException as exc:        # noqa: BLE001 - the user's code, whatever it raised
        return serve.refuse(f"backend {args[0]!r}: loading it raised {type(exc).__name__}: {exc}")
    if measured is not None:
        measured.new_points()               # what loading it ran belongs to no call
    return serve.main(backend, rulebook, measured=measured, respawn=True)


def leave(code: int) -> None:
    """End the program with `code` once it has served (processes.leave): the kit waits for the program
    to be gone before it writes its report, so it skips the interpreter's teardown."""
    from conformance.backends.processes import leave as leave_now
    leave_now(code)


if __name__ == "__main__":
    status = main()
    leave(status)
    sys.exit(status)
