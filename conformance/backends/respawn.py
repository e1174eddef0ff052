"""A hosted Python backend's process respawned in milliseconds (the host's side; the kit's side needs only
to read a `crashed` reply: docs/exec-protocol.md).

Starting a Python backend costs an interpreter, numpy, the kit, the rulebook and the backend's own
imports: a fraction of a second. A backend that dies on some calls would pay that on every such call, and
shrinking a crash, where nearly every run dies, pays it hundreds of times. So the host loads the backend
once and serves it from forked children: each child answers requests until it dies; the host then answers
every request that child had in flight with `crashed` (how it died) and forks the next child from the
loaded copy, the cost of a fork.

The host relays the protocol's lines between the kit (its own stdin and stdout) and the child (a pair of
pipes of the child's own), so that a child that dies cannot take bytes meant for the next one. What the
kit sends is read as requests only for their `op` and `id` (from the head of the line where it is written
as the kit writes it, `{"op":"run","id":17,...`); what a child says is passed on as bytes.
"""
from __future__ import annotations

import json
import os
import re
import select
import signal
from collections import deque
from typing import Callable

CHUNK = 1 << 20
KIT_HEAD = re.compile(rb'\{"op":"([a-z]+)","id":(0|[1-9][0-9]{0,17})[,}]')     # how the kit begins a request


def describe(status: int) -> str:
    """How a child ended, as the kit says of a program that ended ("exited with status 3")."""
    if os.WIFSIGNALED(status):
        try:
            return f"killed by {signal.Signals(os.WTERMSIG(status)).name}"
        except ValueError:
            return f"killed by signal {os.WTERMSIG(status)}"
    return f"exited with status {os.waitstatus_to_exitcode(status)}"


