"""Ambiguity cells: calls inside an ambiguity's region and otherwise legal. The same calls
serve every reading: the reading a backend declares decides their verdict, at judge time.

The ordinary generators keep out of every region (Env.domain and Env.ambiguous, parameters._stay_out,
the capacity reserve); here the opposite. The calls are drawn in an environment whose rulebook lacks the
ambiguity (nothing steers out of it), towards a *target* made of one region: its forms, dtypes and paths
are the draw's, its `params` ranges narrow each parameter's domain (so that both ends come up, tagged
`region-min` / `region-max`), and for an ambiguity with `check`s, one check is the rule to break, as the
rule-breaking generator breaks a rule of its kind (a misaligned offset, an iteration overlap, a tensor
ending in a reserved top). Each call is then checked with the plain rulebook: it must be flagged with the
ambiguity and nothing else but its `companions`, the ambiguities whose region holds the whole region on
that product (every call of asc_gather's repeat form is in asc_gather.repeat.layout). Where a reading
moves bytes by an index-math variant, the call is sized (and its offsets written) for every reading, and
must break nothing under that reading either: the same calls test every reading.
"""
from __future__ import annotations

import functools
from dataclasses import replace
from typing import Any, Mapping

from hypothesis import strategies as st

from oracle.apis import index_math
from oracle.kinds import Retry, kind_of, require
from oracle.rules import Context, context
from oracle.rules import violations as rule_violations
from oracle.spec import Ambiguity, ApiSpec, Reading, Rule, Rulebook

from conformance.generate.case import Case
from conformance.generate.environment import DEFAULT_GM_WINDOW, Env, environment
from conformance.generate.memory import checked_images
from conformance.generate.picks import Picks
from conformance.generate.strategies import drawn, searched_cases


def _covers(outer: Mapping[str, Any], inner: Mapping[str, Any], spec: ApiSpec, product: str) -> bool:
    """Is every call of region `inner` on `product` in region `outer`? (Read from the regions' keys.)"""
    if product not in outer.get("products", [product]):
        return False
    for key in ("forms", "dtypes", "paths"):
        have = inner.get(key, spec.forms if key == "forms" else None)
        if key in outer and (not have or not set(have) <= set(outer[key])):
            return False
    for name, (lo, hi) in outer.get("params", {}).items():
        inside = inner.get("params", {}).get(name)
        if inside is None or not lo <= inside[0] <= inside[1] <= hi:
            return False
    return True


def companions(spec: ApiSpec, amb: Ambiguity, region: Mapping[str, Any], product: str) -> frozenset[str]:
    """The other ambiguities every call of `region` on `product` falls in too (none with checks)."""
    return frozenset(o.id for o in spec.ambiguities if o.id != amb.id and not o.checks
                     and any(_covers(r, region, spec, product) for r in o.regions))


def _spec_of(rulebook: Rulebook, ambiguity_id: str) -> tuple[ApiSpec, Ambiguity]:
    amb = rulebook.ambiguity(ambiguity_id)              # ValueError naming the known ones
    return next(s for s in rulebook.apis.values() if amb in s.ambiguities), amb


def generation_rulebook(rulebook: Rulebook, ambiguity_id: str) -> Rulebook:
    """The rulebook the calls of an ambiguity cell are drawn with: without the ambiguity and its
    companions on any product (one object per pair, so that its environments are cached)."""
    cache = rulebook.__dict__.setdefault("_generation_rulebooks", {})
    if ambiguity_id not in cache:
        spec, amb = _spec_of(rulebook, ambiguity_id)
        drop = {amb.id}.union(*(companions(spec, amb, r, p) for r in amb.regions for p in rulebook.products))
        kept = tuple(a for a in spec.ambiguities if a.id not in drop)
        cache[ambiguity_id] = replace(rulebook, apis={**rulebook.apis, spec.api: replace(spec, ambiguities=kept)})
    return cache[ambiguity_id]


