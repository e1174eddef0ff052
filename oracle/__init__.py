"""The referee's rulebook: spec-driven legality checks and the exact memory image of a legal call.

Public contract (docs/architecture.md): Tensor, Call, check, expected. No Hypothesis, no pytest here.
"""
from .call import Call, CallFormatError, Tensor
from .expected import Expected, IllegalCall, expected, written_mask
from .rules import Violation, check, verdict_class
from .spec import ApiSpec, Rule, Rulebook, SpecError, default_rulebook, load_rulebook

__all__ = ["Tensor", "Call", "CallFormatError", "check", "expected", "Expected", "IllegalCall", "Violation",
           "verdict_class", "written_mask", "Rulebook", "ApiSpec", "Rule", "SpecError", "load_rulebook",
           "default_rulebook"]
