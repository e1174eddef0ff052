"""The iteration mask of the vector instructions, in one place (specs/masks.yaml; the mask pages,
asc-devkit@0da921b9:docs/zh/api/SIMD-API/基础API/SIMD计算说明/掩码/): which elements of an iteration a mask
selects in its two modes, and the mask pages' general rules as an API's own.

Bit mode (a list of 64-bit words): element e moves when bit e % 64 of word e // 64 is 1 (「从低位到高位按位
控制参与计算的元素」). Count mode (an int): the first `mask` elements move (「前面连续的多少个元素参与计算」),
every one of them when `mask` is the iteration's element count or more (「mask超出范围按照对应数据类型下mask
最大值计算」). A spec's `masks` ties each form to a mode, and the mode to the parameter's type there.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import numpy as np

MODES = ("bits", "count")


def selected(mask: int | Sequence[int], per: int) -> np.ndarray:
    """Which of the `per` elements of an iteration a mask selects: count mode for an int, bit mode for
    a list of words."""
    if isinstance(mask, (int, np.integer)):
        return np.arange(per) < mask
    words = np.array([int(w) for w in mask], dtype="<u8")
    bits = np.unpackbits(words.view(np.uint8), bitorder="little").astype(bool)   # bit k of word j: j * 64 + k
    return np.concatenate([bits[:per], np.zeros(max(per - bits.size, 0), dtype=bool)])


def positions(mask: int | Sequence[int], per: int) -> np.ndarray:
    """The positions (int64, ascending) of the elements of an iteration a mask selects."""
    if isinstance(mask, (int, np.integer)):
        return np.arange(min(max(int(mask), 0), per), dtype=np.int64)
    return np.flatnonzero(selected(mask, per)).astype(np.int64)


def hashable(mask: int | Sequence[int]) -> int | tuple[int, ...]:
    """A mask as a key (an int, or its words as a tuple): what the repeat forms' cached layouts are keyed by."""
    return mask if isinstance(mask, (int, np.integer)) else tuple(mask)


def with_masks(data: Mapping[str, Any], masks: Mapping[str, Any], fail: Callable[[str, str], None]) -> dict[str, Any]:
    """An API spec's data with the mask pages' rules and effects (masks.yaml) added for each mask parameter
    declared `general`, each with the API's id, the parameter and `when` the forms of its mode; checked:
    every form's mode agrees with the parameter's type in that form."""
    api, params = data["api"], data["params"]
    rules, effects = list(data["rules"]), list(data.get("effects", []))
    for name, how in data.get("masks", {}).items():
        if name not in params:
            fail(f"masks.{name}", f"{name!r} is not a parameter of {api}")
        for form, mode in how["forms"].items():
            if form not in data.get("forms", ()):
                fail(f"masks.{name}.forms.{form}", f"{form!r} is not a form of {api}")
            declared = params[name].get("forms", {})
            kind = declared.get(form) if isinstance(declared, Mapping) else params[name].get("type", "int")
            if kind != masks["modes"][mode]["type"]:
                fail(f"masks.{name}.forms.{form}", f"a {mode} mask is of type {masks['modes'][mode]['type']}, not {kind}")
        if not how.get("general"):
            continue
        by_mode = {m: [f for f, fm in how["forms"].items() if fm == m] for m in MODES}
        for raw in masks["rules"]:
            if by_mode[raw["mode"]]:
                when = {"forms": by_mode[raw["mode"]], **({"dtypes": raw["dtypes"]} if "dtypes" in raw else {})}
                rules.append({**{k: v for k, v in raw.items() if k not in ("mode", "dtypes")},
                              "id": f"{api}.{name}.{raw['id']}", "param": name, "when": when,
                              "source": masks["source"]})
        effects += [{"id": f"{api}.{name}.{raw['id']}", "quote": raw["quote"], "says": raw["says"],
                     "source": masks["source"], "when": {"forms": by_mode[raw["mode"]]}}
                    for raw in masks["effects"] if by_mode[raw["mode"]]]
    return {**data, "rules": rules, "effects": effects}
