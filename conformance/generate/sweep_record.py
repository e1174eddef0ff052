"""Each cell's edge sweep as recorded, read by a run instead of drawn where it was made from this very kit.

The sweep (edges.py) is the same calls on every run: it is drawn from no seed, only from the kit's drawing
code, the specs and the GM window, and some of its plans take many tries (benchmarks/bench.py times it).
Reading the calls back is far cheaper. So `sweeps/` holds one file per product and API: a head line with
the key it was made under and the cells it holds, then each cell's cases in sweep order
(frozen.case_line); none for an API whose record would be large (RECORD_LIMIT). The key is a digest of
every source file of `oracle/` and `conformance/generate/`, of the spec files and of the GM window: a
record made from anything else than what would draw the sweep now, or a file that is not what this module
writes, is passed over, and the sweep is drawn. The calls are the same either way
(tests/generate/test_sweep_record.py draws them again).

Made by `python -m conformance.generate.sweep_record` whenever the drawing code or the specs change.
"""
from __future__ import annotations

import functools
import gzip
import hashlib
import json
import sys
import zlib
from pathlib import Path
from typing import Sequence

from oracle.spec import Rulebook

from conformance.generate.case import Case
from conformance.generate.cells import Cell
from conformance.generate.edges import sweep
from conformance.generate.environment import DEFAULT_GM_WINDOW
from conformance.generate.frozen import case_line, case_of_line, cell_of_line

RECORD = Path(__file__).resolve().parent / "sweeps"
# A record larger than this is not kept: the offset APIs' sweeps, whose drawn offsets are most of their
# bytes and read back slowly enough that a record would weigh on the kit more than it saves.
RECORD_LIMIT = 256 << 10
_DRAWING_CODE = (Path(__file__).resolve().parents[2] / "oracle", Path(__file__).resolve().parent)


@functools.lru_cache(maxsize=1)
def code_digest() -> str:
    """A digest of the drawing code: every .py file under oracle/ and conformance/generate/, by its path
    below the kit's root and its bytes."""
    root = _DRAWING_CODE[1].parents[1]
    h = hashlib.sha256()
    for folder in _DRAWING_CODE:
        for path in sorted(folder.rglob("*.py")):
            h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def key(rulebook: Rulebook, gm_window: int = DEFAULT_GM_WINDOW) -> str:
    """What a sweep is drawn from: the drawing code, the specs and the GM window."""
    return hashlib.sha256(f"{code_digest()}|{rulebook.digest}|{gm_window}".encode()).hexdigest()


def swept(cell: Cell, rulebook: Rulebook, gm_window: int = DEFAULT_GM_WINDOW) -> list[Case]:
    """The cell's sweep (edges.sweep), read from the record where one was made under this key and its
    lines for the cell all read as cases; drawn otherwise."""
    lines = _recorded(cell.product, cell.api, key(rulebook, gm_window)).get(cell.id)
    if lines is not None:
        try:
            return [case_of_line(line)[1] for line in lines]
        except ValueError:
            pass
    return sweep(cell, rulebook, gm_window)


def path(product: str, api: str) -> Path:
    return RECORD / f"{product}.{api}.jsonl.gz"


@functools.lru_cache(maxsize=32)
def _recorded(product: str, api: str, want: str) -> dict[str, list[str]]:
    """The record's lines per cell id, where its head names the key `want`; {} where the file is missing,
    made under another key, or not a record at all."""
    try:
        head, *lines = gzip.decompress(path(product, api).read_bytes()).decode("utf-8").splitlines()
        found = json.loads(head)
    except (OSError, EOFError, ValueError, zlib.error):
        return {}
    if not isinstance(found, dict) or found.get("key") != want or not isinstance(found.get("cells"), list):
        return {}
    cells: dict[str, list[str]] = {cell: [] for cell in found["cells"] if isinstance(cell, str)}
    for line in lines:
        cases = cells.get(cell_of_line(line) or "")
        if cases is None:
            return {}
        cases.append(line)
    return cells


def record_lines(product: str, api: str, cells: Sequence[Cell], rulebook: Rulebook,
                 gm_window: int = DEFAULT_GM_WINDOW) -> list[str]:
    """The record of `cells` (one product's cells of one API): its head, then each cell's sweep."""
    lines = [json.dumps({"key": key(rulebook, gm_window), "product": product, "api": api,
                         "cells": [cell.id for cell in cells]}, separators=(",", ":"))]
    for cell in cells:
        lines += [case_line(cell.id, case) for case in sweep(cell, rulebook, gm_window)]
    return lines


def _record_one(job: tuple[str, str]) -> tuple[str, str, bytes]:
    from oracle.spec import load_rulebook
    from conformance.generate.cells import ambiguity_ids, cells
    product, api = job
    rulebook = load_rulebook()
    chosen = cells([product], [api], rulebook=rulebook, ambiguities=ambiguity_ids(rulebook=rulebook))
    text = "\n".join(record_lines(product, api, chosen, rulebook)) + "\n"
    return product, api, gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)


def record(workers: int = 2) -> list[Path]:
    """Write the record of every product and API the specs define (but those over RECORD_LIMIT), replacing
    what `sweeps/` held."""
    from multiprocessing import Pool

    from oracle.spec import load_rulebook
    from conformance.generate.cells import ambiguity_ids, cells
    rulebook = load_rulebook()
    every = cells(sorted(rulebook.products), rulebook=rulebook, ambiguities=ambiguity_ids(rulebook=rulebook))
    jobs = sorted({(cell.product, cell.api) for cell in every})
    RECORD.mkdir(exist_ok=True)
    for old in RECORD.glob("*.jsonl.gz"):
        old.unlink()
    with Pool(workers) as pool:
        made = pool.map(_record_one, jobs, chunksize=1)
    written = []
    for product, api, data in made:
        if len(data) <= RECORD_LIMIT:
            path(product, api).write_bytes(data)
            written.append(path(product, api))
    _recorded.cache_clear()
    return written


def main(argv: Sequence[str] | None = None) -> int:
    written = record()
    size = sum(p.stat().st_size for p in written)
    print(f"{len(written)} records, {size / 1e6:.1f} MB, in {RECORD}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = ["swept", "key", "code_digest", "record", "record_lines", "path"]
