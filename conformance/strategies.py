"""Hypothesis strategies derived from the specs: legal calls, calls that break exactly one rule, and
calls in a rule's undefined territory.

Nothing here knows an API. A call is drawn in five steps that read the spec: form and dtype, the
scopes of the operands (the path table), the parameters (the range rules, minus ambiguity regions),
the placement of the operands in their scopes (alignment rules, scope sizes), and a memory seed.
Breaking a rule changes one step, chosen by the rule's *kind* (a range rule gets a value one past an
end, an align rule a misaligned address, ...). Every drawn call is then checked by the oracle and kept
only if its violations are exactly the ones asked for, so a strategy can never mislabel a call.
"""
from __future__ import annotations

import functools
import math
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np
from hypothesis import strategies as st

from oracle import Call, Tensor
from oracle.apis import index_math
from oracle.call import SCOPES, nest
from oracle.rules import KINDS as RULE_KINDS, Context, context, violations as rule_violations
from oracle.spec import ApiSpec, Product, Rule, Rulebook, default_rulebook

from .draws import seal
from .memory import MemoryRecipe, Write, image_sizes

seal()      # the calls of a seed depend on the kit, the seed and the Hypothesis release only (draws.py)

DEFAULT_GM_WINDOW = 4 << 20     # bytes of GM the generators may place operands in
GM_SPREAD = 64 << 10            # GM has no top to reach: gaps between GM operands stay below this
MOVED_BYTES = 8 << 20           # bytes one operand of a generated call may move (the oracle's work per call)
KINDS = ("legal", "reject", "undefined")


@dataclass(frozen=True)
class Case:
    """A generated call, the memory it runs on, and what the oracle says a backend must do with it."""

    call: Call
    memory: MemoryRecipe
    expect: str                      # "legal" | "reject" | "undefined"
    rule: str | None = None          # the one rule a reject/undefined case was made to break
    tags: tuple[str, ...] = ()       # boundaries the case reaches, e.g. "burst=largest-fit"


