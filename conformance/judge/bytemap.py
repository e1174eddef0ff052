"""What a failing call did to memory, in a form a report can show without the backend: the first
differing elements decoded in the call's dtype, and a map of the destination region telling matching,
wrong and stray-written bytes apart (the HTML report draws it as an SVG)."""
from __future__ import annotations

from typing import Any

import numpy as np

from oracle import Call
from oracle.rules import context
from oracle.spec import Rulebook

MAP_CELLS = 2048        # most cells a map has; a larger region puts several bytes in one cell
MAP_MARGIN = 64         # bytes shown either side of the region, so a write just past it shows
FIRST_ELEMENTS = 8

# One character per cell; where a cell holds several bytes the worst of them names it (later = worse).
UNTOUCHED, MATCH, OPEN, WRONG, STRAY = ".", "=", "?", "x", "s"
LEGEND = {UNTOUCHED: "outside the destination, unchanged", MATCH: "destination byte as expected",
          OPEN: "left open by the documentation", WRONG: "destination byte wrong",
          STRAY: "written outside the destination (stray write)"}
_CODES = np.frombuffer("".join((UNTOUCHED, MATCH, OPEN, WRONG, STRAY)).encode(), dtype=np.uint8)


def elements(raw: np.ndarray, dtype: str, rulebook: Rulebook) -> list[str]:
    """Bytes as elements of `dtype` (its size as `rulebook` gives it), each as its value and its bits:
    '1.5 (0x3e00)'. Floats keep their bits visible because the kit compares bits (NaN payloads, -0.0);
    bfloat16 is widened by hand."""
    size = rulebook.itemsize(dtype)
    words = raw[: raw.size // size * size].view(f"<u{size}")
    if dtype == "bfloat16":
        values = (words.astype("<u4") << 16).view("<f4")
    else:
        try:
            values = words.view(np.dtype(dtype))
        except TypeError:
            values = words
    # str() of a numpy float is the shortest text that reads back to the same value of its own width.
    return [f"{v!s} (0x{int(w):0{2 * size}x})" if values.dtype.kind == "f" else str(v.item())
            for v, w in zip(values, words)]


def decoded_text(raw: np.ndarray, dtype: str, rulebook: Rulebook, limit: int = 16) -> str:
    """A line of at most `limit` elements, for the terminal."""
    size = rulebook.itemsize(dtype)
    shown = elements(raw[: limit * size], dtype, rulebook)
    total = raw.size // size
    return "[" + ", ".join(shown) + "]" + (f" ... ({total} elements)" if total > limit else "")


def _operands(call: Call, rulebook: Rulebook) -> list[tuple[str, str, Any]]:
    """(label, role, tensor) of every tensor the call names, destinations first."""
    ctx = context(call, rulebook=rulebook)
    named = [(label, op["role"], t) for name, op in ctx.spec.operands.items() for label, t in ctx.labelled[name]]
    return sorted(named, key=lambda entry: entry[1] != "output")


def element_diffs(call: Call, scope: str, addrs: np.ndarray, actual: np.ndarray, want: np.ndarray,
                  rulebook: Rulebook, limit: int = FIRST_ELEMENTS) -> list[dict[str, Any]]:
    """The first differing elements of `scope` (the call's operands and dtypes as `rulebook` reads them):
    which operand, which element, expected vs actual. A byte of a source operand (which must not change)
    says so; a byte outside every operand is shown as a byte."""
    tensors = [(label, role, t) for label, role, t in _operands(call, rulebook) if t.scope == scope]
    out: list[dict[str, Any]] = []
    seen: set[tuple[str, int]] = set()
    for addr in addrs:
        addr = int(addr)
        home = next(((label, role, t) for label, role, t in tensors
                     if t.addr <= addr < t.addr + t.numel * rulebook.itemsize(t.dtype)), None)
        if home is None:
            if (scope, addr) not in seen:
                seen.add((scope, addr))
                out.append({"addr": addr, "where": f"{scope} byte {addr} (outside every operand)",
                            "dtype": "uint8", "expected": str(int(want[addr])), "actual": str(int(actual[addr]))})
        else:
            label, role, t = home
            size = rulebook.itemsize(t.dtype)
            index = (addr - t.addr) // size
            if (label, index) in seen:
                continue
            seen.add((label, index))
            start = t.addr + index * size
            out.append({"addr": start, "where": f"{label}[{index}]" + ("" if role == "output" else
                                                                      " (a source: must not change)"),
                        "dtype": t.dtype, "expected": elements(want[start:start + size], t.dtype, rulebook)[0],
                        "actual": elements(actual[start:start + size], t.dtype, rulebook)[0]})
        if len(out) >= limit:
            break
    return out


def byte_map(wrong: np.ndarray, written: np.ndarray | None, defined: np.ndarray) -> dict[str, Any]:
    """The region the call writes (and every wrong byte), as a string of cell codes (see LEGEND)."""
    size = wrong.shape[0]
    spots = [np.flatnonzero(wrong)]
    if written is not None:
        spots.append(np.flatnonzero(written))
    lo = min(int(s[0]) for s in spots if s.size)
    hi = max(int(s[-1]) for s in spots if s.size) + 1
    lo, hi = max(lo - MAP_MARGIN, 0), min(hi + MAP_MARGIN, size)
    per_cell = -(-(hi - lo) // MAP_CELLS)
    inside = written[lo:hi] if written is not None else np.zeros(hi - lo, dtype=bool)
    bad = wrong[lo:hi]
    code = inside.astype(np.uint8)                                  # 0 untouched, 1 match
    code[inside & ~defined[lo:hi]] = 2
    code[bad & inside] = 3
    code[bad & ~inside] = 4
    cells = -(-code.size // per_cell)
    padded = np.zeros(cells * per_cell, dtype=np.uint8)
    padded[:code.size] = code
    worst = padded.reshape(cells, per_cell).max(axis=1)
    return {"start": lo, "end": hi, "bytes_per_cell": per_cell, "cells": _CODES[worst].tobytes().decode()}
