"""One verdict per call (DESIGN.md, "Verdicts"): run the backend on a fresh memory image and compare.

The backend is untrusted code. Whatever it raises (KeyboardInterrupt, SystemExit and GeneratorExit
included) is its CRASH; it runs on its own copy of the call, so the verdict and the reproducer describe
the call as generated whatever it does to what it is handed; and what it says (messages, rule ids) enters
the kit through `backend_text` alone. A verdict, once given, holds no reference to the memory images:
a backend that keeps the arrays and writes into them later cannot change it (a backend still writing
while the verdict is being computed, from a thread it left running or, out of process, after its reply,
changes what the kit reads then: that verdict is of its own making, and replaying it may differ).
"""
from __future__ import annotations

import _signal           # signal.signal/getsignal map handlers to enums through exceptions (~4 us a call)
import copy
import signal
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Sequence

import numpy as np

from oracle import Call, IllegalCall, Tensor, expected, verdict_class
from oracle.rules import Violation

from .backends import Backend, BackendCrash, Rejected
from .bytemap import byte_map, element_diffs
from .memory import MemoryRecipe


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

    @property
    def conforms(self) -> bool:
        return self.verdict not in NONCONFORMING

    @property
    def key(self) -> str:
        """What a failure is shrunk as: a smaller call must fail the same way (its verdict)."""
        return self.verdict.value


TEXT_LIMIT = 64 * 1024          # characters kept of anything a backend says (a message, a rule id, a name)


def backend_text(value: Any) -> str:
    """What a backend said, as a plain `str` (never raises): at most TEXT_LIMIT characters, the rest
    counted in a stated "... (N more characters)". Lone surrogates, NUL and escape sequences are kept:
    escaping them is each output writer's job."""
    if type(value) is not str:
        try:
            value = value if isinstance(value, str) else str(value)
            value = str.__str__(value)              # a str subclass: its own methods are not called again
        except BaseException:           # noqa: BLE001 - a __str__ that raises anything: still an answer
            value = f"<unprintable {type(value).__name__}>"
    if len(value) <= TEXT_LIMIT:
        return value
    keep = TEXT_LIMIT - len(f"... ({len(value):,} more characters)")     # the whole fits in TEXT_LIMIT,
    return value[:keep] + f"... ({len(value) - keep:,} more characters)"  # so capping it again keeps it


def refusal_rule(refused: Rejected) -> str | None:
    """The rule id a backend's Rejected names (through backend_text), or None."""
    rule, _ = call_backend(getattr, refused, "rule", None)
    return None if rule is None else backend_text(rule)