def _write(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


class Relay:
    """The host's side of the kit's pipe: what the kit said and the child has not answered yet."""

    def __init__(self, kit_in: int, kit_out: int):
        self.kit_in, self.kit_out = kit_in, kit_out
        self.pending = b""                      # the kit's bytes past its last complete line
        self.waiting: deque[tuple[str, object]] = deque()   # (op, id) of each request the child holds
        self.line_open = False                  # the child's last bytes passed on end inside a line
        self.last_run = b""                     # the kit's last `run` request (serve_respawning's warm)

    def from_kit(self, data: bytes) -> None:
        """Note the requests in `data` (the child is handed the bytes as they are)."""
        self.pending += data
        *lines, self.pending = self.pending.split(b"\n")
        for line in lines:
            self.waiting.append(_op_and_id(line))
            if self.waiting[-1][0] == "run":
                self.last_run = line

    def from_child(self, data: bytes) -> None:
        _write(self.kit_out, data)
        for _ in range(min(data.count(b"\n"), len(self.waiting))):
            self.waiting.popleft()
        self.line_open = not data.endswith(b"\n")

    def said_bye(self) -> bool:
        return bool(self.waiting) and self.waiting[-1][0] == "bye"

    def crashed(self, how: str) -> None:
        """Answer every request the dead child held: it `crashed`, and how."""
        out = b"\n" if self.line_open else b""
        for op, ident in self.waiting:
            if op != "bye":
                out += json.dumps({"op": "crashed", "id": ident, "message": how}, separators=(",", ":")).encode() + b"\n"
        self.waiting.clear()
        self.line_open = False
        _write(self.kit_out, out)


def _op_and_id(line: bytes) -> tuple[str, object]:
    """A request's `op` and `id`: read from the head of a line the kit wrote, else from the whole line."""
    head = KIT_HEAD.match(line)
    if head is not None:
        return head[1].decode(), int(head[2])
    try:
        request = json.loads(line)
        return str(request.get("op")), request.get("id")
    except (ValueError, AttributeError):
        return "?", None                        # the child answers it with an error


def _fork(serve_child: Callable[[int, int], int], keep: tuple[int, ...]) -> tuple[int, int, int]:
    """A child serving on a fresh pair of pipes: its pid, the host's end of its input and of its output."""
    child_in, to_child = os.pipe()
    from_child, child_out = os.pipe()
    pid = os.fork()
    if pid == 0:                                # the child: the kit's pipes and the host's ends are not its
        try:
            for fd in (to_child, from_child, *keep):
                os.close(fd)
            os.dup2(child_in, 0)
            os.close(child_in)
            code = serve_child(0, child_out)
        except BaseException:                   # noqa: BLE001 - the backend's code ran here
            code = 70
        os._exit(code if isinstance(code, int) else 0)
    os.close(child_in)
    os.close(child_out)
    return pid, to_child, from_child


def serve_respawning(serve_child: Callable[[int, int], int], warm: Callable[[bytes], None] | None = None) -> int:
    """Relay between the kit (stdin, stdout) and a forked child `serve_child(requests_fd, replies_fd)` until
    the kit says bye or closes stdin; a child that dies first is followed by another. Before that one is
    forked, `warm(request)` is handed the last `run` request the kit sent: what it fills in this process
    (the oracle's caches of a call of that kind) each later child starts with, instead of filling it again
    on its first call; what it raises is dropped."""
    kit_out = os.dup(1)
    os.dup2(2, 1)                               # the backend's prints (host or child) go to stderr
    relay = Relay(0, kit_out)
    while True:
        pid, to_child, from_child = _fork(serve_child, (kit_out,))
        status = _relay(relay, pid, to_child, from_child)
        if status is None:                      # the kit is gone, or said bye and the child left
            return 0
        relay.crashed(describe(status))
        if warm is not None and relay.last_run:
            try:
                warm(relay.last_run)
            except Exception:                   # noqa: BLE001 - a cache left cold costs time, nothing else
                pass


def _relay(relay: Relay, pid: int, to_child: int, from_child: int) -> int | None:
    """Pass lines both ways until the child ends: None where it ended because the kit was done, else its
    wait status."""
    pidfd = os.pidfd_open(pid)
    watched = {relay.kit_in, from_child, pidfd}
    polled = select.poll()                      # one poll object for the child's life: no set made per look
    for fd in watched:
        polled.register(fd, select.POLLIN)

    def unwatch(fd: int) -> None:
        watched.discard(fd)
        polled.unregister(fd)
    try:
        while True:
            ready = {fd for fd, _ in polled.poll()}
            if from_child in ready:
                data = os.read(from_child, CHUNK)
                if data:
                    relay.from_child(data)
                else:
                    unwatch(from_child)             # closed its output: seen dead, or ended by the kit's time limit
            if relay.kit_in in ready:
                data = os.read(relay.kit_in, CHUNK)
                if data:
                    _give(to_child, data)           # the child at work first, the requests noted after
                    relay.from_kit(data)
                else:
                    unwatch(relay.kit_in)
                    os.close(to_child)
                    to_child = -1
            if pidfd in ready:
                _drain(relay, from_child)
                status = os.waitpid(pid, 0)[1]
                if relay.kit_in not in watched:     # the kit is gone: nobody to answer
                    return None
                return None if relay.said_bye() and os.waitstatus_to_exitcode(status) == 0 else status
    finally:
        for fd in (pidfd, from_child, to_child):
            if fd >= 0:
                os.close(fd)


def _give(to_child: int, data: bytes) -> None:
    """The kit's bytes to the child; a child that closed its input hears nothing more (it is about to be
    seen dead, or it answers nothing and the kit's time limit ends it)."""
    try:
        _write(to_child, data)
    except BrokenPipeError:
        pass


def _drain(relay: Relay, from_child: int) -> None:
    """What a child that ended had still written (a descendant may hold its output open: no waiting)."""
    os.set_blocking(from_child, False)
    while True:
        try:
            data = os.read(from_child, CHUNK)
        except BlockingIOError:
            return
        if not data:
            return
        relay.from_child(data)
