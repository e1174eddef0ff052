"""A hosted Python backend that dies on a call is answered from a forked copy of the loaded backend
(conformance/backends/respawn.py): the call is a CRASH saying how the process ended, the next call runs in a
fresh process at the cost of a fork, and the host itself (its pid) stays. What the host cannot answer for
(the host killed, a child that hangs) still ends the whole program, as for any exec program."""
from __future__ import annotations

import json
import os
import textwrap

import pytest

from oracle import Call, Tensor
from oracle.spec import default_rulebook

from conformance.backends.loading import load_backend
from conformance.backends.respawn import Relay, describe
from conformance.generate.cells import cells
from conformance.judge.verdicts import Verdict, judge

from kit_path import HELPERS

STRUCK = textwrap.dedent('''
    import os, signal, sys, time
    from conformance import OracleBackend
    def struck(call):
        return call.args.get("nburst", 0) > 1
    class Exits(OracleBackend):
        def run(self, call, memory):
            if struck(call):
                os._exit(3)
            super().run(call, memory)
    class Segfaults(OracleBackend):
        def run(self, call, memory):
            if struck(call):
                os.kill(os.getpid(), signal.SIGSEGV)
            super().run(call, memory)
    class KillsItsHost(OracleBackend):
        def run(self, call, memory):
            if struck(call):
                os.kill(os.getppid(), signal.SIGKILL)
                time.sleep(60)
            super().run(call, memory)
    class NotesChildImports(Exits):
        """Exits, noting in the file IMPORTS_NOTED names each module a process forked from its host imports."""
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            def note(event, args, host=os.getpid()):
                if event == "import" and os.getpid() != host:
                    with open(os.environ["IMPORTS_NOTED"], "a") as noted:
                        noted.write(f"{os.getpid()} {args[0]}\\n")
            sys.addaudithook(note)
    class ClosesItsOutputAndHangs(OracleBackend):
        def run(self, call, memory):
            if struck(call):
                os.close(1)
                time.sleep(60)
            super().run(call, memory)
''')


@pytest.fixture(scope="module")
def cases():
    """Legal data_move calls: (struck: more than one burst, spared: one burst)."""
    (cell,) = [c for c in cells(["ascend910b"], ["data_move"], rulebook=default_rulebook())
               if c.id == "data_move/ascend910b/legal/float16"]
    drawn = cell.draw(40, 7, default_rulebook())
    struck = [c for c in drawn if c.call.args["nburst"] > 1]
    spared = [c for c in drawn if c.call.args["nburst"] == 1]
    assert struck and spared
    return struck, spared


@pytest.fixture
def hosted(tmp_path, monkeypatch):
    (tmp_path / "struck.py").write_text(STRUCK)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(HELPERS), str(tmp_path)]))
    monkeypatch.chdir(tmp_path)
    made = []

    def load(name: str, timeout: float = 5.0):
        made.append(load_backend(f"struck:{name}", timeout, isolate=True, rulebook=default_rulebook()))
        return made[-1]
    yield load
    for backend in made:
        backend.close()


def verdict(case, backend):
    return judge(case.call, case.memory, backend, default_rulebook())


@pytest.mark.parametrize("name, says", [("Exits", "the backend program exited with status 3"),
                                        ("Segfaults", "the backend program killed by SIGSEGV")])
def test_a_death_is_a_crash_and_the_next_call_runs_in_a_respawned_process(hosted, cases, name, says):
    struck, spared = cases
    backend = hosted(name)
    host = backend.program.proc.pid
    for _ in range(3):
        crashed = verdict(struck[0], backend)
        assert crashed.verdict is Verdict.CRASH and crashed.message.startswith(says), crashed.message
        assert verdict(spared[0], backend).verdict is Verdict.PASS
    assert (backend.respawns, backend.restarts) == (3, 0)
    assert backend.program.proc.pid == host


def test_a_child_forked_after_a_death_imports_nothing(hosted, cases, tmp_path, monkeypatch):
    """What a child runs to serve a call (reading requests, the reference's run) is imported in the host
    before it forks: a child that imported it again would pay for that on every death."""
    struck, spared = cases
    noted = tmp_path / "imports"
    monkeypatch.setenv("IMPORTS_NOTED", str(noted))
    backend = hosted("NotesChildImports")
    assert verdict(spared[0], backend).verdict is Verdict.PASS
    noted.write_text("")                    # what the first child imported on its first call
    for case in (struck[0], spared[0], struck[1], spared[1]):
        verdict(case, backend)
    assert backend.respawns == 2
    assert noted.read_text() == ""


def test_a_host_killed_by_its_child_is_started_again(hosted, cases):
    struck, spared = cases
    backend = hosted("KillsItsHost")
    crashed = verdict(struck[0], backend)
    assert crashed.verdict is Verdict.CRASH and "killed by SIGKILL" in crashed.message, crashed.message
    assert verdict(spared[0], backend).verdict is Verdict.PASS
    assert backend.restarts == 1


