"""One report folder, one run: a run holds an advisory lock on its folder for as long as it writes there.

The lock is `fcntl.flock` on a file, so the kernel drops it when the process ends, however it ends
(`kill -9` included): a crashed run never leaves it stuck. The file says who holds it, for the message
a second run gets.

The file is not in the folder: a report folder holds the report and nothing else (a certification
bundle checksums every file in it, and the lock's pid, host and command line are no part of a
report). It lives in a directory of this user's own, `$XDG_RUNTIME_DIR/ascend-conformance` or
`<temp dir>/ascend-conformance-<uid>`, named by the sha256 of the folder's real path, so that two
spellings of one folder (a symlink, `./r` and `r`) share one lock. A directory there that another user
could write to (made ahead of time in a shared /tmp) is refused, never used.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import socket
import stat
import sys
import tempfile
from pathlib import Path

# Where kits before this one kept the lock: inside the report folder. Removed when found there unheld.
LEGACY_LOCK_NAME = ".ascend-conformance.lock"


class FolderBusy(Exception):
    """The folder is in use by another run, or its lock has nowhere safe to live; the message names the
    folder (or the directory) and why."""


def _private(path: Path) -> bool:
    """A directory (not a link to one) of this user's that no one else may read, write or enter."""
    info = os.lstat(path)
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o077


def lock_directory() -> Path:
    """This user's directory for the locks: made (0700) if missing, FolderBusy if it exists but is not
    private to this user (someone could remove a lock there, or read who runs what)."""
    runtime = os.environ.get("XDG_RUNTIME_DIR") or ""
    base = Path(runtime) if runtime and os.path.isabs(runtime) and os.path.isdir(runtime) \
        and os.access(runtime, os.W_OK | os.X_OK) else None
    folder = base / "ascend-conformance" if base is not None \
        else Path(tempfile.gettempdir()) / f"ascend-conformance-{os.getuid()}"
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    except OSError as exc:
        raise FolderBusy(f"{folder}: cannot make the directory for the report folders' locks "
                         f"({exc.strerror or exc})") from None
    try:
        safe = _private(folder)
    except OSError:
        safe = False
    if not safe:
        raise FolderBusy(f"{folder}: not a directory private to this user (uid {os.getuid()}, mode 0700): "
                         "refusing to keep report folder locks there; remove it, or set XDG_RUNTIME_DIR")
    return folder


def lock_path(folder: Path | str) -> Path:
    """The lock file of a report folder (which must exist: its real path names the lock)."""
    real = os.path.realpath(folder)
    return lock_directory() / (hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest() + ".lock")


class FolderLock:
    def __init__(self, folder: Path | str):
        self.folder = Path(folder)
        self._fd: int | None = None
        self._path: Path | None = None

    def acquire(self) -> "FolderLock":
        self.folder.mkdir(parents=True, exist_ok=True)
        path = lock_path(self.folder)
        fd = _locked(path, self.folder)
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                                 "since": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                                 "command": " ".join(sys.argv[1:])[:500],
                                 "folder": os.path.realpath(self.folder)}).encode())
        self._fd, self._path = fd, path
        try:
            _drop_legacy(self.folder)
        except FolderBusy:
            self.release()
            raise
        return self

    def release(self) -> None:
        """The file is removed while still locked, so that no run can lock the removed file: one that
        opened it before gets the lock afterwards, sees the name gone or taken, and starts over."""
        if self._fd is not None:
            try:
                os.unlink(self._path)
            except OSError:
                pass
            os.close(self._fd)          # closing drops the lock
            self._fd = self._path = None

    def __enter__(self) -> "FolderLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


def _locked(path: Path, folder: Path) -> int:
    """An open descriptor of `path` holding its lock; FolderBusy naming the run that holds it."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        _hold(fd, folder, "another run")
        try:
            same = os.stat(path, follow_symlinks=False).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            return fd
        os.close(fd)                    # the holder removed it as it left: lock the file there now


def _drop_legacy(folder: Path) -> None:
    """A lock file an earlier kit left in the folder goes, unless an earlier kit's run holds it now."""
    path = folder / LEGACY_LOCK_NAME
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        if os.path.islink(path):
            os.unlink(path)
        return
    _hold(fd, folder, "a run of an earlier kit")
    try:
        os.unlink(path)
    finally:
        os.close(fd)


def _hold(fd: int, folder: Path, whose: str) -> None:
    """Take the lock `fd` is open on, or close it and raise FolderBusy naming the run that holds it."""
    import fcntl
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _holder(fd)
        os.close(fd)
        raise FolderBusy(f"{folder}: in use by {whose} ({holder}); wait for it to end, "
                         "or give this run another folder") from None


def _holder(fd: int) -> str:
    try:
        data = json.loads(os.pread(fd, 4096, 0) or b"{}")
        return (f"pid {int(data['pid'])} on {str(data['host'])[:100]!r} since {str(data['since'])[:40]}, "
                f"`ascend-conformance {str(data['command'])[:200]}`")
    except (OSError, ValueError, KeyError, TypeError):
        return "a run that has not said who it is yet"