def crash_message(exc: BaseException, who: str = "backend") -> str:
    """'backend raised Type: message at file:line' (the innermost frame), for an exception a backend raised."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    where = f" at {tb.tb_frame.f_code.co_filename}:{tb.tb_lineno}" if tb is not None else ""
    return backend_text(f"{who} raised {type(exc).__name__}: {backend_text(exc)}{where}")


def _crash(exc: BaseException) -> Outcome:
    return Outcome(Verdict.CRASH, crash_message(exc))


@dataclass
class Prepared:
    """A call ready to run: its images, what the documentation asks of it, and its verdict class."""

    call: Call
    memory: dict[str, np.ndarray]
    want: Any
    violations: list[Violation]
    klass: str


def prepare(call: Call, recipe: MemoryRecipe, images=None) -> Prepared:
    """Build the images (in the arrays `images(sizes)` gives, where given) and the expected result."""
    memory = recipe.build(images)
    try:
        want = expected(call, memory)
        violations = want.violations
    except IllegalCall as exc:
        want, violations = None, exc.violations
    if want is not None:
        # expected() copies only the scopes the call writes; the others are views of `memory`, which the
        # backend is about to write into: keep their bytes, or a stray write there would go unseen
        for scope, image in want.memory.items():
            if np.shares_memory(image, memory[scope]):
                want.memory[scope] = image.copy()
    return Prepared(call, memory, want, violations, verdict_class(violations))


def conclude(p: Prepared, raised: Any) -> Outcome:
    """The verdict, given what running the call raised (None: it ran)."""
    violations = p.violations
    refused = raised if isinstance(raised, Rejected) else None
    if isinstance(raised, BackendCrash):        # died, hung or broke the protocol: its own message says how
        return Outcome(Verdict.CRASH, backend_text(raised), violations)
    if isinstance(raised, BaseException) and refused is None:     # anything else is the backend crashing
        return Outcome(Verdict.CRASH, crash_message(raised), violations)
    if raised is not None and refused is None:  # run_batch's answer for the call is neither None nor raised
        return Outcome(Verdict.CRASH, f"run_batch answered a {type(raised).__name__} for the call (expected None "
                                      f"or an exception)", violations)
    if p.klass == "reject":
        broken = ", ".join(v.rule for v in violations if v.severity == "reject")
        if refused is not None:
            return Outcome(Verdict.PASS, f"refused as it must ({broken})", violations)
        return Outcome(Verdict.MISSED_REJECT, f"ran a call it must refuse: {violations[0].message} ({broken})",
                       violations)
    if p.klass == "undefined":
        return Outcome(Verdict.UNDEFINED, "in undefined territory: " + ", ".join(v.rule for v in violations),
                       violations)
    if refused is not None:
        rule = refusal_rule(refused)
        said = f" ({rule})" if rule else ""
        return Outcome(Verdict.FALSE_REJECT, backend_text(f"refused a legal call{said}: {backend_text(refused)}"),
                       violations)
    diff = compare(p.memory, p.want, p.call)
    if diff:
        return Outcome(Verdict.FAIL, diff.pop("summary"), violations, diff)
    return Outcome(Verdict.PASS, "memory image matches", violations)


def judge(call: Call, recipe: MemoryRecipe, backend: Backend) -> Outcome:
    """Run `call` on `backend` over the images of `recipe` and give the verdict (never raises what the
    backend raised; a Ctrl-C of the user's goes on as KeyboardInterrupt)."""
    p = prepare(call, recipe, getattr(backend, "images", None))
    _, raised = call_backend(run_call, backend, backend_copy(call), p.memory)
    try:
        return conclude(p, raised)
    finally:
        forget_traceback(raised)


def run_call(backend: Backend, call: Call, memory: dict[str, np.ndarray]) -> None:
    backend.run(call, memory)


def judge_batch(cases: Sequence[tuple[Call, MemoryRecipe]], backend: Any) -> list[Outcome]:
    """The verdicts of several calls run by one `backend.run_batch(calls, memories)`, which returns, per
    call, None (it ran) or the exception it raised (Rejected to refuse); if run_batch itself raises,
    every call of the batch gets that crash."""
    prepared = [prepare(call, recipe) for call, recipe in cases]
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


def ask_supports(backend: Any, api: str, product: str) -> bool:
    """`backend.supports(api, product)` as a bool; BackendCrash (with crash_message's text) for whatever
    it raised instead, KeyboardInterrupt and SystemExit included."""
    answer, raised = call_backend(lambda: bool(backend.supports(api, product)))
    if raised is None:
        return answer
    message = crash_message(raised, "backend.supports")
    forget_traceback(raised)
    raise BackendCrash(message)


# -- running untrusted code ------------------------------------------------------------------------

def forget_traceback(raised: Any) -> None:
    """Drop the traceback of an exception a backend raised, once judged. It reaches, through each frame's
    f_back, the frames that hold the images (and the exception itself): a cycle that only the GC would
    break, keeping arrays, and out of process the shared file's old mappings, alive until then."""
    if isinstance(raised, BaseException):
        try:
            raised.__traceback__ = None
        except BaseException:           # noqa: BLE001 - a subclass's own __traceback__: left as it is
            pass

class _CtrlC:
    seen = False


def _on_ctrl_c(signum: int, frame: Any) -> None:
    _CtrlC.seen = True
    raise KeyboardInterrupt


def call_backend(method: Any, *args: Any) -> tuple[Any, BaseException | None]:
    """(what method(*args) returned, None), or (None, what it raised): every exception, KeyboardInterrupt,
    SystemExit and GeneratorExit included, is the backend's. (A caller that keeps what was raised passes
    it to forget_traceback when done with it.) The user's Ctrl-C is told apart where it
    could otherwise be taken for the backend's (Python's own SIGINT handler, main thread): it then goes
    on as KeyboardInterrupt, even if the backend swallowed it. Workers that ignore SIGINT pay nothing."""
    watch = _signal.getsignal(signal.SIGINT) is signal.default_int_handler
    if watch:
        try:
            _signal.signal(signal.SIGINT, _on_ctrl_c)
            _CtrlC.seen = False
        except ValueError:              # not the main thread: no signal is delivered here
            watch = False
    try:
        return method(*args), None
    except BaseException as exc:        # noqa: BLE001 - untrusted code: everything is a verdict
        return None, exc
    finally:
        if watch:
            _signal.signal(signal.SIGINT, signal.default_int_handler)
            if _CtrlC.seen:
                _CtrlC.seen = False
                raise KeyboardInterrupt


def backend_copy(call: Call) -> Call:
    """The backend's own copy of a call: new args dict, lists, mappings and Tensors (a frozen Tensor
    still yields to object.__setattr__), sharing only immutable values. A few microseconds; deepcopy
    costs ten times as much."""
    twin = _new(Call)
    twin.__dict__.update(call.__dict__)
    twin.args = {name: _copied(value) for name, value in call.args.items()}
    return twin


_new = object.__new__


def _copied(value: Any) -> Any:
    kind = type(value)
    if kind is Tensor:
        twin = _new(Tensor)
        twin.__dict__.update(value.__dict__)
        return twin
    if kind is list:
        return [_copied(v) for v in value]
    if kind is tuple:
        return tuple([_copied(v) for v in value])
    if kind is dict:
        return {k: _copied(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, dict, Tensor)):      # a subclass (the kit makes none): the slow way
        return copy.deepcopy(value)
    return value


def compare(actual: dict[str, np.ndarray], want, call: Call | None = None) -> dict[str, Any] | None:
    """None when every defined byte matches; else a description of the first differences (given the
    call, also the first differing elements decoded in its dtypes and a map of the region it writes)."""
    problems: dict[str, Any] = {}
    for scope, exp in want.memory.items():
        got = actual.get(scope)
        if not isinstance(got, np.ndarray) or got.shape != exp.shape or got.dtype != np.uint8:
            problems[scope] = {"error": f"the backend replaced memory[{scope!r}] instead of writing into it"}
            continue
        if want.fully_defined(scope):
            if np.array_equal(got, exp):
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
    if not problems:
        return None
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
        if call is not None:
            out[scope]["elements"] = element_diffs(call, scope, addrs, actual[scope], want.memory[scope])
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
