"""What a rule kind is: one object that knows every place the kit reads one sort of sentence.

A rule in the YAML names its kind ("a parameter lies in a range", "an operand's address is aligned")
and gives the numbers; the kind knows what the sentence means:

- `check`: the oracle's verdict on a call (the message naming what breaks, or None);
- the fast path (`fast_*`): how a cell's compiled pass says "this rule holds" for most calls without
  asking `check` (oracle/fast_path.py compiles what the kinds give it);
- `edges`: the boundaries a reject / undefined cell of the rule must reach (conformance/generate/edges.py
  sweeps them), and `legal_edges`, the tags a legal call on the rule's edge carries;
- the drawing hooks: how a call is drawn to break the rule (its `target`), or to stay clear of it. Each
  drawing step of conformance/generate calls the target's kind at its own point, with the step's state;
  the base class draws as for a call that breaks nothing there.

A kind reads its numbers, lists and units from the rule and never imports the drawing machinery: the
steps hand it what it draws with (`pick`, the environment, the draft).
"""
from __future__ import annotations

from typing import Any, Callable, Iterator, Mapping, Optional, Sequence

PASS = object()         # a fast path entry meaning: the rule holds for every call of the cell


class Retry(Exception):
    """The choices made give no call of the sort asked for; the drawing draws again (a Hypothesis filter)."""


def require(condition: object) -> None:
    if not condition:
        raise Retry


