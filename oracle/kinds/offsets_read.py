"""The offsets a call reads from a tensor of offsets: what the offset kinds check."""
from __future__ import annotations

import numpy as np

from oracle.footprint import Runs

from .protocols import Checked


def offsets_read(ctx: Checked, name: str) -> np.ndarray | None:
    """The values the call reads from a tensor of offsets: its accessed elements, from memory (a view
    where they lie side by side)."""
    if ctx.memory is None:
        return None
    tensor, runs = ctx.call.tensor(name), ctx.accesses[name]
    dtype = np.dtype(ctx.spec.operands[name].get("dtype", tensor.dtype)).newbyteorder("<")  # as the spec reads them
    image = ctx.memory.get(tensor.scope)
    if image is None or runs is None or runs.empty or tensor.addr + runs.end > image.shape[0]:
        return None
    if isinstance(runs, Runs) and runs.step == runs.length == dtype.itemsize and runs.count > 0:
        lo = tensor.addr + runs.first
        read: np.ndarray = image[lo:lo + runs.count * dtype.itemsize].view(dtype)
        return read
    at = runs.starts() if hasattr(runs, "at") else runs.first + runs.step * np.arange(runs.count)
    where = tensor.addr + at[:, None] + np.arange(dtype.itemsize)
    gathered: np.ndarray = np.ascontiguousarray(image[where]).view(dtype).reshape(-1).astype(np.int64)
    return gathered


def value_spans(ctx: Checked) -> dict[str, list[tuple[int, int]]] | None:
    """Per scope, the byte ranges [lo, hi) of memory that checking the call reads: the footprints of its
    operands that hold values (`values: offsets`), which the values themselves do not move. The index math
    reads the offsets there (apis/offsets.py offset_entries) and the offset kinds read them there
    (offsets_read); no rule reads other bytes. Every scope of such an operand is named, with no range
    where the call reads none of it. None where a footprint is not known without memory."""
    spans: dict[str, list[tuple[int, int]]] = {}
    for name, described in ctx.spec.operands.items():
        if not described.get("values"):
            continue
        runs = ctx.accesses.get(name)
        if runs is None or isinstance(runs, list):
            return None
        tensor = ctx.call.tensor(name)
        pieces = spans.setdefault(tensor.scope, [])
        if not runs.empty:
            begin, end = runs.span
            pieces.append((tensor.addr + begin, tensor.addr + end))
    return spans
