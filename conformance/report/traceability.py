"""Traceability: for every rule of a spec, how the run exercised it.

A rule is exercised two ways: calls made to break it (its own reject/undefined cell), and legal calls
that sit on its edge (a parameter at its range's min or max, an operand at the top of its scope, a mask
with every bit set...). The generators tag each call with the edges it reaches (`nburst=max`,
`UB=top`); `edge_tags` says which of those tags belong to which rule.
"""
from __future__ import annotations

import fnmatch
import re
from collections import Counter
from typing import Any, Callable, Iterable

from oracle.kinds import kind_of
from oracle.spec import ApiSpec, Rule, Rulebook

from conformance.generate.environment import DEFAULT_GM_WINDOW, environment
from conformance.generate.strategies import reachable

def edge_tags(rule: Rule) -> list[str]:
    """The tag globs that mark a legal call as sitting on `rule`'s edge (its kind's `edge_tags`; a kind
    without them has no edge a legal call can sit on short of breaking it: its own cells exercise it)."""
    return kind_of(rule).edge_tags(rule)


def _claims(globs: list[str]) -> Callable[[str], bool]:
    """tag -> whether one of `globs` matches it: one regex for them all, each tag asked once (a report asks
    every rule about every tag of every cell of its api)."""
    if not globs:
        return lambda tag: False
    match = re.compile("|".join(fnmatch.translate(g) for g in globs)).match
    seen: dict[str, bool] = {}

    def claims(tag: str) -> bool:
        hit = seen.get(tag)
        if hit is None:
            hit = seen[tag] = match(tag) is not None
        return hit
    return claims


def _edge_counts(rule: Rule, cells: list[dict[str, Any]], claims: Callable[[str], bool]) -> tuple[int, int]:
    """(edges reachable, edges reached) of a rule over the cells' sweeps (conformance/generate/edges.py): the
    edges of its own cell, and those of legal cells its globs claim; one per (cell, edge)."""
    reachable = reached = 0
    for c in cells:
        edges = c.get("edges") or {}
        own = c["cell"]["rule"] == rule.id
        if not edges or not (own or c["cell"]["kind"] == "legal"):
            continue
        missed = set(edges.get("missed") or ())
        for tag in edges.get("reachable") or ():
            if own or claims(tag):
                reachable += 1
                reached += tag not in missed
    return reachable, reached


def rule_rows(spec: ApiSpec, cells: Iterable[dict[str, Any]], product: str,
              rulebook: Rulebook) -> list[dict[str, Any]]:
    """One row per rule of `spec` that applies on `product` (only the product rule where the api is not
    on it): the calls that broke it (with their verdicts), the legal calls on its edge (with the edges
    reached), whether a call can break it alone on this product (`breakable`: else it has no cell, e.g.
    an L1 rule where there is no L1), whether the run exercised it at all, and the edges of the rule the
    cells' sweeps could reach and did (`edges_reachable`, `edges_reached`). `rulebook`: the specs `spec`
    is one of, which say what a call can break on the product."""
    env = environment(spec.api, product, rulebook, DEFAULT_GM_WINDOW)
    cells = [c for c in cells if c["cell"]["api"] == spec.api and c["cell"]["product"] == product]
    legal_tags: Counter[str] = Counter()
    for c in cells:
        if c["cell"]["kind"] == "legal":
            legal_tags.update(c.get("tags") or {})
    rows = []
    for rule in spec.rules:
        if not env.supported and not kind_of(rule).by_product:
            continue
        own = [c for c in cells if c["cell"]["rule"] == rule.id]
        verdicts: Counter[str] = Counter()
        for c in own:
            verdicts.update({v: n for v, n in c["counts"].items() if v != "NOT_SUPPORTED"})
        globs = edge_tags(rule)
        claims = _claims(globs)
        edges = {t: n for t, n in sorted(legal_tags.items()) if claims(t)}
        broke = sum(verdicts.values())
        edges_reachable, edges_reached = _edge_counts(rule, cells, claims)
        rows.append({
            "id": rule.id, "kind": rule.kind, "severity": rule.severity, "quote": " ".join(rule.quote.split()),
            "page": rule.page, "inferred": rule.inferred, "broke": broke, "verdicts": dict(verdicts),
            "edge_calls": sum(edges.values()), "edges": edges, "has_edge": bool(globs),
            "edges_reachable": edges_reachable, "edges_reached": edges_reached,
            "failed": any(c.get("failure") and not c.get("waived") for c in own),
            "waived": any(c.get("waived") for c in own),
            "exercised": broke > 0 or sum(edges.values()) > 0, "breakable": reachable(env, rule),
        })
    return rows
