"""The edge sweep: every boundary a cell's rules define, reached by calls built the same way on every run.

Hypothesis's search is steered towards boundaries but not sure to reach them, and what it reaches moves
with the seed and the release. So before the search each cell of the `ci` and `nightly`
profiles judges a sweep: calls made by the kit's own generator (conformance.generate.strategies) from a *plan* of
choices instead of Hypothesis's (strategies.Picks), one plan per edge, alone and in pairs:

- legal cells: every parameter at the bottom of its legal range (all together), and each one at its top
  (the range's max, or the largest value that fits the scopes) on every path, with the operands pushed to
  the top of their scopes; then every ordered pair of parameters at their tops together; mask words
  full, first-element-only and last-element-only; offsets at the top of their range; in-place use;
- reject / undefined cells: one past each end of a range (alone, and with each other parameter at its
  top), every misalignment unit, each forbidden path, scope, dtype and list length, a mask of zeros and
  one past each word's range, a tensor one element short or one past the top of its scope.

- ambiguity cells: each region (and check) of the ambiguity entered, each end of each of its parameter
  ranges (or the largest value that fits, where a reading's index math makes the end too big), the
  bottom and top of a reserved top (conformance/generate/ambiguity.py: edge_choices).

`targets(cell, rulebook)` lists the edges a cell can reach (its *reachable* edges, worked out from the rules
and the scope sizes, not from the sweep); `sweep(cell, rulebook)` gives the calls (`rulebook`: the plain
specs the calls are drawn from, as for the search; the caches below are kept per environment, which
environment.py makes once per rulebook object). tests/generate/test_edges.py checks that the
sweep reaches every reachable edge, that it does not depend on the seed, and that an off-by-one range
check is caught at every range end. A plan's choices not in the plan come from a `random.Random` seeded
by the cell and the plan: the same calls on every machine, whatever the seed or the Hypothesis release.
"""
from __future__ import annotations

import functools
import zlib
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from oracle.kinds import kind_of
from oracle.spec import Rulebook

from conformance.generate.ambiguity import edge_choices
from conformance.generate.ambiguity import planned as planned_ambiguity
from conformance.generate.ambiguity import Region, region
from conformance.generate.case import Case
from conformance.generate.cells import Cell
from conformance.generate.environment import DEFAULT_GM_WINDOW, Env, environment
from conformance.generate.parameters import fit_tops
from conformance.generate.picks import Planned
from conformance.generate.strategies import planned_case

ATTEMPTS = 16           # salts tried per plan before it is given up (a plan's unplanned choices vary)


@dataclass(frozen=True)
class Plan:
    """Choices that should give a call carrying `tags` (empty: any call of the cell will do), and the
    alternatives tried in order when they do not (another path, dtype or form)."""

    alternatives: tuple[tuple[tuple[str, Any], ...], ...]
    tags: frozenset[str] = frozenset()

    @staticmethod
    def of(choices: Mapping[str, Any], *tags: str) -> "Plan":
        return Plan.any_of([choices], *tags)

    @staticmethod
    def any_of(alternatives: Sequence[Mapping[str, Any]], *tags: str) -> "Plan":
        return Plan(tuple(tuple(sorted(c.items(), key=lambda kv: kv[0])) for c in alternatives), frozenset(tags))


def _env(cell: Cell, rulebook: Rulebook, gm_window: int) -> Env:
    return environment(cell.api, cell.product, rulebook, gm_window)


def _region(cell: Cell, env: Env) -> Region:
    """The region of an ambiguity cell, from the rulebook and GM window of the cell's plain environment."""
    return region(cell.api, cell.product, cell.rule, env.rulebook, env.gm_window)


def _paths(env: Env) -> list[str | None]:
    return list(env.paths()) or [None]


def _sized(env: Env, path: str | None) -> list[str]:
    """The scopes of a path that have a top (GM has none)."""
    return sorted({s for s in env.operand_scopes(path).values() if s != "GM"})


def _words(env: Env, form: str | None) -> list[str]:
    return [n for n in env.param_names(form) if env.spec.param_type(n, form) == "words"]


def _values(env: Env) -> list[str]:
    return [op for op, d in env.spec.operands.items() if d.get("values") == "offsets"]


