"""Hostile backends become verdicts, never damage (tests/hostile_backends.py, tests/exec_programs/hostile.py):
whatever a backend raises is its CRASH while the user's Ctrl-C still interrupts; it runs on its own copy
of the call, so verdicts and reproducers describe the call generated; a verdict given cannot be changed
by later writes; what it says reaches the kit as plain, capped text; an exec program that stops reading,
prints an endless line, or leaves a child behind costs one CRASH within its time limit and leaves no
process and no file behind, even when the process holding it is SIGKILLed."""
from __future__ import annotations

import copy
import io
import json
import os
import shlex
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import hostile_backends as zoo
from catching import QUICK, select_cells
from conformance import BackendCrash, OracleBackend, Rejected
from conformance.backends import shared_images
from conformance.backends.loading import TimeLimited
from conformance.backends.exec_program import ExecBackend
from conformance.judge.runner import run_cells
from conformance.backends.serve import serve
from conformance.backends.calling import TEXT_LIMIT, ask_supports, backend_copy, backend_text
from conformance.judge.verdicts import Verdict, judge, judge_batch
from oracle import Call
from oracle.spec import default_rulebook

from kit_path import HELPERS
ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = Path(__file__).resolve().parents[1] / "exec_programs"
PY = shlex.quote(sys.executable)
HOSTILE = f"{PY} {PROGRAMS / 'hostile.py'}"
FLOAT16 = "data_move/ascend910b/legal/float16"
OTHERS = ["vec_trans_scatter/ascend910b/legal/int16", "scatter/ascend310b/legal/mask_bits/int16",
          "data_copy_nz2nd/ascend910b/legal/float16", "asc_gather/ascend910b/legal/count/float32",
          "data_move/ascend910b/reject/data_move.nburst.range"]


@pytest.fixture(autouse=True)
def _importable(monkeypatch):
    """The programs import the kit from this checkout."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(HELPERS), str(PROGRAMS)]))


@pytest.fixture(scope="module")
def cases():
    """Legal data_move calls: (struck: more than one burst, spared: one burst)."""
    drawn = select_cells([FLOAT16])[0].draw(40, 7, default_rulebook())
    struck = [c for c in drawn if c.call.args["nburst"] > 1]
    spared = [c for c in drawn if c.call.args["nburst"] == 1]
    assert struck and spared
    return struck, spared


@pytest.fixture
def ctrl_c_raises():
    """Python's own SIGINT handler (a Ctrl-C raises KeyboardInterrupt), as in a process that runs cells
    itself; put back as it was after the test."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


# ------------------------------------------------------------------------------ raised: CRASH, never further

@pytest.mark.parametrize("animal, says", [
    (zoo.SysExit, "backend raised SystemExit: 2 at "),
    (zoo.RaisesKeyboardInterrupt, "backend raised KeyboardInterrupt:  at "),
    (zoo.RaisesGeneratorExit, "backend raised GeneratorExit: closed at "),
    (zoo.RaisesUnprintable, "backend raised Unprintable: <unprintable Unprintable> at "),
])
def test_whatever_a_backend_raises_is_its_crash(cases, ctrl_c_raises, animal, says):
    struck, spared = cases
    outcome = judge(struck[0].call, struck[0].memory, animal(), default_rulebook())
    assert outcome.verdict is Verdict.CRASH and outcome.message.startswith(says), outcome.message
    assert "hostile_backends.py" in outcome.message
    assert judge(spared[0].call, spared[0].memory, animal(), default_rulebook()).verdict is Verdict.PASS


def test_keyboard_interrupt_is_the_backends_where_sigint_is_ignored(cases):
    struck, _ = cases
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)        # a worker: the controller handles Ctrl-C
    try:
        outcome = judge(struck[0].call, struck[0].memory, zoo.RaisesKeyboardInterrupt(), default_rulebook())
    finally:
        signal.signal(signal.SIGINT, before)
    assert outcome.verdict is Verdict.CRASH and "KeyboardInterrupt" in outcome.message


class _CtrlCMeanwhile(OracleBackend):
    """The user presses Ctrl-C while the call runs, and the backend swallows the KeyboardInterrupt."""

    name = "ctrl-c-meanwhile"

    def run(self, call, memory):
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)
        except BaseException:           # noqa: BLE001
            pass
        super().run(call, memory)


