"""Loading the backend a user names (README, "Plugging in your own backend"): `oracle`, `module:attr`, an entry
point, or `exec:CMD`; and the time limit an in-process backend runs under."""
from __future__ import annotations

import importlib
import inspect
import os
import signal
import sys
import threading
from typing import Any, Callable

import numpy as np

from oracle import Call
from oracle.spec import Rulebook

from conformance.backends import hosting
from conformance.backends.contract import Backend, BackendCrash, BackendLoadError, OracleBackend

ENTRY_POINT_GROUP = "ascend_conformance.backends"


def _validate(obj: Any, name: str) -> Backend:
    missing = [attr for attr in ("supports", "run") if not callable(getattr(obj, attr, None))]
    if missing:
        raise BackendLoadError(f"backend {name!r} gives {type(obj).__name__}, which has no {' or '.join(missing)}() method")
    if not isinstance(getattr(obj, "name", None), str):
        try:
            obj.name = name
        except AttributeError:
            raise BackendLoadError(f"backend {name!r} has no string attribute 'name'") from None
    return obj


def _instantiate(target: Any, name: str) -> Backend:
    """A class is instantiated, a factory function called, an instance used as it is."""
    if inspect.isclass(target) or (callable(target) and not hasattr(target, "run")):
        try:
            target = target()
        except Exception as exc:       # noqa: BLE001 - the user's code; report it, don't trace it
            raise BackendLoadError(f"backend {name!r}: creating it raised {type(exc).__name__}: {exc}") from None
    return _validate(target, name)


def load_backend(name: str, timeout: float | None = None, *, isolate: bool = False,
                 user: str | None = None, rulebook: Rulebook | None = None) -> Backend:
    """The backend a user names, ready to run calls.

    Parameters
    ----------
    name : str
        ``oracle`` (the reference), ``package.module:attr`` (a class, called with no argument, or an
        object), an entry point in group ``ascend_conformance.backends``, or ``exec:CMD`` (a program of
        any language speaking docs/exec-protocol.md). A module is imported from the current directory
        too, as ``python -m`` does.
    timeout : float, optional
        Seconds one call may take. An ``exec:`` program past it is killed and restarted; an in-process
        backend is interrupted where Python can interrupt it (a loop in Python code, not a call stuck
        inside C).
    isolate : bool
        Load a Python backend in a process of its own (conformance/backends/host.py) and drive it over
        the exec protocol, as the kit's workers do.
    user : str, optional
        Run the program as that user (the caller is root).
    rulebook : Rulebook, optional
        The specs the kit judges by: ``oracle`` follows them (without them, the oracle's own), and a
        backend loaded in a process of its own is served there by the specs of the same folder. Needed
        with `isolate` or `user`, and for ``oracle@EDITION`` (the reference reading the ambiguities as
        that edition of the pages settles them).

    Returns
    -------
    Backend

    Raises
    ------
    BackendLoadError
        The name cannot give a backend; the message says which part of it failed.

    Examples
    --------
    >>> from conformance import load_backend
    >>> load_backend("oracle").name
    'oracle'
    >>> load_backend("nosuch.module:Sim")
    Traceback (most recent call last):
    ...
    conformance.backends.contract.BackendLoadError: backend 'nosuch.module:Sim': cannot import module 'nosuch.module': ModuleNotFoundError: No module named 'nosuch'
    """
    if not isinstance(name, str) or not name.strip():
        raise BackendLoadError("no backend named; use --backend oracle, --backend package.module:attr, or an entry point")
    name = name.strip()
    if name.startswith("exec:"):
        from conformance.backends.exec_program import ExecBackend
        return ExecBackend(name[len("exec:"):].strip(), timeout, user=user)
    if isolate or user is not None:
        from conformance.backends.exec_program import ExecBackend
        command = _host_command(name, _needed(rulebook, name))
        return ExecBackend(command, timeout, user=user, env=_host_environment(), hosted=name)
    backend = _load_in_process(name, rulebook)
    return TimeLimited(backend, timeout) if timeout else backend


def _needed(rulebook: Rulebook | None, name: str) -> Rulebook:
    """The rulebook load_backend was given, where loading `name` needs one (a kit's bug otherwise)."""
    if rulebook is None:
        raise TypeError(f"load_backend({name!r}): loading it needs the rulebook the kit judges by")
    return rulebook


def _reference(name: str, rulebook: Rulebook) -> OracleBackend:
    """`oracle@EDITION`, `oracle+AMBIGUITY=READING...` or both: the reference reading the ambiguities as
    the edition settles them and as each `+` part declares (an unknown one: a load error naming it)."""
    head, *parts = name.split("+")
    try:
        if head != "oracle" and not head.startswith("oracle@"):
            raise ValueError("expected oracle, oracle@EDITION or either with +AMBIGUITY=READING parts")
        readings = rulebook.settled(head[len("oracle@"):]) if head != "oracle" else {}
        for part in parts:
            ambiguity, sep, reading = part.partition("=")
            if not sep:
                raise ValueError(f"{part!r}: expected AMBIGUITY=READING")
            readings[ambiguity] = reading
        rulebook.readings(readings)
    except ValueError as exc:
        raise BackendLoadError(f"backend {name!r}: {exc}") from None
    return OracleBackend(readings, rulebook)


