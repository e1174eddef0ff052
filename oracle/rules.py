"""The legality checker: each rule kind of the spec format, evaluated against a call.

A kind is a small function `(rule, ctx) -> message | None`. It reads every number, list and unit from the
rule (the YAML); what a kind knows is only what *sort* of sentence it encodes ("a parameter lies in a
range", "an operand's address is aligned"). Adding a kind means adding it here and to specs/schema.yaml.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional

import numpy as np

from . import screen
from .apis import index_math
from .call import Call, CallFormatError, Tensor
from .footprint import Runs, iteration_hits, iterations_identical, overlaps
from .spec import ApiSpec, Product, Rule, Rulebook, default_rulebook


@dataclass(frozen=True)
class Violation:
    rule: str
    severity: str          # "reject" | "undefined"
    message: str


class _once:
    """functools.cached_property without the lock it takes on every first access under Python 3.11
    (a context is made per call and never shared between threads)."""

    def __init__(self, fn: Callable[[Any], Any]):
        self.fn, self.name, self.__doc__ = fn, fn.__name__, fn.__doc__

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.fn(obj)
        return value


@dataclass
class Context:
    """What a rule may look at: the call, its spec, the product, and (for value rules) memory."""

    call: Call
    spec: ApiSpec
    rulebook: Rulebook
    product: Product
    memory: Optional[Mapping[str, np.ndarray]] = None

    @_once
    def units(self) -> dict[str, int]:
        """The spec's units for this call, and `element`: the bytes of one element of its dtype (they
        depend on the call's path and dtype only: worked out once per pair, a copy per call)."""
        plan = _plan(self)
        units = dict(plan[3])
        if plan[2]:                      # the declared readings' index math, by name in the API's module
            for name in self.variants:
                units = index_math(self.spec.api).VARIANTS[name](units)
        return units

    @_once
    def variants(self) -> tuple[str, ...]:
        """The index-math variants of the declared readings whose region holds the call (by the region's
        `when` alone: a reading with a variant changes what moves, so its region cannot depend on it)."""
        declared = _plan(self)[2]
        if not declared:                 # no declared reading with a variant covers the cell: the usual case
            return ()
        call, spec, matches = self.call, self.spec, self.rulebook.matches
        return tuple(variant for variant, regions in declared
                     if any(ranges is None or matches(ranges, call, spec) for ranges in regions))

    @_once
    def cell(self) -> tuple:
        """(product, form, dtype, path): what the call shares with every call of its cell, and all that
        its units and the `when` of its rules (but parameter ranges) depend on. The path is kept as the
        scopes of its two operands (what spec.path_of spells "from->to"), read here without spelling it."""
        call, spec = self.call, self.spec
        ends, path = spec.path_operands, None
        if ends is not None:
            src, dst = call.args.get(ends[0]), call.args.get(ends[1])
            if isinstance(src, Tensor) and isinstance(dst, Tensor):
                path = src.scope, dst.scope
        return call.product, call.form, spec.dtype_of_call(call), path

    @_once
    def accesses(self) -> dict[str, Any]:
        """Runs (or Spots) per operand; None for an operand addressed by offsets when memory is not given."""
        return index_math(self.spec.api).accesses(self.call, self.units, self.memory)

    def tensor(self, name: str) -> Tensor:
        return self.call.tensor(name)

    @_once
    def labelled(self) -> dict[str, list[tuple[str, Tensor]]]:
        """(label, tensor) of each tensor of each operand: one for a plain operand, one per entry of a
        list operand (`dst_list[3]`), so that the per-tensor kinds read the same for both."""
        out = {}
        for name in self.spec.operands:
            if self.spec.is_list(name):
                out[name] = [(f"{name}[{i}]", t) for i, t in enumerate(self.call.tensors(name))]
            else:
                out[name] = [(name, self.call.tensor(name))]
        return out

    @_once
    def _entries(self) -> dict[str, list[tuple[str, Tensor, Any]]]:
        accesses, call, spec, out = self.accesses, self.call, self.spec, {}
        for name in spec.operands:         # as `labelled` has them (not made here: most calls never read it)
            if spec.is_list(name):
                out[name] = [(f"{name}[{i}]", t, r) for i, (t, r) in enumerate(zip(call.tensors(name), accesses[name]))]
            else:
                tensor = call.args[name]
                out[name] = [(name, tensor if type(tensor) is Tensor else call.tensor(name), accesses[name])]
        return out

    def entries(self, name: str) -> list[tuple[str, Tensor, Runs]]:
        """(label, tensor, runs) of each tensor of an operand (see `labelled`)."""
        return self._entries[name]

    def nbytes(self, tensor: Tensor) -> int:
        return tensor.numel * self.rulebook.itemsize(tensor.dtype)


