"""What the tests that run known-buggy backends through the suite share (tests/<api>/test_catches_bugs.py).

Each of them: runs a buggy backend on some cells with the real strategies and runner, checks every failure
the suite records (its verdict and cell, that generation stopped at the first non-conforming call, that the
reproducer is plain data that replays to the same verdict and that the reference passes), and runs a
correct simulator checked call by call against the reference as the control.
"""
from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import pytest

from conformance import OracleBackend, Rejected
from conformance.generate.cells import Cell, cells, select
from conformance.generate.memory import MemoryRecipe
from conformance.generate.profiles import Profile, profile
from conformance.judge.cell_result import CellResult
from conformance.judge.runner import run_cells
from conformance.judge.verdicts import NONCONFORMING, judge
from oracle import Call, check, verdict_class
from oracle.rules import context
from oracle.spec import default_rulebook

CI = profile("ci")
QUICK = profile("quick")


@dataclass
class Expect:
    backend: type
    run: list[str]                                   # cell globs to run the backend on
    must: dict[str, set[str]]                        # cell glob -> verdicts allowed; every such cell must fail
    may: dict[str, set[str]] = field(default_factory=dict)   # may fail, with one of these verdicts
    shrunk: Callable[[dict[str, Any], Call], None] | None = None   # checks on the reproducer of each failure
    # the readings the run declares (ambiguity id -> reading id): a bug inside an ambiguity's region is
    # looked for in its ambiguity cell (`api/product/ambiguity/<id>` in `run`), judged by the reading
    readings: dict[str, str] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.backend.name


def match(cell_id: str, globs: dict[str, set[str]]) -> set[str] | None:
    for glob, verdicts in globs.items():
        if fnmatch.fnmatchcase(cell_id, glob):
            return verdicts
    return None


def select_cells(patterns: list[str]) -> list[Cell]:
    """The cells of the APIs and products the globs name (`api/product/...`) that they match; a glob
    `api/product/ambiguity/<id>` names the cell of that ambiguity."""
    products = sorted({p.split("/")[1] for p in patterns})
    apis = sorted({p.split("/")[0] for p in patterns})
    named = sorted({p.split("/")[3] for p in patterns if p.count("/") == 3 and p.split("/")[2] == "ambiguity"})
    return select(cells(products, apis, rulebook=default_rulebook(), ambiguities=named), patterns)


def run(backend: Any, patterns: list[str], seed: int, prof: Profile = CI,
        readings: dict[str, str] | None = None) -> list[CellResult]:
    chosen = select_cells(patterns)
    assert chosen, f"no cell matches {patterns}"
    return run_cells(chosen, backend, prof, seed, default_rulebook(), readings=readings)


def replay(failure: dict[str, Any], backend: Any) -> str:
    """The verdict `backend` gets on a recorded failure, from its plain-data form alone (under the
    readings it was judged by)."""
    call = Call.from_dict(failure["call"])
    recipe = MemoryRecipe.from_dict(failure["memory"])
    return judge(call, recipe, backend, default_rulebook().with_readings(failure.get("readings") or {})).verdict.value


