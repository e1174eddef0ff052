"""product: the API exists on the products the page lists ("支持的型号")."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Optional

from oracle.records import Rule

from .base import PASS, RuleKind
from .phases import Entries, Pass
from .protocols import Checked, Env


class Product(RuleKind):
    name = "product"
    fast_rank = 0
    by_product = True

    def check(self, rule: Rule, ctx: Checked) -> Optional[str]:
        if ctx.call.product not in rule.fields["products"]:
            supported = ", ".join(rule.fields["products"])
            return f"{ctx.spec.api} is not supported on {ctx.call.product} (supported: {supported})"
        return None

    def products(self, rule: Rule) -> Optional[Sequence[str]]:
        products: Sequence[str] = rule.fields["products"]
        return products

    def fast_entries(self, rule: Rule, ctx: Checked) -> Entries | Pass:
        return PASS if ctx.call.product in rule.fields["products"] else None

    def reachable(self, rule: Rule, env: Env) -> Optional[bool]:
        return not env.supported
