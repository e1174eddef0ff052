"""The kit as a pytest plugin: `pytest --ascend-backend mysim:Sim --ascend-product ascend910b` makes every
cell of the run a pytest item, so that `-k`, `-x` / `--maxfail`, `--lf` / `--ff`, `--junitxml` and a CI's
pytest habits work on the kit's cells as on any test.

A thin front end over `run`: the options become a `run` command line (the settings file,
`ascend-conformance.toml` or `[tool.ascend-conformance]`, fills in what they leave out; the kit checks
them as `run` does); the cells pytest keeps after its selection run at once in the kit's own supervised
workers (the backend never in pytest's process), judged by the kit, with the report folder written as
`run` writes it; then each item passes, fails or skips as its cell's result says (report/junit.py:
cell_outcome). pytest's exit status follows the kit's verdict: a run the kit does not call CONFORMANT
(nothing tested, cells that could not run) never exits 0.

Inert unless `--ascend-backend` or `--ascend` is given: the plugin is registered in every pytest session
of an environment where the kit is installed. The kit runs its cells in parallel itself
(`--ascend-workers`); under pytest-xdist (`-n`) it refuses, in one line.
"""
from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Any

import pytest

_KIT_OPTIONS = (       # pytest option -> the `run` option it becomes
    ("ascend_backend", "--backend"), ("ascend_product", "--product"), ("ascend_api", "--api"),
    ("ascend_profile", "--profile"), ("ascend_workers", "-n"), ("ascend_timeout", "--timeout"),
    ("ascend_report", "--report"), ("ascend_seed", "--seed"), ("ascend_reading", "--reading"),
    ("ascend_edition", "--edition"), ("ascend_waivers", "--waivers"))


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ascend-conformance", "ascend-conformance: the kit's cells as pytest items")
    group.addoption("--ascend", action="store_true",
                    help="run the kit's cells, with the settings of ascend-conformance.toml or "
                         "[tool.ascend-conformance] in pyproject.toml")
    group.addoption("--ascend-backend", metavar="SPEC",
                    help="run the kit's cells on this backend: oracle | package.module:attr | entry point | exec:CMD")
    group.addoption("--ascend-product", action="append", metavar="ID", help="product id (repeatable)")
    group.addoption("--ascend-api", action="append", metavar="API", help="api (repeatable; default: all)")
    group.addoption("--ascend-profile", metavar="NAME", help="quick | ci | nightly (default ci)")
    group.addoption("--ascend-workers", metavar="N", help="the kit's worker processes: a number or auto (default 1)")
    group.addoption("--ascend-timeout", metavar="SECONDS", help="a call taking longer is a CRASH (default 10)")
    group.addoption("--ascend-report", metavar="DIR", help="the kit's report folder (default reports/)")
    group.addoption("--ascend-seed", metavar="N", help="run seed (default: a fresh one, printed)")
    group.addoption("--ascend-reading", action="append", metavar="AMBIGUITY=READING",
                    help="judge that ambiguity's region by that reading (repeatable)")
    group.addoption("--ascend-edition", metavar="EDITION", help="judge by that edition of the vendor's pages")
    group.addoption("--ascend-waivers", metavar="FILE", help="YAML file of known failures to accept")


def pytest_configure(config: pytest.Config) -> None:
    if not (config.getoption("ascend_backend") or config.getoption("ascend")):
        return
    if getattr(config.option, "numprocesses", None) or hasattr(config, "workerinput"):
        raise pytest.UsageError("ascend-conformance runs its cells in its own supervised workers: give "
                                "--ascend-workers N (or auto) rather than pytest-xdist's -n")
    config.pluginmanager.register(PytestRun(config, run_arguments(config)), "ascend-conformance-cells")


def run_arguments(config: pytest.Config) -> Any:
    """The pytest options as the kit's `run` takes them, the settings file's filling in the rest, checked
    by the kit's own parser; its one-line error becomes pytest's usage error."""
    from conformance.commands.cli import parser
    from conformance.commands.config import with_settings
    from conformance.commands.options import Options, UsageError, products_and_apis
    argv = ["run"]
    for name, option in _KIT_OPTIONS:
        value = config.getoption(name)
        for one in value if isinstance(value, list) else [value] if value is not None else []:
            argv += [option, str(one)]
    said = io.StringIO()
    try:
        with contextlib.redirect_stderr(said):
            args = Options.of(parser().parse_args(with_settings(argv, parser(), Path(config.rootpath))))
        products_and_apis(args)
        return args
    except UsageError as exc:
        raise pytest.UsageError(f"ascend-conformance: {exc}") from None
    except SystemExit:
        line = " ".join(said.getvalue().split()).replace("ascend-conformance run: error: ", "")
        for name, option in _KIT_OPTIONS:       # the option as the user gave it
            line = line.replace(f"argument {option}:", f"--{name.replace('_', '-')}:")
        raise pytest.UsageError(f"ascend-conformance: {line}") from None


_NO_RESULT = "no result: the run was interrupted or its worker lost"


class CellFailed(Exception):
    """A cell the kit did not pass: its text is the kit's (verdict, message, rule, replay command)."""


