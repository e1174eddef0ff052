"""A cell's fast path: "every one of its plainest rules holds", told in a few straight lines per call
instead of one `check` per rule.

`violations` asks each rule's kind for its verdict and message; most calls break nothing, and for them
that is a Python call per rule. A cell's fast path holds, per rule its kind can write lines for, the
rule's own numbers (from the YAML) and the cell's constants (the product's block size, capacities,
allowed paths), and says only one thing: every such rule holds for this call. When it cannot say so (a
rule may be broken, a value is of an unusual type), every rule is asked of its kind, so the kinds alone
word and decide every violation. A kind's lines test its `check`'s passing condition, no wider:
tests/rules/test_check_fast_path.py holds each one to its kind on drawn calls of every cell, broken ones included.
"""
from __future__ import annotations

import functools
from math import gcd
from operator import add, attrgetter
from collections.abc import Callable, Mapping, Sequence
from types import CodeType
from typing import Any, Optional

from .call import Tensor
from .footprint import Runs
from .iterations import lanes_apart
from .kinds import RULE_KINDS, RuleKind
from .kinds.phases import Pass
from .kinds.protocols import Checked, Spec
from .records import Ambiguity, Rule
from .rulebook import Ranges, in_ranges

_SCOPE, _DTYPE, _ADDR, _NUMEL = attrgetter("scope"), attrgetter("dtype"), attrgetter("addr"), attrgetter("numel")
_ABSENT = object()
LISTS_RANK = 8          # the entries of list operands are checked between the kinds below and above it


def _list_operands(rule: Rule, ctx: Checked) -> tuple[str, ...] | None:
    """The operands a per-tensor rule names, when every one is a list operand (None: not such a rule)."""
    names = RULE_KINDS[rule.kind].entry_operands(rule)
    if names is None:
        return None
    return names if all(ctx.spec.is_list(name) for name in names) else None


class Listed:
    """The per-tensor rules of one list operand, asked of all its entries in one loop: what every rule
    allows of a scope or dtype (the intersection), its alignments, capacity limits and bounds (each kind
    adds its part: RuleKind.fast_listed)."""

    __slots__ = ("name", "scopes", "dtypes", "align", "limits", "bounds")

    def __init__(self, name: str):
        self.name = name
        self.scopes: frozenset[str] | None = None
        self.dtypes: frozenset[str] | None = None
        self.align: list[tuple[str, int]] = []
        self.limits: list[Mapping[str, int | None]] = []
        self.bounds = False

    def holds(self, tensors: Sequence[Tensor], runs: Sequence[Any], itemsize: Mapping[str, int]) -> bool:
        """Every entry passes (`each`'s answer), told for all entries at once where they share one scope
        and one dtype of known width (a generated list's entries): a common divisor for the alignments,
        the furthest end for the limits, the shortest entry for bounds where all have one Runs."""
        scopes, dtypes = set(map(_SCOPE, tensors)), set(map(_DTYPE, tensors))
        if len(scopes) != 1 or len(dtypes) != 1 or type(tensors) is not list:
            return self.each(tensors, runs, itemsize)
        (scope,), (dtype,) = scopes, dtypes
        width = itemsize.get(dtype)
        if width is None:
            return self.each(tensors, runs, itemsize)
        if (self.scopes is not None and scope not in self.scopes) or (self.dtypes is not None and dtype not in self.dtypes):
            return False
        addrs = list(map(_ADDR, tensors))
        if any(s == scope and gcd(*addrs) % need for s, need in self.align):
            return False
        numels = list(map(_NUMEL, tensors))
        tops: list[Any] = [limit.get(scope, _ABSENT) for limit in self.limits]
        if _ABSENT in tops:
            return False
        capped = [top for top in tops if top is not None]
        if capped and max(map(add, addrs, map(width.__mul__, numels))) > min(capped):
            return False
        if self.bounds:
            if not (type(runs) is list and len(runs) == len(tensors) and set(map(type, runs)) == {Runs}
                    and runs.count(runs[0]) == len(runs)):
                return self.each(tensors, runs, itemsize)
            begin, end = runs[0].span
            if begin < 0 or end > min(numels) * width:
                return False
        return True

    def each(self, tensors: Sequence[Tensor], runs: Sequence[Any], itemsize: Mapping[str, int]) -> bool:
        """Every entry passes, asked entry by entry."""
        scopes, dtypes, align, limits = self.scopes, self.dtypes, self.align, self.limits
        for t in tensors:
            if (scopes is not None and t.scope not in scopes) or (dtypes is not None and t.dtype not in dtypes):
                return False
            for scope, need in align:
                if t.scope == scope and t.addr % need:
                    return False
            for limit in limits:
                if t.scope not in limit:
                    return False
                top = limit[t.scope]
                if top is not None and t.addr + t.numel * itemsize[t.dtype] > top:
                    return False
        if self.bounds:
            for t, r in zip(tensors, runs):
                if r is not None:
                    begin, end = r.span
                    if begin < 0 or end > t.numel * itemsize[t.dtype]:
                        return False
        return True


