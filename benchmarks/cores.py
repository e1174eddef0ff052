"""(j) cores, on a machine that has them and modelled where it has not.

  measure [N ...]   `ascend-conformance run --backend oracle --product P` (ci, seed 1) as a user runs it, a
                    process of its own, at each -n N: wall time, the CPU of it and its workers and backends
                    (with their page faults and the waits that slept: what a sandboxed kernel charges most
                    for as processes are added), the cells' own seconds (added up, and the longest), and each
                    width's speed-up over -n 1.
                    `--keep DIR` keeps each run's results.json as DIR/n<N>.json (the model's input).
  model N1 [N16]    16 workers modelled from the cells' seconds of a -n 1 run (its results.json): the tasks
                    handed out in the plan's order (the slow ones first) to the first free of 16 workers,
                    with -n 1's time outside the cells added. The cells as fast as at -n 1 give what the
                    handing out alone allows; a -n 16 run's results.json (N16) gives what its cells took
                    there, so the model shows how much of -n 16's wall time is waiting on the last cells
                    and how much every cell being slower (the cores shared by the workers, their backends
                    and the supervisor).

benchmarks/cores16.sh runs `measure 1 16` (the lead's 16-core check).
"""
from __future__ import annotations

import argparse
import heapq
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def run_once(product: str, workers: int, folder: str) -> dict:
    """One `run` at -n `workers`: its wall time, CPU (its processes and theirs), and results."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "conformance", "run", "--backend", "oracle", "--product", product,
                           "--seed", "1", "--profile", "ci", "--report", folder, "-n", str(workers), "-q"],
                          cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"run -n {workers} exited {done.returncode}: {done.stderr[-2000:]}")
    results = json.loads((Path(folder) / "results.json").read_text())
    return {"wall": wall, "cpu": after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime,
            "faults": after.ru_minflt - before.ru_minflt, "switches": after.ru_nvcsw - before.ru_nvcsw,
            "results": results}


def measure(product: str, widths: list[int], keep: str | None) -> None:
    walls = {}
    for n in widths:
        with tempfile.TemporaryDirectory() as tmp:
            r = run_once(product, n, tmp)
        seconds = [c["seconds"] for c in r["results"]["cells"]]
        walls[n] = r["wall"]
        print(f"(j) run {product}, ci, seed 1, -n {n}: {r['results']['calls']} calls in {r['wall']:.2f}s wall, "
              f"CPU {r['cpu']:.1f}s ({r['faults']} page faults, {r['switches']} waits that slept); before the "
              f"run's clock (start, workers and backends loaded, cells listed) "
              f"{r['wall'] - r['results']['duration_s']:.2f}s; the cells' own {sum(seconds):.1f}s, the longest "
              f"{max(seconds):.2f}s"
              + (f"; {walls[widths[0]] / r['wall']:.2f}x -n {widths[0]}" if n != widths[0] else ""), flush=True)
        if keep:
            Path(keep).mkdir(parents=True, exist_ok=True)
            Path(keep, f"n{n}.json").write_text(json.dumps(r["results"]))
    if len(widths) > 1:
        first, last = widths[0], widths[-1]
        print(f"(j) speed-up -n {last} over -n {first}: {walls[first] / walls[last]:.2f}x "
              f"({walls[first]:.2f}s / {walls[last]:.2f}s; target 12x at 16)")


def shares(order: list[str], seconds: dict[str, float], workers: int) -> list[float]:
    """Each worker's seconds when the tasks are handed out in `order` to the first free one."""
    free = [(0.0, i) for i in range(workers)]
    loads = [0.0] * workers
    for task in order:
        load, i = heapq.heappop(free)
        loads[i] = load + seconds[task]
        heapq.heappush(free, (loads[i], i))
    return loads


def plan_order(results: dict) -> list[str]:
    """The cells of a run's results in the order the plan hands them out (the slow ones first)."""
    from oracle.spec import default_rulebook

    from conformance.generate.cells import cells
    from conformance.generate.profiles import profile
    from conformance.supervise.plan import plan
    rulebook = default_rulebook()
    ran = {c["id"] for c in results["cells"]}
    products = sorted({c["id"].split("/")[1] for c in results["cells"]})
    return [t.cell.id for t in plan(cells(products, rulebook=rulebook), profile("ci"), 1, rulebook)
            if t.cell.id in ran]


def model(one_path: str, wide_path: str | None, workers: int = 16, start: float = 0.0) -> None:
    """`start`: the seconds before the run's clock (measure prints them), the same at every width."""
    one = json.loads(Path(one_path).read_text())
    seconds = {c["id"]: c["seconds"] for c in one["cells"]}
    outside = start + one["duration_s"] - sum(seconds.values())        # start and end, outside the cells
    order = plan_order(one)
    total = start + one["duration_s"]
    even = outside + max(shares(order, seconds, workers))
    print(f"(j) model, {workers} workers, the cells as fast as at -n 1 ({one_path}): {even:.2f}s = "
          f"{total / even:.2f}x -n 1's {total:.2f}s (time outside the cells {outside:.2f}s; the longest cell "
          f"{max(seconds.values()):.2f}s, an even share {sum(seconds.values()) / workers:.2f}s)")
    if wide_path is None:
        return
    wide = json.loads(Path(wide_path).read_text())
    there = {c["id"]: c["seconds"] for c in wide["cells"]}
    slower = sum(there.values()) / sum(seconds.values())
    modelled = outside + max(shares(order, there, workers))
    print(f"    with each cell as long as at -n {workers} ({wide_path}; {slower:.2f}x -n 1's on the whole): "
          f"{modelled:.2f}s = {total / modelled:.2f}x; measured {start + wide['duration_s']:.2f}s = "
          f"{total / (start + wide['duration_s']):.2f}x (its duration_s and the same start)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    m = sub.add_parser("measure")
    m.add_argument("widths", nargs="*", type=int, default=[1, 16])
    m.add_argument("--product", default="ascend910b")
    m.add_argument("--keep")
    d = sub.add_parser("model")
    d.add_argument("one")
    d.add_argument("wide", nargs="?")
    d.add_argument("--workers", type=int, default=16)
    d.add_argument("--start", type=float, default=0.0, help="seconds before the run's clock (measure prints them)")
    args = ap.parse_args()
    if args.what == "measure":
        measure(args.product, args.widths, args.keep)
    else:
        model(args.one, args.wide, args.workers, args.start)


if __name__ == "__main__":
    main()
