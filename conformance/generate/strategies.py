"""Hypothesis strategies derived from the specs: legal calls, calls that break exactly one rule, and
calls in a rule's undefined territory.

Nothing here knows an API. A call is drawn in five steps that read the spec: form and dtype, the
scopes of the operands (the path table), the parameters (the range rules, minus ambiguity regions:
parameters.py), the placement of the operands in their scopes (alignment rules, scope sizes:
placement.py), and the memory it runs on (offset_tensors.py); environment.py reads the spec once per
cell and picks.py makes every choice.
Breaking a rule changes one step, chosen by the rule's *kind* (a range rule gets a value one past an
end, an align rule a misaligned address, ...). Every drawn call is then checked by the oracle and kept
only if its violations are exactly the ones asked for, so a strategy can never mislabel a call.
Calls inside an ambiguity's region (its cell) are drawn by the same steps: ambiguity.py.
"""
from __future__ import annotations

import contextlib
import contextvars
import zlib
from typing import Any, Callable, Collection, Iterator, Mapping

from hypothesis import strategies as st
from hypothesis.errors import FlakyStrategyDefinition

from oracle import Call
from oracle.call import nest
from oracle.kinds import Retry, kind_of, require
from oracle.rules import Context, context
from oracle.rules import violations as rule_violations
from oracle.spec import Rule, Rulebook

from conformance.generate.seal import seal
from conformance.generate.case import Case
from conformance.generate.environment import DEFAULT_GM_WINDOW, Env, Frame, environment
from conformance.generate.memory import MemoryRecipe, checked_images, image_sizes
from conformance.generate.draft import CallDraft, accesses, frame_of, landing_room, part, writes_twice, written_once
from conformance.generate.parameters import draw_params
from conformance.generate.picks import Draw, Picks, Searched
from conformance.generate.placement import place
from conformance.generate.offset_tensors import draw_offset_tensors

seal()      # the calls of a seed depend on the kit, the seed and the Hypothesis release only (seal.py)

def _scopes_for(pick: Picks, env: Env, form: str | None, dtypes: Mapping[str, str], target: Rule | None
                ) -> tuple[dict[str, str], list[str]]:
    """The operands' scopes, and the tag naming the forbidden place a scope or path rule's call takes."""
    kind = kind_of(target)
    placed = kind.scopes(target, pick, env)
    if placed is not None:
        return placed
    if not env.spec.path_operands:
        return env.operand_scopes(None), []
    candidates = env.path_candidates(form, tuple(sorted(dtypes.items())), target.id if target is not None else None)
    require(candidates)
    path = pick.choice(candidates, "path")
    return env.operand_scopes(path), kind.path_tags(target, path)


def _attempt(draw: Draw, make: Callable[..., Case], *args: Any) -> Case | None:
    """The case `make` builds from Hypothesis's choices, or None where they give none (Retry)."""
    pick = Searched(draw)
    try:
        return make(pick, *args).with_blocks(pick.blocks)
    except Retry:
        return None


_case_or_none = st.composite(_attempt)


def _usable(case: Case | None) -> bool:
    return case is not None


# Calls a searched example holds (`batch=True`): Hypothesis's engine has a cost per example besides the
# draws (its tree's novel prefix, the global random states saved and seeded), more than drawing and judging a
# call, so an example holds many calls (benchmarks/bench.py (i) measures the choice).
SEARCH_BATCH = 32
BATCH_TRIES = 8         # draws a batch may spend per call it holds (a draw that gives none is drawn again)
SEARCH_ROUNDS = 6       # Hypothesis runs a search of N calls may take to find them all (see search_rounds)

def searched_cases(make: Callable[..., Case], *args: Any, batch: bool = False) -> st.SearchStrategy[Any]:
    """The cases `make(pick, *args)` builds from Hypothesis's choices; a draw that gives none (Retry) is
    drawn again (a filter). With `batch`: lists of up to SEARCH_BATCH cases, one example each."""
    if not batch:
        return _case_or_none(make, *args).filter(_usable)
    return _batch(make, *args).filter(bool)