def test_the_users_ctrl_c_still_interrupts(cases, ctrl_c_raises):
    struck, _ = cases
    with pytest.raises(KeyboardInterrupt):
        judge(struck[0].call, struck[0].memory, _CtrlCMeanwhile(), default_rulebook())
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler        # put back


class _Batches(zoo.RaisesKeyboardInterrupt):
    def run_batch(self, calls, memories):
        for call, memory in zip(calls, memories):
            self.run(call, memory)
        return [None] * len(calls)


def test_run_batch_and_supports_raising_are_crashes(cases, ctrl_c_raises):
    struck, spared = cases
    outcomes = judge_batch([(spared[0].call, spared[0].memory), (struck[0].call, struck[0].memory)], _Batches(),
                           default_rulebook())
    assert [o.verdict for o in outcomes] == [Verdict.CRASH] * 2 and "KeyboardInterrupt" in outcomes[0].message

    class Answers(OracleBackend):
        def run_batch(self, calls, memories):
            return ["done"] * len(calls)

    (odd,) = judge_batch([(spared[0].call, spared[0].memory)], Answers(), default_rulebook())
    assert odd.verdict is Verdict.CRASH and odd.message.startswith("run_batch answered a str for the call")

    class Refuses(OracleBackend):
        def supports(self, api, product):
            sys.exit(4)

    with pytest.raises(BackendCrash, match=r"^backend.supports raised SystemExit: 4 at "):
        ask_supports(Refuses(), "data_move", "ascend910b")
    assert ask_supports(OracleBackend(), "data_move", "ascend910b") is True


def test_python_hangs_are_stopped_in_supports_and_batches_too(cases):
    _, spared = cases

    class Spins(OracleBackend):
        def supports(self, api, product):
            while True:
                pass

        def run_batch(self, calls, memories):
            while True:
                pass

    backend = TimeLimited(Spins(), 0.2)
    with pytest.raises(BackendCrash, match="no answer within 0.2 s"):
        ask_supports(backend, "data_move", "ascend910b")
    (outcome,) = judge_batch([(spared[0].call, spared[0].memory)], backend, default_rulebook())
    assert outcome.verdict is Verdict.CRASH and "no answer within 0.2 s" in outcome.message
    hung = judge(spared[0].call, spared[0].memory, TimeLimited(zoo.HangsPython(), 0.2), default_rulebook())
    assert hung.verdict is Verdict.PASS                             # one burst: not struck
    drawn = select_cells([FLOAT16])[0].draw(10, 3, default_rulebook())
    struck = [c for c in drawn if c.call.args["nburst"] > 1][0]
    hung = judge(struck.call, struck.memory, TimeLimited(zoo.HangsPython(), 0.2), default_rulebook())
    assert hung.verdict is Verdict.CRASH and hung.message == "no answer within 0.2 s (interrupted)"


def test_memory_hog_is_a_crash_and_puts_its_limit_back(cases):
    import resource
    struck, _ = cases
    before = resource.getrlimit(resource.RLIMIT_AS)
    outcome = judge(struck[0].call, struck[0].memory, zoo.MemoryHog(), default_rulebook())
    assert outcome.verdict is Verdict.CRASH and outcome.message.startswith("backend raised MemoryError")
    assert resource.getrlimit(resource.RLIMIT_AS) == before


def test_leaked_threads_do_not_change_the_verdict(cases):
    struck, _ = cases
    try:
        outcome = judge(struck[0].call, struck[0].memory, zoo.LeaksThreads(), default_rulebook())
        assert outcome.verdict is Verdict.PASS
        assert any(t.name == "leaked-by-backend" and t.is_alive() for t in threading.enumerate())
    finally:
        zoo.LeaksThreads.release()


# ------------------------------------------------------------------------------ the call as generated

