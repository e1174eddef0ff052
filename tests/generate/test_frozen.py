"""The frozen case list (conformance/generate/frozen_cases.jsonl.gz) that `certify` runs.

Checked: it loads and names only existing cells; every reachable cell has cases (the ambiguity cells
of every ambiguity included, which certify selects from by the declared readings); every case still has
the verdict the spec gives it (a spec change that outdates the file fails here, telling how to
regenerate it); it reaches the boundaries (every reachable edge of every cell, in the cell); freeze() gives the
same bytes twice; the reference backend conforms on a product's cases; a damaged file is reported
with its name and line.
"""
from __future__ import annotations

import gzip
import hashlib
import json
from functools import lru_cache
from pathlib import Path

import pytest

from conformance import load_backend
from conformance.generate.cells import Cell, ambiguity_ids, cells
from conformance.generate.edges import targets
from conformance.generate.frozen import (EXAMPLES, FROZEN_PATH, FrozenDataError, case_line, draw_cases, freeze,
                                        freeze_cell, frozen_hash, load_frozen)
from conformance.judge.verdicts import judge
from oracle import check, verdict_class
from oracle.spec import default_rulebook

REGENERATE = "the spec changed since the case list was frozen: regenerate with `python -m conformance.generate.frozen`"
PRODUCTS = list(default_rulebook().products)


@lru_cache(maxsize=None)
def _cells() -> dict[str, Cell]:
    book = default_rulebook()
    return {c.id: c for c in cells(PRODUCTS, rulebook=book, ambiguities=ambiguity_ids(rulebook=book))}


def _tags(cell_id: str) -> set[str]:
    return {t for case in load_frozen().get(cell_id, []) for t in case.tags}


def test_file_loads_and_names_only_existing_cells():
    frozen = load_frozen()
    assert frozen and load_frozen() is frozen                  # read once per process
    unknown = sorted(set(frozen) - set(_cells()))
    assert not unknown, f"frozen cases for cells that no longer exist ({unknown[:5]}); {REGENERATE}"
    for cell_id, cases in frozen.items():
        cell = _cells()[cell_id]
        for case in cases:
            assert (case.call.api, case.call.product, case.expect, case.rule) == (
                cell.api, cell.product, cell.expect, cell.rule), f"{cell_id}: case labelled for another cell"


def test_every_reachable_cell_has_frozen_cases():
    """A cell without cases is fine only if its strategy still cannot make a call (unreachable)."""
    missing = [c for cid, c in _cells().items() if cid not in load_frozen()]
    reachable = [c.id for c in missing if draw_cases(c, 20, default_rulebook())]
    assert not reachable, f"{len(reachable)} cells have no frozen cases ({reachable[:5]}); {REGENERATE}"


def test_every_case_still_gets_its_verdict():
    """The oracle's verdict class of every frozen case is the one recorded, and a reject / undefined
    case still breaks its cell's rule. Memory is built only where the rules read it (offsets)."""
    wrong = []
    for cell_id, cases in load_frozen().items():
        for case in cases:
            memory = case.memory.build() if case.memory.writes else None
            violations = check(case.call, memory)
            broken = {v.rule for v in violations}
            # an ambiguity case: undefined while no reading is declared, in its ambiguity's region
            klass = "ambiguity" if case.expect == "ambiguity" and verdict_class(violations) == "undefined" \
                else verdict_class(violations)
            if klass != case.expect or (case.rule is not None and case.rule not in broken):
                wrong.append(f"{cell_id}: expected {case.expect}, oracle says {verdict_class(violations)} "
                             f"({', '.join(sorted(broken)) or 'no violation'})")
    assert not wrong, f"{len(wrong)} frozen cases disagree with the spec, e.g. {wrong[:3]}; {REGENERATE}"


def test_cases_round_trip():
    """What load_frozen rebuilds serialises back to the stored call and memory."""
    with gzip.open(FROZEN_PATH, "rt", encoding="ascii") as f:
        first = json.loads(f.readline())
    case = next(c for c in load_frozen()[first["cell"]]
                if c.call.to_dict() == first["call"] and c.memory.to_dict() == first["memory"])
    assert list(case.tags) == first["tags"]