@st.composite
def _batch(draw: Draw, make: Callable[..., Case], *args: Any) -> list[Case]:
    """Up to SEARCH_BATCH cases, a draw that gives none drawn again (at most BATCH_TRIES per case, and
    none more when the first SEARCH_BATCH gave nothing: an example of a cell too hard to draw in is
    given up, as a filter gives one up), nor once the example is nearly full (_nearly_full). A call the
    same as the one before ends the batch: Hypothesis's first example (every byte zero) and the ones its
    shrinker empties repeat one call to the end. A case the same as an earlier one in the batch (Case.key)
    is left out."""
    out: list[Case] = []
    keys = set()
    data = getattr(draw, "__self__", None)          # the example's own data (st.composite hands its draw so)
    enough = _ENOUGH.get()
    for tries in range(SEARCH_BATCH * BATCH_TRIES):
        if (len(out) == SEARCH_BATCH or (tries == SEARCH_BATCH and not out) or _nearly_full(data)
                or (enough is not None and enough(out))):
            break
        case = _attempt(draw, make, *args)
        if case is None:
            continue
        if out and case.call == out[-1].call:
            break
        if case.key not in keys:
            keys.add(case.key)
            out.append(case)
    return out


# The search drawing batches now (batches_until): does a batch hold every call of it the search will judge?
_ENOUGH: contextvars.ContextVar[Callable[[list[Case]], bool] | None] = contextvars.ContextVar("enough", default=None)


@contextlib.contextmanager
def batches_until(enough: Callable[[list[Case]], bool]) -> Iterator[None]:
    """While a search runs: a batch it draws ends once `enough(cases so far)` holds. A search judges the
    calls of a batch in order until it has judged as many as it asks for: the calls past those would be
    drawn, checked and never judged (up to a batch less one per search round)."""
    token = _ENOUGH.set(enough)
    try:
        yield
    finally:
        _ENOUGH.reset(token)


def ending_batches(run: Callable[[], None], enough: Callable[[list[Case]], bool],
                   found: Callable[[], BaseException | None] = lambda: None) -> None:
    """`run`, one Hypothesis run of a search, with its batches ended by `enough` (batches_until). That end
    reads the search's state, which Hypothesis does not see: should it replay a choice prefix through a
    batch that now ends sooner, it raises FlakyStrategyDefinition. The run is then made again with every
    batch drawn whole (the same seed: the calls judged already come again, and are skipped), unless a
    failure was found first: that failure stands (`found` gives what to raise for it)."""
    try:
        with batches_until(enough):
            run()
    except FlakyStrategyDefinition:
        failure = found()
        if failure is not None:
            raise failure from None
        run()


class BatchEnd:
    """Where the batches of a search that judges them end (batches_until): once one holds the calls the
    search will judge of it (`wanted` of them, at least one, whose keys are not among those `judged`
    already: a search skips those), and, in Hypothesis's replay of a failing example (`replaying`), where
    that example's batch ended, so that the replay draws the same choices."""

    def __init__(self, judged: Collection[Any], wanted: Callable[[], int], replaying: Callable[[], bool]):
        self.judged, self.wanted, self.replaying = judged, wanted, replaying
        self.at: int | None = None      # where the batch drawn last was ended here (None: not here)
        self.batch: list[Case] | None = None        # the batch being drawn, its first `looked` cases counted:
        self.looked = self.unjudged = 0             # `unjudged` of them not judged yet

    def __call__(self, cases: list[Case]) -> bool:
        if self.replaying():
            return self.at is not None and len(cases) >= self.at
        done = self.count(cases) >= max(self.wanted(), 1)
        self.at = len(cases) if done else None
        return done

    def count(self, cases: list[Case]) -> int:
        """How many of `cases` are not judged yet. A batch is a list that only grows while it is drawn, and
        the search judges no call meanwhile: the cases counted already are not looked up again."""
        if cases is not self.batch or len(cases) < self.looked:
            self.batch, self.looked, self.unjudged = cases, 0, 0
        self.unjudged += sum(case.key not in self.judged for case in cases[self.looked:])
        self.looked = len(cases)
        return self.unjudged


def _nearly_full(data: Any) -> bool:
    """Does the example hold three quarters of the choices Hypothesis lets one hold? An attempt past its
    limit would overrun it, and Hypothesis would throw the whole example away, the calls in it with it: a
    cell where most draws give none stops its batch short instead."""
    length, limit = getattr(data, "length", None), getattr(data, "max_length", None)
    return isinstance(length, int) and isinstance(limit, int) and length * 4 > limit * 3


def search_rounds(calls: int, seed: int, found: Callable[[], int]) -> Iterator[tuple[int, int]]:
    """(examples, seed) of each Hypothesis run of a search for `calls` calls: as many examples as the
    calls still missing fill, and one for the simplest call (a run's first example, see _batch), until
    `found()` says they are all there, a run finds none, or after SEARCH_ROUNDS runs. The first run has
    the search's seed, later ones seeds derived from it."""
    before = -1
    for k in range(SEARCH_ROUNDS):
        now = found()
        if now >= calls or now == before:
            return
        before = now
        yield 1 - (now - calls) // SEARCH_BATCH, seed if k == 0 else zlib.crc32(f"{seed}:{k}".encode())


