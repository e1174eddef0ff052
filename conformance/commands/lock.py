"""One report folder, one run: a run holds an advisory lock on its folder for as long as it writes there.

The lock is `fcntl.flock` on a file in the folder, so the kernel drops it when the process ends, however
it ends (`kill -9` included): a crashed run never leaves it stuck. The file says who holds it, for the
message a second run gets.
"""
from __future__ import annotations

import datetime as dt
import json
import os
import socket
import sys
from pathlib import Path

LOCK_NAME = ".ascend-conformance.lock"


class FolderBusy(Exception):
    """The folder is in use by another run; the message names the folder and that run."""


class FolderLock:
    def __init__(self, folder: Path | str):
        self.folder = Path(folder)
        self._fd: int | None = None

    def acquire(self) -> "FolderLock":
        import fcntl
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / LOCK_NAME
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            raise FolderBusy(f"{self.folder}: in use by another run ({holder}); wait for it to end, "
                             "or give this run another folder") from None
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                                 "since": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                                 "command": " ".join(sys.argv[1:])[:500]}).encode())
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)          # closing drops the lock; the file stays (removing it would race)
            self._fd = None

    def __enter__(self) -> "FolderLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


def _holder(fd: int) -> str:
    try:
        data = json.loads(os.pread(fd, 4096, 0) or b"{}")
        return (f"pid {int(data['pid'])} on {str(data['host'])[:100]!r} since {str(data['since'])[:40]}, "
                f"`ascend-conformance {str(data['command'])[:200]}`")
    except (OSError, ValueError, KeyError, TypeError):
        return "a run that has not said who it is yet"
