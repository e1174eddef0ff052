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

from hypothesis import strategies as st

from oracle import Call, Tensor, check
from oracle.apis import index_math
from oracle.call import SCOPES
from oracle.rules import KINDS as RULE_KINDS, Context
from oracle.spec import ApiSpec, Product, Rule, Rulebook, default_rulebook

from .memory import MemoryRecipe, image_sizes

DEFAULT_GM_WINDOW = 4 << 20     # bytes of GM the generators may place operands in
GM_SPREAD = 64 << 10            # GM has no top to reach: gaps between GM operands stay below this
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
              params: Mapping[str, int]) -> Call:
        """A call with every operand at address 0 and empty: enough to evaluate `when` and index math."""
        args: dict[str, Any] = {op: Tensor(scopes[op], 0, dtypes[op], 0) for op in self.spec.operands}
        args.update(params)
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
                if self.dtype_ok(call):
                    out.append(dtype)
                    break
        return out

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

    def param_names(self, form: str | None) -> list[str]:
        return [p for p, d in self.spec.params.items() if form in d.get("forms", [form])]

    @functools.lru_cache(maxsize=None)
    def shape(self, form: str | None, dtypes: tuple[tuple[str, str], ...], scopes: tuple[tuple[str, str], ...]
              ) -> tuple[dict[str, list[tuple[int, int]]], dict[str, int], dict[str, int]]:
        """For calls of this form, operand dtypes and scopes: each parameter's legal intervals, each
        operand's alignment (its align rules and element size), and each scope's (the lcm of its operands')."""
        probe = self.probe(form, dict(dtypes), dict(scopes), {})
        domains = {n: self.domain(n, probe) for n in self.param_names(form)}
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
        if lo is None:
            raise ValueError(f"{self.spec.file}: parameter {name!r} has no range rule; the generators need one")
        intervals = [(lo, hi)] if lo <= hi else []
        for amb in self.spec.ambiguities:
            region = dict(amb.region)
            excluded = region.pop("params", {}).get(name)
            if excluded and self.rulebook.matches(region, probe, self.spec):
                intervals = _subtract(intervals, tuple(excluded))
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


def _rotated(draw: Draw, values: Sequence[Any]) -> list[Any]:
    """`values` starting at a drawn position: each one can come first and each one last, for one choice
    (a full permutation costs one per value, and every choice costs Hypothesis ~70 us)."""
    if len(values) < 2:
        return list(values)
    k = draw(_integers(0, len(values) - 1))
    return [*values[k:], *values[:k]]


def _pick(draw: Draw, lo: int, hi: int) -> tuple[int, str]:
    """A value in [lo, hi], drawn so that both ends come up often (see _HOW for how it shrinks)."""
    if lo == hi:
        return lo, "min"
    return _pick_as(draw, draw(_HOW), lo, hi)


def _pick_as(draw: Draw, how: str, lo: int, hi: int) -> tuple[int, str]:
    if how == "min":
        return lo, "min"
    if how == "max":
        return hi, "max"
    value = draw(_integers(lo, hi))
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


def _ends(env: Env, draft: _Draft, params: Mapping[str, int]) -> dict[str, int]:
    if draft.template is None:
        draft.template = env.probe(draft.form, draft.dtypes, draft.scopes, {})
        draft.units = env.spec.units(draft.template)
    call = draft.template.replace(**params)
    acc = index_math(env.spec.api).accesses(call, draft.units)
    return {op: acc[op].end for op in env.spec.operands}


def _room(env: Env, draft: _Draft, params: Mapping[str, int], aligns: Mapping[str, int]) -> int:
    """Bytes to spare in the fullest scope (negative: the operands do not fit). Each operand is
    rounded to its scope's alignment plus one spare unit (room to misalign it for an align rule)."""
    need: dict[str, int] = {}
    for op, end in _ends(env, draft, params).items():
        scope = draft.scopes[op]
        need[scope] = need.get(scope, 0) + _round_up(end, aligns[scope]) + aligns[scope]
    return min(env.capacity(s) - n for s, n in need.items())


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
        lo = guess + 1
    else:
        hi = guess
    while hi - lo > 1:          # room(lo) >= 0 > room(hi)
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if room(mid) >= 0 else (lo, mid)
    return lo


