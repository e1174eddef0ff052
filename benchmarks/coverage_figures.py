"""Figures of `--coverage` (benchmarks/bench.py (o) and (p)) and of the C example against the reference ((t));
run with bench.py --only coverage|coverage-fuzz|sim.

(o) what measuring costs: the ci data_move cells of the product run by a Python backend (the tests' correct
    simulator, tests/buggy_backends.py DataMoveSim) with and without --coverage, and by the C example
    (examples/c_sim: its plain build, and its `make coverage` build under --coverage); verified calls per
    second over the cells' own time (start-up left out), the same seeded calls either way
                                            target: Python at most 2x slower, the C example at most 25%
(p) what steering finds: `fuzz` of the legal data_move cells of the product on tests/coverage_backends.py
    PagedSim (a bug behind a 4 KB fast path with a contiguous source), a fresh database each run, on three
    seeds, with and without --coverage: how many runs found the bug in the same time
                                            target: --coverage finds it more often, on every seed
(t) the C example against the reference: both as `exec` programs as a user runs them, verified calls per
    second over the cells both ran, and over each whole run (the cells of the readings only the C example
    declares named)                         target: the C example at least as fast over the same calls
"""
from __future__ import annotations

import contextlib
import io
import json
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from conformance.commands.cli import main as cli_main

ROOT = Path(__file__).resolve().parent.parent
PYTHON_BACKEND = "tests.buggy_backends:DataMoveSim"
PAGED = "tests.coverage_backends:PagedSim"