def _wide_count_masks(env: Env, form: str | None) -> list[str]:
    """Count-mode masks of this form whose range runs past an iteration (their values split there)."""
    covers = max(env.spec.mask_covers.values(), default=None)
    return [n for n, modes in env.spec.masks.items() if modes.get(form) == "count" and covers is not None
            and any(i is not None and i[1] > covers for r in env.spec.rules_that("interval")
                    for i in [kind_of(r).interval(r, n)])]


def _shape_plan(env: Env, form: str | None) -> dict[str, Any]:
    """Mask words set to one element (the smallest footprint), and a count-mode mask whose range runs past an
    iteration within one (its first interval, from 0): the start every parameter is sized from."""
    return {**{f"{n}.shape": "first" for n in _words(env, form)},
            **{f"{n}.interval": "first" for n in _wide_count_masks(env, form)}}


def _one_element(env: Env, form: str | None) -> dict[str, Any]:
    """Those count-mode masks set to one element, as the shape plan sets mask words: a call that moves something."""
    return {n: 1 for n in _wide_count_masks(env, form)}


def _top_plan(env: Env, path: str | None) -> dict[str, Any]:
    return {f"{s}.gap": "max" for s in _sized(env, path)}


def _in_place(env: Env, form: str | None) -> list[str]:
    """Operands a legal call may pass in place of another (an iteration rule that allows identical ones)."""
    out = []
    for rule in env.spec.rules:
        meeting = kind_of(rule).meeting(rule)
        if meeting is not None:
            a, b, _, identical = meeting
            if identical and a != b and b not in out:
                out.append(b)
    return out


# ------------------------------------------------------------------------------------------- targets


@functools.lru_cache(maxsize=None)
def _legal_tops(cell: Cell, env: Env) -> dict[str, dict[str | None, tuple[int, int, int | None, dict[str, int]]]]:
    """Per parameter, per path: (lowest, highest legal value, largest that fits, the other parameters
    that are not at their lowest then); see strategies.fit_tops."""
    out: dict[str, dict[str | None, tuple[int, int, int | None, dict[str, int]]]] = {}
    for path in _paths(env):
        pick = Planned(_shape_plan(env, cell.form), 0)
        for n, t in fit_tops(env, cell.form, cell.dtype, path, pick).items():
            out.setdefault(n, {})[path] = t
    return out


def _top_tag(lo: int, hi: int, fit: int | None, adjust: Any = None) -> str | None:
    if fit is None or fit <= lo:
        return None
    return "max" if fit == hi else "largest-fit"


def _legal_targets(cell: Cell, env: Env) -> set[str]:
    out: set[str] = set()
    for n, per_path in _legal_tops(cell, env).items():
        tops = {_top_tag(*t) for t in per_path.values()} - {None}
        if any(fit is not None for _, _, fit, _ in per_path.values()):
            out.add(f"{n}=min")
        if tops:
            out.add(f"{n}=max" if "max" in tops else f"{n}=largest-fit")
    for path in _paths(env):
        out |= {f"{s}=top" for s in _sized(env, path)}
    for name in _words(env, cell.form):
        out |= {f"{name}=all", f"{name}=first", f"{name}=last"}
    out |= {f"{op}=in-place" for op in _in_place(env, cell.form)}
    out |= {f"{v}=top" for v in _values(env)}
    return out


def _forms(env: Env, rule: Any) -> list[str | None]:
    forms = list(env.spec.forms_or_default())
    if rule.when and "forms" in rule.when:
        forms = [f for f in forms if f in rule.when["forms"]]
    return forms


class CellSweep:
    """What a rule kind's edges are read from (RuleKind.edges): the cell's environment and paths, the
    forms its rule holds for, the plan that sizes every parameter from its start, and whether a call
    fits its scopes with a parameter at a value."""

    def __init__(self, env: Env, gm_window: int):
        self.env, self.gm_window, self.paths = env, gm_window, _paths(env)

    def forms(self, rule: Any) -> list[str | None]:
        return _forms(self.env, rule)

    def shape_plan(self, form: str | None) -> dict[str, Any]:
        return _shape_plan(self.env, form)

    def range_fits(self, rule: Any, value: int) -> bool:
        return _range_fits(self.env, rule, value, self.gm_window)


