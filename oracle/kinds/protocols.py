"""What the kit hands a rule kind, as the kind sees it: each a Protocol of the members kinds read.

The checker's context, the fast path's source, the rulebook and the API spec live in modules that import
the kinds; the environment, the sweep, the picks, the draft and the placement live in conformance/generate,
a layer above. A kind names none of those modules: it names these, and the objects the kit passes are
checked against them where they are made (mypy on oracle/), or match them by the members they carry.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Optional, Protocol, TypeVar

import numpy as np

from oracle.call import Call, Tensor
from oracle.footprint import Runs
from oracle.iterations import Family
from oracle.records import Ambiguity, Product, Rule

T = TypeVar("T")
Plan = dict[str, Any]                   # an edge's choices: choice label -> value (conformance/generate/edges.py)
Plans = dict[str, list[Plan]]           # edge tag -> the plans that reach it


class Spec(Protocol):
    """An API's spec (oracle/rulebook.py: ApiSpec)."""

    @property
    def api(self) -> str: ...
    @property
    def operands(self) -> Mapping[str, Mapping[str, Any]]: ...
    @property
    def params(self) -> Mapping[str, Mapping[str, Any]]: ...
    @property
    def rules(self) -> tuple[Rule, ...]: ...
    @property
    def ambiguities(self) -> tuple[Ambiguity, ...]: ...
    @property
    def dtype_of(self) -> str: ...
    @property
    def path_operands(self) -> tuple[str, str] | None: ...
    @property
    def addressing(self) -> Mapping[str, str]: ...
    def is_list(self, operand: str) -> bool: ...
    def label(self, operand: str, i: int) -> str: ...
    def rules_that(self, hook: str) -> tuple[Rule, ...]: ...
    def param_type(self, name: str, form: str | None) -> str: ...
    def forms_or_default(self) -> tuple[str | None, ...]: ...


class Book(Protocol):
    """The rulebook (oracle/rulebook.py: Rulebook)."""

    @property
    def dtypes(self) -> Mapping[str, int]: ...
    def itemsize(self, dtype: str) -> int: ...
    def matches(self, when: Mapping[str, Any] | None, call: Call, spec: Any) -> bool: ...
    def alignment(self, spec: Any, call: Call, operand: str, scope: str) -> int: ...


class OnProduct(Protocol):
    """What a call under check and the drawing environment share: an API's spec on a product, in a rulebook."""

    @property
    def spec(self) -> Spec: ...
    @property
    def rulebook(self) -> Book: ...
    @property
    def product(self) -> Product: ...


class Checked(OnProduct, Protocol):
    """A call under check (oracle/context.py: Context)."""

    @property
    def call(self) -> Call: ...
    @property
    def memory(self) -> Optional[Mapping[str, np.ndarray]]: ...
    @property
    def units(self) -> Mapping[str, int]: ...
    @property
    def accesses(self) -> dict[str, Any]: ...
    @property
    def labelled(self) -> dict[str, list[tuple[str, Tensor]]]: ...
    def tensor(self, name: str) -> Tensor: ...
    def entries(self, name: str) -> list[tuple[str, Tensor, Any]]: ...
    def families(self, name: str) -> dict[str, tuple[list[int], Family]]: ...
    def nbytes(self, tensor: Tensor) -> int: ...


class Source(Protocol):
    """The source of a cell's compiled pass being written (oracle/fast_path.py: Source)."""

    lines: list[str]
    scopes: dict[str, str]
    dtypes: dict[str, str]
    spans: dict[str, str]
    addressed: frozenset[str]       # the operands addressed by offsets in memory
    def literal(self, value: object) -> str: ...
    def tensor(self, name: str) -> str: ...
    def fail_if(self, test: str) -> None: ...
    def nbytes(self, name: str) -> str: ...
    def accesses(self) -> str: ...


class Listed(Protocol):
    """A list operand's entry-by-entry checks (oracle/fast_path.py: Listed)."""

    scopes: Optional[frozenset[str]]
    dtypes: Optional[frozenset[str]]
    align: list[tuple[str, int]]
    limits: list[Mapping[str, int | None]]
    bounds: bool


