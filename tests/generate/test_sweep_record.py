"""The recorded edge sweeps (conformance/generate/sweep_record.py): current, the very calls edges.sweep draws,
read by a run, and passed over wherever they are not what the module writes under this kit's key."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from oracle.spec import load_rulebook

from conformance.backends.contract import OracleBackend
from conformance.generate import sweep_record
from conformance.generate.cells import ambiguity_ids, cells
from conformance.generate.edges import sweep
from conformance.generate.frozen import case_line
from conformance.generate.profiles import profile
from conformance.judge.runner import run_cell

RULEBOOK = load_rulebook()
RECORDS = sorted(sweep_record.RECORD.glob("*.jsonl.gz"))


def _cells(product: str, api: str):
    return cells([product], [api], rulebook=RULEBOOK, ambiguities=ambiguity_ids(rulebook=RULEBOOK))


def _head(path: Path) -> dict:
    return json.loads(gzip.decompress(path.read_bytes()).decode().split("\n", 1)[0])


def test_the_light_apis_are_recorded() -> None:
    recorded = {(_head(p)["product"], _head(p)["api"]) for p in RECORDS}
    for api in ("data_move", "data_copy", "data_copy_pad", "data_copy_nz2nd", "vec_trans_scatter"):
        assert ("ascend910b", api) in recorded


@pytest.mark.parametrize("path", RECORDS, ids=[p.name for p in RECORDS])
def test_a_record_is_current_and_holds_the_sweep_drawn_now(path: Path) -> None:
    """Made under the key the kit has now (re-record with `python -m conformance.generate.sweep_record`
    after changing the drawing code or the specs), and holding, cell by cell, the calls edges.sweep draws."""
    head = _head(path)
    assert head["key"] == sweep_record.key(RULEBOOK), \
        f"{path.name} is stale: run python -m conformance.generate.sweep_record"
    chosen = _cells(head["product"], head["api"])
    assert head["cells"] == [c.id for c in chosen]
    for cell in chosen:
        read = [case_line(cell.id, c) for c in sweep_record.swept(cell, RULEBOOK)]
        assert read == [case_line(cell.id, c) for c in sweep(cell, RULEBOOK)], cell.id


def _planted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: bytes, api: str = "data_move") -> None:
    monkeypatch.setattr(sweep_record, "RECORD", tmp_path)
    sweep_record._recorded.cache_clear()
    (tmp_path / f"ascend910b.{api}.jsonl.gz").write_bytes(text)


def _record_text(lines: list[str]) -> bytes:
    return gzip.compress(("\n".join(lines) + "\n").encode())


@pytest.fixture
def data_move_cells():
    yield _cells("ascend910b", "data_move")
    sweep_record._recorded.cache_clear()


def _drawn(cell) -> list[str]:
    return [case_line(cell.id, c) for c in sweep(cell, RULEBOOK)]


def _read(cell) -> list[str]:
    return [case_line(cell.id, c) for c in sweep_record.swept(cell, RULEBOOK)]


def test_a_record_is_read_where_its_key_is_the_kits(tmp_path, monkeypatch, data_move_cells) -> None:
    """A record with one case fewer in a cell: that is what swept gives (so the record, not a draw, is read)."""
    lines = sweep_record.record_lines("ascend910b", "data_move", data_move_cells, RULEBOOK)
    cell = data_move_cells[0]
    first = next(i for i, line in enumerate(lines) if line.startswith(f'{{"cell":"{cell.id}"'))
    del lines[first]
    _planted(tmp_path, monkeypatch, _record_text(lines))
    assert _read(cell) == _drawn(cell)[1:]


@pytest.mark.parametrize("spoil", ["key", "truncated", "not gzip", "unknown cell", "bad head", "bad case"])
def test_a_record_not_made_under_this_key_is_passed_over(tmp_path, monkeypatch, data_move_cells, spoil) -> None:
    lines = sweep_record.record_lines("ascend910b", "data_move", data_move_cells, RULEBOOK)
    cell = data_move_cells[0]
    mine = [i for i, line in enumerate(lines) if line.startswith(f'{{"cell":"{cell.id}"')]
    del lines[mine[0]]                  # what the record would give, were it read
    if spoil == "key":
        head = json.loads(lines[0])
        head["key"] = "0" * 64
        lines[0] = json.dumps(head)
    elif spoil == "unknown cell":
        lines.append(lines[mine[0]].replace(cell.id, cell.id + "x", 1))
    elif spoil == "bad head":
        lines[0] = "[1, 2"
    elif spoil == "bad case":
        lines[mine[0]] = lines[mine[0]].replace('"call":{', '"call":{"x":1,', 1)
    text = _record_text(lines)
    if spoil == "truncated":
        text = text[:len(text) // 2]
    elif spoil == "not gzip":
        text = b"\x00" * 64
    _planted(tmp_path, monkeypatch, text)
    assert _read(cell) == _drawn(cell)


def test_a_run_judges_the_recorded_sweep(tmp_path, monkeypatch, data_move_cells) -> None:
    cell = data_move_cells[0]
    lines = sweep_record.record_lines("ascend910b", "data_move", data_move_cells, RULEBOOK)
    kept = [line for line in lines[1:] if not line.startswith(f'{{"cell":"{cell.id}"')]
    _planted(tmp_path, monkeypatch, _record_text([lines[0], *kept]))     # the cell's sweep: no call
    result = run_cell(cell, OracleBackend(), profile("ci"), 1, rulebook=RULEBOOK)
    assert result.sweep_calls == 0 and _drawn(cell)
