"""Writing a file of a report folder safely: whole or not at all (`write_atomic`), only inside the folder
asked for (`inside`), and JSON that keeps any string a backend sent (`json_text`)."""
from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPES = {code: f"\\u{code:04x}" for code in range(0xD800, 0xE000)}
def no_surrogates(value: Any) -> Any:
    """YAML cannot hold a lone surrogate (libyaml refuses its escape): it is written as the text of its
    escape, `\\udc80`, the one loss a reproducer has (results.json keeps it)."""
    if isinstance(value, str):
        return value.translate(_SURROGATE_ESCAPES) if _SURROGATE.search(value) else value
    if isinstance(value, dict):
        return {no_surrogates(k): no_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [no_surrogates(v) for v in value]
    return value


def json_text(data: Any) -> str:
    """JSON that holds any string a backend sent: a lone surrogate (which UTF-8 cannot encode) is
    written as its \\uXXXX escape, which reads back to the same string; other characters stay as
    they are, so the file remains readable. A document is laid out a field per line, and a field that
    is a list an element per line (a cell, a failure): one line per cell to grep and diff, each written
    by json's C encoder (indenting every level takes its Python one, at the end of every run)."""
    if isinstance(data, dict) and data and all(isinstance(k, str) for k in data):
        text = "{\n" + ",\n".join(f" {_json(k)}: {_json_field(v)}" for k, v in data.items()) + "\n}"
    else:
        text = _json(data)
    return text.translate(_SURROGATE_ESCAPES) if _SURROGATE.search(text) else text


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _json_field(value: Any) -> str:
    if isinstance(value, list) and value:
        return "[\n  " + ",\n  ".join(map(_json, value)) + "\n ]"
    return _json(value)


_UMASK = os.umask(0o022)
os.umask(_UMASK)
def write_atomic(path: Path, data: str | bytes) -> Path:
    """Write `data` (text as UTF-8) to `path` through a temporary file in the same folder renamed into
    place: readers see the old file or the new one, never half of one."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_UMASK)          # as an ordinary file would be, not mkstemp's 0600
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return path


def inside(folder: Path, name: str) -> Path:
    """folder/name for a name the kit built; refused if it would land outside the folder."""
    path = folder / name
    parts = Path(name).parts
    if Path(name).is_absolute() or ".." in parts or not parts:
        raise ValueError(f"{name!r}: not a path inside {folder}")
    return path