class Env(OnProduct, Protocol):
    """The cells' environment: an API on a product (conformance/generate/environment.py: Env)."""

    @property
    def supported(self) -> bool: ...
    def capacity(self, scope: str) -> int: ...
    def paths(self, form: str | None = None) -> list[str]: ...
    def forbidden_paths(self, form: str | None = None) -> list[str]: ...
    def legal_dtypes(self, form: str | None) -> list[str]: ...
    def operand_dtypes(self, dtype: str) -> dict[str, str]: ...
    def operand_scopes(self, path: str | None) -> dict[str, str]: ...
    def param_names(self, form: str | None) -> list[str]: ...
    def probe(self, form: str | None, dtypes: Mapping[str, str], scopes: Mapping[str, str],
              params: Mapping[str, int], counts: Mapping[str, int] | None = None) -> Call: ...
    def covers(self, region: Mapping[str, Any], form: str | None, dtype: str | None = None) -> bool: ...
    def form_ambiguous(self, form: str | None) -> bool: ...
    def domain(self, name: str, probe: Call) -> list[tuple[int, int]]: ...


class Sweep(Protocol):
    """A cell's edge sweep (conformance/generate/edges.py: CellSweep)."""

    @property
    def env(self) -> Env: ...
    @property
    def paths(self) -> list[str | None]: ...
    def forms(self, rule: Any) -> list[str | None]: ...
    def shape_plan(self, form: str | None) -> dict[str, Any]: ...
    def range_fits(self, rule: Any, value: int) -> bool: ...


class Picks(Protocol):
    """The choices a drawing makes, each labelled (conformance/generate/picks.py: Picks)."""

    def integer(self, lo: int, hi: int, label: str = "") -> int: ...
    def choice(self, values: Sequence[T], label: str = "") -> T: ...
    def boolean(self, label: str = "") -> bool: ...
    def between(self, lo: int, hi: int, label: str = "") -> tuple[int, str]: ...
    def how(self, label: str = "") -> str: ...


class ListsRequest(Protocol):
    """What a kind draws list-of-struct arguments from (conformance/generate/structs.py: ListsRequest)."""

    lists: list[str]
    scopes: dict[str, str]
    units: Mapping[str, int]
    room: dict[str, int]
    domain: list[tuple[int, int]]
    forced: int | None
    target: Rule | None
    tags: list[str]


class Draft(Protocol):
    """A call being drawn (conformance/generate/draft.py: CallDraft)."""

    counts: dict[str, int]
    params: dict[str, Any]
    scopes: dict[str, str]
    tags: list[str]
    @property
    def template(self) -> Call | None: ...
    def count(self, op: str) -> int: ...


class Placing(Protocol):
    """The tensors of a call being placed in their scopes (conformance/generate/placement.py: Placement)."""

    pick: Picks
    env: Env
    draft: Draft
    acc: dict[str, Any]
    addrs: dict[str, list[int]]
    numel: dict[str, list[int]]
    itemsize: dict[str, int]
    op_aligns: dict[str, int]
    def entry_to_break(self, op: str) -> int: ...
    def runs(self, op: str, entry: int) -> Any: ...
    def offset_limit(self, op: str) -> int | None: ...
    def element_width(self) -> int: ...


class Offsets(Protocol):
    """The offsets of a call's tensor of offsets being drawn (conformance/generate/offset_tensors.py: Offsets)."""

    call: Call
    ctx: Checked
    rng: np.random.Generator
    v_name: str
    x_name: str
    x_tensor: Tensor
    offsets: np.ndarray
    j: int
    width: int
    shift: int
    base: int
    cap: int
    limit: int | None
    size: int


Element = Callable[[], int]             # the call's element width, asked only where needed
Follow = Callable[[list[int]], list[int]]
Pair = tuple[str, str, Follow, list[Follow]]   # two operands in one group, how the second's offsets follow
                                                # (and the other ways it may)
Meeting = tuple[str, str, tuple[int, int], bool]   # (a, b, lag, identical allowed)