def test_verdict_and_reproducer_describe_the_call_generated():
    """CallMutator clamps nburst in place: FAIL, the reproducer holds the nburst generated, and replaying it
    on the same backend gives the same verdict and message."""
    (result,) = run_cells(select_cells([FLOAT16]), zoo.CallMutator(), QUICK, 2, default_rulebook())
    failure = result.failure
    assert failure["verdict"] == "FAIL" and failure["call"]["args"]["nburst"] > 1, failure
    call = Call.from_dict(failure["call"])
    from conformance.generate.memory import MemoryRecipe
    again = judge(call, MemoryRecipe.from_dict(failure["memory"]), zoo.CallMutator(), default_rulebook())
    assert (again.verdict.value, again.message) == (failure["verdict"], failure["message"])
    assert call.to_dict() == failure["call"]                        # judging left the call as it was


def test_a_backend_that_scribbles_on_its_call_changes_nothing():
    """Every api (Tensors, lists of them, intriParams, scatter's mask list): correct results, PASS, and
    the calls judged are exactly as they were generated."""
    backend = zoo.CallScribbler()
    seen = set()
    for cell in select_cells(OTHERS + [FLOAT16]):
        for case in cell.draw(3, 5, default_rulebook()):
            before = copy.deepcopy(case.call.to_dict())
            outcome = judge(case.call, case.memory, backend, default_rulebook())
            assert outcome.conforms, (cell.id, outcome.message)
            assert case.call.to_dict() == before
            seen.update(type(v).__name__ for v in case.call.args.values())
    assert {"Tensor", "list", "dict"} <= seen                   # the containers were all handed over


def test_backend_copy_shares_nothing_mutable():
    case = select_cells(["vec_trans_scatter/ascend910b/legal/int16"])[0].draw(1, 1, default_rulebook())[0]
    twin = backend_copy(case.call)
    assert twin.to_dict() == case.call.to_dict() and twin.args is not case.call.args
    assert twin.args["dst_list"] is not case.call.args["dst_list"]
    assert all(a is not b for a, b in zip(twin.args["dst_list"], case.call.args["dst_list"]))
    nz = Call("data_copy_nz2nd", "ascend910b", {"intriParams": {"nValue": 1}, "mask": [1, 2]})
    twin = backend_copy(nz)
    assert twin.args["intriParams"] is not nz.args["intriParams"] and twin.args["mask"] is not nz.args["mask"]


class _WrongThenLater(zoo.ScribblesLater):
    """Writes one wrong byte on its first call (a FAIL with a diff), then scribbles later."""

    def run(self, call, memory):
        super().run(call, memory)
        if self.calls == 1:
            self.first = memory
            dst = call.args["dst"]
            memory[dst.scope][dst.addr] ^= 0xFF


def test_writes_after_the_verdict_cannot_change_it(cases):
    struck, spared = cases
    backend = _WrongThenLater()
    first = judge(spared[0].call, spared[0].memory, backend, default_rulebook())
    assert first.verdict is Verdict.FAIL and first.diff
    given = copy.deepcopy(first)
    assert judge(spared[1].call, spared[1].memory, backend, default_rulebook()).verdict is Verdict.PASS
    assert all((image == 0xA5).all() for image in backend.first.values())     # scribbled on after the verdict
    assert first == given


# ------------------------------------------------------------------------------ what a backend says

def test_backend_text_is_plain_capped_and_never_raises():
    class Shouty(str):
        def __str__(self):
            raise SystemExit

    assert type(backend_text(Shouty("abc"))) is str and backend_text(Shouty("abc")) == "abc"
    assert backend_text(zoo.Unprintable()) == "<unprintable Unprintable>"
    assert backend_text(b"\xff") == "b'\\xff'" and backend_text(None) == "None"
    assert backend_text(zoo.ODD) == zoo.ODD                                         # kept as it is
    long = "\udc80" + "y" * (3 * TEXT_LIMIT)
    capped = backend_text(long)
    assert len(capped) <= TEXT_LIMIT and capped.startswith("\udc80yyy")
    dropped = len(long) - capped.index("... (")
    assert capped.endswith(f"... ({dropped:,} more characters)") and backend_text(capped) == capped