def _targets(amb: Ambiguity) -> dict[str, Rule]:
    """key -> target: one per region (per region and check, for an ambiguity with checks)."""
    out = {}
    for k, region in enumerate(amb.regions):
        if not amb.checks:
            out[f"{amb.id}#{k}"] = Rule(f"{amb.id}#{k}", "region", "undefined", amb.quote, amb.page, when=region)
        for c, check in enumerate(amb.checks):
            key = f"{amb.id}#{k}.{c}"
            out[key] = Rule(key, check.kind, "undefined", amb.quote, amb.page, when=region, fields=check.fields)
    return out


def _reachable(env: Env, target: Rule) -> bool:
    """Can a call of this product lie in the target's region (forms, dtypes, paths and parameter ranges
    the product allows), and break its check (the scopes it needs, an element wider than a byte)?"""
    if not env.supported or env.product.id not in (target.when or {}).get("products", [env.product.id]):
        return False
    for form, dtype, path in _layouts(env, target):
        scopes = env.operand_scopes(path)
        domains = env.shape(form, tuple(env.operand_dtypes(dtype).items()), tuple(scopes.items()))[0]
        if all(any(a <= hi and lo <= b for a, b in domains.get(n, ())) for n, (lo, hi)
               in (target.when or {}).get("params", {}).items()):
            return True
    return False


class Region:
    """What the draws of one ambiguity cell need: the generation environment (with the targets), the
    plain rulebook that checks them, and per reachable target its companions and tag."""

    def __init__(self, env: Env, plain: Rulebook, amb: Ambiguity):
        self.env, self.plain, self.amb = env, plain, amb
        # a reading that moves bytes otherwise may reach further: the calls stay legal under it too
        self.variant_books = [plain.with_readings({amb.id: r.id}) for r in moving_readings(env.spec, amb)]
        several = len(amb.regions) > 1 or len(amb.checks) > 1
        self.keys = [k for k, t in env.targets.items() if _reachable(env, t)]
        spec = plain.api(env.spec.api)          # the generation spec lacks the companions
        self.companions = {k: companions(spec, amb, env.targets[k].when, env.product.id) for k in self.keys}
        self.tag = {k: f"region={k.partition('#')[2]}" if several else None for k in self.keys}
        self.suffix = {k: f"@{k.partition('#')[2].partition('.')[0]}" if len(amb.regions) > 1 else ""
                       for k in self.keys}
        # the ambiguities the generation rulebook lacks (this one, its companions): where none has a declared
        # reading or sets a rule aside, the plain rulebook flags a call with the generation rulebook's
        # violations and those of them whose region holds it (`lacked_holding`)
        kept = {a.id for a in env.spec.ambiguities}
        self.lacked = tuple(a for a in spec.ambiguities if a.id not in kept)
        self.split = all(a.declared is None and not a.overrides for a in self.lacked)

    def lacked_holding(self, ctx: Context) -> set[str]:
        """The lacked ambiguities the plain rulebook flags ctx's call with, none declared (as rules.violations
        does: a region holds the call, one of the ambiguity's checks, if it has any, flags it)."""
        call, spec = ctx.call, ctx.spec
        return {a.id for a in self.lacked if any(self.plain.matches(r, call, spec) for r in a.regions)
                and (not a.checks or any(kind_of(c).check(c, ctx) for c in a.checks))}

    def __repr__(self) -> str:
        return f"Region({self.amb.id}, {self.env.product.id})"


@functools.lru_cache(maxsize=None)
def _region(api: str, product: str, ambiguity_id: str, gm_window: int, rulebook_id: int) -> Region:
    plain = _PLAIN[rulebook_id]
    spec, amb = _spec_of(plain, ambiguity_id)
    if spec.api != api:
        raise ValueError(f"ambiguity {ambiguity_id!r} is not one of {api}'s (it is {spec.api}'s)")
    env = environment(api, product, generation_rulebook(plain, ambiguity_id), gm_window)
    if not env.targets:
        env.targets.update(_targets(amb))
        env.variants = tuple(r.variant for r in moving_readings(spec, amb) if r.variant)
    return Region(env, plain, amb)


