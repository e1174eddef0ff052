"""The records of the spec a rule kind reads: a rule, an ambiguity and its readings, a product.

They import nothing of the kit but the call, so the rule kinds (oracle/kinds/) can name them; the
rulebook (oracle/rulebook.py) holds them per API and answers questions across them.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


class SpecError(ValueError):
    """A spec file is malformed. The message names the file, the path inside it and the problem."""


# What a rule's `inferred` may name: the rule itself (no sentence states it), its severity (the sentence
# is on the page, refuse-or-undefined is not), or its extent (stated for fewer forms / dtypes than `when`).
INFERRED_ASPECTS = ("rule", "severity", "extent")
SEED = "seed"           # the edition of the seed pages, every spec's `page`: the default one
LEGALITIES = ("legal", "reject", "undefined")


class Inferred(dict[str, str]):
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
    quote_reads: str | None = None      # how the quote is read where its characters say otherwise
    editions: Mapping[str, Mapping[str, str]] = field(default_factory=dict)   # edition -> {quote, says}

    def __getitem__(self, key: str) -> Any:
        return self.fields[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.fields.get(key, default)


@dataclass(frozen=True)
class Source:
    """Where a reading comes from: a seed page and its exact text, a newer edition of the spec's page and
    its exact text, or other vendor material and what it says."""

    page: str | None = None
    quote: str | None = None
    material: str | None = None
    says: str | None = None
    edition: str | None = None

    def __str__(self) -> str:
        if self.edition:
            return f"the {self.edition} edition: 「{self.quote}」"
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
    settled: Mapping[str, Mapping[str, str]] = field(default_factory=dict)   # edition -> {reading, quote, says}

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
