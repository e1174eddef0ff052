"""The backend's programs started by the command before its imports (conformance/commands/launch.py,
conformance/backends/prestart.py), run as a user runs the kit: the worker takes the one started for it,
whose death is still a CRASH saying how it ended, with a fresh program of the worker's own after it;
nothing it or its backend started outlives the run; a run refused, or one whose worker starts its own
program, leaves none of them behind; and the command line is read the way the command reads it."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from oracle.spec import DEFAULT_SPEC_DIR

from conformance.commands import launch

from command import kit_command, kit_env

NOTING = textwrap.dedent('''
    import os, signal, sys, time
    from conformance import OracleBackend
    with open(os.environ["NOTED"], "a") as noted:         # each program's pid and its parent's, as it loads
        noted.write(f"{os.getpid()} {os.getppid()}\\n")

    class KillsItsHost(OracleBackend):
        name = "kills-its-host"
        def run(self, call, memory):
            if call.args.get("nburst", 0) > 1 and not os.path.exists(os.environ["NOTED"] + ".done"):
                open(os.environ["NOTED"] + ".done", "w").close()
                os.kill(os.getppid(), signal.SIGKILL)
                time.sleep(60)
            super().run(call, memory)

    class LeavesASleeper(OracleBackend):
        """Leaves a process of a session of its own behind, out of its program's process group."""
        name = "leaves-a-sleeper"
        def __init__(self):
            super().__init__()
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    with open(os.environ["NOTED"] + ".sleeper", "w") as f:
                        f.write(str(os.getpid()))
                    time.sleep(120)
                os._exit(0)
''')
CELL = "data_move/ascend910b/legal/float16"


@pytest.fixture
def noting(tmp_path):
    (tmp_path / "noting.py").write_text(NOTING)
    noted = tmp_path / "noted"

    def run(backend: str, *more: str) -> tuple[subprocess.Popen, str, str]:
        env = {**kit_env(tmp_path), "NOTED": str(noted)}
        proc = subprocess.Popen(kit_command("run", "--backend", backend, "--product", "ascend910b", "--api", "data_move",
                                            "--select", CELL, "--profile", "quick", "--seed", "3",
                                            "--report", str(tmp_path / "r"), *more),
                                cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out, err = proc.communicate(timeout=300)
        return proc, out, err
    run.noted = noted
    return run


def _programs(noted: Path) -> list[tuple[int, int]]:
    return [tuple(map(int, line.split())) for line in noted.read_text().splitlines()] if noted.exists() else []


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


def _running_with(word: str) -> list[int]:
    """The processes whose command line holds `word`."""
    found = []
    for name in os.listdir("/proc"):
        try:
            if name.isdigit() and word.encode() in Path(f"/proc/{name}/cmdline").read_bytes() and _alive(int(name)):
                found.append(int(name))
        except OSError:
            pass
    return found


def test_the_worker_takes_the_program_started_for_it_and_its_death_is_a_crash_saying_how(noting):
    proc, out, err = noting("noting:KillsItsHost", "-n", "2")
    assert proc.returncode == 1, err
    results = json.loads((noting.noted.parent / "r" / "results.json").read_text())
    (cell,) = results["cells"]
    assert cell["failure"]["verdict"] == "CRASH"
    # the call in flight (how its program ended), or the one sent behind it
    assert cell["failure"]["message"] in ("the backend program killed by SIGKILL",
                                          "the program was restarted before it answered (an earlier call crashed it)")
    programs = _programs(noting.noted)
    # two started by the command itself, one for each worker; the one killed followed by one of its worker's
    assert [parent for _, parent in programs[:2]] == [proc.pid, proc.pid]
    assert len(programs) == 3 and programs[2][1] != proc.pid
    assert cell["counts"].get("PASS", 0) > 0                # the calls after it ran on the worker's own program
    assert not [pid for pid, _ in programs if _alive(pid)]


def test_what_a_program_started_ahead_leaves_behind_goes_with_the_run(noting):
    proc, out, err = noting("noting:LeavesASleeper")
    assert proc.returncode == 0, err
    sleeper = int(Path(str(noting.noted) + ".sleeper").read_text())
    deadline = time.monotonic() + 5
    while _alive(sleeper) and time.monotonic() < deadline:
        time.sleep(0.05)
    if _alive(sleeper):
        os.kill(sleeper, signal.SIGKILL)
        pytest.fail("a process the backend left behind outlived the run")


@pytest.mark.parametrize("refusal", [("--product", "nosuch"), ("--api", "nosuch")])
def test_a_refused_run_leaves_no_program_behind(noting, refusal):
    name = f"noting_{os.getpid()}_{refusal[0].strip('-')}"
    (noting.noted.parent / f"{name}.py").write_text(NOTING + "\ntime.sleep(30)\n")     # a load that hangs
    proc, out, err = noting(f"{name}:KillsItsHost", "-n", "2", *refusal)
    assert proc.returncode == 2 and err.count("\n") == 1, err
    time.sleep(0.2)
    assert not _running_with(name)


HANDING = textwrap.dedent('''
    import os, sys, time
    from conformance.backends import prestart
    prestart.start([sys.executable, "-c", "import time; time.sleep(60)"], None, 2)
    pids = [s.proc.pid for s in prestart._waiting]
    print(*pids, flush=True)
    given = prestart.hand_over()
    worker = os.fork()
    if worker == 0:                     # the worker: not the program it would start, so it ends it
        prestart.forked()
        taken = prestart.take([sys.executable, "-c", "pass"], None, None)
        os._exit(0 if taken is None and prestart.handed is None else 1)
    prestart.handed_off(given)
    status = os.waitpid(worker, 0)[1]
    time.sleep(0.2)
    gone = open(f"/proc/{pids[0]}/stat").read().rsplit(")", 1)[1].split()[0] == "Z"     # killed, not reaped yet
    prestart.end_all()                  # the other, never handed, ended with the first, both reaped
    print(os.waitstatus_to_exitcode(status), gone, flush=True)
