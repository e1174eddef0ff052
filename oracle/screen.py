"""A cell's quick pass over its plainest rules: "every one of them holds", told in a few loops per call
instead of one kind function per rule.

`violations` asks each rule's kind (kinds.py) for its verdict and message; most calls break nothing, and
for them that is a Python call per rule. A cell's screen holds, per screened rule, the rule's own numbers
(from the YAML) and the cell's constants (the product's block size, capacities, allowed paths), and says
only one thing: every screened rule holds for this call. When it cannot say so (a rule may be broken, a
value is of an unusual type), every rule is asked of its kind, so the kinds alone word and
decide every violation. A screened rule's test here is its kind's passing condition, no wider:
tests/test_check_screen.py holds each one to its kind on drawn calls of every cell, broken ones included.
"""
from __future__ import annotations

import functools
from typing import Any, Callable

from .call import SCOPES
from .rulebook import in_ranges

# kind -> builder(rule, ctx) -> an entry of the screen's table for that kind, _PASS (the rule holds for
# every call of the cell), or None (left to the kind). A builder reads only what every call of the cell
# shares (the rule, the spec, the rulebook, the product); Screen.holds reads the call.
_BUILDERS: dict[str, Callable[[Any, Any], Any]] = {}
_PASS = object()


def _builder(kind: str):
    def register(fn):
        _BUILDERS[kind] = fn
        return fn
    return register


def _plain(rule, ctx, key: str) -> tuple | None:
    """The operands a rule names, when none is a list operand (those are left to the kinds)."""
    names = rule.fields[key]
    names = (names,) if isinstance(names, str) else tuple(names)
    return None if any(ctx.spec.is_list(name) for name in names) else names


@_builder("range")
def _range(rule, ctx):
    name = rule.fields["param"]
    return None if "." in name else [(name, rule.fields["min"], rule.fields["max"])]


@_builder("align")
def _align(rule, ctx):
    names = _plain(rule, ctx, "operand")
    if rule.fields["bytes"] == "element":       # the operand's own width: left to the kind
        return None
    need = ctx.rulebook.align_bytes(rule, ctx.product)
    return names and [(name, rule.fields["scope"], need) for name in names]


def _each_allowed(rule, ctx, key: str) -> list | None:
    """(operand, the values its rule allows) for each plain operand the rule names under `key`."""
    names, allowed = _plain(rule, ctx, key), frozenset(rule.fields["allowed"])
    return names and [(name, allowed) for name in names]


@_builder("dtype")
def _dtype(rule, ctx):
    return _each_allowed(rule, ctx, "operands")


@_builder("same_dtype")
def _same_dtype(rule, ctx):
    names = _plain(rule, ctx, "operands")
    return names and [(names[0], other) for other in names[1:]] or (_PASS if names else None)


@_builder("scope")
def _scope(rule, ctx):
    return _each_allowed(rule, ctx, "operand")


@_builder("product")
def _product(rule, ctx):
    return _PASS if ctx.call.product in rule.fields["products"] else None


@_builder("path")
def _path(rule, ctx):
    allowed = rule.fields["allowed"].get(ctx.call.product)
    if allowed is None:                 # the kind leaves such a product to the product rule
        return _PASS
    return [(rule.fields["from"], rule.fields["to"], frozenset(tuple(path.split("->")) for path in allowed))]


@_builder("capacity")
def _capacity(rule, ctx):
    names = _plain(rule, ctx, "operand")
    return names and [(name, _limits(rule, ctx)) for name in names]


def _limits(rule, ctx) -> dict:
    """Per scope the product has: the highest end a tensor there may have (None: unbounded)."""
    product, reserve = ctx.product, rule.fields.get("reserve", 0)
    limits = {}
    for scope in SCOPES:
        if scope == "GM":
            limits[scope] = None
        elif product.has_scope(scope):
            cap = product.capacity(scope)
            limits[scope] = None if cap is None else cap - reserve
    return limits


@_builder("bounds")
def _bounds(rule, ctx):
    names = _plain(rule, ctx, "operand")
    return names and list(names)


@_builder("overlap")
def _overlap(rule, ctx):
    """Two plain operands: they hold when in different scopes or their spans lie apart (the usual case)."""
    names = _plain(rule, ctx, "operands")
    return names and [names]


_KINDS = tuple(_BUILDERS)


# -- list operands (vec_trans_scatter's dst_list, src_list): the per-tensor kinds, entry by entry -----
_PER_ENTRY = {"scope": "operand", "dtype": "operands", "align": "operand", "capacity": "operand",
              "bounds": "operand", "same_dtype": "operands"}


