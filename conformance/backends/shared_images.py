"""The memory images an exec program works on: one shared file both processes map (docs/exec-protocol.md),
with no name where the system can (a memfd reached as /proc/PID/fd/N), so that nothing outlives the kit."""
from __future__ import annotations

import json
import mmap
import os
import tempfile
import weakref
from typing import Any, Mapping, Sequence

import numpy as np

from conformance.backends.processes import memory_file as _memory_file

ALIGN = 64                      # scope images start at multiples of this in the shared file
DESCRIBED_KEPT = 256            # texts of `memory` objects kept (SharedImages.described)
POPULATED_MOST = 64 << 20       # the largest shared file whose pages are entered as it is mapped (see mapped)


def mapped(fd: int, size: int) -> mmap.mmap:
    """The shared file mapped for reading and writing, its pages entered at once where the system can
    (MAP_POPULATE): every call's images are written and read there, and a page met one fault at a time
    costs far more than the same page entered with the rest in one step (more still where the kernel is
    itself a program, as in a gVisor sandbox). A file larger than POPULATED_MOST (a batch's images, with
    room to grow) is left to fault in where it is touched, so as not to hold memory nothing uses."""
    populate = getattr(mmap, "MAP_POPULATE", 0) if size <= POPULATED_MOST else 0
    return mmap.mmap(fd, size, mmap.MAP_SHARED | populate, mmap.PROT_READ | mmap.PROT_WRITE)


def _shm_dir() -> str:
    return "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else tempfile.gettempdir()


class SharedImages:
    """The file both sides map; the images of one call (or of every call of a batch) are laid out in it.

    A memory file with no name where the system has them (`_memory_file`); elsewhere a file under
    /dev/shm (or the temporary folder), removed when this object goes or at interpreter exit (not after
    a SIGKILL: the reason for the first choice). It grows in place when a call needs more room; the
    program re-maps when told a new size."""

    def __init__(self) -> None:
        self.path: str | None = None
        self.size = 0
        self._fd: int | None = None
        self._map: mmap.mmap | None = None
        self._buffer: np.ndarray | None = None
        self._finalizer: weakref.finalize | None = None
        self._inherited: tuple[int, ...] = ()
        self._described: dict[tuple[Any, ...], str] = {}     # describe's text by file, size and places
        self._clear: dict[tuple[Any, ...], dict[str, tuple[int, int]]] = {}    # layout_clear_of's answers

    def inherited(self) -> tuple[int, ...]:
        """The descriptors a program must inherit to open `path` (the memory file's; none for a file with
        a name)."""
        return self._inherited

    def ensure(self, size: int) -> None:
        if size <= self.size:
            return
        if self._fd is None:
            self._open()
        self._unmap()
        size = max(size, 2 * self.size, 1 << 20)
        size = -(-size // mmap.PAGESIZE) * mmap.PAGESIZE
        os.ftruncate(self._fd, size)
        self._map = mapped(self._fd, size)
        self._buffer = np.frombuffer(self._map, dtype=np.uint8)
        self.size = size

    def adopt(self, fd: int, path: str) -> None:
        """Use the memory file `fd` (reached by `path`, processes.memory_file) made for this process by its
        parent together with the program that inherited it (conformance/backends/prestart.py)."""
        assert self._fd is None
        self._fd, self.path = fd, path
        self._inherited = (fd,)
        self._finalizer = weakref.finalize(self, _close, fd, None)

    def _open(self) -> None:
        made = _memory_file()
        if made is not None:
            self.adopt(*made)
        else:
            self._fd, self.path = tempfile.mkstemp(prefix=f"ascend-conformance-{os.getpid()}-", dir=_shm_dir())
            self._finalizer = weakref.finalize(self, _close, self._fd, self.path)

    def layout(self, sizes_list: Sequence[Mapping[str, int]]) -> list[dict[str, tuple[int, int]]]:
        """(offset, size) per scope for each call, back to back; the file grows to hold them all."""
        out, at = [], 0
        for sizes in sizes_list:
            places = {}
            for scope, size in sizes.items():
                places[scope] = (at, size)
                at = -(-(at + size) // ALIGN) * ALIGN
            out.append(places)
        self.ensure(at)
        return out

    def layout_clear_of(self, sizes: Mapping[str, int], busy: Mapping[str, tuple[int, int]] | None
                        ) -> dict[str, tuple[int, int]]:
        """One call's places: from the start of the file, or past `busy` (another call's places, still
        in use) where they would overlap it. A run's calls ask for few sizes, and each call for its
        places clear of the last: the answers are kept (by the file's size too, which they fit)."""
        key = (self.size, *sizes.items(), None, *(busy.items() if busy else ()))
        places = self._clear.get(key)
        if places is None:
            if len(self._clear) >= DESCRIBED_KEPT:
                self._clear.clear()
            places = self._clear_of(sizes, busy)
            self._clear[(self.size, *key[1:])] = places     # by the size they grew the file to, if they did
        return places

    def _clear_of(self, sizes: Mapping[str, int], busy: Mapping[str, tuple[int, int]] | None
                  ) -> dict[str, tuple[int, int]]:
        (places,) = self.layout([sizes])
        if not busy:
            return places
        start = min(offset for offset, _ in busy.values())
        end = max(offset + size for offset, size in busy.values())
        if max((offset + size for offset, size in places.values()), default=0) <= start:
            return places
        base = -(-end // ALIGN) * ALIGN
        moved = {scope: (base + offset, size) for scope, (offset, size) in places.items()}
        self.ensure(max((offset + size for offset, size in moved.values()), default=0))
        return moved

    def views(self, places: Mapping[str, tuple[int, int]]) -> dict[str, np.ndarray]:
        assert self._buffer is not None
        return {scope: self._buffer[offset:offset + size] for scope, (offset, size) in places.items()}

    def describe(self, places: Mapping[str, tuple[int, int]]) -> dict[str, Any]:
        """The request's `memory` object."""
        return {"file": self.path, "size": self.size,
                "scopes": {scope: {"offset": offset, "size": size} for scope, (offset, size) in places.items()}}

    def described(self, places: Mapping[str, tuple[int, int]]) -> str:
        """describe's object as JSON text, made once per file, size and places (a run's calls use few)."""
        key = (self.path, self.size, *places.items())
        text = self._described.get(key)
        if text is None:
            if len(self._described) >= DESCRIBED_KEPT:
                self._described.clear()
            text = self._described[key] = json.dumps(self.describe(places), separators=(",", ":"))
        return text

    def _unmap(self) -> None:
        self._buffer = None
        if self._map is not None:
            try:
                self._map.close()
            except BufferError:         # a view is still alive somewhere: the mapping goes with it
                pass
            self._map = None

    def close(self) -> None:
        self._unmap()
        if self._finalizer is not None:
            self._finalizer()
        self._fd, self.path, self.size, self._finalizer, self._inherited = None, None, 0, None, ()


def _close(fd: int, path: str | None) -> None:
    for done in (lambda: os.close(fd), lambda: path and os.unlink(path)):
        try:
            done()
        except OSError:
            pass
