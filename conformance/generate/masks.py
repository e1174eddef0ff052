"""Drawing the bitwise masks of a call (lists of words, from their mask_words rules): a step of drawing
its parameters (parameters.py) that needs no sizing."""
from __future__ import annotations

from typing import Mapping

from oracle.spec import Rule

from oracle.kinds import kind_of, require
from conformance.generate.picks import Picks, pick_between


def draw_words(pick: Picks, word_rules: Mapping[str, list[Rule]], tags: list[str], target: Rule | None
               ) -> dict[str, list[int]]:
    """Bitwise masks (lists of words) from their mask_words rules: a single bit, every bit, the first or
    the last element only, or any; for a target rule, every word 0 or one word past its range, or, where
    neither can be, one word too few."""
    out = {}
    for name, rules in word_rules.items():
        require(rules)
        rule = rules[0]
        said = kind_of(rule).word_ranges(rule)
        require(said is not None)
        bounds, nonzero = said
        if target is not None and target.id == rule.id:
            past = [k for k, (_, hi) in enumerate(bounds) if hi < 2**64 - 1]
            ways = ["zero"] * bool(nonzero or bounds[0][0]) + ["past"] * bool(past)
            how = pick.choice(ways, f"{name}.shape") if ways else "short"
            words = [0] * len(bounds)
            if how == "short":                  # every word's range is the whole word: only the count breaks it
                require(len(bounds) > 1)
                out[name] = [1 << pick.integer(0, 63, f"{name}.bit")] * (len(bounds) - 1)
                tags.append(f"{name}=short")
                continue
            if how == "past":
                k = pick.choice(past, f"{name}.word")
                words[k] = pick_between(pick, bounds[k][1] + 1, 2**64 - 1, f"{name}.past")[0]
                words[0] = words[0] or (1 if k else words[0])
                tags.append(f"{name}[{k}]=above-max")
            else:
                tags.append(f"{name}=zero")
            out[name] = words
            continue
        live = [k for k, (_, hi) in enumerate(bounds) if hi > 0]
        shape = pick.choice(("single", "all", "first", "last", "any"), f"{name}.shape")
        words = [lo for lo, _ in bounds]
        if shape == "all":
            words = [hi for _, hi in bounds]
        elif shape == "first":
            words[live[0]] = 1
        elif shape == "last":
            words[live[-1]] = 1 << (bounds[live[-1]][1].bit_length() - 1)
        elif shape == "single":
            k = pick.choice(live, f"{name}.word")
            words[k] = 1 << pick.integer(0, bounds[k][1].bit_length() - 1, f"{name}.bit")
        else:
            words = [pick.integer(lo, hi, f"{name}.value") for lo, hi in bounds]
        require(any(words) and all(lo <= w <= hi for w, (lo, hi) in zip(words, bounds)))
        tags.append(f"{name}={shape}")
        out[name] = words
    return out
