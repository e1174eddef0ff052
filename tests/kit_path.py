"""The suite tests the kit as it is installed (`pip install '.[test]'`), never the checkout's own `oracle/`
and `conformance/` beside it: a module or data file missing from the distribution then fails a test.

So the checkout's folder is never on a module path. What the tests import from the checkout besides the
kit (their own backend modules as `tests.NAME`, the examples as `examples.NAME`) is reached through
HELPERS, a folder whose only entries are links to `tests/` and `examples/`. Every process a test starts
gets HELPERS, not the checkout, on its PYTHONPATH, and PYTHONSAFEPATH=1, so that `python -m` and
`python -c` started in the checkout do not put it first either."""
from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _helpers() -> Path:
    """The HELPERS folder of this checkout (one per checkout, made once; several pytest-xdist workers may
    make it at the same moment)."""
    folder = Path(tempfile.gettempdir()) / f"ascend-conformance-tests-{hashlib.sha256(bytes(ROOT)).hexdigest()[:12]}"
    folder.mkdir(exist_ok=True)
    for name in ("tests", "examples"):
        link = folder / name
        try:
            link.symlink_to(ROOT / name, target_is_directory=True)
        except FileExistsError:
            if link.resolve() != ROOT / name:
                raise RuntimeError(f"{link} does not lead to {ROOT / name}: remove {folder}") from None
    return folder


HELPERS = _helpers()


def off_the_checkout() -> None:
    """This process's module path without the checkout (where `python -m pytest` put it), with HELPERS and
    `tests/` (the helper modules the test files import by name) first; the processes it starts likewise."""
    sys.path[:] = [p for p in sys.path if Path(p or os.curdir).resolve() != ROOT]
    for folder in (ROOT / "tests", HELPERS):
        if str(folder) not in sys.path:
            sys.path.insert(0, str(folder))
    os.environ["PYTHONSAFEPATH"] = "1"
    os.environ["PYTHONPATH"] = os.pathsep.join([str(HELPERS), *filter(None, [os.environ.get("PYTHONPATH")])])


def kit_location() -> tuple[Path, bool]:
    """Where the kit under test was imported from, and whether that is the checkout (an editable install)."""
    import conformance
    import oracle
    folder = Path(oracle.__file__).resolve().parent.parent
    assert Path(conformance.__file__).resolve().parent.parent == folder, "oracle and conformance from two places"
    return folder, folder == ROOT
