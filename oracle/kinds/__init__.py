"""The rule kinds of the spec format, one module each, registered here once.

`RULE_KINDS` maps a kind's name (the YAML's `kind:`) to its object (base.RuleKind): the checker, the fast
path, the edge sweep and the drawing steps ask it, and none of them tests a kind's name. Adding a kind
is a module here (a RuleKind subclass), its line in _ALL and its entry in specs/schema.yaml
(docs/architecture.md walks through one).
"""
from __future__ import annotations

from typing import Any

from .align import Align
from .base import PASS, Retry, RuleKind, require
from .bounds import Bounds
from .capacity import Capacity
from .dtype import Dtype
from .iteration_overlap import IterationOverlap
from .list_length import ListLength
from .mask_words import MaskWords
from .multiple import Multiple
from .offset_align import OffsetAlign
from .offset_range import OffsetRange
from .offset_unique import OffsetUnique
from .overlap import Overlap
from .path import Path
from .product import Product
from .range import Range
from .reach import Reach
from .same_dtype import SameDtype
from .scaled_multiple import ScaledMultiple
from .scope import Scope
from .self_overlap import SelfOverlap
from .slices import Slices

_ALL = (Product, Path, Scope, Dtype, SameDtype, ListLength, Range, Multiple, ScaledMultiple, MaskWords, Align,
        Bounds, Capacity, Overlap, Reach, OffsetRange, OffsetAlign, OffsetUnique, SelfOverlap, IterationOverlap,
        Slices)
RULE_KINDS: dict[str, RuleKind] = {cls.name: cls() for cls in _ALL}

# what a call breaking no rule (a legal call; an ambiguity region without checks) is drawn by: the
# base kind, which changes nothing
UNBROKEN = RuleKind()


def kind_of(rule: Any) -> RuleKind:
    """The kind of `rule` (None, or an ambiguity region's target without a check: UNBROKEN)."""
    return UNBROKEN if rule is None else RULE_KINDS.get(rule.kind, UNBROKEN)


__all__ = ["RULE_KINDS", "PASS", "UNBROKEN", "Retry", "RuleKind", "kind_of", "require"]