def test_odd_strings_reach_the_verdict_as_capped_text(cases):
    struck, _ = cases
    outcome = judge(struck[0].call, struck[0].memory, zoo.OddStrings(), default_rulebook())
    assert outcome.verdict is Verdict.FALSE_REJECT and type(outcome.message) is str
    assert outcome.message.startswith(f"refused a legal call ({zoo.ODD}): {zoo.ODD}xxx")
    assert len(outcome.message) <= TEXT_LIMIT and outcome.message.endswith(" more characters)")
    json.dumps(outcome.message)                                     # ordinary str: JSON escapes it


# ------------------------------------------------------------------------------ exec programs

def _exec(mode: str, timeout: float = 0.5) -> ExecBackend:
    return ExecBackend(f"{HOSTILE} {mode}", timeout=timeout)


@pytest.mark.parametrize("mode, says", [
    ("segfault", "the backend program killed by SIGSEGV"),
    ("exit", "the backend program exited with status 3"),
    ("hang", "no answer to run request 1 within 0.5 s (the program was killed)"),
    ("backend RaisesKeyboardInterrupt", "the backend reported an error: KeyboardInterrupt: "),
    ("backend SysExit", "the backend reported an error: SystemExit: 2"),
    ("backend RaisesGeneratorExit", "the backend reported an error: GeneratorExit: closed"),
])
def test_exec_program_misbehaving(cases, mode, says):
    struck, spared = cases
    backend = _exec(mode)
    try:
        outcome = judge(struck[0].call, struck[0].memory, backend, default_rulebook())
        assert outcome.verdict is Verdict.CRASH and outcome.message.startswith(says), outcome.message
        assert judge(spared[0].call, spared[0].memory, backend, default_rulebook()).verdict is Verdict.PASS
        assert backend.restarts == (0 if mode.startswith("backend") else 1)      # serve goes on after raises
    finally:
        backend.close()


def test_a_program_that_stops_reading_costs_its_time_limit():
    """A request larger than the pipe buffer to a program that no longer reads: CRASH within the limit."""
    backend = _exec("deaf")
    try:
        call = Call("data_move", "ascend910b", {"padding": "p" * (1 << 20)})
        started = time.monotonic()
        with pytest.raises(BackendCrash, match=r"^the program did not read its request within 0.5 s \(it was killed\)"):
            backend.run(call, {"UB": np.zeros(64, dtype=np.uint8)})
        assert time.monotonic() - started < 5                   # not blocked in write() for good
        assert backend.process_groups() == []                   # killed; the next call starts a fresh one
    finally:
        backend.close()


def test_an_endless_reply_line_is_capped(cases):
    """100 MB without a newline: read in linear time up to 64 MiB, then CRASH (a quadratic reader would
    still be reading when the 10 s limit ran out)."""
    struck, spared = cases
    backend = _exec("long-line", timeout=10)
    try:
        outcome = judge(struck[0].call, struck[0].memory, backend, default_rulebook())
        assert outcome.verdict is Verdict.CRASH, outcome.message
        assert outcome.message.startswith("protocol error: a reply longer than 64 MiB to run request 1")
        assert judge(spared[0].call, spared[0].memory, backend, default_rulebook()).verdict is Verdict.PASS
    finally:
        backend.close()


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"      # a zombie, waiting for init, is gone
    except FileNotFoundError:
        return True