class FastPath:
    """The fast path of one cell: per kind, a table of entries (one per operand a rule names); and
    `rest`: the (rule, ranges) whose kinds are still asked when it holds, in plan order.

    `regions`: the parameter ranges of every ambiguity region of the cell, when each region has ranges
    (None when one covers the whole cell; left out: a region whose checks only a broken bounds rule of
    the fast path can flag); `holds` then also says no ambiguity concerns the call (`outside_regions`).
    `refusing`: the fast path of the rules that refuse a call and the regions of the ambiguities that can
    refuse one or set a rule aside alone (itself where those are all), for rules.rejection."""

    __slots__ = ("tables", "listed", "same_lists", "itemsize", "rest", "regions", "outside_regions", "scopes",
                 "dtypes", "guards", "checks", "addressed", "__dict__")

    def __init__(self, tables: dict[str, list[Any]], listed: dict[str, Listed], same_lists: list[list[str]],
                 itemsize: Mapping[str, int], rest: list[tuple[Rule, Ranges | None]],
                 regions: tuple[Ranges, ...] | None = None, scopes: dict[str, str] | None = None,
                 dtypes: dict[str, str] | None = None, guards: tuple[tuple[str, ...] | None, ...] = (),
                 checks: tuple[tuple[Any, ...], ...] = (), addressed: frozenset[str] = frozenset()):
        self.tables = {kind: tuple(entries) for kind, entries in tables.items()}
        self.listed, self.same_lists = tuple(listed.values()), tuple(same_lists)
        self.itemsize, self.rest, self.regions = itemsize, rest, regions
        self.outside_regions = regions is not None      # when `holds`, no ambiguity region holds the call
        # per region: the list operands whose spread alone keeps the region's checks from flagging (None: none)
        self.guards = guards or (None,) * len(regions or ())
        # per region: its ambiguity's checks (none: the region's ranges alone make it hold a call)
        self.checks = checks or ((),) * len(regions or ())
        self.scopes, self.dtypes = scopes or {}, dtypes or {}     # operand -> what every call of the cell has
        self.addressed = addressed          # the operands addressed by offsets in memory (their footprints: Spots)
        self.refusing: FastPath = self

    def holds(self, ctx: Checked) -> bool:
        """Every rule of the fast path holds for ctx's call (False: some may not; ask the kinds). Made on
        first use from the tables into one straight Python function (`source`), each rule's numbers
        written in."""
        holds = _compiled(self)
        setattr(self, "holds", holds)
        return holds(ctx)

    @property
    def source(self) -> str:
        """The Python source of `holds` (what the tables compile to), to read when debugging."""
        return _source(self)[0]

    def _lists_hold(self, args: Mapping[str, Any], ctx: Checked, itemsize: Mapping[str, int]) -> bool:
        """The rules on the list operands hold (every entry of a same_dtype group has one dtype)."""
        for names in self.same_lists:
            if len({t.dtype for name in names for t in args[name]}) > 1:
                return False
        accesses = ctx.accesses if any(listed.bounds for listed in self.listed) else None
        for listed in self.listed:
            runs = accesses[listed.name] if accesses is not None and listed.bounds else ()
            if not listed.holds(args[listed.name], runs, itemsize):
                return False
        return True


