"""The frozen case list: a few concrete cases per cell, generated once and committed as data.

`ascend-conformance certify` must judge every backend on the same calls, whatever Hypothesis version is
installed, so the cases are drawn here once and stored in `conformance/generate/frozen_cases.jsonl.gz`, one JSON
case per line. Per cell: a seeded Hypothesis search, then a small set of its cases that together reach
every boundary tag the search saw. The ambiguity cells of every ambiguity are frozen too, on every
product where their region holds calls (certify selects those of the readings a backend declares); they
keep their own cases (the pooled cover below is the ordinary cells'). Tags that only big cases reach (an offset tensor filling the UB) are
reached once per api and product instead of once per cell (pool_heavy): that keeps the file ~1 MB
instead of ~8 MB; but every edge a cell's rules make reachable (conformance/generate/edges.py) is covered in the
cell itself, its sweep's call if need be. After a spec change a maintainer runs

    python -m conformance.generate.frozen [EXAMPLES]

and commits the new file. The bytes depend only on the drawn cases (sorted lines, gzip mtime 0). The
sweep's calls depend only on the kit; the search's on the kit and the Hypothesis version (not on other
loaded modules: conformance/generate/seal.py), so a regeneration after a code change or an upgrade gives
different (equally good) cases beside the same edges. That is why the list is frozen data.

The cases are drawn from the rulebook the caller hands in (`main`, the command, loads the kit's own).
"""
from __future__ import annotations

import functools
import gzip
import hashlib
import io
import json
import multiprocessing
import os
import sys
import time
import zlib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

from oracle import Call, CallFormatError
from oracle.spec import Rulebook

from conformance.generate.cells import Cell, ambiguity_ids, cells
from conformance.generate.edges import sweep, targets
from conformance.generate.case import EXPECTATIONS, Case
from conformance.generate.memory import MemoryRecipe

FROZEN_PATH = Path(__file__).parent / "frozen_cases.jsonl.gz"
EXAMPLES = 200          # cases drawn per cell: nearly every tag more draws reach (benchmarks/ and the frozen tests)
HEAVY_VALUES = 1024     # a case laying more values than this into memory is big (see pool_heavy)


class FrozenDataError(ValueError):
    """The frozen data file is missing or malformed; the message names the file (and line)."""


# ---------------------------------------------------------------------------------------------- drawing


def draw_cases(cell: Cell, examples: int, rulebook: Rulebook) -> list[Case]:
    """The cell's edge sweep (conformance/generate/edges.py), then the cases a seeded search of `cell` generates,
    both drawn from `rulebook`. The seed is the cell id's crc32, so a cell's cases do not depend on which
    other cells are frozen."""
    return sweep(cell, rulebook) + cell.draw(examples, zlib.crc32(cell.id.encode()), rulebook)


def case_line(cell_id: str, case: Case) -> str:
    """One case as a compact JSON line (the file's unit; its length is the case's size)."""
    data = {"cell": cell_id, "call": case.call.to_dict(), "memory": case.memory.to_dict(),
            "expect": case.expect, "rule": case.rule, "tags": list(case.tags)}
    return json.dumps(data, separators=(",", ":"), ensure_ascii=True)


def written_values(case: Case) -> int:
    """How many values the case lays into memory (offset tensors): what makes a case big."""
    return sum(len(w.values) for w in case.memory.writes)


def choose(tag_sets: Sequence[frozenset[str]], sizes: Sequence[int], need: Iterable[str] | None = None) -> list[int]:
    """Indices of a small subset covering `need` (default: every tag) as far as the sets reach: greedy
    set cover (most new tags first, then the smallest case, then the earliest), then the picks made
    redundant by later ones dropped, largest first."""
    wanted = set(need) if need is not None else set().union(*tag_sets)
    uncovered, chosen = set(wanted), []
    while uncovered and tag_sets:
        best = max(range(len(tag_sets)), key=lambda i: (len(tag_sets[i] & uncovered), -sizes[i], -i))
        if not tag_sets[best] & uncovered:
            break                           # the rest is out of these cases' reach
        chosen.append(best)
        uncovered -= tag_sets[best]
    for i in sorted(chosen, key=lambda i: (-sizes[i], -i)):
        others = set().union(*(tag_sets[j] for j in chosen if j != i))
        if tag_sets[i] & wanted <= others:
            chosen.remove(i)
    return sorted(chosen)