def test_largest_fits_are_reached():
    tags = _tags("data_move/ascend910b/legal/float16")
    assert tags & {"nburst=max", "nburst=largest-fit"}, tags
    assert tags & {"burst=max", "burst=largest-fit"}, tags
    gather = {t for cid in _cells() if cid.startswith("asc_gather/ascend910b/legal/") for t in _tags(cid)}
    assert "count=largest-fit" in gather        # a big case: covered once per api and product


def test_every_reachable_edge_is_frozen():
    """Every edge a cell's rules make reachable (conformance/generate/edges.py: range ends and largest fits, tops
    of scopes, masks, one past each end, every misalignment, each forbidden path and dtype...) is
    reached by a frozen case of that very cell."""
    missed = {}
    for cell_id, cell in _cells().items():
        lost = set(targets(cell, default_rulebook())) - _tags(cell_id)
        if lost:
            missed[cell_id] = sorted(lost)
    assert not missed, f"{len(missed)} cells miss edges, e.g. {list(missed.items())[:3]}; {REGENERATE}"


def test_every_ambiguity_cell_is_frozen():
    """certify selects from the list the ambiguity cells of the readings a backend declares: every
    ambiguity's cell is there on every product where its region holds calls, with both ends of its ranges."""
    ids = {c.id for c in _cells().values() if c.expect == "ambiguity"}
    assert len({i.rsplit("/", 1)[1] for i in ids}) == len(ambiguity_ids(rulebook=default_rulebook()))
    assert ids <= set(load_frozen())
    assert {"sid=region-min", "sid=region-max"} <= _tags("data_move/ascend910b/ambiguity/data_move.sid.reserved")


def test_an_ordinary_cell_keeps_its_cases():
    """What freezing an ordinary cell picks is in the file as it is (the ambiguity cells, drawn in their
    own environments, changed nothing of the others' draws)."""
    cell = _cells()["data_move/ascend910b/reject/data_move.sid.range"]
    stored = {case_line(cell.id, case) for case in load_frozen()[cell.id]}
    assert set(freeze_cell(cell, EXAMPLES, default_rulebook()).lines) <= stored


def test_both_sides_of_a_range_are_reached():
    tags = _tags("data_move/ascend910b/reject/data_move.nburst.range")
    assert {"nburst=below-min", "nburst=above-max"} <= tags, tags
    both = [cid for cid in load_frozen() if "/reject/" in cid
            and any(t.endswith("=below-min") for t in _tags(cid))
            and any(t.endswith("=above-max") for t in _tags(cid))]
    assert len(both) >= 10, both


def test_freeze_is_deterministic(tmp_path):
    """Same cells, same bytes: in one process, and whether or not the cells are drawn in a pool."""
    one, two = tmp_path / "one.jsonl.gz", tmp_path / "two.jsonl.gz"
    stats = freeze(["ascend910b"], examples=4, path=one, apis=["data_move", "data_copy_nz2nd"], workers=1,
                   rulebook=default_rulebook())
    freeze(["ascend910b"], examples=4, path=two, apis=["data_move", "data_copy_nz2nd"], workers=2,
           rulebook=default_rulebook())
    assert one.read_bytes() == two.read_bytes()
    assert stats["bytes"] == one.stat().st_size and stats["cases"] >= stats["cells"] > 40
    apis = ["data_move", "data_copy_nz2nd"]
    book = default_rulebook()
    assert set(load_frozen(one)) == {c.id for c in cells(["ascend910b"], apis, rulebook=book,
                                                       ambiguities=ambiguity_ids(apis, rulebook=book))}
    assert "data_move/ascend910b/ambiguity/data_move.sid.reserved" in load_frozen(one)
    assert frozen_hash(one) == hashlib.sha256(one.read_bytes()).hexdigest()[:16]


def test_oracle_backend_conforms_on_frozen_cases():
    backend = load_backend("oracle")
    cases = [(cid, case) for cid, cs in load_frozen().items() if _cells()[cid].product == "ascend910b"
             for case in cs]
    assert len(cases) > 100
    failed = []
    for cell_id, case in cases:
        outcome = judge(case.call, case.memory, backend, default_rulebook())
        if not outcome.conforms:
            failed.append(f"{cell_id}: {outcome.verdict} {outcome.message}")
    assert not failed, failed[:3]


