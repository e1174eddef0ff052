"""What the checker knows of one call: its `Context` (operands, units, footprints, made once and shared by
every rule), validated against the shape of its form (`context`), and the plan of its cell: which rules
and ambiguity regions cover it, worked out once per cell."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Callable, Generic, Optional, TypeVar, overload

import numpy as np

from . import fast_path
from .apis import index_math
from .call import Call, CallFormatError, Tensor
from .footprint import Still
from .iterations import Family, family
from .records import Ambiguity, Rule
from .rulebook import Ranges, in_ranges, param_ranges
from .spec import ApiSpec, Product, Rulebook, default_rulebook

T = TypeVar("T")


class _once(Generic[T]):
    """functools.cached_property without the lock it takes on every first access under Python 3.11
    (a context is made per call and never shared between threads)."""

    def __init__(self, fn: Callable[[Any], T]):
        self.fn, self.name, self.__doc__ = fn, fn.__name__, fn.__doc__

    @overload
    def __get__(self, obj: None, owner: Any = None) -> _once[T]: ...
    @overload
    def __get__(self, obj: object, owner: Any = None) -> T: ...

    def __get__(self, obj: Any, owner: Any = None) -> T | _once[T]:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.fn(obj)
        return value


@dataclass
class Context:
    """What a rule may look at: the call, its spec, the product, and (for value rules) memory; `still`:
    no one writes memory while the context is read (its footprints may view memory rather than copy it)."""

    call: Call
    spec: ApiSpec
    rulebook: Rulebook
    product: Product
    memory: Optional[Mapping[str, np.ndarray]] = None
    still: bool = False

    @_once
    def units(self) -> Mapping[str, int]:
        """The spec's units for this call, and `element`: the bytes of one element of its dtype (they
        depend on the call's path and dtype only: worked out once per cell, read-only, shared by its calls)."""
        plan = cell_plan(self)
        units = plan[3]
        if plan[2]:                      # the declared readings' index math, by name in the API's module
            for name in self.variants:
                units = index_math(self.spec.api).VARIANTS[name](units)
        return units

    @_once
    def variants(self) -> tuple[str, ...]:
        """The index-math variants of the declared readings whose region holds the call (by the region's
        `when` alone: a reading with a variant changes what moves, so its region cannot depend on it)."""
        declared = cell_plan(self)[2]
        if not declared:                 # no declared reading with a variant covers the cell: the usual case
            return ()
        args = self.call.args
        return tuple(variant for variant, regions in declared
                     if any(ranges is None or in_ranges(ranges, args) for ranges in regions))

    @_once
    def accesses(self) -> dict[str, Any]:
        """Runs (or Spots) per operand; None for an operand addressed by offsets when memory is not given."""
        memory = self.memory
        if self.still and memory is not None:
            memory = Still(memory)
        made: dict[str, Any] = index_math(self.spec.api).accesses(self.call, self.units, memory)
        return made

    def tensor(self, name: str) -> Tensor:
        return self.call.tensor(name)

    def made(self, name: str) -> Any:
        """A value the context works out once (`accesses`, `units`, ...) where it is made already, else None."""
        return self.__dict__.get(name)

    @_once
    def labelled(self) -> dict[str, list[tuple[str, Tensor]]]:
        """(label, tensor) of each tensor of each operand: one for a plain operand, one per entry of a
        list operand (`dst_list[3]`), so that the per-tensor kinds read the same for both."""
        spec, call, out = self.spec, self.call, {}
        for name in spec.operands:
            tensors = call.tensors(name) if spec.is_list(name) else [call.tensor(name)]
            out[name] = [(spec.label(name, i), t) for i, t in enumerate(tensors)]
        return out

    @_once
    def _entries(self) -> dict[str, list[tuple[str, Tensor, Any]]]:
        accesses, call, spec, out = self.accesses, self.call, self.spec, {}
        for name in spec.operands:         # as `labelled` has them (not made here: most calls never read it)
            if spec.is_list(name):
                out[name] = [(spec.label(name, i), t, r) for i, (t, r) in enumerate(zip(call.tensors(name), accesses[name]))]
            else:
                tensor = call.args[name]
                out[name] = [(spec.label(name, 0), tensor if type(tensor) is Tensor else call.tensor(name), accesses[name])]
        return out

    def entries(self, name: str) -> list[tuple[str, Tensor, Any]]:
        """(label, tensor, runs) of each tensor of an operand (see `labelled`)."""
        return self._entries[name]

    def families(self, name: str) -> dict[str, tuple[list[int], Family]]:
        """Per scope an operand's entries lie in (in order of first appearance), the positions of those
        entries and their runs as one Family: made once per context, as several iteration rules compare
        the same operands."""
        made: dict[str, dict[str, tuple[list[int], Family]]] = self.__dict__.setdefault("_families", {})
        out = made.get(name)
        if out is None:
            pairs, positions = self._pairs(name), dict[str, list[int]]()
            for i, (tensor, _) in enumerate(pairs):
                positions.setdefault(tensor.scope, []).append(i)
            out = made[name] = {scope: (where, family([(pairs[i][0].addr, pairs[i][1]) for i in where]))
                                for scope, where in positions.items()}
        return out

    def _pairs(self, name: str) -> list[tuple[Tensor, Any]]:
        """(tensor, runs) of each tensor of an operand: `entries` less the labels (only messages read them)."""
        known = self.__dict__.get("_entries")
        if known is not None:
            return [(tensor, runs) for _, tensor, runs in known[name]]
        call, runs = self.call, self.accesses[name]
        if self.spec.is_list(name):
            return list(zip(call.tensors(name), runs))
        tensor = call.args[name]
        return [(tensor if type(tensor) is Tensor else call.tensor(name), runs)]

    def nbytes(self, tensor: Tensor) -> int:
        return tensor.numel * self.rulebook.itemsize(tensor.dtype)

    def over(self, memory: Mapping[str, np.ndarray]) -> Context:
        """The same call (its shape checked when this context was made) in a context over `memory`, which no
        one writes while it is read (`still`: a check's own images): what no byte of memory decides
        (MEMORY_FREE) carried over, the footprints left to be made from memory (an operand addressed by
        offsets reads them there)."""
        out = Context(self.call, self.spec, self.rulebook, self.product, memory, True)
        known = self.__dict__
        out.__dict__.update((name, known[name]) for name in MEMORY_FREE if name in known)
        return out