@dataclass
class CellPick:
    """One cell's share of the list: its chosen cases, and the big cases that alone reach some of its
    tags (candidates for the pooled cover of its api and product)."""

    cell: str
    lines: list[str]
    heavy: list[tuple[frozenset[str], int, str]]     # (tags only big cases reach, size, line)
    tags: int                                       # distinct tags the cell's search reached


def freeze_cell(cell: Cell, examples: int, rulebook: Rulebook, heavy_values: int = HEAVY_VALUES) -> CellPick:
    """Draw the cell's cases from `rulebook`; cover its tags with light cases (at most `heavy_values`
    written values), at least one case, and its reachable edges (edges.targets) with any; offer the heavy
    cases that reach further tags as candidates, the smallest per distinct set of such tags (keeps what
    travels back from a worker small)."""
    drawn = draw_cases(cell, examples, rulebook)
    lines = [case_line(cell.id, c) for c in drawn]
    tag_sets = [frozenset(c.tags) for c in drawn]
    sizes = [len(line) for line in lines]
    light = [i for i, c in enumerate(drawn) if written_values(c) <= heavy_values]
    picked = [light[i] for i in choose([tag_sets[i] for i in light], [sizes[i] for i in light])]
    if not picked and drawn:
        picked = [min(range(len(drawn)), key=lambda i: (sizes[i], i))]
    reached = set().union(*(tag_sets[i] for i in picked))
    edges = set(targets(cell, rulebook)) - reached    # every edge in the cell itself, a big case if need be
    picked += choose(tag_sets, sizes, edges) if edges else []
    picked = sorted(set(picked))
    reached = set().union(*(tag_sets[i] for i in picked))
    heavy: dict[frozenset[str], tuple[int, str]] = {}
    for i in range(len(drawn)):
        extra = tag_sets[i] - reached
        if extra and (extra not in heavy or sizes[i] < heavy[extra][0]):
            heavy[extra] = (sizes[i], lines[i])
    return CellPick(cell.id, [lines[i] for i in picked], [(t, s, line) for t, (s, line) in heavy.items()],
                    len(set().union(*tag_sets)))


def pool_heavy(picks: list[CellPick], cell_list: list[Cell]) -> int:
    """Cover the tags only big cases reach once per api and product (all products that refuse the api
    count as one), not once per cell, adding the chosen cases to their cells; legal cells' cases first.
    Returns how many (cell, tag) pairs were left to this pooled cover.

    Why: a tag such as `count=largest-fit` on Scatter / asc_gather needs an offset tensor filling the
    UB (tens of thousands of numbers); one per cell would make the file several MB."""
    supported = {(c.api, c.product) for c in cell_list if c.expect == "legal"}
    expect = {c.id: c.expect for c in cell_list}
    groups: dict[tuple[str, str | None], list[tuple[CellPick, frozenset[str], int, str]]] = {}
    pooled = 0
    for pick in picks:
        api, product = pick.cell.split("/")[:2]
        key = (api, product if (api, product) in supported else None)
        groups.setdefault(key, []).extend((pick, t, s, line) for t, s, line in pick.heavy)
        pooled += len(set().union(*(t for t, _, _ in pick.heavy)))
    for key in sorted(groups, key=str):
        need = set().union(*(t for _, t, _, _ in groups[key]))
        for legal_only in (True, False):
            cands = [c for c in groups[key] if not legal_only or expect[c[0].cell] == "legal"]
            for i in choose([t for _, t, _, _ in cands], [s for _, _, s, _ in cands], need):
                cands[i][0].lines.append(cands[i][3])
                need -= cands[i][1]
    return pooled


# ---------------------------------------------------------------------------------------------- writing


# The rulebook a forked pool's workers draw from: handed to each worker as it starts (_freeze_all), the
# very object of the process that forked it, so that the caches made for it there serve the worker too.
_WORKER: dict[str, Rulebook] = {}


def _take_rulebook(rulebook: Rulebook) -> None:
    _WORKER["rulebook"] = rulebook


def _freeze_star(args: tuple[Cell, int, int]) -> CellPick:
    cell, examples, heavy_values = args
    return freeze_cell(cell, examples, _WORKER["rulebook"], heavy_values)