def moving_readings(spec: ApiSpec, amb: Ambiguity) -> list[Reading]:
    """The readings of `amb` whose index-math variant moves other bytes than the default math: not one
    that changes only what the bytes written hold (the API's FILLING, oracle/apis/__init__.py), whose calls
    are sized and checked as the plain rulebook sizes and checks them."""
    filling: frozenset[str] = getattr(index_math(spec.api), "FILLING", frozenset())
    return [r for r in amb.readings if r.variant and r.variant not in filling]


_PLAIN: dict[int, Rulebook] = {}


def region(api: str, product: str, ambiguity_id: str, rulebook: Rulebook,
           gm_window: int = DEFAULT_GM_WINDOW) -> Region:
    """The (cached) Region of an ambiguity cell, drawn from the plain `rulebook` (no reading declared);
    ValueError for an unknown ambiguity or another api's."""
    if not isinstance(rulebook, Rulebook):
        raise TypeError(f"region({ambiguity_id!r}): expected a Rulebook, got {type(rulebook).__name__}")
    _PLAIN[id(rulebook)] = rulebook
    return _region(api, product, ambiguity_id, gm_window, id(rulebook))


def ambiguity_case(pick: Picks, where: Region) -> Case:
    """One call of the region from `pick`'s choices, checked by the plain rulebook (Retry if it is not
    exactly in the ambiguity and its companions)."""
    require(where.keys)
    key = pick.choice(where.keys, "region")
    env, target = where.env, where.env.targets[key]
    forms = tuple(f for f in env.spec.forms_or_default() if f in (target.when or {}).get("forms", [f]))
    call, memory, draft, ctx, text = drawn(pick, env, target, None, None, forms)
    built = None
    if env.has_values:          # the offsets each rulebook's reading reads (a variant may read other entries)
        built = checked_images(memory, [context(call, None, book) for book in [where.plain, *where.variant_books]])
        ctx = ctx.over(built)
    flagged = {where.amb.id} | where.companions[key]
    if where.split:             # the generation rulebook's check finds nothing (its fast path), the lacked flag it
        require(not rule_violations(ctx) and where.lacked_holding(ctx) == flagged)
    else:
        require({v.rule for v in rule_violations(context(call, built, where.plain))} == flagged)
    for book in where.variant_books:
        require({v.rule for v in rule_violations(context(call, built, book))} == where.companions[key])
    params = (target.when or {}).get("params", {})
    tags = [_region_tag(t, params, where.suffix[key]) for t in draft.tags]
    return Case(call, memory, "ambiguity", where.amb.id,
                tuple(tags + [where.tag[key]] * bool(where.tag[key]))).with_text(text)


def _region_tag(tag: str, params: Mapping[str, Any], suffix: str) -> str:
    """A region parameter's edge tag names the region's edge: `sid=min` -> `sid=region-min`."""
    name, _, edge = tag.partition("=")
    return f"{name}=region-{edge}{suffix}" if name in params and edge in ("min", "max", "largest-fit") else tag


def ambiguity_calls(api: str, product: str, ambiguity_id: str, *, rulebook: Rulebook,
                    gm_window: int = DEFAULT_GM_WINDOW, batch: bool = False) -> st.SearchStrategy[Case]:
    """Calls in the ambiguity's region on `product`, legal but for it: `Case.expect` "ambiguity",
    `Case.rule` the ambiguity id. Empty (filtered out) where no call of the product is in the region.
    `batch`: lists of them (see strategies.searched_cases)."""
    return searched_cases(ambiguity_case, region(api, product, ambiguity_id, rulebook, gm_window), batch=batch)


def reachable_ambiguity(api: str, product: str, ambiguity_id: str, rulebook: Rulebook,
                        gm_window: int = DEFAULT_GM_WINDOW) -> bool:
    """Does the ambiguity's region hold calls of this api on this product (its cell exists)?"""
    return bool(region(api, product, ambiguity_id, rulebook, gm_window).keys)


# ------------------------------------------------------------------------------------------- edges


