"""The exec protocol's messages (docs/exec-protocol.md) as the kit writes and reads them: a request as one
line of JSON, a line read back as a reply, and a program's hello checked for what it must say.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from oracle.quoting import quoted

from conformance.backends.calling import backend_text
from conformance.backends.contract import BackendCrash

PROTOCOL = 1


COMPACT = json.JSONEncoder(separators=(",", ":"))     # json.dumps(..., separators=(",", ":")), made once


class RawJson(str):
    """JSON text already made (a call's), put into a request as it is."""


def request_line(message: dict[str, Any]) -> str:
    """A request as one line of JSON; a value that is RawJson text goes in as that text."""
    raw = {k: v for k, v in message.items() if isinstance(v, RawJson)}
    if not raw:
        return COMPACT.encode(message) + "\n"
    rest = COMPACT.encode({k: v for k, v in message.items() if k not in raw})
    return rest[:-1] + "".join(f",{COMPACT.encode(k)}:{v}" for k, v in raw.items()) + "}\n"


def run_line(ident: int, call: str, memory: str) -> str:
    """request_line's text of {"op": "run", "id": ident, "call": RawJson(call), "memory": RawJson(memory)},
    written out at once: a run's request, sent for every call."""
    return f'{{"op":"run","id":{ident},"call":{call},"memory":{memory}}}\n'


_TOLERANT = json.JSONDecoder(strict=False)     # json.loads(..., strict=False), its decoder made once
RAN_REPLY = re.compile(rb'\{"op":"ok","id":(0|[1-9][0-9]{0,17})\}')    # an `ok` reply as programs write it


def parse_reply(line: bytes) -> dict[str, Any] | None:
    """A line from the program as a reply (a JSON object), or None where it is not one. Bytes that are not
    UTF-8 and raw control characters in strings are tolerated. The commonest reply, `ok` written with no
    spaces, is read without the decoder."""
    ran = RAN_REPLY.fullmatch(line)
    if ran is not None:
        return {"op": "ok", "id": int(ran[1])}
    try:
        reply = _TOLERANT.decode(line.decode("utf-8", "surrogateescape"))
    except (ValueError, RecursionError):
        return None
    return reply if isinstance(reply, dict) else None


MAX_POINTS = 1 << 20            # points one reply may name (more: the rest is dropped)
MAX_POINT_TEXT = 512            # characters of one named point


def coverage_points(reply: dict[str, Any]) -> list[int | str]:
    """The points a reply's optional `coverage` field names: a list of ids (integers from 0) or names
    (strings), or a bitmap (a base64 string, bit i of byte i // 8 set: id i reached). Anything else, or
    no field, names none: coverage never makes a call fail."""
    field = reply.get("coverage")
    if isinstance(field, str):
        import base64
        import binascii
        try:
            bits = base64.b64decode(field[:MAX_POINTS // 6 + 4], validate=True)
        except (binascii.Error, ValueError):
            return []
        return [i * 8 + b for i, byte in enumerate(bits) if byte for b in range(8) if byte >> b & 1]
    if not isinstance(field, list):
        return []
    return [p for p in field[:MAX_POINTS] if (type(p) is int and p >= 0) or
            (type(p) is str and 0 < len(p) <= MAX_POINT_TEXT)]


def brief(value: Any) -> str:
    """A reply, or a value in one, quoted short enough for a crash message."""
    return quoted(value, 200)


@dataclass(frozen=True)
class Hello:
    """What a program says of itself in its answer to hello."""

    name: str
    version: str
    batch: bool                         # it takes batch requests
    readings: dict[str, str]            # ambiguity id -> reading id
    supports: dict[str, set[str]]       # api -> products ("*": every one)
    coverage_map: str | None = None     # the file naming the program's coverage points, where it has one


def read_hello(reply: dict[str, Any], hosted: str | None = None) -> Hello:
    """The program's answer to hello, checked; BackendCrash where it refuses the handshake (a `hosted`
    backend's own load error as it said it) or answers with anything but a well-formed hello."""
    if reply.get("op") == "error":
        said = backend_text(reply.get("message"))
        if hosted is not None and said.startswith(f"backend {hosted!r}"):
            raise BackendCrash(said)                # the hosted backend's own load error, as in process
        raise BackendCrash(backend_text(f"refused the handshake: {said}"))
    if reply.get("op") != "hello" or reply.get("protocol") != PROTOCOL:
        raise BackendCrash(f"answered hello with {brief(reply)} (expected a hello of protocol {PROTOCOL})")
    supports = reply.get("supports")
    if not isinstance(reply.get("name"), str) or not isinstance(supports, dict) or not all(
            isinstance(p, list) and all(isinstance(x, str) for x in p) for p in supports.values()):
        raise BackendCrash(f"its hello needs a string 'name' and 'supports': api -> [product, ...]; "
                           f"got {brief(reply)}")
    readings = reply.get("readings", {})
    if not isinstance(readings, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                 for k, v in readings.items()):
        raise BackendCrash(f"its hello's 'readings' must map ambiguity ids to reading ids (strings); "
                           f"got {brief(readings)}")
    return Hello(backend_text(reply["name"]), backend_text(reply.get("version") or ""), reply.get("batch") is True,
                 {backend_text(k): backend_text(v) for k, v in readings.items()},
                 {api: set(products) for api, products in supports.items()},
                 _coverage_map(reply.get("coverage")))


def _coverage_map(said: Any) -> str | None:
    """The hello's optional `coverage` object's `map`: the path of the file naming the points."""
    path = said.get("map") if isinstance(said, dict) else None
    return path if isinstance(path, str) and 0 < len(path) <= 4096 and "\0" not in path else None
