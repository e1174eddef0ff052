"""The rule kinds of the spec format: each a small function `(rule, ctx) -> message | None`.

A kind reads every number, list and unit from the rule (the YAML); what it knows is only what *sort* of
sentence it encodes ("a parameter lies in a range", "an operand's address is aligned"). Adding a kind
means adding it here and to specs/schema.yaml.
"""
from __future__ import annotations

from typing import Callable, Optional

import numpy as np

from .context import Context
from .footprint import Runs, overlaps
from .iterations import first_meeting
from .spec import Rule

Kind = Callable[[Rule, Context], Optional[str]]
KINDS: dict[str, Kind] = {}


def kind(name: str) -> Callable[[Kind], Kind]:
    def register(fn: Kind) -> Kind:
        KINDS[name] = fn
        return fn
    return register


@kind("product")
def _product(rule: Rule, ctx: Context) -> str | None:
    if ctx.call.product not in rule.fields["products"]:
        supported = ", ".join(rule.fields["products"])
        return f"{ctx.spec.api} is not supported on {ctx.call.product} (supported: {supported})"
    return None


@kind("path")
def _path(rule: Rule, ctx: Context) -> str | None:
    allowed = rule.fields["allowed"].get(ctx.call.product)
    if allowed is None:      # the page says nothing of this product's paths; the product rule speaks for it
        return None
    path = f"{ctx.tensor(rule.fields['from']).scope}->{ctx.tensor(rule.fields['to']).scope}"
    if path not in allowed:
        return f"path {path} is not supported on {ctx.call.product} (supported: {', '.join(allowed)})"
    return None


def _dtypes(ctx: Context, names) -> dict[str, str]:
    return {label: t.dtype for name in names for label, t in ctx.labelled[name]}


@kind("dtype")
def _dtype(rule: Rule, ctx: Context) -> str | None:
    allowed = rule.fields["allowed"]
    for name in rule.fields["operands"]:
        for label, t in ctx.labelled[name]:
            if t.dtype not in allowed:
                return f"{label} has dtype {t.dtype}, not one of {', '.join(allowed)}"
    return None


@kind("same_dtype")
def _same_dtype(rule: Rule, ctx: Context) -> str | None:
    """Every tensor of the operands (each entry of a list operand) has one dtype."""
    labelled = ctx.labelled
    if len({t.dtype for name in rule.fields["operands"] for _, t in labelled[name]}) <= 1:
        return None
    dtypes = _dtypes(ctx, rule.fields["operands"])
    if len(set(dtypes.values())) > 1:
        first = next(iter(dtypes.values()))
        odd = next(k for k, v in dtypes.items() if v != first)
        return f"dtypes differ: {next(iter(dtypes))}={first}, {odd}={dtypes[odd]}"
    return None


@kind("scope")
def _scope(rule: Rule, ctx: Context) -> str | None:
    for label, tensor in ctx.labelled[rule.fields["operand"]]:
        if tensor.scope not in rule.fields["allowed"]:
            return f"{label} is in {tensor.scope}; it must be in {' or '.join(rule.fields['allowed'])}"
    return None


@kind("list_length")
def _list_length(rule: Rule, ctx: Context) -> str | None:
    name = rule.fields["operand"]
    want, got = ctx.spec.operands[name]["entries"], len(ctx.call.tensors(name))
    if got != want:
        return f"{name} has {got} entries; it must have {want}"
    return None


@kind("range")
def _range(rule: Rule, ctx: Context) -> str | None:
    name = rule.fields["param"]
    value = ctx.call.param(name) if "." in name else ctx.call.args[name]
    if isinstance(value, bool):                            # a bool parameter: 0 / 1
        value = int(value)
    elif not isinstance(value, int):
        value = ctx.call.int_arg(name)                     # raises the format error
    if not rule.fields["min"] <= value <= rule.fields["max"]:
        return f"{rule.fields['param']}={value} is outside [{rule.fields['min']}, {rule.fields['max']}]"
    return None


@kind("align")
def _align(rule: Rule, ctx: Context) -> str | None:
    scope, need = rule.fields["scope"], None
    for label, tensor in ctx.labelled[rule.fields["operand"]]:
        if tensor.scope == scope:                          # the rule speaks of this scope only
            if need is None:
                need = ctx.rulebook.align_bytes(rule, ctx.product, ctx.rulebook.itemsize(tensor.dtype))
            if tensor.addr % need:
                return f"{label} in {tensor.scope} at byte {tensor.addr} is not {need}-byte aligned"
    return None


