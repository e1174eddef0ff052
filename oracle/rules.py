"""The legality checker: each rule kind of the spec format, evaluated against a call.

A kind is a small function `(rule, ctx) -> message | None`. It reads every number, list and unit from the
rule (the YAML); what a kind knows is only what *sort* of sentence it encodes ("a parameter lies in a
range", "an operand's address is aligned"). Adding a kind means adding it here and to specs/schema.yaml.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Callable, Mapping, Optional

import numpy as np

from .apis import index_math
from .call import Call, CallFormatError, Tensor
from .footprint import Runs, overlaps
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
        return self.spec.units(self.call)

    @cached_property
    def accesses(self) -> dict[str, Runs]:
        return index_math(self.spec.api).accesses(self.call, self.units)

    def tensor(self, name: str) -> Tensor:
        return self.call.tensor(name)

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


@kind("dtype")
def _dtype(rule: Rule, ctx: Context) -> str | None:
    for name in rule["operands"]:
        dtype = ctx.tensor(name).dtype
        if dtype not in rule["allowed"]:
            return f"{name} has dtype {dtype}, not one of {', '.join(rule['allowed'])}"
    return None


@kind("same_dtype")
def _same_dtype(rule: Rule, ctx: Context) -> str | None:
    dtypes = {name: ctx.tensor(name).dtype for name in rule["operands"]}
    if len(set(dtypes.values())) > 1:
        return "dtypes differ: " + ", ".join(f"{k}={v}" for k, v in dtypes.items())
    return None


@kind("range")
def _range(rule: Rule, ctx: Context) -> str | None:
    value = ctx.call.int_arg(rule["param"])
    if not rule["min"] <= value <= rule["max"]:
        return f"{rule['param']}={value} is outside [{rule['min']}, {rule['max']}]"
    return None


@kind("align")
def _align(rule: Rule, ctx: Context) -> str | None:
    tensor = ctx.tensor(rule["operand"])
    need = ctx.rulebook.align_bytes(rule, ctx.product)
    if tensor.scope == rule["scope"] and tensor.addr % need:
        return f"{rule['operand']} in {tensor.scope} at byte {tensor.addr} is not {need}-byte aligned"
    return None


@kind("bounds")
def _bounds(rule: Rule, ctx: Context) -> str | None:
    name = rule["operand"]
    tensor, runs = ctx.tensor(name), ctx.accesses[name]
    if runs.empty:
        return None
    size = ctx.nbytes(tensor)
    if runs.begin < 0 or runs.end > size:
        return (f"{name} is accessed at bytes [{runs.begin}, {runs.end}) of a tensor of {size} bytes "
                f"({tensor.numel} x {tensor.dtype})")
    return None


@kind("capacity")
def _capacity(rule: Rule, ctx: Context) -> str | None:
    name = rule["operand"]
    tensor = ctx.tensor(name)
    if not ctx.product.has_scope(tensor.scope):
        return f"{ctx.call.product} has no {tensor.scope}"
    cap = ctx.product.capacity(tensor.scope) if tensor.scope != "GM" else None
    end = tensor.addr + ctx.nbytes(tensor)
    if cap is not None and end > cap:
        return f"{name} ends at byte {end} of {tensor.scope}, past its {cap} bytes on {ctx.call.product}"
    return None


@kind("overlap")
def _overlap(rule: Rule, ctx: Context) -> str | None:
    a, b = rule["operands"]
    ta, tb = ctx.tensor(a), ctx.tensor(b)
    if ta.scope == tb.scope and overlaps(ta.addr, ctx.accesses[a], tb.addr, ctx.accesses[b]):
        return f"the bytes {a} and {b} access in {ta.scope} overlap"
    return None


_PARAM_TYPES = {
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "bool": lambda v: isinstance(v, bool),
}
_PARAM_TYPE_NAMES = {"int": "an integer", "bool": "true or false"}


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
    for name in expected_args - spec.operands.keys():     # the index math may then trust the types
        value, kind = call.args[name], spec.params[name].get("type", "int")
        if not _PARAM_TYPES[kind](value):
            raise CallFormatError(f"call.args.{name}: expected {_PARAM_TYPE_NAMES[kind]}, got {value!r}")
    for name in spec.operands:
        tensor = call.tensor(name)
        if tensor.dtype not in rulebook.dtypes:
            raise CallFormatError(f"call.args.{name}.dtype: unknown dtype {tensor.dtype!r}")
    return Context(call, spec, rulebook, product, memory)


def check(call: Call, memory: Mapping[str, np.ndarray] | None = None,
          rulebook: Rulebook | None = None) -> list[Violation]:
    """Every rule (and ambiguity region) of the call's spec that the call breaks or falls into."""
    return violations(context(call, memory, rulebook))


def violations(ctx: Context) -> list[Violation]:
    call = ctx.call
    out = []
    for rule in ctx.spec.rules:
        if ctx.rulebook.matches(rule.when, call, ctx.spec):
            message = KINDS[rule.kind](rule, ctx)
            if message:
                out.append(Violation(rule.id, rule.severity, message))
    for amb in ctx.spec.ambiguities:
        if ctx.rulebook.matches(amb.region, call, ctx.spec):
            out.append(Violation(amb.id, "undefined", f"ambiguous: {amb.question.strip()}"))
    return out


def verdict_class(violations: list[Violation]) -> str:
    """'reject' if any reject rule is broken, else 'undefined' if any undefined one, else 'legal'."""
    severities = {v.severity for v in violations}
    return "reject" if "reject" in severities else ("undefined" if severities else "legal")


__all__ = ["Violation", "Context", "KINDS", "check", "context", "violations", "verdict_class"]
