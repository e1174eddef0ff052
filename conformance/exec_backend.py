"""Out-of-process backends (`--backend "exec:./my_sim --flag"`): the program speaks the JSON-lines protocol
of docs/exec-protocol.md on its stdin/stdout, and memory images live in a shared file both sides map.

The program runs in its own process group. Whatever it does (answers `error`, exits, dies on a signal,
prints something that is not a reply, hangs past the time limit) becomes a `BackendCrash` for the call in
flight, which the verdict machinery reports as CRASH; the process is then killed if need be and a fresh
one is started for the next call, so one misbehaving call never loses a run's results.
"""
from __future__ import annotations

import json
import mmap
import os
import select
import shlex
import signal
import subprocess
import tempfile
import time
import weakref
from typing import Any, Mapping, Sequence

import numpy as np

from oracle import Call

from .backends import BackendCrash, BackendLoadError, Rejected

PROTOCOL = 1
DEFAULT_TIMEOUT = 10.0          # seconds a call may take before the program is declared hung
HELLO_TIMEOUT = 30.0            # seconds a program may take to start and answer hello
ALIGN = 64                      # scope images start at multiples of this in the shared file
STDERR_LINES = 12               # lines of the program's stderr quoted when it crashes
TRACE_ENV = "ASCEND_CONFORMANCE_TRACE"


def _shm_dir() -> str:
    return "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else tempfile.gettempdir()