def test_a_child_left_holding_stdout_is_killed_with_its_program(cases, tmp_path):
    struck, _ = cases
    pidfile = tmp_path / "child.pid"
    backend = _exec(f"orphan {pidfile}", timeout=20)
    try:
        started = time.monotonic()
        outcome = judge(struck[0].call, struck[0].memory, backend, default_rulebook())
        assert outcome.verdict is Verdict.CRASH and outcome.message.startswith(
            "the backend program exited with status 3"), outcome.message
        assert time.monotonic() - started < 10                  # seen exiting, not waited out to 20 s
    finally:
        backend.close()
    child = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while not _gone(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        assert _gone(child), "the child that held the program's stdout outlived it"
    finally:
        if not _gone(child):
            os.kill(child, signal.SIGKILL)


def test_odd_strings_from_a_program(cases):
    struck, spared = cases
    backend = _exec("odd-hello")
    try:
        assert type(backend.name) is str and type(backend.version) is str
        for piece in ("\udcff\udcfe", "\x00", "\x1b[31mred", "\udc80", "\x07", "\t"):
            assert piece in backend.name and piece in backend.version, piece
        assert judge(spared[0].call, spared[0].memory, backend, default_rulebook()).verdict is Verdict.PASS
    finally:
        backend.close()
    backend = _exec("odd-replies")
    try:
        outcome = judge(struck[0].call, struck[0].memory, backend, default_rulebook())
        assert outcome.verdict is Verdict.FALSE_REJECT and type(outcome.message) is str
        assert outcome.message.startswith("refused a legal call (\udcff\udcfe\udcc0 nul \x00 esc \x1b[31m")
        assert len(outcome.message) <= TEXT_LIMIT and outcome.message.endswith(" more characters)")
        assert backend.restarts == 0
    finally:
        backend.close()


def test_serve_refuses_the_handshake_when_supports_raises():
    class Refuses(OracleBackend):
        def supports(self, api, product):
            raise KeyboardInterrupt

    replies = io.StringIO()
    assert serve(Refuses(), io.StringIO('{"op": "hello", "protocol": 1}\n'), replies, default_rulebook()) == 1
    reply = json.loads(replies.getvalue())
    assert reply["op"] == "error" and reply["message"].startswith("backend.supports raised KeyboardInterrupt")


# ------------------------------------------------------------------------------ the shared memory file

def _ours(pid: int) -> list[str]:
    return sorted(n for n in os.listdir("/dev/shm") if n.startswith(f"ascend-conformance-{pid}-"))


@pytest.mark.skipif(not os.path.isdir("/dev/shm"), reason="no /dev/shm here")
def test_sigkill_mid_run_leaves_nothing_in_dev_shm(tmp_path):
    script = textwrap.dedent(f"""
        import sys, numpy as np
        from conformance.backends.exec_program import ExecBackend
        from oracle import Call
        backend = ExecBackend({HOSTILE + ' deaf'!r}, timeout=60)
        print(backend.shm.path if backend.shm.path else "", backend.process_groups()[0], flush=True)
        backend.run(Call("data_move", "ascend910b", {{}}), {{"UB": np.zeros(64, dtype=np.uint8)}})
    """)
    holder = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    program = None
    try:
        first = holder.stdout.readline().split()
        program = int(first[-1])
        time.sleep(0.5)                                         # the request is out; the reply awaited
        assert _ours(holder.pid) == []                          # nothing there even while it runs
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=10)
        assert _ours(holder.pid) == []
    finally:
        if holder.poll() is None:
            holder.kill()
        if program is not None:                                 # the orphaned program (deaf: asleep)
            try:
                os.killpg(program, signal.SIGKILL)
            except ProcessLookupError:
                pass


def test_images_grow_in_place_and_the_program_follows(cases):
    struck, spared = cases
    backend = ExecBackend(f"{PY} -m conformance serve oracle", timeout=5)
    try:
        assert judge(spared[0].call, spared[0].memory, backend, default_rulebook()).verdict is Verdict.PASS
        path, size = backend.shm.path, backend.shm.size
        backend.shm.ensure(size + 1)
        assert (backend.shm.path, backend.shm.size > size) == (path, True)
        assert judge(struck[0].call, struck[0].memory, backend, default_rulebook()).verdict is Verdict.PASS
    finally:
        backend.close()


def test_without_proc_the_file_is_under_dev_shm_and_removed_on_close(cases, monkeypatch):
    _, spared = cases
    monkeypatch.setattr(shared_images, "_memory_file", lambda: None)
    backend = ExecBackend(f"{PY} -m conformance serve oracle", timeout=5)
    try:
        assert judge(spared[0].call, spared[0].memory, backend, default_rulebook()).verdict is Verdict.PASS
        path = backend.shm.path
        assert os.path.basename(path).startswith(f"ascend-conformance-{os.getpid()}-") and os.path.exists(path)
    finally:
        backend.close()
    assert not os.path.exists(path)


class _KeepsAWeakref(OracleBackend):
    """Refuses every call; remembers its images by weak reference only."""

    def run(self, call, memory):
        import weakref
        self.images += [weakref.ref(image) for image in memory.values()]
        raise Rejected("no")

    def run_batch(self, calls, memories):
        out = []
        for call, memory in zip(calls, memories):
            try:
                self.run(call, memory)
            except Rejected as exc:
                out.append(exc)
        return out