@kind("bounds")
def _bounds(rule: Rule, ctx: Context) -> str | None:
    """With `half_by` (a bool parameter naming the 16-byte half of each block an 8-bit entry touches):
    broken when the whole blocks leave a tensor and, for every entry, the half it touches does not (the
    calls on which whole blocks and touched halves disagree)."""
    entries = ctx.entries(rule.fields["operand"])
    found = _outside(entries, ctx)
    half_by = rule.fields.get("half_by")
    if found is None or half_by is None:
        return found
    if ctx.units["element"] != 1:                          # wider elements touch their whole blocks
        return None
    high = bool(ctx.call.args[half_by])
    halves = [(label, tensor, None if runs is None else
               runs._replace(first=runs.first + runs.length // 2 * high, length=runs.length // 2))
              for label, tensor, runs in entries]
    if _outside(halves, ctx) is not None:
        return None
    return f"{found}; the half {half_by}={high} picks lies inside"


def _outside(entries, ctx: Context) -> str | None:
    for label, tensor, runs in entries:
        if runs is None:
            continue
        begin, end = runs.span                             # (0, 0) when it touches nothing: inside
        size = ctx.nbytes(tensor)
        if begin < 0 or end > size:
            return (f"{label} is accessed at bytes [{begin}, {end}) of a tensor of {size} bytes "
                    f"({tensor.numel} x {tensor.dtype})")
    return None


@kind("capacity")
def _capacity(rule: Rule, ctx: Context) -> str | None:
    """A tensor lies inside its buffer; `reserve` bytes at the top of the buffer are left out."""
    product, caps = ctx.product, {}                        # per scope, looked up once (a list's entries share one)
    for label, tensor in ctx.labelled[rule.fields["operand"]]:
        scope = tensor.scope
        if scope == "GM":                                  # every product has one, unbounded
            continue
        if scope not in caps:
            if not product.has_scope(scope):
                return f"{ctx.call.product} has no {scope}"
            cap = product.capacity(scope)
            caps[scope] = None if cap is None else cap - rule.fields.get("reserve", 0)
        cap = caps[scope]
        if cap is None:
            continue
        end = tensor.addr + ctx.nbytes(tensor)
        if end > cap:
            return f"{label} ends at byte {end} of {tensor.scope}, past its {cap} bytes on {ctx.call.product}"
    return None


@kind("overlap")
def _overlap(rule: Rule, ctx: Context) -> str | None:
    """With `allow: identical`, two operands given as the same tensor (scope, address, bytes) overlap 100%:
    allowed (the general constraint: "100% overlap or none")."""
    a, b = rule.fields["operands"]
    identical = rule.get("allow") == "identical"
    entries_b = ctx.entries(b)
    for la, ta, ra in ctx.entries(a):
        for lb, tb, rb in entries_b:
            if ra is None or rb is None or ta.scope != tb.scope:
                continue
            if identical and ta.addr == tb.addr and ctx.nbytes(ta) == ctx.nbytes(tb):
                continue
            if overlaps(ta.addr, ra, tb.addr, rb):
                return f"the bytes {la} and {lb} access in {ta.scope} overlap"
    return None


@kind("reach")
def _reach(rule: Rule, ctx: Context) -> str | None:
    """The bytes an operand touches (from the offsets in memory, for an offset-addressed one) lie inside
    its buffer. Without memory such an operand is not known and the rule is not evaluated."""
    for label, tensor, runs in ctx.entries(rule.fields["operand"]):
        if runs is None or runs.empty:
            continue
        cap = ctx.product.capacity(tensor.scope)
        lo, hi = tensor.addr + runs.begin, tensor.addr + runs.end
        if lo < 0 or (cap is not None and hi > cap):
            return f"{label} touches bytes [{lo}, {hi}) of {tensor.scope}, outside its {cap} bytes on {ctx.call.product}"
    return None


@kind("offset_range")
def _offset_range(rule: Rule, ctx: Context) -> str | None:
    """The offsets the call reads from `operand` (memory contents) are at most `max`."""
    values = _values_read(ctx, rule.fields["operand"])
    if values is not None and values.size and int(values.max()) > rule.fields["max"]:
        i = int(np.argmax(values > rule.fields["max"]))
        return f"{rule.fields['operand']} entry {i} is {int(values[i])}, past {rule.fields['max']}"
    return None


@kind("offset_align")
def _offset_align(rule: Rule, ctx: Context) -> str | None:
    """Every element an offset-addressed operand touches starts at a multiple of its element width."""
    width = ctx.units.get("element", 1)
    for label, tensor, runs in ctx.entries(rule.fields["operand"]):
        if runs is None or runs.empty:
            continue
        if _all_aligned(tensor.addr, runs.starts(), width):
            continue
        starts = tensor.addr + runs.starts()
        odd = np.flatnonzero(starts % width)
        if odd.size:
            return f"element {int(odd[0])} of {label} starts at byte {int(starts[odd[0]])}, not a multiple of {width}"
    return None


@kind("offset_unique")
def _offset_unique(rule: Rule, ctx: Context) -> str | None:
    """Two offsets (two entries of the offsets tensor) send their elements to one place. One entry read
    for two elements is one offset, not two alike."""
    for label, tensor, runs in ctx.entries(rule.fields["operand"]):
        if runs is None or runs.empty or runs.count < 2:
            continue
        starts, element = np.asarray(runs.starts()), None
        by = ctx.spec.operands[rule.fields["operand"]].get("addressed_by")
        entries = ctx.accesses.get(by) if by else None
        if entries is not None and entries.count == starts.size and not _distinct_runs(entries):
            _, first = np.unique(np.asarray(entries.starts()), return_index=True)
            if first.size < starts.size:        # an entry read more than once: its first element stands for it
                element = np.sort(first)
                starts = starts[element]
        if starts.size < 2 or not _repeats_a_start(starts, (int(starts.min()), int(starts.max()) + 1)):
            continue
        order = np.argsort(starts, kind="stable")
        same = np.flatnonzero(starts[order][1:] == starts[order][:-1])
        i, j = sorted((int(order[same[0]]), int(order[same[0] + 1])))
        if element is not None:
            i, j = int(element[i]), int(element[j])
        return f"elements {i} and {j} of {label} are both sent to byte {tensor.addr + int(runs.starts()[i])}"
    return None


def _distinct_runs(runs: object) -> bool:
    """Runs one after another, none over another (a count form's entries): no start repeats."""
    return isinstance(runs, Runs) and runs.step >= runs.length > 0


def _repeats_a_start(starts: np.ndarray, span: tuple[int, int]) -> bool:
    """Do two of `starts` coincide? A mark per byte of the span where it is not much wider than the
    starts are many (a UB-sized call: a hundredth of a sort's time), else a sort."""
    lo, hi = span
    if hi - lo <= 16 * starts.size + 4096:
        seen = np.zeros(hi - lo, dtype=np.bool_)
        seen[starts - lo] = True
        return int(np.count_nonzero(seen)) < starts.size
    return np.unique(starts).size < starts.size


def _all_aligned(addr: int, starts: np.ndarray, width: int) -> bool:
    """addr + every start a multiple of a power-of-two width: one OR over the starts (False: look closer)."""
    return not width & (width - 1) and not (addr | int(np.bitwise_or.reduce(starts))) & (width - 1)


def _values_read(ctx: Context, name: str) -> np.ndarray | None:
    """The values the call reads from a tensor of offsets: its accessed elements, from memory (a view
    where they lie side by side)."""
    if ctx.memory is None:
        return None
    tensor, runs = ctx.call.tensor(name), ctx.accesses[name]
    kind = np.dtype(ctx.spec.operands[name].get("dtype", tensor.dtype)).newbyteorder("<")    # as the spec reads them
    image = ctx.memory.get(tensor.scope)
    if image is None or runs is None or runs.empty or tensor.addr + runs.end > image.shape[0]:
        return None
    if isinstance(runs, Runs) and runs.step == runs.length == kind.itemsize and runs.count > 0:
        lo = tensor.addr + runs.first
        return image[lo:lo + runs.count * kind.itemsize].view(kind)
    at = runs.starts() if hasattr(runs, "at") else runs.first + runs.step * np.arange(runs.count)
    where = tensor.addr + at[:, None] + np.arange(kind.itemsize)
    return np.ascontiguousarray(image[where]).view(kind).reshape(-1).astype(np.int64)


@kind("multiple")
def _multiple(rule: Rule, ctx: Context) -> str | None:
    value, of = ctx.call.int_arg(rule.fields["param"]), rule.fields["of"]
    if of == "element":                                    # "blockLen必须是sizeof(T)的整数倍"
        of = ctx.units["element"]
    if value % of:
        return f"{rule.fields['param']}={value} is not a multiple of {of}"
    return None


@kind("scaled_multiple")
def _scaled_multiple(rule: Rule, ctx: Context) -> str | None:
    """param x times is a multiple of of_param (x the element width with of_bytes); an of_param of 0 divides
    nothing and is left to its own range rule."""
    f = rule.fields
    value, of = ctx.call.int_arg(f["param"]) * f["times"], ctx.call.int_arg(f["of_param"])
    if f.get("of_bytes"):
        of *= ctx.units.get("element", 1)
    if of > 0 and value % of:
        what = f" x {ctx.units.get('element', 1)} bytes" if f.get("of_bytes") else ""
        return f"{f['param']} x {f['times']} = {value} is not a multiple of {f['of_param']}{what} = {of}"
    return None


@kind("self_overlap")
def _self_overlap(rule: Rule, ctx: Context) -> str | None:
    """Two of the runs an operand writes share a byte (its footprint says how: Grid.self_overlaps)."""
    for label, tensor, runs in ctx.entries(rule.fields["operand"]):
        if runs is not None and hasattr(runs, "self_overlaps") and runs.self_overlaps():
            return f"rows of {label} overlap one another: some bytes are written more than once"
    return None


@kind("mask_words")
def _mask_words(rule: Rule, ctx: Context) -> str | None:
    """A bitwise mask (a list of words): word k inside words[k]; with `nonzero`, not every word 0."""
    words = ctx.call.args[rule.fields["param"]]
    if len(words) != len(rule.fields["words"]):
        return f"{rule.fields['param']} has {len(words)} words; it must have {len(rule.fields['words'])}"
    for k, (value, (lo, hi)) in enumerate(zip(words, rule.fields["words"])):
        if not lo <= value <= hi:
            return f"{rule.fields['param']}[{k}] = {value} is outside [{lo}, {hi}]"
    if rule.fields.get("nonzero") and not any(words):
        return f"{rule.fields['param']} selects no element (every word is 0)"
    return None


@kind("iteration_overlap")
def _iteration_overlap(rule: Rule, ctx: Context) -> str | None:
    """Run r of an operand is what its iteration r touches (repeat-style instructions). Broken when an
    iteration r of `a` and an iteration r' of `b` with r' - r inside `lag` share a byte; with
    `allow: identical`, same-iteration overlap is allowed where every entry of a and b coincide."""
    a, b = rule.fields["operands"]
    lo, hi = rule.fields.get("lag", [0, 0])
    identical = rule.fields.get("allow") == "identical"
    fa, fb = ctx.families(a), ctx.families(b)
    for scope in set(fa) & set(fb):
        (pa, family_a), (pb, family_b) = fa[scope], fb[scope]
        whole = identical and len(fa) == len(fb) == 1 and len(pa) == len(pb)      # all entries in this scope
        first = _first(family_a, family_b, lo, hi, a == b, whole)
        if first is None:
            continue
        r, i, j = first
        what = {(0, 0): "in the same iteration", (1, 1): "in the next iteration"}.get(
            (lo, hi), f"{lo}{'+' if hi is None else f'..{hi}'} iterations later")
        extra = " (not entry for entry identical)" if identical else ""
        return (f"iteration {r} of {ctx.entries(a)[pa[i]][0]} meets {ctx.entries(b)[pb[j]][0]} {what} "
                f"in {scope}{extra}")
    return None


def _first(fa, fb, lo: int, hi: int | None, same: bool, identical: bool) -> tuple[int, int, int] | None:
    """first_meeting for an iteration_overlap rule: an operand against itself leaves out an entry's own
    run in the same iteration only (at a lag >= 1 entry i meets its own later iterations: a stride 0)."""
    if not same or lo > 0 or hi == 0:
        return first_meeting(fa, fb, (lo, hi), distinct=same and lo == 0, identical=identical)
    found = [f for f in (first_meeting(fa, fb, (0, 0), distinct=True, identical=identical),
                         first_meeting(fa, fb, (1, hi), identical=identical)) if f is not None]
    return min(found, default=None)