def _list_operands(rule, ctx) -> tuple | None:
    """The operands a per-tensor rule names, when every one is a list operand (None: not such a rule)."""
    key = _PER_ENTRY.get(rule.kind)
    if key is None:
        return None
    names = rule.fields[key]
    names = (names,) if isinstance(names, str) else tuple(names)
    return names if all(ctx.spec.is_list(name) for name in names) else None


class _Listed:
    """The screened per-tensor rules of one list operand, asked of all its entries in one loop: what
    every rule allows of a scope or dtype (the intersection), its alignments, capacity limits and bounds."""

    __slots__ = ("name", "scopes", "dtypes", "align", "limits", "bounds")

    def __init__(self, name: str):
        self.name, self.scopes, self.dtypes, self.align, self.limits, self.bounds = name, None, None, [], [], False

    def add(self, rule, ctx) -> None:
        kind = rule.kind
        if kind in ("scope", "dtype"):
            allowed = frozenset(rule.fields["allowed"])
            if kind == "scope":
                self.scopes = allowed if self.scopes is None else self.scopes & allowed
            else:
                self.dtypes = allowed if self.dtypes is None else self.dtypes & allowed
        elif kind == "align" and rule.fields["bytes"] == "element":
            self.bounds = True          # not screened entry by entry: a list operand's align by element width
        elif kind == "align":
            self.align.append((rule.fields["scope"], ctx.rulebook.align_bytes(rule, ctx.product)))
        elif kind == "capacity":
            self.limits.append(_limits(rule, ctx))
        else:
            self.bounds = True

    def holds(self, tensors, runs, itemsize) -> bool:
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


class Screen:
    """The screened rules of one cell: per kind, a table of entries (one per operand a rule names); and
    `rest`: the (rule, ranges) whose kinds are still asked when the screen holds, in plan order.

    `regions`: the parameter ranges of every ambiguity region of the cell, when each region has ranges
    (None when one covers the whole cell; left out: a region whose checks only a broken screened bounds
    rule can flag); `holds` then also says no ambiguity concerns the call (`outside_regions`)."""

    __slots__ = ("range", "align", "dtype", "same_dtype", "scope", "path", "capacity", "bounds", "overlap",
                 "listed", "same_lists", "itemsize", "rest", "regions", "outside_regions", "scopes", "dtypes",
                 "guards", "__dict__")

    def __init__(self, tables: dict[str, list], listed: dict[str, _Listed], same_lists: list, itemsize,
                 rest: list, regions: tuple | None = None, scopes: dict | None = None, dtypes: dict | None = None,
                 guards: tuple = ()):
        for kind in _KINDS:
            if kind != "product":
                setattr(self, kind, tuple(tables.get(kind, ())))
        self.listed, self.same_lists = tuple(listed.values()), tuple(same_lists)
        self.itemsize, self.rest, self.regions = itemsize, rest, regions
        self.outside_regions = regions is not None      # when `holds`, no ambiguity region holds the call
        # per region: the list operands whose spread alone keeps the region's checks from flagging (None: none)
        self.guards = guards or (None,) * len(regions or ())
        self.scopes, self.dtypes = scopes or {}, dtypes or {}     # operand -> what every call of the cell has

    def holds(self, ctx) -> bool:
        """Every screened rule holds for ctx's call (False: some may not; ask the kinds). Made on first use
        from the tables into one straight Python function (`source`), each rule's numbers written in."""
        self.holds = holds = _compiled(self)
        return holds(ctx)

    @property
    def source(self) -> str:
        """The Python source of `holds` (what the tables compile to), to read when debugging a screen."""
        return _source(self)[0]

    def _lists_hold(self, args, ctx, itemsize) -> bool:
        """The screened rules of the list operands hold (every entry of a same_dtype group has one dtype)."""
        for names in self.same_lists:
            if len({t.dtype for name in names for t in args[name]}) > 1:
                return False
        accesses = ctx.accesses if any(listed.bounds for listed in self.listed) else None
        for listed in self.listed:
            runs = accesses[listed.name] if listed.bounds else ()
            if not listed.holds(args[listed.name], runs, itemsize):
                return False
        return True