def test_what_a_backend_raised_does_not_keep_the_images_alive(cases):
    """A traceback reaches the frames that hold the images: without care the arrays (views of the shared
    file, out of process) live until the GC runs, and the file cannot be re-mapped meanwhile."""
    import gc
    _, spared = cases
    backend = _KeepsAWeakref()
    backend.images = []
    gc.disable()
    try:
        assert judge(spared[0].call, spared[0].memory, backend, default_rulebook()).verdict is Verdict.FALSE_REJECT
        (outcome,) = judge_batch([(spared[0].call, spared[0].memory)], backend, default_rulebook())
        assert outcome.verdict is Verdict.FALSE_REJECT and len(backend.images) == 2
        assert all(ref() is None for ref in backend.images)
    finally:
        gc.enable()
    from conformance.backends.shared_images import SharedImages
    shm, requests = SharedImages(), []
    try:
        nburst = select_cells(["data_move/ascend910b/reject/data_move.nburst.range"])[0]
        for case in nburst.draw(10, 5, default_rulebook()):
            (places,) = shm.layout([case.memory.sizes])
            requests.append(json.dumps({"op": "run", "id": len(requests), "call": case.call.to_dict(),
                                        "memory": shm.describe(places)}))
        assert len({json.loads(r)["memory"]["size"] for r in requests}) > 1      # the file grew on the way
        replies = io.StringIO()
        gc.disable()
        try:                                        # serve re-maps as the file grows: no view may be left
            assert serve(OracleBackend(), io.StringIO("\n".join(requests) + "\n"), replies, default_rulebook()) == 0
        finally:
            gc.enable()
    finally:
        shm.close()
    assert [json.loads(line)["op"] for line in replies.getvalue().splitlines()] == ["rejected"] * len(requests)


def test_a_write_into_a_scope_the_call_does_not_write_is_caught(cases):
    """A scope the call only reads (its source) is compared with the pool window its image was copied
    from (MemoryRecipe.pristine), not with a copy: a backend that moves the data right and then changes
    one byte there, at the last byte or the first, fails, and that scope is named."""
    struck, spared = cases
    call = next(c for c in struck + spared if c.call.tensor("src").scope != c.call.tensor("dst").scope)
    source = call.call.tensor("src").scope
    assert call.memory.pristine(source) is not None

    for at in (0, -1):
        class Reader(OracleBackend):
            def run(self, c, memory):
                super().run(c, memory)
                memory[source][at] ^= 0xFF

        outcome = judge(call.call, call.memory, Reader(), default_rulebook())
        assert outcome.verdict is Verdict.FAIL and source in outcome.message, outcome.message
    assert judge(call.call, call.memory, OracleBackend(), default_rulebook()).verdict is Verdict.PASS


def test_the_time_limit_handler_passes_other_alarms_on_and_is_put_back_on_close():
    """TimeLimited installs its SIGALRM handler at the first limited call and keeps it: an alarm that
    comes outside a call goes to the handler it replaced; two limited backends in one process each keep
    their limit; close() puts the replaced handler back."""
    heard = []
    before = signal.signal(signal.SIGALRM, lambda signum, frame: heard.append(signum))
    try:
        class Slow(OracleBackend):
            def supports(self, api, product):
                time.sleep(5)

        first, second = TimeLimited(OracleBackend(), 5), TimeLimited(Slow(), 0.2)
        assert first.supports("data_move", "ascend910b")
        signal.raise_signal(signal.SIGALRM)                  # outside a call: the handler it replaced
        assert heard == [signal.SIGALRM]
        with pytest.raises(BackendCrash, match="no answer within 0.2 s"):
            second.supports("data_move", "ascend910b")      # installed over the first's: its own limit
        assert first.supports("data_move", "ascend910b")
        signal.raise_signal(signal.SIGALRM)                  # passed along both to the first handler
        assert heard == [signal.SIGALRM] * 2
        second.close()
        first.close()
        signal.raise_signal(signal.SIGALRM)
        assert heard == [signal.SIGALRM] * 3                 # the replaced handler back in place
    finally:
        signal.signal(signal.SIGALRM, before)
