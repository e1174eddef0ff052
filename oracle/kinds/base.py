"""What a rule kind is: one object that knows every place the kit reads one sort of sentence.

A rule in the YAML names its kind ("a parameter lies in a range", "an operand's address is aligned")
and gives the numbers; the kind knows what the sentence means, phase by phase (oracle/kinds/phases.py):
its check, what it says of a call when the machinery asks, its fast path, its edges, and how a call is
drawn to break it. A kind reads its numbers, lists and units from the rule and never imports the drawing
machinery: the steps hand it what it draws with (oracle/kinds/protocols.py says what it sees of them).
"""
from __future__ import annotations

from typing import Optional

from oracle.records import Rule

from .phases import (PASS, Checking, DrawingCall, DrawingMemory, DrawingParams, DrawingPlacement, Edges, FastPath,
                     Pass, Reaching, Retry, Saying, require)


class RuleKind(Checking, Saying, FastPath, Edges, Reaching, DrawingCall, DrawingParams, DrawingPlacement,
               DrawingMemory):
    """One sort of sentence. Subclasses set `name` and override the phases their sentence changes."""

    def provides(self, hook: str) -> bool:
        """Does the kind answer `hook` (a hook or flag of the phases) otherwise than a rule that changes
        nothing? The machinery asks only such kinds' rules (ApiSpec.rules_that)."""
        return bool(getattr(type(self), hook) != getattr(RuleKind, hook))


# the registry: kind name -> its object, filled once by oracle/kinds/__init__.py from the modules here
RULE_KINDS: dict[str, RuleKind] = {}

# what a call breaking no rule (a legal call; an ambiguity region without checks) is drawn by: the
# base kind, which changes nothing
UNBROKEN = RuleKind()


def kind_of(rule: Optional[Rule]) -> RuleKind:
    """The kind of `rule` (None, or an ambiguity region's target without a check: UNBROKEN)."""
    return UNBROKEN if rule is None else RULE_KINDS.get(rule.kind, UNBROKEN)


__all__ = ["RULE_KINDS", "PASS", "UNBROKEN", "Pass", "Retry", "RuleKind", "kind_of", "require"]
