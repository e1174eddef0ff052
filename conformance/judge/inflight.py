"""What a worker is doing, readable by the process that supervises it even after the worker died.

A worker process owns one `Slot`: a small block of shared memory. Before every backend call it writes
the call (as reproducer data) and the time it started there, and clears it when the call returns; it
also counts the verdicts of the calls it has judged. The supervisor (conformance/supervise/pool.py) reads the
slot when the worker dies or overruns the time limit, so that the call in flight gets its CRASH verdict
and a reproducer, and the calls judged before it still count. Nothing here runs backend code.

Layout: HEADER int64 fields, then one int64 counter per verdict, then the payload: JSON (LENGTH bytes),
then the bytes of the values the calls write into memory (Scatter's offsets), which the JSON names by
place (`raw`: offset and length after it). A worker writes them as memory holds them, a copy; the
supervisor makes them numbers only for a call it reports: tens of thousands of offsets a call, turned
into JSON numbers for every call, were most of an offset API's worker time.
"""
from __future__ import annotations

import contextlib
import json
import mmap
import multiprocessing
import time
from dataclasses import dataclass
from typing import Any, Iterator, Sequence

import numpy as np

from conformance.backends.exec_program import ExecBackend
from conformance.judge.agreement import Pair
from conformance.judge.reproducers import fields_but_call
from conformance.judge.verdicts import Verdict

# header fields (int64 each)
SEQ, STATE, STARTED_NS, LENGTH, PHASE, CALLS, WHICH, CHILD = range(8)
CHILDREN = 4                        # process groups of programs the backends started (exec:)
HEADER = CHILD + CHILDREN
IDLE, IN_CALL = 0, 1                # STATE: between calls, or inside a backend call (CALLS of them)
SEARCH, SHRINK = 0, 1               # PHASE: the calls judged count (search), or shrinking one failure
VERDICTS = [v.value for v in Verdict] + ["AGREE", "DIVERGE"]     # the calls' verdicts and agreements
PAYLOAD_AT = 8 * (HEADER + len(VERDICTS))
PAYLOAD_BYTES = 8 << 20             # a call's reproducer data (scatter offsets included) fits easily
TOO_LARGE = -1                      # LENGTH when the payload did not fit


@dataclass
class InFlight:
    """What the slot said when it was read: the calls in flight (reproducer data) and since when."""

    calls: list[dict[str, Any]]
    seconds: float                  # how long the call has been running
    shrinking: bool
    too_large: bool = False
    which: int = 0                  # under --against: 0 the backend under test had the call, 1 the other


class Slot:
    """Shared memory a worker inherits. Forked: an anonymous shared mapping, its pages made (zero) as they
    are first written, so a slot costs nothing until a payload fills it (multiprocessing's RawArray zeroes
    all 8 MiB at once, at the supervisor's start, one worker after another). Spawned
    (where a worker gets it pickled): multiprocessing's heap, whose file is unlinked at once, so no stop
    leaves anything in /dev/shm."""

    def __init__(self, ctx=multiprocessing) -> None:
        size = PAYLOAD_AT + PAYLOAD_BYTES
        self._raw = mmap.mmap(-1, size) if ctx.get_start_method() == "fork" else ctx.RawArray("b", size)
        self._attach()

    def _attach(self) -> None:
        buffer = memoryview(self._raw).cast("B")
        self._bytes = np.frombuffer(buffer, dtype=np.uint8)
        self._view = buffer                         # the same bytes, written without numpy's indexing
        self._fields = buffer[:8 * HEADER].cast("q")    # the header as int64 fields, likewise
        self._tally = buffer[8 * HEADER:PAYLOAD_AT].cast("q")   # the verdicts' counters, likewise
        self.header = np.frombuffer(buffer, dtype=np.int64, count=HEADER)
        self.counts = np.frombuffer(buffer, dtype=np.int64, count=len(VERDICTS), offset=8 * HEADER)
        self._groups: tuple[int, ...] = ()          # the process groups written last (children)

    def __getstate__(self):
        return {"_raw": self._raw}

    def __setstate__(self, state) -> None:
        self._raw = state["_raw"]
        self._attach()

    # ---------------------------------------------------------------------------- worker side

    def enter(self, payload: Sequence[dict[str, Any] | tuple[str, dict[str, Any]]]) -> None:
        """The calls now in flight: each a reproducer's fields, or as record() gives them (the call's JSON
        text, the other fields). A write's `raw` value, an array of the bytes memory holds, goes in after
        the JSON."""
        blobs: list[np.ndarray] = []
        raw = 0                         # bytes of the blobs so far: where the next one goes

        def placed(array: Any) -> list[int]:
            nonlocal raw
            if not isinstance(array, np.ndarray):
                raise TypeError(f"{type(array).__name__} in an in-flight record")
            blobs.append(array.reshape(-1).view(np.uint8))
            raw += blobs[-1].size
            return [raw - int(blobs[-1].size), int(blobs[-1].size)]
        encode = json.JSONEncoder(separators=(",", ":"), default=placed).encode
        records = [encode(item) if isinstance(item, dict) else '{"call":' + item[0] + "," + encode(item[1])[1:]
                   for item in payload]
        data = ("[" + ",".join(records) + "]").encode()
        h = self._fields
        if len(data) + raw <= PAYLOAD_BYTES:
            view = self._view
            view[PAYLOAD_AT:PAYLOAD_AT + len(data)] = data
            at = PAYLOAD_AT + len(data)
            for blob in blobs:
                view[at:at + blob.size] = blob.data if blob.flags.c_contiguous else blob.tobytes()
                at += blob.size
            h[LENGTH] = len(data)
        else:
            h[LENGTH] = TOO_LARGE
        h[CALLS] = len(payload)
        h[STARTED_NS] = time.monotonic_ns()
        h[SEQ] += 1
        h[STATE] = IN_CALL

    def leave(self) -> None:
        self._fields[STATE] = IDLE

    def count(self, verdict: str) -> None:
        self._tally[VERDICTS.index(verdict)] += 1

    def phase(self, phase: int) -> None:
        self.header[PHASE] = phase

    def which(self, index: int) -> None:
        self.header[WHICH] = index

    def children(self, groups: Sequence[int]) -> None:
        """The process groups of programs the backend started (exec:), killed with the worker."""
        groups = tuple(groups)[:CHILDREN]
        if groups == self._groups:          # as written last: the same program, call after call
            return
        self._groups = groups
        self.header[CHILD:CHILD + CHILDREN] = list(groups) + [0] * (CHILDREN - len(groups))

    def reset(self) -> None:
        """A new task: no call in flight, no verdict counted, searching."""
        self.header[STATE] = IDLE
        self.header[PHASE] = SEARCH
        self.counts[:] = 0

    # ---------------------------------------------------------------------------- supervisor side

    def in_flight(self) -> InFlight | None:
        h = self.header
        if h[STATE] != IN_CALL:
            return None
        seconds = (time.monotonic_ns() - int(h[STARTED_NS])) / 1e9
        length = int(h[LENGTH])
        calls: list[dict[str, Any]] = []
        if 0 < length <= PAYLOAD_BYTES:
            try:            # plain data, read as such (never unpickled): a torn write is no record
                calls = json.loads(self._bytes[PAYLOAD_AT:PAYLOAD_AT + length].tobytes())
            except (ValueError, RecursionError):
                calls = []
            if not isinstance(calls, list) or not all(isinstance(c, dict) for c in calls):
                calls = []
            calls = _with_values(calls, self._bytes[PAYLOAD_AT + length:])
        return InFlight(calls, seconds, bool(h[PHASE] == SHRINK), length == TOO_LARGE, int(h[WHICH]))

    def started_ns(self) -> int:
        return int(self.header[STARTED_NS]) if self.header[STATE] == IN_CALL else 0

    def calls_in_flight(self) -> int:
        return int(self.header[CALLS]) if self.header[STATE] == IN_CALL else 0

    def verdict_counts(self) -> dict[str, int]:
        return {v: int(n) for v, n in zip(VERDICTS, self.counts) if n}

    def child_groups(self) -> list[int]:
        return [int(g) for g in self.header[CHILD:CHILD + CHILDREN] if g > 0]


