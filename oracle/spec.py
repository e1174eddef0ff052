"""Loading the rulebook: the YAML specs, validated against `specs/schema.yaml` before anything reads them.

Specs are data (DESIGN.md). This module only parses and validates them and answers the questions every
other module asks of them (which rules apply to a call, what unit a parameter has on a path, how big a
scope is on a product); it encodes no range, unit or path itself.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Mapping

import jsonschema
import yaml

from .call import Call, Tensor

_HERE = Path(__file__).resolve().parent
# Installed: the specs are package data under oracle/specs. From a source checkout: ../specs.
DEFAULT_SPEC_DIR = next((p for p in (_HERE / "specs", _HERE.parent / "specs") if (p / "schema.yaml").is_file()),
                        _HERE / "specs")


class SpecError(ValueError):
    """A spec file is malformed. The message names the file, the path inside it and the problem."""


# What a rule's `inferred` may name: the rule itself (no sentence states it), its severity (the sentence
# is on the page, refuse-or-undefined is not), or its extent (stated for fewer forms / dtypes than `when`).
INFERRED_ASPECTS = ("rule", "severity", "extent")
LEGALITIES = ("legal", "reject", "undefined")


class Inferred(dict):
    """aspect -> why the kit takes it. A dict (JSON-ready); as text, "severity: why; extent: why"."""

    def __str__(self) -> str:
        return "; ".join(f"{aspect}: {' '.join(why.split())}" for aspect, why in self.items())

    @property
    def aspects(self) -> tuple[str, ...]:
        return tuple(a for a in INFERRED_ASPECTS if a in self)


@dataclass(frozen=True)
class Rule:
    """One checkable sentence of a page: id, kind (what the checker evaluates), severity, quote.
    `inferred` says what of it the page does not state (empty: all of it is stated)."""

    id: str
    kind: str
    severity: str
    quote: str
    page: str
    inferred: Inferred = field(default_factory=Inferred)
    when: Mapping[str, Any] | None = None
    fields: Mapping[str, Any] = field(default_factory=dict)
    note: str | None = None

    def __getitem__(self, key: str) -> Any:
        return self.fields[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.fields.get(key, default)


@dataclass(frozen=True)
class Source:
    """Where a reading comes from: a seed page and its exact text, or other vendor material and what it says."""

    page: str | None = None
    quote: str | None = None
    material: str | None = None
    says: str | None = None

    def __str__(self) -> str:
        return f"{self.page}: 「{self.quote}」" if self.page else f"{self.material}: {self.says}"


@dataclass(frozen=True)
class Reading:
    """One way to read an ambiguity, as data: what every call of its region is under it (`legality`), and
    for a legal region whose bytes move otherwise than the API's default index math, the `variant` by name."""

    id: str
    sentence: str
    sources: tuple[Source, ...]
    legality: str                       # legal | reject | undefined
    variant: str | None = None


@dataclass(frozen=True)
class Ambiguity:
    """A place where the page can be read two ways. Undeclared, the kit judges no reading (the region is
    `undefined`, and no cell generates a call there); a backend declares the reading it follows by id."""

    id: str
    question: str
    quote: str
    readings: tuple[Reading, ...]
    region: Mapping[str, Any]
    page: str
    used: int | None = None
    checks: tuple[Rule, ...] = ()       # rule-shaped tests; the region holds the calls one of them flags
    overrides: tuple[str, ...] = ()     # rules whose verdict the reading takes over inside the region
    declared: Reading | None = None     # the reading a backend follows (Rulebook.with_readings); None: none

    @property
    def legality(self) -> str:
        """What a call of the region is: the declared reading's legality, `undefined` while none is."""
        return self.declared.legality if self.declared else "undefined"

    @property
    def regions(self) -> tuple[Mapping[str, Any], ...]:
        """`region` as a tuple of `when` mappings: a call is concerned if it matches any of them."""
        return tuple(self.region) if isinstance(self.region, (list, tuple)) else (self.region,)

    def reading(self, reading_id: str) -> Reading:
        for r in self.readings:
            if r.id == reading_id:
                return r
        raise ValueError(f"ambiguity {self.id} has no reading {reading_id!r} "
                         f"(readings: {', '.join(r.id for r in self.readings)})")


