"""The process of an exec: backend program (conformance/backends/exec_program.py): started in a session of
its own, written to and read from a line at a time, each under a deadline, and killed with its whole
process group.

Whatever the program does to its pipes (exits, dies on a signal, closes them, stops reading, stays
silent, prints a line without end) becomes a `BackendCrash` saying so, with the last lines of its stderr.
"""
from __future__ import annotations

import os
import signal
import subprocess
import time
from typing import Any, Mapping, Sequence

from conformance.backends.contract import BackendCrash
from conformance.backends.processes import (Spinning, ended_status, exit_code, kill_group, launch, looked, poller,
                                             ready, wait_exit)

STDERR_LINES = 12               # lines of the program's stderr quoted when it crashes
STDERR_KEEP = 1 << 20           # bytes of the program's stderr kept on disk between calls (at least)
REPLY_LIMIT = 64 << 20          # bytes a reply line may hold; a longer one is a protocol error
REPLY_SPIN = 0.001              # seconds a reply is waited for without sleeping (see processes.ready)
TRACE_ENV = "ASCEND_CONFORMANCE_TRACE"


class ProgramProcess:
    """One backend program at a time, as a process: `start` runs it (again, after `kill`), `send` and
    `receive` move lines, `kill` ends it and its process group."""

    def __init__(self, argv: Sequence[str], user: str | None, env: Mapping[str, str] | None):
        """`argv`: the program and its arguments; `user`: the user it runs as (None: the kit's); `env`: its
        environment (None: the kit's)."""
        self.argv, self.user, self.env = list(argv), user, env
        self.proc: subprocess.Popen | None = None
        self._pidfd: int | None = None              # readable once the program has exited (Linux)
        self._stderr: Any = None
        self._stderr_fd: int | None = None          # its descriptor, read once
        self._exit_poll: Any = None                 # a poll on the pidfd alone (running)
        self._reply_poll: Any = None                # a poll on stdout and the pidfd (receive)
        self._pending = bytearray()                 # what the program printed past the last line read
        self._scanned = 0                           # bytes of it known to hold no newline
        self._trace = os.environ.get(TRACE_ENV)
        self._spinning = Spinning(REPLY_SPIN)       # how long a reply is looked for before sleeping on it
        self._adopted = False                       # the program is not this process's child (adopt)

    # ------------------------------------------------------------------------------------ its life

    def start(self, pass_fds: Sequence[int]) -> None:
        """Start the program in its own session, its stderr into a fresh file, `pass_fds` inherited."""
        try:
            self.proc, self._stderr = launch(self.argv, self.user, self.env, pass_fds)
        except OSError as exc:
            who = f" as user {self.user!r} (who must be able to run it and read what it loads)" if self.user else ""
            why = "it is a folder, not a program" if os.path.isdir(self.argv[0]) else exc.strerror or exc
            raise BackendCrash(f"cannot start {self.argv[0]!r}{who}: {why}") from None
        self._watch(adopted=False)

    def adopt(self, proc: subprocess.Popen, stderr: Any) -> None:
        """Take on a program started for this process by its parent (conformance/backends/prestart.py): the
        same program `start` would run, already under way. Not this process's child, so its exit is seen on
        its pidfd and its status read from /proc (the parent reaps it only once this process is gone)."""
        self.proc, self._stderr = proc, stderr
        self._watch(adopted=True)

    def _watch(self, adopted: bool) -> None:
        assert self.proc is not None
        try:
            self._pidfd = os.pidfd_open(self.proc.pid)
        except (AttributeError, OSError):           # not Linux >= 5.3: an exit is seen as end of output
            self._pidfd = None
        self._adopted = adopted and self._pidfd is not None
        self._pending, self._scanned = bytearray(), 0
        self._stderr_fd = self._stderr.fileno() if self._stderr is not None else None
        assert self.proc.stdout is not None
        # made once per program and looked at on every call (processes.ready makes one per look)
        self._exit_poll = poller(self._exit_watch(), None)
        self._reply_poll = poller([self.proc.stdout.fileno()] + self._exit_watch(), None)

    def running(self) -> bool:
        """Started and not exited."""
        if self.proc is None:
            return False
        return not self._ended(0) if self._adopted else exit_code(self.proc) is None

    def _ended(self, seconds: float) -> bool:
        """Has the program exited, waiting up to `seconds` for it (an adopted one: on its pidfd)?"""
        if not self._adopted:
            return wait_exit(self.proc, seconds) is not None
        return bool(looked(self._exit_poll, seconds))

    def _exit_code(self, seconds: float) -> int | None:
        """wait_exit's answer, for an adopted program too (read from /proc while its parent leaves it unreaped)."""
        if not self._adopted:
            return wait_exit(self.proc, seconds)
        if not self._ended(seconds):
            return None
        status = ended_status(self.proc.pid)
        return None if status is None else os.waitstatus_to_exitcode(status)

    def process_groups(self) -> list[int]:
        """The program's process group (its own session), while it has one."""
        return [self.proc.pid] if self.proc is not None else []

    def leave(self, seconds: float) -> None:
        """Close the program's standard input and give it `seconds` to exit."""
        assert self.proc is not None and self.proc.stdin is not None
        self.proc.stdin.close()
        self._ended(seconds)

    def kill(self) -> None:
        """SIGKILL to the program's whole process group, whether its leader is still there or not (a child
        that kept its stdout lives on otherwise), then reap the leader. The leader is reaped only here,
        after the kill: until then its pid (the group's id) cannot go to another process."""
        proc, self.proc = self.proc, None
        pidfd, self._pidfd = self._pidfd, None
        if pidfd is not None:
            os.close(pidfd)
        if proc is None:
            return
        kill_group(proc.pid)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:      # pragma: no cover
            pass
        for stream in (proc.stdin, proc.stdout):
            try:
                stream.close()
            except OSError:
                pass

    def died(self) -> BackendCrash:
        """The crash of a program that exited, died, or closed its end of a pipe; the group is killed."""
        code = self._exit_code(1) if self.proc is not None else None
        if code is None:
            how = "closed its standard input or output without exiting (it was killed)"
        elif code < 0:
            try:
                how = f"killed by {signal.Signals(-code).name}"
            except ValueError:
                how = f"killed by signal {-code}"
        else:
            how = f"exited with status {code}"
        crash = BackendCrash(f"the backend program {how}{self.stderr_tail()}")
        self.kill()
        return crash

    # ------------------------------------------------------------------------------------ its stderr

    def trim_stderr(self) -> None:
        """Keep the program's stderr file small: a program that logs without end must not fill the disk."""
        fd = self._stderr_fd
        if fd is not None and os.fstat(fd).st_size > STDERR_KEEP:
            tail = self._stderr_bytes()
            os.ftruncate(fd, 0)
            os.write(fd, tail)

    def _stderr_bytes(self) -> bytes:
        fd = self._stderr.fileno()
        size = os.fstat(fd).st_size
        return os.pread(fd, 8192, max(size - 8192, 0))

    def stderr_tail(self) -> str:
        """The last STDERR_LINES lines of the program's stderr, as a crash message ends with them ("" if none)."""
        if self._stderr is None:
            return ""
        lines = self._stderr_bytes().decode("utf-8", "replace").strip().splitlines()[-STDERR_LINES:]
        return ("; its stderr ended with: " + " | ".join(lines)) if lines else ""

    # ------------------------------------------------------------------------------------ its pipes

    def send(self, line: str, deadline: float, limit: float) -> None:
        """Write `line` to the program's stdin by `deadline` (`limit`: the seconds it was given, for the
        message); BackendCrash where it dies or stops reading first."""
        if self._trace:
            with open(self._trace, "a", encoding="utf-8") as f:
                f.write("> " + line)
        assert self.proc is not None and self.proc.stdin is not None
        fd = self.proc.stdin.fileno()
        data = memoryview(line.encode())
        while True:
            try:
                data = data[os.write(fd, data):]
            except BlockingIOError:
                pass
            except OSError:                         # EPIPE: nothing reads its stdin any more
                raise self.died() from None
            if not data:
                return
            left = deadline - time.monotonic()
            found = ready(self._exit_watch(), fd, left)
            writable = fd in found
            if found and not writable:
                raise self.died()
            if left <= 0 and not writable:
                self.kill()
                raise BackendCrash(f"the program did not read its request within {limit:g} s (it was killed)"
                                   f"{self.stderr_tail()}")

    def _exit_watch(self) -> list[int]:
        return [self._pidfd] if self._pidfd is not None else []

    def receive(self, deadline: float, limit: float, what: str) -> bytes:
        """The next line from the program, without its newline; BackendCrash on death, silence past
        `deadline` (`limit` seconds: the reply to `what`), or a line longer than REPLY_LIMIT. Each byte is
        looked at once, however the line comes in."""
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while (end := self._pending.find(b"\n", self._scanned)) < 0:
            self._scanned = len(self._pending)
            if self._scanned > REPLY_LIMIT:
                break
            try:
                chunk = os.read(fd, 1 << 20)        # the reply is often there already: no wait, no poll
            except BlockingIOError:
                left = deadline - time.monotonic()
                found = looked(self._reply_poll, left, self._spinning)
                if fd in found:
                    continue
                if found:                           # the program exited, and its output holds no more
                    raise self.died()
                self.kill()
                raise BackendCrash(f"no answer to {what} within {limit:g} s (the program was killed)"
                                   f"{self.stderr_tail()}")
            if not chunk:
                raise self.died()
            self._pending += chunk
        if end < 0 or end > REPLY_LIMIT:
            self.kill()
            raise BackendCrash(f"protocol error: a reply longer than {REPLY_LIMIT >> 20} MiB to {what} (the "
                               f"program was killed)")
        line = bytes(self._pending[:end])
        del self._pending[:end + 1]
        self._scanned = 0
        if self._trace:
            with open(self._trace, "a", encoding="utf-8") as f:
                f.write("< " + line.decode("utf-8", "replace") + "\n")
        return line
