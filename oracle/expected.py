"""The memory image a legal call must leave: the index math applied to a copy of the input."""
from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import cast

import numpy as np

from .apis import index_math
from .call import Call
from .footprint import mark
from .rules import Context, Violation, context
from .rules import violations as rule_violations
from .rules import with_readings
from .spec import ApiSpec, Rulebook


class IllegalCall(ValueError):
    """`expected` was asked for a call that a conforming backend must refuse."""

    def __init__(self, violations: list[Violation]):
        self.violations = violations
        super().__init__("; ".join(f"{v.rule}: {v.message}" for v in violations))


@dataclass
class Expected:
    """memory: the image every conforming backend must leave (scope -> 1-D uint8 array);
    defined: per-byte bool mask, False only where the documentation leaves the result open.
    Scopes the call does not write are read-only views of the input; all-True masks are broadcast.
    patches (only where the caller asked for them): scope -> (lo, data): that scope's image is memory[scope]
    (the input itself) with the bytes from lo on replaced by data; `materialize()` makes every such image whole."""

    memory: dict[str, np.ndarray]
    defined: dict[str, np.ndarray]
    violations: list[Violation]               # the undefined-severity rules the call falls under, if any
    # places several elements were sent to (Scatter): (scope, starts (m,), values (m, width) uint8), one
    # row per element, sorted by start: the bytes are not defined, but a conforming backend leaves the
    # value of one of the elements sent to a place there
    choices: list[tuple[str, np.ndarray, np.ndarray]] = field(default_factory=list)
    # bytes the call may write, per scope (for a legal call, made when first read)
    written: Mapping[str, np.ndarray] = field(default_factory=dict)
    patches: dict[str, tuple[int, np.ndarray]] = field(default_factory=dict)

    def materialize(self) -> None:
        """Every patched scope made one array in memory (a verdict that explains a difference reads them)."""
        for scope, (lo, data) in self.patches.items():
            self.memory[scope] = patched_image(self.memory[scope], lo, data)
        self.patches = {}

    def fully_defined(self, scope: str) -> bool:
        mask = self.defined[scope]
        return mask.strides == (0,) and bool(mask[0]) if mask.size else True


def _readonly(array: np.ndarray) -> np.ndarray:
    view = array.view()
    view.setflags(write=False)
    return view


_TRUE = np.ones(1, dtype=bool)
_TRUE.flags.writeable = False


_ALL_DEFINED: dict[int, np.ndarray] = {}


def _all_defined(size: int) -> np.ndarray:
    """A read-only all-True mask of `size` bytes, one byte broadcast (what fully_defined looks for); made
    once per size (read-only, so every Expected may share it; a scope has few sizes)."""
    mask = _ALL_DEFINED.get(size)
    if mask is None:
        if len(_ALL_DEFINED) >= 256:
            _ALL_DEFINED.clear()
        mask = _ALL_DEFINED[size] = np.ndarray((size,), dtype=bool, buffer=_TRUE, offset=0, strides=(0,))
    return mask


_UINT8 = np.dtype(np.uint8)


def _validate_memory(memory: Mapping[str, np.ndarray]) -> None:
    for scope, array in memory.items():
        if type(array) is np.ndarray and array.dtype is _UINT8 and array.ndim == 1:     # the usual image, at once
            continue
        if not isinstance(array, np.ndarray) or array.dtype != _UINT8 or array.ndim != 1:
            raise ValueError(f"memory[{scope!r}] must be a 1-D numpy uint8 array")


def patched_image(base: np.ndarray, lo: int, data: np.ndarray) -> np.ndarray:
    """A new array: `base` with the bytes from `lo` on replaced by `data`, made in one pass (no byte copied
    to be overwritten)."""
    return np.concatenate((base[:lo], data, base[lo + data.shape[0]:]))


def _sizes(memory: Mapping[str, np.ndarray]) -> dict[str, int]:
    return {scope: array.shape[0] for scope, array in memory.items()}