Kind = Callable[[Rule, Context], Optional[str]]
KINDS: dict[str, Kind] = {}


def kind(name: str) -> Callable[[Kind], Kind]:
    def register(fn: Kind) -> Kind:
        KINDS[name] = fn
        return fn
    return register


@kind("product")
def _product(rule: Rule, ctx: Context) -> str | None:
    if ctx.call.product not in rule.fields["products"]:
        supported = ", ".join(rule.fields["products"])
        return f"{ctx.spec.api} is not supported on {ctx.call.product} (supported: {supported})"
    return None


@kind("path")
def _path(rule: Rule, ctx: Context) -> str | None:
    allowed = rule.fields["allowed"].get(ctx.call.product)
    if allowed is None:      # the page says nothing of this product's paths; the product rule speaks for it
        return None
    path = f"{ctx.tensor(rule.fields['from']).scope}->{ctx.tensor(rule.fields['to']).scope}"
    if path not in allowed:
        return f"path {path} is not supported on {ctx.call.product} (supported: {', '.join(allowed)})"
    return None


def _dtypes(ctx: Context, names) -> dict[str, str]:
    return {label: t.dtype for name in names for label, t in ctx.labelled[name]}


@kind("dtype")
def _dtype(rule: Rule, ctx: Context) -> str | None:
    allowed = rule.fields["allowed"]
    for name in rule.fields["operands"]:
        for label, t in ctx.labelled[name]:
            if t.dtype not in allowed:
                return f"{label} has dtype {t.dtype}, not one of {', '.join(allowed)}"
    return None


@kind("same_dtype")
def _same_dtype(rule: Rule, ctx: Context) -> str | None:
    """Every tensor of the operands (each entry of a list operand) has one dtype."""
    labelled = ctx.labelled
    if len({t.dtype for name in rule.fields["operands"] for _, t in labelled[name]}) <= 1:
        return None
    dtypes = _dtypes(ctx, rule.fields["operands"])
    if len(set(dtypes.values())) > 1:
        first = next(iter(dtypes.values()))
        odd = next(k for k, v in dtypes.items() if v != first)
        return f"dtypes differ: {next(iter(dtypes))}={first}, {odd}={dtypes[odd]}"
    return None


@kind("scope")
def _scope(rule: Rule, ctx: Context) -> str | None:
    for label, tensor in ctx.labelled[rule.fields["operand"]]:
        if tensor.scope not in rule.fields["allowed"]:
            return f"{label} is in {tensor.scope}; it must be in {' or '.join(rule.fields['allowed'])}"
    return None


@kind("list_length")
def _list_length(rule: Rule, ctx: Context) -> str | None:
    name = rule.fields["operand"]
    want, got = ctx.spec.operands[name]["entries"], len(ctx.call.tensors(name))
    if got != want:
        return f"{name} has {got} entries; it must have {want}"
    return None


@kind("range")
def _range(rule: Rule, ctx: Context) -> str | None:
    name = rule.fields["param"]
    value = ctx.call.param(name) if "." in name else ctx.call.args[name]
    if isinstance(value, bool):                            # a bool parameter: 0 / 1
        value = int(value)
    elif not isinstance(value, int):
        value = ctx.call.int_arg(name)                     # raises the format error
    if not rule.fields["min"] <= value <= rule.fields["max"]:
        return f"{rule.fields['param']}={value} is outside [{rule.fields['min']}, {rule.fields['max']}]"
    return None


@kind("align")
def _align(rule: Rule, ctx: Context) -> str | None:
    scope, need = rule.fields["scope"], None
    for label, tensor in ctx.labelled[rule.fields["operand"]]:
        if tensor.scope == scope:                          # the rule speaks of this scope only
            if need is None:
                need = ctx.rulebook.align_bytes(rule, ctx.product)
            if tensor.addr % need:
                return f"{label} in {tensor.scope} at byte {tensor.addr} is not {need}-byte aligned"
    return None


