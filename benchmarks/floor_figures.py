"""(s) the numpy floor: per API, the calls a `ci` run of one product judges (its edge sweep and its searched
calls, one worker, the reference, in process) against numpy doing the same calls' unavoidable work (the
input images built, the index math applied, the bytes compared) with no drawing and no judging around it.

Beside it, the same calls judged again as the kit judges them (the legality check, the reference's
answer, the expected image, the comparison) with nothing drawn: what a call costs once it exists. With
main's rate, the time per call a target allows is split in two: what judging takes, and what is left for
drawing the call and the run around it."""
from __future__ import annotations

import contextlib
import time

from oracle import Tensor, expected
from oracle.rules import context
from oracle.spec import default_rulebook

from conformance.generate.cells import cells
from conformance.generate.edges import sweep
from conformance.generate.profiles import profile
from conformance.backends.contract import OracleBackend
from conformance.judge.judging import judge_case
from conformance.judge.runner import cell_seed
from conformance.judge.verdicts import same_bytes

from benchmarks.against_main import MAIN_COMMIT, in_process, side_by_side

RUN_SEED = 1
# calls per core asked of the kit, as a multiple of main's (benchmarks/against_main.py: MAIN_COMMIT)
TARGETS = {"data_move": 3, "data_copy": 3, "data_copy_pad": 3, "data_copy_nz2nd": 4, "vec_trans_scatter": 4,
           "scatter": 6, "asc_gather": 6}


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


def judging_seconds(calls: list) -> float:
    """Seconds the kit spends judging `calls` already drawn (judge_case with the reference in process):
    the part of a run no drawing, however cheap, takes away."""
    rulebook, backend = default_rulebook(), OracleBackend()
    start = time.perf_counter()
    for case in calls:
        judge_case(case, backend, rulebook)
    return time.perf_counter() - start


def floor_figures(product: str, rounds: int = 2, apis: list[str] | None = None) -> None:
    """(s): per API, the kit's verified calls per second beside main's (measured in turn, in processes of
    their own: against_main.py), as the target's multiple, and the numpy floor of the same calls."""
    from conformance.generate.memory import keep_freed_images
    from conformance.supervise.worker import settle_collector
    keep_freed_images()
    settle_collector()
    for api in sorted(apis or TARGETS, key=lambda a: a != "data_move"):
        chosen = _cells_of(api, product)
        calls = _calls_of(chosen)
        floor = max(len(calls) / floor_seconds(calls) for _ in range(rounds))
        kit = max(in_process(None, api, chosen[0].product)["rate"] for _ in range(rounds))
        print(f"(s) {api} on {chosen[0].product}, {len(chosen)} ci cells, {len(calls)} calls: numpy floor {floor:.0f} "
              f"calls/s (images built, index math, bytes compared); the kit at {floor / kit:.1f}x the floor's time")
        figures = side_by_side(api, chosen[0].product, rounds)
        if figures is None:
            print(f"    main ({MAIN_COMMIT}) cannot be taken out of this checkout (no git history): no ratio")
            continue
        for name, (main, mine) in figures.items():
            print(f"    {name}: main {main:.0f}, kit {mine:.0f} verified calls/s: {mine / main:.2f}x main "
                  f"(target {TARGETS[api]}x)")
        judging = min(judging_seconds(calls) for _ in range(rounds)) / len(calls)
        main, mine = figures["in process"]
        allowed = 1e6 / (TARGETS[api] * main)
        print(f"    per call in process: the target allows {allowed:.0f} us; the kit takes {1e6 / mine:.0f} us, of "
              f"which judging the drawn call takes {judging * 1e6:.0f} us (judged again, nothing drawn) and "
              f"drawing it and the run around it {1e6 / mine - judging * 1e6:.0f} us; left for those at the "
              f"target: {allowed - judging * 1e6:.0f} us")