def expected(call: Call, memory: Mapping[str, np.ndarray], rulebook: Rulebook | None = None,
             readings: Mapping[str, str] | None = None, violations: Sequence[Violation] | None = None,
             patches: bool = False, moved_open: bool = True) -> Expected:
    """The image a conforming backend leaves after `call` on `memory` (which is not modified).

    Parameters
    ----------
    call : Call
    memory : mapping of scope to a 1-D uint8 array
        The images before the call.
    rulebook : Rulebook, optional
        The rules to judge by (default: the kit's specs).
    readings : mapping of ambiguity id to reading id, optional
        Judge those ambiguity regions by these readings, and move bytes by their index-math variants.
    violations : sequence of Violation, optional
        What `check` says of this call, memory and rulebook, where the caller already asked (the
        generator checks every call it draws), so that it is not asked again.
    patches : bool, optional
        Where the API's index math gives the bytes a legal call writes as one span (`patched`), leave a
        written scope whose input and span are read-only uncopied: Expected.patches says which bytes
        differ from the input. The caller keeps those read-only inputs unchanged while it reads the result.
    moved_open : bool, optional
        For a call in `undefined` territory, move the bytes it writes as one possible outcome (True), or
        leave them as the input has them (False): they are not defined, so a caller that reads the defined
        bytes alone (the judge) needs no move.

    Returns
    -------
    Expected
        ``memory``: the image every conforming backend must leave; ``defined``: per byte, False only
        where the pages leave the result open. For a call in `undefined` territory the image is one
        possible outcome and the bytes it writes are not defined. Only the scopes the call writes are
        copied; the others are read-only views of `memory`.

    Raises
    ------
    IllegalCall
        For a call that breaks a ``reject`` rule.

    Examples
    --------
    Two bursts of one 32-byte block, UB to UB, without gaps:

    >>> import numpy as np
    >>> from oracle import Call, Tensor, expected
    >>> call = Call("data_move", "ascend910b", {"dst": Tensor("UB", 0, "int8", 64),
    ...             "src": Tensor("UB", 64, "int8", 64), "sid": 0, "nburst": 2, "burst": 1,
    ...             "src_stride": 0, "dst_stride": 0})
    >>> after = expected(call, {"UB": np.arange(256, dtype=np.uint8)})
    >>> after.memory["UB"][:64].tolist() == list(range(64, 128))
    True
    >>> bool(after.defined["UB"].all())
    True
    """
    _validate_memory(memory)
    ctx = context(call, memory, with_readings(rulebook, readings) if readings else rulebook)
    violations = rule_violations(ctx) if violations is None else list(violations)
    if violations:
        rejects = [v for v in violations if v.severity == "reject"]
        if rejects:
            raise IllegalCall(rejects)
    math = index_math(call.api)
    patched = None if violations else getattr(math, "patched", None)
    # a legal call's written scopes as the bytes that change, where the API can tell them (given the
    # context's footprints where its check made them: an API addressing by offsets reads them once)
    made = None if patched is None else patched(call, memory, ctx.units, ctx.made("accesses"))
    written_scopes = made if made is not None else _written_scopes(ctx, memory, bool(violations))
    unmoved = bool(violations) and not moved_open          # no move: every scope as the input has it
    image, defined, masks, kept = {}, {}, _ALL_DEFINED, {}
    for scope, array in memory.items():
        if scope not in written_scopes or unmoved:
            image[scope] = view = array.view()          # _readonly, inline: this loop runs per call
            view.setflags(write=False)
        elif made is None:
            image[scope] = array.copy()
        else:
            lo, data = kept[scope] = made[scope]
            if patches and not array.flags.writeable and not data.flags.writeable:
                image[scope] = array
            else:                                       # in one pass: no byte copied to be overwritten
                image[scope] = patched_image(array, lo, data)
                del kept[scope]
        mask = masks.get(size := array.shape[0])
        defined[scope] = _all_defined(size) if mask is None else mask
    choices = [] if made is not None or unmoved else math.apply(call, image, ctx.units, ctx.accesses) or []
    if violations:     # undefined territory: whatever the call writes is open
        written: Mapping[str, np.ndarray] = _written(ctx, _sizes(memory))
        _reach_scope_end(ctx, violations, written)
        for scope, mask in written.items():
            defined[scope] = ~mask
    else:
        operands = ctx.spec.operands        # an output addressed by offsets (Scatter's dst): where the call
        if made is not None and any(operands[op]["role"] == "output" for op in ctx.spec.addressing.values()):
            ctx.accesses        # writes is read in memory: read now, before anyone writes there
        written = WrittenMasks(ctx)
    for scope, starts, values in choices:
        if defined[scope].strides == (0,):
            defined[scope] = np.ones(image[scope].shape, dtype=bool)
        if values is None:              # bytes the page leaves open (random padding): any value is right
            defined[scope][starts] = False
        else:
            defined[scope][(starts[:, None] + np.arange(values.shape[1])).reshape(-1)] = False
    choices = [c for c in choices if c[2] is not None]
    return Expected(image, defined, violations, [] if violations else choices, written, kept)