@kind("bounds")
def _bounds(rule: Rule, ctx: Context) -> str | None:
    for label, tensor, runs in ctx.entries(rule.fields["operand"]):
        if runs is None:
            continue
        begin, end = runs.span                             # (0, 0) when it touches nothing: inside
        size = ctx.nbytes(tensor)
        if begin < 0 or end > size:
            return (f"{label} is accessed at bytes [{begin}, {end}) of a tensor of {size} bytes "
                    f"({tensor.numel} x {tensor.dtype})")
    return None


@kind("capacity")
def _capacity(rule: Rule, ctx: Context) -> str | None:
    """A tensor lies inside its buffer; `reserve` bytes at the top of the buffer are left out."""
    product = ctx.product
    for label, tensor in ctx.labelled[rule.fields["operand"]]:
        if tensor.scope == "GM":                           # every product has one, unbounded
            continue
        if not product.has_scope(tensor.scope):
            return f"{ctx.call.product} has no {tensor.scope}"
        cap = product.capacity(tensor.scope)
        if cap is None:
            continue
        cap -= rule.fields.get("reserve", 0)
        end = tensor.addr + ctx.nbytes(tensor)
        if end > cap:
            return f"{label} ends at byte {end} of {tensor.scope}, past its {cap} bytes on {ctx.call.product}"
    return None


@kind("overlap")
def _overlap(rule: Rule, ctx: Context) -> str | None:
    """With `allow: identical`, two operands given as the same tensor (scope, address, bytes) overlap 100%:
    allowed (the general constraint: "100% overlap or none")."""
    a, b = rule.fields["operands"]
    identical = rule.get("allow") == "identical"
    entries_b = ctx.entries(b)
    for la, ta, ra in ctx.entries(a):
        for lb, tb, rb in entries_b:
            if ra is None or rb is None or ta.scope != tb.scope:
                continue
            if identical and ta.addr == tb.addr and ctx.nbytes(ta) == ctx.nbytes(tb):
                continue
            if overlaps(ta.addr, ra, tb.addr, rb):
                return f"the bytes {la} and {lb} access in {ta.scope} overlap"
    return None


@kind("reach")
def _reach(rule: Rule, ctx: Context) -> str | None:
    """The bytes an operand touches (from the offsets in memory, for an offset-addressed one) lie inside
    its buffer. Without memory such an operand is not known and the rule is not evaluated."""
    for label, tensor, runs in ctx.entries(rule.fields["operand"]):
        if runs is None or runs.empty:
            continue
        cap = ctx.product.capacity(tensor.scope)
        lo, hi = tensor.addr + runs.begin, tensor.addr + runs.end
        if lo < 0 or (cap is not None and hi > cap):
            return f"{label} touches bytes [{lo}, {hi}) of {tensor.scope}, outside its {cap} bytes on {ctx.call.product}"
    return None


@kind("offset_range")
def _offset_range(rule: Rule, ctx: Context) -> str | None:
    """The offsets the call reads from `operand` (memory contents) are at most `max`."""
    values = _values_read(ctx, rule.fields["operand"])
    if values is not None and values.size and int(values.max()) > rule.fields["max"]:
        i = int(np.argmax(values > rule.fields["max"]))
        return f"{rule.fields['operand']} entry {i} is {int(values[i])}, past {rule.fields['max']}"
    return None


@kind("offset_align")
def _offset_align(rule: Rule, ctx: Context) -> str | None:
    """Every element an offset-addressed operand touches starts at a multiple of its element width."""
    width = ctx.units.get("element", 1)
    for label, tensor, runs in ctx.entries(rule.fields["operand"]):
        if runs is None or runs.empty:
            continue
        if _all_aligned(tensor.addr, runs.starts(), width):
            continue
        starts = tensor.addr + runs.starts()
        odd = np.flatnonzero(starts % width)
        if odd.size:
            return f"element {int(odd[0])} of {label} starts at byte {int(starts[odd[0]])}, not a multiple of {width}"
    return None


def _all_aligned(addr: int, starts: np.ndarray, width: int) -> bool:
    """addr + every start a multiple of a power-of-two width: one OR over the starts (False: look closer)."""
    return not width & (width - 1) and not (addr | int(np.bitwise_or.reduce(starts))) & (width - 1)


