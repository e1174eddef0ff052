"""Scatter's and asc_gather's scope and capacity rules, each with a call at its edge that the checker passes
and a call that breaks that rule alone (test_check.py holds the others; tests/rules/test_every_rule.py
holds every rule again on the edge sweep's calls). Scatter on ascend310b (UB 248 KB), asc_gather on
ascend910b (UB 192 KB): test_check.py's base calls of 128 halves, one operand moved."""
from __future__ import annotations

import pytest

from oracle import Tensor, check
from tests.scatter.test_check import G_DST, G_OFFS, G_SRC, S_DST, S_OFFS, S_SRC, UB_BYTES, gather, scatter

S_END, G_END = UB_BYTES["ascend310b"], UB_BYTES["ascend910b"]


def halves(scope: str, addr: int) -> Tensor:
    return Tensor(scope, addr, "float16", 128)


def entries(scope: str, addr: int) -> Tensor:
    return Tensor(scope, addr, "uint32", 128)


# rule id -> (a legal call at its edge, a call that breaks it alone)
RULES = {
    "scatter.dstLocal.scope": (scatter(dst=halves("UB", S_DST)), scatter(dst=halves("GM", S_DST))),
    "scatter.srcLocal.scope": (scatter(src=halves("UB", S_SRC)), scatter(src=halves("GM", S_SRC))),
    "scatter.dstOffsetLocal.scope": (scatter(offs=entries("UB", S_OFFS)), scatter(offs=entries("GM", S_OFFS))),
    "scatter.dstLocal.capacity": (scatter(dst=halves("UB", S_END - 256)), scatter(dst=halves("UB", S_END - 224))),
    "scatter.srcLocal.capacity": (scatter(src=halves("UB", S_END - 256)), scatter(src=halves("UB", S_END - 224))),
    "scatter.dstOffsetLocal.capacity": (scatter(offs=entries("UB", S_END - 512)),
                                        scatter(offs=entries("UB", S_END - 480))),
    "asc_gather.dst.scope": (gather(dst=halves("UB", G_DST)), gather(dst=halves("GM", G_DST))),
    "asc_gather.src.scope": (gather(src=halves("UB", G_SRC)), gather(src=halves("GM", G_SRC))),
    "asc_gather.src_offset.scope": (gather(offs=entries("UB", G_OFFS)), gather(offs=entries("GM", G_OFFS))),
    "asc_gather.dst.capacity": (gather(dst=halves("UB", G_END - 256)), gather(dst=halves("UB", G_END - 224))),
    "asc_gather.src.capacity": (gather(src=halves("UB", G_END - 256)), gather(src=halves("UB", G_END - 224))),
    "asc_gather.src_offset.capacity": (gather(offs=entries("UB", G_END - 512)), gather(offs=entries("UB", G_END - 480))),
}


@pytest.mark.parametrize("rule", RULES, ids=list(RULES))
def test_edge_passes_and_breaking_call_names_its_rule(rule: str) -> None:
    edge, breaking = RULES[rule]
    assert check(edge) == [], rule
    assert [v.rule for v in check(breaking)] == [rule]
