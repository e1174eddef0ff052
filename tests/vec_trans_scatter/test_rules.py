"""vec_trans_scatter's rules that test_check.py holds for one list only, each with a call at its edge that
the checker passes and a call that breaks that rule alone, for the other list and for the dtype list of the
products other than ascend310b (tests/rules/test_every_rule.py holds every rule again on the edge sweep's
calls). test_check.py's base call: 16 float16 entries a block apart, src at UB byte 0, dst at 64 KB."""
from __future__ import annotations

import pytest

from oracle import Tensor, check
from tests.vec_trans_scatter.test_check import BLOCK, entries, vts


def moved(tensors: list[Tensor], scope: str) -> list[Tensor]:
    return [Tensor(scope, t.addr, t.dtype, t.numel) for t in tensors]


def shifted(tensors: list[Tensor], k: int, by: int) -> list[Tensor]:
    out = list(tensors)
    out[k] = Tensor("UB", out[k].addr + by, out[k].dtype, out[k].numel - by // 2)
    return out


def shortened(tensors: list[Tensor], k: int, numel: int) -> list[Tensor]:
    out = list(tensors)
    out[k] = Tensor("UB", out[k].addr, out[k].dtype, numel)
    return out


DST, SRC = entries(64 << 10, gap=2), entries(0)
# rule id -> (a legal call at its edge, a call that breaks it alone)
RULES = {
    "vec_trans_scatter.dst_list.scope": (vts(dst=DST), vts(dst=moved(DST, "GM"))),
    "vec_trans_scatter.dtype.supported": (vts(dtype="uint32", dst=entries(64 << 10, "uint32"), src=entries(0, "uint32")),
                                          vts(dtype="bfloat16", dst=entries(64 << 10, "bfloat16"),
                                              src=entries(0, "bfloat16"))),
    "vec_trans_scatter.dst_list.align": (vts(dst=shifted(DST, 7, BLOCK)), vts(dst=shifted(DST, 7, 16))),
    "vec_trans_scatter.src_list.bounds": (vts(src=shortened(SRC, 3, 16)), vts(src=shortened(SRC, 3, 15))),
}


@pytest.mark.parametrize("rule", RULES, ids=list(RULES))
def test_edge_passes_and_breaking_call_names_its_rule(rule: str) -> None:
    edge, breaking = RULES[rule]
    assert check(edge) == [], rule
    assert [v.rule for v in check(breaking)] == [rule]
