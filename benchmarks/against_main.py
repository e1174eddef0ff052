"""Main's figures measured beside the kit's, in one run on one machine.

A target set as "N times main" is a ratio to main as it was when it was set: that commit's tree is taken
out of the repository once (`git archive`, into the temporary directory), and the same measurement runs
over it and over this tree in turn, each in a process of its own, so that the load of the machine at the
time weighs on both alike. Two measurements, per API:

- in process: `run_cells` of the `ci` cells of one product, one worker, the reference, timed once in a
  fresh process once the kit is imported (what the kit's own drawing and judging cost; a second run of the
  same seed in one process would find the sizes, sweeps and strategies of the first one worked out);
- as a user runs it: `run --backend oracle --product P --api A -n 1 --profile ci --seed 1` as a command,
  verified calls over the command's wall time (its start, its supervised worker, the backend in a process
  of its own, its report).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
# the main the calls-per-core targets of (s) are multiples of
MAIN_COMMIT = "1a6a60c"

_RATE = """
import json, sys, time
from oracle.spec import default_rulebook
from conformance.backends.contract import OracleBackend
from conformance.generate.cells import cells
from conformance.generate.memory import keep_freed_images
from conformance.generate.profiles import profile
from conformance.judge.runner import run_cells
from conformance.supervise.worker import settle_collector
api, product = sys.argv[1], sys.argv[2]
rulebook, ci = default_rulebook(), profile("ci")
chosen = cells([product], [api], rulebook=rulebook)
keep_freed_images(); settle_collector()
start = time.perf_counter()
results = run_cells(chosen, OracleBackend(), ci, 1, rulebook)
spent = time.perf_counter() - start
calls = sum(sum(r.counts.values()) for r in results)
print(json.dumps({"rate": calls / spent, "calls": calls, "cells": len(chosen)}))
"""


def main_tree(commit: str = MAIN_COMMIT) -> Path | None:
    """The tree of `commit`, taken out of this checkout's repository once (None where there is no git or
    no such commit: a kit installed without its history)."""
    folder = Path(tempfile.gettempdir()) / f"ascend-conformance-main-{commit}"
    if (folder / "conformance").is_dir():
        return folder
    try:
        archive = subprocess.run(["git", "-C", str(REPO), "archive", commit], capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    part = Path(tempfile.mkdtemp(prefix=folder.name + "-", dir=folder.parent))
    subprocess.run(["tar", "-x", "-C", str(part)], input=archive, check=True)
    try:
        part.rename(folder)
    except OSError:             # another bench took it out meanwhile
        pass
    return folder if (folder / "conformance").is_dir() else None


def _env(tree: Path | None) -> dict[str, str]:
    """This environment, its kit taken from `tree` (None: this checkout), bytecode cached apart per tree."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
    root = tree or REPO
    env["PYTHONPATH"] = str(root)
    env["PYTHONPYCACHEPREFIX"] = os.path.join(tempfile.gettempdir(), f"ascend-conformance-bench-pycache-{root.name}")
    return env


def in_process(tree: Path | None, api: str, product: str) -> dict:
    """Verified calls per second of `run_cells` over the kit of `tree` (None: this checkout), in a fresh
    process."""
    out = subprocess.run([sys.executable, "-c", _RATE, api, product], capture_output=True, text=True,
                         cwd=str(tree or REPO), env=_env(tree), check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def as_user(tree: Path | None, api: str, product: str) -> dict:
    """Verified calls per second of wall time of `run` as a command, over the kit of `tree`."""
    with tempfile.TemporaryDirectory() as folder:
        began = time.monotonic()
        subprocess.run([sys.executable, "-m", "conformance", "run", "--backend", "oracle", "--product", product,
                        "--api", api, "-n", "1", "--profile", "ci", "--seed", "1", "--report", folder, "-q"],
                       capture_output=True, cwd=str(tree or REPO), env=_env(tree), check=True)
        wall = time.monotonic() - began
        calls = sum(json.loads((Path(folder) / "results.json").read_text())["totals"].values())
    return {"rate": calls / wall, "calls": calls, "wall": wall}


def side_by_side(api: str, product: str, rounds: int = 2) -> dict[str, tuple[float, float]] | None:
    """Per measurement, (main's calls/s, this tree's), taken in turn; None without main's tree."""
    tree = main_tree()
    if tree is None:
        return None
    figures: dict[str, tuple[float, float]] = {}
    for name, measure in (("in process", lambda t: in_process(t, api, product)),
                          ("as a user runs it", lambda t: as_user(t, api, product))):
        main_best = kit_best = 0.0
        for _ in range(rounds):
            main_best = max(main_best, measure(tree)["rate"])
            kit_best = max(kit_best, measure(None)["rate"])
        figures[name] = (main_best, kit_best)
    return figures
