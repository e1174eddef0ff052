"""For every reading of every ambiguity, a backend that implements it conforms when it
declares it, and fails in the ambiguity's region when it declares another reading that tells them apart.

The backend implementing reading R is the reference itself told to follow R (`OracleBackend(readings=)`:
it refuses what R refuses and moves bytes by R's index math). Declaring a reading means judging by the
rulebook with that reading (what a worker does with a backend's `readings`). The calls are the ambiguity
cell's edge sweep and a seeded draw, each judged with `verdicts.judge`: no search, no shrinking.

Where the declared reading is `undefined`, nothing a backend does can fail; where the implemented one is,
the reference moves bytes by the default math, so it is only asked to conform when it declares it.
"""
from __future__ import annotations

import functools

import pytest

from catching import region_cases
from readings import OPENING
from oracle.spec import default_rulebook

from conformance.backends.contract import OracleBackend
from conformance.generate.ambiguity import companions
from conformance.generate.cells import cells
from conformance.judge.verdicts import judge

DRAWN = 20          # seeded calls per cell, on top of the sweep


def _first_legal(amb) -> str:
    return next((r.id for r in amb.readings if r.legality == "legal"), amb.readings[0].id)


@functools.lru_cache(maxsize=None)
def _cell_and_cases(amb_id: str):
    """The ambiguity's cell on the first product that has one, its calls, and the companion ambiguities
    (regions every call of this one lies in too) with a legal reading, declared alike on both sides."""
    book = default_rulebook()
    amb = book.ambiguity(amb_id)
    api = next(name for name, spec in book.apis.items() if amb in spec.ambiguities)
    cell = next(c for c in cells(sorted(book.products), [api], ambiguities=[amb_id], rulebook=book)
                if c.expect == "ambiguity")
    spec = book.api(api)
    others = set().union(*(companions(spec, amb, region, cell.product) for region in amb.regions))
    fixed = {o: _first_legal(book.ambiguity(o)) for o in sorted(others)}
    return cell, tuple(region_cases(cell, DRAWN)), fixed


PAIRS = [(amb.id, implemented.id, declared.id)
         for spec in default_rulebook().apis.values() for amb in spec.ambiguities
         for implemented in amb.readings for declared in amb.readings]


def _verdicts(amb_id: str, implemented: str, declared: str) -> list[str]:
    cell, cases, fixed = _cell_and_cases(amb_id)
    backend = OracleBackend(readings={**fixed, amb_id: implemented})
    rulebook = default_rulebook().with_readings({**fixed, amb_id: declared})
    return [judge(case.call, case.memory, backend, rulebook) for case in cases]


@pytest.mark.parametrize("amb_id, implemented, declared", PAIRS, ids=[f"{a}:{i}-as-{d}" for a, i, d in PAIRS])
def test_a_backend_is_judged_by_the_reading_it_declares(amb_id, implemented, declared):
    book = default_rulebook()
    amb = book.ambiguity(amb_id)
    outcomes = _verdicts(amb_id, implemented, declared)
    failing = [o for o in outcomes if not o.conforms]
    if implemented == declared or amb.reading(declared).legality == "undefined" or declared in OPENING:
        assert not failing, (f"implements {implemented}, declares {declared}: "
                             f"{failing[0].verdict} {failing[0].message}")
        return
    if amb.reading(implemented).legality == "undefined":
        pytest.skip(f"{implemented} leaves the region undefined: the reference has no behaviour of its own to "
                    f"implement for it, so no backend implements {implemented} against {declared}")
    assert failing, (f"{amb_id}: a backend implementing {implemented} passed {len(outcomes)} calls while "
                     f"declaring {declared}: the region's calls do not tell the two readings apart")
    expected = {("legal", "reject"): "MISSED_REJECT", ("reject", "legal"): "FALSE_REJECT",
                ("legal", "legal"): "FAIL"}[(amb.reading(implemented).legality, amb.reading(declared).legality)]
    assert {o.verdict.value for o in failing} == {expected}

