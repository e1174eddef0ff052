"""Backend programs started before the command's own imports, each handed to the worker that runs it.

A hosted Python backend's program (conformance/backends/host.py) takes a fresh interpreter, numpy, the
kit, the rulebook and the backend's imports to say hello; a worker forked once the command has imported
the kit would wait for all of it before its first call. So `ascend-conformance run` (fuzz, certify)
starts the programs its workers will run as it begins (conformance/commands/launch.py), while it imports
the kit and forks them; the supervisor hands one to each worker it forks (`hand_over`, `handed_off`), and
the worker's backend takes it where it is the very program, environment and user it would start itself
(`take`); anything else it ends, and starts its own. A program is started only for a run whose
backend runs in a process of its own as the kit's user.

The program is the supervisor's child, not the worker's: the worker sees it end on its pidfd and reads how
from /proc (conformance/backends/exec_process.py, ProgramProcess.adopt), and the supervisor reaps it
only once that worker is gone (`end`), so that its process group id is never another's while the worker
may still kill it. The supervisor is out of the programs' reach before the first one starts, and the
subreaper of whatever they leave behind, which it ends with the run (`end_all`).
"""
from __future__ import annotations

import os
import sys
from typing import Any, Mapping, Sequence

from conformance.backends.processes import (end_descendants, kill_group, launch, memory_file, out_of_reach,
                                             reap_orphans)


class Started:
    """A program started for a worker: the argv and the environment it was started with, its process, its
    stderr file, and the memory file it inherited (its descriptor and the path it is reached by)."""

    def __init__(self, argv: list[str], env: dict[str, str], proc: Any, stderr: Any, memfd: int, path: str):
        self.argv, self.env, self.proc, self.stderr, self.memfd, self.path = argv, env, proc, stderr, memfd, path

    def close_files(self) -> None:
        """This process's descriptors of it closed (its pipes, stderr file, memory file); the process itself
        is left as it is."""
        for stream in (self.proc.stdin, self.proc.stdout, self.stderr):
            try:
                stream.close()
            except OSError:
                pass
        try:
            os.close(self.memfd)
        except OSError:
            pass


_waiting: list[Started] = []        # started, not handed to a worker yet
_ended: list[Started] = []          # (the supervisor's) handed over: reaped by `end` once their worker is gone
handed: Started | None = None       # the program the worker being forked takes (set around the fork)
_state = {"reaps": False}


def start(argv: Sequence[str], env: Mapping[str, str] | None, count: int) -> None:
    """Start `count` copies of the program `argv` (environment `env`, None: this process's), each with a
    memory file of its own. This process leaves the programs' reach first (they are of its user)."""
    if not sys.platform.startswith("linux") or not hasattr(os, "pidfd_open") or not out_of_reach():
        return
    _state["reaps"] = reap_orphans()
    import atexit
    atexit.register(end_all)
    for _ in range(count):
        made = memory_file()
        if made is None:
            return
        try:
            proc, stderr = launch(argv, None, env, (made[0],))
        except OSError:
            os.close(made[0])
            return
        _waiting.append(Started(list(argv), _environment(env), proc, stderr, *made))


def _environment(env: Mapping[str, str] | None) -> dict[str, str]:
    """The environment a program started with `env` gets (None: this process's)."""
    return dict(os.environ if env is None else env)


def hand_over() -> Started | None:
    """(The supervisor, before it forks a worker) the next program waiting, for that worker: set as
    `handed`, which the forked worker sees."""
    global handed
    handed = _waiting.pop(0) if _waiting else None
    return handed


def handed_off(started: Started | None) -> None:
    """(The supervisor, after the fork) its copies of the handed program's descriptors closed: the worker
    holds them now (the program sees its input end when the worker does)."""
    global handed
    handed = None
    if started is not None:
        started.close_files()
        _ended.append(started)


def forked() -> None:
    """(A worker, as it starts) the descriptors of the programs waiting for other workers closed."""
    for other in _waiting:
        other.close_files()
    _waiting.clear()
    _ended.clear()
    _state["reaps"] = False


def take(argv: Sequence[str], env: Mapping[str, str] | None, user: str | None) -> Started | None:
    """(A worker's backend) the program handed to this worker where it is `argv` started with `env` (None:
    this process's environment) as this process's user; else None, and a program handed but not that one
    is ended (its parent reaps it)."""
    global handed
    given, handed = handed, None
    if given is None:
        return None
    if given.argv == list(argv) and user is None and given.env == _environment(env):
        return given
    drop(given)
    return None


def drop(given: Started | None) -> None:
    """A handed program not taken: its process group killed, its descriptors closed."""
    if given is None:
        return
    _kill(given)
    given.close_files()


def _kill(started: Started) -> None:
    kill_group(started.proc.pid)


def drop_handed() -> None:
    """(A worker, once its backend is loaded) the program handed to it, where its backend did not take it."""
    global handed
    given, handed = handed, None
    drop(given)


def end(started: Started | None) -> None:
    """(The supervisor) a program it started, once its worker is gone: killed with its process group, and reaped."""
    if started is None:
        return
    _kill(started)
    try:
        started.proc.wait(5)
    except Exception:                   # noqa: BLE001 - pragma: no cover
        pass
    if started in _ended:
        _ended.remove(started)


def end_all() -> None:
    """(The supervisor, its workers gone) every program it started ended and reaped, and every process
    they left behind (re-parented here: this process is their subreaper)."""
    for started in _waiting:
        started.close_files()
    for started in _waiting + _ended:
        end(started)
    _waiting.clear()
    if _state["reaps"]:                 # once: the workers are gone, and none is forked with a program after
        _state["reaps"] = False
        end_descendants()


def started() -> bool:
    """Did this process start programs for its workers?"""
    return bool(_waiting or _ended)

