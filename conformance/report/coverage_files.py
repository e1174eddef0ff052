"""The coverage files of a report folder (`--coverage`) and the summary results.json and the HTML show.

A hosted Python backend left coverage.py data files in the folder's `coverage/` (one per process,
conformance/backends/measure.py): they are combined into `.coverage` and written as `coverage.xml`,
the files coverage.py, Codecov and IDEs open. An exec program's points are named by its map file (one
line per point: id, file, line, function, tab-separated) and written as lcov's `coverage.info`, which
`genhtml` opens. The summary: per api, the lines and branches (edges) reached out of all, and the
functions never entered of the files its calls reached (of every file, for the whole run); per file,
the cell that first reached it."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from conformance.report.coverage_run import CoverageRun, arc_of, point_file

DATA_FOLDER = "coverage"        # where the backend's processes leave their data files
MAX_MAP_BYTES = 64 << 20


def write_coverage(folder: Path, run: CoverageRun) -> dict[str, Any] | None:
    """The coverage files written into `folder`, and the summary (None where nothing was reported)."""
    if not run:
        return None
    if run.map is not None:
        return _program(folder, run)
    return _python(folder, run)


def _fraction(reached: int, total: int) -> list[int]:
    return [reached, total]


# ------------------------------------------------------------------------------------ python backends

def _python(folder: Path, run: CoverageRun) -> dict[str, Any]:
    import coverage
    data_files = sorted(str(p) for p in (folder / DATA_FOLDER).glob(".coverage*"))
    cov = coverage.Coverage(data_file=str(folder / ".coverage"), branch=True, config_file=False)
    written = []
    if data_files:
        cov.combine(data_files, keep=True)
        cov.save()
        try:
            cov.xml_report(outfile=str(folder / "coverage.xml"), ignore_errors=True)
            written = [".coverage", "coverage.xml"]
        except coverage.CoverageException:
            written = [".coverage"]
    files = _python_files(cov)
    summary: dict[str, Any] = {"kind": "python", "written": written, "apis": {}}
    for api, points in sorted(run.by_api.items()):
        summary["apis"][api] = _python_reach(files, points)
    # the whole run: what the calls reached and what loading the backend ran (the data files hold both)
    executed = {f"{path}:{a}>{b}" for path, info in files.items() for a, b in info["executed"]}
    summary["total"] = _python_reach(files, set(run.first) | executed, per_api=False)
    summary["first_cell"] = run.first_cells(point_file)
    return summary


def _python_files(cov: Any) -> dict[str, dict[str, Any]]:
    """measured file -> its statements, branch arcs and functions (coverage.py's analysis)."""
    from coverage.python import PythonFileReporter
    out = {}
    for path in cov.get_data().measured_files():
        try:
            analysis = cov._analyze(path)
            regions = [r for r in PythonFileReporter(path, cov).code_regions() if r.kind == "function"]
        except Exception:               # noqa: BLE001 - a file gone or unreadable: left out of the totals
            continue
        branch_lines = {line for line, exits in analysis.exit_counts.items() if exits > 1}
        out[path] = {"statements": set(analysis.statements), "executed": set(analysis.arcs_executed_set),
                     "branches": {a for a in analysis.arc_possibilities if a[0] in branch_lines},
                     "functions": [(r.name, set(r.lines) & set(analysis.statements)) for r in regions]}
    return out


def _python_reach(files: dict[str, dict[str, Any]], points: set[Any], per_api: bool = True) -> dict[str, Any]:
    arcs: dict[str, set[tuple[int, int]]] = {}
    for point in points:
        if (arc := arc_of(point)) is not None:
            arcs.setdefault(arc[0], set()).add(arc[1:])
    lines = [0, 0]
    branches = [0, 0]
    never = []
    for path, info in sorted(files.items()):
        names = [rel for rel in arcs if path.endswith("/" + rel) or path == rel]
        got = set().union(*(arcs[n] for n in names))
        name = min(names, key=len) if names else None
        hit = {n for arc in got for n in arc if n > 0} & info["statements"]
        lines = [lines[0] + len(hit), lines[1] + len(info["statements"])]
        branches = [branches[0] + len(got & info["branches"]), branches[1] + len(info["branches"])]
        shown = name or Path(path).name
        if hit or not per_api:          # an api's list: the functions of the files its calls reached
            never += [f"{shown}:{fn}" for fn, body in info["functions"] if body and not body & hit]
    return {"lines": lines, "branches": branches, "never_entered": never}


# ------------------------------------------------------------------------------------ exec programs

def read_map(path: str) -> dict[int, tuple[str, int, str]]:
    """An exec program's map file: id -> (file, line, function); lines that do not parse are skipped."""
    out: dict[int, tuple[str, int, str]] = {}
    try:
        with open(path, "rb") as f:
            text = f.read(MAX_MAP_BYTES).decode("utf-8", "replace")
    except OSError:
        return out
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) == 4 and parts[0].isdigit() and parts[2].isdigit():
            out[int(parts[0])] = (parts[1][:4096], int(parts[2]), parts[3][:4096])
    return out


