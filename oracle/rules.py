"""The legality checker: each rule kind of the spec format, evaluated against a call.

A kind is a small function `(rule, ctx) -> message | None`. It reads every number, list and unit from the
rule (the YAML); what a kind knows is only what *sort* of sentence it encodes ("a parameter lies in a
range", "an operand's address is aligned"). Adding a kind means adding it here and to specs/schema.yaml.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Callable, Mapping, Optional

import numpy as np

from .apis import index_math
from .call import Call, CallFormatError, Tensor
from .footprint import Runs, iteration_hits, iterations_identical, overlaps
from .spec import ApiSpec, Product, Rule, Rulebook, default_rulebook


@dataclass(frozen=True)
class Violation:
    rule: str
    severity: str          # "reject" | "undefined"
    message: str


@dataclass
class Context:
    """What a rule may look at: the call, its spec, the product, and (for value rules) memory."""

    call: Call
    spec: ApiSpec
    rulebook: Rulebook
    product: Product
    memory: Optional[Mapping[str, np.ndarray]] = None

    @cached_property
    def units(self) -> dict[str, int]:
        """The spec's units for this call, and `element`: the bytes of one element of its dtype."""
        units = self.spec.units(self.call)
        dtype = self.spec.dtype_of_call(self.call)
        width = self.rulebook.itemsize(dtype) if dtype in self.rulebook.dtypes else None
        if width is not None:
            units["element"] = width
        for name, unit in list(units.items()):            # {elements: n}: n elements of the call's dtype
            if isinstance(unit, Mapping):
                units[name] = unit["elements"] * (width or 1)
        return units

    @cached_property
    def accesses(self) -> dict[str, Any]:
        """Runs (or Spots) per operand; None for an operand addressed by offsets when memory is not given."""
        return index_math(self.spec.api).accesses(self.call, self.units, self.memory)

    def tensor(self, name: str) -> Tensor:
        return self.call.tensor(name)

    @cached_property
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

    def entries(self, name: str) -> list[tuple[str, Tensor, Runs]]:
        """(label, tensor, runs) of each tensor of an operand (see `labelled`)."""
        cache = self.__dict__.setdefault("_entries", {})
        if name not in cache:
            runs = self.accesses[name]
            if not self.spec.is_list(name):
                runs = [runs]
            cache[name] = [(label, t, r) for (label, t), r in zip(self.labelled[name], runs)]
        return cache[name]

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
    if ctx.call.product not in rule["products"]:
        return f"{ctx.spec.api} is not supported on {ctx.call.product} (supported: {', '.join(rule['products'])})"
    return None


@kind("path")
def _path(rule: Rule, ctx: Context) -> str | None:
    allowed = rule["allowed"].get(ctx.call.product)
    if allowed is None:      # the page says nothing of this product's paths; the product rule speaks for it
        return None
    path = f"{ctx.tensor(rule['from']).scope}->{ctx.tensor(rule['to']).scope}"
    if path not in allowed:
        return f"path {path} is not supported on {ctx.call.product} (supported: {', '.join(allowed)})"
    return None


def _dtypes(ctx: Context, names) -> dict[str, str]:
    return {label: t.dtype for name in names for label, t in _labelled(ctx, name)}


def _labelled(ctx: Context, name: str) -> list[tuple[str, Tensor]]:
    return ctx.labelled[name]


@kind("dtype")
def _dtype(rule: Rule, ctx: Context) -> str | None:
    for label, dtype in _dtypes(ctx, rule["operands"]).items():
        if dtype not in rule["allowed"]:
            return f"{label} has dtype {dtype}, not one of {', '.join(rule['allowed'])}"
    return None


@kind("same_dtype")
def _same_dtype(rule: Rule, ctx: Context) -> str | None:
    """Every tensor of the operands (each entry of a list operand) has one dtype."""
    dtypes = _dtypes(ctx, rule["operands"])
    if len(set(dtypes.values())) > 1:
        first = next(iter(dtypes.values()))
        odd = next(k for k, v in dtypes.items() if v != first)
        return f"dtypes differ: {next(iter(dtypes))}={first}, {odd}={dtypes[odd]}"
    return None


