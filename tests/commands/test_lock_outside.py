"""The lock of a report folder lives outside it (conformance/commands/lock.py): in a directory private to
the user, named by the folder's real path. A second run on the folder is refused naming the first, a run
killed with SIGKILL leaves nothing that blocks the next, the folder after a run holds no lock file, and a
certification bundle neither holds nor checksums one (not even one an earlier kit left there)."""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import signal
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import command
from conformance.commands.cli import main
from conformance.commands.lock import LEGACY_LOCK_NAME, FolderBusy, FolderLock, lock_directory, lock_path

QUICK = ["--profile", "quick", "--seed", "1"]
ONE_CELL = ["--backend", "oracle", "--product", "ascend910b", "--select", "data_move/*/legal/int8", *QUICK]


@pytest.fixture(autouse=True)
def runtime(tmp_path, monkeypatch) -> Path:
    """A runtime directory of the test's own (the subprocesses inherit it through the environment)."""
    folder = tmp_path / "xdg"
    folder.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(folder))
    return folder


def test_the_lock_is_a_private_file_outside_the_folder(tmp_path, runtime):
    folder = tmp_path / "reports"
    with FolderLock(folder):
        path = lock_path(folder)
        assert path.parent == runtime / "ascend-conformance"
        assert path.name == hashlib.sha256(os.path.realpath(folder).encode()).hexdigest() + ".lock"
        assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
        holder = json.loads(path.read_text())
        assert holder["pid"] == os.getpid() and holder["folder"] == os.path.realpath(folder)
        assert list(folder.iterdir()) == []             # nothing of the lock in the folder
    assert not path.exists()                            # removed as the run leaves


def test_two_spellings_of_one_folder_share_one_lock(tmp_path):
    folder = tmp_path / "reports"
    folder.mkdir()
    (tmp_path / "link").symlink_to(folder)
    with FolderLock(folder):
        with pytest.raises(FolderBusy, match=rf"in use by another run \(pid {os.getpid()} "):
            FolderLock(tmp_path / "link").acquire()
        with pytest.raises(FolderBusy):
            FolderLock(tmp_path / "reports" / ".." / "reports").acquire()
    FolderLock(tmp_path / "link").acquire().release()   # free again