class CellItem(pytest.Item):
    """One cell of the kit: its outcome is read from the run's results (the cell ran with the others,
    in the kit's workers, before pytest came to the items)."""

    def __init__(self, *, cell: Any, run: "PytestRun", **kwargs: Any):
        super().__init__(**kwargs)
        self.cell, self.run = cell, run

    def runtest(self) -> None:
        from conformance.report.junit import cell_outcome
        result = self.run.results_by_id.get(self.cell.id)
        if result is None:
            if self.run.stopped_early:
                pytest.skip("not run: the kit stopped at --maxfail")
            raise CellFailed(_NO_RESULT)
        outcome = cell_outcome(result, self.run.args.backend, f"{self.run.folder}/")
        if outcome.kind == "skipped":
            pytest.skip(outcome.message)
        if outcome.kind != "passed":
            raise CellFailed(outcome.text if outcome.kind == "failed" else f"ERROR: {outcome.text}")

    def repr_failure(self, excinfo: Any, style: Any = None) -> Any:
        if isinstance(excinfo.value, CellFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, None, self.name


class CellTree(pytest.Collector):
    """The kit's cells as pytest collects them: their ids are the items' names (`-k 910b`, `-k legal`)."""

    def __init__(self, *, run: "PytestRun", **kwargs: Any):
        super().__init__(**kwargs)
        self.run = run

    def collect(self) -> list[pytest.Item]:
        return [CellItem.from_parent(self, name=cell.id, cell=cell, run=self.run) for cell in self.run.open()]

    def repr_failure(self, excinfo: Any, style: Any = None) -> Any:
        """What the kit says of input the user can fix (a backend that cannot load, a report folder in
        use), in its one line; anything else as pytest shows it."""
        from conformance.commands.cli import user_errors
        if isinstance(excinfo.value, user_errors()):
            from conformance.report.text import printable
            return f"ascend-conformance: {printable(excinfo.value, 1000)}"
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, None, self.name


class PytestRun:
    """The plugin at work for one pytest session: the kit's session opened at collection (the backend
    declares its readings there, and they decide the ambiguity cells), the selected cells run before the
    items, the session closed after."""

    def __init__(self, config: pytest.Config, args: Any):
        self.config, self.args = config, args
        self.folder = Path(args.report)
        self.session: Any = None
        self.results: dict[str, Any] | None = None
        self.results_by_id: dict[str, dict[str, Any]] = {}
        self.stopped_early = False
        self.chosen: list[Any] = []

    @pytest.hookimpl(wrapper=True)
    def pytest_make_collect_report(self, collector: pytest.Collector) -> Any:
        """The cells, one collector beside what pytest collects from the session's arguments."""
        report = yield
        if isinstance(collector, pytest.Session) and report.passed:
            report.result.append(CellTree.from_parent(collector, name="ascend-conformance",
                                                      nodeid="ascend-conformance", run=self))
        return report

    def open(self) -> list[Any]:
        """The kit's session opened, the backend loaded in its workers; the cells of the run."""
        from conformance.commands.options import chosen_cells, products_and_apis
        from conformance.commands.running import entered_ambiguities, open_session
        from conformance.commands.terminal import NORMAL, Terminal
        try:
            products, apis = products_and_apis(self.args)
            self.session = open_session(self.args, self.folder)
            self.session.terminal = Terminal(NORMAL, self.session.out, cell_lines=False)
            self.session.__enter__()
            self.chosen = chosen_cells(self.args, products, apis, entered_ambiguities(self.session, self.args, apis))
        except BaseException:
            self._close()
            raise
        return self.chosen

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> None:
        """The cells pytest kept, run by the kit, before pytest goes through the items."""
        if session.config.option.collectonly:
            self._close()
            return
        cells = [item.cell for item in session.items if isinstance(item, CellItem)]
        if not cells:
            self._close()
            return
        capture = self.config.pluginmanager.getplugin("capturemanager")
        with capture.global_and_fixture_disabled() if capture else contextlib.nullcontext():
            try:
                self.results = self._run(cells)
            finally:
                self._close()
        self.results_by_id = {c["id"]: c for c in self.results["cells"]}
        self.stopped_early = bool(self.results.get("maxfail")) and len(self.results_by_id) < len(cells)

    def _run(self, cells: list[Any]) -> dict[str, Any]:
        from conformance.commands.options import waivers_of
        from conformance.commands.running import run_seed, settle
        from conformance.generate.profiles import profile
        from conformance.supervise.plan import plan
        waivers = waivers_of(self.args)
        seed = run_seed(self.args, None)
        narrowed = self._narrowed(len(cells))
        return self.session.run(cells, plan(cells, profile(self.args.profile), seed, self.session.rulebook),
                                lambda r: settle(r, waivers),
                                profile=self.args.profile, seed=seed, workers=self.args.workers,
                                select=narrowed, timeout=self.args.timeout, shard=None,
                                maxfail=self.config.option.maxfail or None)

    def _narrowed(self, kept: int) -> list[str]:
        """What narrowed the cells, as the scope of the verdict says it ('pytest -k ...'), where pytest's
        selection kept fewer cells than the run has."""
        if kept == len(self.chosen):
            return []
        option = self.config.option
        said = [f"-k {option.keyword}" if option.keyword else "", f"-m {option.markexpr}" if option.markexpr else "",
                "--lf" if option.lf else "", "--deselect" if option.deselect else ""]
        return [f"pytest {' '.join(s for s in said if s) or 'selection'} ({kept} of {len(self.chosen)} cells)"]

    def _close(self) -> None:
        if self.session is not None:
            session, self.session = self.session, None
            session.__exit__(None, None, None)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        from conformance.commands.terminal import verdict_words
        if self.results is None:
            return
        r = self.results
        terminalreporter.section("ascend-conformance")
        terminalreporter.line(f"{verdict_words(r)}; {r['calls']} calls in {len(r['cells'])}/{len(r['planned'])} "
                              f"cells; seed {r['seed']}; report in {self.folder}")

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        """The kit's verdict decides: a run it does not pass never exits 0 (every cell skipped is no pass)."""
        from conformance.commands.terminal import passes
        self._close()
        if self.results is not None and session.exitstatus == 0 and not passes(self.results):
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        self._close()
