"""(k) per message: the CPU one exchange with a hosted Python backend costs each of its three processes: the
kit's worker (ExecBackend.send, then finish, one call sent ahead as a run sends it), the host's relay
(conformance/backends/respawn.py) and the forked child that runs the backend (conformance/backends/serve.py).
One data_move call that runs and one that is refused, each sent N times to the reference served as every
run serves it (`python -m conformance.backends.host oracle SPECS`); CPU read from /proc per process.

    python benchmarks/exchange.py [N]

Run it with another tree's kit first on PYTHONPATH to measure that tree (the host follows the worker's path)."""
from __future__ import annotations

import os
import signal
import sys
import time

from oracle import Call
from oracle.spec import load_rulebook

from conformance.backends.loading import load_backend
from conformance.generate.memory import keep_freed_images

SIZES = {"UB": 196608, "GM": 8256}
RAN = {"api": "data_move", "product": "ascend910b", "form": None,
       "args": {"dst": {"scope": "UB", "addr": 0, "dtype": "float16", "numel": 256},
                "src": {"scope": "GM", "addr": 64, "dtype": "float16", "numel": 256},
                "sid": 0, "nburst": 2, "burst": 4, "src_stride": 0, "dst_stride": 0}}
REFUSED = {**RAN, "args": {**RAN["args"], "burst": 0}}
TICK = os.sysconf("SC_CLK_TCK")


def _cpu(pid: int) -> float:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def _children(pid: int) -> list[int]:
    return [int(x) for x in open(f"/proc/{pid}/task/{pid}/children").read().split()]


def exchanges(backend, call: Call, n: int) -> None:
    """`n` calls sent and answered, each sent before the one before it is finished (as judge_case's `then`)."""
    text, sent = call.to_json(), None
    for _ in range(n):
        ahead = backend.send(call, backend.images(SIZES, sent.places if sent else None), text)
        if sent is not None:
            try:
                backend.finish(sent)
            except Exception:               # noqa: BLE001 - the refused call's Rejected
                pass
        sent = ahead
    try:
        backend.finish(sent)
    except Exception:                       # noqa: BLE001
        pass


def main(n: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)        # as in the kit's workers: no handler swapped per call
    keep_freed_images()
    backend = load_backend("oracle", isolate=True, rulebook=load_rulebook())
    host = backend.program.proc.pid
    try:
        for name, data in (("runs", RAN), ("refused", REFUSED)):
            call = Call.from_dict(data)
            exchanges(backend, call, 200)
            child = _children(host)
            before, mine, began = (_cpu(host), sum(map(_cpu, child))), os.times(), time.perf_counter()
            exchanges(backend, call, n)
            wall, now = time.perf_counter() - began, os.times()
            worker = now.user - mine.user + now.system - mine.system
            host_s, child_s = _cpu(host) - before[0], sum(map(_cpu, _children(host))) - before[1]
            print(f"(k) one exchange, a call that {name}: {n / wall:.0f}/s; CPU us per exchange: worker "
                  f"{worker / n * 1e6:.1f}, host {host_s / n * 1e6:.1f}, child {child_s / n * 1e6:.1f}, "
                  f"all {(worker + host_s + child_s) / n * 1e6:.1f}", flush=True)
    finally:
        backend.close()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 4000)
