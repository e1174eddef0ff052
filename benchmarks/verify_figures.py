"""(u) verify on several cores: `verify -n 1` against `-n 2` (and `-n <cores>` where the machine has more
than 2) of the same bundle (`certify` of the reference on the product, every API), wall times of whole
processes, best of `rounds` taken in turn, and each as a ratio to -n 1. The machine's load and the CPU
seconds each verify took are printed beside them: on a shared machine another's work takes the cores the
figure counts on, and CPU / wall says how many it had."""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _timed(*args: str) -> tuple[float, float]:
    """Wall seconds of `python -m conformance ARGS`, and the CPU seconds it and its workers took."""
    import resource
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "conformance", *args], capture_output=True, text=True)
    wall = time.perf_counter() - began
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)}: exit {done.returncode}: {done.stdout[-500:]}{done.stderr[-500:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def verify_core_figures(product: str, profile: str = "ci", rounds: int = 2) -> None:
    import json
    cores = os.cpu_count() or 1
    counts = sorted({1, 2, cores})
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "b"
        certified, _ = _timed("certify", "--backend", "oracle", "--product", product, "--profile", profile,
                              "-n", "auto", "--bundle", str(folder))
        calls = json.loads((folder / "results.json").read_text())["calls"]
        load = os.getloadavg()[0]
        best = {n: (float("inf"), 0.0) for n in counts}
        for _ in range(rounds):
            for n in counts:
                best[n] = min(best[n], _timed("verify", str(folder), "-n", str(n)))
    print(f"(u) verify on several cores: {product}, every API, profile {profile}, {calls} calls (certify -n auto "
          f"{certified:.1f}s); {cores} cores, load {load:.2f} before, {os.getloadavg()[0]:.2f} after; "
          f"best of {rounds}")
    for n in counts:
        wall, cpu = best[n]
        print(f"    verify -n {n:<3} {wall:7.2f}s = {best[1][0] / wall:.2f}x the speed of -n 1; CPU {cpu:.1f}s, "
              f"{cpu / wall:.2f} cores busy on average")
