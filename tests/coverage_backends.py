"""A data_move simulator whose one bug hides behind a narrow implementation branch: the kind of bug
coverage-guided fuzzing is for (`fuzz --coverage`, benchmarks/bench.py prints how often each finds it).

`PagedSim` batches the descriptors of a move of a multiple of 16 bursts, with blocks picked by how the
burst is aligned: 1 KB, 2 KB or 4 KB. On the 4 KB path, with a contiguous source (src_stride 0), it
copies the source as one block and lays it out contiguously, forgetting dst_stride. The pages never
single out such a move: spec-driven search reaches it only by chance, while each step (16 bursts, then
each alignment) is a branch of its own that a call reaching it first is kept for, and bred (burst
doubled) towards the next.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from oracle import Call

try:
    from buggy_backends import DataMoveSim
except ImportError:                 # loaded as tests.coverage_backends, the tests folder not on the path
    from tests.buggy_backends import DataMoveSim


class PagedSim(DataMoveSim):
    name = "sim-paged"
    bug = "bursts of a multiple of 4 KB from a contiguous source ignore dst_stride"

    def move(self, call: Call, memory: Mapping[str, np.ndarray]) -> None:
        if call.args["nburst"] % 16 == 0:
            return self.batched_move(call, memory, self.burst_bytes(call))
        return super().move(call, memory)

    def batched_move(self, call: Call, memory: Mapping[str, np.ndarray], n: int) -> None:
        """16 bursts a descriptor batch; whole-kilobyte bursts by blocks."""
        if n % 1024 == 0:
            return self.aligned_move(call, memory, n)
        return super().move(call, memory)

    def aligned_move(self, call: Call, memory: Mapping[str, np.ndarray], n: int) -> None:
        """Descriptors of the largest block the burst is a multiple of."""
        block = 1024
        if n % 2048 == 0:
            block = 2048
            if n % 4096 == 0:
                block = 4096
                if call.args["src_stride"] == 0:
                    return self.contiguous_pages(call, memory, n)
        del block                                   # the block size only changes the descriptors' count
        return super().move(call, memory)

    def contiguous_pages(self, call: Call, memory: Mapping[str, np.ndarray], n: int) -> None:
        src, dst = call.args["src"], call.args["dst"]
        total = n * call.args["nburst"]
        memory[dst.scope][dst.addr:dst.addr + total] = memory[src.scope][src.addr:src.addr + total]


class PagedSimFixed(PagedSim):
    """The same, its 4 KB path right: the control (it must conform)."""

    name = "sim-paged-fixed"
    bug = ""

    def contiguous_pages(self, call: Call, memory: Mapping[str, np.ndarray], n: int) -> None:
        DataMoveSim.move(self, call, memory)
