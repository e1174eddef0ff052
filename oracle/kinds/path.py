"""path: the data paths (source scope -> destination scope) each product allows."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional

from oracle.records import Rule

from .base import PASS, RuleKind
from .phases import Entries, Pass
from .protocols import Checked, Env, Plans, Source, Sweep


class Path(RuleKind):
    name = "path"
    fast_rank = 6
    dtype_free = True

    def check(self, rule: Rule, ctx: Checked) -> Optional[str]:
        allowed = rule.fields["allowed"].get(ctx.call.product)
        if allowed is None:      # the page says nothing of this product's paths; the product rule speaks for it
            return None
        path = f"{ctx.tensor(rule.fields['from']).scope}->{ctx.tensor(rule.fields['to']).scope}"
        if path not in allowed:
            return f"path {path} is not supported on {ctx.call.product} (supported: {', '.join(allowed)})"
        return None

    def paths(self, rule: Rule, product: Optional[str]) -> Optional[list[str]]:
        if product is None:
            return [p for paths in rule.fields["allowed"].values() for p in paths]
        allowed: list[str] | None = rule.fields["allowed"].get(product)
        return allowed

    def path_ends(self, rule: Rule) -> Optional[tuple[str, str]]:
        return rule.fields["from"], rule.fields["to"]

    def fast_entries(self, rule: Rule, ctx: Checked) -> Entries | Pass:
        allowed = rule.fields["allowed"].get(ctx.call.product)
        if allowed is None:                 # the check leaves such a product to the product rule
            return PASS
        return [(rule.fields["from"], rule.fields["to"], frozenset(tuple(path.split("->")) for path in allowed))]

    def fast_source(self, entries: Sequence[Any], src: Source) -> None:
        for a, b, pairs in entries:
            if a not in src.scopes or b not in src.scopes:
                src.fail_if(f"({src.tensor(a)}.scope, {src.tensor(b)}.scope) not in {src.literal(pairs)}")
            elif (src.scopes[a], src.scopes[b]) not in pairs:
                src.fail_if("True")

    def edges(self, rule: Rule, sweep: Sweep) -> Plans:
        return {f"path={p}": [{"path": p}] for p in sweep.env.forbidden_paths()}

    def reachable(self, rule: Rule, env: Env) -> Optional[bool]:
        return bool(env.forbidden_paths())

    def path_tags(self, rule: Rule, path: str) -> list[str]:
        return [f"path={path}"]

    def candidate_paths(self, rule: Rule, env: Env, form: str | None) -> tuple[str | None, list[str]]:
        """A path rule of some forms is broken by a call of those forms, on a path it does not allow."""
        forms = (rule.when or {}).get("forms")
        form = form if form is not None or not forms else forms[0]
        return form, env.forbidden_paths(form)
