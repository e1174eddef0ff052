"""What a run prints: by default no line for a cell that passed, a line for one that did not, the failures,
the untested ambiguities in one line and the verdict (one word everywhere: CONFORMANT / NOT CONFORMANT);
-q the failures and the verdict only; -v a line per cell and the table. Colour on a terminal only, never
with NO_COLOR; a progress line on a terminal that redraws, every 30 s elsewhere."""
from __future__ import annotations

import io

from conformance.commands import terminal as term
from conformance.commands.terminal import NORMAL, QUIET, VERBOSE, Terminal
from tests.commands.test_cli import cli, modules  # noqa: F401  (the fixture: a module of user backends)

BUGGY = "userbackends:OneBurstTooFew"
RUN = ["run", "--product", "ascend910b", "--profile", "quick", "--seed", "3", "--report", "r",
       "--select", "data_move/*/legal/int8", "--select", "data_move/*/reject/data_move.burst.range"]


def test_the_three_verbosities(tmp_path, modules):  # noqa: F811
    plain = cli(*RUN, "--backend", BUGGY, cwd=tmp_path, extra_path=modules).stdout
    assert "  FAIL          data_move/ascend910b/legal/int8" in plain          # the failing cell's line
    assert "data_move/ascend910b/reject/data_move.burst.range" not in plain    # a passing one has none
    assert "NOT CONFORMANT for data_move on ascend910b" in plain and "reproduce: " in plain
    assert "1 ambiguity not tested (no reading declared): data_move.sid.reserved" in plain
    assert "\x1b[" not in plain                                               # piped: no colour
    quiet = cli(*RUN, "--backend", BUGGY, "-q", cwd=tmp_path, extra_path=modules).stdout
    assert "NOT CONFORMANT for" in quiet and "reproduce: " in quiet
    assert "ambiguity" not in quiet and "results.json" not in quiet and "  FAIL   " not in quiet
    loud = cli(*RUN, "--backend", BUGGY, "-v", cwd=tmp_path, extra_path=modules).stdout
    assert "  ok            data_move/ascend910b/reject/data_move.burst.range" in loud
    assert "dtype / rule" in loud                                              # the table
    both = cli(*RUN, "--backend", BUGGY, "-q", "-v", cwd=tmp_path, extra_path=modules)
    assert both.returncode == 2 and "not allowed with argument" in both.stderr


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def _cell(mark: str) -> dict:
    failure = {"verdict": mark} if mark != "ok" else None
    return {"id": f"data_move/ascend910b/legal/{mark}", "counts": {"PASS": 3}, "status": "ran", "failure": failure,
            "seconds": 0.1}


def test_colour_on_a_terminal_and_never_with_no_color(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    shown = _Tty()
    t = Terminal(NORMAL, shown)
    t.start(2)
    t.cell(_cell("ok"), 1)
    t.cell(_cell("FAIL"), 2)
    t.stop()
    assert "\x1b[31m" in shown.getvalue() and "data_move/ascend910b/legal/FAIL" in shown.getvalue()
    monkeypatch.setenv("NO_COLOR", "1")
    grey = _Tty()
    t = Terminal(NORMAL, grey)
    t.start(1)
    t.cell(_cell("FAIL"), 1)
    t.stop()
    assert "data_move/ascend910b/legal/FAIL" in grey.getvalue() and "\x1b[31m" not in grey.getvalue()


def test_a_progress_line_every_30_s_where_nothing_redraws(monkeypatch):
    out = io.StringIO()
    t = Terminal(NORMAL, out)
    clock = iter([0.0, 0.0, 10.0, 31.0, 40.0, 62.0])
    monkeypatch.setattr(term.time, "monotonic", lambda: next(clock))
    t.__init__(NORMAL, out)                 # its clock read at 0
    t.start(10)
    t.cell(_cell("ok"), 1)
    t.tick(1)                               # 10 s: not yet
    t.tick(4)                               # 31 s: a line
    t.tick(5)                               # 40 s: not yet
    t.tick(8)                               # 62 s: a line
    lines = out.getvalue().splitlines()
    assert lines == ["  4/10 cells, 3 calls (0/s), about 0:00:46 left", "  8/10 cells, 3 calls (0/s), about 0:00:15 left"]


def test_quiet_and_verbose_choose_the_cell_lines():
    for verbosity, shown in ((QUIET, []), (NORMAL, ["FAIL"]), (VERBOSE, ["ok", "FAIL"])):
        out = io.StringIO()
        t = Terminal(verbosity, out)
        t.start(2)
        t.cell(_cell("ok"), 1)
        t.cell(_cell("FAIL"), 2)
        assert [line.split()[0] for line in out.getvalue().splitlines()] == shown, verbosity


def test_the_report_chips_say_what_they_count(tmp_path, modules):  # noqa: F811
    """PASS counts calls, NOT_SUPPORTED cells: each chip names its unit."""
    cli("run", "--backend", "oracle", "--product", "ascend910b", "--profile", "quick", "--report", "ok",
        "--select", "data_move/*/legal/int8", cwd=tmp_path)
    assert "PASS 25 calls</span>" in (tmp_path / "ok" / "report-ascend910b.html").read_text()
    cli("run", "--backend", "userbackends:Nothing", "--product", "ascend910b", "--profile", "quick", "--report", "none",
        "--select", "data_move/*/legal/int*", cwd=tmp_path, extra_path=modules)
    page = (tmp_path / "none" / "report-ascend910b.html").read_text()
    assert "NOT_SUPPORTED 4 cells</span>" in page