MEMORY_FREE = ("cell_plan", "units", "variants")       # what a Context works out that memory does not change


_PARAM_TYPES = {
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "bool": lambda v: isinstance(v, bool),
    "words": lambda v: isinstance(v, list) and all(isinstance(w, int) and not isinstance(w, bool)
                                                   and 0 <= w < 2**64 for w in v),
}
_PARAM_TYPE_NAMES = {"int": "an integer", "bool": "true or false", "words": "a list of 64-bit words"}


def context(call: Call, memory: Mapping[str, np.ndarray] | None = None,
            rulebook: Rulebook | None = None, still: bool = False) -> Context:
    """Validate the call's shape against its spec (unknown api/product/argument -> CallFormatError).
    `still`: no one writes memory while the context is read (Context.still)."""
    rulebook = rulebook or default_rulebook()
    if not isinstance(call, Call):
        raise CallFormatError(f"expected a Call, got {type(call).__name__}")
    spec, product = rulebook.apis.get(call.api), rulebook.products.get(call.product)
    if spec is None or product is None:
        try:
            spec, product = rulebook.api(call.api), rulebook.product(call.product)
        except ValueError as exc:
            raise CallFormatError(f"call: {exc}") from None
    form, args = call.form, call.args
    shapes = spec.__dict__.get("_call_shapes")                # per form: what its calls must look like
    if shapes is None:
        shapes = spec.__dict__["_call_shapes"] = {}
    shape = shapes.get(form)
    if shape is None:
        if spec.forms and form not in spec.forms:
            raise CallFormatError(f"call.form: {form!r} is not a form of {spec.api} ({', '.join(spec.forms)})")
        if not spec.forms and form is not None:
            raise CallFormatError(f"call.form: {spec.api} has a single form; form must be null, got {form!r}")
        typed, mappings = spec.form_params(form)
        operands = [(name, spec.is_list(name)) for name in spec.operands]
        shape = shapes[form] = (spec.argument_names(form), mappings, [(n, k, "." in n) for n, k in typed],
                                operands, _plainly_valid(typed, mappings, operands))
    expected_args, mappings, params, operands, plainly_valid = shape
    if expected_args != args.keys():
        for name in sorted(expected_args - set(args)):
            raise CallFormatError(f"call.args: missing argument {name!r} of {spec.api}")
        for name in sorted(set(args) - expected_args):
            raise CallFormatError(f"call.args.{name}: {spec.api} has no argument {name!r}")
    if plainly_valid is not None and plainly_valid(args, rulebook.dtypes):
        return Context(call, spec, rulebook, product, memory, still)
    for head, fields in mappings.items() if mappings else ():      # mapping arguments: exact fields
        value = args[head]
        if not isinstance(value, Mapping):
            raise CallFormatError(f"call.args.{head}: expected a mapping with fields {', '.join(sorted(fields))}")
        for extra in sorted(set(value) - fields):
            raise CallFormatError(f"call.args.{head}: unknown field {extra!r} (fields: {', '.join(sorted(fields))})")
    _check_params(call, params, spec)                      # the index math may then trust the types
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
    return Context(call, spec, rulebook, product, memory, still)


