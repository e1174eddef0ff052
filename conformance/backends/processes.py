"""The kit's processes out of a backend's reach, and no backend process left behind.

- `out_of_reach()`: the process is no longer dumpable (prctl PR_SET_DUMPABLE 0), so a process of the same
  user cannot ptrace it, read its memory (/proc/PID/mem) or take its descriptors (/proc/PID/fd,
  pidfd_getfd): a backend cannot read the judge's expected image or reach the supervisor's pipes. Root
  (CAP_SYS_PTRACE) still can: `--backend-user` runs the backend as another user for that.
- `reap_orphans()`: the process becomes a child subreaper, so a backend process that double-forks to
  outlive its parent is re-parented here instead of to init, and `end_descendants` finds it.
- `end_descendants(pid)`: every process below `pid`, stopped (so that none forks again) then killed.

Linux only; elsewhere each is a no-op that says so (False).
"""
from __future__ import annotations

import ctypes
import fcntl
import functools
import os
import select
import signal
import subprocess
import sys
import time
from typing import Any, Mapping, Sequence

PR_SET_DUMPABLE, PR_GET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 4, 3, 36
ROUNDS = 50                     # scans of /proc for descendants (each one stops the new ones it finds)


@functools.lru_cache(maxsize=1)
def _libc():
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True)        # the C library the process has loaded (no search)
    except OSError:                     # pragma: no cover
        return None


def _prctl(option: int, value: int) -> bool:
    libc = _libc()
    return libc is not None and libc.prctl(option, value, 0, 0, 0) == 0


def out_of_reach() -> bool:
    """This process (and every process it forks) no longer dumpable: see the module's docstring."""
    return _prctl(PR_SET_DUMPABLE, 0)


def dumpable() -> bool | None:
    """Whether this process is dumpable (None: not known here)."""
    libc = _libc()
    return None if libc is None else bool(libc.prctl(PR_GET_DUMPABLE, 0, 0, 0, 0))


def reap_orphans() -> bool:
    """Orphans among this process's descendants become its children (PR_SET_CHILD_SUBREAPER)."""
    return _prctl(PR_SET_CHILD_SUBREAPER, 1)


def as_user(user: str | None) -> dict[str, Any]:
    """Popen's arguments that start a program as `user` (its own group, no other): none for None."""
    if user is None:
        return {}
    import pwd
    entry = pwd.getpwnam(user)
    return {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}


def launch(argv: Sequence[str], user: str | None, env: Mapping[str, str] | None,
           pass_fds: Sequence[int]) -> tuple[subprocess.Popen, Any]:
    """A backend's program started in a session of its own, its stdin and stdout pipes that never block
    (writes wait under select, with a deadline; a reply already there is read at once), its stderr into
    a fresh file appended to (wherever the kit last read it from), `pass_fds` inherited: the process and
    that file. OSError where it cannot be started."""
    import tempfile
    stderr = tempfile.TemporaryFile()
    fd = stderr.fileno()
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_APPEND)
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                                start_new_session=True, bufsize=0, pass_fds=tuple(pass_fds), env=env,
                                **as_user(user))
    except BaseException:
        stderr.close()
        raise
    os.set_blocking(proc.stdin.fileno(), False)
    os.set_blocking(proc.stdout.fileno(), False)
    return proc, stderr


def memory_file() -> tuple[int, str] | None:
    """A memory file with no name (memfd) and the path a program opens it by, /proc/self/fd/<fd> (the
    program inherits the descriptor: the kit's processes are not dumpable, so no other process may open
    their /proc/<pid>/fd); None where there is no memfd or no /proc to reach it through. It goes when its
    last descriptor and mapping do: whatever ends this process, SIGKILL included, leaves nothing behind."""
    if not hasattr(os, "memfd_create"):
        return None
    try:
        fd = os.memfd_create("ascend-conformance", getattr(os, "MFD_CLOEXEC", 1))
    except OSError:
        return None
    path = f"/proc/self/fd/{fd}"
    try:
        os.close(os.open(path, os.O_RDWR))          # as the program will: /proc mounted, reachable
    except OSError:
        os.close(fd)
        return None
    return fd, path


def ended_status(pid: int) -> int | None:
    """The wait status of a process that has exited and is not reaped yet (a zombie), as /proc shows it
    to a process allowed to read it; None where it is not known (still running, reaped, not readable).
    For a program another process is the parent of (conformance/backends/prestart.py)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    fields = stat[stat.rfind(b")") + 2:].split()      # from field 3 (the state) on
    if len(fields) < 50 or fields[0] != b"Z":
        return None
    return int(fields[49])                              # field 52: exit_code, as waitpid reports it


def _parents() -> dict[int, int]:
    """pid -> parent pid of every process /proc shows."""
    out = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # the command name (field 2) is in parentheses and may hold anything: fields after its last ')'
        fields = stat[stat.rfind(b")") + 2:].split()
        if len(fields) > 1:
            out[int(name)] = int(fields[1])
    return out


def descendants(pid: int) -> list[int]:
    """Every process below `pid`, parents before children."""
    children: dict[int, list[int]] = {}
    for child, parent in _parents().items():
        children.setdefault(parent, []).append(child)
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), ()):
            out.append(child)
            todo.append(child)
    return out


def end_descendants(pid: int | None = None) -> int:
    """Stop, then kill, every process below `pid` (this process by default), however often they fork
    meanwhile; reap those that became this process's children. Returns how many were killed."""
    if not os.path.isdir("/proc"):
        return 0
    pid = os.getpid() if pid is None else pid
    seen: set[int] = set()
    for _ in range(ROUNDS):
        found = [p for p in descendants(pid) if p not in seen]
        if not found:
            break
        for p in found:
            _signal(p, signal.SIGSTOP)
        seen.update(found)
    for p in seen:
        _signal(p, signal.SIGKILL)
    if pid == os.getpid():
        _reap(seen)
    return len(seen)