def planned_case(pick: Picks, env: Env, expect: str, rule_id: str | None, form: str | None = None,
                 dtype: str | None = None) -> Case | None:
    """One call of a cell made from `pick`'s choices (a sweep's plan), or None when they give none."""
    try:
        return _case(pick, env, expect, rule_id, form, dtype, env.spec.forms_or_default())
    except Retry:
        return None


def _case(pick: Picks, env: Env, expect: str, rule_id: str | None, form: str | None, dtype: str | None,
          forms: tuple[str | None, ...]) -> Case:
    target = env.rule(rule_id) if rule_id is not None else None
    call, memory, draft, ctx, text = drawn(pick, env, target, form, dtype, forms)
    if env.has_values:                  # the rules on the offsets read them in memory, and no other bytes
        ctx = ctx.over(checked_images(memory, [ctx]))
    found = rule_violations(ctx)        # memory or not, the same: only the offset rules read memory
    require({v.rule for v in found} == ({target.id} if target is not None else set()))
    return Case(call, memory, expect, target.id if target is not None else None,
                tuple(draft.tags)).with_check(env.rulebook, found).with_text(text)


def drawn(pick: Picks, env: Env, target: Rule | None, form: str | None, dtype: str | None,
          forms: tuple[str | None, ...]) -> tuple[Call, MemoryRecipe, CallDraft, Any, str]:
    """The five drawing steps: a call made to break `target` (None: legal), the memory recipe it runs
    on, its draft (tags), its context without memory (env's rulebook) and its JSON text. Not yet checked
    by the oracle."""
    spec, kind = env.spec, kind_of(target)
    when = (target.when or {}) if target is not None else {}
    if form is None and spec.forms:         # a rule that holds for some forms is broken by one of them
        choices = [f for f in forms if f in when["forms"]] if "forms" in when else list(forms)
        choices = kind.form_choices(target, env, choices, dtype)
        require(choices)
        form = pick.choice(choices, "form")
    require("forms" not in when or form in when["forms"])
    tags: list[str] = []
    dtype = kind.call_dtype(target, pick, env, form, dtype, tags)
    dtypes = env.operand_dtypes(dtype)
    kind.retype(target, pick, env, form, dtypes, tags)
    scopes, scope_tags = _scopes_for(pick, env, form, dtypes, target)
    draft = CallDraft(form, dtypes, scopes, tags=tags + scope_tags, spare=kind.spare_operand(target) is not None)
    draft.counts = {op: d["entries"] for op, d in spec.operands.items() if "entries" in d}
    draft.landing = landing_room(env, draft, target)
    kind.recount(target, pick, env, draft)
    part(env, draft, target)        # once the counts are known: it reads the draft's frame
    require(_multiple_breakable(draft.frame, target))
    draw_params(pick, env, draft, target)
    require(not _in_flagged_region(env, draft))
    require(_self_overlaps_as_asked(env, draft, target))
    tensors = place(pick, env, draft, target)
    call = Call(spec.api, env.product.id, {**tensors, **nest(draft.params)}, form)
    ctx = context(call, None, env.rulebook)
    writes = draw_offset_tensors(pick, env, draft, ctx, target) if env.has_values else ()
    # The images follow from the call: different calls get different random bytes, and no choice is
    # spent on a seed that shrinking could not make simpler anyway.
    text = call.to_json()
    memory = MemoryRecipe(zlib.crc32(text.encode()), image_sizes(call, env.rulebook, ctx), writes)
    return call, memory, draft, ctx, text


def _in_flagged_region(env: Env, draft: CallDraft) -> bool:
    """Do the drawn parameters alone put the call in an ambiguity region whose check they break
    (DataCopyPad's dummy: no padding, blockLen off 32 bytes)? The final check would flag it, so the call
    is given up before it is placed, as it would be once drawn and checked: the calls kept are the same."""
    regions = _decided_regions(env, frame_of(env, draft))
    if not regions:
        return False
    call = draft.template.replace(**nest(draft.params))
    ctx = Context(call, env.spec, env.rulebook, env.product)
    return any(env.rulebook.matches(region, call, env.spec) and any(kind_of(c).check(c, ctx) for c in checks)
               for region, checks in regions)