def _rule_targets(cell: Cell, env: Env) -> dict[str, list[dict[str, Any]]]:
    """Edge tag -> the plans (choices) to try for it, for a reject / undefined cell (its rule's kind
    names them); a plan without a form is tried on each form the rule holds for."""
    rule = env.spec.rule(cell.rule)
    out = kind_of(rule).edges(rule, CellSweep(env, env.gm_window))
    forms = _forms(env, rule)
    return {tag: [c if "form" in c else {**c, "form": f} for c in alts for f in forms] for tag, alts in out.items()}


def _range_fits(env: Env, rule: Any, value: int, gm_window: int) -> bool:
    """Can a call with the rule's parameter at `value` (one past an end) fit its scopes, every other
    parameter at its start, on some form, dtype and path? (burst 65536 fits no UB: not reachable.)"""
    from oracle.kinds import Retry
    from conformance.generate.draft import CallDraft  # the generator's own sizing
    from conformance.generate.parameters import starting_point
    from conformance.generate.sizing import fits
    param = kind_of(rule).forced_param(rule)
    if param is None:
        return False
    for form in _forms(env, rule):
        for dtype in env.legal_dtypes(form):
            if rule.when and "dtypes" in rule.when and dtype not in rule.when["dtypes"]:
                continue
            for path in _paths(env):
                draft = CallDraft(form, env.operand_dtypes(dtype), env.operand_scopes(path))
                draft.counts = {op: d["entries"] for op, d in env.spec.operands.items() if "entries" in d}
                try:
                    start = starting_point(Planned(_shape_plan(env, form), 0), env, draft, rule)
                except Retry:
                    continue
                if fits(env, draft, {**start.params, param: value}, start.aligns):
                    return True
    return False


def targets(cell: Cell, rulebook: Rulebook, gm_window: int = DEFAULT_GM_WINDOW) -> list[str]:
    """The edges a call of the cell drawn from `rulebook` can reach, as the tags that name them (sorted)."""
    env = _env(cell, rulebook, gm_window)
    if cell.expect == "legal":
        return sorted(_legal_targets(cell, env))
    if cell.expect == "ambiguity":
        return sorted(_ambiguity_targets(cell, _region(cell, env)))
    return sorted(_rule_targets(cell, env))


@functools.lru_cache(maxsize=None)
def _ambiguity_targets(cell: Cell, where: Region) -> dict[str, list[dict[str, Any]]]:
    """Edge tag -> the plans to try for it, for an ambiguity cell (ambiguity.edge_choices)."""
    return edge_choices(where, Planned(_shape_plan(where.env, None), 0))


# ------------------------------------------------------------------------------------------- plans


def _legal_plans(cell: Cell, env: Env) -> list[Plan]:
    tops = _legal_tops(cell, env)
    names = [n for n in env.param_names(cell.form) if env.spec.param_type(n, cell.form) != "words"]
    base = _shape_plan(env, cell.form)
    plans = [Plan.of(base, *(f"{n}=min" for n in tops))]
    paths = _paths(env)

    def up(n: str, path: str | None) -> dict[str, Any]:
        return {n: "max", f"{n}.interval": "last", "order": names.index(n), "path": path}

    for n in names:
        for path in paths:
            fit = tops.get(n, {}).get(path)
            tag = _top_tag(*fit) if fit else None
            if tag is not None:         # n last: the others at their start (fit[3]) when its top is found
                last = {"order": (names.index(n) + 1) % len(names), **fit[3]}
                plans.append(Plan.of({**base, **up(n, path), **_top_plan(env, path), **last}, f"{n}={tag}"))
    climbing = [n for n in names if any(_top_tag(*t) for t in tops.get(n, {}).values())]
    for i, a in enumerate(climbing):            # every ordered pair at their tops: a first, then b
        for j, b in enumerate(climbing):
            if a != b:
                path = paths[(i * len(climbing) + j) % len(paths)]
                plans.append(Plan.of({**base, **up(a, path), b: "max", f"{b}.interval": "last",
                                      **_top_plan(env, path)}))
    for path in paths:
        if _sized(env, path):
            plans.append(Plan.of({**base, "path": path, **_top_plan(env, path)},
                                 *(f"{s}=top" for s in _sized(env, path))))
    for name in _words(env, cell.form):
        plans += [Plan.of({f"{name}.shape": s}, f"{name}={s}") for s in ("all", "first", "last")]
    plans += [Plan.of({**base, f"{op}.in-place": True}, f"{op}=in-place") for op in _in_place(env, cell.form)]
    plans += [Plan.of({**base, **_one_element(env, cell.form), v: "top"}, f"{v}=top") for v in _values(env)]
    return plans