def kill_group(group: int) -> None:
    """SIGKILL to every process of process group `group`; nothing where none is left (or none is ours)."""
    try:
        os.killpg(group, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _signal(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except (ProcessLookupError, PermissionError):
        pass


def _reap(pids: set[int]) -> None:
    for p in pids:
        try:
            os.waitpid(p, 0)
        except (ChildProcessError, OSError):    # not our child (its parent reaps it), or reaped already
            pass


def exit_code(proc: subprocess.Popen) -> int | None:
    """The program's exit status (negative: the signal that ended it) once it has exited, else None;
    the process is left unreaped (see conformance/backends/exec_process.py, ProgramProcess.kill)."""
    if proc.returncode is not None or not hasattr(os, "waitid"):
        return proc.poll()
    try:
        info = os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return proc.poll()
    if info is None or info.si_pid == 0:
        return None
    return -info.si_status if info.si_code in (os.CLD_KILLED, os.CLD_DUMPED) else info.si_status


def wait_exit(proc: subprocess.Popen, seconds: float) -> int | None:
    """exit_code, waiting up to `seconds` for the program to exit."""
    deadline = time.monotonic() + seconds
    while (code := exit_code(proc)) is None and time.monotonic() < deadline:
        time.sleep(0.005)
    return code


SPIN_ENV = "ASCEND_CONFORMANCE_SPIN"    # "0": the run's processes fill the cores, none waits without sleeping


def spin(seconds: float) -> float:
    """`seconds` of waiting without sleeping, or none where the run said its processes fill the cores
    (SPIN_ENV "0", set by the supervisor: cores_to_spare): there a process that spins takes the core
    another worker or its backend was to run on, and every exchange waits for it."""
    return 0.0 if os.environ.get(SPIN_ENV) == "0" else seconds


class Spinning:
    """How long the next wait looks without sleeping, learnt from the last ones: a wait that spun its whole
    window and found nothing (the other process had no core to answer on, where other work fills them, or
    its answer takes longer than the window) spins no more for the next `rest` waits, then one tries again.
    So an idle machine keeps the quick exchange, and a busy one stops taking the core the answer needs."""

    def __init__(self, seconds: float, rest: int = 256):
        self.seconds, self.rest, self.resting = spin(seconds), rest, 0

    def window(self) -> float:
        if self.resting:
            self.resting -= 1
            return 0.0
        return self.seconds

    def missed(self) -> None:
        self.resting = self.rest


def spin_for(workers: int) -> None:
    """The run's processes told (SPIN_ENV, inherited by the workers and their programs) whether they may
    wait without sleeping: where each of `workers` workers and its backend's process has a core of its own."""
    os.environ[SPIN_ENV] = "1" if cores_to_spare(workers) else "0"


def cores_to_spare(workers: int) -> bool:
    """Does each of `workers` workers and its backend's process have a core of its own?"""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return 2 * workers <= cores


def ready(readers: list[int], writer: int | None, seconds: float, spinning: Spinning | None = None) -> set[int]:
    """The descriptors ready within `seconds` (poll: no limit on descriptor numbers, unlike select),
    looked at without sleeping for the first `spinning.window()` seconds: a reply that comes within them is
    read without the wake-up of a sleeping process (on a virtual machine, a CPU that halted takes tens to
    hundreds of microseconds to resume)."""
    return looked(poller(readers, writer), seconds, spinning)


def poller(readers: list[int], writer: int | None) -> Any:
    """A poll object on `readers` (readable) and `writer` (writable), for `looked`."""
    made = select.poll()
    for fd in readers:
        made.register(fd, select.POLLIN)
    if writer is not None:
        made.register(writer, select.POLLOUT)
    return made


def looked(polled: Any, seconds: float, spinning: Spinning | None = None) -> set[int]:
    """`ready`'s answer from a poll object made by `poller` (one kept for descriptors looked at often)."""
    if spinning is not None and (window := spinning.window()) > 0:
        until = time.monotonic() + min(window, max(seconds, 0))
        while time.monotonic() < until:
            found = polled.poll(0)
            if found:
                return {fd for fd, _ in found}
        spinning.missed()
    return {fd for fd, _ in polled.poll(max(seconds, 0) * 1000)}


def leave(code: int) -> None:
    """End the process with `code` once its work is done, skipping the interpreter's teardown (it frees
    every module and object one by one). What that teardown owes others still happens first: the atexit
    handlers (logging's, multiprocessing's) and the flushes of stdout and stderr; where a flush fails (a
    closed pipe), this returns, and the normal exit reports it as Python does."""
    import atexit
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return
    os._exit(code)