@kind("scope")
def _scope(rule: Rule, ctx: Context) -> str | None:
    for label, tensor in _labelled(ctx, rule["operand"]):
        if tensor.scope not in rule["allowed"]:
            return f"{label} is in {tensor.scope}; it must be in {' or '.join(rule['allowed'])}"
    return None


@kind("list_length")
def _list_length(rule: Rule, ctx: Context) -> str | None:
    name = rule["operand"]
    want, got = ctx.spec.operands[name]["entries"], len(ctx.call.tensors(name))
    if got != want:
        return f"{name} has {got} entries; it must have {want}"
    return None


@kind("range")
def _range(rule: Rule, ctx: Context) -> str | None:
    name = rule["param"]
    value = ctx.call.param(name) if "." in name else ctx.call.args[name]
    if isinstance(value, bool):                            # a bool parameter: 0 / 1
        value = int(value)
    elif not isinstance(value, int):
        value = ctx.call.int_arg(name)                     # raises the format error
    if not rule["min"] <= value <= rule["max"]:
        return f"{rule['param']}={value} is outside [{rule['min']}, {rule['max']}]"
    return None


@kind("align")
def _align(rule: Rule, ctx: Context) -> str | None:
    need = ctx.rulebook.align_bytes(rule, ctx.product)
    for label, tensor in _labelled(ctx, rule["operand"]):
        if tensor.scope == rule["scope"] and tensor.addr % need:
            return f"{label} in {tensor.scope} at byte {tensor.addr} is not {need}-byte aligned"
    return None


@kind("bounds")
def _bounds(rule: Rule, ctx: Context) -> str | None:
    for label, tensor, runs in ctx.entries(rule["operand"]):
        if runs is None or runs.empty:
            continue
        size = ctx.nbytes(tensor)
        if runs.begin < 0 or runs.end > size:
            return (f"{label} is accessed at bytes [{runs.begin}, {runs.end}) of a tensor of {size} bytes "
                    f"({tensor.numel} x {tensor.dtype})")
    return None


@kind("capacity")
def _capacity(rule: Rule, ctx: Context) -> str | None:
    """A tensor lies inside its buffer; `reserve` bytes at the top of the buffer are left out."""
    for label, tensor in _labelled(ctx, rule["operand"]):
        if not ctx.product.has_scope(tensor.scope):
            return f"{ctx.call.product} has no {tensor.scope}"
        cap = ctx.product.capacity(tensor.scope) if tensor.scope != "GM" else None
        if cap is None:
            continue
        cap -= rule.get("reserve", 0)
        end = tensor.addr + ctx.nbytes(tensor)
        if end > cap:
            return f"{label} ends at byte {end} of {tensor.scope}, past its {cap} bytes on {ctx.call.product}"
    return None


@kind("overlap")
def _overlap(rule: Rule, ctx: Context) -> str | None:
    """With `allow: identical`, two operands given as the same tensor (scope, address, bytes) overlap 100%:
    allowed (the general constraint: "100% overlap or none")."""
    a, b = rule["operands"]
    for la, ta, ra in ctx.entries(a):
        for lb, tb, rb in ctx.entries(b):
            if rule.get("allow") == "identical" and (ta.scope, ta.addr, ctx.nbytes(ta)) == (tb.scope, tb.addr, ctx.nbytes(tb)):
                continue
            if ra is not None and rb is not None and ta.scope == tb.scope and overlaps(ta.addr, ra, tb.addr, rb):
                return f"the bytes {la} and {lb} access in {ta.scope} overlap"
    return None


@kind("reach")
def _reach(rule: Rule, ctx: Context) -> str | None:
    """The bytes an operand touches (from the offsets in memory, for an offset-addressed one) lie inside
    its buffer. Without memory such an operand is not known and the rule is not evaluated."""
    for label, tensor, runs in ctx.entries(rule["operand"]):
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
    values = _values_read(ctx, rule["operand"])
    if values is not None and values.size and int(values.max()) > rule["max"]:
        i = int(np.argmax(values > rule["max"]))
        return f"{rule['operand']} entry {i} is {int(values[i])}, past {rule['max']}"
    return None