def test_a_second_run_is_refused_naming_the_holder(tmp_path):
    with FolderLock(tmp_path / "r"):
        done = command.cli("run", *ONE_CELL, "--report", "r", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    (line,) = done.stderr.splitlines()
    assert f"error: r: in use by another run (pid {os.getpid()} on " in line
    assert not (tmp_path / "r" / "results.json").exists()


def test_a_run_leaves_no_lock_in_its_folder_nor_behind_it(tmp_path, capsys, runtime):
    assert main(["run", *ONE_CELL, "--report", str(tmp_path / "r")]) == 0, capsys.readouterr()
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == ["evidence.jsonl.gz", "junit.xml",
                                                                  "report-ascend910b.html", "results.json"]
    assert list((runtime / "ascend-conformance").iterdir()) == []


def test_kill_9_leaves_no_stale_lock(tmp_path):
    """A run killed with SIGKILL in the middle of its cells: the kernel dropped its lock, so the next run on
    the folder starts at once."""
    run = subprocess.Popen(command.kit_command("run", "--backend", "oracle", "--product", "ascend910b", "-n", "1",
                                               *QUICK, "--report", "r", "-v"),
                           cwd=tmp_path, env=command.kit_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, start_new_session=True)
    try:
        for line in run.stdout:                         # the run's first cell line: it holds the lock
            if "calls," in line:
                break
        assert run.poll() is None, run.stderr.read()
        held = json.loads(lock_path(tmp_path / "r").read_text())
        assert held["pid"] == run.pid
        os.kill(run.pid, signal.SIGKILL)
        run.wait(timeout=30)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
        run.stdout.close()
        run.stderr.close()
    again = command.cli("run", *ONE_CELL, "--report", "r", cwd=tmp_path)
    assert again.returncode == 0, again.stdout + again.stderr
    assert not (tmp_path / "r" / LEGACY_LOCK_NAME).exists()


def test_a_bundle_neither_holds_nor_checksums_a_lock(tmp_path):
    """Even one an earlier kit left in the folder: it goes, and SHA256SUMS does not name it."""
    bundle = tmp_path / "b"
    bundle.mkdir()
    (bundle / LEGACY_LOCK_NAME).write_text('{"pid": 1, "host": "old", "since": "-", "command": "certify"}')
    done = command.cli("certify", "--backend", "oracle", "--product", "ascend310b", "--api", "data_move",
                       "--profile", "quick", "--bundle", "b", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    sums = (bundle / "SHA256SUMS").read_text()
    assert "results.json" in sums and ".lock" not in sums
    assert not any(p.name.endswith(".lock") for p in bundle.rglob("*"))


def test_the_bundle_writer_skips_a_lock_left_in_the_folder(tmp_path):
    from conformance.report.bundle import write_bundle
    from oracle.spec import default_rulebook
    from tests.reports.test_verdict_scope import doc
    results = doc([("data_move/ascend910b/legal/int8", {"counts": {"PASS": 25}})], seed=0, profile="quick")
    results["certify"] = {"frozen_hash": "f" * 16, "frozen_cases": 0}
    bundle = tmp_path / "b"          # a folder of its own (the lock's directory is beside it)
    bundle.mkdir()
    (bundle / LEGACY_LOCK_NAME).write_text("{}")
    (bundle / "results.json").write_text(json.dumps(results))
    sums = write_bundle(bundle, results, waivers_file=None, argv=["certify"], rulebook=default_rulebook()).read_text()
    assert "README.md" in sums and LEGACY_LOCK_NAME not in sums
    assert not (bundle / LEGACY_LOCK_NAME).exists()


def test_an_earlier_kits_lock_in_the_folder(tmp_path):
    """Unheld, it is removed when a run takes the folder; held by a run of an earlier kit, the folder is
    in use."""
    folder = tmp_path / "r"
    folder.mkdir()
    legacy = folder / LEGACY_LOCK_NAME
    legacy.write_text(json.dumps({"pid": 4242, "host": "old-host", "since": "2020", "command": "run"}))
    fd = os.open(legacy, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(FolderBusy, match="earlier kit .pid 4242 on 'old-host'"):
            FolderLock(folder).acquire()
        assert not lock_path(folder).exists()           # given back: the new lock is not kept
    finally:
        os.close(fd)
    with FolderLock(folder):
        assert not legacy.exists()


@pytest.mark.parametrize("make", ["shared", "link", "file"])
def test_a_lock_directory_others_could_reach_is_refused(tmp_path, monkeypatch, capsys, make):
    """Without XDG_RUNTIME_DIR the locks go to <temp dir>/ascend-conformance-<uid>: one made there ahead of
    time by anyone else (a mode others can write, a link, not a directory) is refused in one line."""
    monkeypatch.delenv("XDG_RUNTIME_DIR")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    place = tmp_path / f"ascend-conformance-{os.getuid()}"
    if make == "shared":
        place.mkdir()
        place.chmod(0o777)
    elif make == "link":
        (tmp_path / "elsewhere").mkdir(mode=0o700)
        place.symlink_to(tmp_path / "elsewhere")
    else:
        place.write_text("")
    with pytest.raises(FolderBusy, match=f"{place}: not a directory private to this user"):
        lock_directory()
    assert main(["run", *ONE_CELL, "--report", str(tmp_path / "r")]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert "not a directory private to this user" in line and str(place) in line


def test_without_a_runtime_directory_the_temp_one_is_made_private(tmp_path, monkeypatch):
    monkeypatch.delenv("XDG_RUNTIME_DIR")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with FolderLock(tmp_path / "r"):
        place = tmp_path / f"ascend-conformance-{os.getuid()}"
        assert stat.S_IMODE(os.lstat(place).st_mode) == 0o700 and len(list(place.iterdir())) == 1


def test_a_lock_given_up_by_a_leaving_run_is_not_shared(tmp_path, monkeypatch):
    """The holder removes the file while it still holds it. A run that opened the file just before
    that, and gets its lock just after, holds a file no one else will open: it must see the name gone
    and lock the file there now, or two runs would write the folder at once."""
    import conformance.commands.lock as lock
    folder = tmp_path / "r"
    first = FolderLock(folder).acquire()
    path = lock_path(folder)
    stale = os.open(path, os.O_RDWR)                    # opened before the first run leaves
    first.release()
    real_open, handed = os.open, []

    def opening(name, flags, mode=0o777):
        if Path(name) == path and not handed:           # the second run's first open: the old file
            handed.append(name)
            return os.dup(stale)
        return real_open(name, flags, mode)

    monkeypatch.setattr(lock.os, "open", opening)
    try:
        second = FolderLock(folder).acquire()
        monkeypatch.setattr(lock.os, "open", real_open)
        assert handed and path.exists() and os.stat(path).st_ino != os.fstat(stale).st_ino
        with pytest.raises(FolderBusy):
            FolderLock(folder).acquire()
        second.release()
    finally:
        os.close(stale)
