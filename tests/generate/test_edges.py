"""The edge sweep (conformance/generate/edges.py) and the calls a seed draws (conformance/generate/seal.py).

Checked: in every cell of every product the sweep reaches every edge the cell's rules make reachable,
with calls that carry exactly the violations of their cell and tags that say true things; the sweep and
what `ci` reports as reached do not depend on the run seed; an off-by-one range check (refusing the
edge value, or running the value one past it) is caught under `ci` with three seeds, for every range
rule of every api and product; and two backends that differ only in the constants of their module get
the same calls from one seed (each in a process of its own, as two certifications would be).
"""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import textwrap
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest

from conformance import OracleBackend, Rejected
from conformance.generate.cells import Cell, cells, select
from conformance.generate.seal import sealed
from conformance.generate.edges import plans, reached, sweep, targets
from conformance.generate.picks import BLOCK
from conformance.generate.profiles import profile
from conformance.judge.runner import run_cell
from oracle import check, verdict_class
from oracle.spec import default_rulebook

from kit_path import HELPERS
ROOT = Path(__file__).resolve().parents[2]
CI = profile("ci")
PRODUCTS = list(default_rulebook().products)
SEEDS = (3, 1009, 20240601)


@lru_cache(maxsize=None)
def _cells(product: str) -> tuple[Cell, ...]:
    return tuple(cells([product], rulebook=default_rulebook()))


def _one(cell_id: str) -> Cell:
    (cell,) = select(_cells(cell_id.split("/")[1]), [cell_id])
    return cell


def _value(call: Any, param: str) -> Any:
    value: Any = call.args
    for part in param.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


# ---------------------------------------------------------------------------------------------------
# the sweep reaches every reachable edge, with honest calls