''')


def test_a_program_handed_to_a_worker_that_does_not_take_it_is_ended_and_reaped():
    done = subprocess.run([sys.executable, "-c", HANDING], env=kit_env(), capture_output=True, text=True,
                          timeout=60)
    pids, said = done.stdout.splitlines()
    assert said == "0 True", done.stderr
    assert not [pid for pid in map(int, pids.split()) if os.path.exists(f"/proc/{pid}")]


ADOPTING = textwrap.dedent('''
    import os, signal, sys, time
    from conformance.backends.contract import BackendCrash
    from conformance.backends.exec_process import ProgramProcess
    from conformance.backends.processes import launch
    ends = {"segv": "os.kill(os.getpid(), signal.SIGSEGV)", "exit": "os._exit(3)"}[sys.argv[1]]
    argv = [sys.executable, "-c", f"import os, signal, sys; sys.stdin.readline(); {ends}"]
    proc, stderr = launch(argv, None, None, ())
    worker = os.fork()
    if worker == 0:                     # not the program's parent: it takes it on
        program = ProgramProcess(argv, None, None)
        program.adopt(proc, stderr)
        assert program.running()
        program.send("go\\n", time.monotonic() + 10, 10)
        try:
            program.receive(time.monotonic() + 10, 10, "go")
        except BackendCrash as crash:
            print(crash, flush=True)
        print(program.running(), flush=True)
        os._exit(0)
    os.waitpid(worker, 0)
    proc.wait()
''')


@pytest.mark.parametrize("ends, says", [("segv", "the backend program killed by SIGSEGV"),
                                        ("exit", "the backend program exited with status 3")])
def test_a_program_taken_on_from_the_parent_is_seen_to_end_and_how(ends, says):
    done = subprocess.run([sys.executable, "-c", ADOPTING, ends], env=kit_env(), capture_output=True, text=True,
                          timeout=60)
    assert done.stdout.splitlines() == [says, "False"], done.stderr


def test_the_specs_folder_is_found_as_the_oracle_finds_it():
    assert launch._specs_folder() == str(DEFAULT_SPEC_DIR)


@pytest.mark.parametrize("argv, planned", [
    (["run", "--backend", "oracle", "--product", "p"], ("oracle", 1)),
    (["fuzz", "--backend=m:B", "-n", "3"], ("m:B", 3)),
    (["certify", "--backend", " exec:./sim -x ", "-n4"], ("exec:./sim -x", 4)),
    (["run", "--backend", "oracle", "-n", "auto"], ("oracle", os.cpu_count() or 1)),
    (["run", "--backend", "m:B", "--edition", "2026"], ("m:B", 1)),
    (["run", "--backend", "oracle", "--edition", "2026"], None),          # the reference started as oracle@2026
    (["run", "--backend", "oracle", "--in-process"], None),
    (["run", "--backend", "oracle", "--backend-user", "nobody"], None),
    (["run", "--backend", "oracle", "--coverage"], None),
    (["run", "--backend", "oracle", "--list"], None),
    (["run", "--backend", "oracle", "-n", "x"], None),
    (["run", "--product", "p"], None),
    (["replay", "f.json", "--backend", "oracle"], None),
    ([], None),
])
def test_the_command_line_is_read_for_the_run_it_asks_for(argv, planned, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert launch._planned(argv) == planned


def test_a_folder_with_settings_starts_nothing_ahead(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    argv = ["run", "--backend", "oracle"]
    (tmp_path / "pyproject.toml").write_text("[tool.other]\n")
    assert launch._planned(argv) == ("oracle", 1)
    (tmp_path / "pyproject.toml").write_text("[tool.ascend-conformance]\nworkers = 2\n")
    assert launch._planned(argv) is None
