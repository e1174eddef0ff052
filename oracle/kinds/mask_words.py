"""mask_words: a bitwise mask (a list of words): word k inside words[k]; with `nonzero`, not all 0."""
from __future__ import annotations

from typing import Optional

from oracle.records import Rule

from .base import RuleKind
from .protocols import Checked, Plan, Plans, Sweep


class MaskWords(RuleKind):
    name = "mask_words"
    legal_edges = ("{param}=all", "{param}=first", "{param}=last", "{param}=single")

    def check(self, rule: Rule, ctx: Checked) -> Optional[str]:
        words = ctx.call.args[rule.fields["param"]]
        if len(words) != len(rule.fields["words"]):
            return f"{rule.fields['param']} has {len(words)} words; it must have {len(rule.fields['words'])}"
        for k, (value, (lo, hi)) in enumerate(zip(words, rule.fields["words"])):
            if not lo <= value <= hi:
                return f"{rule.fields['param']}[{k}] = {value} is outside [{lo}, {hi}]"
        if rule.fields.get("nonzero") and not any(words):
            return f"{rule.fields['param']} selects no element (every word is 0)"
        return None

    def word_ranges(self, rule: Rule) -> Optional[tuple[list[tuple[int, int]], bool]]:
        return [(lo, hi) for lo, hi in rule.fields["words"]], bool(rule.fields.get("nonzero"))

    def words_param(self, rule: Rule) -> Optional[str]:
        param: str = rule.fields["param"]
        return param

    def edges(self, rule: Rule, sweep: Sweep) -> Plans:
        """A mask of zeros, one past each word's range, or (where neither breaks it) one word too few."""
        env, out = sweep.env, dict[str, list[Plan]]()
        name, bounds = rule["param"], rule["words"]
        for form in sweep.forms(rule):
            dtypes = [d for d in env.legal_dtypes(form) if d in (rule.when or {}).get("dtypes", [d])]
            if rule.get("nonzero") or bounds[0][0]:
                out.setdefault(f"{name}=zero", []).extend(
                    {"form": form, "dtype": d, f"{name}.shape": "zero"} for d in dtypes)
            for k, (_, hi) in enumerate(bounds):
                if hi < 2**64 - 1:
                    out.setdefault(f"{name}[{k}]=above-max", []).extend(
                        {"form": form, "dtype": d, f"{name}.shape": "past", f"{name}.word": k,
                         f"{name}.past": "min"} for d in dtypes)
            if not rule.get("nonzero") and not bounds[0][0] and all(hi == 2**64 - 1 for _, hi in bounds):
                out.setdefault(f"{name}=short", []).extend({"form": form, "dtype": d} for d in dtypes)
        return out
