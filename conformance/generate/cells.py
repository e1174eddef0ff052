"""The tree of test cells, named like WebGPU CTS cases and selectable by glob:

    <api>/<product>/legal[/<form>]/<dtype>        legal calls of one dtype (and form)
    <api>/<product>/reject/<rule id>              calls breaking exactly that reject rule
    <api>/<product>/undefined/<rule id>           calls in that rule's undefined territory
    <api>/<product>/ambiguity/<ambiguity id>      calls in that ambiguity's region, legal but for it

An ambiguity gets a cell only when asked for (a declared reading, or a differential run): otherwise the
generators stay out of its region and the results list it as not tested.
"""
from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from hypothesis import HealthCheck, Phase, given
from hypothesis import seed as hseed
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.errors import FailedHealthCheck, Unsatisfiable

from oracle.spec import Rulebook

from conformance.generate.ambiguity import ambiguity_calls, reachable_ambiguity
from conformance.generate.blocks import fixed_blocks
from conformance.generate.case import Case
from conformance.generate.environment import DEFAULT_GM_WINDOW, environment
from conformance.generate.strategies import (BatchEnd, ending_batches, legal_calls, reachable, rule_calls,
                                             search_rounds)


@dataclass(frozen=True)
class Cell:
    api: str
    product: str
    expect: str                # what its calls are: "legal" | "reject" | "undefined" | "ambiguity" (Case.expect)
    form: str | None = None
    dtype: str | None = None
    rule: str | None = None    # the rule (the ambiguity, for an ambiguity cell)

    @property
    def id(self) -> str:
        tail = [self.form, self.dtype] if self.expect == "legal" else [self.rule]
        return "/".join([self.api, self.product, self.expect] + [p for p in tail if p])

    def strategy(self, rulebook: Rulebook, gm_window: int = DEFAULT_GM_WINDOW, batch: bool = False
                 ) -> st.SearchStrategy[Any]:
        """The cell's calls, drawn from `rulebook` (the plain specs: no reading declared; `batch`: lists
        of up to SEARCH_BATCH of them per Hypothesis example)."""
        if self.expect == "legal":
            return legal_calls(self.api, self.product, form=self.form, dtype=self.dtype,
                               rulebook=rulebook, gm_window=gm_window, batch=batch)
        if self.expect == "ambiguity":
            return ambiguity_calls(self.api, self.product, self.rule, rulebook=rulebook, gm_window=gm_window,
                                   batch=batch)
        return rule_calls(self.api, self.product, self.rule, rulebook=rulebook, gm_window=gm_window, batch=batch)

    def draw(self, examples: int, seed: int, rulebook: Rulebook, gm_window: int = DEFAULT_GM_WINDOW
             ) -> list[Case]:
        """The cases a seeded search of the cell generates from `rulebook` (as `strategy`), as the runner's
        search does (its batches, in its rounds; generate phase only: nothing is run, nothing shrinks);
        empty when no call can be made for the cell."""
        out: list[Case] = []
        keys: set[Any] = set()          # a case is kept once (Case.key), as the runner judges it once
        for batches, round_seed in search_rounds(examples, seed, lambda: len(out)):

            @settings(max_examples=batches, database=None, derandomize=False, phases=[Phase.generate],
                      suppress_health_check=list(HealthCheck), deadline=None)
            @hseed(round_seed)
            @given(self.strategy(rulebook, gm_window, batch=True))
            def collect(cases: list[Case]) -> None:
                for case in cases:
                    if len(out) < examples and case.key not in keys:
                        keys.add(case.key)
                        out.append(case)

            try:
                with fixed_blocks():
                    ending_batches(collect, BatchEnd(keys, lambda: examples - len(out), lambda: False))
            except (Unsatisfiable, FailedHealthCheck):
                pass
        return out

    def to_dict(self) -> dict[str, str | None]:
        return {"id": self.id, "api": self.api, "product": self.product, "kind": self.expect,
                "form": self.form, "dtype": self.dtype, "rule": self.rule}


def cells(products: Sequence[str], apis: Sequence[str] | None = None, *, rulebook: Rulebook,
          gm_window: int = DEFAULT_GM_WINDOW, ambiguities: Iterable[str] | None = None) -> list[Cell]:
    """Every cell of the given products and apis (default: all of `rulebook`'s), in a stable order; with
    `ambiguities` (ids: the declared readings, or every one in a differential run), after an api's other
    cells one cell per ambiguity of that api whose region holds calls of the product (in spec order).
    An unknown ambiguity id is a ValueError naming it."""
    wanted = set(ambiguities or ())
    for amb in sorted(wanted):
        rulebook.ambiguity(amb)
    out = []
    for product in products:
        rulebook.product(product)
        for api in apis or sorted(rulebook.apis):
            env = environment(api, product, rulebook, gm_window)
            if env.supported:
                for form in env.spec.forms_or_default():
                    out += [Cell(api, product, "legal", form, d) for d in env.legal_dtypes(form)]
            out += [Cell(api, product, r.severity, rule=r.id) for r in env.spec.rules if reachable(env, r)]
            out += [Cell(api, product, "ambiguity", rule=a.id) for a in env.spec.ambiguities
                    if a.id in wanted and reachable_ambiguity(api, product, a.id, rulebook, gm_window)]
    return out


def ambiguity_ids(apis: Sequence[str] | None = None, *, rulebook: Rulebook) -> list[str]:
    """Every ambiguity id of `rulebook`'s given apis (default: all), in spec order (a differential run's)."""
    return [a.id for api in apis or sorted(rulebook.apis) for a in rulebook.api(api).ambiguities]


def shard(all_cells: Sequence[Cell], index: int, count: int) -> list[Cell]:
    """Shard `index` of `count` (1-based): every count-th cell from the index-th, as the Vulkan CTS's
    fractions do. The shards of one cell list are disjoint, cover it, and differ in size by one at most."""
    if not 1 <= index <= count:
        raise ValueError(f"shard {index}/{count}: expected 1 <= I <= N")
    return list(all_cells)[index - 1::count]


def select(all_cells: Iterable[Cell], patterns: Sequence[str] | None) -> list[Cell]:
    """Cells whose id matches any glob (e.g. 'data_move/*/reject/*'); all of them when none is given."""
    all_cells = list(all_cells)
    if not patterns:
        return all_cells
    return [c for c in all_cells if any(fnmatch.fnmatchcase(c.id, p) for p in patterns)]