def _source(screen: Screen) -> tuple[str, dict]:
    """`holds` as Python source, in the tables' order, and the constants it names (sets, limits)."""
    consts: dict[str, Any] = {"_itemsize": screen.itemsize, "_lists_hold": screen._lists_hold,
                              "_in_ranges": in_ranges}
    lines = ["def holds(ctx):", "    args = ctx.call.args"]
    tensors: dict[str, str] = {}

    def literal(value) -> str:                      # ints and strings written in; anything else named
        if type(value) in (int, str):
            return repr(value)
        name = f"_k{len(consts)}"
        consts[name] = value
        return name

    def tensor(name: str) -> str:                   # each operand read from args once
        if name not in tensors:
            tensors[name] = f"t{len(tensors)}"
            lines.append(f"    {tensors[name]} = args[{name!r}]")
        return tensors[name]

    def fail_if(test: str) -> None:
        lines.append(f"    if {test}: return False")

    for ranges, guard in zip(screen.regions or (), screen.guards):     # inside an ambiguity region: ask the kinds
        spread = f" and not _spread(ctx, {guard!r})" if guard else ""      # (but where its checks cannot flag)
        consts["_spread"] = _spread
        if all(not field and type(lo) is int and type(hi) is int for _, field, lo, hi in ranges):
            fail_if("(" + (" and ".join(f"isinstance(v := args.get({head!r}), int) and {lo} <= v <= {hi}"
                                        for head, _, lo, hi in ranges) or "True") + ")" + spread)
        else:
            fail_if(f"_in_ranges({literal(ranges)}, args){spread}")
    for name, lo, hi in screen.range:
        lines.append(f"    v = args[{name!r}]")
        fail_if(f"type(v) is not int or not {literal(lo)} <= v <= {literal(hi)}")
    scopes, dtypes = screen.scopes, screen.dtypes   # what every call of the cell has: decided here

    def nbytes(name: str) -> str:                   # a tensor's bytes (its width written in where known)
        t = tensor(name)
        width = screen.itemsize[dtypes[name]] if name in dtypes else f"_itemsize[{t}.dtype]"
        return f"{t}.numel * {width}"

    for name, scope, need in screen.align:
        t = tensor(name)
        if name not in scopes:
            fail_if(f"{t}.scope == {literal(scope)} and {t}.addr % {literal(need)}")
        elif scopes[name] == scope:
            fail_if(f"{t}.addr % {literal(need)}")

    def one_of(name: str, field: str, known: dict, allowed) -> None:     # the dtype and scope kinds
        if name not in known:
            fail_if(f"{tensor(name)}.{field} not in {literal(allowed)}")
        elif known[name] not in allowed:
            fail_if("True")

    for name, allowed in screen.dtype:
        one_of(name, "dtype", dtypes, allowed)
    for a, b in screen.same_dtype:
        fail_if(f"{tensor(a)}.dtype != {tensor(b)}.dtype")
    for name, allowed in screen.scope:
        one_of(name, "scope", scopes, allowed)
    for src, dst, pairs in screen.path:
        if src not in scopes or dst not in scopes:
            fail_if(f"({tensor(src)}.scope, {tensor(dst)}.scope) not in {literal(pairs)}")
        elif (scopes[src], scopes[dst]) not in pairs:
            fail_if("True")
    for name, limits in screen.capacity:
        t = tensor(name)
        if name in scopes:
            if scopes[name] not in limits:
                fail_if("True")
            elif limits[scopes[name]] is not None:
                fail_if(f"{t}.addr + {nbytes(name)} > {literal(limits[scopes[name]])}")
            continue
        lines.append(f"    s = {t}.scope")
        branch = "if"
        for scope, limit in limits.items():
            lines.append(f"    {branch} s == {literal(scope)}:")
            lines.append("        pass" if limit is None else
                         f"        if {t}.addr + {nbytes(name)} > {literal(limit)}: return False")
            branch = "elif"
        lines.append("    else: return False" if limits else "    return False")
    if screen.listed or screen.same_lists:
        fail_if("not _lists_hold(args, ctx, _itemsize)")
    spans: dict[str, str] = {}
    if screen.bounds or screen.overlap:
        lines.append("    accesses = ctx.accesses")
    for name in screen.bounds:
        t, span = tensor(name), spans.setdefault(name, f"span{len(spans)}")
        lines.append(f"    runs = accesses[{name!r}]")
        lines.append(f"    {span} = None if runs is None else runs.span")
        fail_if(f"{span} is not None and ({span}[0] < 0 or {span}[1] > {nbytes(name)})")
    for a, b in screen.overlap:
        ta, tb = tensor(a), tensor(b)
        at = "    "
        if a not in scopes or b not in scopes:
            lines.append(f"    if {ta}.scope == {tb}.scope:")
            at = "        "
        elif scopes[a] != scopes[b]:
            continue
        a_span = spans[a] if a in spans else "ra.span"
        b_span = spans[b] if b in spans else "rb.span"
        lines += [f"{at}ra, rb = accesses[{a!r}], accesses[{b!r}]",
                  f"{at}if ra is not None and rb is not None:",
                  f"{at}    (a_lo, a_hi), (b_lo, b_hi) = {a_span}, {b_span}",
                  f"{at}    if not ({ta}.addr + a_hi <= {tb}.addr + b_lo"
                  f" or {tb}.addr + b_hi <= {ta}.addr + a_lo):",
                  f"{at}        return False"]
    lines.append("    return True")
    return "\n".join(lines) + "\n", consts


