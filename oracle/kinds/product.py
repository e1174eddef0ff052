"""product: the API exists on the products the page lists ("支持的型号")."""
from __future__ import annotations

from .base import PASS, RuleKind


class Product(RuleKind):
    name = "product"
    fast_rank = 0
    by_product = True

    def check(self, rule, ctx):
        if ctx.call.product not in rule.fields["products"]:
            supported = ", ".join(rule.fields["products"])
            return f"{ctx.spec.api} is not supported on {ctx.call.product} (supported: {supported})"
        return None

    def products(self, rule):
        return rule.fields["products"]

    def fast_entries(self, rule, ctx):
        return PASS if ctx.call.product in rule.fields["products"] else None

    def reachable(self, rule, env):
        return not env.supported
