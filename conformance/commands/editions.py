"""`specs --editions`: what a newer edition of the vendor's pages says otherwise than the seed pages, rule
by rule: the sentence each edition gives a rule, the ambiguities it settles (and on which reading), the
readings it is a source of, and what it says that changes no rule. APIs with no newer edition are named
as such, so that the listing is complete."""
from __future__ import annotations

from typing import Any, Sequence

from oracle.spec import SEED, ApiSpec, Rulebook

from conformance.commands.options import EXIT_OK


def flat(text: object) -> str:
    """A sentence of the specs on one line (YAML folds long ones)."""
    return " ".join(str(text).split())


def edition_lines(spec: ApiSpec, edition: str) -> list[str]:
    """What `edition` of `spec`'s page says beside the seed page, one entry per rule or ambiguity."""
    out = [f"{spec.api}: the {edition} edition, {spec.editions[edition]['source']}"]
    for rule in spec.rules:
        said = rule.editions.get(edition)
        if said:
            out += [f"  rule {rule.id}",
                    f"    {SEED}: 「{flat(rule.quote)}」" + (f" (read: {flat(rule.quote_reads)})" if rule.quote_reads else ""),
                    f"    {edition}: 「{flat(said['quote'])}」",
                    f"    so: {flat(said['says'])}"]
    for amb in spec.ambiguities:
        settled = amb.settled.get(edition)
        sources = [r.id for r in amb.readings for s in r.sources if s.edition == edition]
        if settled:
            out += [f"  ambiguity {amb.id}: settled on {settled['reading']}",
                    f"    {edition}: 「{flat(settled['quote'])}」"]
            if settled.get("says"):
                out.append(f"    so: {flat(settled['says'])}")
        elif sources:
            out.append(f"  ambiguity {amb.id}: the {edition} edition is a source of {', '.join(sources)} (not settled)")
    for statement in spec.editions[edition].get("statements", ()):
        out += [f"  statement 「{flat(statement['quote'])}」", f"    so: {flat(statement['says'])}"]
    return out


def print_editions(rulebook: Rulebook, apis: Sequence[str] | None = None) -> int:
    newer = [e for e in rulebook.editions if e != SEED]
    print(f"editions: {SEED} (the seed pages, the default), " + ", ".join(newer) if newer else f"editions: {SEED}")
    for name, spec in rulebook.apis.items():
        if apis and name not in apis:
            continue
        print()
        if not spec.editions:
            print(f"{name}: no newer edition recorded (the seed page {spec.page} only)")
        for edition in sorted(spec.editions):
            for line in edition_lines(spec, edition):
                print(line)
    return EXIT_OK


__all__: list[Any] = ["edition_lines", "print_editions"]
