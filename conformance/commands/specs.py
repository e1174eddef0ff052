"""`ascend-conformance specs`: what the kit holds the pages to. Without --api, one line per rule (its
quote cut short); with --api, every rule whole (quote, how it is read, what is inferred and why, where
it applies, its fields, what a newer edition says) and every ambiguity with its readings and sources;
`--format json` gives the same as data; `--editions` what differs between editions (editions.py)."""
from __future__ import annotations

import json
from typing import Any

from oracle.spec import SEED, Ambiguity, ApiSpec, Reading, Rulebook, default_rulebook

from conformance.commands.editions import flat, print_editions
from conformance.commands.options import Options, EXIT_OK, edition_of, unknown


def cmd_specs(args: Options) -> int:
    rulebook = default_rulebook()
    for api in args.api or ():
        if api not in rulebook.apis:
            raise unknown("api", api, sorted(rulebook.apis))
    if args.editions:
        return print_editions(rulebook, args.api)
    edition = edition_of(args)
    chosen = [spec for spec in rulebook.apis.values() if not args.api or spec.api in args.api]
    if args.format == "json":
        print(json.dumps(specs_data(rulebook, chosen, edition), ensure_ascii=False, indent=1))
        return EXIT_OK
    if edition:
        print(f"the {edition} edition of the pages: its sentence beside each rule it restates; the ambiguities "
              f"it settles are read as it settles them")
    print("products:")
    for p in rulebook.products.values():
        sizes = ", ".join(f"{s} {n // 1024} KB" if n else f"no {s}" for s, n in p.scope_bytes.items())
        print(f"  {p.id:<22} {sizes}; block {p.block_bytes} B   ({' / '.join(p.names)})")
    for spec in chosen:
        lines = whole_spec(spec, edition) if args.api else spec_summary(spec, edition)
        print("\n" + "\n".join(lines))
    return EXIT_OK


def _page(spec: ApiSpec, edition: str | None) -> str:
    return spec.editions[edition]["source"] if edition in spec.editions else spec.page


def spec_summary(spec: ApiSpec, edition: str | None) -> list[str]:
    """One line per rule and reading: what `specs` shows of every API."""
    out = [f"{spec.api}: {spec.title}  [{_page(spec, edition)}]"]
    width = max(len(r.id) for r in spec.rules)
    for r in spec.rules:
        tag = f" (inferred: {', '.join(r.inferred.aspects)})" if r.inferred else ""
        out.append(f"  {r.severity:<9} {r.id:<{width}} {r.kind:<17}{tag}  「{flat(r.quote)[:70]}」")
        if edition in r.editions:
            out.append(f"  {'':<9} {'':<{width}} {edition:<17}  「{flat(r.editions[edition]['quote'])[:70]}」")
    for a in spec.ambiguities:
        out.append(f"  ambiguity {a.id}: {flat(a.question)}")
        out += [_reading_line(a, reading, edition) for reading in a.readings]
    return out


def _reading_line(amb: Ambiguity, reading: Reading, edition: str | None) -> str:
    """'    reading ID (legality[, index math V]): sentence[ <- settled by the E edition]'."""
    variant = f", index math {reading.variant}" if reading.variant else ""
    settled = edition is not None and amb.settled.get(edition, {}).get("reading") == reading.id
    mark = f" <- settled by the {edition} edition" if settled else ""
    return f"    reading {reading.id} ({reading.legality}{variant}): {flat(reading.sentence)}{mark}"


def whole_spec(spec: ApiSpec, edition: str | None) -> list[str]:
    """Every rule and ambiguity of one API, whole: what a backend author needs without the YAML."""
    data = api_data(spec, edition)
    out = [f"{spec.api}: {spec.title}  [{data['page']}]", f"  signature: {spec.signature}"]
    for r in data["rules"]:
        out.append(f"\n  {r['id']}  ({r['severity']}, {r['kind']})")
        out += [f"    {key}: {_shown(r[key])}" for key in r if key not in ("id", "severity", "kind", "inferred", "editions")]
        out += [f"    inferred {aspect}: {flat(why)}" for aspect, why in r.get("inferred", {}).items()]
        out += [f"    {name} edition: 「{flat(said['quote'])}」: {flat(said['says'])}"
                for name, said in r.get("editions", {}).items()]
    for amb, a in zip(spec.ambiguities, data["ambiguities"]):
        out += [f"\n  ambiguity {a['id']}: {flat(a['question'])}", f"    quote: 「{flat(a['quote'])}」",
                f"    region: {_shown(a['region'])}"]
        out += [f"    check: {_shown(c)}" for c in a.get("check", ())]
        for reading in amb.readings:
            out.append(_reading_line(amb, reading, edition))
            out += [f"      source: {flat(s)}" for s in reading.sources]
    return out


def _shown(value: Any) -> str:
    return flat(value) if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def api_data(spec: ApiSpec, edition: str | None) -> dict[str, Any]:
    """One API's spec as plain data (what `--format json` prints)."""
    rules = []
    for r in spec.rules:
        entry: dict[str, Any] = {"id": r.id, "severity": r.severity, "kind": r.kind, **dict(r.fields)}
        if r.when:
            entry["when"] = dict(r.when)
        entry["quote"] = r.quote
        for key, value in (("source", r.page if r.page != spec.page else None), ("quote_reads", r.quote_reads),
                           ("note", r.note)):
            if value:
                entry[key] = value
        if r.inferred:
            entry["inferred"] = dict(r.inferred)
        if r.editions:
            entry["editions"] = {k: dict(v) for k, v in r.editions.items()}
        rules.append(entry)
    ambiguities = [{"id": a.id, "question": a.question, "quote": a.quote, "region": a.region,
                    **({"check": [{"kind": c.kind, **dict(c.fields)} for c in a.checks]} if a.checks else {}),
                    **({"overrides": list(a.overrides)} if a.overrides else {}),
                    **({"settled": {k: dict(v) for k, v in a.settled.items()}} if a.settled else {}),
                    "readings": [{"id": r.id, "sentence": r.sentence, "legality": r.legality,
                                  **({"variant": r.variant} if r.variant else {}),
                                  "sources": [str(s) for s in r.sources]} for r in a.readings]}
                   for a in spec.ambiguities]
    return {"api": spec.api, "title": spec.title, "page": _page(spec, edition), "signature": spec.signature,
            "forms": list(spec.forms), "operands": {k: dict(v) for k, v in spec.operands.items()},
            "params": {k: dict(v) for k, v in spec.params.items()}, "rules": rules, "ambiguities": ambiguities}


def specs_data(rulebook: Rulebook, chosen: list[ApiSpec], edition: str | None) -> dict[str, Any]:
    return {"edition": edition or SEED,
            "products": {p.id: {"names": list(p.names), "block_bytes": p.block_bytes, **dict(p.scope_bytes)}
                         for p in rulebook.products.values()},
            "apis": {spec.api: api_data(spec, edition) for spec in chosen}}
