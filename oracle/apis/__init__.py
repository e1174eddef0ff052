"""Index math, one module per API. Each module gives two functions the rest of the kit relies on:

    accesses(call, units) -> {operand name: Runs}    bytes each operand touches, relative to its addr
                                                      (a list operand: one Runs per entry)
    apply(call, image, units) -> None                 performs a legal call on `image` in place

`units` is `Context.units`: the bytes per step of each parameter and the spec's named units, read from the
spec, and `element`, the width of the call's dtype.
"""
from __future__ import annotations

from types import ModuleType

from . import data_move, vec_trans_scatter

INDEX_MATH: dict[str, ModuleType] = {
    "data_move": data_move,
    "vec_trans_scatter": vec_trans_scatter,
}


def index_math(api: str) -> ModuleType:
    try:
        return INDEX_MATH[api]
    except KeyError:
        raise ValueError(f"the oracle has no index math for api {api!r}") from None
