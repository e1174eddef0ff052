"""Strings a backend chose (names, versions, messages, errors), made safe for each place they are shown.

A backend may send any string: lone surrogates, NUL, ESC sequences, megabytes. results.json keeps them
losslessly (outputs.py); everywhere else they pass through one function per format, here:

    printable(s)    the terminal: every control, surrogate and non-character as a visible escape,
                    one line, cut to a length a person reads
    markup(s)       XML 1.0 and HTML text: the characters those formats forbid as visible escapes
                    (tab, newline and carriage return stay); the markup's own escaping is the
                    serializer's (ElementTree, jinja autoescape)
    cut(s)          a field as a report shows it, at most SHOWN_CHARS characters of it
"""
from __future__ import annotations

import functools
import re
import shlex
from typing import Any

TERMINAL_CHARS = 4000       # most characters of one field printed on the terminal
SHOWN_CHARS = 100_000       # most characters of one field in junit.xml and the HTML (results.json has all)

# Forbidden in XML 1.0 (and parse errors in HTML): C0 controls but tab/LF/CR, C1 controls and DEL
# (allowed by XML but invisible and dangerous on a terminal that shows the file), surrogates,
# U+FFFE/U+FFFF and the other non-characters. Inclusive ranges of code points.
_NOT_MARKUP = [(0x00, 0x08), (0x0B, 0x0C), (0x0E, 0x1F), (0x7F, 0x9F), (0xD800, 0xDFFF), (0xFDD0, 0xFDEF),
               *((plane + 0xFFFE, plane + 0xFFFF) for plane in range(0, 0x110000, 0x10000))]
# On the terminal also tab, newline, carriage return, the line / paragraph separators and the
# direction marks and overrides: a message must not start a line of its own that looks like the kit's
# ("CONFORMANT: ...") nor turn the rest of one around.
_NOT_TERMINAL = [*_NOT_MARKUP, (0x09, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029), (0x200E, 0x200F), (0x202A, 0x202E),
                 (0x2066, 0x2069)]
_SHORT = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def escape_char(ch: str) -> str:
    """`\\n`, `\\x1b`, `\\udc80`, `\\U0001fffe`: the escape Python itself would write."""
    code = ord(ch)
    return _SHORT.get(ch) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000
                              else f"\\U{code:08x}")


class _Escapes:
    """A set of characters to escape: a regex that finds one, and a table for str.translate (a message
    of 100 MB of ESC is escaped in seconds, where a regex callback per character takes minutes)."""

    def __init__(self, ranges: list[tuple[int, int]]):
        self.ranges = ranges
        self.find = re.compile("[" + "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in ranges) + "]")

    @functools.cached_property
    def table(self) -> dict[int, str]:
        """Made when a string first needs it (thousands of entries: a cost at every start if made on import)."""
        return {code: escape_char(chr(code)) for a, b in self.ranges for code in range(a, b + 1)}

    def __call__(self, value: Any) -> str:
        text = value if isinstance(value, str) else str(value)
        return text.translate(self.table) if self.find.search(text) else text


_markup, _terminal = _Escapes(_NOT_MARKUP), _Escapes(_NOT_TERMINAL)


def printable(value: Any, limit: int = TERMINAL_CHARS) -> str:
    """`value` as text for the terminal: one line, no raw control sequence, at most `limit` characters
    of it (the rest counted, not printed)."""
    text = value if isinstance(value, str) else str(value)
    more = len(text) - limit
    shown = _terminal(text[:limit] if more > 0 else text)
    return shown + (f"... ({more} more characters)" if more > 0 else "")


def cut(value: Any, limit: int = SHOWN_CHARS) -> str:
    """A field as a report shows it: at most `limit` characters, and how many more results.json holds
    (a page of 200 MB helps nobody)."""
    text = value if isinstance(value, str) else str(value)
    more = len(text) - limit
    return text if more <= 0 else f"{text[:limit]}... ({more} more characters in results.json)"


def markup(value: Any) -> str:
    """`value` as text an XML 1.0 or HTML document may hold (escaping <, & and quotes is left to the
    serializer)."""
    return _markup(value)


def replay_command(reproducer: str, backend_spec: str, against: str | None = None, oracle: bool = True,
                   readings: dict[str, str] | None = None) -> str:
    """The command that replays a reproducer, shell-quoted so that it can be pasted as it is (an
    `exec:` backend's command line with spaces and quotes included); with the backend it was held
    against, for a divergence; with a `--reading` per reading the run's command line declared."""
    words = ["ascend-conformance", "replay", reproducer, "--backend", backend_spec]
    if against:
        words += ["--against", against] + ([] if oracle else ["--no-oracle"])
    for amb, reading in sorted((readings or {}).items()):
        words += ["--reading", f"{amb}={reading}"]
    return shlex.join(words)

