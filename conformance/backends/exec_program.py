"""Out-of-process backends (`--backend "exec:./my_sim --flag"`): the program speaks the JSON-lines protocol
of docs/exec-protocol.md on its stdin/stdout, and memory images live in a shared file both sides map.

The program runs in its own process group (conformance/backends/exec_process.py); the protocol's messages
are written and read in conformance/backends/exec_messages.py. Whatever the program does (answers `error`,
exits, dies on a signal, prints something that is not a reply, hangs past the time limit) becomes a
`BackendCrash` for the call in flight, which the verdict machinery reports as CRASH; the process is then
killed if need be and a fresh one is started for the next call, so one misbehaving call never loses a
run's results.
"""
from __future__ import annotations

import shlex
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from oracle import Call

from conformance.backends import prestart
from conformance.backends.calling import backend_text
from conformance.backends.contract import BackendCrash, BackendLoadError, Rejected, kit_version
from conformance.backends.exec_messages import (COMPACT, PROTOCOL, brief, coverage_points, parse_reply, read_hello,
                                                request_line, run_line)
from conformance.backends.exec_process import ProgramProcess
from conformance.backends.shared_images import SharedImages

DEFAULT_TIMEOUT = 10.0          # seconds a call may take before the program is declared hung
HELLO_TIMEOUT = 30.0            # seconds a program may take to start and answer hello


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
        self.program = ProgramProcess(self.argv, self.user, self.env)
        self._id = 0
        self.restarts = 0                           # programs started again after one ended
        self.respawns = 0                           # processes a respawning program replaced (`crashed`)
        self._places: dict[str, tuple[int, int]] = {}
        self._views: dict[str, np.ndarray] | None = None
        self._batch_places: list[dict[str, tuple[int, int]]] = []     # where batch_images put a batch's images
        self._batch_views: list[dict[str, np.ndarray]] = []
        self._copied = False
        self.name, self.version, self.batch = "", "", False
        self.readings: dict[str, str] = {}         # ambiguity id -> reading id, from its hello
        self._supports: dict[str, set[str]] = {}
        self.coverage_map: str | None = None       # the program's file naming its points, from its hello
        self._reached: list[int | str] = []        # points the replies named since take_coverage
        try:
            given = prestart.take(self.argv, self.env, self.user)     # started ahead for this worker
            if given is not None:
                self.shm.adopt(given.memfd, given.path)
                self.program.adopt(given.proc, given.stderr)
            self.shm.ensure(1)                      # made before the program, which inherits it
            self._start(started=given is not None)
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
        return self.program.process_groups()

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
        said = text if text is not None else COMPACT.encode(call.to_dict())
        described = self.shm.described(places)
        request, deadline = self._request({"op": "run"}, line=lambda ident: run_line(ident, said, described))
        return Sent(request, deadline, memory, places, self.program.proc)

    def finish(self, sent: "Sent") -> None:
        """The second half of `run`: the reply read and acted on (Rejected, BackendCrash, or None: it ran).
        Replies come in the order of the requests: a caller with two out finishes the first first."""
        if sent.process is not self.program.proc:
            raise BackendCrash("the program was restarted before it answered (an earlier call crashed it)")
        # a call sent ahead waited behind the one before it: its time limit counts from when it is awaited
        deadline = max(sent.deadline, time.monotonic() + self.timeout)
        self._settle(self._reply(sent.request, deadline), sent.memory, sent.places)

    def batch_images(self, sizes: Sequence[Mapping[str, int]]) -> list[dict[str, np.ndarray]]:
        """Where the kit builds a batch's images: views of disjoint parts of the shared file, one set per call
        (send_batch then sends them as they are)."""
        self._batch_places = self.shm.layout([dict(s) for s in sizes])
        self._batch_views = [self.shm.views(places) for places in self._batch_places]
        return self._batch_views

    def send_batch(self, calls: Sequence[Call], memories: Sequence[dict[str, np.ndarray]]) -> "SentBatch":
        """The first half of a batch: the images placed (where batch_images put them, or copied into the
        shared file) and one `batch` request written; the caller may work meanwhile, on anything but
        `memories`; finish_batch waits for the reply."""
        views = self._batch_views
        if len(views) == len(memories) and all(set(m) == set(v) and all(m[s] is v[s] for s in v)
                                               for m, v in zip(memories, views)):
            all_places = self._batch_places
        else:
            all_places = self._copy_in(memories)
        self._batch_views = []
        runs = [{"call": c.to_dict(), "memory": self.shm.describe(p)} for c, p in zip(calls, all_places)]
        request, deadline = self._request({"op": "batch", "runs": runs}, len(calls))
        return SentBatch(request, deadline, list(memories), list(all_places), self.program.proc)

    def finish_batch(self, sent: "SentBatch") -> list[BaseException | None]:
        """The second half: the batch reply read; per call, None (it ran) or what its result means."""
        if sent.process is not self.program.proc:
            raise BackendCrash("the program was restarted before it answered (an earlier call crashed it)")
        reply = self._reply(sent.request, sent.deadline)
        calls = len(sent.memories)
        results = reply.get("results")
        if reply.get("op") == "crashed":
            raise self._crashed(reply)
        if reply.get("op") != "batch" or not isinstance(results, list) or len(results) != calls:
            self.program.kill()
            raise BackendCrash(f"protocol error: expected a batch reply with {calls} results, got "
                               f"{brief(reply)}")
        out: list[BaseException | None] = []
        for result, places, memory in zip(results, sent.places, sent.memories):
            try:
                self._settle(result if isinstance(result, dict) else {}, memory, places, in_batch=True)
                out.append(None)
            except Exception as exc:                # noqa: BLE001
                out.append(exc)
        return out

    def _run_batch(self, calls: Sequence[Call], memories: Sequence[dict[str, np.ndarray]]) -> list[BaseException | None]:
        """One `batch` request for all the calls (the backend's `run_batch` where the program's hello
        offered batches: the runner then hands it calls in batches)."""
        return self.finish_batch(self.send_batch(calls, memories))

    def take_coverage(self) -> list[int | str]:
        """The points the replies read since the last time asked (docs/exec-protocol.md, Coverage)."""
        reached, self._reached = self._reached, []
        return reached

    def close(self) -> None:
        """Say bye, give the program a second to leave, then kill what is left of its process group."""
        if self.program.running():
            try:
                self._send({"op": "bye"}, time.monotonic() + 1, 1)
                self.program.leave(1)
            except (OSError, ValueError, BackendCrash):
                pass
        self.program.kill()
        self.shm.close()

    def __del__(self) -> None:                      # pragma: no cover - best effort at interpreter exit
        try:
            self.close()
        except Exception:                            # noqa: BLE001
            pass

    # ------------------------------------------------------------------------------------ the program

    def _start(self, started: bool = False) -> None:
        """Start the program (unless `started` already) and shake hands: its hello says its name, its
        readings, what it supports and whether it takes batches."""
        if not started:
            self.program.start(self.shm.inherited())
        deadline = time.monotonic() + HELLO_TIMEOUT
        self._send({"op": "hello", "protocol": PROTOCOL, "kit": kit_version()}, deadline, HELLO_TIMEOUT)
        hello = read_hello(self._receive(deadline, HELLO_TIMEOUT, what="hello"), self.hosted)
        self.name, self.version, self.batch, self.readings = hello.name, hello.version, hello.batch, hello.readings
        self.coverage_map = hello.coverage_map
        if self.batch:
            self.run_batch = self._run_batch
        self._supports = hello.supports

    def _ensure(self) -> None:
        """A program running, a fresh one where the last one is gone; its stderr file trimmed."""
        if not self.program.running():
            self.program.kill()
            self.restarts += 1
            self._start()
        self.program.trim_stderr()

    # ------------------------------------------------------------------------------------ messages

    def _send(self, message: dict[str, Any], deadline: float, limit: float) -> None:
        self.program.send(request_line(message), deadline, limit)

    def _receive(self, deadline: float, limit: float, what: str) -> dict[str, Any]:
        """The program's next line, as a reply to `what`; BackendCrash where it is none (the program is killed)."""
        line = self.program.receive(deadline, limit, what)
        reply = parse_reply(line)
        if reply is None:
            self.program.kill()
            raise BackendCrash(f"protocol error: the program printed {line[:200]!r} instead of a reply to {what}")
        return reply

    def _ask(self, request: dict[str, Any], calls: int = 1) -> dict[str, Any]:
        """Send a request and wait for its reply: `calls` times the time limit (a batch of n calls gets n)
        for the whole exchange, writing the request included."""
        request, deadline = self._request(request, calls)
        return self._reply(request, deadline)

    def _request(self, request: dict[str, Any], calls: int = 1, line: Callable[[int], str] | None = None
                 ) -> tuple[dict[str, Any], float]:
        """The request sent with the next id (a program replaced first where it is gone); `line`, where
        given, writes the request's line from that id (run_line: a run, sent for every call)."""
        self._ensure()
        self._id += 1
        request = {"op": request["op"], "id": self._id, **request}
        limit = self.timeout * calls
        deadline = time.monotonic() + limit
        self.program.send(request_line(request) if line is None else line(self._id), deadline, limit)
        return request, deadline

    def _reply(self, request: dict[str, Any], deadline: float) -> dict[str, Any]:
        limit = self.timeout * (len(request["runs"]) if request["op"] == "batch" else 1)
        reply = self._receive(deadline, limit, what=f"{request['op']} request {request['id']}")
        if reply.get("id") != request["id"]:
            self.program.kill()
            raise BackendCrash(f"protocol error: a reply with id {brief(reply.get('id'))} to request "
                               f"{request['id']}: {brief(reply)}")
        return reply

    def _placed(self, memory: dict[str, np.ndarray]) -> dict[str, tuple[int, int]]:
        """Where the call's images are in the shared file: where images() put them, or (images made
        elsewhere, e.g. by a caller that did not use the hook) copied there."""
        views = self._views
        if views is not None and memory.keys() == views.keys() and all(memory[s] is v for s, v in views.items()):
            return self._places
        (places,) = self._copy_in([memory])
        self._copied = True
        return places

    def _copy_in(self, memories: Sequence[dict[str, np.ndarray]]) -> list[dict[str, tuple[int, int]]]:
        """Places in the shared file for images the kit made elsewhere, each copied there."""
        all_places = self.shm.layout([{scope: image.shape[0] for scope, image in memory.items()}
                                      for memory in memories])
        for places, memory in zip(all_places, memories):
            for scope, view in self.shm.views(places).items():
                np.copyto(view, memory[scope])
        return all_places

    def _settle(self, reply: dict[str, Any], memory: dict[str, np.ndarray], places: Mapping[str, tuple[int, int]],
                in_batch: bool = False) -> None:
        """Act on one call's reply: copy the images back if they were copied in; raise what it means."""
        if self._copied or in_batch:
            for scope, view in self.shm.views(places).items():
                if memory[scope] is not view:
                    np.copyto(memory[scope], view)
            self._copied = False
        if "coverage" in reply:
            self._reached.extend(coverage_points(reply))
        op = reply.get("op")
        if op == "ok":
            return
        if op == "rejected":
            rule = reply.get("rule")
            raise Rejected(backend_text(reply.get("message") or ""),
                           backend_text(rule) if isinstance(rule, str) else None)
        if op == "error":
            raise BackendCrash(backend_text(f"the backend reported an error: {backend_text(reply.get('message'))}"))
        if op == "crashed":
            raise self._crashed(reply)
        if not in_batch:
            self.program.kill()
        raise BackendCrash(f"protocol error: unknown reply {brief(reply)}")

    def _crashed(self, reply: dict[str, Any]) -> BackendCrash:
        """A `crashed` reply: the process that held the call died, and the program (a host that respawns
        it, conformance/backends/respawn.py) says how; it goes on, with a fresh process, for the next call."""
        self.respawns += 1
        return BackendCrash(backend_text(f"the backend program {backend_text(reply.get('message'))}")
                            + self.program.stderr_tail())


@dataclass
class SentBatch:
    """A batch request written and not yet answered (ExecBackend.send_batch)."""

    request: dict[str, Any]
    deadline: float
    memories: list[dict[str, np.ndarray]]
    places: list[Mapping[str, tuple[int, int]]]
    process: Any = None                 # the program it went to


@dataclass
class Sent:
    """A run request written and not yet answered (ExecBackend.send)."""

    request: dict[str, Any]
    deadline: float
    memory: dict[str, np.ndarray]
    places: Mapping[str, tuple[int, int]]
    process: Any = None                 # the program it went to
