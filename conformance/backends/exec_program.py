"""Out-of-process backends (`--backend "exec:./my_sim --flag"`): the program speaks the JSON-lines protocol
of docs/exec-protocol.md on its stdin/stdout, and memory images live in a shared file both sides map.

The program runs in its own process group. Whatever it does (answers `error`, exits, dies on a signal,
prints something that is not a reply, hangs past the time limit) becomes a `BackendCrash` for the call in
flight, which the verdict machinery reports as CRASH; the process is then killed if need be and a fresh
one is started for the next call, so one misbehaving call never loses a run's results.
"""
from __future__ import annotations

import fcntl
import json
import os
import shlex
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from oracle import Call
from oracle.quoting import quoted

from conformance.backends.calling import backend_text
from conformance.backends.contract import BackendCrash, BackendLoadError, Rejected
from conformance.backends.processes import as_user, exit_code, ready, wait_exit
from conformance.backends.shared_images import SharedImages

PROTOCOL = 1
DEFAULT_TIMEOUT = 10.0          # seconds a call may take before the program is declared hung
HELLO_TIMEOUT = 30.0            # seconds a program may take to start and answer hello
STDERR_LINES = 12               # lines of the program's stderr quoted when it crashes
STDERR_KEEP = 1 << 20           # bytes of the program's stderr kept on disk between calls (at least)
REPLY_LIMIT = 64 << 20          # bytes a reply line may hold; a longer one is a protocol error
REPLY_SPIN = 0.001              # seconds a reply is waited for without sleeping (see processes.ready)
TRACE_ENV = "ASCEND_CONFORMANCE_TRACE"


