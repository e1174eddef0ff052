"""The files of a certification bundle: the closed list the kit writes, and reading a bundle someone
handed over, whose every file may be a symlink, a FIFO, a device, a folder or a sparse file of terabytes.

    closed_list(results, spec_files)   the names a bundle of `results` holds: no more, no fewer
    scan(folder)                       every entry, `lstat`ed, never followed: ForeignFile for anything
                                       that is not a regular file (or one of the kit's two folders)
    read_bytes(folder, name, limit)    a regular file's bytes, its size bounded before a byte is read
    digest(folder, name)               its SHA-256, read in blocks

A file that is not what the kit writes is a ForeignFile (the bundle is not what it claims); one too large
to read, or that changed while it was read, a FileFormatError (it cannot be read). Each message is one
line naming the file.
"""
from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path
from typing import Any, Iterable, Iterator

from conformance.judge.reproducers import reproducer_name
from conformance.report.evidence_file import NAME as EVIDENCE
from conformance.report.text import printable
from conformance.report.untrusted import MAX_RESULTS_BYTES, FileFormatError

STATEMENT = "attestation.intoto.json"
FOLDERS = ("specs", "repro")            # the only folders a bundle holds
MAX_ENTRIES = 100_000                   # entries of a bundle scanned at most (the kit writes some hundreds)
MAX_BUNDLE_FILE = MAX_RESULTS_BYTES     # bytes of any one file of a bundle, at most
BLOCK = 1 << 20


class ForeignFile(ValueError):
    """A file the kit did not write, or not a regular file where one is due; the message names it."""


def closed_list(results: dict[str, Any], spec_files: Iterable[str]) -> list[str]:
    """Every file a certification bundle of `results` holds (`spec_files`: the names of the rulebook's
    files, under specs/), sorted."""
    failures = list(results.get("failures") or [])
    divergences = (results.get("agreement") or {}).get("divergences") or []
    names = {"results.json", "junit.xml", EVIDENCE, "environment.json", "README.md", STATEMENT, "SHA256SUMS"}
    names.update(f"report-{product}.html" for product in results.get("products") or [])
    names.update(reproducer_name(f["cell"]) for f in failures)
    names.update(reproducer_name(d["cell"], "diverge") for d in divergences)
    names.update(f"specs/{name}" for name in spec_files)
    if results.get("waivers") is not None:
        names.add("waivers.yaml")
    return sorted(names)


def scan(folder: Path) -> dict[str, os.stat_result]:
    """name (relative, with /) -> lstat of every regular file under `folder`; the kit's two folders are
    entered, nothing else is."""
    found: dict[str, os.stat_result] = {}
    for name, info in _entries(folder, ""):
        kind = _kind(info.st_mode)
        if kind == "folder" and name in FOLDERS:
            for inner, inner_info in _entries(folder / name, name + "/"):
                _regular(inner, inner_info, found)
            continue
        _regular(name, info, found)
    return found


def _entries(folder: Path, prefix: str) -> Iterator[tuple[str, os.stat_result]]:
    try:
        with os.scandir(folder) as it:
            for count, entry in enumerate(it):
                if count >= MAX_ENTRIES:
                    raise ForeignFile(f"{printable(prefix or str(folder))}: more than {MAX_ENTRIES} entries")
                yield prefix + entry.name, entry.stat(follow_symlinks=False)
    except OSError as exc:
        raise FileFormatError(f"{printable(str(folder))}: cannot be listed: {exc.strerror or exc}") from None


def _regular(name: str, info: os.stat_result, found: dict[str, os.stat_result]) -> None:
    kind = _kind(info.st_mode)
    if kind != "file":
        raise ForeignFile(f"{printable(name)}: {kind}, where the kit writes a regular file or nothing")
    if info.st_size > MAX_BUNDLE_FILE:
        raise FileFormatError(f"{printable(name)}: {info.st_size} bytes, more than the {MAX_BUNDLE_FILE} bytes a "
                              "file of a bundle may hold")
    found[name] = info


def _kind(mode: int) -> str:
    for test, word in ((stat.S_ISREG, "file"), (stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "folder"),
                       (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return word
    return "not a regular file"


def same_files(found: Iterable[str], due: Iterable[str]) -> None:
    """ForeignFile naming the first file present and not due (or due and missing)."""
    found, due = set(found), set(due)
    extra, missing = sorted(found - due), sorted(due - found)
    if extra:
        raise ForeignFile(f"{printable(extra[0])}: not a file the kit writes in a bundle"
                          + (f" (and {len(extra) - 1} more)" if len(extra) > 1 else ""))
    if missing:
        raise ForeignFile(f"{printable(missing[0])}: missing from the bundle")


def _open(folder: Path, name: str) -> int:
    """A descriptor of the regular file `name`, opened without following a link and without waiting on
    a FIFO, and checked to be a regular file once open."""
    path = folder / name
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise ForeignFile(f"{printable(name)}: cannot be opened as a regular file: {exc.strerror or exc}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise ForeignFile(f"{printable(name)}: not a regular file")
    return fd


def read_bytes(folder: Path, name: str, limit: int = MAX_BUNDLE_FILE) -> bytes:
    """The bytes of a regular file of the bundle, refused before reading when larger than `limit`."""
    fd = _open(folder, name)
    with os.fdopen(fd, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size > limit:
            raise FileFormatError(f"{printable(name)}: {size} bytes, more than the {limit} bytes it may hold")
        data = f.read(limit + 1)
    if len(data) > limit:
        raise FileFormatError(f"{printable(name)}: grew past {limit} bytes while it was read")
    return data


def digest(folder: Path, name: str, limit: int = MAX_BUNDLE_FILE) -> str:
    """SHA-256 (hex) of a regular file of the bundle, read in blocks: memory bounded whatever its size."""
    h = hashlib.sha256()
    fd = _open(folder, name)
    with os.fdopen(fd, "rb") as f:
        if os.fstat(f.fileno()).st_size > limit:
            raise FileFormatError(f"{printable(name)}: more than the {limit} bytes it may hold")
        read = 0
        for block in iter(lambda: f.read(BLOCK), b""):
            read += len(block)
            if read > limit:
                raise FileFormatError(f"{printable(name)}: grew past {limit} bytes while it was read")
            h.update(block)
    return h.hexdigest()


def opened(folder: Path, name: str, limit: int = MAX_BUNDLE_FILE):
    """A binary file object of a regular file of the bundle (for a reader that streams it)."""
    fd = _open(folder, name)
    f = os.fdopen(fd, "rb")
    if os.fstat(fd).st_size > limit:
        f.close()
        raise FileFormatError(f"{printable(name)}: more than the {limit} bytes it may hold")
    return f
