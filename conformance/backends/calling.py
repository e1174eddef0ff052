"""Calling untrusted backend code: every exception it raises (KeyboardInterrupt, SystemExit and
GeneratorExit included) is an answer, never the kit's own; what it says enters the kit through
`backend_text` alone; it runs on its own copy of the call (`backend_copy`), so what it does to what it is
handed cannot change the call the verdict and the reproducer describe.
"""
from __future__ import annotations

import _signal  # signal.signal/getsignal map handlers to enums through exceptions, at every call
import copy
import signal
from typing import Any

import numpy as np

from oracle import Call, Tensor

from conformance.backends.contract import Backend, BackendCrash, Rejected

TEXT_LIMIT = 64 * 1024          # characters kept of anything a backend says (a message, a rule id, a name)


def backend_text(value: Any) -> str:
    """What a backend said, as a plain `str` (never raises): at most TEXT_LIMIT characters, the rest
    counted in a stated "... (N more characters)". Lone surrogates, NUL and escape sequences are kept:
    escaping them is each output writer's job."""
    if type(value) is not str:
        try:
            value = value if isinstance(value, str) else str(value)
            value = str.__str__(value)              # a str subclass: its own methods are not called again
        except BaseException:           # noqa: BLE001 - a __str__ that raises anything: still an answer
            value = f"<unprintable {type(value).__name__}>"
    if len(value) <= TEXT_LIMIT:
        return value
    keep = TEXT_LIMIT - len(f"... ({len(value):,} more characters)")     # the whole fits in TEXT_LIMIT,
    return value[:keep] + f"... ({len(value) - keep:,} more characters)"  # so capping it again keeps it


def refusal_rule(refused: Rejected) -> str | None:
    """The rule id a backend's Rejected names (through backend_text), or None."""
    rule, _ = call_backend(getattr, refused, "rule", None)
    return None if rule is None else backend_text(rule)


def crash_message(exc: BaseException, who: str = "backend") -> str:
    """'backend raised Type: message at file:line' (the innermost frame), for an exception a backend raised."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    where = f" at {tb.tb_frame.f_code.co_filename}:{tb.tb_lineno}" if tb is not None else ""
    return backend_text(f"{who} raised {type(exc).__name__}: {backend_text(exc)}{where}")


def run_call(backend: Backend, call: Call, memory: dict[str, np.ndarray]) -> None:
    backend.run(call, memory)


def ask_supports(backend: Any, api: str, product: str) -> bool:
    """`backend.supports(api, product)` as a bool; BackendCrash (with crash_message's text) for whatever
    it raised instead, KeyboardInterrupt and SystemExit included."""
    answer, raised = call_backend(lambda: bool(backend.supports(api, product)))
    if raised is None:
        return answer
    message = crash_message(raised, "backend.supports")
    forget_traceback(raised)
    raise BackendCrash(message)


def forget_traceback(raised: Any) -> None:
    """Drop the traceback of an exception a backend raised, once judged. It reaches, through each frame's
    f_back, the frames that hold the images (and the exception itself): a cycle that only the GC would
    break, keeping arrays, and out of process the shared file's old mappings, alive until then."""
    if isinstance(raised, BaseException):
        try:
            raised.__traceback__ = None
        except BaseException:           # noqa: BLE001 - a subclass's own __traceback__: left as it is
            pass

class _CtrlC:
    seen = False


def _on_ctrl_c(signum: int, frame: Any) -> None:
    _CtrlC.seen = True
    raise KeyboardInterrupt


def call_backend(method: Any, *args: Any) -> tuple[Any, BaseException | None]:
    """(what method(*args) returned, None), or (None, what it raised): every exception, KeyboardInterrupt,
    SystemExit and GeneratorExit included, is the backend's. (A caller that keeps what was raised passes
    it to forget_traceback when done with it.) The user's Ctrl-C is told apart where it
    could otherwise be taken for the backend's (Python's own SIGINT handler, main thread): it then goes
    on as KeyboardInterrupt, even if the backend swallowed it. Workers that ignore SIGINT pay nothing."""
    watch = _signal.getsignal(signal.SIGINT) is signal.default_int_handler
    if watch:
        try:
            _signal.signal(signal.SIGINT, _on_ctrl_c)
            _CtrlC.seen = False
        except ValueError:              # not the main thread: no signal is delivered here
            watch = False
    try:
        return method(*args), None
    except BaseException as exc:        # noqa: BLE001 - untrusted code: everything is a verdict
        return None, exc
    finally:
        if watch:
            _signal.signal(signal.SIGINT, signal.default_int_handler)
            if _CtrlC.seen:
                _CtrlC.seen = False
                raise KeyboardInterrupt


def backend_copy(call: Call) -> Call:
    """The backend's own copy of a call: new args dict, lists, mappings and Tensors (a frozen Tensor
    still yields to object.__setattr__), sharing only immutable values. A few microseconds; deepcopy
    costs ten times as much."""
    twin = _new(Call)
    twin.__dict__.update(call.__dict__)
    twin.args = {name: _copied(value) for name, value in call.args.items()}
    return twin


_new = object.__new__


def _copied(value: Any) -> Any:
    kind = type(value)
    if kind is Tensor:
        twin = _new(Tensor)
        twin.__dict__.update(value.__dict__)
        return twin
    if kind is list:
        return [_copied(v) for v in value]
    if kind is tuple:
        return tuple([_copied(v) for v in value])
    if kind is dict:
        return {k: _copied(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, dict, Tensor)):      # a subclass (the kit makes none): the slow way
        return copy.deepcopy(value)
    return value
