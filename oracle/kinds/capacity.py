"""capacity: a tensor lies inside its buffer (UB, L1...); `reserve` bytes at the top are left out."""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Optional

from oracle.call import SCOPES
from oracle.records import Rule

from .base import RuleKind, require
from .phases import Entries, Pass
from .protocols import Checked, Env, Listed, Placing, Plan, Plans, Source, Sweep
from .tables import end_plans, label_of, plain, tensors_of


class Capacity(RuleKind):
    name = "capacity"
    fast_rank = 7
    entry_field = "operand"
    legal_edges = ("*=top", "*=largest-fit")

    def check(self, rule: Rule, ctx: Checked) -> Optional[str]:
        name, product, caps = rule.fields["operand"], ctx.product, {}    # caps: per scope, looked up once
        for i, tensor in enumerate(tensors_of(ctx, name)):
            scope = tensor.scope
            if scope == "GM":                              # every product has one, unbounded
                continue
            if scope not in caps:
                if not product.has_scope(scope):
                    return f"{ctx.call.product} has no {scope}"
                cap = product.capacity(scope)
                caps[scope] = None if cap is None else cap - rule.fields.get("reserve", 0)
            cap = caps[scope]
            if cap is None:
                continue
            end = tensor.addr + ctx.nbytes(tensor)
            if end > cap:
                return (f"{label_of(ctx, name, i)} ends at byte {end} of {tensor.scope}, past its {cap} bytes on "
                        f"{ctx.call.product}")
        return None

    def fast_entries(self, rule: Rule, ctx: Checked) -> Entries | Pass:
        names = plain(rule, ctx, "operand")
        return names and [(name, _limits(rule, ctx)) for name in names]

    def fast_source(self, entries: Sequence[Any], src: Source) -> None:
        for name, limits in entries:
            t = src.tensor(name)
            if name in src.scopes:
                if src.scopes[name] not in limits:
                    src.fail_if("True")
                elif limits[src.scopes[name]] is not None:
                    src.fail_if(f"{t}.addr + {src.nbytes(name)} > {src.literal(limits[src.scopes[name]])}")
                continue
            src.lines.append(f"    s = {t}.scope")
            branch = "if"
            for scope, limit in limits.items():
                src.lines.append(f"    {branch} s == {src.literal(scope)}:")
                src.lines.append("        pass" if limit is None else
                                 f"        if {t}.addr + {src.nbytes(name)} > {src.literal(limit)}: return False")
                branch = "elif"
            src.lines.append("    else: return False" if limits else "    return False")

    def fast_listed(self, rule: Rule, ctx: Checked, names: tuple[str, ...], listed: Callable[[str], Listed],
                    groups: list[list[str]]) -> bool:
        for name in names:
            listed(name).limits.append(_limits(rule, ctx))
        return True

    def edges(self, rule: Rule, sweep: Sweep) -> Plans:
        op = rule["operand"]
        return {f"{op}=one-past-top": [{"path": p, f"{op}.past": "min"} for p in sweep.paths]}

    def region_edges(self, rule: Rule, base: list[Plan]) -> Plans:
        """The tensor ends one element into the reserved top, or at the top of the scope."""
        if not rule.get("reserve"):
            return {}
        return end_plans(base, rule["operand"], "reserved", "reserve-edge", "top")

    def breakable_in(self, rule: Rule, scopes: Mapping[str, str]) -> bool:
        return scopes[rule["operand"]] != "GM"

    def reachable(self, rule: Rule, env: Env) -> Optional[bool]:
        """Not on a product where an ambiguity reserves the top of the operand's scope for every legal
        form and dtype (the ND2NZ page's 8 KB on the 310P AI Core): a tensor past the top reaches into the
        reserve too, so no call breaks the rule alone. None (the layouts decide) otherwise."""
        if rule.get("reserve"):
            return None
        legal = [(f, d) for f in env.spec.forms_or_default() for d in env.legal_dtypes(f)]
        if legal and all(self.reserves_top(rule, env, f, d) for f, d in legal):
            return False
        return None

    def reserved(self, rule: Rule) -> Optional[int]:
        reserve: int = rule.get("reserve", 0)
        return reserve

    def usable_dtypes(self, rule: Rule, env: Env, form: str | None, legal: list[str]) -> list[str]:
        return [d for d in legal if not self.reserves_top(rule, env, form, d)]

    def reserves_top(self, rule: Rule, env: Env, form: str | None, dtype: str) -> bool:
        """Does an ambiguity reserve the top of the rule's operand's scope for every call of this form
        and dtype (vec_trans_scatter's 11 KB for 32-bit types)? A tensor past the top of the scope
        reaches into the reserve too: such a call falls into the ambiguity, never breaks the rule alone."""
        return any(env.covers(region, form, dtype) for amb in env.spec.ambiguities
                   if any(c.kind == self.name and c.get("reserve") and c["operand"] == rule["operand"]
                          for c in amb.checks)
                   for region in amb.regions)

    def finish(self, rule: Rule, placing: Placing) -> None:
        p, op = placing, rule["operand"]
        k = p.entry_to_break(op)
        runs, size, addr = p.runs(op, k), p.itemsize[op], p.addrs[op][k]
        require(p.draft.scopes[op] != "GM")
        top = p.env.capacity(p.draft.scopes[op])
        if rule.get("reserve"):     # an ambiguity's reserved top of the scope: the tensor ends in it
            edge = (top - rule["reserve"] - addr) // size + 1     # one element into it
            high = (top - addr) // size
            require(max(edge, -(-runs.end // size)) <= high)
            p.numel[op][k], _ = p.pick.between(max(edge, -(-runs.end // size)), high, f"{op}.reserved")
            if p.numel[op][k] in (edge, high):
                p.draft.tags.append(f"{op}={'reserve-edge' if p.numel[op][k] == edge else 'top'}")
            return
        extra = p.pick.integer(0, 3, f"{op}.past")
        p.numel[op][k] = (top - addr) // size + 1 + extra
        if extra == 0:
            p.draft.tags.append(f"{op}=one-past-top")


def _limits(rule: Rule, ctx: Checked) -> dict[str, int | None]:
    """Per scope the product has: the highest end a tensor there may have (None: unbounded)."""
    product, reserve = ctx.product, rule.fields.get("reserve", 0)
    limits: dict[str, int | None] = {}
    for scope in SCOPES:
        if scope == "GM":
            limits[scope] = None
        elif product.has_scope(scope):
            cap = product.capacity(scope)
            limits[scope] = None if cap is None else cap - reserve
    return limits