def _run(args: list[str]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(io.StringIO()), \
            contextlib.redirect_stderr(io.StringIO()):
        cli_main([*args, "--report", str(Path(tmp) / "r"), "--db", str(Path(tmp) / "db")]
                 if args[0] == "fuzz" else [*args, "--report", str(Path(tmp) / "r")])
        return json.loads((Path(tmp) / "r" / "results.json").read_text())


def _rate(results: dict[str, Any]) -> float:
    return results["calls"] / max(sum(c.get("seconds") or 0 for c in results["cells"]), 1e-9)


def _ci(product: str, backend: str, *more: str) -> float:
    return _rate(_run(["run", "--backend", backend, "--product", product, "--api", "data_move", "--profile", "ci",
                       "--seed", "1", "-n", "1", *more]))


def cost_figures(product: str, rounds: int = 2) -> None:
    plain = max(_ci(product, PYTHON_BACKEND) for _ in range(rounds))
    measured = max(_ci(product, PYTHON_BACKEND, "--coverage") for _ in range(rounds))
    print(f"(o) --coverage, ci data_move cells on {product}, -n 1 (best of {rounds}, calls/s over the cells' time):")
    print(f"    Python backend ({PYTHON_BACKEND}): plain {plain:.0f}, measured by coverage.py {measured:.0f} = "
          f"{plain / measured:.2f}x slower (target <= 2x)")
    sim = ROOT / "examples" / "c_sim"
    built = subprocess.run(["make", "-C", str(sim), "all", "coverage"], capture_output=True, text=True)
    if built.returncode != 0:
        print(f"    C example: `make coverage` failed: {built.stderr.strip().splitlines()[-1:]}")
        return
    c_plain = max(_ci(product, f"exec:{sim / 'c_sim'}") for _ in range(rounds))
    c_cov = max(_ci(product, f"exec:{sim / 'c_sim_cov'}", "--coverage") for _ in range(rounds))
    print(f"    C example: c_sim {c_plain:.0f}, c_sim_cov under --coverage {c_cov:.0f} = "
          f"{(c_plain / c_cov - 1) * 100:+.0f}% time per call (target <= +25%)")


def _cells_ran(results: dict[str, Any]) -> dict[str, tuple[int, float]]:
    """cell id -> (calls judged, seconds) of the cells of a run that judged calls."""
    out = {}
    for cell in results["cells"]:
        calls = sum((cell.get("counts") or {}).values())
        if calls:
            out[cell["id"]] = (calls, cell.get("seconds") or 0.0)
    return out


def _pace(cells: dict[str, tuple[int, float]], ids: set[str]) -> float:
    """Calls per second over the given cells' own time."""
    return sum(cells[i][0] for i in ids) / max(sum(cells[i][1] for i in ids), 1e-9)


def _named(ids: set[str]) -> str:
    """Cell ids less their api and product (`ambiguity/data_copy_pad.dummy.no_padding`), a few of them."""
    names = sorted(i.split("/", 2)[-1] for i in ids)
    return ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")


def sim_figures(product: str, rounds: int = 2) -> None:
    """(t): the C example simulator (examples/c_sim, its plain build) against the built-in reference, both
    through the exec protocol as a user runs them (`run ... -n 1`, ci, seed 1), the best of `rounds`: verified
    calls per second over the own time of the cells both ran (the same seeded calls), API by API; beside it,
    over every cell of each run. A backend that declares readings in its hello (the C example) also runs the
    ambiguity cells of those readings, which the reference, declaring none, does not: named where so."""
    sim = ROOT / "examples" / "c_sim"
    built = subprocess.run(["make", "-C", str(sim), "all"], capture_output=True, text=True)
    if built.returncode:
        print(f"(t) C example: `make` failed: {built.stderr.strip().splitlines()[-1:]}")
        return
    print(f"(t) the C example against the reference on {product}, ci, one worker, each in a process of its own, "
          f"best of {rounds}: calls/s over the cells both ran (target: the C example at least as fast), and "
          f"over each whole run")
    for api in ("data_move", "data_copy", "data_copy_pad", "data_copy_nd2nz", "data_copy_slice", "gather", "copy",
                "gatherb"):
        runs = {name: [_cells_ran(_run(["run", "--backend", backend, "--product", product, "--api", api,
                                        "--profile", "ci", "--seed", "1", "-n", "1"])) for _ in range(rounds)]
                for name, backend in (("reference", "oracle"), ("C example", f"exec:{sim / 'c_sim'}"))}
        ref, ours = (set(runs[name][0]) for name in ("reference", "C example"))
        both = ref & ours
        same = {name: max(_pace(cells, both) for cells in made) for name, made in runs.items()}
        whole = {name: max(_pace(cells, set(cells)) for cells in made) for name, made in runs.items()}
        line = (f"    {api:<18} same calls: reference {same['reference']:6.0f}, C example {same['C example']:6.0f} "
                f"calls/s = {same['C example'] / same['reference']:.2f}x;  whole runs: {whole['reference']:.0f} / "
                f"{whole['C example']:.0f} = {whole['C example'] / whole['reference']:.2f}x")
        for name, only in (("C example", ours - ref), ("reference", ref - ours)):
            if only:
                cells = runs[name][0]
                line += (f"\n{'':23}only the {name} ran {len(only)} cells ({_named(only)}): "
                         f"{sum(cells[i][0] for i in only)} calls, {sum(cells[i][1] for i in only):.2f} s")
        print(line)


def guided_figures(product: str, seconds: int = 30, seeds: tuple[int, ...] = (1, 2, 3)) -> None:
    found: dict[str, list[int]] = {"plain": [], "--coverage": []}
    for mode in found:
        for seed in seeds:
            results = _run(["fuzz", "--backend", PAGED, "--product", product, "--api", "data_move", "--select",
                            f"data_move/{product}/legal/*", "--duration", f"{seconds}s", "--seed", str(seed),
                            "-n", "1", *(["--coverage"] if mode == "--coverage" else [])])
            if any(c.get("failure") for c in results["cells"]):
                found[mode].append(seed)
    print(f"(p) fuzz of the legal data_move cells on {product}, {PAGED} (a bug behind a 4 KB fast path), "
          f"{seconds} s a run, seeds {', '.join(map(str, seeds))}, a fresh database each:")
    for mode, seeds_found in found.items():
        print(f"    {mode:>10}: found in {len(seeds_found)} of {len(seeds)} runs"
              + (f" (seeds {', '.join(map(str, seeds_found))})" if seeds_found else ""))