def _draw_params(draw: Draw, env: Env, draft: _Draft, target: Rule | None) -> None:
    names = env.param_names(draft.form)
    domains, _, aligns = env.shape(draft.form, tuple(draft.dtypes.items()), tuple(draft.scopes.items()))
    params = {}
    for n in names:
        _require(domains[n])
        params[n] = domains[n][0][0]
    forced = target["param"] if target is not None and target.kind == "range" else None
    if forced is not None:
        outside = [v for v in (target["min"] - 1, target["max"] + 1)
                   if _fits(env, draft, {**params, forced: v}, aligns)]
        _require(outside)
        params[forced] = draw(_one_of(tuple(outside)))
        draft.tags.append(f"{forced}={'below-min' if params[forced] < target['min'] else 'above-max'}")
    for n in _rotated(draw, names):
        if n == forced:
            continue
        lo, hi = draw(_one_of(tuple(domains[n])))
        how = "min" if lo == hi else draw(_HOW)
        if how == "min":                # the search for the largest fit is needed only above the minimum
            _require(_fits(env, draft, {**params, n: lo}, aligns))
            top = lo
        else:
            top = _largest_fit(env, draft, params, n, lo, hi, aligns)
            _require(top is not None)
        params[n], where = _pick_as(draw, how if top > lo else "min", lo, top)
        if where == "max":
            draft.tags.append(f"{n}=max" if top == hi else f"{n}=largest-fit")
        elif where == "min":
            draft.tags.append(f"{n}=min")
    draft.params = params


@dataclass
class _Slot:
    """Operands placed together: each at an offset inside the slot."""

    members: list[tuple[str, int]]
    size: int