def _with_values(calls: list[dict[str, Any]], raw: np.ndarray) -> list[dict[str, Any]]:
    """The records with each write's `raw` place read back as its `values` (numbers of its dtype); no
    record where a place or a dtype does not hold (a torn or scribbled slot)."""
    try:
        for call in calls:
            memory = call.get("memory")
            for write in (memory.get("writes") or []) if isinstance(memory, dict) else []:
                if isinstance(write, dict) and "raw" in write:
                    at, size = write.pop("raw")
                    dtype = np.dtype(write["dtype"]).newbyteorder("<")
                    if (dtype.kind not in "iu" or type(at) is not int or type(size) is not int or at < 0
                            or size % dtype.itemsize or at + size > raw.size):
                        return []
                    write["values"] = raw[at:at + size].view(dtype).tolist()
    except (TypeError, ValueError, KeyError, AttributeError):
        return []
    return calls


def record(case: Any) -> tuple[str, dict[str, Any]]:
    """A case's reproducer fields as the slot takes them: the call as its JSON text (the generator made it:
    Case.key), a write of integers with its values as the bytes memory holds (Write.data), made numbers
    only when the supervisor reads the record back."""
    return case.key[0], fields_but_call(case, _raw_write)


def _raw_write(write: Any) -> dict[str, Any]:
    if np.dtype(write.dtype).kind not in "iu":
        return write.to_dict()
    return {"scope": write.scope, "addr": write.addr, "dtype": write.dtype, "raw": write.data}


# The slot of this process, when it is a supervised worker (None in the supervisor and in plain use).
_slot: Slot | None = None


def install(slot: Slot | None) -> None:
    global _slot
    _slot = slot


def which() -> Any:
    """This process's slot's Slot.which (told which backend of a Pair has the call), or None outside a
    supervised worker."""
    return _slot.which if _slot is not None else None


@contextlib.contextmanager
def running(cases: Sequence[Any], backend: Any = None) -> Iterator[None]:
    """Around a backend call (or a batch of them): the cases (conformance.generate.case.Case) are what the
    supervisor reports if the worker dies or hangs inside."""
    slot = _slot
    if slot is None:
        yield
        return
    # the kit's own out-of-process backends only: a backend's own hook could name any process group
    slot.children(backend.process_groups() if isinstance(backend, (ExecBackend, Pair)) else ())
    slot.enter([record(c) for c in cases])
    try:
        yield
    finally:
        slot.leave()


def counted(verdict: str) -> None:
    if _slot is not None:
        _slot.count(verdict)


def shrinking(on: bool) -> None:
    if _slot is not None:
        _slot.phase(SHRINK if on else SEARCH)