def assert_caught(expect: Expect, seed: int, correct: Callable[[], Any] | None = None, min_cells: int = 1,
                  check_failure: Callable[[dict[str, Any], Call], None] | None = None) -> None:
    """Run the bug where `expect` says and check every cell: caught where it must be, with an allowed
    verdict, and each failure a replayable reproducer the reference (and `correct`, a correct simulator)
    passes; a missed rejection is refused by `correct` for the very rule the suite named."""
    backend = expect.backend()
    results = run(backend, expect.run, seed, readings=expect.readings)
    ran = {r.id for r in results}
    assert len(ran) == len(results) >= min_cells
    for glob in expect.must:
        assert any(fnmatch.fnmatchcase(c, glob) for c in ran), f"no cell run for {glob}"
    seen: dict[str, str] = {}
    for r in results:
        assert r.status == "ran", f"{r.id}: status {r.status}: {r.error}"
        must, may = match(r.id, expect.must), match(r.id, expect.may)
        if r.failure is None:
            assert must is None, f"{backend.name} not caught in {r.id} (counts {r.counts}, tags {r.tags})"
            assert not set(r.counts) - {"PASS", "UNDEFINED"}, (r.id, r.counts)
            continue
        f = r.failure
        seen[r.id] = f["verdict"]
        allowed = must if must is not None else may
        assert allowed is not None, f"{r.id}: unexpected {f['verdict']}: {f['message']}"
        assert f["verdict"] in allowed, f"{r.id}: {f['verdict']} (want {sorted(allowed)}): {f['message']}"
        assert f["cell"] == r.id
        # generation stops at the first non-conforming call. (Its verdict may differ from the shrunk
        # one: a CRASH can shrink into a FAIL, since the runner raises one exception type for both.)
        assert sum(r.counts.get(v, 0) for v in NONCONFORMING) == 1, (r.id, r.counts)
        call = Call.from_dict(f["call"])
        assert call.product == r.cell["product"] and call.api == r.cell["api"]
        if check_failure:
            check_failure(f, call)
        if expect.shrunk:
            expect.shrunk(f, call)
        # the reproducer is plain data and replays to the same verdict; the reference passes it
        assert replay(f, backend) == f["verdict"], f"{r.id}: the recorded failure does not replay"
        assert replay(f, OracleBackend()) in ("PASS", "UNDEFINED"), "the reference fails the reproducer"
        if correct is None:
            continue
        assert replay(f, correct()) in ("PASS", "UNDEFINED"), "the correct simulator fails the reproducer"
        if f["verdict"] == "MISSED_REJECT":
            broken = [v["rule"] for v in f["violations"] if v["severity"] == "reject"]
            assert broken == [f["rule"]], (broken, f["rule"])
            with pytest.raises(Rejected) as refused:
                correct().run(call, MemoryRecipe.from_dict(f["memory"]).build())
            assert refused.value.rule == f["rule"]
    assert seen, f"{backend.name} was not caught anywhere"


class Disagreement(AssertionError):
    """The correct simulator and the reference did different things with one call."""


class CheckedSim:
    """A correct simulator, with the reference run on a copy of the same memory for every call: what the
    simulator does is what is judged, and any call on which the two part ways (one refuses, the other
    runs; with `same_rule`, they refuse a call of one broken reject rule for different rules; or, on a
    legal call, their images differ) raises, which the runner reports as a CRASH. So one run of the cells
    shows both that the simulator conforms and that the reference does on the same calls."""

    def __init__(self, sim: Any, name: str, same_rule: bool = False, readings: dict[str, str] | None = None):
        self.sim, self.ref, self.name, self.same_rule = sim, OracleBackend(readings=readings), name, same_rule
        self.readings = dict(readings or {})          # what the reference and the judging follow
        self.calls = {"refused": 0, "ran": 0, "moved": 0}

    def supports(self, api: str, product: str) -> bool:
        assert self.sim.supports(api, product) == self.ref.supports(api, product)
        return self.sim.supports(api, product)

    def run(self, call: Call, memory: dict[str, np.ndarray]) -> None:
        klass = verdict_class(check(call, memory, readings=self.readings))   # on the images as they come
        theirs = {scope: image.copy() for scope, image in memory.items()}
        try:
            self.ref.run(call, theirs)
            ref_refused: Rejected | None = None
        except Rejected as exc:
            ref_refused = exc
        try:
            self.sim.run(call, memory)
        except Rejected as exc:
            if ref_refused is None:
                raise Disagreement(f"the simulator refused ({exc.rule}: {exc}), the reference ran it") from None
            if self.same_rule and klass == "reject" and exc.rule != ref_refused.rule:
                raise Disagreement(f"refused for {exc.rule}, the reference for {ref_refused.rule}") from None
            self.calls["refused"] += 1
            raise
        if ref_refused is not None:
            raise Disagreement(f"the reference refused ({ref_refused.rule}), the simulator ran it")
        self.calls["ran"] += 1
        self.calls["moved"] += any(r is not None and not r.empty for rs in context(call, memory).accesses.values()
                                   for r in (rs if isinstance(rs, list) else [rs]))
        if klass == "legal":
            for scope, image in theirs.items():
                if not np.array_equal(image, memory[scope]):
                    raise Disagreement(f"the images differ in {scope} from byte "
                                       f"{int(np.flatnonzero(image != memory[scope])[0])}")