@dataclass(frozen=True)
class Product:
    id: str
    names: tuple[str, ...]
    block_bytes: int
    scope_bytes: Mapping[str, int | None]   # UB / L1 sizes; GM is unbounded (None)
    figures: Mapping[str, Mapping[str, Any]]

    def capacity(self, scope: str) -> int | None:
        return self.scope_bytes.get(scope)

    def has_scope(self, scope: str) -> bool:
        return scope == "GM" or bool(self.scope_bytes.get(scope))


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
        return cache[form]

    def param_type(self, name: str, form: str | None) -> str:
        """int | bool | words: a parameter's `type`, or its type in this form (`forms: {form: type}`)."""
        forms = self.params[name].get("forms")
        if isinstance(forms, Mapping) and forms.get(form):
            return forms[form]
        return self.params[name].get("type", "int")

    def is_list(self, operand: str) -> bool:
        return "entries" in self.operands[operand]

    def rule(self, rule_id: str) -> Rule:
        for rule in self.rules:
            if rule.id == rule_id:
                return rule
        raise KeyError(f"{self.api} has no rule {rule_id!r}")

    def rules_of(self, kind: str) -> list[Rule]:
        return [r for r in self.rules if r.kind == kind]

    @functools.cached_property
    def path_operands(self) -> tuple[str, str] | None:
        """(from, to) operand names of the API's path rule, if it has one."""
        rules = self.rules_of("path")
        return (rules[0]["from"], rules[0]["to"]) if rules else None

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
        return cache[form]

    def forms_or_default(self) -> tuple[str | None, ...]:
        return self.forms or (None,)


@dataclass
class Rulebook:
    """Everything the specs say: products, dtypes and one ApiSpec per API."""

    products: Mapping[str, Product]
    dtypes: Mapping[str, int]                 # canonical name -> bytes
    aliases: Mapping[str, str]                # page spelling -> canonical name
    apis: Mapping[str, ApiSpec]
    directory: Path
    files: Mapping[str, str]                  # file name -> text, for hashing and bundling

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
        cache = self.__dict__.setdefault("_with_readings", {})
        if key in cache:
            return cache[key]
        chosen = self.readings(declared)
        if not chosen:
            return self
        from .apis import index_math          # the index math sits above the specs; asked only here
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
        for name, (lo, hi) in when.get("params", {}).items():
            head, _, field_name = name.partition(".")
            value = call.args.get(head)           # a bool parameter matches as 0 / 1
            if field_name:
                value = value.get(field_name) if isinstance(value, Mapping) else None
            if not isinstance(value, int) or not lo <= value <= hi:
                return False
        return True

    def align_bytes(self, rule: Rule, product: Product) -> int:
        value = rule["bytes"]
        return product.block_bytes if value == "block_bytes" else int(value)

    def alignment(self, spec: ApiSpec, call: Call, operand: str, scope: str) -> int:
        """The alignment every applicable `align` rule asks of `operand` in `scope`, with the element size."""
        tensor = call.args.get(operand)
        if isinstance(tensor, (list, tuple)) and tensor:
            tensor = tensor[0]
        itemsize = self.itemsize(tensor.dtype) if isinstance(tensor, Tensor) else 1
        product = self.products.get(call.product)
        need = itemsize
        for rule in spec.rules_of("align"):
            if rule["operand"] == operand and rule["scope"] == scope and product and self.matches(rule.when, call, spec):
                need = math.lcm(need, self.align_bytes(rule, product))
        return need


# ---------------------------------------------------------------------------------------------
# loading and validation

def _read_yaml(path: Path) -> tuple[Any, str]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SpecError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        return yaml.safe_load(text), text
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark else ""
        raise SpecError(f"{path}:{where} not valid YAML: {getattr(exc, 'problem', exc)}") from None


