"""Two backends on one call (`--against B`): each runs on its own copy of the same memory image, and the
call gets AGREE or DIVERGE besides the verdict of the backend under test against the oracle.

DIVERGE when any byte of any scope differs (the bytes the documentation leaves open included: where a
simulator is held against hardware, or a release against the previous one, those are the point), when
one refuses and the other runs, or when either crashes. Two refusals agree, whatever rule each names.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from oracle import Call
from oracle.spec import Rulebook

from conformance.backends.calling import (backend_copy, backend_text, call_backend, crash_message,
                                          forget_traceback, run_call)
from conformance.backends.contract import BackendCrash, Rejected
from conformance.backends.exec_program import ExecBackend
from conformance.generate.memory import MemoryRecipe
from conformance.judge.verdicts import Outcome, Verdict, compare, conclude, prepare

AGREE, DIVERGE = "AGREE", "DIVERGE"


@dataclass
class PairOutcome(Outcome):
    """A's outcome against the oracle, with the agreement of A and B on the call. It `conforms` only
    when A conforms and the two agree; a divergence is shrunk as DIVERGE."""

    agreement: "Agreement | None" = None
    # where they diverge and the oracle has an image: each one's difference from it (None: it matches)
    versus_oracle: dict[str, Any] | None = None

    @property
    def conforms(self) -> bool:
        return super().conforms and (self.agreement is None or self.agreement.verdict == AGREE)

    @property
    def key(self) -> str:
        if Outcome.conforms.fget(self) and self.agreement is not None and self.agreement.verdict == DIVERGE:
            return DIVERGE
        return self.verdict.value


@dataclass
class Agreement:
    verdict: str                        # AGREE | DIVERGE
    message: str
    diff: dict[str, Any] | None = None  # where the two images differ (as verdicts.compare describes it)


class _Image:
    """The other backend's image in the role of an expected one: every byte defined."""

    def __init__(self, memory: Mapping[str, np.ndarray], written: Mapping[str, np.ndarray]):
        self.memory, self.written, self.choices = dict(memory), dict(written), []
        self.defined = {s: np.broadcast_to(np.True_, m.shape) for s, m in self.memory.items()}

    def fully_defined(self, scope: str) -> bool:
        return True


def _ran(backend: Any, call: Call, memory: dict[str, np.ndarray]) -> BaseException | None:
    """What running the call raised (None: it ran), on a copy of the call, as verdicts.judge runs it."""
    _, raised = call_backend(run_call, backend, backend_copy(call), memory)
    return raised


def _said(raised: BaseException | None) -> str:
    if raised is None:
        return "ran"
    if isinstance(raised, Rejected):
        return "refused" + (f" ({raised.rule})" if raised.rule else "")
    if isinstance(raised, BackendCrash):
        return f"crashed ({backend_text(raised)})"
    return f"crashed ({crash_message(raised, 'it')})"


def agreement(call: Call, a_raised: BaseException | None, a_memory: dict[str, np.ndarray],
              b_raised: BaseException | None, b_memory: dict[str, np.ndarray], names: tuple[str, str],
              written: Mapping[str, np.ndarray] | None = None, *, rulebook: Rulebook) -> Agreement:
    """AGREE or DIVERGE, given what each backend raised and the images each left (where they differ,
    decoded by the call's `rulebook`)."""
    a_name, b_name = names
    a_refused, b_refused = isinstance(a_raised, Rejected), isinstance(b_raised, Rejected)
    if a_refused and b_refused:
        return Agreement(AGREE, "both refused")
    if a_raised is not None or b_raised is not None:
        return Agreement(DIVERGE, f"{a_name} {_said(a_raised)}, {b_name} {_said(b_raised)}")
    diff = compare(a_memory, _Image(b_memory, written or {}), call, rulebook)
    if diff is None:
        return Agreement(AGREE, "the images are equal, byte for byte")
    summary = diff.pop("summary").replace("wrong byte(s)", "byte(s) that differ").replace("stray writes", "outside the destination")
    return Agreement(DIVERGE, f"{a_name} and {b_name} leave different images: {summary}", diff)


