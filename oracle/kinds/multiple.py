"""multiple: a parameter is a multiple of a number (or of the element width: "sizeof(T)的整数倍")."""
from __future__ import annotations

from .base import RuleKind, require


class Multiple(RuleKind):
    name = "multiple"
    legal_edges = ("{param}=min", "{param}=max", "{param}=largest-fit")

    def check(self, rule, ctx):
        value, of = ctx.call.int_arg(rule.fields["param"]), rule.fields["of"]
        if of == "element":                                    # "blockLen必须是sizeof(T)的整数倍"
            of = ctx.units["element"]
        if value % of:
            return f"{rule.fields['param']}={value} is not a multiple of {of}"
        return None

    def edges(self, rule, sweep):
        return {f"{rule['param']}=off-multiple": [{f"{rule['param']}.off": o, "path": p}
                                                  for o in ("min", "max") for p in sweep.paths]}

    def off_step(self, rule, pick, name, value, step):
        if rule["param"] != name:
            return None
        value = max(value - pick.integer(1, step - 1, f"{name}.off"), 1)
        require(value % step)
        return value