class Source:
    """The lines of `holds` being written, and the constants they name: what a kind's `fast_source`
    writes with. `scopes` / `dtypes`: what every call of the cell has (decided while writing)."""

    def __init__(self, fast: FastPath):
        self.fast, self.scopes, self.dtypes, self.itemsize = fast, fast.scopes, fast.dtypes, fast.itemsize
        self.addressed = fast.addressed
        self.consts: dict[str, Any] = {"_itemsize": fast.itemsize, "_lists_hold": fast._lists_hold,
                                       "_in_ranges": in_ranges, "_spread": _spread, "_flags": _flags}
        self.lines = ["def holds(ctx):", "    args = ctx.call.args"]
        self.tensors: dict[str, str] = {}
        self.spans: dict[str, str] = {}         # operand -> the variable holding its runs' span
        self._accesses = False

    def literal(self, value: object) -> str:
        """ints and strings written in; anything else named."""
        if type(value) in (int, str):
            return repr(value)
        name = f"_k{len(self.consts)}"
        self.consts[name] = value
        return name

    def tensor(self, name: str) -> str:
        """The variable holding an operand's tensor (read from args once)."""
        if name not in self.tensors:
            self.tensors[name] = f"t{len(self.tensors)}"
            self.lines.append(f"    {self.tensors[name]} = args[{name!r}]")
        return self.tensors[name]

    def fail_if(self, test: str) -> None:
        self.lines.append(f"    if {test}: return False")

    def nbytes(self, name: str) -> str:
        """A tensor's bytes (its width written in where the cell fixes its dtype)."""
        t = self.tensor(name)
        width = self.itemsize[self.dtypes[name]] if name in self.dtypes else f"_itemsize[{t}.dtype]"
        return f"{t}.numel * {width}"

    def accesses(self) -> str:
        """The variable holding the call's footprints (read once)."""
        if not self._accesses:
            self.lines.append("    accesses = ctx.accesses")
            self._accesses = True
        return "accesses"

    def text(self) -> str:
        return "\n".join(self.lines + ["    return True"]) + "\n"


def _source(fast: FastPath) -> tuple[str, dict[str, Any]]:
    """`holds` as Python source, and the constants it names (sets, limits)."""
    src = Source(fast)
    for ranges, guard, checks in zip(fast.regions or (), fast.guards, fast.checks):    # inside an ambiguity
        spread = f" and not _spread(ctx, {guard!r})" if guard else ""      # region: ask the kinds (but where
        if checks:                                                         # its checks cannot flag, or do not)
            spread += f" and _flags(ctx, {src.literal(checks)})"
        if all(not field and type(lo) is int and type(hi) is int for _, field, lo, hi in ranges):
            src.fail_if("(" + (" and ".join(f"isinstance(v := args.get({head!r}), int) and {lo} <= v <= {hi}"
                                            for head, _, lo, hi in ranges) or "True") + ")" + spread)
        else:
            src.fail_if(f"_in_ranges({src.literal(ranges)}, args){spread}")
    kinds = sorted((RULE_KINDS[name] for name in fast.tables), key=_rank)
    for kind in (k for k in kinds if _rank(k) < LISTS_RANK):
        kind.fast_source(list(fast.tables[kind.name]), src)
    if fast.listed or fast.same_lists:
        src.fail_if("not _lists_hold(args, ctx, _itemsize)")
    for kind in (k for k in kinds if _rank(k) > LISTS_RANK):
        kind.fast_source(list(fast.tables[kind.name]), src)
    return src.text(), src.consts


def _rank(kind: RuleKind) -> int:
    """Where a kind with a fast path writes its lines (the tables hold no other kind)."""
    return LISTS_RANK if kind.fast_rank is None else kind.fast_rank


def _compiled(fast: FastPath) -> Callable[[Checked], bool]:
    """`holds` of the fast path, compiled from its source."""
    source, namespace = _source(fast)
    exec(_code(source), namespace)
    holds: Callable[[Checked], bool] = namespace["holds"]
    return holds


@functools.lru_cache(maxsize=None)
def _code(source: str) -> CodeType:
    """The code of a fast path's source. Those of different cells often have the same source (the same
    numbers written in, the rest named): a product's run compiles far fewer sources than fast paths."""
    return compile(source, "<fast path>", "exec")


def build(rules: list[tuple[Rule, Ranges | None]], ambiguities: list[tuple[Ambiguity, list[Ranges | None]]],
          ctx: Checked, cell: tuple[str, str | None, str | None, tuple[str, str] | None]) -> FastPath | None:
    """The fast path of the cell of ctx's call, from its plan's (rule, ranges) and (ambiguity, regions'
    ranges) and the cell itself (context.cell_plan's key: product, form, dtype, path); None when no
    rule's kind has one."""
    made = _tables(rules, ctx)
    if len(made[3]) == len(rules):
        return None
    # the scopes of the path's two operands and the dtype of the operand that names the dtype (of a plain
    # operand: a list's is its first entry's): part of the cell, so the same for every call of it
    spec, (_, _, dtype, path) = ctx.spec, cell
    ends = spec.path_operands
    scopes = dict(zip(ends, path)) if ends is not None and path is not None else {}
    dtypes = {spec.dtype_of: dtype} if dtype is not None and dtype in ctx.rulebook.dtypes \
        and not spec.is_list(spec.dtype_of) else {}
    addressed = frozenset(spec.addressing.values())

    def path_of(made: Made, kept: list[tuple[Ambiguity, Ranges | None]]) -> FastPath:
        tables, listed, same_lists, rest = made
        regions = [ranges for _, ranges in kept]
        ranged = [ranges for ranges in regions if ranges is not None]
        return FastPath(tables, listed, same_lists, ctx.rulebook.dtypes, rest,
                        None if len(ranged) < len(regions) else tuple(ranged), scopes, dtypes,
                        tuple(_self_lists(amb, spec) for amb, _ in kept), tuple(tuple(amb.checks) for amb, _ in kept),
                        addressed)
    kept = _kept(made, rules, ambiguities)
    fast = path_of(made, kept)
    # a backend refusing calls asks only the rules that refuse a call and the regions of ambiguities that
    # refuse one or set a rule aside (rules.rejection): its fast path leaves the others' lines out
    refusing_made = made
    if any(rule.severity != "reject" for rule, _ in rules):
        refusing_made = _tables([(rule, ranges) for rule, ranges in rules if rule.severity == "reject"], ctx)
    refusing = [(amb, ranges) for amb, ranges in _kept(refusing_made, rules, ambiguities)
                if amb.legality == "reject" or amb.overrides]
    fast.refusing = fast if refusing_made is made and len(refusing) == len(kept) else path_of(refusing_made, refusing)
    return fast