def edge_choices(where: Region, pick: Picks) -> dict[str, list[dict[str, Any]]]:
    """The edges an ambiguity cell's sweep must reach (conformance/generate/edges.py), as tag -> the
    choices to try for it: each region (and check) entered, each end of each of its parameter ranges
    that a call fits at (else the largest value that fits), the bottom and the top of a reserved top.
    `pick` answers the choices the sizing asks for (mask words: one element)."""
    out: dict[str, list[dict[str, Any]]] = {}
    env = where.env
    for key in where.keys:
        target = env.targets[key]
        when = target.when or {}
        layouts = _layouts(env, target)
        base = [{"region": key, "form": form, "dtype": dtype, "path": path} for form, dtype, path in layouts]
        kind = kind_of(target)
        overlap = kind.region_counts_up
        # a check that ties a count to other parameters (an overlap's geometry, a multiple of another
        # parameter) decides how far the count goes in the region: its top is left to the search
        bottom_only = kind.region_top_searched
        if where.tag[key]:          # an overlap some iterations later needs that many: each count up, too
            out.setdefault(where.tag[key], []).extend(base + [
                {**c, n: value, f"{n}.interval": "last"} for value in (2, "max") for c in base * overlap
                for n in env.param_names(c["form"]) if env.spec.param_type(n, c["form"]) != "words"])
        for name, (lo, hi) in when.get("params", {}).items():
            for edge, value in (("min", lo), ("max", hi)) if lo < hi and not bottom_only else (("min", lo),):
                fitting = [c for c in base if _fits_at(where, target, c, name, value, pick)]
                if edge == "max" and not fitting:
                    fitting = [c for c in base if _fits_at(where, target, c, name, lo + 1, pick)]
                    edge = "largest-fit"
                if fitting:
                    out.setdefault(f"{name}=region-{edge}{where.suffix[key]}", []).extend(
                        {**c, name: "min" if edge == "min" else "max", f"{name}.interval": "first" if edge == "min" else "last",
                         "order": _last(env, c["form"], name)} for c in fitting)
        for tag, plans in kind.region_edges(target, base).items():
            out.setdefault(tag, []).extend(plans)
    return out


def _layouts(env: Env, target: Rule) -> list[tuple[str | None, str, str | None]]:
    """(form, dtype, path) of the calls the target's region can hold (as _reachable reads it)."""
    when, out = target.when or {}, []
    for form in [f for f in env.spec.forms_or_default() if f in when.get("forms", [f])]:
        for dtype in [d for d in env.legal_dtypes(form) if d in when.get("dtypes", [d])]:
            if kind_of(target).needs_wide_elements and env.rulebook.itemsize(dtype) == 1:
                continue
            for path in [p for p in env.paths() or [None] if p in when.get("paths", [p])]:
                if kind_of(target).breakable_in(target, env.operand_scopes(path)):
                    out.append((form, dtype, path))
    return out


def _last(env: Env, form: str | None, name: str) -> int:
    """The `order` choice that sizes `name` after every other parameter (parameters.draw_params)."""
    names = [n for n in env.param_names(form) if env.spec.param_type(n, form) != "words"]
    return (names.index(name) + 1) % len(names) if name in names else 0


def _fits_at(where: Region, target: Rule, choice: Mapping[str, Any], name: str, value: int, pick: Picks) -> bool:
    """Does a call of this layout fit its scopes with `name` at `value`, every other parameter at the
    start of its domain in the region? (The generator's own sizing.)"""
    from conformance.generate.draft import CallDraft
    from conformance.generate.parameters import starting_point
    from conformance.generate.sizing import fits
    env = where.env
    draft = CallDraft(choice["form"], env.operand_dtypes(choice["dtype"]), env.operand_scopes(choice["path"]))
    draft.counts = {op: d["entries"] for op, d in env.spec.operands.items() if "entries" in d}
    try:
        start = starting_point(pick, env, draft, target)
    except Retry:
        return False
    return any(a <= value <= b for a, b in start.domains.get(name, ())) and \
        fits(env, draft, {**start.params, name: value}, start.aligns)


def planned(pick: Picks, where: Region) -> Case | None:
    """One call of the cell from a sweep's plan, or None when its choices give none."""
    try:
        return ambiguity_case(pick, where)
    except Retry:
        return None
