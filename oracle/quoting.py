"""A value from a file or a backend, quoted in a one-line message: text as its repr, anything else as
JSON (what it could not hold as its repr), cut to `limit` characters. Error messages quote the value
they refuse; a value may be megabytes."""
from __future__ import annotations

import json
from typing import Any


def quoted(value: Any, limit: int = 80) -> str:
    """`value` quoted in at most `limit` characters (the last three '...' where it was cut)."""
    text = repr(value) if isinstance(value, str) else json.dumps(value, sort_keys=True, ensure_ascii=False, default=repr)
    return text if len(text) <= limit else text[:limit - 3] + "..."