def _values_read(ctx: Context, name: str) -> np.ndarray | None:
    """The values the call reads from a tensor of offsets: its accessed elements, from memory (a view
    where they lie side by side)."""
    if ctx.memory is None:
        return None
    tensor, runs = ctx.call.tensor(name), ctx.accesses[name]
    kind = np.dtype(ctx.spec.operands[name].get("dtype", tensor.dtype)).newbyteorder("<")    # as the spec reads them
    image = ctx.memory.get(tensor.scope)
    if image is None or runs is None or runs.empty or tensor.addr + runs.end > image.shape[0]:
        return None
    if isinstance(runs, Runs) and runs.step == runs.length == kind.itemsize and runs.count > 0:
        lo = tensor.addr + runs.first
        return image[lo:lo + runs.count * kind.itemsize].view(kind)
    at = runs.starts() if hasattr(runs, "at") else runs.first + runs.step * np.arange(runs.count)
    where = tensor.addr + at[:, None] + np.arange(kind.itemsize)
    return np.ascontiguousarray(image[where]).view(kind).reshape(-1).astype(np.int64)


@kind("multiple")
def _multiple(rule: Rule, ctx: Context) -> str | None:
    value = ctx.call.int_arg(rule.fields["param"])
    if value % rule.fields["of"]:
        return f"{rule.fields['param']}={value} is not a multiple of {rule.fields['of']}"
    return None


@kind("self_overlap")
def _self_overlap(rule: Rule, ctx: Context) -> str | None:
    """Two of the runs an operand writes share a byte (its footprint says how: Grid.self_overlaps)."""
    for label, tensor, runs in ctx.entries(rule.fields["operand"]):
        if runs is not None and hasattr(runs, "self_overlaps") and runs.self_overlaps():
            return f"rows of {label} overlap one another: some bytes are written more than once"
    return None


@kind("mask_words")
def _mask_words(rule: Rule, ctx: Context) -> str | None:
    """A bitwise mask (a list of words): word k inside words[k]; with `nonzero`, not every word 0."""
    words = ctx.call.args[rule.fields["param"]]
    if len(words) != len(rule.fields["words"]):
        return f"{rule.fields['param']} has {len(words)} words; it must have {len(rule.fields['words'])}"
    for k, (value, (lo, hi)) in enumerate(zip(words, rule.fields["words"])):
        if not lo <= value <= hi:
            return f"{rule.fields['param']}[{k}] = {value} is outside [{lo}, {hi}]"
    if rule.fields.get("nonzero") and not any(words):
        return f"{rule.fields['param']} selects no element (every word is 0)"
    return None


@kind("iteration_overlap")
def _iteration_overlap(rule: Rule, ctx: Context) -> str | None:
    """Run r of an operand is what its iteration r touches (repeat-style instructions). Broken when an
    iteration r of `a` and an iteration r' of `b` with r' - r inside `lag` share a byte; with
    `allow: identical`, same-iteration overlap is allowed where every entry of a and b coincide."""
    a, b = rule.fields["operands"]
    lo, hi = rule.fields.get("lag", [0, 0])
    ea, eb = ctx.entries(a), ctx.entries(b)
    for scope in {t.scope for _, t, _ in ea} & {t.scope for _, t, _ in eb}:
        pa = [(i, (t.addr, r)) for i, (_, t, r) in enumerate(ea) if t.scope == scope]
        pb = [(j, (t.addr, r)) for j, (_, t, r) in enumerate(eb) if t.scope == scope]
        hits = iteration_hits([x for _, x in pa], [x for _, x in pb], (lo, hi), distinct=a == b)
        if not hits.any():
            continue
        if rule.fields.get("allow") == "identical" and len(pa) == len(ea) and len(pb) == len(eb):
            same = iterations_identical([x for _, x in pa], [x for _, x in pb])
            hits = hits & ~same[:hits.shape[0], None, None] if same.size else hits
        found = np.argwhere(hits)
        if found.size:
            r, i, j = (int(v) for v in found[0])
            what = {(0, 0): "in the same iteration", (1, 1): "in the next iteration"}.get(
                (lo, hi), f"{lo}{'+' if hi is None else f'..{hi}'} iterations later")
            extra = " (not entry for entry identical)" if rule.fields.get("allow") == "identical" else ""
            return (f"iteration {r} of {ea[pa[i][0]][0]} meets {eb[pb[j][0]][0]} {what} in {scope}{extra}")
    return None


