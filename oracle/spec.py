"""Loading the rulebook: the YAML specs, validated against `specs/schema.yaml` before anything reads them
(unless they are byte for byte the specs the kit's own tests validated: `specs/VALIDATED` holds their digest,
and `specs/parsed.json` what they parse to).

Specs are data. This module only parses and validates them into the rulebook's data classes
(oracle/rulebook.py, re-exported here: `from oracle.spec import Rulebook, Rule` keeps working); it encodes
no range, unit or path itself.
"""
from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .kinds import RULE_KINDS, UNBROKEN
from .mask import with_masks
from .rulebook import (INFERRED_ASPECTS, LEGALITIES, SEED, Ambiguity, ApiSpec, Inferred, Product, Reading, Rule,
                       Rulebook, Source, SpecError, specs_digest)

_HERE = Path(__file__).resolve().parent
# Installed: the specs are package data under oracle/specs. From a source checkout: ../specs.
DEFAULT_SPEC_DIR = next((p for p in (_HERE / "specs", _HERE.parent / "specs") if (p / "schema.yaml").is_file()),
                        _HERE / "specs")


# ---------------------------------------------------------------------------------------------
# loading and validation

def _loader() -> type:
    """libyaml's safe loader where PyYAML has it: the same documents, parsed several times faster than PyYAML's own.
    PyYAML is imported only where a spec is parsed (not where parsed.json is read: a cost at every start)."""
    import yaml
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# The digest of the kit's own specs as its tests validated them (tests/rules/test_spec_loading.py). While the
# shipped folder holds those bytes, they are not validated again as every run starts: jsonschema over every
# file is a large part of the time before the first cell runs. A changed byte, or any other folder
# (whatever file it holds), is validated.
VALIDATED_FILE = "VALIDATED"
# What those validated files parse to, as JSON under the digest of their YAML: json reads it far faster than
# libyaml parses the YAML, at the start of every command (and before a run's first cell). Written beside the
# record (record_validated); a folder whose YAML is not byte for byte what it was made from is parsed.
PARSED_FILE = "parsed.json"


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SpecError(f"{path}: cannot read: {exc.strerror or exc}") from None


def _parse_yaml(text: str, path: Path) -> Any:
    import yaml
    try:
        return yaml.load(text, Loader=_loader())
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark else ""
        raise SpecError(f"{path}:{where} not valid YAML: {getattr(exc, 'problem', exc)}") from None


