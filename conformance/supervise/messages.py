"""What a worker tells the supervisor, as plain data: one JSON document per message, checked on arrival.

Nothing a worker sends is unpickled: a process that reached a worker's end of the pipe could otherwise
make the supervisor run code of its choosing. A message that is not JSON, not of one of the four types or
not of its type's shape is unreadable, and the worker that sent it is not trusted again.
"""
from __future__ import annotations

import json
from typing import Any

MAX_BYTES = 256 << 20           # a cell's result with a failure holds its call's offsets: tens of MiB at most
MESSAGE_TYPES = {"ready": dict, "load_error": str, "found": dict, "done": dict}


class Unreadable(ValueError):
    """A message that is not what a worker sends."""


def encode(message_type: str, body: Any) -> bytes:
    return json.dumps([message_type, body], separators=(",", ":"), allow_nan=False).encode()


def decode(raw: bytes) -> tuple[str, Any]:
    """(type, body) of a message; Unreadable for anything else."""
    try:
        message = json.loads(raw)
    except (ValueError, RecursionError, UnicodeDecodeError):
        raise Unreadable("not JSON") from None
    if not isinstance(message, list) or len(message) != 2 or message[0] not in MESSAGE_TYPES:
        raise Unreadable("not a [type, body] pair of a known type")
    message_type, body = message
    if not isinstance(body, MESSAGE_TYPES[message_type]):
        raise Unreadable(f"a {message_type!r} message whose body is a {type(body).__name__}")
    if message_type == "done" and not _result_shaped(body):
        raise Unreadable("a result without its cell id and verdict counts")
    return message_type, body


def _result_shaped(body: dict[str, Any]) -> bool:
    """A cell's result (an id and counts of calls per verdict) or a replayed call's (its verdict)."""
    if "verdict" in body:
        return isinstance(body["verdict"], str)
    counts = body.get("counts")
    return (isinstance(body.get("id"), str) and isinstance(counts, dict)
            and all(isinstance(v, int) and not isinstance(v, bool) for v in counts.values()))
