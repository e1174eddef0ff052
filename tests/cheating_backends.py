"""Backends that compute nothing and try to be judged conforming all the same, by reaching the judge.

None of them names a private part of the kit: each looks for whatever it can find from where it runs
(its callers' frames, the objects of its process, the functions of the modules loaded there, the
processes around it). Run in the kit's default way, each runs in a process of its own that holds the call
and its input images only, and is judged on what it computed: nothing, so it does not conform. Run
`--in-process`, the first three find what they look for: the tests show both, so that the honest verdict
is known to be earned, not an accident of a backend that could not have cheated anyway.

Load one with `--backend tests.cheating_backends:NAME` from the repository's folder.
"""
from __future__ import annotations

import gc
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from conformance import OracleBackend, Rejected


class Reference(OracleBackend):
    """The reference, shipped beside the cheats (the same package and imports: by digest the same artefact),
    answering otherwise than they do."""

    name = "reference-beside-the-cheats"


class _Lazy(OracleBackend):
    """Refuses what the reference refuses (so that only the bytes can tell it apart), then computes
    nothing: the destination keeps its random bytes."""

    name = "lazy"

    def run(self, call: Any, memory: dict) -> None:
        try:
            super().run(call, {s: m.copy() for s, m in memory.items()})
        except Rejected:
            raise
        self.cheat(call, memory)

    def cheat(self, call: Any, memory: dict) -> None:
        pass


def _images_like(memory: dict, value: Any) -> dict | None:
    """`value` where it is a mapping of the same scopes to uint8 arrays of the same sizes, other than the
    images themselves: an expected image, wherever it lies."""
    if not isinstance(value, dict) or set(value) != set(memory) or value is memory:
        return None
    for scope, image in memory.items():
        other = value[scope]
        if not isinstance(other, np.ndarray) or other.shape != image.shape or other.dtype != np.uint8:
            return None
        if np.shares_memory(other, image):
            return None
    return value


def _images_of(value: Any) -> Any:
    """`value.memory`, with the bytes `value.patches` lays over its scopes where it has them (an expected
    image's public fields, oracle.Expected)."""
    images, patches = getattr(value, "memory", None), getattr(value, "patches", None)
    if not isinstance(images, dict) or not isinstance(patches, dict) or not patches:
        return images
    whole = dict(images)
    for scope, (lo, data) in patches.items():
        whole[scope] = np.concatenate((images[scope][:lo], data, images[scope][lo + len(data):]))
    return whole


def _copy(found: dict, memory: dict) -> None:
    for scope, image in found.items():
        np.copyto(memory[scope], image)


class FrameWalker(_Lazy):
    """Walks up its callers' frames, and one level into each local, for an expected image to copy."""

    name = "frame-walker"

    def cheat(self, call, memory):
        frame = sys._getframe(1)
        while frame is not None:
            for value in list(frame.f_locals.values()):
                for candidate in [value, _images_of(value), _images_of(getattr(value, "want", None))]:
                    found = _images_like(memory, candidate)
                    if found is not None:
                        _copy(found, memory)
                        return
            frame = frame.f_back


class HeapScanner(_Lazy):
    """Looks through every object its process holds for an expected image to copy."""

    name = "heap-scanner"

    def cheat(self, call, memory):
        for laid_over in (True, False):     # an image given with bytes laid over it first: made whole
            for obj in gc.get_objects():
                try:
                    if laid_over:
                        found = _images_like(memory, _images_of(obj)) if getattr(obj, "patches", None) else None
                    else:
                        found = _images_like(memory, obj) or _images_like(memory, getattr(obj, "memory", None))
                except Exception:           # noqa: BLE001 - an object whose attributes cannot be read
                    continue
                if found is not None:
                    _copy(found, memory)
                    return


def _patch_comparisons() -> int:
    """Every function named like a comparison in every module loaded, made to find no difference."""
    patched = 0
    for module in list(sys.modules.values()):
        for name, value in list(vars(module).items()):
            if callable(value) and getattr(value, "__module__", None) == module.__name__ and "compare" in name:
                setattr(module, name, lambda *args, **kwargs: None)
                patched += 1
    return patched


class Patcher(_Lazy):
    """At load, makes every comparison function of its process find no difference."""

    name = "patcher"

    def __init__(self) -> None:
        super().__init__()
        self.patched = _patch_comparisons()


class JudgesItself(_Lazy):
    """Offers to judge its own calls, through a hook a kit might ask."""

    name = "judges-itself"

    def judge_case(self, *args: Any, **kwargs: Any) -> Any:
        from types import SimpleNamespace
        return SimpleNamespace(verdict=SimpleNamespace(value="PASS"), conforms=True, message="fine", key="PASS")

    def process_groups(self) -> list[int]:
        return [os.getpgrp()]            # would have the supervisor kill the kit's own process group


FORGE_ENV = "CHEAT_FORGE_FOLDER"        # the bundle folder the forger rewrites
FORGER_PID_ENV = "CHEAT_FORGER_PID"     # where it writes its pid


class Forger(_Lazy):
    """At load, double-forks a daemon that outlives the command and then rewrites the bundle (README and
    results.json say CONFORMANT, SHA256SUMS summed again)."""

    name = "forger"

    def __init__(self) -> None:
        super().__init__()
        folder = os.environ.get(FORGE_ENV)
        if folder:
            _daemon(Path(os.environ[FORGER_PID_ENV]), lambda: _forge_later(Path(folder)))


def _daemon(pid_file: Path, then: Any) -> None:
    """A daemon double-forked from here, in a session of its own (its parent gone at once, so that it is
    re-parented): it writes its pid to `pid_file`, runs `then()` and exits."""
    if os.fork() == 0:
        try:
            os.setsid()
            if os.fork() == 0:
                pid_file.write_text(str(os.getpid()))
                then()
        finally:
            os._exit(0)


def _forge_later(folder: Path) -> None:
    import hashlib
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        time.sleep(0.05)
        readme = folder / "README.md"
        if not (folder / "SHA256SUMS").exists() or not readme.exists():
            continue
        time.sleep(0.5)
        readme.write_text("# CONFORMANT\n\nFORGED: every call passed.\n")
        results = folder / "results.json"
        results.write_text(results.read_text().replace('"NOT CONFORMANT"', '"CONFORMANT"'))
        sums = []
        for path in sorted(folder.rglob("*")):
            if path.is_file() and path.name != "SHA256SUMS":
                sums.append(f"{hashlib.sha256(path.read_bytes()).hexdigest()}  {path.relative_to(folder)}")
        (folder / "SHA256SUMS").write_text("\n".join(sums) + "\n")
        return


LINGER_PID_ENV = "CHEAT_LINGERER_PID"   # where the lingerer's daemon writes its pid


class Lingerer(_Lazy):
    """At load, double-forks a daemon that keeps the standard output it inherited open and sleeps (five
    minutes at most, so that a kit that fails to end it leaves nothing for long)."""

    name = "lingerer"

    def __init__(self) -> None:
        super().__init__()
        pid_file = os.environ.get(LINGER_PID_ENV)
        if pid_file:
            _daemon(Path(pid_file), lambda: time.sleep(300))
