"""align: an operand's address in a scope is a multiple of some bytes (a block, the element width...)."""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Optional

from oracle.records import Product, Rule

from .base import RuleKind, require
from .phases import Entries, Pass
from .protocols import Checked, Env, Listed, Placing, Plan, Plans, Source, Sweep
from .tables import label_of, plain, tensors_of


class Align(RuleKind):
    name = "align"
    fast_rank = 2
    entry_field = "operand"

    def check(self, rule: Rule, ctx: Checked) -> Optional[str]:
        scope, need, name = rule.fields["scope"], None, rule.fields["operand"]
        for i, tensor in enumerate(tensors_of(ctx, name)):
            if tensor.scope == scope:                          # the rule speaks of this scope only
                if need is None:
                    need = self.need(rule, ctx.product, ctx.rulebook.itemsize(tensor.dtype))
                if tensor.addr % need:
                    return (f"{label_of(ctx, name, i)} in {tensor.scope} at byte {tensor.addr} is not "
                            f"{need}-byte aligned")
        return None

    def need(self, rule: Rule, product: Product, element: int = 1) -> int:
        """The bytes the rule asks for: a number, the product's block, or `element` (the width of the
        operand's dtype: "按照对应数据类型所占字节数对齐")."""
        value = rule.fields["bytes"]
        if value == "element":
            return element
        return product.block_bytes if value == "block_bytes" else int(value)

    def alignment(self, rule: Rule, operand: str, scope: str, product: Product, element: int) -> Optional[int]:
        if rule.fields["operand"] != operand or rule.fields["scope"] != scope:
            return None
        return self.need(rule, product, element)

    def fast_entries(self, rule: Rule, ctx: Checked) -> Entries | Pass:
        names = plain(rule, ctx, "operand")
        if rule.fields["bytes"] == "element":       # the operand's own width: left to the check
            return None
        need = self.need(rule, ctx.product)
        return names and [(name, rule.fields["scope"], need) for name in names]

    def fast_source(self, entries: Sequence[Any], src: Source) -> None:
        for name, scope, need in entries:
            t = src.tensor(name)
            if name not in src.scopes:
                src.fail_if(f"{t}.scope == {src.literal(scope)} and {t}.addr % {src.literal(need)}")
            elif src.scopes[name] == scope:
                src.fail_if(f"{t}.addr % {src.literal(need)}")

    def fast_listed(self, rule: Rule, ctx: Checked, names: tuple[str, ...], listed: Callable[[str], Listed],
                    groups: list[list[str]]) -> bool:
        if rule.fields["bytes"] == "element":       # by each entry's own width: left to the check
            return False
        for name in names:
            listed(name).align.append((rule.fields["scope"], self.need(rule, ctx.product)))
        return True

    def edges(self, rule: Rule, sweep: Sweep) -> Plans:
        """Every misalignment the operand can take, on every form, dtype and path."""
        env, op, out = sweep.env, rule["operand"], dict[str, list[Plan]]()
        for form in sweep.forms(rule):
            for dtype in env.legal_dtypes(form):
                for path in sweep.paths:
                    for d in self.deltas(rule, env, dtype, path, form):
                        out.setdefault(f"{op}=off-by-{d}", []).append(
                            {"form": form, "dtype": dtype, "path": path, f"{op}.misalign": d})
        return out

    def deltas(self, rule: Rule, env: Env, dtype: str, path: str | None, form: str | None) -> list[int]:
        """The misalignments of the operand a call of this dtype and path can take (as `finish` makes them)."""
        scopes = env.operand_scopes(path)
        op = rule["operand"]
        if scopes[op] != rule["scope"]:
            return []
        probe = env.probe(form, env.operand_dtypes(dtype), scopes, {})
        align = env.rulebook.alignment(env.spec, probe, op, scopes[op])
        size = env.rulebook.itemsize(env.operand_dtypes(dtype)[op])
        need = self.need(rule, env.product, size)
        return misalignments(size, align, need, rule["bytes"] == "element")

    def breakable_in(self, rule: Rule, scopes: Mapping[str, str]) -> bool:
        scope: str = rule["scope"]
        return scopes[rule["operand"]] == scope

    def spare_operand(self, rule: Rule) -> Optional[str]:
        operand: str = rule["operand"]
        return operand

    def finish(self, rule: Rule, placing: Placing) -> None:
        """The entry furthest up misaligned into its group's spare unit (not onto a neighbour)."""
        op, p = rule["operand"], placing
        k = p.entry_to_break(op)
        k = max(range(p.draft.count(op)), key=lambda i: p.addrs[op][i])
        runs = p.runs(op, k)
        size = p.itemsize[op]
        need = self.need(rule, p.env.product, size)
        require(p.draft.scopes[op] == rule["scope"])
        deltas = misalignments(size, p.op_aligns[op], need, rule["bytes"] == "element")
        require(deltas)
        delta = p.pick.choice(deltas, f"{op}.misalign")
        p.addrs[op][k] += delta
        p.numel[op][k] = max(p.numel[op][k] - 1, -(-runs.end // size))
        p.draft.tags.append(f"{op}=off-by-{delta}")


def misalignments(itemsize: int, align: int, need: int, by_element: bool) -> list[int]:
    """The shifts that misalign an operand for an align rule asking `need` bytes: element steps inside
    the operand's alignment `align`; for a rule asking the element width itself
    ("按照对应数据类型所占字节数对齐"), the byte steps inside one element."""
    if by_element:
        return list(range(1, itemsize))
    return [d for d in range(itemsize, align, itemsize) if d % need]