def _where(path: Iterable[Any]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _validate(data: Any, schema: Mapping[str, Any], path: Path) -> None:
    validator = jsonschema.Draft202012Validator(schema)
    # Deepest first: a wrong value inside a rule (kind: ranges) also leaves the rule's other fields
    # "unevaluated" one level up; the deeper error names the cause, the others follow it.
    errors = sorted(validator.iter_errors(data),
                    key=lambda e: (-len(e.absolute_path), list(map(str, e.absolute_path)), e.message))
    if errors:
        shown = "; ".join(f"{_where(e.absolute_path)}: {_short(e.message)}" for e in errors[:3])
        more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
        raise SpecError(f"{path.name}: {shown}{more}")


def _short(message: str, limit: int = 300) -> str:
    """jsonschema quotes the whole offending value; a whole products table is not a readable message."""
    return message if len(message) <= limit else f"{message[:limit // 2]} ... {message[-limit // 2:]}"


def _sub_schema(schema: Mapping[str, Any], name: str) -> dict[str, Any]:
    return {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": f"#/$defs/{name}"}


def _products(data: Any, path: Path, schema: Mapping[str, Any]) -> dict[str, Product]:
    if isinstance(data, Mapping) and isinstance(data.get("products"), Mapping):
        missing = [p for p in schema["$defs"]["product"]["enum"] if p not in data["products"]]
        if missing:
            raise SpecError(f"{path.name}: products: missing product {', '.join(map(repr, missing))}")
    _validate(data, _sub_schema(schema, "products_file"), path)
    out = {}
    for pid, entry in data["products"].items():
        out[pid] = Product(pid, tuple(entry["names"]), entry["block_bytes"]["value"],
                           {s: entry[s]["value"] for s in ("UB", "L1")},
                           {k: v for k, v in entry.items() if isinstance(v, Mapping)})
    return out


def _api(data: Any, path: Path, schema: Mapping[str, Any], dtypes: Mapping[str, int]) -> ApiSpec:
    _validate(data, schema, path)
    api, page = data["api"], data["page"]

    def fail(where: str, problem: str) -> None:
        raise SpecError(f"{path.name}: {where}: {problem}")

    operands, params = data["operands"], data["params"]
    if data["dtype_of"] not in operands:
        fail("dtype_of", f"{data['dtype_of']!r} is not an operand")
    rules, seen = [], set()
    for i, raw in enumerate(data["rules"]):
        rid = raw["id"]
        if not rid.startswith(api + "."):
            fail(f"rules[{i}].id", f"{rid!r} must start with {api + '.'!r}")
        if rid in seen:
            fail(f"rules[{i}].id", f"duplicate rule id {rid!r}")
        seen.add(rid)
        _check_rule_fields(raw, f"rules[{i}]", api, operands, params, dtypes, fail)
        _check_when(raw.get("when"), f"rules[{i}].when", params, fail)
        meta = {"id", "kind", "severity", "quote", "inferred", "when", "source", "note"}
        inferred = raw.get("inferred", {})
        rules.append(Rule(rid, raw["kind"], raw["severity"], raw["quote"], raw.get("source", page),
                          Inferred((a, inferred[a]) for a in INFERRED_ASPECTS if a in inferred), raw.get("when"),
                          {k: v for k, v in raw.items() if k not in meta}, raw.get("note")))
    ambiguities = []
    for i, raw in enumerate(data.get("ambiguities", [])):
        if not raw["id"].startswith(api + ".") or raw["id"] in seen:
            fail(f"ambiguities[{i}].id", f"{raw['id']!r} must start with {api + '.'!r} and be unique")
        seen.add(raw["id"])
        regions = raw["region"] if isinstance(raw["region"], list) else [raw["region"]]
        for j, region in enumerate(regions):
            where = f"ambiguities[{i}].region" + (f"[{j}]" if isinstance(raw["region"], list) else "")
            _check_when(region, where, params, fail)
        used = raw.get("used")
        if used is not None and used >= len(raw["readings"]):
            fail(f"ambiguities[{i}].used", f"there is no reading {used}")
        checks = []
        for j, check in enumerate(raw.get("check", [])):
            _check_rule_fields(check, f"ambiguities[{i}].check[{j}]", api, operands, params, dtypes, fail)
            checks.append(Rule(raw["id"], check["kind"], "undefined", raw["quote"], page,
                               fields={k: v for k, v in check.items() if k != "kind"}))
        for j, rule_id in enumerate(raw.get("overrides", [])):
            if rule_id not in {r.id for r in rules}:
                fail(f"ambiguities[{i}].overrides[{j}]", f"{rule_id!r} is not a rule of {api}")
        ambiguities.append(Ambiguity(raw["id"], raw["question"], raw["quote"],
                                     _readings(raw["readings"], f"ambiguities[{i}].readings", fail),
                                     raw["region"], raw.get("source", page), used, tuple(checks),
                                     tuple(raw.get("overrides", ()))))
    for name, p in data.get("paths", {}).items():
        for unit_param in p["units"]:
            if unit_param not in params:
                fail(f"paths.{name}.units.{unit_param}", f"{unit_param!r} is not a parameter of {api}")
    return ApiSpec(api, data["title"], page, data["signature"], tuple(data.get("forms", ())), data["dtype_of"],
                   operands, params, data.get("paths", {}), tuple(rules), tuple(ambiguities), path.name,
                   data.get("units", {}))


def _readings(raw: list[Mapping[str, Any]], where: str, fail: Any) -> tuple[Reading, ...]:
    """What the schema cannot say: reading ids unique; a variant only where the region is legal."""
    out, seen = [], set()
    for j, r in enumerate(raw):
        if r["id"] in seen:
            fail(f"{where}[{j}].id", f"duplicate reading id {r['id']!r}")
        seen.add(r["id"])
        if r.get("variant") and r["legality"] != "legal":
            fail(f"{where}[{j}].variant", f"a {r['legality']} region moves nothing to model; only a legal one has a variant")
        out.append(Reading(r["id"], r["sentence"], tuple(Source(**s) for s in r["sources"]), r["legality"],
                           r.get("variant")))
    return tuple(out)


def _check_rule_fields(raw: Mapping[str, Any], where: str, api: str, operands: Mapping[str, Any],
                       params: Mapping[str, Any], dtypes: Mapping[str, int], fail: Any) -> None:
    """What the schema cannot say: names that must be operands / parameters / dtypes of this API."""
    for key in ("operand", "from", "to"):
        if key in raw and raw[key] not in operands:
            fail(f"{where}.{key}", f"{raw[key]!r} is not an operand of {api}")
    for j, name in enumerate(raw.get("operands", [])):
        if name not in operands:
            fail(f"{where}.operands[{j}]", f"{name!r} is not an operand of {api}")
    if "param" in raw and raw["param"] not in params:
        fail(f"{where}.param", f"{raw['param']!r} is not a parameter of {api}")
    for j, name in enumerate(raw.get("allowed", []) if raw["kind"] == "dtype" else []):
        if name not in dtypes:
            fail(f"{where}.allowed[{j}]", f"unknown dtype {name!r}")
    if raw["kind"] == "range" and raw["min"] > raw["max"]:
        fail(where, f"min {raw['min']} is larger than max {raw['max']}")
    if raw["kind"] == "list_length" and raw.get("operand") in operands and "entries" not in operands[raw["operand"]]:
        fail(f"{where}.operand", f"{raw['operand']!r} is not a list operand (it has no `entries`)")


def _check_when(when: Mapping[str, Any] | None, where: str, params: Mapping[str, Any], fail: Any) -> None:
    for name in (when or {}).get("params", {}):
        if name not in params:
            fail(f"{where}.params.{name}", f"{name!r} is not a parameter")


def load_rulebook(directory: str | Path | None = None) -> Rulebook:
    """Read and validate every spec in `directory` (default: the specs shipped with the kit)."""
    directory = Path(directory) if directory is not None else DEFAULT_SPEC_DIR
    if not (directory / "schema.yaml").is_file():
        raise SpecError(f"{directory}: no schema.yaml here; not a spec folder")
    files: dict[str, str] = {}

    def read(name: str) -> Any:
        data, files[name] = _read_yaml(directory / name)
        return data

    schema = read("schema.yaml")
    dtype_data = read("dtypes.yaml")
    _validate(dtype_data, _sub_schema(schema, "dtypes_file"), directory / "dtypes.yaml")
    dtypes = {name: d["bytes"] for name, d in dtype_data["dtypes"].items()}
    aliases = {alias: name for name, d in dtype_data["dtypes"].items() for alias in d.get("aliases", [])}
    products = _products(read("products.yaml"), directory / "products.yaml", schema)
    apis = {}
    for path in sorted(directory.glob("*.yaml")):
        if path.name in ("schema.yaml", "dtypes.yaml", "products.yaml"):
            continue
        spec = _api(read(path.name), path, schema, dtypes)
        if spec.api in apis:
            raise SpecError(f"{path.name}: api {spec.api!r} is already defined in {apis[spec.api].file}")
        apis[spec.api] = spec
    return Rulebook(products, dtypes, aliases, apis, directory, files)


@functools.lru_cache(maxsize=None)
def default_rulebook() -> Rulebook:
    return load_rulebook()
