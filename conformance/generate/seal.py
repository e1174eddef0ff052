"""What the calls a seed draws may depend on: the kit, the seed and the Hypothesis release, nothing else.

Hypothesis (6.13x and later) mixes into its integer, float and string draws the literals it finds in the
"local" modules loaded in the process: every module outside the standard library and site-packages that
is not a test file. A backend under test is such a module, so two backends that differ only in a few
constants got different call streams under one seed. No setting or environment variable turns
this off, so `seal()` replaces the function the installed release asks for those constants
(`hypothesis.internal.conjecture.providers._get_local_constants`, a private name) by one that returns none.

It is guarded: the names are looked up, never assumed; where they are missing (a release without the
mixing, or one that moved it) nothing is patched and `seal()` says so, and tests/generate/test_edges.py checks on
the installed release that the stream of a seed does not change with the constants of a loaded backend.
The patch is process-wide and idempotent; it only takes away a heuristic, so other Hypothesis tests in the
same process keep working (with the release's own global constants still mixed in).
"""
from __future__ import annotations

from typing import Any

_MARK = "_ascend_conformance_sealed"


def _providers() -> Any:
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:                 # pragma: no cover - a release that moved its providers
        return None
    return providers


def seal() -> bool:
    """Stop Hypothesis mixing the constants of loaded modules into draws; True when in effect (or when
    the installed release has no such mixing to stop), False when it has one this cannot reach."""
    providers = _providers()
    if providers is None:
        return False
    current = getattr(providers, "_get_local_constants", None)
    if current is None:
        return not hasattr(providers.HypothesisProvider, "_local_constants")
    if getattr(current, _MARK, False):
        return True
    try:
        from hypothesis.internal.constants_ast import Constants
        empty = Constants()
    except (ImportError, TypeError):    # pragma: no cover - a release with another Constants
        return False

    def no_local_constants() -> Any:
        return empty

    setattr(no_local_constants, _MARK, True)
    no_local_constants.__wrapped__ = current      # type: ignore[attr-defined]  (tests put it back)
    providers._get_local_constants = no_local_constants
    cache = getattr(providers, "CONSTANTS_CACHE", None)
    if cache is not None and hasattr(cache, "cache"):
        cache.cache.clear()             # tuples of allowed constants computed before the seal
    return True


def sealed() -> bool:
    """Is the seal in effect in this process (see seal)?"""
    providers = _providers()
    current = getattr(providers, "_get_local_constants", None) if providers is not None else None
    return bool(getattr(current, _MARK, False))
