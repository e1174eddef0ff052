"""pytest plugin of a conformance run: options, the backend fixture, the cell parametrization, and the
collector that gathers every cell's result in the controlling process (also under pytest-xdist, where
results travel back in the reports' user_properties)."""
from __future__ import annotations

import sys
import time
from typing import Any

import pytest

from .backends import load_backend
from .cells import cells, select, shard
from .memory import keep_freed_images
from .profiles import profile
from .results import calls
from .runner import CellResult


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ascend-conformance")
    group.addoption("--ac-backend", default="oracle")
    group.addoption("--ac-product", action="append", default=[])
    group.addoption("--ac-api", action="append", default=[])
    group.addoption("--ac-select", action="append", default=[])
    group.addoption("--ac-profile", default="ci")
    group.addoption("--ac-seed", type=int, default=0)
    group.addoption("--ac-frozen", action="store_true", help="judge each cell's frozen cases first (certify)")
    group.addoption("--ac-timeout", type=float, default=None, help="seconds one call may take")
    group.addoption("--ac-shard", default=None, help="I/N: every N-th selected cell from the I-th")


def pytest_configure(config: pytest.Config) -> None:
    keep_freed_images()


def selected_cells(config: pytest.Config):
    chosen = select(cells(config.getoption("ac_product"), config.getoption("ac_api") or None),
                    config.getoption("ac_select"))
    part = config.getoption("ac_shard")
    if part:
        index, count = (int(x) for x in part.split("/"))
        chosen = shard(chosen, index, count)
    return chosen


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "cell" in metafunc.fixturenames:
        chosen = selected_cells(metafunc.config)
        metafunc.parametrize("cell", chosen, ids=[c.id for c in chosen])


@pytest.fixture(scope="session")
def ac_backend(pytestconfig: pytest.Config):
    backend = load_backend(pytestconfig.getoption("ac_backend"), pytestconfig.getoption("ac_timeout"))
    yield backend
    close = getattr(backend, "close", None)
    if callable(close):
        close()


@pytest.fixture(scope="session")
def ac_profile(pytestconfig: pytest.Config):
    return profile(pytestconfig.getoption("ac_profile"))


@pytest.fixture(scope="session")
def ac_seed(pytestconfig: pytest.Config) -> int:
    return pytestconfig.getoption("ac_seed")


@pytest.fixture(scope="session")
def ac_frozen(pytestconfig: pytest.Config) -> dict[str, list]:
    """Cell id -> frozen cases when certifying, else nothing."""
    if not pytestconfig.getoption("ac_frozen"):
        return {}
    from .frozen import load_frozen
    return load_frozen()


class Collector:
    """Lives in the controlling process only (passed to pytest.main). Prints one line per cell."""

    def __init__(self, out=sys.stdout, total: int = 0):
        self.results: list[CellResult] = []
        self.errors: list[str] = []
        self.out = out
        self.total = total
        self.started = time.monotonic()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        data: dict[str, Any] | None = next((v for k, v in report.user_properties if k == "ac_result"), None)
        if report.when == "call" and data is not None:
            result = CellResult.from_dict(data)
            self.results.append(result)
            self._line(result)
        elif report.failed and data is None:
            # setup failed (e.g. the backend could not be loaded in a worker) or the test itself broke
            where = report.nodeid.split("[", 1)[-1].rstrip("]")
            message = str(report.longrepr).strip().splitlines()[-1] if report.longrepr else "failed"
            self.errors.append(f"{where}: {message}")
            print(f"  ERROR         {where}: {message}", file=self.out, flush=True)

    def _line(self, result: CellResult) -> None:
        n = calls(result.counts)
        if result.failure:
            mark = result.failure["verdict"]
        elif result.status != "ran":
            mark = result.status.upper()
        else:
            mark = "ok"
        done = len(self.results) + len(self.errors)
        rate = f"[{done}/{self.total}]" if self.total else ""
        print(f"  {mark:<14}{result.id}  ({n} calls, {result.seconds:.1f}s) {rate}", file=self.out, flush=True)
