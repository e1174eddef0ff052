"""The rulebook as data: rules, ambiguities and their readings, products and API specs, and the questions
every other module asks of them (which rules apply to a call, what unit a parameter has on a path, how
big a scope is on a product). It encodes no range, unit or path itself: spec.py reads them from the YAML.
"""
from __future__ import annotations

import functools
import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .call import Call, Tensor
from .kinds import kind_of
from .records import INFERRED_ASPECTS as INFERRED_ASPECTS
from .records import LEGALITIES as LEGALITIES
from .records import SEED as SEED
from .records import Ambiguity as Ambiguity
from .records import Inferred as Inferred
from .records import Product as Product
from .records import Reading as Reading
from .records import Rule as Rule
from .records import Source as Source
from .records import SpecError as SpecError


@dataclass
class ApiSpec:
    api: str
    title: str
    page: str
    signature: str
    forms: tuple[str, ...]
    dtype_of: str
    operands: Mapping[str, Mapping[str, Any]]
    params: Mapping[str, Mapping[str, Any]]
    paths: Mapping[str, Mapping[str, Any]]
    rules: tuple[Rule, ...]
    ambiguities: tuple[Ambiguity, ...]
    file: str
    named_units: Mapping[str, int] = field(default_factory=dict)   # the spec's top-level `units`
    editions: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)   # edition -> {source, statements}
    # what a legal call does as the page states it (id, quote, source, says[, inferred, when]): the index
    # math carries these out (a rounding, a NOP, padding); they refuse nothing
    effects: tuple[Mapping[str, Any], ...] = ()
    cost: float = 1.0           # seconds per verified call relative to data_move (the planner's estimate)
    masks: Mapping[str, Mapping[str, str]] = field(default_factory=dict)   # mask param -> form -> bits | count
    # element bytes -> the most elements a count-mode mask selects (masks.yaml); empty without a mask
    mask_covers: Mapping[int, int] = field(default_factory=dict)

    def form_params(self, form: str | None) -> tuple[list[tuple[str, str]], dict[str, set[str]]]:
        """(name, type) of the parameters a call of this form has, and the fields of each mapping
        argument (intriParams -> {ndNum, ...}); computed once per form."""
        cache = self.__dict__.setdefault("_form_params", {})
        if form not in cache:
            names = [p for p, d in self.params.items() if form in d.get("forms", [form])]
            mappings: dict[str, set[str]] = {}
            for name in names:
                head, _, field_name = name.partition(".")
                if field_name:
                    mappings.setdefault(head, set()).add(field_name)
            cache[form] = ([(n, self.param_type(n, form)) for n in names], mappings)
        made: tuple[list[tuple[str, str]], dict[str, set[str]]] = cache[form]
        return made

    def param_type(self, name: str, form: str | None) -> str:
        """int | bool | words: a parameter's `type`, or its type in this form (`forms: {form: type}`)."""
        forms = self.params[name].get("forms")
        if isinstance(forms, Mapping) and forms.get(form):
            return str(forms[form])
        return str(self.params[name].get("type", "int"))

    def is_list(self, operand: str) -> bool:
        return "entries" in self.operands[operand]

    def label(self, operand: str, i: int) -> str:
        """How a message names tensor i of an operand: `dst_list[3]` for a list operand's entry, the
        operand's name for a plain one (its only tensor)."""
        return f"{operand}[{i}]" if self.is_list(operand) else operand

    def rule(self, rule_id: str) -> Rule:
        for rule in self.rules:
            if rule.id == rule_id:
                return rule
        raise KeyError(f"{self.api} has no rule {rule_id!r}")

    def rules_that(self, hook: str) -> tuple[Rule, ...]:
        """The rules, in spec order, whose kinds answer `hook` (oracle/kinds/phases.py) for themselves:
        those the machinery asks it of (found once per spec)."""
        cache: dict[str, tuple[Rule, ...]] = self.__dict__.setdefault("_rules_that", {})
        found = cache.get(hook)
        if found is None:
            found = cache[hook] = tuple(r for r in self.rules if kind_of(r).provides(hook))
        return found

    def listed_products(self) -> Sequence[str] | None:
        """The products the API's rules list as having it (None: they list none)."""
        return next((p for r in self.rules_that("products") for p in [kind_of(r).products(r)] if p is not None), None)

    def supported_on(self, product: str) -> bool:
        """Do the API's rules allow it on `product`?"""
        return all(product in p for r in self.rules_that("products") for p in [kind_of(r).products(r)]
                   if p is not None)

    @functools.cached_property
    def path_operands(self) -> tuple[str, str] | None:
        """(from, to) operand names of the API's path rule, if it has one."""
        return next((e for r in self.rules_that("path_ends") for e in [kind_of(r).path_ends(r)] if e is not None),
                    None)

    @functools.cached_property
    def addressing(self) -> Mapping[str, str]:
        """Each tensor of offsets (`values: offsets`), in the spec's order, and the operand it addresses (the
        one whose `addressed_by` names it): Scatter's dst, the gathers' src. Empty for the other APIs."""
        return {v: next(op for op, d in self.operands.items() if d.get("addressed_by") == v)
                for v, d in self.operands.items() if d.get("values") == "offsets"}

    def path_of(self, call: Call) -> str | None:
        ends = self.path_operands
        if ends is None:
            return None
        src, dst = (call.args.get(n) for n in ends)
        if isinstance(src, Tensor) and isinstance(dst, Tensor):
            return f"{src.scope}->{dst.scope}"
        return None

    def dtype_of_call(self, call: Call) -> str | None:
        t = call.args.get(self.dtype_of)
        if isinstance(t, (list, tuple)) and t:      # a list operand: its first entry
            t = t[0]
        return t.dtype if isinstance(t, Tensor) else None

    def units(self, call: Call) -> dict[str, int]:
        """Bytes per step of each parameter for this call: the params' own units, then the path table's.

        A path the table does not list (a call the path rule rejects anyway) gets the units every row of
        the table agrees on, so the other rules can still be evaluated on it."""
        units = dict(self.named_units)
        units.update({name: p["unit"] for name, p in self.params.items() if "unit" in p})
        path = self.paths.get(self.path_of(call) or "")
        units.update(path["units"] if path else self._agreed_units)
        return units

    @functools.cached_property
    def _agreed_units(self) -> dict[str, int]:
        rows = [p["units"] for p in self.paths.values()]
        names = set().union(*rows) if rows else set()
        return {n: rows[0][n] for n in names if all(r.get(n) == rows[0].get(n) for r in rows)}

    def argument_names(self, form: str | None) -> frozenset[str]:
        """The arguments a call of this form must have: every operand and the form's parameters."""
        cache = self.__dict__.setdefault("_argument_names", {})
        if form not in cache:
            cache[form] = frozenset(self.operands) | {p.partition(".")[0] for p, d in self.params.items()
                                                      if form in d.get("forms", [form])}
        names: frozenset[str] = cache[form]
        return names

    def forms_or_default(self) -> tuple[str | None, ...]:
        return self.forms or (None,)