def test_a_child_that_closes_its_output_and_hangs_costs_its_time_limit(hosted, cases):
    struck, spared = cases
    backend = hosted("ClosesItsOutputAndHangs", timeout=1.0)
    crashed = verdict(struck[0], backend)
    assert crashed.verdict is Verdict.CRASH and "within 1 s" in crashed.message, crashed.message
    assert verdict(spared[0], backend).verdict is Verdict.PASS
    assert backend.restarts == 1


def _relay() -> tuple[Relay, int]:
    read, write = os.pipe()
    return Relay(-1, write), read


def test_the_relay_answers_each_request_the_dead_child_held():
    relay, kit_reads = _relay()
    relay.from_kit(b'{"op":"run","id":1}\n{"op":"run","id":2}\n{"op":"ru')
    relay.from_child(b'{"op":"ok","id":1}\n')
    relay.from_kit(b'n","id":3}\n')
    relay.crashed(describe(3 << 8))
    os.close(relay.kit_out)
    said = os.read(kit_reads, 1 << 16).decode().splitlines()
    assert [json.loads(line) for line in said] == [
        {"op": "ok", "id": 1},
        {"op": "crashed", "id": 2, "message": "exited with status 3"},
        {"op": "crashed", "id": 3, "message": "exited with status 3"}]


def test_a_reply_cut_off_by_the_death_is_ended_before_the_crash_replies_and_bye_gets_none():
    relay, kit_reads = _relay()
    relay.from_kit(b'{"op":"run","id":7}\n{"op":"bye"}\n')
    relay.from_child(b'{"op":"ok","i')
    assert relay.said_bye()
    relay.crashed("killed by SIGSEGV")
    os.close(relay.kit_out)
    said = os.read(kit_reads, 1 << 16).decode().split("\n")
    assert said[0] == '{"op":"ok","i'               # passed on as it came: the kit reads a protocol error
    assert json.loads(said[1]) == {"op": "crashed", "id": 7, "message": "killed by SIGSEGV"}
    assert said[2:] == [""]


def test_how_a_process_ended_is_said_as_for_any_program():
    assert describe(3 << 8) == "exited with status 3"
    assert describe(11) == "killed by SIGSEGV"


def test_the_relay_keeps_the_kits_last_run_request_for_the_next_child():
    relay, _ = _relay()
    assert relay.last_run == b""
    relay.from_kit(b'{"op":"run","id":1,"call":{}}\n{"op":"run","id":2,"call":{"api":"x"}}\n{"op":"bye"}\n')
    assert relay.last_run == b'{"op":"run","id":2,"call":{"api":"x"}}'


def _memo_sizes(rulebook) -> dict:
    """The rulebook's memos (its caches kept by name), and how full each is."""
    return {k: len(v) for k, v in vars(rulebook).items() if k.startswith("_") and isinstance(v, dict)}


@pytest.mark.parametrize("readings", [{}, {"data_move.sid.reserved": "same_data"}])
def test_a_warmed_host_holds_what_a_check_of_the_last_call_fills(cases, readings):
    """What oracle_warmer fills in the host (before it forks the child that follows a dead one) is what
    the reference's check of the call fills, by the rulebook its run reads (its readings declared, where
    it has some): a check after it finds nothing left to fill."""
    from oracle import check
    from oracle.rules import with_readings
    from oracle.spec import load_rulebook

    from conformance import OracleBackend
    from conformance.backends.serve import oracle_warmer
    call = cases[0][0].call
    request = json.dumps({"op": "run", "id": 4, "call": call.to_dict()}).encode()
    book = load_rulebook()
    read_by = with_readings(book, readings or None)
    warm = oracle_warmer(OracleBackend(readings=readings, rulebook=book), book)
    empty = _memo_sizes(read_by)
    warm(request)
    warmed = _memo_sizes(read_by)
    assert warmed != empty
    check(call, rulebook=book, readings=readings or None)
    assert _memo_sizes(read_by) == warmed


def test_a_subclass_built_without_specs_is_warmed_by_the_oracles_own(monkeypatch):
    """A user's OracleBackend subclass built with no argument runs by the oracle's own rulebook: the host
    warms that one (loading it there once), not the rulebook the run's hello was answered by."""
    from oracle import check, rules
    from oracle.spec import load_rulebook

    from conformance import OracleBackend
    from conformance.backends.serve import oracle_warmer

    class Subclass(OracleBackend):
        pass
    own = load_rulebook()
    monkeypatch.setattr(rules, "default_rulebook", lambda: own)
    call = Call("data_move", "ascend910b", {"dst": Tensor("UB", 0, "int8", 64), "src": Tensor("UB", 64, "int8", 64),
                                            "sid": 0, "nburst": 2, "burst": 1, "src_stride": 0, "dst_stride": 0})
    request = json.dumps({"op": "run", "id": 1, "call": call.to_dict()}).encode()
    served_by = load_rulebook()
    cold = _memo_sizes(own)
    oracle_warmer(Subclass(), served_by)(request)
    warmed = _memo_sizes(own)
    assert warmed != cold
    assert _memo_sizes(served_by) == cold
    check(call, rulebook=own)
    assert _memo_sizes(own) == warmed