def _legal_ends(cell: Cell, call: Any, param: str) -> tuple[int, int] | None:
    """The lowest and highest legal value of `param` for this call, from the spec alone: its range
    rules that apply, less the ambiguity regions of that one parameter, on its multiples."""
    spec, rulebook = default_rulebook().api(cell.api), default_rulebook()
    ranges = [r for r in spec.rules if r.kind == "range" and r["param"] == param and rulebook.matches(r.when, call, spec)]
    if not ranges:      # a bool parameter has none: False / True
        return (0, 1) if spec.params[param].get("type") == "bool" else None
    lo, hi = max(r["min"] for r in ranges), min(r["max"] for r in ranges)
    for amb in spec.ambiguities:
        for region in amb.regions:
            cut = region.get("params", {})
            if not amb.checks and list(cut) == [param] and rulebook.matches({k: v for k, v in region.items()
                                                                           if k != "params"}, call, spec):
                a, b = cut[param]
                lo = b + 1 if a <= lo <= b else lo
                hi = a - 1 if a <= hi <= b else hi
    step = 1
    for r in (r for r in spec.rules if r.kind == "multiple"):
        if r["param"] == param and rulebook.matches(r.when, call, spec):
            step = r["of"] if r["of"] != "element" else rulebook.itemsize(spec.dtype_of_call(call))
    return -(-lo // step) * step, hi // step * step


@pytest.mark.parametrize("product", PRODUCTS)
def test_sweep_reaches_every_reachable_edge(product: str) -> None:
    """Every cell: a sweep, every reachable edge reached; each call carries exactly the violations of
    its cell; a parameter tagged min / max is at its lowest / highest legal value (from the spec), one
    tagged largest-fit below its highest."""
    for cell in _cells(product):
        cases = sweep(cell, default_rulebook())
        assert cases, f"{cell.id}: empty sweep"
        reachable = targets(cell, default_rulebook())
        assert reached(cases, reachable) == reachable, (cell.id, sorted(set(reachable) - set(reached(cases, reachable))))
        for case in cases:
            memory = case.memory.build() if case.memory.writes else None
            violations = check(case.call, memory)
            assert verdict_class(violations) == cell.expect, (cell.id, case.tags, violations)
            if cell.expect != "legal":
                assert {v.rule for v in violations} == {cell.rule}, (cell.id, violations)
            for tag in case.tags:
                param, _, where = tag.partition("=")
                if where not in ("min", "max", "largest-fit") or "." not in param and param not in (
                        default_rulebook().api(cell.api).params):
                    continue
                ends = _legal_ends(cell, case.call, param)
                value = int(_value(case.call, param))
                if where == "min":
                    assert value == ends[0], (cell.id, tag, value, ends)
                elif where == "max":
                    assert value == ends[1], (cell.id, tag, value, ends)
                else:
                    assert ends[0] < value < ends[1], (cell.id, tag, value, ends)


def test_targets_name_the_page_edges() -> None:
    """What the sweep must reach, on cells where the page's numbers say what it is: nValue 8192 fits a
    310P AI Core's 256 KB of UB in 16-bit (where a 13-bit nValue field would wrap); burst 65535 fits no
    buffer (its largest fit instead); one past both ends of nburst; every misalignment of a UB address
    for 8-bit data; every forbidden path."""
    nz = targets(_one("data_copy_nz2nd/ascend310p-aicore/legal/int16"), default_rulebook())
    assert {"intriParams.nValue=max", "intriParams.nValue=min", "intriParams.ndNum=min", "UB=top"} <= set(nz)
    dm = targets(_one("data_move/ascend910b/legal/float16"), default_rulebook())
    assert {"burst=largest-fit", "burst=min", "nburst=max", "src_stride=max", "UB=top", "L1=top"} <= set(dm)
    assert "burst=max" not in dm
    assert targets(_one("data_move/ascend910b/reject/data_move.nburst.range"), default_rulebook()) == [
        "nburst=above-max", "nburst=below-min"]
    assert targets(_one("data_move/ascend910b/reject/data_move.burst.range"), default_rulebook()) == [
        "burst=below-min"]
    assert targets(_one("data_move/ascend910b/reject/data_move.dst.align.UB"), default_rulebook()) == sorted(
        f"dst=off-by-{d}" for d in range(1, 32))
    paths = targets(_one("data_move/ascend910b/reject/data_move.path.supported"), default_rulebook())
    assert "path=L1->UB" in paths and "path=GM->GM" in paths and "path=UB->GM" not in paths
    masks = targets(_one("scatter/ascend310b/legal/mask_bits/int16"), default_rulebook())
    assert {"mask=all", "mask=first", "mask=last"} <= set(masks)


# ---------------------------------------------------------------------------------------------------
# seed independence


class Recording(OracleBackend):
    """The reference, keeping the calls it is given."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[str] = []

    def run(self, call: Any, memory: Any) -> None:
        self.calls.append(call.to_json())
        super().run(call, memory)


@pytest.mark.parametrize("cell_id", ["data_copy_nz2nd/ascend310p-aicore/legal/int16",
                                     "scatter/ascend310b/reject/scatter.mask.continuous_8_16bit",
                                     "vec_trans_scatter/ascend910b/legal/float16"])
def test_sweep_does_not_depend_on_the_seed(cell_id: str) -> None:
    """Three run seeds: the runner judges the same sweep first (the sweep has no seed at all), reaches
    every reachable edge, then searches differently."""
    cell = _one(cell_id)
    expected = [c.call.to_json() for c in sweep(cell, default_rulebook())]
    book = default_rulebook()
    assert [p.alternatives for p in plans(cell, book)] == [p.alternatives for p in plans(cell, book)]
    streams = []
    for seed in SEEDS:
        backend = Recording()
        result = run_cell(cell, backend, CI, seed, rulebook=default_rulebook())
        assert result.failure is None and result.sweep_calls == len(expected)
        assert backend.calls[:len(expected)] == expected
        assert result.edges["reachable"] == targets(cell, default_rulebook()) and result.edges["missed"] == []
        streams.append(backend.calls[len(expected):])
    assert streams[0] != streams[1] != streams[2]


# ---------------------------------------------------------------------------------------------------
# off-by-one range checks


class OffByOne(OracleBackend):
    """The reference with one wrong range check: it refuses `param == value` (`refuse`), or runs a call
    with `param == value` (one past the range) without a word, writing nothing."""

    def __init__(self, param: str, value: int, refuse: bool):
        super().__init__()
        self.param, self.value, self.refuse = param, value, refuse
        self.name = f"off-by-one-{param}-{value}"

    def run(self, call: Any, memory: Any) -> None:
        value = _value(call, self.param)
        if isinstance(value, (int, bool)) and int(value) == self.value:
            if self.refuse:
                raise Rejected(f"{self.param} = {value} out of range")
            return
        super().run(call, memory)


def _range_edges() -> list[tuple[str, str, int, bool, str]]:
    """(cell id, param, value, refuse, tag) for every range rule end of every api and product a call
    can reach: each legal end in the first legal cell that reaches it, each value one past an end in
    the rule's own cell."""
    out = []
    rulebook = default_rulebook()
    for product in PRODUCTS:
        for cell in _cells(product):
            spec = rulebook.api(cell.api)
            if cell.expect == "reject" and spec.rule(cell.rule).kind == "range":
                rule = spec.rule(cell.rule)
                if _on_a_grid(spec, rule["param"]):     # drawn on its multiples: one past the range is off them
                    continue
                for tag in targets(cell, default_rulebook()):
                    value = rule["min"] - 1 if tag.endswith("=below-min") else rule["max"] + 1
                    out.append((cell.id, rule["param"], value, False, tag))
        for api in sorted(rulebook.apis):
            spec = rulebook.api(api)
            for rule in (r for r in spec.rules if r.kind == "range"):
                for end in ("min", "max"):
                    cell = next((c for c in _cells(product) if c.api == api and c.expect == "legal"
                                 and f"{rule['param']}={end}" in targets(c, default_rulebook())
                                 and _applies(rule, c)), None)
                    if cell is None:
                        continue
                    case = next(c for c in sweep(cell, default_rulebook()) if f"{rule['param']}={end}" in c.tags)
                    out.append((cell.id, rule["param"], int(_value(case.call, rule["param"])), True,
                                f"{rule['param']}={end}"))
    return sorted(set(out))


def _on_a_grid(spec: Any, param: str) -> bool:
    """Is `param` drawn on the multiples of the element width (a `multiple` rule of `of: element`)? Its
    reject cell's dtype is drawn per call, so one past its range is no single value; its legal ends are
    checked below."""
    return any(r["param"] == param and r["of"] == "element" for r in spec.rules if r.kind == "multiple")


def _applies(rule: Any, cell: Cell) -> bool:
    when = rule.when or {}
    return ((not when.get("forms") or cell.form in when["forms"]) and (not when.get("dtypes") or cell.dtype in when["dtypes"])
            and (not when.get("products") or cell.product in when["products"]))


RANGE_EDGES = _range_edges()


def test_every_range_rule_has_its_edges_checked() -> None:
    """Every range rule of every api with a cell on some product has at least one end here."""
    rulebook = default_rulebook()
    covered = {(cid.split("/")[0], param) for cid, param, _, _, _ in RANGE_EDGES}
    for api in rulebook.apis:
        for rule in (r for r in rulebook.api(api).rules if r.kind == "range"):
            if any(rule.id == c.rule for p in PRODUCTS for c in _cells(p)):
                assert (api, rule["param"]) in covered, rule.id
    assert len(RANGE_EDGES) > 100


@pytest.mark.parametrize("cell_id,param,value,refuse,tag", RANGE_EDGES,
                         ids=[f"{e[0]}:{e[4]}" for e in RANGE_EDGES])
def test_off_by_one_range_check_is_caught(cell_id: str, param: str, value: int, refuse: bool, tag: str) -> None:
    """A backend wrong at exactly one range end is caught under `ci` whatever the seed: FALSE_REJECT
    where it refuses the legal edge value, MISSED_REJECT where it runs the value one past."""
    cell = _one(cell_id)
    for seed in SEEDS:
        result = run_cell(cell, OffByOne(param, value, refuse), CI, seed, rulebook=default_rulebook())
        assert result.failure is not None, f"{cell_id}: {tag} not caught with seed {seed} ({result.counts})"
        assert result.failure["verdict"] == ("FALSE_REJECT" if refuse else "MISSED_REJECT")
        assert int(_value(__import__("oracle").Call.from_dict(result.failure["call"]), param)) == value


# ---------------------------------------------------------------------------------------------------
# same seed, same calls, whatever the backend


BACKEND = '''
"""A backend module: the reference under another name, with constants of its own."""
from conformance import OracleBackend
LIMITS = {limits}
NAMES = {names}
BLOCKS = {blocks}
backend = OracleBackend()
'''

DRAW = '''
import hashlib, importlib, json, sys
sys.path[:0] = [{root!r}, {folder!r}]
importlib.import_module({module!r})                 # loaded as a backend under test is
{unseal}
from conformance.generate.cells import cells, select
from conformance.generate.seal import sealed
from oracle.spec import default_rulebook
book = default_rulebook()
out = {{"sealed": sealed()}}
for cid in {cells!r}:
    (cell,) = select(cells([cid.split("/")[1]], [cid.split("/")[0]], rulebook=book), [cid])
    cases = cell.draw({examples}, {seed}, book)
    out[cid] = [c.call.to_json() for c in cases]
print(json.dumps(out))
'''

UNSEAL = '''
from hypothesis.internal.conjecture import providers
import conformance.generate.strategies
providers._get_local_constants = providers._get_local_constants.__wrapped__
'''

STREAM_CELLS = ["data_move/ascend910b/legal/float16", "data_copy_nz2nd/ascend910b/legal/int16"]


def _stream(tmp: Path, module: str, constants: int, unseal: bool = False, seed: int = 12345) -> dict[str, Any]:
    folder = tmp / module
    folder.mkdir()
    limits = {f"LIMIT_{i}": 4096 + 37 * i + constants for i in range(40)}
    names = [f"field_{i}_{constants}" for i in range(10)]
    blocks = [bytes([i + constants]) * BLOCK for i in range(10)]     # the kit draws blocks of bytes (picks.py)
    (folder / f"{module}.py").write_text(BACKEND.format(limits=limits, names=names, blocks=blocks), encoding="utf-8")
    code = DRAW.format(root=str(HELPERS), folder=str(folder), module=module, unseal=UNSEAL if unseal else "",
                       cells=STREAM_CELLS, examples=60, seed=seed)
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_same_seed_same_calls_whatever_the_backend(tmp_path: Path) -> None:
    """Two backend modules that differ only in their constants (integers, strings and blocks of bytes),
    each loaded in a process of its own: one seed draws the same calls in both, sealed or not (the kit
    draws blocks of bytes, picks.py, and the seal guards a release that mixes constants into those too).
    The control: another seed draws other calls, so the comparison can fail."""
    assert sealed()
    one, two = _stream(tmp_path, "backend_one", 0), _stream(tmp_path, "backend_two", 1)
    assert one["sealed"] and two["sealed"]
    for cid in STREAM_CELLS:
        assert len(one[cid]) == 60 and one[cid] == two[cid], cid
    three, four = _stream(tmp_path, "backend_three", 0, True), _stream(tmp_path, "backend_four", 1, True)
    assert all(three[cid] == four[cid] == one[cid] for cid in STREAM_CELLS)
    other = _stream(tmp_path, "backend_five", 0, seed=54321)
    assert all(other[cid] != one[cid] for cid in STREAM_CELLS), "the control did not tell the seeds apart"
    digest = hashlib.sha256(json.dumps(one).encode()).hexdigest()
    assert digest == hashlib.sha256(json.dumps(two).encode()).hexdigest()


def test_seal_is_in_effect_on_the_installed_release() -> None:
    """The private name draws.seal replaces exists in this release and is replaced: a module with new
    constants loaded now adds none to what Hypothesis mixes in."""
    from hypothesis.internal.conjecture import providers
    import conformance.generate.strategies  # noqa: F401  (seals on import)
    assert sealed()
    assert len(providers._get_local_constants()) == 0
    assert callable(getattr(providers._get_local_constants, "__wrapped__", None))
