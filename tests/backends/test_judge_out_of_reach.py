"""The judge out of the backend's reach, run as a user runs the kit: backends that compute nothing and try
to be judged conforming all the same (tests/cheating_backends.py) get the verdict of what they computed.
Each attack is also run `--in-process`, where it is shown to work (the report says that run was a
debugging one): the honest verdict is earned by the isolation, not by a backend that could not cheat."""
from __future__ import annotations

import hashlib
import json
import os
import pickle
import pwd
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from conformance.backends import processes
from conformance.supervise import messages

ROOT = Path(__file__).resolve().parents[2]
QUICK = ["--product", "ascend910b", "--api", "data_move", "--select", "data_move/ascend910b/legal/*",
         "--profile", "quick", "--seed", "3"]


def cli(*args: str, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "conformance", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})})


def results(folder: Path) -> dict:
    return json.loads((folder / "results.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", ["FrameWalker", "HeapScanner", "Patcher"])
def test_a_backend_that_reaches_for_the_judge_is_judged_on_what_it_computed(tmp_path, name):
    backend = f"tests.cheating_backends:{name}"
    isolated = cli("run", "--backend", backend, *QUICK, "--report", str(tmp_path / "isolated"))
    assert isolated.returncode == 1, isolated.stdout + isolated.stderr
    data = results(tmp_path / "isolated")
    assert data["verdict"] == "NOT CONFORMANT" and data["totals"].get("FAIL", 0) > 0
    assert data["isolation"]["mode"] == "process"
    # the same backend in the judge's own process finds what it looks for: the attack is real
    shared = cli("run", "--backend", backend, *QUICK, "--report", str(tmp_path / "shared"), "--in-process")
    mixed = results(tmp_path / "shared")
    assert mixed["isolation"]["mode"] == "in-process"
    assert "FAIL" not in mixed["totals"], shared.stdout
    assert "--in-process" in (tmp_path / "shared" / "report-ascend910b.html").read_text(encoding="utf-8")


def test_a_hook_of_the_backend_never_judges_its_calls(tmp_path):
    """`judge_case` and `process_groups` on the backend object are not asked, in process or out."""
    for mode in ([], ["--in-process"]):
        done = cli("run", "--backend", "tests.cheating_backends:JudgesItself", *QUICK,
                   "--report", str(tmp_path / f"r{len(mode)}"), *mode)
        assert done.returncode == 1, done.stdout + done.stderr
        assert results(tmp_path / f"r{len(mode)}")["totals"].get("FAIL", 0) > 0


def test_certify_refuses_in_process(tmp_path):
    done = cli("certify", "--backend", "oracle", "--product", "ascend910b", "--api", "data_move", "--in-process",
               "--bundle", str(tmp_path / "b"))
    assert done.returncode == 2 and "--in-process" in done.stderr and len(done.stderr.splitlines()) == 1
    assert not (tmp_path / "b" / "results.json").exists()


def test_a_daemon_the_backend_leaves_cannot_rewrite_the_bundle(tmp_path):
    """The backend double-forks at load a daemon that rewrites the bundle once written: every process
    below the kit's workers is ended before the final write, so the bundle stays as the kit wrote it."""
    bundle, pid_file = tmp_path / "bundle", tmp_path / "forger.pid"
    done = cli("certify", "--backend", "tests.cheating_backends:Forger", "--product", "ascend910b", "--api",
               "data_move", "--profile", "quick", "--bundle", str(bundle),
               env={"CHEAT_FORGE_FOLDER": str(bundle), "CHEAT_FORGER_PID": str(pid_file)})
    assert done.returncode == 1, done.stdout + done.stderr
    deadline = time.monotonic() + 10
    while not pid_file.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    forger = int(pid_file.read_text())          # it did start
    time.sleep(1.5)                             # what it would have needed to forge the bundle
    assert not Path(f"/proc/{forger}").exists() or _zombie(forger)
    assert "FORGED" not in (bundle / "README.md").read_text(encoding="utf-8")
    assert results(bundle)["verdict"] == "NOT CONFORMANT"
    for line in (bundle / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split(maxsplit=1)
        assert hashlib.sha256((bundle / name.strip()).read_bytes()).hexdigest() == digest


def test_what_a_backend_leaves_at_load_is_ended_by_the_probe_of_its_imports(tmp_path, monkeypatch):
    """certify reads what the backend is made of by loading it in a probe process of its own. A daemon the
    backend double-forks at load, keeping the probe's output open, neither holds the probe (it answers, well
    within its time limit) nor outlives it."""
    from conformance.backends import imports
    from oracle.spec import default_rulebook
    pid_file = tmp_path / "lingerer.pid"
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("CHEAT_LINGERER_PID", str(pid_file))
    monkeypatch.setattr(imports, "PROBE_SECONDS", 30.0)    # the daemon sleeps for 300 s
    daemon = None
    try:
        answer = imports.probe("tests.cheating_backends:Lingerer", default_rulebook())
        assert answer.get("reference_derived") is True, answer
        assert any(entry["module"] == "tests.cheating_backends" for entry in answer["imports"]), answer
        if pid_file.exists():                       # (a daemon ended before it wrote its pid wrote none)
            daemon = int(pid_file.read_text())
            assert not Path(f"/proc/{daemon}").exists() or _zombie(daemon)
    finally:
        if daemon is not None:
            try:
                os.kill(daemon, 9)
            except ProcessLookupError:
                pass


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


PEEKER = textwrap.dedent('''\
    #!/bin/sh
    # an exec program that looks at the process that started it (the kit's worker), then computes nothing
    log="$1"
    if cat /proc/$PPID/mem >/dev/null 2>&1; then echo "mem READ" >> "$log"; else echo "mem DENIED" >> "$log"; fi
    if ls /proc/$PPID/fd >/dev/null 2>&1; then echo "fd READ" >> "$log"; else echo "fd DENIED" >> "$log"; fi
    while read -r line; do
      id=$(printf '%s' "$line" | sed -n 's/.*"id":\\([0-9]*\\).*/\\1/p')
      case "$line" in
        *'"op":"hello"'*) echo '{"op":"hello","protocol":1,"name":"peeker","supports":{"data_move":["*"]}}' ;;
        *'"op":"bye"'*) exit 0 ;;
        *) echo "{\\"op\\":\\"ok\\",\\"id\\":$id}" ;;
      esac
    done
''')


@pytest.fixture
def open_folder():
    """A folder another user may enter (tmp_path's parents are private to this user)."""
    folder = Path(tempfile.mkdtemp(prefix="ascend-conformance-test-", dir="/tmp"))
    folder.chmod(0o777)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _nobody() -> str | None:
    try:
        pwd.getpwnam("nobody")
        return "nobody"
    except KeyError:
        return None


def test_an_exec_program_cannot_read_the_judge(tmp_path, open_folder):
    """Its parent, the worker that judges it, is not dumpable (a program of the same user can neither read
    its memory nor list its descriptors); where the kit runs as root, --backend-user runs the program as
    an unprivileged user, whom the same holds for. The program is judged on what it did: nothing."""
    program, log = open_folder / "peeker.sh", open_folder / "peeker.log"
    program.write_text(PEEKER)
    program.chmod(0o755)
    log.touch()
    log.chmod(0o666)
    extra: list[str] = []
    if os.geteuid() == 0:
        user = _nobody()
        if user is None:
            pytest.skip("the kit runs as root here and there is no user 'nobody' to run the backend as")
        extra = ["--backend-user", user]
    done = cli("run", "--backend", f"exec:/bin/sh {program} {log}", *QUICK, "--report", str(tmp_path / "r"), *extra)
    assert done.returncode == 1, done.stdout + done.stderr
    said = set(log.read_text().split("\n")) - {""}
    assert said == {"mem DENIED", "fd DENIED"}, said
    data = results(tmp_path / "r")
    assert data["totals"].get("FAIL", 0) > 0
    if extra:
        assert data["isolation"] == {"mode": "process", "backend_user": "nobody", "judge_user": "root",
                                     "same_user": False}


@pytest.mark.parametrize("flags, said", [
    (["--backend-user", "no-such-user-here"], "no such user"),
    (["--backend-user", "root"], "uid 0"),
    (["--backend-user", "nobody", "--in-process"], "--in-process"),
])
def test_backend_user_errors_are_one_line(tmp_path, flags, said):
    if os.geteuid() != 0:
        said = "only a kit started as root"
    done = cli("run", "--backend", "oracle", *QUICK, "--report", str(tmp_path / "r"), *flags)
    assert done.returncode == 2 and said in done.stderr and len(done.stderr.splitlines()) == 1, done.stderr


class _Evil:
    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


def test_nothing_a_worker_sends_is_unpickled(tmp_path):
    """A pickle that would run code when loaded is, to the supervisor, an unreadable message; in the
    in-flight slot, no record."""
    marker = tmp_path / "ran"
    evil = pickle.dumps(("done", _Evil(marker)))
    with pytest.raises(messages.Unreadable):
        messages.decode(evil)
    from conformance.judge.inflight import PAYLOAD_AT, Slot
    slot = Slot()
    slot.enter([{"call": {}}])
    slot._bytes[PAYLOAD_AT:PAYLOAD_AT + len(evil)] = list(evil)
    slot.header[3] = len(evil)          # LENGTH
    assert slot.in_flight().calls == []
    assert not marker.exists()


@pytest.mark.parametrize("raw", [b"", b"[1,2]", b'["done", {"id": 1}]', b'["ready", "x"]', b'["shell", {}]',
                                 b'["done", {"id": "a/b", "counts": {"PASS": "many"}}]', b"[" * 100_000])
def test_a_message_of_the_wrong_shape_is_unreadable(raw):
    with pytest.raises(messages.Unreadable):
        messages.decode(raw)


def test_what_a_worker_sends_round_trips():
    body = {"id": "data_move/ascend910b/legal/float16", "counts": {"PASS": 3}, "failure": None}
    assert messages.decode(messages.encode("done", body)) == ("done", body)


def test_the_supervisor_handles_every_type_a_worker_sends():
    """Each type messages.decode lets through has its handler in the supervisor's table, and no other."""
    from conformance.supervise.pool import Supervisor
    assert set(Supervisor._ON_MESSAGE) == set(messages.MESSAGE_TYPES)


def test_the_supervisor_and_its_workers_are_not_dumpable():
    """Checked in a child process (this one is left as it is)."""
    code = ("from conformance.supervise.pool import Supervisor\n"
            "from conformance.backends.processes import dumpable\n"
            "from oracle.spec import default_rulebook\n"
            "before = dumpable(); s = Supervisor('oracle', 1, specs=default_rulebook); s.start()\n"
            "import sys; sys.exit(0 if (before, dumpable()) == (True, False) else 1)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_end_descendants_ends_a_double_forked_process():
    code = textwrap.dedent('''
        import os, sys, time
        from conformance.backends import processes
        processes.reap_orphans()
        r, w = os.pipe()
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.write(w, str(os.getpid()).encode()); time.sleep(60); os._exit(0)
            os._exit(0)
        grandchild = int(os.read(r, 32))
        time.sleep(0.2)
        assert grandchild in processes.descendants(os.getpid())      # re-parented here
        assert processes.end_descendants() >= 1
        assert not os.path.exists(f"/proc/{grandchild}")
    ''')
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_processes_helpers_are_harmless_where_they_cannot_act(monkeypatch):
    monkeypatch.setattr(processes, "_libc", lambda: None)
    assert processes.out_of_reach() is False and processes.dumpable() is None and processes.reap_orphans() is False