Made = tuple[dict[str, list[Any]], dict[str, Listed], list[list[str]], list[tuple[Rule, Optional[Ranges]]]]


def _tables(rules: list[tuple[Rule, Ranges | None]], ctx: Checked) -> Made:
    """The fast path's tables of `rules` (per kind, its entries), its list operands' checks, their groups of
    one dtype, and the (rule, ranges) left to their kinds."""
    tables: dict[str, list[Any]] = {}
    listed: dict[str, Listed] = {}
    same_lists: list[list[str]] = []
    rest: list[tuple[Rule, Ranges | None]] = []
    for rule, ranges in rules:
        kind = RULE_KINDS[rule.kind]
        names = _list_operands(rule, ctx)
        if names is not None:
            kind.fast_listed(rule, ctx, names, lambda name: listed.setdefault(name, Listed(name)), same_lists)
            continue
        made = kind.fast_entries(rule, ctx) if kind.fast_rank is not None else None
        if made is None:
            rest.append((rule, ranges))
        elif not isinstance(made, Pass):
            tables.setdefault(rule.kind, []).extend(made)
    return tables, listed, same_lists, rest


def _kept(made: Made, rules: list[tuple[Rule, Ranges | None]], ambiguities: list[tuple[Ambiguity, list[Ranges | None]]]
          ) -> list[tuple[Ambiguity, Ranges | None]]:
    """(ambiguity, a region's ranges) of the regions the fast path of `made` tests. A region whose checks are
    all checks of operands a bounds rule of that fast path holds (half_by: the whole blocks broken) cannot
    hold a call it passes: left out."""
    tables, listed = made[0], made[1]
    bounded = {name for rule, ranges in rules if ranges is None
               for name in [RULE_KINDS[rule.kind].held_operand(rule)] if name is not None
               if (name in listed and listed[name].bounds) or name in tables.get(rule.kind, ())}
    return [(amb, ranges) for amb, amb_regions in ambiguities
            if not (amb.checks and all(RULE_KINDS[c.kind].held_operand(c) in bounded for c in amb.checks))
            for ranges in amb_regions]


def _flags(ctx: Checked, checks: tuple[Any, ...]) -> bool:
    """Does one of an ambiguity's checks flag the call (what makes a region whose ranges hold it hold it)?"""
    return any(RULE_KINDS[c.kind].check(c, ctx) for c in checks)


def _self_lists(amb: Ambiguity, spec: Spec) -> tuple[str, ...] | None:
    """The list operands of an ambiguity whose checks all test a list operand against its own later
    iterations (vec_trans_scatter.dst.repeat_overlap); None for any other."""
    ops = [op for c in amb.checks for op in [RULE_KINDS[c.kind].later_self(c)]
           if op is not None and spec.is_list(op)]
    return tuple(ops) if amb.checks and len(ops) == len(amb.checks) else None


def _spread(ctx: Checked, names: tuple[str, ...]) -> bool:
    """Can no entry of these list operands meet an entry's later iteration? Told where it is cheap: one
    scope, one Runs for all, entries and step on a grid of the run's length (runs meet whole or not at
    all): entries in one residue class of the step need `count` steps between them. False where that
    does not show it (the kinds are asked)."""
    for name in names:
        tensors, runs = ctx.call.args[name], ctx.accesses[name]
        if not runs or any(r != runs[0] for r in runs) or len({t.scope for t in tensors}) > 1:
            return False
        if runs[0].count > 1 and not lanes_apart([t.addr for t in tensors], runs[0].step, runs[0].count,
                                                  runs[0].length):
            return False
    return True
