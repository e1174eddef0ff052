"""Index math, one module per API. Each module gives two functions the rest of the kit relies on:

    accesses(call, units, memory=None) -> {operand: Runs}   bytes each operand touches, relative to its
                                          addr (a list operand: one Runs per entry; an operand addressed
                                          by offsets in memory: Spots, or None without memory)
    apply(call, image, units, runs=None) -> list | None   performs a legal call on `image` in place;
                                          may return the places left open, as (scope, addr, candidates):
                                          several elements sent to one place, any of which may stay;
                                          or (scope, addresses, None): bytes the page leaves open
                                          (DataCopyPad's random padding), any value of which is right.
                                          `runs`: accesses(call, units) where the caller has them
                                          (Context.accesses), so that an API whose moves follow its
                                          Runs / Grid does not work them out again (the offset-addressed
                                          ones, and vec_trans_scatter, work from the image instead)

Optionally `patched(call, memory, units, runs=None) -> {scope: (lo, data)} | None`: for a legal call,
per scope it writes, the bytes from lo on that the call changes (every other byte stays as `memory`, not
modified, has it), where the API's moves allow it and every byte every operand touches lies inside its
scope's image (None: the caller checks the images, copies the written scopes and calls apply); the kit
then copies no byte it does not change (oracle/moves.py: data_move and DataCopy have one; asc_gather,
through gathering.py, and scatter too).

Optionally `apart(call, units, operand) -> {param: least value}`: the strides that keep an operand's writes
apart, in closed form; or `SEARCHED_APART`, the operands whose writes a generator keeps apart by searching
the values of the parameters their footprint reads (data_copy_nz2nd's dst).

and a dict `VARIANTS`: name -> function turning the call's units into those of that index-math variant
(a reading of an ambiguity that moves bytes otherwise, named by the spec's `variant`; "default" changes
nothing). Context.units applies the variants of the declared readings whose region holds the call, so
every caller of accesses / apply given `ctx.units` follows them.
Optionally `FILLING`: the names of the variants that change only what `apply` writes into the bytes it
writes, never which bytes a call reads or writes nor what any rule reads of it (their units add keys that
apply alone reads): the generators size and check a call in an ambiguity's region once for them all.

`units` is `Context.units`: the bytes per step of each parameter and the spec's named units, read from the
spec, and `element`, the width of the call's dtype.
"""
from __future__ import annotations

import importlib
import re
from types import ModuleType


HELPERS = frozenset({"offsets", "gathering", "fractal"})     # modules of this package that serve several APIs


class _Modules(dict[str, ModuleType]):
    """api -> its index-math module, `oracle/apis/<api>.py`, imported on first use: adding an API is a spec
    and a module of its name, registered nowhere else."""

    def __missing__(self, api: str) -> ModuleType:
        if not isinstance(api, str) or not re.fullmatch(r"[a-z][a-z0-9_]*", api) or api in HELPERS:
            raise KeyError(api)
        try:
            module = importlib.import_module(f"{__name__}.{api}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{api}":
                raise
            raise KeyError(api) from None
        self[api] = module
        return module


INDEX_MATH: dict[str, ModuleType] = _Modules()


def index_math(api: str) -> ModuleType:
    try:
        return INDEX_MATH[api]
    except KeyError:
        raise ValueError(f"the oracle has no index math for api {api!r}") from None