class ExecBackend:
    """A backend program driven over the exec protocol (docs/exec-protocol.md)."""

    out_of_process = True       # its calls run in the program: a caller may do other work meanwhile

    def __init__(self, command: str | Sequence[str], timeout: float | None = None, *, user: str | None = None,
                 env: Mapping[str, str] | None = None, hosted: str | None = None):
        """`command`: a shell-like string or an argv list; `user`: the user the program runs as (the kit
        started as root: --backend-user); `env`: its environment (default: the kit's); `hosted`: the
        `module:attr` name of a Python backend this program hosts (conformance/backends/host.py), whose
        load errors are reported as that backend's own."""
        self.command = command if isinstance(command, str) else shlex.join(command)
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.argv:
            raise BackendLoadError("backend 'exec:': no program named after 'exec:'")
        self.timeout = float(timeout) if timeout else DEFAULT_TIMEOUT
        self.user, self.env, self.hosted = user, dict(env) if env is not None else None, hosted
        self.shm = SharedImages()
        self._proc: subprocess.Popen | None = None
        self._pidfd: int | None = None              # readable once the program has exited (Linux)
        self._stderr = None
        self._pending = bytearray()                 # what the program printed past the last reply read
        self._scanned = 0                           # bytes of it known to hold no newline
        self._id = 0
        self._trace = os.environ.get(TRACE_ENV)
        self.restarts = 0
        self._places: dict[str, tuple[int, int]] = {}
        self._views: dict[str, np.ndarray] | None = None
        self._copied = False
        self.name, self.version, self.batch = "", "", False
        self.readings: dict[str, str] = {}         # ambiguity id -> reading id, from its hello
        self._supports: dict[str, set[str]] = {}
        try:
            self.shm.ensure(1)                      # made before the program, which inherits it
            self._start()
        except BackendCrash as exc:
            self.close()
            if hosted is not None:
                raise BackendLoadError(str(exc) if str(exc).startswith(f"backend {hosted!r}")
                                       else f"backend {hosted!r}: {exc}") from None
            raise BackendLoadError(f"backend 'exec:{self.command}': {exc}") from None

    # ------------------------------------------------------------------------------------ the contract

    def process_groups(self) -> list[int]:
        """The program's process group (its own session), for a supervisor to kill should the process
        holding this backend die first."""
        return [self._proc.pid] if self._proc is not None else []

    def supports(self, api: str, product: str) -> bool:
        products = self._supports.get(api, set())
        return "*" in products or product in products

    def images(self, sizes: Mapping[str, int], busy: Mapping[str, tuple[int, int]] | None = None
               ) -> dict[str, np.ndarray]:
        """Where the kit builds a call's images: views of the shared file (no copy on the way in or out);
        clear of `busy`, the places of a call the program still has (see Sent.places)."""
        self._places = self.shm.layout_clear_of(sizes, busy)
        self._views = self.shm.views(self._places)
        return self._views

    def run(self, call: Call, memory: dict[str, np.ndarray]) -> None:
        self.finish(self.send(call, memory))

    def send(self, call: Call, memory: dict[str, np.ndarray], text: str | None = None) -> "Sent":
        """The first half of `run`: the request written, the program at work on it (the caller may work
        meanwhile, on anything but `memory`); `finish` waits for the reply. `text`: the call's JSON text
        (Call.to_json), where the caller has it."""
        places = self._placed(memory)
        said = _Raw(text) if text is not None else call.to_dict()
        request, deadline = self._request({"op": "run", "call": said, "memory": self.shm.describe(places)})
        return Sent(request, deadline, memory, places, self._proc)

    def finish(self, sent: "Sent") -> None:
        """The second half of `run`: the reply read and acted on (Rejected, BackendCrash, or None: it ran).
        Replies come in the order of the requests: a caller with two out finishes the first first."""
        if sent.process is not self._proc:
            raise BackendCrash("the program was restarted before it answered (an earlier call crashed it)")
        # a call sent ahead waited behind the one before it: its time limit counts from when it is awaited
        deadline = max(sent.deadline, time.monotonic() + self.timeout)
        self._settle(self._reply(sent.request, deadline), sent.memory, sent.places)

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
        """Say bye, give the program a second to leave, then kill what is left of its process group."""
        if self._proc is not None and exit_code(self._proc) is None:
            try:
                self._send({"op": "bye"}, time.monotonic() + 1, 1)
                self._proc.stdin.close()
                wait_exit(self._proc, 1)
            except (OSError, ValueError, BackendCrash):
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
        fd = self._stderr.fileno()                  # appended to, wherever the kit last read it from
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_APPEND)
        try:
            self._proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=self._stderr, start_new_session=True, bufsize=0,
                                          pass_fds=self.shm.inherited(), env=self.env, **as_user(self.user))
        except OSError as exc:
            who = f" as user {self.user!r} (who must be able to run it and read what it loads)" if self.user else ""
            why = "it is a folder, not a program" if os.path.isdir(self.argv[0]) else exc.strerror or exc
            raise BackendCrash(f"cannot start {self.argv[0]!r}{who}: {why}") from None
        os.set_blocking(self._proc.stdin.fileno(), False)       # writes wait under select, with a deadline
        try:
            self._pidfd = os.pidfd_open(self._proc.pid)
        except (AttributeError, OSError):           # not Linux >= 5.3: an exit is seen as end of output
            self._pidfd = None
        self._pending, self._scanned = bytearray(), 0
        deadline = time.monotonic() + HELLO_TIMEOUT
        self._send({"op": "hello", "protocol": PROTOCOL, "kit": _kit_version()}, deadline, HELLO_TIMEOUT)
        reply = self._receive(deadline, HELLO_TIMEOUT, what="hello")
        if reply.get("op") == "error":
            said = backend_text(reply.get("message"))
            if self.hosted is not None and said.startswith(f"backend {self.hosted!r}"):
                raise BackendCrash(said)            # the hosted backend's own load error, as in process
            raise BackendCrash(backend_text(f"refused the handshake: {said}"))
        if reply.get("op") != "hello" or reply.get("protocol") != PROTOCOL:
            raise BackendCrash(f"answered hello with {_short(reply)} (expected a hello of protocol {PROTOCOL})")
        supports = reply.get("supports")
        if not isinstance(reply.get("name"), str) or not isinstance(supports, dict) or not all(
                isinstance(p, list) and all(isinstance(x, str) for x in p) for p in supports.values()):
            raise BackendCrash(f"its hello needs a string 'name' and 'supports': api -> [product, ...]; "
                               f"got {_short(reply)}")
        self.name, self.version = backend_text(reply["name"]), backend_text(reply.get("version") or "")
        self.batch = reply.get("batch") is True
        readings = reply.get("readings", {})
        if not isinstance(readings, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                     for k, v in readings.items()):
            raise BackendCrash(f"its hello's 'readings' must map ambiguity ids to reading ids (strings); "
                               f"got {_short(readings)}")
        self.readings = {backend_text(k): backend_text(v) for k, v in readings.items()}
        if self.batch:
            self.run_batch = self._run_batch
        self._supports = {api: set(products) for api, products in supports.items()}

    def _ensure(self) -> None:
        if self._proc is None or exit_code(self._proc) is not None:
            self._kill()
            self.restarts += 1
            self._start()
        self._trim_stderr()

    def _kill(self) -> None:
        """SIGKILL to the program's whole process group, whether its leader is still there or not (a child
        that kept its stdout lives on otherwise), then reap the leader. The leader is reaped only here,
        after the kill: until then its pid (the group's id) cannot go to another process."""
        proc, self._proc = self._proc, None
        pidfd, self._pidfd = self._pidfd, None
        if pidfd is not None:
            os.close(pidfd)
        if proc is None:
            return
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

    def _trim_stderr(self) -> None:
        """Keep the program's stderr file small: a program that logs without end must not fill the disk."""
        fd = self._stderr.fileno() if self._stderr is not None else None
        if fd is not None and os.fstat(fd).st_size > STDERR_KEEP:
            tail = self._stderr_bytes()
            os.ftruncate(fd, 0)
            os.write(fd, tail)

    def _stderr_bytes(self) -> bytes:
        fd = self._stderr.fileno()
        size = os.fstat(fd).st_size
        return os.pread(fd, 8192, max(size - 8192, 0))

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        lines = self._stderr_bytes().decode("utf-8", "replace").strip().splitlines()[-STDERR_LINES:]
        return ("; its stderr ended with: " + " | ".join(lines)) if lines else ""

    def _died(self) -> BackendCrash:
        """The crash of a program that exited, died, or closed its end of a pipe; the group is killed."""
        code = wait_exit(self._proc, 1) if self._proc is not None else None
        if code is None:
            how = "closed its standard input or output without exiting (it was killed)"
        elif code < 0:
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

    def _send(self, message: dict[str, Any], deadline: float, limit: float) -> None:
        line = _line(message)
        if self._trace:
            with open(self._trace, "a", encoding="utf-8") as f:
                f.write("> " + line)
        assert self._proc is not None and self._proc.stdin is not None
        fd = self._proc.stdin.fileno()
        data = memoryview(line.encode())
        while True:
            try:
                data = data[os.write(fd, data):]
            except BlockingIOError:
                pass
            except OSError:                         # EPIPE: nothing reads its stdin any more
                raise self._died() from None
            if not data:
                return
            left = deadline - time.monotonic()
            found = ready(self._exit_watch(), fd, left)
            writable = fd in found
            if found and not writable:
                raise self._died()
            if left <= 0 and not writable:
                self._kill()
                raise BackendCrash(f"the program did not read its request within {limit:g} s (it was killed)"
                                   f"{self._stderr_tail()}")

    def _exit_watch(self) -> list[int]:
        return [self._pidfd] if self._pidfd is not None else []

    def _receive(self, deadline: float, limit: float, what: str) -> dict[str, Any]:
        """The next line from the program, parsed; BackendCrash on death, silence, garbage or a line
        longer than REPLY_LIMIT. Each byte is looked at once, however the line comes in."""
        assert self._proc is not None and self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        watch = [fd] + self._exit_watch()
        while (end := self._pending.find(b"\n", self._scanned)) < 0:
            self._scanned = len(self._pending)
            if self._scanned > REPLY_LIMIT:
                break
            left = deadline - time.monotonic()
            found = ready(watch, None, left, REPLY_SPIN)
            if fd in found:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    raise self._died()
                self._pending += chunk
            elif found:                             # the program exited, and its output holds no more
                raise self._died()
            else:
                self._kill()
                raise BackendCrash(f"no answer to {what} within {limit:g} s (the program was killed)"
                                   f"{self._stderr_tail()}")
        if end < 0 or end > REPLY_LIMIT:
            self._kill()
            raise BackendCrash(f"protocol error: a reply longer than {REPLY_LIMIT >> 20} MiB to {what} (the "
                               f"program was killed)")
        line = bytes(self._pending[:end])
        del self._pending[:end + 1]
        self._scanned = 0
        if self._trace:
            with open(self._trace, "a", encoding="utf-8") as f:
                f.write("< " + line.decode("utf-8", "replace") + "\n")
        try:                    # bytes that are not UTF-8 and raw control characters in strings: tolerated
            reply = json.loads(line.decode("utf-8", "surrogateescape"), strict=False)
        except (ValueError, RecursionError):
            reply = None
        if not isinstance(reply, dict):
            self._kill()
            raise BackendCrash(f"protocol error: the program printed {line[:200]!r} instead of a reply to {what}")
        return reply

    def _ask(self, request: dict[str, Any], calls: int = 1) -> dict[str, Any]:
        """Send a request and wait for its reply: `calls` times the time limit (a batch of n calls gets n)
        for the whole exchange, writing the request included."""
        request, deadline = self._request(request, calls)
        return self._reply(request, deadline)

    def _request(self, request: dict[str, Any], calls: int = 1) -> tuple[dict[str, Any], float]:
        self._ensure()
        self._id += 1
        request = {"op": request["op"], "id": self._id, **request}
        limit = self.timeout * calls
        deadline = time.monotonic() + limit
        self._send(request, deadline, limit)
        return request, deadline

    def _reply(self, request: dict[str, Any], deadline: float) -> dict[str, Any]:
        limit = self.timeout * (len(request["runs"]) if request["op"] == "batch" else 1)
        reply = self._receive(deadline, limit, what=f"{request['op']} request {request['id']}")
        if reply.get("id") != request["id"]:
            self._kill()
            raise BackendCrash(f"protocol error: a reply with id {_short(reply.get('id'))} to request "
                               f"{request['id']}: {_short(reply)}")
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
            raise Rejected(backend_text(reply.get("message") or ""),
                           backend_text(rule) if isinstance(rule, str) else None)
        if op == "error":
            raise BackendCrash(backend_text(f"the backend reported an error: {backend_text(reply.get('message'))}"))
        if not in_batch:
            self._kill()
        raise BackendCrash(f"protocol error: unknown reply {_short(reply)}")


class _Raw(str):
    """JSON text already made (a call's), put into a request as it is."""


def _line(message: dict[str, Any]) -> str:
    """A request as one line of JSON; a value that is _Raw text goes in as that text."""
    raw = {k: v for k, v in message.items() if isinstance(v, _Raw)}
    if not raw:
        return json.dumps(message, separators=(",", ":")) + "\n"
    rest = json.dumps({k: v for k, v in message.items() if k not in raw}, separators=(",", ":"))
    return rest[:-1] + "".join(f",{json.dumps(k)}:{v}" for k, v in raw.items()) + "}\n"


@dataclass
class Sent:
    """A run request written and not yet answered (ExecBackend.send)."""

    request: dict[str, Any]
    deadline: float
    memory: dict[str, np.ndarray]
    places: Mapping[str, tuple[int, int]]
    process: Any = None                 # the program it went to


def _short(value: Any) -> str:
    return quoted(value, 200)


def _kit_version() -> str:
    from conformance.backends.contract import kit_version
    return kit_version()
