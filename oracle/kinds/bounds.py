"""bounds: the bytes a call touches of an operand lie inside its tensor."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Optional

from oracle.call import nest
from oracle.records import Rule

from .base import Retry, RuleKind, require
from .phases import Entries, Pass
from .protocols import Checked, Listed, Placing, Plan, Plans, Source, Sweep
from .tables import end_plans, label_of, plain, tensors_of


class Bounds(RuleKind):
    name = "bounds"
    fast_rank = 9
    entry_field = "operand"
    holds_bytes = True
    moves_bytes = True
    allows_slack = False
    legal_edges = ("*=largest-fit",)

    def check(self, rule: Rule, ctx: Checked) -> Optional[str]:
        """With `half_by` (a bool parameter naming the 16-byte half of each block an 8-bit entry touches):
        broken when the whole blocks leave a tensor and, for every entry, the half it touches does not
        (the calls on which whole blocks and touched halves disagree)."""
        name = rule.fields["operand"]
        runs = ctx.accesses[name] if ctx.spec.is_list(name) else [ctx.accesses[name]]
        found = _outside(ctx, name, runs)
        half_by = rule.fields.get("half_by")
        if found is None or half_by is None:
            return found
        if ctx.units["element"] != 1:                          # wider elements touch their whole blocks
            return None
        high = bool(ctx.call.args[half_by])
        halves = [None if r is None else r._replace(first=r.first + r.length // 2 * high, length=r.length // 2)
                  for r in runs]
        if _outside(ctx, name, halves) is not None:
            return None
        return f"{found}; the half {half_by}={high} picks lies inside"

    def fast_entries(self, rule: Rule, ctx: Checked) -> Entries | Pass:
        names = plain(rule, ctx, "operand")
        return names and list(names)

    def fast_source(self, entries: Sequence[Any], src: Source) -> None:
        for name in entries:
            src.tensor(name)
            span = src.spans.setdefault(name, f"span{len(src.spans)}")
            src.lines.append(f"    runs = {src.accesses()}[{name!r}]")
            src.lines.append(f"    {span} = None if runs is None else runs.span")
            src.fail_if(f"{span} is not None and ({span}[0] < 0 or {span}[1] > {src.nbytes(name)})")

    def fast_listed(self, rule: Rule, ctx: Checked, names: tuple[str, ...], listed: Callable[[str], Listed],
                    groups: list[list[str]]) -> bool:
        for name in names:
            listed(name).bounds = True
        return True

    def edges(self, rule: Rule, sweep: Sweep) -> Plans:
        return {f"{rule['operand']}=one-short": [{"path": p} for p in sweep.paths]}

    def region_edges(self, rule: Rule, base: list[Plan]) -> Plans:
        """The tensor ends with the half an 8-bit entry touches, or a byte short of the block."""
        if not rule.get("half_by"):
            return {}
        return end_plans(base, rule["operand"], "short", "half-end", "one-short")

    def finish(self, rule: Rule, placing: Placing) -> None:
        p, op = placing, rule["operand"]
        k = p.entry_to_break(op)
        runs = p.runs(op, k)
        require(runs.end > 0)
        p.numel[op][k] = self._short(rule, p, runs, p.itemsize[op])

    def _short(self, rule: Rule, p: Placing, runs: Any, itemsize: int) -> int:
        """The elements of a tensor that ends short of what its entry touches: one element short of its
        runs' end; with `half_by` (the half of each block an 8-bit entry touches), past the end of the low
        half touched but short of the block's (1 .. half bytes short: an ambiguity's region); for a plain
        bounds rule that such an ambiguity overrides on this call, one element short of the half."""
        env, draft = p.env, p.draft
        op, half = rule["operand"], runs.length // 2
        low_end = runs.end - half                   # the low half of the last block ends here
        if rule.get("half_by"):
            require(itemsize == 1 and not draft.params[rule["half_by"]])
            n, _ = p.pick.between(low_end, runs.end - 1, f"{op}.short")
            if n in (low_end, runs.end - 1):        # ends with the half / one byte short of the block
                draft.tags.append(f"{op}={'half-end' if n == low_end else 'one-short'}")
            return n
        template = draft.template
        if template is None:
            raise Retry
        probe = template.replace(**nest(draft.params))
        halved = [c for amb in env.spec.ambiguities if rule.id in amb.overrides for c in amb.checks
                  if c.kind == self.name and c["operand"] == op and c.get("half_by")
                  and any(env.rulebook.matches(r, probe, env.spec) for r in amb.regions)]
        draft.tags.append(f"{op}=one-short")
        if any(itemsize == 1 and not draft.params[c["half_by"]] for c in halved):
            below_half: int = -(-low_end // itemsize) - 1
            return below_half
        below_end: int = -(-runs.end // itemsize) - 1
        return below_end


def _outside(ctx: Checked, name: str, runs: Sequence[Any]) -> str | None:
    """The first tensor of the operand that its runs (one per tensor, in Context.entries' order) leave, worded
    (None: none does). A list's entries share one Runs: its span is read once."""
    last, span = None, (0, 0)
    for i, (tensor, r) in enumerate(zip(tensors_of(ctx, name), runs)):
        if r is None:
            continue
        if r is not last:
            last, span = r, r.span                         # (0, 0) when it touches nothing: inside
        begin, end = span
        size = ctx.nbytes(tensor)
        if begin < 0 or end > size:
            return (f"{label_of(ctx, name, i)} is accessed at bytes [{begin}, {end}) of a tensor of {size} bytes "
                    f"({tensor.numel} x {tensor.dtype})")
    return None
