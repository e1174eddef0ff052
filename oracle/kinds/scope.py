"""scope: an operand lies in one of the scopes (GM, UB, L1...) the page allows it."""
from __future__ import annotations

from typing import Optional

from oracle.call import SCOPES
from oracle.records import Rule

from .base import require
from .protocols import Checked, Env, Picks, Plans, Sweep
from .tables import OneOfAllowed, label_of, tensors_of


class Scope(OneOfAllowed):
    name = "scope"
    attribute = "scope"
    fast_rank = 5
    entry_field = "operand"

    def check(self, rule: Rule, ctx: Checked) -> Optional[str]:
        name, allowed = rule.fields["operand"], rule.fields["allowed"]
        for i, tensor in enumerate(tensors_of(ctx, name)):
            if tensor.scope not in allowed:
                return f"{label_of(ctx, name, i)} is in {tensor.scope}; it must be in {' or '.join(allowed)}"
        return None

    def edges(self, rule: Rule, sweep: Sweep) -> Plans:
        env = sweep.env
        return {f"{rule['operand']}={s}": [{"scope": s}] for s in SCOPES
                if env.product.has_scope(s) and s not in rule["allowed"]}

    def scopes(self, rule: Rule, pick: Picks, env: Env) -> Optional[tuple[dict[str, str], list[str]]]:
        """The operand in a scope it may not be in."""
        scopes = env.operand_scopes(None)
        others = [s for s in SCOPES if env.product.has_scope(s) and s not in rule["allowed"]]
        require(others)
        scopes[rule["operand"]] = pick.choice(others, "scope")
        return scopes, [f"{rule['operand']}={scopes[rule['operand']]}"]