def _freeze_all(todo: list[Cell], examples: int, heavy_values: int, workers: int, rulebook: Rulebook
                ) -> list[CellPick]:
    """freeze_cell over every cell, in a pool when workers > 1 (forked: the workers draw as this process
    does, from the same rulebook, which a fork passes without pickling); the result does not depend on
    `workers`."""
    if workers <= 1 or len(todo) < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return [freeze_cell(cell, examples, rulebook, heavy_values) for cell in todo]
    jobs = [(cell, examples, heavy_values) for cell in todo]
    forked = multiprocessing.get_context("fork")
    with forked.Pool(workers, initializer=_take_rulebook, initargs=(rulebook,)) as pool:
        return pool.map(_freeze_star, jobs, chunksize=1)


def _gzip_bytes(lines: Iterable[str]) -> bytes:
    """Lines, sorted, gzip'd with mtime 0 and no file name: equal cases give equal bytes."""
    text = "".join(line + "\n" for line in sorted(lines)).encode("ascii")
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, compresslevel=9, mtime=0) as out:
        out.write(text)
    return buffer.getvalue()


def freeze(products: Sequence[str] | None = None, examples: int = EXAMPLES, path: Path | str = FROZEN_PATH,
           *, rulebook: Rulebook, apis: Sequence[str] | None = None, heavy_values: int = HEAVY_VALUES,
           workers: int | None = None) -> dict[str, Any]:
    """Draw `examples` cases per cell of `products` (default: all of `rulebook`'s; `apis` narrows) from
    `rulebook`, keep a small boundary-covering set per cell, write them to `path` and return stats: cases
    per api, cells, bytes, the file's hash, distinct tags reached per cell summed (`tags`, of which
    `tags_pooled` reached per api and product only) and the cells no call could be made for (`unreachable`)."""
    started = time.perf_counter()
    products = list(products) if products else list(rulebook.products)
    todo = cells(products, apis, rulebook=rulebook, ambiguities=ambiguity_ids(apis, rulebook=rulebook))
    workers = workers if workers is not None else (os.cpu_count() or 1)
    picks = _freeze_all(todo, examples, heavy_values, workers, rulebook)
    ordinary = [c.expect != "ambiguity" for c in todo]        # the ambiguity cells left out of the pooled cover
    pooled = pool_heavy([p for p, o in zip(picks, ordinary) if o], [c for c, o in zip(todo, ordinary) if o])
    data = _gzip_bytes(line for pick in picks for line in pick.lines)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    load_frozen.cache_clear()
    per_api: Counter[str] = Counter()
    for pick in picks:
        per_api[pick.cell.split("/", 1)[0]] += len(pick.lines)
    return {"path": str(path), "examples": examples, "cells": len(todo),
            "cases": sum(per_api.values()), "cases_per_api": dict(sorted(per_api.items())),
            "tags": sum(pick.tags for pick in picks), "tags_pooled": pooled,
            "unreachable": [pick.cell for pick in picks if not pick.lines],
            "bytes": len(data), "hash": hashlib.sha256(data).hexdigest()[:16],
            "seconds": round(time.perf_counter() - started, 1)}


# ---------------------------------------------------------------------------------------------- reading


def _text(path: Path) -> str:
    try:
        return gzip.decompress(path.read_bytes()).decode("ascii")
    except FileNotFoundError:
        raise FrozenDataError(f"{path}: frozen case list not found; regenerate with "
                              "`python -m conformance.generate.frozen`") from None
    except (OSError, EOFError, zlib.error, UnicodeDecodeError) as exc:
        raise FrozenDataError(f"{path}: not a gzip'd ASCII JSON-lines file ({exc})") from None


def _case(data: Any) -> tuple[str, Case]:
    """(cell id, case) from one parsed line; CallFormatError naming the field if anything is off."""
    keys = {"cell", "call", "memory", "expect", "rule", "tags"}
    if not isinstance(data, dict) or set(data) != keys:
        raise CallFormatError(f"expected an object with keys {', '.join(sorted(keys))}")
    if not isinstance(data["cell"], str) or not data["cell"]:
        raise CallFormatError(f"cell: expected a cell id, got {data['cell']!r}")
    if data["expect"] not in EXPECTATIONS:
        raise CallFormatError(f"expect: expected one of {', '.join(EXPECTATIONS)}, got {data['expect']!r}")
    if data["rule"] is not None and not isinstance(data["rule"], str):
        raise CallFormatError(f"rule: expected a rule id or null, got {data['rule']!r}")
    tags = data["tags"]
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise CallFormatError("tags: expected a list of strings")
    call = Call.from_dict(data["call"], "call")
    memory = MemoryRecipe.from_dict(data["memory"], "memory")
    return data["cell"], Case(call, memory, data["expect"], data["rule"], tuple(tags))