def _check_params(call: Call, params: list[tuple[str, str, bool]], spec: ApiSpec) -> None:
    """Each parameter of the form has its type (CallFormatError naming the first that has not)."""
    args = call.args
    for name, kind, dotted in params:
        value = call.param(name) if dotted else args[name]
        if type(value) is int and kind == "int":           # the usual case, at once
            continue
        if kind == "structs":
            _check_structs(name, value, spec.params[name]["fields"])
            continue
        if not _PARAM_TYPES[kind](value):
            raise CallFormatError(f"call.args.{name}: expected {_PARAM_TYPE_NAMES[kind]}, got {value!r}")


def _check_structs(name: str, value: Any, fields: list[str]) -> None:
    """A list of structs (SliceInfo[]): each entry a mapping of exactly `fields`, each a non-negative integer
    (the page's fields are uint32_t)."""
    if not isinstance(value, list):
        raise CallFormatError(f"call.args.{name}: expected a list of mappings with fields {', '.join(fields)}")
    for i, entry in enumerate(value):
        if not isinstance(entry, Mapping) or set(entry) != set(fields):
            raise CallFormatError(f"call.args.{name}[{i}]: expected a mapping with fields {', '.join(fields)}, "
                                  f"got {entry!r}")
        for f in fields:
            v = entry[f]
            if type(v) is not int or not 0 <= v < 2**32:
                raise CallFormatError(f"call.args.{name}[{i}].{f}: expected an integer in [0, 2^32), got {v!r}")


def _plainly_valid(params: list[tuple[str, str]], mappings: Mapping[str, set[str]], operands: list[tuple[str, bool]]
                   ) -> Callable[[Mapping[str, Any], Mapping[str, int]], bool] | None:
    """For a form of int parameters and tensor operands only: one Python function telling at once that a
    call's arguments are all of their types and dtypes known (False: let the loops of `context` find and
    word what is not); None for a form with mappings, other parameters or list operands."""
    if mappings or any(kind != "int" or "." in name for name, kind in params) or any(lst for _, lst in operands):
        return None
    tests = [f"type(args[{name!r}]) is int" for name, _ in params]
    tests += [f"type(t := args[{name!r}]) is Tensor and t.dtype in dtypes" for name, _ in operands]
    namespace: dict[str, Any] = {"Tensor": Tensor}
    exec(compile(f"def plainly_valid(args, dtypes):\n    return {' and '.join(tests) or 'True'}\n",
                 "<call shape>", "exec"), namespace)
    valid: Callable[[Mapping[str, Any], Mapping[str, int]], bool] = namespace["plainly_valid"]
    return valid