def _multiple_breakable(frame: Frame, target: Rule | None) -> bool:
    """Can a parameter break the target where it asks for a multiple (blockLen a multiple of an element)?
    Not in a frame where that multiple is 1 (an element of one byte): every such call is given up before its
    parameters are drawn, as it would be once drawn and checked."""
    kind = kind_of(target)
    if target is None or not kind.provides("multiple_of"):
        return True
    units = frame.units
    asked = [of for n in frame.names
             for of in [kind.multiple_of(target, n, lambda: units["element"], lambda n=n: units.get(n, 1))] if of is not None]
    return not asked or any(of > 1 for of in asked)


def _decided_regions(env: Env, frame: Frame) -> list[tuple[Any, list[Rule]]]:
    """(region, checks) of the ambiguities the final check flags (legality not legal) whose region holds
    the frame's cell but for parameter ranges, with their checks that read the parameters alone (those
    of a kind that says what a parameter is a multiple of): once per frame."""
    known = env.__dict__.setdefault("_decided_regions", {})
    if frame not in known:
        known[frame] = [(region, checks) for amb in env.spec.ambiguities if amb.legality != "legal"
                        for checks in [[c for c in amb.checks if kind_of(c).provides("multiple_of")]] if checks
                        for region in amb.regions if env.rulebook.matches(
                            {k: v for k, v in region.items() if k != "params"}, frame.template, env.spec)]
    return known[frame]


def _self_overlaps_as_asked(env: Env, draft: CallDraft, target: Rule | None) -> bool:
    """The self_overlap rules the drawn parameters alone decide (an operand that writes a byte twice
    wherever it is placed: data_copy_nz2nd's dst rows, dstDStride < dValue): a self_overlap target's
    operand does, no other rule's does. A call that fails this is given up before it is placed, not once
    drawn and checked."""
    mine = kind_of(target).self_overlapping(target)
    others = written_once(env, target)
    if mine is None and not others:
        return True
    acc = accesses(env, draft, draft.params, plain=True)
    return (mine is None or writes_twice(acc.get(mine))) and not any(writes_twice(acc.get(op)) for op in others)


def legal_calls(api: str, product: str, *, form: str | None = None, dtype: str | None = None,
                rulebook: Rulebook, gm_window: int = DEFAULT_GM_WINDOW, batch: bool = False
                ) -> st.SearchStrategy[Case]:
    """Calls the oracle finds legal on `product`, reaching the ends of every range and of every scope
    (`batch`: lists of them, see searched_cases)."""
    env = environment(api, product, rulebook, gm_window)
    return searched_cases(_case, env, "legal", None, form, dtype, env.spec.forms_or_default(), batch=batch)


def rule_calls(api: str, product: str, rule_id: str, *, rulebook: Rulebook,
               gm_window: int = DEFAULT_GM_WINDOW, batch: bool = False) -> st.SearchStrategy[Case]:
    """Calls that break `rule_id` and no other rule: refused if it is a reject rule, open if undefined
    (`batch`: lists of them, see searched_cases)."""
    env = environment(api, product, rulebook, gm_window)
    return searched_cases(_case, env, env.rule(rule_id).severity, rule_id, None, None,
                          env.spec.forms_or_default(), batch=batch)


def reachable(env: Env, rule: Rule) -> bool:
    """Can a call break `rule` alone on this product? (No L1 on a Vector Core: no L1 alignment cell.)"""
    kind = kind_of(rule)
    if kind.by_product:
        return bool(kind.reachable(rule, env))
    if not env.supported:
        return False
    if rule.when and "products" in rule.when and env.product.id not in rule.when["products"]:
        return False
    decided = kind.reachable(rule, env)
    if decided is not None:
        return decided              # (a dtype rule that allows every dtype the kit knows: nothing breaks it)
    if rule.when and "dtypes" in rule.when and not kind.draws_dtype_rule:
        forms = rule.when.get("forms", env.spec.forms_or_default())
        if not any(d in env.legal_dtypes(f) for f in forms for d in rule.when["dtypes"]):
            return False            # e.g. a 64-bit mask range where no 64-bit dtype is legal
    if rule.when and "forms" in rule.when and not any(env.legal_dtypes(f) for f in rule.when["forms"]):
        return False                # every call of those forms is in an ambiguity (asc_gather's repeat form)
    layouts = [env.operand_scopes(p) for p in env.paths()] or [env.operand_scopes(None)]
    return any(kind.breakable_in(rule, scopes) for scopes in layouts)
