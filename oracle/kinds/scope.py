"""scope: an operand lies in one of the scopes (GM, UB, L1...) the page allows it."""
from __future__ import annotations

from oracle.call import SCOPES

from .base import RuleKind, require
from .tables import each_allowed, one_of


class Scope(RuleKind):
    name = "scope"
    fast_rank = 5
    entry_field = "operand"

    def check(self, rule, ctx):
        for label, tensor in ctx.labelled[rule.fields["operand"]]:
            if tensor.scope not in rule.fields["allowed"]:
                return f"{label} is in {tensor.scope}; it must be in {' or '.join(rule.fields['allowed'])}"
        return None

    def fast_entries(self, rule, ctx):
        return each_allowed(rule, ctx, "operand")

    def fast_source(self, entries, src):
        for name, allowed in entries:
            one_of(src, name, "scope", src.scopes, allowed)

    def fast_listed(self, rule, ctx, names, listed, groups):
        allowed = frozenset(rule.fields["allowed"])
        for name in names:
            entry = listed(name)
            entry.scopes = allowed if entry.scopes is None else entry.scopes & allowed
        return True

    def edges(self, rule, sweep):
        env = sweep.env
        return {f"{rule['operand']}={s}": [{"scope": s}] for s in SCOPES
                if env.product.has_scope(s) and s not in rule["allowed"]}

    def scopes(self, rule, pick, env):
        """The operand in a scope it may not be in."""
        scopes = env.operand_scopes(None)
        others = [s for s in SCOPES if env.product.has_scope(s) and s not in rule["allowed"]]
        require(others)
        scopes[rule["operand"]] = pick.choice(others, "scope")
        return scopes, [f"{rule['operand']}={scopes[rule['operand']]}"]