CellKey = tuple[str, Optional[str], Optional[str], Optional[tuple[str, str]]]   # product, form, dtype, path
CellPlan = tuple[list[tuple[Rule, Optional[Ranges]]], list[tuple[Ambiguity, list[Optional[Ranges]]]],
                 list[tuple[str, list[Optional[Ranges]]]], Mapping[str, int], Optional[fast_path.FastPath]]


def cell_plan(ctx: Context) -> CellPlan:
    """What the call's cell decides, worked out once per cell (kept on the rulebook, per spec) and looked
    up once per context: (rule, its `when` ranges or None) of each rule and (ambiguity, the ranges of each
    region) of each ambiguity whose products, forms, dtypes and paths cover the call; (variant, regions)
    of those with a declared reading that has an index-math variant; the cell's units; and the fast path of
    its plainest rules (fast_path.py), or None."""
    plan: CellPlan | None = ctx.__dict__.get("cell_plan")
    if plan is not None:
        return plan
    call, spec, rulebook = ctx.call, ctx.spec, ctx.rulebook
    # the cell: (product, form, dtype, path), what the call shares with every call of its cell, and all that
    # its units and the `when` of its rules (but parameter ranges) depend on; the path kept as the scopes
    # of its two operands (what spec.path_of spells "from->to"), read here without spelling it
    args, ends, path = call.args, spec.path_operands, None
    if ends is not None:
        src, dst = args.get(ends[0]), args.get(ends[1])
        if isinstance(src, Tensor) and isinstance(dst, Tensor):
            path = src.scope, dst.scope
    named = args.get(spec.dtype_of)
    dtype = named.dtype if type(named) is Tensor else spec.dtype_of_call(call)
    key: CellKey = call.product, call.form, dtype, path
    plans = rulebook.__dict__.get("_plans")
    if plans is None:
        plans = rulebook.__dict__["_plans"] = {}
    cache = plans.get(spec.api)
    if cache is None or cache[0] is not spec:        # a spec the rulebook does not hold: its own cache
        cache = plans[spec.api] = (spec, {})
    plans_of: dict[CellKey, CellPlan] = cache[1]
    plan = plans_of.get(key)
    matches = rulebook.matches
    if plan is None:
        rules = [(rule, ranges) for rule in spec.rules
                 for shared, ranges in [_split(rule.when)] if matches(shared, call, spec)]
        ambiguities: list[tuple[Ambiguity, list[Ranges | None]]] = []
        for amb in spec.ambiguities:
            regions = [ranges for shared, ranges in map(_split, amb.regions) if matches(shared, call, spec)]
            if regions:
                ambiguities.append((amb, regions))
        declared = [(amb.declared.variant, regions) for amb, regions in ambiguities
                    if amb.declared is not None and amb.declared.variant]
        # units: they depend on the call's path and dtype only
        dtype = key[2]
        units = spec.units(call)
        width = rulebook.itemsize(dtype) if dtype is not None and dtype in rulebook.dtypes else None
        if width is not None:
            units["element"] = width
        for name, unit in list(units.items()):            # {elements: n}: n elements of the call's dtype
            if isinstance(unit, Mapping):
                units[name] = unit["elements"] * (width or 1)
        plan = plans_of[key] = (rules, ambiguities, declared, MappingProxyType(units),
                             fast_path.build(rules, ambiguities, ctx, key))
    ctx.__dict__["cell_plan"] = plan
    if not plan[2]:                          # no declared reading moves bytes otherwise: the cell's units
        ctx.__dict__["units"] = plan[3]
    return plan


def _split(when: Mapping[str, Any] | None) -> tuple[Mapping[str, Any] | None, Ranges | None]:
    """(the part of `when` every call of a cell shares, its parameter ranges as `in_ranges` reads them
    or None)."""
    if not when or "params" not in when:
        return when, None
    return {k: v for k, v in when.items() if k != "params"}, param_ranges(when["params"])