def _program(folder: Path, run: CoverageRun) -> dict[str, Any]:
    named = read_map(run.map or "")
    summary: dict[str, Any] = {"kind": "program", "written": [], "apis": {}}
    for api, points in sorted(run.by_api.items()):
        summary["apis"][api] = _program_reach(named, points)
    summary["total"] = _program_reach(named, set(run.first), per_api=False)
    summary["first_cell"] = run.first_cells(lambda p: named[p][0] if p in named else None)
    if named:
        (folder / "coverage.info").write_text(lcov(named, set(run.first)), encoding="utf-8")
        summary["written"] = ["coverage.info"]
    return summary


def _program_reach(named: dict[int, tuple[str, int, str]], points: set[Any], per_api: bool = True
                   ) -> dict[str, Any]:
    if not named:
        return {"lines": [0, 0], "branches": _fraction(len(points), 0), "never_entered": []}
    hit = {p for p in points if p in named}
    lines_all = {(f, n) for f, n, _ in named.values()}
    lines_hit = {named[p][:2] for p in hit}
    entered = {(named[p][0], named[p][2]) for p in hit}
    files = {f for f, _ in entered} if per_api else {f for f, _, _ in named.values()}
    functions = sorted({(f, fn) for f, _, fn in named.values() if f in files})
    return {"lines": [len(lines_hit), len(lines_all)], "branches": [len(hit), len(named)],
            "never_entered": [f"{f}:{fn}" for f, fn in functions if (f, fn) not in entered]}


def lcov(named: dict[int, tuple[str, int, str]], hit: set[Any]) -> str:
    """lcov's tracefile of the points reached: per file its functions (entered or not) and lines."""
    by_file: dict[str, dict[str, Any]] = {}
    for point, (name, line, fn) in sorted(named.items()):
        f = by_file.setdefault(name, {"lines": {}, "functions": {}})
        f["lines"][line] = f["lines"].get(line, 0) or int(point in hit)
        start, calls = f["functions"].get(fn, (line, 0))
        f["functions"][fn] = (min(start, line), calls or int(point in hit))
    out = []
    for name, f in sorted(by_file.items()):
        out.append(f"SF:{name}")
        out += [f"FN:{start},{fn}" for fn, (start, _) in sorted(f["functions"].items())]
        out += [f"FNDA:{calls},{fn}" for fn, (_, calls) in sorted(f["functions"].items())]
        out += [f"FNF:{len(f['functions'])}", f"FNH:{sum(1 for _, c in f['functions'].values() if c)}"]
        out += [f"DA:{line},{n}" for line, n in sorted(f["lines"].items())]
        out += [f"LF:{len(f['lines'])}", f"LH:{sum(1 for n in f['lines'].values() if n)}", "end_of_record"]
    return "\n".join(out) + "\n"