def _where(path: Iterable[Any]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _validate(data: Any, schema: Mapping[str, Any] | None, path: Path) -> None:
    """Raise SpecError naming the file and field where `data` breaks `schema` (None: specs recorded as
    validated, see VALIDATED_FILE)."""
    if schema is None:
        return
    # imported only where something is validated: a cost at every start otherwise
    import jsonschema
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


def _sub_schema(schema: Mapping[str, Any] | None, name: str) -> dict[str, Any] | None:
    if schema is None:
        return None
    return {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": f"#/$defs/{name}"}


def _products(data: Any, path: Path, schema: Mapping[str, Any] | None) -> dict[str, Product]:
    if schema is not None and isinstance(data, Mapping) and isinstance(data.get("products"), Mapping):
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


def _api(data: Any, path: Path, schema: Mapping[str, Any] | None, dtypes: Mapping[str, int],
         masks: Mapping[str, Any]) -> ApiSpec:
    """One API's spec file, validated against `schema`, then checked for what the schema cannot say; the
    mask pages' rules (masks.yaml) added where it declares a mask parameter `general`."""
    _validate(data, schema, path)

    def fail(where: str, problem: str) -> None:
        raise SpecError(f"{path.name}: {where}: {problem}")

    data = with_masks(data, masks, fail)

    if data["dtype_of"] not in data["operands"]:
        fail("dtype_of", f"{data['dtype_of']!r} is not an operand")
    seen: set[str] = set()              # the ids of rules, ambiguities and effects: one namespace per API
    rules = _rules(data, dtypes, seen, fail)
    ambiguities = _ambiguities(data, dtypes, seen, {r.id for r in rules}, fail)
    _check_paths(data, fail)
    _check_structs(data, fail)
    effects = _effects(data, seen, fail)
    return ApiSpec(data["api"], data["title"], data["page"], data["signature"], tuple(data.get("forms", ())),
                   data["dtype_of"], data["operands"], data["params"], data.get("paths", {}), tuple(rules),
                   tuple(ambiguities), path.name, data.get("units", {}), data.get("editions", {}), effects,
                   data.get("cost", 1.0), {n: dict(m["forms"]) for n, m in data.get("masks", {}).items()},
                   dict(map(tuple, masks["modes"]["count"].get("covers", []))) if data.get("masks") else {})


# the fields of a rule that say what it is; every other field is the rule's own (Rule.fields)
_RULE_META = frozenset({"id", "kind", "severity", "quote", "inferred", "when", "source", "note", "quote_reads",
                        "editions"})


def _rules(data: Any, dtypes: Mapping[str, int], seen: set[str], fail: Any) -> list[Rule]:
    """The API's rules, each id its API's and unique, each name in it an operand, parameter or edition of
    the API's; their ids are added to `seen`."""
    api, editions = data["api"], data.get("editions", {})
    rules = []
    for i, raw in enumerate(data["rules"]):
        rid = raw["id"]
        if not rid.startswith(api + "."):
            fail(f"rules[{i}].id", f"{rid!r} must start with {api + '.'!r}")
        if rid in seen:
            fail(f"rules[{i}].id", f"duplicate rule id {rid!r}")
        seen.add(rid)
        _check_rule_fields(raw, f"rules[{i}]", api, data["operands"], data["params"], dtypes, fail)
        _check_when(raw.get("when"), f"rules[{i}].when", data["params"], fail)
        inferred = raw.get("inferred", {})
        _check_editions(raw.get("editions", {}), f"rules[{i}].editions", editions, fail)
        rules.append(Rule(rid, raw["kind"], raw["severity"], raw["quote"], raw.get("source", data["page"]),
                          Inferred((a, inferred[a]) for a in INFERRED_ASPECTS if a in inferred), raw.get("when"),
                          {k: v for k, v in raw.items() if k not in _RULE_META}, raw.get("note"),
                          raw.get("quote_reads"), raw.get("editions", {})))
    return rules


def _check_new_id(where: str, rid: str, api: str, seen: set[str], fail: Any) -> None:
    """An ambiguity's or effect's id: its API's, and no other rule's, ambiguity's or effect's; added to `seen`."""
    if not rid.startswith(api + ".") or rid in seen:
        fail(where, f"{rid!r} must start with {api + '.'!r} and be unique")
    seen.add(rid)


def _ambiguities(data: Any, dtypes: Mapping[str, int], seen: set[str], rule_ids: set[str],
                 fail: Any) -> list[Ambiguity]:
    """The API's ambiguities, each checked (_ambiguity); their ids are added to `seen`."""
    out = []
    for i, raw in enumerate(data.get("ambiguities", [])):
        _check_new_id(f"ambiguities[{i}].id", raw["id"], data["api"], seen, fail)
        out.append(_ambiguity(data, raw, f"ambiguities[{i}]", dtypes, rule_ids, fail))
    return out


def _ambiguity(data: Any, raw: Mapping[str, Any], where: str, dtypes: Mapping[str, int], rule_ids: set[str],
               fail: Any) -> Ambiguity:
    """One ambiguity: its regions and checks name the API's parameters and operands, the reading it uses
    and those it is settled by are its own, the rules it overrides are the API's."""
    api, page, params, editions = data["api"], data["page"], data["params"], data.get("editions", {})
    regions = raw["region"] if isinstance(raw["region"], list) else [raw["region"]]
    for j, region in enumerate(regions):
        at = f"{where}.region" + (f"[{j}]" if isinstance(raw["region"], list) else "")
        _check_when(region, at, params, fail)
    used = raw.get("used")
    if used is not None and used >= len(raw["readings"]):
        fail(f"{where}.used", f"there is no reading {used}")
    checks = []
    for j, check in enumerate(raw.get("check", [])):
        _check_rule_fields(check, f"{where}.check[{j}]", api, data["operands"], params, dtypes, fail)
        checks.append(Rule(raw["id"], check["kind"], "undefined", raw["quote"], page,
                           fields={k: v for k, v in check.items() if k != "kind"}))
    for j, rule_id in enumerate(raw.get("overrides", [])):
        if rule_id not in rule_ids:
            fail(f"{where}.overrides[{j}]", f"{rule_id!r} is not a rule of {api}")
    readings = _readings(raw["readings"], f"{where}.readings", editions, fail)
    settled = raw.get("settled", {})
    _check_editions(settled, f"{where}.settled", editions, fail)
    for name, how in settled.items():
        if how["reading"] not in {r.id for r in readings}:
            fail(f"{where}.settled.{name}.reading", f"{how['reading']!r} is not a reading of {raw['id']}")
    return Ambiguity(raw["id"], raw["question"], raw["quote"], readings, raw["region"], raw.get("source", page),
                     used, tuple(checks), tuple(raw.get("overrides", ())), settled=settled)


def _check_paths(data: Any, fail: Any) -> None:
    """The units of each of the API's paths are parameters of the API."""
    for name, p in data.get("paths", {}).items():
        for unit_param in p["units"]:
            if unit_param not in data["params"]:
                fail(f"paths.{name}.units.{unit_param}", f"{unit_param!r} is not a parameter of {data['api']}")


def _effects(data: Any, seen: set[str], fail: Any) -> tuple[dict[str, Any], ...]:
    """The API's effects, each id its API's and unique, each `when` on its parameters; each with its source
    (the API's page unless it names one)."""
    for i, raw in enumerate(data.get("effects", [])):
        _check_new_id(f"effects[{i}].id", raw["id"], data["api"], seen, fail)
        _check_when(raw.get("when"), f"effects[{i}].when", data["params"], fail)
    return tuple({**raw, "source": raw.get("source", data["page"])} for raw in data.get("effects", []))


def _check_editions(named: Mapping[str, Any], where: str, editions: Mapping[str, Any], fail: Any) -> None:
    """An edition a rule, reading or settlement names is one of the spec's `editions`."""
    for name in named:
        if name not in editions:
            fail(f"{where}.{name}", f"edition {name!r} is not in the spec's editions ({', '.join(editions) or 'none'})")


def _readings(raw: list[Mapping[str, Any]], where: str, editions: Mapping[str, Any], fail: Any) -> tuple[Reading, ...]:
    """What the schema cannot say: reading ids unique; a variant only where the region is legal; an
    edition source names one of the spec's editions."""
    out, seen = [], set()
    for j, r in enumerate(raw):
        if r["id"] in seen:
            fail(f"{where}[{j}].id", f"duplicate reading id {r['id']!r}")
        seen.add(r["id"])
        for k, s in enumerate(r["sources"]):
            if "edition" in s:
                _check_editions({s["edition"]: None}, f"{where}[{j}].sources[{k}]", editions, fail)
        if r.get("variant") and r["legality"] != "legal":
            fail(f"{where}[{j}].variant", f"a {r['legality']} region moves nothing to model; only a legal one has a variant")
        out.append(Reading(r["id"], r["sentence"], tuple(Source(**s) for s in r["sources"]), r["legality"],
                           r.get("variant")))
    return tuple(out)


def _check_structs(data: Any, fail: Any) -> None:
    """A list-of-struct parameter names its fields and the int parameter that holds its length."""
    for name, p in data["params"].items():
        if p.get("type") != "structs":
            continue
        if not p.get("fields"):
            fail(f"params.{name}.fields", "a structs parameter lists its fields")
        length = p.get("entries")
        if length not in data["params"] or data["params"][length].get("type", "int") != "int":
            fail(f"params.{name}.entries", f"{length!r} is not an int parameter of {data['api']}")


def _check_rule_fields(raw: Mapping[str, Any], where: str, api: str, operands: Mapping[str, Any],
                       params: Mapping[str, Any], dtypes: Mapping[str, int], fail: Any) -> None:
    """What the schema cannot say: names that must be operands / parameters / dtypes of this API."""
    for key in ("operand", "from", "to"):
        if key in raw and raw[key] not in operands:
            fail(f"{where}.{key}", f"{raw[key]!r} is not an operand of {api}")
    for j, name in enumerate(raw.get("operands", [])):
        if name not in operands:
            fail(f"{where}.operands[{j}]", f"{name!r} is not an operand of {api}")
    for key in ("param", "of_param"):
        if key in raw and raw[key] not in params:
            fail(f"{where}.{key}", f"{raw[key]!r} is not a parameter of {api}")
    for under, message in RULE_KINDS.get(raw["kind"], UNBROKEN).validate(raw, operands, dtypes, params):
        fail(f"{where}{under}", message)


def _check_when(when: Mapping[str, Any] | None, where: str, params: Mapping[str, Any], fail: Any) -> None:
    for name in (when or {}).get("params", {}):
        if name not in params:
            fail(f"{where}.params.{name}", f"{name!r} is not a parameter")


def load_rulebook(directory: str | Path | None = None, validate: bool | None = None) -> Rulebook:
    """Read and validate every spec in `directory` (default: the specs shipped with the kit). `validate`:
    None validates unless these are the kit's own specs as recorded validated (VALIDATED_FILE); True always."""
    directory = Path(directory) if directory is not None else DEFAULT_SPEC_DIR
    if not (directory / "schema.yaml").is_file():
        raise SpecError(f"{directory}: no schema.yaml here; not a spec folder")
    fixed = ("schema.yaml", "dtypes.yaml", "products.yaml", "masks.yaml")
    names = [*fixed, *(p.name for p in sorted(directory.glob("*.yaml")) if p.name not in fixed)]
    files = {name: _read_text(directory / name) for name in names}
    if validate is None:
        validate = directory != DEFAULT_SPEC_DIR or _recorded(directory) != specs_digest(files)
    parsed = None if validate else _parsed(directory, files)

    def read(name: str) -> Any:
        return parsed[name] if parsed is not None else _parse_yaml(files[name], directory / name)

    checked = read("schema.yaml") if validate else None
    dtype_data = read("dtypes.yaml")
    _validate(dtype_data, _sub_schema(checked, "dtypes_file"), directory / "dtypes.yaml")
    dtypes = {name: d["bytes"] for name, d in dtype_data["dtypes"].items()}
    aliases = {alias: name for name, d in dtype_data["dtypes"].items() for alias in d.get("aliases", [])}
    products = _products(read("products.yaml"), directory / "products.yaml", checked)
    masks = read("masks.yaml")
    _validate(masks, _sub_schema(checked, "masks_file"), directory / "masks.yaml")
    apis: dict[str, ApiSpec] = {}
    for name in names[len(fixed):]:
        spec = _api(read(name), directory / name, checked, dtypes, masks)
        if spec.api in apis:
            raise SpecError(f"{name}: api {spec.api!r} is already defined in {apis[spec.api].file}")
        apis[spec.api] = spec
    return Rulebook(products, dtypes, aliases, apis, directory, files)


def _recorded(directory: Path) -> str | None:
    try:
        return (directory / VALIDATED_FILE).read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None


def _parsed(directory: Path, files: Mapping[str, str]) -> dict[str, Any] | None:
    """{file name: its parsed document} from PARSED_FILE, where that was made from exactly `files`; else None
    (missing, unreadable, made from other bytes: the YAML is parsed)."""
    try:
        record = json.loads((directory / PARSED_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("digest") != specs_digest(files):
        return None
    parsed = record.get("files")
    return parsed if isinstance(parsed, dict) and parsed.keys() == files.keys() else None


def record_validated() -> str:
    """Validate the kit's own specs and record their digest as validated, with what they parse to (after
    editing a spec: `python -c "from oracle.spec import record_validated; record_validated()"`)."""
    rulebook = load_rulebook(DEFAULT_SPEC_DIR, validate=True)
    digest = rulebook.digest
    parsed = {name: _parse_yaml(text, DEFAULT_SPEC_DIR / name) for name, text in rulebook.files.items()}
    (DEFAULT_SPEC_DIR / PARSED_FILE).write_text(json.dumps({"digest": digest, "files": parsed}, ensure_ascii=False)
                                                + "\n", encoding="utf-8")
    (DEFAULT_SPEC_DIR / VALIDATED_FILE).write_text(digest + "\n", encoding="ascii")
    return digest


@functools.lru_cache(maxsize=None)
def default_rulebook() -> Rulebook:
    return load_rulebook()


__all__ = ["DEFAULT_SPEC_DIR", "PARSED_FILE", "VALIDATED_FILE", "load_rulebook", "default_rulebook",
           "record_validated", "specs_digest",
           # the rulebook's data classes, defined in oracle/rulebook.py
           "INFERRED_ASPECTS", "LEGALITIES", "SEED", "Ambiguity", "ApiSpec", "Inferred", "Product", "Reading", "Rule",
           "Rulebook", "Source", "SpecError"]
