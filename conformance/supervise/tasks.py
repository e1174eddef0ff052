"""What the supervisor hands its workers (a cell to search, a call to replay) and how a run is stopped."""
from __future__ import annotations

import signal
from dataclasses import dataclass, field
from typing import Any, Callable

from conformance.generate.cells import Cell
from conformance.generate.profiles import Profile
from conformance.judge.verdicts import Verdict

DEFAULT_TIMEOUT = 10.0      # seconds a call may take when --timeout is not given


@dataclass(frozen=True)
class Isolation:
    """Where the backend runs: in a process of its own (the default), as `user` where given (the kit
    started as root), or in the judge's own process (`--in-process`: debugging a backend)."""

    isolated: bool = True
    user: str | None = None

    def described(self) -> dict[str, Any]:
        """What results.json says of it: the mode, who the backend ran as, whether that was the judge's
        own user."""
        import os
        import pwd
        judge = pwd.getpwuid(os.geteuid()).pw_name
        backend = self.user or judge
        return {"mode": "process" if self.isolated else "in-process", "backend_user": backend,
                "judge_user": judge, "same_user": backend == judge}


@dataclass
class Task:
    """One cell to search: its frozen certification cases first (`frozen`), failures kept from earlier
    runs (`kept`, reproducer data), then `profile.calls` generated calls from `seed`."""

    cell: Cell
    profile: Profile
    seed: int
    frozen: bool = False
    kept: list[dict[str, Any]] = field(default_factory=list)
    tries: int = 0
    part: int = 0                       # a long cell's search is split in `parts` (conformance/plan.py)
    parts: int = 1
    pool: int = 0                       # the random pool of the images: a challenge's (0: the published one)


@dataclass
class Replay:
    """One call to judge as it is (a reproducer): no search, no shrinking; by the readings it recorded
    (the command line's over them). Its result is {"verdict": ..., "message": ...}."""

    call: dict[str, Any]
    memory: dict[str, Any]
    tries: int = 0
    readings: dict[str, str] = field(default_factory=dict)    # recorded in the reproducer: judged by them

    def lost(self, message: str, other: bool = False) -> dict[str, Any]:
        """The result of a replay whose worker died: CRASH, or (the other backend died) DIVERGE."""
        if other:
            return {"verdict": Verdict.UNJUDGED.value, "message": "", "agreement": "DIVERGE",
                    "agreement_message": f"the backend held against: {message}"}
        return {"verdict": Verdict.CRASH.value, "message": message}


class Stop:
    """Set by the signal handlers of the controlling process; the supervisor's loop looks at it."""

    NAMES = {signal.SIGINT: "SIGINT", signal.SIGTERM: "SIGTERM", signal.SIGHUP: "SIGHUP"}
    EXIT = {signal.SIGINT: 130, signal.SIGTERM: 143, signal.SIGHUP: 129}

    def __init__(self) -> None:
        self.signum: int | None = None
        self.count = 0

    def __bool__(self) -> bool:
        return self.signum is not None

    @property
    def name(self) -> str | None:
        return self.NAMES.get(self.signum) if self.signum is not None else None

    @property
    def exit_code(self) -> int:
        return self.EXIT.get(self.signum, 130) if self.signum is not None else 0

    def install(self) -> Callable[[], None]:
        """Handle SIGINT, SIGTERM and SIGHUP from now on; returns what puts the old handlers back."""
        def handler(signum, frame):
            self.count += 1
            if self.signum is None:
                self.signum = signum
        old = {s: signal.signal(s, handler) for s in self.NAMES}
        return lambda: [signal.signal(s, h) for s, h in old.items()]