@kind("offset_align")
def _offset_align(rule: Rule, ctx: Context) -> str | None:
    """Every element an offset-addressed operand touches starts at a multiple of its element width."""
    width = ctx.units.get("element", 1)
    for label, tensor, runs in ctx.entries(rule["operand"]):
        if runs is None or runs.empty:
            continue
        starts = tensor.addr + runs.starts()
        odd = np.flatnonzero(starts % width)
        if odd.size:
            return f"element {int(odd[0])} of {label} starts at byte {int(starts[odd[0]])}, not a multiple of {width}"
    return None


def _values_read(ctx: Context, name: str) -> np.ndarray | None:
    """The values the call reads from a tensor of offsets: its accessed elements, from memory."""
    if ctx.memory is None:
        return None
    tensor, runs = ctx.call.tensor(name), ctx.accesses[name]
    kind = np.dtype(ctx.spec.operands[name].get("dtype", tensor.dtype)).newbyteorder("<")    # as the spec reads them
    image = ctx.memory.get(tensor.scope)
    if image is None or runs is None or runs.empty or tensor.addr + runs.end > image.shape[0]:
        return None
    at = runs.starts() if hasattr(runs, "at") else runs.first + runs.step * np.arange(runs.count)
    where = tensor.addr + at[:, None] + np.arange(kind.itemsize)
    return np.ascontiguousarray(image[where]).view(kind).reshape(-1).astype(np.int64)


@kind("multiple")
def _multiple(rule: Rule, ctx: Context) -> str | None:
    value = ctx.call.int_arg(rule["param"])
    if value % rule["of"]:
        return f"{rule['param']}={value} is not a multiple of {rule['of']}"
    return None


@kind("self_overlap")
def _self_overlap(rule: Rule, ctx: Context) -> str | None:
    """Two of the runs an operand writes share a byte (its footprint says how: Grid.self_overlaps)."""
    for label, tensor, runs in ctx.entries(rule["operand"]):
        if runs is not None and hasattr(runs, "self_overlaps") and runs.self_overlaps():
            return f"rows of {label} overlap one another: some bytes are written more than once"
    return None


@kind("mask_words")
def _mask_words(rule: Rule, ctx: Context) -> str | None:
    """A bitwise mask (a list of words): word k inside words[k]; with `nonzero`, not every word 0."""
    words = ctx.call.args[rule["param"]]
    if len(words) != len(rule["words"]):
        return f"{rule['param']} has {len(words)} words; it must have {len(rule['words'])}"
    for k, (value, (lo, hi)) in enumerate(zip(words, rule["words"])):
        if not lo <= value <= hi:
            return f"{rule['param']}[{k}] = {value} is outside [{lo}, {hi}]"
    if rule.get("nonzero") and not any(words):
        return f"{rule['param']} selects no element (every word is 0)"
    return None


