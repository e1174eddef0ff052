"""A zoo of hostile in-process backends, for the kit's tests of what a backend can do to it.

Each is the reference (OracleBackend) except on the calls it strikes: by default every `data_move` call
of more than one burst (`strikes` below; a class sets `every = K` to strike every K-th call instead).
Load one with `--backend hostile_backends:NAME` (tests/ on PYTHONPATH), or serve it out of process with
`ascend-conformance serve hostile_backends:NAME` (tests/exec_programs/hostile.py does, by mode).

Some of them end the process that runs them (Segfault, Exits, HangsInC with no supervisor, MemoryHog
without its own limit): call them only in a process that may die.
"""
from __future__ import annotations

import hashlib
import os
import resource
import signal
import sys
import threading
from typing import Any

from conformance import OracleBackend, Rejected
from oracle import Tensor

ODD = "odd \udc80 nul \x00 esc \x1b[31mred\x1b[0m \x1b]0;title\x07 bidi \u202e end"   # a lone surrogate, NUL, ESC
BIG = 1 << 20                   # characters of the long message OddStrings refuses with


class Hostile(OracleBackend):
    """The reference, but `misbehave(call, memory)` on the calls `strikes(call)` picks."""

    name = "hostile"
    every: int | None = None        # strike every K-th call instead of data_move calls of nburst > 1

    def __init__(self) -> None:
        self.calls = 0

    def strikes(self, call: Any) -> bool:
        self.calls += 1
        if self.every:
            return self.calls % self.every == 0
        return call.api == "data_move" and call.args["nburst"] > 1

    def run(self, call: Any, memory: dict) -> None:
        if self.strikes(call):
            self.misbehave(call, memory)
        super().run(call, memory)

    def misbehave(self, call: Any, memory: dict) -> None:      # pragma: no cover - each animal has its own
        raise NotImplementedError


class Segfault(Hostile):
    name = "segfault"

    def misbehave(self, call, memory):
        os.kill(os.getpid(), signal.SIGSEGV)


class Exits(Hostile):
    name = "exits"

    def misbehave(self, call, memory):
        os._exit(3)


class SysExit(Hostile):
    name = "sys-exit"

    def misbehave(self, call, memory):
        sys.exit(2)


class RaisesKeyboardInterrupt(Hostile):
    name = "raises-keyboard-interrupt"

    def misbehave(self, call, memory):
        raise KeyboardInterrupt


class RaisesGeneratorExit(Hostile):
    name = "raises-generator-exit"

    def misbehave(self, call, memory):
        raise GeneratorExit("closed")


class HangsPython(Hostile):
    """A loop in Python code: SIGALRM (TimeLimited) interrupts it."""

    name = "hangs-python"

    def misbehave(self, call, memory):
        while True:
            pass


class HangsInC(Hostile):
    """A loop in C code that checks for no signal (PBKDF2 of 2**31 - 1 rounds in OpenSSL, the most it
    takes, about half an hour): SIGALRM's handler only runs once it returns; only killing the process
    ends it sooner. (The `re` engine is no such loop: it checks for signals.)"""

    name = "hangs-in-c"
    ROUNDS = (1 << 31) - 1

    def misbehave(self, call, memory):
        hashlib.pbkdf2_hmac("sha256", b"hang", b"salt", self.ROUNDS)


class MemoryHog(Hostile):
    """Allocates until MemoryError, under an address-space limit it sets itself first (its current size
    plus HEADROOM), so that it never takes more than that from a shared machine; the limit is put back
    afterwards and the MemoryError goes on to the kit."""

    name = "memory-hog"
    HEADROOM = 256 << 20

    def misbehave(self, call, memory):
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(resource.RLIMIT_AS, (_address_space() + self.HEADROOM, hard))
        hoard = []
        try:
            while True:
                hoard.append(bytearray(16 << 20))
        finally:
            hoard.clear()
            resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _address_space() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise OSError("no VmSize in /proc/self/status")


class CallMutator(Hostile):
    """The README's "clamps nburst" bug, done in place: sets call.args["nburst"] to 1 and runs that."""

    name = "call-mutator"

    def misbehave(self, call, memory):
        call.args["nburst"] = 1


class CallScribbler(Hostile):
    """Runs every call correctly, then scribbles on everything it was handed besides the memory: the args
    dict, each Tensor (through object.__setattr__), lists, mappings. Correct results: every verdict PASS."""

    name = "call-scribbler"

    def run(self, call, memory):
        OracleBackend.run(self, call, memory)
        for name, value in list(call.args.items()):
            _scribble(value)
            call.args[name] = "scribbled"
        call.args["extra"] = 1
        call.api, call.product, call.form = "scribbled", "scribbled", "scribbled"


def _scribble(value: Any) -> None:
    if isinstance(value, Tensor):
        object.__setattr__(value, "addr", value.addr + 32)
        object.__setattr__(value, "numel", 0)
    elif isinstance(value, list):
        for item in value:
            _scribble(item)
        value[:] = [-1] * len(value)
    elif isinstance(value, dict):
        for key in value:
            value[key] = -1


class OddStrings(Hostile):
    """A name and version full of odd characters; refuses the calls it strikes with such a rule id and a
    message of BIG characters (a lone surrogate, NUL, ESC sequences)."""

    name = "odd " + ODD
    version = ODD * 3

    def misbehave(self, call, memory):
        raise Rejected(ODD + "x" * BIG, rule=ODD)


class Unprintable(Exception):
    def __str__(self):
        raise SystemExit("even printing me fails")


class RaisesUnprintable(Hostile):
    """Raises an exception that cannot be printed: str() of it raises SystemExit."""

    name = "raises-unprintable"

    def misbehave(self, call, memory):
        raise Unprintable()


class LeaksThreads(Hostile):
    """Runs correctly but leaves a non-daemon thread blocked for good on each call it strikes (a process
    that runs it does not exit on its own at interpreter shutdown). `release()` lets them all end."""

    name = "leaks-threads"
    gate = threading.Event()

    def misbehave(self, call, memory):
        threading.Thread(target=self.gate.wait, name="leaked-by-backend").start()

    @classmethod
    def release(cls) -> None:
        cls.gate.set()


class ScribblesLater(Hostile):
    """Keeps the memory arrays of each call and, at the next call, writes into the previous call's arrays
    (after its verdict was given). Correct otherwise."""

    name = "scribbles-later"

    def __init__(self) -> None:
        super().__init__()
        self.kept: list[dict] = []

    def run(self, call, memory):
        for old in self.kept:
            for image in old.values():
                image[:] = 0xA5
        self.kept = [memory]
        super().run(call, memory)

    def misbehave(self, call, memory):
        pass