_PARAM_TYPES = {
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "bool": lambda v: isinstance(v, bool),
    "words": lambda v: isinstance(v, list) and all(isinstance(w, int) and not isinstance(w, bool)
                                                   and 0 <= w < 2**64 for w in v),
}
_PARAM_TYPE_NAMES = {"int": "an integer", "bool": "true or false", "words": "a list of 64-bit words"}


def context(call: Call, memory: Mapping[str, np.ndarray] | None = None,
            rulebook: Rulebook | None = None) -> Context:
    """Validate the call's shape against its spec (unknown api/product/argument -> CallFormatError)."""
    rulebook = rulebook or default_rulebook()
    if not isinstance(call, Call):
        raise CallFormatError(f"expected a Call, got {type(call).__name__}")
    try:
        spec = rulebook.api(call.api)
        product = rulebook.product(call.product)
    except ValueError as exc:
        raise CallFormatError(f"call: {exc}") from None
    form, args = call.form, call.args
    shapes = spec.__dict__.setdefault("_call_shapes", {})      # per form: what its calls must look like
    shape = shapes.get(form)
    if shape is None:
        if spec.forms and form not in spec.forms:
            raise CallFormatError(f"call.form: {form!r} is not a form of {spec.api} ({', '.join(spec.forms)})")
        if not spec.forms and form is not None:
            raise CallFormatError(f"call.form: {spec.api} has a single form; form must be null, got {form!r}")
        params, mappings = spec.form_params(form)
        shape = shapes[form] = (spec.argument_names(form), mappings, [(n, k, "." in n) for n, k in params],
                                [(name, spec.is_list(name)) for name in spec.operands])
    expected_args, mappings, params, operands = shape
    if expected_args != args.keys():
        for name in sorted(expected_args - set(args)):
            raise CallFormatError(f"call.args: missing argument {name!r} of {spec.api}")
        for name in sorted(set(args) - expected_args):
            raise CallFormatError(f"call.args.{name}: {spec.api} has no argument {name!r}")
    for head, fields in mappings.items():                 # mapping arguments: exact fields
        value = args[head]
        if not isinstance(value, Mapping):
            raise CallFormatError(f"call.args.{head}: expected a mapping with fields {', '.join(sorted(fields))}")
        for extra in sorted(set(value) - fields):
            raise CallFormatError(f"call.args.{head}: unknown field {extra!r} (fields: {', '.join(sorted(fields))})")
    for name, kind, dotted in params:                      # the index math may then trust the types
        value = call.param(name) if dotted else args[name]
        if type(value) is int and kind == "int":           # the usual case, at once
            continue
        if not _PARAM_TYPES[kind](value):
            raise CallFormatError(f"call.args.{name}: expected {_PARAM_TYPE_NAMES[kind]}, got {value!r}")
    dtypes = rulebook.dtypes
    for name, is_list in operands:
        if not is_list:
            tensor = args[name]
            if type(tensor) is not Tensor:
                tensor = call.tensor(name)                 # a tensor of a subclass, or the format error
            if tensor.dtype not in dtypes:
                raise CallFormatError(f"call.args.{name}.dtype: unknown dtype {tensor.dtype!r}")
            continue
        for i, tensor in enumerate(call.tensors(name)):
            if tensor.dtype not in dtypes:
                raise CallFormatError(f"call.args.{name}[{i}].dtype: unknown dtype {tensor.dtype!r}")
    return Context(call, spec, rulebook, product, memory)


def check(call: Call, memory: Mapping[str, np.ndarray] | None = None,
          rulebook: Rulebook | None = None, readings: Mapping[str, str] | None = None) -> list[Violation]:
    """Every rule (and ambiguity region) of the call's spec that the call breaks or falls into.
    `readings` (ambiguity id -> reading id) judges those regions by the readings (unknown: ValueError)."""
    return violations(context(call, memory, with_readings(rulebook, readings)))


def with_readings(rulebook: Rulebook | None, readings: Mapping[str, str] | None) -> Rulebook:
    """The rulebook (the default one if None) with the declared readings, if any."""
    rulebook = rulebook or default_rulebook()
    return rulebook.with_readings(readings) if readings else rulebook


