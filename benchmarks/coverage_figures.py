"""Figures of `--coverage` (benchmarks/bench.py (o) and (p)); run with bench.py --only coverage|coverage-fuzz.

(o) what measuring costs: the ci data_move cells of the product run by a Python backend (the tests' correct
    simulator, tests/buggy_backends.py DataMoveSim) with and without --coverage, and by the C example
    (examples/c_sim: its plain build, and its `make coverage` build under --coverage); verified calls per
    second over the cells' own time (start-up left out), the same seeded calls either way
                                            target: Python at most 2x slower, the C example at most 25%
(p) what steering finds: `fuzz` of the legal data_move cells of the product on tests/coverage_backends.py
    PagedSim (a bug behind a 4 KB fast path with a contiguous source), a fresh database each run, on three
    seeds, with and without --coverage: how many runs found the bug in the same time
                                            target: --coverage finds it more often, on every seed
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


def sim_figures(product: str, rounds: int = 2) -> None:
    """(t): the C example simulator (examples/c_sim, its plain build) against the built-in reference, both
    through the exec protocol as a user runs them (`run ... -n 1`, ci, seed 1): verified calls per second
    over the cells' own time, API by API, the best of `rounds`."""
    sim = ROOT / "examples" / "c_sim"
    built = subprocess.run(["make", "-C", str(sim), "all"], capture_output=True, text=True)
    if built.returncode:
        print(f"(t) C example: `make` failed: {built.stderr.strip().splitlines()[-1:]}")
        return
    print(f"(t) the C example against the reference on {product}, ci, one worker, each in a process of its own "
          f"(target: the C example at least as fast)")
    for api in ("data_move", "data_copy", "data_copy_pad", "data_copy_nd2nz", "data_copy_slice", "gather", "copy",
                "gatherb"):
        rates = {}
        for name, backend in (("reference", "oracle"), ("C example", f"exec:{sim / 'c_sim'}")):
            rates[name] = max(_rate(_run(["run", "--backend", backend, "--product", product, "--api", api,
                                          "--profile", "ci", "--seed", "1", "-n", "1"])) for _ in range(rounds))
        print(f"    {api:<18} reference {rates['reference']:6.0f} calls/s, C example {rates['C example']:6.0f} "
              f"calls/s = {rates['C example'] / rates['reference']:.2f}x")


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