def _rule_plans(cell: Cell, env: Env) -> list[Plan]:
    rule = env.spec.rule(cell.rule)
    plans = [Plan.any_of([{"form": f} for f in _forms(env, rule)])]
    for tag, choices in _rule_targets(cell, env).items():
        plans.append(Plan.any_of(choices, tag))
    plans += [Plan.of(choices) for choices in kind_of(rule).extra_plans(rule, CellSweep(env, env.gm_window))]
    return plans


def plans(cell: Cell, rulebook: Rulebook, gm_window: int = DEFAULT_GM_WINDOW) -> list[Plan]:
    """The sweep's plans for a cell drawn from `rulebook`, in a fixed order."""
    return _plans(cell, _env(cell, rulebook, gm_window))


def _plans(cell: Cell, env: Env) -> list[Plan]:
    if cell.expect == "ambiguity":        # any call of each region, then each edge
        where = _region(cell, env)
        return [Plan.any_of([{"region": k} for k in where.keys])] + [
            Plan.any_of(choices, tag) for tag, choices in _ambiguity_targets(cell, where).items()]
    return _legal_plans(cell, env) if cell.expect == "legal" else _rule_plans(cell, env)


# ------------------------------------------------------------------------------------------- sweep


def _salt(cell: Cell, choices: tuple[tuple[str, Any], ...], attempt: int) -> int:
    return zlib.crc32(f"{cell.id}|{choices!r}|{attempt}".encode())


@functools.lru_cache(maxsize=256)
def _sweep(cell: Cell, env: Env) -> tuple[Case, ...]:
    """Each plan's call; a cell none of whose plans gave one (its calls rare among loose ones: a write
    twice that every parameter must make) tries them again with four times the salts."""
    out: list[Case] = []
    seen: set[tuple[str, str] | None] = set()
    for attempts in (ATTEMPTS, 4 * ATTEMPTS):
        for plan in _plans(cell, env):
            case = _realise(cell, env, plan, attempts)
            key = None if case is None else (case.call.to_json(), repr(case.memory.to_dict()))
            if case is not None and key not in seen:
                seen.add(key)
                out.append(case)
        if out:
            break
    return tuple(out)


def _realise(cell: Cell, env: Env, plan: Plan, attempts: int = ATTEMPTS) -> Case | None:
    """The first call an alternative of the plan gives that carries the plan's tags (small calls
    first, then loose ones). An attempt whose choices no salt changed (the Random answered none that had
    two answers) is what every other salt of its alternative gives: that alternative is tried no more."""
    for loose in (False, True):
        for choices in plan.alternatives:
            for attempt in range(attempts // 2):
                pick = Planned(dict(choices), _salt(cell, choices, attempt), loose)
                if cell.expect == "ambiguity":
                    case = planned_ambiguity(pick, _region(cell, env))
                else:
                    case = planned_case(pick, env, cell.expect, cell.rule, cell.form, cell.dtype)
                if case is not None and plan.tags <= set(case.tags):
                    return case
                if not pick.varied:
                    break
    return None


def sweep(cell: Cell, rulebook: Rulebook, gm_window: int = DEFAULT_GM_WINDOW) -> list[Case]:
    """The sweep's calls for a cell drawn from `rulebook`, in a fixed order: the same on every run (no seed)."""
    return list(_sweep(cell, _env(cell, rulebook, gm_window)))


def reached(cases: Sequence[Case], reachable: Sequence[str]) -> list[str]:
    """Of the reachable edges, those some case reaches."""
    tags = {t for c in cases for t in c.tags}
    return sorted(t for t in reachable if t in tags)
