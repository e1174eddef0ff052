"""The rule kinds of the spec format, one module each, found here once.

`RULE_KINDS` maps a kind's name (the YAML's `kind:`) to its object (base.RuleKind): the checker, the fast
path, the edge sweep and the drawing steps ask it, and none of them names a kind. Every module of this
package that defines a RuleKind subclass with a `name` is one kind: adding a kind is its module here and
its entry in specs/schema.yaml (docs/architecture.md walks through one).
"""
from __future__ import annotations

import importlib
import pkgutil

from .base import RULE_KINDS, PASS, UNBROKEN, Retry, RuleKind, kind_of, require


def _register() -> None:
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, RuleKind) and value.__module__ == module.__name__ \
                    and value.name:
                if value.name in RULE_KINDS:
                    raise TypeError(f"two rule kinds are named {value.name!r}")
                RULE_KINDS[value.name] = value()


_register()

__all__ = ["RULE_KINDS", "PASS", "UNBROKEN", "Retry", "RuleKind", "kind_of", "require"]