def specs_digest(files: Mapping[str, str]) -> str:
    """One digest of a spec folder's files (name -> text): sha256, hex (a results.json's spec_hash is its
    first 16 characters)."""
    h = hashlib.sha256()
    for name in sorted(files):
        h.update(name.encode() + b"\0" + files[name].encode() + b"\0")
    return h.hexdigest()


@dataclass
class Rulebook:
    """Everything the specs say: products, dtypes and one ApiSpec per API."""

    products: Mapping[str, Product]
    dtypes: Mapping[str, int]                 # canonical name -> bytes
    aliases: Mapping[str, str]                # page spelling -> canonical name
    apis: Mapping[str, ApiSpec]
    directory: Path
    files: Mapping[str, str]                  # file name -> text, for hashing and bundling

    @functools.cached_property
    def digest(self) -> str:
        """specs_digest of its spec files."""
        return specs_digest(self.files)

    def api(self, name: str) -> ApiSpec:
        try:
            return self.apis[name]
        except KeyError:
            raise ValueError(f"unknown api {name!r} (known: {', '.join(sorted(self.apis))})") from None

    def product(self, name: str) -> Product:
        try:
            return self.products[name]
        except KeyError:
            raise ValueError(f"unknown product {name!r} (known: {', '.join(self.products)})") from None

    def ambiguity(self, ambiguity_id: str) -> Ambiguity:
        """The ambiguity of that id in any API (ValueError naming the known ones)."""
        for spec in self.apis.values():
            for amb in spec.ambiguities:
                if amb.id == ambiguity_id:
                    return amb
        known = ", ".join(a.id for spec in self.apis.values() for a in spec.ambiguities)
        raise ValueError(f"unknown ambiguity {ambiguity_id!r} (known: {known})")

    @property
    def editions(self) -> tuple[str, ...]:
        """The editions of the pages the specs record: the seed pages, then every newer one by name."""
        return (SEED, *sorted({e for spec in self.apis.values() for e in spec.editions}))

    def edition_pages(self, edition: str) -> dict[str, str]:
        """api -> the page of that edition the spec quotes (an API without one keeps its seed page)."""
        self._known_edition(edition)
        return {name: spec.editions[edition]["source"] if edition in spec.editions else spec.page
                for name, spec in self.apis.items()}

    def settled(self, edition: str) -> dict[str, str]:
        """ambiguity id -> the reading `edition` settles it on (none for the seed pages)."""
        self._known_edition(edition)
        return {a.id: a.settled[edition]["reading"] for spec in self.apis.values() for a in spec.ambiguities
                if edition in a.settled}

    def _known_edition(self, edition: str) -> None:
        if edition not in self.editions:
            raise ValueError(f"unknown edition {edition!r} (known: {', '.join(self.editions)})")

    def readings(self, declared: Mapping[str, str]) -> dict[str, Reading]:
        """ambiguity id -> Reading for a declaration (ambiguity id -> reading id); an unknown ambiguity or
        reading is a ValueError naming it."""
        return {amb: self.ambiguity(amb).reading(rid) for amb, rid in declared.items()}

    def with_readings(self, declared: Mapping[str, str]) -> "Rulebook":
        """This rulebook with the declared readings (ambiguity id -> reading id): `check` and `expected`
        given it judge each declared region by its reading's legality. A reading whose region moves bytes
        by an index-math variant the oracle does not provide is refused (ValueError), never judged by
        the default math."""
        key = frozenset(declared.items())
        cache: dict[frozenset[tuple[str, str]], Rulebook] = self.__dict__.setdefault("_with_readings", {})
        if key in cache:
            return cache[key]
        chosen = self.readings(declared)
        if not chosen:
            return self
        from .apis import index_math  # the index math sits above the specs; asked only here
        apis = {}
        for name, spec in self.apis.items():
            ambiguities = []
            for amb in spec.ambiguities:
                reading = chosen.get(amb.id)
                if reading is not None and reading.variant and reading.variant not in getattr(index_math(name), "VARIANTS", {}):
                    raise ValueError(f"reading {amb.id}={reading.id} needs the index-math variant "
                                     f"{reading.variant!r}, which the oracle does not provide for {name}")
                ambiguities.append(replace(amb, declared=reading) if reading is not None else amb)
            apis[name] = replace(spec, ambiguities=tuple(ambiguities)) if chosen.keys() & {a.id for a in spec.ambiguities} else spec
        cache[key] = replace(self, apis=apis)
        return cache[key]

    def itemsize(self, dtype: str) -> int:
        try:
            return self.dtypes[dtype]
        except KeyError:
            raise ValueError(f"unknown dtype {dtype!r} (known: {', '.join(self.dtypes)})") from None

    def matches(self, when: Mapping[str, Any] | None, call: Call, spec: ApiSpec) -> bool:
        """Does a rule's `when` (or an ambiguity's `region`) cover this call?"""
        if not when:
            return True
        if "products" in when and call.product not in when["products"]:
            return False
        if "forms" in when and call.form not in when["forms"]:
            return False
        if "dtypes" in when and spec.dtype_of_call(call) not in when["dtypes"]:
            return False
        if "paths" in when and spec.path_of(call) not in when["paths"]:
            return False
        return "params" not in when or in_ranges(param_ranges(when["params"]), call.args)

    def alignment(self, spec: ApiSpec, call: Call, operand: str, scope: str) -> int:
        """The alignment every applicable `align` rule asks of `operand` in `scope`, with the element size."""
        tensor = call.args.get(operand)
        if isinstance(tensor, (list, tuple)) and tensor:
            tensor = tensor[0]
        itemsize = self.itemsize(tensor.dtype) if isinstance(tensor, Tensor) else 1
        product = self.products.get(call.product)
        need = itemsize
        if product is None:
            return need
        for rule in spec.rules_that("alignment"):
            asked = kind_of(rule).alignment(rule, operand, scope, product, itemsize)
            if asked is not None and self.matches(rule.when, call, spec):
                need = math.lcm(need, asked)
        return need


Ranges = tuple[tuple[str, str, int, int], ...]      # a `when`'s params: (name, field or "", lo, hi) per param


def param_ranges(params: Mapping[str, Any]) -> Ranges:
    """A `when`'s params ({"name" or "name.field": [lo, hi]}) as (name, field or "", lo, hi) per param."""
    return tuple((head, field_name, lo, hi) for name, (lo, hi) in params.items()
                 for head, _, field_name in [name.partition(".")])


def in_ranges(ranges: Ranges, args: Mapping[str, Any]) -> bool:
    """Every param of `ranges` (param_ranges) lies in its range (a bool parameter matches as 0 / 1)."""
    for head, field_name, lo, hi in ranges:
        value = args.get(head)
        if field_name:
            value = value.get(field_name) if isinstance(value, Mapping) else None
        if not isinstance(value, int) or not lo <= value <= hi:
            return False
    return True