def test_malformed_file_names_file_and_line(tmp_path):
    """A line is read as its cell is first asked for (a worker makes only its cells' cases); what it lacks
    is then a FrozenDataError naming the file and the line. A line not written as case_line writes it is
    read at once, for its cell."""
    good = gzip.decompress(FROZEN_PATH.read_bytes()).decode("ascii").splitlines()[0]
    cell = json.loads(good)["cell"]
    bad = tmp_path / "bad.jsonl.gz"
    bad.write_bytes(gzip.compress(f"{good}\n{good[:-5]}\n".encode()))
    frozen = load_frozen(bad)
    assert list(frozen) == [cell] and frozen.count(cell) == 2 and frozen.count("no/such/cell") == 0
    with pytest.raises(FrozenDataError, match=r"bad\.jsonl\.gz, line 2"):
        frozen[cell]
    data = json.loads(good)
    data["call"]["args"] = 7
    wrong = tmp_path / "wrong.jsonl.gz"
    wrong.write_bytes(gzip.compress((case_line(cell, load_frozen()[cell][0]) + "\n" + json.dumps(data)).encode()))
    with pytest.raises(FrozenDataError, match=r"wrong\.jsonl\.gz, line 2: .*call\.args"):
        load_frozen(wrong).get(cell)
    reordered = tmp_path / "reordered.jsonl.gz"          # "cell" not first: parsed as the file is read
    reordered.write_bytes(gzip.compress(json.dumps({**{k: v for k, v in data.items() if k != "cell"},
                                                    "cell": cell}).encode()))
    with pytest.raises(FrozenDataError, match=r"reordered\.jsonl\.gz, line 1: .*call\.args"):
        load_frozen(reordered)
    escaped = tmp_path / "escaped.jsonl.gz"              # a cell id the prefix cannot be read off
    escaped.write_bytes(gzip.compress(good.replace(f'"cell":"{cell}"', f'"cell":"x\\"{cell}"', 1).encode()))
    with pytest.raises(FrozenDataError, match=r"escaped\.jsonl\.gz, line 1: .*escapes"):
        for cases in load_frozen(escaped).values():
            pass
    plain = tmp_path / "plain.jsonl.gz"
    plain.write_text(good)
    with pytest.raises(FrozenDataError, match=r"plain\.jsonl\.gz"):
        load_frozen(plain)
    with pytest.raises(FrozenDataError, match="regenerate"):
        load_frozen(tmp_path / "absent.jsonl.gz")


def test_hash_names_the_file():
    digest = frozen_hash()
    assert len(digest) == 16 and digest == hashlib.sha256(FROZEN_PATH.read_bytes()).hexdigest()[:16]


def test_a_malformed_frozen_line_is_its_cells_error_not_a_lost_worker(monkeypatch):
    """A worker makes a cell's frozen cases as it runs the cell: a line it cannot read makes that cell an
    error naming the file and line (the worker goes on), as a file refused at the start would have."""
    from conformance.generate import frozen as frozen_module
    from conformance.generate.profiles import profile
    from conformance.supervise.pool import Supervisor
    from conformance.supervise.tasks import Task
    cell = next(c for c in cells(["ascend910b"], ["data_move"], rulebook=default_rulebook()) if c.expect == "legal")
    broken = frozen_module.FrozenCases(Path("frozen.jsonl.gz"), {cell.id: [(7, '{"cell":"' + cell.id + '", "call": [')]})
    monkeypatch.setattr(frozen_module, "load_frozen", lambda: broken)     # the forked worker inherits it
    supervisor = Supervisor("oracle", 1, db_spec="none", specs=default_rulebook)
    supervisor.start()
    try:
        supervisor.submit(Task(cell, profile("quick"), 1, frozen=True))
        supervisor.submit(Task(cell, profile("quick"), 1))
        results = []
        while supervisor.pending:
            results += supervisor.poll()
    finally:
        supervisor.close()
    assert supervisor.restarts == 0
    bad, good = results
    assert bad["status"] == "error" and "FrozenDataError" in bad["error"] and "frozen.jsonl.gz, line 7" in bad["error"]
    assert good["status"] == "ran" and sum(good["counts"].values()) > 0