def violations(ctx: Context) -> list[Violation]:
    call, spec, matches = ctx.call, ctx.spec, ctx.rulebook.matches
    rules, ambiguities, _, _, quick = _plan(ctx)
    if quick is not None and quick.holds(ctx):      # the screened rules hold: ask the kinds of the others
        rules = quick.rest
    concerned, overridden = [], set()
    for amb, regions in ambiguities:
        for ranges in regions:
            if ranges is None or matches(ranges, call, spec):
                if not amb.checks or any(KINDS[c.kind](c, ctx) for c in amb.checks):
                    concerned.append(amb)
                    overridden.update(amb.overrides)                  # the reading judges these
                break
    out = []
    for rule, ranges in rules:
        if (ranges is None or matches(ranges, call, spec)) and rule.id not in overridden:
            message = KINDS[rule.kind](rule, ctx)
            if message:
                out.append(Violation(rule.id, rule.severity, message))
    for amb in concerned:          # undeclared: undefined; declared: its reading's legality
        if amb.legality != "legal":
            reading = f" (reading {amb.declared.id})" if amb.declared else ""
            out.append(Violation(amb.id, amb.legality, f"ambiguous{reading}: {amb.question.strip()}"))
    return out


# -- which rules a call falls under ------------------------------------------------------------------
# A rule's `when` (an ambiguity's regions) names products, forms, dtypes and paths, which a call shares
# with every call of its cell, and parameter ranges, which are its own. Rulebook.matches decides the
# first part once per (product, form, dtype, path) and the ranges per call.

def _cache(spec: ApiSpec, name: str, rulebook: Rulebook) -> dict:
    """A cache kept on the spec, one per rulebook that reads it."""
    caches = spec.__dict__.get(name)
    if caches is None:
        caches = spec.__dict__[name] = {}
    entry = caches.get(id(rulebook))
    if entry is None or entry[0] is not rulebook:
        entry = caches[id(rulebook)] = (rulebook, {})
    return entry[1]


def _plan(ctx: Context) -> tuple[list, list, list, dict, Any]:
    """What the call's cell decides, worked out once per cell (kept on the spec, per rulebook) and looked up
    once per context: (rule, its `when` ranges or None) of each rule and (ambiguity, the ranges of each
    region) of each ambiguity whose products, forms, dtypes and paths cover the call; (variant, regions)
    of those with a declared reading that has an index-math variant; the cell's units; and the screen of
    its plainest rules (screen.py), or None."""
    plan = ctx.__dict__.get("_plan")
    if plan is not None:
        return plan
    call, spec, rulebook = ctx.call, ctx.spec, ctx.rulebook
    matches, key = rulebook.matches, ctx.cell
    cache = _cache(spec, "_plans", rulebook)
    plan = cache.get(key)
    if plan is None:
        rules = [(rule, ranges) for rule in spec.rules
                 for shared, ranges in [_split(rule.when)] if matches(shared, call, spec)]
        ambiguities = []
        for amb in spec.ambiguities:
            regions = [ranges for shared, ranges in map(_split, amb.regions) if matches(shared, call, spec)]
            if regions:
                ambiguities.append((amb, regions))
        declared = [(amb.declared.variant, regions) for amb, regions in ambiguities
                    if amb.declared is not None and amb.declared.variant]
        # units: they depend on the call's path and dtype only
        dtype = key[2]
        units = spec.units(call)
        width = rulebook.itemsize(dtype) if dtype in rulebook.dtypes else None
        if width is not None:
            units["element"] = width
        for name, unit in list(units.items()):            # {elements: n}: n elements of the call's dtype
            if isinstance(unit, Mapping):
                units[name] = unit["elements"] * (width or 1)
        plan = cache[key] = (rules, ambiguities, declared, units, screen.build(rules, ctx))
    ctx.__dict__["_plan"] = plan
    return plan


def _split(when: Mapping[str, Any] | None) -> tuple[Mapping[str, Any] | None, Mapping[str, Any] | None]:
    """(the part of `when` every call of a cell shares, {"params": ranges} or None)."""
    if not when or "params" not in when:
        return when, None
    return {k: v for k, v in when.items() if k != "params"}, {"params": when["params"]}


def verdict_class(violations: list[Violation]) -> str:
    """'reject' if any reject rule is broken, else 'undefined' if any undefined one, else 'legal'."""
    severities = {v.severity for v in violations}
    return "reject" if "reject" in severities else ("undefined" if severities else "legal")


__all__ = ["Violation", "Context", "KINDS", "check", "context", "with_readings", "violations", "verdict_class"]