def _compiled(screen: Screen):
    """`holds` of the screen, compiled from its source."""
    source, namespace = _source(screen)
    exec(_code(source), namespace)
    return namespace["holds"]


@functools.lru_cache(maxsize=None)
def _code(source: str):
    """The code of a screen's source. Screens of different cells often have the same source (the same
    numbers written in, the rest named): a product's run compiles far fewer sources than screens."""
    return compile(source, "<screen>", "exec")


def build(rules: list, ambiguities: list, ctx, cell: tuple) -> Screen | None:
    """The screen of the cell of ctx's call, from its plan's (rule, ranges) and (ambiguity, regions' ranges)
    and the cell itself (context.cell_plan's key: product, form, dtype, path); None when no rule is
    screened."""
    tables: dict[str, list] = {}
    listed: dict[str, _Listed] = {}
    same_lists, rest = [], []
    for rule, ranges in rules:
        names = _list_operands(rule, ctx)
        if names is not None and rule.kind == "same_dtype":
            same_lists.append(names)
            continue
        if names is not None:
            for name in names:
                listed.setdefault(name, _Listed(name)).add(rule, ctx)
            continue
        builder = _BUILDERS.get(rule.kind)
        made = builder(rule, ctx) if builder is not None else None
        if made is None:
            rest.append((rule, ranges))
        elif made is not _PASS:
            tables.setdefault(rule.kind, []).extend(made)
    if len(rest) == len(rules):
        return None
    # a region whose checks are all bounds checks of operands a screened bounds rule holds (half_by: the
    # whole blocks broken) cannot hold a call the screen passes: left out of `regions`
    bounded = {name for rule, ranges in rules if rule.kind == "bounds" and ranges is None
               for name in [rule.fields["operand"]]
               if (name in listed and listed[name].bounds) or name in tables.get("bounds", ())}
    kept = [(amb, ranges) for amb, amb_regions in ambiguities
            if not (amb.checks and all(c.kind == "bounds" and c.fields["operand"] in bounded for c in amb.checks))
            for ranges in amb_regions]
    regions = [ranges for _, ranges in kept]
    # the scopes of the path's two operands and the dtype of the operand that names the dtype (of a plain
    # operand: a list's is its first entry's): part of the cell, so the same for every call of it
    spec, (_, _, dtype, path) = ctx.spec, cell
    scopes = dict(zip(spec.path_operands, path)) if path is not None else {}
    dtypes = {spec.dtype_of: dtype} if dtype in ctx.rulebook.dtypes and not spec.is_list(spec.dtype_of) else {}
    return Screen(tables, listed, same_lists, ctx.rulebook.dtypes, rest,
                  None if any(ranges is None for ranges in regions) else tuple(regions), scopes, dtypes,
                  tuple(_self_lists(amb, spec) for amb, _ in kept))


def _self_lists(amb, spec) -> tuple | None:
    """The list operands of an ambiguity whose checks are all iteration_overlap of a list operand against
    itself at lags >= 1 (vec_trans_scatter.dst.repeat_overlap); None for any other."""
    ops = [c.fields["operands"][0] for c in amb.checks if c.kind == "iteration_overlap"
           and c.fields["operands"][0] == c.fields["operands"][1] and spec.is_list(c.fields["operands"][0])
           and c.fields.get("lag", [0, 0])[0] >= 1]
    return tuple(ops) if amb.checks and len(ops) == len(amb.checks) else None


def _spread(ctx, names: tuple) -> bool:
    """Can no entry of these list operands meet an entry's later iteration? Told where it is cheap: one
    scope, one Runs for all, entries and step on a grid of the run's length (runs meet whole or not at
    all): entries in one residue class of the step need `count` steps between them. False where that
    does not show it (the kinds are asked)."""
    for name in names:
        tensors, runs = ctx.call.args[name], ctx.accesses[name]
        if not runs or any(r != runs[0] for r in runs) or len({t.scope for t in tensors}) > 1:
            return False
        step, count, length = runs[0].step, runs[0].count, runs[0].length
        if count <= 1:
            continue
        addrs = [t.addr for t in tensors]
        if step <= 0 or length <= 0 or step % length or any((a - addrs[0]) % length for a in addrs):
            return False
        lanes: dict[int, list[int]] = {}
        for a in addrs:
            lanes.setdefault(a % step, []).append(a // step)
        for q in lanes.values():
            q.sort()
            if any(0 < y - x < count for x, y in zip(q, q[1:])):
                return False
    return True