@kind("iteration_overlap")
def _iteration_overlap(rule: Rule, ctx: Context) -> str | None:
    """Run r of an operand is what its iteration r touches (repeat-style instructions). Broken when an
    iteration r of `a` and an iteration r' of `b` with r' - r inside `lag` share a byte; with
    `allow: identical`, same-iteration overlap is allowed where every entry of a and b coincide."""
    a, b = rule["operands"]
    lo, hi = rule.get("lag", [0, 0])
    ea, eb = ctx.entries(a), ctx.entries(b)
    for scope in {t.scope for _, t, _ in ea} & {t.scope for _, t, _ in eb}:
        pa = [(i, (t.addr, r)) for i, (_, t, r) in enumerate(ea) if t.scope == scope]
        pb = [(j, (t.addr, r)) for j, (_, t, r) in enumerate(eb) if t.scope == scope]
        hits = iteration_hits([x for _, x in pa], [x for _, x in pb], (lo, hi), distinct=a == b)
        if not hits.any():
            continue
        if rule.get("allow") == "identical" and len(pa) == len(ea) and len(pb) == len(eb):
            same = iterations_identical([x for _, x in pa], [x for _, x in pb])
            hits = hits & ~same[:hits.shape[0], None, None] if same.size else hits
        found = np.argwhere(hits)
        if found.size:
            r, i, j = (int(v) for v in found[0])
            what = {(0, 0): "in the same iteration", (1, 1): "in the next iteration"}.get(
                (lo, hi), f"{lo}{'+' if hi is None else f'..{hi}'} iterations later")
            extra = " (not entry for entry identical)" if rule.get("allow") == "identical" else ""
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
    if spec.forms and call.form not in spec.forms:
        raise CallFormatError(f"call.form: {call.form!r} is not a form of {spec.api} ({', '.join(spec.forms)})")
    if not spec.forms and call.form is not None:
        raise CallFormatError(f"call.form: {spec.api} has a single form; form must be null, got {call.form!r}")
    expected_args = spec.argument_names(call.form)
    if expected_args != call.args.keys():
        for name in sorted(expected_args - set(call.args)):
            raise CallFormatError(f"call.args: missing argument {name!r} of {spec.api}")
        for name in sorted(set(call.args) - expected_args):
            raise CallFormatError(f"call.args.{name}: {spec.api} has no argument {name!r}")
    params, mappings = spec.form_params(call.form)
    for head, fields in mappings.items():                 # mapping arguments: exact fields
        value = call.args[head]
        if not isinstance(value, Mapping):
            raise CallFormatError(f"call.args.{head}: expected a mapping with fields {', '.join(sorted(fields))}")
        for extra in sorted(set(value) - fields):
            raise CallFormatError(f"call.args.{head}: unknown field {extra!r} (fields: {', '.join(sorted(fields))})")
    for name, kind in params:                              # the index math may then trust the types
        value = call.param(name) if "." in name else call.args[name]
        if not _PARAM_TYPES[kind](value):
            raise CallFormatError(f"call.args.{name}: expected {_PARAM_TYPE_NAMES[kind]}, got {value!r}")
    for name in spec.operands:
        tensors = call.tensors(name) if spec.is_list(name) else [call.tensor(name)]
        for i, tensor in enumerate(tensors):
            if tensor.dtype not in rulebook.dtypes:
                where = f"{name}[{i}]" if spec.is_list(name) else name
                raise CallFormatError(f"call.args.{where}.dtype: unknown dtype {tensor.dtype!r}")
    return Context(call, spec, rulebook, product, memory)


def check(call: Call, memory: Mapping[str, np.ndarray] | None = None,
          rulebook: Rulebook | None = None) -> list[Violation]:
    """Every rule (and ambiguity region) of the call's spec that the call breaks or falls into."""
    return violations(context(call, memory, rulebook))


def violations(ctx: Context) -> list[Violation]:
    call = ctx.call
    concerned = [amb for amb in ctx.spec.ambiguities
                 if any(ctx.rulebook.matches(r, call, ctx.spec) for r in amb.regions)
                 and (not amb.checks or any(KINDS[c.kind](c, ctx) for c in amb.checks))]
    overridden = {rule_id for amb in concerned for rule_id in amb.overrides}   # the reading judges these
    out = []
    for rule in ctx.spec.rules:
        if rule.id not in overridden and ctx.rulebook.matches(rule.when, call, ctx.spec):
            message = KINDS[rule.kind](rule, ctx)
            if message:
                out.append(Violation(rule.id, rule.severity, message))
    for amb in concerned:          # undeclared: undefined; declared: its reading's legality
        if amb.legality != "legal":
            reading = f" (reading {amb.declared.id})" if amb.declared else ""
            out.append(Violation(amb.id, amb.legality, f"ambiguous{reading}: {amb.question.strip()}"))
    return out


def verdict_class(violations: list[Violation]) -> str:
    """'reject' if any reject rule is broken, else 'undefined' if any undefined one, else 'legal'."""
    severities = {v.severity for v in violations}
    return "reject" if "reject" in severities else ("undefined" if severities else "legal")


__all__ = ["Violation", "Context", "KINDS", "check", "context", "violations", "verdict_class"]
