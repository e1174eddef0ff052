"""DataCopy NZ->ND's parameters steered before placement (004_dc35eb371305363d.txt): out of the
srcNdMatrixStride.divisible region where a cell does not ask for it, toward rows that meet for the
rows_overlap cell, and srcNStride -1 kept to one column block. Counted on seeded draws, never timed: each
bound is one the generator without the steering exceeded (in brackets, its share on these draws)."""
from __future__ import annotations

import pytest

from oracle.kinds import kind_of
from oracle.spec import default_rulebook

from conformance.generate.environment import environment
from conformance.generate.steering import leave_checked, one_repeat
from tests.generate.test_steering import DRAWS, outcomes, thrown_away

API = "data_copy_nz2nd"
P = "intriParams."
DIVISIBLE = f"{API}.srcNdMatrixStride.divisible"


def _params(**values: int) -> dict[str, int]:
    base = {"ndNum": 1, "nValue": 1, "dValue": 16, "srcNdMatrixStride": 1, "srcNStride": 1, "dstDStride": 16,
            "dstNdMatrixStride": 16}
    return {P + k: v for k, v in {**base, **values}.items()}


def test_the_check_says_which_multiple_passes() -> None:
    """srcNdMatrixStride x 256 a multiple of nValue x sizeof(T): srcNdMatrixStride a multiple of
    nValue x sizeof(T) / gcd(nValue x sizeof(T), 256); any value where nValue is 0."""
    (check,) = default_rulebook().ambiguity(DIVISIBLE).checks
    kind = kind_of(check)
    assert kind.passing_multiple(check, _params(nValue=3), 2) == (P + "srcNdMatrixStride", 3)
    assert kind.passing_multiple(check, _params(nValue=96), 4) == (P + "srcNdMatrixStride", 3)
    assert kind.passing_multiple(check, _params(nValue=64), 4) == (P + "srcNdMatrixStride", 1)
    assert kind.passing_multiple(check, _params(nValue=0), 4) == (P + "srcNdMatrixStride", 1)


class _Draft:
    """What leave_checked reads of a draft: the probe call its region is matched on."""

    def __init__(self, env):
        self.template = env.probe(None, env.operand_dtypes("int16"), env.operand_scopes("UB->GM"), {})


@pytest.mark.parametrize("values, moved", [
    ({"ndNum": 3, "nValue": 3, "srcNdMatrixStride": 5}, {"srcNdMatrixStride": 6}),   # the nearer multiple
    ({"ndNum": 3, "nValue": 3, "srcNdMatrixStride": 7}, {"srcNdMatrixStride": 6}),
    ({"ndNum": 2, "nValue": 6, "srcNdMatrixStride": 1}, {"srcNdMatrixStride": 3}),   # 0 is below the range
    ({"ndNum": 2, "nValue": 1025, "srcNdMatrixStride": 9}, {"ndNum": 1}),             # no multiple in range
    ({"ndNum": 1, "nValue": 3, "srcNdMatrixStride": 5}, {}),                           # outside the region
    ({"ndNum": 4, "nValue": 64, "srcNdMatrixStride": 5}, {}),                          # the check passes
])
def test_leave_checked_moves_a_call_out_of_the_region(values: dict, moved: dict) -> None:
    env = environment(API, "ascend910b", default_rulebook())
    domains = {P + "ndNum": [(1, 4095)], P + "nValue": [(1, 8192)], P + "srcNdMatrixStride": [(1, 512)]}
    params = _params(**values)
    leave_checked(env, _Draft(env), params, None, domains, 2, lambda p: True)
    assert params == _params(**{**values, **moved})


def test_leave_checked_takes_only_a_move_that_keeps_the_call() -> None:
    """A forced srcNdMatrixStride is not moved; a move the call would not keep is not taken."""
    env = environment(API, "ascend910b", default_rulebook())
    domains = {P + "ndNum": [(1, 4095)], P + "srcNdMatrixStride": [(1, 512)]}
    params = _params(ndNum=3, nValue=3, srcNdMatrixStride=5)
    leave_checked(env, _Draft(env), params, P + "srcNdMatrixStride", domains, 2, lambda p: True)
    assert params == _params(ndNum=1, nValue=3, srcNdMatrixStride=5)
    params = _params(ndNum=3, nValue=3, srcNdMatrixStride=5)
    leave_checked(env, _Draft(env), params, None, domains, 2, lambda p: p[P + "srcNdMatrixStride"] == 5)
    assert params == _params(ndNum=1, nValue=3, srcNdMatrixStride=5)
    params = _params(ndNum=3, nValue=3, srcNdMatrixStride=5)
    leave_checked(env, _Draft(env), params, None, domains, 2, lambda p: False)
    assert params == _params(ndNum=3, nValue=3, srcNdMatrixStride=5)


def test_one_repeat_keeps_a_stride_below_its_range_to_one_block() -> None:
    """srcNStride -1 walks src back a column block per block after the first: dValue (drawn in steps of
    16) is set to one block where no count drawn one by one stops it."""
    params = _params(dValue=8192, srcNStride=-1)
    names = [P + n for n in ("ndNum", "nValue", "dValue", "srcNStride")]
    steps = {P + "dValue": 16}
    domains = {P + "ndNum": [(1, 4095)], P + "nValue": [(1, 8192)], P + "dValue": [(1, 8192)]}
    one_repeat(names, steps, params, P + "srcNStride", domains, lambda p: p[P + "dValue"] > 16)
    assert params[P + "dValue"] == 16


@pytest.mark.parametrize("rule_id, bound", [
    (None, 0.0),                                 # (0.07: in the divisible region)
    (f"{API}.dValue.range", 0.0),                # (0.23)
    (f"{API}.src.capacity", 0.0),                # (0.10)
    (f"{API}.dst.bounds", 0.0),                  # (0.04)
    (f"{API}.srcNStride.range", 0.0),            # (0.41: srcNStride -1 walked src below its address)
])
def test_draws_break_the_target_alone(rule_id: str | None, bound: float) -> None:
    found, _ = outcomes(API, "ascend910b", rule_id, draws=DRAWS)
    assert thrown_away(found, rule_id) <= bound, found


def test_rows_overlap_draws_rows_that_meet() -> None:
    """The last parameter dst's footprint reads is moved to where its rows meet: few draws are given up
    for rows drawn apart (0.46 of them), and fewer thrown away (0.24), the matrices that meet in the
    divisible region kept there only where no srcNdMatrixStride in range leaves it."""
    rule_id = f"{API}.dst.rows_overlap"
    found, _ = outcomes(API, "ascend910b", rule_id)
    assert found["retry"] <= DRAWS * 0.1, found
    assert thrown_away(found, rule_id) <= 0.12, found
