"""Where a cell draws its calls: the API spec, the product and the rulebook, read once into what the
drawing steps ask of them (forms, dtypes, paths, the legal values of each parameter less the ambiguity
regions, the bytes of each scope the generators use)."""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any, Mapping

from oracle import Call, Tensor
from oracle.apis import index_math
from oracle.call import SCOPES, nest
from oracle.kinds import kind_of
from oracle.rules import Context
from oracle.spec import ApiSpec, Product, Rule, Rulebook

DEFAULT_GM_WINDOW = 4 << 20     # bytes of GM the generators may place operands in
GM_SPREAD = 64 << 10            # GM has no top to reach: gaps between GM operands stay below this
MOVED_BYTES = 8 << 20           # bytes one operand of a generated call may move (the oracle's work per call)


def round_up(value: int, align: int) -> int:
    return -(-value // align) * align


@dataclass(frozen=True)
class StructGroup:
    """List-of-struct arguments drawn together: the rule whose kind draws them, the lists, their operands
    (in the same order) and the int parameter holding their length."""

    rule: Rule
    lists: tuple[str, ...]
    operands: tuple[str, ...]
    length: str


@dataclass(eq=False)
class Frame:
    """What drawing a call needs that no pick changes: its form, dtypes, scopes and list counts fix the
    probe call, its units, each parameter's step and domain and each scope's alignment (Env.frame makes
    it once for all the calls that share them). The dicts below are filled as the drawing steps go.
    Compared and hashed by identity: sizing.py keys what it remembers by frame."""

    template: Call                                   # the probe call the index math is asked about
    math: Any                                        # the API's index-math module
    units: Mapping[str, int]
    variant_units: list[Mapping[str, int]]           # units of env.variants
    names: list[str]                                 # the parameters drawn (not the mask words)
    steps: dict[str, int]                            # what each one's legal values are multiples of
    domains: dict[str, list[tuple[int, int]]]
    op_aligns: Mapping[str, int]
    aligns: Mapping[str, int]                        # per scope
    word_rules: dict[str, list[Rule]]                # per mask-words parameter, the mask_words rules that hold
    alone: frozenset[str]                            # the list-of-struct arguments and their lengths (structs.py)
    capacities: dict[str, int] = field(default_factory=dict)
    starts: dict[int, tuple] = field(default_factory=dict)      # id(target) -> (target, domains, ends)
    begun: dict[int, tuple] = field(default_factory=dict)       # id(target) -> a start's (params, empties)
    # what a value drawn outside a range keeps to: the `multiple` rules alone (an ambiguity's multiple is
    # no rule: the value one past a range end is the range rule's edge whatever it says)
    rule_steps: dict[str, int] = field(default_factory=dict)


class Env:
    """What the strategies of one (api, product) need to know, computed once.

    (A plain class, not a dataclass, so that Hypothesis prints it by its short repr.)"""

    def __init__(self, spec: ApiSpec, product: Product, rulebook: Rulebook, gm_window: int):
        self.spec, self.product, self.rulebook, self.gm_window = spec, product, rulebook, gm_window
        # rule-shaped targets that are no rule of the spec: an ambiguity's regions (ambiguity.py), by key;
        # and the index-math variants of its readings, which its calls are sized and filled for as well
        self.targets: dict[str, Rule] = {}
        self.variants: tuple[str, ...] = ()
        self._frames: dict[tuple, Frame] = {}

    def rule(self, rule_id: str) -> Rule:
        """A rule of the spec, or one of this environment's `targets`."""
        return self.targets.get(rule_id) or self.spec.rule(rule_id)

    @functools.cached_property
    def nested(self) -> bool:
        """Does the API have parameters that are fields of a mapping argument (intriParams.nValue)?"""
        return any("." in p for p in self.spec.params)

    @functools.cached_property
    def struct_groups(self) -> list[StructGroup]:
        """Per group of list-of-struct arguments (SliceInfo[]): a rule whose kind draws them (`draw_lists`),
        the lists with their operands, and the parameter holding their length (conformance/generate/structs.py)."""
        out, seen = [], set()
        for rule in self.spec.rules_that("struct_lists"):
            named = kind_of(rule).struct_lists(rule)
            if named and named[0] not in seen:
                seen.add(named[0])
                out.append(StructGroup(rule, named[0], named[1], self.spec.params[named[0][0]]["entries"]))
        return out

    @functools.cached_property
    def has_values(self) -> bool:
        """Does a call carry data the index math reads (a tensor of offsets)?"""
        return any(d.get("values") for d in self.spec.operands.values())

    @functools.cached_property
    def supported(self) -> bool:
        return self.spec.supported_on(self.product.id)

    @functools.cached_property
    def joint_regions(self) -> list[tuple[Mapping[str, Any], list[str]]]:
        """The ambiguity regions of several parameters (and no check), with their parameters' names: the
        generators move their calls out of them (parameters._stay_out)."""
        return [(region, list(region["params"])) for amb in self.spec.ambiguities if not amb.checks
                for region in amb.regions if len(region.get("params", {})) >= 2]

    def __repr__(self) -> str:
        return f"Env({self.spec.api}, {self.product.id})"

    def capacity(self, scope: str) -> int:
        return self.gm_window if scope == "GM" else (self.product.capacity(scope) or 0)

    def paths(self, form: str | None = None) -> list[str]:
        """Allowed paths on this product; the union of all products' where the page lists none for it.
        A path rule of some forms (`when: {forms: ...}`: DataCopyPad's GM->UB and UB->GM overloads) holds
        for those forms; `form` None: the paths of every form."""
        rules = [r for r in self.spec.rules_that("paths") if kind_of(r).paths(r, None) is not None
                 and (form is None or not r.when or form in r.when.get("forms", (form,)))]
        if not rules:
            return []
        mine = [p for r in rules for p in kind_of(r).paths(r, self.product.id) or ()]
        paths = list(dict.fromkeys(mine)) or sorted({p for r in rules for p in kind_of(r).paths(r, None) or ()})
        return [p for p in paths if all(self.product.has_scope(s) for s in p.split("->"))]

    def forbidden_paths(self, form: str | None = None) -> list[str]:
        allowed = set(self.paths(form))
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

    def frame(self, form: str | None, dtypes: Mapping[str, str], scopes: Mapping[str, str],
              counts: Mapping[str, int]) -> Frame:
        """The Frame of calls of this form, operand dtypes and scopes, and list counts (made once)."""
        key = (form, tuple(dtypes.items()), tuple(scopes.items()), tuple(counts.items()), self.variants)
        frame = self._frames.get(key)           # one look-up: the key's hash is worked out each time
        if frame is None:
            frame = self._frames[key] = self._new_frame(form, dtypes, scopes, counts)
        return frame

    def _new_frame(self, form: str | None, dtypes: Mapping[str, str], scopes: Mapping[str, str],
                   counts: Mapping[str, int]) -> Frame:
        template = self.probe(form, dtypes, scopes, {}, counts)
        math_ = index_math(self.spec.api)
        units = Context(template, self.spec, self.rulebook, self.product).units
        alone = frozenset(n for g in self.struct_groups for n in (*g.lists, g.length))
        names = [n for n in self.param_names(form) if self.spec.param_type(n, form) != "words" and n not in alone]
        domains, op_aligns, aligns = self.shape(form, tuple(dtypes.items()), tuple(scopes.items()))
        word_rules = {name: [r for r in self.spec.rules_that("words_param") if kind_of(r).words_param(r) == name
                             and self.rulebook.matches(r.when, template, self.spec)]
                      for name in self.param_names(form) if self.spec.param_type(name, form) == "words"}
        return Frame(template, math_, units, [math_.VARIANTS[v](units) for v in self.variants], names,
                     {n: self.multiple_of(n, template) for n in domains}, domains, op_aligns, aligns, word_rules,
                     alone, rule_steps={n: self.multiple_of(n, template, regions=False) for n in names})

    def dtype_ok(self, call: Call) -> bool:
        """Does the call pass every dtype rule that applies to it?"""
        ctx = Context(call, self.spec, self.rulebook, self.product)
        for rule in self.spec.rules_that("on_dtypes"):
            kind = kind_of(rule)
            if kind.on_dtypes and self.rulebook.matches(rule.when, call, self.spec) and kind.check(rule, ctx):
                return False
        return True

    @functools.lru_cache(maxsize=None)
    def legal_dtypes(self, form: str | None) -> list[str]:
        """Dtypes with which some allowed path passes every dtype rule (the legal cells of a product)."""
        out = []
        for dtype in self.rulebook.dtypes:
            for path in self.paths(form) or [None]:
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
        target = self.rule(rule_id) if rule_id is not None else None
        kind = kind_of(target)
        paths = (target.when or {}).get("paths") if rule_id in self.targets else None
        form, candidates = kind.candidate_paths(target, self, form)
        out = []
        for path in candidates:
            scopes = self.operand_scopes(path)
            if paths is not None and path not in paths:
                continue
            if target is not None and not kind.breakable_in(target, scopes):
                continue
            if not kind.dtype_free and not self.dtype_ok(self.probe(form, dict(dtypes), scopes, {})):
                continue
            out.append(path)
        return out

    def covers(self, region: Mapping[str, Any], form: str | None, dtype: str | None = None) -> bool:
        """Does an ambiguity's region hold every call of `form` (and of `dtype`, where given) on this
        product? It names no parameter, and each list it has (products, forms, dtypes) holds the call's."""
        wants: dict[str, Any] = {"products": self.product.id, "forms": form}
        if dtype is not None:
            wants["dtypes"] = dtype
        return set(region) <= set(wants) and all(wants[k] in region[k] for k in region)

    def form_ambiguous(self, form: str | None) -> bool:
        """Is every call of `form` in the region of an ambiguity without checks (asc_gather's repeat
        form)? A call drawn there to break a rule falls into the ambiguity too."""
        return any(not amb.checks and self.covers(region, form) for amb in self.spec.ambiguities
                   for region in amb.regions)

    def operand_dtypes(self, dtype: str) -> dict[str, str]:
        return {op: d.get("dtype", dtype) for op, d in self.spec.operands.items()}

    def operand_scopes(self, path: str | None) -> dict[str, str]:
        scopes = {op: d.get("scope", "UB") for op, d in self.spec.operands.items()}
        if path is not None and self.spec.path_operands:
            src, dst = self.spec.path_operands
            scopes[src], scopes[dst] = path.split("->")
        return scopes

    def multiple_of(self, name: str, probe: Call, regions: bool = True) -> int:
        """What every legal value of a parameter is a multiple of (its `multiple` rules and, with `regions`,
        the `multiple` checks on it of the ambiguities whose region holds the probe's cell but for a range
        of that parameter: the calls off them are the region's), or 1, for calls like `probe`."""
        def width() -> int:
            return self.rulebook.itemsize(self.spec.dtype_of_call(probe))

        def unit() -> int:
            unit = self.spec.params[name].get("unit", 1)
            return unit["elements"] * width() if isinstance(unit, Mapping) else unit
        step = 1
        for rule in self.spec.rules_that("multiple_of"):
            of = kind_of(rule).multiple_of(rule, name, width, unit)
            if of is not None and self.rulebook.matches(rule.when, probe, self.spec):
                step = math.lcm(step, of)
        for amb in self.spec.ambiguities if regions else ():
            for check in amb.checks:
                of = kind_of(check).multiple_of(check, name, width, unit)
                if of is not None and all(set(r.get("params", {})) <= {name} and self.rulebook.matches(
                        {k: v for k, v in r.items() if k != "params"}, probe, self.spec) for r in amb.regions):
                    step = math.lcm(step, of)
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
                   if self.spec.param_type(n, form) not in ("words", "structs")}
        op_aligns = {op: self.rulebook.alignment(self.spec, probe, op, scope) for op, scope in scopes}
        scope_aligns: dict[str, int] = {}
        for op, scope in scopes:
            scope_aligns[scope] = math.lcm(scope_aligns.get(scope, 1), op_aligns[op])
        return domains, op_aligns, scope_aligns

    def mask_covers(self, name: str, probe: Call) -> int | None:
        """The most elements a count-mode mask `name` selects in the probe's form and dtype (None: it is no
        such mask): its values split there, so that half the draws select part of an iteration."""
        if self.spec.masks.get(name, {}).get(probe.form) != "count":
            return None
        return self.spec.mask_covers.get(self.rulebook.itemsize(self.spec.dtype_of_call(probe)))

    def domain(self, name: str, probe: Call) -> list[tuple[int, int]]:
        """Legal values of a parameter: the intersection of its range rules, minus ambiguity regions."""
        lo, hi = None, None
        bounded = False
        for rule in self.spec.rules_that("interval"):
            interval = kind_of(rule).interval(rule, name)
            bounded = bounded or interval is not None
            if interval is not None and self.rulebook.matches(rule.when, probe, self.spec):
                lo = interval[0] if lo is None else max(lo, interval[0])
                hi = interval[1] if hi is None else min(hi, interval[1])
        if lo is None and self.spec.params[name].get("type") == "bool":
            lo, hi = 0, 1                                  # drawn as 0 / 1, passed as False / True
        if lo is None and bounded:
            return []                                      # no range applies to this dtype / form
        if lo is None:
            raise ValueError(f"{self.spec.file}: parameter {name!r} has no range rule; the generators need one")
        intervals = [(lo, hi)] if lo <= hi else []
        covers = self.mask_covers(name, probe)
        if covers is not None and lo <= covers < hi:   # a count-mode mask: within an iteration, and past it
            intervals = [(lo, covers), (covers + 1, hi)]
        for amb in self.spec.ambiguities:
            for region in amb.regions:
                region = dict(region)
                excluded = region.pop("params", {})
                # a region of this one parameter (and of what the probe knows) is cut out here; one of
                # several parameters, or narrowed by a check, is left to _stay_out and the final check
                if amb.checks or list(excluded) != [name]:
                    continue
                if self.rulebook.matches(region, probe, self.spec):
                    intervals = subtract(intervals, tuple(excluded[name]))
        return intervals


def subtract(intervals: list[tuple[int, int]], cut: tuple[int, int]) -> list[tuple[int, int]]:
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


def environment(api: str, product: str, rulebook: Rulebook, gm_window: int = DEFAULT_GM_WINDOW) -> Env:
    """The (cached) Env of an api on a product, read from `rulebook` (the caller's: nothing is fetched)."""
    if not isinstance(rulebook, Rulebook):
        raise TypeError(f"environment({api!r}, {product!r}): expected a Rulebook, got {type(rulebook).__name__}")
    _RULEBOOKS[id(rulebook)] = rulebook
    return _env(api, product, gm_window, id(rulebook))
