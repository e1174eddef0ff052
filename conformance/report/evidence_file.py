"""The evidence file of a report folder (conformance/judge/evidence.py says what an entry is): one gzip'd
JSON line per part of a cell that ran, `{"cell", "part", "shrink_stopped", "entries"}`, sorted by cell
and part, made the same way from the same evidence (no time in the gzip header), so that results.json
can name it by digest."""
from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path
from typing import Any, Mapping

from conformance.report.files import write_atomic

NAME = "evidence.jsonl.gz"


def evidence_bytes(parts: Mapping[tuple[str, int], Mapping[str, Any]]) -> bytes:
    lines = [json.dumps({"cell": cell, "part": part, "shrink_stopped": parts[cell, part].get("shrink_stopped"),
                         "entries": list(parts[cell, part].get("entries") or [])}, separators=(",", ":"))
             for cell, part in sorted(parts)]
    return gzip.compress(("\n".join(lines) + "\n").encode() if lines else b"", compresslevel=6, mtime=0)


def evidence_file(parts: Mapping[tuple[str, int], Mapping[str, Any]]) -> tuple[bytes, dict[str, Any]]:
    """The file's bytes, and what results.json says of it (its name, digest and how many calls it holds)."""
    data = evidence_bytes(parts)
    return data, {"file": NAME, "sha256": hashlib.sha256(data).hexdigest(),
                  "calls": sum(len(p.get("entries") or ()) for p in parts.values())}


def put_evidence(folder: Path, data: bytes) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    write_atomic(folder / NAME, data)
