"""The hooks of a rule kind, one base class per phase of the kit that asks them.

A kind (base.RuleKind) is all of them; each hook here gives the answer for a rule that changes nothing
in its phase, so a kind overrides only the phases its sentence changes:

- `Checking`: the oracle's verdict on a call, and what the schema cannot say of the rule's fields;
- `Saying`: what the rule says of a call, asked by the machinery (a parameter's interval, an operand's
  alignment, the paths of a product...) instead of reading the rule's fields;
- `FastPath`: how a cell's compiled pass says "this rule holds" for most calls without asking `check`
  (oracle/fast_path.py compiles what the kinds give it);
- `Edges`: the boundaries a reject / undefined cell of the rule must reach (conformance/generate/edges.py
  sweeps them), and the tags a legal call on the rule's edge carries;
- `Reaching`, `DrawingCall`, `DrawingParams`, `DrawingPlacement`, `DrawingMemory`: how a call is drawn
  to break the rule (its `target`), or to stay clear of it, one class per drawing step of
  conformance/generate; each step calls the target's kind at its own point, with the step's state.

The drawing steps ask the kind of no rule (base.UNBROKEN) with the rule None: the defaults here read
nothing of it but its `when`.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Optional

from oracle.call import Call
from oracle.records import Product, Rule

from .protocols import (Checked, Draft, Element, Env, Listed, ListsRequest, Meeting, Offsets, Pair, Picks, Placing,
                        Plan, Plans, Source, Sweep)


class Retry(Exception):
    """The choices made give no call of the sort asked for; the drawing draws again (a Hypothesis filter)."""


def require(condition: object) -> None:
    if not condition:
        raise Retry


class Pass:
    """The fast path entry meaning: the rule holds for every call of the cell (PASS, its one value)."""


PASS = Pass()
Entries = Optional[Sequence[Any]]     # a rule's lines of a compiled pass (None: left to `check`)


class Checking:
    name: str = ""

    def check(self, rule: Rule, ctx: Checked) -> Optional[str]:
        """The message naming how ctx's call breaks `rule`, or None when it holds."""
        raise NotImplementedError(f"the rule kind {self.name!r} has no check")

    def validate(self, raw: Mapping[str, Any], operands: Mapping[str, Any], dtypes: Mapping[str, int],
                 params: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
        """What the schema cannot say of a rule's own fields: (where under the rule, message) per fault."""
        return iter(())


class Saying:
    on_dtypes = False                   # it speaks of the operands' dtypes: a legal call's dtypes pass it

    def products(self, rule: Rule) -> Optional[Sequence[str]]:
        """The products the rule lists as having the API (None: it says nothing of products)."""
        return None

    def paths(self, rule: Rule, product: Optional[str]) -> Optional[list[str]]:
        """The paths the rule allows on `product` (None product: on any product it lists; None: it says
        nothing of paths, or nothing of this product's)."""
        return None

    def path_ends(self, rule: Rule) -> Optional[tuple[str, str]]:
        """(from, to): the operands whose scopes make the call's path (None: not a path rule)."""
        return None

    def interval(self, rule: Rule, param: str) -> Optional[tuple[int, int]]:
        """[lo, hi] the rule gives `param` (None: it bounds no such parameter)."""
        return None

    def multiple_of(self, rule: Rule, param: str, element: Element, unit: Element) -> Optional[int]:
        """What the rule asks `param`'s value to be a multiple of (None: nothing); element(): the call's
        element width, unit(): the bytes of one step of `param`."""
        return None

    def alignment(self, rule: Rule, operand: str, scope: str, product: Product, element: int) -> Optional[int]:
        """The bytes the rule asks `operand`'s address in `scope` to be a multiple of (None: nothing)."""
        return None

    def word_ranges(self, rule: Rule) -> Optional[tuple[list[tuple[int, int]], bool]]:
        """A mask's words: each one's (least, greatest) value, and whether one at least must be nonzero
        (None: the rule says nothing of words)."""
        return None

    def words_param(self, rule: Rule) -> Optional[str]:
        """The bitwise-mask parameter whose words the rule bounds (None: none)."""
        return None

    def offset_grid(self, rule: Rule, operand: str) -> Optional[int]:
        """The bytes the offsets of `operand` step by where the rule asks a grid of them (None: none)."""
        return None

    def offset_limit(self, rule: Rule, operand: str) -> Optional[int]:
        """The largest offset of `operand` the rule allows (None: no limit)."""
        return None

    def kept_apart(self, rule: Rule, operand: str, identical: Callable[[str], bool]) -> frozenset[str]:
        """The operands the rule keeps `operand`'s bytes apart from (identical(op): op is `operand`'s
        tensor given twice)."""
        return frozenset()


class FastPath:
    fast_rank: Optional[int] = None     # where its lines stand in a compiled pass (None: no fast path)
    entry_field: Optional[str] = None   # the field naming its operands, where a list operand's entries
                                        # are checked one by one (oracle/fast_path.py: Listed)
    holds_bytes = False                 # it holds an operand's touched bytes inside its tensor (bounds)

    def fast_entries(self, rule: Rule, ctx: Checked) -> Entries | Pass:
        """What the compiled pass needs of `rule` on ctx's cell: entries, PASS (it holds for every call of
        the cell), or None (left to `check`)."""
        return None

    def fast_source(self, entries: Sequence[Any], src: Source) -> None:
        """Write the lines that return False where an entry may not hold."""

    def fast_listed(self, rule: Rule, ctx: Checked, names: tuple[str, ...], listed: Callable[[str], Listed],
                    groups: list[list[str]]) -> bool:
        """Add the rule to the entry-by-entry check of its list operands `names` (`groups`: operands whose
        entries share one dtype). False: left to `check`."""
        return False

    def entry_operands(self, rule: Rule) -> Optional[tuple[str, ...]]:
        """The operands the rule names in its `entry_field` (None: a kind without one)."""
        if self.entry_field is None:
            return None
        names = rule.fields[self.entry_field]
        return (names,) if isinstance(names, str) else tuple(names)

    def held_operand(self, rule: Rule) -> Optional[str]:
        """The operand whose touched bytes the rule holds inside its tensor (None: not such a rule)."""
        if not self.holds_bytes:
            return None
        operand: str = rule.fields["operand"]
        return operand

    def later_self(self, rule: Rule) -> Optional[str]:
        """The operand the rule tests against its own later iterations (None: not such a rule)."""
        return None


class Edges:
    legal_edges: tuple[str, ...] = ()   # tag globs of a legal call on the rule's edge ({param}, {operand},
                                        # {operands}: the rule's own fields)
    region_top_searched = False         # a check of it ties a count to other parameters: in an ambiguity's
                                        # region the count's top is left to the search
    region_counts_up = False            # it meets iterations later: each count up is an edge of its region
    needs_wide_elements = False         # breaking it needs an element wider than a byte

    def edges(self, rule: Rule, sweep: Sweep) -> Plans:
        """Edge tag -> the plans (choices) that reach it, for a cell whose calls break `rule`."""
        return {}

    def region_edges(self, rule: Rule, base: list[Plan]) -> Plans:
        """Edge tag -> plans, for an ambiguity's check of this kind (`base`: a plan per layout of its region)."""
        return {}

    def extra_plans(self, rule: Rule, sweep: Sweep) -> list[Plan]:
        """Plans past those of `edges` a sweep of the rule's cell also judges."""
        return []

    def edge_tags(self, rule: Rule) -> list[str]:
        """The tag globs that mark a legal call as sitting on the rule's edge: `legal_edges` with the rule's
        own fields filled in (none: the rule has no edge a legal call sits on short of breaking it)."""
        out: list[str] = []
        for pattern in self.legal_edges:
            if "{operands}" in pattern:
                out += [pattern.replace("{operands}", op) for op in rule.get("operands") or ()]
            else:
                out.append(pattern.format(param=rule.get("param"), operand=rule.get("operand")))
        return out


class Reaching:
    by_product = False                  # broken by a call on a product the rule does not list
    dtype_free = False                  # a call breaking it need not pass the dtype rules of its path
    draws_dtype_rule = False            # it decides the call's dtypes itself (a `when: dtypes` is its own)
    moves_bytes = False                 # only the bytes a call touches can break it: such a call moves some
    allows_slack = True                 # its operand's tensor may be larger than what the call touches

    def reachable(self, rule: Rule, env: Env) -> Optional[bool]:
        """Whether a call of env's product can break `rule` alone, where the kind alone decides; None:
        as the layouts decide."""
        return None

    def breakable_in(self, rule: Rule, scopes: Mapping[str, str]) -> bool:
        """Can a call whose operands sit in these scopes break `rule`?"""
        return True


class DrawingCall:
    """Form, dtypes, scopes, counts (conformance/generate/strategies.py)."""

    def form_choices(self, rule: Rule, env: Env, choices: list[str | None], dtype: Optional[str]
                     ) -> list[str | None]:
        """The forms a call breaking `rule` may take: one with a legal dtype the rule holds for."""
        if dtype is not None:
            return choices
        when = when_of(rule)
        return [f for f in choices if any(d in when.get("dtypes", (d,)) for d in env.legal_dtypes(f))]

    def call_dtype(self, rule: Rule, pick: Picks, env: Env, form: str | None, dtype: Optional[str],
                   tags: list[str]) -> str:
        """The call's dtype: the one asked for, else one of the legal dtypes of its form (and the rule's)."""
        if dtype is not None:
            return dtype
        legal = env.legal_dtypes(form)
        when = when_of(rule)
        if "dtypes" in when:
            legal = [d for d in legal if d in when["dtypes"]]
        legal = self.usable_dtypes(rule, env, form, legal)
        require(legal)
        return pick.choice(legal, "dtype")

    def usable_dtypes(self, rule: Rule, env: Env, form: str | None, legal: list[str]) -> list[str]:
        """The legal dtypes a call breaking `rule` may have."""
        return legal

    def retype(self, rule: Rule, pick: Picks, env: Env, form: str | None, dtypes: dict[str, str],
               tags: list[str]) -> None:
        """Change the operands' dtypes (`dtypes`, in place) to break the rule."""

    def scopes(self, rule: Rule, pick: Picks, env: Env) -> Optional[tuple[dict[str, str], list[str]]]:
        """The operands' scopes and a tag, where the kind places them itself (None: by the path table)."""
        return None

    def path_tags(self, rule: Rule, path: str) -> list[str]:
        return []

    def candidate_paths(self, rule: Rule, env: Env, form: str | None) -> tuple[str | None, list[str]]:
        """(form, paths) a call breaking `rule` may take, before the layouts are asked."""
        return form, env.paths(form)

    def spare_operand(self, rule: Rule) -> Optional[str]:
        """The operand left one alignment unit to spare (room to misalign it)."""
        return None

    def recount(self, rule: Rule, pick: Picks, env: Env, draft: Draft) -> None:
        """Change a list operand's count of entries to break the rule."""

    def self_overlapping(self, rule: Rule) -> Optional[str]:
        """The operand whose own bytes the call is drawn to write twice."""
        return None


class DrawingParams:
    """Parameters (conformance/generate/parameters.py)."""

    def landing_room(self, rule: Rule, env: Env, element: Element) -> dict[str, int]:
        """Bytes from its base an operand keeps to itself (element(): the call's element width)."""
        return {}

    def reserved(self, rule: Rule) -> Optional[int]:
        """The bytes at the top of a scope an ambiguity's check of this kind reserves (None: none)."""
        return None

    def forced_param(self, rule: Rule) -> Optional[str]:
        """The parameter the call is drawn outside its range (drawn first: `outside`)."""
        return None

    def outside(self, rule: Rule, pick: Picks, step: int, fits: Callable[[int], bool]) -> tuple[int, str]:
        """The forced parameter's value, past the rule's range, and its tag."""
        raise NotImplementedError

    def off_step(self, rule: Rule, pick: Picks, name: str, value: int, step: int) -> Optional[int]:
        """`name`'s value moved off its multiple, where breaking the rule asks it (None: kept)."""
        return None

    def passing_multiple(self, rule: Rule, params: Mapping[str, int], element: int) -> Optional[tuple[str, int]]:
        """(name, m): the check passes where parameter `name` is a multiple of m, the others as in `params`
        (`element`: the call's element width in bytes); None where the kind does not say so."""
        return None

    def struct_lists(self, rule: Rule) -> Optional[tuple[tuple[str, ...], tuple[str, ...]]]:
        """The list-of-struct arguments the kind draws whole (`draw_lists`) and their operands, in the same
        order (None: it draws none)."""
        return None

    def draw_lists(self, pick: Picks, request: ListsRequest) -> tuple[dict[str, list[dict[str, int]]], int]:
        """The lists `struct_lists` names, and the length they share, legal or breaking request.target."""
        raise NotImplementedError


class DrawingPlacement:
    """Placement (conformance/generate/placement.py)."""

    # Placement reads the operands' ends in closed form (the index math's extents) for a call drawn to
    # break such a rule; False where a parameter past its range need not follow the footprints there.
    closed_ends = True

    def pairing(self, rule: Rule, placing: Placing, ops: list[str], align: int) -> Optional[Pair]:
        """Two operands placed in one group and how the second follows the first (None: none)."""
        return None

    def in_place(self, rule: Rule, placing: Placing, ops: list[str], probe: Callable[[], Call]
                 ) -> Optional[tuple[str, str]]:
        """(a, b): a legal call passes b in place of a, as the rule allows (probe(): the call so far)."""
        return None

    def meeting(self, rule: Rule) -> Optional[Meeting]:
        """(a, b, lag, identical allowed) of a rule on how two operands' iterations meet (None: not one)."""
        return None

    def spread(self, rule: Rule, placing: Placing, op: str, offsets: list[int]) -> Optional[list[int]]:
        """A list operand's entries moved to break the rule (None: as laid out)."""
        return None

    def floors(self, rule: Rule, placing: Placing, ops: list[str]) -> dict[str, int]:
        """Operand -> the lowest address it may take in its scope."""
        return {}

    def finish(self, rule: Rule, placing: Placing) -> None:
        """Change a placed tensor (its address, its size) to break the rule."""


class DrawingMemory:
    """Memory (conformance/generate/offset_tensors.py)."""

    def collides(self, rule: Rule, operand: str) -> bool:
        """Is the call drawn with two offsets of `operand` alike?"""
        return False

    def aimed(self, rule: Rule) -> tuple[str, ...]:
        """The operands the call's offsets are aimed at (not kept clear of)."""
        return ()

    def break_offset(self, rule: Rule, values: Offsets) -> Optional[str]:
        """Move one offset (values.offsets[values.j]) to break the rule; the style it gives, or None."""
        return None


def when_of(rule: Optional[Rule]) -> Mapping[str, Any]:
    """The rule's `when` ({} for none, and for no rule: the kind of no rule is asked with None)."""
    return (rule.when or {}) if rule is not None else {}