def _place(draw: Draw, env: Env, draft: _Draft, target: Rule | None) -> dict[str, Tensor]:
    ends = _ends(env, draft, draft.params)
    _, aligns, _ = env.shape(draft.form, tuple(draft.dtypes.items()), tuple(draft.scopes.items()))
    kind = target.kind if target is not None else None
    itemsize = {op: env.rulebook.itemsize(d) for op, d in draft.dtypes.items()}
    numel = {op: -(-ends[op] // itemsize[op]) for op in env.spec.operands}
    addrs: dict[str, int] = {}
    for scope in sorted(set(draft.scopes.values())):
        ops = [op for op in env.spec.operands if draft.scopes[op] == scope]
        align = math.lcm(*(aligns[op] for op in ops))
        cap = env.capacity(scope)
        slots = {op: _Slot([(op, 0)], _round_up(ends[op], align)) for op in ops}
        if kind == "overlap" and all(op in ops for op in target["operands"]):
            a, b = target["operands"]
            if draw(_BOOLEANS):
                a, b = b, a
            delta = draw(_integers(0, max(ends[a] - 1, 0) // align)) * align
            slots.pop(b)
            slots[a] = _Slot([(a, 0), (b, delta)], _round_up(max(ends[a], delta + ends[b]), align))
        if kind == "align" and target["operand"] in ops:
            slots[target["operand"]].size += align
        free = cap - sum(s.size for s in slots.values())
        _require(free >= 0)
        for op in ops:                                   # slack: tensors larger than what the call touches
            if op in slots and kind not in ("bounds",) and draw(_BOOLEANS):
                spread = free if scope != "GM" else min(free, GM_SPREAD)
                extra = draw(_integers(0, spread // align)) * align
                slots[op].size += extra
                numel[op] += extra // itemsize[op]
                free -= extra
        order = _rotated(draw, sorted(slots))
        cursor = 0
        for i, key in enumerate(order):
            spread = free if scope != "GM" else min(free, GM_SPREAD)
            gap, where = _pick(draw, 0, spread // align)
            gap *= align
            free -= gap
            cursor += gap
            for op, offset in slots[key].members:
                addrs[op] = cursor + offset
            cursor += slots[key].size
            if cursor == cap and i == len(order) - 1 and scope != "GM":
                draft.tags.append(f"{scope}=top")
    if kind == "align":
        op, need = target["operand"], env.rulebook.align_bytes(target, env.product)
        if draft.scopes[op] == target["scope"]:
            span = aligns[op]
            deltas = [k for k in range(itemsize[op], span, itemsize[op]) if k % need]
            _require(deltas)
            addrs[op] += draw(_one_of(tuple(deltas)))
    if kind == "bounds":
        op = target["operand"]
        _require(ends[op] > 0)
        numel[op] = -(-ends[op] // itemsize[op]) - 1
    if kind == "capacity":
        op = target["operand"]
        _require(draft.scopes[op] != "GM")
        cap = env.capacity(draft.scopes[op])
        numel[op] = (cap - addrs[op]) // itemsize[op] + 1 + draw(_integers(0, 3))
    return {op: Tensor(draft.scopes[op], addrs[op], draft.dtypes[op], numel[op]) for op in env.spec.operands}


def _scopes_for(draw: Draw, env: Env, form: str | None, dtypes: Mapping[str, str], target: Rule | None) -> dict[str, str]:
    if not env.spec.path_operands:
        return env.operand_scopes(None)
    candidates = env.path_candidates(form, tuple(sorted(dtypes.items())), target.id if target is not None else None)
    _require(candidates)
    return env.operand_scopes(draw(_one_of(tuple(candidates))))


@st.composite
def _case_or_none(draw: Draw, *args: Any) -> Case | None:
    try:
        return _case(draw, *args)
    except _Retry:
        return None


def _usable(case: Case | None) -> bool:
    return case is not None


def _case(draw: Draw, env: Env, expect: str, rule_id: str | None, form: str | None, dtype: str | None,
          forms: tuple[str | None, ...]) -> Case:
    spec = env.spec
    target = spec.rule(rule_id) if rule_id is not None else None
    kind = target.kind if target is not None else None
    form = form if form is not None or not spec.forms else draw(_one_of(tuple(forms)))
    if target is not None and target.when and "forms" in target.when:
        _require(form in target.when["forms"])
    if kind == "dtype":
        dtype = draw(st.sampled_from(sorted(set(env.rulebook.dtypes) - set(target["allowed"]))))
    elif dtype is None:
        legal = env.legal_dtypes(form)
        _require(legal)
        dtype = draw(_one_of(tuple(legal)))
    dtypes = env.operand_dtypes(dtype)
    if kind == "same_dtype":
        other = target["operands"][-1]
        alternatives = [d for d in env.legal_dtypes(form) if d != dtypes[other]]
        _require(alternatives)
        dtypes[other] = draw(_one_of(tuple(alternatives)))
    draft = _Draft(form, dtypes, _scopes_for(draw, env, form, dtypes, target))
    _draw_params(draw, env, draft, target)
    tensors = _place(draw, env, draft, target)
    call = Call(spec.api, env.product.id, {**tensors, **draft.params}, form)
    violations = {v.rule for v in check(call, rulebook=env.rulebook)}
    _require(violations == ({target.id} if target is not None else set()))
    # The images follow from the call: different calls get different random bytes, and no choice is
    # spent on a seed that shrinking could not make simpler anyway.
    seed = zlib.crc32(call.to_json().encode())
    memory = MemoryRecipe(seed, image_sizes(call, env.rulebook))
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
    layouts = [env.operand_scopes(p) for p in env.paths()] or [env.operand_scopes(None)]
    return any(_scopes_can_break(rule, scopes) for scopes in layouts)


def _scopes_can_break(rule: Rule, scopes: Mapping[str, str]) -> bool:
    """Can a call whose operands sit in these scopes break `rule`? (An align rule needs its operand in
    the rule's scope, a capacity rule an operand in a sized buffer, an overlap rule one shared scope.)"""
    if rule.kind == "align":
        return scopes[rule["operand"]] == rule["scope"]
    if rule.kind == "capacity":
        return scopes[rule["operand"]] != "GM"
    if rule.kind == "overlap":
        return len({scopes[op] for op in rule["operands"]}) == 1
    return True