def _reach_scope_end(ctx: Context, violations: Sequence[Violation], written: Mapping[str, np.ndarray]) -> None:
    """An undefined rule with `opens` (a call breaking it may write past its footprint: DataCopy NZ->ND
    rows a wrapped stride sends far off) marks every byte of the operand's scope from its address on as
    written, where the `opens` `when` holds."""
    for v in violations:
        rule = next((r for r in ctx.spec.rules if r.id == v.rule), None)
        opens = rule.get("opens") if rule is not None else None
        if opens and ctx.rulebook.matches(opens.get("when"), ctx.call, ctx.spec):
            tensor = ctx.call.tensor(opens["operand"])
            written[tensor.scope][tensor.addr:] = True


def _written_scopes(ctx: Context, memory: Mapping[str, np.ndarray], undefined: bool) -> set[str]:
    """The scopes the call's output operands are in; every scope it uses must have an image, large
    enough for what a legal call touches."""
    out = set()
    args, accesses = ctx.call.args, ctx.accesses
    for name, output, is_list in _roles(ctx.spec):
        for label, tensor, runs in ctx.entries(name) if is_list else ((name, args[name], accesses[name]),):
            scope = tensor.scope
            if output:
                out.add(scope)
            image = memory.get(scope)
            if image is None:
                raise ValueError(f"the call uses {scope} but memory has no {scope!r} image")
            if runs is not None and not undefined and tensor.addr + runs.span[1] > image.shape[0]:
                raise ValueError(f"memory[{scope!r}] has {image.shape[0]} bytes; "
                                 f"{label} reaches byte {tensor.addr + runs.end}")
    return out


def _roles(spec: ApiSpec) -> tuple[tuple[str, bool, bool], ...]:
    """(operand, is it an output, is it a list) of each operand of the spec, made once per spec."""
    roles: tuple[tuple[str, bool, bool], ...] | None = spec.__dict__.get("_roles")
    if roles is None:
        roles = spec.__dict__["_roles"] = tuple((name, op["role"] == "output", spec.is_list(name))
                                                for name, op in spec.operands.items())
    return roles


class WrittenMasks(Mapping[str, np.ndarray]):
    """Expected.written of a legal call, made on first use: only a verdict explaining a difference reads
    it (which bytes a wrong byte lies among), and most calls have none."""

    def __init__(self, ctx: Context):
        self._ctx: Context | None = ctx
        self._masks: dict[str, np.ndarray] | None = None

    def _all(self) -> dict[str, np.ndarray]:
        if self._masks is None:
            ctx = cast(Context, self._ctx)
            self._masks = _written(ctx, _sizes(cast(Mapping[str, np.ndarray], ctx.memory)))
            self._ctx = None
        return self._masks

    def __getitem__(self, scope: str) -> np.ndarray:
        return self._all()[scope]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())

    def __repr__(self) -> str:
        return repr(self._all())


def written_mask(call: Call, memory_sizes: Mapping[str, int], rulebook: Rulebook | None = None,
                 memory: Mapping[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """Per scope, the bytes the call's output operands may write (to tell a stray write from a wrong one);
    an operand addressed by offsets needs `memory` to be known."""
    return _written(context(call, memory, rulebook), memory_sizes)


def _written(ctx: Context, memory_sizes: Mapping[str, int]) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    for name, output, _ in _roles(ctx.spec):
        if not output:
            continue
        for _, tensor, runs in ctx.entries(name):
            mask = out.setdefault(tensor.scope, np.zeros(memory_sizes[tensor.scope], dtype=bool))
            if runs is not None:
                mark(mask, tensor.addr, runs)
    return out
