"""Memory images for a call: random bytes from a seed, so a wrong source or a stray write shows.

A `MemoryRecipe` (sizes per scope + seed) is what a reproducer stores instead of megabytes of bytes:
the same recipe always gives the same images.
"""
from __future__ import annotations

import ctypes
import functools
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from oracle.call import SCOPES, CallFormatError
from oracle.kinds.offsets_read import value_spans
from oracle.quoting import quoted
from oracle.spec import Product

POOL_BYTES = 16 << 20
REPR_VALUES = 8        # values a Write's repr shows
WINDOW_ALIGN = 64      # a window starts on a cache line: copied and compared as whole words


PUBLISHED_POOL = 0x41534344     # the seed of the pool every run without a challenge cuts its images from


@functools.lru_cache(maxsize=2)
def random_pool(key: int = 0) -> np.ndarray:
    """16 MiB of random bytes, the same in every process, made once per key: SFC64's raw 64-bit outputs
    as little-endian bytes, the bytes `Generator(SFC64(seed)).integers(0, 256, n, uint8)` gives, several
    times faster. Key 0 is the published pool; a challenge (conformance/generate/challenge.py)
    gives another key, so that no backend can know the bytes beforehand. A supervisor that forks its
    workers makes it first (worker.shared): they share its pages, which nothing writes."""
    seed = PUBLISHED_POOL if key == 0 else [PUBLISHED_POOL, key]
    advise = _hugepage_advice()
    was = advise(True) if advise is not None else None     # huge pages: every call copies windows of it
    try:
        pool = np.random.SFC64(seed).random_raw(POOL_BYTES // 8).astype("<u8", copy=False).view(np.uint8)
    finally:
        if advise is not None:
            advise(was)
    pool.flags.writeable = False
    return pool


_AHEAD: list[Any] = []         # the thread making the published pool (pool_ahead), until pool_made joins it


def pool_ahead() -> None:
    """The published pool made in a thread while the caller goes on (numpy draws it without holding the
    GIL): a command that will fork workers starts it before the rest of its imports; `pool_made` waits."""
    import threading
    thread = threading.Thread(target=random_pool, name="random-pool", daemon=True)
    thread.start()
    _AHEAD.append(thread)


def pool_made() -> None:
    """The pool pool_ahead started made (random_pool then gives it at once)."""
    while _AHEAD:
        _AHEAD.pop().join()


def _hugepage_advice() -> Callable[[bool], bool] | None:
    """numpy's switch for the transparent-huge-page advice it gives the large arrays it allocates, which
    returns the setting it replaces (numpy 2 keeps it in `_core`, numpy 1 in `core`; None where neither has it)."""
    core = getattr(np, "_core", None) or getattr(np, "core", None)
    return getattr(getattr(core, "multiarray", None), "_set_madvise_hugepage", None)


def _mix(seed: int, stream: int) -> int:
    """A well-spread 64-bit value from (seed, stream): splitmix64's finaliser, a few integer operations
    where seeding a numpy generator costs far more (it runs for every scope of every call)."""
    z = (seed * 0x9E3779B97F4A7C15 + stream * 0xD1B54A32D192ED03 + 0x632BE59BD9B4E019) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


_MASK64 = (1 << 64) - 1


@dataclass(frozen=True)
class Write:
    """Values a call reads as data (Scatter's offsets), laid over the random bytes of an image.

    One made from an array (Write.of: the generator) keeps the array and makes `values` Python ints only
    when they are first asked for (to_dict: a reproducer; comparing, printing): a call's tens of
    thousands of offsets cost more to convert than to draw, and a passing call never needs them."""

    scope: str
    addr: int
    dtype: str
    values: tuple[int, ...]

    def __getattr__(self, name: str) -> Any:
        """Only for an attribute the instance lacks: `values` of a write made by Write.of."""
        array = self.__dict__.get("_array")
        if name != "values" or array is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        values = self.__dict__["values"] = tuple(array.tolist())        # once, as cached_property does
        return values

    def to_dict(self) -> dict[str, Any]:
        return {"scope": self.scope, "addr": self.addr, "dtype": self.dtype, "values": list(self.values)}

    def __repr__(self) -> str:
        """Its first values only: Scatter's tens of thousands of offsets made each printed case (Hypothesis
        prints the failing example, a batch of them) hundreds of kilobytes long."""
        array = self.__dict__.get("_array")
        head = (array[:REPR_VALUES].tolist() if array is not None else list(self.values[:REPR_VALUES]))
        n = array.size if array is not None else len(self.values)
        more = f", ... {n} in all" if n > REPR_VALUES else ""
        return f"Write(scope={self.scope!r}, addr={self.addr}, dtype={self.dtype!r}, values={head}{more})"

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        """The same for the pretty printers (IPython's protocol, which Hypothesis's follows): they print a
        dataclass field by field otherwise."""
        p.text(repr(self))

    @functools.cached_property
    def data(self) -> np.ndarray:
        """The values as the bytes memory holds (read only), made once: a call's images are built more
        than once, and thousands of Python ints cost ~20 ns each to convert."""
        return _read_only(np.array(self.values, dtype=np.dtype(self.dtype).newbyteorder("<")).view(np.uint8))

    @classmethod
    def of(cls, scope: str, addr: int, dtype: str, values: np.ndarray) -> "Write":
        """A write of an integer array (a copy kept, read only; `values` made from it when asked for), its
        bytes made from the array where its dtype holds every value (the same bytes as from the values as
        Python ints): then the copy kept is that of the dtype, whose bytes they are. An array of the
        write's dtype that is its own and read-only is handed over: kept as it is, not copied."""
        write = cls(scope, addr, dtype, ())
        del write.__dict__["values"]
        little, limits, _ = integer_type(dtype)
        flags = values.flags
        if values.dtype == little and flags.owndata and not flags.writeable and flags.c_contiguous:
            typed = values                                  # handed over: every value fits its dtype
        elif limits is not None and values.size and limits.min <= values.min() <= values.max() <= limits.max:
            typed = _read_only(values.astype(little))       # a copy, kept: the values as memory holds them
        else:
            write.__dict__["_array"] = _read_only(values.copy())
            return write
        write.__dict__["_array"] = typed
        write.__dict__["data"] = typed.view(np.uint8)       # as cached_property does
        return write


@functools.lru_cache(maxsize=None)
def integer_type(dtype: str) -> tuple[np.dtype, Any, bool]:
    """The little-endian type `dtype` names, its limits (np.iinfo; None where not an integer type), and
    whether it holds every uint32 (worked out once: np.iinfo works its limits out at each read)."""
    little = np.dtype(dtype).newbyteorder("<")
    limits = np.iinfo(little) if little.kind in "iu" else None
    return little, limits, limits is not None and limits.min <= 0 and limits.max >= 2**32 - 1


def _read_only(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


def _uncovered(lo: int, hi: int, writes: Sequence[tuple[int, int, Any]]) -> list[tuple[int, int]]:
    """The parts of [lo, hi) that none of `writes` ((addr, end, data) each) lies over."""
    gaps = [(lo, hi)] if lo < hi else []
    for addr, end, _ in writes:
        if addr < end:
            gaps = [(a, b) for g0, g1 in gaps for a, b in ((g0, min(g1, addr)), (max(g0, end), g1)) if a < b]
    return gaps


@dataclass(frozen=True)
class MemoryRecipe:
    seed: int
    sizes: Mapping[str, int] = field(default_factory=dict)     # scope -> bytes
    writes: tuple[Write, ...] = ()
    pool: int = 0                   # which random pool the bytes come from (0: the published one)

    def build(self, into: Callable[[Mapping[str, int]], dict[str, np.ndarray]] | None = None,
              originals: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
        """Fresh, writable images of random bytes.

        Each scope is a copy of a window of a fixed random pool, at an offset drawn from (seed, scope):
        as random as fresh bytes for telling a wrong source or a stray write, at the cost of a memcpy.
        Images larger than the pool are drawn from a generator seeded the same way. `into(sizes)`, where
        given, supplies the arrays to fill (an out-of-process backend's shared memory), so that the
        images are made where the backend reads them instead of being copied there. `originals`, where
        given, receives the window (read only, see pristine) of each scope copied from one alone."""
        out = (into or _fresh)(self.sizes)
        for i, scope in enumerate(SCOPES):
            if scope in self.sizes:
                window = self._fill(out[scope], i, scope, ((0, self.sizes[scope]),))
                if originals is not None and window is not None:
                    originals[scope] = window
        return out

    def build_spans(self, spans: Mapping[str, Sequence[tuple[int, int]]]) -> dict[str, np.ndarray]:
        """Images of the recipe's sizes holding what build() puts in them over the byte ranges `spans`
        (scope -> [(lo, hi)]) and undefined bytes elsewhere: for a check that reads those bytes alone (the
        generator's check of the offsets a call reads, oracle.kinds.offsets_read.value_spans), at the cost
        of those bytes instead of a copy of every image. An image too large for the pool is made whole."""
        out = _fresh(self.sizes)
        for i, scope in enumerate(SCOPES):
            size = self.sizes.get(scope)
            if size is not None and (scope in spans or size > POOL_BYTES // 2):    # else no byte to fill
                pieces = [(max(lo, 0), min(hi, size)) for lo, hi in spans.get(scope, ())]
                self._fill(out[scope], i, scope, pieces if size <= POOL_BYTES // 2 else ((0, size),))
        return out

    def _fill(self, image: np.ndarray, stream: int, scope: str, pieces: Sequence[tuple[int, int]]
              ) -> np.ndarray | None:
        """What build() puts in `image` (scope's, the `stream`th of SCOPES) over `pieces`: the pool's window
        where no write lies (the bytes under a write are never copied), then the writes, a later one over an
        earlier one. Images larger than the pool (always filled whole) come from a seeded generator. The
        window, where the image is that alone (no write lies over it; see pristine)."""
        size = image.shape[0]
        writes = [(w.addr, min(w.addr + w.data.size, size), w.data) for w in self.writes if w.scope == scope]
        gaps = [gap for lo, hi in pieces for gap in _uncovered(lo, hi, writes)] if writes else pieces
        window = self._window(stream, size) if gaps or not writes else None     # wanted where a byte is not written
        if size > POOL_BYTES // 2:
            rng = np.random.Generator(np.random.SFC64([self.seed, stream] + ([self.pool] if self.pool else [])))
            np.copyto(image, rng.integers(0, 256, size, dtype=np.uint8))
        elif window is not None:
            for a, b in gaps:
                image[a:b] = window[a:b]
            if not writes:
                return window
        for addr, end, data in writes:
            for lo, hi in pieces:
                a, b = max(lo, addr), min(hi, end)
                if a < b:
                    image[a:b] = data[a - addr:b - addr]
        return None

    def resized(self, sizes: Mapping[str, int]) -> "MemoryRecipe":
        return MemoryRecipe(self.seed, dict(sizes), self.writes, self.pool)

    def from_pool(self, pool: int) -> "MemoryRecipe":
        """The same recipe over another random pool (a challenge's): other bytes, the same values written."""
        return self if pool == self.pool else MemoryRecipe(self.seed, self.sizes, self.writes, pool)

    def _window(self, stream: int, size: int) -> np.ndarray | None:
        """The window of the random pool a scope's image copies (None: an image too large for it)."""
        if size > POOL_BYTES // 2:
            return None
        offset = _mix(self.seed, stream) % (POOL_BYTES - size + 1) // WINDOW_ALIGN * WINDOW_ALIGN
        return random_pool(self.pool)[offset:offset + size]

    def pristine(self, scope: str) -> np.ndarray | None:
        """What build() puts in `scope`, read-only and not copied, where that is a window of the pool with
        nothing written over it (None otherwise): what a scope a call does not write must still hold."""
        if scope not in self.sizes or any(w.scope == scope for w in self.writes):
            return None
        return self._window(SCOPES.index(scope), self.sizes[scope])

    def to_dict(self, write: Callable[[Write], dict[str, Any]] = Write.to_dict) -> dict[str, Any]:
        """The recipe as data (`write`: how a write is given, its values as a list of numbers by default)."""
        out: dict[str, Any] = {"seed": self.seed, "sizes": dict(self.sizes)}
        if self.writes:
            out["writes"] = [write(w) for w in self.writes]
        if self.pool:
            out["pool"] = self.pool
        return out

    @classmethod
    def from_dict(cls, data: Any, where: str = "memory", product: Product | None = None) -> "MemoryRecipe":
        """A recipe read from a file: every field checked, sizes within `product`'s scopes (see
        check_sizes), so that a forged file cannot make the kit allocate a terabyte."""
        if not isinstance(data, Mapping) or set(data) - {"seed", "sizes", "writes", "pool"}:
            raise CallFormatError(f"{where}: expected a mapping with keys seed, sizes, writes (and pool), "
                                  f"got {quoted(data)}")
        seed, sizes, pool = data.get("seed"), data.get("sizes", {}), data.get("pool", 0)
        for name, value in (("seed", seed), ("pool", pool)):
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= _MASK64:
                raise CallFormatError(f"{where}.{name}: expected an integer from 0 to 2**64-1, got {quoted(value)}")
        if not isinstance(sizes, Mapping):
            raise CallFormatError(f"{where}.sizes: expected a mapping scope -> bytes, got {quoted(sizes)}")
        check_sizes(sizes, product, f"{where}.sizes")
        writes = data.get("writes", [])
        if not isinstance(writes, list):
            raise CallFormatError(f"{where}.writes: expected a list, got {quoted(writes)}")
        return cls(seed, dict(sizes), tuple(_write(w, f"{where}.writes[{i}]") for i, w in enumerate(writes)), pool)


def checked_images(recipe: MemoryRecipe, contexts: Sequence[Any]) -> dict[str, np.ndarray]:
    """The images a check of a call reads, as far as it reads them: the bytes of its tensors of values
    (value_spans) under each of `contexts` (the call's, without memory, by each rulebook it is checked
    by), or every image where a context does not know them without memory."""
    spans: dict[str, list[tuple[int, int]]] = {}
    for ctx in contexts:
        found = value_spans(ctx)
        if found is None:
            return recipe.build()
        for scope, pieces in found.items():
            spans.setdefault(scope, []).extend(pieces)
    return recipe.build_spans(spans)


# GM has no size on any product; the generators place operands in a window of a few MiB (profiles.py),
# so an image past this is no call the kit made, and would only exhaust the machine.
MAX_GM_BYTES = 256 << 20


def check_sizes(sizes: Mapping[Any, Any], product: Product | None, where: str = "memory.sizes") -> None:
    """Image sizes a run may allocate: UB and L1 up to `product`'s (a scope it lacks: none), GM up to
    MAX_GM_BYTES; without a product every scope up to MAX_GM_BYTES. CallFormatError names the field."""
    for scope, size in sizes.items():
        if scope not in SCOPES:
            raise CallFormatError(f"{where}.{quoted(scope)}: {quoted(scope)} is not one of {', '.join(SCOPES)}")
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise CallFormatError(f"{where}.{scope}: expected a byte count, got {quoted(size)}")
        limit = MAX_GM_BYTES if product is None or scope == "GM" else product.capacity(scope) or 0
        if size > limit:
            owner = f"{product.id} has {limit} bytes of {scope}" if product is not None and scope != "GM" \
                else f"the most an image of {scope} may have is {limit} bytes"
            raise CallFormatError(f"{where}.{scope}: {size} bytes, but {owner}")


def _fresh(sizes: Mapping[str, int]) -> dict[str, np.ndarray]:
    """Arrays for the images, owned by nobody else."""
    return {scope: np.empty(size, dtype=np.uint8) for scope, size in sizes.items()}


def _write(data: Any, where: str) -> Write:
    keys = ("scope", "addr", "dtype", "values")
    if not isinstance(data, Mapping) or set(data) != set(keys):
        raise CallFormatError(f"{where}: expected a mapping with keys {', '.join(keys)}, got {quoted(data)}")
    if data["scope"] not in SCOPES:
        raise CallFormatError(f"{where}.scope: {quoted(data['scope'])} is not one of {', '.join(SCOPES)}")
    if not isinstance(data["addr"], int) or isinstance(data["addr"], bool) or data["addr"] < 0:
        raise CallFormatError(f"{where}.addr: expected a byte offset, got {quoted(data['addr'])}")
    try:
        element = np.dtype(data["dtype"])
    except (TypeError, ValueError):
        raise CallFormatError(f"{where}.dtype: unknown dtype {quoted(data['dtype'])}") from None
    values = data["values"]
    # the types in one pass in C (a frozen list holds millions of values: per-value checks in Python
    # would delay `certify`'s start), the range on an array of them
    if not isinstance(values, list) or not {int}.issuperset(map(type, values)):
        raise CallFormatError(f"{where}.values: expected a list of integers")
    info = np.iinfo(element) if element.kind in "iu" else None
    try:
        array = np.array(values, dtype=np.int64)
    except OverflowError:               # past int64 (a uint64 write's upper half): each value as it is
        array = None
    if info is None or (any(not info.min <= v <= info.max for v in values) if array is None else
                        array.size and not info.min <= int(array.min()) <= int(array.max()) <= info.max):
        raise CallFormatError(f"{where}.values: integers of {quoted(data['dtype'])} expected")
    if array is None:
        return Write(data["scope"], data["addr"], data["dtype"], tuple(values))
    return Write.of(data["scope"], data["addr"], data["dtype"], array)


def keep_freed_images() -> None:
    """Let the process keep the pages of freed images for the next call.

    Every call allocates and frees images of up to a few MiB (the GM window). glibc hands such blocks
    back to the kernel at once, so the next call page-faults zeroed pages in again: about half of the
    judging time of a call (benchmarks/bench.py). Raising glibc's mmap and trim thresholds keeps them in
    the heap; numpy's transparent-huge-page advice on large arrays is turned off for the same reason.
    Elsewhere than glibc this does nothing."""
    advise = _hugepage_advice()
    if advise is not None:
        advise(False)
    try:
        mallopt = ctypes.CDLL(None).mallopt         # the C library every CPython has loaded (no search)
    except (OSError, AttributeError, TypeError):    # not glibc (no mallopt), or no dlopen(NULL) (Windows)
        return
    mallopt(_M_TRIM_THRESHOLD, _KEEP_BYTES)
    mallopt(_M_MMAP_THRESHOLD, _KEEP_BYTES // 8)          # glibc's ceiling for this one is 32 MiB


_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_KEEP_BYTES = 256 << 20


STRAY_ZONE = 256      # bytes of GM image kept past the last byte a call may touch, so a stray write shows


def image_sizes(call, rulebook, ctx=None) -> dict[str, int]:
    """The images a call runs on: its UB/L1 whole (product sizes), GM up to the furthest byte any
    operand holds or touches, plus a stray zone. (`ctx`: the call's checked context, if at hand.)"""
    from oracle.rules import context
    ctx = ctx if ctx is not None else context(call, None, rulebook)
    sizes: dict[str, int] = {}
    args, accesses = ctx.call.args, ctx.accesses        # ctx.entries' tensors and runs, less their labels
    for name in ctx.spec.operands:
        value, footprint = args[name], accesses[name]
        for t, runs in zip(value, footprint) if ctx.spec.is_list(name) else ((value, footprint),):
            if t.scope == "GM":
                reach = t.addr + max(t.numel * rulebook.itemsize(t.dtype), runs.end if runs is not None else 0)
                sizes["GM"] = max(sizes.get("GM", 0), -(-reach // 32) * 32 + STRAY_ZONE)
            elif t.scope not in sizes:          # once per scope, not per entry of a list
                sizes[t.scope] = ctx.product.capacity(t.scope) or 0
    return sizes
