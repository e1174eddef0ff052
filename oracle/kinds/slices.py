"""slices: a sentence about the entries of two SliceInfo lists (DataCopy by slices): how many there are, the
inequality and the formula each entry satisfies, the burstLen they share, and the places two readings of the
page part (the `clause` names which). The lists' arithmetic is oracle/slicing.py's.

Drawing: the lists are one argument each (a parameter of type `structs`), drawn here whole, for a legal call or
to break `clause` (or enter an ambiguity's region that a check of this kind names): `draw_lists`.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Callable, Optional

from oracle.records import Rule

from ..slicing import Entry, burst, counts, fields, pieces, places, span, whole_pieces
from .base import RuleKind, require
from .protocols import Checked, Env, ListsRequest, Picks

Lists = dict[str, list[dict[str, int]]]


def _dims(rule: Rule, n: int) -> range:
    """The entries the rule holds for (`dims`: [lo, hi]; every one by default) of a list of n."""
    lo, hi = rule.fields.get("dims", (0, n - 1))
    return range(lo, min(hi, n - 1) + 1)


def _lists(rule: Rule, ctx: Checked) -> list[tuple[str, str, list[Entry]]]:
    """(list name, its operand, its entries as the call's dimValue counts them)."""
    dims = ctx.call.args.get("dimValue")
    out = []
    for name, op in zip(rule.fields["lists"], rule.fields["operands"]):
        entries = fields(ctx.call.args[name])
        out.append((name, op, entries[:dims] if isinstance(dims, int) and dims >= 0 else entries))
    return out


def _entries(rule: Rule, ctx: Checked) -> Iterator[tuple[str, int, Entry, list[Entry]]]:
    for name, _, entries in _lists(rule, ctx):
        for i in _dims(rule, len(entries)):
            yield f"{name}[{i}]", i, entries[i], entries


def _entries_clause(rule: Rule, ctx: Checked) -> Optional[str]:
    dims = ctx.call.args["dimValue"]
    for name in rule.fields["lists"]:
        got = len(fields(ctx.call.args[name]))
        if got != dims:
            return f"{name} has {got} entries; dimValue is {dims}"
    return None


def _order(rule: Rule, ctx: Checked) -> Optional[str]:
    for label, _, e, _ in _entries(rule, ctx):
        if not e["startIndex"] < e["endIndex"] <= e["shapeValue"]:
            return f"{label}: startIndex < endIndex <= shapeValue does not hold ({e['startIndex']}, {e['endIndex']}, {e['shapeValue']})"
    return None


def _formula(rule: Rule, ctx: Checked) -> Optional[str]:
    for label, i, e, entries in _entries(rule, ctx):
        piece = burst(entries, ctx.units) if i == 0 else 1
        if e["burstLen"] > 0 and not whole_pieces(e, piece):
            return (f"{label}: endIndex - startIndex + 1 = {span(e)} is not (N - 1) x {e['stride']} + N x {piece} "
                    "for a whole N >= 1")
    return None


def _index_formula(rule: Rule, ctx: Checked) -> Optional[str]:
    for label, _, e, _ in _entries(rule, ctx):
        if not whole_pieces(e, 1):
            return f"{label}: endIndex - startIndex + 1 = {span(e)} is not (N - 1) x {e['stride']} + N for a whole N >= 1"
    return None


def _burst_positive(rule: Rule, ctx: Checked) -> Optional[str]:
    for label, _, e, _ in _entries(rule, ctx):
        if e["burstLen"] < 1:
            return f"{label}.burstLen is 0"
    return None


def _unit_burst(rule: Rule, ctx: Checked) -> Optional[str]:
    for label, _, e, _ in _entries(rule, ctx):
        if e["burstLen"] != 1:
            return f"{label}.burstLen is {e['burstLen']}; above dimension 0 it must be 1"
    return None


def _same_burst(rule: Rule, ctx: Checked) -> Optional[str]:
    (a, _, dst), (b, _, src) = _lists(rule, ctx)
    for i in range(min(len(dst), len(src))):
        if dst[i]["burstLen"] != src[i]["burstLen"]:
            return f"{a}[{i}].burstLen {dst[i]['burstLen']} differs from {b}[{i}].burstLen {src[i]['burstLen']}"
    return None


def _end_at_shape(rule: Rule, ctx: Checked) -> Optional[str]:
    for label, _, e, _ in _entries(rule, ctx):
        if e["endIndex"] == e["shapeValue"]:
            return f"{label}.endIndex = shapeValue = {e['shapeValue']}"
    return None


def _wide_first_burst(rule: Rule, ctx: Checked) -> Optional[str]:
    if ctx.call.args["dimValue"] < 2:
        return None
    for name, _, entries in _lists(rule, ctx):
        if entries and entries[0]["burstLen"] != 1:
            return f"dimValue > 1 and {name}[0].burstLen is {entries[0]['burstLen']}"
    return None


def _ub_side(rule: Rule, ctx: Checked) -> Iterator[tuple[str, str, list[Entry]]]:
    for name, op, entries in _lists(rule, ctx):
        if ctx.call.args[op].scope == "UB" and entries:
            yield name, op, entries


def _partial_ub_gap(rule: Rule, ctx: Checked) -> Optional[str]:
    block = ctx.units["datablock"]
    for name, _, entries in _ub_side(rule, ctx):
        numbers = counts(entries, ctx.units)
        if numbers[0] > 1 and entries[0]["stride"] * ctx.units["element"] % block:
            return f"{name}[0].stride x sizeof(T) is not a whole number of DataBlocks"
    return None


def _counts_differ(rule: Rule, ctx: Checked) -> Optional[str]:
    (a, _, dst), (b, _, src) = _lists(rule, ctx)
    if not dst or not src:
        return None
    mine, theirs = counts(dst, ctx.units), counts(src, ctx.units)
    for i, (m, t) in enumerate(zip(mine, theirs)):
        if m != t:
            return f"{a}[{i}] selects {m} pieces, {b}[{i}] {t}"
    return None


def _shape_zero(rule: Rule, ctx: Checked) -> Optional[str]:
    for label, _, e, _ in _entries(rule, ctx):
        if e["shapeValue"] == 0:
            return f"{label}.shapeValue is 0"
    return None


def _single_index(rule: Rule, ctx: Checked) -> Optional[str]:
    for label, i, e, _ in _entries(rule, ctx):
        if i > 0 and e["startIndex"] == e["endIndex"]:
            return f"{label} selects one index (startIndex = endIndex = {e['startIndex']})"
    return None


def _unaligned_ub_slice(rule: Rule, ctx: Checked) -> Optional[str]:
    block = ctx.units["datablock"]
    for name, _, entries in _ub_side(rule, ctx):
        numbers = counts(entries, ctx.units)
        at = places(entries, ctx.units, numbers, burst(entries, ctx.units))
        higher = [s for s, n in zip(at.steps[:-1], at.counts[:-1]) if n > 1]
        if at.first % block or any(s % block for s in higher):
            return f"a slice of {name} starts off a 32-byte boundary of UB"
    return None


CLAUSES: dict[str, Callable[[Rule, Checked], Optional[str]]] = {
    "entries": _entries_clause, "order": _order, "formula": _formula, "burst_positive": _burst_positive,
    "unit_burst": _unit_burst, "same_burst": _same_burst, "index_formula": _index_formula,
    "end_at_shape": _end_at_shape, "wide_first_burst": _wide_first_burst, "partial_ub_gap": _partial_ub_gap,
    "counts_differ": _counts_differ, "shape_zero": _shape_zero, "single_index": _single_index,
    "unaligned_ub_slice": _unaligned_ub_slice,
}


class Slices(RuleKind):
    name = "slices"

    def check(self, rule: Rule, ctx: Checked) -> Optional[str]:
        return CLAUSES[rule.fields["clause"]](rule, ctx)

    def validate(self, raw: Mapping[str, Any], operands: Mapping[str, Any], dtypes: Mapping[str, int],
                 params: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
        for j, name in enumerate(raw.get("lists", [])):
            if params.get(name, {}).get("type") != "structs":
                yield f".lists[{j}]", f"{name!r} is not a parameter of type structs"

    def reachable(self, rule: Rule, env: Env) -> Optional[bool]:
        """A sentence about dimensions above 0 needs a length of 2 or more (an ambiguity's region may take
        them all away); None: as the layouts decide."""
        if rule.fields.get("dims", (0, 0))[0] < 1:
            return None
        length, dtypes, paths = env.spec.params[rule["lists"][0]]["entries"], env.legal_dtypes(None), env.paths()
        if not dtypes or not paths:
            return False
        probe = env.probe(None, env.operand_dtypes(dtypes[0]), env.operand_scopes(paths[0]), {})
        return any(hi >= 2 for _, hi in env.domain(length, probe))

    def struct_lists(self, rule: Rule) -> Optional[tuple[tuple[str, ...], tuple[str, ...]]]:
        return tuple(rule.fields["lists"]), tuple(rule.fields["operands"])

    def draw_lists(self, pick: Picks, request: ListsRequest) -> tuple[Lists, int]:
        """The two lists (and dimValue) of a call: legal, or breaking the target's clause where the target is
        a rule (or an ambiguity's check) of this kind."""
        return _ListDraw(pick, request).draw()


class _ListDraw:
    """One draw of the lists: dimension 0 first (burstLen, N slices, per side a start, stride and shape), then
    each higher dimension (an index count shared by both sides, per side a start, stride and shape). A UB
    side keeps its starts, gaps and lower shapes on whole DataBlocks (else the call is in an ambiguity's
    region); the clause then moves one value."""

    def __init__(self, pick: Picks, request: ListsRequest) -> None:
        self.pick, self.req = pick, request
        target = request.target
        self.clause = target.fields["clause"] if target is not None and target.kind == Slices.name else None
        self.per = request.units["datablock"] // request.units["element"]      # elements per DataBlock

    def length(self) -> int:
        req, clause = self.req, self.clause
        if req.forced is not None:
            return req.forced
        intervals = [(lo, hi) for lo, hi in req.domain if hi >= lo]
        if clause in ("wide_first_burst", "single_index", "unit_burst", "index_formula"):
            intervals = [(max(lo, 2), hi) for lo, hi in intervals if hi >= 2]
        if clause in ("burst_positive", "same_burst"):
            intervals = [(lo, lo) for lo, _ in intervals[:1]]
        require(intervals)
        lo, hi = self.pick.choice(intervals, "dimValue.interval")
        how = self.pick.how("dimValue")
        return lo if how == "min" else hi if how == "max" else self.pick.integer(lo, hi, "dimValue")

    def draw(self) -> tuple[Lists, int]:
        pick, per, clause = self.pick, self.per, self.clause
        d = self.length()
        self.small = d > 4                       # many dimensions: each small, so that the call fits
        top = 2 if self.small else 4
        b = pick.integer(2, top, "burstLen") if clause == "wide_first_burst" else (
            1 if d > 1 and pick.boolean("burstLen.one") else pick.integer(1, top, "burstLen"))
        n0 = pick.integer(2 if clause == "partial_ub_gap" else 1, top, "slices")
        counts = [n0] + [1 if clause == "single_index" and i == 1 else pick.integer(2, 2 if self.small else 3,
                                                                                      f"indices.{i}")
                         for i in range(1, d)]
        sides = {name: self._side(name, d, b, counts) for name in self.req.lists}
        if clause is not None:
            self._break(sides, d, b, counts)
            self.req.tags.append(f"slices={clause}")
        for name, entries in sides.items():
            require(not entries or _elements(entries) * self.req.units["element"] <= self.req.room[name])
        return sides, d

    def _ub(self, name: str) -> bool:
        return self.req.scopes[name] == "UB"

    def _side(self, name: str, d: int, b: int, counts: list[int]) -> list[dict[str, int]]:
        pick, per, ub = self.pick, self.per, self._ub(name)
        if d == 0:
            return []
        unit = per if ub else 1
        stride = unit * pick.integer(0, 3 if ub else 2 * per, f"{name}.stride")
        start = unit * pick.integer(0, 2 if ub else 2 * per, f"{name}.start")
        entries = [self._entry(start, stride, b, counts[0], b * per, pick.integer(1, per, f"{name}.extra"),
                               per if ub and d > 1 else 1)]
        most = 0 if self.small else 1
        for i in range(1, d):
            entries.append(self._entry(pick.integer(0, most, f"{name}.start.{i}"),
                                       pick.integer(0, most, f"{name}.stride.{i}"), 1, counts[i], 1,
                                       pick.integer(1, 1 + most, f"{name}.extra.{i}"), 1))
        return entries

    @staticmethod
    def _entry(start: int, stride: int, burst_len: int, n: int, piece: int, extra: int, round_to: int
               ) -> dict[str, int]:
        end = start + (n - 1) * stride + n * piece - 1
        shape = -(-(end + extra) // round_to) * round_to
        return {"startIndex": start, "endIndex": end, "stride": stride, "burstLen": burst_len, "shapeValue": shape}

    def _break(self, sides: Lists, d: int, b: int, counts: list[int]) -> None:
        """Move one value so that the clause's sentence no longer holds (or its region is entered)."""
        pick, per, clause = self.pick, self.per, self.clause
        names = list(sides)
        name = pick.choice(names, "slices.list")
        entries = sides[name]
        require(entries)
        last = entries[-1]
        ub = [n for n in names if self._ub(n)]
        if clause == "entries":
            if pick.boolean("slices.longer"):
                entries.append({"startIndex": 0, "endIndex": 1, "stride": 0, "burstLen": 1, "shapeValue": 2})
            else:
                entries.pop()
        elif clause == "order":
            require(last["endIndex"] >= 2)
            last["shapeValue"] = pick.integer(1, last["endIndex"] - 1, "slices.shape")
        elif clause == "end_at_shape":
            last["shapeValue"] = last["endIndex"]
        elif clause == "shape_zero":
            last["shapeValue"] = 0
        elif clause == "formula":
            first = entries[0]
            first["endIndex"] += pick.integer(1, b * per + first["stride"] - 1, "slices.past")
            round_to = per if d > 1 and self._ub(name) else 1
            first["shapeValue"] = max(first["shapeValue"], -(-(first["endIndex"] + 1) // round_to) * round_to)
        elif clause == "burst_positive":
            for side in sides.values():
                side[0]["burstLen"] = 0
        elif clause == "unit_burst":
            i = pick.integer(1, d - 1, "slices.dim")
            for side in sides.values():
                side[i]["burstLen"] = pick.integer(2, 3, "slices.burst")
        elif clause == "same_burst":
            other = b + 1 if b == 1 or pick.boolean("slices.up") else b - 1
            e = entries[0]
            e.update(self._entry(e["startIndex"], e["stride"], other, counts[0], other * per, per, 1))
        elif clause == "counts_differ":
            e = entries[0]
            n = counts[0] + 1 if counts[0] == 1 or pick.boolean("slices.up") else counts[0] - 1
            e.update(self._entry(e["startIndex"], e["stride"], b, n, b * per, per, per if d > 1 else 1))
        elif clause == "index_formula":
            i = pick.integer(1, d - 1, "slices.dim")
            e = entries[i]
            e.update(self._entry(e["startIndex"], 1, 1, counts[i], 1, 2, 1))
            e["endIndex"] += 1
            e["shapeValue"] += 1
        elif clause in ("partial_ub_gap", "unaligned_ub_slice"):
            require(ub)
            e = sides[ub[0]][0]
            if clause == "partial_ub_gap":
                e.update(self._entry(e["startIndex"], e["stride"] + pick.integer(1, per - 1, "slices.gap"), b,
                                     counts[0], b * per, per, per if d > 1 else 1))
            else:
                shift = pick.integer(1, per - 1, "slices.shift")
                e.update(self._entry(e["startIndex"] + shift, e["stride"], b, counts[0], b * per, per,
                                     per if d > 1 else 1))


def _elements(entries: list[dict[str, int]]) -> int:
    total = 1
    for e in entries:
        total *= max(e["shapeValue"], e["endIndex"] + 1)
    return total