_CELL_FIRST = '{"cell":"'       # how case_line starts a line: the cell id is read off it without parsing


class FrozenCases(Mapping):
    """Cell id -> its frozen cases. Reading the file only sorts its lines by cell; a cell's lines become
    cases when the cell is first asked for. A worker so makes the cases of the cells it runs alone (parsing
    all of them would delay `certify`'s start, before any worker began), and `count` tells how many a cell
    has without making them. A malformed line is a FrozenDataError when its cell is asked for, naming the
    file and line."""

    def __init__(self, path: Path, lines: dict[str, list[tuple[int, str]]]):
        self.path, self._lines, self._made = path, lines, {}

    def __getitem__(self, cell_id: str) -> list[Case]:
        made = self._made.get(cell_id)
        if made is None:
            made = self._made[cell_id] = [self._case(cell_id, n, line) for n, line in self._lines[cell_id]]
        return made

    def _case(self, cell_id: str, number: int, line: str) -> Case:
        cell, case = _read_line(self.path, number, line)
        if cell != cell_id:
            raise FrozenDataError(f"{self.path}, line {number}: malformed frozen case: cell: {cell!r} is written "
                                  f"with escapes (read as {cell_id!r})")
        return case

    def __iter__(self) -> Iterator[str]:
        return iter(self._lines)

    def __len__(self) -> int:
        return len(self._lines)

    def __contains__(self, cell_id: object) -> bool:
        return cell_id in self._lines

    def count(self, cell_id: str) -> int:
        """The cell's frozen cases, counted without making them."""
        return len(self._lines.get(cell_id, ()))


@functools.lru_cache(maxsize=None)
def _load(path: Path) -> FrozenCases:
    lines: dict[str, list[tuple[int, str]]] = {}
    for number, line in enumerate(_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        cell_id = cell_of_line(line)
        if cell_id is None:             # not as case_line writes it: the line parsed now, for its cell
            cell_id = _read_line(path, number, line)[0]
        lines.setdefault(cell_id, []).append((number, line))
    return FrozenCases(path, lines)


def cell_of_line(line: str) -> str | None:
    """The cell id case_line writes first in its line, read off it without parsing (None: not so written)."""
    end = line.find('"', len(_CELL_FIRST)) if line.startswith(_CELL_FIRST) else -1
    return line[len(_CELL_FIRST):end] if end > len(_CELL_FIRST) else None


def case_of_line(line: str) -> tuple[str, Case]:
    """(cell id, case) of a line case_line wrote; ValueError (CallFormatError, JSONDecodeError) if it is off."""
    return _case(json.loads(line))


def _read_line(path: Path, number: int, line: str) -> tuple[str, Case]:
    """(cell id, case) of line `number` of the file; FrozenDataError naming the file and line if it is off."""
    try:
        return case_of_line(line)
    except (json.JSONDecodeError, CallFormatError) as exc:
        raise FrozenDataError(f"{path}, line {number}: malformed frozen case: {exc}") from None


def load_frozen(path: Path | str = FROZEN_PATH) -> FrozenCases:
    """Cell id -> its frozen cases, read once per process (the file is package data: it does not change
    under a running process; freeze() clears the cache when it writes)."""
    return _load(Path(path).resolve())


load_frozen.cache_clear = _load.cache_clear         # type: ignore[attr-defined]


def frozen_hash(path: Path | str = FROZEN_PATH) -> str:
    """The first 16 hex digits of the file's sha256: names the case list a report was made with."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]
    except FileNotFoundError:
        raise FrozenDataError(f"{path}: frozen case list not found; regenerate with "
                              "`python -m conformance.generate.frozen`") from None


def main(argv: Sequence[str] | None = None) -> int:
    """Regenerate the packaged file for every product of the kit's own specs and print the stats (a
    command: it loads the rulebook it hands down)."""
    from oracle.spec import default_rulebook
    examples = int(argv[0]) if argv else EXAMPLES
    stats = freeze(examples=examples, rulebook=default_rulebook())
    print(json.dumps(stats, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