def offsets_travel(failure: dict[str, Any], call: Any) -> None:
    """A failure of an offset-addressed API: its reproducer carries the offsets (they are memory)."""
    assert failure["memory"].get("writes"), "the offsets travel with the reproducer"


def assert_controls_conform(backend: CheckedSim, results: list[CellResult], prof: Profile,
                            kinds: set[str]) -> None:
    """Every control cell ran to the end with no failure: PASS everywhere, UNDEFINED in undefined cells."""
    for r in results:
        assert r.status == "ran", f"{r.id}: {r.status}: {r.error}"
        assert r.failure is None, f"{r.id}: {r.failure['verdict']}: {r.failure['message']}"
        assert sum(r.counts.values()) == prof.calls + r.sweep_calls, (r.id, r.counts)   # the sweep, then the search
        assert set(r.counts) == ({"UNDEFINED"} if r.cell["kind"] == "undefined" else {"PASS"}), (r.id, r.counts)
    assert {r.cell["kind"] for r in results} == kinds
    assert backend.calls["refused"] > 0 and backend.calls["ran"] > 0 and backend.calls["moved"] > 0


def control_cells(controls: dict[str, list[str]], which: str) -> list[Cell]:
    """The cells of control group `which`. The group "bug-cells" holds every cell a bug is run on (run
    under `ci`, as the bugs are); the other groups leave those out (they are run under `quick`)."""
    chosen = select_cells(controls[which])
    if which == "bug-cells":
        return chosen
    done = {c.id for c in select_cells(controls["bug-cells"])}
    return [c for c in chosen if c.id not in done]


def assert_controls_cover(controls: dict[str, list[str]], bugs: list[Expect]) -> list[str]:
    """No cell is run twice by the controls, and every cell a bug is run on is among them."""
    controlled = [c.id for which in controls for c in control_cells(controls, which)]
    assert len(controlled) == len(set(controlled))
    for e in bugs:
        ids = {c.id for c in select_cells(e.run)}
        assert ids <= set(controlled), (e.id, sorted(ids - set(controlled)))
    return controlled


def assert_listed(backends: list[type], bugs: list[Expect], least: int, documented: bool = True) -> None:
    """At least `least` buggy backends, each expected exactly once, with distinct names, and every cell glob
    a bug is run on names a cell that exists (a glob that names none would leave its check to pass on the
    cells the others name, or on none); `documented`: each says its bug and, in its docstring, the verdict
    the suite must give ("Expected:")."""
    assert len(backends) >= least
    assert {e.backend for e in bugs} == set(backends)
    assert len({cls.name for cls in backends}) == len(backends)
    for e in bugs:
        for pattern in e.run:
            assert select_cells([pattern]), f"{e.id}: no cell is {pattern}"
    if documented:
        assert all(cls.bug and cls.__doc__ and "Expected:" in cls.__doc__ for cls in backends)


def region_cases(cell: Cell, drawn: int = 25, seed: int = 18) -> list:
    """The cell's edge sweep and `drawn` seeded calls: what the ambiguity tests judge one by one
    under the readings they declare (verdicts.judge: no search, no shrinking)."""
    from conformance.generate.edges import sweep
    cases = sweep(cell, default_rulebook()) + cell.draw(drawn, seed, default_rulebook())
    assert cases, f"no call drawn for {cell.id}"
    return cases
