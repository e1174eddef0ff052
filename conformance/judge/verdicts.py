"""One verdict per call (README, "Verdicts"): run the backend on a fresh memory image and compare.

The backend is untrusted code, called through `conformance.backends.calling` (whatever it raises is its
answer; it runs on its own copy of the call). A verdict, once given, holds no reference to the memory
images: a backend that keeps the arrays and writes into them later cannot change it (a backend still
writing while the verdict is being computed, from a thread it left running or, out of process, after its
reply, changes what the kit reads then: that verdict is of its own making, and replaying it may differ).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Sequence

import numpy as np

from oracle import Call, IllegalCall, expected, verdict_class
from oracle.rules import Violation
from oracle.spec import Rulebook

from conformance.backends.calling import (backend_copy, backend_text, call_backend, crash_message,
                                          forget_traceback, refusal_rule, run_call)
from conformance.backends.contract import Backend, BackendCrash, Rejected
from conformance.backends.exec_program import ExecBackend
from conformance.generate.memory import MemoryRecipe
from conformance.judge import evidence
from conformance.judge.bytemap import byte_map, element_diffs
from conformance.judge.sameness import same_bytes, same_patched


class Verdict(str, Enum):
    PASS = "PASS"
    FAIL = "FAIL"
    FALSE_REJECT = "FALSE_REJECT"
    MISSED_REJECT = "MISSED_REJECT"
    UNDEFINED = "UNDEFINED"
    CRASH = "CRASH"
    NOT_SUPPORTED = "NOT_SUPPORTED"
    UNJUDGED = "UNJUDGED"               # not held against the oracle (--no-oracle: agreement alone)

    def __str__(self) -> str:
        return self.value


NONCONFORMING = frozenset({Verdict.FAIL, Verdict.FALSE_REJECT, Verdict.MISSED_REJECT, Verdict.CRASH})
FIRST_DIFFS = 8


@dataclass
class Outcome:
    verdict: Verdict
    message: str
    violations: list[Violation] = field(default_factory=list)
    diff: dict[str, Any] | None = None        # for FAIL: what differs, per scope
    answer: str = ""                          # what the backend answered, as evidence records it (evidence.py)

    @property
    def conforms(self) -> bool:
        return self.verdict not in NONCONFORMING

    @property
    def key(self) -> str:
        """What a failure is shrunk as: a smaller call must fail the same way (its verdict)."""
        return self.verdict.value


def _crash(exc: BaseException) -> Outcome:
    return Outcome(Verdict.CRASH, crash_message(exc))


@dataclass
class Prepared:
    """A call ready to run: its images, what the documentation asks of it, its verdict class, and the
    rulebook that said so."""

    call: Call
    memory: dict[str, np.ndarray]
    want: Any
    violations: list[Violation]
    klass: str
    rulebook: Rulebook


def prepare(call: Call, recipe: MemoryRecipe, images: Any, rulebook: Rulebook,
            violations: Sequence[Violation] | None = None) -> Prepared:
    """Build the images (in the arrays `images(sizes)` gives, where given, None otherwise: the kit's own
    out-of-process backend's shared file) and the expected result, by `rulebook` (the run's; with its
    declared readings, the regions they cover). `violations`: the oracle's check of this call by this
    rulebook, where the generator made it (Case.checked)."""
    originals: dict[str, np.ndarray] = {}
    memory = recipe.build(images, originals)
    # the oracle reads the pool's windows the images were copied from (read only) where they are one, the
    # images otherwise: of those, it keeps a copy (expected() copies the scopes it writes)
    want, violations = _expectation(call, {scope: originals.get(scope, image) for scope, image in memory.items()},
                                    rulebook, violations)
    if want is not None:
        for scope, image in want.memory.items():
            if scope not in originals and np.may_share_memory(image, memory[scope]):
                want.memory[scope] = image.copy()
    return Prepared(call, memory, want, violations, verdict_class(violations), rulebook)


def _expectation(call: Call, inputs: dict[str, np.ndarray], rulebook: Rulebook,
                 violations: Sequence[Violation] | None) -> tuple[Any, list[Violation]]:
    """(the expected image, the call's violations); no image for a call that must be refused. Its read-only
    inputs are the kit's own, which nothing writes: a scope the call writes is given by the bytes that
    change where the oracle can tell them (Expected.patches). A verdict reads the defined bytes alone: a
    call in undefined territory is not moved (what it writes is not defined)."""
    if violations is not None:          # the generator's check: a call it must refuse needs no image
        rejects = [v for v in violations if v.severity == "reject"]
        if rejects:
            return None, rejects
    try:
        want = expected(call, inputs, rulebook, violations=violations, patches=True, moved_open=False)
        return want, want.violations
    except IllegalCall as exc:
        return None, exc.violations


def conclude(p: Prepared, raised: Any) -> Outcome:
    """The verdict, given what running the call raised (None: it ran), with the backend's answer as
    evidence records it."""
    violations = p.violations
    refused = raised if isinstance(raised, Rejected) else None
    if isinstance(raised, BackendCrash):        # died, hung or broke the protocol: its own message says how
        return Outcome(Verdict.CRASH, backend_text(raised), violations, answer=evidence.CRASHED)
    if isinstance(raised, BaseException) and refused is None:     # anything else is the backend crashing
        return Outcome(Verdict.CRASH, crash_message(raised), violations, answer=evidence.CRASHED)
    if raised is not None and refused is None:  # run_batch's answer for the call is neither None nor raised
        return Outcome(Verdict.CRASH, f"run_batch answered a {type(raised).__name__} for the call (expected None "
                                      f"or an exception)", violations, answer=evidence.CRASHED)
    rule = refusal_rule(refused) if refused is not None else None
    said = evidence.refusal(rule) if refused is not None else None
    if p.klass == "reject":
        broken = ", ".join(v.rule for v in violations if v.severity == "reject")
        if refused is not None:
            return Outcome(Verdict.PASS, f"refused as it must ({broken})", violations, answer=said)
        return Outcome(Verdict.MISSED_REJECT, f"ran a call it must refuse: {violations[0].message} ({broken})",
                       violations, answer=evidence.ran_answer(p.memory, None, False))
    if p.klass == "undefined":
        return Outcome(Verdict.UNDEFINED, "in undefined territory: " + ", ".join(v.rule for v in violations),
                       violations, answer=said or evidence.ran_answer(
                           p.memory, p.want, p.want is not None and compare(p.memory, p.want) is None))
    if refused is not None:
        why = f" ({rule})" if rule else ""
        return Outcome(Verdict.FALSE_REJECT, backend_text(f"refused a legal call{why}: {backend_text(refused)}"),
                       violations, answer=said)
    diff = compare(p.memory, p.want, p.call, p.rulebook)
    if diff:
        return Outcome(Verdict.FAIL, diff.pop("summary"), violations, diff,
                       answer=evidence.ran_answer(p.memory, p.want, False))
    return Outcome(Verdict.PASS, "memory image matches", violations, answer=evidence.EQUAL)


def judge(call: Call, recipe: MemoryRecipe, backend: Backend, rulebook: Rulebook,
          violations: Sequence[Violation] | None = None, text: str | None = None) -> Outcome:
    """Run `call` on `backend` over the images of `recipe` and give the verdict by `rulebook` (never raises
    what the backend raised; a Ctrl-C of the user's goes on as KeyboardInterrupt). `violations`: see
    prepare; `text`: the call's JSON text, where the caller has it (what an out-of-process backend is sent)."""
    if isinstance(backend, ExecBackend):
        return _judge_sent(call, recipe, backend, rulebook, violations, text)
    p = prepare(call, recipe, None, rulebook, violations)
    _, raised = call_backend(run_call, backend, backend_copy(call), p.memory)
    try:
        return conclude(p, raised)
    finally:
        forget_traceback(raised)


def _judge_sent(call: Call, recipe: MemoryRecipe, backend: ExecBackend, rulebook: Rulebook,
                violations: Sequence[Violation] | None, text: str | None = None) -> Outcome:
    """judge, for a backend in a process of its own: the request goes out first and the oracle works out
    the expected image while the backend runs the call (start, then complete)."""
    return complete(start(call, recipe, backend, text), backend, rulebook, violations)


@dataclass
class Started:
    """A call whose request is out to an out-of-process backend: its images (in the shared file), the
    oracle's own inputs, and the request (or what sending it raised)."""

    call: Call
    memory: dict[str, np.ndarray]
    inputs: dict[str, np.ndarray]
    sent: Any
    raised: Any


def start(call: Call, recipe: MemoryRecipe, backend: ExecBackend, text: str | None = None,
          busy: Started | None = None) -> Started:
    """The images built and the request sent (clear of `busy`, a call still out). The oracle will read its
    own inputs, never the shared images the backend writes: the pool's windows (read only) where the
    recipe has them, a copy taken before the request otherwise."""
    held = busy.sent.places if busy is not None and busy.sent is not None else None
    originals: dict[str, np.ndarray] = {}
    memory = recipe.build(lambda sizes: backend.images(sizes, held), originals)
    inputs = _own_inputs(memory, originals)
    sent, raised = call_backend(backend.send, call, memory, text)
    return Started(call, memory, inputs, sent, raised)


def _own_inputs(memory: dict[str, np.ndarray], originals: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The images the oracle reads, never the shared ones the backend writes: the pool's windows (read
    only) where the images were copied from one (`originals`, from build), a copy taken before the
    request otherwise (read only too: nothing writes it)."""
    inputs = {}
    for scope, image in memory.items():
        kept = originals.get(scope)
        if kept is None:
            kept = image.copy()
            kept.flags.writeable = False
        inputs[scope] = kept
    return inputs


def complete(started: Started, backend: ExecBackend, rulebook: Rulebook,
             violations: Sequence[Violation] | None = None) -> Outcome:
    """The verdict of a started call: the expected image worked out (while the backend runs it), then its
    answer read and judged."""
    want, found = _expectation(started.call, started.inputs, rulebook, violations)
    raised = started.raised
    if raised is None:
        _, raised = call_backend(backend.finish, started.sent)
    try:
        return conclude(Prepared(started.call, started.memory, want, found, verdict_class(found), rulebook), raised)
    finally:
        forget_traceback(raised)


def drain(started: Started, backend: ExecBackend) -> None:
    """A started call whose verdict is not wanted (the run went another way): its answer read and dropped."""
    if started.raised is None:
        _, raised = call_backend(backend.finish, started.sent)
        forget_traceback(raised)


def judge_batch(cases: Sequence[tuple[Call, MemoryRecipe]], backend: Any, rulebook: Rulebook,
                violations: Sequence[Sequence[Violation] | None] | None = None) -> list[Outcome]:
    """The verdicts of several calls run by one `backend.run_batch(calls, memories)`, which returns, per
    call, None (it ran) or the exception it raised (Rejected to refuse); if run_batch itself raises,
    every call of the batch gets that crash. `violations`: per call, as for prepare."""
    known = violations if violations is not None else [None] * len(cases)
    if isinstance(backend, ExecBackend):
        return _judge_batch_sent(cases, backend, rulebook, known)
    prepared = [prepare(call, recipe, None, rulebook, v) for (call, recipe), v in zip(cases, known)]
    copies, memories = [backend_copy(p.call) for p in prepared], [p.memory for p in prepared]
    answer, raised = call_backend(lambda: list(backend.run_batch(copies, memories)))
    if raised is None and len(answer) != len(prepared):
        raised = BackendCrash(f"run_batch returned {len(answer)} results for {len(prepared)} calls")
    results = [raised] * len(prepared) if raised is not None else answer
    try:
        return [conclude(p, r) for p, r in zip(prepared, results)]
    finally:
        for r in results:
            forget_traceback(r)


def _judge_batch_sent(cases: Sequence[tuple[Call, MemoryRecipe]], backend: ExecBackend, rulebook: Rulebook,
                      known: Sequence[Sequence[Violation] | None]) -> list[Outcome]:
    """judge_batch, for a backend in a process of its own: the images built where it reads them, the batch
    sent, and the expected images worked out while it runs (as start / complete do for one call)."""
    views = iter(backend.batch_images([recipe.sizes for _, recipe in cases]))
    originals: list[dict[str, np.ndarray]] = [{} for _ in cases]
    memories = [recipe.build(lambda sizes: next(views), kept) for (_, recipe), kept in zip(cases, originals)]
    inputs = [_own_inputs(memory, kept) for memory, kept in zip(memories, originals)]
    sent, raised = call_backend(backend.send_batch, [call for call, _ in cases], memories)
    expected_ = [_expectation(call, inp, rulebook, v) for (call, _), inp, v in zip(cases, inputs, known)]
    answer = None
    if raised is None:
        answer, raised = call_backend(backend.finish_batch, sent)
    results = [raised] * len(cases) if raised is not None else answer
    try:
        return [conclude(Prepared(call, memory, want, found, verdict_class(found), rulebook), r)
                for (call, _), memory, (want, found), r in zip(cases, memories, expected_, results)]
    finally:
        for r in results:
            forget_traceback(r)


# -- running untrusted code ------------------------------------------------------------------------

def compare(actual: dict[str, np.ndarray], want, call: Call | None = None,
            rulebook: Rulebook | None = None) -> dict[str, Any] | None:
    """None when every defined byte matches; else a description of the first differences (given the
    call and the rulebook it is judged by, both or neither, also the first differing elements decoded in
    its dtypes and a map of the region it writes)."""
    if (call is None) != (rulebook is None):
        raise TypeError("compare: a call is decoded by its rulebook: give both or neither")
    problems = _wrong_bytes(actual, want)
    if not problems:
        return None
    _whole(want)
    return _described(problems, actual, want, call, rulebook)


def _whole(want: Any) -> None:
    """Every scope of `want` one array (an Expected's patches applied; another image in its role has none)."""
    if getattr(want, "patches", None):
        want.materialize()


def _wrong_bytes(actual: dict[str, np.ndarray], want) -> dict[str, dict[str, Any]]:
    """Per scope, the bytes the backend got wrong (a mask), or why its memory cannot be compared; where
    several elements were sent to one place, a place that holds none of them."""
    problems: dict[str, Any] = {}
    for scope, exp in want.memory.items():
        got = actual.get(scope)
        if not isinstance(got, np.ndarray) or got.shape != exp.shape or got.dtype != np.uint8:
            problems[scope] = {"error": f"the backend replaced memory[{scope!r}] instead of writing into it"}
            continue
        patch = getattr(want, "patches", {}).get(scope)
        if patch is not None:
            if same_patched(got, exp, *patch):
                continue
            _whole(want)                        # a difference: the image whole, to tell which bytes
            exp = want.memory[scope]
        if want.fully_defined(scope):
            if same_bytes(got, exp):
                continue
            wrong = got != exp
        else:
            wrong = (got != exp) & want.defined[scope]
            if not wrong.any():
                continue
        problems[scope] = {"wrong": wrong}
    for scope, starts, values in want.choices:        # several elements sent to a place: one of them stays
        got = actual.get(scope)
        if scope in problems or not isinstance(got, np.ndarray) or got.shape != want.memory[scope].shape:
            continue
        width = values.shape[1]
        matches = (got[starts[:, None] + np.arange(width)] == values).all(axis=1)
        firsts = np.flatnonzero(np.r_[True, starts[1:] != starts[:-1]])
        kept = np.logical_or.reduceat(matches, firsts)
        if not kept.all():
            bad = firsts[np.flatnonzero(~kept)[0]]
            addr = int(starts[bad])
            wrong = np.zeros(got.shape, dtype=bool)
            wrong[addr:addr + width] = True
            problems[scope] = {"wrong": wrong, "collision": (addr, values[starts == addr])}
    return problems


def _described(problems: dict[str, dict[str, Any]], actual: dict[str, np.ndarray], want,
               call: Call | None, rulebook: Rulebook | None) -> dict[str, Any]:
    """The wrong bytes as a failure says them: counts, the first differences, the elements and the map."""
    written = want.written
    parts, out = [], {}
    for scope, info in problems.items():
        if "error" in info:
            out[scope] = info
            parts.append(info["error"])
            continue
        wrong = info["wrong"]
        inside = written.get(scope, np.zeros_like(wrong))
        addrs = np.flatnonzero(wrong)
        stray = int(np.count_nonzero(wrong & ~inside))
        out[scope] = {
            "wrong_bytes": int(addrs.size),
            "stray_bytes": stray,
            "first": [{"addr": int(a), "expected": int(want.memory[scope][a]), "actual": int(actual[scope][a]),
                       "in_footprint": bool(inside[a])} for a in addrs[:FIRST_DIFFS]],
        }
        if call is not None and rulebook is not None:
            out[scope]["elements"] = element_diffs(call, scope, addrs, actual[scope], want.memory[scope], rulebook)
            out[scope]["map"] = byte_map(wrong, written.get(scope), want.defined[scope])
        what = f"{addrs.size} wrong byte(s) in {scope} from byte {int(addrs[0])}"
        if "collision" in info:
            addr, candidates = info["collision"]
            what = (f"{scope} byte {addr}: {len(candidates)} elements were sent there and the backend left "
                    f"{bytes(actual[scope][addr:addr + candidates.shape[1]]).hex()}, none of them "
                    f"({', '.join(bytes(c).hex() for c in candidates[:4])})")
        parts.append(what + (f", {stray} of them outside the destination (stray writes)" if stray else ""))
    out["summary"] = "; ".join(parts)
    return out
