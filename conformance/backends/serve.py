"""`ascend-conformance serve BACKEND`: any Python backend behind the exec protocol (docs/exec-protocol.md).

Two uses: isolating a Python backend that may crash or hang (`--backend "exec:ascend-conformance serve
mysim:Sim"`: the kit kills and restarts it instead of losing its worker), and measuring what the exec
path costs against the same backend in process (benchmarks/bench.py).

Whatever the backend prints goes to stderr: the protocol's stdout is kept for replies alone.
"""
from __future__ import annotations

import json
import mmap
import os
import select
import sys
import time
from typing import IO, Any, Callable, Iterable, Iterator

import numpy as np

from oracle import Call, CallFormatError
from oracle.spec import Rulebook

from conformance.backends.calling import ask_supports, backend_text, call_backend, forget_traceback, refusal_rule
from conformance.backends.contract import Backend, BackendCrash, BackendLoadError, OracleBackend, Rejected
from conformance.backends.declared_readings import backend_readings
from conformance.backends.exec_messages import COMPACT
from conformance.backends.processes import Spinning
from conformance.backends.shared_images import mapped

PROTOCOL = 1
RAN = {"op": "ok"}              # the result of a call that ran (no coverage points with it)


class _Mapping:
    """The shared file, mapped once and mapped again when its name or size changes."""

    def __init__(self) -> None:
        self.key: tuple[str, int] | None = None
        self.buffer: np.ndarray | None = None
        self._map: mmap.mmap | None = None

    def images(self, memory: dict[str, Any]) -> dict[str, np.ndarray]:
        key = (memory["file"], int(memory["size"]))
        if key != self.key:
            self.buffer = None
            if self._map is not None:
                self._map.close()
            fd = os.open(key[0], os.O_RDWR)
            try:
                self._map = mapped(fd, key[1])
            finally:
                os.close(fd)
            self.buffer, self.key = np.frombuffer(self._map, dtype=np.uint8), key
        return {scope: self.buffer[int(p["offset"]):int(p["offset"]) + int(p["size"])]
                for scope, p in memory["scopes"].items()}


def _result(backend: Backend, mapping: _Mapping, run: dict[str, Any]) -> dict[str, Any]:
    """One call: ok / rejected / error (never raises)."""
    try:
        call = Call.from_dict(run["call"])
        memory = mapping.images(run["memory"])
    except (CallFormatError, KeyError, TypeError, ValueError, OSError) as exc:
        return {"op": "error", "message": f"malformed run request: {exc}"}
    _, raised = call_backend(backend.run, call, memory)
    try:
        if raised is None:
            return {"op": "ok"}
        if isinstance(raised, Rejected):
            return {"op": "rejected", "rule": refusal_rule(raised), "message": backend_text(raised)}
        # the backend's failure (KeyboardInterrupt, SystemExit, GeneratorExit too) is the reply; serve goes on
        return {"op": "error", "message": backend_text(f"{type(raised).__name__}: {backend_text(raised)}")}
    finally:
        forget_traceback(raised)    # its traceback reaches the frames holding the images: no cycle left


def hello(backend: Backend, apis: list[str], products: list[str], batch: bool) -> dict[str, Any]:
    """The hello reply (BackendCrash where backend.supports raises: the handshake is then refused)."""
    supports = {api: [p for p in products if ask_supports(backend, api, p)] for api in apis}
    name, _ = call_backend(getattr, backend, "name", "")
    version, _ = call_backend(getattr, backend, "version", "")
    reply = {"op": "hello", "protocol": PROTOCOL, "name": backend_text(name or ""),
             "version": backend_text(version or ""),
             "supports": {api: ps for api, ps in supports.items() if ps}, "batch": batch}
    try:
        readings = backend_readings(backend, reply["name"] or "served")
    except BackendLoadError as exc:
        raise BackendCrash(str(exc)) from None
    if readings:                        # the readings the served backend declares (docs/exec-protocol.md)
        reply["readings"] = readings
    return reply


def serve(backend: Backend, requests: Iterable[str], replies: IO[str], rulebook: Rulebook,
          batch: bool = False, measured: Any = None) -> int:
    """Answer requests until `bye` or end of input; the hello says which apis and products of `rulebook` the
    backend supports; `batch`: offer batch requests in the hello; `measured`: the backend's coverage
    (conformance/backends/measure.py), whose new points each call's result carries."""
    mapping = _Mapping()

    def result(run: dict[str, Any]) -> dict[str, Any]:
        out = _result(backend, mapping, run)
        call = run.get("call") if isinstance(run, dict) else None
        if measured is not None and (points := measured.new_points(call.get("api") if isinstance(call, dict) else None)):
            out["coverage"] = points
        return out

    def say(message: dict[str, Any]) -> None:
        replies.write(COMPACT.encode(message) + "\n")
        replies.flush()

    for line in requests:
        try:
            request = json.loads(line)
            op = request["op"]
        except (json.JSONDecodeError, TypeError, KeyError):
            say({"op": "error", "message": f"not a request: {line[:200]!r}"})
            continue
        if op == "hello":
            if request.get("protocol") != PROTOCOL:
                say({"op": "error", "message": f"this server speaks protocol {PROTOCOL}"})
                return 1
            try:
                say(hello(backend, sorted(rulebook.apis), list(rulebook.products), batch))
            except BackendCrash as exc:
                say({"op": "error", "message": str(exc)})
                return 1
        elif op == "run":
            out, ident = result(request), request.get("id")
            if out == RAN and type(ident) is int:  # the commonest reply, as COMPACT writes it, made at once
                replies.write(f'{{"op":"ok","id":{ident}}}\n')
                replies.flush()
            else:
                say({**out, "id": ident})
        elif op == "batch":
            say({"op": "batch", "id": request.get("id"),
                 "results": [result(run) for run in request.get("runs") or []]})
        elif op == "bye":
            return 0
        else:
            say({"op": "error", "id": request.get("id"), "message": f"unknown op {op!r}"})
    return 0


