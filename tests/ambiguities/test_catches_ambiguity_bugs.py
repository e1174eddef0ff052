"""Bugs that are one reading of an ambiguity: not caught while no reading is declared (the
strict xfails of scatter/test_catches_bugs.py and data_copy_nz2nd/test_catches_bugs.py), caught as soon as the run
declares the other reading — by the ambiguity's own cell, the calls `run` enters the region with.

The control: the correct simulator of the same family conforms on the same calls under the same readings.
Calls are the cell's edge sweep and a seeded draw, each judged with `verdicts.judge` under the rulebook
with the declared readings, as a worker judges them.
"""
from __future__ import annotations

import pytest

import buggy_nz2nd_backends as bn
import buggy_offset_backends as bo
import buggy_vts_backends as bv
from catching import region_cases
from oracle.spec import default_rulebook

from conformance.generate.cells import cells, select
from conformance.judge.verdicts import judge

# (bug, its correct sibling, the ambiguity cell, the readings declared: the one the bug breaks, and a legal
# reading of every companion region the cell's calls also lie in; then the readings the bug follows, under
# which it conforms, where there are any: a backend that declares what it does is not at fault)
CASES = [
    (bo.OffsetIndexFollowsStride, bo.OffsetSim, "scatter/ascend310p-aicore/ambiguity/scatter.offset.repeat_advance",
     {"scatter.offset.repeat_advance": "whole_repeat"}, {"scatter.offset.repeat_advance": "with_stride"}),
    (bo.GatherStrideInElements, bo.OffsetSim, "asc_gather/ascend910b/ambiguity/asc_gather.repeat.layout",
     {"asc_gather.repeat.layout": "datablocks", "asc_gather.offset.repeat_advance": "whole_repeat"},
     {"asc_gather.repeat.layout": "undefined", "asc_gather.offset.repeat_advance": "whole_repeat"}),
    (bo.GatherSrcAdvancedByStride, bo.OffsetSim, "asc_gather/ascend910b/ambiguity/asc_gather.offset.repeat_advance",
     {"asc_gather.offset.repeat_advance": "whole_repeat", "asc_gather.repeat.layout": "datablocks"},
     None),          # src moving with dst is no reading: it fails under every legal one
    (bo.CollisionsSummed, bo.OffsetSim, "scatter/ascend310b/ambiguity/scatter.offset.duplicate",
     {"scatter.offset.duplicate": "one_survives"},
     {"scatter.offset.duplicate": "undefined"}),     # the 2026 edition's reading: two equal offsets are open
    (bn.NdNumZeroAsOne, bn.Nz2NdSim, "data_copy_nz2nd/ascend910b/ambiguity/data_copy_nz2nd.ndNum.zero",
     {"data_copy_nz2nd.ndNum.zero": "nop"},
     None),          # one matrix moved is neither reading: not nothing, not a refusal
    (bn.SrcNStrideIn12Bits, bn.Nz2NdSim, "data_copy_nz2nd/ascend910b/ambiguity/data_copy_nz2nd.srcNStride.max",
     {"data_copy_nz2nd.srcNStride.max": "legal"},
     None),          # 4096 wraps to 0 instead of being refused: not the `reject` reading either
    (bv.EarlierIterationWins, bv.VtsSim, "vec_trans_scatter/ascend910b/ambiguity/vec_trans_scatter.dst.repeat_overlap",
     {"vec_trans_scatter.dst.repeat_overlap": "last_wins"},
     {"vec_trans_scatter.dst.repeat_overlap": "undefined"}),     # blocks two iterations write left open
]


def _failures(backend, cell_id: str, declared: dict[str, str]) -> list:
    api, product, _, amb = cell_id.split("/")
    (cell,) = select(cells([product], [api], ambiguities=[amb], rulebook=default_rulebook()), [cell_id])
    rulebook = default_rulebook().with_readings(declared)
    outcomes = [judge(case.call, case.memory, backend, rulebook) for case in region_cases(cell)]
    return [o for o in outcomes if not o.conforms]


@pytest.mark.parametrize("bug, correct, cell_id, declared, its_own", CASES, ids=[c[0].name for c in CASES])
def test_a_bug_that_is_a_reading_is_caught_once_the_other_is_declared(bug, correct, cell_id, declared, its_own):
    assert not _failures(correct(), cell_id, declared), "the control must conform"
    failing = _failures(bug(), cell_id, declared)
    assert failing, f"{bug.name} passed every call of {cell_id} under {declared}"
    if its_own is not None:
        assert not _failures(bug(), cell_id, its_own), f"{bug.name} declares {its_own}: it conforms"
