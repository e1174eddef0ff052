"""Where a certification bundle is made: in a private folder beside the one asked for, moved into place
once every backend process has ended. The folder the command line names (which a backend can read on
its parent's command line) does not exist while the backend runs, so nothing of the backend's can be
written into the bundle; what a backend writes there meanwhile is found at the end and refused.

    private_folder(bundle)           the folder to make the bundle in (the one asked for checked first)
    move_into_place(private, bundle) the bundle where it was asked for, replacing an earlier bundle
"""
from __future__ import annotations

import fnmatch
import os
import shutil
import tempfile
from pathlib import Path

from conformance.report.text import printable

# what an earlier bundle's folder may hold (and so may be replaced): its files, folders and temporary files
BUNDLE_ENTRIES = ("results.json", "junit.xml", "report-*.html", "evidence.jsonl.gz", "environment.json",
                  "README.md", "attestation.intoto.json", "SHA256SUMS", "waivers.yaml", "specs", "repro",
                  ".ascend-conformance.lock", ".*.tmp")


class PlacingError(ValueError):
    """The bundle cannot go where it was asked for; the message names the folder and why."""


def _replaceable(bundle: Path) -> None:
    """PlacingError unless `bundle` is absent, an empty folder or an earlier bundle's folder."""
    if not os.path.lexists(bundle):
        return
    if bundle.is_symlink() or not bundle.is_dir():
        raise PlacingError(f"{printable(str(bundle))}: not a folder (a bundle is written as a folder of its own)")
    strange = sorted(name for name in os.listdir(bundle)
                     if not any(fnmatch.fnmatchcase(name, pattern) for pattern in BUNDLE_ENTRIES))
    if strange:
        raise PlacingError(f"{printable(str(bundle))}: holds {printable(strange[0])}, which no bundle holds: "
                           "name a new folder (or an earlier bundle's) with --bundle")


def private_folder(bundle: Path) -> Path:
    """A new folder only this user can enter, on the same file system as `bundle` (so that it can be
    renamed into place), after checking that `bundle` can be replaced."""
    _replaceable(bundle)
    parent = bundle.absolute().parent
    parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f".{bundle.name}.certifying-", dir=parent))


def move_into_place(private: Path, bundle: Path) -> None:
    """Rename the finished bundle into place. An earlier bundle there is replaced; anything else that
    appeared there while the run went on is refused (the bundle stays in `private`, and the message
    names both)."""
    try:
        _replaceable(bundle)
    except PlacingError as exc:
        raise PlacingError(f"{exc}; it appeared while the run went on: the bundle is left in "
                           f"{printable(str(private))}") from None
    umask = os.umask(0o022)
    os.umask(umask)
    os.chmod(private, 0o777 & ~umask)          # as a folder made with mkdir would be, not mkdtemp's 0700
    if not os.path.lexists(bundle):
        os.rename(private, bundle)
        return
    aside = Path(tempfile.mkdtemp(prefix=f".{bundle.name}.replaced-", dir=bundle.absolute().parent))
    os.rename(bundle, aside / "old")
    os.rename(private, bundle)
    shutil.rmtree(aside, ignore_errors=True)
