"""What a run prints, for people: while it runs, a progress line (cells done of all, calls a second, time
left) on a terminal, every 30 s elsewhere, and a line per cell that did not pass; after it, the failures
with the command that replays each, the ambiguities, and the verdict line. `-q` keeps the failures and
the verdict; `-v` adds a line per cell and the table of verdicts per api / product / dtype / rule.
Colour on a terminal (rich), none where NO_COLOR is set or the output is a pipe or a file.

Everything a backend may have chosen (names, messages) goes through text.printable: no raw control
sequence reaches the terminal; replay commands are shell-quoted, to be pasted as they are.
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from conformance.commands.options import EXIT_NONCONFORMING, EXIT_OK
from conformance.report.results import calls
from conformance.report.text import TERMINAL_CHARS

QUIET, NORMAL, VERBOSE = -1, 0, 1
SHOW_EVERY = 30.0           # seconds between two progress lines where there is no terminal to redraw
STYLES = {"ok": "green", "CONFORMANT": "bold green", "NOT CONFORMANT": "bold red", "INCOMPLETE": "bold yellow",
          "NOTHING TESTED": "bold yellow", "FAIL": "red", "CRASH": "red", "FALSE_REJECT": "red",
          "MISSED_REJECT": "red", "DIVERGE": "red", "ERROR": "red",
          "UNREACHABLE": "yellow", "NOT_SUPPORTED": "dim"}


class Terminal:
    """The run's output: `verbosity` QUIET / NORMAL / VERBOSE, to `out` (a terminal or not); without
    `cell_lines` no line per cell whatever the verbosity (the pytest front end: pytest reports the cells)."""

    def __init__(self, verbosity: int = NORMAL, out: TextIO | None = None, cell_lines: bool = True):
        self.verbosity, self.out, self.cell_lines = verbosity, out or sys.stdout, cell_lines
        self.tty = bool(getattr(self.out, "isatty", lambda: False)())
        self.colour = self.tty and not os.environ.get("NO_COLOR")
        self._console: Any = None
        self._progress: Any = None
        self._task: Any = None
        self._calls = 0
        self._began = self._shown = time.monotonic()
        self._total = 0

    # ------------------------------------------------------------------ while the run goes

    def start(self, total: int) -> None:
        self._total, self._began = total, time.monotonic()
        if self.tty and self.verbosity >= NORMAL:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
            self._console = Console(file=self.out, highlight=False, no_color=not self.colour)
            self._progress = Progress(TextColumn("cells"), BarColumn(), MofNCompleteColumn(),
                                      TextColumn("{task.fields[calls]} calls, {task.fields[rate]}/s"),
                                      TimeRemainingColumn(), console=self._console, transient=True)
            self._task = self._progress.add_task("cells", total=total, calls=0, rate=0)
            self._progress.start()

    def cell(self, result: dict[str, Any], done: int) -> None:
        """A finished cell: its line where the verbosity shows it, the progress moved on."""
        self._calls += calls(result["counts"])
        line, mark = cell_line(result, done, self._total)
        if self.cell_lines and (self.verbosity >= VERBOSE or (self.verbosity == NORMAL and mark != "ok")):
            self.line(line, STYLES.get(mark))
        if self._progress is not None:
            spent = max(time.monotonic() - self._began, 1e-9)
            self._progress.update(self._task, completed=done, calls=self._calls, rate=f"{self._calls / spent:.0f}")

    def tick(self, done: int) -> None:
        """Where no terminal is redrawn, a progress line every SHOW_EVERY seconds."""
        now = time.monotonic()
        if self.tty or self.verbosity < NORMAL or now - self._shown < SHOW_EVERY:
            return
        self._shown = now
        spent = now - self._began
        left = f", about {clock(spent / done * (self._total - done))} left" if done else ""
        self.line(f"  {done}/{self._total} cells, {self._calls} calls ({self._calls / max(spent, 1e-9):.0f}/s){left}")

    def stop(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None

    def line(self, text: str, style: str | None = None, limit: int = TERMINAL_CHARS) -> None:
        """One line, made printable and cut to `limit` characters (a backend's message may be megabytes)."""
        from conformance.report.text import printable
        text = printable(text, limit)
        if self._console is not None or (self.colour and style):
            if self._console is None:
                from rich.console import Console
                self._console = Console(file=self.out, highlight=False, no_color=not self.colour)
            from rich.text import Text
            self._console.print(Text(text, style=style or ""), soft_wrap=True)
        else:
            self.out.write(text + "\n")
            self.out.flush()

    # ------------------------------------------------------------------ after it

    def end(self, results: dict[str, Any], folder: Path, backend_spec: str) -> int:
        """The failures with their replay commands, the ambiguities, the verdict line; the exit code."""
        from conformance.report.html import report_name
        from conformance.report.results import summary
        from conformance.report.text import replay_command
        self.stop()
        if self.verbosity >= VERBOSE:
            self.line("")
            for row in summary(results).splitlines():
                self.line(row)
        self.line("")
        if self.verbosity >= NORMAL:
            self._ambiguities(results)
        by_line = readings_by_command_line(results)
        for failure in results["failures"]:
            waived = " (WAIVED)" if failure.get("waived") else ""
            self.line(f"{failure['verdict']:<13} {failure['cell']}{waived}: {failure['message']}",
                      None if waived else STYLES.get(failure["verdict"]))
            if failure.get("reproducer"):
                self.line("              reproduce: " + replay_command(str(folder / failure["reproducer"]),
                                                                       backend_spec, readings=by_line))
        against = results.get("against")
        for divergence in (results.get("agreement") or {}).get("divergences", []):
            self.line(f"DIVERGE       {divergence['cell']}: {divergence['message']}", STYLES["DIVERGE"])
            if divergence.get("reproducer"):
                self.line("              reproduce: " + replay_command(
                    str(folder / divergence["reproducer"]), backend_spec, against["spec"], against.get("oracle", True),
                    readings=by_line))
        for err in results["errors"]:
            self.line(f"ERROR         {err}", STYLES["ERROR"])
        if results.get("stopped"):
            self.line(f"stopped: {results['stopped']}")
        for w in results.get("waivers") or []:
            if w["status"] != "applied":
                self.line(f"waiver {w['index']} {w['status'].upper()}: {w['reason']} ({w['tracker']}, expires "
                          f"{w['expires']})" + (f"; its failures count: {', '.join(w['cells'])}"
                                                if w["status"] == "expired" and w["cells"] else ""))
        counted = ", ".join(f"{k} {v}" for k, v in results["totals"].items())
        self.line(f"{verdict_words(results)}; {results['calls']} calls in {len(results['cells'])}/"
                  f"{len(results['planned'])} cells, {counted}; {results['duration_s']}s; seed {results['seed']}; "
                  f"report in {folder}", STYLES.get(results["verdict"], STYLES["INCOMPLETE"]), limit=100_000)
        if self.verbosity >= NORMAL:
            for path in [folder / "results.json", folder / "junit.xml",
                         *(folder / report_name(p) for p in results["products"])]:
                self.line("  " + str(path))
        if results.get("interrupted") or results.get("stopped"):
            self.line("interrupted: the results above are those gathered before the interruption")
            return {"SIGTERM": 143, "SIGHUP": 129}.get(results.get("stopped"), 130)
        if against and not results.get("agrees"):
            return EXIT_NONCONFORMING
        return EXIT_OK if passes(results) else EXIT_NONCONFORMING

    def _ambiguities(self, results: dict[str, Any]) -> None:
        """A line per ambiguity tested; the untested ones in one line, with what to do about them."""
        untested = []
        for amb in results["ambiguities"]:
            if not amb.get("calls") and not amb.get("by"):
                untested.append(amb["id"])
                continue
            counts = ", ".join(f"{k} {v}" for k, v in (amb.get("counts") or {}).items())
            who = f" (declared by {amb['by']})" if amb.get("by") else ""
            self.line(f"ambiguity {amb['id']}{who}: {amb.get('status') or 'not tested'}"
                      + (f": {amb['calls']} calls, {counts}" if amb.get("calls") else ""))
        if untested:
            self.line(f"{len(untested)} ambiguit{'y' if len(untested) == 1 else 'ies'} not tested (no reading "
                      f"declared): {', '.join(untested)}. Declare the reading your backend follows with "
                      f"--reading AMBIGUITY=READING (or its `readings`) to test it; `ascend-conformance specs` "
                      f"lists them")


def cell_line(result: dict[str, Any], done: int, total: int) -> tuple[str, str]:
    """One finished cell: its line (mark, id, calls, time, [done/total]) and its mark."""
    n = calls(result["counts"])
    if result.get("failure"):
        mark = result["failure"]["verdict"]
    elif result["status"] != "ran":
        mark = result["status"].upper()
    elif result.get("incomplete"):
        mark = "INCOMPLETE"
    else:
        mark = "ok"
    extra = f": {result['error']}" if result["status"] == "error" and result.get("error") else \
        f": {result['incomplete']}" if mark == "INCOMPLETE" else ""
    return f"  {mark:<14}{result['id']}  ({n} calls, {result['seconds']:.1f}s) [{done}/{total}]{extra}", mark


def readings_by_command_line(results: dict[str, Any]) -> dict[str, str]:
    """The readings the command line declared: a replay command repeats them (the backend declares its own)."""
    return {amb: r["reading"] for amb, r in (results.get("readings") or {}).items() if r.get("by") == "command line"}


def verdict_words(results: dict[str, Any]) -> str:
    """The verdict line's words: the verdict (one word everywhere: CONFORMANT, NOT CONFORMANT,
    INCOMPLETE) with its scope (report/ambiguities.py:verdict_text), and under --against whether the two
    backends agree."""
    from conformance.report.ambiguities import verdict_text
    words = verdict_text(results)
    against = results.get("against")
    if not against:
        return words
    agreed = results["agreement"]
    agreement = (("AGREES WITH" if agreed["verdict"] == "AGREE" else "DIVERGES FROM") + f" {against['name']!r} ("
                 + ", ".join(f"{k} {v}" for k, v in sorted(agreed["totals"].items())) + ")")
    if against.get("oracle", True):
        return f"{words}; {agreement}"
    return f"NOT HELD AGAINST THE ORACLE; {agreement} for {results['scope']['text']}"


def passes(results: dict[str, Any]) -> bool:
    """Exit 0: the results are CONFORMANT; for one shard of several (which never is, for its products),
    every cell of the shard conforms, so that each shard of a CI fan-out passes or fails on its own."""
    from conformance.report.overall_verdict import accepted
    shard = (results.get("scope") or {}).get("shard")
    return bool(shard["conforms"]) if shard else accepted(results["verdict"])


def clock(seconds: float) -> str:
    """h:mm:ss (what the fuzz loop and the progress lines print)."""
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
