"""Moves over runs: bytes copied from the runs of one operand onto the runs of another (the index math of
data_move and DataCopy, DataCopyPad's rows), in the images in place or as the bytes a call changes."""
from __future__ import annotations

from typing import Any, Callable, Mapping

import numpy as np

from .footprint import Runs


def copy_runs(src_buf: np.ndarray, src_base: int, src: Runs,
              dst_buf: np.ndarray, dst_base: int, dst: Runs) -> None:
    """Run k of the source lands on run k of the destination (same count, same length)."""
    if src.count != dst.count or src.length != dst.length:
        raise ValueError("copy_runs needs the same number and length of runs on both sides")
    if src.empty:
        return
    if src.step == src.length and dst.step == dst.length:      # contiguous: one slice copy
        n = src.count * src.length
        dst_buf[dst_base + dst.first:dst_base + dst.first + n] = src_buf[src_base + src.first:src_base + src.first + n]
        return
    dst.view(dst_buf, dst_base)[...] = src.view(src_buf, src_base)


def patch_runs(dst_buf: np.ndarray, dst_base: int, dst: Runs,
               src_buf: np.ndarray, src_base: int, src: Runs) -> tuple[int, np.ndarray] | None:
    """(lo, data): the bytes from lo on that copy_runs on a copy of `dst_buf` changes (neither buffer is): a
    view of `src_buf` where both sides' runs lie back to back, else a new read-only array of dst's span."""
    if src.count != dst.count or src.length != dst.length:
        raise ValueError("patch_runs needs the same number and length of runs on both sides")
    (lo, hi), (s_lo, s_hi) = dst.span, src.span
    lo, hi, s_lo, s_hi = lo + dst_base, hi + dst_base, s_lo + src_base, s_hi + src_base
    if src.empty or lo < 0 or hi > dst_buf.shape[0] or s_lo < 0 or s_hi > src_buf.shape[0]:
        return None                     # a run outside its buffer
    if src.count == 1 or src.step == dst.step == src.length:     # back to back: the source's own bytes
        return lo, src_buf[s_lo:s_hi]
    data = dst_buf[lo:hi].copy()
    copy_runs(src_buf, src_base, src, data, dst_base - lo, dst)
    data.flags.writeable = False
    return lo, data


def run_moves(accesses: Callable[..., Mapping[str, Runs]]) -> tuple[Callable[..., None], Callable[..., Any]]:
    """`apply` and `patched` of an API whose call moves src's runs onto dst's byte for byte (data_move, DataCopy),
    from its `accesses(call, units)`: `apply` moves them in the images in place; `patched` gives {dst's scope:
    patch_runs' (lo, data)} from `memory` (None: copy, then apply). `runs`: the context's, where at hand."""

    def apply(call: Any, image: Mapping[str, np.ndarray], units: Mapping[str, int],
              runs: Mapping[str, Runs] | None = None) -> None:
        src, dst = call.tensor("src"), call.tensor("dst")
        runs = runs or accesses(call, units)
        copy_runs(image[src.scope], src.addr, runs["src"], image[dst.scope], dst.addr, runs["dst"])

    def patched(call: Any, memory: Mapping[str, np.ndarray], units: Mapping[str, int],
                runs: Mapping[str, Runs] | None = None) -> dict[str, tuple[int, np.ndarray]] | None:
        src, dst = call.args["src"], call.args["dst"]          # tensors, as `context` has validated them
        src_image, dst_image = memory.get(src.scope), memory.get(dst.scope)
        if src_image is None or dst_image is None:
            return None
        runs = runs or accesses(call, units)
        made = patch_runs(dst_image, dst.addr, runs["dst"], src_image, src.addr, runs["src"])
        return None if made is None else {dst.scope: made}

    return apply, patched


__all__ = ["copy_runs", "patch_runs", "run_moves"]