class Pair:
    """The backend under test `a` held against `b` (and against the oracle unless `oracle` is False):
    what the runner judges cells with under --against."""

    def __init__(self, a: Any, b: Any, oracle: bool = True):
        self.a, self.b, self.oracle = a, b, oracle
        self.name = _name(a, "A")

    def supports(self, api: str, product: str) -> bool:
        return bool(self.a.supports(api, product)) and bool(self.b.supports(api, product))

    def judge_case(self, call: Call, recipe: MemoryRecipe, running: Any = None, *,
                   rulebook: Rulebook) -> "PairOutcome":
        """`running(i)`: told which backend (0: a, 1: b) has the call, for whoever watches; `rulebook`:
        the run's, with its declared readings."""
        return judge_pair(call, recipe, self.a, self.b, self.oracle, running, rulebook=rulebook)

    def process_groups(self) -> list[int]:
        return [g for backend in (self.a, self.b) if isinstance(backend, ExecBackend)
                for g in backend.process_groups()]

    def close(self) -> None:
        for backend in (self.a, self.b):
            close = getattr(backend, "close", None)
            if callable(close):
                close()


def judge_pair(call: Call, recipe: MemoryRecipe, a: Any, b: Any, oracle: bool = True, running: Any = None, *,
               rulebook: Rulebook) -> "PairOutcome":
    """A's verdict against the oracle by `rulebook` (UNJUDGED without the oracle) and the agreement of A
    and B on the call, each run on its own copy of the images `recipe` makes."""
    if oracle:
        p = prepare(call, recipe, _images(a), rulebook)
        a_memory = p.memory
    else:
        a_memory = recipe.build(_images(a))
        p = None
    sizes = {scope: image.shape[0] for scope, image in a_memory.items()}
    b_images = _images(b)
    b_memory = b_images(sizes) if b_images is not None else {s: np.empty(n, np.uint8) for s, n in sizes.items()}
    for scope, image in a_memory.items():
        np.copyto(b_memory[scope], image)
    if isinstance(b, ExecBackend):
        # B runs in a program of its own (exec:): its request goes out first and A runs meanwhile; B's
        # thread only waits on the pipe. Whatever kills this process then is A's doing.
        if running is not None:
            running(0)
        other = _overlap().submit(_ran, b, call, b_memory)
        a_raised = _ran(a, call, a_memory)
        b_raised = other.result()
    else:
        if running is not None:
            running(0)
        a_raised = _ran(a, call, a_memory)
        if running is not None:
            running(1)
        b_raised = _ran(b, call, b_memory)
    if p is not None:
        outcome = conclude(p, a_raised)
        written = p.want.written if p.want is not None else {}
    else:
        outcome = Outcome(Verdict.UNJUDGED, "not judged against the oracle (--no-oracle)")
        written = {}
    names = (_name(a, "A"), _name(b, "B"))
    agreed = agreement(call, a_raised, a_memory, b_raised, b_memory, names, written, rulebook=rulebook)
    forget_traceback(a_raised)
    forget_traceback(b_raised)
    versus = None
    if agreed.verdict == DIVERGE and p is not None and p.want is not None:
        versus = {}
        for who, raised, memory in (("A", a_raised, a_memory), ("B", b_raised, b_memory)):
            diff = compare(memory, p.want, call, rulebook) if raised is None else None
            versus[who] = {"summary": diff.pop("summary"), "diff": diff} if diff else \
                {"summary": "refused or crashed" if raised is not None else "matches the oracle's image", "diff": None}
    return PairOutcome(outcome.verdict, outcome.message, outcome.violations, outcome.diff, outcome.answer, agreed,
                       versus)


def _images(backend: Any) -> Any:
    """Where the kit builds a backend's images: its shared file for the kit's own out-of-process backend
    (no hook of a backend's own is asked: it would hand the kit arrays it keeps)."""
    return backend.images if isinstance(backend, ExecBackend) else None


_pool: Any = None


def _overlap() -> Any:
    global _pool
    if _pool is None:
        from concurrent.futures import ThreadPoolExecutor
        _pool = ThreadPoolExecutor(1, thread_name_prefix="against")
    return _pool


def _name(backend: Any, fallback: str) -> str:
    name = getattr(backend, "name", None)
    return str(name) if name else fallback
