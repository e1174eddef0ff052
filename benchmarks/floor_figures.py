"""(s) the numpy floor: per API, the calls a `ci` run of one product judges (its edge sweep and its searched
calls, one worker, the reference, in process) against numpy doing the same calls' unavoidable work (the
input images built, the index math applied, the bytes compared) with no drawing and no judging around it."""
from __future__ import annotations

import contextlib
import time

from oracle import Tensor, expected
from oracle.rules import context
from oracle.spec import default_rulebook

from conformance.backends.contract import OracleBackend
from conformance.generate.cells import cells
from conformance.generate.edges import sweep
from conformance.generate.profiles import profile
from conformance.judge.runner import cell_seed, run_cells
from conformance.judge.verdicts import same_bytes

RUN_SEED = 1
# main's figures (verified calls/s, one worker, in process, ci), the 2-core sandbox under the load of four
# other engineers, measured in turn with this figure's own: the "before" of the speed-ups of drawing
MAIN_CALLS = {"data_move": 1239.0, "data_copy": 2492.0, "data_copy_pad": 1550.0, "data_copy_nz2nd": 846.0,
              "vec_trans_scatter": 711.0, "scatter": 315.0, "asc_gather": 310.0}


def _cells_of(api: str, product: str) -> list:
    rulebook = default_rulebook()
    listed = rulebook.api(api).listed_products()
    return cells([product if product in listed else listed[0]], [api], rulebook=rulebook)


def _calls_of(chosen: list) -> list:
    """The calls a `ci` run of `chosen` judges when every one conforms: each cell's sweep, then its search."""
    rulebook, ci = default_rulebook(), profile("ci")
    return [case for cell in chosen for case in (*sweep(cell, rulebook, ci.gm_window),
                                                 *cell.draw(ci.calls, cell_seed(RUN_SEED, cell), rulebook,
                                                            ci.gm_window))]


def _reach(case) -> dict[str, int]:
    """Per scope, the bytes up to the farthest a tensor of the case's call holds or its call touches (the
    index math's runs, offsets read from the images), or a value is written: the images numpy needs,
    where the kit builds and compares the whole scope to see stray writes."""
    rulebook = default_rulebook()
    tensors = [t for v in case.call.args.values() for t in (v if isinstance(v, list) else [v])
               if isinstance(t, Tensor)]
    ends = [(t.scope, t.addr + t.numel * rulebook.itemsize(t.dtype)) for t in tensors]
    ends += [(w.scope, w.addr + w.data.size) for w in case.memory.writes]
    with contextlib.suppress(Exception):        # a call the rules refuse to shape: its tensors' ends
        accesses = context(case.call, case.memory.build(), rulebook).accesses
        ends += [(case.call.args[name].scope, case.call.args[name].addr + runs.span[1])
                 for name, runs in accesses.items() if isinstance(case.call.args.get(name), Tensor)
                 and hasattr(runs, "span") and not runs.empty]
    reach = dict.fromkeys(case.memory.sizes, 0)
    for scope, end in ends:
        reach[scope] = min(max(reach.get(scope, 0), end), case.memory.sizes.get(scope, end))
    return reach


def floor_seconds(calls: list) -> float:
    """Seconds numpy spends on `calls`: each call's images built from its recipe, as large as its tensors
    reach; for a legal call the image it must leave computed by the index math (its legality taken as
    known) and compared byte for byte with a copy standing for what the backend left (the least a
    backend's answer costs)."""
    recipes = [case.memory.resized(_reach(case)) for case in calls]
    start = time.perf_counter()
    for case, recipe in zip(calls, recipes):
        images = recipe.build()
        if case.expect != "legal":
            continue
        want = expected(case.call, images, violations=())
        for scope, image in want.memory.items():
            if image is not images.get(scope):
                same_bytes(image, image.copy())
    return time.perf_counter() - start


def kit_seconds(chosen: list) -> tuple[float, int]:
    """Seconds and verified calls of `run_cells` on `chosen` (the reference, ci, one worker in process)."""
    start = time.perf_counter()
    results = run_cells(chosen, OracleBackend(), profile("ci"), RUN_SEED, default_rulebook())
    return time.perf_counter() - start, sum(sum(r.counts.values()) for r in results)


def floor_figures(product: str, rounds: int = 2) -> None:
    """(s): per API, the kit's verified calls per second, main's, and the numpy floor of the same calls;
    the kit and the floor measured in turn, best of `rounds`."""
    from conformance.generate.memory import keep_freed_images
    from conformance.supervise.worker import settle_collector
    keep_freed_images()
    settle_collector()
    for api in sorted(MAIN_CALLS, key=lambda a: a != "data_move"):
        chosen = _cells_of(api, product)
        calls = _calls_of(chosen)
        kit_seconds(chosen[:2])                 # warm: imports, strategies, caches
        kit, floor = 0.0, 0.0
        for _ in range(rounds):
            seconds, judged = kit_seconds(chosen)
            kit = max(kit, judged / seconds)
            floor = max(floor, len(calls) / floor_seconds(calls))
        main = MAIN_CALLS[api]
        against = f"main {main:.0f}/s, {kit / main:.2f}x main" if main else "main not measured"
        print(f"(s) {api} on {chosen[0].product}, {len(chosen)} ci cells, {len(calls)} calls: kit {kit:.0f} verified "
              f"calls/s ({against}); numpy floor {floor:.0f} calls/s (images built, index math, bytes compared); "
              f"the kit at {floor / kit:.1f}x the floor's time")
