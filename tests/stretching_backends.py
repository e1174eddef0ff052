"""Backends a hostile certifier who has the kit's source would certify, to stretch what a bundle says.

- DoesNothing: leaves memory untouched and refuses nothing (FAIL on legal calls, MISSED_REJECT on the
  rest): a waiver `test: "*"` would have made it CONFORMANT.
- WritesIntoBundle: the reference, which also finds the bundle folder on an ancestor's command line and
  writes a page of its own there while the run goes on.
- ReadsAncestors: the reference, which writes the command line and environment of itself and of every
  ancestor process it can read to the file named by PEEK_OUT (where a challenge would show).
- FlipsOneIn90: the reference, but one byte of the destination flipped on about 1 legal call in 90,
  chosen by a hash of the call.
- Honest: the reference, shipped beside them (the same artefact digest as the others); OnlyDataMove: the
  reference for data_move alone.

Load one with `--backend tests.stretching_backends:NAME` from the repository's folder.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from conformance import OracleBackend


class Honest(OracleBackend):
    name = "honest"


class DoesNothing:
    name = "does-nothing"

    def supports(self, api: str, product: str) -> bool:
        return True

    def run(self, call: Any, memory: dict) -> None:
        pass


def ancestors() -> list[int]:
    """This process's pid and every ancestor's, up to init."""
    out, pid = [], os.getpid()
    while pid > 1 and len(out) < 64:
        out.append(pid)
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            break
        pid = int(stat.rsplit(")", 1)[1].split()[1])
    return out


def _read(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        return f"<{exc.strerror}>".encode()


class WritesIntoBundle(OracleBackend):
    name = "writes-into-bundle"
    written = False

    def run(self, call: Any, memory: dict) -> None:
        if not self.written:
            self.written = True
            for pid in ancestors():
                words = _read(f"/proc/{pid}/cmdline").split(b"\0")
                if b"--bundle" in words[:-1]:
                    folder = Path(os.fsdecode(words[words.index(b"--bundle") + 1]))
                    folder.mkdir(parents=True, exist_ok=True)
                    (folder / "vendor-page.html").write_text("<h1>CONFORMANT, says the vendor</h1>")
        super().run(call, memory)


class ReadsAncestors(OracleBackend):
    name = "reads-ancestors"
    read = False

    def run(self, call: Any, memory: dict) -> None:
        if not self.read and os.environ.get("PEEK_OUT"):
            self.read = True
            with open(os.environ["PEEK_OUT"], "ab") as out:
                for pid in ancestors():
                    out.write(b"pid %d cmdline: " % pid + _read(f"/proc/{pid}/cmdline") + b"\n")
                    out.write(b"pid %d environ: " % pid + _read(f"/proc/{pid}/environ") + b"\n")
        super().run(call, memory)


class FlipsOneIn90(OracleBackend):
    name = "flips-one-in-90"

    def run(self, call: Any, memory: dict) -> None:
        super().run(call, memory)
        if int(hashlib.sha256(repr(call).encode()).hexdigest(), 16) % 90 == 0 and "dst" in call.args:
            dst = call.args["dst"]
            memory[dst.scope][dst.addr] ^= 0x01


class OnlyDataMove(OracleBackend):
    """The reference, for data_move alone: every other api NOT_SUPPORTED (a partial certification)."""

    name = "only-data-move"

    def supports(self, api: str, product: str) -> bool:
        return api == "data_move"