class RuleKind:
    """One sort of sentence. Subclasses set `name` and override what their sentence changes."""

    name: str = ""

    # -- the check -----------------------------------------------------------------------------------
    def check(self, rule: Any, ctx: Any) -> Optional[str]:
        """The message naming how ctx's call breaks `rule`, or None when it holds."""
        raise NotImplementedError(f"the rule kind {self.name!r} has no check")

    def validate(self, raw: Mapping[str, Any], operands: Mapping[str, Any], dtypes: Mapping[str, int]
                 ) -> Iterator[tuple[str, str]]:
        """What the schema cannot say of a rule's own fields: (where under the rule, message) per fault."""
        return iter(())

    # -- what the rule says, for the machinery to ask ------------------------------------------------
    def products(self, rule: Any) -> Optional[Sequence[str]]:
        """The products the rule lists as having the API (None: it says nothing of products)."""
        return None

    def paths(self, rule: Any, product: Optional[str]) -> Optional[list[str]]:
        """The paths the rule allows on `product` (None product: on any product it lists; None: it says
        nothing of paths, or nothing of this product's)."""
        return None

    def path_ends(self, rule: Any) -> Optional[tuple[str, str]]:
        """(from, to): the operands whose scopes make the call's path (None: not a path rule)."""
        return None

    def interval(self, rule: Any, param: str) -> Optional[tuple[int, int]]:
        """[lo, hi] the rule gives `param` (None: it bounds no such parameter)."""
        return None

    def multiple(self, rule: Any, param: str, element: Callable[[], int], unit: Callable[[], int]
                 ) -> Optional[int]:
        """What the rule asks `param`'s value to be a multiple of (None: nothing); element(): the call's
        element width, unit(): the bytes of one step of `param`."""
        return None

    def alignment(self, rule: Any, operand: str, scope: str, product: Any, element: int) -> Optional[int]:
        """The bytes the rule asks `operand`'s address in `scope` to be a multiple of (None: nothing)."""
        return None

    def words_param(self, rule: Any) -> Optional[str]:
        """The bitwise-mask parameter whose words the rule bounds (None: none)."""
        return None

    on_dtypes = False                   # it speaks of the operands' dtypes: a legal call's dtypes pass it

    def offset_grid(self, rule: Any, operand: str) -> Optional[int]:
        """The bytes the offsets of `operand` step by where the rule asks a grid of them (None: none)."""
        return None

    def offset_limit(self, rule: Any, operand: str) -> Optional[int]:
        """The largest offset of `operand` the rule allows (None: no limit)."""
        return None

    def kept_apart(self, rule: Any, operand: str, identical: Callable[[str], bool]) -> frozenset[str]:
        """The operands the rule keeps `operand`'s bytes apart from (identical(op): op is `operand`'s
        tensor given twice)."""
        return frozenset()

    # -- the fast path -------------------------------------------------------------------------------
    fast_rank: Optional[int] = None     # where its lines stand in a compiled pass (None: no fast path)
    entry_field: Optional[str] = None   # the field naming its operands, where a list operand's entries
                                        # are checked one by one (oracle/fast_path.py: Listed)

    def fast_entries(self, rule: Any, ctx: Any) -> Any:
        """What the compiled pass needs of `rule` on ctx's cell: a list of entries, PASS (it holds for
        every call of the cell), or None (left to `check`)."""
        return None

    def fast_source(self, entries: list, src: Any) -> None:
        """Write the lines that return False where an entry may not hold (src: fast_path.Source)."""

    def fast_listed(self, rule: Any, ctx: Any, names: tuple, listed: Any, groups: list) -> bool:
        """Add the rule to the entry-by-entry check of its list operands `names` (listed(name): that
        operand's fast_path.Listed; `groups`: operands whose entries share one dtype). False: left to
        `check`."""
        return False

    holds_bytes = False                 # it holds an operand's touched bytes inside its tensor (bounds)

    def later_self(self, rule: Any) -> Optional[str]:
        """The operand the rule tests against its own later iterations (None: not such a rule)."""
        return None

    # -- edges ---------------------------------------------------------------------------------------
    legal_edges: tuple[str, ...] = ()   # tag globs of a legal call on the rule's edge ({param}, {operand},
                                        # {operands}: the rule's own fields)

    def edges(self, rule: Any, sweep: Any) -> dict[str, list[dict[str, Any]]]:
        """Edge tag -> the plans (choices) that reach it, for a cell whose calls break `rule`."""
        return {}

    def region_edges(self, rule: Any, base: list) -> dict[str, list[dict[str, Any]]]:
        """Edge tag -> plans, for an ambiguity's check of this kind (`base`: a plan per layout of its region)."""
        return {}

    region_top_searched = False         # a check of it ties a count to other parameters: in an ambiguity's
                                        # region the count's top is left to the search
    region_counts_up = False            # it meets iterations later: each count up is an edge of its region
    needs_wide_elements = False         # breaking it needs an element wider than a byte

    def extra_plans(self, rule: Any, sweep: Any) -> list[dict[str, Any]]:
        """Plans past those of `edges` a sweep of the rule's cell also judges."""
        return []

    # -- reaching the rule ---------------------------------------------------------------------------
    by_product = False                  # broken by a call on a product the rule does not list
    dtype_free = False                  # a call breaking it need not pass the dtype rules of its path
    draws_dtype_rule = False            # it decides the call's dtypes itself (a `when: dtypes` is its own)
    moves_bytes = False                 # only the bytes a call touches can break it: such a call moves some
    allows_slack = True                 # its operand's tensor may be larger than what the call touches

    def reachable(self, rule: Any, env: Any) -> Optional[bool]:
        """Whether a call of env's product can break `rule` alone, where the kind alone decides; None:
        as the layouts decide."""
        return None

    def breakable_in(self, rule: Any, scopes: Mapping[str, str]) -> bool:
        """Can a call whose operands sit in these scopes break `rule`?"""
        return True

    # -- drawing: form, dtypes, scopes, counts (conformance/generate/strategies.py) -------------------
    def form_choices(self, rule: Any, env: Any, choices: list, dtype: Optional[str]) -> list:
        """The forms a call breaking `rule` may take: one with a legal dtype the rule holds for."""
        if dtype is not None:
            return choices
        when = _when(rule)
        return [f for f in choices if any(d in when.get("dtypes", (d,)) for d in env.legal_dtypes(f))]

    def call_dtype(self, rule: Any, pick: Any, env: Any, form: Any, dtype: Optional[str], tags: list) -> str:
        """The call's dtype: the one asked for, else one of the legal dtypes of its form (and the rule's)."""
        if dtype is not None:
            return dtype
        legal = env.legal_dtypes(form)
        if "dtypes" in _when(rule):
            legal = [d for d in legal if d in rule.when["dtypes"]]
        legal = self.usable_dtypes(rule, env, form, legal)
        require(legal)
        return pick.choice(legal, "dtype")

    def usable_dtypes(self, rule: Any, env: Any, form: Any, legal: list) -> list:
        """The legal dtypes a call breaking `rule` may have."""
        return legal

    def retype(self, rule: Any, pick: Any, env: Any, form: Any, dtypes: dict, tags: list) -> None:
        """Change the operands' dtypes (`dtypes`, in place) to break the rule."""

    def scopes(self, rule: Any, pick: Any, env: Any) -> Optional[tuple[dict, list]]:
        """The operands' scopes and a tag, where the kind places them itself (None: by the path table)."""
        return None

    def path_tags(self, rule: Any, path: str) -> list[str]:
        return []

    def candidate_paths(self, rule: Any, env: Any, form: Any) -> tuple[Any, list[str]]:
        """(form, paths) a call breaking `rule` may take, before the layouts are asked."""
        return form, env.paths(form)

    def spare_operand(self, rule: Any) -> Optional[str]:
        """The operand left one alignment unit to spare (room to misalign it)."""
        return None

    def recount(self, rule: Any, pick: Any, env: Any, draft: Any) -> None:
        """Change a list operand's count of entries to break the rule."""

    def self_overlapping(self, rule: Any) -> Optional[str]:
        """The operand whose own bytes the call is drawn to write twice."""
        return None

    # -- drawing: parameters (conformance/generate/parameters.py) --------------------------------------
    def landing_room(self, rule: Any, env: Any, element: Any) -> dict[str, int]:
        """Bytes from its base an operand keeps to itself (element(): the call's element width)."""
        return {}

    def reserved(self, rule: Any) -> Optional[int]:
        """The bytes at the top of a scope an ambiguity's check of this kind reserves (None: none)."""
        return None

    def forced_param(self, rule: Any) -> Optional[str]:
        """The parameter the call is drawn outside its range (drawn first: `outside`)."""
        return None

    def outside(self, rule: Any, pick: Any, step: int, fits: Any) -> tuple[int, str]:
        raise NotImplementedError

    def off_step(self, rule: Any, pick: Any, name: str, value: int, step: int) -> Optional[int]:
        """`name`'s value moved off its multiple, where breaking the rule asks it (None: kept)."""
        return None

    # -- drawing: placement (conformance/generate/placement.py) ---------------------------------------
    def pairing(self, rule: Any, placing: Any, ops: list, align: int) -> Any:
        """Two operands placed in one group and how the second follows the first (None: none)."""
        return None

    def in_place(self, rule: Any, placing: Any, ops: list, probe: Any) -> Optional[tuple[str, str]]:
        """(a, b): a legal call passes b in place of a, as the rule allows (probe(): the call so far)."""
        return None

    def meeting(self, rule: Any) -> Optional[tuple]:
        """(a, b, lag, identical allowed) of a rule on how two operands' iterations meet (None: not one)."""
        return None

    def spread(self, rule: Any, placing: Any, op: str, offsets: list) -> Optional[list]:
        """A list operand's entries moved to break the rule (None: as laid out)."""
        return None

    def floors(self, rule: Any, placing: Any, ops: list) -> dict[str, int]:
        """Operand -> the lowest address it may take in its scope."""
        return {}

    def finish(self, rule: Any, placing: Any) -> None:
        """Change a placed tensor (its address, its size) to break the rule."""

    # -- drawing: memory (conformance/generate/values.py) ----------------------------------------------
    def collides(self, rule: Any, operand: str) -> bool:
        """Is the call drawn with two offsets of `operand` alike?"""
        return False

    def aimed(self, rule: Any) -> tuple:
        """The operands the call's offsets are aimed at (not kept clear of)."""
        return ()

    def break_offset(self, rule: Any, values: Any) -> Optional[str]:
        """Move one offset (values.offsets[values.j]) to break the rule; the style it gives, or None."""
        return None


# the registry: kind name -> its object, filled once by oracle/kinds/__init__.py from the modules here
KINDS: dict[str, RuleKind] = {}

# what a call breaking no rule (a legal call; an ambiguity region without checks) is drawn by: the
# base kind, which changes nothing
UNBROKEN = RuleKind()


def kind_of(rule: Any) -> RuleKind:
    """The kind of `rule` (None, or an ambiguity region's target without a check: UNBROKEN)."""
    return UNBROKEN if rule is None else KINDS.get(rule.kind, UNBROKEN)


def _when(rule: Any) -> Mapping[str, Any]:
    return (rule.when or {}) if rule is not None else {}