def _host_command(name: str, rulebook: Rulebook) -> list[str]:
    """The program a Python backend runs in when isolated (conformance/backends/host.py), with the folder of
    the specs it is served by."""
    return hosting.command(name, str(rulebook.directory))


def _host_environment() -> dict[str, str]:
    """The environment of that program (conformance/backends/hosting.py)."""
    return hosting.environment()


def _current_folder_first() -> None:
    """`module:attr` imports from the folder the command was started in, as `python -m` and pytest do
    (the installed `ascend-conformance` script has its own folder on sys.path, not the user's; the isolated
    host has the kit's folder before it): the current folder goes first on sys.path, after the kit's own
    packages are imported."""
    if "" in sys.path:
        return
    cwd = os.getcwd()
    if cwd in sys.path:
        sys.path.remove(cwd)
    sys.path.insert(0, cwd)


def _load_in_process(name: str, rulebook: Rulebook | None) -> Backend:
    if name == "oracle":
        return OracleBackend(rulebook=rulebook)
    if name.startswith(("oracle@", "oracle+")):
        return _reference(name, _needed(rulebook, name))
    if ":" in name:
        module_name, _, attr = name.partition(":")
        _current_folder_first()
        try:
            module = importlib.import_module(module_name)
        except Exception as exc:       # noqa: BLE001
            raise BackendLoadError(f"backend {name!r}: cannot import module {module_name!r}: "
                                   f"{type(exc).__name__}: {exc}") from None
        target: Any = module
        for part in attr.split("."):
            if not hasattr(target, part):
                raise BackendLoadError(f"backend {name!r}: module {module_name!r} has no attribute {attr!r}")
            target = getattr(target, part)
        return _instantiate(target, name)
    from importlib.metadata import entry_points         # only here: a backend's host starts without it
    found = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == name]
    if not found:
        known = sorted({ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)} | {"oracle"})
        raise BackendLoadError(f"unknown backend {name!r}: not 'oracle', not 'module:attr', and no entry point "
                               f"of that name in group {ENTRY_POINT_GROUP} (known: {', '.join(known)})")
    try:
        target = found[0].load()
    except Exception as exc:           # noqa: BLE001
        raise BackendLoadError(f"backend {name!r}: loading entry point {found[0].value!r} raised "
                               f"{type(exc).__name__}: {exc}") from None
    return _instantiate(target, name)


class TimeLimited:
    """An in-process backend whose calls are stopped after `timeout` seconds (SIGALRM: main thread only,
    and only where Python code runs; a hang inside C code is for the process's supervisor to end).
    supports() has the same limit, a run_batch of n calls n times it. Everything else is the wrapped
    backend's.

    The SIGALRM handler is installed at the first limited call and kept until close(); each call only
    sets the timer (installing and restoring the handler around every call was a measurable part of a
    worker's time). A SIGALRM outside a call goes to the handler this one replaced."""

    def __init__(self, backend: Backend, timeout: float):
        self.backend, self.timeout = backend, float(timeout)
        self._limit: float | None = None          # the limit of the call in progress
        self._previous: Any = _UNSET              # the SIGALRM handler ours replaced

    def __getattr__(self, attr: str) -> Any:
        if attr == "run_batch" and callable(getattr(self.backend, "run_batch", None)):
            return self._run_batch
        return getattr(self.backend, attr)

    def supports(self, api: str, product: str) -> bool:
        return self._limited(self.timeout, self.backend.supports, api, product)

    def run(self, call: Call, memory: dict[str, np.ndarray]) -> None:
        self._limited(self.timeout, self.backend.run, call, memory)

    def _run_batch(self, calls, memories):
        return self._limited(self.timeout * max(len(calls), 1), self.backend.run_batch, calls, memories)

    def close(self) -> None:
        """The handler this one replaced back in place; then the backend's own close, where it has one."""
        if self._previous is not _UNSET and threading.current_thread() is threading.main_thread():
            if signal.getsignal(signal.SIGALRM) == self._expire:
                signal.signal(signal.SIGALRM, self._previous)
            self._previous = _UNSET
        close = getattr(self.backend, "close", None)
        if callable(close):
            close()

    def _limited(self, seconds: float, fn: Callable[..., Any], *args: Any) -> Any:
        if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
            return fn(*args)
        if self._previous is _UNSET:
            self._previous = signal.signal(signal.SIGALRM, self._expire)
        self._limit = seconds
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            return fn(*args)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            self._limit = None

    def _expire(self, signum: int, frame: Any) -> None:
        if self._limit is not None:
            raise BackendCrash(f"no answer within {self._limit:g} s (interrupted)")
        if callable(self._previous):             # not during a call of ours: the handler we replaced
            self._previous(signum, frame)
        elif self._previous == signal.SIG_DFL:     # its default: the process ends, as it would have
            signal.signal(signal.SIGALRM, signal.SIG_DFL)
            signal.raise_signal(signal.SIGALRM)


_UNSET = object()