class SharedImages:
    """A file both sides map; the images of one call (or of every call of a batch) are laid out in it.
    It grows (a new, larger file) when a call needs more room; the program re-maps when told a new
    name or size."""

    def __init__(self) -> None:
        self.path: str | None = None
        self.size = 0
        self._map: mmap.mmap | None = None
        self._buffer: np.ndarray | None = None
        self._serial = 0

    def ensure(self, size: int) -> None:
        if size <= self.size:
            return
        self.close()
        self.size = max(size, 2 * self.size, 1 << 20)
        self.size = -(-self.size // mmap.PAGESIZE) * mmap.PAGESIZE
        fd, self.path = tempfile.mkstemp(prefix=f"ascend-conformance-{os.getpid()}-{self._serial}-", dir=_shm_dir())
        self._serial += 1
        # the file goes when this object does, or at interpreter exit at the latest
        self._finalizer = weakref.finalize(self, _remove, self.path)
        try:
            os.ftruncate(fd, self.size)
            self._map = mmap.mmap(fd, self.size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        finally:
            os.close(fd)
        self._buffer = np.frombuffer(self._map, dtype=np.uint8)

    def layout(self, sizes_list: Sequence[Mapping[str, int]]) -> list[dict[str, tuple[int, int]]]:
        """(offset, size) per scope for each call, back to back; the file grows to hold them all."""
        out, at = [], 0
        for sizes in sizes_list:
            places = {}
            for scope, size in sizes.items():
                places[scope] = (at, size)
                at = -(-(at + size) // ALIGN) * ALIGN
            out.append(places)
        self.ensure(at)
        return out

    def views(self, places: Mapping[str, tuple[int, int]]) -> dict[str, np.ndarray]:
        assert self._buffer is not None
        return {scope: self._buffer[offset:offset + size] for scope, (offset, size) in places.items()}

    def describe(self, places: Mapping[str, tuple[int, int]]) -> dict[str, Any]:
        """The request's `memory` object."""
        return {"file": self.path, "size": self.size,
                "scopes": {scope: {"offset": offset, "size": size} for scope, (offset, size) in places.items()}}

    def close(self) -> None:
        self._buffer = None
        if self._map is not None:
            try:
                self._map.close()
            except BufferError:         # a view is still alive somewhere: the mapping goes with it
                pass
            self._map = None
        if self.path:
            self._finalizer()
        self.path, self.size = None, 0


class ExecBackend:
    """A backend program driven over the exec protocol (docs/exec-protocol.md)."""

    def __init__(self, command: str, timeout: float | None = None):
        self.command = command
        self.argv = shlex.split(command)
        if not self.argv:
            raise BackendLoadError("backend 'exec:': no program named after 'exec:'")
        self.timeout = float(timeout) if timeout else DEFAULT_TIMEOUT
        self.shm = SharedImages()
        self._proc: subprocess.Popen | None = None
        self._stderr = None
        self._pending = b""
        self._id = 0
        self._trace = os.environ.get(TRACE_ENV)
        self.restarts = 0
        self._places: dict[str, tuple[int, int]] = {}
        self._views: dict[str, np.ndarray] | None = None
        self._copied = False
        self.name, self.version, self.batch = "", "", False
        self._supports: dict[str, set[str]] = {}
        try:
            self._start()
        except BackendCrash as exc:
            self.close()
            raise BackendLoadError(f"backend 'exec:{command}': {exc}") from None

    # ------------------------------------------------------------------------------------ the contract

    def supports(self, api: str, product: str) -> bool:
        products = self._supports.get(api, set())
        return "*" in products or product in products

    def images(self, sizes: Mapping[str, int]) -> dict[str, np.ndarray]:
        """Where the kit builds a call's images: views of the shared file (no copy on the way in or out)."""
        (self._places,) = self.shm.layout([sizes])
        self._views = self.shm.views(self._places)
        return self._views

    def run(self, call: Call, memory: dict[str, np.ndarray]) -> None:
        places = self._placed(memory)
        reply = self._ask({"op": "run", "call": call.to_dict(), "memory": self.shm.describe(places)})
        self._settle(reply, memory, places)

    def _run_batch(self, calls: Sequence[Call], memories: Sequence[dict[str, np.ndarray]]) -> list[BaseException | None]:
        """One `batch` request for all the calls (the backend's `run_batch` where the program's hello
        offered batches: the runner then hands it calls in batches)."""
        all_places = self.shm.layout([{s: m.shape[0] for s, m in memory.items()} for memory in memories])
        for places, memory in zip(all_places, memories):
            for scope, view in self.shm.views(places).items():
                np.copyto(view, memory[scope])
        reply = self._ask({"op": "batch", "runs": [{"call": c.to_dict(), "memory": self.shm.describe(p)}
                                                    for c, p in zip(calls, all_places)]}, len(calls))
        results = reply.get("results")
        if reply.get("op") != "batch" or not isinstance(results, list) or len(results) != len(calls):
            self._kill()
            raise BackendCrash(f"protocol error: expected a batch reply with {len(calls)} results, got "
                               f"{_short(reply)}")
        out = []
        for result, places, memory in zip(results, all_places, memories):
            try:
                self._settle(result if isinstance(result, dict) else {}, memory, places, in_batch=True)
                out.append(None)
            except Exception as exc:                # noqa: BLE001
                out.append(exc)
        return out

    def close(self) -> None:
        """Say bye, give the program a second to leave, then kill what is left."""
        if self._proc is not None and self._proc.poll() is None:
            try:
                self._send({"op": "bye"})
                self._proc.stdin.close()
                self._proc.wait(timeout=1)
            except (OSError, subprocess.TimeoutExpired, ValueError):
                pass
        self._kill()
        self.shm.close()

    def __del__(self) -> None:                      # pragma: no cover - best effort at interpreter exit
        try:
            self.close()
        except Exception:                            # noqa: BLE001
            pass

    # ------------------------------------------------------------------------------------ the process

    def _start(self) -> None:
        self._stderr = tempfile.TemporaryFile()
        try:
            self._proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=self._stderr, start_new_session=True, bufsize=0)
        except OSError as exc:
            raise BackendCrash(f"cannot start {self.argv[0]!r}: {exc.strerror or exc}") from None
        self._pending = b""
        self._send({"op": "hello", "protocol": PROTOCOL, "kit": _kit_version()})
        reply = self._receive(HELLO_TIMEOUT, what="hello")
        if reply.get("op") == "error":
            raise BackendCrash(f"refused the handshake: {reply.get('message')}")
        if reply.get("op") != "hello" or reply.get("protocol") != PROTOCOL:
            raise BackendCrash(f"answered hello with {_short(reply)} (expected a hello of protocol {PROTOCOL})")
        supports = reply.get("supports")
        if not isinstance(reply.get("name"), str) or not isinstance(supports, dict) or not all(
                isinstance(p, list) and all(isinstance(x, str) for x in p) for p in supports.values()):
            raise BackendCrash(f"its hello needs a string 'name' and 'supports': api -> [product, ...]; "
                               f"got {_short(reply)}")
        self.name, self.version = reply["name"], str(reply.get("version") or "")
        self.batch = reply.get("batch") is True
        if self.batch:
            self.run_batch = self._run_batch
        self._supports = {api: set(products) for api, products in supports.items()}

    def _ensure(self) -> None:
        if self._proc is None or self._proc.poll() is not None:
            self._kill()
            self.restarts += 1
            self._start()

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:      # pragma: no cover
                pass
            for stream in (proc.stdin, proc.stdout):
                try:
                    stream.close()
                except OSError:
                    pass

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        self._stderr.seek(0)
        lines = self._stderr.read()[-8192:].decode("utf-8", "replace").strip().splitlines()[-STDERR_LINES:]
        return ("; its stderr ended with: " + " | ".join(lines)) if lines else ""

    def _died(self) -> BackendCrash:
        code = self._proc.wait() if self._proc is not None else None
        if code is not None and code < 0:
            try:
                how = f"killed by {signal.Signals(-code).name}"
            except ValueError:
                how = f"killed by signal {-code}"
        else:
            how = f"exited with status {code}"
        crash = BackendCrash(f"the backend program {how}{self._stderr_tail()}")
        self._kill()
        return crash

    # ------------------------------------------------------------------------------------ messages

    def _send(self, message: dict[str, Any]) -> None:
        line = json.dumps(message, separators=(",", ":")) + "\n"
        if self._trace:
            with open(self._trace, "a", encoding="utf-8") as f:
                f.write("> " + line)
        assert self._proc is not None and self._proc.stdin is not None
        self._proc.stdin.write(line.encode())

    def _receive(self, timeout: float, what: str) -> dict[str, Any]:
        """The next line from the program, parsed; BackendCrash on death, silence or garbage."""
        assert self._proc is not None and self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self._pending:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                self._kill()
                raise BackendCrash(f"no answer to {what} within {timeout:g} s (the program was killed)"
                                   f"{self._stderr_tail()}")
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise self._died()
            self._pending += chunk
        line, _, self._pending = self._pending.partition(b"\n")
        if self._trace:
            with open(self._trace, "a", encoding="utf-8") as f:
                f.write("< " + line.decode("utf-8", "replace") + "\n")
        try:
            reply = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            reply = None
        if not isinstance(reply, dict):
            self._kill()
            raise BackendCrash(f"protocol error: the program printed {line[:200]!r} instead of a reply to {what}")
        return reply

    def _ask(self, request: dict[str, Any], calls: int = 1) -> dict[str, Any]:
        """Send a request and wait for its reply: `calls` times the time limit (a batch of n calls gets n)."""
        self._ensure()
        self._id += 1
        request = {"op": request["op"], "id": self._id, **request}
        try:
            self._send(request)
        except (BrokenPipeError, OSError):
            raise self._died() from None
        reply = self._receive(self.timeout * calls, what=f"{request['op']} request {self._id}")
        if reply.get("id") != self._id:
            self._kill()
            raise BackendCrash(f"protocol error: a reply with id {reply.get('id')!r} to request {self._id}: "
                               f"{_short(reply)}")
        return reply

    def _placed(self, memory: dict[str, np.ndarray]) -> dict[str, tuple[int, int]]:
        """Where the call's images are in the shared file: where images() put them, or (images made
        elsewhere, e.g. by a caller that did not use the hook) copied there."""
        views = self._views
        if views is not None and all(memory.get(s) is v for s, v in views.items()) and set(memory) == set(views):
            return self._places
        (places,) = self.shm.layout([{scope: image.shape[0] for scope, image in memory.items()}])
        for scope, view in self.shm.views(places).items():
            np.copyto(view, memory[scope])
        self._copied = True
        return places

    def _settle(self, reply: dict[str, Any], memory: dict[str, np.ndarray], places: Mapping[str, tuple[int, int]],
                in_batch: bool = False) -> None:
        """Act on one call's reply: copy the images back if they were copied in; raise what it means."""
        if self._copied or in_batch:
            for scope, view in self.shm.views(places).items():
                if memory[scope] is not view:
                    np.copyto(memory[scope], view)
            self._copied = False
        op = reply.get("op")
        if op == "ok":
            return
        if op == "rejected":
            rule = reply.get("rule")
            raise Rejected(str(reply.get("message") or ""), rule if isinstance(rule, str) else None)
        if op == "error":
            raise BackendCrash(f"the backend reported an error: {reply.get('message')}")
        if not in_batch:
            self._kill()
        raise BackendCrash(f"protocol error: unknown reply {_short(reply)}")


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _short(value: Any) -> str:
    text = json.dumps(value)[:200]
    return text


def _kit_version() -> str:
    from .results import kit_version
    return kit_version()