def _round_up(value: int, align: int) -> int:
    return -(-value // align) * align


class Env:
    """What the strategies of one (api, product) need to know, computed once.

    (A plain class, not a dataclass, so that Hypothesis prints it by its short repr.)"""

    def __init__(self, spec: ApiSpec, product: Product, rulebook: Rulebook, gm_window: int):
        self.spec, self.product, self.rulebook, self.gm_window = spec, product, rulebook, gm_window

    @functools.cached_property
    def nested(self) -> bool:
        """Does the API have parameters that are fields of a mapping argument (intriParams.nValue)?"""
        return any("." in p for p in self.spec.params)

    @functools.cached_property
    def has_values(self) -> bool:
        """Does a call carry data the index math reads (a tensor of offsets)?"""
        return any(d.get("values") for d in self.spec.operands.values())

    @functools.cached_property
    def supported(self) -> bool:
        return all(self.product.id in r["products"] for r in self.spec.rules_of("product"))

    def __repr__(self) -> str:
        return f"Env({self.spec.api}, {self.product.id})"

    def capacity(self, scope: str) -> int:
        return self.gm_window if scope == "GM" else (self.product.capacity(scope) or 0)

    def paths(self) -> list[str]:
        """Allowed paths on this product; the union of all products' where the page lists none for it."""
        rules = self.spec.rules_of("path")
        if not rules:
            return []
        allowed = rules[0]["allowed"]
        paths = allowed.get(self.product.id) or sorted({p for ps in allowed.values() for p in ps})
        return [p for p in paths if all(self.product.has_scope(s) for s in p.split("->"))]

    def forbidden_paths(self) -> list[str]:
        allowed = set(self.paths())
        scopes = [s for s in SCOPES if self.product.has_scope(s)]
        return [f"{a}->{b}" for a in scopes for b in scopes if f"{a}->{b}" not in allowed]

    def probe(self, form: str | None, dtypes: Mapping[str, str], scopes: Mapping[str, str],
              params: Mapping[str, int], counts: Mapping[str, int] | None = None) -> Call:
        """A call with every operand at address 0 and empty: enough to evaluate `when` and index math.
        A list operand gets `counts[op]` entries (default: the spec's `entries`)."""
        args: dict[str, Any] = {}
        for op, d in self.spec.operands.items():
            tensor = Tensor(scopes[op], 0, dtypes[op], 0)
            args[op] = [tensor] * (counts or {}).get(op, d["entries"]) if "entries" in d else tensor
        args.update(nest(params) if self.nested else params)
        return Call(self.spec.api, self.product.id, args, form)

    def dtype_ok(self, call: Call) -> bool:
        """Does the call pass every dtype rule that applies to it?"""
        ctx = Context(call, self.spec, self.rulebook, self.product)
        for rule in self.spec.rules_of("dtype") + self.spec.rules_of("same_dtype"):
            if self.rulebook.matches(rule.when, call, self.spec) and RULE_KINDS[rule.kind](rule, ctx):
                return False
        return True

    @functools.lru_cache(maxsize=None)
    def legal_dtypes(self, form: str | None) -> list[str]:
        """Dtypes with which some allowed path passes every dtype rule (the legal cells of a product)."""
        out = []
        for dtype in self.rulebook.dtypes:
            for path in self.paths() or [None]:
                call = self.probe(form, self.operand_dtypes(dtype), self.operand_scopes(path), {})
                if self.dtype_ok(call) and not self.ambiguous(call):
                    out.append(dtype)
                    break
        return out

    def ambiguous(self, probe: Call) -> bool:
        """Is every call of this form, dtype and path in an ambiguity region (one that names no
        parameter and has no check)? Then the kit generates no legal call there."""
        return any(not amb.checks and "params" not in region and self.rulebook.matches(region, probe, self.spec)
                   for amb in self.spec.ambiguities for region in amb.regions)

    @functools.lru_cache(maxsize=None)
    def path_candidates(self, form: str | None, dtypes: tuple[tuple[str, str], ...], rule_id: str | None) -> list[str]:
        """The paths a call of these operand dtypes may take: allowed ones (passing the dtype rules) for a
        legal call; for a broken rule, those where breaking it alone is possible."""
        target = self.spec.rule(rule_id) if rule_id is not None else None
        kind = target.kind if target is not None else None
        out = []
        for path in self.forbidden_paths() if kind == "path" else self.paths():
            scopes = self.operand_scopes(path)
            if target is not None and not _scopes_can_break(target, scopes):
                continue
            if kind not in ("path", "dtype", "same_dtype") and not self.dtype_ok(self.probe(form, dict(dtypes), scopes, {})):
                continue
            out.append(path)
        return out

    def operand_dtypes(self, dtype: str) -> dict[str, str]:
        return {op: d.get("dtype", dtype) for op, d in self.spec.operands.items()}

    def operand_scopes(self, path: str | None) -> dict[str, str]:
        scopes = {op: d.get("scope", "UB") for op, d in self.spec.operands.items()}
        if path is not None and self.spec.path_operands:
            src, dst = self.spec.path_operands
            scopes[src], scopes[dst] = path.split("->")
        return scopes

    def multiple_of(self, name: str, draft: Any) -> int:
        """What every legal value of a parameter is a multiple of (its `multiple` rules), or 1."""
        step = 1
        probe = draft.template if draft.template is not None else self.probe(draft.form, draft.dtypes, draft.scopes, {})
        for rule in self.spec.rules_of("multiple"):
            if rule["param"] == name and self.rulebook.matches(rule.when, probe, self.spec):
                step = math.lcm(step, rule["of"])
        return step

    def param_names(self, form: str | None) -> list[str]:
        return [p for p, d in self.spec.params.items() if form in d.get("forms", [form])]

    @functools.lru_cache(maxsize=None)
    def shape(self, form: str | None, dtypes: tuple[tuple[str, str], ...], scopes: tuple[tuple[str, str], ...]
              ) -> tuple[dict[str, list[tuple[int, int]]], dict[str, int], dict[str, int]]:
        """For calls of this form, operand dtypes and scopes: each parameter's legal intervals, each
        operand's alignment (its align rules and element size), and each scope's (the lcm of its operands')."""
        probe = self.probe(form, dict(dtypes), dict(scopes), {})
        domains = {n: self.domain(n, probe) for n in self.param_names(form)
                   if self.spec.param_type(n, form) != "words"}
        op_aligns = {op: self.rulebook.alignment(self.spec, probe, op, scope) for op, scope in scopes}
        scope_aligns: dict[str, int] = {}
        for op, scope in scopes:
            scope_aligns[scope] = math.lcm(scope_aligns.get(scope, 1), op_aligns[op])
        return domains, op_aligns, scope_aligns

    def domain(self, name: str, probe: Call) -> list[tuple[int, int]]:
        """Legal values of a parameter: the intersection of its range rules, minus ambiguity regions."""
        lo, hi = None, None
        for rule in self.spec.rules_of("range"):
            if rule["param"] == name and self.rulebook.matches(rule.when, probe, self.spec):
                lo = rule["min"] if lo is None else max(lo, rule["min"])
                hi = rule["max"] if hi is None else min(hi, rule["max"])
        if lo is None and self.spec.params[name].get("type") == "bool":
            lo, hi = 0, 1                                  # drawn as 0 / 1, passed as False / True
        if lo is None and any(r["param"] == name for r in self.spec.rules_of("range")):
            return []                                      # no range applies to this dtype / form
        if lo is None:
            raise ValueError(f"{self.spec.file}: parameter {name!r} has no range rule; the generators need one")
        intervals = [(lo, hi)] if lo <= hi else []
        for amb in self.spec.ambiguities:
            for region in amb.regions:
                region = dict(region)
                excluded = region.pop("params", {})
                # a region of this one parameter (and of what the probe knows) is cut out here; one of
                # several parameters, or narrowed by a check, is left to _stay_out and the final check
                if amb.checks or list(excluded) != [name]:
                    continue
                if self.rulebook.matches(region, probe, self.spec):
                    intervals = _subtract(intervals, tuple(excluded[name]))
        return intervals


class _Retry(Exception):
    """This draw cannot give the call asked for; the element strategy draws again (Hypothesis filter)."""


def _require(condition: object) -> None:
    if not condition:
        raise _Retry


def _subtract(intervals: list[tuple[int, int]], cut: tuple[int, int]) -> list[tuple[int, int]]:
    out = []
    for lo, hi in intervals:
        if cut[1] < lo or cut[0] > hi:
            out.append((lo, hi))
            continue
        if lo < cut[0]:
            out.append((lo, cut[0] - 1))
        if cut[1] < hi:
            out.append((cut[1] + 1, hi))
    return out


@functools.lru_cache(maxsize=None)
def _env(api: str, product: str, gm_window: int, rulebook_id: int) -> Env:
    rulebook = _RULEBOOKS[rulebook_id]
    return Env(rulebook.api(api), rulebook.product(product), rulebook, gm_window)


_RULEBOOKS: dict[int, Rulebook] = {}


def environment(api: str, product: str, rulebook: Rulebook | None = None, gm_window: int = DEFAULT_GM_WINDOW) -> Env:
    rulebook = rulebook or default_rulebook()
    _RULEBOOKS[id(rulebook)] = rulebook
    return _env(api, product, gm_window, id(rulebook))


# ---------------------------------------------------------------------------------------------
# drawing

Draw = Callable[[st.SearchStrategy[Any]], Any]


# How a bounded value is picked: one time in four its minimum, one in four its maximum (or largest fit).
# Hypothesis cannot shrink a failure found at "max" down to a small "any" value (two choices would have
# to change at once); conformance.minimize finishes that job on the failing call itself. The value is
# drawn only for "any": an end costs one choice.
_HOW = st.sampled_from(("min", "any", "any", "max"))
# Strategies are immutable and Hypothesis validates each new one on first draw: reuse them.
_integers = functools.lru_cache(maxsize=1 << 14)(st.integers)
_BOOLEANS = st.booleans()


@functools.lru_cache(maxsize=1 << 12)
def _one_of(values: tuple) -> st.SearchStrategy[Any]:
    return st.sampled_from(values)


class Picks:
    """Where the choices of one call come from. `Searched` asks Hypothesis (the random search, which
    shrinks); a sweep (conformance/edges.py) answers from a plan, the same on every run. Each choice
    carries a label naming what it decides (a parameter, a gap, a dtype...) so that a plan can steer it;
    Hypothesis ignores the labels."""

    def integer(self, lo: int, hi: int, label: str = "") -> int:
        raise NotImplementedError

    def choice(self, values: Sequence[Any], label: str = "") -> Any:
        raise NotImplementedError

    def boolean(self, label: str = "") -> bool:
        raise NotImplementedError

    def how(self, label: str = "") -> str:
        """"min", "any" or "max": where in its interval a bounded value goes."""
        raise NotImplementedError


class Searched(Picks):
    """Choices drawn by Hypothesis: one draw per choice, as cheap strategies reused (see _integers)."""

    def __init__(self, draw: Draw):
        self.draw = draw

    def integer(self, lo: int, hi: int, label: str = "") -> int:
        return self.draw(_integers(lo, hi))

    def choice(self, values: Sequence[Any], label: str = "") -> Any:
        return self.draw(_one_of(tuple(values)))

    def boolean(self, label: str = "") -> bool:
        return self.draw(_BOOLEANS)

    def how(self, label: str = "") -> str:
        return self.draw(_HOW)


def _rotated(pick: Picks, values: Sequence[Any], label: str = "order") -> list[Any]:
    """`values` starting at a drawn position: each one can come first and each one last, for one choice
    (a full permutation costs one per value, and every choice costs Hypothesis ~70 us)."""
    if len(values) < 2:
        return list(values)
    k = pick.integer(0, len(values) - 1, label)
    return [*values[k:], *values[:k]]


def _pick(pick: Picks, lo: int, hi: int, label: str = "") -> tuple[int, str]:
    """A value in [lo, hi], drawn so that both ends come up often (see _HOW for how it shrinks)."""
    if lo == hi:
        return lo, "min"
    return _pick_as(pick, pick.how(label), lo, hi, label)


def _pick_as(pick: Picks, how: str, lo: int, hi: int, label: str = "") -> tuple[int, str]:
    if how == "min":
        return lo, "min"
    if how == "max":
        return hi, "max"
    value = pick.integer(lo, hi, label)
    return value, ("min" if value == lo else "max" if value == hi else "any")


@dataclass
class _Draft:
    """The call being drawn."""

    form: str | None
    dtypes: dict[str, str]
    scopes: dict[str, str]
    params: dict[str, int] = field(default_factory=dict)
    tags: list[str] = field(default_factory=list)
    template: Call | None = None             # the probe call the index math is asked about
    units: Mapping[str, int] | None = None
    counts: dict[str, int] = field(default_factory=dict)    # entries of each list operand
    spare: bool = False                      # leave one alignment unit per operand (to misalign one)
    capacities: dict[str, int] = field(default_factory=dict)     # bytes of each scope the call may use

    def count(self, op: str) -> int:
        return self.counts.get(op, 1)


def _accesses(env: Env, draft: _Draft, params: Mapping[str, int]) -> dict[str, Any]:
    if draft.template is None:
        draft.template = env.probe(draft.form, draft.dtypes, draft.scopes, {}, draft.counts)
        draft.units = Context(draft.template, env.spec, env.rulebook, env.product).units
    math_ = index_math(env.spec.api)
    call = draft.template.replace(**(nest(params) if env.nested else params))
    acc = math_.accesses(call, draft.units)
    if any(runs is None for runs in acc.values()):      # offset-addressed: size it as if offsets were 0, w, 2w...
        acc.update(math_.nominal(call, draft.units))
    return acc


def _ends(env: Env, draft: _Draft, params: Mapping[str, int], acc: Mapping[str, Any] | None = None) -> dict[str, int]:
    """Per operand: one past the last byte one of its tensors touches, from its address (a list
    operand: the furthest of its entries)."""
    out = {}
    for op, runs in (acc if acc is not None else _accesses(env, draft, params)).items():
        out[op] = max((r.end for r in set(runs)), default=0) if isinstance(runs, list) else runs.end
    return out


def _entry_unit(runs: Any, align: int) -> int:
    """How far apart the entries of a list operand sit at least: one entry's run (a block), aligned."""
    length = max((r.length for r in set(runs)), default=0) if isinstance(runs, list) else 0
    return _round_up(max(length, 1), align)


def _capacity(env: Env, draft: _Draft, scope: str) -> int:
    """The bytes of `scope` the generators use: less what an ambiguity reserves at its top for calls
    like this one (vec_trans_scatter's 11 KB for 32-bit types)."""
    if scope in draft.capacities:           # the draft's dtypes and scopes are fixed: once per scope
        return draft.capacities[scope]
    cap = env.capacity(scope)
    for amb in env.spec.ambiguities:
        tests = [t for t in amb.checks if t.kind == "capacity" and draft.scopes.get(t["operand"]) == scope]
        if tests and any(env.rulebook.matches(r, draft.template, env.spec) for r in amb.regions):
            cap = min(cap, env.capacity(scope) - max(t.get("reserve", 0) for t in tests))
    draft.capacities[scope] = cap
    return cap


def _room(env: Env, draft: _Draft, params: Mapping[str, int], aligns: Mapping[str, int]) -> int:
    """Bytes to spare in the fullest scope (negative: the operands do not fit). Each operand is
    rounded to its scope's alignment (plus one spare unit when an align rule is to be broken: room to
    misalign it); the entries of a list operand sit one entry's run apart at least."""
    need: dict[str, int] = {}
    acc = _accesses(env, draft, params)
    moved = max((r.nbytes for rs in acc.values() for r in (set(rs) if isinstance(rs, list) else (rs,))
                 if r is not None), default=0)
    if moved > MOVED_BYTES:             # overlapping rows can move far more than their footprint holds
        return MOVED_BYTES - moved
    for op, end in _ends(env, draft, params, acc).items():
        scope = draft.scopes[op]
        spread = (draft.count(op) - 1) * _entry_unit(acc[op], aligns[scope])
        need[scope] = need.get(scope, 0) + _round_up(end + spread, aligns[scope]) + aligns[scope] * draft.spare
    return min(_capacity(env, draft, s) - n for s, n in need.items())


def _fits(env: Env, draft: _Draft, params: Mapping[str, int], aligns: Mapping[str, int]) -> bool:
    return _room(env, draft, params, aligns) >= 0


def _largest_fit(env: Env, draft: _Draft, params: dict[str, int], name: str, lo: int, hi: int,
                 aligns: Mapping[str, int]) -> int | None:
    """The largest value of `name` in [lo, hi] whose call still fits its scopes (others held fixed).

    Footprints grow about linearly in each parameter, so one secant step usually lands on the answer
    (checked with its neighbour); bisection finishes the rare case where it does not."""
    def room(v: int) -> int:
        return _room(env, draft, {**params, name: v}, aligns)
    room_hi = room(hi)
    if room_hi >= 0:
        return hi
    room_lo = room(lo) if lo != hi else room_hi
    if room_lo < 0:
        return None
    guess = lo + room_lo * (hi - lo) // (room_lo - room_hi)
    guess = min(max(guess, lo), hi - 1)
    if room(guess) >= 0:
        if room(guess + 1) < 0:
            return guess
        lo, step = guess + 1, 1         # rounding made it fit further: gallop up, then bisect
        while lo + step < hi and room(lo + step) >= 0:
            lo, step = lo + step, step * 2
        hi = min(hi, lo + step)
    else:
        hi = guess
    while hi - lo > 1:          # room(lo) >= 0 > room(hi)
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if room(mid) >= 0 else (lo, mid)
    return lo


def _draw_words(pick: Picks, env: Env, draft: _Draft, target: Rule | None) -> dict[str, list[int]]:
    """Bitwise masks (lists of words) from their mask_words rules: a single bit, every bit, the first or
    the last element only, or any; for a target rule, every word 0 or one word past its range."""
    out = {}
    probe = env.probe(draft.form, draft.dtypes, draft.scopes, {}, draft.counts)
    for name in env.param_names(draft.form):
        if env.spec.param_type(name, draft.form) != "words":
            continue
        rules = [r for r in env.spec.rules_of("mask_words")
                 if r["param"] == name and env.rulebook.matches(r.when, probe, env.spec)]
        _require(rules)
        rule = rules[0]
        bounds = [tuple(w) for w in rule["words"]]
        if target is not None and target.id == rule.id:
            past = [k for k, (_, hi) in enumerate(bounds) if hi < 2**64 - 1]
            how = pick.choice(["zero"] * bool(rule.get("nonzero") or bounds[0][0]) + ["past"] * bool(past),
                              f"{name}.shape")
            words = [0] * len(bounds)
            if how == "past":
                k = pick.choice(past, f"{name}.word")
                words[k] = _pick(pick, bounds[k][1] + 1, 2**64 - 1, f"{name}.past")[0]
                words[0] = words[0] or (1 if k else words[0])
                draft.tags.append(f"{name}[{k}]=above-max")
            else:
                draft.tags.append(f"{name}=zero")
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
        _require(any(words) and all(lo <= w <= hi for w, (lo, hi) in zip(words, bounds)))
        draft.tags.append(f"{name}={shape}")
        out[name] = words
    return out


@dataclass
class _Start:
    """Where the drawing of a call's parameters starts: each at the bottom of its domain."""

    names: list[str]                                 # the parameters drawn (not the mask words)
    domains: dict[str, list[tuple[int, int]]]        # their legal intervals (narrowed by a target's `when`)
    ends: dict[str, tuple[int, int] | None]          # their lowest and highest legal values
    aligns: Mapping[str, int]
    params: dict[str, Any]
    empties: set[str]                                # counts sized against 1 rather than 0


def _start(pick: Picks, env: Env, draft: _Draft, target: Rule | None) -> _Start:
    names = [n for n in env.param_names(draft.form) if env.spec.param_type(n, draft.form) != "words"]
    domains, _, aligns = env.shape(draft.form, tuple(draft.dtypes.items()), tuple(draft.scopes.items()))
    ends = {n: _legal_ends(d, env.multiple_of(n, draft)) for n, d in domains.items()}
    within = target.when.get("params", {}) if target is not None and target.when else {}
    domains = {n: _subtract(_subtract(d, (-2**63, within[n][0] - 1)), (within[n][1] + 1, 2**63))
               if n in within else d for n, d in domains.items()}     # the target rule's own `when`
    params: dict[str, Any] = _draw_words(pick, env, draft, target)
    for n in names:
        _require(domains[n])
        params[n] = domains[n][0][0]
    empties: set[str] = set()
    for n in names:     # a count at 0 (ndNum, repeatTimes) empties every footprint and would let the
        lo = params[n]  # parameters drawn before it grow without bound: size them against 1 instead
        if lo == 0 and any(a <= 1 <= b for a, b in domains[n]) and _moves_nothing(env, draft, params):
            if not _moves_nothing(env, draft, {**params, n: 1}):
                params[n] = 1
                empties.add(n)
    return _Start(names, domains, ends, aligns, params, empties)


def fit_tops(env: Env, form: str | None, dtype: str, path: str | None, pick: Picks
             ) -> dict[str, tuple[int, int, int | None, dict[str, int]]]:
    """For a legal call of this form, dtype and path, each parameter's (lowest, highest legal value,
    largest value that fits its scopes with every other parameter at its start, the other parameters'
    values that differ from their lowest there): what a sweep must reach and how. At its start a count
    that would empty every footprint is 1, and a parameter that would put the call in an ambiguity region
    with this one at its top is just outside it. `pick` answers the mask words (they size footprints).
    Empty when no call starts here."""
    draft = _Draft(form, env.operand_dtypes(dtype), env.operand_scopes(path))
    draft.counts = {op: d["entries"] for op, d in env.spec.operands.items() if "entries" in d}
    try:
        start = _start(pick, env, draft, None)
    except _Retry:
        return {}
    out = {}
    for n in start.names:
        ends, step = start.ends[n], env.multiple_of(n, draft)
        if ends is None:
            continue
        params = dict(start.params)
        top = _largest_fit(env, draft, params, n, ends[0], ends[1], start.aligns)
        if top is not None:
            moved = {**params, n: top}
            _stay_out(env, draft, moved, None, start.domains, keep=n)
            if moved != {**params, n: top}:
                params = {**moved, n: params[n]}
                top = _largest_fit(env, draft, params, n, ends[0], ends[1], start.aligns)
        lows = {m: d[0][0] for m, d in start.domains.items() if d}
        adjust = {m: v for m, v in params.items() if m != n and m in lows and v != lows[m]}
        out[n] = (ends[0], ends[1], None if top is None else top // step * step, adjust)
    return out


def _draw_params(pick: Picks, env: Env, draft: _Draft, target: Rule | None) -> None:
    start = _start(pick, env, draft, target)
    names, domains, ends, aligns = start.names, start.domains, start.ends, start.aligns
    params, empties = start.params, start.empties
    forced = target["param"] if target is not None and target.kind == "range" else None
    pushed_down = False
    fit_top: dict[str, int] = {}        # the largest value that fitted, where one was searched for
    if forced is not None:
        outside = [v for v in (target["min"] - 1, target["max"] + 1)
                   if _fits(env, draft, {**params, forced: v}, aligns)]
        _require(outside)
        params[forced] = pick.choice(outside, f"{forced}.outside")
        draft.tags.append(f"{forced}={'below-min' if params[forced] < target['min'] else 'above-max'}")
    for n in _rotated(pick, names):
        if n == forced:
            continue
        step = env.multiple_of(n, draft)
        if step > 1:                # drawn as a count of `step`s, so that every value is a multiple
            scaled = [(-(-lo // step), hi // step) for lo, hi in domains[n] if -(-lo // step) <= hi // step]
            _require(scaled)
            lo, hi = pick.choice(scaled, f"{n}.interval")
            top = _largest_fit(env, draft, params, n, lo * step, hi * step, aligns)
            _require(top is not None and top >= lo * step)
            value, where = _pick(pick, lo, top // step, n)
            params[n] = value * step
            fit_top[n] = top // step * step
            if target is not None and target.kind == "multiple" and target["param"] == n:
                params[n] = max(value * step - pick.integer(1, step - 1, f"{n}.off"), 1)
                _require(params[n] % step)
                draft.tags.append(f"{n}=off-multiple")
                fit_top.pop(n)
            continue
        lo, hi = pick.choice(domains[n], f"{n}.interval")
        how = "min" if lo == hi else pick.how(n)
        if how == "min":                # the search for the largest fit is needed only above the minimum
            _require(_fits(env, draft, {**params, n: lo}, aligns))
            top = lo
        else:
            top = _largest_fit(env, draft, params, n, lo, hi, aligns)
            _require(top is not None)
        if n in empties and how != "min" and top >= 1:
            lo = 1              # 0 (an empty move) is drawn as the minimum, on purpose; "any" moves data
        params[n], where = _pick_as(pick, how if top > lo else "min", lo, top, n)
        if how != "min":
            fit_top[n] = top
        pushed_down |= how != "min" and top == lo == 0
    if pushed_down:     # a call that moves nothing (ndNum = 0) is drawn on purpose, not for want of room
        _require(not _moves_nothing(env, draft, params))
    _stay_out(env, draft, params, forced, domains)
    for n in names:     # tags from the final values: each says one thing (see _edge_of)
        if n != forced and ends[n] is not None:
            where = _edge_of(params[n], ends[n], fit_top.get(n))
            if where is not None:
                draft.tags.append(f"{n}={where}")
    for n in names:
        if env.spec.params[n].get("type") == "bool":
            params[n] = bool(params[n])
    draft.params = params


def _legal_ends(domain: list[tuple[int, int]], step: int) -> tuple[int, int] | None:
    """The lowest and highest legal value of a parameter: the ends of its domain (its range rules less
    the ambiguity regions cut out of it), on its multiples."""
    if not domain:
        return None
    lo, hi = -(-domain[0][0] // step) * step, domain[-1][1] // step * step
    return (lo, hi) if lo <= hi else None


def _edge_of(value: int, ends: tuple[int, int], fit_top: int | None) -> str | None:
    """The tag a parameter's value earns: `min` / `max` at the lowest / highest legal value, and
    `largest-fit` at the largest value that fitted the scopes when that is below the highest one."""
    if value == ends[0]:
        return "min"
    if value == ends[1]:
        return "max"
    if fit_top is not None and value == fit_top:
        return "largest-fit"
    return None


def _moves_nothing(env: Env, draft: _Draft, params: Mapping[str, Any]) -> bool:
    return all(r.empty for rs in _accesses(env, draft, params).values()
               for r in (rs if isinstance(rs, list) else [rs]) if r is not None)


def _stay_out(env: Env, draft: _Draft, params: dict[str, int], forced: str | None,
              domains: Mapping[str, list[tuple[int, int]]], keep: str | None = None) -> None:
    """Move the call out of an ambiguity region of several parameters (one repeat *and* a non-zero
    stride) by moving the last of them (but `keep`) just outside its interval: the generators keep out
    of ambiguities (DESIGN.md). Regions of one parameter are already cut out of its domain."""
    for amb in env.spec.ambiguities:
        for region in amb.regions:
            names = list(region.get("params", {}))
            if amb.checks or len(names) < 2 or forced in names:
                continue
            if not env.rulebook.matches(region, draft.template.replace(**nest(params)), env.spec):
                continue
            for name in reversed(names):
                if name == keep:
                    continue
                lo, hi = region["params"][name]
                outside = [v for v in (lo - 1, hi + 1) if any(a <= v <= b for a, b in domains.get(name, ()))]
                if outside:
                    params[name] = outside[0]
                    break


@dataclass
class _Slot:
    """Tensors placed together: (operand, entry, offset inside the slot) for each."""

    members: list[tuple[str, int, int]]
    size: int


def _layout(pick: Picks, n: int, align: int, extra_units: int, label: str) -> tuple[list[int], str]:
    """Offsets of the n entries of a list operand (multiples of `align`, one entry's run), `extra_units` at most
    wider than packed: packed (one tensor sliced at every block, as the pages' examples do), evenly
    strided, or scattered in a drawn order (a backend must follow the list, not the addresses)."""
    packed = [i * align for i in range(n)]
    if n < 2 or extra_units <= 0:
        return packed, "packed"
    style = pick.choice(("packed", "strided", "scattered"), f"{label}.layout")
    if style == "packed":
        return packed, style
    if style == "strided":
        gap, _ = _pick(pick, 1, 1 + extra_units // (n - 1), f"{label}.stride")
        return [i * gap * align for i in range(n)], style
    width, _ = _pick(pick, n, n + extra_units, f"{label}.width")
    rng = np.random.default_rng(pick.integer(0, 2**32 - 1, f"{label}.seed"))
    return [int(k) * align for k in rng.choice(width, n, replace=False)], style


def _pairing(pick: Picks, env: Env, draft: _Draft, target: Rule | None, ops: list[str], acc: Mapping[str, Any],
             align: int) -> tuple[str, str, Callable[[list[int]], list[int]]] | None:
    """Two operands that share one slot, and how the second's offsets follow from the first's: the
    overlap a rule's target asks for, or (legal calls) the in-place use a rule allows."""
    kind = target.kind if target is not None else None
    if kind == "overlap" and all(op in ops for op in target["operands"]):
        a, b = target["operands"]
        if pick.boolean("overlap.swap"):
            a, b = b, a
        end = max((r.end for r in acc[a]), default=0) if isinstance(acc[a], list) else acc[a].end
        delta = pick.integer(0, max(end - 1, 0) // align, "overlap.delta") * align
        return a, b, lambda offs: [o + delta for o in offs]
    if kind == "iteration_overlap" and all(op in ops for op in target["operands"]):
        a, b = target["operands"]
        if a == b:
            return None                                    # one operand with itself: see _collide
        n = min(draft.count(a), draft.count(b))
        lo, _ = target.get("lag", [0, 0])
        if target.get("allow") == "identical" and lo == 0:
            _require(n >= 2)
            k = pick.integer(1, n - 1, "overlap.shift")
            if pick.boolean("overlap.reorder"):            # the same blocks, in another order
                return a, b, lambda offs: [offs[(i + k) % n] for i in range(n)]
            return a, b, lambda offs: [o + k * align for o in offs[:n]]     # partly the same blocks
        first_a, first_b = acc[a][0], acc[b][0]
        rounds = min(first_a.count, first_b.count)
        _require(rounds - 1 - lo >= 0)
        r = pick.integer(0, rounds - 1 - lo, "overlap.round")
        shift = r * first_a.step - (r + lo) * first_b.step    # b's iteration r + lo meets a's iteration r
        return a, b, lambda offs: [o + shift for o in offs[:n]]
    if target is None:
        probe = draft.template.replace(**nest(draft.params))
        for rule in env.spec.rules_of("iteration_overlap"):
            a, b = rule["operands"]
            if (rule.get("allow") == "identical" and a != b and a in ops and b in ops
                    and draft.count(a) == draft.count(b) and env.rulebook.matches(rule.when, probe, env.spec)
                    and pick.choice((False, False, True), f"{b}.in-place")):
                draft.tags.append(f"{b}=in-place")
                return a, b, list
    return None


def _collide(pick: Picks, offsets: list[int]) -> list[int]:
    """Two entries of one list operand at the same place."""
    _require(len(offsets) >= 2)
    i, j = pick.integer(0, len(offsets) - 1, "collide.first"), pick.integer(0, len(offsets) - 2, "collide.second")
    j += j >= i
    out = list(offsets)
    out[j] = out[i]
    return out


def _place(pick: Picks, env: Env, draft: _Draft, target: Rule | None) -> dict[str, Any]:
    acc = _accesses(env, draft, draft.params)
    ends = _ends(env, draft, draft.params)
    _, aligns, _ = env.shape(draft.form, tuple(draft.dtypes.items()), tuple(draft.scopes.items()))
    kind = target.kind if target is not None else None
    itemsize = {op: env.rulebook.itemsize(d) for op, d in draft.dtypes.items()}
    addrs: dict[str, list[int]] = {}
    limit: dict[str, int] = {}                      # byte where an operand's tensors end (slices run to it)
    for scope in sorted(set(draft.scopes.values())):
        ops = [op for op in env.spec.operands if draft.scopes[op] == scope]
        align = math.lcm(*(aligns[op] for op in ops))
        cap = _capacity(env, draft, scope)
        unit = {op: _entry_unit(acc[op], align) for op in ops}
        offsets = {op: [i * unit[op] for i in range(draft.count(op))] for op in ops}
        pair = _pairing(pick, env, draft, target, ops, acc, align)
        lead = {op: op for op in ops}
        if pair is not None:
            lead[pair[1]] = pair[0]

        def slots() -> dict[str, _Slot]:
            out: dict[str, _Slot] = {}
            for op in ops:
                if lead[op] == op:
                    out[op] = _Slot([(op, i, o) for i, o in enumerate(offsets[op])], 0)
            if pair is not None:
                a, b, follow = pair
                offsets[b] = follow(offsets[a])
                out[a].members += [(b, i, o) for i, o in enumerate(offsets[b])]
            for slot in out.values():
                low = min(o for _, _, o in slot.members)
                slot.members = [(op, i, o - low) for op, i, o in slot.members]
                slot.size = _round_up(max(o + ends[op] for op, _, o in slot.members), align)
            return out

        def room(placed: Mapping[str, _Slot]) -> int:
            free = cap - sum(s.size for s in placed.values())
            return free if scope != "GM" else min(free, GM_SPREAD)

        placed = slots()
        _require(room(placed) >= 0)
        for op in ops:                              # list operands: how their entries spread
            if lead[op] == op and draft.count(op) > 1 and env.spec.is_list(op):
                offsets[op], style = _layout(pick, draft.count(op), unit[op], room(placed) // unit[op], op)
                draft.tags.append(f"{op}={style}")
                placed = slots()
                if kind == "iteration_overlap" and target["operands"] == [op, op]:
                    offsets[op] = _collide(pick, offsets[op])
                    placed = slots()
        if kind == "align" and target["operand"] in ops:
            placed[lead[target["operand"]]].size += align
        _require(room(placed) >= 0)
        slack = {}
        for key, slot in placed.items():            # slack: tensors larger than what the call touches
            slack[key] = 0
            if kind not in ("bounds",) and pick.boolean(f"{scope}.slack"):
                slack[key] = pick.integer(0, max(room(placed), 0) // align, f"{scope}.slack") * align
                slot.size += slack[key]
        _require(cap - sum(s.size for s in placed.values()) >= 0)
        order = _rotated(pick, sorted(placed), f"{scope}.order")
        cursor = 0
        for i, key in enumerate(order):
            gap, _ = _pick(pick, 0, max(room(placed), 0) // align, f"{scope}.gap")
            placed[key].size += gap * align
            cursor += gap * align
            slot = placed[key]
            for op, entry, offset in slot.members:
                addrs.setdefault(op, [0] * draft.count(op))[entry] = cursor + offset
            for op in {op for op, _, _ in slot.members}:
                reach = max(o + ends[op] for m, _, o in slot.members if m == op)
                limit[op] = cursor + reach + slack[key]
            cursor += slot.size - gap * align
            if cursor == cap and i == len(order) - 1 and scope != "GM":
                draft.tags.append(f"{scope}=top")
    numel = {op: [-(-(limit[op] - a) // itemsize[op]) for a in addrs[op]] for op in env.spec.operands}
    if kind in ("align", "bounds", "capacity"):
        op = target["operand"]
        k = pick.integer(0, draft.count(op) - 1, f"{op}.entry")
        if kind == "align":         # the entry furthest up: misaligned into the slot's spare unit, not onto a neighbour
            k = max(range(draft.count(op)), key=lambda i: addrs[op][i])
        runs = acc[op][k] if isinstance(acc[op], list) else acc[op]
        if kind == "align":
            need = env.rulebook.align_bytes(target, env.product)
            _require(draft.scopes[op] == target["scope"])
            deltas = [d for d in range(itemsize[op], aligns[op], itemsize[op]) if d % need]
            _require(deltas)
            delta = pick.choice(deltas, f"{op}.misalign")
            addrs[op][k] += delta
            numel[op][k] = max(numel[op][k] - 1, -(-runs.end // itemsize[op]))
            draft.tags.append(f"{op}=off-by-{delta}")
        elif kind == "bounds":
            _require(runs.end > 0)
            numel[op][k] = -(-runs.end // itemsize[op]) - 1
            draft.tags.append(f"{op}=one-short")
        else:
            _require(draft.scopes[op] != "GM")
            extra = pick.integer(0, 3, f"{op}.past")
            numel[op][k] = (env.capacity(draft.scopes[op]) - addrs[op][k]) // itemsize[op] + 1 + extra
            if extra == 0:
                draft.tags.append(f"{op}=one-past-top")
    out: dict[str, Any] = {}
    for op in env.spec.operands:
        tensors = [Tensor(draft.scopes[op], a, draft.dtypes[op], n) for a, n in zip(addrs[op], numel[op])]
        out[op] = tensors if env.spec.is_list(op) else tensors[0]
    return out


def _draw_values(pick: Picks, env: Env, draft: _Draft, call: Call, target: Rule | None) -> tuple[Write, ...]:
    """The contents of the offset tensors (operands with `values: offsets`): byte offsets from the base
    of the operand they address, on its element grid. Shapes: identity, reversed (the pages'
    example), a permutation, scattered, colliding, or one at the top of the allowed range; for a target
    rule about the values, one offset breaks it (one past the range, past UB, misaligned, or onto the
    bytes of another operand)."""
    writes = []
    ctx = Context(call, env.spec, env.rulebook, env.product)
    nominal = index_math(env.spec.api).nominal(call, ctx.units)
    width = ctx.units["element"]
    for v_name, v_spec in env.spec.operands.items():
        if v_spec.get("values") != "offsets":
            continue
        x_name = next(op for op, d in env.spec.operands.items() if d.get("addressed_by") == v_name)
        v_tensor, x_tensor, runs = call.tensor(v_name), call.tensor(x_name), ctx.accesses[v_name]
        v_dtype = v_spec.get("dtype", v_tensor.dtype)      # what the instruction reads, whatever the tensor claims
        v_width = env.rulebook.itemsize(v_dtype)
        index = (np.asarray(runs.starts()) // v_width).astype(np.int64)
        if not index.size:
            continue
        base = x_tensor.addr + nominal[x_name].first          # offset 0 lands here
        shift = (-base) % width                               # the element grid, from the base
        cap = env.capacity(x_tensor.scope)
        slots = (x_tensor.addr + x_tensor.numel * width - base - shift) // width
        _require(slots >= 1)
        n = index.size
        rng = np.random.default_rng(pick.integer(0, 2**32 - 1, f"{v_name}.seed"))
        style = pick.choice(("identity", "reversed", "permutation", "scattered", "collide", "top"), v_name)
        if style in ("identity", "reversed", "permutation") and slots < n:
            style = "scattered"
        k = {"identity": lambda: np.arange(n), "reversed": lambda: np.arange(n)[::-1],
             "permutation": lambda: rng.permutation(n),
             "collide": lambda: rng.integers(0, max(1, min(slots, n // 2)), n)}.get(
            style, lambda: rng.choice(slots, n, replace=False) if slots >= n else rng.integers(0, slots, n))()
        offsets = shift + np.asarray(k, dtype=np.int64) * width
        j = int(rng.integers(0, n))
        if style == "top":          # the largest offset the range rules allow, or that stays inside UB
            limits = [r["max"] for r in env.spec.rules_of("offset_range")
                      if r["operand"] == v_name and env.rulebook.matches(r.when, call, env.spec)]
            top = min(limits + [cap - width - base])
            offsets[j] = top - (top - shift) % width
        kind = target.kind if target is not None else None
        if kind == "offset_range" and target["operand"] == v_name:
            past = target["max"] + 1
            offsets[j] = past + (shift - past) % width
            style = "past-range"
        elif kind == "reach" and target["operand"] == x_name:
            offsets[j] = cap - base + shift + int(rng.integers(0, 4)) * width
            style = "past-UB"
        elif kind == "offset_align" and target["operand"] == x_name:
            _require(width > 1)
            offsets[j] += int(rng.integers(1, width))
            style = "misaligned"
        elif kind == "overlap" and x_name in target["operands"]:
            other = next(op for op in target["operands"] if op != x_name)
            o_tensor, o_runs = call.tensor(other), ctx.accesses[other]
            _require(o_runs is not None and not o_runs.empty and o_tensor.scope == x_tensor.scope)
            hit = o_tensor.addr + int(rng.integers(o_runs.begin, o_runs.end)) - base
            offsets[j] = hit - (hit - shift) % width
            style = f"onto-{other}"
        _require(offsets.min() >= 0 and offsets.max() < 2**32)
        values = np.zeros(int(index.max()) + 1, dtype=np.int64)
        values[index] = offsets
        writes.append(Write(v_tensor.scope, v_tensor.addr, v_dtype, tuple(values.tolist())))
        draft.tags.append(f"{v_name}={style}")
    return tuple(writes)


def _scopes_for(pick: Picks, env: Env, form: str | None, dtypes: Mapping[str, str], target: Rule | None
                ) -> tuple[dict[str, str], list[str]]:
    """The operands' scopes, and the tag naming the forbidden place a scope or path rule's call takes."""
    if target is not None and target.kind == "scope":       # the operand in a scope it may not be in
        scopes = env.operand_scopes(None)
        others = [s for s in SCOPES if env.product.has_scope(s) and s not in target["allowed"]]
        _require(others)
        scopes[target["operand"]] = pick.choice(others, "scope")
        return scopes, [f"{target['operand']}={scopes[target['operand']]}"]
    if not env.spec.path_operands:
        return env.operand_scopes(None), []
    candidates = env.path_candidates(form, tuple(sorted(dtypes.items())), target.id if target is not None else None)
    _require(candidates)
    path = pick.choice(candidates, "path")
    return env.operand_scopes(path), [f"path={path}"] if target is not None and target.kind == "path" else []


@st.composite
def _case_or_none(draw: Draw, *args: Any) -> Case | None:
    try:
        return _case(Searched(draw), *args)
    except _Retry:
        return None


def _usable(case: Case | None) -> bool:
    return case is not None


def planned_case(pick: Picks, env: Env, expect: str, rule_id: str | None, form: str | None = None,
                 dtype: str | None = None) -> Case | None:
    """One call of a cell made from `pick`'s choices (a sweep's plan), or None when they give none."""
    try:
        return _case(pick, env, expect, rule_id, form, dtype, env.spec.forms_or_default())
    except _Retry:
        return None


def _case(pick: Picks, env: Env, expect: str, rule_id: str | None, form: str | None, dtype: str | None,
          forms: tuple[str | None, ...]) -> Case:
    spec = env.spec
    target = spec.rule(rule_id) if rule_id is not None else None
    kind = target.kind if target is not None else None
    form = form if form is not None or not spec.forms else pick.choice(forms, "form")
    if target is not None and target.when and "forms" in target.when:
        _require(form in target.when["forms"])
    tags = []
    fixed = kind == "dtype" and all("dtype" in spec.operands[op] for op in target["operands"])
    if kind == "dtype" and not fixed:
        dtype = pick.choice(sorted(set(env.rulebook.dtypes) - set(target["allowed"])), "wrong-dtype")
        tags.append(f"dtype={dtype}")
    elif dtype is None:
        legal = env.legal_dtypes(form)
        _require(legal)
        dtype = pick.choice(legal, "dtype")
    dtypes = env.operand_dtypes(dtype)
    if fixed:                       # an operand of one fixed dtype (Scatter's offsets) given another
        wrong = pick.choice(sorted(set(env.rulebook.dtypes) - set(target["allowed"])), "wrong-dtype")
        dtypes.update({op: wrong for op in target["operands"]})
        tags.append(f"dtype={wrong}")
    if kind == "same_dtype":
        other = target["operands"][-1]
        alternatives = [d for d in env.legal_dtypes(form) if d != dtypes[other]]
        _require(alternatives)
        dtypes[other] = pick.choice(alternatives, "other-dtype")
        tags.append(f"{other}={dtypes[other]}")
    scopes, scope_tags = _scopes_for(pick, env, form, dtypes, target)
    draft = _Draft(form, dtypes, scopes, tags=tags + scope_tags, spare=kind == "align")
    draft.counts = {op: d["entries"] for op, d in spec.operands.items() if "entries" in d}
    if kind == "list_length":                              # one entry short, one too many, or far off
        n = draft.counts[target["operand"]]
        draft.counts[target["operand"]] = pick.choice(sorted({1, n - 1, n + 1, 2 * n} - {0, n}), "entries")
        draft.tags.append(f"{target['operand']}=entries-{draft.counts[target['operand']]}")
    _draw_params(pick, env, draft, target)
    tensors = _place(pick, env, draft, target)
    call = Call(spec.api, env.product.id, {**tensors, **nest(draft.params)}, form)
    writes = _draw_values(pick, env, draft, call, target) if env.has_values else ()
    # The images follow from the call: different calls get different random bytes, and no choice is
    # spent on a seed that shrinking could not make simpler anyway.
    ctx = context(call, None, env.rulebook)
    memory = MemoryRecipe(zlib.crc32(call.to_json().encode()), image_sizes(call, env.rulebook, ctx), writes)
    if env.has_values:                  # the rules on the offsets need them in memory
        ctx = context(call, memory.build(), env.rulebook)
    violations = {v.rule for v in rule_violations(ctx)}
    _require(violations == ({target.id} if target is not None else set()))
    return Case(call, memory, expect, target.id if target is not None else None, tuple(draft.tags))


def legal_calls(api: str, product: str, *, form: str | None = None, dtype: str | None = None,
                rulebook: Rulebook | None = None, gm_window: int = DEFAULT_GM_WINDOW) -> st.SearchStrategy[Case]:
    """Calls the oracle finds legal on `product`, reaching the ends of every range and of every scope."""
    env = environment(api, product, rulebook, gm_window)
    return _case_or_none(env, "legal", None, form, dtype, env.spec.forms_or_default()).filter(_usable)


def rule_calls(api: str, product: str, rule_id: str, *, rulebook: Rulebook | None = None,
               gm_window: int = DEFAULT_GM_WINDOW) -> st.SearchStrategy[Case]:
    """Calls that break `rule_id` and no other rule: refused if it is a reject rule, open if undefined."""
    env = environment(api, product, rulebook, gm_window)
    return _case_or_none(env, env.spec.rule(rule_id).severity, rule_id, None, None,
                         env.spec.forms_or_default()).filter(_usable)


def reachable(env: Env, rule: Rule) -> bool:
    """Can a call break `rule` alone on this product? (No L1 on a Vector Core: no L1 alignment cell.)"""
    if rule.kind == "product":
        return not env.supported
    if not env.supported:
        return False
    if rule.when and "products" in rule.when and env.product.id not in rule.when["products"]:
        return False
    if rule.kind == "path":
        return bool(env.forbidden_paths())
    if rule.when and "dtypes" in rule.when and rule.kind not in ("dtype", "same_dtype"):
        forms = rule.when.get("forms", env.spec.forms_or_default())
        if not any(d in env.legal_dtypes(f) for f in forms for d in rule.when["dtypes"]):
            return False            # e.g. a 64-bit mask range where no 64-bit dtype is legal
    if rule.when and "forms" in rule.when and not any(env.legal_dtypes(f) for f in rule.when["forms"]):
        return False                # every call of those forms is in an ambiguity (asc_gather's repeat form)
    layouts = [env.operand_scopes(p) for p in env.paths()] or [env.operand_scopes(None)]
    return any(_scopes_can_break(rule, scopes) for scopes in layouts)


def _scopes_can_break(rule: Rule, scopes: Mapping[str, str]) -> bool:
    """Can a call whose operands sit in these scopes break `rule`? (An align rule needs its operand in
    the rule's scope, a capacity rule an operand in a sized buffer, an overlap rule one shared scope.)"""
    if rule.kind == "align":
        return scopes[rule["operand"]] == rule["scope"]
    if rule.kind == "capacity":
        return scopes[rule["operand"]] != "GM"
    if rule.kind in ("overlap", "iteration_overlap"):
        return len({scopes[op] for op in rule["operands"]}) == 1
    return True
