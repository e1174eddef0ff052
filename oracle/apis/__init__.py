"""Index math, one module per API. Each module gives two functions the rest of the kit relies on:

    accesses(call, units) -> {operand name: Runs}    bytes each operand touches, relative to its addr
    apply(call, image, units) -> None                 performs a legal call on `image` in place

`units` is `ApiSpec.units(call)`: the bytes per step of each parameter, read from the spec.
"""
from __future__ import annotations

from types import ModuleType

from . import data_move

INDEX_MATH: dict[str, ModuleType] = {
    "data_move": data_move,
}


def index_math(api: str) -> ModuleType:
    try:
        return INDEX_MATH[api]
    except KeyError:
        raise ValueError(f"the oracle has no index math for api {api!r}") from None