def refuse(message: str) -> int:
    """Answer the kit's hello with `message` (the backend could not be loaded), then leave."""
    sys.stdin.readline()
    sys.stdout.write(json.dumps({"op": "error", "message": message}, separators=(",", ":")) + "\n")
    sys.stdout.flush()
    return 1


SPIN = 0.001                    # seconds a request is waited for without sleeping (see request_lines)


def request_lines(fd: int, spin: float | None = None, sleep_first: bool = False) -> Iterator[str]:
    """The lines read from `fd`, each looked for without sleeping for up to `spin` seconds (SPIN, where the run
    has cores to spare: processes.Spinning learns when not to) before the process sleeps on it: the kit sends
    the next request soon after the last reply, and on a virtual machine a CPU that halted takes tens to
    hundreds of microseconds to resume. `sleep_first`: the first line is waited for asleep (a child forked
    after a death, while the kit is still busy with that crash)."""
    spinning = Spinning(SPIN if spin is None else spin)
    os.set_blocking(fd, False)
    pending = b""
    while True:
        while (end := pending.find(b"\n")) >= 0:
            yield pending[:end + 1].decode("utf-8", "surrogateescape")
            pending = pending[end + 1:]
        window = 0.0 if sleep_first else spinning.window()
        sleep_first = False
        until = time.monotonic() + window
        while True:
            try:
                chunk = os.read(fd, 1 << 20)
                break
            except BlockingIOError:
                if time.monotonic() >= until:
                    if window:
                        spinning.missed()
                        window = 0.0
                    select.select([fd], [], [])
        if not chunk:
            if pending:
                yield pending.decode("utf-8", "surrogateescape")
            return
        pending += chunk


def _can_wait_on_children() -> bool:
    try:
        os.close(os.pidfd_open(os.getpid()))
        return hasattr(os, "fork")
    except (AttributeError, OSError):
        return False


def main(backend: Backend, rulebook: Rulebook, batch: bool = False, measured: Any = None,
         respawn: bool = False) -> int:
    """Serve on the real stdin/stdout (by `rulebook`, see serve); the backend's own prints go to stderr.
    `measured`: the backend's coverage (conformance/backends/measure.py), its data file written when the
    serving process ends; `respawn`: serve from forked children of this process, each followed by another
    where it dies (conformance/backends/respawn.py; Linux, where a process can wait on a child's pidfd)."""
    from conformance.generate.memory import keep_freed_images
    keep_freed_images()             # as in the kit's workers: freed buffers stay mapped for the next call

    def serving(requests: int, replies: IO[str], forked: bool = False) -> int:
        try:
            return serve(backend, request_lines(requests, sleep_first=forked), replies, rulebook, batch, measured)
        finally:
            if measured is not None:
                measured.save()

    if respawn and _can_wait_on_children():
        from conformance.backends.respawn import serve_respawning
        return serve_respawning(lambda requests, replies: serving(requests, os.fdopen(replies, "w", encoding="utf-8"),
                                                                  forked=True), oracle_warmer(backend, rulebook))
    replies = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    return serving(sys.stdin.fileno(), replies)


def oracle_warmer(backend: Backend, rulebook: Rulebook) -> Callable[[bytes], None]:
    """What a respawning host runs before it forks the child that follows a dead one: the oracle's check of
    the last call the kit sent, without memory, by the rulebook the backend's run reads where it is the
    kit's reference (OracleBackend and its subclasses: the one it was given, else the oracle's own, with its
    readings), else by `rulebook`. What that fills (the rulebook itself where it was not loaded yet, the
    call's plan, its compiled fast path) is then the host's, and every child forked later starts with it:
    a child that dies on most calls (a crash being shrunk) would fill it again on each first call, a few
    milliseconds each. Only the kit's own code runs here."""
    from oracle.rules import context, violations, with_readings
    books: list[Rulebook] = []

    def warm(request: bytes) -> None:
        if not books:           # found on first use: readings the hello refused raise here, not at the start
            if isinstance(backend, OracleBackend):
                given = backend.rulebook if isinstance(backend.rulebook, Rulebook) else None
                books.append(with_readings(given, backend_readings(backend, "served") or None))
            else:
                books.append(rulebook)
        call = Call.from_dict(json.loads(request)["call"])
        for book in books:
            violations(context(call, None, book))
    return warm
